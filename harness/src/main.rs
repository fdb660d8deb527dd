//! `schema-fidelity`: run the fidelity contract and tell people what it found.
//!
//! ```text
//! schema-fidelity run [--translator NAME]...   run every table against the corpus, print a summary
//! schema-fidelity lint                         check tables and corpus files, with file and line
//! ```

use std::process::ExitCode;
use std::sync::Arc;

use schema_fidelity::project::Project;
use schema_fidelity::trials::{self, Selection};

const USAGE: &str = "\
usage: schema-fidelity <command> [options]

commands:
  run [--translator NAME]...   run the contract (every table against the corpus) and print a summary
  lint                         check the tables and the corpus files, with file and line
  help                         print this message

The project is found from the current directory upwards (a folder holding dispositions/ and corpus/).
The JSON-Schema-Test-Suite is read from ../shared/jsts or $SCHEMA_FIDELITY_JSTS.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("lint") => lint(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            println!("{USAGE}");
            Ok(true)
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn project() -> Result<Project, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    Project::discover(&cwd)
}

fn run(args: &[String]) -> Result<bool, String> {
    let mut wanted = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--translator" | "-t" => wanted.push(it.next().ok_or("--translator needs a name")?.clone()),
            other => return Err(format!("run: unexpected argument `{other}`")),
        }
    }
    let loaded = Arc::new(trials::load(project()?, &Selection::All));
    let resolver = trials::builtin_resolver();
    for name in &wanted {
        if !loaded.tables.iter().any(|(t, _, _)| t == name) {
            let names: Vec<&str> = loaded.tables.iter().map(|(t, _, _)| t.as_str()).collect();
            return Err(format!("no table named `{name}` (tables: {})", names.join(", ")));
        }
    }
    let mut ok = true;
    for e in &loaded.corpus_errors {
        println!("corpus error: {e}");
        ok = false;
    }
    if let Err(reason) = &loaded.project.suite {
        println!("note: JSON-Schema-Test-Suite trials skipped: {reason}");
    }
    println!("{:<20} {:>8} {:>8} {:>8} {:>8}  table", "translator", "passed", "failed", "known", "skipped");
    let mut failures = Vec::new();
    for (name, table, errors) in &loaded.tables {
        if !wanted.is_empty() && !wanted.contains(name) {
            continue;
        }
        for e in errors {
            failures.push(format!("{name}::lint\n{e}"));
        }
        let (Some(table), Some(translator)) = (table, resolver(name)) else {
            failures.push(format!("{name}: no translator or no table to run"));
            continue;
        };
        let t = trials::tally(table, translator.as_ref(), &loaded.cases, &loaded.env);
        println!(
            "{:<20} {:>8} {:>8} {:>8} {:>8}  {}",
            name,
            t.passed,
            t.failed.len(),
            t.expected.len(),
            t.skipped,
            table.file.display()
        );
        for (case, message) in t.failed {
            failures.push(format!("{name}::{case}\n{message}"));
        }
    }
    if !failures.is_empty() {
        ok = false;
        println!("\n{} failure(s):", failures.len());
        for f in &failures {
            println!("\n--- {f}");
        }
    }
    Ok(ok)
}

fn lint(args: &[String]) -> Result<bool, String> {
    if let Some(extra) = args.first() {
        return Err(format!("lint: unexpected argument `{extra}`"));
    }
    let loaded = trials::load(project()?, &Selection::All);
    let mut problems = 0;
    for (_, _, errors) in &loaded.tables {
        for e in errors {
            println!("{e}");
            problems += 1;
        }
    }
    for e in &loaded.corpus_errors {
        println!("{e}");
        problems += 1;
    }
    println!("{} table(s), {} case(s), {problems} problem(s)", loaded.tables.len(), loaded.cases.len());
    Ok(problems == 0)
}
