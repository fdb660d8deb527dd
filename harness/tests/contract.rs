//! The conformance run: one trial per (translator × case), one lint trial per table, and a ratchet
//! trial per table with known violations. See `schema_fidelity::trials` for the names.
//!
//! `--exact NAME` (with or without the `[kind] ` prefix `--list` prints, which nextest passes)
//! loads only what that trial needs; an `--exact` name of a trial's shape that matches no trial
//! exits non-zero with the nearest name instead of running nothing.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, FormatSetting};
use schema_fidelity::project::Project;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::settings::Settings;
use schema_fidelity::trials;

fn main() -> ExitCode {
    let mut args = Arguments::from_args();
    // Thousands of trials: one character each, not a line padded to the longest name (2 MB of
    // output). Failures are printed in full either way; `--format pretty` gives every line.
    if args.format.is_none() && !args.list {
        args.format = Some(FormatSetting::Terse);
    }
    // Every setting as the CLI reads them: a variable the harness cannot use stops the run,
    // naming it, rather than being read as its default.
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(problems) => {
            eprintln!("error: {}", problems.replace('\n', "\nerror: "));
            return ExitCode::FAILURE;
        }
    };
    let selection = Selection::from_args(&args);
    let project = Project::at_with(trials::workspace_root(), settings.suite.clone());
    let loaded = Arc::new(session::load_with(project, &selection, settings.adapters.cache));
    let resolver = session::resolver(&loaded, &settings.adapters);
    let list = trials::build(&loaded, &resolver);
    if let Some(error) = trials::exact_miss(&args, &list, &loaded.project) {
        eprintln!("{error}");
        return ExitCode::FAILURE;
    }
    // The translators with a trial in this run (the others' adapters are never started).
    let ran: BTreeSet<String> = list.iter().filter(|t| !args.is_filtered_out(t)).map(|t| t.kind().to_owned()).collect();
    let conclusion = libtest_mimic::run(&args, list);
    if selection == Selection::All
        && !args.list
        && let Some(summary) = trials::closing_summary(&loaded, &resolver, &|name| ran.contains(name))
    {
        println!("{summary}");
    }
    // The adapters are stopped and reaped as the resolver goes. The records of every trial are
    // not freed one by one (a second of CPU in a warm run): the process's end frees them at once,
    // and nothing in them holds a process or an unwritten file.
    drop(resolver);
    std::mem::forget(loaded);
    conclusion.exit_code()
}
