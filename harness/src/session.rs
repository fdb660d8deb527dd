//! The session: what a command or a test run loads once and every view reads.
//!
//! [`load`] reads the project's tables and corpus (own cases and the JSON-Schema-Test-Suite) into
//! a [`Loaded`], with the [`Records`] of what the oracle sees, made once per (translator, case);
//! [`resolver`] finds the translator each table names (built in, or an external adapter the table
//! says how to `run:`). The trials ([`crate::trials`]), the reports ([`crate::report`]) and the CLI
//! all read the same session, so a report and a test run judge each case once and agree.
//!
//! It sits beside `records/` and under the trials, the reports and the CLI: it reads the
//! project, tables, corpus, records and adapters, and nothing that reads it.

use std::sync::Arc;

use schema_fidelity_translators::Translator;

use crate::corpus::{self, Case, CorpusError};
use crate::external;
use crate::validation::Env;
use crate::project::Project;
use crate::records::Records;
use crate::table::{self, Table};
use crate::diagnostic::TableError;

/// Looks a translator up by name.
pub type Resolver = Arc<dyn Fn(&str) -> Option<Arc<dyn Translator>> + Send + Sync>;

/// The built-in translators.
#[must_use]
pub fn builtin_resolver() -> Resolver {
    Arc::new(|name| schema_fidelity_translators::builtin::by_name(name).map(Arc::from))
}

/// The built-in translators and the external ones the loaded tables declare with `run:` (which
/// take precedence: a table that says how to run its translator means that one).
#[must_use]
pub fn resolver(loaded: &Loaded, config: &external::Config) -> Resolver {
    let tables = loaded.tables.iter().filter_map(|(_, table, _)| table.as_deref());
    resolver_for(&loaded.project.root, tables, config)
}

/// [`resolver`] for any set of tables of the project at `root`.
#[must_use]
pub fn resolver_for<'a>(root: &std::path::Path, tables: impl Iterator<Item = &'a Table>, config: &external::Config) -> Resolver {
    let declared = tables.filter_map(|table| {
        Some(external::Declared { name: table.translator.as_str(), run: table.run.as_deref()?, install: table.install.as_deref(), environment: table.environment.as_ref() })
    });
    let external = external::from_tables(root, declared, config);
    let builtin = builtin_resolver();
    Arc::new(move |name| match external.get(name) {
        Some(t) => Some(t.clone() as Arc<dyn Translator>),
        None => builtin(name),
    })
}

/// Which trials to build, and so what to load for them ([`Selection::from_args`], in
/// [`crate::trials`], reads it from the test binary's arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    All,
    /// One trial by exact name: only its table and corpus file are loaded.
    Exact(String),
}

impl Selection {
    fn wants_translator(&self, translator: &str) -> bool {
        match self {
            Self::All => true,
            Self::Exact(name) => name.split("::").next() == Some(translator),
        }
    }

    /// Whether the corpus file `id` (`corpus/x.yaml`, `jsts/y.json`) is needed.
    fn wants_file(&self, id: &str) -> bool {
        match self {
            Self::All => true,
            Self::Exact(name) => {
                let rest = name.split_once("::").map_or("", |(_, r)| r);
                // The ratchet and entry trials read every case; a corpus-error trial is named after its file.
                rest == "ratchet" || rest == "entry" || rest.split("::").next() == Some(id) || name == &format!("corpus::{id}")
            }
        }
    }
}

/// Everything loaded once and shared by the trials.
pub struct Loaded {
    pub project: Project,
    pub env: Env,
    pub tables: Vec<(String, Option<Arc<Table>>, Vec<TableError>)>,
    pub cases: Vec<Arc<Case>>,
    pub corpus_errors: Vec<CorpusError>,
    /// What the oracle saw, per (translator, case), made once under `env` and read by every view.
    pub records: Records,
}

/// Load tables and corpus for `selection`, with the records of an earlier run read back unless
/// the process's environment turns the caches off.
#[must_use]
pub fn load(project: Project, selection: &Selection) -> Loaded {
    let keep = !matches!(std::env::var(crate::external::cache::NO_CACHE_ENV).as_deref().map(str::trim), Ok("1"));
    load_with(project, selection, keep)
}

/// Load tables and corpus for `selection`; with `keep_records`, the records of an earlier run
/// whose inputs are unchanged are read back ([`Records::kept_under`]), not judged again.
#[must_use]
pub fn load_with(project: Project, selection: &Selection, keep_records: bool) -> Loaded {
    let mut tables = Vec::new();
    let dirs = table::Dirs::of(&project);
    for path in project.table_files() {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        if !selection.wants_translator(&name) {
            continue;
        }
        let (t, errors) = table::load_lenient(&path, project.relative(&path), &dirs);
        tables.push((name, t.map(Arc::new), errors));
    }
    let mut cases = Vec::new();
    let mut corpus_errors = Vec::new();
    for (id, path) in project.corpus.iter().flat_map(corpus::own_files) {
        if selection.wants_file(&id) {
            match corpus::load_own_file(&id, &path) {
                Ok(c) => cases.extend(c.into_iter().map(Arc::new)),
                Err(mut e) => {
                    e.file = project.relative(&e.file).to_owned();
                    corpus_errors.push(e);
                }
            }
        }
    }
    // Rows are named for every record: the reports read the same records as the trials.
    let mut env = Env { name_rows: true, ..Env::default() };
    if let Ok(suite) = &project.suite {
        env.remotes = Some(suite.remotes_dir());
        for (id, path) in suite.files() {
            if selection.wants_file(&id) {
                match corpus::load_suite_file(&id, &path) {
                    Ok(c) => cases.extend(c.into_iter().map(Arc::new)),
                    Err(e) => corpus_errors.push(e),
                }
            }
        }
    }
    for case in &mut cases {
        if let Some(c) = Arc::get_mut(case) {
            c.file = project.relative(&c.file).to_owned();
        }
    }
    let records = if keep_records { Records::kept_under(&project.root) } else { Records::default() };
    Loaded { project, env, tables, cases, corpus_errors, records }
}
