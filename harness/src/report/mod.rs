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
//! - `<translator>.md` and `<translator>.html`: every row with its meaning, note, issues, table
//!   line, the number of cases that use it and a witness per approximation, under a stable anchor
//!   ([`pages`], [`anchor`]). Both formats render one document ([`doc`]): a page is built once as
//!   blocks and written twice, so the Markdown and the HTML page cannot say different things;
//! - `report.json`: the same data for scripts, in the format `schemas/report.schema.json`
//!   specifies, with the table and corpus hashes and the tool version ([`model`], [`hash`]).
//!
//! The committed reports are a ratchet: `tests/suite/reports.rs` regenerates them and fails with a diff
//! when they differ, so a change of disposition shows up in review as a change of the matrix.
//! [`BLESS_ENV`] rewrites them instead (never on CI). Everything here is deterministic: no
//! timestamps, sorted inputs, stable witness choice.
//!
//! The commands that read what is here (`check`, `explain`, `new`) are in [`crate::commands`].

pub mod anchor;
pub mod ci;
pub mod coverage;
pub mod compare;
pub mod diff;
pub mod doc;
pub mod families;
pub mod headline;
pub mod matrix;
pub mod model;
pub mod pages;
pub mod pairs;
pub mod progress;
pub mod real_tools;
pub(crate) mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::project::Project;
use crate::session::{Loaded, Resolver};
use crate::settings::BLESS_ENV;

/// The directory, under the project root, the reports are written to.
pub const REPORTS_DIR: &str = "reports";

/// File names the reports use themselves, which no translator may take.
pub const RESERVED_NAMES: &[&str] = &["matrix", "index", "report", "real-tools"];

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
    if let Some(page) = real_tools::markdown(&json) {
        files.insert(real_tools::PAGE.to_owned(), page);
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
    let committed = read_committed(&dir.join("report.json")).and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let committed_entry = |name: &str| -> Option<serde_json::Value> {
        committed.as_ref()?.get("translators")?.as_array()?.iter().find(|t| t.get("name").and_then(serde_json::Value::as_str) == Some(name)).cloned()
    };
    for (i, t) in report.translators.iter().enumerate() {
        if t.unavailable.is_none() {
            continue;
        }
        let page = format!("{}.md", t.name);
        let (Some(old_page), Some(old_entry)) = (read_committed(&dir.join(&page)), committed_entry(&t.name)) else { continue };
        files.insert(page, old_page);
        let html_page = format!("{}.html", t.name);
        if let Some(old_html) = read_committed(&dir.join(&html_page)) {
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
        match read_committed(&dir.join(name)) {
            Some(committed) => {
                if let Some(d) = diff::unified(&format!("{shown} (committed)"), &format!("{shown} (regenerated)"), &committed, contents) {
                    out.push(d);
                }
            }
            None => out.push(format!("{shown}: missing (it would be written)")),
        }
    }
    if !tables_only_check {
        for name in stale_files(&dir, generated) {
            out.push(format!("{REPORTS_DIR}/{name}: no longer generated (it would be removed)"));
        }
        // A project whose README has no headline block has opted out of it. A `report` killed
        // after its swap has journaled the headline it is writing: that is the README's.
        let mut readme = read_committed(&project.root.join(README)).unwrap_or_default();
        if let Some(block) = read_journal(&dir.join(JOURNAL)).and_then(|j| j.headline)
            && let Some(pending) = headline::replace(&readme, &block)
        {
            readme = pending;
        }
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

/// Read a file `report` itself wrote (a committed report, the README), under the input budget
/// and only if it is a regular file; `None` when it is absent or unreadable.
fn read_committed(path: &Path) -> Option<String> {
    // The committed reports are this tool's own output, read under the report budget: the input
    // budget, meant for a user's schema, is smaller than this repository's report.json.
    crate::budget::read_report(path, crate::budget::current()).ok()
}

/// The files `report` itself wrote into `dir` last time: the fixed ones and a page per translator
/// its `report.json` lists. Anything else in `reports/` is someone else's and is left alone.
fn previously_generated(dir: &Path) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = ["matrix.md", "index.html", text::STYLESHEET, "report.json"].map(str::to_owned).into_iter().collect();
    let previous = read_committed(&dir.join("report.json")).and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
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

// ---- the swap ------------------------------------------------------------------------------------
//
// A new set is assembled in a directory beside `reports/` named `SWAP_PREFIX` + a token of this
// run (its process id and the time), holding a journal (`JOURNAL`) that names the token and the
// README headline still to be written. The set goes in by one atomic exchange of the two
// directories (`renameat2(RENAME_EXCHANGE)`), which is the commit: `reports/` is the new set, and
// the swap directory the old one. (Where the file system cannot exchange, two renames do it, the
// old set waiting under `OLD_PREFIX` + token in between.) The README is then written to a
// temporary file beside it and renamed over it, the old set's foreign entries moved back, the old
// set removed, and the journal last.
//
// Whatever a kill interrupts, the next `report` finishes or undoes it first ([`recover`]): before
// the commit the swap directory is dropped (the old set put back if it was moved aside): the old
// pair; after it the journal inside `reports/` is replayed: the new pair. `report --check` reads
// the README with a pending journal's headline applied, so it sees the pair the recovery leaves.
// Only directories this command made are ever touched: a name with these prefixes whose journal
// does not carry its token is left alone, and a link under such a name is refused, never followed.

/// The prefix of the directory a new set is assembled in beside `reports/`, which holds the old
/// set once they are exchanged.
const SWAP_PREFIX: &str = ".schema-fidelity-report-swap-";
/// The prefix of the directory the replaced set waits in where the two cannot be exchanged.
const OLD_PREFIX: &str = ".schema-fidelity-report-old-";
/// The journal inside a set being swapped in.
const JOURNAL: &str = ".schema-fidelity-swap.json";
/// The journal while it is written (inside the new directory only).
const JOURNAL_PART: &str = ".schema-fidelity-swap.json.part";
/// The prefix of the README's temporary file, beside it.
const README_TEMP_PREFIX: &str = ".README.md.schema-fidelity-";

static PAUSE_AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Set the step at which `write` pauses (the CLI, from its settings; a test hook). Settled once
/// per process: whether the process's step is now `step`.
#[must_use]
pub fn install_test_pause(step: Option<String>) -> bool {
    let _ = PAUSE_AT.set(step.clone());
    PAUSE_AT.get() == Some(&step)
}

/// A test hook: at the installed step, say so on stderr and wait to be killed (a minute at most,
/// then carry on), so that a test can kill the write exactly there.
fn pause(step: &str) {
    if PAUSE_AT.get().and_then(Option::as_deref) == Some(step) {
        let _ = writeln!(std::io::stderr(), "paused at {step}");
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

/// What a set being swapped in says about itself.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Journal {
    token: String,
    /// The README headline block to write once the set is in place, if it changed.
    headline: Option<String>,
}

fn read_journal(path: &Path) -> Option<Journal> {
    read_committed(path).and_then(|t| serde_json::from_str(&t).ok())
}

/// An error unless `path` is absent or not a symbolic link; `what` names it.
fn refuse_link(path: &Path, what: &str) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_else(|_| "?".to_owned());
            Err(format!(
                "{}: is a symbolic link (to {target}); `report` writes only to {what} of the project itself, never through a link, so that it can neither write nor delete elsewhere",
                path.display()
            ))
        }
        _ => Ok(()),
    }
}

/// `reports/` itself must be a real directory of the project, never a link that would let
/// `report` write or delete elsewhere.
fn refuse_links(dir: &Path) -> Result<(), String> {
    refuse_link(dir, &format!("a real {REPORTS_DIR}/ directory"))?;
    match std::fs::symlink_metadata(dir) {
        Ok(m) if !m.is_dir() => Err(format!("{}: is not a directory", dir.display())),
        _ => Ok(()),
    }
}

/// A token no other run of this command has: the process id and the time.
fn swap_token() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{}-{nanos:x}", std::process::id())
}

/// Whether `path` is a real directory (not a link to one).
fn real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// A directory named `SWAP_PREFIX` + `token` holding a set not yet swapped in is this command's
/// when its journal carries the token, or when a kill came before the journal was in place (then
/// it holds nothing but the part).
fn made_by_report(new: &Path, token: &str) -> bool {
    if read_journal(&new.join(JOURNAL)).is_some_and(|j| j.token == token) {
        return true;
    }
    std::fs::read_dir(new).is_ok_and(|entries| entries.flatten().all(|e| e.file_name() == JOURNAL_PART))
}

/// Finish or undo what a `report` killed mid-way left behind (see the swap's description above).
fn recover(root: &Path, dir: &Path) -> Result<(), String> {
    let entries: Vec<(String, PathBuf)> = std::fs::read_dir(root)
        .map_err(|e| format!("{}: cannot read: {e}", root.display()))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok().map(|n| (n, e.path())))
        .filter(|(n, _)| n.starts_with(SWAP_PREFIX) || n.starts_with(OLD_PREFIX) || n.starts_with(README_TEMP_PREFIX))
        .collect();
    for (name, path) in &entries {
        if !name.starts_with(README_TEMP_PREFIX) {
            refuse_link(path, "directories it made")?;
        }
    }
    // A README temporary file is never the README: the README was renamed from it or not at all
    // (and the journal's replay below writes it again).
    for (name, path) in &entries {
        if name.starts_with(README_TEMP_PREFIX) && std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(path).map_err(|e| format!("{}: cannot remove: {e}", path.display()))?;
        }
    }
    // Committed: the journal inside reports/ is replayed (which removes the old set).
    if std::fs::symlink_metadata(dir.join(JOURNAL)).is_ok() {
        finish(root, dir)?;
    }
    // Not committed: the new set goes, the old one comes back if it was moved aside.
    for (name, new) in &entries {
        let Some(token) = name.strip_prefix(SWAP_PREFIX) else { continue };
        if !real_dir(new) || !made_by_report(new, token) {
            continue;
        }
        let old = root.join(format!("{OLD_PREFIX}{token}"));
        if real_dir(&old) {
            if std::fs::symlink_metadata(dir).is_ok() {
                return Err(format!(
                    "{}: an interrupted `report` set the previous reports aside here, and {REPORTS_DIR}/ exists again; compare the two and remove one",
                    old.display()
                ));
            }
            std::fs::rename(&old, dir).map_err(|e| format!("{}: cannot put back the previous reports: {e}", old.display()))?;
        }
        remove_any(new)?;
    }
    Ok(())
}

/// The second half of a swap, from the journal inside `reports/`: write the README's headline,
/// move back what was not `report`'s from the old set, remove it, and the journal last.
fn finish(root: &Path, dir: &Path) -> Result<(), String> {
    let journal_path = dir.join(JOURNAL);
    let journal = read_journal(&journal_path).ok_or_else(|| {
        format!("{}: an interrupted `report` left this journal, and it cannot be read; remove it and run `report` again", journal_path.display())
    })?;
    if let Some(block) = &journal.headline {
        write_headline(root, block, &journal.token)?;
    }
    pause("readme-renamed");
    // The old set: where the exchange left it, or where two renames did.
    for old in [root.join(format!("{SWAP_PREFIX}{}", journal.token)), root.join(format!("{OLD_PREFIX}{}", journal.token))] {
        if real_dir(&old) {
            carry_over_the_rest(&old, dir)?;
            remove_any(&old)?;
        }
    }
    std::fs::remove_file(&journal_path).map_err(|e| format!("{}: cannot remove: {e}", journal_path.display()))?;
    sync_dir(dir)
}

/// The README with `block` as its headline, or `None` when it has no block or the block is
/// already that; an error when it is a link or not a regular file.
fn updated_readme(root: &Path, block: &str) -> Result<Option<String>, String> {
    let path = root.join(README);
    refuse_link(&path, "the README")?;
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let readme = crate::budget::read_text(&path, crate::budget::current()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(headline::replace(&readme, block).filter(|updated| *updated != readme))
}

/// Rewrite the README's headline block when it differs, atomically: a temporary file beside it,
/// synced, renamed over it. A README without the block (or no README) has none to keep current:
/// a project opts in by adding the two marker lines, and this project's own README is held to
/// having them by `tests/suite/reports.rs`.
fn write_headline(root: &Path, block: &str, token: &str) -> Result<(), String> {
    let Some(updated) = updated_readme(root, block)? else { return Ok(()) };
    let path = root.join(README);
    let temp = root.join(format!("{README_TEMP_PREFIX}{token}.tmp"));
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        if let Ok(meta) = std::fs::metadata(&path) {
            file.set_permissions(meta.permissions())?;
        }
        let bytes = updated.as_bytes();
        let half = bytes.len() / 2;
        file.write_all(&bytes[..half])?;
        file.flush()?;
        pause("readme-half");
        file.write_all(&bytes[half..])?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(format!("{}: cannot write: {e}", temp.display()));
    }
    pause("readme-written");
    std::fs::rename(&temp, &path).map_err(|e| format!("{}: cannot move into place: {e}", path.display()))?;
    sync_dir(root)
}

/// Move the entries of `old` that `report` did not write and that `dir` lacks into `dir`.
fn carry_over_the_rest(old: &Path, dir: &Path) -> Result<(), String> {
    let ours = previously_generated(old);
    for entry in std::fs::read_dir(old).map_err(|e| format!("{}: cannot read: {e}", old.display()))?.flatten() {
        let name = entry.file_name();
        let keep = name.to_str().is_none_or(|n| !ours.contains(n) && n != JOURNAL);
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

/// Write a new file (never an existing one) and sync it.
fn write_synced(path: &Path, contents: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

/// Sync a directory, so that the renames in it are on disk before the next step.
fn sync_dir(dir: &Path) -> Result<(), String> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| format!("{}: cannot sync: {e}", dir.display()))
}

/// A sentence when an interrupted `report` left work for the next one (for `report --check`).
#[must_use]
pub fn interrupted(project: &Project) -> Option<String> {
    let dir = reports_dir(project);
    if std::fs::symlink_metadata(dir.join(JOURNAL)).is_ok() {
        return Some(format!(
            "an interrupted `report` put the new {REPORTS_DIR}/ in place and did not finish (its journal is {REPORTS_DIR}/{JOURNAL}); the README is compared with the headline it will write; `report` finishes it"
        ));
    }
    let left = std::fs::read_dir(&project.root).ok()?.flatten().filter_map(|e| e.file_name().into_string().ok()).find(|n| n.starts_with(SWAP_PREFIX) || n.starts_with(OLD_PREFIX))?;
    Some(format!("an interrupted `report` left {left} beside {REPORTS_DIR}/; `report` puts the previous set back first"))
}

/// Write the reports into `reports/` and the headline into the README, removing the pages it
/// generated before and no longer generates. Returns the files that changed.
///
/// The new set is assembled beside `reports/` (with the files there that are not `report`'s,
/// hard-linked, so they survive) and swapped in by an atomic exchange; the README is rewritten through a
/// temporary file after the swap, which a journal in the new set records, so that a `report`
/// killed at any point leaves the old pair or the new one, the rest finished by the next
/// `report` before it does anything else (see the swap's description above). Only files `report`
/// generated are ever removed; a symbolic link in place of `reports/`, the README or a swap
/// directory is refused.
///
/// # Errors
/// When `reports/` or the README is a link or not what it should be, or a file cannot be
/// written, moved or removed, naming it.
pub fn write(project: &Project, generated: &Generated) -> Result<Vec<String>, String> {
    let root = &project.root;
    let dir = reports_dir(project);
    refuse_links(&dir)?;
    refuse_link(&root.join(README), "the README")?;
    recover(root, &dir)?;
    let mut changed = Vec::new();
    let headline_changes = updated_readme(root, &generated.headline)?.is_some();
    if headline_changes {
        changed.push(format!("{README} (the headline)"));
    }
    for (name, contents) in &generated.files {
        if read_committed(&dir.join(name)).as_deref() != Some(contents.as_str()) {
            changed.push(format!("{REPORTS_DIR}/{name}"));
        }
    }
    let stale = stale_files(&dir, generated);
    changed.extend(stale.iter().map(|name| format!("{REPORTS_DIR}/{name} (removed)")));
    let token = swap_token();
    if changed.iter().all(|c| !c.starts_with(REPORTS_DIR)) {
        // The reports are current: only the README, by one rename.
        if headline_changes {
            write_headline(root, &generated.headline, &token)?;
        }
        return Ok(changed);
    }

    let new = root.join(format!("{SWAP_PREFIX}{token}"));
    std::fs::create_dir(&new).map_err(|e| format!("{}: cannot create: {e}", new.display()))?;
    let journal = Journal { token: token.clone(), headline: headline_changes.then(|| generated.headline.clone()) };
    let journal_text = serde_json::to_string(&journal).map_err(|e| format!("cannot write the swap journal: {e}"))?;
    write_synced(&new.join(JOURNAL_PART), &journal_text).map_err(|e| format!("{}: cannot write: {e}", new.join(JOURNAL_PART).display()))?;
    std::fs::rename(new.join(JOURNAL_PART), new.join(JOURNAL)).map_err(|e| format!("{}: cannot write: {e}", new.join(JOURNAL).display()))?;
    for (name, contents) in &generated.files {
        let path = new.join(name);
        write_synced(&path, contents).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    let mut existed = false;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        existed = true;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let ours = name.to_str().is_some_and(|n| generated.files.contains_key(n) || stale.iter().any(|s| s == n) || n == JOURNAL);
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
    sync_dir(&new)?;
    pause("assembled");
    if !existed {
        std::fs::rename(&new, &dir).map_err(|e| format!("{}: cannot move into place: {e}", new.display()))?;
    } else if rustix::fs::renameat_with(rustix::fs::CWD, &new, rustix::fs::CWD, &dir, rustix::fs::RenameFlags::EXCHANGE).is_err() {
        // No exchange here (a file system without it): two renames, the old set aside between.
        let old = root.join(format!("{OLD_PREFIX}{token}"));
        std::fs::rename(&dir, &old).map_err(|e| format!("{}: cannot move aside: {e}", dir.display()))?;
        pause("aside");
        std::fs::rename(&new, &dir).map_err(|e| format!("{}: cannot move into place: {e}", new.display()))?;
    }
    sync_dir(root)?;
    pause("swapped");
    finish(root, &dir)?;
    Ok(changed)
}

/// Whether [`BLESS_ENV`] asks to rewrite the reports.
///
/// # Errors
/// When it is set on CI (`CI` set): there the committed reports must already be current.
pub fn bless_requested(settings: &crate::settings::Settings) -> Result<bool, String> {
    let set = settings.bless;
    if set && settings.on_ci {
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
            Project { suite: Err("none".to_owned()), ..Project::at(self.0.clone()) }
        }

        fn read(&self, rel: &str) -> Option<String> {
            std::fs::read_to_string(self.0.join(rel)).ok()
        }

        /// Whether anything of a swap is left beside reports/ or inside it.
        fn leftovers(&self) -> bool {
            let beside = std::fs::read_dir(&self.0).expect("read").flatten().any(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(SWAP_PREFIX) || n.starts_with(OLD_PREFIX) || n.starts_with(README_TEMP_PREFIX)
            });
            beside || self.0.join(REPORTS_DIR).join(JOURNAL).exists()
        }

        /// A swap directory this command would have made, with its journal.
        fn swap_dir(&self, prefix: &str, token: &str, headline: Option<&str>) -> PathBuf {
            let path = self.0.join(format!("{prefix}{token}"));
            std::fs::create_dir(&path).expect("mkdir");
            let journal = Journal { token: token.to_owned(), headline: headline.map(str::to_owned) };
            std::fs::write(path.join(JOURNAL), serde_json::to_string(&journal).expect("json")).expect("journal");
            path
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
            corpus: model::Corpus { own: model::Fingerprint { hash: String::new(), files: 0 }, own_cases: 0, suite: None, errors: Vec::new(), real_tools: model::RealTools::default(), cases: Vec::new() },
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
        let new = root.swap_dir(SWAP_PREFIX, "1-a", Some("the headline of a run that never finished"));
        std::fs::write(new.join("matrix.md"), "half").expect("write");
        assert_eq!(root.read("reports/alpha.md").as_deref(), Some("alpha 1\n"), "the old set is whole");
        assert!(differences(&project, &generated(&["alpha"], "1"), false).is_empty(), "the old pair, as --check sees it");
        write(&project, &generated(&["alpha"], "2")).expect("next write");
        assert_eq!((root.read("reports/matrix.md").as_deref(), root.read("reports/alpha.md").as_deref()), (Some("matrix 2\n"), Some("alpha 2\n")));
        assert!(!root.leftovers());

        // Killed between the two renames: the old set, whole, waits beside; it is put back first.
        let root = Root::new("killed-swapping");
        let project = root.project();
        write(&project, &generated(&["alpha", "beta"], "1")).expect("first write");
        std::fs::write(root.0.join("reports/NOTES.md"), "notes").expect("write");
        root.swap_dir(SWAP_PREFIX, "1-b", None);
        std::fs::rename(root.0.join("reports"), root.0.join(format!("{OLD_PREFIX}1-b"))).expect("move aside");
        write(&project, &generated(&["alpha"], "2")).expect("next write");
        assert_eq!(root.read("reports/alpha.md").as_deref(), Some("alpha 2\n"));
        assert_eq!(root.read("reports/NOTES.md").as_deref(), Some("notes"));
        assert_eq!(root.read("reports/beta.md"), None);
        assert!(!root.leftovers());

        // Killed after the swap, before the README and the cleanup: the new set is in place with
        // its journal; --check already sees the new pair, and the next write finishes it (the
        // headline written, a directory someone kept in reports/ moved back from the old set).
        let root = Root::new("killed-cleaning");
        let project = root.project();
        write(&project, &generated(&["alpha"], "1")).expect("first write");
        std::fs::create_dir(root.0.join("reports/drafts")).expect("mkdir");
        let second = generated(&["alpha"], "2");
        let new = root.swap_dir(SWAP_PREFIX, "1-c", Some(&second.headline));
        for (name, contents) in &second.files {
            std::fs::write(new.join(name), contents).expect("write");
        }
        // What the exchange leaves: the new set in reports/, the old one under the swap name.
        std::fs::rename(root.0.join("reports"), root.0.join("between")).expect("move aside");
        std::fs::rename(&new, root.0.join("reports")).expect("swap");
        std::fs::rename(root.0.join("between"), &new).expect("swap");
        assert!(root.read(README).is_some_and(|r| r.contains("version 1")), "the README is not written yet");
        assert!(differences(&project, &second, false).is_empty(), "but --check reads it with the journal's headline");
        assert!(interrupted(&project).is_some_and(|m| m.contains("did not finish")));
        assert!(write(&project, &second).expect("next write").is_empty(), "nothing left to change");
        assert!(root.read(README).is_some_and(|r| r.contains("version 2")), "the journal's headline was written");
        assert!(root.0.join("reports/drafts").is_dir());
        assert!(!root.leftovers());
        assert_eq!(interrupted(&project), None);
    }

    #[test]
    fn directories_and_links_report_did_not_make_are_never_touched() {
        let root = Root::new("not-ours");
        let project = root.project();
        write(&project, &generated(&["alpha"], "1")).expect("first write");
        // A user's directories under the old fixed names, one a link to a directory elsewhere, and
        // one under the new prefix whose journal is not a swap's.
        let elsewhere = root.0.join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("mkdir");
        std::fs::write(elsewhere.join("secret.txt"), "not the project's").expect("write");
        std::os::unix::fs::symlink(&elsewhere, root.0.join(".reports.old")).expect("symlink");
        std::fs::create_dir(root.0.join(".reports.new")).expect("mkdir");
        std::fs::write(root.0.join(".reports.new/mine.txt"), "mine").expect("write");
        let lookalike = root.0.join(format!("{SWAP_PREFIX}9-9"));
        std::fs::create_dir(&lookalike).expect("mkdir");
        std::fs::write(lookalike.join("mine.txt"), "mine too").expect("write");
        write(&project, &generated(&["alpha"], "2")).expect("second write");
        assert_eq!(root.read(".reports.new/mine.txt").as_deref(), Some("mine"));
        assert_eq!(std::fs::read_to_string(elsewhere.join("secret.txt")).ok().as_deref(), Some("not the project's"));
        assert_eq!(root.read("reports/secret.txt"), None, "nothing moved in from elsewhere");
        assert_eq!(std::fs::read_to_string(lookalike.join("mine.txt")).ok().as_deref(), Some("mine too"));
        std::fs::remove_dir_all(&lookalike).expect("rm");
        // A link under a swap name is refused, its target untouched.
        std::os::unix::fs::symlink(&elsewhere, root.0.join(format!("{OLD_PREFIX}1-x"))).expect("symlink");
        let e = write(&project, &generated(&["alpha"], "3")).expect_err("refused");
        assert!(e.contains("is a symbolic link") && e.contains("elsewhere"), "{e}");
        assert_eq!(std::fs::read_dir(&elsewhere).expect("read").count(), 1);
    }

    #[test]
    fn a_symlinked_readme_is_refused_and_its_target_untouched() {
        let root = Root::new("readme-link");
        let project = root.project();
        let outside = root.0.join("outside.md");
        std::fs::rename(root.0.join(README), &outside).expect("move");
        std::os::unix::fs::symlink(&outside, root.0.join(README)).expect("symlink");
        let before = std::fs::read_to_string(&outside).expect("read");
        let e = write(&project, &generated(&["alpha"], "1")).expect_err("refused");
        assert!(e.contains("README.md: is a symbolic link") && e.contains("outside.md"), "{e}");
        assert_eq!(std::fs::read_to_string(&outside).expect("read"), before);
        assert!(!root.0.join(REPORTS_DIR).exists(), "nothing written: the refusal comes first");
    }
}
