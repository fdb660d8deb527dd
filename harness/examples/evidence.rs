//! The evidence of the own corpus × the built-in translators, per direction: how many trials are
//! proven (no instance deviates that way), shown (a validated witness does) or unknown, per
//! translator, and every unknown direction with the reason its proof stopped. This is what the
//! issue's "at most one direction in ten unknown" is measured with (CONTRACT §10).
//!
//! ```sh
//! cargo run --release -p schema-fidelity --example evidence [-- --unknown]
//! ```

use std::time::Instant;

use schema_fidelity::project::Project;
use schema_fidelity::records::Record;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::trials;
use schema_fidelity::verdict::{Evidence, Verdict};
use schema_fidelity_translators::builtin;

fn main() {
    let list_unknown = std::env::args().any(|a| a == "--unknown");
    let list_all = std::env::args().any(|a| a == "--all");
    let loaded = session::load(Project::at(trials::workspace_root()), &Selection::All);
    let cases: Vec<_> = loaded.cases.iter().filter(|c| c.id.starts_with("corpus/")).cloned().collect();
    let started = Instant::now();
    let mut total = [0usize; 9];
    let mut unknown = Vec::new();
    println!("{:<17} {:>6} | {:>23} | {:>23} | {:>6} {:>6}", "translator", "trials", "widening: proven/shown/?", "narrowing: proven/shown/?", "exact", "table");
    for translator in builtin::all() {
        let Some((_, Some(table), _)) = loaded.tables.iter().find(|(n, ..)| n == translator.name()) else { continue };
        let mut c = [0usize; 9];
        for case in &cases {
            let record = Record::make(table, translator.as_ref(), case, &loaded.env);
            let Some(e) = &record.evidence else { continue };
            if matches!(record.verdict, Verdict::Skip(_)) {
                continue;
            }
            c[0] += 1;
            c[7] += usize::from(e.exact());
            c[8] += usize::from(e.widening_within_table && e.narrowing_within_table);
            for (i, evidence, name) in [(1, &e.widening, "widening"), (4, &e.narrowing, "narrowing")] {
                if list_all {
                    eprintln!("{} {}::{} {name}", evidence.name(), translator.name(), case.id);
                }
                match evidence {
                    Evidence::Proven => c[i] += 1,
                    Evidence::Shown => c[i + 1] += 1,
                    Evidence::Unknown(why) => {
                        c[i + 2] += 1;
                        unknown.push(format!("{}::{} {name}: {why}", translator.name(), case.id));
                    }
                }
            }
        }
        println!(
            "{:<17} {:>6} | {:>7} {:>7} {:>7} | {:>7} {:>7} {:>7} | {:>6} {:>6}",
            translator.name(),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            c[5],
            c[6],
            c[7],
            c[8]
        );
        for i in 0..9 {
            total[i] += c[i];
        }
    }
    let directions = 2 * total[0];
    println!(
        "all: {} trials ({} proven exact, {} proven within their tables), {directions} directions: proven {} ({:.1}%), shown {} ({:.1}%), unknown {} ({:.1}%); {:.1} s",
        total[0],
        total[7],
        total[8],
        total[1] + total[4],
        100.0 * (total[1] + total[4]) as f64 / directions.max(1) as f64,
        total[2] + total[5],
        100.0 * (total[2] + total[5]) as f64 / directions.max(1) as f64,
        total[3] + total[6],
        100.0 * (total[3] + total[6]) as f64 / directions.max(1) as f64,
        started.elapsed().as_secs_f64()
    );
    if list_unknown {
        for u in unknown {
            println!("  {u}");
        }
    }
}
