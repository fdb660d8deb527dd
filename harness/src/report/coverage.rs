//! Witness coverage: for each keyword of the own corpus, how many cases use it and how many
//! trials found a witness pinned on it in each direction. A keyword no witness was ever pinned on
//! is one whose loss the run has not shown it can see: a candidate for a new case (or for the
//! generator). Read from a run's records ([`crate::records`]), never a second run.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;

use schema_fidelity_translators::walk;

use crate::corpus::Origin;
use crate::deviation::Direction;
use crate::records::Record;
use crate::verdict::{Attribution, Verdict, Witness};

/// What the run showed about one keyword.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeywordCoverage {
    /// Own cases whose schema uses the keyword.
    pub cases: BTreeSet<String>,
    /// Trials (translator × case) with a witness pinned on the keyword, widening.
    pub widening: usize,
    /// The same, narrowing.
    pub narrowing: usize,
}

/// The coverage of the own corpus, by keyword.
#[must_use]
pub fn coverage(records: &[Arc<Record>]) -> BTreeMap<String, KeywordCoverage> {
    let mut out: BTreeMap<String, KeywordCoverage> = BTreeMap::new();
    for record in records.iter().filter(|r| r.case.origin == Origin::Own) {
        if let Ok(occurrences) = walk::occurrences(&record.case.schema) {
            for o in occurrences {
                out.entry(o.keyword.to_owned()).or_default().cases.insert(record.case.id.clone());
            }
        }
        let witnesses: &[Witness] = match &record.verdict {
            Verdict::Pass(s) => &s.witnesses,
            Verdict::Fail(f) | Verdict::ExpectedFailure { failure: f, .. } => &f.witnesses,
            Verdict::Skip(_) => &[],
        };
        let mut pinned: BTreeSet<(String, Direction)> = BTreeSet::new();
        for w in witnesses {
            for keyword in pinned_on(w) {
                pinned.insert((keyword, w.direction));
            }
        }
        for (keyword, direction) in pinned {
            let entry = out.entry(keyword).or_default();
            match direction {
                Direction::Widening => entry.widening += 1,
                Direction::Narrowing => entry.narrowing += 1,
            }
        }
    }
    out
}

/// The keywords a witness is pinned on: those of the rows that explain it, or the occurrences it
/// is blamed on.
fn pinned_on(w: &Witness) -> Vec<String> {
    match &w.attribution {
        // Row ids read `file:line `keyword`` (and ` (refinement)`).
        Attribution::Declared(rows) | Attribution::Marked(rows) => {
            rows.iter().filter_map(|r| r.split('`').nth(1)).map(str::to_owned).collect()
        }
        Attribution::Unexplained(culprits) => culprits.iter().filter(|c| !c.keyword.is_empty()).map(|c| c.keyword.clone()).collect(),
        Attribution::Unjudged => Vec::new(),
    }
}

/// The coverage as text: a line per keyword, then the keywords with no witness at all.
#[must_use]
pub fn render(coverage: &BTreeMap<String, KeywordCoverage>) -> String {
    let width = coverage.keys().map(|k| k.chars().count()).max().unwrap_or(0).max("keyword".len());
    let mut s = format!("witness coverage of the own corpus: cases using each keyword, and trials with a witness pinned on it\n{:<width$}  {:>6}  {:>9}  {:>9}\n", "keyword", "cases", "widening", "narrowing");
    for (keyword, c) in coverage.iter().filter(|(_, c)| !c.cases.is_empty()) {
        let _ = writeln!(s, "{keyword:<width$}  {:>6}  {:>9}  {:>9}", c.cases.len(), c.widening, c.narrowing);
    }
    let unseen: Vec<&str> = coverage.iter().filter(|(_, c)| !c.cases.is_empty() && c.widening == 0 && c.narrowing == 0).map(|(k, _)| k.as_str()).collect();
    if unseen.is_empty() {
        s.push_str("every keyword of the own corpus has a witness pinned on it in some trial\n");
    } else {
        let _ = writeln!(
            s,
            "{} keyword(s) of the own corpus with no witness in any trial (no translator here loses them, or no case shows it): {}",
            unseen.len(),
            unseen.join(", ")
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Case, Instance};
    use crate::verdict::Summary;
    use serde_json::json;
    use std::path::PathBuf;
    use std::time::Duration;

    fn record(translator: &str, witnesses: Vec<Witness>) -> Arc<Record> {
        let case = Case {
            id: "corpus/x.yaml::c".to_owned(),
            file: PathBuf::from("corpus/x.yaml"),
            line: None,
            description: String::new(),
            issues: Vec::new(),
            schema: json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": 3, "pattern": "^a"}}}),
            instances: vec![Instance { description: String::new(), data: json!({}), valid: true }],
            origin: Origin::Own,
            assert_formats: true,
        };
        let verdict = Verdict::Pass(Summary { witnesses, ..Summary::default() });
        Arc::new(Record { translator: translator.to_owned(), case: Arc::new(case), verdict, outcome: None, rows: BTreeSet::new(), evidence: None, elapsed: Duration::ZERO })
    }

    fn witness(direction: Direction, rows: &[&str]) -> Witness {
        Witness {
            direction,
            description: String::new(),
            instance: json!({}),
            model_instance: json!({}),
            source_accepts: direction == Direction::Narrowing,
            projection_accepts: direction == Direction::Widening,
            generated: true,
            attribution: Attribution::Declared(rows.iter().map(|r| (*r).to_owned()).collect()),
            inversions: Vec::new(),
        }
    }

    #[test]
    fn witnesses_are_counted_per_keyword_direction_and_trial() {
        let records = [
            record("a", vec![witness(Direction::Widening, &["dispositions/a.yaml:9 `maxLength`"])]),
            record("b", vec![witness(Direction::Widening, &["dispositions/b.yaml:4 `maxLength`"]), witness(Direction::Narrowing, &["dispositions/b.yaml:2 `type` (at_root)"])]),
        ];
        let c = coverage(&records);
        assert_eq!((c["maxLength"].cases.len(), c["maxLength"].widening, c["maxLength"].narrowing), (1, 2, 0));
        assert_eq!((c["type"].widening, c["type"].narrowing), (0, 1));
        assert_eq!((c["pattern"].widening, c["pattern"].narrowing), (0, 0));
        let text = render(&c);
        assert!(text.contains("keyword(s) of the own corpus with no witness in any trial") && text.contains("pattern"), "{text}");
    }
}
