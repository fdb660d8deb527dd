//! Whether a schema accepts only JSON objects: the question behind every object-root rule.
//!
//! Providers want a tool's arguments to be an object, so a table may require an object root
//! (`requires_object_root`). A root that says `type: "object"` plainly is one; so is a root whose
//! `allOf` holds an object branch, or whose every `anyOf` branch is an object. On such a root,
//! adding `type: "object"` changes nothing, and a translator may do it (the `object-root`
//! translator does). On any other root (a bare `not`, a string `allOf`, an untyped `properties`
//! map, which still accepts `"abc"`), forcing `type: "object"` narrows: that is TRACKING.md#sf-1316.
//!
//! The oracle and the translators ask this one function, so they agree on which roots may be
//! forced. It is a sufficient test, not a complete one: a root it cannot see through is treated as
//! accepting non-objects, which only makes refusals more likely, never a narrowing silent.

use serde_json::Value;

/// How far through `allOf`/`anyOf`/`oneOf` branches and local references the test looks.
const MAX_HOPS: usize = 32;

/// Whether `schema` provably accepts nothing but JSON objects.
///
/// ```
/// use schema_fidelity_translators::root::accepts_only_objects;
/// use serde_json::json;
///
/// assert!(accepts_only_objects(&json!({"type": "object"})));
/// assert!(accepts_only_objects(&json!({"allOf": [{"type": "object"}, {"required": ["a"]}]})));
/// assert!(!accepts_only_objects(&json!({"not": {"type": "string"}})));
/// assert!(!accepts_only_objects(&json!({"properties": {"a": {"type": "string"}}})));
/// ```
#[must_use]
pub fn accepts_only_objects(schema: &Value) -> bool {
    object_only(schema, "", schema, 0)
}

/// Whether the node at `pointer` in `document` accepts only objects.
fn object_only(node: &Value, pointer: &str, document: &Value, hops: usize) -> bool {
    if hops > MAX_HOPS {
        return false;
    }
    let map = match node {
        // `false` accepts nothing, so nothing it accepts is a non-object.
        Value::Bool(b) => return !b,
        Value::Object(map) => map,
        _ => return false,
    };
    let type_is_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => !types.is_empty() && types.iter().all(|t| t == "object"),
        _ => false,
    };
    let values_are_objects = |key: &str| match map.get(key) {
        Some(Value::Array(values)) if key == "enum" => values.iter().all(Value::is_object),
        Some(value) if key == "const" => value.is_object(),
        _ => false,
    };
    if type_is_object || values_are_objects("enum") || values_are_objects("const") {
        return true;
    }
    let branches = |key: &str| map.get(key).and_then(Value::as_array).filter(|b| !b.is_empty());
    let branch = |key: &str, i: usize, s: &Value| object_only(s, &format!("{pointer}/{key}/{i}"), document, hops + 1);
    if branches("allOf").is_some_and(|b| b.iter().enumerate().any(|(i, s)| branch("allOf", i, s))) {
        return true;
    }
    for key in ["anyOf", "oneOf"] {
        if branches(key).is_some_and(|b| b.iter().enumerate().all(|(i, s)| branch(key, i, s))) {
            return true;
        }
    }
    // A local reference, resolved as the translators resolve it: against the nearest `$id`.
    if let Some(target) = map.get("$ref").and_then(Value::as_str).and_then(|r| crate::refs::resolve_once(document, r, pointer).ok())
        && let Some(node) = document.pointer(&target)
    {
        return object_only(node, &target, document, hops + 1);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_roots_are_recognised_through_combinators_and_refs() {
        for yes in [
            json!({"type": "object"}),
            json!({"type": ["object"]}),
            json!({"allOf": [{"minProperties": 1}, {"type": "object"}]}),
            json!({"anyOf": [{"type": "object"}, false]}),
            json!({"oneOf": [{"type": "object"}, {"enum": [{}]}]}),
            json!({"$ref": "#/$defs/args", "$defs": {"args": {"type": "object"}}}),
            json!({"$ref": "#/$defs/a%25b", "$defs": {"a%b": {"type": "object"}}}),
            json!({"$ref": "#args", "$defs": {"a": {"$anchor": "args", "type": "object"}}}),
            json!({"allOf": [{"$id": "urn:x", "$ref": "#/$defs/o", "$defs": {"o": {"type": "object"}}}]}),
            json!(false),
        ] {
            assert!(accepts_only_objects(&yes), "{yes}");
        }
    }

    #[test]
    fn roots_that_admit_other_values_are_not() {
        for no in [
            json!({}),
            json!(true),
            json!({"properties": {"a": {}}}),
            json!({"type": ["object", "null"]}),
            json!({"not": {"type": "string"}}),
            json!({"allOf": [{"type": "string"}, {"minLength": 2}]}),
            json!({"anyOf": [{"type": "object"}, {"type": "string"}]}),
            json!({"anyOf": []}),
            json!({"$ref": "#"}),
            json!({"$ref": "other.json"}),
            // The embedded resource's `#/$defs/o` is its own, not the root's.
            json!({"allOf": [{"$id": "urn:x", "$ref": "#/$defs/o", "$defs": {"o": {}}}], "$defs": {"o": {"type": "object"}}}),
        ] {
            assert!(!accepts_only_objects(&no), "{no}");
        }
    }
}
