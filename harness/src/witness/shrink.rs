//! Shrinking a witness to the smallest instance that still disagrees, with proptest's runner.
//!
//! A witness is only as readable as it is small: `{"n": 11}` says "maximum was dropped" where the
//! first draw, `{"n": 523, "k": "xQ"}`, says little. The shrinking is structural and knows nothing
//! about the schema: [`JsonTree`] is a proptest [`ValueTree`] over a JSON value whose simpler
//! candidates are `null`, fewer keys, fewer items, shorter strings and numbers closer to zero.
//! proptest's [`TestRunner::run_one`] drives it (simplify while the property still fails,
//! complicate when it passes), and the property is "source and projection still disagree in this
//! direction", decided by the validators. So every step of the way, the candidate is a real
//! witness; the schema never has to be understood to keep it one.

use std::cell::Cell;

use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::{Map, Value};

/// At most this many candidates are tried per step (a large witness keeps the rest for later steps).
const CANDIDATES_PER_STEP: usize = 256;
/// At most this many instances are evaluated while shrinking one witness.
const MAX_SHRINK_ITERS: u32 = 2048;

/// A JSON value that shrinks structurally.
#[derive(Debug, Clone)]
pub struct JsonTree {
    current: Value,
    /// The simplest value known to still fail.
    base: Value,
    candidates: Vec<Value>,
    next: usize,
}

impl JsonTree {
    #[must_use]
    pub fn new(value: Value) -> Self {
        Self { base: value.clone(), current: value, candidates: Vec::new(), next: 0 }
    }

    fn advance(&mut self) -> bool {
        match self.candidates.get(self.next) {
            Some(candidate) => {
                self.current = candidate.clone();
                self.next += 1;
                true
            }
            None => {
                self.current = self.base.clone();
                false
            }
        }
    }
}

impl ValueTree for JsonTree {
    type Value = Value;

    fn current(&self) -> Value {
        self.current.clone()
    }

    /// Called when `current` fails (or at the start): it becomes the base, and its first
    /// candidate is tried next.
    fn simplify(&mut self) -> bool {
        self.base = self.current.clone();
        self.candidates = candidates(&self.base, CANDIDATES_PER_STEP);
        self.next = 0;
        self.advance()
    }

    /// Called when `current` passes: back to the base's next candidate.
    fn complicate(&mut self) -> bool {
        self.advance()
    }
}

/// The smallest instance reachable from `start` for which `still_fails` holds, and how many
/// instances were evaluated on the way. `still_fails(start)` is expected to hold.
pub(crate) fn shrink(start: Value, still_fails: impl Fn(&Value) -> bool) -> (Value, u32) {
    let config = Config { cases: 1, max_shrink_iters: MAX_SHRINK_ITERS, failure_persistence: None, ..Config::default() };
    // The runner's RNG is unused (the tree is given); a fixed one keeps shrinking deterministic.
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::XorShift));
    let evaluated = Cell::new(0u32);
    let outcome = runner.run_one(JsonTree::new(start.clone()), |candidate| {
        evaluated.set(evaluated.get() + 1);
        if still_fails(&candidate) { Err(TestCaseError::fail("still a witness")) } else { Ok(()) }
    });
    match outcome {
        Err(TestError::Fail(_, smallest)) => (smallest, evaluated.get()),
        // The start itself does not fail (a caller bug) or was rejected: keep it.
        Ok(_) | Err(TestError::Abort(_)) => (start, evaluated.get()),
    }
}

/// Simpler values than `v`, simplest first, at most `limit`.
pub(crate) fn candidates(v: &Value, limit: usize) -> Vec<Value> {
    let mut out = Vec::new();
    push_candidates(v, limit, &mut out);
    out
}

fn push_candidates(v: &Value, limit: usize, out: &mut Vec<Value>) {
    let push = |out: &mut Vec<Value>, c: Value| {
        if out.len() < limit && &c != v && !out.contains(&c) {
            out.push(c);
        }
    };
    if !v.is_null() {
        push(out, Value::Null);
    }
    match v {
        Value::Null | Value::Bool(false) => {}
        Value::Bool(true) => push(out, Value::Bool(false)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                for c in toward_zero(i) {
                    push(out, Value::from(c));
                }
            } else if let Some(f) = n.as_f64() {
                push(out, Value::from(0));
                if f.trunc().abs() < 9.0e15 {
                    push(out, Value::from(f.trunc() as i64));
                }
                push(out, Value::from((f * 10.0).trunc() / 10.0));
            }
        }
        Value::String(s) => {
            // By byte offsets of characters, copying slices: a string may be 100,000 characters
            // long (a `maxLength` probed at its bound).
            let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).take(17).collect();
            push(out, Value::from(""));
            let half = s.char_indices().nth(s.chars().count() / 2).map_or(s.len(), |(i, _)| i);
            push(out, Value::from(&s[..half]));
            for (k, &start) in starts.iter().enumerate().take(16) {
                let end = starts.get(k + 1).copied().unwrap_or(s.len());
                let mut shorter = String::with_capacity(s.len());
                shorter.push_str(&s[..start]);
                shorter.push_str(&s[end..]);
                push(out, Value::from(shorter));
            }
        }
        Value::Array(items) => {
            push(out, Value::Array(Vec::new()));
            push(out, Value::Array(items[..items.len() / 2].to_vec()));
            for i in 0..items.len() {
                let mut fewer = items.clone();
                fewer.remove(i);
                push(out, Value::Array(fewer));
            }
            for i in 0..items.len() {
                if out.len() >= limit {
                    break;
                }
                for c in candidates(&items[i], limit - out.len()) {
                    let mut one = items.clone();
                    one[i] = c.clone();
                    push(out, Value::Array(one));
                    // Equal items shrink together, or a duplicate under `uniqueItems` never would.
                    if items.iter().filter(|x| **x == items[i]).count() > 1 {
                        let all = items.iter().map(|x| if *x == items[i] { c.clone() } else { x.clone() }).collect();
                        push(out, Value::Array(all));
                    }
                }
            }
        }
        Value::Object(map) => {
            push(out, Value::Object(Map::new()));
            for key in map.keys() {
                let mut fewer = map.clone();
                fewer.shift_remove(key);
                push(out, Value::Object(fewer));
            }
            for (key, value) in map {
                if out.len() >= limit {
                    break;
                }
                for c in candidates(value, limit - out.len()) {
                    let mut one = map.clone();
                    one.insert(key.clone(), c);
                    push(out, Value::Object(one));
                }
            }
        }
    }
}

/// `0`, then values between `0` and `i` ever closer to `i`: a binary search towards zero.
fn toward_zero(i: i64) -> Vec<i64> {
    let mut out = Vec::new();
    if i == 0 {
        return out;
    }
    out.push(0);
    let mut d = i / 2;
    while d != 0 {
        out.push(i - d);
        d /= 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shrinks_to_the_boundary() {
        let (smallest, _) = shrink(json!({"n": 523, "extra": "xQ", "more": [1, 2]}), |v| v.get("n").and_then(Value::as_i64).is_some_and(|n| n > 10));
        assert_eq!(smallest, json!({"n": 11}));
    }

    #[test]
    fn duplicates_shrink_together() {
        let dup = |v: &Value| v.as_array().is_some_and(|a| a.len() >= 2 && a.iter().all(Value::is_i64) && a[1..].contains(&a[0]));
        let (smallest, _) = shrink(json!([57, 3, 57]), dup);
        assert_eq!(smallest, json!([0, 0]));
    }

    #[test]
    fn a_non_failing_start_is_kept() {
        let (same, evaluated) = shrink(json!([1]), |_| false);
        assert_eq!((same, evaluated), (json!([1]), 1));
    }
}
