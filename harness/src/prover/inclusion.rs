//! The structural inclusion prover: `B ⊆ A`, every instance the schema `B` accepts, `A` accepts.
//!
//! Two documents, two roles: `B` (the side whose instances must all be accepted) may be read
//! *more loosely* than it is (a keyword dropped, `oneOf` read as `anyOf`, an `if` read as
//! `(if ∧ then) ∨ else`, `not` ignored), and `A` *more strictly* (anything not understood stops
//! the proof): either way a proof of the loose reading is a proof of the real one. Nothing is
//! guessed: where a rule below does not apply, the answer is a [`Stop`], never a proof.
//!
//! A node is the conjunction of its keywords, its `allOf` branches and its `$ref` target (read by
//! the project's resolver); a disjunction (`anyOf`, `oneOf`, `if`) of `B` is split into its
//! branches, each of which must be included; one of `A` needs `B` inside one branch, per JSON type
//! of `B` if need be (`oneOf` also needs the other branches provably disjoint from it). What is
//! left is compared keyword by keyword, for each JSON type `B` admits: bounds, counts, lengths,
//! `multipleOf`, `pattern` and `format` (the same string), `required`, and the subschemas of
//! properties, pattern properties, the other keys and items, position by position, recursively.
//! A finite `B` (`const`, `enum`) is decided by validating its values, exactly.
//!
//! **Recursion.** A pair met again on the way down is assumed to hold only when an instance level
//! was crossed since (a property or an item): instances are finite, so the obligations left are
//! about strictly smaller values (induction on the instance). Met again at the same level, the
//! proof stops. A proof that leaned on such an assumption is not kept for reuse.

use std::collections::{BTreeSet, HashMap, HashSet};

use schema_fidelity_translators::equality::json_eq;
use schema_fidelity_translators::{Types, vocabulary, walk};
use serde_json::{Map, Value};

use super::docs::Doc;

/// Steps one proof may take before it gives up (a product of unions can be large).
const STEP_BUDGET: usize = 20_000;
/// Places a failed proof reports where it stopped (the first, then the next ones a conjunction
/// of obligations reaches).
const MAX_STOPS: usize = 8;
/// Conjuncts one node gathers (`allOf` and `$ref` chains).
const MAX_PARTS: usize = 64;
/// The mark of a part of `A` met as a whole (see [`Prover::same_applicators`]).
const WHOLE: &str = "*";
/// Values a finite `B` is enumerated to, at most.
const MAX_FINITE: usize = 256;

/// One step of an instance path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    /// A property of this name.
    Key(String),
    /// An item at this index (the last index counted stands for every later one).
    Index(usize),
    /// A property neither side declares by name.
    OtherKey,
    /// A property whose name matches this pattern.
    Matching(String),
    /// The name of a property (what `propertyNames` judges).
    Name,
}

impl std::fmt::Display for Seg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Seg::Key(k) => write!(f, "/{}", walk::escape(k)),
            Seg::Index(i) => write!(f, "/{i}"),
            Seg::OtherKey => f.write_str("/(another key)"),
            Seg::Matching(p) => write!(f, "/(a key matching {})", Value::from(p.as_str())),
            Seg::Name => f.write_str("/(a key's name)"),
        }
    }
}

/// Why a proof stopped where it did.
#[derive(Debug, Clone, PartialEq)]
pub enum Why {
    /// `B` admits values of these types there, `A` none.
    Type(Types),
    /// `A`'s keyword is not implied by what `B` says there.
    Keyword(String),
    /// A value `B` accepts there and `A` rejects (both validated): a counterexample in place.
    Value(Value),
    /// The same pair again without an instance level crossed.
    Recursion,
    /// The step budget ran out.
    Budget,
    /// `A` holds what the prover does not read (a `$dynamicRef`, a reference it cannot follow,
    /// `unevaluated*` beside in-place applicators).
    Unsupported(String),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Type(t) => write!(
                f,
                "one side admits {} there, the other not",
                t.names().join(", ")
            ),
            Why::Keyword(k) => write!(f, "`{k}` is not implied there"),
            Why::Value(v) => write!(
                f,
                "{} is accepted by one side there and rejected by the other",
                crate::verdict::shown(v)
            ),
            Why::Recursion => f.write_str("a recursion that crosses no instance level"),
            Why::Budget => write!(f, "the proof's budget of {STEP_BUDGET} steps ran out"),
            Why::Unsupported(k) => write!(f, "`{k}` is beyond what the prover reads"),
        }
    }
}

/// Where a proof of `B ⊆ A` stopped: the instance path, the subschemas of each side there, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    pub path: Vec<Seg>,
    /// For each step of the path, the pointers (into `B`'s document) of the conjuncts met there:
    /// what a value at that step is drawn from.
    pub trail: Vec<Vec<String>>,
    /// Pointers, into `B`'s document, of the conjuncts there.
    pub included: Vec<String>,
    /// Pointers, into `A`'s document, of the conjuncts there.
    pub including: Vec<String>,
    pub why: Why,
}

impl Stop {
    /// The instance path as a pointer-like string (`/files/0/mode`).
    #[must_use]
    pub fn at(&self) -> String {
        self.path.iter().map(ToString::to_string).collect()
    }
}

type Proved = Result<(), Box<Stop>>;

/// A conjunction of subschemas of one document, with the disjunctions already split on the way and
/// the JSON types the instance is known to have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conj {
    ptrs: Vec<String>,
    expanded: BTreeSet<(String, &'static str)>,
    types: Types,
}

impl Conj {
    pub(crate) fn of(ptrs: Vec<String>) -> Self {
        Conj {
            ptrs,
            expanded: BTreeSet::new(),
            types: Types::ALL,
        }
    }

    fn one(ptr: String) -> Self {
        Self::of(vec![ptr])
    }

    /// This conjunction with the disjunction `keyword` at `ptr` split, and `extra` conjuncts added.
    fn split(
        &self,
        ptr: &str,
        keyword: &'static str,
        extra: impl IntoIterator<Item = String>,
    ) -> Self {
        let mut c = self.clone();
        c.expanded.insert((ptr.to_owned(), keyword));
        c.ptrs.extend(extra);
        c
    }

    fn typed(&self, t: Types) -> Self {
        let mut c = self.clone();
        c.types = c.types.and(t);
        c
    }
}

/// A conjunction read out: its schema objects (pointer and map), whether one conjunct is `false`,
/// and what could not be followed.
struct Flat<'a> {
    parts: Vec<(String, &'a Map<String, Value>)>,
    empty: bool,
    opaque: Vec<String>,
}

impl<'a> Flat<'a> {
    fn all<'s>(&'s self, keyword: &'s str) -> impl Iterator<Item = (&'s str, &'a Value)> + 's {
        self.parts
            .iter()
            .filter_map(move |(p, m)| m.get(keyword).map(|v| (p.as_str(), v)))
    }

    fn pointers(&self) -> Vec<String> {
        self.parts.iter().map(|(p, _)| p.clone()).collect()
    }
}

fn flatten<'a>(doc: &Doc<'a>, conj: &Conj) -> Flat<'a> {
    let mut flat = Flat {
        parts: Vec::new(),
        empty: false,
        opaque: Vec::new(),
    };
    let mut seen = HashSet::new();
    let mut stack: Vec<String> = conj.ptrs.iter().rev().cloned().collect();
    while let Some(ptr) = stack.pop() {
        if !seen.insert(ptr.clone()) || conj.expanded.contains(&(ptr.clone(), WHOLE)) {
            continue;
        }
        match doc.at(&ptr) {
            Some(Value::Bool(false)) => flat.empty = true,
            Some(Value::Bool(true)) => {}
            Some(Value::Object(map)) => {
                if flat.parts.len() >= MAX_PARTS {
                    flat.opaque.push(ptr);
                    continue;
                }
                flat.parts.push((ptr.clone(), map));
                if let Some(reference) = map.get("$ref") {
                    match reference.as_str().and_then(|r| doc.follow(r, &ptr)) {
                        Some(target) => stack.push(target),
                        None => flat.opaque.push(format!("{ptr}/$ref")),
                    }
                }
                if map.contains_key("$dynamicRef") {
                    flat.opaque.push(format!("{ptr}/$dynamicRef"));
                }
                if let Some(Value::Array(branches)) = map.get("allOf") {
                    stack.extend(
                        (0..branches.len())
                            .rev()
                            .map(|i| format!("{ptr}/allOf/{i}")),
                    );
                }
            }
            _ => flat.opaque.push(ptr),
        }
    }
    flat
}

/// Every asserting keyword the shape comparison reads in `A` (anything else asserting stops it).
const READ: &[&str] = &[
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "contains",
    "prefixItems",
    "items",
    "unevaluatedItems",
    "additionalProperties",
    "properties",
    "patternProperties",
    "propertyNames",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "required",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
];

/// The elementary JSON types, one bit each.
const ELEMENTARY: [Types; 7] = [
    Types::NULL,
    Types::BOOLEAN,
    Types::INTEGER,
    Types::FRACTION,
    Types::STRING,
    Types::ARRAY,
    Types::OBJECT,
];

/// Whether a keyword asserts under the validator the oracle uses (draft 2020-12, and the draft-07
/// `dependencies`, which jsonschema 0.61 still asserts): the registry's.
fn asserting(keyword: &str, formats: bool) -> bool {
    vocabulary::asserts_under(keyword, formats)
}

/// Keywords that make a node's `unevaluated*` see more than its own keywords: the in-place
/// applicators whose annotations they read (not `not`; not `dependencies`, whose annotations the
/// validator's `unevaluated*` ignore).
fn in_place_applicators(map: &Map<String, Value>) -> bool {
    map.keys().any(|k| vocabulary::evaluates_in_place(k))
}

/// The prover of `B ⊆ A` for one pair of documents.
pub(crate) struct Prover<'d, 'a> {
    b: &'d Doc<'a>,
    a: &'d Doc<'a>,
    formats: bool,
    steps: usize,
    in_progress: HashMap<Key, usize>,
    proven: HashSet<Key>,
    assumed: bool,
    patterns: HashMap<String, Option<jsonschema::Validator>>,
    /// `B`'s conjuncts at each level of the current path.
    trail: Vec<Vec<String>>,
    /// Stops met on the way, besides the one returned: where else a conjunction failed.
    collected: Vec<Stop>,
    /// Attempts whose failure is expected (a branch tried among others): nothing is collected
    /// inside them.
    speculative: usize,
}

type Key = (
    Vec<String>,
    Vec<(String, &'static str)>,
    u8,
    Vec<String>,
    Vec<(String, &'static str)>,
);

fn bits(t: Types) -> u8 {
    ELEMENTARY
        .iter()
        .enumerate()
        .filter(|(_, e)| t.intersects(**e))
        .fold(0, |acc, (i, _)| acc | (1 << i))
}

impl<'d, 'a> Prover<'d, 'a> {
    pub(crate) fn new(b: &'d Doc<'a>, a: &'d Doc<'a>, formats: bool) -> Self {
        Prover {
            b,
            a,
            formats,
            steps: 0,
            in_progress: HashMap::new(),
            proven: HashSet::new(),
            assumed: false,
            patterns: HashMap::new(),
            trail: Vec::new(),
            collected: Vec::new(),
            speculative: 0,
        }
    }

    /// Prove that the root of `B` is included in the root of `A`; else every place the proof
    /// stopped (at most [`MAX_STOPS`], the first first).
    pub(crate) fn prove(&mut self) -> Result<(), Vec<Stop>> {
        let result = self.incl(
            &Conj::one(String::new()),
            &Conj::one(String::new()),
            &mut Vec::new(),
        );
        let mut stops = std::mem::take(&mut self.collected);
        if let Err(last) = result {
            stops.push(*last);
        }
        if stops.is_empty() { Ok(()) } else { Err(stops) }
    }

    fn stop(&self, path: &[Seg], b: &Flat<'_>, a: &Flat<'_>, why: Why) -> Proved {
        Err(Box::new(Stop {
            path: path.to_vec(),
            trail: self.trail_of(path),
            included: b.pointers(),
            including: a.pointers(),
            why,
        }))
    }

    fn trail_of(&self, path: &[Seg]) -> Vec<Vec<String>> {
        let mut trail = self.trail.clone();
        trail.resize(path.len(), Vec::new());
        trail
    }

    /// A conjunction's obligation failed: outside speculation the proof goes on to find where
    /// else it stops (the whole answer is no proof either way), inside one it ends here.
    fn go_on(&mut self, result: Proved) -> Proved {
        match result {
            Err(stop) if self.speculative == 0 && self.collected.len() + 1 < MAX_STOPS => {
                self.collected.push(*stop);
                Ok(())
            }
            other => other,
        }
    }

    /// Run `attempt` as a speculation (see [`Prover::speculative`]).
    fn attempt<T>(&mut self, attempt: impl FnOnce(&mut Self) -> T) -> T {
        self.speculative += 1;
        let out = attempt(self);
        self.speculative -= 1;
        out
    }

    fn incl(&mut self, b: &Conj, a: &Conj, path: &mut Vec<Seg>) -> Proved {
        self.steps += 1;
        self.trail.truncate(path.len());
        if !path.is_empty() {
            if self.trail.len() == path.len() {
                self.trail[path.len() - 1].clone_from(&b.ptrs);
            } else {
                self.trail.resize(path.len(), b.ptrs.clone());
            }
        }
        let fb = flatten(self.b, b);
        let fa = flatten(self.a, a);
        if self.steps > STEP_BUDGET {
            return self.stop(path, &fb, &fa, Why::Budget);
        }
        if fb.empty || b.types.is_empty() {
            return Ok(());
        }
        if fa.parts.is_empty() && fa.opaque.is_empty() && !fa.empty {
            return Ok(());
        }
        // Two equal subtrees that refer to nothing accept the same instances.
        if let ([(pb, vb)], [(pa, va)]) = (fb.parts.as_slice(), fa.parts.as_slice())
            && b.expanded.is_empty()
            && a.expanded.is_empty()
            && fb.opaque.is_empty()
            && fa.opaque.is_empty()
            && !fa.empty
            && vb == va
            && self.b.self_contained(pb)
            && self.a.self_contained(pa)
        {
            return Ok(());
        }
        // `A`'s conjunction is keyed by its pointers as given, not only its object parts: a
        // `false` among them is no part, yet it is the whole answer.
        let key: Key = (
            sorted(fb.pointers()),
            b.expanded.iter().cloned().collect(),
            bits(b.types),
            sorted(a.ptrs.clone()),
            a.expanded.iter().cloned().collect(),
        );
        if self.proven.contains(&key) {
            return Ok(());
        }
        if let Some(&depth) = self.in_progress.get(&key) {
            if depth < path.len() {
                self.assumed = true;
                return Ok(());
            }
            return self.stop(path, &fb, &fa, Why::Recursion);
        }
        self.in_progress.insert(key.clone(), path.len());
        let outer = std::mem::replace(&mut self.assumed, false);
        let collected = self.collected.len();
        let result = self.incl_flat(b, &fb, a, &fa, path);
        self.in_progress.remove(&key);
        if result.is_ok() && !self.assumed && self.collected.len() == collected {
            self.proven.insert(key);
        }
        self.assumed |= outer;
        result
    }

    fn incl_flat(
        &mut self,
        b: &Conj,
        fb: &Flat<'a>,
        a: &Conj,
        fa: &Flat<'a>,
        path: &mut Vec<Seg>,
    ) -> Proved {
        // An applicator of `A` written the same way, referring to nothing, on a part of `B`:
        // `B` is inside it, whatever it means.
        if let Some(implied) = self.same_applicators(fb, a, fa) {
            return self.incl(b, &implied, path);
        }
        // `B`'s disjunctions: every branch must be included.
        if let Some((ptr, keyword, branches)) = b_disjunction(fb, &b.expanded) {
            for extra in branches {
                let r = self.incl(&b.split(&ptr, keyword, extra), a, path);
                self.go_on(r)?;
            }
            return Ok(());
        }
        if let Some(opaque) = fa.opaque.first() {
            return self.stop(
                path,
                fb,
                fa,
                Why::Unsupported(opaque.rsplit('/').next().unwrap_or_default().to_owned()),
            );
        }
        if fa.empty {
            return if self.b_types(fb, b.types).is_empty() {
                Ok(())
            } else {
                self.stop(path, fb, fa, Why::Keyword("false".to_owned()))
            };
        }
        // A finite `B` is decided by validation.
        if let Some(values) = self.finite_values(fb, b.types, 0) {
            match self.finite(fb, b.types, &values, fa) {
                Some(Ok(())) => return Ok(()),
                Some(Err(v)) => return self.stop(path, fb, fa, Why::Value(v)),
                None => {}
            }
        }
        if let Some(d) = a_disjunction(fa, &a.expanded) {
            return self.a_disjunction(b, fb, a, fa, d, path);
        }
        self.shapes(b, fb, fa, path)
    }

    /// `a` with what `B` provably meets marked as met: a part of `A` equal, as JSON and referring
    /// to nothing, to a part of `B` (as a whole: `unevaluated*` beside its own applicators too),
    /// and its `anyOf`, `oneOf`, `not` and `if`/`then`/`else` where a part of `B` holds the same
    /// ones. `B` lies inside each of its parts, split or not. `None` when nothing is met.
    fn same_applicators(&self, fb: &Flat<'a>, a: &Conj, fa: &Flat<'a>) -> Option<Conj> {
        let mut out = a.clone();
        for (ptr, map) in &fa.parts {
            let untouched = !a.expanded.iter().any(|(p, _)| p == ptr);
            if untouched
                && self.a.self_contained(ptr)
                && fb.parts.iter().any(|(bp, bm)| *bm == *map && self.b.self_contained(bp))
            {
                out.expanded.insert((ptr.clone(), WHOLE));
                continue;
            }
            for (keyword, group) in [("anyOf", &["anyOf"][..]), ("oneOf", &["oneOf"]), ("not", &["not"]), ("if", &["if", "then", "else"])] {
                if !map.contains_key(keyword) || a.expanded.contains(&(ptr.clone(), keyword)) {
                    continue;
                }
                let values = |m: &Map<String, Value>| group.iter().map(|k| m.get(*k).cloned()).collect::<Vec<_>>();
                let contained = |doc: &Doc<'a>, p: &str, m: &Map<String, Value>| group.iter().filter(|k| m.contains_key(**k)).all(|k| doc.self_contained(&format!("{p}/{k}")));
                let met = contained(self.a, ptr, map) && fb.parts.iter().any(|(bp, bm)| values(bm) == values(map) && contained(self.b, bp, bm));
                if met {
                    out.expanded.insert((ptr.clone(), keyword));
                }
            }
        }
        (out != *a).then_some(out)
    }

    /// A finite set holding every value `B` accepts, when `B` is finite in a way read here: its
    /// `const`/`enum`, the two booleans, `null`, a number pinned by equal inclusive bounds, and
    /// the objects a closed, all-required node of finite properties allows (at most
    /// [`MAX_FINITE`] of them). Values outside `B` may be in the set: each is validated first.
    fn finite_values(&self, fb: &Flat<'a>, restricted: Types, depth: usize) -> Option<Vec<Value>> {
        if let Some(values) = values_of(fb) {
            return Some(values);
        }
        let t = self.b_types(fb, restricted);
        if t.is_empty() {
            return Some(Vec::new());
        }
        if t.is_subset_of(Types::NULL.or(Types::BOOLEAN).or(Types::NUMBER)) {
            let mut out = Vec::new();
            if t.intersects(Types::NULL) {
                out.push(Value::Null);
            }
            if t.intersects(Types::BOOLEAN) {
                out.extend([Value::Bool(false), Value::Bool(true)]);
            }
            if t.intersects(Types::NUMBER) {
                // A number pinned by equal inclusive bounds (in both spellings, `1` and `1.0`).
                let (lower, upper) = (bounds(fb, true).ok()?, bounds(fb, false).ok()?);
                let pinned = lower.iter().find(|lo| !lo.exclusive && upper.iter().any(|hi| !hi.exclusive && hi.value == lo.value))?;
                let v = pinned.value;
                out.push(Value::from(v));
                if v.fract() == 0.0 && v.abs() < 9.0e15 {
                    out.push(Value::from(v as i64));
                }
            }
            return Some(out);
        }
        if t == Types::OBJECT && depth < 4 {
            let closing = fb.parts.iter().find(|(_, m)| m.get("additionalProperties") == Some(&Value::Bool(false)) && m.get("patternProperties").and_then(Value::as_object).is_none_or(Map::is_empty))?;
            let names: Vec<String> = closing.1.get("properties").and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default();
            let required: BTreeSet<&str> = fb.all("required").flat_map(|(_, v)| v.as_array().into_iter().flatten().filter_map(Value::as_str)).collect();
            let mut objects = vec![Map::new()];
            for name in &names {
                let schemas: Vec<String> = fb.parts.iter().filter_map(|(p, m)| m.get("properties").and_then(|ps| ps.get(name.as_str())).map(|_| format!("{p}/properties/{}", walk::escape(name)))).collect();
                let fp = flatten(self.b, &Conj::of(schemas));
                let values = if fp.empty { Vec::new() } else { self.finite_values(&fp, Types::ALL, depth + 1)? };
                let optional = !required.contains(name.as_str());
                let mut next = Vec::new();
                for o in &objects {
                    if optional {
                        next.push(o.clone());
                    }
                    for v in &values {
                        let mut with = o.clone();
                        with.insert(name.clone(), v.clone());
                        next.push(with);
                    }
                }
                if next.len() > MAX_FINITE {
                    return None;
                }
                objects = next;
            }
            return Some(objects.into_iter().map(Value::Object).collect());
        }
        if t == Types::ARRAY && depth < 4 {
            let least = fb.all("minItems").filter_map(|(_, v)| v.as_u64()).max().unwrap_or(0);
            let most = fb.all("maxItems").filter_map(|(_, v)| v.as_u64()).min()?;
            if most > 8 || least != most {
                return None;
            }
            let mut arrays = vec![Vec::new()];
            for i in 0..usize::try_from(most).ok()? {
                let fp = flatten(self.b, &Conj::of(item_schemas(fb, i, true)));
                if fp.parts.is_empty() && !fp.empty {
                    return None;
                }
                let values = if fp.empty { Vec::new() } else { self.finite_values(&fp, Types::ALL, depth + 1)? };
                let mut next = Vec::new();
                for a in &arrays {
                    for v in &values {
                        let mut with: Vec<Value> = a.clone();
                        with.push(v.clone());
                        next.push(with);
                    }
                }
                if next.len() > MAX_FINITE {
                    return None;
                }
                arrays = next;
            }
            return Some(arrays.into_iter().map(Value::Array).collect());
        }
        None
    }

    /// Whether every value of a finite `B` that `B` accepts is accepted by `A`: `None` when a side
    /// cannot be validated piecewise, else the first value `A` rejects.
    fn finite(
        &self,
        fb: &Flat<'a>,
        types: Types,
        values: &[Value],
        fa: &Flat<'a>,
    ) -> Option<Result<(), Value>> {
        for v in values.iter().filter(|v| types.admits(v)) {
            if fb
                .parts
                .iter()
                .any(|(p, _)| self.b.accepts(p, v) == Some(false))
            {
                continue;
            }
            for (p, _) in &fa.parts {
                match self.a.accepts(p, v)? {
                    true => {}
                    false => {
                        // A counterexample only if `B` really accepts it.
                        let b_accepts = fb
                            .parts
                            .iter()
                            .all(|(q, _)| self.b.accepts(q, v) == Some(true));
                        return if b_accepts {
                            Some(Err(v.clone()))
                        } else {
                            None
                        };
                    }
                }
            }
        }
        Some(Ok(()))
    }

    fn a_disjunction(
        &mut self,
        b: &Conj,
        fb: &Flat<'a>,
        a: &Conj,
        fa: &Flat<'a>,
        d: ADisjunction,
        path: &mut Vec<Seg>,
    ) -> Proved {
        match d {
            ADisjunction::AnyOf(ptr, n) => {
                let rest = self.incl(b, &a.split(&ptr, "anyOf", []), path);
                self.go_on(rest)?;
                let branches: Vec<Conj> = (0..n)
                    .map(|i| Conj::one(format!("{ptr}/anyOf/{i}")))
                    .collect();
                self.some_branch(b, fb, &branches, path, None)
            }
            ADisjunction::OneOf(ptr, n) => {
                let rest = self.incl(b, &a.split(&ptr, "oneOf", []), path);
                self.go_on(rest)?;
                let branches: Vec<Conj> = (0..n)
                    .map(|i| Conj::one(format!("{ptr}/oneOf/{i}")))
                    .collect();
                self.some_branch(b, fb, &branches, path, Some(&branches))
            }
            ADisjunction::If(ptr) => {
                let rest = self.incl(b, &a.split(&ptr, "if", []), path);
                self.go_on(rest)?;
                let part = |k: &str| {
                    self.a
                        .at(&format!("{ptr}/{k}"))
                        .map(|_| Conj::one(format!("{ptr}/{k}")))
                };
                let (condition, then, otherwise) =
                    (Conj::one(format!("{ptr}/if")), part("then"), part("else"));
                let holds = |p: &mut Self, c: &Option<Conj>, path: &mut Vec<Seg>| {
                    c.as_ref().map_or(Ok(()), |c| p.incl(b, c, path))
                };
                if self.attempt(|p| {
                    holds(p, &then, path).is_ok() && holds(p, &otherwise, path).is_ok()
                }) {
                    return Ok(());
                }
                if self.disjoint(b, &condition) {
                    return holds(self, &otherwise, path);
                }
                if self.attempt(|p| p.incl(b, &condition, path).is_ok()) {
                    return holds(self, &then, path);
                }
                self.stop(path, fb, fa, Why::Keyword("if".to_owned()))
            }
            ADisjunction::Not(ptr) => {
                let rest = self.incl(b, &a.split(&ptr, "not", []), path);
                self.go_on(rest)?;
                if self.disjoint(b, &Conj::one(format!("{ptr}/not"))) {
                    Ok(())
                } else {
                    self.stop(path, fb, fa, Why::Keyword("not".to_owned()))
                }
            }
        }
    }

    /// `B` inside one of `branches` (per JSON type of `B` if need be); for a `oneOf`, every other
    /// branch provably disjoint from that part of `B`.
    fn some_branch(
        &mut self,
        b: &Conj,
        fb: &Flat<'a>,
        branches: &[Conj],
        path: &mut Vec<Seg>,
        exclusive: Option<&[Conj]>,
    ) -> Proved {
        let mut first_stop: Option<Box<Stop>> = None;
        let fits = |p: &mut Self,
                    part: &Conj,
                    path: &mut Vec<Seg>,
                    stop: &mut Option<Box<Stop>>|
         -> bool {
            for (i, branch) in branches.iter().enumerate() {
                match p.incl(part, branch, path) {
                    Ok(()) => {
                        let alone = exclusive.is_none_or(|all| {
                            all.iter()
                                .enumerate()
                                .all(|(j, other)| j == i || p.disjoint(part, other))
                        });
                        if alone {
                            return true;
                        }
                    }
                    Err(s) => {
                        // The stop of the branch that shares the most types with `B` says most.
                        if stop
                            .as_ref()
                            .is_none_or(|old| s.path.len() > old.path.len())
                        {
                            *stop = Some(s);
                        }
                    }
                }
            }
            false
        };
        if self.attempt(|p| fits(p, b, path, &mut first_stop)) {
            return Ok(());
        }
        let types = self.b_types(fb, b.types);
        if types.len() > 1 {
            for t in ELEMENTARY.into_iter().filter(|t| types.intersects(*t)) {
                let mut stop = None;
                if !self.attempt(|p| fits(p, &b.typed(t), path, &mut stop)) {
                    return Err(stop.or(first_stop).unwrap_or_else(|| {
                        Box::new(Stop {
                            path: path.clone(),
                            trail: self.trail_of(path),
                            included: fb.pointers(),
                            including: Vec::new(),
                            why: Why::Type(t),
                        })
                    }));
                }
            }
            return Ok(());
        }
        Err(first_stop.unwrap_or_else(|| {
            Box::new(Stop {
                path: path.clone(),
                trail: self.trail_of(path),
                included: fb.pointers(),
                including: Vec::new(),
                why: Why::Keyword("oneOf".to_owned()),
            })
        }))
    }

    /// The JSON types `B` may have: its `type`s, its values' types, the types it was split to.
    fn b_types(&self, fb: &Flat<'a>, restricted: Types) -> Types {
        let mut t = restricted;
        for (_, v) in fb.all("type") {
            if let Some(named) = Types::of_keyword(v) {
                t = t.and(named);
            }
        }
        // `not: {type: T}` leaves the other types; `not: {}` none.
        for (_, v) in fb.all("not") {
            match v {
                Value::Bool(true) => t = Types::NONE,
                Value::Object(map) if map.keys().all(|k| k == "type" || !asserting(k, true)) => match map.get("type") {
                    None => t = Types::NONE,
                    Some(named) => {
                        if let Some(named) = Types::of_keyword(named) {
                            t = t.and(named.complement());
                        }
                    }
                },
                _ => {}
            }
        }
        // Bounds no value meets leave no value of their type.
        for (lower, upper, types) in [("minLength", "maxLength", Types::STRING), ("minItems", "maxItems", Types::ARRAY), ("minProperties", "maxProperties", Types::OBJECT)] {
            let least = fb.all(lower).filter_map(|(_, v)| v.as_u64()).max().unwrap_or(0);
            if fb.all(upper).filter_map(|(_, v)| v.as_u64()).any(|most| most < least) {
                t = t.and(types.complement());
            }
        }
        if let (Ok(lower), Ok(upper)) = (bounds(fb, true), bounds(fb, false))
            && lower.iter().any(|lo| upper.iter().any(|hi| lo.value > hi.value || (lo.value == hi.value && (lo.exclusive || hi.exclusive))))
        {
            t = t.and(Types::NUMBER.complement());
        }
        if let Some(values) = values_of(fb) {
            t = t.and(
                values
                    .iter()
                    .fold(Types::NONE, |acc, v| acc.or(Types::of_value(v))),
            );
        }
        t
    }

    fn shapes(&mut self, b: &Conj, fb: &Flat<'a>, fa: &Flat<'a>, path: &mut Vec<Seg>) -> Proved {
        for (_, map) in &fa.parts {
            if let Some(k) = map
                .keys()
                .find(|k| asserting(k, self.formats) && !READ.contains(&k.as_str()))
            {
                {
                    let r = self.stop(path, fb, fa, Why::Unsupported(k.clone()));
                    self.go_on(r)?;
                }
            }
        }
        let mut tb = self.b_types(fb, b.types);
        if tb.intersects(Types::OBJECT) && self.requires_the_impossible(fb) {
            tb = tb.and(Types::OBJECT.complement());
        }
        if tb.is_empty() {
            return Ok(());
        }
        let mut ta = Types::ALL;
        for (_, v) in fa.all("type") {
            match Types::of_keyword(v) {
                Some(t) => ta = ta.and(t),
                None => return self.stop(path, fb, fa, Why::Unsupported("type".to_owned())),
            }
        }
        let missing = ELEMENTARY
            .into_iter()
            .filter(|t| tb.intersects(*t) && !ta.intersects(*t))
            .fold(Types::NONE, Types::or);
        if !missing.is_empty() {
            {
                let r = self.stop(path, fb, fa, Why::Type(missing));
                self.go_on(r)?;
            }
        }
        if let Some(allowed) = values_of(fa) {
            // `B` is not finite here (or could not be validated): only a whole type's values
            // may be listed.
            let listed = |v: &Value| allowed.iter().any(|a| json_eq(a, v));
            let null_ok = !tb.intersects(Types::NULL) || listed(&Value::Null);
            let bool_ok = !tb.intersects(Types::BOOLEAN)
                || (listed(&Value::Bool(true)) && listed(&Value::Bool(false)));
            let rest = tb.and(Types::NULL.or(Types::BOOLEAN).complement());
            let finite_ok =
                values_of(fb).is_some_and(|bv| bv.iter().filter(|v| tb.admits(v)).all(listed));
            if !(finite_ok || (null_ok && bool_ok && rest.is_empty())) {
                {
                    let r = self.stop(
                        path,
                        fb,
                        fa,
                        Why::Keyword(
                            if fa.all("enum").next().is_some() {
                                "enum"
                            } else {
                                "const"
                            }
                            .to_owned(),
                        ),
                    );
                    self.go_on(r)?;
                }
            }
        }
        if tb.intersects(Types::NUMBER)
            && let Err(k) = numbers(fb, fa, !tb.intersects(Types::FRACTION)) {
                {
                    let r = self.stop(path, fb, fa, Why::Keyword(k));
                    self.go_on(r)?;
                }
            }
        if tb.intersects(Types::STRING)
            && let Err(k) = strings(fb, fa, self.formats) {
                {
                    let r = self.stop(path, fb, fa, Why::Keyword(k));
                    self.go_on(r)?;
                }
            }
        if tb.intersects(Types::ARRAY) {
            self.arrays(fb, fa, path)?;
        }
        if tb.intersects(Types::OBJECT) {
            self.objects(b, fb, fa, path)?;
        }
        Ok(())
    }

    fn arrays(&mut self, fb: &Flat<'a>, fa: &Flat<'a>, path: &mut Vec<Seg>) -> Proved {
        for (_, map) in &fa.parts {
            if map.contains_key("unevaluatedItems") && !simple_items(map) {
                {
                    let r = self.stop(
                        path,
                        fb,
                        fa,
                        Why::Unsupported("unevaluatedItems".to_owned()),
                    );
                    self.go_on(r)?;
                }
            }
        }
        let b_min = fb
            .all("minItems")
            .filter_map(|(_, v)| v.as_u64())
            .max()
            .unwrap_or(0);
        let mut b_max = fb.all("maxItems").filter_map(|(_, v)| v.as_u64()).min();
        for (_, map) in &fb.parts {
            if map.get("items") == Some(&Value::Bool(false))
                || (simple_items(map)
                    && !map.contains_key("items")
                    && map.get("unevaluatedItems") == Some(&Value::Bool(false)))
            {
                let len = map
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len) as u64;
                b_max = Some(b_max.map_or(len, |m| m.min(len)));
            }
            // A `false` position: no array reaches it.
            if let Some(stop) = map.get("prefixItems").and_then(Value::as_array).and_then(|p| p.iter().position(|item| *item == Value::Bool(false))) {
                b_max = Some(b_max.map_or(stop as u64, |m| m.min(stop as u64)));
            }
        }
        let prefix = |f: &Flat<'a>| {
            f.parts
                .iter()
                .filter_map(|(_, m)| m.get("prefixItems").and_then(Value::as_array).map(Vec::len))
                .max()
                .unwrap_or(0)
        };
        let positions = prefix(fb).max(prefix(fa));
        for i in 0..=positions {
            if b_max.is_some_and(|m| i as u64 >= m) {
                break;
            }
            let bi = item_schemas(fb, i, true);
            let ai = item_schemas(fa, i, false);
            if ai.is_empty() {
                continue;
            }
            path.push(Seg::Index(i));
            let r = self.incl(&Conj::of(bi), &Conj::of(ai), path);
            path.pop();
            self.go_on(r)?;
        }
        for (_, v) in fa.all("minItems") {
            if v.as_u64().is_none_or(|m| m > b_min) {
                {
                    let r = self.stop(path, fb, fa, Why::Keyword("minItems".to_owned()));
                    self.go_on(r)?;
                }
            }
        }
        for (_, v) in fa.all("maxItems") {
            if v.as_u64().is_none_or(|m| b_max.is_none_or(|b| b > m)) {
                {
                    let r = self.stop(path, fb, fa, Why::Keyword("maxItems".to_owned()));
                    self.go_on(r)?;
                }
            }
        }
        if fa.all("uniqueItems").any(|(_, v)| v == &Value::Bool(true))
            && !fb.all("uniqueItems").any(|(_, v)| v == &Value::Bool(true))
            && b_max.is_none_or(|m| m > 1)
        {
            {
                let r = self.stop(path, fb, fa, Why::Keyword("uniqueItems".to_owned()));
                self.go_on(r)?;
            }
        }
        for (ptr, map) in fa.parts.clone() {
            let Some(_) = map.get("contains") else {
                continue;
            };
            let min = map.get("minContains").and_then(Value::as_u64).unwrap_or(1);
            let max = map.get("maxContains").and_then(Value::as_u64);
            if b_max == Some(0) && min == 0 {
                continue;
            }
            if max.is_none() && min == 0 {
                continue;
            }
            let wanted = Conj::one(format!("{ptr}/contains"));
            let mut held = false;
            if max.is_none() {
                for (bptr, bmap) in fb.parts.clone() {
                    if bmap.contains_key("contains")
                        && bmap.get("minContains").and_then(Value::as_u64).unwrap_or(1) >= min
                    {
                        path.push(Seg::Index(0));
                        let r = self.attempt(|p| {
                            p.incl(&Conj::one(format!("{bptr}/contains")), &wanted, path)
                        });
                        path.pop();
                        if r.is_ok() {
                            held = true;
                            break;
                        }
                    }
                }
                // Every item matches, and there are enough of them.
                if !held && b_min >= min {
                    let mut all = true;
                    for i in 0..=positions {
                        path.push(Seg::Index(i));
                        let r = self.attempt(|p| {
                            p.incl(&Conj::of(item_schemas(fb, i, true)), &wanted, path)
                        });
                        path.pop();
                        if r.is_err() {
                            all = false;
                            break;
                        }
                    }
                    held = all;
                }
            } else {
                let group = |m: &Map<String, Value>| {
                    ["contains", "minContains", "maxContains"].map(|k| m.get(k).cloned())
                };
                held = fb.parts.iter().any(|(bptr, bmap)| {
                    group(bmap) == group(map)
                        && self.b.self_contained(&format!("{bptr}/contains"))
                        && self.a.self_contained(&format!("{ptr}/contains"))
                });
            }
            if !held {
                {
                    let r = self.stop(
                        path,
                        fb,
                        fa,
                        Why::Keyword(
                            if max.is_some() {
                                "maxContains"
                            } else {
                                "contains"
                            }
                            .to_owned(),
                        ),
                    );
                    self.go_on(r)?;
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_lines)]
    fn objects(&mut self, b: &Conj, fb: &Flat<'a>, fa: &Flat<'a>, path: &mut Vec<Seg>) -> Proved {
        for (_, map) in &fa.parts {
            if map.contains_key("unevaluatedProperties") && in_place_applicators(map) {
                {
                    let r = self.stop(
                        path,
                        fb,
                        fa,
                        Why::Unsupported("unevaluatedProperties".to_owned()),
                    );
                    self.go_on(r)?;
                }
            }
        }
        let b_required: BTreeSet<&str> = fb
            .all("required")
            .flat_map(|(_, v)| v.as_array().into_iter().flatten().filter_map(Value::as_str))
            .collect();
        // Every name either side declares, judged exactly, name by name.
        let mut names: Vec<&str> = Vec::new();
        for f in [fb, fa] {
            for (_, props) in f.all("properties") {
                for name in props.as_object().into_iter().flat_map(|m| m.keys()) {
                    if !names.contains(&name.as_str()) {
                        names.push(name);
                    }
                }
            }
        }
        for (_, v) in fa.all("required") {
            for name in v.as_array().into_iter().flatten().filter_map(Value::as_str) {
                if !b_required.contains(name) {
                    {
                        let r = self.stop(path, fb, fa, Why::Keyword("required".to_owned()));
                        self.go_on(r)?;
                    }
                }
            }
        }
        for name in names.clone() {
            let Some(bn) = self.key_schemas(fb, name, true) else {
                continue;
            };
            if flatten(self.b, &Conj::of(bn.clone())).empty {
                continue;
            }
            let Some(an) = self.key_schemas(fa, name, false) else {
                let r = self.stop(
                    path,
                    fb,
                    fa,
                    Why::Unsupported("patternProperties".to_owned()),
                );
                self.go_on(r)?;
                continue;
            };
            if an.is_empty() {
                continue;
            }
            path.push(Seg::Key(name.to_owned()));
            let r = self.incl(&Conj::of(bn), &Conj::of(an), path);
            path.pop();
            self.go_on(r)?;
        }
        // The keys neither side names: for each part of `A` that constrains them, some part of `B`
        // whose own constraints on them are included (or `true`, if none is).
        for (aptr, amap) in fa.parts.clone() {
            let a_patterns: Vec<&String> = amap
                .get("patternProperties")
                .and_then(Value::as_object)
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            let a_other = match other_keys(&aptr, amap) {
                Other::At(p) => Some(p),
                Other::Free => None,
                Other::Unknown => {
                    return self.stop(
                        path,
                        fb,
                        fa,
                        Why::Unsupported("unevaluatedProperties".to_owned()),
                    );
                }
            };
            if a_patterns.is_empty() && a_other.is_none() {
                continue;
            }
            let candidates: Vec<Option<(String, &Map<String, Value>)>> = fb
                .parts
                .iter()
                .filter(|(_, m)| {
                    m.contains_key("patternProperties") || matches!(other_keys("", m), Other::At(_))
                })
                .map(|(p, m)| Some((p.clone(), *m)))
                .chain([None])
                .collect();
            let mut first_stop = None;
            let mut held = false;
            for candidate in candidates {
                match self.attempt(|p| {
                    p.other_keys_within(candidate, &aptr, &a_patterns, a_other.as_deref(), path)
                }) {
                    Ok(()) => {
                        held = true;
                        break;
                    }
                    Err(s) => {
                        first_stop.get_or_insert(s);
                    }
                }
            }
            if !held {
                let r = Err(first_stop.unwrap_or_else(|| {
                    Box::new(Stop {
                        path: path.clone(),
                        trail: self.trail_of(path),
                        included: fb.pointers(),
                        including: fa.pointers(),
                        why: Why::Keyword("additionalProperties".to_owned()),
                    })
                }));
                self.go_on(r)?;
            }
        }
        // Counts.
        let closed_names = self.closed_names(fb, &names);
        let b_min = fb
            .all("minProperties")
            .filter_map(|(_, v)| v.as_u64())
            .max()
            .unwrap_or(0)
            .max(b_required.len() as u64);
        let b_max = fb
            .all("maxProperties")
            .filter_map(|(_, v)| v.as_u64())
            .min()
            .or_else(|| closed_names.as_ref().map(|n| n.len() as u64));
        for (_, v) in fa.all("minProperties") {
            if v.as_u64().is_none_or(|m| m > b_min) {
                {
                    let r = self.stop(path, fb, fa, Why::Keyword("minProperties".to_owned()));
                    self.go_on(r)?;
                }
            }
        }
        for (_, v) in fa.all("maxProperties") {
            if v.as_u64().is_none_or(|m| b_max.is_none_or(|b| b > m)) {
                {
                    let r = self.stop(path, fb, fa, Why::Keyword("maxProperties".to_owned()));
                    self.go_on(r)?;
                }
            }
        }
        // Names.
        for (ptr, _) in fa
            .all("propertyNames")
            .map(|(p, v)| (p.to_owned(), v))
            .collect::<Vec<_>>()
        {
            let wanted = Conj::one(format!("{ptr}/propertyNames"));
            let mut held = false;
            for (bptr, _) in fb
                .all("propertyNames")
                .map(|(p, v)| (p.to_owned(), v))
                .collect::<Vec<_>>()
            {
                path.push(Seg::Name);
                let r = self.attempt(|p| {
                    p.incl(&Conj::one(format!("{bptr}/propertyNames")), &wanted, path)
                });
                path.pop();
                if r.is_ok() {
                    held = true;
                    break;
                }
            }
            if !held && let Some(closed) = &closed_names {
                held = closed.iter().all(|n| {
                    self.a
                        .accepts(&format!("{ptr}/propertyNames"), &Value::from(n.as_str()))
                        == Some(true)
                });
            }
            if !held {
                {
                    let r = self.stop(path, fb, fa, Why::Keyword("propertyNames".to_owned()));
                    self.go_on(r)?;
                }
            }
        }
        // Dependencies.
        let b_dependent = |name: &str| -> BTreeSet<&str> {
            ["dependentRequired", "dependencies"]
                .iter()
                .flat_map(|k| fb.all(k))
                .filter_map(|(_, v)| v.get(name).and_then(Value::as_array))
                .flatten()
                .filter_map(Value::as_str)
                .collect()
        };
        for keyword in ["dependentRequired", "dependencies", "dependentSchemas"] {
            for (ptr, deps) in fa
                .all(keyword)
                .map(|(p, v)| (p.to_owned(), v.clone()))
                .collect::<Vec<_>>()
            {
                for (trigger, needs) in deps.as_object().into_iter().flatten() {
                    if self.b_lacks(fb, trigger) {
                        continue;
                    }
                    match needs {
                        Value::Array(list) => {
                            let implied = b_dependent(trigger);
                            if !list
                                .iter()
                                .filter_map(Value::as_str)
                                .all(|n| b_required.contains(n) || implied.contains(n))
                            {
                                {
                                    let r =
                                        self.stop(path, fb, fa, Why::Keyword(keyword.to_owned()));
                                    self.go_on(r)?;
                                }
                            }
                        }
                        _ => {
                            let wanted =
                                Conj::one(format!("{ptr}/{keyword}/{}", walk::escape(trigger)));
                            let own = fb.parts.iter().find_map(|(bp, bm)| {
                                ["dependentSchemas", "dependencies"]
                                    .into_iter()
                                    .find(|k| {
                                        bm.get(*k)
                                            .and_then(|d| d.get(trigger))
                                            .is_some_and(Value::is_object)
                                    })
                                    .map(|k| format!("{bp}/{k}/{}", walk::escape(trigger)))
                            });
                            let with = match own {
                                Some(p) => {
                                    let mut c = b.clone();
                                    c.ptrs.push(p);
                                    c
                                }
                                None => b.clone(),
                            };
                            let r = self.incl(&with, &wanted, path);
                            self.go_on(r)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The keys neither side names, under one part of `A` (its pattern properties and its schema
    /// for other keys) and one part of `B` (`None`: no constraint of `B`'s).
    fn other_keys_within(
        &mut self,
        b_part: Option<(String, &Map<String, Value>)>,
        aptr: &str,
        a_patterns: &[&String],
        a_other: Option<&str>,
        path: &mut Vec<Seg>,
    ) -> Proved {
        let (b_patterns, b_other): (Vec<String>, Option<String>) = match &b_part {
            Some((bptr, bmap)) => {
                let other = match other_keys(bptr, bmap) {
                    Other::At(p) => Some(p),
                    // A looser `B`: any value.
                    Other::Free | Other::Unknown => None,
                };
                (
                    bmap.get("patternProperties")
                        .and_then(Value::as_object)
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default(),
                    other,
                )
            }
            None => (Vec::new(), None),
        };
        let bptr = b_part.as_ref().map(|(p, _)| p.clone()).unwrap_or_default();
        let b_pattern =
            |q: &str| Conj::one(format!("{bptr}/patternProperties/{}", walk::escape(q)));
        let b_rest = || Conj::of(b_other.iter().cloned().collect());
        for p in a_patterns {
            let wanted = Conj::one(format!("{aptr}/patternProperties/{}", walk::escape(p)));
            path.push(Seg::Matching((*p).clone()));
            let r = if b_patterns.iter().any(|q| q == *p) {
                self.incl(&b_pattern(p), &wanted, path)
            } else {
                let mut r = self.incl(&b_rest(), &wanted, path);
                for q in &b_patterns {
                    if r.is_ok() {
                        r = self.incl(&b_pattern(q), &wanted, path);
                    }
                }
                r
            };
            path.pop();
            self.go_on(r)?;
        }
        if let Some(a_other) = a_other {
            let wanted = Conj::one(a_other.to_owned());
            path.push(Seg::OtherKey);
            let mut r = self.incl(&b_rest(), &wanted, path);
            path.pop();
            for q in b_patterns
                .iter()
                .filter(|q| !a_patterns.iter().any(|p| p == q))
            {
                if r.is_ok() {
                    path.push(Seg::Matching(q.clone()));
                    r = self.incl(&b_pattern(q), &wanted, path);
                    path.pop();
                }
            }
            r?;
        }
        Ok(())
    }

    /// The subschemas a property `name` meets in each part: its declared schema, the pattern
    /// properties it matches, else the part's schema for other keys. `None` when a pattern cannot
    /// be matched here: on `B`'s side the part then contributes nothing (a looser `B`); on `A`'s
    /// side the proof stops.
    fn key_schemas(&mut self, flat: &Flat<'a>, name: &str, loose: bool) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for (ptr, map) in &flat.parts {
            let mut matched = false;
            if map.get("properties").and_then(|p| p.get(name)).is_some() {
                out.push(format!("{ptr}/properties/{}", walk::escape(name)));
                matched = true;
            }
            let mut unknown = false;
            for q in map
                .get("patternProperties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|m| m.keys())
            {
                match self.matches(q, name) {
                    Some(true) => {
                        out.push(format!("{ptr}/patternProperties/{}", walk::escape(q)));
                        matched = true;
                    }
                    Some(false) => {}
                    None => unknown = true,
                }
            }
            if unknown {
                if loose {
                    continue;
                }
                return None;
            }
            if !matched {
                match other_keys(ptr, map) {
                    Other::At(other) => out.push(other),
                    Other::Free => {}
                    Other::Unknown if loose => {}
                    Other::Unknown => return None,
                }
            }
        }
        Some(out)
    }

    /// Whether the ECMA-262 `pattern` matches `name`, as the validator reads it.
    fn matches(&mut self, pattern: &str, name: &str) -> Option<bool> {
        let validator = self
            .patterns
            .entry(pattern.to_owned())
            .or_insert_with(|| {
                jsonschema::draft202012::new(&serde_json::json!({ "pattern": pattern })).ok()
            })
            .as_ref()?;
        Some(validator.is_valid(&Value::from(name)))
    }

    /// Whether `B` requires a key it forbids: no object meets it.
    fn requires_the_impossible(&mut self, fb: &Flat<'a>) -> bool {
        let required: Vec<String> = fb.all("required").flat_map(|(_, v)| v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned)).collect();
        required.iter().any(|name| self.b_lacks(fb, name))
    }

    /// Whether `B` never has the key `name` (its schema there is `false`).
    fn b_lacks(&mut self, fb: &Flat<'a>, name: &str) -> bool {
        self.key_schemas(fb, name, true).is_some_and(|s| {
            let f = flatten(self.b, &Conj::of(s));
            f.empty || self.b_types(&f, Types::ALL).is_empty()
        })
    }

    /// The only names `B` admits, when a part closes it (`additionalProperties: false` with no
    /// pattern properties): its declared names that `B` does not forbid.
    fn closed_names(&mut self, fb: &Flat<'a>, names: &[&str]) -> Option<Vec<String>> {
        let closing = fb.parts.iter().find(|(_, m)| {
            let closed = m.get("additionalProperties") == Some(&Value::Bool(false))
                || (!m.contains_key("additionalProperties")
                    && !in_place_applicators(m)
                    && m.get("unevaluatedProperties") == Some(&Value::Bool(false)));
            closed
                && m.get("patternProperties")
                    .and_then(Value::as_object)
                    .is_none_or(Map::is_empty)
        })?;
        let declared: Vec<String> = closing
            .1
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let _ = names;
        Some(
            declared
                .into_iter()
                .filter(|n| !self.b_lacks(fb, n))
                .collect(),
        )
    }

    /// Whether no instance is accepted by both `x` (in `B`'s document) and `y` (in `A`'s): a
    /// sufficient test, never a guess.
    fn disjoint(&mut self, x: &Conj, y: &Conj) -> bool {
        self.steps += 1;
        let fx = flatten(self.b, x);
        let fy = flatten(self.a, y);
        if fx.empty || fy.empty || x.types.is_empty() {
            return true;
        }
        let tx = self.b_types(&fx, x.types);
        let mut ty = Types::ALL;
        for (_, v) in fy.all("type") {
            ty = ty.and(Types::of_keyword(v).unwrap_or(Types::ALL));
        }
        if let Some(values) = values_of(&fy) {
            ty = ty.and(
                values
                    .iter()
                    .fold(Types::NONE, |acc, v| acc.or(Types::of_value(v))),
            );
        }
        if !tx.intersects(ty) {
            return true;
        }
        if let Some(values) = values_of(&fx) {
            let rejected = |v: &Value| {
                !tx.admits(v)
                    || fy
                        .parts
                        .iter()
                        .any(|(p, _)| self.a.accepts(p, v) == Some(false))
                    || fx
                        .parts
                        .iter()
                        .any(|(p, _)| self.b.accepts(p, v) == Some(false))
            };
            if values.iter().all(rejected) {
                return true;
            }
        }
        if let Some(values) = values_of(&fy) {
            let rejected = |v: &Value| {
                !tx.admits(v)
                    || fx
                        .parts
                        .iter()
                        .any(|(p, _)| self.b.accepts(p, v) == Some(false))
                    || fy
                        .parts
                        .iter()
                        .any(|(p, _)| self.a.accepts(p, v) == Some(false))
            };
            if values.iter().all(rejected) {
                return true;
            }
        }
        // A union on either side: every branch disjoint.
        for (ptr, map) in &fx.parts {
            for keyword in ["anyOf", "oneOf"] {
                if x.expanded.contains(&(ptr.clone(), keyword)) {
                    continue;
                }
                if let Some(Value::Array(branches)) = map.get(keyword) {
                    let x2 = |i: usize| x.split(ptr, keyword, [format!("{ptr}/{keyword}/{i}")]);
                    if (0..branches.len()).all(|i| self.disjoint(&x2(i), y)) {
                        return true;
                    }
                }
            }
        }
        // Objects told apart by a required key: its values disjoint, or the other side forbids it.
        if tx.and(ty).is_subset_of(Types::OBJECT) {
            let required = |f: &Flat<'a>| -> Vec<String> {
                f.all("required")
                    .flat_map(|(_, v)| {
                        v.as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                    })
                    .collect()
            };
            for name in required(&fx) {
                let (Some(xs), Some(ys)) = (
                    self.key_schemas(&fx, &name, true),
                    self.key_schemas(&fy, &name, false),
                ) else {
                    continue;
                };
                let (fxs, fys) = (
                    flatten(self.b, &Conj::of(xs)),
                    flatten(self.a, &Conj::of(ys)),
                );
                if fys.empty {
                    return true;
                }
                if let (Some(vx), Some(vy)) = (values_of(&fxs), values_of(&fys))
                    && !vx.iter().any(|v| vy.iter().any(|w| json_eq(v, w)))
                {
                    return true;
                }
            }
            for name in required(&fy) {
                let (Some(xs), Some(ys)) = (
                    self.key_schemas(&fx, &name, true),
                    self.key_schemas(&fy, &name, false),
                ) else {
                    continue;
                };
                let (fxs, fys) = (
                    flatten(self.b, &Conj::of(xs)),
                    flatten(self.a, &Conj::of(ys)),
                );
                if fxs.empty {
                    return true;
                }
                if let (Some(vx), Some(vy)) = (values_of(&fxs), values_of(&fys))
                    && !vx.iter().any(|v| vy.iter().any(|w| json_eq(v, w)))
                {
                    return true;
                }
            }
        }
        false
    }
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

/// A part's schema for the keys it neither declares nor matches by pattern.
enum Other {
    /// None: any value.
    Free,
    /// Its `additionalProperties`, or an `unevaluatedProperties` that sees only its own keywords.
    At(String),
    /// An `unevaluatedProperties` beside in-place applicators, which depends on more.
    Unknown,
}

fn other_keys(ptr: &str, map: &Map<String, Value>) -> Other {
    if map.contains_key("additionalProperties") {
        return Other::At(format!("{ptr}/additionalProperties"));
    }
    if map.contains_key("unevaluatedProperties") {
        return if in_place_applicators(map) {
            Other::Unknown
        } else {
            Other::At(format!("{ptr}/unevaluatedProperties"))
        };
    }
    Other::Free
}

/// Whether a part's `unevaluatedItems` sees only its own `prefixItems` (no `items`, no
/// `contains`, no in-place applicators): it is then the schema of the items after the prefix.
fn simple_items(map: &Map<String, Value>) -> bool {
    !in_place_applicators(map) && !map.contains_key("contains")
}

/// The subschemas the item at `index` meets in each part (the last index stands for every later
/// one). On `B`'s side (`loose`), an `unevaluatedItems` that depends on more is left out.
fn item_schemas(flat: &Flat<'_>, index: usize, loose: bool) -> Vec<String> {
    let mut out = Vec::new();
    for (ptr, map) in &flat.parts {
        let prefix = map
            .get("prefixItems")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if index < prefix {
            out.push(format!("{ptr}/prefixItems/{index}"));
        } else if map.contains_key("items") {
            out.push(format!("{ptr}/items"));
        } else if map.contains_key("unevaluatedItems") && (simple_items(map) || !loose) {
            out.push(format!("{ptr}/unevaluatedItems"));
        }
    }
    out
}

/// The values a conjunction is limited to by `const` and `enum`, if it is.
fn values_of(flat: &Flat<'_>) -> Option<Vec<Value>> {
    let mut out: Option<Vec<Value>> = None;
    for (_, map) in &flat.parts {
        let mut here: Option<Vec<Value>> = None;
        if let Some(c) = map.get("const") {
            here = Some(vec![c.clone()]);
        }
        if let Some(Value::Array(e)) = map.get("enum") {
            here = Some(match here {
                Some(h) => h
                    .into_iter()
                    .filter(|v| e.iter().any(|w| json_eq(v, w)))
                    .collect(),
                None => e.clone(),
            });
        }
        if let Some(h) = here {
            out = Some(match out {
                Some(o) => o
                    .into_iter()
                    .filter(|v| h.iter().any(|w| json_eq(v, w)))
                    .collect(),
                None => h,
            });
        }
    }
    out
}

enum ADisjunction {
    AnyOf(String, usize),
    OneOf(String, usize),
    If(String),
    Not(String),
}

/// `B`'s first disjunction not yet split: the node, the keyword, and each branch's conjuncts. A
/// `oneOf` is read as `anyOf` and an `if` as `(if ∧ then) ∨ else` (looser: a sound reading of
/// `B`).
type Branches = Vec<Vec<String>>;

fn b_disjunction(
    flat: &Flat<'_>,
    expanded: &BTreeSet<(String, &'static str)>,
) -> Option<(String, &'static str, Branches)> {
    for (ptr, map) in &flat.parts {
        for keyword in ["anyOf", "oneOf"] {
            if expanded.contains(&(ptr.clone(), keyword)) {
                continue;
            }
            if let Some(Value::Array(branches)) = map.get(keyword)
                && !branches.is_empty()
            {
                return Some((
                    ptr.clone(),
                    keyword,
                    (0..branches.len())
                        .map(|i| vec![format!("{ptr}/{keyword}/{i}")])
                        .collect(),
                ));
            }
        }
        if !expanded.contains(&(ptr.clone(), "if")) && map.contains_key("if") {
            let mut then = vec![format!("{ptr}/if")];
            if map.contains_key("then") {
                then.push(format!("{ptr}/then"));
            }
            let otherwise: Vec<String> = map
                .contains_key("else")
                .then(|| format!("{ptr}/else"))
                .into_iter()
                .collect();
            return Some((ptr.clone(), "if", vec![then, otherwise]));
        }
    }
    None
}

fn a_disjunction(
    flat: &Flat<'_>,
    expanded: &BTreeSet<(String, &'static str)>,
) -> Option<ADisjunction> {
    for (ptr, map) in &flat.parts {
        let open = |k: &'static str| !expanded.contains(&(ptr.clone(), k));
        if open("anyOf")
            && let Some(Value::Array(branches)) = map.get("anyOf")
        {
            return Some(ADisjunction::AnyOf(ptr.clone(), branches.len()));
        }
        if open("oneOf")
            && let Some(Value::Array(branches)) = map.get("oneOf")
        {
            return Some(ADisjunction::OneOf(ptr.clone(), branches.len()));
        }
        if open("if") && map.contains_key("if") {
            return Some(ADisjunction::If(ptr.clone()));
        }
        if open("not") && map.contains_key("not") {
            return Some(ADisjunction::Not(ptr.clone()));
        }
    }
    None
}

/// A numeric bound: the value and whether it is exclusive.
#[derive(Clone, Copy)]
struct Bound {
    value: f64,
    exclusive: bool,
}

/// A JSON number as an `f64`, when that is exact (integers beyond 2^53 are not compared).
fn exact(v: &Value) -> Option<f64> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return (i.unsigned_abs() <= 1 << 53).then_some(i as f64);
    }
    if let Some(u) = n.as_u64() {
        return (u <= 1 << 53).then_some(u as f64);
    }
    n.as_f64().filter(|f| f.is_finite())
}

fn bounds(flat: &Flat<'_>, lower: bool) -> Result<Vec<Bound>, String> {
    let (inclusive, exclusive) = if lower {
        ("minimum", "exclusiveMinimum")
    } else {
        ("maximum", "exclusiveMaximum")
    };
    let mut out = Vec::new();
    for (keyword, excl) in [(inclusive, false), (exclusive, true)] {
        for (_, v) in flat.all(keyword) {
            out.push(Bound {
                value: exact(v).ok_or_else(|| keyword.to_owned())?,
                exclusive: excl,
            });
        }
    }
    Ok(out)
}

/// The bound as the least (greatest) integer it admits.
fn integral(b: Bound, lower: bool) -> f64 {
    match (lower, b.exclusive) {
        (true, false) => b.value.ceil(),
        (true, true) => b.value.floor() + 1.0,
        (false, false) => b.value.floor(),
        (false, true) => b.value.ceil() - 1.0,
    }
}

/// Whether the bound `b` of `B` implies the bound `a` of `A`.
fn implies(b: Bound, a: Bound, lower: bool, integers: bool) -> bool {
    if integers {
        let (b, a) = (integral(b, lower), integral(a, lower));
        return if lower { b >= a } else { b <= a };
    }
    let beyond = if lower {
        b.value > a.value
    } else {
        b.value < a.value
    };
    beyond || (b.value == a.value && (!a.exclusive || b.exclusive))
}

fn numbers(fb: &Flat<'_>, fa: &Flat<'_>, integers: bool) -> Result<(), String> {
    for lower in [true, false] {
        let (b, a) = (bounds(fb, lower), bounds(fa, lower)?);
        let b = b.unwrap_or_default();
        for bound in a {
            if !b.iter().any(|own| implies(*own, bound, lower, integers)) {
                return Err((if lower {
                    if bound.exclusive {
                        "exclusiveMinimum"
                    } else {
                        "minimum"
                    }
                } else if bound.exclusive {
                    "exclusiveMaximum"
                } else {
                    "maximum"
                })
                .to_owned());
            }
        }
    }
    // `B`'s integral multiples together: a multiple of their least common multiple.
    let integral = |v: &Value| exact(v).filter(|f| *f > 0.0 && f.fract() == 0.0).map(|f| f as u64);
    let mut common: Option<u64> = None;
    for (_, n) in fb.all("multipleOf") {
        if let Some(n) = integral(n) {
            common = Some(match common {
                None => n,
                Some(c) => {
                    let lcm = c / gcd(c, n) * n;
                    if lcm > 1 << 53 {
                        break;
                    }
                    lcm
                }
            });
        }
    }
    for (_, m) in fa.all("multipleOf") {
        let divides_one = integers
            && exact(m).is_some_and(|m| m > 0.0 && (1.0 / m).fract() == 0.0 && m * (1.0 / m) == 1.0);
        let implied = fb.all("multipleOf").any(|(_, n)| json_eq(n, m))
            || matches!((common, integral(m)), (Some(c), Some(m)) if c % m == 0);
        if !(divides_one || implied) {
            return Err("multipleOf".to_owned());
        }
    }
    Ok(())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn strings(fb: &Flat<'_>, fa: &Flat<'_>, formats: bool) -> Result<(), String> {
    let b_min = fb
        .all("minLength")
        .filter_map(|(_, v)| v.as_u64())
        .max()
        .unwrap_or(0);
    let b_max = fb.all("maxLength").filter_map(|(_, v)| v.as_u64()).min();
    for (_, v) in fa.all("minLength") {
        if v.as_u64().is_none_or(|m| m > b_min) {
            return Err("minLength".to_owned());
        }
    }
    for (_, v) in fa.all("maxLength") {
        if v.as_u64().is_none_or(|m| b_max.is_none_or(|b| b > m)) {
            return Err("maxLength".to_owned());
        }
    }
    for (_, p) in fa.all("pattern") {
        if !fb.all("pattern").any(|(_, q)| q == p) {
            return Err("pattern".to_owned());
        }
    }
    if formats {
        for (_, f) in fa.all("format") {
            if !fb.all("format").any(|(_, g)| g == f) {
                return Err("format".to_owned());
            }
        }
    }
    Ok(())
}
