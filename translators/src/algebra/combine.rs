//! Conjunction and union of combinator-free schemas that widen where they cannot combine, for
//! translators whose target has no combinators (`cca-claude`; `moonshot` takes its type
//! helpers). Moved here from `builtin/schema_algebra.rs`: it is general algebra, not a
//! provider's policy.
//!
//! [`merge`] is the exact [`conj`](crate::algebra::conj) with cca-claude's policy for the residue:
//! keep the first value of each keyword that does not combine (a widening). [`union`] is the
//! residue-returning union: the joined schema and, when it accepts more than the branches, the
//! branches themselves as its residue (`joined ∧ anyOf(residue)` is exactly the union), for the
//! caller's policy to drop (a declared widening) or keep.
//!
//! Two operations, each with a guaranteed direction so that the table row using it can name one:
//!
//! - [`merge`]`(a, b)` accepts **at least** what both `a` and `b` accept (`a ∧ b ⊆ merge`), exactly
//!   that when the keywords combine (`required` lists unite, bounds tighten, property schemas merge,
//!   enums intersect, `prefixItems`/`items` line up position by position). Where two values of one
//!   keyword cannot be combined (two different `pattern`s, two `not`s), the first is kept: a
//!   widening, never a narrowing. An unsatisfiable combination (`string ∧ integer`) is sent as
//!   `not: {}` beside the first side's keywords, which is exact.
//! - [`join`]`(branches)` accepts **at least** what any branch accepts (`⋃ branches ⊆ join`): the
//!   union of their types when one type covers it, enums united, and per JSON type only the
//!   constraints every branch admitting that type shares, loosened to the weakest (`minLength` the
//!   smallest, `required` the intersection, property schemas joined). Object unions come out as one
//!   object whose properties are every branch's and whose `required` is what all branches require.
//!
//! Neither looks at `unevaluated*` or dynamic references: their callers fall back before calling
//! them when those are present, because evaluation annotations change when keywords move.

use std::convert::Infallible;

use serde_json::{Map, Value};

use crate::algebra::conj::{Conj, conj};
use crate::vocabulary::{self, Bound, InstanceType};

/// The one type set ([`crate::types`]), read here by type names.
pub(crate) use crate::types::Types;

/// The JSON type a keyword constrains (it is vacuous on other types), or `None` for keywords that
/// apply to every type: the registry's [`vocabulary::instance_type`], by name.
pub(crate) fn domain(keyword: &str) -> Option<&'static str> {
    vocabulary::instance_type(keyword).map(InstanceType::name)
}

/// The types a schema admits, from `type`, `enum` and `const` (any type when none says).
pub(crate) fn admitted_types(schema: &Map<String, Value>) -> Types {
    let mut types = schema.get("type").and_then(Types::of_keyword).unwrap_or(Types::ALL);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        types = types.and(values.iter().fold(Types::NONE, |acc, v| acc.or(Types::of_value(v))));
    }
    if let Some(c) = schema.get("const") {
        types = types.and(Types::of_value(c));
    }
    types
}

/// Whether a schema was marked unsatisfiable (`not: {}` or `not: true`).
pub(crate) use crate::algebra::conj::is_unsatisfiable;

// ---- conjunction ---------------------------------------------------------------------------

/// `a ∧ b` for two schemas (booleans included), at least as wide as the conjunction.
pub(crate) fn merge_schemas(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Bool(false), _) | (_, Value::Bool(false)) => Value::Bool(false),
        (Value::Bool(true), other) | (other, Value::Bool(true)) => other.clone(),
        (Value::Object(a), Value::Object(b)) => Value::Object(merge(a, b)),
        (other, _) => other.clone(),
    }
}

/// Merge schema `b` into schema `a` (conjunction): the exact [`conj`], keeping the first value of
/// each keyword in its residue (the stated widening). An unsatisfiable pair is `a` with `not: {}`.
pub(crate) fn merge(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let conjunction = conj(a, b, &mut |x: &Value, y: &Value| Ok::<_, Infallible>(merge_schemas(x, y)));
    match conjunction {
        Ok(Conj::Combined { schema, residue: _ }) => schema,
        Ok(Conj::Unsatisfiable) => {
            let mut out = a.clone();
            out.insert("not".to_owned(), Value::Object(Map::new()));
            out
        }
        Err(never) => match never {},
    }
}

// ---- union ---------------------------------------------------------------------------------

/// A union of branches written as one schema ([`union`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Union {
    /// Accepts at least what any branch accepts ([`join`]).
    pub(crate) schema: Value,
    /// `None` when `schema` accepts exactly what the branches accept; otherwise the branches,
    /// so that `schema ∧ anyOf(residue)` is exactly the union. Dropping it is a widening.
    pub(crate) residue: Option<Vec<Value>>,
}

/// The [`join`] of `branches` with what it could not say exactly. Exact (no residue) when at most
/// one branch can match anything, when a branch accepts everything, or when every branch is a set
/// of values (`enum`/`const` beside notes only: [`vocabulary::is_note`]), which the join unites as they are. Anything
/// else is called inexact, even where the join happens to be exact: a residue the caller drops is
/// a widening its table declares, so over-reporting one costs nothing, under-reporting would lie.
pub(crate) fn union(branches: &[Value]) -> Union {
    let schema = join(branches);
    let accepts_all = |b: &Value| matches!(b, Value::Bool(true)) || b.as_object().is_some_and(Map::is_empty);
    let live: Vec<&Value> =
        branches.iter().filter(|b| !matches!(b, Value::Bool(false)) && !b.as_object().is_some_and(is_unsatisfiable)).collect();
    let values_only = |b: &&Value| {
        b.as_object().is_some_and(|m| {
            (m.contains_key("enum") || m.contains_key("const"))
                && m.keys().all(|k| matches!(k.as_str(), "enum" | "const") || vocabulary::is_note(k))
        })
    };
    let exact = live.len() <= 1 || branches.iter().any(accepts_all) || live.iter().all(values_only);
    Union { schema, residue: (!exact).then(|| live.into_iter().cloned().collect()) }
}

/// A schema accepting at least what any of `branches` accepts; see the module documentation.
pub(crate) fn join(branches: &[Value]) -> Value {
    let mut live = Vec::new();
    for branch in branches {
        match branch {
            Value::Bool(true) => return Value::Object(Map::new()),
            Value::Object(map) if map.is_empty() => return Value::Object(Map::new()),
            Value::Object(map) if !is_unsatisfiable(map) => live.push(map),
            _ => {}
        }
    }
    match live.as_slice() {
        [] => return Value::Bool(false),
        [one] => return Value::Object((*one).clone()),
        _ => {}
    }
    let types: Vec<Types> = live.iter().map(|b| admitted_types(b)).collect();
    let mut out = Map::new();
    let all = types.iter().fold(Types::NONE, |acc, t| acc.or(*t));
    if !all.is_all() && let Some(one) = all.single() {
        out.insert("type".to_owned(), Value::from(one));
    }
    if live.iter().all(|b| b.contains_key("enum") || b.contains_key("const")) {
        let mut values: Vec<Value> = Vec::new();
        for b in &live {
            for v in enum_values(b).unwrap_or_default() {
                if !crate::algebra::contains(&values, &v) {
                    values.push(v);
                }
            }
        }
        out.insert("enum".to_owned(), Value::Array(values));
    }
    for key in ["not", "$ref"] {
        if let Some(first) = live[0].get(key)
            && live.iter().all(|b| b.get(key) == Some(first))
        {
            out.insert(key.to_owned(), first.clone());
        }
    }
    if live.iter().all(|b| ["if", "then", "else"].iter().all(|k| b.get(*k) == live[0].get(*k))) {
        for k in ["if", "then", "else"] {
            if let Some(v) = live[0].get(k) {
                out.insert(k.to_owned(), v.clone());
            }
        }
    }
    // Per JSON type: the branches that admit it, and what all of them ask of it.
    let admitting = |domain: &str| -> Vec<&Map<String, Value>> {
        live.iter().zip(&types).filter(|(_, t)| t.meets(domain)).map(|(b, _)| *b).collect()
    };
    for key in [
        "minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minProperties", "maxProperties", "propertyNames", "minItems", "maxItems", "uniqueItems",
    ] {
        let Some(dom) = domain(key) else { continue };
        let adm = admitting(dom);
        if adm.is_empty() || !adm.iter().all(|b| b.contains_key(key)) {
            continue;
        }
        let values: Vec<&Value> = adm.iter().filter_map(|b| b.get(key)).collect();
        let joined = if vocabulary::bound(key) == Some(Bound::Lower) {
            values.iter().copied().min_by(|x, y| number(x).total_cmp(&number(y))).cloned()
        } else if vocabulary::bound(key) == Some(Bound::Upper) {
            values.iter().copied().max_by(|x, y| number(x).total_cmp(&number(y))).cloned()
        } else if key == "propertyNames" {
            Some(join(&values.iter().map(|v| (*v).clone()).collect::<Vec<_>>()))
        } else {
            values.iter().all(|v| *v == values[0]).then(|| values[0].clone())
        };
        if let Some(v) = joined {
            out.insert(key.to_owned(), v);
        }
    }
    join_objects(&mut out, &admitting("object"));
    join_arrays(&mut out, &admitting("array"));
    Value::Object(out)
}

fn join_objects(out: &mut Map<String, Value>, adm: &[&Map<String, Value>]) {
    if adm.is_empty() {
        return;
    }
    let any_patterns = adm.iter().any(|b| b.contains_key("patternProperties"));
    let lists: Vec<Vec<Value>> = adm.iter().map(|b| b.get("required").and_then(Value::as_array).cloned().unwrap_or_default()).collect();
    let common: Vec<Value> = lists[0].iter().filter(|n| lists.iter().all(|l| l.contains(n))).cloned().collect();
    if !common.is_empty() {
        out.insert("required".to_owned(), Value::Array(common));
    }
    let unlisted = |b: &Map<String, Value>| -> Value {
        if b.contains_key("patternProperties") { Value::Bool(true) } else { b.get("additionalProperties").cloned().unwrap_or(Value::Bool(true)) }
    };
    let additional = if any_patterns { Value::Bool(true) } else { join(&adm.iter().map(|b| unlisted(b)).collect::<Vec<_>>()) };
    let mut names: Vec<&String> = Vec::new();
    for b in adm {
        for name in b.get("properties").and_then(Value::as_object).into_iter().flat_map(Map::keys) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let mut properties = Map::new();
    for name in names {
        let each: Vec<Value> = adm
            .iter()
            .map(|b| b.get("properties").and_then(|p| p.get(name)).cloned().unwrap_or_else(|| unlisted(b)))
            .collect();
        properties.insert(name.clone(), join(&each));
    }
    if !properties.is_empty() {
        out.insert("properties".to_owned(), Value::Object(properties));
    }
    if !is_accept_all(&additional) {
        out.insert("additionalProperties".to_owned(), additional);
    }
    if let Some(first) = adm[0].get("dependentRequired").and_then(Value::as_object) {
        let mut joined = Map::new();
        for (name, list) in first {
            let lists: Vec<&Vec<Value>> = adm.iter().filter_map(|b| b.get("dependentRequired")?.get(name)?.as_array()).collect();
            if lists.len() == adm.len() {
                let common: Vec<Value> = list.as_array().into_iter().flatten().filter(|n| lists.iter().all(|l| l.contains(n))).cloned().collect();
                joined.insert(name.clone(), Value::Array(common));
            }
        }
        if !joined.is_empty() {
            out.insert("dependentRequired".to_owned(), Value::Object(joined));
        }
    }
    if let Some(first) = adm[0].get("dependentSchemas").and_then(Value::as_object) {
        let mut joined = Map::new();
        for name in first.keys() {
            let each: Vec<Value> = adm.iter().filter_map(|b| b.get("dependentSchemas")?.get(name).cloned()).collect();
            if each.len() == adm.len() {
                joined.insert(name.clone(), join(&each));
            }
        }
        if !joined.is_empty() {
            out.insert("dependentSchemas".to_owned(), Value::Object(joined));
        }
    }
}

fn join_arrays(out: &mut Map<String, Value>, adm: &[&Map<String, Value>]) {
    if adm.is_empty() {
        return;
    }
    let prefix = |b: &Map<String, Value>| b.get("prefixItems").and_then(Value::as_array).cloned().unwrap_or_default();
    let at = |b: &Map<String, Value>, i: usize| prefix(b).get(i).cloned().unwrap_or_else(|| b.get("items").cloned().unwrap_or(Value::Bool(true)));
    let longest = adm.iter().map(|b| prefix(b).len()).max().unwrap_or(0);
    let joined_prefix: Vec<Value> = (0..longest).map(|i| join(&adm.iter().map(|b| at(b, i)).collect::<Vec<_>>())).collect();
    if joined_prefix.iter().any(|s| !is_accept_all(s)) {
        out.insert("prefixItems".to_owned(), Value::Array(joined_prefix));
    }
    let items = join(&adm.iter().map(|b| b.get("items").cloned().unwrap_or(Value::Bool(true))).collect::<Vec<_>>());
    if !is_accept_all(&items) {
        out.insert("items".to_owned(), items);
    }
    let group = vocabulary::CONTAINS_GROUP;
    if adm.iter().all(|b| group.iter().all(|k| b.get(*k) == adm[0].get(*k))) {
        for k in group {
            if let Some(v) = adm[0].get(k) {
                out.insert(k.to_owned(), v.clone());
            }
        }
    }
}

// ---- helpers -------------------------------------------------------------------------------

fn is_accept_all(schema: &Value) -> bool {
    matches!(schema, Value::Bool(true)) || schema.as_object().is_some_and(Map::is_empty)
}

/// The values an `enum` or `const` allows, when one of them is present (compared by value: the
/// one value set of [`crate::types::value_set`]).
pub(crate) use crate::types::value_set as enum_values;

fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn merge_tightens_bounds_and_unites_required() {
        let a = obj(json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "required": ["a"]}));
        let b = obj(json!({"properties": {"a": {"minLength": 3}, "b": {"type": "integer"}}, "required": ["b"]}));
        assert_eq!(
            Value::Object(merge(&a, &b)),
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 3}, "b": {"type": "integer"}}, "required": ["a", "b"]})
        );
    }

    #[test]
    fn merge_marks_contradictions_unsatisfiable() {
        let out = merge(&obj(json!({"type": "string"})), &obj(json!({"type": "integer"})));
        assert!(is_unsatisfiable(&out));
        let out = merge(&obj(json!({"const": "a"})), &obj(json!({"enum": ["b"]})));
        assert!(is_unsatisfiable(&out));
    }

    #[test]
    fn merge_keeps_additional_properties_on_the_other_sides_keys() {
        let a = obj(json!({"properties": {"a": {}}, "additionalProperties": {"type": "string"}}));
        let b = obj(json!({"properties": {"b": {"maxLength": 2}}}));
        let out = merge(&a, &b);
        assert_eq!(out["properties"]["b"], json!({"type": "string", "maxLength": 2}));
    }

    #[test]
    fn join_of_object_branches_unites_properties_and_intersects_required() {
        let branches = [
            json!({"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind", "x"]}),
            json!({"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind", "y"]}),
        ];
        assert_eq!(
            join(&branches),
            // `x` may be anything in the second branch (it is open), so the join leaves it open.
            json!({"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["a", "b"]}, "x": {}, "y": {}}})
        );
    }

    #[test]
    fn join_of_scalars_keeps_only_what_every_admitting_branch_asks() {
        let branches = [json!({"type": "string", "minLength": 2}), json!({"type": "integer", "minimum": 0})];
        assert_eq!(join(&branches), json!({"minLength": 2, "minimum": 0}));
        let same = [json!({"type": "string", "minLength": 2}), json!({"type": "string", "minLength": 5, "pattern": "x"})];
        assert_eq!(join(&same), json!({"type": "string", "minLength": 2}));
        assert_eq!(join(&[json!(false), json!({"type": "string"})]), json!({"type": "string"}));
        assert_eq!(join(&[json!(false)]), json!(false));
    }

    #[test]
    fn a_union_names_its_residue_unless_the_join_is_exact() {
        let exact = |branches: &[Value]| union(branches).residue.is_none();
        assert!(exact(&[json!({"enum": [1, 2]}), json!({"const": "a", "title": "A"})]), "values unite as they are");
        assert!(exact(&[json!(false), json!({"type": "string", "minLength": 2})]), "one live branch");
        assert!(exact(&[json!({"type": "string"}), json!(true)]), "a branch accepts everything");
        let widened = [json!({"type": "string", "minLength": 2}), json!({"type": "string", "maxLength": 1})];
        let u = union(&widened);
        assert_eq!(u.schema, json!({"type": "string"}));
        assert_eq!(u.residue, Some(widened.to_vec()), "the branches are the residue: schema ∧ anyOf(residue) is the union");
        assert!(!exact(&[json!({"type": "string"}), json!({"type": "integer"})]), "two types the join writes without `type`");
    }
}
