//! `gemini-proto`: the legacy Gemini/Vertex `FunctionDeclaration.parameters`, a proto `Schema`
//! message (used by Vertex, Antigravity and Cloud Code Assist).
//!
//! The proto (googleapis `google/ai/generativelanguage/v1beta/content.proto` @c76b7407) knows
//! `type` (an upper-case enum, required), `format`, `title`, `description`, `nullable`, `enum`
//! (strings only), `items` (required for `ARRAY`), `minItems`/`maxItems` (int64, sent as strings),
//! `properties`, `required`, `minimum`/`maximum`, `anyOf` (which Vertex wants alone on its node),
//! `propertyOrdering` and `default`. No references, no `allOf`, no closed objects, no tuples.
//!
//! So the translator does not map keyword by keyword; it computes a **normal form**: a
//! disjunction of typed branches, one per JSON type a node admits, each holding only what the
//! proto can say about that type. A conjunction (`allOf`, a `$ref` with siblings, `const` beside
//! `type`, ...) is the pairwise merge of two disjunctions, which is exact in this vocabulary
//! (types intersect, bounds tighten, enums intersect, properties merge, `required` unites). The
//! normal form is then written out: one branch is a typed `Schema`; several are an `anyOf` alone
//! on its node, a `null` branch folded into `nullable` on another branch.
//!
//! - **Type unions** become `anyOf` of typed branches (or `T` + `nullable`), never their first
//!   member (opencode #1556).
//! - **Non-string `const`/`enum`** values are never stringified: a number is pinned by
//!   `minimum = maximum`, `null` is `NULL`, exactly; booleans, objects and arrays have no exact
//!   proto form and widen, named (opencode #1557).
//! - **`false`** becomes an unsatisfiable `NUMBER` (`minimum: 1, maximum: 0`), never `{}` (#1573).
//! - **`prefixItems`** widens to `items: {anyOf: [positions..]}` with `maxItems` for a closed tuple;
//!   never dropped while `items` still applies to position 0 (#1574).
//! - **References** are inlined; a cycle is unrolled twice and then cut to the unsatisfiable
//!   schema at every place it loops, mutual recursion included (#1585): a named narrowing.
//! - **Arrays without `items`** (and every value left unconstrained, `true` included) get the
//!   widest finite proto form: an `anyOf` of every type whose arrays nest at most [`ANY_NESTING`]
//!   levels deep. The proto requires `items` on `ARRAY` (#1548) and `type` on every schema, so "any value"
//!   has no exact form; deeper arrays are rejected (a narrowing).
//! - **Roots** must be `type: "object"` and stay one `OBJECT` (Vertex rejects anything else); a
//!   root that is not is refused, never forced (#1667). A root union of objects (`anyOf`/`oneOf`/
//!   `allOf` on the root) is merged into one `OBJECT`, a named widening; a `$ref` on the root is
//!   refused.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::gemini_common::{MAX_NODES, Notes, URI_REFUSAL, count, document, resolve, scan, too_deep, too_large, whole};
use crate::algebra::disjoint::provably_disjoint_here as provably_disjoint;
use crate::algebra::numbers;
use crate::algebra::types::Types;
use crate::refs::Resolver;
use crate::codec::Codec;
use crate::form::Form;
use crate::model::{Dialect, Outcome, Projection, Refusal, Translator};
use crate::walk::{self, Occurrence};

/// Gemini/Vertex proto `parameters`.
#[derive(Debug, Default, Clone, Copy)]
pub struct GeminiProto;

impl Translator for GeminiProto {
    fn name(&self) -> &str {
        "gemini-proto"
    }

    fn translate(&self, source: &Value) -> Outcome {
        let refused = |o: &Occurrence<'_>| match o.keyword {
            "$ref" if o.at_root => Some("a `$ref` on the root may name a union or a recursion, and the proto root must be one OBJECT schema"),
            "$ref" if Form::of(o.keyword, o.value) == Form::Uri => Some(URI_REFUSAL),
            "$dynamicRef" => Some("`$dynamicRef` resolves by dynamic scope; the proto has no references at all"),
            _ => None,
        };
        if let Err(refusal) = scan(source, refused) {
            return Outcome::Refused(refusal);
        }
        let doc = match document(source) {
            Ok(doc) => doc,
            Err(refusal) => return Outcome::Refused(refusal),
        };
        let mut build = Build { doc, nodes: 0 };
        let projected = build.lower(source, "", &mut Vec::new(), 0).and_then(|root| build.emit_root(root));
        match projected {
            Ok(schema) => Outcome::Projected(Projection { schema, dialect: Dialect::GeminiProto, codec: Codec::Identity, strict: None }),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// How deep arrays may nest (counting the outermost) where the source leaves items unconstrained.
const ANY_NESTING: usize = 3;

/// How often a reference cycle is unrolled before it is cut.
const MAX_UNROLL: usize = 2;

/// The largest count written to `minItems`/`maxItems` (int64 decimal strings, which the grammar
/// reads as at most 18 digits). A bound above it is written as it: no array has 10^18 items, so
/// both accept the same instances (a source `minItems: 18446744073709551615`, beyond int64, was
/// written as is and broke the proto).
const MAX_COUNT: u64 = 999_999_999_999_999_999;

/// The most branches one disjunction may hold before the projection is refused as too large.
const MAX_BRANCHES: usize = 256;

/// A proto `Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    String,
    Number,
    Integer,
    Boolean,
    Array,
    Object,
    Null,
}

impl Ty {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "string" => Self::String,
            "number" => Self::Number,
            "integer" => Self::Integer,
            "boolean" => Self::Boolean,
            "array" => Self::Array,
            "object" => Self::Object,
            "null" => Self::Null,
            _ => return None,
        })
    }

    /// The shared type set of this proto type.
    fn types(self) -> Types {
        match self {
            Self::String => Types::STRING,
            Self::Number => Types::NUMBER,
            Self::Integer => Types::INTEGER,
            Self::Boolean => Types::BOOLEAN,
            Self::Array => Types::ARRAY,
            Self::Object => Types::OBJECT,
            Self::Null => Types::NULL,
        }
    }

    fn proto(self) -> &'static str {
        match self {
            Self::String => "STRING",
            Self::Number => "NUMBER",
            Self::Integer => "INTEGER",
            Self::Boolean => "BOOLEAN",
            Self::Array => "ARRAY",
            Self::Object => "OBJECT",
            Self::Null => "NULL",
        }
    }

    /// The type of instances both `self` and `other` admit (`integer` is a `number`), by the
    /// shared type set.
    fn meet(self, other: Self) -> Option<Self> {
        Self::parse(self.types().and(other.types()).single()?)
    }
}

/// Every JSON type (`integer` is inside `number`).
const ALL_TYPES: [Ty; 6] = [Ty::String, Ty::Number, Ty::Boolean, Ty::Array, Ty::Object, Ty::Null];

/// One typed branch of the normal form: what the proto can say about one JSON type.
#[derive(Debug, Clone, PartialEq)]
struct Branch {
    ty: Ty,
    /// Allowed strings (`None`: any).
    strings: Option<Vec<String>>,
    date_time: bool,
    minimum: Option<Value>,
    maximum: Option<Value>,
    /// Every item's schema (`None`: unconstrained).
    items: Option<Disj>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    properties: Vec<(String, Disj)>,
    required: Vec<String>,
    title: Option<String>,
    /// Description paragraphs.
    notes: Vec<String>,
    default: Option<Value>,
}

/// A disjunction of branches; empty accepts nothing.
type Disj = Vec<Branch>;

impl Branch {
    fn new(ty: Ty) -> Self {
        Self {
            ty,
            strings: None,
            date_time: false,
            minimum: None,
            maximum: None,
            items: None,
            min_items: None,
            max_items: None,
            properties: Vec::new(),
            required: Vec::new(),
            title: None,
            notes: Vec::new(),
            default: None,
        }
    }

    fn note(&mut self, paragraph: String) {
        if !self.notes.contains(&paragraph) {
            self.notes.push(paragraph);
        }
    }
}

/// Every value, in normal form.
fn any() -> Disj {
    ALL_TYPES.iter().map(|t| Branch::new(*t)).collect()
}

fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}

/// The tighter of two bounds: the larger lower bound (`lower`) or the smaller upper bound.
fn tighter(a: Option<Value>, b: Option<Value>, lower: bool) -> Option<Value> {
    match (a, b) {
        (Some(x), Some(y)) => Some(numbers::tighter(&x, &y, lower).clone()),
        (x, y) => x.or(y),
    }
}

/// Whether a numeric branch admits no number.
fn empty_range(ty: Ty, minimum: Option<&Value>, maximum: Option<&Value>) -> bool {
    let (Some(lo), Some(hi)) = (minimum.map(number), maximum.map(number)) else { return false };
    if ty == Ty::Integer { lo.ceil() > hi.floor() } else { lo > hi }
}

/// Whether two STRING branches differ at most in their `enum`.
fn same_but_strings(a: &Branch, b: &Branch) -> bool {
    a.ty == Ty::String
        && b.ty == Ty::String
        && a.date_time == b.date_time
        && a.title == b.title
        && a.notes == b.notes
        && a.default == b.default
        && a.strings.is_some() == b.strings.is_some()
}

/// What `same_but_strings` compares of a STRING branch, but its `default`: `date_time`, `title`,
/// `notes` and whether it has an `enum`.
type StringClass = (bool, Option<String>, Vec<String>, bool);

/// Drop duplicate branches and unite string branches that differ only in their `enum`.
///
/// An `enum` of n values arrives here as n branches, so nothing is searched pairwise: branches
/// are bucketed by a key their equality implies, and the strings of a united branch are kept in a
/// set beside it (a pairwise search took minutes on an enum of 100,000 values).
fn simplify(branches: Disj) -> Disj {
    let mut out: Disj = Vec::with_capacity(branches.len());
    // STRING branches: each class of `same_but_strings` has at most one branch in `out` (a later
    // one unites into it), found by its key; an exact duplicate of it unites to no change.
    let mut classes: HashMap<StringClass, Vec<usize>> = HashMap::new();
    let mut united: HashMap<usize, HashSet<String>> = HashMap::new();
    // Other branches: exact duplicates, bucketed by the fields equality compares most cheaply.
    let mut buckets: HashMap<String, Vec<usize>> = HashMap::new();
    for b in branches {
        if b.ty == Ty::String {
            let key = (b.date_time, b.title.clone(), b.notes.clone(), b.strings.is_some());
            let class = classes.entry(key).or_default();
            if let Some(&i) = class.iter().find(|&&i| same_but_strings(&out[i], &b)) {
                if let (Some(existing), Some(added)) = (out[i].strings.as_mut(), b.strings) {
                    let set = united.entry(i).or_insert_with(|| existing.iter().cloned().collect());
                    // The union: the strings not already there, in their order.
                    let new: Vec<String> = added.into_iter().filter(|s| !set.contains(s)).collect();
                    set.extend(new.iter().cloned());
                    existing.extend(new);
                }
                continue;
            }
            class.push(out.len());
            out.push(b);
            continue;
        }
        let key = format!("{:?}|{:?}|{:?}|{:?}|{:?}|{:?}", b.ty, b.minimum, b.maximum, b.min_items, b.max_items, b.properties.len());
        let bucket = buckets.entry(key).or_default();
        if bucket.iter().any(|&i| out[i] == b) {
            continue;
        }
        bucket.push(out.len());
        out.push(b);
    }
    out
}

/// The proto schema that accepts nothing.
fn never() -> Value {
    json!({"type": "NUMBER", "description": "No value is valid here.", "minimum": 1, "maximum": 0})
}

struct Build<'a> {
    doc: Resolver<'a>,
    nodes: usize,
}

impl Build<'_> {
    fn count(&mut self, pointer: &str) -> Result<(), Refusal> {
        self.nodes += 1;
        if self.nodes > MAX_NODES { Err(too_large(pointer)) } else { Ok(()) }
    }

    // ---- source to normal form -----------------------------------------------------------------

    fn lower(&mut self, schema: &Value, pointer: &str, frames: &mut Vec<String>, depth: usize) -> Result<Disj, Refusal> {
        if depth > walk::MAX_DEPTH {
            return Err(too_deep(pointer));
        }
        self.count(pointer)?;
        // Every node on the path is a frame, so a reference back to an ancestor counts as a loop
        // from its first visit.
        frames.push(pointer.to_owned());
        let lowered = match schema {
            Value::Bool(true) => Ok(any()),
            Value::Object(map) => self.lower_object(map, pointer, frames, depth),
            _ => Ok(Vec::new()),
        };
        frames.pop();
        lowered
    }

    fn lower_object(&mut self, map: &Map<String, Value>, pointer: &str, frames: &mut Vec<String>, depth: usize) -> Result<Disj, Refusal> {
        let at = |keyword: &str| format!("{pointer}/{}", walk::escape(keyword));
        let mut types: Vec<Ty> = match map.get("type") {
            Some(Value::String(t)) => Ty::parse(t).into_iter().collect(),
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter_map(Ty::parse).collect(),
            _ => ALL_TYPES.to_vec(),
        };
        if types.contains(&Ty::Number) {
            types.retain(|t| *t != Ty::Integer);
        }
        types.dedup();
        let mut acc = Vec::new();
        for ty in types {
            acc.extend(self.typed(ty, map, pointer, frames, depth)?);
        }

        let mut notes = Notes::default();
        for (key, value) in map {
            match key.as_str() {
                "$ref" => {
                    let target = self.reference(pointer, value.as_str().unwrap_or_default(), frames, depth)?;
                    acc = self.conj(acc, target, pointer)?;
                }
                "allOf" => {
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        if sub != &Value::Bool(true) {
                            let branch = self.lower(sub, &format!("{}/{i}", at(key)), frames, depth + 1)?;
                            acc = self.conj(acc, branch, pointer)?;
                        }
                    }
                }
                "anyOf" | "oneOf" => {
                    let branches = value.as_array().map(Vec::as_slice).unwrap_or_default();
                    let mut union = Vec::new();
                    for (i, sub) in branches.iter().enumerate() {
                        union.extend(self.lower(sub, &format!("{}/{i}", at(key)), frames, depth + 1)?);
                    }
                    if key == "oneOf" && !provably_disjoint(branches) {
                        notes.unenforced.push("exactly one of the alternatives (the source says `oneOf`)".to_owned());
                    }
                    acc = self.conj(acc, simplify(union), pointer)?;
                }
                "const" => {
                    if !exact_value(value) {
                        notes.unenforced(key, value);
                    }
                    let pinned = pin(value, pointer, 0)?;
                    acc = self.conj(acc, pinned, pointer)?;
                }
                "enum" => {
                    let values = value.as_array().map(Vec::as_slice).unwrap_or_default();
                    if !values.iter().all(exact_value) {
                        notes.unenforced(key, value);
                    }
                    let mut union = Vec::new();
                    for v in values {
                        union.extend(pin(v, pointer, 0)?);
                    }
                    acc = self.conj(acc, simplify(union), pointer)?;
                }
                "not" | "if" | "then" | "else" => notes.unenforced(key, value),
                "default" => {
                    for b in &mut acc {
                        b.default = Some(value.clone());
                    }
                }
                "examples" | "deprecated" | "readOnly" | "writeOnly" | "contentEncoding" | "contentMediaType" | "contentSchema" => {
                    notes.annotate(key, value);
                }
                _ => {}
            }
        }
        let own = map.get("description").and_then(Value::as_str);
        let title = map.get("title").and_then(Value::as_str);
        if let Some(text) = notes.describe(own) {
            for b in &mut acc {
                if !b.notes.contains(&text) {
                    b.notes.insert(0, text.clone());
                }
            }
        }
        if let Some(title) = title {
            for b in &mut acc {
                b.title.get_or_insert_with(|| title.to_owned());
            }
        }
        Ok(acc)
    }

    /// The branch of type `ty` carrying the node's keywords that apply to that type, or `None` when
    /// they leave no value of that type.
    #[allow(clippy::too_many_lines)] // one arm per type
    fn typed(&mut self, ty: Ty, map: &Map<String, Value>, pointer: &str, frames: &mut Vec<String>, depth: usize) -> Result<Option<Branch>, Refusal> {
        let at = |keyword: &str| format!("{pointer}/{}", walk::escape(keyword));
        let mut b = Branch::new(ty);
        let mut notes = Notes::default();
        let unenforced = |notes: &mut Notes, keys: &[&str]| {
            for k in keys {
                if let Some(v) = map.get(*k) {
                    notes.unenforced(k, v);
                }
            }
        };
        match ty {
            Ty::String => {
                unenforced(&mut notes, &["minLength", "maxLength", "pattern"]);
                match map.get("format") {
                    Some(Value::String(f)) if f == "date-time" => b.date_time = true,
                    Some(f) => notes.unenforced("format", f),
                    None => {}
                }
            }
            Ty::Number | Ty::Integer => {
                b.minimum = map.get("minimum").cloned();
                b.maximum = map.get("maximum").cloned();
                for (key, lower) in [("exclusiveMinimum", true), ("exclusiveMaximum", false)] {
                    let Some(bound) = map.get(key).filter(|v| v.is_number()) else { continue };
                    let inclusive = if ty == Ty::Integer {
                        // The next integer inside an exclusive bound is an exact inclusive bound.
                        let x = number(bound);
                        let next = if lower { x.floor() + 1.0 } else { x.ceil() - 1.0 };
                        whole(next).unwrap_or_else(|| bound.clone())
                    } else {
                        notes.unenforced(key, bound);
                        bound.clone()
                    };
                    if lower {
                        b.minimum = tighter(b.minimum.take(), Some(inclusive), true);
                    } else {
                        b.maximum = tighter(b.maximum.take(), Some(inclusive), false);
                    }
                }
                unenforced(&mut notes, &["multipleOf"]);
            }
            Ty::Array => {
                b.min_items = map.get("minItems").and_then(count);
                b.max_items = map.get("maxItems").and_then(count);
                unenforced(&mut notes, &["contains", "minContains", "maxContains", "unevaluatedItems"]);
                if map.get("uniqueItems") == Some(&Value::Bool(true)) {
                    notes.unenforced("uniqueItems", &Value::Bool(true));
                }
                self.array_items(&mut b, map, &at, &mut notes, frames, depth)?;
            }
            Ty::Object => {
                for (name, sub) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
                    let child = format!("{}/{}", at("properties"), walk::escape(name));
                    let lowered = self.lower(sub, &child, frames, depth + 1)?;
                    b.properties.push((name.clone(), lowered));
                }
                b.required = map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
                match map.get("additionalProperties") {
                    None | Some(Value::Bool(true)) => {}
                    Some(Value::Object(m)) if m.is_empty() => {}
                    Some(v) => notes.unenforced("additionalProperties", v),
                }
                unenforced(
                    &mut notes,
                    &["patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties"],
                );
                if b.required.iter().any(|r| b.properties.iter().any(|(n, d)| n == r && d.is_empty())) {
                    // A required property that can hold no value: no object passes.
                    return Ok(None);
                }
            }
            Ty::Boolean | Ty::Null => {}
        }
        if !notes.is_empty()
            && let Some(text) = notes.describe(None)
        {
            b.note(text);
        }
        Ok(Some(b))
    }

    /// `items`/`prefixItems` of an `ARRAY` branch: the proto has one schema for every item, so a
    /// tuple widens to the union of its positions.
    fn array_items(
        &mut self,
        b: &mut Branch,
        map: &Map<String, Value>,
        at: &dyn Fn(&str) -> String,
        notes: &mut Notes,
        frames: &mut Vec<String>,
        depth: usize,
    ) -> Result<(), Refusal> {
        let prefix = map.get("prefixItems").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // A `false` position closes the tuple there, exactly.
        let open_len = prefix.iter().position(|p| p == &Value::Bool(false));
        if let Some(len) = open_len {
            b.max_items = Some(b.max_items.map_or(len as u64, |m| m.min(len as u64)));
        }
        let prefix = &prefix[..open_len.unwrap_or(prefix.len())];
        let tail = map.get("items");
        if tail == Some(&Value::Bool(false)) {
            let len = prefix.len() as u64;
            b.max_items = Some(b.max_items.map_or(len, |m| m.min(len)));
        }
        if prefix.is_empty() {
            match tail {
                None | Some(Value::Bool(_)) => {}
                Some(sub) => b.items = Some(self.lower(sub, &at("items"), frames, depth + 1)?),
            }
            if b.max_items == Some(0) {
                b.items = Some(Vec::new());
            }
            return Ok(());
        }
        notes.unenforced("prefixItems", &Value::Array(prefix.to_vec()));
        // Positions past the prefix, if any may exist, follow `items` (absent: anything).
        let reachable = b.max_items.is_none_or(|m| m > prefix.len() as u64);
        let mut union = Vec::new();
        for (i, sub) in prefix.iter().enumerate() {
            if b.max_items.is_none_or(|m| (i as u64) < m) {
                union.extend(self.lower(sub, &format!("{}/{i}", at("prefixItems")), frames, depth + 1)?);
            }
        }
        match tail {
            _ if !reachable => {}
            None | Some(Value::Bool(true)) => return Ok(()),
            Some(Value::Bool(false)) => {}
            Some(sub) => union.extend(self.lower(sub, &at("items"), frames, depth + 1)?),
        }
        b.items = Some(simplify(union));
        Ok(())
    }

    fn reference(&mut self, holder: &str, reference: &str, frames: &mut Vec<String>, depth: usize) -> Result<Disj, Refusal> {
        let target = resolve(&self.doc, holder, reference)?;
        if frames.iter().filter(|t| **t == target).count() > MAX_UNROLL {
            // The cycle is cut here: nothing deeper is accepted (a narrowing the table names).
            return Ok(Vec::new());
        }
        let node = self.doc.at(&target).ok_or_else(|| Refusal::new("$ref", holder, "the reference target vanished"))?;
        self.lower(node, &target, frames, depth + 1)
    }

    /// The conjunction of two disjunctions: every compatible pair merged.
    fn conj(&mut self, a: Disj, b: Disj, pointer: &str) -> Result<Disj, Refusal> {
        let branches = a.len().saturating_mul(b.len());
        if branches > MAX_BRANCHES {
            return Err(Refusal::limit(
                "max-branches",
                branches as u64,
                MAX_BRANCHES as u64,
                format!("the conjunction at `{pointer}` would make {branches} branches; the translator writes at most {MAX_BRANCHES}"),
            ));
        }
        let mut out = Vec::new();
        for x in &a {
            for y in &b {
                if let Some(m) = self.merge(x, y, pointer)? {
                    out.push(m);
                }
            }
        }
        Ok(simplify(out))
    }

    fn merge(&mut self, x: &Branch, y: &Branch, pointer: &str) -> Result<Option<Branch>, Refusal> {
        self.count(pointer)?;
        let Some(ty) = x.ty.meet(y.ty) else { return Ok(None) };
        let strings = match (&x.strings, &y.strings) {
            (Some(a), Some(b)) => Some(a.iter().filter(|s| b.contains(s)).cloned().collect::<Vec<_>>()),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        if strings.as_ref().is_some_and(Vec::is_empty) {
            return Ok(None);
        }
        let minimum = tighter(x.minimum.clone(), y.minimum.clone(), true);
        let maximum = tighter(x.maximum.clone(), y.maximum.clone(), false);
        if empty_range(ty, minimum.as_ref(), maximum.as_ref()) {
            return Ok(None);
        }
        let min_items = x.min_items.max(y.min_items);
        let max_items = match (x.max_items, y.max_items) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let items = match (&x.items, &y.items) {
            (Some(a), Some(b)) => Some(self.conj(a.clone(), b.clone(), pointer)?),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let max_items = if items.as_ref().is_some_and(Vec::is_empty) { Some(0) } else { max_items };
        if let (Some(lo), Some(hi)) = (min_items, max_items)
            && lo > hi
        {
            return Ok(None);
        }
        let mut properties = x.properties.clone();
        for (name, schema) in &y.properties {
            if let Some(i) = properties.iter().position(|(n, _)| n == name) {
                let merged = self.conj(properties[i].1.clone(), schema.clone(), pointer)?;
                properties[i].1 = merged;
            } else {
                properties.push((name.clone(), schema.clone()));
            }
        }
        let mut required = x.required.clone();
        required.extend(y.required.iter().filter(|r| !x.required.contains(r)).cloned());
        if required.iter().any(|r| properties.iter().any(|(n, d)| n == r && d.is_empty())) {
            return Ok(None);
        }
        let mut notes = x.notes.clone();
        notes.extend(y.notes.iter().filter(|n| !x.notes.contains(n)).cloned());
        Ok(Some(Branch {
            ty,
            strings,
            date_time: x.date_time || y.date_time,
            minimum,
            maximum,
            items,
            min_items,
            max_items,
            properties,
            required,
            title: x.title.clone().or_else(|| y.title.clone()),
            notes,
            default: x.default.clone().or_else(|| y.default.clone()),
        }))
    }

    // ---- normal form to proto ------------------------------------------------------------------

    fn emit_root(&mut self, root: Disj) -> Result<Value, Refusal> {
        let mut objects: Vec<Branch> = root.into_iter().filter(|b| b.ty == Ty::Object).collect();
        match objects.len() {
            0 => Ok(json!({
                "type": "OBJECT",
                "description": "No arguments are valid: the source schema accepts no object.",
                "properties": {"never": never()},
                "required": ["never"],
            })),
            1 => {
                let only = objects.remove(0);
                self.emit_branch(&only, false, "")
            }
            _ => {
                let merged = widen_objects(&objects);
                self.emit_branch(&merged, false, "")
            }
        }
    }

    fn emit(&mut self, d: &Disj, pointer: &str) -> Result<Value, Refusal> {
        self.count(pointer)?;
        if d.is_empty() {
            return Ok(never());
        }
        let nullable = d.iter().any(|b| b.ty == Ty::Null);
        let others: Vec<&Branch> = d.iter().filter(|b| b.ty != Ty::Null).collect();
        match others.as_slice() {
            [] => self.emit_branch(&d[0], false, pointer),
            [only] => self.emit_branch(only, nullable, pointer),
            many => {
                let mut branches = Vec::new();
                for (i, b) in many.iter().enumerate() {
                    branches.push(self.emit_branch(b, nullable && i == 0, &format!("{pointer}/anyOf/{i}"))?);
                }
                Ok(json!({ "anyOf": branches }))
            }
        }
    }

    fn emit_branch(&mut self, b: &Branch, nullable: bool, pointer: &str) -> Result<Value, Refusal> {
        self.count(pointer)?;
        let mut m = Map::new();
        m.insert("type".to_owned(), Value::from(b.ty.proto()));
        if let Some(title) = &b.title {
            m.insert("title".to_owned(), Value::from(title.clone()));
        }
        let mut notes = b.notes.clone();
        if nullable {
            m.insert("nullable".to_owned(), Value::Bool(true));
        }
        match b.ty {
            Ty::String => match (&b.strings, b.date_time) {
                (Some(strings), date_time) => {
                    m.insert("format".to_owned(), Value::from("enum"));
                    m.insert("enum".to_owned(), json!(strings));
                    if date_time {
                        notes.push("Each value is also a date-time (format: \"date-time\").".to_owned());
                    }
                }
                (None, true) => {
                    m.insert("format".to_owned(), Value::from("date-time"));
                }
                (None, false) => {}
            },
            Ty::Number | Ty::Integer => {
                if let Some(v) = &b.minimum {
                    m.insert("minimum".to_owned(), v.clone());
                }
                if let Some(v) = &b.maximum {
                    m.insert("maximum".to_owned(), v.clone());
                }
            }
            Ty::Array => {
                let items = match &b.items {
                    // This array is the first level of nesting.
                    None => self.emit_any(ANY_NESTING - 1, &format!("{pointer}/items"))?,
                    Some(d) => self.emit(d, &format!("{pointer}/items"))?,
                };
                m.insert("items".to_owned(), items);
                if let Some(n) = b.min_items {
                    m.insert("minItems".to_owned(), Value::from(n.min(MAX_COUNT).to_string()));
                }
                if let Some(n) = b.max_items {
                    m.insert("maxItems".to_owned(), Value::from(n.min(MAX_COUNT).to_string()));
                }
            }
            Ty::Object => {
                let mut properties = Map::new();
                for (name, d) in &b.properties {
                    let child = format!("{pointer}/properties/{}", walk::escape(name));
                    properties.insert(name.clone(), self.emit(d, &child)?);
                }
                for name in &b.required {
                    if !properties.contains_key(name) {
                        // The proto lists only declared properties as required; an undeclared one
                        // may hold any value.
                        let child = format!("{pointer}/properties/{}", walk::escape(name));
                        properties.insert(name.clone(), self.emit_any(ANY_NESTING, &child)?);
                    }
                }
                if !properties.is_empty() {
                    m.insert("properties".to_owned(), Value::Object(properties));
                }
                if !b.required.is_empty() {
                    m.insert("required".to_owned(), json!(b.required));
                }
            }
            Ty::Boolean | Ty::Null => {}
        }
        if !notes.is_empty() {
            m.insert("description".to_owned(), Value::from(notes.join("\n\n")));
        }
        if let Some(default) = &b.default {
            m.insert("default".to_owned(), default.clone());
        }
        Ok(Value::Object(m))
    }

    /// The widest finite proto schema: every type, arrays nesting at most `nesting` levels.
    fn emit_any(&mut self, nesting: usize, pointer: &str) -> Result<Value, Refusal> {
        self.count(pointer)?;
        let mut branches = vec![json!({"type": "STRING", "nullable": true}), json!({"type": "NUMBER"}), json!({"type": "BOOLEAN"}), json!({"type": "OBJECT"})];
        if nesting > 0 {
            let items = self.emit_any(nesting - 1, &format!("{pointer}/anyOf/4/items"))?;
            branches.push(json!({"type": "ARRAY", "items": items}));
        }
        Ok(json!({ "anyOf": branches }))
    }
}

/// Whether the proto pins a `const`/`enum` value exactly: strings (`enum`), numbers
/// (`minimum = maximum`) and `null` (`NULL`). Booleans, objects and arrays widen.
fn exact_value(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Null)
}

/// The normal form accepting `value`: exactly for strings, numbers and null; for booleans any
/// boolean; for objects an open object with those properties; for arrays the right length with
/// every item one of the values.
fn pin(value: &Value, pointer: &str, depth: usize) -> Result<Disj, Refusal> {
    if depth > walk::MAX_DEPTH {
        return Err(too_deep(pointer));
    }
    Ok(match value {
        Value::String(s) => vec![Branch { strings: Some(vec![s.clone()]), ..Branch::new(Ty::String) }],
        Value::Number(_) => vec![Branch { minimum: Some(value.clone()), maximum: Some(value.clone()), ..Branch::new(Ty::Number) }],
        Value::Null => vec![Branch::new(Ty::Null)],
        Value::Bool(_) => vec![Branch::new(Ty::Boolean)],
        Value::Object(map) => {
            let mut b = Branch::new(Ty::Object);
            for (k, v) in map {
                b.properties.push((k.clone(), pin(v, pointer, depth + 1)?));
                b.required.push(k.clone());
            }
            vec![b]
        }
        Value::Array(items) => {
            let mut union = Vec::new();
            for v in items {
                union.extend(pin(v, pointer, depth + 1)?);
            }
            let len = items.len() as u64;
            vec![Branch { items: Some(simplify(union)), min_items: Some(len), max_items: Some(len), ..Branch::new(Ty::Array) }]
        }
    })
}

/// One `OBJECT` accepting every object any of `objects` accepts: a property keeps the union of its
/// schemas (any value where a branch leaves it open), and only what every branch requires stays
/// required. The root must be a single `OBJECT`, so this is the root's named widening.
fn widen_objects(objects: &[Branch]) -> Branch {
    let mut merged = Branch::new(Ty::Object);
    let mut names: Vec<&String> = Vec::new();
    for b in objects {
        for (name, _) in &b.properties {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    for name in names {
        let mut union = Vec::new();
        let mut open = false;
        for b in objects {
            match b.properties.iter().find(|(n, _)| n == name) {
                Some((_, d)) => union.extend(d.iter().cloned()),
                None => open = true,
            }
        }
        merged.properties.push((name.clone(), if open { any() } else { simplify(union) }));
    }
    merged.required = objects[0].required.iter().filter(|r| objects.iter().all(|b| b.required.contains(r))).cloned().collect();
    merged.title = objects.iter().find_map(|b| b.title.clone());
    for b in objects {
        for n in &b.notes {
            merged.note(n.clone());
        }
    }
    merged.note(format!("The arguments take one of {} shapes; they are merged here and the choice between them is not enforced.", objects.len()));
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(source: Value) -> Value {
        match GeminiProto.translate(&source) {
            Outcome::Projected(p) => p.schema,
            Outcome::Refused(r) => panic!("refused: {r}"),
            Outcome::Crashed(c) => panic!("crashed: {c:?}"),
            Outcome::Faulted(f) => panic!("faulted: {f:?}"),
        }
    }

    fn object(property: Value) -> Value {
        json!({"type": "object", "properties": {"p": property}, "required": ["p"]})
    }

    #[test]
    fn type_union_becomes_typed_branches_not_the_first_member() {
        let out = project(object(json!({"type": ["string", "integer", "null"]})));
        assert_eq!(out["properties"]["p"], json!({"anyOf": [{"type": "STRING", "nullable": true}, {"type": "INTEGER"}]}));
    }

    #[test]
    fn string_enums_unite_in_order_and_large_ones_in_linear_time() {
        let out = project(object(json!({"enum": ["b", "a", "b", "c"]})));
        assert_eq!(out["properties"]["p"]["enum"], json!(["b", "a", "c"]));
        // Each value is a branch until united; pairwise that took minutes for 100,000 values.
        let values: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
        let started = std::time::Instant::now();
        let out = project(object(json!({"enum": values})));
        assert_eq!(out["properties"]["p"]["enum"].as_array().map(Vec::len), Some(100_000));
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn counts_beyond_what_the_proto_writes_are_written_as_its_largest() {
        let out = project(object(json!({"type": "array", "items": {"type": "integer"}, "minItems": u64::MAX, "maxItems": u64::MAX})));
        assert_eq!(out["properties"]["p"]["minItems"], json!("999999999999999999"));
        assert_eq!(out["properties"]["p"]["maxItems"], json!("999999999999999999"));
        let out = project(object(json!({"type": "array", "items": {"type": "integer"}, "maxItems": 3})));
        assert_eq!(out["properties"]["p"]["maxItems"], json!("3"));
    }

    #[test]
    fn numeric_const_is_pinned_not_stringified() {
        let out = project(object(json!({"const": 3})));
        assert_eq!(out["properties"]["p"], json!({"type": "NUMBER", "minimum": 3, "maximum": 3}));
    }

    #[test]
    fn false_is_unsatisfiable_never_empty() {
        let out = project(json!({"type": "object", "properties": {"legacy": false}}));
        assert_eq!(out["properties"]["legacy"], never());
    }

    #[test]
    fn closed_tuple_widens_to_a_union_with_max_items() {
        let out = project(object(json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false})));
        let p = &out["properties"]["p"];
        assert_eq!(p["items"]["anyOf"], json!([{"type": "STRING"}, {"type": "INTEGER"}]));
        assert_eq!(p["maxItems"], json!("2"));
    }

    #[test]
    fn array_without_items_gets_items() {
        let out = project(object(json!({"type": "array"})));
        assert!(out["properties"]["p"]["items"]["anyOf"].is_array());
    }

    #[test]
    fn mutual_recursion_is_cut() {
        let out = project(json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
            }
        }));
        assert!(out.to_string().contains("No value is valid here."), "{out}");
    }

    #[test]
    fn all_of_merges_exactly() {
        let out = project(object(json!({"allOf": [{"type": "integer", "minimum": 1}, {"maximum": 5}]})));
        assert_eq!(out["properties"]["p"], json!({"type": "INTEGER", "minimum": 1, "maximum": 5}));
    }

    #[test]
    fn non_object_root_is_refused() {
        assert!(matches!(GeminiProto.translate(&json!({"allOf": [{"type": "string"}]})), Outcome::Refused(r) if r.keyword() == "type"));
    }
}
