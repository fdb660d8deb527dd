//! `run`: the contract, every table against the corpus, as a summary per translator.

use std::sync::Arc;

use crate::commands::{Cx, Stop, load_wanted, status};
use crate::report;
use crate::session;
use crate::table;
use crate::trials;

const RUN_LEGEND: &str = "\
columns: compared  cases whose instances were compared: the projection agreed with the table
         refused   cases the translator refused where its table says it refuses (a pass: nothing to compare)
         failed    cases where the translator breaks its table (each is listed below)
         known     cases that reproduce a known violation the table marks, with its issue (not a failure)
         skipped   cases not run here (e.g. a suite case the validator gets wrong); --verbose lists them
         crashed   of the failed and known, the cases where the translator threw (a crash, not a refusal)";

pub(crate) fn command(wanted: &[String], verbose: bool, coverage: bool, junit: Option<&std::path::Path>, github: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let loaded = Arc::new(load_wanted(cx, wanted)?);
    let resolver = session::resolver(&loaded, &cx.settings.adapters);
    let mut ok = true;
    for e in &loaded.corpus_errors {
        say!(cx, "corpus error: {e}");
        ok = false;
    }
    if let Err(reason) = &loaded.project.suite {
        say!(cx, "note: JSON-Schema-Test-Suite trials skipped: {reason}");
    }
    let selected: Vec<_> = loaded.tables.iter().filter(|(name, _, _)| wanted.is_empty() || wanted.contains(name)).collect();
    // Columns as wide as the longest name: a long translator name must not push its row askew.
    let width = selected.iter().map(|(name, _, _)| name.chars().count()).max().unwrap_or(0).max("translator".len());
    let progress = cx.progress("running the contract: tables done", selected.len());
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    let mut unavailable: Vec<(&str, String)> = Vec::new();
    let mut skipped_cases = Vec::new();
    let mut total = [0usize; 6];
    let mut ci_suites = Vec::new();
    // The oracle runs on every thread first (the records are kept); the loop below reads them in
    // the tables' order.
    let runnable: Vec<(&table::Table, Arc<dyn schema_fidelity_translators::Translator>)> = selected
        .iter()
        .filter_map(|(name, table, _)| Some((table.as_deref()?, resolver(name)?)))
        .filter(|(_, translator)| translator.unavailable().is_none())
        .collect();
    let pairs: Vec<(&table::Table, &dyn schema_fidelity_translators::Translator)> = runnable.iter().map(|(table, translator)| (*table, translator.as_ref())).collect();
    let _ = loaded.records.of_translators(&pairs, &loaded.cases, &loaded.env, &|| {});
    for (name, table, errors) in selected {
        for e in errors {
            failures.push(format!("{name}::lint\n{e}"));
        }
        let table_file = table.as_ref().map_or_else(|| std::path::PathBuf::from(format!("dispositions/{name}.yaml")), |t| t.file.clone());
        let suite = |ran| report::ci::Suite { translator: name, table_file: table_file.clone(), lint: errors, ran };
        let (Some(table), Some(translator)) = (table, resolver(name)) else {
            failures.push(format!("{name}: no translator or no table to run"));
            ci_suites.push(suite(report::ci::Ran::NotRun("no translator or no table to run".to_owned())));
            progress.tick();
            continue;
        };
        if let Some(reason) = translator.unavailable() {
            lines.push(format!("{name:<width$} unavailable: {reason}"));
            ci_suites.push(suite(report::ci::Ran::Unavailable(reason.clone())));
            unavailable.push((name.as_str(), reason));
            progress.tick();
            continue;
        }
        let records = loaded.records.of_translator(table, translator.as_ref(), &loaded.cases, &loaded.env, &|| {});
        let t = trials::tally(&records);
        ci_suites.push(suite(report::ci::Ran::Trials { table, records }));
        progress.tick();
        let counts = [t.passed - t.refused, t.refused, t.failed.len(), t.expected.len(), t.skipped, t.crashed];
        for (sum, n) in total.iter_mut().zip(counts) {
            *sum += n;
        }
        lines.push(format!(
            "{name:<width$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  {}",
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            counts[4],
            counts[5],
            table.file.display()
        ));
        for (case, message) in t.failed {
            failures.push(format!("{name}::{case}\n{message}"));
        }
        skipped_cases.extend(t.skipped_cases.into_iter().map(|(case, reason)| format!("{name}::{case}: {reason}")));
    }
    progress.finish();
    say!(cx, "{RUN_LEGEND}\n");
    say!(cx, "{:<width$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  table", "translator", "compared", "refused", "failed", "known", "skipped", "crashed");
    for line in lines {
        say!(cx, "{line}");
    }
    say!(cx, 
        "{:<width$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  ({} cases per translator)",
        "total",
        total[0],
        total[1],
        total[2],
        total[3],
        total[4],
        total[5],
        loaded.cases.len()
    );
    if verbose {
        if skipped_cases.is_empty() {
            say!(cx, "\nno case was skipped");
        } else {
            say!(cx, "\n{} skipped case(s):", skipped_cases.len());
            for s in &skipped_cases {
                say!(cx, "  {s}");
            }
        }
    } else if total[4] > 0 {
        say!(cx, "\n{} case(s) skipped: `run --verbose` lists them with their reasons", total[4]);
    }
    let read_back = loaded.records.read_back();
    if read_back > 0 {
        tell!(cx, 
            "note: {read_back} of {} trials read back from an earlier run with the same inputs (target/schema-fidelity/records); --no-cache judges every one",
            read_back + loaded.records.made()
        );
    }
    if !failures.is_empty() {
        ok = false;
        say!(cx, "\n{} failure(s):", failures.len());
        for f in &failures {
            say!(cx, "\n--- {f}");
        }
    }
    // The contract was not run for these: not a success, even if all else passed, and not a
    // failure of theirs either. (`cargo test` reports their trials as skipped instead;
    // `--translator` selects the ones that can run.)
    if !unavailable.is_empty() {
        ok = false;
        let names: Vec<&str> = unavailable.iter().map(|(n, _)| *n).collect();
        say!(cx, "\n{} translator(s) unavailable here, so their contract was not run: {}", unavailable.len(), names.join(", "));
    }
    if coverage {
        say!(cx, "\n{}", report::coverage::render(&report::coverage::coverage(&loaded.records.all())));
    }
    if github {
        say_part!(cx, "{}", report::ci::github_annotations(&ci_suites));
    }
    if let Some(file) = junit {
        let xml = report::ci::junit(&ci_suites).map_err(|e| format!("cannot make the JUnit document: {e}"))?;
        report::ci::write_junit(&loaded.project.root, &cx.cwd, file, &xml)?;
    }
    Ok(status(ok))
}
