//! Records kept from one run to the next: a trial whose inputs have not changed is not judged
//! again.
//!
//! A record is a function of the program judging (the harness and the built-in translators are
//! compiled into it), the settings of the run (witness seed and draws, budgets, the suite's
//! remote documents), the table, the translator's code and packages (an external one's
//! [`Translator::fingerprint`]) and the case. The witness search is seeded per case, so the same
//! inputs give the same verdict. A record is kept on disk under a key made of all of them and read
//! back only when every one is the same:
//!
//! - the directory: `target/schema-fidelity/records/<program and settings>/`, the program named by
//!   its executable's path, size and modification time (a rebuild is a new directory);
//! - the file: `<translator>/<hash of the case id>.json`, holding the key of the table (its parsed
//!   form, target and line numbers included), the translator's fingerprint and the case (schema,
//!   instances, file and line), compared on every read.
//!
//! A translator whose fingerprint is unknown (`None`: a test's own translator, an external one
//! with the projection cache off) never has its records kept. Nor does a verdict about the run
//! rather than the schema: a fault of an adapter, a trial over its time budget, a panic. The
//! directories of older programs are removed, the newest few kept (the test binary and the
//! command-line binary each have their own). Files are written as [`crate::disk`] writes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use schema_fidelity_translators::{Outcome, Translator};
use serde::{Deserialize, Serialize};

use super::{Record, RowKey};
use crate::corpus::Case;
use crate::hash::Fnv1a;
use crate::table::Table;
use crate::validation::Env;
use crate::verdict::{FailureKind, TrialEvidence, Verdict};

/// How many directories of other programs or settings are kept beside the current one.
const OTHERS_KEPT: usize = 3;
/// The largest record file read back.
const MAX_RECORD_BYTES: u64 = 64 * 1024 * 1024;

/// One record on disk.
#[derive(Serialize, Deserialize)]
struct Stored {
    /// The table, the translator's fingerprint and the case, hashed: compared on every read.
    key: String,
    case: String,
    verdict: Verdict,
    outcome: Option<Outcome>,
    rows: Vec<RowKey>,
    evidence: Option<TrialEvidence>,
    elapsed_micros: u64,
}

/// The records kept under one project.
pub struct Kept {
    root: PathBuf,
    /// The directory of this program and these settings, decided on first use (`None` when the
    /// program cannot be named).
    dir: OnceLock<Option<PathBuf>>,
    /// Each table's hash, by translator.
    tables: Mutex<HashMap<String, Arc<String>>>,
    read: AtomicUsize,
}

impl Kept {
    /// The records kept under the project at `root`.
    #[must_use]
    pub fn under(root: &Path) -> Self {
        Self { root: root.to_owned(), dir: OnceLock::new(), tables: Mutex::new(HashMap::new()), read: AtomicUsize::new(0) }
    }

    /// How many records were read back instead of made.
    #[must_use]
    pub fn read(&self) -> usize {
        self.read.load(Ordering::Relaxed)
    }

    /// The kept record of `translator` on `case`, if its inputs are the same.
    #[must_use]
    pub fn load(&self, table: &Table, translator: &dyn Translator, case: &Arc<Case>, env: &Env) -> Option<Record> {
        let (file, key) = self.place(table, translator, case, env)?;
        let bytes = crate::disk::read_within(&self.root, &file, MAX_RECORD_BYTES)?;
        let stored: Stored = serde_json::from_slice(&bytes).ok()?;
        if stored.key != key || stored.case != case.id {
            return None;
        }
        self.read.fetch_add(1, Ordering::Relaxed);
        Some(Record {
            translator: translator.name().to_owned(),
            case: case.clone(),
            verdict: stored.verdict,
            outcome: stored.outcome,
            rows: stored.rows.into_iter().collect(),
            evidence: stored.evidence,
            elapsed: Duration::from_micros(stored.elapsed_micros),
        })
    }

    /// Keep `record`, unless its verdict is about the run rather than the schema.
    pub fn keep(&self, table: &Table, translator: &dyn Translator, env: &Env, record: &Record) {
        if !is_about_the_schema(record) {
            return;
        }
        let Some((file, key)) = self.place(table, translator, &record.case, env) else { return };
        let stored = Stored {
            key,
            case: record.case.id.clone(),
            verdict: record.verdict.clone(),
            outcome: record.outcome.clone(),
            rows: record.rows.iter().cloned().collect(),
            evidence: record.evidence.clone(),
            elapsed_micros: u64::try_from(record.elapsed.as_micros()).unwrap_or(u64::MAX),
        };
        if let Ok(bytes) = serde_json::to_vec(&stored) {
            let _ = crate::disk::write_within(&self.root, &file, &bytes);
        }
    }

    /// Where the record of `translator` on `case` is kept, and its key; `None` when it is never kept.
    fn place(&self, table: &Table, translator: &dyn Translator, case: &Case, env: &Env) -> Option<(PathBuf, String)> {
        let fingerprint = translator.fingerprint()?;
        let dir = self.dir.get_or_init(|| self.make_dir(env)).as_ref()?;
        let table_hash = {
            let mut tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
            tables.entry(translator.name().to_owned()).or_insert_with(|| Arc::new(hash_of(&format!("{table:?}")))).clone()
        };
        let mut h = Fnv1a::default();
        h.write_framed(table_hash.as_bytes());
        h.write(&fingerprint.to_le_bytes());
        h.write_framed(format!("{case:?}").as_bytes());
        let key = format!("{:016x}", h.value());
        let file = dir.join(component(translator.name())).join(format!("{}.json", hash_of(&case.id)));
        Some((file, key))
    }

    /// The directory of this program and `env`'s settings; the directories of others beyond the
    /// newest few are removed.
    fn make_dir(&self, env: &Env) -> Option<PathBuf> {
        let program = std::env::current_exe().ok()?;
        let mut h = Fnv1a::default();
        h.write_framed(b"schema-fidelity records 1");
        crate::external::cache::stamp(&mut h, &program);
        let w = &env.witness;
        h.write_framed(format!("seed {:?} draws {} scope {:?} invalid {:?} time {:?} name_rows {}", w.seed, w.draws, w.scope, w.invalid, w.time_budget, env.name_rows).as_bytes());
        // Each budget by name (the set's own order is a hash map's, not stable across runs).
        let budgets = crate::budget::current();
        for budget in crate::budget::ALL {
            h.write_framed(budget.env.as_bytes());
            h.write(&budgets.get(budget).to_le_bytes());
        }
        match &env.remotes {
            Some(remotes) => {
                h.write_framed(remotes.to_string_lossy().as_bytes());
                h.write_framed(crate::hash::tree(&[("remotes", remotes)]).map(|t| t.hash).unwrap_or_default().as_bytes());
            }
            None => h.write_framed(b"no remotes"),
        }
        let base = crate::disk::kept_dir(&self.root, &["records"]);
        let dir = base.join(format!("{:016x}", h.value()));
        prune(&base, &dir);
        Some(dir)
    }
}

/// Whether `record`'s verdict is about the schema (kept) rather than about the run: a fault of the
/// adapter, a trial out of time, a panic, witness settings that could not be read.
fn is_about_the_schema(record: &Record) -> bool {
    if matches!(record.outcome, Some(Outcome::Faulted(_))) {
        return false;
    }
    !record.verdict.failure().is_some_and(|f| matches!(f.kind, FailureKind::Fault(_) | FailureKind::OverBudget | FailureKind::Panicked | FailureKind::WitnessSettings))
}

/// Remove the directories under `base` other than `current`, beyond the [`OTHERS_KEPT`] newest.
fn prune(base: &Path, current: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    let mut others: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path() != current && e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    others.sort_by_key(|o| std::cmp::Reverse(o.0));
    for (_, old) in others.into_iter().skip(OTHERS_KEPT) {
        let _ = std::fs::remove_dir_all(old);
    }
}

fn hash_of(text: &str) -> String {
    let mut h = Fnv1a::default();
    h.write_framed(text.as_bytes());
    format!("{:016x}", h.value())
}

/// A translator's name as a path component (table stems are `[a-z0-9-]`; anything else by hash).
fn component(name: &str) -> String {
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') { name.to_owned() } else { format!("name-{}", hash_of(name)) }
}
