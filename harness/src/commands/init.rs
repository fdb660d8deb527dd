//! `schema-fidelity init`: what a repository of one's own needs to check its translator, written
//! into the folder it is run in (the repository's root).
//!
//! The binary carries this project's corpus and targets, so another repository needs four files:
//!
//! - `schema-fidelity.toml`, which marks the project root (`tables = "dispositions"`);
//! - `dispositions/NAME.yaml`, the table `new` scaffolds ([`scaffold::scaffold_with`]: every row
//!   `disposition: TODO`), with the header of an external translator: `run:` starting the adapter
//!   below, `package:`, `entry:` and `source:` placeholders, `target:` (`--target`, else `TODO`);
//! - `adapters/NAME.py` or `adapters/NAME.mjs` (`--lang`), a self-contained adapter (standard
//!   library only) that speaks the protocol and calls a `translate(schema)` left to fill in; while
//!   it still holds [`MARKER`], the adapter answers the handshake `unavailable`, saying so;
//! - `.github/workflows/schema-fidelity.yml`, which installs schema-fidelity, runs the contract
//!   with GitHub annotations and keeps the JUnit report.
//!
//! Nothing is overwritten and nothing is half-written: every destination is checked before the
//! first file is written (an existing one is an error naming it), each file is written to a
//! temporary name beside it and linked into place (which never replaces a file that appeared
//! meanwhile), and a failure removes what this run wrote.
//!
//! The lint rejects the scaffold until it is filled in: the table's TODOs ([`crate::table`]), and
//! every line still holding [`MARKER`] in the files `init` writes ([`leftover_markers`]). Only that
//! marker counts: a user's own TODOs are not ours to flag.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::diagnostic::TableError;
use crate::commands::scaffold::{self, Header};
use crate::table::Table;

/// The marker `init` leaves on each line still to be filled in (and `lint` looks for).
pub const MARKER: &str = "TODO(schema-fidelity)";
/// The file that marks the project root.
pub const CONFIG: &str = crate::project::CONFIG_FILE;
/// The workflow `init` writes.
pub const WORKFLOW: &str = ".github/workflows/schema-fidelity.yml";
/// The folder of the tables, as the written config names it.
const TABLES: &str = "dispositions";
/// The folder the adapter is written to.
const ADAPTERS: &str = "adapters";

/// The targets built into schema-fidelity ([`crate::embedded`], this repository's
/// `targets/*.yaml`), sorted: what `--target` may name.
#[must_use]
fn built_in_targets() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = crate::embedded::FILES.iter().filter_map(|(path, _)| path.strip_prefix("targets/")?.strip_suffix(".yaml")).filter(|name| !name.contains('/')).collect();
    names.sort_unstable();
    names
}

const CONFIG_TEXT: &str = include_str!("init/schema-fidelity.toml");
const WORKFLOW_TEXT: &str = include_str!("init/workflow.yml");
const PYTHON_ADAPTER: &str = include_str!("init/adapter.py");
const NODE_ADAPTER: &str = include_str!("init/adapter.mjs");

/// The language of the adapter `init` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// `adapters/NAME.py`, run with `python3`
    Python,
    /// `adapters/NAME.mjs`, run with `node`
    Node,
}

impl Lang {
    fn extension(self) -> &'static str {
        match self {
            Self::Python => "py",
            Self::Node => "mjs",
        }
    }

    fn runtime(self) -> &'static str {
        match self {
            Self::Python => "python3",
            Self::Node => "node",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Python => "python",
            Self::Node => "node",
        }
    }

    fn other(self) -> Self {
        match self {
            Self::Python => Self::Node,
            Self::Node => Self::Python,
        }
    }

    /// The language of a repository without `--lang`: Node where it has a `package.json` and
    /// nothing of Python's, else Python. With the file that decided it, for the message.
    #[must_use]
    fn detect(root: &Path) -> (Self, Option<&'static str>) {
        let python = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"].into_iter().find(|f| root.join(f).is_file());
        match python {
            None if root.join("package.json").is_file() => (Self::Node, Some("package.json")),
            found => (Self::Python, found),
        }
    }
}

/// One file `init` writes: where, relative to the project root, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub path: PathBuf,
    pub text: String,
    /// What it is, for the message.
    pub what: &'static str,
}

/// Everything `init` writes, decided before anything is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub name: String,
    pub lang: Lang,
    /// Why this language, when `--lang` did not say.
    pub lang_reason: Option<String>,
    pub files: Vec<Planned>,
}

impl Plan {
    /// The adapter's path, relative to the project root.
    #[must_use]
    pub fn adapter(&self) -> String {
        adapter_path(&self.name, self.lang)
    }
}

fn adapter_path(name: &str, lang: Lang) -> String {
    format!("{ADAPTERS}/{name}.{}", lang.extension())
}

/// What `init` writes in `root`.
///
/// # Errors
/// A name that cannot name a translator (given, or made from the folder's name), or a target
/// that is not one of the built-in targets (nor of the project's own `targets/`).
pub fn plan(root: &Path, lang: Option<Lang>, name: Option<&str>, target: Option<&str>) -> Result<Plan, String> {
    let name = match name {
        Some(name) => {
            scaffold::check_name(name)?;
            name.to_owned()
        }
        None => name_from_folder(root)?,
    };
    if let Some(target) = target {
        let mut known: Vec<String> = built_in_targets().into_iter().map(str::to_owned).collect();
        known.extend(crate::target::names(&root.join("targets")));
        if !known.iter().any(|k| k == target) {
            known.sort();
            known.dedup();
            let near = crate::diagnostic::nearest(target, known.iter().map(String::as_str)).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
            return Err(format!("no target `{target}`{near} (targets: {})", known.join(", ")));
        }
    }
    let (lang, lang_reason) = match lang {
        Some(lang) => (lang, None),
        None => {
            let (lang, file) = Lang::detect(root);
            let reason = match file {
                Some(file) => format!("{} (found {file}; --lang {} for the other)", lang.name(), lang.other().name()),
                None => format!("{} (the default; --lang node for a Node adapter)", lang.name()),
            };
            (lang, Some(reason))
        }
    };
    let adapter = adapter_path(&name, lang);
    let table_path = format!("{TABLES}/{name}.yaml");
    let adapter_text = match lang {
        Lang::Python => PYTHON_ADAPTER,
        Lang::Node => NODE_ADAPTER,
    }
    .replace("@NAME@", &name)
    .replace("@ADAPTER@", &adapter)
    .replace("@TABLE@", &table_path);
    let files = vec![
        Planned { path: CONFIG.into(), text: CONFIG_TEXT.to_owned(), what: "marks the project root: where the tables are, your corpus, the test suite" },
        Planned { path: table_path.into(), text: table(&name, lang, target), what: "the table: every row and its header say TODO until filled in" },
        Planned { path: adapter.into(), text: adapter_text, what: "the adapter: answers `unavailable` until translate() is filled in" },
        Planned { path: WORKFLOW.into(), text: workflow(lang), what: "runs the contract on every push and pull request" },
    ];
    Ok(Plan { name, lang, lang_reason, files })
}

/// A translator name made from the folder's name (`My_SDK` gives `my-sdk`).
fn name_from_folder(root: &Path) -> Result<String, String> {
    let folder = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut name = String::new();
    for c in folder.chars().map(|c| c.to_ascii_lowercase()) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            name.push(c);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_start_matches(|c: char| !c.is_ascii_lowercase()).trim_end_matches('-').to_owned();
    scaffold::check_name(&name).map_err(|why| format!("the folder's name `{folder}` makes no translator name ({why}); give one with --name"))?;
    Ok(name)
}

/// The table: `new`'s rows, with the header of an external translator whose adapter `init` writes.
#[must_use]
pub fn table(name: &str, lang: Lang, target: Option<&str>) -> String {
    let adapter = adapter_path(name, lang);
    let environment = match lang {
        Lang::Python => format!(
            "# from {ADAPTERS}/requirements.txt into {ADAPTERS}/.venv, with the venv's interpreter in `run:`:\n\
             #   run: [{ADAPTERS}/.venv/bin/python, {adapter}]\n\
             #   environment: {{ kind: python-venv, dir: {ADAPTERS} }}\n"
        ),
        Lang::Node => format!(
            "# by `npm ci` in {ADAPTERS}/ from its package.json and package-lock.json (Node finds\n\
             # {ADAPTERS}/node_modules beside the script):\n\
             #   environment: {{ kind: npm, dir: {ADAPTERS} }}\n"
        ),
    };
    let (install, registry) = match lang {
        Lang::Python => ("pip install my-package==1.2.3", "PyPI"),
        Lang::Node => ("npm install my-package@1.2.3", "npm"),
    };
    let runs = format!(
        "# How the harness starts the adapter `schema-fidelity init` wrote, from the project root (the\n\
         # folder of {CONFIG}); the adapter answers over JSON lines (protocol version 1). The\n\
         # packages it imports are yours to install, or the harness sets up an environment on first use,\n\
         {environment}\
         # `install:` is the command shown when the adapter answers `unavailable` (a package is missing);\n\
         # with `environment:`, the harness shows that environment's commands instead: leave it out.\n\
         # `package:` names what the adapter runs, with the version pinned (the reports show it).\n\
         run: [{runtime}, {adapter}]\n\
         # install: \"{install}\"\n\
         package: \"TODO: the package and the version pinned\"   # e.g. \"my-package 1.2.3 ({registry})\"\n",
        runtime = lang.runtime(),
    );
    let mut target_comment = String::from("# The provider surface the projection is sent to, one of the targets built into schema-fidelity:\n#");
    let mut width = 1;
    let targets = built_in_targets();
    for (i, t) in targets.iter().enumerate() {
        let word = if i + 1 == targets.len() { format!(" {t}.") } else { format!(" {t},") };
        if width + word.len() > 100 {
            target_comment.push_str("\n#");
            width = 1;
        }
        target_comment.push_str(&word);
        width += word.len();
    }
    target_comment.push_str("\n# Its grammar, cycle rule, object-root rule and limits then apply to every projection. The lint\n# rejects TODO.\n");
    scaffold::scaffold_with(
        name,
        &Header {
            editor_schema: None,
            written_by: "`schema-fidelity init`",
            contract: "schema-fidelity's CONTRACT.md, section 2",
            runs: &runs,
            entry_comment: "# Where its users send a tool: the public call (`call:`), the code path it runs on the schema\n\
                            # (`path:`: translate() in the adapter answers through it) and where the projection is read\n\
                            # from the request the call builds (`reads:`). The lint rejects TODO in each.\n",
            target_comment: &target_comment,
            target: target.unwrap_or("TODO"),
        },
    )
}

/// The workflow, setting up the adapter's runtime (and Python, for `pip install`).
#[must_use]
pub fn workflow(lang: Lang) -> String {
    const PYTHON: &str = "      - uses: actions/setup-python@v5\n        with:\n          python-version: \"3.12\"\n";
    let setup = match lang {
        Lang::Python => PYTHON.to_owned(),
        Lang::Node => format!("      - uses: actions/setup-node@v4\n        with:\n          node-version: \"22\"\n      # Python too, for `pip install schema-fidelity` below.\n{PYTHON}"),
    };
    WORKFLOW_TEXT.replace("@SETUP@\n", &setup)
}

/// Write `plan` under `root`: all of it or nothing.
///
/// # Errors
/// Every file that exists already, named, before anything is written; a folder on the way that is
/// a symbolic link or not a folder; a write that fails (what this run wrote is removed again).
pub fn write(root: &Path, plan: &Plan) -> Result<(), String> {
    let existing: Vec<String> = plan.files.iter().filter(|f| std::fs::symlink_metadata(root.join(&f.path)).is_ok()).map(|f| f.path.display().to_string()).collect();
    if !existing.is_empty() {
        let (them, exist) = if existing.len() == 1 { ("it", "exists") } else { ("them", "exist") };
        // A folder set up already takes another translator with `new`; another name does not help.
        let what_to_do = if existing.iter().any(|f| f == CONFIG) {
            "this folder is a schema-fidelity project already: `schema-fidelity new NAME` adds a table to it".to_owned()
        } else {
            format!("move {them} aside, or pick another --name")
        };
        return Err(format!("{} already {exist}; `init` never overwrites a file, and wrote nothing ({what_to_do})", existing.join(", ")));
    }
    for file in &plan.files {
        let mut dir = root.to_owned();
        for part in file.path.parent().into_iter().flat_map(Path::components) {
            let Component::Normal(part) = part else { return Err(format!("{}: not a plain path inside the project", file.path.display())) };
            dir.push(part);
            match std::fs::symlink_metadata(&dir) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(format!("{}: is a symbolic link; `init` writes only into real folders of the project, and wrote nothing", shown(root, &dir)));
                }
                Ok(m) if !m.is_dir() => return Err(format!("{}: is not a folder; `init` wrote nothing", shown(root, &dir))),
                _ => {}
            }
        }
    }
    let mut written = Written::default();
    for file in &plan.files {
        if let Err(e) = written.write(root, file) {
            written.undo();
            return Err(e);
        }
    }
    Ok(())
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

/// What one `init` made, to take back if a later write fails.
#[derive(Default)]
struct Written {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Written {
    fn write(&mut self, root: &Path, file: &Planned) -> Result<(), String> {
        let path = root.join(&file.path);
        let shown_file = file.path.display();
        let dir = path.parent().unwrap_or(root).to_owned();
        let mut missing = Vec::new();
        let mut up = dir.as_path();
        while !up.exists() && up.starts_with(root) {
            missing.push(up.to_owned());
            up = up.parent().unwrap_or(root);
        }
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create the folder: {e}; `init` took back what it wrote", shown(root, &dir)))?;
        self.dirs.extend(missing.into_iter().rev());
        // Whole or not at all: written beside it, then linked into place, which never replaces a
        // file (nor follows a link) that appeared meanwhile.
        let stem = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = dir.join(format!(".{stem}.schema-fidelity-init-{}.tmp", std::process::id()));
        let linked = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .and_then(|mut f| f.write_all(file.text.as_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::hard_link(&temp, &path));
        let _ = std::fs::remove_file(&temp);
        match linked {
            Ok(()) => {
                self.files.push(path);
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && std::fs::symlink_metadata(&path).is_ok() => {
                Err(format!("{shown_file} appeared while `init` was writing; it never overwrites a file, and took back what it wrote"))
            }
            Err(e) => Err(format!("{shown_file}: cannot write: {e}; `init` took back what it wrote")),
        }
    }

    /// Remove what was written, then the folders made for it (those still empty).
    fn undo(&mut self) {
        for file in self.files.drain(..).rev() {
            let _ = std::fs::remove_file(file);
        }
        for dir in self.dirs.drain(..).rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// What `init` says once it has written `plan`: each file, then what to do next.
#[must_use]
pub fn summary(plan: &Plan) -> String {
    let width = plan.files.iter().map(|f| f.path.display().to_string().len()).max().unwrap_or(0);
    let mut out = String::new();
    if let Some(reason) = &plan.lang_reason {
        out.push_str(&format!("adapter language: {reason}\n"));
    }
    for f in &plan.files {
        out.push_str(&format!("wrote {:<width$}  {}\n", f.path.display().to_string(), f.what));
    }
    let adapter = plan.adapter();
    let name = &plan.name;
    out.push_str(&format!(
        "Next:\n\
         \x20 1. fill in translate() in {adapter}: call your translator and return its projection\n\
         \x20    (and import its package, with its version); until then, it answers `unavailable`\n\
         \x20 2. fill in {TABLES}/{name}.yaml: every row with what the translator does (preserved,\n\
         \x20    approximated or refused), and description, source, package, entry and target\n\
         \x20 3. `schema-fidelity lint` lists what is still TODO, with file and line (the install line of\n\
         \x20    {WORKFLOW} too)\n\
         \x20 4. `schema-fidelity run` runs the contract\n"
    ));
    out
}

/// `schema-fidelity init` in `root` (the current folder): plan, write, and the summary to print.
///
/// # Errors
/// As [`plan`] and [`write()`].
pub fn command(root: &Path, lang: Option<Lang>, name: Option<&str>, target: Option<&str>) -> Result<String, String> {
    let plan = plan(root, lang, name, target)?;
    write(root, &plan)?;
    Ok(summary(&plan))
}

/// Every line still holding [`MARKER`] in the files `init` writes: `schema-fidelity.toml`, each
/// file under `root` a table's `run:` names (the adapter), and the workflow if present, as
/// `file:line` errors. A file read twice (two tables, one adapter) is reported once; a file that
/// is not text (an interpreter) has no lines to report.
#[must_use]
pub fn leftover_markers<'a>(root: &Path, tables: impl IntoIterator<Item = &'a Table>) -> Vec<TableError> {
    let mut files: Vec<String> = vec![CONFIG.to_owned()];
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    for table in tables {
        // The program (`run:`'s first word) is an interpreter or a binary, the runtime an
        // environment set up (a 90 MB `node_modules/.bin/bun`): only the words after it name what
        // `init` may have written.
        for word in table.run.iter().flatten().skip(1) {
            let Ok(path) = root.join(word).canonicalize() else { continue };
            if path.starts_with(&canonical_root) && path.is_file() && !files.contains(word) {
                files.push(word.clone());
            }
        }
    }
    files.push(WORKFLOW.to_owned());
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for file in files {
        let path = root.join(&file);
        if !path.exists() {
            continue;
        }
        let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        let text = match crate::budget::read_text(&path, crate::budget::current()) {
            Ok(text) => text,
            // An interpreter or another binary the `run:` names: no lines of ours in it.
            Err(e) if e.starts_with("not UTF-8") => continue,
            Err(e) => {
                out.push(TableError { file: file.into(), line: None, message: format!("cannot look for what `schema-fidelity init` left TODO: {e}") });
                continue;
            }
        };
        for (i, line) in text.lines().enumerate() {
            if line.contains(MARKER) {
                out.push(TableError { file: file.clone().into(), line: Some(i as u64 + 1), message: format!("still a TODO from `schema-fidelity init`: {}", excerpt(line.trim())) });
            }
        }
    }
    out
}

/// A line, cut at 160 characters.
fn excerpt(line: &str) -> String {
    const MAX: usize = 160;
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::process::{Command, Stdio};

    use schema_fidelity_translators::vocabulary::{BOOLEAN_SUBSCHEMAS, DRAFT_2020_12};
    use serde_json::{Value, json};

    use super::*;
    use crate::external::protocol::{self, Answer, AnswerBody, Response};

    fn repo() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// A folder under the system temp directory, removed when dropped.
    struct Temp(PathBuf);

    impl Temp {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("schema-fidelity-init-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("create the temp folder");
            Self(dir)
        }

        fn write(&self, rel: &str, text: &str) {
            let path = self.0.join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the folder");
            std::fs::write(path, text).expect("write");
        }

        /// Every file under it, relative, sorted.
        fn files(&self) -> Vec<String> {
            let mut out: Vec<String> = walkdir::WalkDir::new(&self.0)
                .into_iter()
                .flatten()
                .filter(|e| e.file_type().is_file())
                .map(|e| e.path().strip_prefix(&self.0).expect("under it").display().to_string())
                .collect();
            out.sort();
            out
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn the_four_files_appear_whole_with_nothing_else() {
        let t = Temp::new("writes");
        let plan = plan(&t.0, Some(Lang::Python), Some("demo"), Some("json-schema")).expect("a plan");
        write(&t.0, &plan).expect("written");
        assert_eq!(t.files(), [".github/workflows/schema-fidelity.yml", "adapters/demo.py", "dispositions/demo.yaml", "schema-fidelity.toml"], "no temporary file is left");
        for file in &plan.files {
            assert_eq!(std::fs::read_to_string(t.0.join(&file.path)).expect("read"), file.text, "{}", file.path.display());
        }
        let table = std::fs::read_to_string(t.0.join("dispositions/demo.yaml")).expect("table");
        assert!(table.contains("\nrun: [python3, adapters/demo.py]\n") && table.contains("\ntarget: json-schema\n"), "{table}");
        assert!(!table.contains("yaml-language-server"), "no schemas/ folder to point editors at in another repository");
        let adapter = std::fs::read_to_string(t.0.join("adapters/demo.py")).expect("adapter");
        assert!(adapter.contains("NAME = \"demo\"") && adapter.contains("ADAPTER = \"adapters/demo.py\"") && !adapter.contains('@'), "every placeholder filled in");
        let workflow = std::fs::read_to_string(t.0.join(WORKFLOW)).expect("workflow");
        assert!(workflow.contains("run: schema-fidelity run --format github --junit schema-fidelity.junit.xml") && workflow.contains("actions/setup-python"), "{workflow}");
        assert!(workflow.contains("path: schema-fidelity.junit.xml"), "the JUnit file is uploaded: {workflow}");
        let summary = summary(&plan);
        for file in &plan.files {
            assert!(summary.contains(&format!("wrote {}", file.path.display())), "{summary}");
        }
        assert!(summary.contains("fill in translate() in adapters/demo.py") && summary.contains("`schema-fidelity run`"), "{summary}");

        // Node: the .mjs adapter, run with node; the workflow sets up Node (and Python, for pip).
        let t = Temp::new("writes-node");
        let plan = super::plan(&t.0, Some(Lang::Node), Some("demo"), None).expect("a plan");
        write(&t.0, &plan).expect("written");
        assert!(t.files().contains(&"adapters/demo.mjs".to_owned()), "{:?}", t.files());
        let table = std::fs::read_to_string(t.0.join("dispositions/demo.yaml")).expect("table");
        assert!(table.contains("\nrun: [node, adapters/demo.mjs]\n") && table.contains("\ntarget: TODO\n"), "{table}");
        let workflow = std::fs::read_to_string(t.0.join(WORKFLOW)).expect("workflow");
        assert!(workflow.contains("actions/setup-node") && workflow.contains("actions/setup-python"), "{workflow}");
    }

    #[test]
    fn an_existing_file_is_named_and_nothing_is_written() {
        let t = Temp::new("refuses");
        t.write("adapters/demo.py", "mine\n");
        let plan = plan(&t.0, Some(Lang::Python), Some("demo"), None).expect("a plan");
        let e = write(&t.0, &plan).expect_err("refused");
        assert!(e.starts_with("adapters/demo.py already exists") && e.contains("wrote nothing"), "{e}");
        assert_eq!(t.files(), ["adapters/demo.py"], "nothing else was written");
        assert!(!t.0.join("dispositions").exists() && !t.0.join(".github").exists(), "no folder was made either");
        assert_eq!(std::fs::read_to_string(t.0.join("adapters/demo.py")).expect("read"), "mine\n");

        // Several: each is named; a project already points at `new`.
        t.write(CONFIG, "tables = \"dispositions\"\n");
        let e = write(&t.0, &plan).expect_err("refused");
        assert!(e.starts_with("schema-fidelity.toml, adapters/demo.py already exist") && e.contains("`schema-fidelity new NAME`"), "{e}");
        // A link on the way out of the project is not followed.
        let t = Temp::new("refuses-link");
        std::os::unix::fs::symlink(std::env::temp_dir(), t.0.join("dispositions")).expect("link");
        let e = write(&t.0, &plan).expect_err("refused");
        assert!(e.starts_with("dispositions: is a symbolic link"), "{e}");
        assert_eq!(t.files(), Vec::<String>::new());
    }

    #[test]
    fn a_failed_write_takes_back_what_it_wrote() {
        let t = Temp::new("undo");
        let mut plan = plan(&t.0, Some(Lang::Python), Some("demo"), None).expect("a plan");
        // The last file cannot be written: its folder is a file by the time it is reached.
        plan.files.push(Planned { path: "schema-fidelity.toml/nested".into(), text: String::new(), what: "" });
        let e = write(&t.0, &plan).expect_err("fails");
        assert!(e.starts_with("schema-fidelity.toml: cannot create the folder") && e.contains("took back what it wrote"), "{e}");
        assert_eq!(t.files(), Vec::<String>::new(), "nothing is left");
        assert!(!t.0.join("dispositions").exists() && !t.0.join("adapters").exists() && !t.0.join(".github").exists(), "nor the folders made for it");
    }

    #[test]
    fn names_targets_and_languages() {
        let t = Temp::new("My_SDK.v2");
        let plan = plan(&t.0, None, None, None).expect("a plan");
        assert_eq!(plan.name, format!("schema-fidelity-init-{}-my-sdk-v2", std::process::id()));
        assert_eq!((plan.lang, plan.lang_reason.as_deref()), (Lang::Python, Some("python (the default; --lang node for a Node adapter)")));
        assert!(super::plan(&t.0, None, Some("Demo"), None).expect_err("a bad name").contains("is not a translator name"));
        let e = super::plan(&t.0, None, Some("demo"), Some("openai-strikt")).expect_err("no such target");
        assert!(e.contains("did you mean `openai-strict`?") && e.contains("gemini-proto"), "{e}");
        t.write("package.json", "{}");
        assert_eq!(Lang::detect(&t.0), (Lang::Node, Some("package.json")));
        t.write("pyproject.toml", "");
        assert_eq!(Lang::detect(&t.0), (Lang::Python, Some("pyproject.toml")));
        let digits = Temp::new("123");
        assert!(name_from_folder(&digits.0.join("123")).expect_err("no letter").contains("give one with --name"));
    }

    #[test]
    fn the_built_in_targets_are_the_targets_folder() {
        assert_eq!(built_in_targets(), crate::target::names(&repo().join("targets")), "the built-in targets are this repository's");
    }

    #[test]
    fn the_table_fails_the_lint_until_filled_in() {
        // Parsed as a table of this repository, so that its targets resolve.
        let text = table("demo", Lang::Python, None);
        let (parsed, errors) = crate::table::parse(&text, Path::new("dispositions/demo.yaml"), &repo().join("dispositions"));
        assert!(parsed.as_ref().is_some_and(|t| t.run == Some(vec!["python3".to_owned(), "adapters/demo.py".to_owned()])), "{errors:?}");
        let todo = errors.iter().filter(|e| e.message.contains("`disposition: TODO`")).count();
        assert_eq!(todo, DRAFT_2020_12.len() + BOOLEAN_SUBSCHEMAS.len() + crate::table::INTERPRETED_EXTENSIONS.len(), "{errors:?}");
        for key in ["description", "source", "package"] {
            assert!(errors.iter().any(|e| e.message.starts_with(&format!("`{key}:` still says TODO"))), "{key}: {errors:?}");
        }
        for key in ["call", "path", "reads"] {
            assert!(errors.iter().any(|e| e.message.starts_with(&format!("`entry.{key}:` is a placeholder"))), "entry.{key}: {errors:?}");
        }
        let target = errors.iter().find(|e| e.message.starts_with("target `TODO`")).expect("the target placeholder is rejected");
        assert!(target.message.contains(&built_in_targets().join(", ")), "listing the targets: {target}");
        // `run:` is filled in (the adapter is written beside it); `install:` is optional.
        assert!(!errors.iter().any(|e| e.message.starts_with("`run:`") || e.message.starts_with("`install:`")), "{errors:?}");
        assert!(errors.iter().all(|e| e.line.is_some()), "every finding has a line: {errors:?}");

        // With --target, the target is not a finding.
        let text = table("demo", Lang::Node, Some("openai-strict"));
        let (_, errors) = crate::table::parse(&text, Path::new("dispositions/demo.yaml"), &repo().join("dispositions"));
        assert!(!errors.iter().any(|e| e.message.contains("target")), "{errors:?}");
    }

    #[test]
    fn every_marker_is_found_at_its_line_and_a_plain_todo_is_not() {
        let t = Temp::new("markers");
        t.write(CONFIG, "# TODO: my own note\ntables = \"dispositions\"\ncorpus = []  # TODO(schema-fidelity): corpus\n");
        t.write("adapters/demo.py", "import x\n# TODO(schema-fidelity): one\n# TODO two\n\n    # TODO(schema-fidelity): three\n");
        t.write("adapters/helper.py", "# TODO(schema-fidelity): not named by any run:\n");
        std::fs::write(t.0.join("adapters/bin"), b"\x7fELF\xff TODO(schema-fidelity)\n").expect("a binary");
        let text = table("demo", Lang::Python, Some("json-schema"));
        let (table, errors) = crate::table::parse(&text, Path::new("dispositions/demo.yaml"), &repo().join("dispositions"));
        let mut table = table.unwrap_or_else(|| panic!("{errors:?}"));
        // Twice the same adapter (reported once), a binary, and a file outside the project.
        // The program first: a file of the project with a marker, not looked into (a runtime the
        // environment set up is such a file, and can be larger than any input budget).
        t.write("adapters/runtime", "#!/bin/sh\n# TODO(schema-fidelity): the program is not read\n");
        table.run = Some(["adapters/runtime", "adapters/demo.py", "./adapters/demo.py", "adapters/bin", "../outside.py"].map(str::to_owned).to_vec());
        std::fs::write(t.0.join("../outside.py"), "# TODO(schema-fidelity): outside\n").expect("write outside");
        let found: Vec<String> = leftover_markers(&t.0, [&table]).iter().map(ToString::to_string).collect();
        let _ = std::fs::remove_file(t.0.join("../outside.py"));
        assert_eq!(
            found,
            [
                "schema-fidelity.toml:3: still a TODO from `schema-fidelity init`: corpus = []  # TODO(schema-fidelity): corpus",
                "adapters/demo.py:2: still a TODO from `schema-fidelity init`: # TODO(schema-fidelity): one",
                "adapters/demo.py:5: still a TODO from `schema-fidelity init`: # TODO(schema-fidelity): three",
            ]
        );
        // The workflow, once there; and what `init` writes holds one marker per thing to fill in.
        let t = Temp::new("markers-scaffold");
        let plan = super::plan(&t.0, Some(Lang::Node), Some("demo"), None).expect("a plan");
        write(&t.0, &plan).expect("written");
        let (table, _) = crate::table::parse(&plan.files[1].text, Path::new("dispositions/demo.yaml"), &repo().join("dispositions"));
        let found: Vec<(String, Option<u64>)> = leftover_markers(&t.0, table.as_ref()).into_iter().map(|e| (e.file.display().to_string(), e.line)).collect();
        let line_of = |file: &str, needle: &str| {
            let text = std::fs::read_to_string(t.0.join(file)).expect("read");
            Some(text.lines().position(|l| l.contains(needle)).expect("the line") as u64 + 1)
        };
        assert_eq!(
            found,
            [
                ("adapters/demo.mjs".to_owned(), line_of("adapters/demo.mjs", "TODO(schema-fidelity): load the package")),
                ("adapters/demo.mjs".to_owned(), line_of("adapters/demo.mjs", "TODO(schema-fidelity): call your translator")),
                (WORKFLOW.to_owned(), line_of(WORKFLOW, "run: pip install schema-fidelity")),
            ]
        );
    }

    /// The adapter `init` writes for `lang`, in a temp project, with `translate` filled in by
    /// `fill` when given.
    fn adapter(t: &Temp, lang: Lang, fill: Option<&dyn Fn(&str) -> String>) -> String {
        let plan = plan(&t.0, Some(lang), Some("demo"), None).expect("a plan");
        let file = &plan.files[2];
        let text = fill.map_or_else(|| file.text.clone(), |f| f(&file.text));
        t.write(&file.path.display().to_string(), &text);
        file.path.display().to_string()
    }

    /// Run `command` in `dir` with `lines` on stdin; its stdout lines, each as the harness reads it.
    fn exchange(dir: &Path, command: &[&str], lines: &[Value]) -> Vec<Response> {
        let mut child = Command::new(command[0])
            .args(&command[1..])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{} runs: {e}", command[0]));
        let mut stdin = child.stdin.take().expect("stdin");
        for line in lines {
            // The adapter may stop reading once it answered `unavailable`.
            let _ = writeln!(stdin, "{line}");
        }
        drop(stdin);
        let out = child.wait_with_output().expect("it ends");
        let stdout = String::from_utf8(out.stdout).expect("utf-8");
        assert!(out.status.success(), "{}\n{}", stdout, String::from_utf8_lossy(&out.stderr));
        stdout.lines().map(|l| protocol::parse_response(l, true).unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    fn start() -> Value {
        json!({"start": {"protocol": protocol::VERSION}})
    }

    fn fill_python(text: &str) -> String {
        let from = text.find("    # TODO(schema-fidelity): call your translator").expect("the marker");
        let to = from + text[from..].find("raise NotImplementedError").expect("the raise");
        let to = to + text[to..].find('\n').expect("its line");
        let body = "    if isinstance(schema, dict) and \"x-refuse\" in schema:\n        raise Refusal(\"x-refuse\", \"\", \"refused by design\")\n    \
                    if isinstance(schema, dict) and \"x-deep\" in schema:\n        raise LimitRefusal(\"max-depth\", 11, 10, \"too deep\")\n    \
                    if isinstance(schema, dict) and \"x-crash\" in schema:\n        raise TypeError(\"boom\")\n    \
                    print(\"a library that prints\")\n    return {\"schema\": schema, \"dialect\": \"json-schema\"}";
        format!("{}{body}{}", &text[..from], &text[to..])
    }

    fn fill_node(text: &str) -> String {
        let from = text.find("  // TODO(schema-fidelity): call your translator").expect("the marker");
        let to = from + text[from..].find("throw new Error(`fill in").expect("the throw");
        let to = to + text[to..].find('\n').expect("its line");
        let body = "  if (schema && typeof schema === \"object\" && \"x-refuse\" in schema) throw new Refusal(\"x-refuse\", \"\", \"refused by design\");\n  \
                    if (schema && typeof schema === \"object\" && \"x-deep\" in schema) throw new LimitRefusal(\"max-depth\", 11, 10, \"too deep\");\n  \
                    if (schema && typeof schema === \"object\" && \"x-crash\" in schema) throw new TypeError(\"boom\");\n  \
                    console.log(\"a library that logs\");\n  return { schema, dialect: \"json-schema\" };";
        format!("{}{body}{}", &text[..from], &text[to..])
    }

    #[test]
    fn the_adapters_answer_unavailable_until_filled_in_then_speak_the_protocol() {
        for (lang, runtime, fill) in [(Lang::Python, "python3", &fill_python as &dyn Fn(&str) -> String), (Lang::Node, "node", &fill_node)] {
            let t = Temp::new(&format!("adapter-{}", lang.name()));
            let path = adapter(&t, lang, None);
            let answers = exchange(&t.0, &[runtime, &path], &[start(), json!({"id": 1, "translator": "demo", "schema": {}})]);
            let [Response::Unavailable { unavailable }] = answers.as_slice() else { panic!("{lang:?}: one `unavailable`, then nothing: {answers:?}") };
            assert!(unavailable.reason.starts_with(&format!("fill in translate() in {path}")), "{lang:?}: {}", unavailable.reason);

            let path = adapter(&t, lang, Some(fill));
            let schema = json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "description": "é \u{0}"});
            let requests = [
                start(),
                json!({"id": 1, "translator": "demo", "schema": schema}),
                json!({"id": 2, "translator": "demo", "schema": true}),
                json!({"id": 3, "translator": "demo", "schema": {"x-refuse": 1}}),
                json!({"id": 4, "translator": "demo", "schema": {"x-deep": 1}}),
                json!({"id": 5, "translator": "demo", "schema": {"x-crash": 1}}),
                json!({"id": 6, "translator": "another", "schema": {}}),
            ];
            let answers = exchange(&t.0, &[runtime, &path], &requests);
            let Some(Response::Started { started }) = answers.first() else { panic!("{lang:?}: {answers:?}") };
            assert_eq!((started.name.as_str(), started.translators.as_slice(), started.entries.is_empty()), ("demo", &["demo".to_owned()][..], true), "{lang:?}");
            let bodies: Vec<(u64, &AnswerBody)> = answers[1..]
                .iter()
                .map(|a| match a {
                    Response::Answer(Answer { id, body }) => (*id, body),
                    other => panic!("{lang:?}: {other:?}"),
                })
                .collect();
            assert_eq!(bodies.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6], "{lang:?}: each answered, in order, nothing printed between");
            let AnswerBody::Projection(p) = bodies[0].1 else { panic!("{lang:?}: {:?}", bodies[0]) };
            assert_eq!(p.schema, schema, "{lang:?}");
            let AnswerBody::Projection(p) = bodies[1].1 else { panic!("{lang:?}: {:?}", bodies[1]) };
            assert_eq!(p.schema, json!(true), "{lang:?}");
            let AnswerBody::Refusal(r) = bodies[2].1 else { panic!("{lang:?}: {:?}", bodies[2]) };
            assert_eq!((r.keyword(), r.pointer()), ("x-refuse", ""), "{lang:?}");
            let AnswerBody::Refusal(r) = bodies[3].1 else { panic!("{lang:?}: {:?}", bodies[3]) };
            assert_eq!(r.cites, schema_fidelity_translators::Cites::Limit { limit: "max-depth".to_owned(), measured: 11, value: 10 }, "{lang:?}");
            let AnswerBody::Error(e) = bodies[4].1 else { panic!("{lang:?}: {:?}", bodies[4]) };
            assert_eq!(e.message, "TypeError: boom", "{lang:?}");
            let AnswerBody::Error(e) = bodies[5].1 else { panic!("{lang:?}: {:?}", bodies[5]) };
            assert!(e.message.contains("serves the translator `demo`, not `another`"), "{lang:?}: {}", e.message);
        }
    }
}
