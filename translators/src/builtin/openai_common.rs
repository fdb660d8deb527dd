//! What `openai-strict` and `openai-responses` both need to reason about a source schema without
//! changing its meaning. Where a `#` reference lands is [`crate::refs`]'s, as for every built-in
//! translator; the primitives they share with the other translators (equality, the type set, value
//! sets, the `oneOf` disjointness prover) live in [`crate::algebra`] and are re-exported here.
//!
//! Both translators rewrite `oneOf` into `anyOf` (strict mode and the Responses API reject
//! `oneOf`), exact only when [`provably_disjoint`] holds; the tables call the rewrite a widening
//! for every other case.

pub(crate) use crate::algebra::disjoint::provably_disjoint;
pub(crate) use crate::algebra::json_eq;
pub(crate) use crate::types::{Types, value_set};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::Resolver;
    use serde_json::{Value, json};

    fn disjoint(branches: &Value) -> bool {
        let doc = json!({"oneOf": branches});
        let list: Vec<(String, &Value)> =
            doc["oneOf"].as_array().unwrap().iter().enumerate().map(|(i, b)| (format!("/oneOf/{i}"), b)).collect();
        let resolver = Resolver::new(&doc).unwrap();
        provably_disjoint(&doc, &list, &|at, r| resolver.resolve(r, at).ok())
    }

    #[test]
    fn disjointness_needs_evidence() {
        assert!(disjoint(&json!([{"type": "string"}, {"type": "integer"}])));
        assert!(disjoint(&json!([{"const": "a"}, {"enum": ["b", "c"]}])));
        assert!(disjoint(&json!([
            {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ])));
        // Tags that are not required do not separate: `{}` matches both.
        assert!(!disjoint(&json!([
            {"type": "object", "properties": {"kind": {"const": "a"}}},
            {"type": "object", "properties": {"kind": {"const": "b"}}}
        ])));
        // Without `type: object`, a string matches both branches.
        assert!(!disjoint(&json!([
            {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ])));
        assert!(!disjoint(&json!([{"type": "string", "minLength": 3}, {"type": "string"}])));
        assert!(!disjoint(&json!([{"type": "number"}, {"type": "integer"}])));
    }
}
