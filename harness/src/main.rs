//! `schema-fidelity`: run the fidelity contract and tell people what it found.
//!
//! ```text
//! schema-fidelity run [--translator NAME]...     run every table against the corpus, print a summary
//! schema-fidelity report [--check]               write (or compare) reports/: matrix, pages, report.json
//! schema-fidelity report --diff OLD.json [NEW]    what changed between two runs' report.json
//! schema-fidelity explain TRANSLATOR KEYWORD     one row in plain words, with cases and a witness
//! schema-fidelity check SCHEMA.json [...]        what each translator does to a user's tool schema
//! schema-fidelity lint                           check tables and corpus files, with file and line
//! schema-fidelity new TRANSLATOR                 scaffold a table with a TODO row per keyword
//! ```
//!
//! Exit status: 0 when all is well, 1 for findings (failing trials, lint problems, a lossy or
//! silent translator in `check`, stale reports), 2 for usage and input errors.

// Everything this binary prints may carry text from outside (case names, schema keys, table
// notes, an adapter's stderr), so the printing macros are shadowed here by ones that pass the text
// through `terminal::sanitize`: an escape sequence is shown, never sent to the terminal. Output
// that must stay byte-exact (the JSON of `check --format json`) uses `std::println!` with
// `terminal::sanitize_json` explicitly.
macro_rules! println {
    () => { std::println!() };
    ($($arg:tt)*) => { std::println!("{}", schema_fidelity::terminal::sanitize(&format!($($arg)*))) };
}
macro_rules! print {
    ($($arg:tt)*) => { std::print!("{}", schema_fidelity::terminal::sanitize(&format!($($arg)*))) };
}
macro_rules! eprintln {
    ($($arg:tt)*) => { std::eprintln!("{}", schema_fidelity::terminal::sanitize(&format!($($arg)*))) };
}

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use schema_fidelity::oracle::Env;
use schema_fidelity::{budget, json};
use schema_fidelity::project::Project;
use schema_fidelity::report::{self, candidates, check, explain, scaffold};
use schema_fidelity::table;
use schema_fidelity::trials::{self, Selection};

const USAGE: &str = "\
usage: schema-fidelity <command> [options]

commands:
  run [--translator NAME]...          run the contract (every table against the corpus) and print a summary
  report [--check]                    write reports/: the matrix (matrix.md, index.html), one page per
                                      translator and report.json; --check only compares and shows the diff
  report --diff OLD.json [NEW.json]   what changed between two runs (NEW: reports/report.json): translators
                                      added or upgraded, dispositions, marks added or fixed, cases that
                                      started or stopped failing; OLD of another revision:
                                      git show REV:reports/report.json > /tmp/old.json
  explain TRANSLATOR [KEYWORD]        what a row means: table line, plain words, the cases that use it and a
                                      witness for an approximation (also TRANSLATOR/KEYWORD[:REFINEMENT];
                                      without KEYWORD, every row of the table)
  check SCHEMA.json [--translator NAME]... [--format text|json]
                                      what each translator does to your tool schema: refused, exact, widened
                                      or narrowed (with the rows and a witness), or a keyword with no row
  lint                                check the tables and the corpus files, with file and line
  new TRANSLATOR                      scaffold dispositions/TRANSLATOR.yaml with a TODO row for every keyword
  help                                print this message

Exit status: 0 when all is well; 1 for findings (failing trials, lint problems, a lossy or silent
translator in `check`, reports that are not current); 2 for usage and input errors.

The project is found from the current directory upwards (a folder holding dispositions/ and corpus/).
The JSON-Schema-Test-Suite is read from ../shared/jsts or $SCHEMA_FIDELITY_JSTS.
Progress is shown on stderr when it is a terminal.";

/// The translators whose runtime or package is missing here, as one sentence, if any.
fn unavailable_translators(loaded: &trials::Loaded, resolver: &trials::Resolver) -> Option<String> {
    let missing: Vec<String> = loaded
        .tables
        .iter()
        .filter_map(|(name, _, _)| resolver(name).and_then(|t| t.unavailable()).map(|why| format!("{name} ({why})")))
        .collect();
    (!missing.is_empty()).then(|| format!("unavailable translators: {}", missing.join("; ")))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(rest),
        Some("report") => report_command(rest),
        Some("explain") => explain_command(rest),
        Some("check") => check_command(rest),
        Some("lint") => lint(rest),
        Some("new") => new_command(rest),
        Some("help" | "--help" | "-h") | None => {
            println!("{USAGE}");
            Ok(true)
        }
        Some(other) => {
            let commands = ["run", "report", "explain", "check", "lint", "new", "help"];
            let hint = table::nearest(other, commands.into_iter()).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
            Err(format!("unknown command `{other}`{hint}\n\n{USAGE}"))
        }
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

/// An error for a translator name no table has, suggesting the nearest.
fn unknown_translator(name: &str, known: &[&str]) -> String {
    let mut message = format!("no table named `{name}` (dispositions/{name}.yaml)");
    match table::nearest(name, known.iter().copied()) {
        Some(near) => message.push_str(&format!("; did you mean `{near}`?")),
        None => message.push_str(&format!("; tables: {}", known.join(", "))),
    }
    message
}

/// Collect `--translator NAME` options; anything else is returned in order.
fn translator_options(args: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    let mut wanted = Vec::new();
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--translator" | "-t" => wanted.push(it.next().ok_or("--translator needs a name")?.clone()),
            _ => rest.push(arg.clone()),
        }
    }
    Ok((wanted, rest))
}

fn run(args: &[String]) -> Result<bool, String> {
    let (wanted, rest) = translator_options(args)?;
    if let Some(other) = rest.first() {
        return Err(format!("run: unexpected argument `{other}`"));
    }
    let loaded = Arc::new(trials::load(project()?, &Selection::All));
    let resolver = trials::resolver(&loaded, &schema_fidelity::external::Config::from_env());
    let names: Vec<&str> = loaded.tables.iter().map(|(t, _, _)| t.as_str()).collect();
    for name in &wanted {
        if !names.contains(&name.as_str()) {
            return Err(unknown_translator(name, &names));
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
    let selected: Vec<_> = loaded.tables.iter().filter(|(name, _, _)| wanted.is_empty() || wanted.contains(name)).collect();
    let progress = report::progress::Progress::on_terminal("running the contract: tables done", selected.len());
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    let mut not_started: Vec<&str> = Vec::new();
    for (name, table, errors) in selected {
        for e in errors {
            failures.push(format!("{name}::lint\n{e}"));
        }
        let (Some(table), Some(translator)) = (table, resolver(name)) else {
            failures.push(format!("{name}: no translator or no table to run"));
            progress.tick();
            continue;
        };
        if let Some(reason) = translator.unavailable() {
            lines.push(format!("{name:<20} skipped: {reason}"));
            not_started.push(name.as_str());
            progress.tick();
            continue;
        }
        let t = trials::tally(&loaded.records.of_translator(table, translator.as_ref(), &loaded.cases, &loaded.env, &|| {}));
        progress.tick();
        lines.push(format!(
            "{:<20} {:>8} {:>8} {:>8} {:>8} {:>8}  {}",
            name,
            t.passed - t.refused,
            t.refused,
            t.failed.len(),
            t.expected.len(),
            t.skipped,
            table.file.display()
        ));
        for (case, message) in t.failed {
            failures.push(format!("{name}::{case}\n{message}"));
        }
    }
    progress.finish();
    // A correct refusal passes without any instance being compared, so it is counted apart.
    println!("{:<20} {:>8} {:>8} {:>8} {:>8} {:>8}  table", "translator", "compared", "refused", "failed", "known", "skipped");
    for line in lines {
        println!("{line}");
    }
    if !failures.is_empty() {
        ok = false;
        println!("\n{} failure(s):", failures.len());
        for f in &failures {
            println!("\n--- {f}");
        }
    }
    // The contract was not run for these: not a success, even if all else passed. (`cargo test`
    // reports their trials as skipped instead; `--translator` selects the ones that can run.)
    if !not_started.is_empty() {
        ok = false;
        println!("\n{} translator(s) could not be started, so their contract was not run: {}", not_started.len(), not_started.join(", "));
    }
    Ok(ok)
}

fn report_command(args: &[String]) -> Result<bool, String> {
    let check_only = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        [flag, old] if flag == "--diff" => return report_diff(old, None),
        [flag, old, new] if flag == "--diff" => return report_diff(old, Some(new)),
        [other, ..] => return Err(format!("report: unexpected argument `{other}` (report [--check] | report --diff OLD.json [NEW.json])")),
    };
    let loaded = trials::load(project()?, &Selection::All);
    let resolver = trials::resolver(&loaded, &schema_fidelity::external::Config::from_env());
    if let Some(reason) = unavailable_translators(&loaded, &resolver) {
        eprintln!("note: {reason}: their pages will say so; install them (see .ci/run) before committing reports");
    }
    let generated = report::generate(&loaded, &resolver, true)?;
    let project = &loaded.project;
    if let Err(reason) = &project.suite {
        eprintln!("note: {reason}\nnote: without the suite, the case counts and witnesses cover the own corpus only");
    }
    if check_only {
        let tables_only = project.suite.is_err();
        if tables_only {
            eprintln!("note: comparing matrix.md and index.html only (the other reports depend on the suite)");
        }
        let diffs = report::differences(project, &generated, tables_only);
        for d in &diffs {
            println!("{d}");
        }
        if diffs.is_empty() {
            println!("{}/ is current", report::REPORTS_DIR);
        } else {
            println!("{}/ is not current: run `schema-fidelity report` and commit the result", report::REPORTS_DIR);
        }
        return Ok(diffs.is_empty());
    }
    let changed = report::write(project, &generated)?;
    if changed.is_empty() {
        println!("{}/ is current ({} files)", report::REPORTS_DIR, generated.files.len());
    } else {
        println!("wrote {} of {} files in {}/:", changed.len(), generated.files.len(), report::REPORTS_DIR);
        for c in changed {
            println!("  {c}");
        }
    }
    Ok(true)
}

/// `report --diff OLD [NEW]`: compare two runs' report.json, without running anything.
fn report_diff(old: &str, new: Option<&String>) -> Result<bool, String> {
    let read = |path: &std::path::Path| -> Result<serde_json::Value, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a report.json: {e}", path.display()))
    };
    let new_path = match new {
        Some(p) => std::path::PathBuf::from(p),
        None => project()?.root.join(report::REPORTS_DIR).join("report.json"),
    };
    let (o, n) = (read(std::path::Path::new(old))?, read(&new_path)?);
    let changes = report::compare::compare(&o, &n);
    print!("{}", report::compare::render(old, &new_path.display().to_string(), &changes));
    Ok(true)
}

fn explain_command(args: &[String]) -> Result<bool, String> {
    let query = explain::parse_query(args)?;
    let loaded = trials::load(project()?, &Selection::All);
    let names: Vec<&str> = loaded.tables.iter().map(|(t, _, _)| t.as_str()).collect();
    let Some((_, table, errors)) = loaded.tables.iter().find(|(n, _, _)| *n == query.translator) else {
        return Err(unknown_translator(&query.translator, &names));
    };
    let Some(table) = table else {
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(format!("the table of `{}` does not load:\n{}", query.translator, errors.join("\n")));
    };
    let Some(key) = &query.key else {
        print!("{}", explain::overview(table));
        return Ok(true);
    };
    let rows = explain::find_rows(table, key, query.refinement.as_deref())?;
    let translator = trials::resolver(&loaded, &schema_fidelity::external::Config::from_env())(&query.translator);
    let text = explain::explain(table, &rows, translator.as_deref(), &loaded.cases, &loaded.env, true);
    print!("{text}");
    Ok(true)
}

fn check_command(args: &[String]) -> Result<bool, String> {
    let (wanted, rest) = translator_options(args)?;
    let mut file = None;
    let mut json = false;
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--format" => match it.next().map(String::as_str) {
                Some("json") => json = true,
                Some("text") => json = false,
                other => return Err(format!("--format takes `text` or `json`, not `{}`", other.unwrap_or(""))),
            },
            flag if flag.starts_with('-') && flag.len() > 1 => return Err(format!("check: unknown option `{flag}`")),
            path if file.is_none() => file = Some(path.to_owned()),
            extra => return Err(format!("check: unexpected argument `{extra}` (one schema file at a time)")),
        }
    }
    let file = file.ok_or("check needs a schema file: schema-fidelity check SCHEMA.json")?;
    let budgets = budget::Budgets::from_env()?;
    let text = budget::read_text(std::path::Path::new(&file), &budgets).map_err(|e| format!("{file}: {e}"))?;
    let schema = json::parse(&text).map_err(|e| format!("{file}:{e}"))?;

    let project = project()?;
    let tables = check::load_tables(&project);
    let names: Vec<&str> = tables.iter().map(|(n, _, _)| n.as_str()).collect();
    for name in &wanted {
        if !names.contains(&name.as_str()) {
            return Err(unknown_translator(name, &names));
        }
    }
    let resolver = trials::resolver_for(&project.root, tables.iter().filter_map(|(_, t, _)| t.as_ref()), &schema_fidelity::external::Config::from_env());
    let mut selected = Vec::new();
    for (name, table, errors) in &tables {
        if !wanted.is_empty() && !wanted.contains(name) {
            continue;
        }
        match (table, resolver(name)) {
            (Some(table), Some(translator)) => {
                if !errors.is_empty() {
                    eprintln!("note: dispositions/{name}.yaml has {} lint problem(s); `schema-fidelity lint` lists them", errors.len());
                }
                selected.push((table, translator));
            }
            (None, _) => eprintln!("note: skipping `{name}`: its table does not load (`schema-fidelity lint`)"),
            (_, None) => eprintln!("note: skipping `{name}`: no translator of that name is known"),
        }
    }
    let targets: Vec<check::Target<'_>> = selected.iter().map(|(table, translator)| check::Target { table, translator: translator.as_ref() }).collect();
    let report = check::check(&file, &schema, &targets, &candidates::candidate_instances, &Env::default(), &budgets)?;
    if json {
        let out = serde_json::to_string_pretty(&report).map_err(|e| format!("cannot serialize the result: {e}"))?;
        std::println!("{}", schema_fidelity::terminal::sanitize_json(&out));
    } else {
        print!("{}", check::render_text(&report));
    }
    Ok(!report.lossy)
}

fn lint(args: &[String]) -> Result<bool, String> {
    if let Some(extra) = args.first() {
        return Err(format!("lint: unexpected argument `{extra}`"));
    }
    let loaded = trials::load(project()?, &Selection::All);
    let budgets = budget::Budgets::from_env()?;
    let mut problems = 0;
    for (name, table, errors) in &loaded.tables {
        for e in errors {
            println!("{e}");
            problems += 1;
        }
        // What `run` would trip over: a grammar that does not compile, a `run:` program that
        // cannot start, a name the reports take.
        let runnable = match table {
            Some(table) => {
                let text = budget::read_text(&loaded.project.root.join(&table.file), &budgets).unwrap_or_default();
                table::lint_runnable(table, &text, &loaded.project.root, report::RESERVED_NAMES)
            }
            None if report::RESERVED_NAMES.contains(&name.as_str()) => {
                vec![table::TableError { file: format!("dispositions/{name}.yaml").into(), line: None, message: format!("`{name}` is a name the reports use for themselves; rename the translator") }]
            }
            None => Vec::new(),
        };
        for e in runnable {
            println!("{e}");
            problems += 1;
        }
    }
    for e in &loaded.corpus_errors {
        println!("{e}");
        problems += 1;
    }
    // What every trial of an own case checks first: the schema compiles, the instances have the
    // validity they claim.
    for case in loaded.cases.iter().filter(|c| c.origin == schema_fidelity::corpus::Origin::Own) {
        if let Err(e) = schema_fidelity::corpus::check_case(case, &loaded.env) {
            println!("{e}");
            problems += 1;
        }
    }
    println!("{} table(s), {} case(s), {problems} problem(s)", loaded.tables.len(), loaded.cases.len());
    Ok(problems == 0)
}

fn new_command(args: &[String]) -> Result<bool, String> {
    let [name] = args else {
        return Err("new needs one TRANSLATOR name: schema-fidelity new openai-strict".to_owned());
    };
    scaffold::check_name(name)?;
    let project = project()?;
    let path = project.dispositions_dir().join(format!("{name}.yaml"));
    let shown = project.relative(&path).display().to_string();
    if path.exists() {
        return Err(format!("{shown} already exists; `new` never overwrites a table (edit it, or remove it first)"));
    }
    std::fs::write(&path, scaffold::scaffold(name)).map_err(|e| format!("{shown}: cannot write: {e}"))?;
    println!("wrote {shown}: every row says `disposition: TODO`.");
    println!("Fill each in with what the translator really does; `schema-fidelity lint` lists the rows left.");
    println!("Then give the translator the name `{name}` (translators/src/builtin/) and run `schema-fidelity run -t {name}`.");
    if std::io::stdout().is_terminal() {
        println!("See CONTRACT.md, section 2, for the dispositions.");
    }
    Ok(true)
}
