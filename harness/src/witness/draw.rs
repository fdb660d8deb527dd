//! Drawing instances from a [`Plan`]: valid ones, and near misses that break exactly one
//! constraint at one position.
//!
//! Valid draws lean towards boundaries (a bound itself, the shortest and longest lengths, the
//! fewest items), where translators go wrong: an inclusive bound sent as exclusive is caught by
//! the bound itself. A near miss is a valid draw with one schema-directed fault placed at one
//! position: a bound off by one, a required key missing, one extra key where none is allowed, a
//! wrong type, a string that just fails its `pattern` or `format`, one item too many or too few, a
//! duplicate under `uniqueItems`, a value outside an `enum`. The position is chosen on the way down:
//! each node either places the fault itself or hands it to one of its children.
//!
//! Recursion is bounded twice: past [`SOFT_DEPTH`] only required content is drawn (no optional
//! keys, the fewest items), but for one optional key or item now and then at odds that fall
//! with depth, and past [`HARD_DEPTH`] a draw is `null`, which the validator rejects
//! if it must.

use std::collections::HashSet;

use super::dice::Dice;
use serde_json::{Map, Value};

use super::plan::{Bound, Node, NodeId, Plan, Shape};
use schema_fidelity_translators::Types;
use super::strings;

/// Enums longer than this are swept value by value by valid draws instead of drawn at random.
const SWEPT_ENUM: usize = 8;
/// The order in which a type is picked from a set: fixed, so that a seed draws the same
/// instances whatever the set's internal layout.
const DRAW_ORDER: [Types; 7] = [Types::NULL, Types::BOOLEAN, Types::INTEGER, Types::FRACTION, Types::STRING, Types::ARRAY, Types::OBJECT];
/// Past this depth a draw holds only what is required.
const SOFT_DEPTH: usize = 4;
/// Past this depth a draw is `null`.
const HARD_DEPTH: usize = 24;
/// Past this many schema nodes drawn, the rest of a draw is `null`: a schema whose every valid
/// instance is infinite (a recursion through required arrays of two or more items, as a strict
/// rewrite makes of an optional one) would otherwise be drawn to [`HARD_DEPTH`] with a branching
/// factor of four: 4^24 nodes. The validator rejects the truncated draw, which is what it is.
const NODE_BUDGET: usize = 20_000;
/// Items an array draws before it repeats them (see `Drawer::array`).
const DRAWN_ITEMS: usize = 64;
/// No drawn array grows beyond the instance-length budget ([`crate::budget::INSTANCE_LENGTH`],
/// 4096 by default), and no string beyond the string-length budget
/// ([`crate::budget::STRING_LENGTH`], 262,144): a `minLength: 1000000000` is not met (the
/// validator rejects the shorter draw), and a `maxLength` or `maxItems` above its budget is not
/// probed at its bound.
fn max_len() -> u64 {
    // Read once: the budgets are fixed for the process, and a lookup per array showed in profiles.
    static MAX: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *MAX.get_or_init(crate::budget::instance_length)
}

/// The longest string drawn.
fn max_string_len() -> u64 {
    static MAX: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *MAX.get_or_init(crate::budget::string_length)
}
/// At most this many optional keys in one drawn object: a valid draw takes each optional key with
/// even odds, so without a cap an object schema with thousands of properties makes every draw
/// thousands of keys long.
const MAX_OPTIONAL_KEYS: usize = 64;
/// The window drawn in when a number has a bound on one side only, or none.
const WINDOW: f64 = 100.0;
/// Integers stay exact in f64 below this magnitude.
const EXACT: f64 = 9.0e15;

/// Draws instances from one plan with one random source.
pub(crate) struct Drawer<'a> {
    plan: &'a Plan,
    rng: &'a mut Dice,
    /// This near miss hands its fault down to a child wherever the node has one, so that it
    /// lands at a leaf however deep: one near miss in three. A fault that may stop at any level
    /// reaches depth d with odds falling geometrically in d.
    deep: bool,
    /// A draw meant to be valid: only these advance the sweeps through long enums, so that the
    /// valid draws visit consecutive values (a near miss may drop or break what it drew).
    sweeping: bool,
    /// Schema nodes drawn so far in this draw ([`NODE_BUDGET`]).
    nodes: usize,
}

/// What an array draw is forced to do.
#[derive(Default, Clone, Copy)]
struct ArrayMode {
    len: Option<u64>,
    skip_contains: bool,
    miss_item: bool,
}

/// The near misses a shape allows, without allocating (a draw makes many of these).
struct Kinds {
    items: [Miss; 32],
    len: usize,
}

impl Default for Kinds {
    fn default() -> Self {
        Self { items: [Miss::WrongType; 32], len: 0 }
    }
}

impl Kinds {
    fn of(kinds: impl Iterator<Item = Miss>) -> Self {
        let mut out = Self::default();
        for k in kinds {
            out.push(k);
        }
        out
    }

    fn push(&mut self, kind: Miss) {
        if self.len < self.items.len() {
            self.items[self.len] = kind;
            self.len += 1;
        }
    }

    fn extend<const N: usize>(&mut self, kinds: [Miss; N]) {
        for kind in kinds {
            self.push(kind);
        }
    }
}

/// The kinds of near miss, each tied to the constraint it breaks.
#[derive(Clone, Copy, Debug)]
enum Miss {
    WrongType,
    OutsideEnum,
    AboveUpper,
    BelowLower,
    NotMultiple,
    Fraction,
    TooShort,
    TooLong,
    PatternBroken,
    FormatBroken,
    TooManyItems,
    TooFewItems,
    Duplicate,
    NoContains,
    ItemBroken,
    MissingRequired,
    ExtraKey,
    TooManyProperties,
    TooFewProperties,
    DependentMissing,
    BadName,
    ValueBroken,
    Not,
}

impl<'a> Drawer<'a> {
    pub(crate) fn new(plan: &'a Plan, rng: &'a mut Dice) -> Self {
        Self { plan, rng, deep: false, sweeping: false, nodes: 0 }
    }

    /// A draw meant to be valid.
    pub(crate) fn valid_root(&mut self) -> Value {
        self.sweeping = true;
        self.nodes = 0;
        self.valid(self.plan.root, 0)
    }

    /// A draw meant to be just invalid.
    pub(crate) fn miss_root(&mut self) -> Value {
        self.deep = self.one_in(3);
        self.nodes = 0;
        self.miss(self.plan.root, 0)
    }

    /// Whether this draw may go on into one more node: within [`HARD_DEPTH`] and [`NODE_BUDGET`].
    fn enter(&mut self, depth: usize) -> bool {
        self.nodes += 1;
        depth <= HARD_DEPTH && self.nodes <= NODE_BUDGET
    }

    fn one_in(&mut self, n: u32) -> bool {
        self.rng.random_ratio(1, n)
    }

    fn valid(&mut self, id: NodeId, depth: usize) -> Value {
        // A node with no finite valid instance gets none: drawing one would run to the node
        // budget and give what the validator rejects anyway.
        if !self.enter(depth) || !self.plan.is_finite(id) {
            return Value::Null;
        }
        match self.plan.node(id) {
            Node::Any => self.any(depth),
            Node::Never => Value::Null,
            Node::Choice(branches) => {
                let pick = match self.leaf_branch(branches, depth) {
                    Some(leaf) => leaf,
                    None => self.finite_branch(branches),
                };
                self.valid(pick, depth)
            }
            Node::Shape(shape) => self.shape(shape, depth),
        }
    }

    /// A branch at random, among those with a finite valid instance when only some have one.
    fn finite_branch(&mut self, branches: &[NodeId]) -> NodeId {
        let finite = branches.iter().filter(|&&b| self.plan.is_finite(b)).count();
        if finite == 0 || finite == branches.len() {
            return branches[self.rng.random_range(0..branches.len())];
        }
        let nth = self.rng.random_range(0..finite);
        branches.iter().copied().filter(|&b| self.plan.is_finite(b)).nth(nth).unwrap_or(branches[0])
    }

    /// Past [`SOFT_DEPTH`], a branch that cannot nest (no array or object type), if the union has
    /// one. A recursion every level of which is required but nullable (OpenAI strict's optional
    /// properties, `anyOf: [T, {type: null}]`) would otherwise be drawn to [`HARD_DEPTH`] with a
    /// branching factor of several items per level: billions of nodes.
    fn leaf_branch(&mut self, branches: &[NodeId], depth: usize) -> Option<NodeId> {
        if depth < SOFT_DEPTH {
            return None;
        }
        let nests = Types::ARRAY.or(Types::OBJECT);
        branches.iter().copied().find(|id| matches!(self.plan.node(*id), Node::Shape(shape) if !shape.types.intersects(nests) && !shape.types.is_empty()))
    }

    fn valid_opt(&mut self, id: Option<NodeId>, depth: usize) -> Value {
        match id {
            Some(id) => self.valid(id, depth),
            None => self.any(depth),
        }
    }

    fn miss(&mut self, id: NodeId, depth: usize) -> Value {
        if !self.enter(depth) {
            return Value::Null;
        }
        match self.plan.node(id) {
            // Nothing to break.
            Node::Any => self.any(depth),
            Node::Never => self.any(depth),
            Node::Choice(branches) => {
                let pick = branches[self.rng.random_range(0..branches.len())];
                self.miss(pick, depth)
            }
            Node::Shape(shape) => self.shape_miss(shape, depth),
        }
    }

    fn is_never(&self, id: Option<NodeId>) -> bool {
        id.is_some_and(|id| matches!(self.plan.node(id), Node::Never))
    }

    /// Any small JSON value.
    fn any(&mut self, depth: usize) -> Value {
        match self.rng.random_range(0..if depth >= SOFT_DEPTH { 5 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.random()),
            2 => Value::from(self.rng.random_range(-10i64..=100)),
            3 => Value::from(f64::from(self.rng.random_range(-40i32..=400)) / 4.0),
            4 => Value::String(self.word()),
            5 => {
                let n = self.rng.random_range(0..=2);
                Value::Array((0..n).map(|_| self.any(SOFT_DEPTH)).collect())
            }
            _ => {
                let mut map = Map::new();
                for _ in 0..self.rng.random_range(0..=2) {
                    let key = self.word();
                    let value = self.any(SOFT_DEPTH);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }

    fn word(&mut self) -> String {
        let mut s = String::new();
        strings::plain(self.rng, 1, 5, &mut s);
        s
    }

    fn pick_type(&mut self, s: &Shape) -> Types {
        let mut allowed = if s.types.is_empty() { Types::ALL } else { s.types };
        // An untyped schema with object keywords is about objects; draw those mostly.
        if allowed.is_all() && !s.hinted.is_empty() && !self.one_in(5) {
            allowed = s.hinted;
        }
        self.pick(allowed)
    }

    /// One of the types in `set` (integers and fractions apart), uniformly, in [`DRAW_ORDER`];
    /// [`Types::NONE`] when the set is empty.
    fn pick(&mut self, set: Types) -> Types {
        if set.is_empty() {
            return Types::NONE;
        }
        let k = self.rng.random_range(0..set.len());
        DRAW_ORDER.into_iter().filter(|t| set.intersects(*t)).nth(k as usize).unwrap_or(Types::NONE)
    }

    fn shape(&mut self, s: &Shape, depth: usize) -> Value {
        if let Some(values) = &s.values
            && !values.is_empty()
        {
            // A long enum is swept in turn (see `Shape::sweep`); a short one is drawn at random.
            let i = if self.sweeping && values.len() > SWEPT_ENUM {
                let start = (self.plan.sweep_start * values.len() as f64) as usize;
                (start + s.sweep.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) % values.len()
            } else {
                self.rng.random_range(0..values.len())
            };
            return values[i].clone();
        }
        match self.pick_type(s) {
            Types::NULL => Value::Null,
            Types::BOOLEAN => Value::Bool(self.rng.random()),
            // A `number` whose bounds admit no integer (`0 < x < 1`) is drawn as a fraction.
            Types::INTEGER if s.types.intersects(Types::FRACTION) && !Self::admits_integer(s) => self.fraction(s),
            Types::INTEGER => self.integer(s),
            Types::FRACTION => self.fraction(s),
            Types::STRING => Value::String(self.string(s)),
            Types::ARRAY => self.array(s, depth, ArrayMode::default()),
            _ => Value::Object(self.object(s, depth, false)),
        }
    }

    // ---- numbers ----------------------------------------------------------------------------

    /// The closed range of valid values, defaulted where unbounded.
    fn range(s: &Shape, integral: bool) -> (f64, f64) {
        let lo = s.lower.map(|b| closed(b, true, integral));
        let hi = s.upper.map(|b| closed(b, false, integral));
        let (lo, hi) = match (lo, hi) {
            (Some(lo), Some(hi)) => (lo, hi),
            (Some(lo), None) => (lo, lo + WINDOW),
            (None, Some(hi)) => (hi - WINDOW, hi),
            (None, None) => (-10.0, WINDOW),
        };
        (lo.clamp(-EXACT, EXACT), hi.clamp(-EXACT, EXACT))
    }

    fn admits_integer(s: &Shape) -> bool {
        let (lo, hi) = Self::range(s, true);
        lo <= hi
    }

    fn integer(&mut self, s: &Shape) -> Value {
        let (lo, hi) = Self::range(s, true);
        if let Some(m) = s.multiple_of {
            return self.multiple(m, lo, hi);
        }
        let bounded = s.lower.is_some() || s.upper.is_some();
        let x = if bounded && self.one_in(3) {
            if (s.lower.is_some() && self.rng.random()) || s.upper.is_none() { lo } else { hi }
        } else if lo <= hi {
            self.rng.random_range(lo as i64..=hi as i64) as f64
        } else {
            lo
        };
        number(x)
    }

    fn fraction(&mut self, s: &Shape) -> Value {
        let (lo, hi) = Self::range(s, false);
        if let Some(m) = s.multiple_of {
            return self.multiple(m, lo, hi);
        }
        if hi <= lo {
            return number(lo);
        }
        let mut x = lo + self.rng.random::<f64>() * (hi - lo);
        x = (x * 100.0).round() / 100.0;
        // Keep exclusive bounds exclusive after rounding.
        if x <= lo && s.lower.is_some_and(|b| b.exclusive) || x >= hi && s.upper.is_some_and(|b| b.exclusive) {
            x = (lo + hi) / 2.0;
        }
        number(x)
    }

    fn multiple(&mut self, m: f64, lo: f64, hi: f64) -> Value {
        let kmin = (lo / m).ceil();
        let kmax = (hi / m).floor();
        let k = if kmin > kmax || !kmin.is_finite() || !kmax.is_finite() {
            kmin
        } else if self.one_in(3) {
            if self.rng.random() { kmin } else { kmax }
        } else {
            let span = (kmax - kmin).min(1000.0);
            kmin + self.rng.random_range(0..=span as i64) as f64
        };
        number(k * m)
    }

    // ---- strings ----------------------------------------------------------------------------

    fn string(&mut self, s: &Shape) -> String {
        if let Some(name) = &s.format
            && let Some(text) = strings::format(name, self.rng)
        {
            return text;
        }
        if let Some(p) = &s.pattern {
            return p.draw(self.rng);
        }
        let min = s.min_length.min(max_string_len());
        let max = s.max_length.unwrap_or(min + 8).min(min + 8).max(min);
        let len = if self.one_in(3) {
            match s.max_length {
                Some(bound) if bound <= max_string_len() && self.rng.random() => bound.max(min),
                _ => min,
            }
        } else {
            self.rng.random_range(min..=max)
        };
        let mut out = String::new();
        strings::plain(self.rng, len as usize, len as usize, &mut out);
        out
    }

    // ---- arrays -----------------------------------------------------------------------------

    fn array(&mut self, s: &Shape, depth: usize, mode: ArrayMode) -> Value {
        let cap = max_len();
        let min = s.min_items.min(cap);
        let max = s.max_items.unwrap_or(min + 4).clamp(min, cap);
        let mut len = match mode.len {
            Some(len) => len.min(cap),
            None if depth >= SOFT_DEPTH => {
                if min == 0 && max > 0 && self.descend(depth) { 1 } else { min }
            }
            None if self.one_in(4) => {
                if self.rng.random() || max - min > 16 { min } else { max }
            }
            None => self.rng.random_range(min..=max.min(min + 3)),
        };
        if mode.len.is_none() && self.is_never(s.items) {
            len = len.min(s.prefix.len() as u64);
        }
        let mut slots: Vec<Option<NodeId>> = (0..len as usize).map(|i| s.prefix.get(i).copied().or(s.items)).collect();
        if !mode.skip_contains {
            for c in &s.contains {
                let want = if self.one_in(4) { c.max.unwrap_or(c.min.saturating_add(1)).max(c.min) } else { c.min };
                for _ in 0..want.min(8) {
                    if slots.len() < (min.max(want) as usize) || slots.is_empty() || self.one_in(2) {
                        slots.push(Some(c.node));
                    } else {
                        let i = self.rng.random_range(0..slots.len());
                        slots[i] = Some(c.node);
                    }
                }
            }
        }
        let miss_at = (mode.miss_item && !slots.is_empty()).then(|| self.rng.random_range(0..slots.len()));
        let mut items: Vec<Value> = Vec::with_capacity(slots.len());
        for (i, slot) in slots.iter().enumerate() {
            // Past the first [`DRAWN_ITEMS`], an item for the same slot as one drawn earlier is a
            // copy of it: a 4,096-item array probes a count, and drawing every item costs more
            // than validating the whole array many times over. Unique items are all drawn.
            let earlier = i.checked_sub(DRAWN_ITEMS).map(|_| i % DRAWN_ITEMS);
            if let Some(j) = earlier.filter(|&j| !s.unique && miss_at != Some(i) && miss_at != Some(j) && slots[j] == *slot) {
                let copy = items[j].clone();
                items.push(copy);
                continue;
            }
            let item = match (miss_at == Some(i), slot) {
                (true, Some(id)) => self.miss(*id, depth + 1),
                (true, None) => self.any(depth + 1),
                (false, slot) => self.valid_opt(*slot, depth + 1),
            };
            items.push(item);
        }
        if s.unique && mode.len.is_none() && !items.is_empty() {
            // Each item is redrawn (up to four times) while it equals an earlier one, and dropped
            // if it still does and the array may be shorter. Earlier items are kept as equality
            // keys: comparing with each of them is quadratic in the length.
            let mut seen: HashSet<String> = HashSet::with_capacity(items.len());
            let mut remaining = items.len();
            let mut kept: Vec<Value> = Vec::with_capacity(items.len());
            for (i, mut item) in items.into_iter().enumerate() {
                if i == 0 {
                    seen.insert(super::plan::equality_key(&item));
                    kept.push(item);
                    remaining -= 1;
                    continue;
                }
                let mut tries = 0;
                while seen.contains(&super::plan::equality_key(&item)) && tries < 4 {
                    item = self.valid_opt(slots[i], depth + 1);
                    tries += 1;
                }
                if tries == 4 && (kept.len() + remaining) as u64 > min {
                    remaining -= 1;
                    continue;
                }
                remaining -= 1;
                seen.insert(super::plan::equality_key(&item));
                kept.push(item);
            }
            return Value::Array(kept);
        }
        Value::Array(items)
    }

    // ---- objects ----------------------------------------------------------------------------

    fn declared(s: &Shape, name: &str) -> Option<NodeId> {
        s.declared.get(name).copied()
    }

    /// A key no conjunct declares, from `propertyNames` when there is one.
    fn extra_key(&mut self, s: &Shape, depth: usize) -> String {
        if let Some(names) = s.property_names
            && let Value::String(key) = self.valid(names, depth + 1)
        {
            return key;
        }
        let mut key = self.word();
        while Self::declared(s, &key).is_some() {
            key.push('x');
        }
        key
    }

    /// Whether a draw past [`SOFT_DEPTH`] goes one level further into optional content (one
    /// optional key, one item of an array that may be empty): one in two at the soft depth, one in
    /// three a level deeper, and so on. The expected optional content below a node is then less
    /// than one node per level, so recursive schemas stay small.
    fn descend(&mut self, depth: usize) -> bool {
        self.rng.random_range(0..depth.saturating_sub(SOFT_DEPTH) + 2) == 0
    }

    /// The keys of a valid object with the node of each value.
    ///
    /// Keys are tracked in a set beside the list, and at most [`MAX_OPTIONAL_KEYS`] optional keys
    /// are drawn: an object schema with thousands of properties would otherwise make every draw
    /// (and every membership test) as large as the schema.
    fn object_keys(&mut self, s: &Shape, depth: usize) -> Vec<(String, Option<NodeId>)> {
        let soft = depth >= SOFT_DEPTH;
        let mut keys: Vec<(String, Option<NodeId>)> = Vec::with_capacity(s.required.len() + s.optional.len().min(MAX_OPTIONAL_KEYS) + 1);
        let mut present: HashSet<String> = HashSet::with_capacity(keys.capacity());
        let mut add = |keys: &mut Vec<(String, Option<NodeId>)>, key: String, node: Option<NodeId>| {
            if present.insert(key.clone()) {
                keys.push((key, node));
            }
        };
        for (name, node) in s.required.iter().zip(&s.required_nodes) {
            add(&mut keys, name.clone(), *node);
        }
        if !soft {
            let mut drawn = 0;
            for &i in &s.optional {
                if drawn == MAX_OPTIONAL_KEYS {
                    break;
                }
                if self.rng.random() {
                    let (name, id) = &s.properties[i];
                    add(&mut keys, name.clone(), Some(*id));
                    drawn += 1;
                }
            }
        }
        // Past the soft depth, now and then one optional key, so that a constraint six levels down
        // behind optional content is reached; the odds fall with depth, so a recursive schema
        // still draws a finite instance.
        if soft && !s.optional.is_empty() && self.descend(depth) {
            let (name, id) = &s.properties[s.optional[self.rng.random_range(0..s.optional.len())]];
            add(&mut keys, name.clone(), Some(*id));
        }
        if !soft && !s.pattern_properties.is_empty() && self.one_in(4) {
            let (pattern, id) = &s.pattern_properties[self.rng.random_range(0..s.pattern_properties.len())];
            let key = pattern.draw(self.rng);
            add(&mut keys, key, Some(*id));
        }
        if !soft && !self.is_never(s.additional) && self.one_in(6) {
            let key = self.extra_key(s, depth);
            add(&mut keys, key, s.additional);
        }
        for (trigger, names) in &s.dependent_required {
            if keys.iter().any(|(k, _)| k == trigger) {
                for name in names {
                    add(&mut keys, name.clone(), Self::declared(s, name).or(s.additional));
                }
            }
        }
        let mut attempts = 0;
        while (keys.len() as u64) < s.min_properties.min(64) && attempts < 128 {
            attempts += 1;
            let optional = s.properties.iter().find(|(n, id)| !keys.iter().any(|(k, _)| k == n) && !self.is_never(Some(*id))).cloned();
            match optional {
                Some((name, id)) => add(&mut keys, name, Some(id)),
                None => {
                    let key = self.extra_key(s, depth);
                    add(&mut keys, key, s.additional);
                }
            }
        }
        if let Some(max) = s.max_properties
            && keys.len() as u64 > max
        {
            // The last keys that are not required go, as many as are over (one pass: removing
            // them one by one from a long list is quadratic).
            let required: HashSet<&str> = s.required.iter().map(String::as_str).collect();
            let mut over = keys.len() - usize::try_from(max).unwrap_or(usize::MAX);
            let mut kept: Vec<(String, Option<NodeId>)> = Vec::with_capacity(keys.len());
            for (key, node) in keys.into_iter().rev() {
                if over > 0 && !required.contains(key.as_str()) {
                    over -= 1;
                } else {
                    kept.push((key, node));
                }
            }
            kept.reverse();
            keys = kept;
        }
        keys
    }

    fn object(&mut self, s: &Shape, depth: usize, miss_value: bool) -> Map<String, Value> {
        let mut keys = self.object_keys(s, depth);
        // The value to break may be any declared property, drawn or not: past the soft depth the
        // optional ones are seldom drawn, and a fault deep behind them would never be placed.
        if miss_value && !s.properties.is_empty() && (self.deep || self.one_in(2)) {
            let (name, id) = &s.properties[self.rng.random_range(0..s.properties.len())];
            if !keys.iter().any(|(k, _)| k == name) {
                keys.push((name.clone(), Some(*id)));
            }
            let at = keys.iter().position(|(k, _)| k == name).unwrap_or(0);
            let miss_at = Some(at);
            return self.object_from_keys(s, depth, keys, miss_at);
        }
        let miss_at = (miss_value && !keys.is_empty()).then(|| self.rng.random_range(0..keys.len()));
        self.object_from_keys(s, depth, keys, miss_at)
    }

    fn object_from_keys(&mut self, s: &Shape, depth: usize, keys: Vec<(String, Option<NodeId>)>, miss_at: Option<usize>) -> Map<String, Value> {
        let mut map = Map::with_capacity(keys.len());
        for (i, (key, node)) in keys.into_iter().enumerate() {
            let value = match (miss_at == Some(i), node) {
                (true, Some(id)) => self.miss(id, depth + 1),
                (true, None) => self.any(depth + 1),
                (false, node) => self.valid_opt(node, depth + 1),
            };
            map.insert(key, value);
        }
        // A present trigger brings its dependent schema's keys along (what it says about keys
        // already drawn is left to the validator).
        for (trigger, id) in &s.dependent_schemas {
            if map.contains_key(trigger)
                && let Value::Object(extra) = self.valid(*id, depth)
            {
                for (key, value) in extra {
                    map.entry(key).or_insert(value);
                }
            }
        }
        map
    }

    // ---- near misses ------------------------------------------------------------------------

    fn misses(&self, s: &Shape) -> Kinds {
        let mut kinds = Kinds::default();
        if !s.types.is_all() && !s.types.is_empty() {
            kinds.push(Miss::WrongType);
        }
        if s.values.as_ref().is_some_and(|v| !v.is_empty()) {
            kinds.push(Miss::OutsideEnum);
            kinds.push(Miss::OutsideEnum);
            return kinds;
        }
        let numeric = s.types.intersects(Types::NUMBER);
        if numeric {
            if s.upper.is_some() {
                kinds.push(Miss::AboveUpper);
            }
            if s.lower.is_some() {
                kinds.push(Miss::BelowLower);
            }
            if s.multiple_of.is_some() {
                kinds.push(Miss::NotMultiple);
            }
            if !s.types.intersects(Types::FRACTION) {
                kinds.push(Miss::Fraction);
            }
        }
        if s.types.intersects(Types::STRING) {
            if s.min_length > 0 {
                kinds.push(Miss::TooShort);
            }
            if s.max_length.is_some_and(|m| m < max_string_len()) {
                kinds.push(Miss::TooLong);
            }
            if s.pattern.is_some() {
                kinds.push(Miss::PatternBroken);
            }
            if s.format.is_some() {
                kinds.push(Miss::FormatBroken);
            }
        }
        if s.types.intersects(Types::ARRAY) {
            // A `maxItems` an array within the length budget cannot exceed is not probed.
            if s.max_items.is_some_and(|m| m < max_len()) {
                kinds.push(Miss::TooManyItems);
            }
            if s.min_items > 0 {
                kinds.push(Miss::TooFewItems);
            }
            if s.unique {
                kinds.push(Miss::Duplicate);
            }
            if !s.contains.is_empty() {
                kinds.push(Miss::NoContains);
            }
            if s.items.is_some() || !s.prefix.is_empty() {
                kinds.extend([Miss::ItemBroken, Miss::ItemBroken]);
            }
        }
        if s.types.intersects(Types::OBJECT) {
            if !s.required.is_empty() {
                kinds.push(Miss::MissingRequired);
            }
            if s.additional.is_some() {
                kinds.push(Miss::ExtraKey);
            }
            if s.max_properties.is_some() {
                kinds.push(Miss::TooManyProperties);
            }
            if s.min_properties > 0 {
                kinds.push(Miss::TooFewProperties);
            }
            if !s.dependent_required.is_empty() {
                kinds.push(Miss::DependentMissing);
            }
            if s.property_names.is_some() {
                kinds.push(Miss::BadName);
            }
            if !s.properties.is_empty() || s.additional.is_some() {
                kinds.extend([Miss::ValueBroken, Miss::ValueBroken]);
            }
        }
        if !s.nots.is_empty() {
            kinds.push(Miss::Not);
        }
        kinds
    }

    #[allow(clippy::too_many_lines)]
    fn shape_miss(&mut self, s: &Shape, depth: usize) -> Value {
        let mut kinds = self.misses(s);
        if self.deep {
            let down = Kinds::of(kinds.items[..kinds.len].iter().copied().filter(|k| matches!(k, Miss::ValueBroken | Miss::ItemBroken)));
            if down.len > 0 {
                kinds = down;
            }
        }
        if kinds.len == 0 {
            return self.shape(s, depth);
        }
        let integral = !s.types.intersects(Types::FRACTION);
        match kinds.items[self.rng.random_range(0..kinds.len)] {
            Miss::WrongType => self.wrong_type(s.types),
            Miss::OutsideEnum => {
                let values = s.values.as_deref().unwrap_or_default();
                let v = &values[self.rng.random_range(0..values.len())];
                self.outside(v)
            }
            Miss::AboveUpper => {
                let b = s.upper.unwrap_or(Bound { value: 0.0, exclusive: false });
                number(beyond(b, 1.0, integral, s.multiple_of, self.one_in(2)))
            }
            Miss::BelowLower => {
                let b = s.lower.unwrap_or(Bound { value: 0.0, exclusive: false });
                number(beyond(b, -1.0, integral, s.multiple_of, self.one_in(2)))
            }
            Miss::NotMultiple => {
                let m = s.multiple_of.unwrap_or(1.0);
                let base = self.multiple(m, Self::range(s, integral).0, Self::range(s, integral).1);
                number(base.as_f64().unwrap_or(0.0) + m / 2.0)
            }
            Miss::Fraction => {
                let base = self.integer(s);
                number(base.as_f64().unwrap_or(0.0) + 0.5)
            }
            Miss::TooShort => {
                let text = self.string(s);
                Value::String(text.chars().take(s.min_length.saturating_sub(1) as usize).collect())
            }
            Miss::TooLong => {
                let mut text = self.string(s);
                let want = s.max_length.unwrap_or(0).saturating_add(1).min(max_string_len()) as usize;
                let have = text.chars().count();
                if have < want {
                    strings::plain(self.rng, want - have, want - have, &mut text);
                }
                Value::String(text)
            }
            Miss::PatternBroken | Miss::FormatBroken => {
                let text = self.string(s);
                Value::String(strings::perturb(&text, self.rng))
            }
            Miss::TooManyItems => self.array(s, depth, ArrayMode { len: Some(s.max_items.unwrap_or(0).saturating_add(1)), ..ArrayMode::default() }),
            Miss::TooFewItems => self.array(s, depth, ArrayMode { len: Some(s.min_items.saturating_sub(1)), ..ArrayMode::default() }),
            Miss::Duplicate => {
                let len = s.min_items.max(2);
                let mut array = self.array(s, depth, ArrayMode { len: Some(len), ..ArrayMode::default() });
                if let Value::Array(items) = &mut array
                    && items.len() >= 2
                {
                    let i = self.rng.random_range(1..items.len());
                    items[i] = items[0].clone();
                }
                array
            }
            Miss::NoContains => self.array(s, depth, ArrayMode { skip_contains: true, ..ArrayMode::default() }),
            Miss::ItemBroken => {
                let len = (s.min_items.max(1)).max(s.prefix.len() as u64 / 2);
                let len = if self.one_in(2) { Some(len) } else { None };
                self.array(s, depth, ArrayMode { miss_item: true, len, ..ArrayMode::default() })
            }
            Miss::MissingRequired => {
                let mut map = self.object(s, depth, false);
                let name = &s.required[self.rng.random_range(0..s.required.len())];
                map.shift_remove(name);
                Value::Object(map)
            }
            Miss::ExtraKey => {
                let mut map = self.object(s, depth, false);
                let key = self.extra_key(s, depth);
                let value = match s.additional {
                    Some(id) if !self.is_never(Some(id)) => self.miss(id, depth + 1),
                    _ => self.any(depth + 1),
                };
                map.insert(key, value);
                Value::Object(map)
            }
            Miss::TooManyProperties => {
                let mut map = self.object(s, depth, false);
                let want = s.max_properties.unwrap_or(0).saturating_add(1).min(64) as usize;
                let mut attempts = 0;
                while map.len() < want && attempts < 128 {
                    attempts += 1;
                    let key = self.extra_key(s, depth);
                    let value = self.valid_opt(Self::declared(s, &key).or(s.additional), depth + 1);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            Miss::TooFewProperties => {
                let mut map = self.object(s, depth, false);
                let want = s.min_properties.saturating_sub(1) as usize;
                while map.len() > want {
                    let Some(last) = map.keys().next_back().cloned() else { break };
                    map.shift_remove(&last);
                }
                Value::Object(map)
            }
            Miss::DependentMissing => {
                let mut map = self.object(s, depth, false);
                let (trigger, names) = &s.dependent_required[self.rng.random_range(0..s.dependent_required.len())];
                if !map.contains_key(trigger) {
                    let value = self.valid_opt(Self::declared(s, trigger).or(s.additional), depth + 1);
                    map.insert(trigger.clone(), value);
                }
                if !names.is_empty() {
                    map.shift_remove(&names[self.rng.random_range(0..names.len())]);
                }
                Value::Object(map)
            }
            Miss::BadName => {
                let mut map = self.object(s, depth, false);
                if let Some(names) = s.property_names
                    && let Value::String(key) = self.miss(names, depth + 1)
                {
                    let value = self.valid_opt(s.additional, depth + 1);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            Miss::ValueBroken => Value::Object(self.object(s, depth, true)),
            Miss::Not => {
                let id = s.nots[self.rng.random_range(0..s.nots.len())];
                self.valid(id, depth)
            }
        }
    }

    /// A value of a type outside `allowed`, close to what was expected where possible.
    fn wrong_type(&mut self, allowed: Types) -> Value {
        match self.pick(allowed.complement()) {
            Types::NULL => Value::Null,
            Types::BOOLEAN => Value::Bool(self.rng.random()),
            Types::INTEGER => Value::from(self.rng.random_range(0i64..=9)),
            Types::FRACTION => Value::from(0.5 + f64::from(self.rng.random_range(0i32..=9))),
            Types::STRING => Value::String(if self.one_in(2) { self.rng.random_range(0u32..=9).to_string() } else { self.word() }),
            Types::ARRAY => Value::Array(Vec::new()),
            _ => Value::Object(Map::new()),
        }
    }

    /// A value next to `v` but different from it.
    fn outside(&mut self, v: &Value) -> Value {
        match v {
            Value::Null => Value::from(0),
            Value::Bool(b) => Value::Bool(!b),
            Value::Number(n) => number(n.as_f64().unwrap_or(0.0) + if self.one_in(3) { 0.5 } else { 1.0 }),
            Value::String(s) => Value::String(strings::perturb(s, self.rng)),
            Value::Array(items) => {
                let mut items = items.clone();
                items.push(Value::Null);
                Value::Array(items)
            }
            Value::Object(map) => {
                let mut map = map.clone();
                map.insert("x".to_owned(), Value::Null);
                Value::Object(map)
            }
        }
    }
}

/// The closest valid value at a bound (ceil/floor for integers, past an exclusive bound).
fn closed(b: Bound, lower: bool, integral: bool) -> f64 {
    match (integral, lower, b.exclusive) {
        (true, true, false) => b.value.ceil(),
        (true, true, true) => b.value.floor() + 1.0,
        (true, false, false) => b.value.floor(),
        (true, false, true) => b.value.ceil() - 1.0,
        (false, true, true) => b.value + 0.01_f64.max(b.value.abs() * 1e-9),
        (false, false, true) => b.value - 0.01_f64.max(b.value.abs() * 1e-9),
        (false, _, false) => b.value,
    }
}

/// The first invalid value past a bound, in direction `sign`: the exclusive bound itself, else one
/// step beyond (one, or one `multipleOf`; half a step for numbers when `half`).
fn beyond(b: Bound, sign: f64, integral: bool, multiple_of: Option<f64>, half: bool) -> f64 {
    if b.exclusive {
        return b.value;
    }
    match (integral, multiple_of) {
        (true, None) if sign > 0.0 => b.value.floor() + 1.0,
        (true, None) => b.value.ceil() - 1.0,
        (true, Some(step)) => b.value + sign * step,
        (false, step) => {
            let step = step.unwrap_or(1.0);
            b.value + sign * if half { step / 2.0 } else { step }
        }
    }
}

/// A JSON number, an integer when the value is one.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < EXACT {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}
