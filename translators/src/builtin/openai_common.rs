//! What `openai-strict` and `openai-responses` both need to reason about a source schema without
//! changing its meaning: where a `#` reference lands. The primitives they share with the other
//! translators (equality, the type set, value sets, the `oneOf` disjointness prover) live in
//! [`crate::algebra`] and are re-exported here.
//!
//! Both translators rewrite `oneOf` into `anyOf` (strict mode and the Responses API reject
//! `oneOf`), exact only when [`provably_disjoint`] holds; the tables call the rewrite a widening
//! for every other case.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::walk;

pub(crate) use crate::algebra::disjoint::provably_disjoint;
pub(crate) use crate::algebra::json_eq;
pub(crate) use crate::algebra::types::{Types, value_set};

/// Where `#` references land: every schema node's resource (the nearest enclosing `$id`) and every
/// `$anchor`/`$dynamicAnchor`, so that a fragment can be resolved to a JSON pointer into the
/// document.
#[derive(Debug, Clone)]
pub(crate) struct Resolver<'a> {
    root: &'a Value,
    /// Schema node pointer -> pointer of its resource root.
    bases: BTreeMap<String, String>,
    /// (resource root, anchor name) -> pointer of the anchored node.
    anchors: BTreeMap<(String, String), String>,
}

impl<'a> Resolver<'a> {
    /// Index `root`.
    ///
    /// # Errors
    /// [`walk::TooDeep`] past [`walk::MAX_DEPTH`].
    pub(crate) fn new(root: &'a Value) -> Result<Self, walk::TooDeep> {
        let mut bases = BTreeMap::new();
        let mut anchors = BTreeMap::new();
        let mut stack = vec![(root, String::new(), String::new(), 0usize)];
        while let Some((node, pointer, inherited, depth)) = stack.pop() {
            if depth > walk::MAX_DEPTH {
                return Err(walk::TooDeep { pointer });
            }
            let base = match node.get("$id") {
                Some(Value::String(_)) => pointer.clone(),
                _ => inherited,
            };
            for key in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(name)) = node.get(key) {
                    anchors.entry((base.clone(), name.clone())).or_insert_with(|| pointer.clone());
                }
            }
            for child in walk::children(node) {
                stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), base.clone(), depth + 1));
            }
            bases.insert(pointer, base);
        }
        Ok(Self { root, bases, anchors })
    }

    /// The resource root of the schema node at `pointer`.
    #[must_use]
    pub(crate) fn base_of(&self, pointer: &str) -> &str {
        self.bases.get(pointer).map_or("", String::as_str)
    }

    /// The document pointer a `#` reference held by the node at `at` lands on, when it is a
    /// fragment that resolves to a schema (object or boolean) in this document.
    #[must_use]
    pub(crate) fn resolve(&self, reference: &str, at: &str) -> Option<String> {
        let fragment = crate::walk::percent_decode(reference.strip_prefix('#')?)?;
        let base = self.base_of(at);
        let target = if fragment.is_empty() {
            base.to_owned()
        } else if fragment.starts_with('/') {
            format!("{base}{fragment}")
        } else {
            self.anchors.get(&(base.to_owned(), fragment))?.clone()
        };
        self.root.pointer(&target).filter(|v| walk::is_schema(v)).map(|_| target)
    }
}

/// Split a JSON pointer into its unescaped tokens.
#[must_use]
pub(crate) fn pointer_tokens(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_resolve_inside_their_resource() {
        let doc = json!({
            "properties": {
                "value": {"$id": "urn:x", "$defs": {"a": {"$anchor": "here", "type": "string"}}, "$ref": "#/$defs/a"},
                "b": {"$ref": "#/properties/value"},
                "c": {"$ref": "#/$defs/percent%25field"}
            },
            "$defs": {"percent%field": true}
        });
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.resolve("#/$defs/a", "/properties/value").as_deref(), Some("/properties/value/$defs/a"));
        assert_eq!(r.resolve("#here", "/properties/value").as_deref(), Some("/properties/value/$defs/a"));
        assert_eq!(r.resolve("#", "/properties/value/$defs/a").as_deref(), Some("/properties/value"));
        assert_eq!(r.resolve("#/properties/value", "/properties/b").as_deref(), Some("/properties/value"));
        assert_eq!(r.resolve("#/$defs/percent%25field", "/properties/c").as_deref(), Some("/$defs/percent%field"));
        assert_eq!(r.resolve("#/nowhere", ""), None);
        assert_eq!(r.resolve("other.json", ""), None);
    }

    fn disjoint(branches: &Value) -> bool {
        let doc = json!({"oneOf": branches});
        let list: Vec<(String, &Value)> =
            doc["oneOf"].as_array().unwrap().iter().enumerate().map(|(i, b)| (format!("/oneOf/{i}"), b)).collect();
        let resolver = Resolver::new(&doc).unwrap();
        provably_disjoint(&doc, &list, &|at, r| resolver.resolve(r, at))
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
