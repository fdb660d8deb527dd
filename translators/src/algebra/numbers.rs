//! Exact arithmetic on JSON numbers for combining numeric keywords: the least common multiple of
//! two `multipleOf` values, computed on their shortest decimal spellings (so `0.5` and `0.3` give
//! `1.5`, and `2.0` is the integer `2`). One copy for every engine that conjoins `multipleOf`,
//! and the one comparison that picks the tighter of two bounds.

use serde_json::Value;

use super::json_eq;

/// The least common multiple of two positive `multipleOf` values, computed exactly on their
/// decimal expansions; `None` when it does not fit.
pub(crate) fn least_common_multiple(a: &Value, b: &Value) -> Option<Value> {
    if json_eq(a, b) {
        return Some(a.clone());
    }
    let (pa, qa) = rational(a)?;
    let (pb, qb) = rational(b)?;
    let numerator = pa.checked_div(gcd(pa, pb))?.checked_mul(pb)?;
    let denominator = gcd(qa, qb);
    if denominator == 1 {
        return u64::try_from(numerator).ok().map(Value::from);
    }
    // The denominator divides a power of ten, so the quotient is a finite decimal.
    let mut scale = 1u128;
    let mut digits = 0usize;
    while !scale.is_multiple_of(denominator) {
        scale = scale.checked_mul(10)?;
        digits += 1;
    }
    let scaled = numerator.checked_mul(scale / denominator)?.to_string();
    let padded = format!("{scaled:0>width$}", width = digits + 1);
    let (int, frac) = padded.split_at(padded.len() - digits);
    format!("{int}.{frac}").parse::<f64>().ok().and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
}

/// The tighter of two bounds of one keyword: the larger lower bound (`lower`), else the smaller
/// upper bound; a tie, or a value that is no number, keeps `ours`. One comparison for every engine
/// that tightens bounds.
pub(crate) fn tighter<'v>(ours: &'v Value, theirs: &'v Value, lower: bool) -> &'v Value {
    let (x, y) = (ours.as_f64().unwrap_or(f64::NAN), theirs.as_f64().unwrap_or(f64::NAN));
    if (lower && y > x) || (!lower && y < x) { theirs } else { ours }
}

/// The inclusive bound an exclusive bound is on the integers: the nearest integer strictly inside
/// it (`exclusiveMinimum: 2.5` is `minimum: 3`, `exclusiveMaximum: 3` is `maximum: 2`), written
/// as a JSON integer; `None` when the bound is no number or that integer is not exact in an f64.
/// Exact for an integer-typed node; for other numbers the exclusive bound has no inclusive twin.
#[must_use]
pub(crate) fn integer_inside(exclusive: &Value, lower: bool) -> Option<Value> {
    let x = exclusive.as_f64()?;
    let next = if lower { x.floor() + 1.0 } else { x.ceil() - 1.0 };
    // Within ±2^53 an f64 holds every integer exactly, so the cast loses nothing.
    (next.fract() == 0.0 && next.abs() < 9.0e15).then(|| Value::from(next as i64))
}

/// A positive number as a reduced fraction of its shortest decimal spelling.
fn rational(value: &Value) -> Option<(u128, u128)> {
    let number = value.as_number()?;
    if let Some(n) = number.as_u64() {
        return (n > 0).then_some((u128::from(n), 1));
    }
    let f = number.as_f64()?;
    if !(f.is_finite() && f > 0.0) {
        return None;
    }
    let text = f.to_string();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut denominator = 1u128;
    for _ in 0..frac.len() {
        denominator = denominator.checked_mul(10)?;
    }
    let numerator: u128 = format!("{int}{frac}").trim_start_matches('0').parse().ok()?;
    let g = gcd(numerator, denominator);
    Some((numerator / g, denominator / g))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::{integer_inside, least_common_multiple};
    use serde_json::json;

    #[test]
    fn exclusive_bounds_become_the_next_integer_inside() {
        assert_eq!(integer_inside(&json!(2.5), true), Some(json!(3)));
        assert_eq!(integer_inside(&json!(2), true), Some(json!(3)));
        assert_eq!(integer_inside(&json!(3.0), false), Some(json!(2)));
        assert_eq!(integer_inside(&json!(-0.5), false), Some(json!(-1)));
        assert_eq!(integer_inside(&json!(1e300), true), None);
        assert_eq!(integer_inside(&json!("3"), true), None);
    }

    #[test]
    fn least_common_multiples_are_exact() {
        assert_eq!(least_common_multiple(&json!(4), &json!(6)), Some(json!(12)));
        assert_eq!(least_common_multiple(&json!(0.5), &json!(0.3)), Some(json!(1.5)));
        assert_eq!(least_common_multiple(&json!(0.01), &json!(2)), Some(json!(2)));
        assert_eq!(least_common_multiple(&json!(2.0), &json!(3)), Some(json!(6)));
        assert_eq!(least_common_multiple(&json!(1e300), &json!(3e-300)), None);
    }
}
