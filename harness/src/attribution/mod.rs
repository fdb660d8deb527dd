//! Attribution: each deviation is judged where it acts, against the rows of the occurrences it
//! touches, never against every row of the case.
//!
//! Every witness is checked against a **bound** built from the source by rewriting only the
//! occurrences whose rows approximate, each where it stands and as its word of `to:` says
//! ([`edit`]): a widening occurrence is loosened (its assertion gone, its names and positions
//! still claimed; `oneOf` read as `anyOf` only where its own row says so), a narrowing one is
//! tightened to exactly what it became (`closed`, `required`, `first-member`, `null-dropped`,
//! `false`, `unrolled`, `nesting-bounded`). Polarity is followed structurally ([`polarity`]):
//! under `not`, `if`, `oneOf` and a `contains` bounded by `maxContains` an approximation acts in
//! the other direction too, and the bound of each direction accounts for it, so a translator
//! faithful to its table is never blamed across polarity, and `oneOf` stays `oneOf`.
//!
//! - a **widening** witness `y` (the projection accepts it, the source rejects `decode(y)`) is
//!   explained when the **upper** bound accepts `decode(y)`;
//! - a **narrowing** witness `x` (the source accepts it, the projection rejects `encode(x)`) is
//!   explained when the **lower** bound rejects `x`. Two words cannot be bounded exactly
//!   (`bounds-tightened`, and `rewritten` as a narrowing): they let their keyword reject every
//!   instance it applies to, and a witness they explain must also be *pinned* on their keyword
//!   (the projection rejects it at that keyword's family, never at a sibling's).
//!
//! **Marks** (`known_violation`) are explained the same way, as narrow as the defect: a widening
//! mark loosens its own occurrence (in its `where:` scope), a mark with `to:` bounds like a row
//! with that word, and a narrowing mark without `to:` is pinned: it explains a witness only when
//! every occurrence the projection rejects it at carries a mark. A witness the table does not
//! explain is credited to the marks that explain it (each alone, else all together).
//!
//! **Inversions** are judged on every widening witness, explained or not ([`inversion`]).
//!
//! Table-level **rules** (`rules:`) are bounded like rows, on every node they apply to.

mod edit;
mod inversion;
mod pins;
mod polarity;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use schema_fidelity_translators::walk::Occurrence;
use serde_json::{Map, Value};

use crate::codec::{Mapper, Way};
use crate::deviation::{Becomes, Direction};
use crate::retrieve::LocalRetriever;
use crate::table::{Disposition, Row, TableRule};
use crate::validation::Env;
use crate::verdict::{Attribution, Culprit, Judgement};
use edit::Precision;
use polarity::{Mode, NodeEdits};

/// The bound of the table's declared approximations for one direction ([`Bounds::declared_bound`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Declared {
    /// Every deviation of the direction is explained (a whole-tool fallback's widening).
    Everything,
    /// The bound, as a draft 2020-12 schema of source-side instances.
    Schema(Value),
}

/// One contributor to a bound: a row's approximation (across its occurrences), a rule, or a mark.
struct Contributor {
    /// The row (or rule) id it stands for.
    row: String,
    kind: Kind,
    /// Its edits alone.
    edits: BTreeMap<String, NodeEdits>,
    precision: Precision,
    /// A whole-tool fallback (applies only when the projection is one).
    whole_tool: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A declared approximation, or a rule the table declares.
    Declared,
    /// A `known_violation` mark, bounded by its word (or, widening, its occurrence removed).
    Mark,
}

/// The projection side a narrowing is pinned on.
pub struct ProjectionSide<'a> {
    pub validator: &'a jsonschema::Validator,
    pub codec: &'a Mapper<'a>,
    /// The projection asserts nothing beyond a root `type` (a whole-tool fallback).
    pub is_fallback: bool,
}

/// A bound's validator, compiled once on first use (`None`: the bound does not compile).
type Slot = Arc<OnceLock<Option<Arc<Compiled>>>>;

/// A bound: the rewritten schema, where its written parts come from, and its validator.
struct Compiled {
    schema: Value,
    provenance: polarity::Provenance,
    validator: jsonschema::Validator,
}

/// What the bounds are made of: each row's, rule's and mark's edits, worked out on first use.
#[derive(Default)]
struct Prepared {
    contributors: Vec<Contributor>,
    /// Rows whose narrowing marks carry no word: pinned marks.
    pinned_marks: BTreeSet<String>,
    /// Rows whose approximation narrows (a narrowing pinned on one is the row's own).
    narrowing_rows: BTreeSet<String>,
}

/// The bounds of one trial. Nothing is worked out until a witness asks (most trials have none
/// to judge), and each bound is compiled once.
pub struct Bounds<'a> {
    source: &'a Value,
    rows: &'a [(Occurrence<'a>, &'a Row)],
    implicit_true: Option<&'a Row>,
    rules: &'a [TableRule],
    /// The object-root mark that explains a forced root type, if it applies ([`Bounds::with_forced_object_root`]).
    forced_root: Option<String>,
    prepared: OnceLock<Prepared>,
    projection: Option<ProjectionSide<'a>>,
    source_validator: Option<&'a jsonschema::Validator>,
    env: &'a Env,
    assert_formats: bool,
    compiled: Mutex<HashMap<(Mode, Vec<usize>), Slot>>,
    /// The source with one `false` position made `true`, compiled once per position (the
    /// inversion check asks it of every widening).
    relaxed_at: inversion::Relaxed<'a>,
    /// The source indexed for its references, once (naming a narrowing's occurrences follows them).
    resolver: OnceLock<Option<schema_fidelity_translators::refs::Resolver<'a>>>,
    /// The source holds a `false` subschema (or a `not` of the empty schema): only then can a
    /// widening be an inversion.
    has_false: bool,
}

impl<'a> Bounds<'a> {
    /// The bounds of `source` under the rows of its occurrences, the `true` row (which also governs
    /// an absent `items` or `additionalProperties`) and the table's rules.
    #[must_use]
    pub fn new(source: &'a Value, rows: &'a [(Occurrence<'a>, &'a Row)], implicit_true: Option<&'a Row>, rules: &'a [TableRule], env: &'a Env, assert_formats: bool) -> Self {
        Bounds {
            source,
            rows,
            implicit_true,
            rules,
            forced_root: None,
            prepared: OnceLock::new(),
            projection: None,
            source_validator: None,
            env,
            assert_formats,
            compiled: Mutex::default(),
            relaxed_at: inversion::Relaxed::new(source, env, assert_formats),
            resolver: OnceLock::new(),
            has_false: rows.iter().any(|(o, _)| o.keyword == "false" || (o.keyword == "not" && pins::is_empty_schema(o.value))),
        }
    }

    /// The contributors, worked out on first use.
    fn prep(&self) -> &Prepared {
        self.prepared.get_or_init(|| self.prepare())
    }

    fn prepare(&self) -> Prepared {
        let source = self.source;
        let mut p = Prepared::default();
        let add = |p: &mut Prepared, row: &Row, kind: Kind, edits: BTreeMap<String, NodeEdits>, precision: Precision, whole_tool: bool| {
            let id = row.id.to_string();
            match p.contributors.iter_mut().find(|c| c.row == id && c.kind == kind) {
                Some(c) => {
                    for (node, e) in edits {
                        let slot = c.edits.entry(node).or_default();
                        slot.loosen.extend(e.loosen);
                        slot.tighten.extend(e.tighten);
                    }
                    c.precision = c.precision.max(precision);
                    c.whole_tool |= whole_tool;
                }
                None => p.contributors.push(Contributor { row: id, kind, edits, precision, whole_tool }),
            }
        };
        for (occ, row) in self.rows {
            if let Disposition::Approximated { direction, to } = row.disposition {
                if direction == Direction::Narrowing {
                    p.narrowing_rows.insert(row.id.to_string());
                }
                let mut edits = BTreeMap::new();
                let precision = edit::occurrence(source, occ, to, direction, None, row.depth, &mut edits);
                if precision.is_some() || to == Becomes::WholeTool {
                    add(&mut p, row, Kind::Declared, edits, precision.unwrap_or(Precision::Exact), to == Becomes::WholeTool);
                }
            }
            for mark in row.marks.iter().filter(|k| k.crash.is_none()) {
                if mark.direction == Direction::Narrowing && mark.to.is_none() {
                    p.pinned_marks.insert(row.id.to_string());
                    continue;
                }
                let word = mark.to.unwrap_or(Becomes::Dropped);
                let mut edits = BTreeMap::new();
                let precision = edit::occurrence(source, occ, word, mark.direction, mark.scope.as_ref(), None, &mut edits);
                if precision.is_some() || word == Becomes::WholeTool {
                    add(&mut p, row, Kind::Mark, edits, precision.unwrap_or(Precision::Exact), word == Becomes::WholeTool);
                }
            }
        }
        if let Some(row) = self.implicit_true {
            if let Disposition::Approximated { direction: Direction::Narrowing, to } = row.disposition {
                p.narrowing_rows.insert(row.id.to_string());
                let mut edits = BTreeMap::new();
                if edit::implicit_true(source, to, row.depth, &mut edits) {
                    add(&mut p, row, Kind::Declared, edits, Precision::Exact, false);
                }
            }
            for mark in row.marks.iter().filter(|k| k.crash.is_none() && k.direction == Direction::Narrowing) {
                let mut edits = BTreeMap::new();
                if let Some(word) = mark.to
                    && edit::implicit_true(source, word, row.depth, &mut edits)
                {
                    add(&mut p, row, Kind::Mark, edits, Precision::Exact, false);
                }
            }
        }
        for rule in self.rules {
            let mut edits = BTreeMap::new();
            if edit::rule(source, rule.kind, &mut edits) {
                let kind = if rule.row.marks.is_empty() { Kind::Declared } else { Kind::Mark };
                add(&mut p, &rule.row, kind, edits, Precision::Exact, false);
            }
        }
        if let Some(id) = &self.forced_root {
            let mut edits = BTreeMap::new();
            edits.insert(String::new(), NodeEdits { loosen: Vec::new(), tighten: vec![polarity::Edit::Set { keyword: "type".to_owned(), value: Value::from("object") }] });
            p.contributors.push(Contributor { row: id.clone(), kind: Kind::Mark, edits, precision: Precision::Exact, whole_tool: false });
        }
        for c in &mut p.contributors {
            edit::loosen_unevaluated(source, &mut c.edits);
        }
        p
    }

    /// The source's reference index, built on first use.
    fn resolver(&self) -> Option<&schema_fidelity_translators::refs::Resolver<'a>> {
        self.resolver.get_or_init(|| schema_fidelity_translators::refs::Resolver::new(self.source).ok()).as_ref()
    }

    /// The table marks its target's object-root rule as known broken (`target_violations.
    /// object-root`, the mark `id`) and this source's root may accept a non-object: the translator
    /// forced `type: object` onto it (TRACKING.md#sf-1316), and that mark explains the narrowing to
    /// objects, bounded as exactly that.
    #[must_use]
    pub fn with_forced_object_root(mut self, id: String) -> Self {
        self.forced_root = Some(id);
        self
    }

    /// The projection side: narrowings are pinned on its errors, a whole-tool fallback is
    /// recognised, and `source` judges inversions.
    #[must_use]
    pub fn with_projection(mut self, projection: ProjectionSide<'a>, source: &'a jsonschema::Validator) -> Self {
        self.projection = Some(projection);
        self.source_validator = Some(source);
        self
    }

    /// How the deviation `direction` of the source-side instance `x` (for a widening,
    /// `decode(y)`) is explained.
    #[must_use]
    pub fn judge(&self, direction: Direction, x: &Value) -> Attribution {
        if self.explained_by(direction, x, Kind::Declared, None) {
            return Attribution::Declared(Vec::new());
        }
        let marks = self.marks(direction, x);
        if !marks.is_empty() {
            return Attribution::Marked(marks);
        }
        Attribution::Unexplained(self.culprits(direction, x))
    }

    /// The judgement of the witness search: only whether the table, its marks, or nothing explains
    /// the deviation (the search asks this of every candidate, so it names no rows and no
    /// culprits). A widening that inverts a `false` no mark covers is unexplained whatever
    /// explains the rest.
    #[must_use]
    pub fn judgement(&self, direction: Direction, x: &Value) -> Judgement {
        if direction == Direction::Widening && self.inversions(x).iter().any(|(_, covered)| covered.is_none()) {
            return Judgement::Unexplained;
        }
        if self.explained_by(direction, x, Kind::Declared, None) {
            return Judgement::Declared;
        }
        let has_marks = self.prep().contributors.iter().any(|c| c.kind == Kind::Mark);
        let by_marks = has_marks && self.explained_by(direction, x, Kind::Mark, None);
        let pinned = direction == Direction::Narrowing && !self.prep().pinned_marks.is_empty();
        if by_marks || pinned {
            let marks = self.marks(direction, x);
            if by_marks || !marks.is_empty() {
                let mut h = crate::hash::Fnv1a::default();
                for mark in &marks {
                    h.write_framed(mark.as_bytes());
                }
                return Judgement::Marked(h.value());
            }
        }
        Judgement::Unexplained
    }

    /// The bound the table's declared approximations set for `direction`, as a schema (only the
    /// words bounded exactly: what [`Bounds::judge`] tries first), for a proof that every deviation
    /// of that direction is one the table explains: every instance the projection accepts, the
    /// upper bound accepts (widening); every instance the lower bound accepts, the projection
    /// accepts (narrowing). [`Declared::Everything`] for a whole-tool fallback, which explains
    /// every widening. Reading it changes no judgement.
    #[must_use]
    pub fn declared_bound(&self, direction: Direction) -> Declared {
        let fallback = self.projection.as_ref().is_some_and(|p| p.is_fallback);
        let declared: Vec<usize> = self.prep().contributors.iter().enumerate().filter(|(_, c)| c.kind == Kind::Declared).map(|(i, _)| i).collect();
        if direction == Direction::Widening && fallback && declared.iter().any(|i| self.prep().contributors[*i].whole_tool) {
            return Declared::Everything;
        }
        let exact: Vec<usize> = declared.into_iter().filter(|i| self.prep().contributors[*i].precision == Precision::Exact).collect();
        let mode = match direction {
            Direction::Widening => Mode::Upper,
            Direction::Narrowing => Mode::Lower,
        };
        Declared::Schema(self.schema(mode, &exact).0)
    }

    /// Whether the table's approximations explain the deviation (for tests and views).
    #[must_use]
    pub fn declared(&self, direction: Direction, x: &Value) -> bool {
        self.explained_by(direction, x, Kind::Declared, None)
    }

    /// The `false` positions of the source a widening witness's decoding `x` is rejected at, each
    /// with the row whose widening mark covers it (the `false` occurrence's own row, or the row of
    /// the keyword holding it in its `false` form), if any.
    #[must_use]
    pub fn inversions(&self, x: &Value) -> Vec<(Culprit, Option<String>)> {
        let Some(validator) = self.source_validator.filter(|_| self.has_false) else { return Vec::new() };
        inversion::inversions(self.source, validator, x, &self.relaxed_at)
            .into_iter()
            .map(|c| {
                let covered = self.covering_rows(&c).into_iter().find(|r| r.mark_bounding(Direction::Widening).is_some()).map(|r| r.id.to_string());
                (c, covered)
            })
            .collect()
    }

    /// The rows governing an inverted occurrence: the `false` (or `not`) itself, and every keyword
    /// holding it on its path from the root (`additionalProperties`, a `properties` entry, a
    /// dropped `dependentSchemas` around it).
    fn covering_rows(&self, c: &Culprit) -> Vec<&'a Row> {
        let mut out = Vec::new();
        if let Some(row) = self.row_at(&c.node, &c.keyword) {
            out.push(row);
        }
        let tokens = schema_fidelity_translators::walk::tokens(&c.node);
        let mut parent = String::new();
        for token in &tokens {
            if schema_fidelity_translators::walk::value_kind(token).is_some()
                && let Some(row) = self.row_at(&parent, token)
            {
                out.push(row);
            }
            parent.push('/');
            parent.push_str(&schema_fidelity_translators::walk::escape(token));
        }
        out
    }

    /// The marked rows that explain a deviation the table does not: each mark that does alone,
    /// else every mark if together they do, else the pinned narrowing marks every occurrence at
    /// fault carries, else none.
    fn marks(&self, direction: Direction, x: &Value) -> Vec<String> {
        let marks: Vec<usize> = self.prep().contributors.iter().enumerate().filter(|(_, c)| c.kind == Kind::Mark).map(|(i, _)| i).collect();
        if !marks.is_empty() && self.explained_by(direction, x, Kind::Mark, None) {
            let alone: Vec<String> = marks.iter().filter(|i| self.explained_by(direction, x, Kind::Declared, Some(**i))).map(|i| self.prep().contributors[*i].row.clone()).collect();
            if !alone.is_empty() {
                return dedup(alone);
            }
            return dedup(marks.iter().map(|i| self.prep().contributors[*i].row.clone()).collect());
        }
        if direction == Direction::Narrowing && !self.prep().pinned_marks.is_empty() {
            let culprits = self.culprits(direction, x);
            let rows: Vec<Option<String>> = culprits
                .iter()
                .map(|c| {
                    if c.keyword.is_empty() {
                        // No keyword there: a pinned mark standing at a node that applies in place.
                        return self
                            .rows
                            .iter()
                            .find(|(o, r)| c.stands_at(&o.pointer) && self.prep().pinned_marks.contains(&r.id.to_string()))
                            .map(|(_, r)| r.id.to_string());
                    }
                    self.row_at(&c.node, &c.keyword).map(|r| r.id.to_string())
                })
                .collect();
            let all_allowed = !rows.is_empty() && rows.iter().all(|r| r.as_ref().is_some_and(|r| self.prep().pinned_marks.contains(r) || self.prep().narrowing_rows.contains(r)));
            if all_allowed {
                let marked: Vec<String> = rows.into_iter().flatten().filter(|r| self.prep().pinned_marks.contains(r)).collect();
                if !marked.is_empty() {
                    return dedup(marked);
                }
            }
        }
        Vec::new()
    }

    /// The approximated rows (and rules) that explain a deviation each on their own (for
    /// reports); empty when only several together do.
    #[must_use]
    pub fn rows_explaining(&self, direction: Direction, x: &Value) -> Vec<String> {
        let candidates: Vec<usize> = self.prep().contributors.iter().enumerate().filter(|(_, c)| c.kind == Kind::Declared).map(|(i, _)| i).collect();
        let alone: Vec<String> = candidates.iter().filter(|i| self.explained_only_by(direction, x, **i)).map(|i| self.prep().contributors[*i].row.clone()).collect();
        dedup(alone)
    }

    /// Whether the bound of the contributors of `kind` (declared ones always; marks too for
    /// `Kind::Mark`), plus `extra`, explains the deviation.
    fn explained_by(&self, direction: Direction, x: &Value, kind: Kind, extra: Option<usize>) -> bool {
        let chosen: Vec<usize> =
            self.prep().contributors.iter().enumerate().filter(|(i, c)| c.kind == Kind::Declared || c.kind == kind || Some(*i) == extra).map(|(i, _)| i).collect();
        self.explained_with(direction, x, &chosen)
    }

    fn explained_only_by(&self, direction: Direction, x: &Value, only: usize) -> bool {
        self.explained_with(direction, x, &[only])
    }

    /// Whether the bound made of `chosen` explains the deviation: exactly, or (for a narrowing
    /// under a word bounded only up to its keyword) with every occurrence at fault approximated.
    fn explained_with(&self, direction: Direction, x: &Value, chosen: &[usize]) -> bool {
        let fallback = self.projection.as_ref().is_some_and(|p| p.is_fallback);
        if direction == Direction::Widening && fallback && chosen.iter().any(|i| self.prep().contributors[*i].whole_tool) {
            return true;
        }
        let mode = match direction {
            Direction::Widening => Mode::Upper,
            Direction::Narrowing => Mode::Lower,
        };
        let exact: Vec<usize> = chosen.iter().copied().filter(|i| self.prep().contributors[*i].precision == Precision::Exact).collect();
        if self.bound_explains(mode, &exact, x) {
            return true;
        }
        if exact.len() == chosen.len() || direction == Direction::Widening {
            return false;
        }
        if !self.bound_explains(mode, chosen, x) {
            return false;
        }
        // Pinned: every occurrence the projection rejects the witness at is approximated (or
        // marked, by a chosen mark), never a sibling the table keeps.
        // A projection keyword the source has no occurrence of at that node (the keyword was
        // rewritten into another) is pinned on a loose row whose occurrence stands there.
        let allowed: BTreeSet<&str> = chosen.iter().map(|i| self.prep().contributors[*i].row.as_str()).collect();
        let loose: BTreeSet<&str> = chosen.iter().filter(|i| self.prep().contributors[**i].precision == Precision::Pinned).map(|i| self.prep().contributors[*i].row.as_str()).collect();
        let culprits = self.culprits(direction, x);
        !culprits.is_empty()
            && culprits.iter().all(|c| {
                if c.keyword.is_empty() {
                    return self.rows.iter().any(|(o, r)| c.stands_at(&o.pointer) && loose.contains(r.id.to_string().as_str()));
                }
                self.row_at(&c.node, &c.keyword).is_some_and(|r| {
                    let id = r.id.to_string();
                    allowed.contains(id.as_str()) || self.prep().narrowing_rows.contains(&id)
                })
            })
    }

    fn bound_explains(&self, mode: Mode, chosen: &[usize], x: &Value) -> bool {
        let Some(bound) = self.validator(mode, chosen) else { return false };
        match mode {
            Mode::Upper => bound.validator.is_valid(x),
            Mode::Lower => !bound.validator.is_valid(x),
        }
    }

    /// The bound of `chosen` in `mode`, compiled once.
    fn validator(&self, mode: Mode, chosen: &[usize]) -> Option<Arc<Compiled>> {
        let mut key = chosen.to_vec();
        key.sort_unstable();
        let slot = {
            let mut compiled = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
            compiled.entry((mode, key)).or_default().clone()
        };
        slot.get_or_init(|| {
            let (schema, provenance) = self.schema(mode, chosen);
            jsonschema::draft202012::options()
                .should_validate_formats(self.assert_formats)
                .with_retriever(LocalRetriever::new(self.env.remotes.clone()))
                .build(&schema)
                .ok()
                .map(|validator| Arc::new(Compiled { schema, provenance, validator }))
        })
        .clone()
    }

    /// The source rewritten by the edits of `chosen`, as the bound of `mode`.
    fn schema(&self, mode: Mode, chosen: &[usize]) -> (Value, polarity::Provenance) {
        let mut edits: BTreeMap<String, NodeEdits> = BTreeMap::new();
        for i in chosen {
            for (node, e) in &self.prep().contributors[*i].edits {
                let slot = edits.entry(node.clone()).or_default();
                slot.loosen.extend(e.loosen.iter().cloned());
                slot.tighten.extend(e.tighten.iter().cloned());
            }
        }
        polarity::bound(self.source, &edits, mode)
    }

    /// The occurrences a deviation is pinned on: for a widening, where the source loosened by the
    /// table still rejects it; for a narrowing, where the projection rejects its encoding.
    #[must_use]
    pub fn culprits(&self, direction: Direction, x: &Value) -> Vec<Culprit> {
        match direction {
            Direction::Widening => {
                let declared: Vec<usize> = self.prep().contributors.iter().enumerate().filter(|(_, c)| c.kind == Kind::Declared).map(|(i, _)| i).collect();
                match self.validator(Mode::Upper, &declared) {
                    Some(bound) => pins::widening(&bound.schema, &bound.validator, x, &bound.provenance),
                    None => Vec::new(),
                }
            }
            Direction::Narrowing => {
                let Some(p) = &self.projection else { return Vec::new() };
                let encoded = p.codec.apply(x, Way::Encode);
                let occurs = |node: &str, keyword: &str| -> Vec<String> {
                    self.rows.iter().filter(|(o, _)| o.pointer == node && pins::same_family(o.keyword, keyword)).map(|(o, _)| o.keyword.to_owned()).collect()
                };
                pins::narrowing(self.source, self.resolver(), p.validator, x, &encoded, &occurs)
            }
        }
    }

    /// The row of the occurrence `keyword` at `node`, if the source has one there.
    #[must_use]
    pub fn row_at(&self, node: &str, keyword: &str) -> Option<&'a Row> {
        self.rows.iter().find(|(o, _)| o.pointer == node && o.keyword == keyword).map(|(_, r)| *r)
    }
}

fn dedup(mut ids: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    ids.retain(|id| seen.insert(id.clone()));
    ids
}

/// Whether a projection asserts nothing but a root `type` (annotations and an empty `properties`
/// aside): what a whole-tool fallback looks like.
#[must_use]
pub fn is_fallback(projection: &Value) -> bool {
    match projection {
        Value::Bool(true) => true,
        Value::Object(map) => map.iter().all(|(k, v)| match k.as_str() {
            "type" => true,
            "properties" => v.as_object().is_some_and(Map::is_empty),
            k => !schema_fidelity_translators::vocabulary::asserts(k),
        }),
        _ => false,
    }
}
