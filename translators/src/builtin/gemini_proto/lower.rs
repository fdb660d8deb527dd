//! Source to normal form: lowering a source schema into a disjunction of typed branches,
//! following references (unrolled twice, then cut) and conjoining (`allOf`, a `$ref` with
//! siblings, `const` beside `type`) by the pairwise merge, which is exact in this vocabulary.
//!
//! Separate from [`super::emit`] because this half decides what is accepted; writing the proto is
//! a mechanical rendering of its result.

use serde_json::{Map, Value};

use super::normal_form::{ALL_TYPES, Branch, Disj, Ty, any, simplify};
use super::{Build, MAX_BRANCHES, MAX_UNROLL};
use crate::algebra::disjoint::provably_disjoint_here as provably_disjoint;
use crate::algebra::{meet, numbers};
use crate::builtin::gemini_common::{Notes, count, never_refusal, resolve, spill_conditional, too_deep, unevaluated_refusal};
use crate::builtin::never::{Evaluated, Side, asserts_nothing, decided_branch, evaluated, is_never};
use crate::model::Refusal;
use crate::vocabulary::{self, Effect};
use crate::walk;

impl Build<'_> {
    pub(super) fn lower(&mut self, schema: &Value, pointer: &str, frames: &mut Vec<String>, depth: usize) -> Result<Disj, Refusal> {
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
        let mut unsatisfiable = false;
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
                // `not` of a schema asserting nothing rejects everything: no branch is left. `not` of
                // one rejecting everything accepts everything.
                "not" if asserts_nothing(value) => unsatisfiable = true,
                "not" if is_never(value) => {}
                "not" => notes.unenforced(key, value),
                // An `if` asserting nothing is exactly its `then`, one rejecting everything exactly
                // its `else` (without an `if`, `then` and `else` assert nothing). Otherwise all three
                // are spilled, unless a `false` in them can decide a rejection: spilling would
                // accept what it rejects, so that is refused (`then: false`/`else: false` by the scan).
                "if" => match decided_branch(value) {
                    Some(branch) => {
                        if let Some(sub) = map.get(branch) {
                            let lowered = self.lower(sub, &at(branch), frames, depth + 1)?;
                            acc = self.conj(acc, lowered, pointer)?;
                        }
                    }
                    None => spill_conditional(&mut self.searches, &self.doc, map, pointer, &mut notes)?,
                },
                "default" => {
                    for b in &mut acc {
                        b.default = Some(value.clone());
                    }
                }
                // Every other annotation of draft 2020-12 but the two the proto has fields for
                // (read below): moved into `description`, acceptance unchanged.
                k if !matches!(k, "title" | "description") && vocabulary::keyword(k).is_some_and(|k| k.facts.effect == Effect::Annotation) => {
                    notes.annotate(key, value);
                }
                _ => {}
            }
        }
        if unsatisfiable {
            return Ok(Vec::new());
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
                        numbers::integer_inside(bound, lower).unwrap_or_else(|| bound.clone())
                    } else {
                        notes.unenforced(key, bound);
                        bound.clone()
                    };
                    let side = if lower { &mut b.minimum } else { &mut b.maximum };
                    *side = meet::bound(side.as_ref(), Some(&inclusive), lower);
                }
                unenforced(&mut notes, &["multipleOf"]);
            }
            Ty::Array => {
                b.min_items = map.get("minItems").and_then(count);
                b.max_items = map.get("maxItems").and_then(count);
                match map.get("contains") {
                    // `contains: false` leaves no array, exactly; beside `minContains: 0` it asserts nothing.
                    Some(c) if is_never(c) && map.get("minContains").and_then(count) == Some(0) => {}
                    Some(c) if is_never(c) => return Ok(None),
                    Some(c) => self.spill_unless_never("contains", c, pointer, &mut notes)?,
                    None => {}
                }
                unenforced(&mut notes, &["minContains", "maxContains"]);
                match map.get("unevaluatedItems") {
                    // `unevaluatedItems: false`: `maxItems` at the prefix the node evaluates, where that
                    // does not depend on which branch matches.
                    Some(u) if is_never(u) => match evaluated(&self.doc, map, pointer, Side::Items) {
                        None => return Err(unevaluated_refusal("unevaluatedItems", pointer)),
                        Some(Evaluated::Prefix(n)) => {
                            let n = n as u64;
                            b.max_items = Some(b.max_items.map_or(n, |m| m.min(n)));
                        }
                        Some(_) => {}
                    },
                    Some(u) => self.spill_unless_never("unevaluatedItems", u, pointer, &mut notes)?,
                    None => {}
                }
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
                for keyword in ["patternProperties", "propertyNames", "unevaluatedProperties"] {
                    if let Some(value) = map.get(keyword) {
                        self.spill_unless_never(keyword, value, pointer, &mut notes)?;
                    }
                }
                unenforced(&mut notes, &["minProperties", "maxProperties", "dependentRequired"]);
                self.dependent_schemas(&mut b, map, pointer, &mut notes)?;
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

    /// Spill `keyword` into the description, unless its value holds a subschema that rejects
    /// everything: spilling would accept what it rejects (an inversion), so that is refused.
    fn spill_unless_never(&mut self, keyword: &str, value: &Value, pointer: &str, notes: &mut Notes) -> Result<(), Refusal> {
        if let Some(inside) = self.searches.keyword(&self.doc, keyword, value, &format!("{pointer}/{}", walk::escape(keyword))) {
            return Err(never_refusal(keyword, pointer, &inside));
        }
        notes.unenforced(keyword, value);
        Ok(())
    }

    /// `dependentSchemas` and draft-07 `dependencies` of an `OBJECT` branch. An entry rejecting
    /// everything forbids its property, exactly: the property gets the schema that accepts nothing
    /// (a declared property constrains its value even in an open proto object). Other schema
    /// entries, and the lists of `dependencies`, are spilled, unless they hold a `false` (refused,
    /// as [`Build::spill_unless_never`]): writing "absent or S" needs a union of objects, which the
    /// root may not be.
    fn dependent_schemas(&mut self, b: &mut Branch, map: &Map<String, Value>, pointer: &str, notes: &mut Notes) -> Result<(), Refusal> {
        for keyword in ["dependentSchemas", "dependencies"] {
            let Some(value) = map.get(keyword) else { continue };
            let Some(entries) = value.as_object() else {
                notes.unenforced(keyword, value);
                continue;
            };
            let mut spilled = Map::new();
            for (name, entry) in entries {
                if is_never(entry) {
                    match b.properties.iter_mut().find(|(n, _)| n == name) {
                        Some((_, schema)) => *schema = Vec::new(),
                        None => b.properties.push((name.clone(), Vec::new())),
                    }
                    continue;
                }
                let at = format!("{pointer}/{keyword}/{}", walk::escape(name));
                if let Some(inside) = self.searches.schema(&self.doc, entry, &at) {
                    return Err(never_refusal(keyword, pointer, &inside));
                }
                spilled.insert(name.clone(), entry.clone());
            }
            if !spilled.is_empty() {
                notes.unenforced(keyword, &Value::Object(spilled));
            }
        }
        Ok(())
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

    /// `x ∧ y` as one branch, or `None` when nothing satisfies both: the proto's fields walked
    /// one by one, each combined by the shared rule of its keyword ([`meet`]); subschemas
    /// (`items`, a property both declare) by [`Build::conj`]. The proto has no
    /// `additionalProperties`, so a property declared on one side only is not constrained by the
    /// other (unlike [`crate::algebra::conj`], which must read it against the other side's).
    fn merge(&mut self, x: &Branch, y: &Branch, pointer: &str) -> Result<Option<Branch>, Refusal> {
        self.count(pointer)?;
        let Some(ty) = x.ty.meet(y.ty) else { return Ok(None) };
        let strings = meet::members(x.strings.as_deref(), y.strings.as_deref(), String::eq);
        if strings.as_ref().is_some_and(Vec::is_empty) {
            return Ok(None);
        }
        let minimum = meet::bound(x.minimum.as_ref(), y.minimum.as_ref(), true);
        let maximum = meet::bound(x.maximum.as_ref(), y.maximum.as_ref(), false);
        if meet::empty_range(minimum.as_ref(), maximum.as_ref(), ty == Ty::Integer) {
            return Ok(None);
        }
        let items = match (&x.items, &y.items) {
            (Some(a), Some(b)) => Some(self.conj(a.clone(), b.clone(), pointer)?),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let min_items = meet::count(x.min_items, y.min_items, true);
        // Items nothing satisfies leave only the empty array.
        let max_items = if items.as_ref().is_some_and(Vec::is_empty) { Some(0) } else { meet::count(x.max_items, y.max_items, false) };
        if meet::empty_count(min_items, max_items) {
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
        let required = meet::names(&x.required, &y.required);
        if required.iter().any(|r| properties.iter().any(|(n, d)| n == r && d.is_empty())) {
            return Ok(None);
        }
        Ok(Some(Branch {
            ty,
            strings,
            // `format: date-time` on either side: one side's format, kept (the same value twice).
            date_time: x.date_time || y.date_time,
            minimum,
            maximum,
            items,
            min_items,
            max_items,
            properties,
            required,
            title: meet::annotation(x.title.as_ref(), y.title.as_ref()),
            notes: meet::names(&x.notes, &y.notes),
            default: meet::annotation(x.default.as_ref(), y.default.as_ref()),
        }))
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
