//! The command line, callable in process: [`run`] parses the arguments, reads every setting from
//! the environment it is given and runs the command, writing to the streams it is given. The
//! binary (`main.rs`) is a shell around it that hands it the process's own arguments, folder,
//! environment and stdout/stderr; the tests call it directly, so that a command costs what it
//! does and not a process start.
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
//! exit statuses (`EXIT_HELP`).
//!
//! **What stays with the process.** Two settings are settled once per process because the
//! library's file readers and `report`'s write read them from anywhere: the budgets
//! ([`budget::current`]) and `report`'s test pause. [`run`] installs the ones its environment
//! gives; when the process has already settled others (a test process that ran one command with
//! `SCHEMA_FIDELITY_MAX_*` set and then one without), it refuses with a usage error rather than
//! run under budgets its environment does not name. Such a command runs as a process of its own,
//! as does what only a process shows: the exit on a closed stdout, colour on a terminal, a killed
//! process tree.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use clap::{CommandFactory as _, Parser, Subcommand, ValueEnum};

use crate::budget;
use crate::commands::{self, Cx, Io, Stop};
/// The exit statuses, defined with the commands that return them.
pub use crate::commands::{EXIT_CLOSED_PIPE, EXIT_DECLARED_LOSS, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use crate::report;
use crate::settings::Settings;

/// One command line to run: what a process would have, given explicitly.
pub struct Invocation<'a> {
    /// The current folder: where the project is looked for, and what relative paths are read from.
    pub cwd: PathBuf,
    /// The environment, as (name, value) pairs: every `SCHEMA_FIDELITY_*` setting is read from
    /// here ([`Settings::from_vars`]), and `NO_COLOR` and `TERM` for help. `check --mcp` starts its
    /// server with this environment, whole. The other processes a command starts (adapters, an
    /// environment's setup) inherit the process's own, as they do when the binary runs: in
    /// process, their `PATH` and the like are the caller's.
    pub vars: Vec<(String, String)>,
    /// Where the output goes.
    pub out: &'a mut dyn Write,
    /// Where notes and errors go.
    pub err: &'a mut dyn Write,
    /// Whether `out` is a terminal (help is coloured there, `new` says a little more).
    pub out_terminal: bool,
    /// Whether `err` is a terminal (progress is drawn there, usage errors are coloured).
    pub err_terminal: bool,
}

impl<'a> Invocation<'a> {
    /// An invocation in `cwd` with `vars`, writing into `out` and `err`, neither a terminal.
    pub fn new(cwd: impl Into<PathBuf>, vars: Vec<(String, String)>, out: &'a mut dyn Write, err: &'a mut dyn Write) -> Self {
        Self { cwd: cwd.into(), vars, out, err, out_terminal: false, err_terminal: false }
    }
}

/// Whether clap's styles are written to a stream: a terminal, unless `NO_COLOR` is set or the
/// terminal is dumb (what clap decides for a process's own streams).
fn styled(vars: &[(String, String)], terminal: bool) -> bool {
    let var = |name: &str| vars.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    terminal && var("NO_COLOR").is_none_or(str::is_empty) && var("TERM") != Some("dumb")
}

/// Run one command line (`args`, the program's name first) as `invocation` says, and give its
/// exit status.
pub fn run<I, T>(args: I, invocation: Invocation<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let Invocation { cwd, vars, out, err, out_terminal, err_terminal } = invocation;
    let (style_out, style_err) = (styled(&vars, out_terminal), styled(&vars, err_terminal));
    let mut io = Io::new(out, err);
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version exit 0 on stdout; usage errors 2 on stderr.
            let code = u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE);
            let rendered = e.render();
            if e.use_stderr() {
                io.err(&if style_err { rendered.ansi().to_string() } else { rendered.to_string() });
            } else if let Err(Stop::ClosedPipe) = io.out(&if style_out { rendered.ansi().to_string() } else { rendered.to_string() }) {
                return EXIT_CLOSED_PIPE;
            }
            return code;
        }
    };
    // Every setting, for every command, before anything runs: a variable the harness cannot use
    // is a usage error naming it, never a default taken in its place.
    let mut settings = match Settings::from_vars(vars.clone()) {
        Ok(settings) => settings,
        Err(problems) => {
            io.err(&format!("error: {}\n", crate::terminal::sanitize(&problems.replace('\n', "\nerror: "))));
            return EXIT_USAGE;
        }
    };
    if cli.no_cache {
        settings.adapters.cache = false;
    }
    if cli.no_install {
        settings.adapters.install = false;
    }
    let mut cx = Cx { io, cwd, settings, vars, out_terminal, err_terminal };
    for note in cx.settings.notes() {
        tell!(cx, "note: {note}");
    }
    match settle_process(&cx.settings).map_err(Stop::from).and_then(|()| dispatch(cli.command, &mut cx)).and_then(|code| cx.io.failure().map(|()| code)) {
        Ok(code) => code,
        Err(Stop::ClosedPipe) => EXIT_CLOSED_PIPE,
        Err(Stop::Error(message)) => {
            tell!(cx, "error: {message}");
            EXIT_USAGE
        }
    }
}

/// Settle this process's budgets and test pause as the settings say, or say why they cannot be.
fn settle_process(settings: &Settings) -> Result<(), String> {
    budget::install(settings.budgets.clone());
    if budget::current() != &settings.budgets {
        return Err(
            "this process already runs under other budgets (SCHEMA_FIDELITY_MAX_*, settled once per process); run this command as a process of its own"
                .to_owned(),
        );
    }
    if !report::install_test_pause(settings.test_pause.clone()) {
        return Err(format!(
            "this process already has another {} (settled once per process); run this command as a process of its own",
            crate::settings::TEST_PAUSE_ENV
        ));
    }
    Ok(())
}

fn dispatch(command: Command, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    match command {
        Command::Run { translators, verbose, coverage, junit, format } => commands::run::command(&translators, verbose, coverage, junit.as_deref(), format == RunFormat::Github, cx),
        Command::Report { check, diff } => match diff.as_deref() {
            Some([old]) => commands::report::diff(old, None, cx),
            Some([old, new]) => commands::report::diff(old, Some(new), cx),
            _ => commands::report::command(check, cx),
        },
        Command::Explain { translator, keyword, generate } => commands::explain::command(translator, keyword, generate, cx),
        Command::Check { schema, mcp, translators, format } => match mcp {
            Some(command) => commands::check::mcp_command(&command, &translators, format == Format::Json, cx),
            None => commands::check::command(&schema.unwrap_or_default(), &translators, format == Format::Json, cx),
        },
        Command::Harvest { servers, check } => commands::harvest::command(servers, check, cx),
        Command::Lint => commands::lint::command(cx),
        Command::New { name } => commands::scaffold::command(&name, cx),
        Command::Init { lang, name, target } => {
            let summary = crate::commands::init::command(&cx.cwd, lang, name.as_deref(), target.as_deref())?;
            say_part!(cx, "{summary}");
            Ok(EXIT_OK)
        }
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "schema-fidelity", &mut script);
            cx.io.out(&String::from_utf8_lossy(&script))?;
            Ok(EXIT_OK)
        }
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
        lang: Option<crate::commands::init::Lang>,
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
