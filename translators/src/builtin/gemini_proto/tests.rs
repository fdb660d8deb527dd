//! Unit tests of `gemini-proto`: one per named behaviour of the module doc.

use serde_json::{Value, json};

use super::GeminiProto;
use super::emit::never;
use crate::model::{Outcome, Translator};

fn project(source: Value) -> Value {
    match GeminiProto.translate(&source) {
        Outcome::Projected(p) => p.schema,
        Outcome::Refused(r) => panic!("refused: {r}"),
        Outcome::Crashed(c) => panic!("crashed: {c:?}"),
        Outcome::Faulted(f) => panic!("faulted: {f:?}"),
    }
}

fn object(property: Value) -> Value {
    json!({"type": "object", "properties": {"p": property}, "required": ["p"]})
}

#[test]
fn type_union_becomes_typed_branches_not_the_first_member() {
    let out = project(object(json!({"type": ["string", "integer", "null"]})));
    assert_eq!(out["properties"]["p"], json!({"anyOf": [{"type": "STRING", "nullable": true}, {"type": "INTEGER"}]}));
}

#[test]
fn string_enums_unite_in_order_and_large_ones_in_linear_time() {
    let out = project(object(json!({"enum": ["b", "a", "b", "c"]})));
    assert_eq!(out["properties"]["p"]["enum"], json!(["b", "a", "c"]));
    // Each value is a branch until united; pairwise that took minutes for 100,000 values.
    let values: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
    let started = std::time::Instant::now();
    let out = project(object(json!({"enum": values})));
    assert_eq!(out["properties"]["p"]["enum"].as_array().map(Vec::len), Some(100_000));
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
}

#[test]
fn counts_beyond_what_the_proto_writes_are_written_as_its_largest() {
    let out = project(object(json!({"type": "array", "items": {"type": "integer"}, "minItems": u64::MAX, "maxItems": u64::MAX})));
    assert_eq!(out["properties"]["p"]["minItems"], json!("999999999999999999"));
    assert_eq!(out["properties"]["p"]["maxItems"], json!("999999999999999999"));
    let out = project(object(json!({"type": "array", "items": {"type": "integer"}, "maxItems": 3})));
    assert_eq!(out["properties"]["p"]["maxItems"], json!("3"));
}

#[test]
fn numeric_const_is_pinned_not_stringified() {
    let out = project(object(json!({"const": 3})));
    assert_eq!(out["properties"]["p"], json!({"type": "NUMBER", "minimum": 3, "maximum": 3}));
}

#[test]
fn false_is_unsatisfiable_never_empty() {
    let out = project(json!({"type": "object", "properties": {"legacy": false}}));
    assert_eq!(out["properties"]["legacy"], never());
}

#[test]
fn closed_tuple_widens_to_a_union_with_max_items() {
    let out = project(object(json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false})));
    let p = &out["properties"]["p"];
    assert_eq!(p["items"]["anyOf"], json!([{"type": "STRING"}, {"type": "INTEGER"}]));
    assert_eq!(p["maxItems"], json!("2"));
}

#[test]
fn array_without_items_gets_items() {
    let out = project(object(json!({"type": "array"})));
    assert!(out["properties"]["p"]["items"]["anyOf"].is_array());
}

#[test]
fn mutual_recursion_is_cut() {
    let out = project(json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
        }
    }));
    assert!(out.to_string().contains("No value is valid here."), "{out}");
}

#[test]
fn all_of_merges_exactly() {
    let out = project(object(json!({"allOf": [{"type": "integer", "minimum": 1}, {"maximum": 5}]})));
    assert_eq!(out["properties"]["p"], json!({"type": "INTEGER", "minimum": 1, "maximum": 5}));
}

#[test]
fn non_object_root_is_refused() {
    assert!(matches!(GeminiProto.translate(&json!({"allOf": [{"type": "string"}]})), Outcome::Refused(r) if r.keyword() == "type"));
}

fn refusal(source: &Value) -> (String, String) {
    match GeminiProto.translate(source) {
        Outcome::Refused(r) => (r.keyword().to_owned(), r.pointer().to_owned()),
        other => panic!("projected: {other:?}"),
    }
}

#[test]
fn a_false_outside_the_proto_is_written_exactly_never_spilled() {
    let out = project(json!({"type": "object", "properties": {"p": {"type": "string", "not": {}}}}));
    assert_eq!(out["properties"]["p"], never(), "`not: {{}}` leaves no branch");
    let out = project(object(json!({"type": "string", "not": {}})));
    assert_eq!(out["required"], json!(["never"]), "required, it leaves no object at all: {out}");
    let out = project(object(json!({"type": ["array", "string"], "items": {"type": "string"}, "contains": false})));
    assert_eq!(out["properties"]["p"], json!({"type": "STRING"}), "`contains: false` leaves no ARRAY branch");
    let out = project(object(json!({"type": "array", "items": {"type": "string"}, "contains": false, "minContains": 0})));
    assert_eq!(out["properties"]["p"]["type"], json!("ARRAY"));
    let out = project(json!({"type": "object", "properties": {"a": {"type": "string"}}, "dependentSchemas": {"a": false, "b": false}}));
    assert_eq!(out["properties"], json!({"a": never(), "b": never()}), "a `false` entry forbids its property");
    let out = project(object(json!({"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": false})));
    assert_eq!(out["properties"]["p"]["maxItems"], json!("1"));
    assert!(!out.to_string().contains("unevaluatedItems"), "not spilled: {out}");
}

#[test]
fn a_false_that_cannot_be_written_is_refused_citing_its_keyword() {
    let cases = [
        (json!({"type": "object", "patternProperties": {"^x-": false}}), "patternProperties", ""),
        (json!({"type": "object", "dependentSchemas": {"t": {"properties": {"u": false}}}}), "dependentSchemas", ""),
        (json!({"type": "object", "unevaluatedProperties": false}), "unevaluatedProperties", ""),
        (json!({"type": "object", "propertyNames": false}), "propertyNames", ""),
        (object(json!({"if": {"type": "string"}, "else": false})), "else", "/properties/p"),
        (object(json!({"type": "array", "anyOf": [{"prefixItems": [{}]}, true], "unevaluatedItems": false})), "unevaluatedItems", "/properties/p"),
    ];
    for (source, keyword, pointer) in cases {
        assert_eq!(refusal(&source), (keyword.to_owned(), pointer.to_owned()), "{source}");
    }
}

#[test]
fn a_decided_if_is_its_then_or_its_else() {
    let out = project(object(json!({"if": {}, "then": {"type": "string"}, "else": {"type": "integer"}})));
    assert_eq!(out["properties"]["p"], json!({"type": "STRING"}));
    let out = project(object(json!({"if": {"not": {}}, "then": {"type": "string"}, "else": {"type": "integer"}})));
    assert_eq!(out["properties"]["p"], json!({"type": "INTEGER"}));
}
