//! How far the prover reaches on its own: for the own corpus × the built-in translators, the share
//! of directions it proves (no widening, no narrowing), where it stops, and its time. No witness
//! search runs here; the oracle's evidence (proven / shown / unknown) is in `report.json`.
//!
//! ```sh
//! cargo run --release -p schema-fidelity --example prover_reach [-- --stops]
//! ```
//! `--stops` lists every direction not proven, with where and why the proof stopped; `--pairs FILE`
//! writes every (source, projection read through its codec) pair as JSON lines, with what the
//! prover said of each direction, for measuring another prover on the same pairs.

use std::collections::BTreeMap;
use std::time::Duration;

use schema_fidelity::dialect;
use schema_fidelity::project::Project;
use schema_fidelity::prover::{self, Proof};
use schema_fidelity::session::{self, Selection};
use schema_fidelity::trials;
use schema_fidelity_translators::{Outcome, builtin};

fn main() {
    let stops = std::env::args().any(|a| a == "--stops");
    let args: Vec<String> = std::env::args().collect();
    let mut pairs_out = args.iter().position(|a| a == "--pairs").and_then(|i| args.get(i + 1)).map(|path| {
        std::io::BufWriter::new(std::fs::File::create(path).unwrap_or_else(|e| panic!("{path}: {e}")))
    });
    let loaded = session::load(Project::at(trials::workspace_root()), &Selection::All);
    let remotes = loaded.env.remotes.clone();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let (mut all_dirs, mut all_proven, mut total) = (0usize, 0usize, Duration::ZERO);
    println!(
        "{:<18} {:>6} {:>9} {:>9} {:>9}",
        "translator", "pairs", "no wid.", "no narr.", "time"
    );
    for translator in builtin::all() {
        let (mut pairs, mut widening, mut narrowing, mut time) =
            (0usize, 0usize, 0usize, Duration::ZERO);
        for case in loaded.cases.iter().filter(|c| c.id.starts_with("corpus/")) {
            let Outcome::Projected(p) = translator.translate(&case.schema) else {
                continue;
            };
            let Ok(lifted) = dialect::lift(p.dialect, &p.schema) else {
                continue;
            };
            let proofs = prover::prove(
                &case.schema,
                &lifted,
                &p.codec,
                remotes.as_deref(),
                case.assert_formats,
            );
            pairs += 1;
            time += proofs.elapsed;
            if let (Some(out), Some(decoded)) = (pairs_out.as_mut(), &proofs.decoded) {
                use std::io::Write as _;
                let line = serde_json::json!({
                    "translator": translator.name(),
                    "case": case.id,
                    "assert_formats": case.assert_formats,
                    "source": case.schema,
                    "projection": decoded,
                    "no_widening": proofs.widening.is_proven(),
                    "no_narrowing": proofs.narrowing.is_proven(),
                    "micros": u64::try_from(proofs.elapsed.as_micros()).unwrap_or(u64::MAX),
                });
                writeln!(out, "{line}").expect("write the pairs");
            }
            for (name, proof, count) in [
                ("widening", &proofs.widening, &mut widening),
                ("narrowing", &proofs.narrowing, &mut narrowing),
            ] {
                match proof {
                    Proof::Proven => *count += 1,
                    Proof::Unknown(why) => {
                        let class = match proof.stop() {
                            Some(stop) => {
                                format!("{:?}", stop.why)
                                    .split('(')
                                    .next()
                                    .unwrap_or_default()
                                    .to_owned()
                                    + &match &stop.why {
                                        prover::Why::Keyword(k) | prover::Why::Unsupported(k) => {
                                            format!(" {k}")
                                        }
                                        prover::Why::Type(t) => format!(" {}", t.names().join("|")),
                                        _ => String::new(),
                                    }
                            }
                            None => "Codec".to_owned(),
                        };
                        *reasons.entry(class).or_default() += 1;
                        if stops {
                            println!("  {}::{} {name}: {why}", translator.name(), case.id);
                        }
                    }
                }
            }
        }
        all_dirs += 2 * pairs;
        all_proven += widening + narrowing;
        total += time;
        println!(
            "{:<18} {:>6} {:>8.1}% {:>8.1}% {:>7.1}ms",
            translator.name(),
            pairs,
            100.0 * widening as f64 / pairs.max(1) as f64,
            100.0 * narrowing as f64 / pairs.max(1) as f64,
            time.as_secs_f64() * 1000.0
        );
    }
    println!(
        "all: {all_proven} of {all_dirs} directions proven ({:.1}%), {:.0} ms",
        100.0 * all_proven as f64 / all_dirs.max(1) as f64,
        total.as_secs_f64() * 1000.0
    );
    println!("where proofs stopped:");
    let mut by_count: Vec<_> = reasons.into_iter().collect();
    by_count.sort_by_key(|b| std::cmp::Reverse(b.1));
    for (class, n) in by_count {
        println!("  {n:>5}  {class}");
    }
}
