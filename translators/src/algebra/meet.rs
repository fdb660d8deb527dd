//! The meet (`∧`) of two values of one keyword: one rule per kind of keyword, shared by every
//! conjunction in this crate whatever it holds its schemas in.
//!
//! Two engines conjoin schemas: [`super::conj`] over schema maps (cca-claude, openai-strict,
//! moonshot) and gemini-proto over its typed normal form (a `Branch` of proto fields per JSON
//! type). They differ in what they hold, not in what a conjunction of two bounds, two value lists
//! or two `required` lists is; so those rules live here, once, and each engine is left with only
//! the walk over its own fields. Every rule is exact: the meet accepts precisely what both sides
//! accept. `None` stands for a side that does not constrain (the keyword is absent).
//!
//! | kind | keywords | meet |
//! |---|---|---|
//! | [`bound`] | `minimum`, `maximum`, `exclusive*`, `min*`/`max*` lengths and counts | the tighter one |
//! | [`count`] | the same counts, once read as integers | the tighter one |
//! | [`members`] | `enum`, `const` (as a one-value list) | the values both hold, by [`json_eq`] |
//! | [`names`] | `required`, and description paragraphs | both lists, without repeats, first seen first |
//! | [`annotation`] | `title`, `default`, `description`, ... | the first (an annotation rejects nothing) |
//!
//! [`empty_range`] and [`empty_count`] are the one test of whether a meet of bounds left nothing,
//! for an engine that prunes such branches (gemini-proto drops them; a schema map keeps them,
//! which is exact too).

use serde_json::Value;

use super::json_eq;
use super::numbers::tighter;

/// The meet of two numeric bounds of one keyword: the larger lower bound (`lower`), else the
/// smaller upper bound. A tie keeps `ours` (so `1` beside `1.0` keeps the spelling already there).
#[must_use]
pub(crate) fn bound(ours: Option<&Value>, theirs: Option<&Value>, lower: bool) -> Option<Value> {
    match (ours, theirs) {
        (Some(x), Some(y)) => Some(tighter(x, y, lower).clone()),
        (x, y) => x.or(y).cloned(),
    }
}

/// The meet of two counts (`minItems`, `maxLength`, ...) already read as integers.
#[must_use]
pub(crate) fn count(ours: Option<u64>, theirs: Option<u64>, lower: bool) -> Option<u64> {
    match (ours, theirs) {
        (Some(x), Some(y)) => Some(if lower { x.max(y) } else { x.min(y) }),
        (x, y) => x.or(y),
    }
}

/// The meet of two value lists (`enum`, or a `const` as a list of one): the values of `ours` that
/// `theirs` holds, in `ours`' order. `Some(empty)` means nothing is left.
#[must_use]
pub(crate) fn members<T: Clone>(ours: Option<&[T]>, theirs: Option<&[T]>, same: impl Fn(&T, &T) -> bool) -> Option<Vec<T>> {
    match (ours, theirs) {
        (Some(x), Some(y)) => Some(x.iter().filter(|v| y.iter().any(|w| same(v, w))).cloned().collect()),
        (x, y) => x.or(y).map(<[T]>::to_vec),
    }
}

/// [`members`] of JSON values, which compare by [`json_eq`] (`1` is `1.0`).
#[must_use]
pub(crate) fn values(ours: Option<&[Value]>, theirs: Option<&[Value]>) -> Option<Vec<Value>> {
    members(ours, theirs, json_eq)
}

/// The meet of two lists of names each of which must hold (`required`): both, without repeats,
/// in first-seen order.
#[must_use]
pub(crate) fn names<T: Clone + PartialEq>(ours: &[T], theirs: &[T]) -> Vec<T> {
    let mut out = ours.to_vec();
    for t in theirs {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}

/// The meet of two annotations: the first, since an annotation rejects nothing either way.
#[must_use]
pub(crate) fn annotation<T: Clone>(ours: Option<&T>, theirs: Option<&T>) -> Option<T> {
    ours.or(theirs).cloned()
}

/// Whether inclusive bounds `minimum`..`maximum` leave no number; `integers` when only integers
/// are admitted (`minimum: 1.5, maximum: 1.9` holds numbers but no integer).
#[must_use]
pub(crate) fn empty_range(minimum: Option<&Value>, maximum: Option<&Value>, integers: bool) -> bool {
    let (Some(lo), Some(hi)) = (minimum.and_then(Value::as_f64), maximum.and_then(Value::as_f64)) else { return false };
    if integers { lo.ceil() > hi.floor() } else { lo > hi }
}

/// Whether counts `min`..`max` leave no length.
#[must_use]
pub(crate) fn empty_count(min: Option<u64>, max: Option<u64>) -> bool {
    matches!((min, max), (Some(lo), Some(hi)) if lo > hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bounds_and_counts_tighten_and_a_tie_keeps_ours() {
        assert_eq!(bound(Some(&json!(1)), Some(&json!(3)), true), Some(json!(3)));
        assert_eq!(bound(Some(&json!(1)), Some(&json!(3)), false), Some(json!(1)));
        assert_eq!(bound(Some(&json!(1)), Some(&json!(1.0)), true), Some(json!(1)));
        assert_eq!(bound(None, Some(&json!(2.5)), false), Some(json!(2.5)));
        assert_eq!(bound(None, None, true), None);
        assert_eq!(count(Some(2), Some(5), true), Some(5));
        assert_eq!(count(Some(2), None, false), Some(2));
    }

    #[test]
    fn members_compare_numbers_by_value() {
        assert_eq!(values(Some(&[json!(1), json!(3)]), Some(&[json!(1.0), json!(2)])), Some(vec![json!(1)]));
        assert_eq!(values(Some(&[json!("a")]), Some(&[json!("b")])), Some(vec![]));
        assert_eq!(values(None, Some(&[json!(true)])), Some(vec![json!(true)]));
        assert_eq!(values(None, None), None);
    }

    #[test]
    fn names_unite_in_first_seen_order() {
        assert_eq!(names(&["a", "b"], &["c", "a"]), vec!["a", "b", "c"]);
    }

    #[test]
    fn emptiness_reads_integers_between_fractional_bounds() {
        assert!(empty_range(Some(&json!(1.5)), Some(&json!(1.9)), true));
        assert!(!empty_range(Some(&json!(1.5)), Some(&json!(1.9)), false));
        assert!(!empty_range(Some(&json!(1)), Some(&json!(1.0)), true));
        assert!(empty_range(Some(&json!(2)), Some(&json!(1)), false));
        assert!(!empty_range(None, Some(&json!(1)), false));
        assert!(empty_count(Some(3), Some(2)));
        assert!(!empty_count(Some(2), None));
    }
}
