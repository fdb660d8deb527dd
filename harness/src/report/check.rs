//! `schema-fidelity check SCHEMA.json`: what each translator does to a user's own tool schema.
//!
//! For each translator the answer is one of: **refused** (which keyword, where, why), **exact**
//! (every row present is preserved and no candidate instance tells source and projection apart),
//! **widened** / **narrowed** (an approximated row is present: the rows responsible, and a
//! witness when a candidate shows one), **no row** (a keyword the table does not cover: never
//! silent), **known violation** or **violation** (the translator breaks its own table).
//!
//! The work is the oracle's: the schema becomes a one-off case whose instances come from an
//! instance source ([`super::candidates::candidate_instances`] by default) and are labelled valid
//! or invalid by the schema itself, and [`oracle::check`] runs it against each table. So `check`
//! says exactly what `cargo test` would say if the schema were a corpus case.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use schema_fidelity_translators::walk;
use schema_fidelity_translators::{Outcome, Translator};
use serde::Serialize;
use serde_json::Value;

use super::anchor;
use crate::budget::{self, Budgets};
use crate::corpus::{Case, Instance, Origin};
use crate::oracle::{self, Attribution, Env, FailureKind, Verdict, Witness};
use crate::project::Project;
use crate::table::{self, Direction, Disposition, Row, Table, TableError};

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
    /// Candidate instances compared on, and how many of them the schema accepts.
    pub instances: usize,
    pub valid_instances: usize,
    pub translators: Vec<TranslatorCheck>,
    /// Whether any translator is lossy or silent (the exit status).
    pub lossy: bool,
    /// What the comparison could not cover (a bound beyond what the generators build).
    pub notes: Vec<String>,
}

/// The verdict for one translator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckVerdict {
    Exact,
    Refused,
    Widened,
    Narrowed,
    WidenedAndNarrowed,
    NoRow,
    KnownViolation,
    Violation,
}

impl CheckVerdict {
    /// Lossy or silent: the exit status is non-zero. A refusal is neither: it is explicit.
    #[must_use]
    pub fn lossy(self) -> bool {
        !matches!(self, Self::Exact | Self::Refused)
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Refused => "refused",
            Self::Widened => "widened",
            Self::Narrowed => "narrowed",
            Self::WidenedAndNarrowed => "widened and narrowed",
            Self::NoRow => "no row",
            Self::KnownViolation => "known violation",
            Self::Violation => "violation",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TranslatorCheck {
    pub translator: String,
    pub verdict: CheckVerdict,
    /// One sentence saying what the verdict means for this schema.
    pub summary: String,
    /// The rows responsible: approximated rows present, the refused row cited, known violations.
    pub rows: Vec<RowUse>,
    pub witnesses: Vec<CheckWitness>,
    pub refusal: Option<RefusalOut>,
    /// Keyword occurrences with no row.
    pub missing: Vec<MissingOut>,
    /// The oracle's message, for a violation.
    pub failure: Option<String>,
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
pub fn load_tables(project: &Project) -> Vec<(String, Option<Table>, Vec<TableError>)> {
    project
        .table_files()
        .into_iter()
        .map(|path| {
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
            let (t, errors) = table::load_lenient(&path, project.relative(&path), &project.dispositions_dir());
            (name, t, errors)
        })
        .collect()
}

/// Check `schema` (read from `file`) against every target, on the instances `instances` derives
/// from it ([`super::candidates::candidate_instances`] by default), within `budgets`.
///
/// # Errors
/// When the schema exceeds a budget, or is not a valid draft 2020-12 schema that compiles
/// offline, naming `file`.
pub fn check(
    file: &str,
    schema: &Value,
    targets: &[Target<'_>],
    instances: &dyn Fn(&Value) -> Vec<Value>,
    env: &Env,
    budgets: &Budgets,
) -> Result<CheckReport, String> {
    // Before anything that grows with the schema: the candidates, the translators, the draws.
    let env = &Env { name_rows: true, ..env.clone() };
    budget::check_schema(schema, budgets).map_err(|e| format!("{file}: {e}"))?;
    let source = oracle::compile(schema, env, true).map_err(|e| format!("{file}: {}", explain_compile_error(schema, e)))?;
    let instances: Vec<Instance> = instances(schema)
        .into_iter()
        .enumerate()
        .map(|(i, data)| Instance { description: format!("candidate {i}"), valid: source.is_valid(&data), data })
        .collect();
    let valid_instances = instances.iter().filter(|i| i.valid).count();
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
    let translators: Vec<TranslatorCheck> = targets.iter().map(|t| check_one(t, &case, env)).collect();
    Ok(CheckReport {
        notes: beyond_the_generator(schema, budgets.get(&budget::INSTANCE_LENGTH)),
        schema: file.to_owned(),
        instances: case.instances.len(),
        valid_instances,
        lossy: translators.iter().any(|t| t.verdict.lossy()),
        translators,
    })
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

/// Bounds a generated instance cannot reach (longer than [`budget::INSTANCE_LENGTH`]): said once
/// each, since the comparison then covers only the instances that can be built.
fn beyond_the_generator(schema: &Value, cap: u64) -> Vec<String> {
    let Ok(occurrences) = walk::occurrences(schema) else { return Vec::new() };
    occurrences
        .iter()
        .filter(|o| matches!(o.keyword, "minLength" | "maxLength" | "minItems" | "maxItems"))
        .filter_map(|o| {
            let n = o.value.as_u64().filter(|n| *n > cap)?;
            let at = if o.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", o.pointer) };
            let effect = if o.keyword.starts_with("min") { "no instance that long is built, so only instances that fail it are compared" } else { "it is not probed at its bound" };
            Some(format!(
                "`{}: {n}` at {at} is beyond the generator: instances are at most {cap} long (the {} budget, {}); {effect}",
                o.keyword,
                budget::INSTANCE_LENGTH.name,
                budget::INSTANCE_LENGTH.env
            ))
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
        ws.iter()
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
                        .filter(|(_, r)| approximated(w.direction)(r) || r.known_violation.as_ref().is_some_and(|k| k.direction == w.direction))
                        .map(|(_, r)| cite(r))
                        .collect(),
                };
                CheckWitness {
                    direction: w.direction.name().to_owned(),
                    instance: w.instance.clone(),
                    model_instance: (w.model_instance != w.instance).then(|| w.model_instance.clone()),
                    schema_accepts: w.source_accepts,
                    projection_accepts: w.projection_accepts,
                    rows: responsible.into_iter().collect(),
                }
            })
            .collect()
    };
    let mut out = TranslatorCheck {
        translator: name.clone(),
        verdict: CheckVerdict::Exact,
        summary: String::new(),
        rows: Vec::new(),
        witnesses: Vec::new(),
        refusal: None,
        missing: Vec::new(),
        failure: None,
    };
    match oracle::check(table, target.translator, case, env) {
        Verdict::Pass(summary) if summary.refused => {
            out.verdict = CheckVerdict::Refused;
            if let Outcome::Refused(r) = target.translator.translate(&case.schema) {
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
            let widening = uses(&approximated(Direction::Widening));
            let narrowing = uses(&approximated(Direction::Narrowing));
            out.verdict = match (widening.is_empty(), narrowing.is_empty()) {
                (true, true) => CheckVerdict::Exact,
                (false, true) => CheckVerdict::Widened,
                (true, false) => CheckVerdict::Narrowed,
                (false, false) => CheckVerdict::WidenedAndNarrowed,
            };
            out.summary = match out.verdict {
                CheckVerdict::Exact => "every row present is preserved: the projection accepts exactly what the schema accepts".to_owned(),
                CheckVerdict::Widened => "the provider may accept arguments the schema rejects; the tool must still validate them".to_owned(),
                CheckVerdict::Narrowed => "the provider may reject arguments the schema accepts".to_owned(),
                _ => "the provider may both accept arguments the schema rejects and reject some it accepts".to_owned(),
            };
            if out.verdict != CheckVerdict::Exact && summary.witnesses.is_empty() {
                out.summary.push_str(" (no candidate instance shows it; the table says it can happen)");
            }
            out.rows = widening.into_iter().chain(narrowing).collect();
            out.witnesses = witnesses(&summary.witnesses);
        }
        Verdict::ExpectedFailure { failure, .. } => {
            out.verdict = CheckVerdict::KnownViolation;
            out.summary = "the translator breaks its table here in a way the table already admits (a known violation)".to_owned();
            out.rows = uses(&|r: &Row| r.known_violation.is_some());
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
            } else {
                out.verdict = CheckVerdict::Violation;
                out.summary = format!("the translator breaks its table: {}", failure.message.lines().next().unwrap_or_default());
                out.witnesses = witnesses(&failure.witnesses);
                out.failure = Some(failure.message);
            }
        }
        Verdict::Skip(reason) => {
            out.verdict = CheckVerdict::Violation;
            out.summary = format!("could not be checked: {reason}");
        }
    }
    out
}

/// The text form of a check report.
#[must_use]
pub fn render_text(report: &CheckReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: compared on {} candidate instances ({} valid under the schema)\n",
        report.schema, report.instances, report.valid_instances
    );
    for note in &report.notes {
        let _ = writeln!(s, "note: {note}");
    }
    if !report.notes.is_empty() {
        s.push('\n');
    }
    let width = report.translators.iter().map(|t| t.translator.len()).max().unwrap_or(0);
    for t in &report.translators {
        let _ = writeln!(s, "{:<width$}  {:<10}  {}", t.translator, t.verdict.name(), t.summary);
        for r in &t.rows {
            let at = if r.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", r.pointer) };
            let _ = writeln!(s, "    row {} at {at}: {} ({}, {})", r.citation, r.disposition, r.table_line, r.page);
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
        for w in t.witnesses.iter().take(3) {
            let model = w.model_instance.as_ref().map(|m| format!(" (model side {m})")).unwrap_or_default();
            let _ = writeln!(
                s,
                "    witness ({}): {}{model} -- the schema {} it, the projection {} it{}",
                w.direction,
                super::text::json_inline(&w.instance),
                if w.schema_accepts { "accepts" } else { "rejects" },
                if w.projection_accepts { "accepts" } else { "rejects" },
                if w.rows.is_empty() { String::new() } else { format!(" (rows: {})", w.rows.join(", ")) }
            );
        }
        if t.witnesses.len() > 3 {
            let _ = writeln!(s, "    ... and {} more witnesses (--format json lists them all)", t.witnesses.len() - 3);
        }
        if let Some(f) = &t.failure {
            for line in f.lines().skip(1) {
                let _ = writeln!(s, "    | {line}");
            }
        }
    }
    let lossy: Vec<&str> = report.translators.iter().filter(|t| t.verdict.lossy()).map(|t| t.translator.as_str()).collect();
    if lossy.is_empty() {
        s.push_str("\nnothing lossy or silent\n");
    } else {
        let _ = writeln!(s, "\nlossy or silent: {}", lossy.join(", "));
    }
    s
}
