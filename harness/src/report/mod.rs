//! Reports: the disposition matrix, one citable page per translator, and a machine-readable
//! report, written to `reports/` and committed.
//!
//! The tables are only useful if people can read, cite and question them. So `schema-fidelity
//! report` turns the tables, and what the oracle finds when it runs them over the corpus, into:
//!
//! - `matrix.md` and `index.html`: translators × keywords, one symbol per disposition
//!   ([`matrix`]);
//! - `style.css`: the one stylesheet every HTML page links to, the one report file written by
//!   hand (the code embeds it);
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
pub mod check;
pub mod coverage;
pub mod compare;
pub mod diff;
pub mod explain;
pub mod families;
pub mod hash;
pub mod headline;
pub mod matrix;
pub mod model;
pub mod pages;
pub mod pairs;
pub mod progress;
pub mod scaffold;
mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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
    /// The README's headline block ([`headline`]), markers included.
    pub headline: String,
}

/// Whether a report file depends on the tables alone (not on the corpus run). Only these can be
/// checked where the JSON-Schema-Test-Suite is absent.
#[must_use]
pub fn tables_only(file: &str) -> bool {
    matches!(file, "matrix.md" | "index.html" | text::STYLESHEET)
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
    files.insert("matrix.md".to_owned(), matrix::markdown(&m, &report.tool.version) + &pairs::summary_markdown(&report));
    files.insert("index.html".to_owned(), matrix::html_page(&m, &report));
    files.insert(text::STYLESHEET.to_owned(), text::STYLESHEET_TEXT.to_owned());
    for t in &report.translators {
        files.insert(format!("{}.md", t.name), pages::page(t, &report));
        files.insert(format!("{}.html", t.name), pages::html_page(t, &report));
    }

    let mut json = serde_json::to_value(&report).map_err(|e| format!("cannot serialize the report: {e}"))?;
    keep_unavailable(&reports_dir(&loaded.project), &report, &mut files, &mut json);
    // From the report as written: an unavailable translator's committed verdicts are kept.
    files.insert("cases.html".to_owned(), families::index_page(&json));
    for (family, cases) in families::families(&json) {
        files.insert(families::page_name(&family), families::html_page(&family, &cases, &json));
    }
    let headline = headline::block(&json);
    let json = serde_json::to_string_pretty(&json).map_err(|e| format!("cannot serialize the report: {e}"))?;
    files.insert("report.json".to_owned(), json + "\n");
    Ok(Generated { report, files, headline })
}

/// A translator that could not be run here (an external one not installed) keeps its committed
/// page and its entry in the committed `report.json`: what was not run must not replace what was.
/// Without a committed page, its new page says it was unavailable, and why.
fn keep_unavailable(dir: &Path, report: &model::Report, files: &mut BTreeMap<String, String>, json: &mut serde_json::Value) {
    let committed = std::fs::read_to_string(dir.join("report.json")).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let committed_entry = |name: &str| -> Option<serde_json::Value> {
        committed.as_ref()?.get("translators")?.as_array()?.iter().find(|t| t.get("name").and_then(serde_json::Value::as_str) == Some(name)).cloned()
    };
    for (i, t) in report.translators.iter().enumerate() {
        if t.unavailable.is_none() {
            continue;
        }
        let page = format!("{}.md", t.name);
        let (Some(old_page), Some(old_entry)) = (std::fs::read_to_string(dir.join(&page)).ok(), committed_entry(&t.name)) else { continue };
        files.insert(page, old_page);
        let html_page = format!("{}.html", t.name);
        if let Ok(old_html) = std::fs::read_to_string(dir.join(&html_page)) {
            files.insert(html_page, old_html);
        }
        if let Some(slot) = json.get_mut("translators").and_then(|v| v.get_mut(i)) {
            *slot = old_entry;
        }
    }
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
        for name in stale_files(&dir, generated) {
            out.push(format!("{REPORTS_DIR}/{name}: no longer generated (it would be removed)"));
        }
        // A project whose README has no headline block has opted out of it.
        let readme = std::fs::read_to_string(project.root.join(README)).unwrap_or_default();
        if let Some(committed) = headline::current(&readme)
            && let Some(d) = diff::unified(&format!("{README} (committed headline)"), &format!("{README} (regenerated headline)"), committed, &generated.headline)
        {
            out.push(d);
        }
    }
    out
}

/// The README, whose headline block is part of the reports.
pub const README: &str = "README.md";

/// Rewrite the README's headline block when it differs; whether it did. A README without the
/// block (or no README) has none to keep current: a project opts in by adding the two marker
/// lines, and this project's own README is held to having them by `tests/reports.rs`.
fn write_headline(project: &Project, generated: &Generated) -> Result<bool, String> {
    let path = project.root.join(README);
    let Ok(readme) = std::fs::read_to_string(&path) else { return Ok(false) };
    let Some(updated) = headline::replace(&readme, &generated.headline) else { return Ok(false) };
    if updated == readme {
        return Ok(false);
    }
    write_synced(&path, &updated).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(true)
}

/// The files `report` itself wrote into `dir` last time: the fixed ones and a page per translator
/// its `report.json` lists. Anything else in `reports/` is someone else's and is left alone.
fn previously_generated(dir: &Path) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = ["matrix.md", "index.html", text::STYLESHEET, "report.json"].map(str::to_owned).into_iter().collect();
    let previous = std::fs::read_to_string(dir.join("report.json")).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let translators = previous.as_ref().and_then(|r| r.get("translators")).and_then(serde_json::Value::as_array);
    for name in translators.into_iter().flatten().filter_map(|t| t.get("name")).filter_map(serde_json::Value::as_str) {
        // A name from a file is data: only a plain file name may become one.
        if !name.is_empty() && !name.contains(['/', '\\']) && !name.starts_with('.') {
            names.insert(format!("{name}.md"));
            names.insert(format!("{name}.html"));
        }
    }
    names
}

/// Files `report` wrote into `dir` before that it no longer generates (a removed translator's
/// page).
fn stale_files(dir: &Path, generated: &Generated) -> Vec<String> {
    previously_generated(dir).into_iter().filter(|name| !generated.files.contains_key(name) && dir.join(name).is_file()).collect()
}

/// Where a new set of reports is assembled, beside `reports/`.
const NEW_DIR: &str = ".reports.new";
/// Where the replaced set waits, beside `reports/`, until the new one is in place.
const OLD_DIR: &str = ".reports.old";

/// `reports/` itself must be a real directory of the project, never a link that would let
/// `report` write or delete elsewhere.
fn refuse_links(dir: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(dir).map(|t| t.display().to_string()).unwrap_or_else(|_| "?".to_owned());
            Err(format!(
                "{}: is a symbolic link (to {target}); `report` writes only into a real {REPORTS_DIR}/ directory of the project, so that it can neither write nor delete elsewhere",
                dir.display()
            ))
        }
        Ok(m) if !m.is_dir() => Err(format!("{}: is not a directory", dir.display())),
        _ => Ok(()),
    }
}

/// Finish or undo what a `report` killed mid-way left behind: a set being assembled is dropped; a
/// replaced set whose successor never arrived is put back; one whose successor did is removed,
/// after moving back what was not `report`'s (which the swap carries over only for plain files).
fn recover(root: &Path, dir: &Path) -> Result<(), String> {
    let (new, old) = (root.join(NEW_DIR), root.join(OLD_DIR));
    if std::fs::symlink_metadata(&new).is_ok() {
        remove_any(&new)?;
    }
    if std::fs::symlink_metadata(&old).is_err() {
        return Ok(());
    }
    if std::fs::symlink_metadata(dir).is_err() {
        return std::fs::rename(&old, dir).map_err(|e| format!("{}: cannot put back the previous reports: {e}", old.display()));
    }
    carry_over_the_rest(&old, dir)?;
    remove_any(&old)
}

/// Move the entries of `old` that `report` did not write and that `dir` lacks into `dir`.
fn carry_over_the_rest(old: &Path, dir: &Path) -> Result<(), String> {
    let ours = previously_generated(old);
    for entry in std::fs::read_dir(old).map_err(|e| format!("{}: cannot read: {e}", old.display()))?.flatten() {
        let name = entry.file_name();
        let keep = name.to_str().is_none_or(|n| !ours.contains(n));
        if keep && std::fs::symlink_metadata(dir.join(&name)).is_err() {
            std::fs::rename(entry.path(), dir.join(&name)).map_err(|e| format!("{}: cannot move back: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

fn remove_any(path: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let result = if meta.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) };
    result.map_err(|e| format!("{}: cannot remove: {e}", path.display()))
}

fn write_synced(path: &Path, contents: &str) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    std::io::Write::write_all(&mut file, contents.as_bytes())?;
    file.sync_all()
}

/// Write the reports into `reports/`, removing the pages it generated before and no longer
/// generates. Returns the files that changed.
///
/// The new set is assembled in `.reports.new/` beside `reports/` (with the files there that are
/// not `report`'s, hard-linked, so they survive), then swapped in by two renames: `reports/` to
/// `.reports.old/`, `.reports.new/` to `reports/`. A `report` killed at any point leaves the old
/// set or the new one, never a mix: at worst, between the two renames, the old set waits in
/// `.reports.old/`, and the next `report` puts it back before doing anything else. Only files
/// `report` generated are ever removed; a symbolic link in place of `reports/` is refused.
///
/// # Errors
/// When `reports/` is a link or not a directory, or a file cannot be written, moved or removed,
/// naming it.
pub fn write(project: &Project, generated: &Generated) -> Result<Vec<String>, String> {
    let dir = reports_dir(project);
    refuse_links(&dir)?;
    recover(&project.root, &dir)?;
    let mut changed = Vec::new();
    if write_headline(project, generated)? {
        changed.push(format!("{README} (the headline)"));
    }
    for (name, contents) in &generated.files {
        if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(contents.as_str()) {
            changed.push(format!("{REPORTS_DIR}/{name}"));
        }
    }
    let stale = stale_files(&dir, generated);
    changed.extend(stale.iter().map(|name| format!("{REPORTS_DIR}/{name} (removed)")));
    if changed.iter().all(|c| !c.starts_with(REPORTS_DIR)) {
        return Ok(changed);
    }

    let new = project.root.join(NEW_DIR);
    std::fs::create_dir(&new).map_err(|e| format!("{}: cannot create: {e}", new.display()))?;
    for (name, contents) in &generated.files {
        let path = new.join(name);
        write_synced(&path, contents).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    let mut existed = false;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        existed = true;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let ours = name.to_str().is_some_and(|n| generated.files.contains_key(n) || stale.iter().any(|s| s == n));
            let plain = entry.file_type().is_ok_and(|t| t.is_file());
            if !ours && plain {
                // Linked, not copied: the same file, and nothing to lose if the link fails.
                let to = new.join(&name);
                std::fs::hard_link(entry.path(), &to)
                    .or_else(|_| std::fs::copy(entry.path(), &to).map(drop))
                    .map_err(|e| format!("{}: cannot carry over: {e}", entry.path().display()))?;
            }
        }
    }
    let old = project.root.join(OLD_DIR);
    if existed {
        std::fs::rename(&dir, &old).map_err(|e| format!("{}: cannot move aside: {e}", dir.display()))?;
    }
    std::fs::rename(&new, &dir).map_err(|e| format!("{}: cannot move into place: {e}", new.display()))?;
    if existed {
        // Directories and links someone keeps in reports/ come back by rename.
        carry_over_the_rest(&old, &dir)?;
        remove_any(&old)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A throwaway project root.
    struct Root(PathBuf);

    impl Root {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("schema-fidelity-reports-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("create");
            std::fs::write(dir.join(README), format!("# project\n\n{}\nnone yet\n{}\n\n## more\n", headline::START, headline::END)).expect("readme");
            Self(dir)
        }

        fn project(&self) -> Project {
            Project { root: self.0.clone(), suite: Err("none".to_owned()) }
        }

        fn read(&self, rel: &str) -> Option<String> {
            std::fs::read_to_string(self.0.join(rel)).ok()
        }

        fn leftovers(&self) -> bool {
            self.0.join(NEW_DIR).exists() || self.0.join(OLD_DIR).exists()
        }
    }

    impl Drop for Root {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Reports for `translators`, each page saying `version`.
    fn generated(translators: &[&str], version: &str) -> Generated {
        let mut files = BTreeMap::new();
        files.insert("matrix.md".to_owned(), format!("matrix {version}\n"));
        let names: Vec<serde_json::Value> = translators.iter().map(|t| serde_json::json!({ "name": t })).collect();
        files.insert("report.json".to_owned(), serde_json::json!({ "translators": names, "version": version }).to_string());
        for t in translators {
            files.insert(format!("{t}.md"), format!("{t} {version}\n"));
        }
        let report = model::Report {
            format: model::FORMAT_VERSION,
            tool: model::Tool { name: "schema-fidelity".into(), version: version.into() },
            tables: model::Fingerprint { hash: String::new(), files: 0 },
            corpus: model::Corpus { own: model::Fingerprint { hash: String::new(), files: 0 }, own_cases: 0, suite: None, errors: Vec::new(), cases: Vec::new() },
            translators: Vec::new(),
        };
        Generated { report, files, headline: format!("{}\nversion {version}\n{}", headline::START, headline::END) }
    }

    #[test]
    fn the_readme_headline_is_written_with_the_reports_and_checked_with_them() {
        let root = Root::new("headline");
        let project = root.project();
        let first = generated(&["alpha"], "1");
        assert!(differences(&project, &first, false).iter().any(|d| d.contains("README.md (committed headline)")));
        assert!(differences(&project, &first, true).is_empty() || !differences(&project, &first, true).iter().any(|d| d.contains("README")), "tables-only checks leave it");
        let changed = write(&project, &first).expect("write");
        assert!(changed.iter().any(|c| c == "README.md (the headline)"), "{changed:?}");
        let readme = root.read(README).expect("readme");
        assert!(readme.starts_with("# project\n\n") && readme.ends_with("\n\n## more\n") && readme.contains("version 1"), "{readme}");
        assert!(differences(&project, &first, false).is_empty());
        // Only the headline changed: it alone is rewritten.
        let mut second = first.clone();
        second.headline = format!("{}\nversion 2\n{}", headline::START, headline::END);
        assert_eq!(write(&project, &second).expect("write"), vec!["README.md (the headline)".to_owned()]);
        // A README without the block has opted out: left as it is, and nothing to compare.
        std::fs::write(root.0.join(README), "# no block\n").expect("write");
        assert!(!write(&project, &first).expect("write").iter().any(|c| c.contains("README")));
        assert_eq!(root.read(README).as_deref(), Some("# no block\n"));
        assert!(!differences(&project, &first, false).iter().any(|d| d.contains("README")));
    }

    #[test]
    fn files_report_did_not_write_survive_and_only_its_own_stale_pages_go() {
        let root = Root::new("foreign");
        let project = root.project();
        write(&project, &generated(&["alpha", "beta"], "1")).expect("first write");
        std::fs::write(root.0.join("reports/NOTES.md"), "ours, not report's").expect("write");
        std::fs::write(root.0.join("reports/gamma.md"), "a page nobody generated").expect("write");
        std::fs::create_dir(root.0.join("reports/drafts")).expect("mkdir");
        std::fs::write(root.0.join("reports/drafts/x.md"), "draft").expect("write");

        let changed = write(&project, &generated(&["alpha"], "2")).expect("second write");
        assert!(changed.contains(&"reports/beta.md (removed)".to_owned()), "{changed:?}");
        assert_eq!(root.read("reports/alpha.md").as_deref(), Some("alpha 2\n"));
        assert_eq!(root.read("reports/beta.md"), None, "a page report generated and no longer does goes");
        assert_eq!(root.read("reports/NOTES.md").as_deref(), Some("ours, not report's"));
        assert_eq!(root.read("reports/gamma.md").as_deref(), Some("a page nobody generated"));
        assert_eq!(root.read("reports/drafts/x.md").as_deref(), Some("draft"));
        assert!(!root.leftovers());
        // Nothing to change: nothing is touched.
        assert!(write(&project, &generated(&["alpha"], "2")).expect("third write").is_empty());
        // `report --check` does not count the foreign files as stale either.
        assert!(differences(&project, &generated(&["alpha"], "2"), false).is_empty());
    }

    #[test]
    fn a_symlinked_reports_directory_is_refused_and_its_target_untouched() {
        let root = Root::new("symlink");
        let elsewhere = root.0.join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("mkdir");
        std::fs::write(elsewhere.join("beta.md"), "not the project's").expect("write");
        std::fs::write(elsewhere.join("report.json"), r#"{"translators": [{"name": "beta"}]}"#).expect("write");
        std::os::unix::fs::symlink(&elsewhere, root.0.join("reports")).expect("symlink");
        let e = write(&root.project(), &generated(&["alpha"], "1")).expect_err("refused");
        assert!(e.contains("is a symbolic link") && e.contains("elsewhere"), "{e}");
        assert_eq!(std::fs::read_to_string(elsewhere.join("beta.md")).ok().as_deref(), Some("not the project's"));
        assert_eq!(std::fs::read_dir(&elsewhere).expect("read").count(), 2, "nothing written there");
    }

    #[test]
    fn a_report_killed_mid_way_leaves_the_old_set_and_the_next_one_completes() {
        // Killed while assembling: a partial new set beside an intact old one.
        let root = Root::new("killed-assembling");
        let project = root.project();
        write(&project, &generated(&["alpha"], "1")).expect("first write");
        std::fs::create_dir(root.0.join(NEW_DIR)).expect("mkdir");
        std::fs::write(root.0.join(NEW_DIR).join("matrix.md"), "half").expect("write");
        assert_eq!(root.read("reports/alpha.md").as_deref(), Some("alpha 1\n"), "the old set is whole");
        write(&project, &generated(&["alpha"], "2")).expect("next write");
        assert_eq!((root.read("reports/matrix.md").as_deref(), root.read("reports/alpha.md").as_deref()), (Some("matrix 2\n"), Some("alpha 2\n")));
        assert!(!root.leftovers());

        // Killed between the two renames: the old set, whole, waits beside; it is put back first.
        let root = Root::new("killed-swapping");
        let project = root.project();
        write(&project, &generated(&["alpha", "beta"], "1")).expect("first write");
        std::fs::write(root.0.join("reports/NOTES.md"), "notes").expect("write");
        std::fs::rename(root.0.join("reports"), root.0.join(OLD_DIR)).expect("move aside");
        write(&project, &generated(&["alpha"], "2")).expect("next write");
        assert_eq!(root.read("reports/alpha.md").as_deref(), Some("alpha 2\n"));
        assert_eq!(root.read("reports/NOTES.md").as_deref(), Some("notes"));
        assert_eq!(root.read("reports/beta.md"), None);
        assert!(!root.leftovers());

        // Killed after the swap, before the cleanup: the new set is in place; a directory someone
        // kept in reports/ is moved back from the old set.
        let root = Root::new("killed-cleaning");
        let project = root.project();
        write(&project, &generated(&["alpha"], "1")).expect("first write");
        std::fs::create_dir(root.0.join("reports/drafts")).expect("mkdir");
        std::fs::rename(root.0.join("reports"), root.0.join(OLD_DIR)).expect("move aside");
        std::fs::create_dir(root.0.join("reports")).expect("mkdir");
        for (name, contents) in &generated(&["alpha"], "2").files {
            std::fs::write(root.0.join("reports").join(name), contents).expect("write");
        }
        write(&project, &generated(&["alpha"], "2")).expect("next write");
        assert!(root.0.join("reports/drafts").is_dir());
        assert!(!root.leftovers());
    }
}
