//! JSON equality as draft 2020-12 defines it, shared by every translator and the oracle.
//!
//! `serde_json::Value`'s `==` compares numbers by representation, so `1 != 1.0`. JSON Schema
//! compares them by value (`const`, `enum`, `uniqueItems`, and so every merge, intersection and
//! disjointness proof a translator makes). Comparing by `==` turned `allOf: [{enum: [1]},
//! {enum: [1.0]}]` into nothing (a narrowing) and proved `oneOf` branches tagged `1` and `1.0`
//! disjoint (a widening); both are corpus cases now (`corpus/keywords/numeric-equality.yaml`).

use std::fmt::Write as _;

use serde_json::{Number, Value};

use crate::MAX_DEPTH;

/// JSON Schema equality: numbers by value (exactly for integers up to 128 bits, else as `f64`),
/// arrays item by item, objects regardless of key order.
#[must_use]
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w))),
        _ => a == b,
    }
}

/// Whether `values` holds a value equal to `v` by [`json_eq`].
#[must_use]
pub fn contains(values: &[Value], v: &Value) -> bool {
    values.iter().any(|w| json_eq(v, w))
}

/// A hashable key for [`json_eq`]: two values with equal keys are equal by [`json_eq`], and equal
/// values get equal keys except across the one place `json_eq` is not transitive (an integer
/// beyond 2^53 and the float it rounds to, which `json_eq` equates while telling two such integers
/// apart). For deduplicating and intersecting large value sets in linear time, where a lost match
/// costs only yield. Numbers are keyed by value (`1` and `1.0` alike, `-0.0` as `0`), integers
/// beyond 2^53 exactly, object members in sorted order. Values nested deeper than the readers
/// allow get a key of their own (different from every other value's).
#[must_use]
pub fn key(v: &Value) -> String {
    let mut out = String::new();
    write_key(v, 0, &mut out);
    out
}

fn write_key(v: &Value, depth: usize, out: &mut String) {
    if depth > MAX_DEPTH {
        let _ = write!(out, "@{:p}", std::ptr::from_ref(v));
        return;
    }
    match v {
        Value::Null => out.push('n'),
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::Number(n) => match as_i128(n) {
            // Integers f64 holds exactly are keyed as the f64 they equal, so `1` meets `1.0`.
            Some(i) if i.unsigned_abs() > 1 << 53 => {
                let _ = write!(out, "i{i}");
            }
            _ => {
                // `+ 0.0` folds -0.0 into 0.0, which `==` on f64 already equates.
                let x = n.as_f64().unwrap_or(f64::NAN) + 0.0;
                let _ = write!(out, "#{:x}", x.to_bits());
            }
        },
        Value::String(s) => out.push_str(&Value::from(s.as_str()).to_string()),
        Value::Array(items) => {
            out.push('[');
            for item in items {
                write_key(item, depth + 1, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (k, v) in members {
                out.push_str(&Value::from(k.as_str()).to_string());
                out.push(':');
                write_key(v, depth + 1, out);
                out.push(',');
            }
            out.push('}');
        }
    }
}

/// The JSON pointer of the first place where `a` and `b` differ as written (numbers by
/// representation, object keys in any order), or `None` when they are the same document. For
/// telling where two answers to one question part ways.
#[must_use]
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            let differing = x.iter().zip(y).enumerate().find_map(|(i, (a, b))| first_difference(a, b).map(|p| format!("/{i}{p}")));
            differing.or_else(|| (x.len() != y.len()).then(|| format!("/{}", x.len().min(y.len()))))
        }
        (Value::Object(x), Value::Object(y)) => {
            let here = |k: &String| format!("/{}", k.replace('~', "~0").replace('/', "~1"));
            for (k, v) in x {
                match y.get(k) {
                    None => return Some(here(k)),
                    Some(w) => {
                        if let Some(p) = first_difference(v, w) {
                            return Some(format!("{}{p}", here(k)));
                        }
                    }
                }
            }
            y.keys().find(|k| !x.contains_key(*k)).map(here)
        }
        _ => (a != b).then(String::new),
    }
}

fn number_eq(x: &Number, y: &Number) -> bool {
    match (as_i128(x), as_i128(y)) {
        (Some(x), Some(y)) => x == y,
        _ => x.as_f64() == y.as_f64(),
    }
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

#[cfg(test)]
mod difference_tests {
    use super::first_difference;
    use serde_json::json;

    #[test]
    fn the_first_difference_is_named_by_pointer() {
        assert_eq!(first_difference(&json!({"a": [1, 2]}), &json!({"a": [1, 2]})), None);
        assert_eq!(first_difference(&json!({"a": [1, 2]}), &json!({"a": [1, 3]})), Some("/a/1".to_owned()));
        assert_eq!(first_difference(&json!({"a": [1]}), &json!({"a": [1, 2]})), Some("/a/1".to_owned()));
        assert_eq!(first_difference(&json!({"a/b": 1}), &json!({})), Some("/a~1b".to_owned()));
        assert_eq!(first_difference(&json!({}), &json!({"x": 1})), Some("/x".to_owned()));
        assert_eq!(first_difference(&json!(1), &json!(1.0)), Some(String::new()));
        assert_eq!(first_difference(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_everywhere() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1, {"b": 2.0}]}), &json!({"a": [1.0, {"b": 2}]})));
        assert!(!json_eq(&json!(1), &json!("1")));
        assert!(!json_eq(&json!(u64::MAX), &json!(u64::MAX - 1)), "large integers stay exact");
        assert!(contains(&[json!(2), json!(1.0)], &json!(1)));
    }

    #[test]
    fn keys_agree_with_json_eq() {
        let values = [
            json!(1), json!(1.0), json!(-0.0), json!(0), json!("1"), json!(null), json!([1, "a"]), json!([1.0, "a"]),
            json!({"a": 1, "b": [2]}), json!({"b": [2.0], "a": 1}), json!({"a": 1}), json!(true),
            json!(18_446_744_073_709_551_615_u64), json!(18_446_744_073_709_551_614_u64), json!(9_007_199_254_740_992_i64),
            json!(9_007_199_254_740_992.0), json!(-9_007_199_254_740_993_i64),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(key(a) == key(b), json_eq(a, b), "{a} vs {b}");
            }
        }
    }
}
