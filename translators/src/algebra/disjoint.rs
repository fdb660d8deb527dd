//! The one `oneOf` disjointness prover: when no instance can match two branches, `oneOf` and
//! `anyOf` over them accept the same instances, so a translator whose target lacks `oneOf` may
//! write `anyOf` exactly.
//!
//! The proof is deliberately conservative: it answers `true` only on evidence (disjoint types,
//! disjoint value sets, or, for branches that accept only objects, a key both require whose
//! `const`/`enum` tags share no value). Values compare by [`json_eq`], so tags `1` and `1.0` are
//! the same tag and prove nothing.

use serde_json::Value;

use super::json_eq;
use super::types::{Types, value_set};
use crate::walk;

/// How a disjointness test follows a `$ref`: from the referencing node's document pointer and the
/// reference, to the pointer it lands on.
pub(crate) type Follow<'f> = &'f dyn Fn(&str, &str) -> Option<String>;

/// Whether no instance can match two of `branches` (given with their document pointers), so that
/// `oneOf` and `anyOf` over them accept the same instances.
#[must_use]
pub(crate) fn provably_disjoint(root: &Value, branches: &[(String, &Value)], follow: Follow<'_>) -> bool {
    let peeled: Vec<(String, &Value)> = branches.iter().map(|(p, b)| peel(root, p, b, follow)).collect();
    peeled.iter().enumerate().all(|(i, (pa, a))| peeled[i + 1..].iter().all(|(pb, b)| pair_disjoint(root, (pa, a), (pb, b), follow)))
}

/// Follow a node that is only a `$ref` (beside annotations) to what it names, a bounded number of
/// times.
fn peel<'v>(root: &'v Value, pointer: &str, node: &'v Value, follow: Follow<'_>) -> (String, &'v Value) {
    let mut current = (pointer.to_owned(), node);
    for _ in 0..16 {
        let Some(map) = current.1.as_object() else { break };
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else { break };
        let only_ref = map.keys().all(|k| k == "$ref" || !crate::vocabulary::asserts(k));
        let target = follow(&current.0, reference).and_then(|t| root.pointer(&t).map(|v| (t, v)));
        match target {
            Some(next) if only_ref => current = next,
            _ => break,
        }
    }
    current
}

/// The JSON types a (peeled) branch can accept, judged from `type`, `const` and `enum` alone.
fn admitted_types(node: &Value) -> Types {
    let Some(map) = node.as_object() else {
        return if node == &Value::Bool(false) { Types::default() } else { Types::ALL };
    };
    let mut types = map.get("type").and_then(Types::of_keyword).unwrap_or(Types::ALL);
    if let Some(values) = value_set(map) {
        types = types.and(values.iter().fold(Types::default(), |acc, v| acc.or(Types::of_value(v))));
    }
    types
}

fn pair_disjoint(root: &Value, (pa, a): (&str, &Value), (pb, b): (&str, &Value), follow: Follow<'_>) -> bool {
    if !admitted_types(a).intersects(admitted_types(b)) {
        return true;
    }
    let (Some(ma), Some(mb)) = (a.as_object(), b.as_object()) else { return false };
    if let (Some(va), Some(vb)) = (value_set(ma), value_set(mb))
        && !va.iter().any(|x| vb.iter().any(|y| json_eq(x, y)))
    {
        return true;
    }
    // A discriminated union: both branches accept only objects, require the same key, and tag it
    // with disjoint values.
    if !(admitted_types(a).is_subset_of(Types::OBJECT) && admitted_types(b).is_subset_of(Types::OBJECT)) {
        return false;
    }
    let required = |m: &serde_json::Map<String, Value>| -> Vec<String> {
        m.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
    };
    let tag = |pointer: &str, m: &serde_json::Map<String, Value>, key: &str| -> Option<Vec<Value>> {
        let sub = m.get("properties")?.get(key)?;
        let sub_pointer = format!("{pointer}/properties/{}", walk::escape(key));
        let (_, sub) = peel(root, &sub_pointer, sub, follow);
        value_set(sub.as_object()?)
    };
    let required_b = required(mb);
    required(ma).iter().filter(|k| required_b.contains(k)).any(|k| match (tag(pa, ma, k), tag(pb, mb, k)) {
        (Some(va), Some(vb)) => !va.iter().any(|x| vb.iter().any(|y| json_eq(x, y))),
        _ => false,
    })
}

/// [`provably_disjoint`] for branches read where they stand, without following `$ref` (a branch
/// that is only a reference proves nothing).
#[must_use]
pub(crate) fn provably_disjoint_here(branches: &[Value]) -> bool {
    let root = Value::Array(branches.to_vec());
    let list: Vec<(String, &Value)> = root.as_array().into_iter().flatten().enumerate().map(|(i, b)| (format!("/{i}"), b)).collect();
    provably_disjoint(&root, &list, &|_, _| None)
}

#[cfg(test)]
mod tests {
    use super::provably_disjoint_here as disjoint;
    use serde_json::json;

    #[test]
    fn disjointness_needs_evidence() {
        assert!(disjoint(&[json!({"type": "string"}), json!({"type": "integer"})]));
        assert!(!disjoint(&[json!({"type": "number"}), json!({"type": "integer"})]));
        assert!(disjoint(&[json!({"type": "integer"}), json!({"enum": [1.5]})]));
        assert!(disjoint(&[json!(false), json!(true)]));
        let tagged = |tag: serde_json::Value| json!({"type": "object", "properties": {"kind": {"const": tag}}, "required": ["kind"]});
        assert!(disjoint(&[tagged(json!("a")), tagged(json!("b"))]));
        assert!(!disjoint(&[tagged(json!("a")), tagged(json!("a"))]));
        // Tags `1` and `1.0` are one value: an object with both branches' keys matches both.
        assert!(!disjoint(&[tagged(json!(1)), tagged(json!(1.0))]));
        assert!(disjoint(&[tagged(json!(1)), tagged(json!(2.0))]));
        // Without `type: object`, a string matches both branches.
        assert!(!disjoint(&[
            json!({"properties": {"kind": {"const": "a"}}, "required": ["kind"]}),
            json!({"properties": {"kind": {"const": "b"}}, "required": ["kind"]})
        ]));
        // A reference is not followed here, so it proves nothing.
        assert!(!disjoint(&[json!({"$ref": "#/0"}), json!({"type": "string"})]));
    }
}
