//! Unit tests of `moonshot`: recursion detection, the normal form's named rewrites and the
//! documented limits.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::normal_form::recursive_definitions;
use super::{ALL_TYPES, translate};

fn project(source: Value) -> Value {
    translate(&source).expect("projects")
}

#[test]
fn recursion_is_found_on_cycles_only() {
    let defs: BTreeMap<String, Value> = [
        ("a", json!({"$ref": "#/$defs/b"})),
        ("b", json!({"items": {"$ref": "#/$defs/a"}})),
        ("self", json!({"properties": {"next": {"$ref": "#/$defs/self"}}})),
        ("leaf", json!({"$ref": "#/$defs/a"})),
        ("root", json!({"$ref": "#"})),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let found: Vec<String> = recursive_definitions(&defs).into_iter().collect();
    assert_eq!(found, ["a", "b", "self"]);
}

#[test]
fn a_long_chain_of_definitions_is_refused_or_projected_quickly_without_overflow() {
    // 5,000 definitions, each an array of the next: a search from every definition was
    // quadratic, and the limit walk recursed once per definition (a stack overflow).
    let mut defs = Map::new();
    for i in 0..5_000 {
        defs.insert(format!("d{i}"), json!({"type": "array", "items": {"$ref": format!("#/$defs/d{}", i + 1)}}));
    }
    defs.insert("d5000".to_owned(), json!({"type": "string"}));
    let source = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    let started = std::time::Instant::now();
    let refusal = translate(&source).expect_err("refused");
    assert_eq!(refusal.limit_name(), Some("max-depth"), "{refusal}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
}

#[test]
fn untyped_properties_get_every_type_they_admit_never_an_invented_string() {
    let out = project(json!({"type": "object", "properties": {"level": {"enum": ["a", "b"]}, "any": {"description": "anything"}}}));
    assert_eq!(out["properties"]["level"], json!({"type": "string", "enum": ["a", "b"]}));
    let any = &out["properties"]["any"];
    assert_eq!(any["description"], "anything");
    let types: Vec<&str> = any["anyOf"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ALL_TYPES);
}

#[test]
fn conjoined_keywords_combine_and_the_residue_goes_into_all_of() {
    // Two patterns: the second stays in an `allOf`; `propertyNames: true` conjoins to the
    // other side's schema, never to "no names".
    let out = project(json!({
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": "^a", "anyOf": [{"pattern": "b$"}]}},
        "propertyNames": true,
        "anyOf": [{"propertyNames": {"maxLength": 3}, "minProperties": 1}]
    }));
    assert_eq!(out["properties"]["p"], json!({"type": "string", "pattern": "^a", "allOf": [{"pattern": "b$"}]}));
    assert_eq!(out["propertyNames"], json!({"maxLength": 3}));
}

#[test]
fn type_beside_any_of_moves_into_each_branch() {
    // The string branch contradicts the parent's type and goes; one branch needs no union.
    let out = project(json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "string"}]}));
    assert_eq!(out, json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}));
    let out = project(json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": {}, "b": {}}}));
    assert!(out.get("type").is_none());
    assert_eq!(out["anyOf"][0]["type"], "object");
    assert_eq!(out["anyOf"][1]["required"], json!(["b"]));
}

#[test]
fn ref_with_description_is_wrapped_and_ref_with_constraints_inlined() {
    let out = project(json!({
        "type": "object",
        "$defs": {"id": {"type": "string", "pattern": "^[a-z]+$"}},
        "properties": {"a": {"$ref": "#/$defs/id", "description": "an id"}, "b": {"$ref": "#/$defs/id", "maxLength": 8}}
    }));
    assert_eq!(out["properties"]["a"], json!({"description": "an id", "anyOf": [{"$ref": "#/$defs/id"}]}));
    assert_eq!(out["properties"]["b"], json!({"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"}));
}

#[test]
fn false_property_and_closed_tuple_keep_their_meaning() {
    let out = project(json!({"type": "object", "properties": {"legacy": false, "point": {"type": "array", "prefixItems": [{"type": "number"}], "items": false}}}));
    assert_eq!(out["properties"]["legacy"], json!({"type": "null", "not": {}}));
    assert_eq!(out["properties"]["point"], json!({"type": "array", "prefixItems": [{"type": "number"}], "maxItems": 1}));
}

#[test]
fn references_through_embedded_resources_are_hoisted_to_plain_names() {
    let out = project(json!({
        "type": "object",
        "properties": {"value": {"$id": "urn:x", "$defs": {"a%b": {"type": "integer"}}, "$ref": "#/$defs/a%25b"}}
    }));
    assert_eq!(out["properties"]["value"], json!({"$ref": "#/$defs/ab"}));
    assert_eq!(out["$defs"]["ab"], json!({"type": "integer"}));
}

#[test]
fn documented_limits_refuse_by_name() {
    let reserved = translate(&json!({"type": "object", "properties": {"required": {"type": "string"}}})).unwrap_err();
    assert_eq!(reserved.limit_name(), Some("reserved-property-names"));
    let mut deep = json!({"type": "string"});
    for _ in 0..6 {
        deep = json!({"type": "object", "properties": {"x": deep}});
    }
    assert_eq!(translate(&deep).unwrap_err().limit_name(), Some("max-depth"));
}
