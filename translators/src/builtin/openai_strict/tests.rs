//! Unit tests of the strict translation. The contract trials hold it to its table on the corpus
//! and the suite; these pin what the oracle cannot see: the shapes strict mode demands (which the
//! grammar cannot fully state), the limits, the merge arithmetic, and that nothing panics.

use super::*;
use serde_json::json;

fn project_ok(schema: &Value) -> Projection {
    match OpenAiStrict.translate(schema) {
        Outcome::Projected(p) => p,
        Outcome::Refused(r) => panic!("refused: {r}\nschema: {schema}"),
        Outcome::Crashed(c) => panic!("crashed: {c:?}"),
        Outcome::Faulted(f) => panic!("faulted: {f:?}"),
    }
}

fn refusal(schema: &Value) -> Refusal {
    match OpenAiStrict.translate(schema) {
        Outcome::Refused(r) => r,
        Outcome::Projected(p) => panic!("projected: {}", p.schema),
        Outcome::Crashed(c) => panic!("crashed: {c:?}"),
        Outcome::Faulted(f) => panic!("faulted: {f:?}"),
    }
}

/// Every object in the projection is closed and requires exactly its declared properties: the
/// part of the strict subset the grammar (a JSON Schema) cannot state.
fn assert_strict_objects(projection: &Value) {
    for occurrence in walk::occurrences(projection).unwrap() {
        if occurrence.keyword != "type" || !Types::of_keyword(occurrence.value).unwrap().intersects(Types::OBJECT) {
            continue;
        }
        let node = projection.pointer(&occurrence.pointer).unwrap();
        assert_eq!(node["additionalProperties"], json!(false), "open object at `{}`", occurrence.pointer);
        let declared: Vec<&str> = node["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        let required: Vec<&str> = node["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(declared, required, "`required` must list every property at `{}`", occurrence.pointer);
    }
}

#[test]
fn optional_properties_become_nullable_sites_and_nullable_ones_do_not() {
    let p = project_ok(&json!({
        "type": "object",
        "properties": {
            "to": {"type": "string"},
            "cc": {"type": "string"},
            "mode": {"enum": ["r", "w"]},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "range": {"$ref": "#/$defs/range"}
        },
        "required": ["to"],
        "$defs": {"range": {"type": "object", "properties": {"start": {"type": "integer"}}}}
    }));
    assert_eq!(p.strict, Some(true));
    assert_eq!(p.schema["properties"]["cc"], json!({"type": ["string", "null"]}));
    assert_eq!(p.schema["properties"]["mode"], json!({"type": ["string", "null"], "enum": ["r", "w", null]}));
    assert_eq!(p.schema["properties"]["limit"], json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}), "already nullable: left as is");
    assert_eq!(p.schema["properties"]["range"], json!({"anyOf": [{"$ref": "#/$defs/range"}, {"type": "null"}]}));
    let Codec::NullMeansAbsent { sites } = &p.codec else { panic!("{:?}", p.codec) };
    let named: Vec<(&str, &str)> = sites.iter().map(|s| (s.object.as_str(), s.property.as_str())).collect();
    assert_eq!(named, [("", "cc"), ("", "mode"), ("", "range"), ("/$defs/range", "start")]);
    assert_strict_objects(&p.schema);
}

#[test]
fn closes_objects_and_declares_undeclared_required_names() {
    let p = project_ok(&json!({
        "type": "object",
        "properties": {
            "open": {"type": "object", "required": ["x"]},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"], "additionalProperties": false}
        },
        "required": ["open", "closed"]
    }));
    assert_eq!(p.schema["properties"]["open"]["properties"]["x"], json!({"$ref": "#/$defs/json_value"}));
    assert_eq!(p.schema["properties"]["closed"]["properties"]["ghost"], never(), "a closed object cannot hold an undeclared key");
    assert_strict_objects(&p.schema);
}

#[test]
fn false_is_never_an_empty_schema() {
    let p = project_ok(&json!({
        "type": "object",
        "properties": {"gone": false, "must": false, "items": {"type": "array", "items": false}, "u": {"anyOf": [false, {"type": "string"}]}},
        "required": ["must", "items", "u"]
    }));
    assert!(p.schema["properties"].get("gone").is_none(), "an optional `false` property is left out of the closed object");
    assert_eq!(p.schema["properties"]["must"], never());
    assert_eq!(p.schema["properties"]["items"]["items"], never());
    assert_eq!(p.schema["properties"]["u"], json!({"type": "string"}));
    assert!(!p.schema.to_string().contains("{}"));
}

#[test]
fn siblings_of_a_union_are_distributed_and_one_of_beside_any_of_is_a_product() {
    let p = project_ok(&json!({
        "type": "object",
        "properties": {"p": {
            "type": "string",
            "anyOf": [{"pattern": "^a"}, {"pattern": "b$"}],
            "oneOf": [{"maxLength": 3}, {"const": "zzzz"}]
        }},
        "required": ["p"]
    }));
    let branches = p.schema["properties"]["p"]["anyOf"].as_array().unwrap();
    assert_eq!(branches.len(), 4, "2 × 2 branches, each with the node's type: {}", p.schema);
    assert!(branches.iter().all(|b| b["type"] == json!("string")));
    assert_eq!(branches[1], json!({"type": "string", "enum": ["zzzz"], "pattern": "^a"}));
}

#[test]
fn one_of_disjointness_decides_the_note() {
    let tagged = project_ok(&json!({"type": "object", "properties": {"p": {"oneOf": [
        {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
        {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
    ]}}, "required": ["p"]}));
    assert!(tagged.schema["properties"]["p"].get("description").is_none());
    let overlapping = project_ok(&json!({"type": "object", "properties": {"p": {"oneOf": [{"type": "string"}, {"type": "string", "pattern": "x"}]}}, "required": ["p"]}));
    assert_eq!(overlapping.schema["properties"]["p"]["description"], json!("{oneOf: \"exactly one alternative must match\"}"));
}

#[test]
fn references_are_resolved_and_hoisted_to_root_definitions() {
    let p = project_ok(&json!({
        "type": "object",
        "properties": {
            "a": {"$id": "urn:a", "$defs": {"x": {"type": "integer"}}, "type": "object", "properties": {"x": {"$ref": "#/$defs/x"}, "self": {"$ref": "#"}}},
            "b": {"$ref": "#/properties/a/properties/x"},
            "c": {"$ref": "#/$defs/odd%20name"}
        },
        "required": ["a", "b", "c"],
        "$defs": {"odd name": {"type": "boolean"}}
    }));
    let defs = p.schema["$defs"].as_object().unwrap();
    let names: Vec<&str> = defs.keys().map(String::as_str).collect();
    // One naming scheme for every translator (`refs::Names`): the last token, cleaned, `-2` on a
    // clash; a root definition keeps its name only when it is already plain.
    assert_eq!(names, ["x", "a", "x-2", "oddname"]);
    assert_eq!(p.schema["properties"]["a"]["properties"]["self"], json!({"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}));
    assert_eq!(p.schema["properties"]["c"], json!({"$ref": "#/$defs/oddname"}));
    for occurrence in walk::occurrences(&p.schema).unwrap().iter().filter(|o| o.keyword == "$ref") {
        let target = occurrence.value.as_str().unwrap().strip_prefix('#').unwrap();
        assert!(p.schema.pointer(target).is_some(), "dangling {}", occurrence.value);
    }
}

#[test]
fn reference_siblings_merge_exactly() {
    let p = project_ok(&json!({
        "type": "object",
        "$defs": {"n": {"type": ["integer", "string"], "minimum": 0, "maximum": 10, "multipleOf": 4, "enum": [0, 4, 8, "x"]}},
        "properties": {"n": {"$ref": "#/$defs/n", "type": "number", "maximum": 6, "multipleOf": 6}},
        "required": ["n"]
    }));
    assert_eq!(
        p.schema["properties"]["n"],
        // Values are filtered by type; the bounds stay beside them and still apply.
        json!({"type": "integer", "enum": [0, 4, 8], "minimum": 0, "maximum": 6, "multipleOf": 12})
    );
}

#[test]
fn composite_values_become_exact_schemas() {
    let p = project_ok(&json!({"type": "object", "properties": {"v": {"enum": [{"a": [1, 1]}, [], "s", [1, "x"]]}}, "required": ["v"]}));
    assert_eq!(
        p.schema["properties"]["v"],
        json!({"anyOf": [
            {"type": "string", "enum": ["s"]},
            {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer", "enum": [1]}, "minItems": 2, "maxItems": 2}},
             "required": ["a"], "additionalProperties": false},
            {"type": "array", "items": {"$ref": "#/$defs/json_value"}, "maxItems": 0}
        ]})
    );
}

#[test]
fn spills_and_defaults_go_to_the_description() {
    let p = project_ok(&json!({"type": "object", "properties": {"s": {
        "type": "string", "description": "d", "default": "x", "minLength": 2, "format": "uri", "pattern": "^h", "examples": ["h"]
    }}, "required": ["s"]}));
    assert_eq!(
        p.schema["properties"]["s"],
        json!({"description": "d (default: \"x\")\n\n{examples: [\"h\"], minLength: 2, format: \"uri\"}", "type": "string", "pattern": "^h"})
    );
}

/// The spill marker is the translator's own: a source key spelled like it is an extension that
/// asserts nothing, dropped like any other, never read as a spill (that told the model of a
/// `format` the source does not have).
#[test]
fn a_source_key_spelled_like_the_spill_marker_is_not_a_spill() {
    let p = project_ok(&json!({"type": "object", "properties": {"a": {"type": "string", SPILL_MARKER: [{"format": "email"}]}}, "required": ["a"]}));
    assert_eq!(p.schema["properties"]["a"], json!({"type": "string"}));
}

#[test]
fn refusals_name_the_keyword_and_where_it_stands() {
    let r = refusal(&json!({"type": "object", "properties": {"a": {"type": "string", "not": {"const": "x"}}}}));
    assert_eq!((r.keyword(), r.pointer()), ("not", "/properties/a"));
    let r = refusal(&json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}));
    assert_eq!((r.keyword(), r.pointer()), ("additionalProperties", "/properties/m"));
    let r = refusal(&json!({"type": "object", "anyOf": [{"required": ["a"]}]}));
    assert_eq!((r.keyword(), r.pointer()), ("anyOf", ""));
    let r = refusal(&json!({"type": "string"}));
    assert_eq!((r.keyword(), r.pointer()), ("type", ""));
}

fn wide_object(properties: usize, name_length: usize) -> Value {
    let mut map = Map::new();
    for i in 0..properties {
        map.insert(format!("{i:0>name_length$}"), json!({"type": "string"}));
    }
    json!({"type": "object", "properties": map})
}

#[test]
fn documented_limits_are_refused_by_name() {
    let limit_of = |schema: &Value| format!("limit:{}", refusal(schema).limit_name().unwrap_or_default());
    assert_eq!(limit_of(&wide_object(5001, 4)), "limit:max-properties");
    assert!(matches!(OpenAiStrict.translate(&wide_object(5000, 4)), Outcome::Projected(_)));
    assert_eq!(limit_of(&wide_object(121, 1000)), "limit:max-string-length");
    let mut deep = json!({"type": "string"});
    for _ in 0..10 {
        deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"]});
    }
    assert!(matches!(OpenAiStrict.translate(&deep), Outcome::Projected(_)), "ten levels are allowed");
    let deeper = json!({"type": "object", "properties": {"x": deep}});
    assert_eq!(limit_of(&deeper), "limit:max-depth");
    let values: Vec<Value> = (0..1001).map(Value::from).collect();
    assert_eq!(limit_of(&json!({"type": "object", "properties": {"e": {"enum": values}}})), "limit:max-enum-values");
}

#[test]
fn runaway_merges_hit_the_budget_instead_of_the_stack() {
    let branches: Vec<Value> = (0..9).map(|i| json!({"const": i})).collect();
    let r = refusal(&json!({"type": "object", "properties": {"p": {"anyOf": branches, "oneOf": branches}}}));
    assert_eq!(r.limit_name(), Some("merge-budget"));
    // Two recursive lists merged key by key: each level inlines both references again.
    let r = refusal(&json!({
        "type": "object",
        "$defs": {
            "a": {"type": "object", "properties": {"next": {"$ref": "#/$defs/a"}, "x": {"type": "integer"}}},
            "b": {"type": "object", "properties": {"next": {"$ref": "#/$defs/b"}, "y": {"type": "integer"}}}
        },
        "properties": {"p": {"$ref": "#/$defs/a", "properties": {"next": {"$ref": "#/$defs/b"}}}}
    }));
    assert_eq!(r.limit_name(), Some("merge-budget"));
}

#[test]
fn odd_input_is_refused_or_projected_never_a_panic() {
    let odd = [
        json!(null),
        json!(true),
        json!([1]),
        json!({"type": "object", "properties": 3}),
        json!({"type": "object", "properties": {"a": 5}}),
        json!({"type": "object", "required": "a"}),
        json!({"type": "object", "properties": {"a": {"type": 7}}}),
        json!({"type": "object", "properties": {"a": {"$ref": 5}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}),
        json!({"type": "object", "properties": {"a": {"enum": 3, "const": [1, {"b": [[]]}]}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": {}}}}),
        json!({"type": "object", "properties": {"a": {"multipleOf": -1, "minimum": "x", "pattern": 4}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/a", "minimum": 1}}}),
    ];
    for schema in odd {
        let _ = OpenAiStrict.translate(&schema);
    }
    // Built by hand: `json!` would serialize the inner value recursively.
    let mut deep = json!({"type": "string"});
    for _ in 0..10_000 {
        let mut wrapper = Map::new();
        wrapper.insert("items".to_owned(), deep);
        deep = Value::Object(wrapper);
    }
    let mut properties = Map::new();
    properties.insert("a".to_owned(), deep);
    let mut root = Map::new();
    root.insert("type".to_owned(), json!("object"));
    root.insert("properties".to_owned(), Value::Object(properties));
    let schema = Value::Object(root);
    assert_eq!(refusal(&schema).limit_name(), Some("max-depth"));
    std::mem::forget(schema); // dropping a 10,000-deep Value recurses in serde_json
}

#[test]
fn the_deepest_accepted_source_fits_a_small_stack() {
    // The oracle and the CLI translate on ordinary threads; the deepest schema the walker accepts,
    // with references merged at every level, must not exhaust a 2 MiB stack.
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let mut node = json!({"$ref": "#/$defs/leaf", "minimum": 1});
            for _ in 0..(walk::MAX_DEPTH - 2) {
                node = json!({"anyOf": [node, {"type": "null"}], "$ref": "#/$defs/leaf"});
            }
            let schema = json!({"type": "object", "properties": {"a": node}, "$defs": {"leaf": {"type": ["integer", "null"]}}});
            matches!(OpenAiStrict.translate(&schema), Outcome::Projected(_) | Outcome::Refused(_))
        })
        .unwrap();
    assert!(handle.join().unwrap());
}
