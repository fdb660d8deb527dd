//! Inversions, judged on every widening witness: a source rejection at a `false` subschema that
//! the projection accepts.
//!
//! A `false` subschema (`additionalProperties: false`, `items: false`, `properties: {a: false}`, a
//! `false` branch of `dependentSchemas`, `not: {}`) rejects everything that reaches it. When the
//! source rejects an instance *there*, and that `false` alone decides it (the source with that one
//! position made `true` accepts the instance), while the projection accepts the instance, the
//! projection turned "nothing" into "something": an inversion (CONTRACT §4 rule 2), whatever
//! declared widening nearby loosened the node (a container dropped, a `$ref` approximated). Only a
//! mark on the row of that very occurrence covers it.
//!
//! A `false` that rejects only as a consequence of another keyword (an `unevaluatedProperties:
//! false` that sees fewer evaluated keys because a `oneOf` beside it failed) does not decide the
//! instance alone: the deviation is that other keyword's, judged by its row.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::pins::{is_empty_schema, is_schema_position, split_keyword};
use crate::retrieve::LocalRetriever;
use crate::validation::Env;
use crate::verdict::Culprit;

/// The `false` positions of `source` at which the source-side instance `x` is rejected, each of
/// which alone decides the rejection.
pub(super) fn inversions(source: &Value, validator: &jsonschema::Validator, x: &Value, relaxed: &Relaxed<'_>) -> Vec<Culprit> {
    let mut out: Vec<Culprit> = Vec::new();
    for error in validator.iter_errors(x) {
        let path = error.schema_path().as_str().to_owned();
        let Some(value) = source.pointer(&path).filter(|_| is_schema_position(&path)) else { continue };
        let (node, keyword) = split_keyword(&path, source);
        let at_false = matches!(value, Value::Bool(false)) || (keyword == "not" && is_empty_schema(value));
        if !at_false {
            continue;
        }
        let culprit = Culprit { node, keyword, instance_at: error.instance_path().as_str().to_owned(), inverted: true, also_at: Vec::new() };
        if out.contains(&culprit) || !relaxed.accepts(&path, &culprit, x) {
            continue;
        }
        out.push(culprit);
    }
    out
}

/// The source with one `false` position made `true` (a `not: {}` removed), compiled once per
/// position.
pub(super) struct Relaxed<'a> {
    source: &'a Value,
    env: &'a Env,
    assert_formats: bool,
    compiled: Mutex<HashMap<String, Option<Arc<jsonschema::Validator>>>>,
}

impl<'a> Relaxed<'a> {
    pub(super) fn new(source: &'a Value, env: &'a Env, assert_formats: bool) -> Self {
        Self { source, env, assert_formats, compiled: Mutex::default() }
    }

    /// Whether the source with the `false` at `path` made `true` accepts `x`: that `false` alone
    /// decides the rejection.
    fn accepts(&self, path: &str, culprit: &Culprit, x: &Value) -> bool {
        let cached = self.compiled.lock().unwrap_or_else(PoisonError::into_inner).get(path).cloned();
        let validator = match cached {
            Some(v) => v,
            None => {
                let mut relaxed = self.source.clone();
                if culprit.keyword == "not" {
                    if let Some(Value::Object(map)) = relaxed.pointer_mut(&culprit.node) {
                        map.shift_remove("not");
                    }
                } else if let Some(slot) = relaxed.pointer_mut(path) {
                    *slot = Value::Bool(true);
                }
                let built = jsonschema::draft202012::options()
                    .should_validate_formats(self.assert_formats)
                    .with_retriever(LocalRetriever::new(self.env.remotes.clone()))
                    .build(&relaxed)
                    .ok()
                    .map(Arc::new);
                self.compiled.lock().unwrap_or_else(PoisonError::into_inner).insert(path.to_owned(), built.clone());
                built
            }
        };
        validator.is_some_and(|v| v.is_valid(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(schema: Value, x: Value) -> Vec<(String, String)> {
        let validator = jsonschema::draft202012::options().build(&schema).unwrap();
        let env = Env::default();
        inversions(&schema, &validator, &x, &Relaxed::new(&schema, &env, true)).into_iter().map(|c| (c.node, c.keyword)).collect()
    }

    #[test]
    fn false_positions_are_found_in_maps_lists_and_below_references() {
        assert_eq!(found(json!({"properties": {"a": false}}), json!({"a": 1})), [("/properties/a".to_owned(), "false".to_owned())]);
        assert_eq!(found(json!({"patternProperties": {"^x": false}}), json!({"xa": 1})), [("/patternProperties/^x".to_owned(), "false".to_owned())]);
        assert_eq!(found(json!({"additionalProperties": false}), json!({"b": 1})), [("/additionalProperties".to_owned(), "false".to_owned())]);
        assert_eq!(found(json!({"not": {}}), json!(1)), [(String::new(), "not".to_owned())]);
        let referenced = json!({"$defs": {"closed": {"type": "object", "additionalProperties": false}}, "properties": {"c": {"$ref": "#/$defs/closed"}}});
        assert_eq!(found(referenced, json!({"c": {"z": 1}})), [("/$defs/closed/additionalProperties".to_owned(), "false".to_owned())]);
    }

    #[test]
    fn a_false_branch_of_a_union_is_not_an_inversion_by_itself() {
        assert!(found(json!({"anyOf": [false, {"type": "string"}]}), json!(1)).is_empty());
        assert!(found(json!({"properties": {"a": {"const": false}}}), json!({"a": true})).is_empty(), "`const: false` is data");
    }

    #[test]
    fn a_false_that_rejects_only_because_another_keyword_failed_decides_nothing() {
        // Both branches match: `oneOf` fails, drops their annotations, and `unevaluatedProperties`
        // then rejects `x`; relaxing it alone still leaves the `oneOf` failing.
        let schema = json!({"oneOf": [{"properties": {"x": true}}, {"properties": {"x": true}}], "unevaluatedProperties": false});
        assert!(found(schema, json!({"x": 1})).is_empty());
    }
}
