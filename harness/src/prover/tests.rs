use serde_json::{Value, json};

use super::*;
use schema_fidelity_translators::Types;

fn both(source: &Value, projection: &Value) -> Proofs {
    prove(source, projection, &Codec::Identity, None, true)
}

/// `sub ⊆ sup`, through the prover's narrowing direction (source `sub`, projection `sup`).
fn included(sub: &Value, sup: &Value) -> Proof {
    both(sub, sup).narrowing
}

fn why(p: &Proof) -> Why {
    p.stop()
        .map(|s| s.why.clone())
        .unwrap_or_else(|| panic!("not a stop: {p:?}"))
}

#[test]
fn equal_documents_are_proven_both_ways_annotations_aside() {
    let s = json!({"type": "object", "properties": {"a": {"type": "string", "description": "x"}}, "required": ["a", "b"]});
    let p = json!({"type": ["object"], "properties": {"a": {"type": "string"}}, "required": ["b", "a"], "title": "t"});
    let proofs = both(&s, &p);
    assert!(proofs.widening.is_proven() && proofs.narrowing.is_proven());
    assert_eq!(proofs.how, How::Equal);
}

#[test]
fn a_dropped_constraint_narrows_nothing_and_may_widen() {
    let s = json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}});
    let p = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let proofs = both(&s, &p);
    assert!(proofs.narrowing.is_proven());
    let stop = proofs.widening.stop().expect("the pattern is gone");
    assert_eq!(stop.why, Why::Keyword("pattern".to_owned()));
    assert_eq!(stop.at(), "/a");
}

#[test]
fn bounds_counts_and_lengths_are_compared_with_their_exclusivity() {
    assert!(
        included(
            &json!({"type": "integer", "exclusiveMinimum": 0}),
            &json!({"type": "integer", "minimum": 1})
        )
        .is_proven()
    );
    assert!(
        included(
            &json!({"type": "integer", "minimum": 1}),
            &json!({"type": "integer", "exclusiveMinimum": 0})
        )
        .is_proven()
    );
    assert!(
        !included(
            &json!({"type": "number", "minimum": 0}),
            &json!({"type": "number", "exclusiveMinimum": 0})
        )
        .is_proven()
    );
    assert!(
        included(
            &json!({"type": "number", "exclusiveMinimum": 0}),
            &json!({"type": "number", "minimum": 0})
        )
        .is_proven()
    );
    assert!(
        included(
            &json!({"type": "string", "minLength": 3, "maxLength": 4}),
            &json!({"type": "string", "minLength": 2})
        )
        .is_proven()
    );
    assert!(
        !included(
            &json!({"type": "array"}),
            &json!({"type": "array", "maxItems": 3})
        )
        .is_proven()
    );
    assert!(
        included(
            &json!({"type": "integer", "multipleOf": 6}),
            &json!({"type": "integer", "multipleOf": 3})
        )
        .is_proven()
    );
    assert!(
        included(
            &json!({"type": "integer"}),
            &json!({"type": "number", "multipleOf": 0.5})
        )
        .is_proven()
    );
    assert_eq!(
        why(&included(
            &json!({"type": "number"}),
            &json!({"type": "integer"})
        )),
        Why::Type(Types::FRACTION)
    );
}

#[test]
fn unions_are_split_on_the_included_side_and_matched_per_type_on_the_other() {
    // Any value inside a union of every type.
    let any = json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}, {"type": "array"}, {"type": "object"}]});
    assert!(included(&json!(true), &any).is_proven());
    assert!(included(&any, &json!({})).is_proven());
    // A oneOf branch needs the others disjoint.
    let one = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
    assert!(included(&json!({"type": "string", "minLength": 1}), &one).is_proven());
    let overlapping = json!({"oneOf": [{"type": "string"}, {"minLength": 1}]});
    assert!(!included(&json!({"type": "string", "minLength": 1}), &overlapping).is_proven());
    // A oneOf on the included side is read as anyOf: fine.
    assert!(included(&one, &json!({"type": ["string", "integer"]})).is_proven());
}

#[test]
fn a_bounded_nesting_stops_at_the_level_it_cuts_with_the_missing_type() {
    let scalars = json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}, {"type": "object"}]});
    let level = |inner: Value| json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}, {"type": "object"}, {"type": "array", "items": inner}]});
    let bounded = json!({"type": "object", "properties": {"paths": {"type": "array", "items": level(level(scalars))}}, "required": ["paths"]});
    let source = json!({"type": "object", "properties": {"paths": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "array"}]}}}, "required": ["paths"]});
    let stop = included(&source, &bounded)
        .stop()
        .cloned()
        .expect("arrays nest deeper in the source");
    assert_eq!(stop.why, Why::Type(Types::ARRAY));
    assert_eq!(stop.at(), "/paths/0/0/0");
}

#[test]
fn a_closed_object_moved_into_a_description_stops_where_it_was_closed() {
    let closed = json!({"type": "object", "properties": {"deep": {"type": "object", "properties": {"line": {"type": "integer"}}, "additionalProperties": false}}});
    let open = json!({"type": "object", "properties": {"deep": {"type": "object", "properties": {"line": {"type": "integer"}}, "description": "no other keys"}}});
    let proofs = both(&closed, &open);
    assert!(proofs.narrowing.is_proven());
    let stop = proofs.widening.stop().expect("the projection is open");
    assert_eq!(stop.at(), "/deep/(another key)");
}

#[test]
fn finite_sides_are_decided_by_validation_and_give_a_value() {
    assert!(
        included(
            &json!({"enum": ["a", "b"]}),
            &json!({"type": "string", "pattern": "^[ab]$"})
        )
        .is_proven()
    );
    assert_eq!(
        why(&included(
            &json!({"enum": ["a", "c"]}),
            &json!({"type": "string", "pattern": "^[ab]$"})
        )),
        Why::Value(json!("c"))
    );
    assert!(included(&json!({"type": "boolean"}), &json!({"enum": [true, false]})).is_proven());
}

#[test]
fn recursion_is_proven_by_induction_on_the_instance() {
    let tree = json!({"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "name": {"type": "string"}}});
    let renamed = json!({"$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}, "name": {"type": "string"}}}}, "$ref": "#/$defs/node"});
    let proofs = both(&tree, &renamed);
    assert!(
        proofs.widening.is_proven() && proofs.narrowing.is_proven(),
        "{proofs:?}"
    );
    // A recursion that crosses no instance level proves nothing.
    let loop_ = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}, "$ref": "#/$defs/a"});
    assert!(!included(&json!({"type": "integer"}), &loop_).is_proven());
}

#[test]
fn unknown_keywords_of_the_including_side_stop_the_proof() {
    let s = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let p = json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false, "allOf": [{"properties": {"b": true}}]});
    assert!(matches!(why(&included(&s, &p)), Why::Unsupported(k) if k == "unevaluatedProperties"));
}

#[test]
fn required_and_closed_properties_are_compared_name_by_name() {
    let s = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"], "additionalProperties": false});
    let strict = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}}, "required": ["a", "b"], "additionalProperties": false});
    let proofs = both(&s, &strict);
    assert_eq!(why(&proofs.narrowing), Why::Keyword("required".to_owned()));
    // Through the codec, the strict form is exact.
    let codec = Codec::NullMeansAbsent {
        sites: vec![schema_fidelity_translators::codec::NullSite {
            object: String::new(),
            property: "b".to_owned(),
        }],
    };
    let proofs = prove(&s, &strict, &codec, None, true);
    assert!(
        proofs.widening.is_proven() && proofs.narrowing.is_proven(),
        "{proofs:?}"
    );
}

#[test]
fn pattern_properties_and_other_keys_are_bounded_pattern_by_pattern() {
    let s = json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "integer"}});
    let same = json!({"type": "object", "patternProperties": {"^x-": {"type": "string", "minLength": 0}}, "additionalProperties": {"type": "integer"}});
    let proofs = both(&s, &same);
    assert!(
        proofs.widening.is_proven() && proofs.narrowing.is_proven(),
        "{proofs:?}"
    );
    let dropped = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    assert!(!included(&s, &dropped).is_proven());
    assert!(!included(&dropped, &s).is_proven());
}

#[test]
fn conditionals_and_negations_are_read_only_as_far_as_they_are_sound() {
    // A `not` on the included side is dropped (a looser reading): still a proof when the rest is.
    assert!(
        included(
            &json!({"type": "string", "not": {"const": "a"}}),
            &json!({"type": "string"})
        )
        .is_proven()
    );
    // On the including side it needs disjointness.
    assert!(
        included(
            &json!({"type": "integer"}),
            &json!({"not": {"type": "string"}})
        )
        .is_proven()
    );
    assert!(!included(&json!({"type": "string"}), &json!({"not": {"const": "a"}})).is_proven());
    // `if` on the including side holds when both branches do.
    assert!(
        included(
            &json!({"type": "string"}),
            &json!({"if": {"minLength": 2}, "then": {"type": "string"}, "else": {"type": "string"}})
        )
        .is_proven()
    );
}

// Each of these was a proof the oracle's witnesses contradicted (a run over every translator and
// the JSON-Schema-Test-Suite): the proof must stop, never hold.

#[test]
fn a_closing_part_of_a_conjunction_does_not_see_its_siblings_properties() {
    let s = json!({"type":"object","properties":{"tags":{"allOf":[{"type":"object","patternProperties":{"^x":{"type":"string"}},"additionalProperties":false},{"properties":{"y":{"type":"integer"}}}]}},"required":["tags"]});
    let p = json!({"type":"object","properties":{"tags":{"type":"object","additionalProperties":false,"properties":{"y":{"type":"integer"}}}},"required":["tags"],"additionalProperties":false});
    assert!(!both(&s, &p).widening.is_proven());
}

#[test]
fn unevaluated_properties_of_a_cousin_sees_nothing_of_its_sibling() {
    let s = json!({"type":"object","properties":{"value":{"allOf":[{"properties":{"foo":{"type":"string"}},"unevaluatedProperties":true},{"unevaluatedProperties":false}]}},"required":["value"]});
    let p = json!({"type":"object","properties":{"value":{"allOf":[{"properties":{"foo":{"type":"string"}},"additionalProperties":false},{}]}},"required":["value"]});
    assert!(!both(&s, &p).widening.is_proven());
}

#[test]
fn unevaluated_properties_behind_a_reference_sees_only_its_own_scope() {
    let s = json!({"$defs":{"A":{"unevaluatedProperties":false}},"properties":{"prop1":{"type":"string"}},"$ref":"#/$defs/A"});
    let p = json!({"$defs":{"A":{}},"properties":{"prop1":{"type":"string"}},"$ref":"#/$defs/A","additionalProperties":false});
    assert!(!both(&s, &p).widening.is_proven());
}

#[test]
fn an_identifier_inside_an_unknown_keyword_is_not_a_reference_target() {
    let s = json!({"$id":"urn:x","$defs":{"u":{"not":{"array_of_schemas":[{"$id":"https://localhost:1234/my.json","type":"null"}]}},"real":{"$id":"https://localhost:1234/my.json","type":"string"}},"anyOf":[{"$ref":"#/$defs/u"},{"$ref":"https://localhost:1234/my.json"}]});
    let p = json!({"$id":"urn:x","$defs":{"u":{},"real":{"$id":"https://localhost:1234/my.json","type":"string"}},"anyOf":[{"$ref":"#/$defs/u"},{"$ref":"https://localhost:1234/my.json"}]});
    assert!(!both(&s, &p).widening.is_proven());
}

#[test]
fn an_anchor_inside_an_enum_is_not_a_reference_target() {
    let s = json!({"$id":"urn:y","$defs":{"e":{"enum":[{"$anchor":"my_anchor","type":"null"}]},"real":{"$anchor":"my_anchor","type":"string"}},"anyOf":[{"$ref":"#/$defs/e"},{"$ref":"#my_anchor"}]});
    let p = json!({"$id":"urn:y","$defs":{"e":{"type":"object"},"real":{"$anchor":"my_anchor","type":"string"}},"anyOf":[{"$ref":"#/$defs/e"},{"$ref":"#my_anchor"}]});
    assert!(!both(&s, &p).widening.is_proven());
}

#[test]
fn a_foreign_meta_schema_stops_the_proof() {
    let s = json!({"type":"object","properties":{"value":{"$id":"https://schema/using/no/validation","$schema":"http://localhost:1234/draft2020-12/metaschema-no-validation.json","properties":{"numberProperty":{"minimum":10}}}}});
    let p = json!({"type":"object","properties":{"value":{"$id":"https://schema/using/no/validation","properties":{"numberProperty":{"minimum":10}}}}});
    assert!(!both(&s, &p).narrowing.is_proven());
}
#[test]
fn equal_lists_of_references_are_not_equal_subtrees() {
    // The same `anyOf` text on both sides, whose references lead to different definitions.
    let s = json!({"$defs":{"e":{"enum":[{"a":1}]}},"anyOf":[{"$ref":"#/$defs/e"}]});
    let p = json!({"$defs":{"e":{"type":"object"}},"anyOf":[{"$ref":"#/$defs/e"}]});
    let proofs = both(&s, &p);
    assert!(!proofs.widening.is_proven());
    assert!(proofs.narrowing.is_proven());
}
