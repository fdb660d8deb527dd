//! Reports: the disposition matrix, one citable page per translator, and a machine-readable
//! report, written to `reports/` and committed.
//!
//! The tables are only useful if people can read, cite and question them. So `schema-fidelity
//! report` turns the tables, and what the oracle finds when it runs them over the corpus, into:
//!
//! - `matrix.md` and `index.html`: translators × keywords, one symbol per disposition
//!   ([`matrix`]);
//! - `<translator>.md`: every row with its meaning, note, issues, table line, the number of cases
//!   that use it and a witness per approximation, under a stable anchor ([`pages`], [`anchor`]);
//! - `report.json`: the same data for scripts, in the format `schemas/report.schema.json`
//!   specifies, with the table and corpus hashes and the tool version ([`model`], [`hash`]).
//!
//! The committed reports are a ratchet: `tests/reports.rs` regenerates them and fails with a diff
//! when they differ, so a change of disposition shows up in review as a change of the matrix.
//! [`BLESS_ENV`] rewrites them instead (never on CI). Everything here is deterministic: no
//! timestamps, sorted inputs, stable witness choice.
//!
//! The CLI's other commands for people live here too: [`check`] (what each translator does to a
//! user's schema), [`explain`] (one row in words) and [`scaffold`] (a new table to fill in).

pub mod anchor;
pub mod candidates;
pub mod check;
pub mod diff;
pub mod explain;
pub mod hash;
pub mod matrix;
pub mod model;
pub mod pages;
pub mod progress;
pub mod scaffold;
mod text;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::project::Project;
use crate::trials::{Loaded, Resolver};

/// The directory, under the project root, the reports are written to.
pub const REPORTS_DIR: &str = "reports";

/// Set to `1` to let the ratchet test rewrite the committed reports instead of failing.
pub const BLESS_ENV: &str = "SCHEMA_FIDELITY_BLESS";

/// File names the reports use themselves, which no translator may take.
pub const RESERVED_NAMES: &[&str] = &["matrix", "index", "report"];

/// The reports, rendered in memory.
#[derive(Debug, Clone)]
pub struct Generated {
    pub report: model::Report,
    /// File name (within `reports/`) to contents.
    pub files: BTreeMap<String, String>,
}

/// Whether a report file depends on the tables alone (not on the corpus run). Only these can be
/// checked where the JSON-Schema-Test-Suite is absent.
#[must_use]
pub fn tables_only(file: &str) -> bool {
    matches!(file, "matrix.md" | "index.html")
}

/// Run the oracle over the corpus and render every report file.
///
/// # Errors
/// When a table or corpus file cannot be read, or a translator takes a name the reports use.
pub fn generate(loaded: &Loaded, resolver: &Resolver, show_progress: bool) -> Result<Generated, String> {
    for (name, _, _) in &loaded.tables {
        if RESERVED_NAMES.contains(&name.as_str()) {
            return Err(format!("dispositions/{name}.yaml: `{name}` is a name the reports use for themselves; rename the translator"));
        }
    }
    let report = model::build(loaded, resolver, show_progress)?;
    let mut files = BTreeMap::new();
    let m = matrix::build(&report);
    files.insert("matrix.md".to_owned(), matrix::markdown(&m, &report.tool.version));
    files.insert("index.html".to_owned(), matrix::html_page(&m, &report));
    for t in &report.translators {
        files.insert(format!("{}.md", t.name), pages::page(t, &report));
    }
    let json = serde_json::to_string_pretty(&report).map_err(|e| format!("cannot serialize the report: {e}"))?;
    files.insert("report.json".to_owned(), json + "\n");
    Ok(Generated { report, files })
}

/// `reports/` of `project`.
#[must_use]
pub fn reports_dir(project: &Project) -> PathBuf {
    project.root.join(REPORTS_DIR)
}

/// How the committed reports differ from `generated`: one diff (or note) per differing file.
/// With `tables_only_check`, only the files that depend on the tables alone are compared.
#[must_use]
pub fn differences(project: &Project, generated: &Generated, tables_only_check: bool) -> Vec<String> {
    let dir = reports_dir(project);
    let mut out = Vec::new();
    for (name, contents) in &generated.files {
        if tables_only_check && !tables_only(name) {
            continue;
        }
        let shown = format!("{REPORTS_DIR}/{name}");
        match std::fs::read_to_string(dir.join(name)) {
            Ok(committed) => {
                if let Some(d) = diff::unified(&format!("{shown} (committed)"), &format!("{shown} (regenerated)"), &committed, contents) {
                    out.push(d);
                }
            }
            Err(_) => out.push(format!("{shown}: missing (it would be written)")),
        }
    }
    if !tables_only_check {
        for name in stale_files(project, generated) {
            out.push(format!("{REPORTS_DIR}/{name}: no longer generated (it would be removed)"));
        }
    }
    out
}

/// Files in `reports/` that the generator no longer writes (a removed translator's page).
fn stale_files(project: &Project, generated: &Generated) -> Vec<String> {
    let mut stale: Vec<String> = std::fs::read_dir(reports_dir(project))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| !generated.files.contains_key(name))
        .collect();
    stale.sort();
    stale
}

/// Write the reports into `reports/`, removing files it no longer generates. Returns the files
/// that changed.
///
/// # Errors
/// When a file cannot be written or removed, naming it.
pub fn write(project: &Project, generated: &Generated) -> Result<Vec<String>, String> {
    let dir = reports_dir(project);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let mut changed = Vec::new();
    for (name, contents) in &generated.files {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(contents.as_str()) {
            std::fs::write(&path, contents).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            changed.push(format!("{REPORTS_DIR}/{name}"));
        }
    }
    for name in stale_files(project, generated) {
        let path = dir.join(&name);
        std::fs::remove_file(&path).map_err(|e| format!("{}: cannot remove: {e}", path.display()))?;
        changed.push(format!("{REPORTS_DIR}/{name} (removed)"));
    }
    Ok(changed)
}

/// Whether [`BLESS_ENV`] asks to rewrite the reports.
///
/// # Errors
/// When it is set on CI (`CI` set): there the committed reports must already be current.
pub fn bless_requested() -> Result<bool, String> {
    let set = std::env::var(BLESS_ENV).is_ok_and(|v| !v.is_empty() && v != "0");
    if set && std::env::var_os("CI").is_some() {
        return Err(format!("{BLESS_ENV} is set but so is CI: the reports are never rewritten on CI; regenerate and commit them"));
    }
    Ok(set)
}
