//! Where things are: the project root, its tables, corpus folders and targets, and the suite.
//!
//! A project is the nearest folder, at or above the current one, that holds either
//!
//! - a `schema-fidelity.toml` ([`CONFIG_FILE`]): any repository that checks its translators.
//!   It names the folder of its tables and, optionally, its own corpus folders, its own targets
//!   and the JSON-Schema-Test-Suite; the corpus and targets built into the binary
//!   ([`crate::embedded`]) stand in for what it does not name. Three files make a project: the
//!   config, a table and the adapter the table's `run:` starts.
//! - or `dispositions/` and `corpus/` (this repository's layout, and what the tests build):
//!   read as the config `tables = "dispositions"`, `corpus = ["corpus"]`, `builtin_corpus =
//!   false`, `targets = "targets"`.
//!
//! Every path a config names is relative to its folder and must stay inside it (no `..`, no
//! absolute path): a project reads and writes its own tree. The JSON-Schema-Test-Suite is found
//! only through a setting, `$SCHEMA_FIDELITY_JSTS` or `suite =`, never by looking beside the
//! project.

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use crate::corpus::Suite;

/// Environment variable naming the JSON-Schema-Test-Suite root (holding `tests/` and `remotes/`).
pub const SUITE_ENV: &str = "SCHEMA_FIDELITY_JSTS";

/// The file that makes a folder a project.
pub const CONFIG_FILE: &str = "schema-fidelity.toml";

/// A folder of corpus files: defined with the corpus, which reads it.
pub use crate::corpus::CorpusDir;

/// A schema-fidelity project on disk.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    /// Where the tables are (`dispositions/` unless the config says otherwise).
    pub tables_dir: PathBuf,
    /// Where the targets are: the project's own, or the built-in ones written out.
    pub targets_dir: PathBuf,
    /// The corpus folders, in order.
    pub corpus: Vec<CorpusDir>,
    /// The suite, when it is present.
    pub suite: Result<Suite, String>,
    /// The config file the project was read from, if any.
    pub config: Option<PathBuf>,
    /// Where the built-in corpus and targets were written out, when the project reads them.
    pub built_in: Option<PathBuf>,
}

/// `schema-fidelity.toml`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default = "default_tables")]
    tables: String,
    #[serde(default)]
    corpus: Vec<String>,
    #[serde(default = "yes")]
    builtin_corpus: bool,
    #[serde(default)]
    targets: Option<String>,
    #[serde(default)]
    suite: Option<String>,
}

fn default_tables() -> String {
    "dispositions".to_owned()
}

const fn yes() -> bool {
    true
}

impl Project {
    /// The project rooted at `root` with this repository's layout (`dispositions/`, `corpus/`,
    /// `targets/`). The suite is at `$SCHEMA_FIDELITY_JSTS`, when set.
    #[must_use]
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self::at_with(root, suite_from_env())
    }

    /// [`Self::at`], with the suite at `suite` (what [`SUITE_ENV`] would say) rather than where
    /// the process's environment says.
    #[must_use]
    pub fn at_with(root: impl Into<PathBuf>, suite_env: Option<PathBuf>) -> Self {
        let root = root.into();
        Self {
            tables_dir: root.join("dispositions"),
            targets_dir: root.join("targets"),
            corpus: vec![CorpusDir { base: root.clone(), dir: root.join("corpus"), built_in: false }],
            suite: suite(suite_env, None),
            config: None,
            built_in: None,
            root,
        }
    }

    /// The project read from the config file `file` (in the project's root folder).
    ///
    /// # Errors
    /// What is wrong with the file, as `file:line: message`: it cannot be read, is not TOML, has
    /// a key it does not know, or names a path that is absolute, leaves the folder or is missing.
    /// When the built-in corpus or targets cannot be written out, saying where.
    pub fn from_config(file: &Path) -> Result<Self, String> {
        Self::from_config_with(file, suite_from_env())
    }

    /// [`Self::from_config`], with `suite_env` in place of the process's [`SUITE_ENV`].
    ///
    /// # Errors
    /// As [`Self::from_config`].
    pub fn from_config_with(file: &Path, suite_env: Option<PathBuf>) -> Result<Self, String> {
        let root = file.parent().map_or_else(|| PathBuf::from("."), Path::to_owned);
        let shown = CONFIG_FILE;
        let text = crate::budget::read_text(file, crate::budget::current()).map_err(|e| format!("{shown}: {e}"))?;
        let config: Config = toml::from_str(&text).map_err(|e| {
            let line = e.span().map_or(1, |span| line_of(&text, span.start));
            format!("{shown}:{line}: {}", e.message())
        })?;
        let folder = |key: &str, value: &str| -> Result<PathBuf, String> {
            let at = format!("{shown}:{}", key_line(&text, key));
            let path = Path::new(value);
            if value.is_empty() || path.is_absolute() || path.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
                return Err(format!("{at}: `{key} = {value:?}` must be a folder inside the project, relative to {shown} (no `..`, not absolute)"));
            }
            let dir = root.join(path);
            if !dir.is_dir() {
                return Err(format!("{at}: `{key} = {value:?}`: there is no folder {}", dir.display()));
            }
            Ok(dir)
        };
        let tables_dir = folder("tables", &config.tables)?;
        let mut corpus = Vec::new();
        for value in &config.corpus {
            let dir = folder("corpus", value)?;
            if config.builtin_corpus && Path::new(value).components().find(|c| matches!(c, Component::Normal(_))).is_some_and(|c| c.as_os_str() == "corpus") {
                return Err(format!(
                    "{shown}:{}: `corpus = [{value:?}]`: cases under `corpus/` would take the ids of the built-in corpus; name the folder otherwise, or set `builtin_corpus = false`",
                    key_line(&text, "corpus")
                ));
            }
            corpus.push(CorpusDir { base: root.clone(), dir, built_in: false });
        }
        let own_targets = config.targets.as_deref().map(|t| folder("targets", t)).transpose()?;
        let suite_dir = config.suite.as_deref().map(|s| folder("suite", s)).transpose()?;
        let embedded = if config.builtin_corpus || own_targets.is_none() { Some(crate::embedded::materialised(&root)?) } else { None };
        if config.builtin_corpus
            && let Some(base) = &embedded
        {
            corpus.insert(0, CorpusDir { base: base.clone(), dir: base.join("corpus"), built_in: true });
        }
        let targets_dir = match (own_targets, &embedded) {
            (Some(dir), _) => dir,
            (None, Some(base)) => base.join("targets"),
            (None, None) => return Err(format!("{shown}: no targets: the built-in ones were not written out")),
        };
        Ok(Self { tables_dir, targets_dir, corpus, suite: suite(suite_env, suite_dir.map(|d| (d, format!("`suite =` in {shown}")))), config: Some(file.to_owned()), built_in: embedded, root })
    }

    /// The project containing `start` or one of its ancestors: the nearest folder holding a
    /// [`CONFIG_FILE`], or else both `dispositions/` and `corpus/`.
    ///
    /// # Errors
    /// When no ancestor is a project, or its config is wrong ([`Self::from_config`]).
    pub fn discover(start: &Path) -> Result<Self, String> {
        Self::discover_with(start, suite_from_env())
    }

    /// [`Self::discover`], with `suite_env` in place of the process's [`SUITE_ENV`].
    ///
    /// # Errors
    /// As [`Self::discover`].
    pub fn discover_with(start: &Path, suite_env: Option<PathBuf>) -> Result<Self, String> {
        for dir in start.ancestors() {
            let config = dir.join(CONFIG_FILE);
            if config.is_file() {
                return Self::from_config_with(&config, suite_env);
            }
            if dir.join("dispositions").is_dir() && dir.join("corpus").is_dir() {
                return Ok(Self::at_with(dir, suite_env));
            }
        }
        Err(format!(
            "no schema-fidelity project at or above {}: no {CONFIG_FILE} (`schema-fidelity init` writes one), nor a folder with dispositions/ and corpus/",
            start.display()
        ))
    }

    #[must_use]
    pub fn dispositions_dir(&self) -> PathBuf {
        self.tables_dir.clone()
    }

    /// The table files, sorted by name.
    #[must_use]
    pub fn table_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.tables_dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            // Anything with a table's name but a directory: a symlink or a special file is read
            // (through the input budget) and answered, never skipped without a word.
            .filter(|p| !p.is_dir() && p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
            .collect();
        files.sort();
        files
    }

    /// A path relative to the project root, for messages; a built-in file as `corpus/...` or
    /// `targets/...`.
    #[must_use]
    pub fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        if let Some(base) = &self.built_in
            && let Ok(inner) = path.strip_prefix(base)
        {
            return inner;
        }
        path.strip_prefix(&self.root).unwrap_or(path)
    }
}

/// Where the process's [`SUITE_ENV`] puts the suite, if it is set.
fn suite_from_env() -> Option<PathBuf> {
    std::env::var_os(SUITE_ENV).map(PathBuf::from)
}

/// The suite: at `suite_env` (what `$SCHEMA_FIDELITY_JSTS` says) when set, else at `configured`
/// (a folder and where it was named), else absent, saying how to name one.
fn suite(suite_env: Option<PathBuf>, configured: Option<(PathBuf, String)>) -> Result<Suite, String> {
    let (root, origin) = match (suite_env, configured) {
        (Some(p), _) => (p, format!("${SUITE_ENV}")),
        (None, Some(found)) => found,
        (None, None) => {
            return Err(format!(
                "no JSON-Schema-Test-Suite is configured: set {SUITE_ENV}, or `suite =` in {CONFIG_FILE}, to a checkout of json-schema-org/JSON-Schema-Test-Suite (it holds tests/draft2020-12 and remotes/)"
            ));
        }
    };
    let suite = Suite { root: root.clone() };
    if suite.tests_dir().is_dir() {
        Ok(suite)
    } else {
        Err(format!("the JSON-Schema-Test-Suite is not at {} ({origin}): the folder holds no tests/draft2020-12", root.display()))
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|b| **b == b'\n').count() + 1
}

/// The line where the top-level `key` is set, else 1.
fn key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| line.trim_start().strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('=')))
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("sf-project-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("dispositions")).unwrap();
            Self(dir)
        }

        fn config(&self, text: &str) -> Result<Project, String> {
            std::fs::write(self.0.join(CONFIG_FILE), text).unwrap();
            Project::discover(&self.0)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_config_naming_only_its_tables_reads_the_built_in_corpus_and_targets() {
        let s = Scratch::new("minimal");
        let p = s.config("tables = \"dispositions\"\n").expect("a project");
        assert_eq!(p.tables_dir, s.0.join("dispositions"));
        assert_eq!(p.corpus.len(), 1);
        assert!(p.corpus[0].built_in && p.corpus[0].dir.join("keywords/arrays.yaml").is_file(), "{:?}", p.corpus);
        assert!(p.targets_dir.join("openai-strict.yaml").is_file());
        // Messages name built-in files as the repository does.
        assert_eq!(p.relative(&p.corpus[0].dir.join("keywords/arrays.yaml")), Path::new("corpus/keywords/arrays.yaml"));
        assert_eq!(p.relative(&p.targets_dir.join("mcp.yaml")), Path::new("targets/mcp.yaml"));
        // Found from a folder below the root too.
        std::fs::create_dir_all(s.0.join("src/deep")).unwrap();
        assert_eq!(Project::discover(&s.0.join("src/deep")).unwrap().root, s.0);
    }

    #[test]
    fn own_corpus_folders_come_after_the_built_in_one_or_alone() {
        let s = Scratch::new("own");
        std::fs::create_dir_all(s.0.join("tests/schemas")).unwrap();
        let p = s.config("corpus = [\"tests/schemas\"]\n").unwrap();
        assert_eq!(p.corpus.iter().map(|c| (c.built_in, c.dir.clone())).collect::<Vec<_>>()[1], (false, s.0.join("tests/schemas")));
        let p = s.config("corpus = [\"tests/schemas\"]\nbuiltin_corpus = false\n").unwrap();
        assert_eq!(p.corpus.len(), 1);
        assert!(!p.corpus[0].built_in);
    }

    #[test]
    fn a_wrong_config_is_an_error_naming_the_file_and_line() {
        let s = Scratch::new("wrong");
        let e = s.config("tables = \"dispositions\"\ncorpse = []\n").unwrap_err();
        assert!(e.starts_with("schema-fidelity.toml:2:") && e.contains("corpse"), "{e}");
        let e = s.config("tables = [\n").unwrap_err();
        assert!(e.starts_with("schema-fidelity.toml:"), "{e}");
        let e = s.config("\ntables = \"../elsewhere\"\n").unwrap_err();
        assert!(e.starts_with("schema-fidelity.toml:2:") && e.contains("inside the project"), "{e}");
        let e = s.config("tables = \"/etc\"\n").unwrap_err();
        assert!(e.contains("inside the project"), "{e}");
        let e = s.config("corpus = [\"missing\"]\n").unwrap_err();
        assert!(e.contains("there is no folder"), "{e}");
        std::fs::create_dir_all(s.0.join("corpus/mine")).unwrap();
        let e = s.config("corpus = [\"corpus/mine\"]\n").unwrap_err();
        assert!(e.contains("ids of the built-in corpus"), "{e}");
    }

    #[test]
    fn this_repository_says_in_its_config_what_its_layout_says() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_owned();
        let configured = Project::from_config(&root.join(CONFIG_FILE)).expect("this repository's config");
        let laid_out = Project::at(&root);
        assert_eq!(
            (&configured.tables_dir, &configured.targets_dir, &configured.corpus, &configured.built_in),
            (&laid_out.tables_dir, &laid_out.targets_dir, &laid_out.corpus, &laid_out.built_in)
        );
    }

    #[test]
    fn no_project_says_how_to_make_one() {
        let dir = std::env::temp_dir().join(format!("sf-project-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // The temporary folder's ancestors hold no project (unless someone made /tmp one).
        if let Err(e) = Project::discover(&dir) {
            assert!(e.contains("schema-fidelity init"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
