//! `schema-fidelity check SCHEMA.json`: what each translator does to a user's own tool schema.
//!
//! For each translator the answer is one of: **refused** (which keyword, where, why), **exact**
//! (proven both ways: the projection accepts exactly what the schema accepts), **no loss found**
//! (no instance of the draws made tells source and projection apart, but a direction is not
//! proven), **widened** / **narrowed** (a validated witness shows it: the witness, the occurrence
//! it is pinned on and the rows responsible), **no row** (a keyword the table does not cover:
//! never silent), **known violation** or **violation** (the translator breaks its own table), or
//! **unavailable** (an external translator not installed here: not checked, with its install
//! command). A verdict rests on evidence only, per direction: proven, shown by a witness, or
//! unknown ([`Evidence`]). A row that declares a direction no witness shows is listed
//! apart, as declared but not shown on this schema (or proven not to act on it), never as a
//! loss. Each comes with the projection judged (a compact diff against the schema), the one
//! occurrence and row each witness is pinned on, and what the user can do about it.
//!
//! The work is the oracle's: the schema becomes a one-off case (its own `examples`, if any, are
//! its instances, labelled valid or invalid by the schema itself) and [`oracle::judge`] runs it
//! against each table, drawing instances with the witness generator as for every corpus case. So
//! `check` says exactly what `cargo test` would say if the schema were a corpus case.
//!
//! [`mcp`]: the same for every tool an MCP server lists (`check --mcp 'COMMAND'`).

pub mod mcp;

use std::sync::Arc;

use crate::commands::{Cx, EXIT_DECLARED_LOSS, EXIT_FINDINGS, EXIT_OK, Stop, check_wanted, project};
use crate::json;
use crate::session;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use schema_fidelity_translators::walk;
use schema_fidelity_translators::{Outcome, Translator};
use serde::Serialize;
use serde_json::Value;

use crate::report::anchor;
use crate::budget::{self, Budgets};
use crate::corpus::{Case, Instance, Origin};
use crate::deviation::Direction;
use crate::diagnostic::TableError;
use crate::oracle;
use crate::project::Project;
use crate::table::{self, Disposition, Row, Table};
use crate::validation::{self, Env};
use crate::verdict::{Attribution, Evidence, FailureKind, TrialEvidence, Verdict, Witness};

/// One translator to check against, with its table.
pub struct Target<'a> {
    pub table: &'a Table,
    pub translator: &'a dyn Translator,
}

/// What `check` found, for every translator (serialized for `--format json`).
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The schema file, as given.
    pub schema: String,
    /// Instances compared on from the schema's side (its examples and the generator's draws), and
    /// how many of them the schema accepts.
    pub instances: usize,
    pub valid_instances: usize,
    pub translators: Vec<TranslatorCheck>,
    /// Whether any translator is lossy or silent.
    pub lossy: bool,
    /// What the comparison could not cover (a bound beyond what the generators build).
    pub notes: Vec<String>,
    /// The schema checked (the projections are shown against it).
    #[serde(skip)]
    pub source: Value,
}

/// The verdict for one translator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckVerdict {
    /// Proven both ways.
    Exact,
    /// No witness in the draws made, and a direction not proven.
    NoLossFound,
    Refused,
    Widened,
    Narrowed,
    WidenedAndNarrowed,
    NoRow,
    KnownViolation,
    Violation,
    /// Not checked: an external translator whose runtime or package is missing here.
    Unavailable,
}

/// What a check found overall: the exit status of `schema-fidelity check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOutcome {
    /// Every translator projects the schema exactly.
    Clean,
    /// The only findings are losses the tables declare: approximations and refusals.
    DeclaredLosses,
    /// A violation, a keyword with no row, a known violation, or a translator not checked.
    Findings,
}

impl CheckReport {
    /// The overall outcome.
    #[must_use]
    pub fn outcome(&self) -> CheckOutcome {
        let clean = |v: CheckVerdict| matches!(v, CheckVerdict::Exact | CheckVerdict::NoLossFound);
        if self.translators.iter().any(|t| !t.verdict.declared() && !clean(t.verdict)) {
            CheckOutcome::Findings
        } else if self.translators.iter().any(|t| t.verdict.declared()) {
            CheckOutcome::DeclaredLosses
        } else {
            CheckOutcome::Clean
        }
    }
}

impl CheckVerdict {
    /// Lossy or silent: the exit status is non-zero. A refusal is neither: it is explicit.
    #[must_use]
    pub fn lossy(self) -> bool {
        !matches!(self, Self::Exact | Self::NoLossFound | Self::Refused | Self::Unavailable)
    }

    /// A loss the table declares: an approximation, or a refusal where a row says so.
    #[must_use]
    pub fn declared(self) -> bool {
        matches!(self, Self::Refused | Self::Widened | Self::Narrowed | Self::WidenedAndNarrowed)
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::NoLossFound => "no loss found",
            Self::Refused => "refused",
            Self::Widened => "widened",
            Self::Narrowed => "narrowed",
            Self::WidenedAndNarrowed => "widened and narrowed",
            Self::NoRow => "no row",
            Self::KnownViolation => "known violation",
            Self::Violation => "violation",
            Self::Unavailable => "unavailable",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TranslatorCheck {
    pub translator: String,
    pub verdict: CheckVerdict,
    /// One sentence saying what the verdict means for this schema.
    pub summary: String,
    /// The rows responsible: approximated rows of a direction a witness shows, the refused row
    /// cited, known violations.
    pub rows: Vec<RowUse>,
    /// Approximated rows present whose direction no witness shows on this schema, each saying
    /// whether that direction is proven not to act here: declarations, never evidence.
    pub declared: Vec<DeclaredRow>,
    /// What is known per direction (absent when no projection was compared).
    pub evidence: Option<CheckEvidence>,
    pub witnesses: Vec<CheckWitness>,
    pub refusal: Option<RefusalOut>,
    /// Keyword occurrences with no row.
    pub missing: Vec<MissingOut>,
    /// The oracle's message, for a violation.
    pub failure: Option<String>,
    /// The projection judged (absent for a refusal or an unavailable translator).
    pub projection: Option<Value>,
    /// What the user can do about the verdict, one suggestion each.
    pub advice: Vec<String>,
    /// Of the draws from the schema this trial made, how many the schema accepted, and how many
    /// (absent when it drew none: a refusal, or a projection equal to the schema).
    #[serde(skip)]
    pub draws: Option<(usize, usize)>,
}

/// The evidence of one translator's check, per direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckEvidence {
    /// `proven`, `shown` or `unknown`.
    pub widening: String,
    pub narrowing: String,
    /// For an unknown direction, where and why its proof stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widening_unknown: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narrowing_unknown: Option<String>,
    /// Generated instances judged.
    pub draws: usize,
}

impl CheckEvidence {
    fn of(e: &TrialEvidence) -> Self {
        let unknown = |e: &Evidence| match e {
            Evidence::Unknown(why) => Some(why.clone()),
            _ => None,
        };
        CheckEvidence {
            widening: e.widening.name().to_owned(),
            narrowing: e.narrowing.name().to_owned(),
            widening_unknown: unknown(&e.widening),
            narrowing_unknown: unknown(&e.narrowing),
            draws: e.draws,
        }
    }
}

/// An approximated row present whose direction no witness shows on this schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredRow {
    #[serde(flatten)]
    pub row: RowUse,
    /// `proven` when its direction is proven not to act on this schema, else `not-shown`.
    pub here: String,
}

/// A row used at one place in the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowUse {
    pub citation: String,
    /// JSON pointer, into the schema, of the node holding the keyword.
    pub pointer: String,
    pub disposition: String,
    pub direction: Option<String>,
    /// `file:line` of the row.
    pub table_line: String,
    /// `reports/<translator>.md#<anchor>`.
    pub page: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckWitness {
    pub direction: String,
    pub instance: Value,
    pub model_instance: Option<Value>,
    pub schema_accepts: bool,
    pub projection_accepts: bool,
    /// Citations of the rows whose direction this is.
    pub rows: Vec<String>,
    /// The keyword occurrences the witness is pinned on, each with its row (when it has one).
    pub at: Vec<WitnessAt>,
}

/// One keyword occurrence a witness is pinned on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WitnessAt {
    pub keyword: String,
    /// JSON pointer, into the schema, of the node holding the keyword.
    pub pointer: String,
    /// The row's citation and `file:line`, when a row covers the occurrence.
    pub row: Option<String>,
    /// What the row says (`preserved`, `approximated (widening) to dropped`, ...).
    pub disposition: Option<String>,
    pub table_line: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RefusalOut {
    pub keyword: String,
    pub pointer: String,
    pub message: String,
    /// The refused row the refusal cites, if it cites one.
    pub row: Option<String>,
    /// The row's note: the translator's reason, in the table's words.
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MissingOut {
    pub keyword: String,
    pub form: String,
    pub pointer: String,
    pub at_root: bool,
}

/// The tables of `project`, each with its lint findings (tables only, no corpus).
#[must_use]
fn load_tables(project: &Project) -> Vec<(String, Option<Table>, Vec<TableError>)> {
    let dirs = table::Dirs::of(project);
    project
        .table_files()
        .into_iter()
        .map(|path| {
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
            let (t, errors) = table::load_lenient(&path, project.relative(&path), &dirs);
            (name, t, errors)
        })
        .collect()
}

/// Check `schema` (read from `file`) against every target, on the instances the witness
/// generator draws for it (and its own `examples`), within `budgets`.
///
/// # Errors
/// When the schema exceeds a budget, or is not a valid draft 2020-12 schema that compiles
/// offline, naming `file`.
pub fn check(
    file: &str,
    schema: &Value,
    targets: &[Target<'_>],
    env: &Env,
    budgets: &Budgets,
) -> Result<CheckReport, String> {
    // Before anything that grows with the schema: the translators, the draws.
    let env = &Env { name_rows: true, ..env.clone() };
    budget::check_schema(schema, budgets).map_err(|e| format!("{file}: {e}"))?;
    let source = validation::compile(schema, env, true).map_err(|e| format!("{file}: {}", explain_compile_error(schema, e)))?;
    let examples = schema.get("examples").and_then(Value::as_array).cloned().unwrap_or_default();
    let instances: Vec<Instance> = examples
        .into_iter()
        .enumerate()
        .map(|(i, data)| Instance { description: format!("example {i}"), valid: source.is_valid(&data), data })
        .collect();
    let examples_valid = instances.iter().filter(|i| i.valid).count();
    let case = Case {
        id: format!("check::{file}"),
        file: PathBuf::from(file),
        line: None,
        description: format!("the schema in {file}"),
        issues: Vec::new(),
        schema: schema.clone(),
        instances,
        origin: Origin::Own,
        assert_formats: true,
    };
    let translators = check_all(targets, &case, env);
    // Every trial draws the same instances from the schema (the seed is the case's): counted
    // from the first that drew, not drawn again.
    let (drawn_valid, drawn) = translators.iter().find_map(|t| t.draws).unwrap_or((0, 0));
    let valid_instances = examples_valid + drawn_valid;
    Ok(CheckReport {
        notes: beyond_the_generator(schema, budgets),
        schema: file.to_owned(),
        instances: case.instances.len() + drawn,
        valid_instances,
        lossy: translators.iter().any(|t| t.verdict.lossy()),
        translators,
        source: schema.clone(),
    })
}

/// [`check_one`] for every target, a few at a time, results in the targets' order. Most of a
/// check's time is external adapters starting (an interpreter importing its package, a second or
/// two each), which one after another made `check` of a one-line schema take about twenty
/// seconds. The verdicts do not depend on the order: every draw is seeded by the case and the
/// translator, and the source draws are shared through a thread-safe cache.
///
/// A pool of its own rather than rayon's global one: the work is mostly waiting on adapters, so
/// it gets at least two threads even on one core, and up to eight.
fn check_all(targets: &[Target<'_>], case: &Case, env: &Env) -> Vec<TranslatorCheck> {
    use rayon::prelude::*;
    let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get).clamp(2, 8).min(targets.len().max(1));
    let check = || targets.par_iter().with_max_len(1).map(|target| check_one(target, case, env)).collect();
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(check),
        // No thread could be started: the global pool (or the calling thread) does the work.
        Err(_) => check(),
    }
}

/// The compile error, or, when it is a `pattern` the regex engine refuses although it is valid
/// ECMA-262 (the validator calls both "not a regex"), a sentence saying so: the schema is not
/// wrong, the engine has a size limit.
fn explain_compile_error(schema: &Value, error: String) -> String {
    if !error.contains(r#"is not a "regex""#) {
        return error;
    }
    let Ok(syntax) = jsonschema::draft202012::options().should_validate_formats(true).build(&serde_json::json!({"format": "regex"})) else {
        return error;
    };
    let occurrences = walk::occurrences(schema).unwrap_or_default();
    let patterns = occurrences.iter().flat_map(|o| match (o.keyword, o.value) {
        ("pattern", Value::String(p)) => vec![(o, p.as_str())],
        ("patternProperties", Value::Object(map)) => map.keys().map(|k| (o, k.as_str())).collect(),
        _ => Vec::new(),
    });
    for (o, pattern) in patterns {
        let compiles = jsonschema::draft202012::new(&serde_json::json!({ "pattern": pattern })).is_ok();
        if !compiles && syntax.is_valid(&Value::from(pattern)) {
            let at = if o.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", o.pointer) };
            return format!(
                "does not compile: the `{}` {} at {at} is a valid ECMA-262 regex, but beyond the regex engine's size limit (its compiled form would be too large); the validator cannot check it",
                o.keyword,
                Value::from(pattern)
            );
        }
    }
    error
}

/// Bounds a generated instance cannot reach (a string longer than [`budget::STRING_LENGTH`], an
/// array longer than [`budget::INSTANCE_LENGTH`]): said once each, since the comparison then
/// covers only the instances that can be built.
fn beyond_the_generator(schema: &Value, budgets: &Budgets) -> Vec<String> {
    let Ok(occurrences) = walk::occurrences(schema) else { return Vec::new() };
    occurrences
        .iter()
        .filter_map(|o| {
            let budget = match o.keyword {
                "minLength" | "maxLength" => &budget::STRING_LENGTH,
                "minItems" | "maxItems" => &budget::INSTANCE_LENGTH,
                _ => return None,
            };
            let cap = budgets.get(budget);
            let n = o.value.as_u64().filter(|n| *n > cap)?;
            let at = if o.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", o.pointer) };
            let effect = if o.keyword.starts_with("min") { "no instance that long is built, so only instances that fail it are compared" } else { "it is not probed at its bound" };
            Some(format!("`{}: {n}` at {at} is beyond the generator: instances are at most {cap} long (the {} budget, {}); {effect}", o.keyword, budget.name, budget.env))
        })
        .collect()
}

fn row_use(name: &str, row: &Row, pointer: &str) -> RowUse {
    let key = &row.id.keyword;
    let refinement = row.id.refinement.as_deref();
    let direction = match &row.disposition {
        Disposition::Approximated { direction, .. } => Some(direction.name().to_owned()),
        _ => None,
    };
    RowUse {
        citation: anchor::citation(name, key, refinement),
        pointer: pointer.to_owned(),
        disposition: row.disposition.label(),
        direction,
        table_line: format!("{}:{}", row.id.file.display(), row.id.line),
        page: format!("reports/{name}.md#{}", anchor::anchor(key, refinement)),
    }
}

fn check_one(target: &Target<'_>, case: &Case, env: &Env) -> TranslatorCheck {
    let table = target.table;
    let name = table.translator.clone();
    let occurrences = walk::occurrences(&case.schema).unwrap_or_default();
    let present: Vec<(String, &Row)> = occurrences.iter().filter_map(|o| table.row(o.keyword, o.value, o.at_root).ok().map(|r| (o.pointer.clone(), r))).collect();
    let uses = |keep: &dyn Fn(&Row) -> bool| -> Vec<RowUse> {
        let mut out: Vec<RowUse> = present.iter().filter(|(_, r)| keep(r)).map(|(p, r)| row_use(&name, r, p)).collect();
        out.dedup();
        out
    };
    let approximated = |d: Direction| move |r: &Row| matches!(r.disposition, Disposition::Approximated { direction, .. } if direction == d);
    let witnesses = |ws: &[Witness]| -> Vec<CheckWitness> {
        let mut seen = BTreeSet::new();
        ws.iter()
            // A generated witness may shrink to one of the schema's examples: shown once.
            .filter(|w| seen.insert((w.direction.name(), w.instance.to_string())))
            .map(|w| {
                // The rows the oracle attributed the witness to, where it acts; when several rows
                // only explain it together, every row of that direction present.
                let cite = |r: &Row| anchor::citation(&name, &r.id.keyword, r.id.refinement.as_deref());
                let by_id = |id: &String| present.iter().map(|(_, r)| *r).chain(table.rows()).find(|r| r.id.to_string() == *id).map(cite);
                let responsible: BTreeSet<String> = match &w.attribution {
                    Attribution::Declared(rows) | Attribution::Marked(rows) if !rows.is_empty() => rows.iter().filter_map(by_id).collect(),
                    Attribution::Unexplained(culprits) => culprits
                        .iter()
                        .filter_map(|c| present.iter().find(|(p, r)| *p == c.node && r.id.keyword == c.keyword).map(|(_, r)| cite(r)))
                        .collect(),
                    _ => present
                        .iter()
                        .filter(|(_, r)| approximated(w.direction)(r) || r.mark_bounding(w.direction).is_some())
                        .map(|(_, r)| cite(r))
                        .collect(),
                };
                // The occurrences: where the oracle pinned an unexplained deviation, else where
                // the rows it was attributed to stand in the schema.
                let at_row = |p: &str, r: &Row| WitnessAt {
                    keyword: r.id.keyword.clone(),
                    pointer: p.to_owned(),
                    row: Some(cite(r)),
                    disposition: Some(r.disposition.label()),
                    table_line: Some(format!("{}:{}", r.id.file.display(), r.id.line)),
                };
                let mut at: Vec<WitnessAt> = match &w.attribution {
                    Attribution::Unexplained(culprits) => culprits
                        .iter()
                        .map(|c| match present.iter().find(|(p, r)| *p == c.node && r.id.keyword == c.keyword) {
                            Some((p, r)) => at_row(p, r),
                            None => WitnessAt { keyword: c.keyword.clone(), pointer: c.node.clone(), row: None, disposition: None, table_line: None },
                        })
                        .collect(),
                    _ => present.iter().filter(|(_, r)| responsible.contains(&cite(r))).map(|(p, r)| at_row(p, r)).collect(),
                };
                at.dedup();
                CheckWitness {
                    direction: w.direction.name().to_owned(),
                    instance: w.instance.clone(),
                    model_instance: (w.model_instance != w.instance).then(|| w.model_instance.clone()),
                    schema_accepts: w.source_accepts,
                    projection_accepts: w.projection_accepts,
                    rows: responsible.into_iter().collect(),
                    at,
                }
            })
            .collect()
    };
    let mut out = TranslatorCheck {
        translator: name.clone(),
        verdict: CheckVerdict::Exact,
        summary: String::new(),
        rows: Vec::new(),
        declared: Vec::new(),
        evidence: None,
        witnesses: Vec::new(),
        refusal: None,
        missing: Vec::new(),
        failure: None,
        projection: None,
        advice: Vec::new(),
        draws: None,
    };
    if let Some(reason) = target.translator.unavailable() {
        out.verdict = CheckVerdict::Unavailable;
        out.summary = format!("not checked: {reason}");
        out.advice.push("install it (the command above), then check again; until then nothing is known about this schema there".to_owned());
        return out;
    }
    // One run of the oracle: its verdict, and the answer it judged (no second translation).
    let judged = oracle::judge(table, target.translator, case, env);
    if let Some(Outcome::Projected(p)) = &judged.outcome {
        out.projection = Some(p.schema.clone());
    }
    if let Verdict::Pass(summary) = &judged.verdict {
        out.draws = summary.source_valid;
    }
    out.evidence = judged.evidence.as_ref().map(CheckEvidence::of);
    match judged.verdict {
        Verdict::Pass(summary) if summary.refused => {
            out.verdict = CheckVerdict::Refused;
            if let Some(Outcome::Refused(r)) = &judged.outcome {
                let cited = present.iter().find(|(p, row)| row.disposition == Disposition::Refused && row.id.keyword == r.keyword() && *p == r.pointer());
                out.rows = cited.iter().map(|(p, row)| row_use(&name, row, p)).collect();
                // A limit is cited as `limit:<name>`, at the root (it is about the whole schema).
                let keyword = r.limit_name().map_or_else(|| r.keyword().to_owned(), |l| format!("limit:{l}"));
                let at = if r.pointer().is_empty() { "the root".to_owned() } else { format!("`{}`", r.pointer()) };
                out.summary = format!("refuses `{keyword}` at {at}: {}", r.message);
                out.refusal = Some(RefusalOut {
                    keyword,
                    pointer: r.pointer().to_owned(),
                    message: r.message.clone(),
                    row: cited.map(|(_, row)| anchor::citation(&name, &row.id.keyword, row.id.refinement.as_deref())),
                    note: cited.and_then(|(_, row)| row.note.clone()),
                });
            }
        }
        Verdict::Pass(summary) => {
            // The verdict rests on evidence: a witness shows a direction, a proof rules it out,
            // and a row that declares a direction is neither.
            let evidence = judged.evidence.clone().unwrap_or(TrialEvidence {
                widening: Evidence::Unknown("no projection was compared".to_owned()),
                narrowing: Evidence::Unknown("no projection was compared".to_owned()),
                draws: 0,
                widening_within_table: false,
                narrowing_within_table: false,
            });
            let shown = |d: Direction| *evidence.of(d) == Evidence::Shown;
            out.verdict = match (shown(Direction::Widening), shown(Direction::Narrowing)) {
                (true, true) => CheckVerdict::WidenedAndNarrowed,
                (true, false) => CheckVerdict::Widened,
                (false, true) => CheckVerdict::Narrowed,
                (false, false) if evidence.exact() => CheckVerdict::Exact,
                (false, false) => CheckVerdict::NoLossFound,
            };
            out.summary = match out.verdict {
                CheckVerdict::Exact => "proven exact: the projection accepts exactly what the schema accepts".to_owned(),
                CheckVerdict::NoLossFound => no_loss_found(&evidence),
                CheckVerdict::Widened => "widened (witness): the provider may accept arguments the schema rejects; the tool must still validate them".to_owned(),
                CheckVerdict::Narrowed => "narrowed (witness): the provider may reject arguments the schema accepts".to_owned(),
                _ => "widened and narrowed (witnesses): the provider may both accept arguments the schema rejects and reject some it accepts".to_owned(),
            };
            out.witnesses = witnesses(&summary.witnesses);
            for d in [Direction::Widening, Direction::Narrowing] {
                let rows = uses(&approximated(d));
                // Of a direction shown, the rows its witnesses were attributed to (all of them
                // when no witness names its rows); the others are declared, not shown here.
                let cited: BTreeSet<&str> = out.witnesses.iter().filter(|w| w.direction == d.name()).flat_map(|w| w.rows.iter().map(String::as_str)).collect();
                let (responsible, declared): (Vec<RowUse>, Vec<RowUse>) = if shown(d) {
                    rows.into_iter().partition(|r| cited.is_empty() || cited.contains(r.citation.as_str()))
                } else {
                    (Vec::new(), rows)
                };
                out.rows.extend(responsible);
                let here = if *evidence.of(d) == Evidence::Proven { "proven" } else { "not-shown" };
                out.declared.extend(declared.into_iter().map(|row| DeclaredRow { row, here: here.to_owned() }));
            }
        }
        Verdict::ExpectedFailure { failure, .. } => {
            out.verdict = CheckVerdict::KnownViolation;
            if let Some(Outcome::Crashed(crash)) = &judged.outcome {
                out.summary = format!("the translator throws on this schema (a crash the table marks as a known violation): {}", crash.message);
                out.rows = uses(&|r: &Row| r.mark_covering_crash(&crash.message).is_some());
            } else {
                out.summary = "the translator breaks its table here in a way the table already admits (a known violation)".to_owned();
                out.rows = uses(&|r: &Row| !r.marks.is_empty());
            }
            out.witnesses = witnesses(&failure.witnesses);
        }
        Verdict::Fail(failure) => {
            if let FailureKind::MissingRows(_) = failure.kind {
                out.verdict = CheckVerdict::NoRow;
                out.missing = occurrences
                    .iter()
                    .filter_map(|o| table.row(o.keyword, o.value, o.at_root).err().map(|m| (o, m)))
                    .map(|(o, m)| MissingOut { keyword: m.keyword, form: m.form.name().to_owned(), pointer: o.pointer.clone(), at_root: m.at_root })
                    .collect();
                let names: BTreeSet<&str> = out.missing.iter().map(|m| m.keyword.as_str()).collect();
                out.summary = format!(
                    "{} has no row for {}: the translator's treatment is unknown (never silent)",
                    table.file.display(),
                    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                );
            } else if failure.kind == FailureKind::OverBudget {
                // Not a verdict on the translator: the search ran out of time before it had one.
                out.verdict = CheckVerdict::Violation;
                out.summary = format!("could not be checked: {}", failure.message.lines().next().unwrap_or_default());
            } else {
                out.verdict = CheckVerdict::Violation;
                out.summary = format!("the translator breaks its table: {}", failure.message.lines().next().unwrap_or_default());
                out.witnesses = witnesses(&failure.witnesses);
                out.failure = Some(reproduce_with_check(&failure.message, &case.file.display().to_string(), &name));
            }
        }
        Verdict::Skip(reason) => {
            out.verdict = CheckVerdict::Violation;
            out.summary = format!("could not be checked: {reason}");
        }
    }
    out.advice = advice(&out, &case.file.display().to_string());
    out
}

/// What "no loss found" means for this trial: the draws made, and each direction not proven with
/// where its proof stopped.
fn no_loss_found(evidence: &TrialEvidence) -> String {
    let mut open = Vec::new();
    for (d, e) in [(Direction::Widening, &evidence.widening), (Direction::Narrowing, &evidence.narrowing)] {
        if let Evidence::Unknown(why) = e {
            open.push(format!("{d} not proven ({})", first_reason(why)));
        }
    }
    format!("no loss found in {} draws, but not proven exact: {}", evidence.draws, open.join("; "))
}

/// The first place a proof stopped, of the several a reason may list.
fn first_reason(why: &str) -> &str {
    why.split("; ").next().unwrap_or(why)
}

/// The oracle's reproduce hint names a `cargo test` trial; `check`'s case is no trial, so the
/// hint becomes the `check` command itself, with the same seed.
fn reproduce_with_check(message: &str, file: &str, translator: &str) -> String {
    const TRIAL: &str = " cargo test --test contract -- --exact ";
    message
        .lines()
        .map(|line| match line.find(TRIAL) {
            Some(i) if line.contains("reproduce with:") => format!("{} schema-fidelity check {} --translator {translator})", &line[..i], shell_quote(file)),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` as one shell word.
pub(crate) fn shell_quote(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What the user can do about a verdict.
fn advice(t: &TranslatorCheck, file: &str) -> Vec<String> {
    let keywords = |rows: &[RowUse]| -> String {
        let mut names: Vec<String> = Vec::new();
        for r in rows {
            let name = format!("`{}`", r.citation.split_once('/').map_or(r.citation.as_str(), |(_, k)| k));
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names.join(", ")
    };
    let explain = |rows: &[RowUse]| rows.first().map(|r| format!(" (`schema-fidelity explain {}` says more)", r.citation)).unwrap_or_default();
    match t.verdict {
        CheckVerdict::Exact => Vec::new(),
        CheckVerdict::NoLossFound => vec![
            format!("look harder where the proof stopped: `SCHEMA_FIDELITY_DRAWS=1024 schema-fidelity check {} --translator {}` draws four times as many instances", shell_quote(file), t.translator),
            "until a proof or a witness settles it, treat the unproven direction as possible".to_owned(),
        ],
        CheckVerdict::Refused => {
            let what = t.refusal.as_ref().map(|r| format!("`{}`", r.keyword)).unwrap_or_else(|| "the refused keyword".to_owned());
            vec![
                format!("drop or rewrite {what} where it stands, so the schema says the same without it{}", explain(&t.rows)),
                "or use another translator for this tool (one whose verdict above is exact)".to_owned(),
            ]
        }
        CheckVerdict::Widened | CheckVerdict::Narrowed | CheckVerdict::WidenedAndNarrowed => {
            // The rows of the directions shown; else the rows the witnesses were attributed to
            // (a keyword's absence, borne by the `true` row or a rule).
            let attributed: Vec<String> = t.witnesses.iter().flat_map(|w| w.rows.iter().cloned()).collect::<BTreeSet<_>>().into_iter().collect();
            if t.rows.is_empty() {
                let names = attributed.iter().map(|c| format!("`{}`", c.split_once('/').map_or(c.as_str(), |(_, k)| k))).collect::<Vec<_>>().join(", ");
                let mut out = vec![format!("accept the loss the table declares for {names} (`schema-fidelity explain {}` says more)", attributed.first().map_or("", String::as_str))];
                out.push("or use another translator (one whose verdict above is exact)".to_owned());
                return out;
            }
            let mut out = vec![format!("accept the loss the table declares for {}{}", keywords(&t.rows), explain(&t.rows))];
            if t.verdict != CheckVerdict::Narrowed {
                out.push("the provider may send arguments the schema rejects: keep validating the arguments in the tool".to_owned());
            }
            if t.verdict != CheckVerdict::Widened {
                out.push("the model may be kept from arguments the schema accepts: check that the tool still gets what it needs".to_owned());
            }
            out.push(format!("or drop {} from the schema, or use another translator (one whose verdict above is exact)", keywords(&t.rows)));
            out
        }
        CheckVerdict::NoRow => vec![
            "add a row for each keyword to the table (CONTRACT.md, section 2), then run `schema-fidelity lint`".to_owned(),
            "or drop the keyword from the schema if the tool does not need it".to_owned(),
        ],
        CheckVerdict::KnownViolation => vec![
            "the table tracks this breakage with an issue: avoid the keywords marked above, or use another translator".to_owned(),
        ],
        CheckVerdict::Violation => vec![
            format!("the translator breaks its own table: reproduce with `schema-fidelity check {} --translator {}` and report it (with this output) upstream, or correct the table", shell_quote(file), t.translator),
            "until then, use another translator for this tool".to_owned(),
        ],
        CheckVerdict::Unavailable => t.advice.clone(),
    }
}

/// A compact diff from `source` to `projection`: one line per JSON pointer that was removed,
/// added or changed, at most `limit` of them (`None` when there are more).
fn compact_diff(source: &Value, projection: &Value, limit: usize) -> Option<Vec<String>> {
    fn walk(a: &Value, b: &Value, at: &str, out: &mut Vec<String>, limit: usize) -> bool {
        if out.len() > limit {
            return false;
        }
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, v) in x {
                    let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                    match y.get(k) {
                        Some(w) => {
                            if !walk(v, w, &p, out, limit) {
                                return false;
                            }
                        }
                        None => out.push(format!("- {p}: {}", crate::report::text::json_inline(v))),
                    }
                }
                for (k, w) in y.iter().filter(|(k, _)| !x.contains_key(*k)) {
                    out.push(format!("+ {at}/{}: {}", k.replace('~', "~0").replace('/', "~1"), crate::report::text::json_inline(w)));
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (v, w)) in x.iter().zip(y).enumerate() {
                    if !walk(v, w, &format!("{at}/{i}"), out, limit) {
                        return false;
                    }
                }
            }
            _ if a == b => {}
            _ => out.push(format!("~ {}: {} -> {}", if at.is_empty() { "(root)" } else { at }, crate::report::text::json_inline(a), crate::report::text::json_inline(b))),
        }
        out.len() <= limit
    }
    let mut out = Vec::new();
    walk(source, projection, "", &mut out, limit).then_some(out)
}

/// The text form of a check report.
#[must_use]
pub fn render_text(report: &CheckReport) -> String {
    let mut s = String::new();
    if report.instances == 0 {
        let _ = writeln!(s, "{}: nothing to compare on: every translator refused it, threw on it or sent it unchanged\n", report.schema);
    } else {
        let _ = writeln!(
            s,
            "{}: compared on {} instances from the schema ({} valid under it), and as many drawn from each projection\n",
            report.schema, report.instances, report.valid_instances
        );
    }
    for note in &report.notes {
        let _ = writeln!(s, "note: {note}");
    }
    if !report.notes.is_empty() {
        s.push('\n');
    }
    let width = report.translators.iter().map(|t| t.translator.len()).max().unwrap_or(0);
    let verdict_width = report.translators.iter().map(|t| t.verdict.name().len()).max().unwrap_or(0).max(10);
    for t in &report.translators {
        let _ = writeln!(s, "{:<width$}  {:<verdict_width$}  {}", t.translator, t.verdict.name(), t.summary);
        if let Some(f) = &t.refusal {
            let at = if f.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", f.pointer) };
            let _ = writeln!(s, "    refusal: `{}` at {at} (pointer {}): {}", f.keyword, Value::from(f.pointer.as_str()), f.message);
        }
        if let Some(e) = &t.evidence {
            let says = |name: &str, unknown: &Option<String>| match (name, unknown) {
                ("shown", _) => "shown (witness)".to_owned(),
                ("unknown", Some(why)) => format!("unknown ({})", first_reason(why)),
                (other, _) => other.to_owned(),
            };
            let _ = writeln!(s, "    evidence: widening {}; narrowing {}", says(&e.widening, &e.widening_unknown), says(&e.narrowing, &e.narrowing_unknown));
        }
        for r in &t.rows {
            let at = if r.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", r.pointer) };
            let _ = writeln!(s, "    row {} at {at}: {} ({}, {})", r.citation, r.disposition, r.table_line, r.page);
        }
        for d in &t.declared {
            let r = &d.row;
            let at = if r.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", r.pointer) };
            let here = if d.here == "proven" { "declared, proven not to act on this schema" } else { "declared, not shown on this schema" };
            let _ = writeln!(s, "    row {} at {at}: {} -- {here} ({}, {})", r.citation, r.disposition, r.table_line, r.page);
        }
        if let Some(f) = &t.refusal
            && let Some(note) = &f.note
        {
            let _ = writeln!(s, "    why: {note}");
        }
        for m in &t.missing {
            let at = if m.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", m.pointer) };
            let _ = writeln!(s, "    keyword `{}` (form `{}`) at {at}: no row", m.keyword, m.form);
        }
        if let Some(p) = &t.projection {
            if *p == report.source {
                let _ = writeln!(s, "    projection: the schema itself, unchanged");
            } else {
                match compact_diff(&report.source, p, 12) {
                    Some(lines) => {
                        let _ = writeln!(s, "    projection: the schema with (- removed, + added, ~ changed):");
                        for l in lines {
                            let _ = writeln!(s, "      {l}");
                        }
                    }
                    None => {
                        let _ = writeln!(s, "    projection: {}", crate::report::text::json_inline(p));
                    }
                }
            }
        }
        for w in t.witnesses.iter().take(3) {
            let model = w.model_instance.as_ref().map(|m| format!(" (model side {m})")).unwrap_or_default();
            let _ = writeln!(
                s,
                "    witness ({}): {}{model} -- the schema {} it, the projection {} it",
                w.direction,
                crate::report::text::json_inline(&w.instance),
                if w.schema_accepts { "accepts" } else { "rejects" },
                if w.projection_accepts { "accepts" } else { "rejects" },
            );
            for a in &w.at {
                let place = if a.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", a.pointer) };
                match (&a.row, &a.table_line) {
                    (Some(row), Some(line)) => {
                        let says = a.disposition.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
                        let _ = writeln!(s, "      because of `{}` at {place}: row {row}{says} ({line})", a.keyword);
                    }
                    _ => {
                        let _ = writeln!(s, "      because of `{}` at {place}: no row explains it", a.keyword);
                    }
                }
            }
        }
        if t.witnesses.len() > 3 {
            let _ = writeln!(s, "    ... and {} more witnesses (--format json lists them all)", t.witnesses.len() - 3);
        }
        if let Some(f) = &t.failure {
            // The rule and the pinned witnesses; the case's every row and the source are left
            // out (the schema is the user's file, the projection is shown above).
            // The witnesses are shown above, with their occurrences; the rest (the rules, the
            // reproduce hint) is kept.
            for line in f.lines().skip(1).take_while(|l| !l.starts_with("case: ") && !l.starts_with("projection: ")) {
                if !line.starts_with(' ') || line.trim_start().starts_with("(generated") {
                    let _ = writeln!(s, "    | {}", line.trim_start());
                }
            }
        }
        for a in &t.advice {
            let _ = writeln!(s, "    what you can do: {a}");
        }
    }
    let lossy: Vec<&str> = report.translators.iter().filter(|t| t.verdict.lossy()).map(|t| t.translator.as_str()).collect();
    if lossy.is_empty() {
        s.push_str("\nnothing lossy or silent\n");
    } else {
        let _ = writeln!(s, "\nlossy or silent: {}", lossy.join(", "));
    }
    let unavailable: Vec<&str> = report.translators.iter().filter(|t| t.verdict == CheckVerdict::Unavailable).map(|t| t.translator.as_str()).collect();
    if !unavailable.is_empty() {
        let _ = writeln!(s, "unavailable here, not checked: {}", unavailable.join(", "));
    }
    let unproven = report.translators.iter().filter(|t| t.verdict == CheckVerdict::NoLossFound).count();
    let clean = if unproven == 0 {
        "exit status 0: every translator projects the schema exactly (proven)".to_owned()
    } else {
        format!("exit status 0: no translator shows a loss, but {unproven} of them are not proven exact (no loss found in the draws made)")
    };
    let _ = writeln!(
        s,
        "{}",
        match report.outcome() {
            CheckOutcome::Clean => clean.as_str(),
            CheckOutcome::DeclaredLosses => "exit status 3: every finding is a loss the tables declare (an approximation or a refusal)",
            CheckOutcome::Findings => "exit status 1: a violation, a keyword with no row, a known violation or a translator not checked",
        }
    );
    s
}

// ---- the command -------------------------------------------------------------------------------

/// The targets `check` runs, borrowed from the tables and translators it selected.
fn as_targets(selected: &CheckTargets) -> Vec<Target<'_>> {
    selected.iter().map(|(table, translator)| Target { table, translator: translator.as_ref() }).collect()
}

/// The exit status of a `check` that found `outcome`, with or without `--mcp`.
fn exit_status(outcome: CheckOutcome) -> u8 {
    match outcome {
        CheckOutcome::Clean => EXIT_OK,
        CheckOutcome::DeclaredLosses => EXIT_DECLARED_LOSS,
        CheckOutcome::Findings => EXIT_FINDINGS,
    }
}

/// The tables `check` runs, each with its translator.
type CheckTargets = Vec<(table::Table, Arc<dyn schema_fidelity_translators::Translator>)>;

/// The tables and translators `check` runs: every one, or those `wanted`.
fn check_targets(wanted: &[String], cx: &mut Cx<'_>) -> Result<CheckTargets, Stop> {
    let project = project(cx)?;
    let tables = load_tables(&project);
    let names: Vec<&str> = tables.iter().map(|(n, _, _)| n.as_str()).collect();
    check_wanted(wanted, &names)?;
    let resolver = session::resolver_for(&project.root, tables.iter().filter_map(|(_, t, _)| t.as_ref()), &cx.settings.adapters);
    let mut selected = Vec::new();
    for (name, table, errors) in tables {
        if !wanted.is_empty() && !wanted.contains(&name) {
            continue;
        }
        match (table, resolver(&name)) {
            (Some(table), Some(translator)) => {
                if !errors.is_empty() {
                    tell!(cx, "note: dispositions/{name}.yaml has {} lint problem(s); `schema-fidelity lint` lists them", errors.len());
                }
                selected.push((table, translator));
            }
            (None, _) => tell!(cx, "note: skipping `{name}`: its table does not load (`schema-fidelity lint`)"),
            (_, None) => tell!(cx, "note: skipping `{name}`: no translator of that name is known"),
        }
    }
    Ok(selected)
}

pub(crate) fn command(file: &str, wanted: &[String], json: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let budgets = &cx.settings.budgets.clone();
    let text = budget::read_text(&cx.path(file), budgets).map_err(|e| format!("{file}: {e}"))?;
    let schema = json::parse(&text).map_err(|e| format!("{file}:{e}"))?;

    let selected = check_targets(wanted, cx)?;
    let targets = as_targets(&selected);
    let report = check(file, &schema, &targets, &Env::default(), budgets)?;
    if json {
        let out = serde_json::to_string_pretty(&report).map_err(|e| format!("cannot serialize the result: {e}"))?;
        cx.io.out(&(crate::terminal::sanitize_json(&out) + "\n"))?;
    } else {
        say_part!(cx, "{}", render_text(&report));
    }
    Ok(exit_status(report.outcome()))
}

/// `check --mcp COMMAND`: every tool the server lists, against every translator (or `wanted`).
pub(crate) fn mcp_command(command: &str, wanted: &[String], json: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    if argv.is_empty() {
        return Err("--mcp needs a command to start the server".to_owned().into());
    }
    let selected = check_targets(wanted, cx)?;
    let targets = as_targets(&selected);
    let cwd = cx.cwd.clone();
    let launch = crate::mcp::client::Launch { command: &argv, cwd: &cwd, env: Some(&cx.vars), timeout: cx.settings.mcp_timeout };
    let progress = std::sync::OnceLock::new();
    let err_terminal = cx.err_terminal;
    let tick = |total: usize| progress.get_or_init(|| crate::report::progress::Progress::new("checking tools", total, err_terminal)).tick();
    let result = mcp::check_server(&launch, &targets, &Env::default(), &cx.settings.budgets, &tick).map_err(|e| e.to_string());
    if let Some(p) = progress.get() {
        p.finish();
    }
    let result = result?;
    if json {
        let out = serde_json::to_string_pretty(&result).map_err(|e| format!("cannot serialize the result: {e}"))?;
        cx.io.out(&(crate::terminal::sanitize_json(&out) + "\n"))?;
    } else {
        say_part!(cx, "{}", mcp::render_text(&result));
    }
    Ok(exit_status(result.outcome()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reproduce_hint_becomes_the_check_command() {
        let message = "the table is the oracle: widening\n  (generated witnesses are shrunk; reproduce with: SCHEMA_FIDELITY_SEED=0x1f cargo test --test contract -- --exact 'x::check::my tool.json')\nprojection: {}";
        let out = reproduce_with_check(message, "my tool.json", "acme");
        assert!(out.contains("reproduce with: SCHEMA_FIDELITY_SEED=0x1f schema-fidelity check 'my tool.json' --translator acme)"), "{out}");
        assert!(!out.contains("cargo test"), "{out}");
        assert!(out.starts_with("the table is the oracle: widening\n") && out.ends_with("\nprojection: {}"), "{out}");
    }

    #[test]
    fn the_compact_diff_names_each_changed_pointer_or_gives_up() {
        let a = serde_json::json!({"type": "object", "properties": {"a/b": {"minLength": 1}}, "required": ["a/b"]});
        let b = serde_json::json!({"type": "OBJECT", "properties": {"a/b": {"description": "x"}}, "required": ["a/b"], "additionalProperties": false});
        let lines = compact_diff(&a, &b, 12).expect("small");
        assert_eq!(
            lines,
            [
                "~ /type: \"object\" -> \"OBJECT\"",
                "- /properties/a~1b/minLength: 1",
                "+ /properties/a~1b/description: \"x\"",
                "+ /additionalProperties: false",
            ]
        );
        assert_eq!(compact_diff(&a, &b, 2), None);
        assert_eq!(compact_diff(&a, &a, 2), Some(Vec::new()));
    }
}
