//! Draws aimed where a proof stopped.
//!
//! When the prover ([`crate::prover`]) cannot prove a direction, it says where its proof stopped:
//! an instance path, the subschemas of both sides there, and why (a type one side admits there
//! and the other not, a keyword not implied, a value one side accepts there and the other
//! rejects). Before a trial settles on "unknown" for that direction, the search draws there: whole
//! instances of the side that should be included, with the value at that path replaced by a value
//! built from the subschemas there (the value the prover found, the smallest value of a missing
//! type, a valid draw of the included side's subschema, a near miss of the other side's), the
//! levels on the way filled with valid draws of what stands there. Every candidate is judged by the
//! real validators through the codec, like any other draw.

use proptest::test_runner::TestRng;
use schema_fidelity_translators::Types;
use serde_json::{Map, Value};

use super::dice::Dice;
use super::plan::Plan;
use super::strings::Pattern;
use super::{Pool, draw};
use crate::prover::{Seg, Stop, Why};

/// Draws aimed at one stop.
pub(super) const DRAWS_PER_STOP: usize = 48;
/// Stops aimed at per direction (the first ones the proof met).
pub(super) const STOPS_PER_DIRECTION: usize = 4;

/// The plans one stop draws from.
pub(super) struct Aim<'s> {
    stop: &'s Stop,
    whole: Plan,
    included: Plan,
    including: Plan,
    levels: Vec<Option<Plan>>,
    direct: Vec<Value>,
    included_doc: &'s Value,
}

impl<'s> Aim<'s> {
    /// Aim at `stop`, whose `included` pointers are into `included_doc` and `including` into
    /// `including_doc`.
    pub(super) fn new(stop: &'s Stop, included_doc: &'s Value, including_doc: &'s Value) -> Self {
        let direct = match &stop.why {
            Why::Value(v) => vec![v.clone()],
            Why::Type(types) => smallest(*types),
            _ => Vec::new(),
        };
        Aim {
            stop,
            whole: Plan::new(included_doc),
            included: Plan::within(included_doc, &stop.included),
            including: Plan::within(including_doc, &stop.including),
            levels: (0..stop.path.len()).map(|_| None).collect(),
            direct,
            included_doc,
        }
    }

    /// The `k`-th candidate: a whole valid draw of the included side with the value at the stop's
    /// path replaced.
    pub(super) fn candidate(&mut self, k: usize, rng: &mut TestRng) -> Value {
        let local = match self.direct.get(k) {
            Some(v) => v.clone(),
            None if k.is_multiple_of(2) => draw(&self.included, rng, Pool::Valid),
            None => draw(&self.including, rng, Pool::NearMiss),
        };
        let mut whole = draw(&self.whole, rng, Pool::Valid);
        let mut dice = Dice::from_rng(rng);
        self.graft(&mut whole, 0, local, rng, &mut dice);
        whole
    }

    fn level(&mut self, i: usize, rng: &mut TestRng) -> Value {
        let trail = self.stop.trail.get(i).cloned().unwrap_or_default();
        let plan = self.levels[i].get_or_insert_with(|| Plan::within(self.included_doc, &trail));
        draw(plan, rng, Pool::Valid)
    }

    fn graft(&mut self, node: &mut Value, i: usize, local: Value, rng: &mut TestRng, dice: &mut Dice) {
        let Some(seg) = self.stop.path.get(i).cloned() else {
            *node = local;
            return;
        };
        if seg == Seg::Name {
            // The value is a key's name: rename one key of this object to it.
            if let (Value::Object(map), Value::String(name)) = (&mut *node, &local) {
                let moved = map.keys().next().cloned().and_then(|k| map.shift_remove(&k));
                map.insert(name.clone(), moved.unwrap_or(Value::Null));
            }
            return;
        }
        if let Seg::Index(index) = seg {
            if !node.is_array() {
                *node = Value::Array(Vec::new());
            }
            while node.as_array().is_some_and(|items| items.len() <= index) {
                let filler = self.level(i, rng);
                if let Value::Array(items) = node {
                    items.push(filler);
                }
            }
            if let Some(child) = node.as_array_mut().and_then(|items| items.get_mut(index)) {
                self.graft(child, i + 1, local, rng, dice);
            }
            return;
        }
        let key = match &seg {
            Seg::Key(k) => k.clone(),
            Seg::Matching(pattern) => Pattern::new(&[pattern.as_str()]).draw(dice),
            _ => "sf-another-key".to_owned(),
        };
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let present = node.get(&key).is_some();
        if !present {
            let filler = self.level(i, rng);
            if let Value::Object(map) = node {
                map.insert(key.clone(), filler);
            }
        }
        if let Some(child) = node.get_mut(&key) {
            self.graft(child, i + 1, local, rng, dice);
        }
    }
}

/// The smallest value of each type in `types`.
fn smallest(types: Types) -> Vec<Value> {
    let mut out = Vec::new();
    for (t, v) in [
        (Types::NULL, Value::Null),
        (Types::BOOLEAN, Value::Bool(false)),
        (Types::BOOLEAN, Value::Bool(true)),
        (Types::INTEGER, Value::from(0)),
        (Types::FRACTION, Value::from(0.5)),
        (Types::STRING, Value::from("")),
        (Types::ARRAY, Value::Array(Vec::new())),
        (Types::OBJECT, Value::Object(Map::new())),
    ] {
        if types.intersects(t) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_is_placed_at_the_stop_with_the_levels_on_the_way_drawn() {
        let schema = json!({"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "array"}, "minItems": 1}}, "required": ["paths"]});
        let stop = Stop {
            path: vec![Seg::Key("paths".to_owned()), Seg::Index(0), Seg::Index(0)],
            trail: vec![vec!["/properties/paths".to_owned()], vec!["/properties/paths/items".to_owned()], vec![]],
            included: vec![],
            including: vec![],
            why: Why::Type(Types::ARRAY),
        };
        let mut aim = Aim::new(&stop, &schema, &schema);
        let mut rng = crate::witness::rng(7, "focus-test");
        let x = aim.candidate(0, &mut rng);
        assert_eq!(x.pointer("/paths/0/0"), Some(&json!([])), "{x}");
    }
}
