//! One run, every view: the oracle runs once per (translator, case) in a process, and what it
//! saw is kept as a [`Record`]. The case trials, the ratchet, the reports, `run` and `explain` all
//! read records; none of them runs the oracle a second time.
//!
//! The store is a map of once-cells, so trials running in parallel that need the same record (a
//! case trial and its translator's ratchet, say) compute it once and the later one waits for it.
//! A store belongs to one [`Env`]: the records of a run with other witness settings are another
//! store.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use schema_fidelity_translators::walk;
use schema_fidelity_translators::{Outcome, Translator};
use serde_json::Value;

use crate::corpus::Case;
use crate::oracle::{self, Env, TrialEvidence, Verdict};
use crate::table::{Row, Table};

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
}

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records").field("made", &self.made()).finish_non_exhaustive()
    }
}

impl Records {
    /// The record of `translator` on `case`, running the oracle if no one has yet.
    ///
    /// `env` must be the same for every call on one store (it is the run's).
    #[must_use]
    pub fn get(&self, table: &Table, translator: &dyn Translator, case: &Arc<Case>, env: &Env) -> Arc<Record> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            slots.entry((translator.name().to_owned(), case.id.clone())).or_default().clone()
        };
        slot.get_or_init(|| {
            self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Arc::new(Record::make(table, translator, case, env))
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

    /// [`Records::of_translator`] for every job, the jobs spread over the machine's threads (one
    /// translator at a time per thread, so an external adapter is only ever asked by one), results
    /// in the jobs' order. `tick` is called after each record. A panic here is a bug in the
    /// harness itself (the oracle catches translators' panics) and is passed on, so a view can
    /// never silently miss a translator.
    #[must_use]
    pub fn of_translators(&self, jobs: &[(&Table, &dyn Translator)], cases: &[Arc<Case>], env: &Env, tick: &(dyn Fn() + Sync)) -> Vec<Vec<Arc<Record>>> {
        let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(jobs.len().max(1));
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut results: Vec<Vec<Arc<Record>>> = vec![Vec::new(); jobs.len()];
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(&(table, translator)) = jobs.get(i) else { break };
                            done.push((i, self.of_translator(table, translator, cases, env, tick)));
                        }
                        done
                    })
                })
                .collect();
            for handle in handles {
                match handle.join() {
                    Ok(done) => {
                        for (i, records) in done {
                            results[i] = records;
                        }
                    }
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
        results
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
        let root = crate::trials::workspace_root();
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
}
