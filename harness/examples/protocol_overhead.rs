//! Benchmark: what the adapter protocol costs per schema, against starting a process per schema.
//!
//! ```sh
//! cargo run --release -p schema-fidelity --example protocol_overhead
//! ```
//!
//! Every corpus schema (own cases and, when present, the JSON-Schema-Test-Suite) is sent through
//! the trivial identity adapter (`harness/tests/fixtures/adapters/identity.py`):
//!
//! - **persistent**: one process for the whole run, as the harness does; the per-schema cost is the
//!   round trip (encode, pipe, decode in Python, encode, pipe, validate, decode);
//! - **process per schema**: the same adapter started for each schema (`--once`), handshake
//!   included, on the first [`PER_PROCESS_SAMPLE`] schemas.
//!
//! Then, for scale, the real external translators whose packages are installed, persistent: their
//! per-schema time is the round trip plus the translator's own work.

use std::sync::Arc;
use std::time::{Duration, Instant};

use schema_fidelity::external::{Adapter, AdapterSpec, Config, ExternalTranslator};
use schema_fidelity::project::Project;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::trials;
use schema_fidelity_translators::{Outcome, Translator};
use serde_json::Value;

/// Schemas timed with a process each (a process start costs tens of milliseconds).
const PER_PROCESS_SAMPLE: usize = 100;

/// The Python interpreter itself: `python3` may be a launcher script (pyenv's shim costs a few
/// hundred milliseconds per start), which would inflate the process-per-schema baseline.
fn python() -> String {
    std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "python3".to_owned())
}

fn identity(python: &str, once: bool) -> ExternalTranslator {
    let mut command = vec![python.to_owned(), "harness/tests/fixtures/adapters/identity.py".to_owned()];
    if once {
        command.push("--once".to_owned());
    }
    let spec = AdapterSpec { command, cwd: trials::workspace_root(), install: None };
    ExternalTranslator::new("external-identity", Arc::new(Adapter::new(spec, Config::default())))
}

fn expect_projection(outcome: &Outcome) {
    assert!(matches!(outcome, Outcome::Projected(_)), "the identity adapter projects: {outcome:?}");
}

fn per_schema(total: Duration, count: usize) -> f64 {
    total.as_secs_f64() * 1e6 / count as f64
}

fn main() {
    let loaded = session::load(Project::at(trials::workspace_root()), &Selection::All);
    let schemas: Vec<&Value> = loaded.cases.iter().map(|c| &c.schema).collect();
    let bytes: usize = schemas.iter().map(|s| s.to_string().len()).sum();
    println!("{} schemas ({} bytes of JSON in all)", schemas.len(), bytes);

    let python = python();
    println!("adapter interpreter: {python}");
    let persistent = identity(&python, false);
    expect_projection(&persistent.translate(schemas[0]));
    let started = Instant::now();
    for schema in &schemas {
        expect_projection(&persistent.translate(schema));
    }
    let persistent_us = per_schema(started.elapsed(), schemas.len());

    let sample = &schemas[..schemas.len().min(PER_PROCESS_SAMPLE)];
    let started = Instant::now();
    for schema in sample {
        expect_projection(&identity(&python, true).translate(schema));
    }
    let per_process_us = per_schema(started.elapsed(), sample.len());

    println!("{:<48} {:>14}", "identity adapter", "per schema");
    println!("{:<48} {:>11.1} us", "persistent process (the harness)", persistent_us);
    println!("{:<48} {:>11.1} us", format!("process per schema ({} schemas)", sample.len()), per_process_us);
    println!("ratio (process per schema / persistent): {:.0}x", per_process_us / persistent_us);

    for (name, table) in loaded.tables.iter().filter_map(|(n, t, _)| Some((n, t.as_ref()?))) {
        let Some(run) = &table.run else { continue };
        let spec = AdapterSpec { command: run.clone(), cwd: loaded.project.root.clone(), install: table.install.clone() };
        let translator = ExternalTranslator::new(name.clone(), Arc::new(Adapter::new(spec, Config::default())));
        if let Some(reason) = translator.unavailable() {
            println!("{name}: skipped ({reason})");
            continue;
        }
        let _ = translator.translate(schemas[0]);
        let started = Instant::now();
        for schema in &schemas {
            let _ = translator.translate(schema);
        }
        println!("{:<48} {:>11.1} us", format!("{name} (persistent, with translator)"), per_schema(started.elapsed(), schemas.len()));
    }
}
