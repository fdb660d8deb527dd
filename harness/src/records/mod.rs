//! One run, every view: the oracle runs once per (translator, case) in a process, and what it
//! saw is kept as a [`Record`]. The case trials, the ratchet, the reports, `run` and `explain` all
//! read records; none of them runs the oracle a second time.
//!
//! The store is a map of once-cells, so trials running in parallel that need the same record (a
//! case trial and its translator's ratchet, say) compute it once and the later one waits for it.
//! A store belongs to one [`Env`]: the records of a run with other witness settings are another
//! store. A store may keep its records on disk ([`kept`]), so that the next run reads back the
//! records whose inputs have not changed instead of judging them again.

pub mod kept;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use schema_fidelity_translators::walk;
use schema_fidelity_translators::{Outcome, Translator};
use serde_json::Value;

use crate::corpus::Case;
use crate::oracle;
use crate::table::{Row, Table};
use crate::validation::Env;
use crate::verdict::{TrialEvidence, Verdict};

/// A row's identity within its table: keyword (or boolean subschema, or extension pattern) and
/// refinement.
pub type RowKey = (String, Option<String>);

/// The identity of `row` within its table.
#[must_use]
pub fn key_of(row: &Row) -> RowKey {
    (row.id.keyword.clone(), row.id.refinement.clone())
}

/// The rows of `table` that govern some keyword occurrence in `schema` (the oracle's lookup).
#[must_use]
pub fn rows_used(table: &Table, schema: &Value) -> BTreeSet<RowKey> {
    let Ok(occurrences) = walk::occurrences(schema) else { return BTreeSet::new() };
    occurrences.iter().filter_map(|o| table.row(o.keyword, o.value, o.at_root).ok()).map(key_of).collect()
}

/// What the oracle saw for one translator on one case.
#[derive(Debug, Clone)]
pub struct Record {
    pub translator: String,
    pub case: Arc<Case>,
    pub verdict: Verdict,
    /// The translator's answer: the refusal or projection judged (`None` when the case stopped
    /// the oracle before translation).
    pub outcome: Option<Outcome>,
    /// The rows present: those governing some keyword occurrence of the case.
    pub rows: BTreeSet<RowKey>,
    /// The evidence per direction (`None` when no projection was compared with the source).
    pub evidence: Option<TrialEvidence>,
    /// How long the oracle took, translation and witness search included.
    pub elapsed: Duration,
}

impl Record {
    /// Run the oracle once and keep what it saw.
    #[must_use]
    pub fn make(table: &Table, translator: &dyn Translator, case: &Arc<Case>, env: &Env) -> Self {
        let started = Instant::now();
        let judged = oracle::judge(table, translator, case, env);
        Record {
            translator: translator.name().to_owned(),
            case: case.clone(),
            verdict: judged.verdict,
            outcome: judged.outcome,
            evidence: judged.evidence,
            rows: rows_used(table, &case.schema),
            elapsed: started.elapsed(),
        }
    }
}

type Slot = Arc<OnceLock<Arc<Record>>>;

/// The records of one run, made on first use.
#[derive(Default)]
pub struct Records {
    slots: Mutex<HashMap<(String, String), Slot>>,
    made: std::sync::atomic::AtomicUsize,
    kept: Option<kept::Kept>,
}

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records").field("made", &self.made()).finish_non_exhaustive()
    }
}

impl Records {
    /// A store that reads back the records kept under the project at `root` and keeps the ones
    /// it makes ([`kept`]).
    #[must_use]
    pub fn kept_under(root: &std::path::Path) -> Self {
        Self { kept: Some(kept::Kept::under(root)), ..Self::default() }
    }

    /// The record of `translator` on `case`, running the oracle if no one has yet (in this run,
    /// or in an earlier one whose record is kept).
    ///
    /// `env` must be the same for every call on one store (it is the run's).
    #[must_use]
    pub fn get(&self, table: &Table, translator: &dyn Translator, case: &Arc<Case>, env: &Env) -> Arc<Record> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            slots.entry((translator.name().to_owned(), case.id.clone())).or_default().clone()
        };
        slot.get_or_init(|| {
            if let Some(record) = self.kept.as_ref().and_then(|k| k.load(table, translator, case, env)) {
                return Arc::new(record);
            }
            self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let record = Record::make(table, translator, case, env);
            if let Some(kept) = &self.kept {
                kept.keep(table, translator, env, &record);
            }
            Arc::new(record)
        })
        .clone()
    }

    /// The records of `translator` on every case, in the order of `cases`; `tick` is called after
    /// each (for progress).
    #[must_use]
    pub fn of_translator(&self, table: &Table, translator: &dyn Translator, cases: &[Arc<Case>], env: &Env, tick: &dyn Fn()) -> Vec<Arc<Record>> {
        cases
            .iter()
            .map(|case| {
                let record = self.get(table, translator, case, env);
                tick();
                record
            })
            .collect()
    }

    /// [`Records::of_translator`] for every job, the jobs spread over rayon's threads (one job is
    /// one translator on every case, run by one thread, so an external adapter is only ever asked
    /// by one; idle threads steal whole jobs), results in the jobs' order. `tick` is called after
    /// each record. A panic here is a bug in the harness itself (the oracle catches translators'
    /// panics) and rayon passes it on, so a view can never silently miss a translator.
    #[must_use]
    pub fn of_translators(&self, jobs: &[(&Table, &dyn Translator)], cases: &[Arc<Case>], env: &Env, tick: &(dyn Fn() + Sync)) -> Vec<Vec<Arc<Record>>> {
        use rayon::prelude::*;
        jobs.par_iter().with_max_len(1).map(|&(table, translator)| self.of_translator(table, translator, cases, env, tick)).collect()
    }

    /// Every record made so far, by translator and case id.
    #[must_use]
    pub fn all(&self) -> Vec<Arc<Record>> {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let mut records: Vec<Arc<Record>> = slots.values().filter_map(|slot| slot.get().cloned()).collect();
        records.sort_by(|a, b| (&a.translator, &a.case.id).cmp(&(&b.translator, &b.case.id)));
        records
    }

    /// How many times this store ran the oracle (each record is made once).
    #[must_use]
    pub fn made(&self) -> usize {
        self.made.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many records this store read back from an earlier run instead of making them.
    #[must_use]
    pub fn read_back(&self) -> usize {
        self.kept.as_ref().map_or(0, kept::Kept::read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Instance, Origin};
    use serde_json::json;
    use std::path::PathBuf;

    struct Counting(std::sync::atomic::AtomicUsize);
    impl Translator for Counting {
        fn name(&self) -> &str {
            "identity"
        }
        fn translate(&self, source: &Value) -> Outcome {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Outcome::json_schema(source.clone())
        }
    }

    #[test]
    fn a_record_is_made_once_however_often_and_from_however_many_threads_it_is_read() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = root.join("dispositions");
        let table = crate::table::load(&dir.join("identity.yaml"), std::path::Path::new("dispositions/identity.yaml"), &dir).expect("identity table");
        let case = Arc::new(Case {
            id: "corpus/x.yaml::c".to_owned(),
            file: PathBuf::from("corpus/x.yaml"),
            line: None,
            description: "d".to_owned(),
            issues: Vec::new(),
            schema: json!({"type": "string", "maxLength": 3}),
            instances: vec![Instance { description: "i".to_owned(), data: json!("ab"), valid: true }],
            origin: Origin::Own,
            assert_formats: true,
        });
        let translator = Counting(std::sync::atomic::AtomicUsize::new(0));
        let records = Records::default();
        let env = Env::default();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert!(matches!(records.get(&table, &translator, &case, &env).verdict, Verdict::Pass(_))));
            }
        });
        let again = records.of_translator(&table, &translator, std::slice::from_ref(&case), &env, &|| {});
        assert_eq!(translator.0.load(std::sync::atomic::Ordering::Relaxed), 2, "one record: translated once, and once more for the determinism check");
        assert_eq!(records.made(), 1);
        assert!(matches!(again[0].outcome, Some(Outcome::Projected(_))), "the projection judged is kept");
        assert!(again[0].rows.contains(&("maxLength".to_owned(), None)), "rows present: {:?}", again[0].rows);
    }

    /// A translator whose answers depend on nothing but the schema, as a built-in one's.
    struct Kept(std::sync::atomic::AtomicUsize, Option<u64>);
    impl Translator for Kept {
        fn name(&self) -> &str {
            "identity"
        }
        fn translate(&self, source: &Value) -> Outcome {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Outcome::json_schema(source.clone())
        }
        fn fingerprint(&self) -> Option<u64> {
            self.1
        }
    }

    fn case_with(max_length: u64) -> Arc<Case> {
        Arc::new(Case {
            id: "corpus/x.yaml::c".to_owned(),
            file: PathBuf::from("corpus/x.yaml"),
            line: None,
            description: "d".to_owned(),
            issues: Vec::new(),
            schema: json!({"type": "string", "maxLength": max_length}),
            instances: vec![Instance { description: "i".to_owned(), data: json!("ab"), valid: true }],
            origin: Origin::Own,
            assert_formats: true,
        })
    }

    #[test]
    fn a_kept_record_is_read_back_by_the_next_run_until_one_of_its_inputs_changes() {
        let root = std::env::temp_dir().join(format!("schema-fidelity-kept-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("scratch");
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("dispositions");
        let table = crate::table::load(&dir.join("identity.yaml"), std::path::Path::new("dispositions/identity.yaml"), &dir).expect("identity table");
        let env = Env::default();
        let translator = Kept(std::sync::atomic::AtomicUsize::new(0), Some(7));
        let translations = || translator.0.load(std::sync::atomic::Ordering::Relaxed);

        let first = Records::kept_under(&root);
        let made = first.get(&table, &translator, &case_with(3), &env);
        assert_eq!((first.made(), first.read_back(), translations()), (1, 0, 2));

        // The next run reads it back: the same record, not judged again.
        let second = Records::kept_under(&root);
        let read = second.get(&table, &translator, &case_with(3), &env);
        assert_eq!((second.made(), second.read_back(), translations()), (0, 1, 2));
        assert_eq!((&read.verdict, &read.outcome, &read.rows, &read.evidence), (&made.verdict, &made.outcome, &made.rows, &made.evidence));

        // Each input changed is judged again: the case, the table, the translator's fingerprint.
        let third = Records::kept_under(&root);
        let _ = third.get(&table, &translator, &case_with(4), &env);
        assert_eq!(third.made(), 1, "another schema under the same case id");
        let mut edited = table.clone();
        edited.description = Some("another table".to_owned());
        let fourth = Records::kept_under(&root);
        let _ = fourth.get(&edited, &translator, &case_with(3), &env);
        assert_eq!(fourth.made(), 1, "another table");
        let upgraded = Kept(std::sync::atomic::AtomicUsize::new(0), Some(8));
        let fifth = Records::kept_under(&root);
        let _ = fifth.get(&table, &upgraded, &case_with(3), &env);
        assert_eq!(fifth.made(), 1, "another version of the translator");

        // A translator whose fingerprint is unknown is never kept.
        let unknown = Kept(std::sync::atomic::AtomicUsize::new(0), None);
        for _ in 0..2 {
            let store = Records::kept_under(&root);
            let _ = store.get(&table, &unknown, &case_with(5), &env);
            assert_eq!((store.made(), store.read_back()), (1, 0));
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_fault_is_not_kept() {
        struct Faulting;
        impl Translator for Faulting {
            fn name(&self) -> &str {
                "identity"
            }
            fn translate(&self, _: &Value) -> Outcome {
                Outcome::Faulted(schema_fidelity_translators::Fault { message: "the adapter hangs".to_owned() })
            }
            fn fingerprint(&self) -> Option<u64> {
                Some(1)
            }
        }
        let root = std::env::temp_dir().join(format!("schema-fidelity-kept-fault-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("scratch");
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("dispositions");
        let table = crate::table::load(&dir.join("identity.yaml"), std::path::Path::new("dispositions/identity.yaml"), &dir).expect("identity table");
        for _ in 0..2 {
            let store = Records::kept_under(&root);
            let record = store.get(&table, &Faulting, &case_with(3), &Env::default());
            assert!(matches!(&record.verdict, Verdict::Fail(f) if matches!(f.kind, crate::verdict::FailureKind::Fault(_))), "{:?}", record.verdict);
            assert_eq!((store.made(), store.read_back()), (1, 0), "a fault is about the run, not the schema");
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
