//! The report's data: every table, every row, and what running the oracle over the corpus said
//! about each row. `report.json` is this model serialized (its format is
//! `schemas/report.schema.json`); the Markdown and HTML pages are views of it.
//!
//! Two facts per row come from running the oracle, not from the table:
//!
//! - **cases**: how many cases (not skipped) use the row, i.e. hold a keyword occurrence that the
//!   row governs, found by the same walk and lookup the oracle uses;
//! - **witness**: for an approximation (or a known violation), one instance on which source and
//!   projection disagree in the row's direction *and that the oracle attributed to this row*
//!   ([`crate::attribution`]: the row's bound alone explains it). Among those, the one shared with
//!   the fewest other rows, then the shortest instance, then the first case: deterministic
//!   (`explained_by` says how many rows explain it on their own).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use schema_fidelity_translators::vocabulary::{BOOLEAN_SUBSCHEMAS, DRAFT_2020_12};
use schema_fidelity_translators::{Outcome, Translator};
use serde::Serialize;
use serde_json::Value;

use super::anchor;
use crate::hash;
use super::progress::Progress;
use crate::corpus::Case;
use crate::deviation::Direction;
use crate::records::Record;
use crate::session::{Loaded, Resolver};
use crate::table::{Disposition, Row, Table};
use crate::validation::Env;
use crate::verdict::{self, Attribution, Verdict, Witness};

/// The version of the `report.json` format; bump it with any incompatible change to the schema.
pub const FORMAT_VERSION: u32 = 6;

/// Everything the reports show.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub format: u32,
    pub tool: Tool,
    /// Fingerprint of `dispositions/` (tables and grammars).
    pub tables: Fingerprint,
    pub corpus: Corpus,
    pub translators: Vec<TranslatorReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Fingerprint {
    pub hash: String,
    pub files: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Corpus {
    /// Fingerprint of `corpus/`.
    pub own: Fingerprint,
    pub own_cases: usize,
    /// The JSON-Schema-Test-Suite, when it was present (`null` otherwise: the case counts then
    /// cover the own corpus only).
    pub suite: Option<Suite>,
    /// Corpus files that did not load.
    pub errors: Vec<String>,
    /// Every case run, by id, sorted.
    pub cases: Vec<String>,
    /// The real tools among them: the harvested MCP servers' tool schemas (`corpus/mcp/`).
    pub real_tools: RealTools,
}

/// Where the real tools' cases are: one file per MCP server, one case per tool
/// (`schema-fidelity harvest`, [`crate::mcp`]).
pub const REAL_TOOLS: &str = "corpus/mcp/";

/// The real tools of the corpus, and the keywords they use.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RealTools {
    /// The servers (harvested files) and tools (cases).
    pub servers: usize,
    pub tools: usize,
    /// Per draft 2020-12 keyword (and boolean subschema) a real tool uses: how many tools use it,
    /// at any depth. Keywords no real tool uses are left out.
    pub keywords: BTreeMap<String, usize>,
}

impl RealTools {
    /// The real tools among `cases`.
    #[must_use]
    pub fn of(cases: &[Arc<Case>]) -> Self {
        let mut out = Self::default();
        let mut servers = std::collections::BTreeSet::new();
        for case in cases.iter().filter(|c| c.id.starts_with(REAL_TOOLS)) {
            out.tools += 1;
            servers.insert(case.id.split("::").next().unwrap_or_default().to_owned());
            let used: std::collections::BTreeSet<&str> = schema_fidelity_translators::walk::occurrences(&case.schema)
                .into_iter()
                .flatten()
                .map(|o| o.keyword)
                .filter(|k| schema_fidelity_translators::vocabulary::keyword(k).is_some() || BOOLEAN_SUBSCHEMAS.contains(k))
                .collect();
            for keyword in used {
                *out.keywords.entry(keyword.to_owned()).or_default() += 1;
            }
        }
        out.servers = servers.len();
        out
    }
}

/// How one translator sends the real tools: each tool in exactly one class.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RealToolsTally {
    pub tools: usize,
    /// Compared with the source and no deviation found either way (not refuted)...
    pub exact: usize,
    /// ... of which proven: the projection accepts exactly what the source accepts.
    pub proven_exact: usize,
    /// Sent with a loss its table declares: a widening or narrowing the approximations explain.
    pub declared_loss: usize,
    /// Refused, as its table says it refuses.
    pub refused: usize,
    /// Broken, and a `known_violation` mark says so (a crash, a target rule, an undeclared loss).
    pub known: usize,
    /// Broken, and no row says so: a failing trial.
    pub failed: usize,
    /// Not run here (the reason is on the trial).
    pub skipped: usize,
}

impl RealToolsTally {
    fn count(&mut self, run: &Record) {
        self.tools += 1;
        match &run.verdict {
            Verdict::Pass(s) if s.refused => self.refused += 1,
            Verdict::Pass(s) if s.found.is_empty() => {
                self.exact += 1;
                self.proven_exact += usize::from(run.evidence.as_ref().is_some_and(verdict::TrialEvidence::exact));
            }
            Verdict::Pass(_) => self.declared_loss += 1,
            Verdict::ExpectedFailure { .. } => self.known += 1,
            Verdict::Fail(_) => self.failed += 1,
            Verdict::Skip(_) => self.skipped += 1,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Suite {
    /// Fingerprint of the suite's `tests/draft2020-12` and `remotes`.
    pub hash: String,
    pub files: usize,
    pub cases: usize,
}

/// One table and, when its translator is known, what running it over the corpus found.
#[derive(Debug, Clone, Serialize)]
pub struct TranslatorReport {
    pub name: String,
    /// The table file, relative to the project root.
    pub table: String,
    pub description: Option<String>,
    pub source: Option<String>,
    /// The target the table names (`targets/<name>.yaml`).
    pub target: Option<String>,
    /// The second surface some projections go to, in another dialect (`alternate_target:`).
    pub alternate_target: Option<String>,
    pub dialect: Option<String>,
    pub grammar: Option<String>,
    pub requires_object_root: bool,
    pub limits: Vec<LimitReport>,
    /// Rules of the target the translator is known to break (`target_violations:`).
    pub target_violations: Vec<TargetViolationReport>,
    /// Lint findings, each `file:line: message`.
    pub lint: Vec<String>,
    /// `null` when no translator of this name is known: the table is shown, nothing is run.
    pub trials: Option<Trials>,
    pub rows: Vec<RowReport>,
    /// Why the translator could not be run here (an external one not installed), with its install
    /// command. Not part of `report.json`: [`super::generate`] keeps the committed page and entry
    /// of such a translator instead of writing what was not run.
    #[serde(skip)]
    pub unavailable: Option<String>,
    /// How an external translator is run (its table's `run:`), for the HTML page's marker. Not
    /// part of `report.json`.
    #[serde(skip)]
    pub adapter: Option<String>,
    /// For an external translator: its package and pinned version (the table's `package:`).
    pub package: Option<String>,
    /// For an external translator: where its users send a tool (the table's `entry:`).
    pub entry: Option<EntryReport>,
    /// For a built-in translator: the real translator it is the reference for (`models:`).
    pub models: Option<String>,
    /// For a built-in translator: its reviewed differences from that real translator
    /// (`models_reviewed:`), row citation to why the reference is right. Not part of
    /// `report.json`: the pages show it.
    #[serde(skip)]
    pub models_reviewed: std::collections::BTreeMap<String, String>,
}

/// The table's `entry:`, as `report.json` gives it.
#[derive(Debug, Clone, Serialize)]
pub struct EntryReport {
    pub call: String,
    pub path: String,
    pub reads: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TargetViolationReport {
    /// `grammar`, `recursion`, `object-root` or `limits`.
    pub rule: String,
    pub line: u64,
    pub issue: String,
    /// For `grammar`: the projection keywords at fault; for `limits`: the limits.
    pub keywords: Vec<String>,
    pub witness: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LimitReport {
    pub name: String,
    pub value: u64,
    /// What the oracle counts; `None` for a bound it cannot count (a known narrowing).
    pub counts: Option<String>,
    /// `target` (a documented provider limit) or `translator` (the translator's own bound).
    pub of: String,
    pub note: String,
}

/// The oracle's verdicts over the corpus for one translator.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Trials {
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    pub known_violations: usize,
    pub skipped: usize,
    /// The failing case ids, sorted.
    pub failed_cases: Vec<String>,
    /// The cases that reproduce a known violation, sorted.
    pub known_cases: Vec<String>,
    /// The skipped cases, sorted. With the corpus's case list, these give every trial's verdict.
    pub skipped_cases: Vec<String>,
    /// The cases where the translator threw (a crash, not a refusal), sorted: each is also failed
    /// or known.
    pub crashed_cases: Vec<String>,
    /// Every known trial with the marks its witnesses were credited to (row and target-rule mark
    /// ids), sorted by case: a regression that moves from one mark to another changes this.
    pub known: Vec<KnownTrial>,
    /// What is known per direction of the trials that compared a projection with its source.
    pub evidence: TrialsEvidence,
    /// How the real tools (`corpus/mcp/`) are sent.
    pub real_tools: RealToolsTally,
}

/// The evidence of a translator's compared trials (CONTRACT section 5): per direction, how many
/// are proven, and which are shown by a witness or unknown; a compared trial listed in neither
/// is proven that way.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TrialsEvidence {
    /// Trials that compared a projection with its source (not refused, not skipped).
    pub compared: usize,
    /// Proven both ways: the projection accepts exactly what the source accepts.
    pub proven_exact: usize,
    /// Every deviation, either way, proven to be one the table's declared approximations explain.
    pub proven_within_table: usize,
    pub widening: DirectionEvidence,
    pub narrowing: DirectionEvidence,
}

/// One direction of [`TrialsEvidence`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DirectionEvidence {
    pub proven: usize,
    /// The cases a validated witness shows deviating this way, sorted.
    pub shown: Vec<String>,
    /// The cases neither proven nor shown, with where the proof stopped, sorted by case.
    pub unknown: Vec<UnknownTrial>,
}

/// A direction neither proven nor shown on one case.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UnknownTrial {
    pub case: String,
    /// Where and why the proof stopped.
    pub why: String,
}

/// A trial that reproduces known violations, and which.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KnownTrial {
    pub case: String,
    pub marks: Vec<String>,
}

/// What the run's witnesses showed about one row: the evidence the matrix reads, so that a row
/// counts as exact only when nothing in the run was pinned on it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Evidence {
    /// How many cases hold a witness the row's approximation explains on its own.
    pub declared: usize,
    /// The cases holding a witness only the row's known violation explains (credited to it).
    pub marked: Vec<String>,
    /// The cases holding a witness pinned on the row that nothing explains.
    pub unexplained: Vec<String>,
    /// The cases where a `false` the row governs was inverted (covered by a mark or not).
    pub inverted: Vec<String>,
    /// Of the cases using the row, those that compared a projection with its source.
    pub compared: usize,
    /// Of those, the cases where every deviation, either way, is proven to be one the table's
    /// declared approximations explain: no witness there can be pinned on this row. A row kept
    /// exactly is *proven* when this equals `compared` (and `compared` is not 0), else only *not
    /// refuted*.
    pub proven: usize,
}

impl Evidence {
    /// Kept exactly on every compared case by proof, not only for want of a witness.
    #[must_use]
    pub fn proven(&self) -> bool {
        self.compared > 0 && self.proven == self.compared && !self.broken()
    }
}

impl Evidence {
    /// Whether a witness of the run showed the row broken.
    #[must_use]
    pub fn broken(&self) -> bool {
        !self.marked.is_empty() || !self.unexplained.is_empty() || !self.inverted.is_empty()
    }
}

/// One row of a table, with what the corpus showed about it.
#[derive(Debug, Clone, Serialize)]
pub struct RowReport {
    /// The keyword, boolean subschema or extension pattern the row is keyed by.
    pub key: String,
    /// `at_root` or a form name for a refinement, `null` for the keyword's own row.
    pub refinement: Option<String>,
    pub extension: bool,
    /// The anchor on the translator's page (`reports/<translator>.md#<anchor>`).
    pub anchor: String,
    /// The citation the CLI prints (`openai-strict/pattern`).
    pub citation: String,
    /// The row's line in the table file.
    pub line: u64,
    /// `preserved`, `approximated` or `refused`.
    pub disposition: String,
    /// For a preserved row spelled another way.
    #[serde(rename = "as")]
    pub spelled_as: Option<String>,
    /// For an approximation: `widening` or `narrowing`.
    pub direction: Option<String>,
    /// For an approximation: what the keyword became (the oracle's word, see `deviation::Becomes`).
    pub to: Option<String>,
    /// The same in the table's own words (`becomes:`), when it gives them.
    pub becomes: Option<String>,
    pub note: Option<String>,
    pub issues: Vec<String>,
    pub known_violation: Option<KnownViolationReport>,
    /// A row's further marks, of other classes (a crash beside a deviation).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_known_violations: Vec<KnownViolationReport>,
    /// Cases (not skipped) that use the row; `null` when the translator was not run.
    pub cases: Option<usize>,
    /// One instance on which source and projection disagree in the row's direction.
    pub witness: Option<WitnessReport>,
    /// For a refused row: one refusal the translator gave citing it.
    pub refusal: Option<RefusalReport>,
    /// What the run's witnesses showed about the row (`null` when the translator was not run).
    pub evidence: Option<Evidence>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KnownViolationReport {
    pub issue: String,
    pub direction: String,
    pub witness: Option<String>,
    /// For a crash mark: the text the translator's error message contains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WitnessReport {
    /// The case id (`corpus/file.yaml::name`, `jsts/file.json::slug`).
    pub case: String,
    /// The instance's description in the case.
    pub description: String,
    pub direction: String,
    /// The source-side instance.
    pub instance: Value,
    /// What the model side sees, when the codec changes it.
    pub model_instance: Option<Value>,
    pub source_accepts: bool,
    pub projection_accepts: bool,
    /// How many rows of the case could explain the witness (1: this row alone).
    pub explained_by: usize,
    /// What explains it: `declared` (the row's approximation) or `marked` (its known violation).
    pub explained_as: String,
    /// The rows (and rules) it is attributed to.
    pub attributed_to: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RefusalReport {
    pub case: String,
    pub pointer: String,
    pub message: String,
}

impl RowReport {
    /// Whether the row is broken: it carries a known violation, or a witness of the run was pinned
    /// on it (marked, unexplained or inverted), whatever row's mark covered it.
    #[must_use]
    pub fn broken(&self) -> bool {
        self.known_violation.is_some() || self.evidence.as_ref().is_some_and(Evidence::broken)
    }

    /// The matrix symbol's disposition class: `preserved`, `widening`, `narrowing`, `refused`.
    #[must_use]
    pub fn class(&self) -> &'static str {
        match (self.disposition.as_str(), self.direction.as_deref()) {
            ("approximated", Some("narrowing")) => "narrowing",
            ("approximated", _) => "widening",
            ("refused", _) => "refused",
            _ => "preserved",
        }
    }

    /// The disposition in a few words: `preserved as enum`, `widening to description`, `refused`.
    #[must_use]
    pub fn label(&self) -> String {
        match (self.disposition.as_str(), &self.spelled_as, &self.direction, &self.to) {
            ("preserved", Some(a), _, _) => format!("preserved as {a}"),
            ("approximated", _, Some(d), Some(t)) => format!("approximated: {d}, to {t}"),
            (d, _, _, _) => d.to_owned(),
        }
    }
}

pub use crate::records::{RowKey, key_of, rows_used};

/// Run the oracle for one translator over `cases`, outside any run's store (for a view of a few
/// cases, such as a test's or `explain`'s re-runs).
#[must_use]
pub fn run_translator(table: &Table, translator: &dyn Translator, cases: &[Arc<Case>], env: &Env, progress: &Progress) -> Vec<Arc<Record>> {
    let env = &Env { name_rows: true, ..env.clone() };
    cases
        .iter()
        .map(|case| {
            let record = Arc::new(Record::make(table, translator, case, env));
            progress.tick();
            record
        })
        .collect()
}

/// The table's rows in reading order: keywords in specification order, then `true`/`false`, then
/// extensions by name; a keyword's own row before its `at_root` and form refinements.
#[must_use]
pub fn ordered_rows(table: &Table) -> Vec<&Row> {
    let mut rows = table.rows();
    rows.sort_by_key(|r| sort_key(&r.id.keyword, r.id.refinement.as_deref()));
    rows
}

/// The position of a row in reading order (shared by the pages and the matrix).
#[must_use]
fn sort_key(key: &str, refinement: Option<&str>) -> (usize, String, usize) {
    let group = DRAFT_2020_12
        .iter()
        .position(|k| k.name == key)
        .or_else(|| BOOLEAN_SUBSCHEMAS.iter().position(|k| *k == key).map(|i| DRAFT_2020_12.len() + i))
        .unwrap_or(usize::MAX);
    let name = if group == usize::MAX { key.to_owned() } else { String::new() };
    (group, name, refinement_order(refinement))
}

/// Own row first, then `at_root`, then forms in the order tables list them.
#[must_use]
pub fn refinement_order(refinement: Option<&str>) -> usize {
    match refinement {
        None => 0,
        Some(anchor::AT_ROOT) => 1,
        Some(f) => 2 + schema_fidelity_translators::form::ALL.iter().position(|x| x.name() == f).unwrap_or(99),
    }
}

/// The directions in which a row allows or admits deviation: its approximation and its known
/// violation.
fn row_directions(row: &Row) -> BTreeSet<Direction> {
    let mut out = BTreeSet::new();
    if let Disposition::Approximated { direction, .. } = row.disposition {
        out.insert(direction);
    }
    for k in row.marks.iter().filter(|k| k.crash.is_none()) {
        out.insert(k.direction);
    }
    out
}

fn mark_report(k: &crate::deviation::KnownViolation) -> KnownViolationReport {
    KnownViolationReport { issue: k.issue.clone(), direction: k.direction.name().to_owned(), witness: k.witness.clone(), crash: k.crash.clone() }
}

fn witnesses_of(verdict: &Verdict) -> &[Witness] {
    match verdict {
        Verdict::Pass(s) => &s.witnesses,
        Verdict::ExpectedFailure { failure, .. } => &failure.witnesses,
        _ => &[],
    }
}

/// The best witness for `row` among `runs`: one the oracle attributed to this row (see the
/// module docs), the fewest other rows sharing it first, then a case's own instance before a
/// generated one (it has a description a person wrote), then the shortest, then the first case.
#[must_use]
pub fn select_witness(_table: &Table, row: &Row, runs: &[Arc<Record>]) -> Option<WitnessReport> {
    let directions = row_directions(row);
    if directions.is_empty() {
        return None;
    }
    let id = row.id.to_string();
    let mut best: Option<((usize, bool, usize, usize), WitnessReport)> = None;
    for (case_index, run) in runs.iter().enumerate() {
        for w in witnesses_of(&run.verdict) {
            if !directions.contains(&w.direction) {
                continue;
            }
            let rows = match &w.attribution {
                Attribution::Declared(rows) | Attribution::Marked(rows) => rows,
                _ => continue,
            };
            if !rows.contains(&id) {
                continue;
            }
            let score = (rows.len(), w.generated, w.instance.to_string().len(), case_index);
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, witness_report(&run.case.id, w, rows)));
            }
        }
    }
    best.map(|(_, w)| w)
}

#[must_use]
fn witness_report(case: &str, w: &Witness, rows: &[String]) -> WitnessReport {
    WitnessReport {
        case: case.to_owned(),
        description: w.description.clone(),
        direction: w.direction.name().to_owned(),
        instance: w.instance.clone(),
        model_instance: (w.model_instance != w.instance).then(|| w.model_instance.clone()),
        source_accepts: w.source_accepts,
        projection_accepts: w.projection_accepts,
        explained_by: rows.len(),
        explained_as: if matches!(w.attribution, Attribution::Marked(_)) { "marked" } else { "declared" }.to_owned(),
        attributed_to: rows.to_vec(),
    }
}

/// The row governing the occurrence `keyword` at `node` of `schema`.
fn row_of<'t>(table: &'t Table, schema: &Value, node: &str, keyword: &str) -> Option<&'t Row> {
    let value = if matches!(keyword, "true" | "false") { schema.pointer(node)?.clone() } else { schema.pointer(node)?.get(keyword)?.clone() };
    table.row(keyword, &value, node.is_empty()).ok()
}

/// The evidence of every row of `table` over `runs`, by row id.
fn evidence_by_row(table: &Table, runs: &[Arc<Record>]) -> std::collections::BTreeMap<String, Evidence> {
    use std::collections::BTreeMap;
    let mut declared: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut out: BTreeMap<String, Evidence> = BTreeMap::new();
    let add = |out: &mut BTreeMap<String, Evidence>, row: String, case: &str, pick: fn(&mut Evidence) -> &mut Vec<String>| {
        let list = pick(out.entry(row).or_default());
        if !list.iter().any(|c| c == case) {
            list.push(case.to_owned());
        }
    };
    for run in runs {
        let case = run.case.id.as_str();
        let witnesses: &[Witness] = match &run.verdict {
            Verdict::Pass(s) => &s.witnesses,
            Verdict::Fail(f) | Verdict::ExpectedFailure { failure: f, .. } => &f.witnesses,
            Verdict::Skip(_) => &[],
        };
        for w in witnesses {
            match &w.attribution {
                Attribution::Declared(rows) => {
                    for r in rows {
                        declared.entry(r.clone()).or_default().insert(case.to_owned());
                    }
                }
                Attribution::Marked(rows) => {
                    for r in rows {
                        add(&mut out, r.clone(), case, |e| &mut e.marked);
                    }
                }
                Attribution::Unexplained(culprits) => {
                    for c in culprits.iter().filter(|c| !c.keyword.is_empty()) {
                        if let Some(row) = row_of(table, &run.case.schema, &c.node, &c.keyword) {
                            add(&mut out, row.id.to_string(), case, |e| &mut e.unexplained);
                        }
                    }
                }
                Attribution::Unjudged => {}
            }
            for i in &w.inversions {
                if let Some(row) = row_of(table, &run.case.schema, &i.culprit.node, &i.culprit.keyword) {
                    add(&mut out, row.id.to_string(), case, |e| &mut e.inverted);
                }
                if let Some(by) = &i.covered_by {
                    add(&mut out, by.clone(), case, |e| &mut e.marked);
                }
            }
        }
    }
    for (row, cases) in declared {
        out.entry(row).or_default().declared = cases.len();
    }
    for e in out.values_mut() {
        e.marked.sort();
        e.unexplained.sort();
        e.inverted.sort();
    }
    out
}

/// The first refusal the translator gave citing `row`'s keyword, among runs that use the row (as
/// recorded: nothing is translated again).
fn select_refusal(row: &Row, runs: &[Arc<Record>]) -> Option<RefusalReport> {
    let key = key_of(row);
    runs.iter().filter(|r| r.rows.contains(&key) && matches!(&r.verdict, Verdict::Pass(s) if s.refused)).find_map(|run| match &run.outcome {
        Some(Outcome::Refused(refusal)) if refusal.keyword() == row.id.keyword => {
            Some(RefusalReport { case: run.case.id.clone(), pointer: refusal.pointer().to_owned(), message: refusal.message.clone() })
        }
        _ => None,
    })
}

fn tally(runs: &[Arc<Record>]) -> Trials {
    let mut t = Trials { cases: runs.len(), ..Trials::default() };
    for run in runs {
        if run.case.id.starts_with(REAL_TOOLS) {
            t.real_tools.count(run);
        }
        if matches!(run.outcome, Some(Outcome::Crashed(_))) {
            t.crashed_cases.push(run.case.id.clone());
        }
        match &run.verdict {
            Verdict::Pass(_) => t.passed += 1,
            Verdict::Fail(_) => {
                t.failed += 1;
                t.failed_cases.push(run.case.id.clone());
            }
            Verdict::ExpectedFailure { known, .. } => {
                t.known_violations += 1;
                t.known_cases.push(run.case.id.clone());
                let mut marks = known.clone();
                marks.sort();
                marks.dedup();
                t.known.push(KnownTrial { case: run.case.id.clone(), marks });
            }
            Verdict::Skip(_) => {
                t.skipped += 1;
                t.skipped_cases.push(run.case.id.clone());
            }
        }
    }
    t.evidence = trials_evidence(runs);
    t.failed_cases.sort();
    t.known_cases.sort();
    t.skipped_cases.sort();
    t.crashed_cases.sort();
    t.known.sort_by(|a, b| a.case.cmp(&b.case));
    t
}

/// The evidence of the compared trials among `runs`.
fn trials_evidence(runs: &[Arc<Record>]) -> TrialsEvidence {
    let mut out = TrialsEvidence::default();
    for run in runs {
        let Some(e) = &run.evidence else { continue };
        out.compared += 1;
        out.proven_exact += usize::from(e.exact());
        out.proven_within_table += usize::from(e.widening_within_table && e.narrowing_within_table);
        for (direction, slot) in [(Direction::Widening, &mut out.widening), (Direction::Narrowing, &mut out.narrowing)] {
            match e.of(direction) {
                verdict::Evidence::Proven => slot.proven += 1,
                verdict::Evidence::Shown => slot.shown.push(run.case.id.clone()),
                verdict::Evidence::Unknown(why) => slot.unknown.push(UnknownTrial { case: run.case.id.clone(), why: why.clone() }),
            }
        }
    }
    for slot in [&mut out.widening, &mut out.narrowing] {
        slot.shown.sort();
        slot.unknown.sort_by(|a, b| a.case.cmp(&b.case));
    }
    out
}

/// The report of one table, given the runs of its translator (`None`: not run).
#[must_use]
pub fn translator_report(name: &str, table_file: &str, table: Option<&Table>, lint: Vec<String>, run: Option<&[Arc<Record>]>) -> TranslatorReport {
    let Some(table) = table else {
        return TranslatorReport {
            name: name.to_owned(),
            table: table_file.to_owned(),
            description: None,
            source: None,
            target: None,
            alternate_target: None,
            dialect: None,
            grammar: None,
            requires_object_root: false,
            limits: Vec::new(),
            target_violations: Vec::new(),
            lint,
            trials: None,
            rows: Vec::new(),
            unavailable: None,
            adapter: None,
            package: None,
            entry: None,
            models: None,
            models_reviewed: std::collections::BTreeMap::new(),
        };
    };
    let evidence = run.map(|runs| evidence_by_row(table, runs));
    let rows = ordered_rows(table)
        .into_iter()
        .chain(table.rules.iter().map(|r| &r.row))
        .map(|row| {
            let key = key_of(row);
            let (cases, witness, refusal) = match run {
                Some(runs) => {
                    let used = runs.iter().filter(|r| !matches!(r.verdict, Verdict::Skip(_)) && r.rows.contains(&key)).count();
                    let refusal = (row.disposition == Disposition::Refused).then(|| select_refusal(row, runs)).flatten();
                    (Some(used), select_witness(table, row, runs), refusal)
                }
                None => (None, None, None),
            };
            let evidence = evidence.as_ref().map(|e| {
                let mut e = e.get(&row.id.to_string()).cloned().unwrap_or_default();
                for r in run.into_iter().flatten().filter(|r| r.rows.contains(&key)) {
                    if let Some(trial) = &r.evidence {
                        e.compared += 1;
                        e.proven += usize::from(trial.widening_within_table && trial.narrowing_within_table);
                    }
                }
                e
            });
            RowReport { evidence, ..row_report(name, row, cases, witness, refusal) }
        })
        .collect();
    TranslatorReport {
        name: name.to_owned(),
        table: table_file.to_owned(),
        description: table.description.clone(),
        source: Some(table.source.clone()),
        dialect: Some(table.dialect.name().to_owned()),
        grammar: table.grammar.as_ref().map(|(p, _)| slash(p)),
        requires_object_root: table.requires_object_root,
        target: table.target.as_ref().map(|t| t.name.clone()),
        alternate_target: table.alternate_target.as_ref().map(|t| t.name.clone()),
        limits: table
            .limits
            .iter()
            .map(|(n, l)| (n, l, "target"))
            .chain(table.bounds.iter().map(|(n, l)| (n, l, "translator")))
            .map(|(n, l, of)| LimitReport {
                name: n.clone(),
                value: l.value,
                counts: l.known_violation.is_none().then(|| l.counts.name().to_owned()),
                of: of.to_owned(),
                note: l.note.clone(),
            })
            .collect(),
        target_violations: table
            .target_violations
            .values()
            .map(|v| TargetViolationReport {
                rule: v.rule.name().to_owned(),
                line: v.line,
                issue: v.issue.clone(),
                keywords: v.keywords.clone(),
                witness: v.witness.clone(),
            })
            .collect(),
        lint,
        trials: run.map(tally),
        rows,
        unavailable: None,
        adapter: table.run.as_ref().map(|r| r.join(" ")),
        package: table.package.clone(),
        entry: table.entry.as_ref().map(|e| EntryReport { call: e.call.clone(), path: e.path.clone(), reads: e.reads.clone() }),
        models: table.models.clone(),
        models_reviewed: table.models_reviewed.clone(),
    }
}

fn row_report(translator: &str, row: &Row, cases: Option<usize>, witness: Option<WitnessReport>, refusal: Option<RefusalReport>) -> RowReport {
    let key = &row.id.keyword;
    let refinement = row.id.refinement.as_deref();
    let (disposition, spelled_as, direction, to) = match &row.disposition {
        Disposition::Preserved { spelled_as } => ("preserved", spelled_as.clone(), None, None),
        Disposition::Approximated { direction, to } => ("approximated", None, Some(direction.name().to_owned()), Some(to.to_string())),
        Disposition::Refused => ("refused", None, None, None),
    };
    RowReport {
        key: key.clone(),
        refinement: refinement.map(str::to_owned),
        extension: anchor::is_extension(key),
        anchor: anchor::anchor(key, refinement),
        citation: anchor::citation(translator, key, refinement),
        line: row.id.line,
        disposition: disposition.to_owned(),
        spelled_as,
        direction,
        to,
        becomes: row.becomes.clone(),
        note: row.note.clone(),
        issues: row.issues.clone(),
        known_violation: row.marks.first().map(mark_report),
        other_known_violations: row.marks.iter().skip(1).map(mark_report).collect(),
        cases,
        witness,
        refusal,
        evidence: None,
    }
}

/// Build the report from the run's records ([`Loaded::records`]), making the ones no trial has
/// made yet.
///
/// Translators run on worker threads (one translator per job), so the run takes about the time of
/// the slowest table; the result does not depend on scheduling. The records carry the witnesses
/// the trials found, generated ones included (drawn from seeds fixed per case, so the pages are
/// the same from run to run).
///
/// # Errors
/// When a table or corpus file cannot be read for the fingerprints.
pub fn build(loaded: &Loaded, resolver: &Resolver, show_progress: bool) -> Result<Report, String> {
    let tables_hash = hash::tree(&[("dispositions", &loaded.project.dispositions_dir())])?;
    // Each corpus folder under the name its cases' ids start with (`corpus` here).
    let labels: Vec<String> = loaded.project.corpus.iter().map(|c| c.dir.strip_prefix(&c.base).unwrap_or(&c.dir).to_string_lossy().replace('\\', "/")).collect();
    let folders: Vec<(&str, &std::path::Path)> = labels.iter().zip(&loaded.project.corpus).map(|(label, c)| (label.as_str(), c.dir.as_path())).collect();
    let own_hash = hash::tree(&folders)?;
    let own_cases = loaded.cases.iter().filter(|c| !c.id.starts_with("jsts/")).count();
    let suite = match &loaded.project.suite {
        Ok(s) => {
            let h = hash::tree(&[("tests/draft2020-12", &s.tests_dir()), ("remotes", &s.remotes_dir())])?;
            Some(Suite { hash: h.hash, files: h.files, cases: loaded.cases.len() - own_cases })
        }
        Err(_) => None,
    };

    let jobs: Vec<_> = loaded
        .tables
        .iter()
        .map(|(name, table, _)| (table.clone(), table.as_ref().and_then(|_| resolver(name))))
        .collect();
    // An external translator that is not installed here is not run: every case would fault, and
    // its page would say "0 passed, N failed" about a translator that was never asked.
    let unavailable: Vec<Option<String>> = jobs.iter().map(|(_, t)| t.as_ref().and_then(|t| t.unavailable())).collect();
    let jobs: Vec<Job> = jobs.into_iter().zip(&unavailable).map(|((table, t), why)| (table, t.filter(|_| why.is_none()))).collect();
    let runnable = jobs.iter().filter(|(t, tr)| t.is_some() && tr.is_some()).count();
    let progress = if show_progress { Progress::on_terminal("running the oracle", runnable * loaded.cases.len()) } else { Progress::quiet() };
    let runs = run_jobs(&jobs, loaded, &progress);
    progress.finish();

    let translators = loaded
        .tables
        .iter()
        .zip(&jobs)
        .zip(&runs)
        .zip(unavailable)
        .map(|((((name, table, errors), (_, translator)), runs), unavailable)| {
            let lint = errors.iter().map(ToString::to_string).collect();
            // An unavailable translator (its runtime or package missing here) has no records.
            let run = translator.as_ref().and(runs.as_deref());
            TranslatorReport { unavailable, ..translator_report(name, &format!("dispositions/{name}.yaml"), table.as_deref(), lint, run) }
        })
        .collect();

    Ok(Report {
        format: FORMAT_VERSION,
        tool: Tool { name: env!("CARGO_PKG_NAME").to_owned(), version: env!("CARGO_PKG_VERSION").to_owned() },
        tables: Fingerprint { hash: tables_hash.hash, files: tables_hash.files },
        corpus: Corpus {
            own: Fingerprint { hash: own_hash.hash, files: own_hash.files },
            own_cases,
            suite,
            errors: loaded.corpus_errors.iter().map(|e| format!("{}: {}", e.id, e.message)).collect(),
            cases: {
                let mut ids: Vec<String> = loaded.cases.iter().map(|c| c.id.clone()).collect();
                ids.sort();
                ids
            },
            real_tools: RealTools::of(&loaded.cases),
        },
        translators,
    })
}

type Job = (Option<Arc<Table>>, Option<Arc<dyn Translator>>);

/// The records of every runnable job (a table and its available translator), through the one
/// parallel runner ([`crate::records::Records::of_translators`]); `None` for the others.
fn run_jobs(jobs: &[Job], loaded: &Loaded, progress: &Progress) -> Vec<Option<Vec<Arc<Record>>>> {
    let runnable: Vec<(usize, (&Table, &dyn Translator))> = jobs
        .iter()
        .enumerate()
        .filter_map(|(i, (table, translator))| match (table, translator) {
            (Some(table), Some(translator)) if translator.unavailable().is_none() => Some((i, (table.as_ref(), translator.as_ref()))),
            _ => None,
        })
        .collect();
    let pairs: Vec<(&Table, &dyn Translator)> = runnable.iter().map(|(_, pair)| *pair).collect();
    let tick = || progress.tick();
    let records = loaded.records.of_translators(&pairs, &loaded.cases, &loaded.env, &tick);
    let mut results: Vec<Option<Vec<Arc<Record>>>> = vec![None; jobs.len()];
    for ((i, _), runs) in runnable.iter().zip(records) {
        results[*i] = Some(runs);
    }
    results
}

fn slash(p: &std::path::Path) -> String {
    p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

impl RowReport {
    /// What the row means, in plain words (shared by the pages and `explain`).
    #[must_use]
    pub fn meaning(&self) -> String {
        let subject = match (self.extension, self.refinement.as_deref()) {
            (true, _) if self.key.ends_with('*') => format!("An extension key matching `{}`", self.key),
            (true, _) => format!("The extension key `{}`", self.key),
            (false, _) if self.key == "true" || self.key == "false" => format!("A `{}` subschema", self.key),
            (false, _) => format!("`{}`", self.key),
        };
        let place = match self.refinement.as_deref() {
            None => String::new(),
            Some(anchor::AT_ROOT) => " on the root schema".to_owned(),
            Some("schema") => " holding a schema (an object)".to_owned(),
            Some("list") => " holding a list".to_owned(),
            Some("fragment") => " holding a `#` reference".to_owned(),
            Some("uri") => " holding a URI reference".to_owned(),
            Some("scalar") => " holding a scalar".to_owned(),
            Some(value) => format!(" holding `{value}`"),
        };
        let what = match (self.disposition.as_str(), self.direction.as_deref()) {
            ("preserved", _) => {
                let spelled = self.spelled_as.as_ref().map(|a| format!(", spelled as `{a}`")).unwrap_or_default();
                format!("is kept{spelled}: the projection accepts exactly what the source accepts.")
            }
            ("approximated", Some("narrowing")) => format!(
                "becomes {}: the projection may reject values the source accepts, so the model cannot send some valid arguments.",
                self.becomes.as_deref().or(self.to.as_deref()).unwrap_or("something else")
            ),
            ("approximated", _) => format!(
                "becomes {}: the projection may accept values the source rejects, so the model can send arguments that break the \
                 constraint and the tool must still check them.",
                self.becomes.as_deref().or(self.to.as_deref()).unwrap_or("something else")
            ),
            _ => "makes the translator refuse the schema with an error citing it: the tool cannot be sent to this provider as it is."
                .to_owned(),
        };
        let mut out = format!("{subject}{place} {what}");
        if let Some(k) = &self.known_violation {
            out.push_str(&format!(
                " But the translator is known to break this row ({}, tracked in {}): the corpus shows it {} anyway.",
                k.direction,
                k.issue,
                if k.direction == "widening" { "accepting more" } else { "accepting less" }
            ));
        }
        out
    }
}
