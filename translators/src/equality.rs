//! JSON equality as draft 2020-12 defines it, shared by every translator and the oracle.
//!
//! `serde_json::Value`'s `==` compares numbers by representation, so `1 != 1.0`. JSON Schema
//! compares them by value (`const`, `enum`, `uniqueItems`, and so every merge, intersection and
//! disjointness proof a translator makes). Comparing by `==` turned `allOf: [{enum: [1]},
//! {enum: [1.0]}]` into nothing (a narrowing) and proved `oneOf` branches tagged `1` and `1.0`
//! disjoint (a widening); both are corpus cases now (`corpus/keywords/numeric-equality.yaml`).

use serde_json::{Number, Value};

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
}
