//! `schema-fidelity explain TRANSLATOR KEYWORD`: one row in plain words, with its table line, the
//! cases that use it and, for an approximation, a witness computed now.
//!
//! The keyword may be given as a table names it (`anyOf`, `x-*`), with a refinement
//! (`anyOf:at_root`, `additionalProperties:false`), as a page anchor (`anyof-at-root`), or as an
//! extension key that a glob row covers (`x-internal`); `TRANSLATOR/KEYWORD`, the citation form,
//! works too. A wrong name gets the nearest right one.
//!
//! The witness comes from the run's records first (as on the report pages: a case's own instance
//! before a generated one). When they have none, the cases that use the row are re-run with the
//! witness generator on for every case, suite cases included, so an approximation nobody wrote
//! an instance for still shows what it lets through, if a draw can show it.

use crate::commands::{Cx, EXIT_OK, Stop, load_wanted, unknown_translator};
use crate::session;
use std::fmt::Write as _;
use std::sync::Arc;

use schema_fidelity_translators::Translator;
use schema_fidelity_translators::vocabulary::{self, BOOLEAN_SUBSCHEMAS};

use crate::report::anchor;
use crate::report::model::{self, RowKey, RowReport, WitnessReport};
use crate::records::{Record, Records};
use crate::report::progress::Progress;
use crate::report::text::json_inline;
use crate::corpus::Case;
use crate::diagnostic;
use crate::table::{Row, Table};
use crate::validation::Env;
use crate::verdict::Verdict;

/// How many case ids `explain` lists.
const CASES_LISTED: usize = 10;
/// How many using cases are re-run on generated instances when the corpus shows no witness.
const CASES_REGENERATED: usize = 40;

/// A parsed `TRANSLATOR KEYWORD` (or `TRANSLATOR/KEYWORD[:REFINEMENT]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub translator: String,
    /// `None`: list every row of the table.
    pub key: Option<String>,
    pub refinement: Option<String>,
}

/// Parse the arguments of `explain`.
///
/// # Errors
/// When there are no arguments or too many.
fn parse_query(args: &[String]) -> Result<Query, String> {
    let (translator, key) = match args {
        [one] => match one.split_once('/') {
            Some((t, k)) => (t.to_owned(), Some(k.to_owned())),
            None => (one.clone(), None),
        },
        [t, k] => (t.clone(), Some(k.clone())),
        _ => return Err("explain needs TRANSLATOR KEYWORD (or the citation form TRANSLATOR/KEYWORD)".to_owned()),
    };
    let (key, refinement) = match key {
        Some(k) => match k.split_once(':') {
            Some((k, r)) => (Some(k.to_owned()), Some(if r == "root" { anchor::AT_ROOT.to_owned() } else { r.to_owned() })),
            None => (Some(k), None),
        },
        None => (None, None),
    };
    Ok(Query { translator, key, refinement })
}

/// The rows of `table` a query names.
///
/// # Errors
/// A message naming the table, with the nearest name when there is one.
pub fn find_rows<'a>(table: &'a Table, key: &str, refinement: Option<&str>) -> Result<Vec<&'a Row>, String> {
    let rows = model::ordered_rows(table);
    let matches_refinement = |r: &&Row| refinement.is_none_or(|want| r.id.refinement.as_deref() == Some(want));
    let by_key: Vec<&Row> = rows.iter().copied().filter(|r| r.id.keyword == key).collect();
    let file = table.file.display();
    if !by_key.is_empty() {
        let chosen: Vec<&Row> = by_key.iter().copied().filter(matches_refinement).collect();
        if chosen.is_empty() {
            let have: Vec<String> = by_key.iter().map(|r| r.id.refinement.clone().unwrap_or_else(|| "(its own row)".to_owned())).collect();
            return Err(format!("{file}: `{key}` has no refinement `{}` (it has: {})", refinement.unwrap_or_default(), have.join(", ")));
        }
        return Ok(chosen);
    }
    let lower = key.to_lowercase();
    let by_anchor: Vec<&Row> = rows.iter().copied().filter(|r| anchor::anchor(&r.id.keyword, r.id.refinement.as_deref()) == lower).collect();
    if !by_anchor.is_empty() {
        return Ok(by_anchor);
    }
    let keywords = vocabulary::DRAFT_2020_12.iter().map(|k| k.name).chain(BOOLEAN_SUBSCHEMAS.iter().copied());
    let near_keyword = diagnostic::nearest(key, keywords);
    if anchor::is_extension(key)
        && let Some(pattern) = governing_glob(&rows, key)
    {
        // `patern` is far likelier a typo than an extension: say so, as the table lint does.
        if let Some(near) = near_keyword {
            return Err(format!(
                "{file} has no row `{key}`; did you mean `{near}`? (an extension key `{key}` would fall under `{}`)",
                anchor::citation(&table.translator, pattern, None)
            ));
        }
        return Ok(rows.iter().copied().filter(|r| r.id.keyword == pattern).filter(matches_refinement).collect());
    }
    if vocabulary::is_keyword(key) || BOOLEAN_SUBSCHEMAS.contains(&key) {
        return Err(format!("{file} has no row for `{key}`: a schema using it fails *never silent*, and `schema-fidelity lint` says so"));
    }
    let mut names: Vec<String> = rows.iter().map(|r| r.id.keyword.clone()).collect();
    names.extend(rows.iter().map(|r| anchor::anchor(&r.id.keyword, r.id.refinement.as_deref())));
    names.extend(vocabulary::DRAFT_2020_12.iter().map(|k| k.name.to_owned()));
    names.dedup();
    let mut message = format!("{file} has no row `{key}`");
    if let Some(near) = diagnostic::nearest(key, names.iter().map(String::as_str)) {
        let _ = write!(message, "; did you mean `{near}`?");
    } else {
        let _ = write!(message, "; `schema-fidelity explain {}` lists its rows", table.translator);
    }
    Err(message)
}

fn governing_glob<'a>(rows: &[&'a Row], key: &str) -> Option<&'a str> {
    rows.iter()
        .map(|r| r.id.keyword.as_str())
        .filter(|p| p.strip_suffix('*').is_some_and(|prefix| key.starts_with(prefix)))
        .max_by_key(|p| p.len())
}

/// Every row of a table, one line each (for `explain TRANSLATOR`).
#[must_use]
fn overview(table: &Table) -> String {
    let mut s = format!("{} ({} rows)\n", table.file.display(), table.rows().len());
    for r in model::ordered_rows(table) {
        let cite = anchor::citation(&table.translator, &r.id.keyword, r.id.refinement.as_deref());
        let known = if r.marks.is_empty() { "" } else { "  [known violation]" };
        let _ = writeln!(s, "  {cite:<48} {}{known}", r.disposition.label());
    }
    s
}

/// Whether `explain` may run the oracle beyond the run's records to find a witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Witnesses {
    /// Only what the run recorded: when a kept run is current, nothing is judged again, and what
    /// `explain` shows is what the reports show.
    Recorded,
    /// When the records show none, draw instances on the cases that use the row (suite cases
    /// included, which the run does not draw for): `explain --generate`.
    Generate,
}

/// Explain `rows` of `table`: run `translator` (when known) over `cases` and describe each row.
///
/// The cases are judged through `records` (a run's store): a record made before, in this run or
/// kept from an earlier one, is read rather than judged again. `env` is the store's, its rows named.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn explain(
    table: &Table,
    rows: &[&Row],
    translator: Option<&dyn Translator>,
    cases: &[Arc<Case>],
    records: &Records,
    env: &Env,
    witnesses: Witnesses,
    show_progress: bool,
) -> String {
    // An external translator whose runtime or package is missing is not run: its cases would all
    // fault, which says nothing about the row.
    let unavailable = translator.and_then(Translator::unavailable);
    let translator = translator.filter(|_| unavailable.is_none());
    let runs = translator.map(|t| {
        let progress = if show_progress { Progress::on_terminal(format!("running {}", table.translator), cases.len()) } else { Progress::quiet() };
        let runs = records.of_translator(table, t, cases, env, &|| progress.tick());
        progress.finish();
        runs
    });
    let report = model::translator_report(
        &table.translator,
        &table.file.display().to_string(),
        Some(table),
        Vec::new(),
        runs.as_deref(),
    );
    let mut s = String::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let key = model::key_of(row);
        let Some(r) = report.rows.iter().find(|r| r.key == key.0 && r.refinement == key.1) else { continue };
        describe(&mut s, table, row, r, translator, runs.as_deref(), unavailable.as_deref(), env, witnesses);
    }
    s
}

#[allow(clippy::too_many_arguments)]
fn describe(
    s: &mut String,
    table: &Table,
    row: &Row,
    r: &RowReport,
    translator: Option<&dyn Translator>,
    runs: Option<&[Arc<Record>]>,
    unavailable: Option<&str>,
    env: &Env,
    witnesses: Witnesses,
) {
    let _ = writeln!(s, "{}  (reports/{}.md#{})", r.citation, table.translator, r.anchor);
    let _ = writeln!(s, "  table:       {}:{}", table.file.display(), r.line);
    let _ = writeln!(s, "  disposition: {}", r.label());
    let _ = writeln!(s, "  meaning:     {}", r.meaning());
    if let Some(note) = &r.note {
        let _ = writeln!(s, "  note:        {}", note.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    if !r.issues.is_empty() {
        let _ = writeln!(s, "  issues:      {}", r.issues.join(", "));
    }
    for k in r.known_violation.iter().chain(&r.other_known_violations) {
        let w = k.witness.as_ref().map(|w| format!("; witness: {w}")).unwrap_or_default();
        let class = k.crash.as_ref().map_or_else(|| k.direction.clone(), |text| format!("crash: {text}"));
        let _ = writeln!(s, "  known violation: {} ({class}){w}", k.issue);
    }
    let Some(runs) = runs else {
        match unavailable {
            Some(reason) => {
                let _ = writeln!(s, "  cases:       not run: `{}` is unavailable here: {reason}", table.translator);
            }
            None => {
                let _ = writeln!(s, "  cases:       not run: no translator named `{}` is known", table.translator);
            }
        }
        return;
    };
    let key: RowKey = model::key_of(row);
    let using: Vec<&Arc<Record>> = runs.iter().filter(|c| !matches!(c.verdict, Verdict::Skip(_)) && c.rows.contains(&key)).collect();
    if using.is_empty() {
        let _ = writeln!(s, "  cases:       none in the corpus uses this row; add one under corpus/");
    } else {
        let _ = writeln!(s, "  cases:       {} use it", using.len());
        for c in using.iter().take(CASES_LISTED) {
            let _ = writeln!(s, "                 {}", c.case.id);
        }
        if using.len() > CASES_LISTED {
            let _ = writeln!(s, "                 ... and {} more", using.len() - CASES_LISTED);
        }
    }
    if let Some(f) = &r.refusal {
        let at = if f.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", f.pointer) };
        let _ = writeln!(s, "  refusal:     at {at}: {} (case {})", f.message, f.case);
    }
    let approximates = r.disposition == "approximated" || r.known_violation.is_some();
    if !approximates {
        return;
    }
    let (witness, origin) = match (&r.witness, witnesses) {
        // The run's witness: a corpus instance or one the run drew (its description says which).
        (Some(w), _) => (Some(w.clone()), "recorded by the run"),
        (None, Witnesses::Generate) => (translator.and_then(|t| generated_witness(table, row, t, &using, env)), "drawn by --generate"),
        (None, Witnesses::Recorded) => (None, ""),
    };
    match (witness, witnesses) {
        (Some(w), _) => {
            let _ = writeln!(s, "  witness:     {} ({}, {origin})", witness_line(&w), w.direction);
            let _ = writeln!(s, "               case {}, instance \u{201c}{}\u{201d}", w.case, w.description);
        }
        (None, Witnesses::Recorded) if !using.is_empty() => {
            let _ = writeln!(
                s,
                "  witness:     none in the run's records (it draws instances for the own corpus only); \
                 `explain --generate` draws on the {} case(s) that use the row",
                using.len().min(CASES_REGENERATED)
            );
        }
        (None, Witnesses::Recorded) => {
            let _ = writeln!(s, "  witness:     none in the run's records");
        }
        (None, Witnesses::Generate) => {
            let _ = writeln!(s, "  witness:     none found, in the corpus or on generated instances of the cases that use it");
        }
    }
}

fn witness_line(w: &WitnessReport) -> String {
    let model = w.model_instance.as_ref().map(|m| format!(" (model side {})", json_inline(m))).unwrap_or_default();
    format!(
        "{}{model} -- the source {} it, the projection {} it",
        json_inline(&w.instance),
        if w.source_accepts { "accepts" } else { "rejects" },
        if w.projection_accepts { "accepts" } else { "rejects" }
    )
}

/// Re-run the cases that use `row` with the witness generator on for every case (suite cases
/// included, which `cargo test` does not draw for), and pick a witness.
fn generated_witness(table: &Table, row: &Row, translator: &dyn Translator, using: &[&Arc<Record>], env: &Env) -> Option<WitnessReport> {
    let mut witness = env.witness.clone();
    witness.scope = crate::witness::Scope::All;
    let env = Env { name_rows: true, witness, ..env.clone() };
    let runs: Vec<Arc<Record>> = using.iter().take(CASES_REGENERATED).map(|run| Arc::new(Record::make(table, translator, &run.case, &env))).collect();
    model::select_witness(table, row, &runs)
}

// ---- the command -------------------------------------------------------------------------------

pub(crate) fn command(translator: String, keyword: Option<String>, generate: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let query = parse_query(&[Some(translator), keyword].into_iter().flatten().collect::<Vec<_>>())?;
    let loaded = load_wanted(cx, std::slice::from_ref(&query.translator))?;
    let names: Vec<&str> = loaded.tables.iter().map(|(t, _, _)| t.as_str()).collect();
    let Some((_, table, errors)) = loaded.tables.iter().find(|(n, _, _)| *n == query.translator) else {
        return Err(unknown_translator(&query.translator, &names).into());
    };
    let Some(table) = table else {
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(format!("the table of `{}` does not load:\n{}", query.translator, errors.join("\n")).into());
    };
    let Some(key) = &query.key else {
        say_part!(cx, "{}", overview(table));
        return Ok(EXIT_OK);
    };
    let rows = find_rows(table, key, query.refinement.as_deref())?;
    let translator = session::resolver(&loaded, &cx.settings.adapters)(&query.translator);
    if let Some(reason) = translator.as_deref().and_then(|t| t.unavailable()) {
        tell!(cx, "note: `{}` is unavailable here, so its cases are not run: {reason}", query.translator);
    }
    let witnesses = if generate { Witnesses::Generate } else { Witnesses::Recorded };
    let text = explain(table, &rows, translator.as_deref(), &loaded.cases, &loaded.records, &loaded.env, witnesses, true);
    say_part!(cx, "{text}");
    Ok(EXIT_OK)
}
