//! Turning tables × corpus into libtest-mimic trials.
//!
//! Names are stable and filterable: `TRANSLATOR::corpus/path.yaml::case`,
//! `TRANSLATOR::jsts/file.json::case`, `TRANSLATOR::lint`, `TRANSLATOR::ratchet`,
//! `TRANSLATOR::entry` (an external translator's public call answers what its code path does), and
//! `corpus::corpus/path.yaml` for a corpus file that does not load. Each trial's kind is its
//! translator, so `--list` shows `[anthropic] anthropic::corpus/...`.
//!
//! Under nextest each trial runs in its own process with `--exact '[kind] NAME' --nocapture` (the
//! name as `--list` prints it, kind included); rebuilding thousands of trials in every process would
//! make that slow, so [`Selection::from_args`] notices any `--exact` filter and only the table and
//! the corpus file the name points at are loaded. An `--exact` name of a trial's shape that matches
//! no trial is an error ([`exact_miss`]), never a run of nothing that exits 0.
//!
//! What the trials read (tables, corpus, the records of the oracle's verdicts) is the session
//! ([`crate::session`]), loaded once; the `reports::current` trial renders the reports from it
//! ([`crate::report`]). This module only builds the trials, on top of both.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use schema_fidelity_translators::{Outcome, Translator};

use crate::corpus;
use crate::diagnostic;
use crate::external;
use crate::project::Project;
use crate::records::Record;
use crate::session::{Loaded, Resolver, Selection, load, resolver};
use crate::verdict::Verdict;

impl Selection {
    /// [`Selection::Exact`] whenever a filter is given with `--exact` (as nextest, or a person,
    /// runs one trial), else [`Selection::All`].
    ///
    /// libtest-mimic matches an `--exact` filter against the trial name and against `[kind] name`.
    /// The exact selection loads what every trial of that name needs, so the trials it builds are a
    /// superset of the ones the filter can match; libtest-mimic then applies the filter, `--skip`
    /// and `--ignored` to them as to a full load. The outcome is the same as a full load's; only
    /// the `filtered out` count of the closing line is smaller.
    #[must_use]
    pub fn from_args(args: &Arguments) -> Self {
        match (&args.filter, args.exact) {
            // The reports trial reads the records of every translator on every case.
            (Some(filter), true) if bare_name(filter) == REPORTS_TRIAL => Self::All,
            (Some(filter), true) => Self::Exact(bare_name(filter).to_owned()),
            _ => Self::All,
        }
    }
}

/// A trial name without the `[kind] ` prefix that `--list` prints and nextest passes back:
/// `[anthropic] anthropic::lint` and `anthropic::lint` are both `anthropic::lint`.
#[must_use]
pub fn bare_name(name: &str) -> &str {
    name.strip_prefix('[').and_then(|rest| rest.split_once("] ")).map_or(name, |(_, bare)| bare)
}

/// Whether `name` (bare or with its `[kind] ` prefix) has the shape of a trial name:
/// `T::lint`, `T::ratchet`, `T::entry`, `T::jsts`, `T::corpus/…` or `T::jsts/…`. The names of the other test
/// binaries of the workspace (`cargo test -- --exact NAME` passes the filter to all of them) never
/// have it.
#[must_use]
fn is_trial_name(name: &str) -> bool {
    let Some((head, rest)) = bare_name(name).split_once("::") else { return false };
    !head.is_empty()
        && !head.contains(char::is_whitespace)
        && (matches!(rest, "lint" | "ratchet" | "entry" | "jsts" | "current") || rest.starts_with("corpus/") || rest.starts_with("jsts/"))
}

/// The trial that holds `reports/` to the run: the reports built from this run's records must
/// equal the committed ones (with [`crate::settings::BLESS_ENV`], it rewrites them instead).
pub const REPORTS_TRIAL: &str = "reports::current";

/// When `--exact NAME` has a trial name's shape but names none of `trials` (the trials built for
/// it), the error to report instead of running nothing: it names `NAME` and the nearest trial name
/// of a full load of the project. `None` otherwise (no `--exact`, `--list`, a match, or a name of
/// another test binary's shape, which this binary runs no test for, as libtest does).
#[must_use]
pub fn exact_miss(args: &Arguments, trials: &[Trial], project: &Project) -> Option<String> {
    let filter = args.filter.as_deref().filter(|_| args.exact && !args.list)?;
    let matches = |t: &Trial| t.name() == filter || (!t.kind().is_empty() && format!("[{}] {}", t.kind(), t.name()) == filter);
    if !is_trial_name(filter) || trials.iter().any(matches) {
        return None;
    }
    let mut message = format!("error: `--exact '{filter}'` names no trial of the contract run, so none was run");
    let all = Arc::new(load(project.clone(), &Selection::All));
    let names: Vec<String> = build(&all, &resolver(&all, &external::Config::default())).iter().map(|t| t.name().to_owned()).collect();
    if let Some(near) = nearest_name(bare_name(filter), &names) {
        message.push_str(&format!("; the nearest trial is `{near}`"));
    }
    message.push_str(" (`--list` lists them all)");
    Some(message)
}

/// The trial name nearest to `name`: among the trials of the nearest translator (the part before
/// `::`), the one at the smallest edit distance. Two steps, so that a miss costs milliseconds, not
/// an edit distance to each of thousands of names.
fn nearest_name<'a>(name: &str, names: &'a [String]) -> Option<&'a str> {
    fn head(n: &str) -> &str {
        n.split_once("::").map_or(n, |(h, _)| h)
    }
    let translator = names.iter().map(|n| head(n)).min_by_key(|h| diagnostic::edit_distance(head(name), h))?;
    names.iter().filter(|n| head(n) == translator).min_by_key(|n| diagnostic::edit_distance(name, n)).map(String::as_str)
}

/// The outcome of running the whole contract for one translator (used by the ratchet and the CLI).
#[derive(Debug, Default)]
pub struct Tally {
    pub passed: usize,
    /// Of the passed, how many were correct refusals (not compared instance by instance).
    pub refused: usize,
    pub failed: Vec<(String, String)>,
    pub expected: Vec<(String, String)>,
    pub skipped: usize,
    /// The skipped cases, each with the reason.
    pub skipped_cases: Vec<(String, String)>,
    /// Known-violation rows (by id) reproduced on some case.
    pub reproduced: BTreeMap<String, usize>,
    /// Cases where the translator threw (a crash; each is also failed or known).
    pub crashed: usize,
}

/// The tally of one translator's records.
#[must_use]
pub fn tally(records: &[Arc<Record>]) -> Tally {
    let mut t = Tally::default();
    for record in records {
        t.crashed += usize::from(matches!(record.outcome, Some(Outcome::Crashed(_))));
        match &record.verdict {
            Verdict::Pass(summary) => {
                t.passed += 1;
                t.refused += usize::from(summary.refused);
            }
            Verdict::Skip(reason) => {
                t.skipped += 1;
                t.skipped_cases.push((record.case.id.clone(), reason.clone()));
            }
            Verdict::Fail(f) => t.failed.push((record.case.id.clone(), f.message.clone())),
            Verdict::ExpectedFailure { message, known, .. } => {
                for id in known {
                    *t.reproduced.entry(id.clone()).or_default() += 1;
                }
                t.expected.push((record.case.id.clone(), message.clone()));
            }
        }
    }
    t
}

/// The reports trial ([`REPORTS_TRIAL`]): it reads the records the case trials made (or makes
/// the ones they have not yet), so the reports cost no second run of the oracle.
fn reports_trial(loaded: &Arc<Loaded>, resolver: &Resolver) -> Trial {
    let (loaded, resolver) = (loaded.clone(), resolver.clone());
    Trial::test(REPORTS_TRIAL, move || {
        let project = &loaded.project;
        // Every setting, as `report` reads them; an invalid one departs from the defaults.
        let settings = crate::settings::Settings::from_env();
        let bless = match &settings {
            Ok(settings) => crate::report::bless_requested(settings)?,
            Err(_) => std::env::var_os(crate::settings::BLESS_ENV).is_some_and(|v| !v.is_empty() && v != "0"),
        };
        let unavailable: Vec<&str> =
            loaded.tables.iter().filter(|(name, _, _)| resolver(name).is_some_and(|t| t.unavailable().is_some())).map(|(n, _, _)| n.as_str()).collect();
        // Every setting that could change what the reports say (a budget, the witness settings,
        // a shorter adapter timeout), as `report` judges them; an invalid one departs too.
        let departure = settings.as_ref().map_or_else(|invalid| Some(invalid.replace('\n', "; ")), crate::settings::Settings::departure);
        let tables_only = project.suite.is_err() || !unavailable.is_empty() || departure.is_some();
        if bless && let Some(settings) = &departure {
            return Err(Failed::from(format!(
                "{} with {settings}: the committed reports are made with the default settings; unset these to rewrite reports/",
                crate::settings::BLESS_ENV
            )));
        }
        let generated = crate::report::generate(&loaded, &resolver, false)?;
        if bless {
            if tables_only {
                return Err(Failed::from(format!(
                    "{} needs the JSON-Schema-Test-Suite and every external translator installed: the committed reports count their cases",
                    crate::settings::BLESS_ENV
                )));
            }
            let changed = crate::report::write(project, &generated)?;
            eprintln!("{}: rewrote {changed:?}", crate::settings::BLESS_ENV);
            return Ok(());
        }
        let diffs = crate::report::differences(project, &generated, tables_only);
        if !diffs.is_empty() {
            return Err(Failed::from(crate::terminal::sanitize(&format!(
                "reports/ is not current. Review the change below, then regenerate with `cargo run -p schema-fidelity -- report` \
                 (or {}=1 cargo test --test contract -- --exact {REPORTS_TRIAL}) and commit it.\n\n{}",
                crate::settings::BLESS_ENV,
                diffs.join("\n")
            ))));
        }
        if let Some(settings) = &departure {
            eprintln!("note: settings {settings} differ from the defaults the reports are made with, so only the reports that depend on the tables alone were compared");
        } else if !unavailable.is_empty() {
            eprintln!("note: {} unavailable here (their skipped trials say why), so only reports/matrix.md and reports/index.html were compared", unavailable.join(", "));
        } else if let Err(reason) = &project.suite {
            eprintln!("note: {reason}: only reports/matrix.md and reports/index.html were compared");
        }
        Ok(())
    })
    .with_kind("reports")
}

/// The lint finding for a table whose translator nobody provides (built in, or `run:`), shared by
/// the `TRANSLATOR::lint` trial and `schema-fidelity lint`.
#[must_use]
pub fn no_translator_message(name: &str) -> String {
    format!("dispositions/{name}.yaml: no translator named `{name}` is known (built-in, or external with `run:`); a new built-in one goes in translators/src/builtin/, an external one needs `run:` and `install:`")
}

/// Build the trials.
#[must_use]
pub fn build(loaded: &Arc<Loaded>, resolver: &Resolver) -> Vec<Trial> {
    let mut trials = vec![reports_trial(loaded, resolver)];
    for e in &loaded.corpus_errors {
        let message = e.to_string();
        trials.push(Trial::test(format!("corpus::{}", e.id), move || Err(Failed::from(crate::terminal::sanitize(&message)))).with_kind("corpus"));
    }
    for (name, table, errors) in &loaded.tables {
        let translator = resolver(name);
        let lint_errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        let missing_translator = translator.is_none();
        let tname = name.clone();
        trials.push(
            Trial::test(format!("{name}::lint"), move || {
                let mut messages = lint_errors.clone();
                if missing_translator {
                    messages.push(no_translator_message(&tname));
                }
                if messages.is_empty() { Ok(()) } else { Err(Failed::from(crate::terminal::sanitize(&messages.join("\n")))) }
            })
            .with_kind(name.clone()),
        );
        let (Some(table), Some(translator)) = (table.clone(), translator) else { continue };

        if let Err(reason) = &loaded.project.suite {
            let reason = format!("JSON-Schema-Test-Suite trials skipped: {reason}");
            trials.push(Trial::ignorable_test(format!("{name}::jsts"), move || Ok(Completion::ignored_with(reason.clone()))).with_kind(name.clone()));
        }

        for case in &loaded.cases {
            let (table, translator, case, shared) = (table.clone(), translator.clone(), case.clone(), loaded.clone());
            trials.push(
                Trial::ignorable_test(format!("{name}::{}", case.id), move || match translator.unavailable() {
                    Some(reason) => Ok(Completion::ignored_with(reason)),
                    None => match &shared.records.get(&table, translator.as_ref(), &case, &shared.env).verdict {
                    Verdict::Pass(_) => Ok(Completion::Completed),
                    Verdict::Skip(reason) => Ok(Completion::ignored_with(crate::terminal::sanitize(reason))),
                    Verdict::ExpectedFailure { message, .. } => Ok(Completion::ignored_with(crate::terminal::sanitize(message))),
                    // Schemas, cases and adapters' text reach the test log: escapes are shown, not sent.
                    Verdict::Fail(f) => Err(Failed::from(crate::terminal::sanitize(&f.message))),
                    },
                })
                .with_kind(name.clone()),
            );
        }

        if table.entry.is_some() {
            trials.push(entry_trial(name, translator.clone(), loaded.clone()));
        }

        let mut marked: Vec<String> = table.rows().iter().flat_map(|r| r.mark_ids()).collect();
        marked.extend(table.target_violations.values().flat_map(|v| v.ids(&table.file)));
        if !marked.is_empty() {
            let (table, translator, shared) = (table.clone(), translator.clone(), loaded.clone());
            trials.push(
                Trial::ignorable_test(format!("{name}::ratchet"), move || {
                    if let Some(reason) = translator.unavailable() {
                        return Ok(Completion::ignored_with(reason));
                    }
                    let t = tally(&shared.records.of_translator(&table, translator.as_ref(), &shared.cases, &shared.env, &|| {}));
                    let stale: Vec<_> = marked.iter().filter(|id| !t.reproduced.contains_key(*id)).cloned().collect();
                    if stale.is_empty() {
                        Ok(Completion::Completed)
                    } else if let Err(reason) = &shared.project.suite {
                        // Marks may reproduce only on suite cases: without the suite, "no longer
                        // reproduces" cannot be told from "not looked for".
                        Ok(Completion::ignored_with(format!(
                            "not reproduced on the own corpus, and the suite that may reproduce them is absent ({reason}): {}",
                            stale.join(", ")
                        )))
                    } else {
                        Err(Failed::from(format!(
                            "the ratchet: these known violations no longer reproduce on any case; remove their `known_violation` mark:\n  {}",
                            stale.join("\n  ")
                        )))
                    }
                })
                .with_kind(name.clone()),
            );
        }
    }
    trials
}

/// `TRANSLATOR::entry`: every own-corpus schema through the code path the table names and through
/// the public call its users make must give the same answer (`external::entry`).
fn entry_trial(name: &str, translator: Arc<dyn Translator>, shared: Arc<Loaded>) -> Trial {
    Trial::ignorable_test(format!("{name}::entry"), move || {
        if let Some(reason) = translator.unavailable() {
            return Ok(Completion::ignored_with(reason));
        }
        let own = shared.cases.iter().filter(|c| matches!(c.origin, corpus::Origin::Own)).map(|c| (c.id.as_str(), &c.schema));
        match external::entry::check(translator.as_ref(), own) {
            Ok(0) => Err(Failed::from("no own-corpus schema to drive the entry with")),
            Ok(_) => Ok(Completion::Completed),
            Err(e) => Err(Failed::from(crate::terminal::sanitize(&e.to_string()))),
        }
    })
    .with_kind(name.to_owned())
}

/// The closing summary of a run: per translator, the case trials that passed, failed, reproduced
/// a known violation or were skipped, read from the run's records, and the translators that could
/// not be started. `None` when no case trial ran.
///
/// Only the translators `ran` names are asked whether they are unavailable: asking starts an
/// external adapter, and a filtered run (`-- identity::`) must not start fourteen adapters it ran
/// no trial of (it took 17 s of a one-trial run).
#[must_use]
pub fn closing_summary(loaded: &Loaded, resolver: &Resolver, ran: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut rows: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut no_valid_draw = std::collections::BTreeSet::new();
    for record in loaded.records.all() {
        if let Verdict::Pass(summary) = &record.verdict
            && summary.source_valid.is_some_and(|(accepted, made)| accepted == 0 && made > 0)
        {
            no_valid_draw.insert(record.case.id.clone());
        }
        let counts = rows.entry(record.translator.clone()).or_default();
        let column = match record.verdict {
            Verdict::Pass(_) => 0,
            Verdict::Fail(_) => 1,
            Verdict::ExpectedFailure { .. } => 2,
            Verdict::Skip(_) => 3,
        };
        counts[column] += 1;
    }
    let unavailable: Vec<(String, String)> = loaded
        .tables
        .iter()
        .filter(|(name, _, _)| ran(name))
        .filter_map(|(name, _, _)| resolver(name).and_then(|t| t.unavailable()).map(|why| (name.clone(), why)))
        .collect();
    if rows.is_empty() && unavailable.is_empty() {
        return None;
    }
    let width = rows.keys().chain(unavailable.iter().map(|(n, _)| n)).map(String::len).max().unwrap_or(0).max("translator".len());
    let mut out = format!("{:<width$}  {:>7}  {:>7}  {:>7}  {:>7}\n", "translator", "passed", "failed", "known", "skipped");
    for (name, [passed, failed, known, skipped]) in &rows {
        out.push_str(&format!("{name:<width$}  {passed:>7}  {failed:>7}  {known:>7}  {skipped:>7}\n"));
    }
    for (name, why) in &unavailable {
        out.push_str(&format!("{name:<width$}  not run: {why}\n"));
    }
    out.push_str("known: the case reproduces a `known_violation` mark; skipped: the suite case cannot be judged here (each reason with `-- --format pretty`)\n");
    if !no_valid_draw.is_empty() {
        let listed: Vec<&str> = no_valid_draw.iter().take(10).map(String::as_str).collect();
        let more = no_valid_draw.len().saturating_sub(listed.len());
        out.push_str(&format!(
            "{} case(s) got no generated instance their schema accepts, so only their own valid instances check for a narrowing: {}{}\n",
            no_valid_draw.len(),
            listed.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
    }
    Some(out)
}

/// The project the tests run in: `$CARGO_MANIFEST_DIR/..` as cargo sets it when it runs a test,
/// else the directory this crate was compiled in. Reading it at run time matters when one target
/// directory serves several checkouts: a binary compiled in one must still test the one it runs in.
#[must_use]
pub fn workspace_root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    let root = manifest.join("..");
    root.canonicalize().unwrap_or(root)
}
