//! A bound as one rewrite of the source, following polarity structurally.
//!
//! Every approximated occurrence carries two edits of its node: how to *loosen* it (what the
//! projection may accept beyond the source there) and how to *tighten* it (what it may reject).
//! The **upper** bound of the document accepts at least what every projection the table allows
//! accepts; the **lower** bound accepts at most what each of them accepts. Where an occurrence
//! stands under a keyword that inverts or mixes polarity, the two swap or combine:
//!
//! - `not`: the upper bound of `not S` is `not lower(S)`, and the lower bound `not upper(S)`;
//! - `if`/`then`/`else` with an edit under `if`: `(I and T) or (not I and E)` becomes
//!   `anyOf[allOf[upper I, upper T], allOf[not lower I, upper E]]` for the upper bound and
//!   `anyOf[allOf[lower I, lower T], allOf[not upper I, lower E]]` for the lower one;
//! - `oneOf` with an edit under a branch: the upper bound is `anyOf` of the branches' upper
//!   bounds (a union accepts at least what exactly-one does), and the lower bound is
//!   `anyOf_i allOf[lower b_i, not anyOf_{j != i} upper b_j]`: an instance some branch surely
//!   accepts and no other branch can; so `oneOf` stays `oneOf` in meaning, and an approximation
//!   under it is bounded in both directions it can act;
//! - a `contains` bounded by `maxContains`: at least `minContains` items the (upper / lower) `C`
//!   accepts, and at most `maxContains` that the (lower / upper) `C` accepts.
//!
//! Only nodes at or above an edit are rewritten ("dirty"); a subtree with no edit is copied.
//! References carry polarity too: a `$ref` to a dirty target emitted in the mode the document
//! is not built in points into a second copy of the document, built in that mode, under
//! `$defs` (`sf:other`). That needs every local reference to be a JSON pointer into one resource;
//! where the document embeds resources of its own (`$id` below the root), references keep the
//! polarity of their target's own path (CONTRACT §10).

use std::collections::{BTreeMap, BTreeSet};

use schema_fidelity_translators::refs::Resolver;
use schema_fidelity_translators::vocabulary::{self, ValueKind};
use schema_fidelity_translators::walk;
use serde_json::{Map, Value, json};

pub(super) use super::pins::Provenance;

/// Which bound a subtree is emitted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Mode {
    /// Accepts at least what the projection may accept.
    Upper,
    /// Accepts at most what the projection may accept.
    Lower,
}

impl Mode {
    fn flipped(self) -> Self {
        match self {
            Self::Upper => Self::Lower,
            Self::Lower => Self::Upper,
        }
    }
}

/// What one edit does to its node, in one mode.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Edit {
    /// The keyword asserts nothing any more, its names and positions still claimed: schema maps
    /// and arrays keep their entries as `true` (only `names`, when given), single subschemas
    /// become `true`, `minContains` becomes 0, anything else is removed.
    Loosen { keyword: String, names: Option<Vec<String>> },
    /// `oneOf` read as `anyOf`.
    OneOfAsAnyOf,
    /// The keyword's value becomes this (added when absent).
    Set { keyword: String, value: Value },
    /// The keyword's value becomes this only where the node has none (an implicit `true`).
    SetIfAbsent { keyword: String, value: Value },
    /// Every entry of a schema map or array keyword becomes this (only `names`, when given).
    SetEntries { keyword: String, value: Value, names: Option<Vec<String>> },
    /// `null` leaves the `type` list and the `enum` of the node.
    DropNull,
    /// Every declared property is required.
    RequireAll,
    /// The whole node becomes this value (a cut reference, a bounded any-value).
    Replace(Value),
    /// The node rejects every instance of this JSON type (`None`: every instance): a keyword that
    /// constrains only that type tightened as far as it goes.
    RejectType(Option<&'static str>),
    /// The node also accepts `null` (an optional property made nullable).
    OrNull,
}

/// The edits of one node: those that loosen and those that tighten it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct NodeEdits {
    pub loosen: Vec<Edit>,
    pub tighten: Vec<Edit>,
}

impl NodeEdits {
    fn of(&self, mode: Mode) -> &[Edit] {
        match mode {
            Mode::Upper => &self.loosen,
            Mode::Lower => &self.tighten,
        }
    }
}

/// The key of the second copy of the document, in the other mode, when references need it.
const OTHER: &str = "sf:other";

/// The URI prefix of the values a bound uses in many places (an any-value definition): each is
/// written once, as a resource of its own under the root's `$defs`, and referenced by its URI,
/// which resolves from anywhere in the document.
pub(super) const SHARED: &str = "urn:schema-fidelity:bound:";

/// The definition of the shared value `name` (`objects-emptied`, `nesting-N`), and the shared
/// value it uses in turn.
fn shared_definition(name: &str) -> Option<(Value, Option<String>)> {
    let id = format!("{SHARED}{name}");
    if name == "objects-emptied" {
        let definition = json!({"$id": id, "anyOf": [
            {"not": {"type": ["object", "array"]}},
            {"type": "object", "maxProperties": 0},
            {"type": "array", "items": {"$ref": format!("{SHARED}objects-emptied")}}
        ]});
        return Some((definition, None));
    }
    let levels: u32 = name.strip_prefix("nesting-")?.parse().ok()?;
    if levels == 0 {
        return Some((json!({"$id": id, "not": {"type": "array"}}), None));
    }
    let inner = format!("nesting-{}", levels - 1);
    let definition = json!({"$id": id, "anyOf": [{"not": {"type": "array"}}, {"type": "array", "items": {"$ref": format!("{SHARED}{inner}")}}]});
    Some((definition, Some(inner)))
}

/// The shared values `value` references.
fn shared_uses(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(SHARED)) {
                out.insert(name.to_owned());
            }
            map.values().for_each(|v| shared_uses(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| shared_uses(v, out)),
        _ => {}
    }
}

/// Put the definitions of the shared values the edits use under the document root's `$defs`.
fn with_shared(document: Value, edits: &BTreeMap<String, NodeEdits>) -> Value {
    let mut used = BTreeSet::new();
    for e in edits.values() {
        for edit in e.loosen.iter().chain(&e.tighten) {
            match edit {
                Edit::Set { value, .. } | Edit::SetIfAbsent { value, .. } | Edit::Replace(value) | Edit::SetEntries { value, .. } => shared_uses(value, &mut used),
                _ => {}
            }
        }
    }
    if used.is_empty() {
        return document;
    }
    let mut definitions = Map::new();
    let mut pending: Vec<String> = used.into_iter().collect();
    while let Some(name) = pending.pop() {
        if definitions.contains_key(&format!("sf:{name}")) {
            continue;
        }
        if let Some((definition, next)) = shared_definition(&name) {
            definitions.insert(format!("sf:{name}"), definition);
            pending.extend(next);
        }
    }
    let mut document = match document {
        Value::Object(map) => Value::Object(map),
        // A boolean root: the definitions need an object to hang from.
        other => json!({ "allOf": [other] }),
    };
    if let Value::Object(map) = &mut document {
        let defs = map.entry("$defs").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(defs) = defs {
            defs.extend(definitions);
        }
    }
    document
}

/// The rewrite of `source` by `edits` (keyed by node pointer) as the bound of `mode`, with where
/// the parts it wrote itself come from.
pub(super) fn bound(source: &Value, edits: &BTreeMap<String, NodeEdits>, mode: Mode) -> (Value, Provenance) {
    if edits.is_empty() {
        return (source.clone(), Provenance::default());
    }
    let builder = Builder::new(source, edits);
    let mut other_needed = false;
    let main = builder.emit(source, "", Some(""), mode, mode, false, &mut other_needed);
    let mut provenance = Provenance { written: builder.written.take(), copy: None };
    if !other_needed {
        provenance.written.sort_by_key(|(at, _, _)| std::cmp::Reverse(at.len()));
        return (with_shared(main, edits), provenance);
    }
    let mut ignored = false;
    let mut other = builder.emit(source, "", Some(""), mode.flipped(), mode, true, &mut ignored);
    provenance.written.extend(builder.written.take());
    provenance.written.sort_by_key(|(at, _, _)| std::cmp::Reverse(at.len()));
    provenance.copy = Some(format!("/$defs/{OTHER}"));
    if let Value::Object(map) = &mut other {
        // The copy is no resource of its own: the root's identifiers stay with the main copy.
        map.retain(|key, _| !vocabulary::is_identifier(key));
    }
    let value = match main {
        Value::Object(mut map) => {
            let defs = map.entry("$defs").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(defs) = defs {
                defs.insert(OTHER.to_owned(), other);
            }
            Value::Object(map)
        }
        other_root => other_root,
    };
    (with_shared(value, edits), provenance)
}

struct Builder<'a> {
    edits: &'a BTreeMap<String, NodeEdits>,
    /// Pointers of nodes at or above an edit, references to such nodes included.
    dirty: BTreeSet<String>,
    /// Each `$ref` holder's target, where it resolves to a node of the document.
    targets: BTreeMap<String, String>,
    /// Whether references may point into a second copy (every local reference resolves within the
    /// one root resource).
    copies: bool,
    /// The parts the bound wrote itself: (location, source node, source keyword).
    written: std::cell::RefCell<Vec<(String, String, String)>>,
}

impl<'a> Builder<'a> {
    fn new(source: &Value, edits: &'a BTreeMap<String, NodeEdits>) -> Self {
        let mut targets = BTreeMap::new();
        let mut embedded = false;
        if let Ok(occurrences) = walk::occurrences(source) {
            let resolver = Resolver::within_depth(source);
            for o in &occurrences {
                if o.keyword == "$id" && !o.at_root {
                    embedded = true;
                }
                if o.keyword == "$ref"
                    && let Some(reference) = o.value.as_str()
                    && let Ok(target) = resolver.resolve_uri(reference, &o.pointer)
                {
                    targets.insert(o.pointer.clone(), target);
                }
            }
        }
        let mut dirty = BTreeSet::new();
        for node in edits.keys() {
            mark_with_ancestors(&mut dirty, node);
        }
        // A node referencing a dirty target is dirty too, until nothing changes.
        loop {
            let newly: Vec<String> = targets.iter().filter(|(holder, target)| !dirty.contains(*holder) && dirty.contains(*target)).map(|(h, _)| h.clone()).collect();
            if newly.is_empty() {
                break;
            }
            for holder in newly {
                mark_with_ancestors(&mut dirty, &holder);
            }
        }
        Builder { edits, dirty, targets, copies: !embedded, written: std::cell::RefCell::default() }
    }

    /// `node` (at `pointer` in the source) as the bound of `mode`. `at` is where it lands in its
    /// copy of the document (`None` inside a part the bound wrote itself); `main` is the mode the
    /// document is built in; `in_copy` says the node is emitted inside the second copy.
    #[allow(clippy::too_many_arguments)]
    fn emit(&self, node: &Value, pointer: &str, at: Option<&str>, mode: Mode, main: Mode, in_copy: bool, other_needed: &mut bool) -> Value {
        if !self.dirty.contains(pointer) {
            return node.clone();
        }
        let edits = self.edits.get(pointer).map_or(&[][..], |e| e.of(mode));
        let mut node = node.clone();
        for edit in edits {
            if let Edit::Replace(value) = edit {
                return value.clone();
            }
        }
        // A `true` node that an edit writes a keyword onto (a forced root type, a closed any-value)
        // is the empty schema it stands for.
        if node == Value::Bool(true) && edits.iter().any(|e| matches!(e, Edit::Set { .. } | Edit::SetIfAbsent { .. } | Edit::RejectType(_))) {
            node = Value::Object(Map::new());
        }
        let Value::Object(map) = &mut node else {
            return node;
        };
        let mut loosened: BTreeMap<&str, Option<&Vec<String>>> = BTreeMap::new();
        let mut reject: Vec<Option<&'static str>> = Vec::new();
        let mut or_null = false;
        let mut one_of_as_any_of = false;
        // Entries an edit of this node wrote whole (`SetEntries`): final, never emitted again
        // under their own pointers, whose edits would otherwise overwrite them.
        let mut written: BTreeMap<&str, Option<&Vec<String>>> = BTreeMap::new();
        for edit in edits {
            match edit {
                Edit::Loosen { keyword, names } => {
                    loosened.insert(keyword.as_str(), names.as_ref());
                }
                // Renamed once its branches are emitted under their own pointers (below).
                Edit::OneOfAsAnyOf => one_of_as_any_of = true,
                Edit::Set { keyword, value } => {
                    written.insert(keyword.as_str(), None);
                    map.insert(keyword.clone(), value.clone());
                }
                Edit::SetIfAbsent { keyword, value } => {
                    if !map.contains_key(keyword) {
                        map.insert(keyword.clone(), value.clone());
                    }
                }
                Edit::SetEntries { keyword, value, names } => {
                    written.insert(keyword.as_str(), names.as_ref());
                    match map.get_mut(keyword) {
                        Some(Value::Object(entries)) => {
                            for (name, entry) in entries.iter_mut() {
                                if names.as_ref().is_none_or(|n| n.contains(name)) {
                                    *entry = value.clone();
                                }
                            }
                        }
                        Some(Value::Array(entries)) => entries.iter_mut().for_each(|e| *e = value.clone()),
                        Some(slot) => *slot = value.clone(),
                        None => {}
                    }
                }
                Edit::DropNull => drop_null(map),
                Edit::RequireAll => require_all(map),
                Edit::RejectType(ty) => reject.push(*ty),
                Edit::OrNull => or_null = true,
                Edit::Replace(_) => {}
            }
        }
        if reject.contains(&None) {
            return Value::Bool(false);
        }
        // Loosening, keyword by keyword, keeping names and positions claimed.
        for (keyword, names) in &loosened {
            loosen(map, keyword, *names);
        }

        // Children, each in the mode its position gives it; the keywords that mix polarity are
        // rewritten as a whole when something under them is dirty.
        let here = |suffix: &str| format!("{pointer}{suffix}");
        let is_dirty = |suffix: &str| self.dirty.contains(&here(suffix));
        // What the bound writes beside the node's own keywords, each with the keyword it stands for.
        let mut extra: Vec<(Value, &'static str)> = Vec::new();

        // `if`/`then`/`else` with an edit under `if`.
        if map.contains_key("if") && is_dirty("/if") {
            let cond = map.shift_remove("if").unwrap_or(Value::Bool(true));
            let then = map.shift_remove("then").unwrap_or(Value::Bool(true));
            let otherwise = map.shift_remove("else").unwrap_or(Value::Bool(true));
            let e = |value: &Value, suffix: &str, m: Mode, needed: &mut bool| self.emit(value, &here(suffix), None, m, main, in_copy, needed);
            let if_same = e(&cond, "/if", mode, other_needed);
            let if_other = e(&cond, "/if", mode.flipped(), other_needed);
            let then_v = e(&then, "/then", mode, other_needed);
            let else_v = e(&otherwise, "/else", mode, other_needed);
            extra.push((json!({"anyOf": [{"allOf": [if_same, then_v]}, {"allOf": [{"not": if_other}, else_v]}]}), "if"));
        }
        // `oneOf` with an edit under a branch (and not read as `anyOf` here).
        if let Some(Value::Array(branches)) = map.get("oneOf").cloned()
            && !one_of_as_any_of
            && branches.len() > 1
            && (0..branches.len()).any(|i| is_dirty(&format!("/oneOf/{i}")))
        {
            map.shift_remove("oneOf");
            // Exactly one branch: the upper bound lets branch i accept what it may accept (its
            // upper bound) unless another surely accepts it too (their lower bounds); the lower
            // bound, what branch i surely accepts and no other may.
            let emit_all = |m: Mode, needed: &mut bool| -> Vec<Value> {
                branches.iter().enumerate().map(|(i, b)| self.emit(b, &here(&format!("/oneOf/{i}")), None, m, main, in_copy, needed)).collect()
            };
            let (this, others) = match mode {
                Mode::Upper => (emit_all(Mode::Upper, other_needed), emit_all(Mode::Lower, other_needed)),
                Mode::Lower => (emit_all(Mode::Lower, other_needed), emit_all(Mode::Upper, other_needed)),
            };
            let exactly: Vec<Value> = this
                .into_iter()
                .enumerate()
                .map(|(i, b)| {
                    let rest: Vec<Value> = others.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, o)| o.clone()).collect();
                    json!({"allOf": [b, {"not": {"anyOf": rest}}]})
                })
                .collect();
            extra.push((json!({ "anyOf": exactly }), "oneOf"));
        }
        // A `contains` bounded by `maxContains`, with an edit under it.
        if map.contains_key("maxContains") && map.contains_key("contains") && is_dirty("/contains") {
            let contains = map.shift_remove("contains").unwrap_or(Value::Bool(true));
            let min = map.shift_remove("minContains").unwrap_or(Value::from(1));
            let max = map.shift_remove("maxContains").unwrap_or(Value::Null);
            let same = self.emit(&contains, &here("/contains"), None, mode, main, in_copy, other_needed);
            let other = self.emit(&contains, &here("/contains"), None, mode.flipped(), main, in_copy, other_needed);
            extra.push((json!({"contains": same, "minContains": min}), "contains"));
            extra.push((json!({"contains": other, "minContains": 0, "maxContains": max}), "maxContains"));
        }

        let keys: Vec<String> = map.keys().cloned().collect();
        for key in keys {
            if loosened.contains_key(key.as_str()) && loosened.get(key.as_str()).is_some_and(Option::is_none) {
                // Loosened as a whole: its subschemas are `true` (or it is gone).
                continue;
            }
            let Some(kind) = walk::value_kind(&key) else { continue };
            let child_mode = if key == "not" { mode.flipped() } else { mode };
            let names = loosened.get(key.as_str()).copied().flatten();
            let overwritten = written.get(key.as_str()).copied();
            let is_written = |name: &str| overwritten.is_some_and(|n| n.is_none_or(|n| n.iter().any(|x| x == name)));
            let Some(value) = map.get_mut(&key) else { continue };
            match kind {
                ValueKind::Schema => {
                    if walk::is_schema(value) && overwritten.is_none() {
                        let suffix = format!("/{}", walk::escape(&key));
                        *value = self.emit(value, &here(&suffix), child_at(at, &suffix).as_deref(), child_mode, main, in_copy, other_needed);
                    }
                }
                ValueKind::SchemaArray => {
                    if let Value::Array(items) = value {
                        for (i, item) in items.iter_mut().enumerate() {
                            if walk::is_schema(item) && !is_written(&i.to_string()) {
                                let suffix = format!("/{}/{i}", walk::escape(&key));
                                *item = self.emit(item, &here(&suffix), child_at(at, &suffix).as_deref(), child_mode, main, in_copy, other_needed);
                            }
                        }
                    }
                }
                ValueKind::SchemaMap => {
                    if let Value::Object(entries) = value {
                        for (name, entry) in entries.iter_mut() {
                            if names.is_some_and(|n| n.contains(name)) || !walk::is_schema(entry) || is_written(name) {
                                continue;
                            }
                            let suffix = format!("/{}/{}", walk::escape(&key), walk::escape(name));
                            *entry = self.emit(entry, &here(&suffix), child_at(at, &suffix).as_deref(), child_mode, main, in_copy, other_needed);
                        }
                    }
                }
                ValueKind::Data => {}
            }
        }

        // A reference to a dirty target, emitted in the mode the document is not built in, points
        // into the copy built in that mode.
        if let Some(target) = self.targets.get(pointer)
            && self.copies
            && self.dirty.contains(target)
            && map.contains_key("$ref")
        {
            let rewritten = if mode == main { format!("#{}", uri_pointer(target)) } else { format!("#/$defs/{OTHER}{}", uri_pointer(target)) };
            if mode != main || in_copy {
                map.insert("$ref".to_owned(), Value::from(rewritten));
            }
            if mode != main {
                *other_needed = true;
            }
        }

        if one_of_as_any_of && let Some(branches) = map.shift_remove("oneOf") {
            if map.contains_key("anyOf") {
                extra.push((json!({ "anyOf": branches }), "oneOf"));
            } else {
                map.insert("anyOf".to_owned(), branches);
                if let Some(at) = at {
                    self.written.borrow_mut().push((format!("{at}/anyOf"), pointer.to_owned(), "oneOf".to_owned()));
                }
            }
        }
        for ty in reject.into_iter().flatten() {
            extra.push((json!({"not": {"type": ty}}), "type"));
        }
        if !extra.is_empty() {
            let all = map.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
            if !all.is_array() {
                *all = Value::Array(Vec::new());
            }
            if let Value::Array(all) = all {
                for (value, keyword) in extra {
                    if let Some(at) = at {
                        self.written.borrow_mut().push((format!("{at}/allOf/{}", all.len()), pointer.to_owned(), keyword.to_owned()));
                    }
                    all.push(value);
                }
            }
        }
        if or_null {
            return json!({"anyOf": [node, {"type": "null"}]});
        }
        node
    }
}

/// Where a child lands: under its parent's location, unless the parent is inside a written part.
fn child_at(at: Option<&str>, suffix: &str) -> Option<String> {
    at.map(|at| format!("{at}{suffix}"))
}

fn mark_with_ancestors(dirty: &mut BTreeSet<String>, pointer: &str) {
    let mut at = pointer;
    loop {
        dirty.insert(at.to_owned());
        match at.rfind('/') {
            Some(i) => at = &at[..i],
            None => break,
        }
    }
}

/// A JSON pointer written in a URI fragment: the characters a fragment cannot hold
/// percent-encoded.
fn uri_pointer(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for c in pointer.chars() {
        match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '-' | '.' | '_' | '~' | '/' | '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '=' | ':' | '@' => out.push(c),
            other => {
                let mut bytes = [0u8; 4];
                for b in other.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    out
}

/// The keyword asserts nothing any more; the names and positions it claims stay claimed (removing
/// `properties` would hand its keys to `additionalProperties`, a tightening), and its annotations
/// stay where the keyword keeps its place (`true` entries and subschemas).
fn loosen(map: &mut Map<String, Value>, keyword: &str, names: Option<&Vec<String>>) {
    match walk::value_kind(keyword) {
        Some(ValueKind::SchemaMap) => {
            if let Some(Value::Object(entries)) = map.get_mut(keyword) {
                for (name, entry) in entries.iter_mut() {
                    if names.is_none_or(|n| n.contains(name)) {
                        *entry = Value::Bool(true);
                    }
                }
            }
        }
        Some(ValueKind::SchemaArray) if matches!(keyword, "prefixItems") => {
            if let Some(Value::Array(entries)) = map.get_mut(keyword) {
                entries.iter_mut().for_each(|e| *e = Value::Bool(true));
            }
        }
        Some(ValueKind::Schema) if matches!(keyword, "additionalProperties" | "items" | "unevaluatedProperties" | "unevaluatedItems" | "propertyNames") => {
            map.insert(keyword.to_owned(), Value::Bool(true));
        }
        // Without `contains`, `minContains`/`maxContains` bound nothing (its annotations go with
        // it; the `unevaluated*` that read them are loosened by the caller).
        Some(ValueKind::Schema) if keyword == "contains" => {
            map.shift_remove("contains");
        }
        // An absent `minContains` is 1: loosened, it is 0.
        _ if keyword == "minContains" => {
            map.insert("minContains".to_owned(), Value::from(0));
        }
        // `if` alone: without it `then`/`else` apply to nothing.
        _ if keyword == "if" => {
            for k in ["if", "then", "else"] {
                map.shift_remove(k);
            }
        }
        _ => {
            map.shift_remove(keyword);
        }
    }
}

fn drop_null(map: &mut Map<String, Value>) {
    let kept: Option<Vec<Value>> = match map.get("type") {
        Some(Value::Array(types)) => Some(types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect()),
        Some(Value::String(t)) if t == "null" => Some(Vec::new()),
        _ => None,
    };
    match kept {
        // No type left: nothing is accepted. `type: []` says so too, but the meta-schema
        // forbids it and the bound would not compile; an empty `enum` is allowed.
        Some(kept) if kept.is_empty() => {
            map.shift_remove("type");
            map.insert("enum".to_owned(), Value::Array(Vec::new()));
        }
        Some(kept) => {
            map.insert("type".to_owned(), Value::Array(kept));
        }
        None => {}
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        let kept: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        map.insert("enum".to_owned(), Value::Array(kept));
    }
    if map.get("const").is_some_and(Value::is_null) {
        map.insert("enum".to_owned(), Value::Array(Vec::new()));
    }
}

fn require_all(map: &mut Map<String, Value>) {
    let mut names: Vec<Value> = map.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    for name in map.get("properties").and_then(Value::as_object).into_iter().flat_map(Map::keys) {
        if !names.iter().any(|n| n.as_str() == Some(name)) {
            names.push(Value::from(name.as_str()));
        }
    }
    map.insert("required".to_owned(), Value::Array(names));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edits(at: &str, loosen: Vec<Edit>, tighten: Vec<Edit>) -> BTreeMap<String, NodeEdits> {
        BTreeMap::from([(at.to_owned(), NodeEdits { loosen, tighten })])
    }

    fn valid(schema: &Value, instance: &Value) -> bool {
        jsonschema::draft202012::options().build(schema).expect("the bound compiles").is_valid(instance)
    }

    #[test]
    fn under_not_a_loosening_tightens_the_whole() {
        let source = json!({"properties": {"a": {"not": {"pattern": "^x"}}}});
        let e = edits("/properties/a/not", vec![Edit::Loosen { keyword: "pattern".into(), names: None }], vec![]);
        // The upper bound does not loosen under `not` (that would tighten the whole).
        assert_eq!(bound(&source, &e, Mode::Upper).0, source);
        // The lower bound does: `not {}` rejects every value of `a`.
        let lower = bound(&source, &e, Mode::Lower).0;
        assert!(!valid(&lower, &json!({"a": "y"})) && valid(&source, &json!({"a": "y"})));
    }

    #[test]
    fn one_of_stays_one_of_in_the_lower_bound() {
        // Loosening branch 0 can make both branches match: the lower bound rejects exactly those.
        let source = json!({"oneOf": [{"type": "string", "maxLength": 2}, {"type": "string", "minLength": 5}]});
        let e = edits("/oneOf/0", vec![Edit::Loosen { keyword: "maxLength".into(), names: None }], vec![]);
        let lower = bound(&source, &e, Mode::Lower).0;
        assert!(valid(&lower, &json!("ab")), "only branch 0 can accept it");
        assert!(!valid(&lower, &json!("abcdef")), "both branches may accept it: exactly-one fails");
        let upper = bound(&source, &e, Mode::Upper).0;
        assert!(valid(&upper, &json!("abc")), "branch 0 loosened accepts it");
        // Where both branches surely accept an instance, exactly-one still rejects it: a translator
        // that wrote `oneOf` as `anyOf` is not excused by the loosening in branch 0.
        let overlapping = json!({"oneOf": [{"type": "string", "maxLength": 2}, {"type": "string", "minLength": 1}]});
        let upper = bound(&overlapping, &e, Mode::Upper).0;
        assert!(!valid(&upper, &json!("a")) && !valid(&overlapping, &json!("a")));
        assert!(valid(&upper, &json!("abc")), "only branch 1 surely accepts it; branch 0 loosened may too, or not");
    }

    #[test]
    fn a_reference_under_not_points_into_the_other_copy() {
        let source = json!({"$defs": {"s": {"type": "string", "pattern": "^x"}}, "properties": {"a": {"not": {"$ref": "#/$defs/s"}}, "b": {"$ref": "#/$defs/s"}}});
        let e = edits("/$defs/s", vec![Edit::Loosen { keyword: "pattern".into(), names: None }], vec![]);
        let upper = bound(&source, &e, Mode::Upper).0;
        // `b` (positive) is loosened; `a` (under `not`) keeps the source's meaning in the upper bound.
        assert!(valid(&upper, &json!({"b": "y"})));
        assert!(valid(&upper, &json!({"a": "y"})) && !valid(&upper, &json!({"a": "xy"})));
        let lower = bound(&source, &e, Mode::Lower).0;
        // In the lower bound `a` may reject every string.
        assert!(!valid(&lower, &json!({"a": "y"})) && !valid(&lower, &json!({"b": "y"})));
    }

    #[test]
    fn a_true_node_takes_the_keywords_an_edit_writes() {
        let e = edits("", vec![], vec![Edit::Set { keyword: "type".into(), value: json!("object") }]);
        assert_eq!(bound(&json!(true), &e, Mode::Lower).0, json!({"type": "object"}));
        assert_eq!(bound(&json!(false), &e, Mode::Lower).0, json!(false));
    }

    #[test]
    fn an_if_with_an_edit_is_bounded_both_ways() {
        let source = json!({"if": {"minLength": 3}, "then": {"pattern": "^a"}, "else": {"pattern": "^b"}});
        let e = edits("/if", vec![Edit::Loosen { keyword: "minLength".into(), names: None }], vec![]);
        let upper = bound(&source, &e, Mode::Upper).0;
        let lower = bound(&source, &e, Mode::Lower).0;
        // "ab": source takes else (^b) and rejects; loosened `if` would take then (^a) and accept.
        assert!(!valid(&source, &json!("ab")) && valid(&upper, &json!("ab")));
        // "bb": source accepts (else); loosened `if` rejects: the lower bound rejects it.
        assert!(valid(&source, &json!("bb")) && !valid(&lower, &json!("bb")));
        // "abc": both accept in every variant.
        assert!(valid(&lower, &json!("abc")));
    }

    #[test]
    fn a_null_type_dropped_leaves_a_bound_that_compiles_and_rejects_everything() {
        let source = json!({"type":"object","properties":{"first":{"$ref":"#/$defs/a"}},"required":["first"],"$defs":{"a":{"type":"object","properties":{"tag":{"const":"a"},"next":{"anyOf":[{"$ref":"#/$defs/b"},{"type":"null"}]}},"required":["tag","next"]},"b":{"type":"object","properties":{"tag":{"const":"b"},"next":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}},"required":["tag","next"]}}});
        let e = edits("/$defs/a/properties/next/anyOf/1", vec![], vec![Edit::DropNull]);
        let (b, _) = bound(&source, &e, Mode::Lower);
        assert!(!valid(&b, &json!({"first":{"tag":"a","next":null}})));
    }
}
