//! Optional properties under null-means-absent: whether a source schema admits `null` (which
//! decides whether an optional property can be a site), the nullable widening of its translation,
//! and collecting the sites recorded on object nodes into the projection's codec.
//!
//! Separate because it is the codec's half of the translation: the sites it collects are what
//! the harness decodes, and their pointers are known only once the projection is assembled.

use serde_json::{Value, json};

use super::SITES_MARKER;
use crate::builtin::openai_common::{Types, value_set};
use crate::codec::NullSite;
use crate::walk;

/// Whether the source schema accepts `null`: the question that decides whether an optional
/// property can be a null-means-absent site. Exact for the `null` instance, which only `type`,
/// `const`/`enum`, references and combinators can reject.
pub(super) fn admits_null(doc: &Value, schema: &Value, hops: usize) -> bool {
    let Some(map) = schema.as_object() else { return schema == &Value::Bool(true) };
    if let Some(t) = map.get("type")
        && !Types::of_keyword(t).is_some_and(|t| t.intersects(Types::NULL))
    {
        return false;
    }
    if let Some(values) = value_set(map)
        && !values.iter().any(Value::is_null)
    {
        return false;
    }
    if let Some(reference) = map.get("$ref") {
        let target = reference.as_str().and_then(|r| r.strip_prefix('#')).and_then(|p| doc.pointer(p));
        if hops >= 32 || !target.is_some_and(|t| admits_null(doc, t, hops + 1)) {
            return false;
        }
    }
    let branches = |key: &str| map.get(key).and_then(Value::as_array).map(|bs| bs.iter().filter(|b| admits_null(doc, b, hops)).count());
    if branches("anyOf") == Some(0) || branches("oneOf").is_some_and(|n| n != 1) {
        return false;
    }
    if let Some(all) = map.get("allOf").and_then(Value::as_array)
        && !all.iter().all(|b| admits_null(doc, b, hops))
    {
        return false;
    }
    if map.get("not").is_some_and(|n| admits_null(doc, n, hops)) {
        return false;
    }
    if let Some(condition) = map.get("if") {
        let branch = if admits_null(doc, condition, hops) { map.get("then") } else { map.get("else") };
        if branch.is_some_and(|b| !admits_null(doc, b, hops)) {
            return false;
        }
    }
    true
}

/// The translation of an optional property, widened to accept `null` (which the codec reads as
/// "absent"): `null` added to a scalar `type` (and `enum`), a `{type: null}` branch added to an
/// `anyOf`, or the node wrapped as `anyOf: [node, {type: null}]`.
pub(super) fn nullable(node: Value) -> Value {
    let Value::Object(mut map) = node else { return json!({"anyOf": [node, {"type": "null"}]}) };
    if !map.contains_key("$ref") {
        if let Some(types) = map.get("type").and_then(Types::of_keyword)
            && types.is_subset_of(Types::SCALARS)
        {
            map.insert("type".to_owned(), types.or(Types::NULL).to_keyword());
            if let Some(Value::Array(values)) = map.get_mut("enum")
                && !values.iter().any(Value::is_null)
            {
                values.push(Value::Null);
            }
            return Value::Object(map);
        }
        if !map.contains_key("type")
            && let Some(Value::Array(branches)) = map.get_mut("anyOf")
        {
            branches.push(json!({"type": "null"}));
            return Value::Object(map);
        }
    }
    json!({"anyOf": [Value::Object(map), {"type": "null"}]})
}

/// Collect the null-means-absent sites recorded on object nodes, now that their pointers in the
/// projection are final, and remove the markers.
pub(super) fn take_sites(projection: &mut Value) -> Vec<NullSite> {
    let mut sites = Vec::new();
    if let Ok(occurrences) = walk::occurrences(projection) {
        for occurrence in occurrences.iter().filter(|o| o.keyword == SITES_MARKER) {
            for name in occurrence.value.as_array().into_iter().flatten().filter_map(Value::as_str) {
                sites.push(NullSite { object: occurrence.pointer.clone(), property: name.to_owned() });
            }
        }
    }
    *projection = strip_markers(projection);
    sites
}

fn strip_markers(node: &Value) -> Value {
    let mapped = walk::map_children(node, |child| Ok::<_, ()>(strip_markers(child.schema))).unwrap_or_else(|()| node.clone());
    match mapped {
        Value::Object(mut map) => {
            map.remove(SITES_MARKER);
            Value::Object(map)
        }
        other => other,
    }
}
