//! Merging: a conjunction written as one schema, since strict mode has no `allOf`. The exact
//! [`conj`] does the arithmetic; this file keeps its callback (references inlined, the merge
//! budget spent, nesting bounded) and strict mode's policy for the residue: a second `format`
//! spilled, two `pattern`s combined with lookaheads, two unions crossed, anything else refused.
//!
//! Separate from the translation in [`super`], which only calls [`State::merge`] and
//! [`State::cross`] where a `$ref` has siblings or siblings stand beside a union.

use serde_json::{Map, Value, json};

use super::limits::budget_exceeded;
use super::{MAX_BRANCHES, MAX_MERGE_DEPTH, SPILL_MARKER, State, constrains};
use crate::algebra::conj::{Conj, conj};
use crate::algebra::patterns::combine_patterns;
use crate::model::Refusal;

impl State<'_> {
    pub(super) fn cross(&mut self, xs: &[Value], ys: &[Value], depth: usize) -> Result<Vec<Value>, Refusal> {
        if xs.len().saturating_mul(ys.len()) > MAX_BRANCHES {
            return Err(budget_exceeded(&format!("{} × {} branches to combine (at most {MAX_BRANCHES})", xs.len(), ys.len())));
        }
        let mut out = Vec::new();
        for x in xs {
            for y in ys {
                let merged = self.merge(x, y, depth + 1, false)?;
                if merged != Value::Bool(false) {
                    out.push(merged);
                }
            }
        }
        Ok(out)
    }

    /// One schema accepting exactly what both `outer` and `inner` accept. When `outer_sees_inner`,
    /// `outer` is the node whose in-place applicators reach `inner` (a referencing node, or the
    /// siblings of a union), so its `unevaluatedProperties` counts `inner`'s properties as
    /// evaluated; otherwise (two property schemas of one key, two union branches) the two are
    /// cousins and each one's `unevaluatedProperties` sees only its own.
    pub(super) fn merge(&mut self, outer: &Value, inner: &Value, depth: usize, outer_sees_inner: bool) -> Result<Value, Refusal> {
        self.spend()?;
        if depth > MAX_MERGE_DEPTH {
            return Err(budget_exceeded(&format!("merges nest deeper than {MAX_MERGE_DEPTH} levels")));
        }
        let (a, b) = match (outer, inner) {
            (Value::Bool(false), _) | (_, Value::Bool(false)) => return Ok(Value::Bool(false)),
            (Value::Bool(true), other) | (other, Value::Bool(true)) => return Ok(other.clone()),
            (Value::Object(a), Value::Object(b)) => (a, b),
            _ => return Err(Refusal::new("type", "", "only schemas can be merged")),
        };
        if let Some(reference) = a.get("$ref") {
            let target = self.target(reference)?;
            let mut rest = a.clone();
            rest.remove("$ref");
            let inlined = self.merge(&Value::Object(rest), target, depth + 1, true)?;
            return self.merge(&inlined, inner, depth + 1, outer_sees_inner);
        }
        if let Some(reference) = b.get("$ref") {
            let target = self.target(reference)?;
            let mut rest = b.clone();
            rest.remove("$ref");
            let inlined = self.merge(&Value::Object(rest), target, depth + 1, true)?;
            return self.merge(outer, &inlined, depth + 1, outer_sees_inner);
        }
        self.merge_maps(a, b, depth, outer_sees_inner)
    }

    /// The exact [`conj`] of two maps, with strict mode's policy for its residue: a second
    /// `format` is spilled into the description, two `pattern`s are combined with lookaheads (the
    /// dialect has them), two unions become their cross product, and anything else is refused.
    fn merge_maps(&mut self, outer: &Map<String, Value>, inner: &Map<String, Value>, depth: usize, outer_sees_inner: bool) -> Result<Value, Refusal> {
        // An `unevaluatedProperties: false` that cannot see the other side's properties closes its
        // own side.
        let b = close_unevaluated(inner);
        let closed_outer;
        let a = if outer_sees_inner {
            outer
        } else {
            closed_outer = close_unevaluated(outer);
            &closed_outer
        };
        let (mut out, residue) = match conj(a, &b, &mut |x: &Value, y: &Value| self.merge(x, y, depth + 1, false))? {
            Conj::Unsatisfiable => return Ok(Value::Bool(false)),
            Conj::Combined { schema, residue } => (schema, residue),
        };
        // Definitions were resolved by `prepare`; spills of earlier merges are collected below.
        for key in ["$defs", "definitions", SPILL_MARKER] {
            out.remove(key);
        }
        let mut spills: Vec<Value> = Vec::new();
        for (key, theirs) in residue {
            let ours = out.get(&key).cloned().unwrap_or(Value::Null);
            match key.as_str() {
                "format" => spills.push(json!({"format": theirs})),
                "pattern" => {
                    let (x, y) = (ours.as_str().unwrap_or_default(), theirs.as_str().unwrap_or_default());
                    let both = combine_patterns(x, y).ok_or_else(|| {
                        budget_exceeded(&format!("patterns `{x}` and `{y}` use backreferences or named groups and cannot be combined"))
                    })?;
                    out.insert(key, Value::from(both));
                }
                "multipleOf" => {
                    return Err(budget_exceeded(&format!("`multipleOf` {ours} and {theirs} have no least common multiple within exact arithmetic")));
                }
                "anyOf" | "oneOf" => {
                    let (x, y) = (ours.as_array().cloned().unwrap_or_default(), theirs.as_array().cloned().unwrap_or_default());
                    let both = self.cross(&x, &y, depth)?;
                    if both.is_empty() {
                        return Ok(Value::Bool(false));
                    }
                    out.insert(key, Value::Array(both));
                }
                "type" => return Err(Refusal::new("type", "", "malformed `type`")),
                "$defs" | "definitions" => {}
                _ => return Err(Refusal::new(key.as_str(), "", format!("`{key}` cannot be merged into a strict schema"))),
            }
        }
        for side in [a, &b] {
            if let Some(Value::Array(pending)) = side.get(SPILL_MARKER) {
                spills.extend(pending.iter().cloned());
            }
        }
        if !spills.is_empty() {
            out.insert(SPILL_MARKER.to_owned(), Value::Array(spills));
        }
        const HANDLED: &[&str] = &[
            "type", "enum", "const", "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "maximum", "exclusiveMaximum",
            "maxLength", "maxItems", "maxProperties", "multipleOf", "pattern", "format", "uniqueItems", "required", "items", "properties",
            "additionalProperties", "unevaluatedProperties", "anyOf", "oneOf", SPILL_MARKER,
        ];
        if let Some(key) = out.keys().find(|k| constrains(k) && !HANDLED.contains(&k.as_str())) {
            return Err(Refusal::new(key.as_str(), "", format!("`{key}` cannot be merged into a strict schema")));
        }
        Ok(Value::Object(out))
    }
}

/// `unevaluatedProperties: false` read as closing the node over its own properties, for a node
/// merged with a schema its in-place applicators do not reach.
fn close_unevaluated(map: &Map<String, Value>) -> Map<String, Value> {
    let mut map = map.clone();
    if map.get("unevaluatedProperties") == Some(&Value::Bool(false)) {
        map.remove("unevaluatedProperties");
        map.entry("additionalProperties").or_insert(Value::Bool(false));
    }
    map
}
