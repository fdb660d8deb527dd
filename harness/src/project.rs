//! Where things are: the project root (holding `dispositions/` and `corpus/`) and the suite.

use std::path::{Path, PathBuf};

use crate::corpus::Suite;

/// Environment variable naming the JSON-Schema-Test-Suite root (holding `tests/` and `remotes/`).
pub const SUITE_ENV: &str = "SCHEMA_FIDELITY_JSTS";

/// A schema-fidelity project on disk.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    /// The suite, when it is present.
    pub suite: Result<Suite, String>,
}

impl Project {
    /// The project rooted at `root`. The suite is looked for at `$SCHEMA_FIDELITY_JSTS`, else at
    /// `../shared/jsts` beside the project.
    #[must_use]
    pub fn at(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let (suite_root, origin) = match std::env::var_os(SUITE_ENV) {
            Some(p) => (PathBuf::from(p), format!("${SUITE_ENV}")),
            None => (root.join("..").join("shared").join("jsts"), "../shared/jsts".to_owned()),
        };
        let suite = Suite { root: suite_root.clone() };
        let suite = if suite.tests_dir().is_dir() {
            Ok(suite)
        } else {
            Err(format!(
                "the JSON-Schema-Test-Suite is not at {} ({origin}); set {SUITE_ENV} to a checkout holding tests/draft2020-12 and remotes/",
                suite_root.display()
            ))
        };
        Self { root, suite }
    }

    /// The project containing `start` or one of its ancestors.
    ///
    /// # Errors
    /// When no ancestor holds both `dispositions/` and `corpus/`.
    pub fn discover(start: &Path) -> Result<Self, String> {
        start
            .ancestors()
            .find(|d| d.join("dispositions").is_dir() && d.join("corpus").is_dir())
            .map(Self::at)
            .ok_or_else(|| format!("no schema-fidelity project (a folder with dispositions/ and corpus/) at or above {}", start.display()))
    }

    #[must_use]
    pub fn dispositions_dir(&self) -> PathBuf {
        self.root.join("dispositions")
    }

    /// The table files, sorted by name.
    #[must_use]
    pub fn table_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.dispositions_dir())
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

    /// A path relative to the project root, for messages.
    #[must_use]
    pub fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }
}
