//! `schema-fidelity`: run the fidelity contract and tell people what it found.
//!
//! ```text
//! schema-fidelity run [--translator NAME]... [--verbose]   run every table against the corpus, print a summary
//! schema-fidelity run ... [--junit FILE] [--format github]  also JUnit XML, GitHub annotations (for CI)
//! schema-fidelity report [--check]                         write (or compare) reports/: matrix, pages, report.json
//! schema-fidelity report --diff OLD.json [NEW.json]        what changed between two runs' report.json
//! schema-fidelity explain TRANSLATOR [KEYWORD] [--generate] one row in plain words, with cases and a witness
//! schema-fidelity check SCHEMA.json [...]                  what each translator does to a user's tool schema
//! schema-fidelity check --mcp 'COMMAND' [...]             the same for every tool an MCP server lists
//! schema-fidelity harvest [--server NAME]... [--check]     write corpus/mcp/ from the pinned MCP servers
//! schema-fidelity lint                                     check tables and corpus files, with file and line
//! schema-fidelity new TRANSLATOR                           scaffold a table with a TODO row per keyword
//! schema-fidelity init [--lang L] [--name N] [--target T]  scaffold a repository of one's own: config, table, adapter, CI
//! schema-fidelity completions SHELL                        a completion script for bash, zsh, fish, ...
//! ```
//!
//! The arguments are parsed by clap (derive); `--help` on any command gives its page, with the
//! exit statuses ([`EXIT_HELP`]).

// Everything this binary prints may carry text from outside (case names, schema keys, table
// notes, an adapter's stderr), so the printing macros are shadowed here by ones that pass the text
// through `terminal::sanitize`: an escape sequence is shown, never sent to the terminal. Output
// that must stay byte-exact (the JSON of `check --format json`) goes through `emit` with
// `terminal::sanitize_json` explicitly. Writing to a closed stdout (`| head`) ends the process
// quietly (`emit`), instead of the panic of `std::println!`.
macro_rules! println {
    () => { emit("\n") };
    ($($arg:tt)*) => { emit(&(schema_fidelity::terminal::sanitize(&format!($($arg)*)) + "\n")) };
}
macro_rules! print {
    ($($arg:tt)*) => { emit(&schema_fidelity::terminal::sanitize(&format!($($arg)*))) };
}
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{}", schema_fidelity::terminal::sanitize(&format!($($arg)*)));
    }};
}

use std::io::{IsTerminal, Write as _};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory as _, Parser, Subcommand, ValueEnum};
use schema_fidelity::diagnostic;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::settings::Settings;
use schema_fidelity::{budget, json};
use schema_fidelity::project::Project;
use schema_fidelity::report::{self, check, explain, scaffold};
use schema_fidelity::table;
use schema_fidelity::trials;
use schema_fidelity::validation::Env;

/// All is well.
const EXIT_OK: u8 = 0;
/// Findings: failing trials, lint problems, stale reports, a violation or a silent keyword in
/// `check`, a translator that could not be run.
const EXIT_FINDINGS: u8 = 1;
/// Usage and input errors (clap's own usage errors exit 2 as well).
const EXIT_USAGE: u8 = 2;
/// `check` only: every finding is a loss the tables declare (an approximation, a refusal).
const EXIT_DECLARED_LOSS: u8 = 3;
/// Stdout was closed before the output was written (`| head`): what a shell reports for a program
/// a SIGPIPE ended (128 + 13), without the signal or a panic.
const EXIT_CLOSED_PIPE: i32 = 141;

/// Write `text` to stdout; a closed stdout ends the process quietly.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(EXIT_CLOSED_PIPE);
        }
        let _ = writeln!(std::io::stderr(), "error: cannot write to stdout: {e}");
        std::process::exit(i32::from(EXIT_USAGE));
    }
}

#[derive(Parser)]
#[command(
    name = "schema-fidelity",
    version,
    about = "Check what LLM tool-schema translators do to each JSON Schema keyword, against their disposition tables",
    long_about = "Check what LLM tool-schema translators (OpenAI strict, Gemini, Anthropic, ...) do to each JSON \
                  Schema keyword, against a disposition table per translator (dispositions/).",
    after_help = "`schema-fidelity help COMMAND` (or COMMAND --help) shows a command's page; --help shows the exit statuses.\n\
                  Exit status: 0 all well, 1 findings, 2 usage and input errors, 3 `check` with declared losses only.",
    after_long_help = EXIT_HELP,
    arg_required_else_help = true,
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Ask the adapters for every schema and judge every trial: neither read nor write what is
    /// kept in target/schema-fidelity (also SCHEMA_FIDELITY_NO_CACHE=1)
    #[arg(long, global = true)]
    no_cache: bool,
    /// Never set up an external translator's environment (a Python venv, node_modules): one that
    /// is missing leaves its translators unavailable (also SCHEMA_FIDELITY_NO_INSTALL=1)
    #[arg(long, global = true)]
    no_install: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run the contract (every table against the corpus) and print a summary per translator
    #[command(
        long_about = "Run the contract: every table against the corpus (the own cases and the JSON-Schema-Test-Suite), \
                      and print a summary per translator, with a legend of its columns and a total line, then every failure.\n\n\
                      An external translator that is not installed here is listed as unavailable, with its install command; \
                      its contract was not run, so the exit status is 1 (select the others with --translator).",
        after_long_help = EXIT_HELP
    )]
    Run {
        /// Run only this translator (repeatable)
        #[arg(short, long = "translator", value_name = "NAME")]
        translators: Vec<String>,
        /// Also list the skipped cases, each with its reason
        #[arg(short, long)]
        verbose: bool,
        /// Also print the witness coverage of the own corpus: per keyword, the cases that use it and
        /// the trials with a witness pinned on it in each direction, then the keywords with none
        #[arg(long)]
        coverage: bool,
        /// Also write the results as JUnit XML to FILE, one test case per trial (for CI; written
        /// whole or not at all, anywhere the directory exists)
        #[arg(long, value_name = "FILE")]
        junit: Option<std::path::PathBuf>,
        /// `github`: after the summary, GitHub Actions annotations, each failure at its table line
        #[arg(long, value_enum, default_value_t = RunFormat::Text)]
        format: RunFormat,
    },
    /// Write reports/ (matrix.md, index.html, a page per translator, report.json), or compare it
    #[command(
        long_about = "Write reports/: the matrix (matrix.md, index.html), one page per translator and report.json. \
                      The new set is written beside reports/ and swapped in by renames.\n\n\
                      --check only compares and shows the diff (exit 1 when reports/ is not current).\n\n\
                      --diff OLD.json [NEW.json] says what changed between two runs (NEW: reports/report.json): \
                      translators added or upgraded, dispositions, marks added or fixed, cases that started or stopped \
                      failing. OLD of another revision: git show REV:reports/report.json > /tmp/old.json\n\n\
                      A translator unavailable here (not installed) is not run: its committed page and report.json \
                      entry are kept as they are.",
        after_long_help = EXIT_HELP
    )]
    Report {
        /// Only compare reports/ with what would be written, and show the diff
        #[arg(long, conflicts_with = "diff")]
        check: bool,
        /// What changed between two runs' report.json (NEW defaults to reports/report.json)
        #[arg(long, num_args = 1..=2, value_names = ["OLD.json", "NEW.json"])]
        diff: Option<Vec<String>>,
    },
    /// What a row means: table line, plain words, the cases that use it and a witness
    #[command(
        long_about = "What a row means: its table line, plain words, the cases that use it and a witness for an \
                      approximation. Also takes the citation form TRANSLATOR/KEYWORD[:REFINEMENT] and a report \
                      anchor (anyof-at-root); without KEYWORD, every row of the table.",
        after_long_help = EXIT_HELP
    )]
    Explain {
        /// A translator, or a citation TRANSLATOR/KEYWORD[:REFINEMENT]
        #[arg(value_name = "TRANSLATOR")]
        translator: String,
        /// A keyword (`anyOf`, `$ref:uri`) or a report anchor (`anyof-at-root`)
        #[arg(value_name = "KEYWORD")]
        keyword: Option<String>,
        /// When the run recorded no witness for the row, draw instances on the cases that use it
        /// (runs the translator and the oracle; without it, explain reads the run's records only)
        #[arg(long)]
        generate: bool,
    },
    /// What each translator does to your tool schema: refused, exact, widened or narrowed, or no row
    #[command(
        long_about = "What each translator does to your tool schema: refused (which keyword, where, why), exact, \
                      widened or narrowed (the rows responsible, and a witness when a generated instance shows it), \
                      a keyword with no row (never silent), or a violation of its own table. Each translator gets the \
                      projection it judged and what you can do about it. An external translator that is not installed \
                      here is unavailable, with its install command.\n\n\
                      With --mcp COMMAND in place of <SCHEMA.json>: start the MCP server COMMAND (one string, split on \
                      whitespace), list its tools over stdio and stop it (its process tree reaped), then check every \
                      tool's input schema the same way, as a table with a row per tool and a column per translator. A \
                      server that does not answer within SCHEMA_FIDELITY_MCP_TIMEOUT_MS (default 30000) is an error.",
        after_long_help = EXIT_HELP
    )]
    Check {
        /// The tool schema (JSON, draft 2020-12)
        #[arg(value_name = "SCHEMA.json", required_unless_present = "mcp")]
        schema: Option<String>,
        /// Check every tool of an MCP server instead: start COMMAND (one string, split on
        /// whitespace) in this directory with this environment, list its tools over stdio, stop it
        #[arg(long, value_name = "COMMAND", conflicts_with = "schema")]
        mcp: Option<String>,
        /// Check only this translator (repeatable)
        #[arg(short, long = "translator", value_name = "NAME")]
        translators: Vec<String>,
        /// Output format
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Write corpus/mcp/ from the MCP servers pinned in corpus/mcp/servers.yaml
    #[command(
        long_about = "Write corpus/mcp/SERVER.json for each MCP server pinned in corpus/mcp/servers.yaml: start it \
                      (installed at its pinned version, with no network and no credentials), list its tools, and keep \
                      each tool's input schema with its provenance, free text (description, title, $comment, examples) \
                      replaced by placeholders. A file whose content would not change is not written; without --server, \
                      files of servers no longer pinned are removed.\n\n\
                      --check only compares with the committed files (exit 1 when one differs).\n\n\
                      Install the servers first: npm ci --prefix translators/external/mcp-servers --ignore-scripts, and for the PyPI ones \
                      python3 -m venv translators/external/mcp-servers/.venv && \
                      translators/external/mcp-servers/.venv/bin/pip install -r translators/external/mcp-servers/requirements.txt",
        after_long_help = EXIT_HELP
    )]
    Harvest {
        /// Harvest only this server (repeatable)
        #[arg(long = "server", value_name = "NAME")]
        servers: Vec<String>,
        /// Only compare with the committed files
        #[arg(long)]
        check: bool,
    },
    /// Check the tables and the corpus files, with file and line (what the `lint` trials check, and more)
    #[command(
        long_about = "Check the tables and the corpus files, with file and line: everything the `TRANSLATOR::lint` \
                      trials of `cargo test` reject (a table that does not load, a row left `TODO`, a translator that \
                      does not exist), and what `run` would trip over later (a grammar that does not compile, a `run:` \
                      program that is missing, a name the reports use, an own case whose instances lie), and each line `init` left \
                      marked TODO(schema-fidelity) in schema-fidelity.toml, an adapter or the workflow. Every problem \
                      of every file is listed before the exit status says 1.",
        after_long_help = EXIT_HELP
    )]
    Lint,
    /// Scaffold dispositions/TRANSLATOR.yaml: a TODO row for every keyword, and run:/install:/target:
    #[command(
        long_about = "Scaffold dispositions/TRANSLATOR.yaml: a `disposition: TODO` row for every keyword, and \
                      `target:`, `run:` and `install:` placeholders, all of which the lint rejects until they are \
                      filled in. Never overwrites a table.",
        after_long_help = EXIT_HELP
    )]
    New {
        /// The translator's name: lower-case letters, digits and `-`
        #[arg(value_name = "TRANSLATOR")]
        name: String,
    },
    /// Scaffold a repository of your own: schema-fidelity.toml, a table, an adapter and a CI workflow
    #[command(
        long_about = "Scaffold what a repository of your own needs to check its translator, in the current folder (its \
                      root): schema-fidelity.toml (marks the project root), dispositions/NAME.yaml (a `disposition: TODO` \
                      row for every keyword, and `run:` starting the adapter), adapters/NAME.py or adapters/NAME.mjs (speaks \
                      the protocol with the standard library only and calls a translate() for you to fill in; until then it \
                      answers `unavailable`, saying so) and .github/workflows/schema-fidelity.yml (runs the contract in CI). \
                      `lint` rejects them until every TODO is filled in. Never overwrites a file: one that exists is an \
                      error naming it, and nothing is written.",
        after_long_help = EXIT_HELP
    )]
    Init {
        /// The adapter's language (default: node where the folder has a package.json and no Python
        /// project file, else python)
        #[arg(long, value_enum)]
        lang: Option<schema_fidelity::commands::init::Lang>,
        /// The translator's name: lower-case letters, digits and `-` (default: made from the
        /// folder's name)
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// The provider surface its projections are sent to (default: TODO, which the lint
        /// rejects, listing the targets)
        #[arg(long, value_name = "TARGET")]
        target: Option<String>,
    },
    /// Print a completion script for SHELL (bash, zsh, fish, elvish, powershell)
    #[command(
        long_about = "Print a completion script for SHELL, e.g. `schema-fidelity completions bash > ~/.local/share/bash-completion/completions/schema-fidelity`.",
        after_long_help = EXIT_HELP
    )]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The exit statuses and the environment, as every command's long help ends.
const EXIT_HELP: &str = concat!(
    "Exit status:\n",
    "  0    all is well\n",
    "  1    findings: failing trials, lint problems, reports that are not current, a violation or a\n",
    "       keyword with no row in `check`, a translator that is unavailable here (not installed)\n",
    "  2    usage and input errors: a wrong option or argument, an unreadable or invalid file, an\n",
    "       unknown translator or keyword\n",
    "  3    `check` only: the only findings are losses the tables declare (a widening or narrowing\n",
    "       approximation, a refusal); 1 wins when there is anything else\n",
    "  141  stdout was closed early (`| head`): the output stops quietly\n",
    "\n",
    "The project is found from the current directory upwards: the nearest folder holding a\n",
    "schema-fidelity.toml (`init` writes one; the corpus and targets built in stand in for what it does\n",
    "not name), or dispositions/ and corpus/. The JSON-Schema-Test-Suite is read from\n",
    "$SCHEMA_FIDELITY_JSTS, or `suite =` in schema-fidelity.toml; without it its trials are skipped.\n",
    "External translators' answers and every trial's record are kept in target/schema-fidelity while\n",
    "their inputs are unchanged; --no-cache (or SCHEMA_FIDELITY_NO_CACHE=1) asks and judges every time.\n",
    "An external translator's environment (`environment:` in its table) is set up on first use by `run`,\n",
    "`check`, `explain` and `report`, its log in target/schema-fidelity/setup; --no-install (or\n",
    "SCHEMA_FIDELITY_NO_INSTALL=1) never sets one up.\n",
    "Every SCHEMA_FIDELITY_* variable is checked before a command runs: a value it cannot take (a budget\n",
    "that is not a whole number up to its ceiling) is a usage error naming it; `report` writes nothing\n",
    "while a budget or witness setting differs from its default.\n",
    "Progress is shown on stderr when it is a terminal; help is coloured only on a terminal without NO_COLOR."
);

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// What `run` prints besides its summary.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RunFormat {
    /// The summary and the failures
    Text,
    /// The same, then GitHub Actions workflow commands: `::error` per failure and lint error,
    /// `::notice` per known violation
    Github,
}

/// The translators whose runtime or package is missing here, as one sentence, if any.
fn unavailable_translators(loaded: &session::Loaded, resolver: &session::Resolver) -> Option<String> {
    let missing: Vec<String> = loaded
        .tables
        .iter()
        .filter_map(|(name, _, _)| resolver(name).and_then(|t| t.unavailable()).map(|why| format!("{name} ({why})")))
        .collect();
    (!missing.is_empty()).then(|| format!("unavailable translators: {}", missing.join("; ")))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version exit 0, usage errors 2; a closed stdout is not worth a message.
            let code = e.exit_code();
            let _ = e.print();
            return ExitCode::from(u8::try_from(code).unwrap_or(EXIT_USAGE));
        }
    };
    // Every setting, for every command, before anything runs: a variable the harness cannot use
    // is a usage error naming it, never a default taken in its place.
    let mut settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(problems) => {
            eprintln!("error: {}", problems.replace('\n', "\nerror: "));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if cli.no_cache {
        settings.adapters.cache = false;
    }
    if cli.no_install {
        settings.adapters.install = false;
    }
    for note in settings.notes() {
        eprintln!("note: {note}");
    }
    budget::install(settings.budgets.clone());
    report::install_test_pause(settings.test_pause.clone());
    let result = match cli.command {
        Command::Run { translators, verbose, coverage, junit, format } => run(&translators, verbose, coverage, junit.as_deref(), format == RunFormat::Github, &settings),
        Command::Report { check, diff } => match diff.as_deref() {
            Some([old]) => report_diff(old, None, &settings),
            Some([old, new]) => report_diff(old, Some(new), &settings),
            _ => report_command(check, &settings),
        },
        Command::Explain { translator, keyword, generate } => explain_command(translator, keyword, generate, &settings),
        Command::Check { schema, mcp, translators, format } => match mcp {
            Some(command) => mcp_check_command(&command, &translators, format == Format::Json, &settings),
            None => check_command(&schema.unwrap_or_default(), &translators, format == Format::Json, &settings),
        },
        Command::Harvest { servers, check } => harvest_command(servers, check, &settings),
        Command::Lint => lint(&settings),
        Command::New { name } => new_command(&name),
        Command::Init { lang, name, target } => schema_fidelity::commands::init::command(lang, name.as_deref(), target.as_deref()).map(|summary| { print!("{summary}"); EXIT_OK }),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "schema-fidelity", &mut script);
            emit(&String::from_utf8_lossy(&script));
            Ok(EXIT_OK)
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// [`EXIT_OK`] when `ok`, else [`EXIT_FINDINGS`].
fn status(ok: bool) -> u8 {
    if ok { EXIT_OK } else { EXIT_FINDINGS }
}

/// Tables and corpus, with the records of an earlier run read back unless the caches are off
/// (`--no-cache`).
fn load(settings: &Settings) -> Result<session::Loaded, String> {
    let mut loaded = session::load(project()?, &Selection::All);
    if !settings.adapters.cache {
        loaded.records = schema_fidelity::records::Records::default();
    }
    Ok(loaded)
}

fn project() -> Result<Project, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    Project::discover(&cwd)
}

/// An error for a translator name no table has, suggesting the nearest.
fn unknown_translator(name: &str, known: &[&str]) -> String {
    let mut message = format!("no table named `{name}` (dispositions/{name}.yaml)");
    match diagnostic::nearest(name, known.iter().copied()) {
        Some(near) => message.push_str(&format!("; did you mean `{near}`?")),
        None => message.push_str(&format!("; tables: {}", known.join(", "))),
    }
    message
}

/// An error when a `--translator` name names no table.
fn check_wanted(wanted: &[String], names: &[&str]) -> Result<(), String> {
    match wanted.iter().find(|name| !names.contains(&name.as_str())) {
        Some(name) => Err(unknown_translator(name, names)),
        None => Ok(()),
    }
}

const RUN_LEGEND: &str = "\
columns: compared  cases whose instances were compared: the projection agreed with the table
         refused   cases the translator refused where its table says it refuses (a pass: nothing to compare)
         failed    cases where the translator breaks its table (each is listed below)
         known     cases that reproduce a known violation the table marks, with its issue (not a failure)
         skipped   cases not run here (e.g. a suite case the validator gets wrong); --verbose lists them
         crashed   of the failed and known, the cases where the translator threw (a crash, not a refusal)";

fn run(wanted: &[String], verbose: bool, coverage: bool, junit: Option<&std::path::Path>, github: bool, settings: &Settings) -> Result<u8, String> {
    let loaded = Arc::new(load(settings)?);
    let resolver = session::resolver(&loaded, &settings.adapters);
    let names: Vec<&str> = loaded.tables.iter().map(|(t, _, _)| t.as_str()).collect();
    check_wanted(wanted, &names)?;
    let mut ok = true;
    for e in &loaded.corpus_errors {
        println!("corpus error: {e}");
        ok = false;
    }
    if let Err(reason) = &loaded.project.suite {
        println!("note: JSON-Schema-Test-Suite trials skipped: {reason}");
    }
    let selected: Vec<_> = loaded.tables.iter().filter(|(name, _, _)| wanted.is_empty() || wanted.contains(name)).collect();
    // Columns as wide as the longest name: a long translator name must not push its row askew.
    let width = selected.iter().map(|(name, _, _)| name.chars().count()).max().unwrap_or(0).max("translator".len());
    let progress = report::progress::Progress::on_terminal("running the contract: tables done", selected.len());
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    let mut unavailable: Vec<(&str, String)> = Vec::new();
    let mut skipped_cases = Vec::new();
    let mut total = [0usize; 6];
    let mut ci_suites = Vec::new();
    // The oracle runs on every thread first (the records are kept); the loop below reads them in
    // the tables' order.
    let runnable: Vec<(&table::Table, Arc<dyn schema_fidelity_translators::Translator>)> = selected
        .iter()
        .filter_map(|(name, table, _)| Some((table.as_deref()?, resolver(name)?)))
        .filter(|(_, translator)| translator.unavailable().is_none())
        .collect();
    let pairs: Vec<(&table::Table, &dyn schema_fidelity_translators::Translator)> = runnable.iter().map(|(table, translator)| (*table, translator.as_ref())).collect();
    let _ = loaded.records.of_translators(&pairs, &loaded.cases, &loaded.env, &|| {});
    for (name, table, errors) in selected {
        for e in errors {
            failures.push(format!("{name}::lint\n{e}"));
        }
        let table_file = table.as_ref().map_or_else(|| std::path::PathBuf::from(format!("dispositions/{name}.yaml")), |t| t.file.clone());
        let suite = |ran| report::ci::Suite { translator: name, table_file: table_file.clone(), lint: errors, ran };
        let (Some(table), Some(translator)) = (table, resolver(name)) else {
            failures.push(format!("{name}: no translator or no table to run"));
            ci_suites.push(suite(report::ci::Ran::NotRun("no translator or no table to run".to_owned())));
            progress.tick();
            continue;
        };
        if let Some(reason) = translator.unavailable() {
            lines.push(format!("{name:<width$} unavailable: {reason}"));
            ci_suites.push(suite(report::ci::Ran::Unavailable(reason.clone())));
            unavailable.push((name.as_str(), reason));
            progress.tick();
            continue;
        }
        let records = loaded.records.of_translator(table, translator.as_ref(), &loaded.cases, &loaded.env, &|| {});
        let t = trials::tally(&records);
        ci_suites.push(suite(report::ci::Ran::Trials { table, records }));
        progress.tick();
        let counts = [t.passed - t.refused, t.refused, t.failed.len(), t.expected.len(), t.skipped, t.crashed];
        for (sum, n) in total.iter_mut().zip(counts) {
            *sum += n;
        }
        lines.push(format!(
            "{name:<width$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  {}",
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            counts[4],
            counts[5],
            table.file.display()
        ));
        for (case, message) in t.failed {
            failures.push(format!("{name}::{case}\n{message}"));
        }
        skipped_cases.extend(t.skipped_cases.into_iter().map(|(case, reason)| format!("{name}::{case}: {reason}")));
    }
    progress.finish();
    println!("{RUN_LEGEND}\n");
    println!("{:<width$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  table", "translator", "compared", "refused", "failed", "known", "skipped", "crashed");
    for line in lines {
        println!("{line}");
    }
    println!(
        "{:<width$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  ({} cases per translator)",
        "total",
        total[0],
        total[1],
        total[2],
        total[3],
        total[4],
        total[5],
        loaded.cases.len()
    );
    if verbose {
        if skipped_cases.is_empty() {
            println!("\nno case was skipped");
        } else {
            println!("\n{} skipped case(s):", skipped_cases.len());
            for s in &skipped_cases {
                println!("  {s}");
            }
        }
    } else if total[4] > 0 {
        println!("\n{} case(s) skipped: `run --verbose` lists them with their reasons", total[4]);
    }
    let read_back = loaded.records.read_back();
    if read_back > 0 {
        eprintln!(
            "note: {read_back} of {} trials read back from an earlier run with the same inputs (target/schema-fidelity/records); --no-cache judges every one",
            read_back + loaded.records.made()
        );
    }
    if !failures.is_empty() {
        ok = false;
        println!("\n{} failure(s):", failures.len());
        for f in &failures {
            println!("\n--- {f}");
        }
    }
    // The contract was not run for these: not a success, even if all else passed, and not a
    // failure of theirs either. (`cargo test` reports their trials as skipped instead;
    // `--translator` selects the ones that can run.)
    if !unavailable.is_empty() {
        ok = false;
        let names: Vec<&str> = unavailable.iter().map(|(n, _)| *n).collect();
        println!("\n{} translator(s) unavailable here, so their contract was not run: {}", unavailable.len(), names.join(", "));
    }
    if coverage {
        println!("\n{}", report::coverage::render(&report::coverage::coverage(&loaded.records.all())));
    }
    if github {
        print!("{}", report::ci::github_annotations(&ci_suites));
    }
    if let Some(file) = junit {
        let xml = report::ci::junit(&ci_suites).map_err(|e| format!("cannot make the JUnit document: {e}"))?;
        let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
        report::ci::write_junit(&loaded.project.root, &cwd, file, &xml)?;
    }
    Ok(status(ok))
}

fn report_command(check_only: bool, settings: &Settings) -> Result<u8, String> {
    // Refused before anything runs: reports made with other settings would say other things.
    let departure = settings.departure();
    if let Some(set) = &departure
        && !check_only
    {
        return Err(format!("{set}: the committed reports are made with the default settings; unset these to write reports/"));
    }
    let loaded = load(settings)?;
    let resolver = session::resolver(&loaded, &settings.adapters);
    if let Some(reason) = unavailable_translators(&loaded, &resolver) {
        eprintln!("note: {reason}\nnote: their committed pages and report.json entries are kept as they are; set them up (README, \"External translators\") to regenerate those");
    }
    let generated = report::generate(&loaded, &resolver, true)?;
    let project = &loaded.project;
    if let Err(reason) = &project.suite {
        eprintln!("note: {reason}\nnote: without the suite, the case counts and witnesses cover the own corpus only");
    }
    if check_only {
        if let Some(note) = report::interrupted(project) {
            eprintln!("note: {note}");
        }
        let tables_only = project.suite.is_err() || departure.is_some();
        if let Some(settings) = &departure {
            eprintln!("note: comparing the reports that depend on the tables alone ({settings} changes what the others hold)");
        } else if tables_only {
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
        return Ok(status(diffs.is_empty()));
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
    Ok(EXIT_OK)
}

/// `report --diff OLD [NEW]`: compare two runs' report.json, without running anything.
fn report_diff(old: &str, new: Option<&String>, settings: &Settings) -> Result<u8, String> {
    let read = |path: &std::path::Path| -> Result<serde_json::Value, String> {
        let text = budget::read_report(path, &settings.budgets).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a report.json: {e}", path.display()))
    };
    let new_path = match new {
        Some(p) => std::path::PathBuf::from(p),
        None => project()?.root.join(report::REPORTS_DIR).join("report.json"),
    };
    let (o, n) = (read(std::path::Path::new(old))?, read(&new_path)?);
    let changes = report::compare::compare(&o, &n);
    print!("{}", report::compare::render(old, &new_path.display().to_string(), &changes));
    Ok(EXIT_OK)
}

fn explain_command(translator: String, keyword: Option<String>, generate: bool, settings: &Settings) -> Result<u8, String> {
    let query = explain::parse_query(&[Some(translator), keyword].into_iter().flatten().collect::<Vec<_>>())?;
    let loaded = load(settings)?;
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
        return Ok(EXIT_OK);
    };
    let rows = explain::find_rows(table, key, query.refinement.as_deref())?;
    let translator = session::resolver(&loaded, &settings.adapters)(&query.translator);
    if let Some(reason) = translator.as_deref().and_then(|t| t.unavailable()) {
        eprintln!("note: `{}` is unavailable here, so its cases are not run: {reason}", query.translator);
    }
    let witnesses = if generate { explain::Witnesses::Generate } else { explain::Witnesses::Recorded };
    let text = explain::explain(table, &rows, translator.as_deref(), &loaded.cases, &loaded.records, &loaded.env, witnesses, true);
    print!("{text}");
    Ok(EXIT_OK)
}

/// The tables `check` runs, each with its translator.
type CheckTargets = Vec<(table::Table, Arc<dyn schema_fidelity_translators::Translator>)>;

/// The tables and translators `check` runs: every one, or those `wanted`.
fn check_targets(wanted: &[String], settings: &Settings) -> Result<CheckTargets, String> {
    let project = project()?;
    let tables = check::load_tables(&project);
    let names: Vec<&str> = tables.iter().map(|(n, _, _)| n.as_str()).collect();
    check_wanted(wanted, &names)?;
    let resolver = session::resolver_for(&project.root, tables.iter().filter_map(|(_, t, _)| t.as_ref()), &settings.adapters);
    let mut selected = Vec::new();
    for (name, table, errors) in tables {
        if !wanted.is_empty() && !wanted.contains(&name) {
            continue;
        }
        match (table, resolver(&name)) {
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
    Ok(selected)
}

fn check_command(file: &str, wanted: &[String], json: bool, settings: &Settings) -> Result<u8, String> {
    let budgets = &settings.budgets;
    let text = budget::read_text(std::path::Path::new(&file), budgets).map_err(|e| format!("{file}: {e}"))?;
    let schema = json::parse(&text).map_err(|e| format!("{file}:{e}"))?;

    let selected = check_targets(wanted, settings)?;
    let targets: Vec<check::Target<'_>> = selected.iter().map(|(table, translator)| check::Target { table, translator: translator.as_ref() }).collect();
    let report = check::check(file, &schema, &targets, &Env::default(), budgets)?;
    if json {
        let out = serde_json::to_string_pretty(&report).map_err(|e| format!("cannot serialize the result: {e}"))?;
        emit(&(schema_fidelity::terminal::sanitize_json(&out) + "\n"));
    } else {
        print!("{}", check::render_text(&report));
    }
    Ok(match report.outcome() {
        check::CheckOutcome::Clean => EXIT_OK,
        check::CheckOutcome::DeclaredLosses => EXIT_DECLARED_LOSS,
        check::CheckOutcome::Findings => EXIT_FINDINGS,
    })
}

/// `check --mcp COMMAND`: every tool the server lists, against every translator (or `wanted`).
fn mcp_check_command(command: &str, wanted: &[String], json: bool, settings: &Settings) -> Result<u8, String> {
    use schema_fidelity::mcp;
    let argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    if argv.is_empty() {
        return Err("--mcp needs a command to start the server".to_owned());
    }
    let selected = check_targets(wanted, settings)?;
    let targets: Vec<check::Target<'_>> = selected.iter().map(|(table, translator)| check::Target { table, translator: translator.as_ref() }).collect();
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let launch = mcp::client::Launch { command: &argv, cwd: &cwd, env: None, timeout: settings.mcp_timeout };
    let progress = std::sync::OnceLock::new();
    let tick = |total: usize| progress.get_or_init(|| report::progress::Progress::on_terminal("checking tools", total)).tick();
    let result = mcp::check::check_server(&launch, &targets, &Env::default(), &settings.budgets, &tick).map_err(|e| e.to_string());
    if let Some(p) = progress.get() {
        p.finish();
    }
    let result = result?;
    if json {
        let out = serde_json::to_string_pretty(&result).map_err(|e| format!("cannot serialize the result: {e}"))?;
        emit(&(schema_fidelity::terminal::sanitize_json(&out) + "\n"));
    } else {
        print!("{}", mcp::check::render_text(&result));
    }
    Ok(match result.outcome() {
        check::CheckOutcome::Clean => EXIT_OK,
        check::CheckOutcome::DeclaredLosses => EXIT_DECLARED_LOSS,
        check::CheckOutcome::Findings => EXIT_FINDINGS,
    })
}

/// `harvest`: corpus/mcp/ from the pinned MCP servers.
fn harvest_command(servers: Vec<String>, check_only: bool, settings: &Settings) -> Result<u8, String> {
    use schema_fidelity::mcp::harvest::{self, Outcome};
    let project = project()?;
    let options = harvest::Options { servers, check: check_only, timeout: settings.mcp_timeout };
    let mut ok = true;
    let stale = harvest::harvest(&project.root, &options, &mut |name, outcome| {
        let said = match outcome {
            Outcome::Unchanged { tools, cases } => format!("{tools} tools, {cases} cases: unchanged"),
            Outcome::Written { tools, cases } => format!("{tools} tools, {cases} cases: written"),
            Outcome::Differs { tools, cases } => format!("{tools} tools, {cases} cases: differs from the committed file"),
            Outcome::Failed(why) => format!("failed: {why}"),
        };
        ok &= matches!(outcome, Outcome::Unchanged { .. } | Outcome::Written { .. });
        println!("{name}: {said}");
    })?;
    for file in &stale {
        ok &= !check_only;
        println!("{file}: no server of the manifest writes it{}", if check_only { "" } else { ": removed" });
    }
    Ok(status(ok))
}

fn lint(settings: &Settings) -> Result<u8, String> {
    let loaded = load(settings)?;
    let budgets = &settings.budgets;
    // What the `TRANSLATOR::lint` trials of `cargo test` reject, first: the table's own findings
    // and a translator no one provides. Every file is read; a file that does not parse is one
    // problem (its line), and the other files are still checked.
    let resolver = session::resolver(&loaded, &settings.adapters);
    let mut problems = 0;
    for (name, table, errors) in &loaded.tables {
        for e in errors {
            println!("{e}");
            problems += 1;
        }
        if resolver(name).is_none() {
            println!("{}", trials::no_translator_message(name));
            problems += 1;
        }
        // What `run` would trip over: a grammar that does not compile, a `run:` program that
        // cannot start, a name the reports take.
        let runnable = match table {
            Some(table) => {
                let text = budget::read_text(&loaded.project.root.join(&table.file), budgets).unwrap_or_default();
                table::lint_runnable(table, &text, &loaded.project.root, report::RESERVED_NAMES)
            }
            None if report::RESERVED_NAMES.contains(&name.as_str()) => {
                vec![diagnostic::TableError { file: format!("dispositions/{name}.yaml").into(), line: None, message: format!("`{name}` is a name the reports use for themselves; rename the translator") }]
            }
            None => Vec::new(),
        };
        for e in runnable {
            println!("{e}");
            problems += 1;
        }
    }
    // What `init` left to fill in: its marker in the config, the adapters `run:` names, the workflow.
    for e in schema_fidelity::commands::init::leftover_markers(&loaded.project.root, loaded.tables.iter().filter_map(|(_, table, _)| table.as_deref())) {
        println!("{e}");
        problems += 1;
    }
    for e in &loaded.corpus_errors {
        println!("{e}");
        problems += 1;
    }
    // The pins of the harvested MCP servers (their files are corpus files, checked above).
    for e in schema_fidelity::mcp::manifest::lint(&loaded.project.root) {
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
    Ok(status(problems == 0))
}

fn new_command(name: &str) -> Result<u8, String> {
    scaffold::check_name(name)?;
    let project = project()?;
    let path = project.dispositions_dir().join(format!("{name}.yaml"));
    let shown = project.relative(&path).display().to_string();
    let exists = || format!("{shown} already exists; `new` never overwrites a table (edit it, or remove it first)");
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(exists());
    }
    let dir = project.dispositions_dir();
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!("{}: is a symbolic link; `new` writes only into a real dispositions/ directory of the project", project.relative(&dir).display()));
    }
    // Whole or not at all: written beside it, then linked into place, which never replaces a
    // file (nor follows a link) that appeared meanwhile.
    let temp = dir.join(format!(".{name}.yaml.schema-fidelity-{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| f.write_all(scaffold::scaffold(name).as_bytes()).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::hard_link(&temp, &path));
    let _ = std::fs::remove_file(&temp);
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && std::fs::symlink_metadata(&path).is_ok() => return Err(exists()),
        Err(e) => return Err(format!("{shown}: cannot write: {e}")),
    }
    println!("wrote {shown}: every row says `disposition: TODO`, and so do `description:`, `source:`, `run:` and `install:`.");
    println!("Fill each in with what the translator really does; `schema-fidelity lint` lists what is left.");
    println!("An external translator: write its adapter and point `run:` at it (README, \"Onboarding a translator\").");
    println!("A built-in one: delete `run:` and `install:` and name it `{name}` in translators/src/builtin/.");
    println!("Then `schema-fidelity run -t {name}`, and `schema-fidelity report` to regenerate reports/ before committing.");
    if std::io::stdout().is_terminal() {
        println!("See CONTRACT.md, section 2, for the dispositions.");
    }
    Ok(EXIT_OK)
}
