//! `report`: write reports/ or compare it (`--check`), and `report --diff` between two runs.

use crate::budget;
use crate::commands::{Cx, EXIT_OK, Stop, load, project, status, unavailable_translators};
use crate::report;
use crate::session;

pub(crate) fn command(check_only: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    // Refused before anything runs: reports made with other settings would say other things.
    let departure = cx.settings.departure();
    if let Some(set) = &departure
        && !check_only
    {
        return Err(format!("{set}: the committed reports are made with the default settings; unset these to write reports/").into());
    }
    let loaded = load(cx)?;
    let resolver = session::resolver(&loaded, &cx.settings.adapters);
    if let Some(reason) = unavailable_translators(&loaded, &resolver) {
        tell!(cx, "note: {reason}\nnote: their committed pages and report.json entries are kept as they are; set them up (README, \"External translators\") to regenerate those");
    }
    let generated = report::generate(&loaded, &resolver, true)?;
    let project = &loaded.project;
    if let Err(reason) = &project.suite {
        tell!(cx, "note: {reason}\nnote: without the suite, the case counts and witnesses cover the own corpus only");
    }
    if check_only {
        if let Some(note) = report::interrupted(project) {
            tell!(cx, "note: {note}");
        }
        let tables_only = project.suite.is_err() || departure.is_some();
        if let Some(settings) = &departure {
            tell!(cx, "note: comparing the reports that depend on the tables alone ({settings} changes what the others hold)");
        } else if tables_only {
            tell!(cx, "note: comparing matrix.md and index.html only (the other reports depend on the suite)");
        }
        let diffs = report::differences(project, &generated, tables_only);
        for d in &diffs {
            say!(cx, "{d}");
        }
        if diffs.is_empty() {
            say!(cx, "{}/ is current", report::REPORTS_DIR);
        } else {
            say!(cx, "{}/ is not current: run `schema-fidelity report` and commit the result", report::REPORTS_DIR);
        }
        return Ok(status(diffs.is_empty()));
    }
    let changed = report::write(project, &generated)?;
    if changed.is_empty() {
        say!(cx, "{}/ is current ({} files)", report::REPORTS_DIR, generated.files.len());
    } else {
        say!(cx, "wrote {} of {} files in {}/:", changed.len(), generated.files.len(), report::REPORTS_DIR);
        for c in changed {
            say!(cx, "  {c}");
        }
    }
    Ok(EXIT_OK)
}

/// `report --diff OLD [NEW]`: compare two runs' report.json, without running anything.
pub(crate) fn diff(old: &str, new: Option<&String>, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let read = |path: &std::path::Path| -> Result<serde_json::Value, String> {
        let text = budget::read_report(path, &cx.settings.budgets).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a report.json: {e}", path.display()))
    };
    let new_path = match new {
        Some(p) => cx.path(p),
        None => project(cx)?.root.join(report::REPORTS_DIR).join("report.json"),
    };
    let (o, n) = (read(&cx.path(old))?, read(&new_path)?);
    let changes = report::compare::compare(&o, &n);
    say_part!(cx, "{}", report::compare::render(old, &new_path.display().to_string(), &changes));
    Ok(EXIT_OK)
}
