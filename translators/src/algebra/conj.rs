//! The one exact conjunction of two schema maps, shared by every translator that writes `a ∧ b`
//! as one node (cca-claude through [`crate::algebra::combine::merge`], openai-strict, moonshot).
//!
//! [`conj`]`(a, b, sub)` returns either [`Conj::Unsatisfiable`] (no instance satisfies both), or
//! [`Conj::Combined`]: one map and a **residue**, the values of `b` it could not combine with
//! `a`'s, each named by its keyword, in order. The guarantee, for every instance:
//!
//! > `combined ∧ residue₁ ∧ residue₂ ∧ …` accepts exactly what `a ∧ b` accepts,
//!
//! where each residue entry `(keyword, value)` stands for the one-keyword schema
//! `{keyword: value}` (a group entry, such as `contains` with `minContains`, for the schema of
//! all its entries together). Dropping the residue is therefore a widening, never a narrowing;
//! what to do with it (refuse, put it in an `allOf`, keep the first value and declare a widening,
//! spill it into the description) is each translator's policy and stays in its own file.
//!
//! What combines exactly: `type` sets intersect ([`crate::types`]), `enum`/`const`
//! values intersect by [`crate::algebra::json_eq`] (`1` is `1.0`), bounds tighten, `multipleOf`
//! takes the exact least common multiple ([`crate::algebra::numbers`]), `required` and
//! `dependentRequired` lists unite, `uniqueItems` is true if either side says so, `allOf` lists
//! concatenate, a property declared on one side must also satisfy the other side's
//! `additionalProperties` (so a closed side forbids the other side's extra properties),
//! `prefixItems`/`items` line up position by position. Keys that assert nothing
//! ([`crate::vocabulary::asserts`]: annotations, the content keywords among them, identifiers,
//! comments, unknown keys) keep the first value (they reject nothing, so that is exact).
//!
//! What stays in the residue: two different values of any other assertion (`pattern`, `format`,
//! `not`, `$ref`, `anyOf`, `oneOf`, `unevaluated*`, the draft-07 `dependencies`, ...), a `multipleOf` pair
//! whose least common multiple is out of exact range, a malformed `type`, two different
//! `contains` or `if`/`then`/`else` groups, the object keywords of `b` when both sides have
//! object keywords and an `additionalProperties` would have to be read against a
//! `patternProperties` (which keys a pattern claims is not decided here), and `$defs` entries whose name `a` already
//! uses for another schema. Two `pattern`s are a residue on purpose: they combine only through
//! lookaheads ([`crate::algebra::patterns::combine_patterns`]), which a target's regex dialect
//! may not have, so that step is the policy of a translator whose dialect does.
//!
//! Subschema conjunctions (`items`, `prefixItems` entries, property schemas,
//! `additionalProperties`, `patternProperties` of one pattern, `dependentSchemas` of one name,
//! `propertyNames`) go through the caller's `sub`, because translators differ in how they resolve
//! references and budget recursion there. `sub` is called only where both sides constrain the
//! position, and its errors stop the conjunction.
//!
//! `unevaluatedProperties`/`unevaluatedItems` are read as plain keywords (one side's value is
//! kept, two different values are a residue): a caller whose sides evaluate properties
//! differently must settle that before calling (openai-strict closes them, cca-claude and moonshot
//! do not merge nodes with them).

use serde_json::{Map, Value};

use super::meet;
use super::numbers::least_common_multiple;
use super::types::{Types, value_set};
use crate::equality::json_eq;
use crate::vocabulary::{self, Bound};

/// The conjunction of two schema maps; see the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Conj {
    /// No instance satisfies both sides.
    Unsatisfiable,
    /// `schema ∧ residue` is exactly `a ∧ b`.
    Combined {
        schema: Map<String, Value>,
        /// `b`'s values that could not join `a`'s in `schema`, each named by its keyword.
        residue: Vec<(String, Value)>,
    },
}

const OBJECT_GROUP: [&str; 3] = vocabulary::PROPERTY_GROUP;
const ARRAY_GROUP: [&str; 2] = vocabulary::ITEM_GROUP;
/// Keyword groups that only mean something together: two different groups stay apart.
const WHOLE_GROUPS: [&[&str]; 2] = [&vocabulary::CONTAINS_GROUP, &vocabulary::CONDITIONAL_GROUP];

/// Whether a schema was marked unsatisfiable (`not: {}` or `not: true`).
pub(crate) fn is_unsatisfiable(schema: &Map<String, Value>) -> bool {
    matches!(schema.get("not"), Some(Value::Bool(true))) || schema.get("not").and_then(Value::as_object).is_some_and(Map::is_empty)
}

/// `a ∧ b`; see the module documentation. `sub(x, y)` conjoins two subschemas (`x` from `a`).
pub(crate) fn conj<E>(a: &Map<String, Value>, b: &Map<String, Value>, sub: &mut impl FnMut(&Value, &Value) -> Result<Value, E>) -> Result<Conj, E> {
    if is_unsatisfiable(a) || is_unsatisfiable(b) {
        return Ok(Conj::Unsatisfiable);
    }
    let mut out = a.clone();
    let mut residue = Vec::new();
    // Scalar contradictions first, so that an unsatisfiable pair costs no subschema work.
    match (a.get("type"), b.get("type")) {
        (Some(x), Some(y)) if x != y => match (Types::of_keyword(x), Types::of_keyword(y)) {
            (Some(x), Some(y)) => {
                let both = x.and(y);
                if both.is_empty() {
                    return Ok(Conj::Unsatisfiable);
                }
                out.insert("type".to_owned(), both.to_keyword());
            }
            _ => residue.push(("type".to_owned(), y.clone())),
        },
        (None, Some(y)) => {
            out.insert("type".to_owned(), y.clone());
        }
        _ => {}
    }
    match (value_set(a), value_set(b)) {
        (Some(x), Some(y)) if !json_eq(&Value::Array(x.clone()), &Value::Array(y.clone())) => {
            let common = meet::values(Some(&x), Some(&y)).unwrap_or_default();
            if common.is_empty() {
                return Ok(Conj::Unsatisfiable);
            }
            out.remove("const");
            out.insert("enum".to_owned(), Value::Array(common));
        }
        (Some(values), _) if values.is_empty() => return Ok(Conj::Unsatisfiable),
        (None, Some(_)) => copy(b, &mut out, &["enum", "const"]),
        _ => {}
    }
    for (key, theirs) in b {
        let key = key.as_str();
        if matches!(key, "type" | "enum" | "const")
            || OBJECT_GROUP.contains(&key)
            || ARRAY_GROUP.contains(&key)
            || WHOLE_GROUPS.iter().any(|g| g.contains(&key))
        {
            continue; // above, or grouped below
        }
        let Some(ours) = out.get(key).cloned() else {
            out.insert(key.to_owned(), theirs.clone());
            continue;
        };
        if &ours == theirs {
            continue;
        }
        let combined = match key {
            "required" => Some(union_names(&ours, theirs)),
            "dependentRequired" => Some(union_lists(&ours, theirs)),
            "allOf" => Some(Value::Array(ours.as_array().into_iter().chain(theirs.as_array()).flatten().cloned().collect())),
            "uniqueItems" => Some(Value::Bool(ours == Value::Bool(true) || theirs == &Value::Bool(true))),
            "multipleOf" => least_common_multiple(&ours, theirs),
            "propertyNames" => Some(sub(&ours, theirs)?),
            "dependentSchemas" => Some(conj_named(&ours, theirs, sub)?),
            "$defs" | "definitions" => {
                let mut merged = ours.as_object().cloned().unwrap_or_default();
                let mut clashes = Map::new();
                for (name, schema) in theirs.as_object().into_iter().flatten() {
                    match merged.get(name) {
                        Some(mine) if mine != schema => {
                            clashes.insert(name.clone(), schema.clone());
                        }
                        Some(_) => {}
                        None => {
                            merged.insert(name.clone(), schema.clone());
                        }
                    }
                }
                if !clashes.is_empty() {
                    residue.push((key.to_owned(), Value::Object(clashes)));
                }
                Some(Value::Object(merged))
            }
            k => match vocabulary::bound(k) {
                Some(side) => meet::bound(Some(&ours), Some(theirs), side == Bound::Lower),
                // Keys that reject nothing (annotations, the content keywords among them,
                // identifiers, comments, unknown keys): two values keep the first, exactly.
                None if !vocabulary::asserts(k) => meet::annotation(Some(&ours), Some(theirs)),
                None => None,
            },
        };
        match combined {
            Some(value) => {
                out.insert(key.to_owned(), value);
            }
            None => residue.push((key.to_owned(), theirs.clone())),
        }
    }
    conj_objects(&mut out, &mut residue, a, b, sub)?;
    conj_arrays(&mut out, a, b, sub)?;
    for group in WHOLE_GROUPS {
        if !group.iter().any(|k| b.contains_key(*k)) || group.iter().all(|k| a.get(*k) == b.get(*k)) {
            continue;
        }
        if group.iter().any(|k| a.contains_key(*k)) {
            residue.extend(group.iter().filter_map(|k| b.get(*k).map(|v| ((*k).to_owned(), v.clone()))));
        } else {
            copy(b, &mut out, group);
        }
    }
    Ok(Conj::Combined { schema: out, residue })
}

/// `properties`, `patternProperties` and `additionalProperties` decide together which key each
/// applies to, so they combine together.
fn conj_objects<E>(
    out: &mut Map<String, Value>,
    residue: &mut Vec<(String, Value)>,
    a: &Map<String, Value>,
    b: &Map<String, Value>,
    sub: &mut impl FnMut(&Value, &Value) -> Result<Value, E>,
) -> Result<(), E> {
    if !OBJECT_GROUP.iter().any(|k| b.contains_key(*k)) {
        return Ok(());
    }
    if !OBJECT_GROUP.iter().any(|k| a.contains_key(*k)) {
        copy(b, out, &OBJECT_GROUP);
        return Ok(());
    }
    // A side's `additionalProperties` applies to the keys none of the side's patterns claims; once
    // patterns meet an `additionalProperties` (its own side's or the other's), which keys it still
    // reaches is a question about regular expressions, not decided here.
    let any = |key: &str| a.contains_key(key) || b.contains_key(key);
    if any("additionalProperties") && any("patternProperties") {
        residue.extend(OBJECT_GROUP.iter().filter_map(|k| b.get(*k).map(|v| ((*k).to_owned(), v.clone()))));
        return Ok(());
    }
    let (pa, pb) = (a.get("properties").and_then(Value::as_object), b.get("properties").and_then(Value::as_object));
    let (extra_a, extra_b) = (a.get("additionalProperties"), b.get("additionalProperties"));
    if pa.is_some() || pb.is_some() {
        let mut properties = Map::new();
        for (name, x) in pa.into_iter().flatten() {
            let both = match pb.and_then(|p| p.get(name)).or(extra_b) {
                Some(y) => sub(x, y)?,
                None => x.clone(),
            };
            properties.insert(name.clone(), both);
        }
        for (name, y) in pb.into_iter().flatten() {
            if properties.contains_key(name) {
                continue;
            }
            let both = match extra_a {
                Some(x) => sub(x, y)?,
                None => y.clone(),
            };
            properties.insert(name.clone(), both);
        }
        out.insert("properties".to_owned(), Value::Object(properties));
    }
    if let Some(theirs) = b.get("patternProperties") {
        let patterns = match a.get("patternProperties") {
            Some(ours) => conj_named(ours, theirs, sub)?,
            None => theirs.clone(),
        };
        out.insert("patternProperties".to_owned(), patterns);
    }
    match (extra_a, extra_b) {
        (Some(x), Some(y)) => {
            let both = sub(x, y)?;
            out.insert("additionalProperties".to_owned(), both);
        }
        (None, Some(y)) => {
            out.insert("additionalProperties".to_owned(), y.clone());
        }
        _ => {}
    }
    Ok(())
}

/// `prefixItems` and `items` line up position by position.
fn conj_arrays<E>(out: &mut Map<String, Value>, a: &Map<String, Value>, b: &Map<String, Value>, sub: &mut impl FnMut(&Value, &Value) -> Result<Value, E>) -> Result<(), E> {
    if !ARRAY_GROUP.iter().any(|k| b.contains_key(*k)) {
        return Ok(());
    }
    let prefix = |side: &Map<String, Value>| side.get("prefixItems").and_then(Value::as_array).cloned().unwrap_or_default();
    let (pa, pb) = (prefix(a), prefix(b));
    let longest = pa.len().max(pb.len());
    if longest > 0 {
        let mut merged = Vec::with_capacity(longest);
        for i in 0..longest {
            let x = pa.get(i).or_else(|| a.get("items"));
            let y = pb.get(i).or_else(|| b.get("items"));
            merged.push(match (x, y) {
                (Some(x), Some(y)) => sub(x, y)?,
                (Some(v), None) | (None, Some(v)) => v.clone(),
                (None, None) => Value::Bool(true),
            });
        }
        out.insert("prefixItems".to_owned(), Value::Array(merged));
    }
    match (a.get("items"), b.get("items")) {
        (Some(x), Some(y)) => {
            let both = sub(x, y)?;
            out.insert("items".to_owned(), both);
        }
        (None, Some(y)) => {
            out.insert("items".to_owned(), y.clone());
        }
        _ => {}
    }
    Ok(())
}

/// Two maps of named subschemas (`dependentSchemas`, `patternProperties`): one name on both
/// sides means both schemas.
fn conj_named<E>(ours: &Value, theirs: &Value, sub: &mut impl FnMut(&Value, &Value) -> Result<Value, E>) -> Result<Value, E> {
    let mut merged = ours.as_object().cloned().unwrap_or_default();
    for (name, schema) in theirs.as_object().into_iter().flatten() {
        let both = match merged.get(name) {
            Some(mine) => sub(mine, schema)?,
            None => schema.clone(),
        };
        merged.insert(name.clone(), both);
    }
    Ok(Value::Object(merged))
}

/// Both name lists as one, without repeats, in first-seen order: the conjunction of two
/// `required` lists.
pub(crate) fn union_names(ours: &Value, theirs: &Value) -> Value {
    let list = |v: &Value| v.as_array().map_or(&[][..], Vec::as_slice).to_vec();
    Value::Array(meet::names(&list(ours), &list(theirs)))
}

/// `dependentRequired`: per property, both lists.
fn union_lists(ours: &Value, theirs: &Value) -> Value {
    let mut merged = ours.as_object().cloned().unwrap_or_default();
    for (name, list) in theirs.as_object().into_iter().flatten() {
        let both = merged.get(name).map_or_else(|| list.clone(), |mine| union_names(mine, list));
        merged.insert(name.clone(), both);
    }
    Value::Object(merged)
}

fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(v) = from.get(*key) {
            to.insert((*key).to_owned(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::convert::Infallible;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    /// Subschemas conjoined by recursion, residues dropped (enough to test the top level).
    fn run(a: Value, b: Value) -> Conj {
        fn sub(x: &Value, y: &Value) -> Result<Value, Infallible> {
            Ok(match (x, y) {
                (Value::Object(x), Value::Object(y)) => match conj(x, y, &mut sub)? {
                    Conj::Unsatisfiable => json!(false),
                    Conj::Combined { schema, .. } => Value::Object(schema),
                },
                (Value::Bool(true), other) | (other, Value::Bool(true)) => other.clone(),
                _ => json!(false),
            })
        }
        match conj(&obj(a), &obj(b), &mut sub) {
            Ok(c) => c,
            Err(never) => match never {},
        }
    }

    fn combined(schema: Value, residue: &[(&str, Value)]) -> Conj {
        Conj::Combined { schema: obj(schema), residue: residue.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect() }
    }

    #[test]
    fn keywords_that_combine_leave_no_residue() {
        assert_eq!(
            run(
                json!({"type": ["integer", "string"], "minimum": 1, "required": ["a"], "multipleOf": 0.5}),
                json!({"type": "number", "minimum": 3, "required": ["b", "a"], "multipleOf": 0.3})
            ),
            combined(json!({"type": "integer", "minimum": 3, "required": ["a", "b"], "multipleOf": 1.5}), &[])
        );
        // `1` and `1.0` are one value.
        assert_eq!(run(json!({"enum": [1, 2]}), json!({"const": 1.0})), combined(json!({"enum": [1]}), &[]));
        assert_eq!(run(json!({"type": "string"}), json!({"type": "integer"})), Conj::Unsatisfiable);
        assert_eq!(run(json!({"const": "a"}), json!({"enum": ["b"]})), Conj::Unsatisfiable);
        assert_eq!(run(json!({"type": "string"}), json!({"not": {}})), Conj::Unsatisfiable);
    }

    #[test]
    fn what_does_not_combine_is_the_residue_in_order() {
        assert_eq!(
            run(
                json!({"pattern": "a", "format": "email", "not": {"const": 1}, "title": "x"}),
                json!({"not": {"const": 2}, "pattern": "b", "format": "email", "title": "y"})
            ),
            combined(
                json!({"pattern": "a", "format": "email", "not": {"const": 1}, "title": "x"}),
                &[("not", json!({"const": 2})), ("pattern", json!("b"))]
            )
        );
        assert_eq!(
            run(json!({"contains": {"type": "string"}, "minContains": 2}), json!({"contains": {"type": "integer"}})),
            combined(json!({"contains": {"type": "string"}, "minContains": 2}), &[("contains", json!({"type": "integer"}))])
        );
    }

    #[test]
    fn closed_sides_forbid_the_other_sides_extra_properties() {
        assert_eq!(
            run(
                json!({"properties": {"a": {"type": "string"}}, "additionalProperties": false}),
                json!({"properties": {"a": {"minLength": 1}, "b": {}}, "required": ["b"]})
            ),
            combined(
                json!({"properties": {"a": {"type": "string", "minLength": 1}, "b": false}, "additionalProperties": false, "required": ["b"]}),
                &[]
            )
        );
        // Which keys a pattern claims is not decided here: b's object keywords stay apart.
        assert_eq!(
            run(json!({"additionalProperties": false}), json!({"patternProperties": {"^x": {}}})),
            combined(json!({"additionalProperties": false}), &[("patternProperties", json!({"^x": {}}))])
        );
        assert_eq!(
            run(json!({"patternProperties": {"^x": {}}, "additionalProperties": false}), json!({"properties": {"y": {}}})),
            combined(json!({"patternProperties": {"^x": {}}, "additionalProperties": false}), &[("properties", json!({"y": {}}))])
        );
        // Patterns alone still apply beside the merged properties: exact.
        assert_eq!(
            run(json!({"patternProperties": {"^x": {"type": "string"}}}), json!({"properties": {"y": {}}})),
            combined(json!({"patternProperties": {"^x": {"type": "string"}}, "properties": {"y": {}}}), &[])
        );
    }

    #[test]
    fn tuples_line_up_position_by_position() {
        assert_eq!(
            run(json!({"prefixItems": [{"type": "string"}], "items": {"minLength": 1}}), json!({"items": {"maxLength": 3}})),
            combined(
                json!({"prefixItems": [{"type": "string", "maxLength": 3}], "items": {"minLength": 1, "maxLength": 3}}),
                &[]
            )
        );
    }
}
