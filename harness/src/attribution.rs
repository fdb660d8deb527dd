//! Attribution: each deviation is judged where it acts, against the rows of the occurrences it
//! touches, not against every row of the case.
//!
//! A table is per keyword; a case holds many keywords. Joining every approximation present into
//! one allowed set (the old *envelope*) let one legitimate approximation anywhere in a case excuse
//! any deviation of its direction elsewhere: a translator that closes objects (a narrowing) could
//! also collapse a type union (another narrowing) unseen. Here every witness is checked against a
//! **bound** built from the source by rewriting only the occurrences whose rows approximate in the
//! witness's direction, each where it stands:
//!
//! - a **widening** witness `y` (the projection accepts it, the source rejects `decode(y)`) is
//!   explained only when the source *relaxed* by its widening rows accepts `decode(y)`: each such
//!   occurrence is removed (or `oneOf` becomes `anyOf`, per the row's `to:`);
//! - a **narrowing** witness `x` (the source accepts it, the projection rejects `encode(x)`) is
//!   explained only when the source *tightened* by its narrowing rows rejects `x`: each occurrence
//!   is rewritten to what the row says it became (`closed` adds `additionalProperties: false`,
//!   `required` requires every property, `first-member` cuts a type list, `unrolled` cuts a `$ref`
//!   that lies on a cycle), or, for `rewritten` and the like, its schema node becomes `false`.
//!
//! **Polarity.** Under `not`, inside an `if`, and inside a `contains` bounded by `maxContains`,
//! loosening a constraint can make the whole stricter. An occurrence there is bounded at the
//! nearest node where polarity is known: relaxing drops the `not` (or the conditional, or the
//! `contains` bounds) there; tightening makes that node `false`. `oneOf` is not monotone either
//! (loosening a branch can make two match): on the path to an occurrence it is read as `anyOf`,
//! which is exact for the instances a narrowing is judged on (the source accepted them, so one
//! branch matched) and a loosening for widenings. Loosening an occurrence that produces
//! annotations also drops `unevaluated*`, which would otherwise reject what was no longer
//! evaluated. These make a bound looser than the row, never stricter: attribution can excuse a
//! little more than the row allows near these keywords, and never blames a row wrongly.
//!
//! **Known limit.** An occurrence inside `$defs` takes the polarity of its path in the document,
//! not of the places that reference it; a definition referenced only from under `not` is bounded
//! as if it were positive.
//!
//! Marks (`known_violation`) are bounds too: a witness the table does not explain is credited to
//! the marks that explain it (each alone, else all together), and only those count as reproduced.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use schema_fidelity_translators::locate;
use schema_fidelity_translators::walk::{self, Occurrence};
use serde_json::{Map, Value};

use crate::oracle::Env;
use crate::retrieve::LocalRetriever;
use crate::table::{Becomes, Direction, Disposition, Row, RowId};

/// The draft 2020-12 meta-schema URIs a `$schema` may name without changing what the source means.
const STANDARD_META_SCHEMAS: [&str; 2] = ["https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"];

/// Keywords that assert nothing about an instance: loosening them changes nothing.
const NON_ASSERTING: &[&str] = &[
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$defs", "definitions", "$vocabulary", "$comment", "title", "description", "default",
    "examples", "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "contentSchema",
];

/// Keywords whose success produces the annotations `unevaluated*` read.
const ANNOTATING: &[&str] = &[
    "properties", "patternProperties", "additionalProperties", "prefixItems", "items", "contains", "allOf", "anyOf", "oneOf", "$ref",
    "$dynamicRef", "if", "then", "else", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
];

/// Applicators whose subschemas apply to the instance at the node itself.
const IN_PLACE: &[&str] = &["allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "then", "else", "dependentSchemas", "not"];

/// One edit of the source that loosens or tightens it.
#[derive(Debug, Clone, PartialEq)]
enum Edit {
    Remove { node: String, keyword: String },
    Set { node: String, keyword: String, value: Value },
    RequireAll { node: String },
    Replace { node: String, value: Value },
    OneOfAsAnyOf { node: String },
    /// Every subschema of a schema array or map keyword becomes `true`.
    Trivialize { node: String, keyword: String },
    DropUnevaluated,
}

/// Where polarity stops being positive on the way to an occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Not,
    If,
    BoundedContains,
}

struct Path {
    /// The node holding the first `not`/`if`/bounded `contains` on the way, and which.
    anchor: Option<(String, Anchor)>,
    /// Nodes holding a `oneOf` the occurrence lies under (before any anchor).
    one_ofs: Vec<String>,
}

fn analyse(root: &Value, pointer: &str) -> Path {
    let tokens = locate::tokens(pointer);
    let mut node = root;
    let mut at = String::new();
    let mut anchor = None;
    let mut one_ofs = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let keyword = tokens[i].as_str();
        if anchor.is_none() {
            match keyword {
                "not" => anchor = Some((at.clone(), Anchor::Not)),
                "if" => anchor = Some((at.clone(), Anchor::If)),
                "contains" if node.get("maxContains").is_some() => anchor = Some((at.clone(), Anchor::BoundedContains)),
                "oneOf" => one_ofs.push(at.clone()),
                _ => {}
            }
        }
        let step = match walk::value_kind(keyword) {
            Some(schema_fidelity_translators::vocabulary::ValueKind::Schema) => 1,
            Some(_) => 2,
            None => break,
        };
        let Some(next) = tokens.get(i..i + step) else { break };
        for t in next {
            at.push('/');
            at.push_str(&walk::escape(t));
        }
        node = match next {
            [k] => node.get(k.as_str()),
            [k, key] => node.get(k.as_str()).and_then(|v| match v {
                Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                other => other.get(key.as_str()),
            }),
            _ => None,
        }
        .unwrap_or(&Value::Null);
        i += step;
    }
    Path { anchor, one_ofs }
}

/// The edits that loosen (`Widening`) or tighten (`Narrowing`) one occurrence as `becomes` says.
///
/// `mark` says the bound is for a `known_violation` rather than a declared approximation: a mark on
/// an in-place applicator (`allOf`, `anyOf`, `$ref`, ...) records a rewrite of the node that holds
/// it (a merge that overwrites siblings, say), so its bound is that whole node.
fn edits(root: &Value, occ: &Occurrence<'_>, becomes: Becomes, direction: Direction, mark: bool, out: &mut Vec<Edit>) {
    let path = analyse(root, &occ.pointer);
    if let Some((node, anchor)) = path.anchor {
        match direction {
            Direction::Widening => {
                let dropped: &[&str] = match anchor {
                    Anchor::Not => &["not"],
                    Anchor::If => &["if", "then", "else"],
                    Anchor::BoundedContains => &["contains", "minContains", "maxContains"],
                };
                for keyword in dropped {
                    out.push(Edit::Remove { node: node.clone(), keyword: (*keyword).to_owned() });
                }
                out.push(Edit::DropUnevaluated);
            }
            Direction::Narrowing => out.push(Edit::Replace { node, value: Value::Bool(false) }),
        }
        return;
    }
    out.extend(path.one_ofs.into_iter().map(|node| Edit::OneOfAsAnyOf { node }));
    let node = occ.pointer.clone();
    let keyword = occ.keyword.to_owned();
    if mark && IN_PLACE.contains(&occ.keyword) {
        out.push(Edit::Replace { node, value: Value::Bool(direction == Direction::Widening) });
        out.push(Edit::DropUnevaluated);
        return;
    }
    match direction {
        Direction::Widening => match occ.keyword {
            "false" => out.push(Edit::Replace { node, value: Value::Bool(true) }),
            "true" => {}
            "oneOf" if becomes == Becomes::AnyOf => out.push(Edit::OneOfAsAnyOf { node }),
            k if NON_ASSERTING.contains(&k) => {}
            k => {
                if ANNOTATING.contains(&k) {
                    out.push(Edit::DropUnevaluated);
                }
                // Some keywords leave the rest to a neighbour: without `prefixItems`, `items` applies
                // from position 0; without `properties`/`patternProperties`, `additionalProperties`
                // applies to their keys. Removing one would tighten its neighbour's reach, so its
                // subschemas become `true` instead: the positions and names stay claimed.
                if matches!(k, "prefixItems" | "properties" | "patternProperties") {
                    // A `prefixItems` rewritten some other way (into `items`, say) takes the tail
                    // along: the row's loosest bound covers what it was rewritten into.
                    if k == "prefixItems" && becomes == Becomes::Rewritten {
                        out.push(Edit::Remove { node: node.clone(), keyword: "items".to_owned() });
                    }
                    out.push(Edit::Trivialize { node, keyword });
                    return;
                }
                out.push(Edit::Remove { node, keyword });
            }
        },
        Direction::Narrowing => match becomes {
            Becomes::Closed | Becomes::Required | Becomes::ClosedRequired => {
                if becomes != Becomes::Required {
                    let closes = if matches!(occ.keyword, "additionalProperties" | "unevaluatedProperties") { keyword } else { "additionalProperties".to_owned() };
                    out.push(Edit::Set { node: node.clone(), keyword: closes, value: Value::Bool(false) });
                    // Closed over its declared properties: a key that only a pattern admitted is
                    // rejected too, which is tighter still than the source, so still a bound.
                    out.push(Edit::Remove { node: node.clone(), keyword: "patternProperties".to_owned() });
                }
                if becomes != Becomes::Closed {
                    out.push(Edit::RequireAll { node });
                }
            }
            Becomes::False if walk::value_kind(occ.keyword) == Some(schema_fidelity_translators::vocabulary::ValueKind::Schema) => {
                out.push(Edit::Set { node, keyword, value: Value::Bool(false) });
            }
            Becomes::FirstMember if occ.keyword == "type" && occ.value.as_array().is_some_and(|a| !a.is_empty()) => {
                let first = occ.value.as_array().and_then(|a| a.first()).cloned().unwrap_or(Value::Null);
                out.push(Edit::Set { node, keyword, value: first });
            }
            Becomes::Unrolled if matches!(occ.keyword, "$ref" | "$dynamicRef") => {
                if on_cycle(root, &occ.pointer, occ.value) {
                    out.push(Edit::Replace { node, value: Value::Bool(false) });
                }
            }
            Becomes::Dropped if occ.keyword == "$schema" && occ.value.as_str().is_some_and(|s| STANDARD_META_SCHEMAS.contains(&s)) => {}
            _ => out.push(Edit::Replace { node, value: Value::Bool(false) }),
        },
    }
}

/// An absent `items` or `additionalProperties` is the `true` schema; a translator whose `true` row
/// narrows (an any-value definition, a bounded union of types) narrows there too, with no
/// occurrence to carry it. Those implicit positions are tightened like the written ones: an object
/// node gets `additionalProperties: false`, an array node `items: false` where they had none.
///
/// Under a `known_violation` on the `true` row (a bound as `rewritten`: anything narrower), an
/// empty schema `{}`, which holds no occurrence either, may become anything too: it is tightened to
/// `false` (litellm sends `{}` as `{type: object}`, BerriAI/litellm#22391).
fn implicit_true_positions(root: &Value, out: &mut Vec<Edit>, empty_to_false: bool) {
    // Every schema node, empty ones (`{}`, which hold no occurrence) included.
    let mut stack = vec![(root, String::new(), 0usize)];
    while let Some((node, pointer, depth)) = stack.pop() {
        if depth > walk::MAX_DEPTH {
            continue;
        }
        for child in walk::children(node) {
            stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), depth + 1));
        }
        let Some(map) = node.as_object() else { continue };
        if analyse(root, &pointer).anchor.is_some() {
            continue;
        }
        if empty_to_false && map.is_empty() && !pointer.is_empty() {
            out.push(Edit::Replace { node: pointer.clone(), value: Value::Bool(false) });
            continue;
        }
        for keyword in ["additionalProperties", "items"] {
            if !map.contains_key(keyword) {
                out.push(Edit::Set { node: pointer.clone(), keyword: keyword.to_owned(), value: Value::Bool(false) });
            }
        }
    }
}

/// Whether the reference at `node` lies on a reference cycle: its target reaches it again.
fn on_cycle(root: &Value, node: &str, reference: &Value) -> bool {
    let Some(start) = reference.as_str().and_then(|r| locate::target_at(root, r, node)) else { return true };
    let Ok(occurrences) = walk::occurrences(root) else { return true };
    let refs: Vec<(&str, Option<String>)> = occurrences
        .iter()
        .filter(|o| matches!(o.keyword, "$ref" | "$dynamicRef"))
        .map(|o| (o.pointer.as_str(), o.value.as_str().and_then(|r| locate::target_at(root, r, &o.pointer))))
        .collect();
    let mut seen = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(target) = stack.pop() {
        if !seen.insert(target.clone()) {
            continue;
        }
        for (at, to) in &refs {
            let inside = at.strip_prefix(target.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
            if !inside {
                continue;
            }
            if *at == node {
                return true;
            }
            if let Some(to) = to {
                stack.push(to.clone());
            }
        }
    }
    false
}

/// Apply `edits` to a copy of `source`.
fn apply(source: &Value, mut edits: Vec<Edit>) -> Value {
    edits.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| depth(b).cmp(&depth(a))));
    let mut unique: Vec<Edit> = Vec::with_capacity(edits.len());
    for edit in edits {
        if !unique.contains(&edit) {
            unique.push(edit);
        }
    }
    let edits = unique;
    let mut out = source.clone();
    for edit in edits {
        match edit {
            Edit::Remove { node, keyword } => {
                if let Some(Value::Object(map)) = out.pointer_mut(&node) {
                    map.shift_remove(&keyword);
                }
            }
            Edit::Set { node, keyword, value } => {
                if let Some(Value::Object(map)) = out.pointer_mut(&node) {
                    map.insert(keyword, value);
                }
            }
            Edit::RequireAll { node } => {
                if let Some(Value::Object(map)) = out.pointer_mut(&node) {
                    let mut names: Vec<Value> = map.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
                    for name in map.get("properties").and_then(Value::as_object).into_iter().flat_map(Map::keys) {
                        if !names.iter().any(|n| n.as_str() == Some(name)) {
                            names.push(Value::from(name.as_str()));
                        }
                    }
                    map.insert("required".to_owned(), Value::Array(names));
                }
            }
            Edit::Trivialize { node, keyword } => {
                match out.pointer_mut(&node).and_then(|n| n.get_mut(&keyword)) {
                    Some(Value::Array(items)) => items.iter_mut().for_each(|v| *v = Value::Bool(true)),
                    Some(Value::Object(map)) => map.values_mut().for_each(|v| *v = Value::Bool(true)),
                    _ => {}
                }
            }
            Edit::Replace { node, value } => {
                if let Some(slot) = out.pointer_mut(&node) {
                    *slot = value;
                }
            }
            Edit::OneOfAsAnyOf { node } => {
                if let Some(Value::Object(map)) = out.pointer_mut(&node)
                    && let Some(branches) = map.shift_remove("oneOf")
                {
                    if map.contains_key("anyOf") {
                        let all = map.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
                        if let Value::Array(all) = all {
                            all.push(serde_json::json!({ "anyOf": branches }));
                        }
                    } else {
                        map.insert("anyOf".to_owned(), branches);
                    }
                }
            }
            Edit::DropUnevaluated => drop_unevaluated(&mut out),
        }
    }
    out
}

/// The order edits are applied in: in-node edits first, then replacements (deepest first), then
/// the rewrites that move pointers.
fn rank(edit: &Edit) -> u8 {
    match edit {
        Edit::Remove { .. } | Edit::Set { .. } | Edit::RequireAll { .. } | Edit::Trivialize { .. } => 0,
        Edit::Replace { .. } => 1,
        Edit::OneOfAsAnyOf { .. } => 2,
        Edit::DropUnevaluated => 3,
    }
}

fn depth(edit: &Edit) -> usize {
    match edit {
        Edit::Remove { node, .. }
        | Edit::Set { node, .. }
        | Edit::RequireAll { node }
        | Edit::Replace { node, .. }
        | Edit::OneOfAsAnyOf { node }
        | Edit::Trivialize { node, .. } => {
            node.matches('/').count()
        }
        Edit::DropUnevaluated => 0,
    }
}

fn drop_unevaluated(schema: &mut Value) {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                map.shift_remove("unevaluatedProperties");
                map.shift_remove("unevaluatedItems");
                // Data keywords hold no schemas; only descend into schema-valued ones.
                for (key, value) in map.iter_mut() {
                    if walk::value_kind(key).is_some() {
                        stack.push(value);
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// What a bound loosens or tightens by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Basis {
    /// The table's approximations of the direction.
    Declared,
    /// Those and one marked row.
    Marked(String),
    /// Every marked row of the direction with the approximations.
    AllMarked,
    /// One approximated row alone (to say which row explains a witness).
    Row(String),
}

/// A bound's validator, compiled once on first use (`None`: the bound does not compile).
type Slot = Arc<OnceLock<Option<Arc<jsonschema::Validator>>>>;

/// The bounds of one trial, compiled on first use.
pub struct Bounds<'a> {
    source: &'a Value,
    rows: &'a [(Occurrence<'a>, &'a Row)],
    /// The table's row for the `true` schema, which also governs absent `items` and
    /// `additionalProperties` (see [`implicit_true_positions`]).
    implicit_true: Option<&'a Row>,
    /// The projection asserts nothing beyond a root `type` (a whole-tool fallback): only then can a
    /// `whole_tool` mark explain a deviation.
    projection_is_fallback: bool,
    env: &'a Env,
    assert_formats: bool,
    compiled: Mutex<HashMap<(Direction, Basis), Slot>>,
}

impl<'a> Bounds<'a> {
    #[must_use]
    pub fn new(source: &'a Value, rows: &'a [(Occurrence<'a>, &'a Row)], implicit_true: Option<&'a Row>, env: &'a Env, assert_formats: bool) -> Self {
        Self { source, rows, implicit_true, projection_is_fallback: false, env, assert_formats, compiled: Mutex::default() }
    }

    /// Tell the bounds what the projection is, so that a `whole_tool` mark applies only to a
    /// projection that replaced the whole tool.
    #[must_use]
    pub fn with_projection(mut self, projection: &Value) -> Self {
        self.projection_is_fallback = is_fallback(projection);
        self
    }

    /// Whether the table's approximations explain the deviation `direction` of the source-side
    /// instance `x` (for a widening, `decode(y)`).
    #[must_use]
    pub fn declared(&self, direction: Direction, x: &Value) -> bool {
        self.explains(direction, &Basis::Declared, x)
    }

    /// The marked rows that explain a deviation the table does not: each mark that does alone,
    /// else every mark of that direction if together they do, else none.
    #[must_use]
    pub fn marks(&self, direction: Direction, x: &Value) -> Vec<RowId> {
        let marked = self.marked_rows(direction);
        let alone: Vec<RowId> = marked.iter().filter(|r| self.explains(direction, &Basis::Marked(r.id.to_string()), x)).map(|r| r.id.clone()).collect();
        if !alone.is_empty() {
            return alone;
        }
        if marked.len() > 1 && self.explains(direction, &Basis::AllMarked, x) {
            return marked.iter().map(|r| r.id.clone()).collect();
        }
        Vec::new()
    }

    /// The approximated rows that explain a deviation each on their own (for reports); empty when
    /// only several together do.
    #[must_use]
    pub fn rows_explaining(&self, direction: Direction, x: &Value) -> Vec<RowId> {
        let mut rows: Vec<&Row> = Vec::new();
        let implicit = self.implicit_true.filter(|_| direction == Direction::Narrowing);
        for row in self.rows.iter().map(|(_, r)| *r).chain(implicit) {
            if matches!(row.disposition, Disposition::Approximated { direction: d, .. } if d == direction) && !rows.iter().any(|r| r.id == row.id) {
                rows.push(row);
            }
        }
        rows.into_iter().filter(|r| self.explains(direction, &Basis::Row(r.id.to_string()), x)).map(|r| r.id.clone()).collect()
    }

    /// The source with the occurrences of `basis` loosened (widening) or tightened (narrowing).
    #[must_use]
    fn schema(&self, direction: Direction, basis: &Basis) -> Value {
        let mut out = Vec::new();
        for (occ, row) in self.rows {
            let approximated = match &row.disposition {
                Disposition::Approximated { direction: d, to } if *d == direction => Some(*to),
                _ => None,
            };
            let marked = row.mark_bounding(direction).is_some();
            let id = || row.id.to_string();
            let (becomes, mark) = match basis {
                Basis::Declared => (approximated, false),
                Basis::Row(r) => (approximated.filter(|_| *r == id()), false),
                Basis::Marked(r) => match approximated {
                    Some(b) if !(marked && *r == id()) => (Some(b), false),
                    _ => ((marked && *r == id()).then_some(Becomes::Rewritten), true),
                },
                Basis::AllMarked => match approximated {
                    Some(b) if !marked => (Some(b), false),
                    _ => (marked.then_some(Becomes::Rewritten), true),
                },
            };
            let whole_tool = row.mark_bounding(direction).is_some_and(|k| k.whole_tool);
            let tool_mark = self.projection_is_fallback && match basis {
                Basis::Marked(r) => whole_tool && *r == id(),
                Basis::AllMarked => whole_tool,
                _ => false,
            };
            if tool_mark {
                // The translator replaced the whole tool: the bound is the whole document.
                let value = Value::Bool(direction == Direction::Widening);
                return value;
            }
            if let Some(becomes) = becomes {
                edits(self.source, occ, becomes, direction, mark, &mut out);
            }
        }
        if direction == Direction::Narrowing
            && let Some(row) = self.implicit_true
        {
            let approximated = matches!(row.disposition, Disposition::Approximated { direction: Direction::Narrowing, .. });
            let marked = row.mark_bounding(Direction::Narrowing).is_some();
            let applies = match basis {
                Basis::Declared => approximated,
                Basis::Row(r) => approximated && *r == row.id.to_string(),
                Basis::Marked(r) => approximated || (marked && *r == row.id.to_string()),
                Basis::AllMarked => approximated || marked,
            };
            let marked_here = match basis {
                Basis::Marked(r) => marked && *r == row.id.to_string(),
                Basis::AllMarked => marked,
                _ => false,
            };
            if applies {
                implicit_true_positions(self.source, &mut out, marked_here);
            }
        }
        apply(self.source, out)
    }

    fn marked_rows(&self, direction: Direction) -> Vec<&'a Row> {
        let mut rows: Vec<&Row> = Vec::new();
        let implicit = self.implicit_true.filter(|_| direction == Direction::Narrowing);
        for row in self.rows.iter().map(|(_, r)| *r).chain(implicit) {
            if row.mark_bounding(direction).is_some() && !rows.iter().any(|r| r.id == row.id) {
                rows.push(row);
            }
        }
        rows
    }

    fn validator(&self, direction: Direction, basis: &Basis) -> Option<Arc<jsonschema::Validator>> {
        let slot = {
            let mut compiled = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
            compiled.entry((direction, basis.clone())).or_default().clone()
        };
        slot.get_or_init(|| {
            let schema = self.schema(direction, basis);
            jsonschema::draft202012::options()
                .should_validate_formats(self.assert_formats)
                .with_retriever(LocalRetriever::new(self.env.remotes.clone()))
                .build(&schema)
                .ok()
                .map(Arc::new)
        })
        .clone()
    }

    fn explains(&self, direction: Direction, basis: &Basis, x: &Value) -> bool {
        // A bound that does not compile explains nothing: the deviation is reported, not excused.
        let Some(bound) = self.validator(direction, basis) else { return false };
        match direction {
            Direction::Widening => bound.is_valid(x),
            Direction::Narrowing => !bound.is_valid(x),
        }
    }

    /// The occurrences a widening the table does not explain is rejected at in the source loosened
    /// by its approximations: `(node pointer, keyword)`, with whether the keyword's subschema there
    /// is `false` (an inversion). `x` is `decode(y)`.
    #[must_use]
    pub fn widening_culprits(&self, x: &Value) -> Vec<Culprit> {
        let relaxed = self.schema(Direction::Widening, &Basis::Declared);
        let Ok(validator) = jsonschema::draft202012::options()
            .should_validate_formats(self.assert_formats)
            .with_retriever(LocalRetriever::new(self.env.remotes.clone()))
            .build(&relaxed)
        else {
            return Vec::new();
        };
        let mut out: Vec<Culprit> = Vec::new();
        for error in validator.iter_errors(x) {
            let path = error.schema_path().as_str().to_owned();
            let (node, keyword) = split_keyword(&path, &relaxed);
            let value = relaxed.pointer(&path);
            let inverted = matches!(value, Some(Value::Bool(false)))
                || (keyword == "not" && matches!(value, Some(Value::Bool(true)) | Some(Value::Object(_)) if value.is_some_and(is_empty_schema)));
            let culprit = Culprit { node, keyword, instance_at: error.instance_path().as_str().to_owned(), inverted };
            if !out.contains(&culprit) {
                out.push(culprit);
            }
        }
        out
    }

    /// The source occurrences in force where the projection rejects `encoded` (the encoding of a
    /// narrowing witness `x`): for each projection error, the source nodes at its instance
    /// location, with the keyword the projection failed on.
    #[must_use]
    pub fn narrowing_culprits(&self, projection: &jsonschema::Validator, x: &Value, encoded: &Value) -> Vec<Culprit> {
        let mut out: Vec<Culprit> = Vec::new();
        for error in projection.iter_errors(encoded) {
            let at = error.instance_path().as_str().to_owned();
            let keyword = error.kind().keyword().to_owned();
            let nodes = locate::applicable_nodes(self.source, x, &at);
            // The occurrence of the keyword the projection failed on, where the source has it;
            // else the nodes themselves.
            let mut named = false;
            for node in &nodes {
                for (o, _) in self.rows.iter().filter(|(o, _)| o.pointer == *node && same_family(o.keyword, &keyword)) {
                    push(&mut out, Culprit { node: node.clone(), keyword: o.keyword.to_owned(), instance_at: at.clone(), inverted: false });
                    named = true;
                }
            }
            if !named && let Some(node) = nodes.last() {
                push(&mut out, Culprit { node: node.clone(), keyword: String::new(), instance_at: at.clone(), inverted: false });
            }
        }
        out
    }

    /// The row of the occurrence `keyword` at `node`, if the source has one there.
    #[must_use]
    pub fn row_at(&self, node: &str, keyword: &str) -> Option<&'a Row> {
        self.rows.iter().find(|(o, _)| o.pointer == node && o.keyword == keyword).map(|(_, r)| *r)
    }
}

/// Whether a projection asserts nothing but a root `type` (annotations and an empty `properties`
/// aside): what a whole-tool fallback looks like.
fn is_fallback(projection: &Value) -> bool {
    match projection {
        Value::Bool(true) => true,
        Value::Object(map) => map.iter().all(|(k, v)| match k.as_str() {
            "type" => true,
            "properties" => v.as_object().is_some_and(Map::is_empty),
            k => NON_ASSERTING.contains(&k),
        }),
        _ => false,
    }
}

/// Whether a projection's keyword can stand for the source's: the same keyword, or one spelled
/// another way (`maximum` for `exclusiveMaximum`, `enum` for `const`, a `false` schema for
/// `additionalProperties: false`).
fn same_family(source: &str, projection: &str) -> bool {
    const FAMILIES: &[&[&str]] = &[
        &["minimum", "exclusiveMinimum"],
        &["maximum", "exclusiveMaximum"],
        &["enum", "const"],
        &["additionalProperties", "unevaluatedProperties", "falseSchema", "false"],
        &["items", "prefixItems", "unevaluatedItems"],
    ];
    source == projection || FAMILIES.iter().any(|f| f.contains(&source) && f.contains(&projection))
}

fn push(out: &mut Vec<Culprit>, culprit: Culprit) {
    if !out.contains(&culprit) {
        out.push(culprit);
    }
}

fn is_empty_schema(value: &Value) -> bool {
    matches!(value, Value::Bool(true)) || value.as_object().is_some_and(Map::is_empty)
}

/// Split a keyword location into its node and keyword. A location naming a boolean subschema
/// (`/properties/a` holding `false`) is the node itself, keyword `false`.
fn split_keyword(path: &str, schema: &Value) -> (String, String) {
    if let Some(Value::Bool(b)) = schema.pointer(path) {
        return (path.to_owned(), b.to_string());
    }
    match path.rsplit_once('/') {
        Some((node, keyword)) => (node.to_owned(), keyword.replace("~1", "/").replace("~0", "~")),
        None => (String::new(), path.to_owned()),
    }
}

/// One occurrence a deviation is pinned on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Culprit {
    /// The source schema node (JSON pointer).
    pub node: String,
    /// The keyword there (`false` for a boolean subschema; empty when the projection failed on a
    /// keyword the source does not have at that place).
    pub keyword: String,
    /// Where in the instance.
    pub instance_at: String,
    /// The source rejects there with a `false` subschema: a widening there is an inversion.
    pub inverted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bound(source: &Value, at: &str, keyword: &str, becomes: Becomes, direction: Direction) -> Value {
        let occurrences = walk::occurrences(source).unwrap();
        let occ = occurrences.iter().find(|o| o.pointer == at && o.keyword == keyword).unwrap();
        let mut out = Vec::new();
        edits(source, occ, becomes, direction, false, &mut out);
        apply(source, out)
    }

    #[test]
    fn widenings_remove_the_occurrence_where_it_stands() {
        let s = json!({"properties": {"a": {"pattern": "^x", "maxLength": 3}}});
        assert_eq!(bound(&s, "/properties/a", "pattern", Becomes::Description, Direction::Widening), json!({"properties": {"a": {"maxLength": 3}}}));
        let s = json!({"oneOf": [{"type": "string"}, {"minLength": 2}]});
        assert_eq!(bound(&s, "", "oneOf", Becomes::AnyOf, Direction::Widening), json!({"anyOf": [{"type": "string"}, {"minLength": 2}]}));
    }

    #[test]
    fn under_not_a_widening_drops_the_not_and_a_narrowing_closes_the_node() {
        let s = json!({"properties": {"a": {"not": {"pattern": "^x"}}}});
        assert_eq!(bound(&s, "/properties/a/not", "pattern", Becomes::Description, Direction::Widening), json!({"properties": {"a": {}}}));
        assert_eq!(bound(&s, "/properties/a/not", "pattern", Becomes::Description, Direction::Narrowing), json!({"properties": {"a": false}}));
    }

    #[test]
    fn narrowings_rewrite_to_what_the_row_says() {
        let s = json!({"type": "object", "properties": {"a": {"type": ["string", "integer"]}}});
        assert_eq!(
            bound(&s, "", "properties", Becomes::ClosedRequired, Direction::Narrowing),
            json!({"type": "object", "properties": {"a": {"type": ["string", "integer"]}}, "additionalProperties": false, "required": ["a"]})
        );
        assert_eq!(
            bound(&s, "/properties/a", "type", Becomes::FirstMember, Direction::Narrowing),
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        );
    }

    #[test]
    fn only_a_reference_on_a_cycle_is_cut() {
        let s = json!({"$defs": {"n": {"properties": {"next": {"$ref": "#/$defs/n"}}}, "leaf": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/leaf"}, "b": {"$ref": "#/$defs/n"}}});
        assert_eq!(bound(&s, "/properties/a", "$ref", Becomes::Unrolled, Direction::Narrowing), s);
        assert_eq!(bound(&s, "/properties/b", "$ref", Becomes::Unrolled, Direction::Narrowing), s, "reaches a cycle but is not on it");
        let cut = bound(&s, "/$defs/n/properties/next", "$ref", Becomes::Unrolled, Direction::Narrowing);
        assert_eq!(cut["$defs"]["n"]["properties"]["next"], json!(false));
    }

    #[test]
    fn a_standard_schema_uri_is_not_a_narrowing() {
        let s = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"});
        assert_eq!(bound(&s, "", "$schema", Becomes::Dropped, Direction::Narrowing), s);
    }
}
