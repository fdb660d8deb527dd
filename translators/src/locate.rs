//! The instance locator: for a schema, an instance and a location in that instance, the schema
//! nodes whose keywords apply there.
//!
//! This is how a deviation is pinned on the keyword where it acts. When a projection rejects an
//! instance the source accepts, the validator says *where in the instance* it failed; the locator
//! turns that into the source nodes in force at that place, so the oracle can name the one
//! occurrence (and its row) responsible instead of every row of the case.
//!
//! The walk follows every applicator that can apply: in place (`$ref` and `$dynamicRef` to a local
//! target, `allOf`/`anyOf`/`oneOf`, `if`/`then`/`else`, `dependentSchemas`, `not`) and into
//! children (`properties`, `patternProperties`, `additionalProperties`, `unevaluatedProperties`,
//! `prefixItems`/`items`, `contains`, `unevaluatedItems`). It over-approximates: every branch of a
//! union is entered whether or not it matched, and every `patternProperties` entry is taken to
//! match (judging an ECMA-262 regex is the validator's job). Over-approximation only adds
//! candidate nodes; the oracle uses them to *name* occurrences, never to excuse a deviation.
//!
//! References are followed the way the built-in translators resolve them (`refs`): `#`,
//! `#/json/pointer` (percent-decoded) and `#name` for an `$anchor` or `$dynamicAnchor`, each read
//! against the nearest enclosing `$id`, and only to a schema. [`target_at`] is that resolution for
//! the oracle's other walks.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::{refs, vocabulary, walk};
use crate::walk::tokens;

/// At most this many schema nodes are visited for one location, so that a reference cycle or a
/// wide union cannot make naming a culprit expensive.
const MAX_VISITS: usize = 4096;

/// The pointer of the schema a reference written at the schema position `at` names in `document`,
/// when it names one of this document: a fragment read against the nearest enclosing `$id`, as a
/// JSON pointer (percent-decoded) or a plain-name anchor of that resource.
#[must_use]
pub fn target_at(document: &Value, reference: &str, at: &str) -> Option<String> {
    refs::resolve_once(document, reference, at).ok()
}

/// The schema nodes (by JSON pointer into `root`) whose keywords apply to `instance` at the
/// instance location `at` (a JSON pointer into `instance`), with the document's resolver built
/// once by the caller (indexing a document costs more than one walk of an instance location).
#[must_use]
pub fn applicable_nodes_with(resolver: Option<&refs::Resolver<'_>>, root: &Value, instance: &Value, at: &str) -> Vec<String> {
    let mut visits = 0;
    let follow = |holder: &str, reference: &str| match resolver {
        Some(resolver) => resolver.resolve_uri(reference, holder).ok(),
        None => target_at(root, reference, holder),
    };
    let mut here: BTreeSet<String> = closure(root, instance, [String::new()], &follow, &mut visits);
    let mut value = instance;
    for token in tokens(at) {
        let mut next = BTreeSet::new();
        for node in &here {
            let Some(schema) = root.pointer(node).and_then(Value::as_object) else { continue };
            match value {
                Value::Object(_) => {
                    let declared = schema.get("properties").and_then(Value::as_object).is_some_and(|p| p.contains_key(&token));
                    if declared {
                        next.insert(format!("{node}/properties/{}", walk::escape(&token)));
                    }
                    for name in schema.get("patternProperties").and_then(Value::as_object).into_iter().flat_map(|m| m.keys()) {
                        next.insert(format!("{node}/patternProperties/{}", walk::escape(name)));
                    }
                    if !declared && schema.contains_key("additionalProperties") {
                        next.insert(format!("{node}/additionalProperties"));
                    }
                    if schema.contains_key("unevaluatedProperties") {
                        next.insert(format!("{node}/unevaluatedProperties"));
                    }
                }
                Value::Array(_) => {
                    let index: Option<usize> = token.parse().ok();
                    let prefix = schema.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
                    match index {
                        Some(i) if i < prefix => {
                            next.insert(format!("{node}/prefixItems/{i}"));
                        }
                        _ if schema.contains_key("items") => {
                            next.insert(format!("{node}/items"));
                        }
                        _ => {}
                    }
                    for keyword in ["contains", "unevaluatedItems"] {
                        if schema.contains_key(keyword) {
                            next.insert(format!("{node}/{keyword}"));
                        }
                    }
                }
                _ => {}
            }
        }
        value = match value {
            Value::Object(map) => match map.get(&token) {
                Some(v) => v,
                None => return Vec::new(),
            },
            Value::Array(items) => match token.parse::<usize>().ok().and_then(|i| items.get(i)) {
                Some(v) => v,
                None => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        here = closure(root, value, next, &follow, &mut visits);
    }
    here.into_iter().collect()
}

/// `start` and every node applying in place from it to `value` (references, followed by `follow`
/// from the holder's pointer, and combinators; a `dependentSchemas` entry only when `value` has
/// its trigger property, without which it applies to nothing).
fn closure(root: &Value, value: &Value, start: impl IntoIterator<Item = String>, follow: &dyn Fn(&str, &str) -> Option<String>, visits: &mut usize) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<String> = start.into_iter().collect();
    while let Some(node) = stack.pop() {
        if *visits >= MAX_VISITS || !seen.insert(node.clone()) {
            continue;
        }
        *visits += 1;
        let Some(schema) = root.pointer(&node) else { continue };
        for reference in ["$ref", "$dynamicRef"] {
            if let Some(target) = schema.get(reference).and_then(Value::as_str).and_then(|r| follow(&node, r)) {
                stack.push(target);
            }
        }
        for child in walk::children(schema) {
            let triggered = match (child.keyword, child.key) {
                ("dependentSchemas", Some(walk::ChildKey::Name(trigger))) => value.as_object().is_some_and(|m| m.contains_key(trigger)),
                _ => true,
            };
            // References are followed above; every other in-place applicator here.
            let in_place = triggered && vocabulary::in_place(child.keyword) && !vocabulary::is_reference(child.keyword);
            if in_place {
                stack.push(format!("{node}{}", child.pointer_suffix()));
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// [`applicable_nodes_with`] with the resolver built here (a document too deep to index still
    /// has its root-relative references followed).
    fn applicable_nodes(root: &Value, instance: &Value, at: &str) -> Vec<String> {
        applicable_nodes_with(refs::Resolver::new(root).ok().as_ref(), root, instance, at)
    }

    #[test]
    fn locations_are_followed_through_properties_items_refs_and_unions() {
        let schema = json!({
            "$defs": {"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
            "properties": {
                "id": {"$ref": "#/$defs/id"},
                "tags": {"items": {"maxLength": 3}, "prefixItems": [{"const": "x"}]}
            },
            "additionalProperties": false
        });
        let instance = json!({"id": 4, "tags": ["x", "long"], "other": 1});
        assert_eq!(applicable_nodes(&schema, &instance, "/id"), ["/$defs/id", "/$defs/id/anyOf/0", "/$defs/id/anyOf/1", "/properties/id"]);
        assert_eq!(applicable_nodes(&schema, &instance, "/tags/0"), ["/properties/tags/prefixItems/0"]);
        assert_eq!(applicable_nodes(&schema, &instance, "/tags/1"), ["/properties/tags/items"]);
        assert_eq!(applicable_nodes(&schema, &instance, "/other"), ["/additionalProperties"]);
        assert_eq!(applicable_nodes(&schema, &instance, ""), [""]);
        assert!(applicable_nodes(&schema, &instance, "/missing").is_empty());
    }

    #[test]
    fn anchors_and_percent_encoded_pointers_resolve() {
        let schema = json!({"$defs": {"a b": {"$anchor": "ab", "type": "string"}}});
        assert_eq!(target_at(&schema, "#/$defs/a%20b", "").as_deref(), Some("/$defs/a b"));
        assert_eq!(target_at(&schema, "#ab", "").as_deref(), Some("/$defs/a b"));
        assert_eq!(target_at(&schema, "#/nowhere", ""), None);
    }

    #[test]
    fn references_inside_an_embedded_resource_are_read_against_its_id() {
        let schema = json!({
            "$defs": {"a": {"type": "null"}},
            "properties": {"v": {"$id": "urn:v", "$defs": {"a": {"$anchor": "inner", "type": "string"}}, "properties": {"w": {"$ref": "#/$defs/a"}, "x": {"$ref": "#inner"}}}}
        });
        let instance = json!({"v": {"w": "s", "x": "t"}});
        assert_eq!(applicable_nodes(&schema, &instance, "/v/w"), ["/properties/v/$defs/a", "/properties/v/properties/w"]);
        assert_eq!(applicable_nodes(&schema, &instance, "/v/x"), ["/properties/v/$defs/a", "/properties/v/properties/x"]);
        assert_eq!(target_at(&schema, "#/$defs/a", "/properties/v/properties/w").as_deref(), Some("/properties/v/$defs/a"));
        assert_eq!(target_at(&schema, "#/$defs/a", "/properties/v").as_deref(), Some("/properties/v/$defs/a"));
        assert_eq!(target_at(&schema, "#/$defs/a", "").as_deref(), Some("/$defs/a"));
        assert_eq!(target_at(&schema, "#inner", ""), None);
    }

    #[test]
    fn a_reference_cycle_is_walked_once() {
        let schema = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        assert_eq!(applicable_nodes(&schema, &json!(1), ""), ["", "/$defs/a", "/$defs/b"]);
    }

    #[test]
    fn a_dependent_schema_applies_only_when_its_trigger_is_present() {
        let schema = json!({"dependentSchemas": {"foo": {"properties": {"bar": {"type": "integer"}}}}, "properties": {"bar": true}});
        assert_eq!(applicable_nodes(&schema, &json!({"bar": 1}), "/bar"), ["/properties/bar"]);
        assert_eq!(applicable_nodes(&schema, &json!({"foo": 0, "bar": 1}), "/bar"), ["/dependentSchemas/foo/properties/bar", "/properties/bar"]);
    }

    #[test]
    fn a_reference_by_uri_to_an_embedded_resource_is_followed() {
        let schema = json!({"$id": "https://example.com/root", "$defs": {"n": {"$id": "node", "type": "integer"}}, "properties": {"a": {"$ref": "node"}}});
        assert_eq!(applicable_nodes(&schema, &json!({"a": 1}), "/a"), ["/$defs/n", "/properties/a"]);
    }
}
