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
//! exit statuses ([`EXIT_HELP`]).
//!
//! **What stays with the process.** Two settings are settled once per process because the
//! library's file readers and `report`'s write read them from anywhere: the budgets
//! ([`budget::current`]) and `report`'s test pause. [`run`] installs the ones its environment
//! gives; when the process has already settled others (a test process that ran one command with
//! `SCHEMA_FIDELITY_MAX_*` set and then one without), it refuses with a usage error rather than
//! run under budgets its environment does not name. Such a command runs as a process of its own,
//! as does what only a process shows: the exit on a closed stdout, colour on a terminal, a killed
//! process tree.

// Everything a command prints may carry text from outside (case names, schema keys, table notes,
// an adapter's stderr), so every line passes through `terminal::sanitize` (`say!`, `tell!`): an
// escape sequence is shown, never sent to the terminal. Output that must stay byte-exact (the JSON
// of `check --format json`) goes through `Io::out` with `terminal::sanitize_json` explicitly.
// Writing to a closed stdout (`| head`) stops the command quietly with [`EXIT_CLOSED_PIPE`].

/// A line on stdout; a closed stdout stops the command (`?`).
macro_rules! say {
    ($cx:expr) => { $cx.io.out("\n")? };
    ($cx:expr, $($arg:tt)*) => { $cx.io.out(&(crate::terminal::sanitize(&format!($($arg)*)) + "\n"))? };
}
/// Text on stdout without a newline.
macro_rules! say_part {
    ($cx:expr, $($arg:tt)*) => { $cx.io.out(&crate::terminal::sanitize(&format!($($arg)*)))? };
}
/// A line on stderr (a note or an error); a stderr that cannot be written to is not worth more.
macro_rules! tell {
    ($cx:expr, $($arg:tt)*) => { $cx.io.err(&(crate::terminal::sanitize(&format!($($arg)*)) + "\n")) };
}

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{CommandFactory as _, Parser, Subcommand, ValueEnum};

use crate::diagnostic;
use crate::project::Project;
use crate::report::{self, check, explain, scaffold};
use crate::session::{self, Selection};
use crate::settings::Settings;
use crate::table;
use crate::trials;
use crate::validation::Env;
use crate::{budget, json};

/// All is well.
pub const EXIT_OK: u8 = 0;
/// Findings: failing trials, lint problems, stale reports, a violation or a silent keyword in
/// `check`, a translator that could not be run.
pub const EXIT_FINDINGS: u8 = 1;
/// Usage and input errors (clap's own usage errors exit 2 as well).
pub const EXIT_USAGE: u8 = 2;
/// `check` only: every finding is a loss the tables declare (an approximation, a refusal).
pub const EXIT_DECLARED_LOSS: u8 = 3;
/// Stdout was closed before the output was written (`| head`): what a shell reports for a program
/// a SIGPIPE ended (128 + 13), without the signal or a panic.
pub const EXIT_CLOSED_PIPE: u8 = 141;

/// One command line to run: what a process would have, given explicitly.
pub struct Invocation<'a> {
    /// The current folder: where the project is looked for, and what relative paths are read from.
    pub cwd: PathBuf,
    /// The environment, as (name, value) pairs: every `SCHEMA_FIDELITY_*` setting is read from
    /// here ([`Settings::from_vars`]), and `NO_COLOR` and `TERM` for help.
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

/// Why a command stopped before its end.
#[derive(Debug)]
pub enum Stop {
    /// An error for the user: printed as `error: …`, exit [`EXIT_USAGE`].
    Error(String),
    /// Stdout was closed: exit [`EXIT_CLOSED_PIPE`], quietly.
    ClosedPipe,
}

impl From<String> for Stop {
    fn from(message: String) -> Self {
        Self::Error(message)
    }
}

/// The two streams of a command.
pub struct Io<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    /// The first failed write to `out`, kept: a closure that cannot return it (harvest's
    /// progress) writes nothing more once stdout is gone, and the command ends with it.
    failed: Option<std::io::ErrorKind>,
}

impl Io<'_> {
    /// Write `text` to stdout, flushed (so that it interleaves with stderr as written).
    ///
    /// # Errors
    /// [`Stop::ClosedPipe`] on a closed stdout; any other failure as an error naming it.
    pub fn out(&mut self, text: &str) -> Result<(), Stop> {
        if let Some(kind) = self.failed {
            return Err(Self::stop(kind));
        }
        match self.out.write_all(text.as_bytes()).and_then(|()| self.out.flush()) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.failed = Some(e.kind());
                Err(Self::stop(e.kind()))
            }
        }
    }

    fn stop(kind: std::io::ErrorKind) -> Stop {
        if kind == std::io::ErrorKind::BrokenPipe { Stop::ClosedPipe } else { Stop::Error(format!("cannot write to stdout: {kind}")) }
    }

    /// Write `text` to stderr.
    pub fn err(&mut self, text: &str) {
        let _ = self.err.write_all(text.as_bytes()).and_then(|()| self.err.flush());
    }

    /// Why the command must stop, when a write to stdout failed where it could not say so.
    fn failure(&self) -> Result<(), Stop> {
        self.failed.map_or(Ok(()), |kind| Err(Self::stop(kind)))
    }
}

/// What a command runs with.
struct Cx<'a> {
    io: Io<'a>,
    cwd: PathBuf,
    settings: Settings,
    out_terminal: bool,
    err_terminal: bool,
}

impl Cx<'_> {
    /// A path the user gave, read from the invocation's folder (an absolute one as it is).
    fn path(&self, given: impl AsRef<std::path::Path>) -> PathBuf {
        self.cwd.join(given)
    }

    /// Progress on stderr, drawn only when stderr is a terminal.
    fn progress(&self, label: &str, total: usize) -> report::progress::Progress {
        report::progress::Progress::new(label, total, self.err_terminal)
    }
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
    let mut io = Io { out, err, failed: None };
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
    let mut settings = match Settings::from_vars(vars) {
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
    let mut cx = Cx { io, cwd, settings, out_terminal, err_terminal };
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
        Command::Run { translators, verbose, coverage, junit, format } => run_command(&translators, verbose, coverage, junit.as_deref(), format == RunFormat::Github, cx),
        Command::Report { check, diff } => match diff.as_deref() {
            Some([old]) => report_diff(old, None, cx),
            Some([old, new]) => report_diff(old, Some(new), cx),
            _ => report_command(check, cx),
        },
        Command::Explain { translator, keyword, generate } => explain_command(translator, keyword, generate, cx),
        Command::Check { schema, mcp, translators, format } => match mcp {
            Some(command) => mcp_check_command(&command, &translators, format == Format::Json, cx),
            None => check_command(&schema.unwrap_or_default(), &translators, format == Format::Json, cx),
        },
        Command::Harvest { servers, check } => harvest_command(servers, check, cx),
        Command::Lint => lint(cx),
        Command::New { name } => new_command(&name, cx),
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

/// The translators whose runtime or package is missing here, as one sentence, if any.
fn unavailable_translators(loaded: &session::Loaded, resolver: &session::Resolver) -> Option<String> {
    let missing: Vec<String> = loaded
        .tables
        .iter()
        .filter_map(|(name, _, _)| resolver(name).and_then(|t| t.unavailable()).map(|why| format!("{name} ({why})")))
        .collect();
    (!missing.is_empty()).then(|| format!("unavailable translators: {}", missing.join("; ")))
}

/// [`EXIT_OK`] when `ok`, else [`EXIT_FINDINGS`].
fn status(ok: bool) -> u8 {
    if ok { EXIT_OK } else { EXIT_FINDINGS }
}

/// Tables and corpus, with the records of an earlier run read back unless the caches are off
/// (`--no-cache`).
fn load(cx: &Cx<'_>) -> Result<session::Loaded, String> {
    Ok(session::load_with(project(cx)?, &Selection::All, cx.settings.adapters.cache))
}

/// The project the invocation's folder is in.
fn project(cx: &Cx<'_>) -> Result<Project, String> {
    Project::discover_with(&cx.cwd, cx.settings.suite.clone())
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

fn run_command(wanted: &[String], verbose: bool, coverage: bool, junit: Option<&std::path::Path>, github: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let loaded = Arc::new(load(cx)?);
    let resolver = session::resolver(&loaded, &cx.settings.adapters);
    let names: Vec<&str> = loaded.tables.iter().map(|(t, _, _)| t.as_str()).collect();
    check_wanted(wanted, &names)?;
    let mut ok = true;
    for e in &loaded.corpus_errors {
        say!(cx, "corpus error: {e}");
        ok = false;
    }
    if let Err(reason) = &loaded.project.suite {
        say!(cx, "note: JSON-Schema-Test-Suite trials skipped: {reason}");
    }
    let selected: Vec<_> = loaded.tables.iter().filter(|(name, _, _)| wanted.is_empty() || wanted.contains(name)).collect();
    // Columns as wide as the longest name: a long translator name must not push its row askew.
    let width = selected.iter().map(|(name, _, _)| name.chars().count()).max().unwrap_or(0).max("translator".len());
    let progress = cx.progress("running the contract: tables done", selected.len());
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
    say!(cx, "{RUN_LEGEND}\n");
    say!(cx, "{:<width$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  table", "translator", "compared", "refused", "failed", "known", "skipped", "crashed");
    for line in lines {
        say!(cx, "{line}");
    }
    say!(cx, 
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
            say!(cx, "\nno case was skipped");
        } else {
            say!(cx, "\n{} skipped case(s):", skipped_cases.len());
            for s in &skipped_cases {
                say!(cx, "  {s}");
            }
        }
    } else if total[4] > 0 {
        say!(cx, "\n{} case(s) skipped: `run --verbose` lists them with their reasons", total[4]);
    }
    let read_back = loaded.records.read_back();
    if read_back > 0 {
        tell!(cx, 
            "note: {read_back} of {} trials read back from an earlier run with the same inputs (target/schema-fidelity/records); --no-cache judges every one",
            read_back + loaded.records.made()
        );
    }
    if !failures.is_empty() {
        ok = false;
        say!(cx, "\n{} failure(s):", failures.len());
        for f in &failures {
            say!(cx, "\n--- {f}");
        }
    }
    // The contract was not run for these: not a success, even if all else passed, and not a
    // failure of theirs either. (`cargo test` reports their trials as skipped instead;
    // `--translator` selects the ones that can run.)
    if !unavailable.is_empty() {
        ok = false;
        let names: Vec<&str> = unavailable.iter().map(|(n, _)| *n).collect();
        say!(cx, "\n{} translator(s) unavailable here, so their contract was not run: {}", unavailable.len(), names.join(", "));
    }
    if coverage {
        say!(cx, "\n{}", report::coverage::render(&report::coverage::coverage(&loaded.records.all())));
    }
    if github {
        say_part!(cx, "{}", report::ci::github_annotations(&ci_suites));
    }
    if let Some(file) = junit {
        let xml = report::ci::junit(&ci_suites).map_err(|e| format!("cannot make the JUnit document: {e}"))?;
        report::ci::write_junit(&loaded.project.root, &cx.cwd, file, &xml)?;
    }
    Ok(status(ok))
}

fn report_command(check_only: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    // Refused before anything runs: reports made with other settings would say other things.
    let departure = cx.settings.departure();
    if let Some(set) = &departure
        && !check_only
    {
        return Err(format!("{set}: the committed reports are made with the default settings; unset these to write reports/").into());
    }
    let loaded = load(cx)?;
    let resolver = session::resolver(&loaded, &cx.settings.adapters);
    if let Some(reason) = unavailable_translators(&loaded, &resolver) {
        tell!(cx, "note: {reason}\nnote: their committed pages and report.json entries are kept as they are; set them up (README, \"External translators\") to regenerate those");
    }
    let generated = report::generate(&loaded, &resolver, true)?;
    let project = &loaded.project;
    if let Err(reason) = &project.suite {
        tell!(cx, "note: {reason}\nnote: without the suite, the case counts and witnesses cover the own corpus only");
    }
    if check_only {
        if let Some(note) = report::interrupted(project) {
            tell!(cx, "note: {note}");
        }
        let tables_only = project.suite.is_err() || departure.is_some();
        if let Some(settings) = &departure {
            tell!(cx, "note: comparing the reports that depend on the tables alone ({settings} changes what the others hold)");
        } else if tables_only {
            tell!(cx, "note: comparing matrix.md and index.html only (the other reports depend on the suite)");
        }
        let diffs = report::differences(project, &generated, tables_only);
        for d in &diffs {
            say!(cx, "{d}");
        }
        if diffs.is_empty() {
            say!(cx, "{}/ is current", report::REPORTS_DIR);
        } else {
            say!(cx, "{}/ is not current: run `schema-fidelity report` and commit the result", report::REPORTS_DIR);
        }
        return Ok(status(diffs.is_empty()));
    }
    let changed = report::write(project, &generated)?;
    if changed.is_empty() {
        say!(cx, "{}/ is current ({} files)", report::REPORTS_DIR, generated.files.len());
    } else {
        say!(cx, "wrote {} of {} files in {}/:", changed.len(), generated.files.len(), report::REPORTS_DIR);
        for c in changed {
            say!(cx, "  {c}");
        }
    }
    Ok(EXIT_OK)
}

/// `report --diff OLD [NEW]`: compare two runs' report.json, without running anything.
fn report_diff(old: &str, new: Option<&String>, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let read = |path: &std::path::Path| -> Result<serde_json::Value, String> {
        let text = budget::read_report(path, &cx.settings.budgets).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a report.json: {e}", path.display()))
    };
    let new_path = match new {
        Some(p) => cx.path(p),
        None => project(cx)?.root.join(report::REPORTS_DIR).join("report.json"),
    };
    let (o, n) = (read(&cx.path(old))?, read(&new_path)?);
    let changes = report::compare::compare(&o, &n);
    say_part!(cx, "{}", report::compare::render(old, &new_path.display().to_string(), &changes));
    Ok(EXIT_OK)
}

fn explain_command(translator: String, keyword: Option<String>, generate: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let query = explain::parse_query(&[Some(translator), keyword].into_iter().flatten().collect::<Vec<_>>())?;
    let loaded = load(cx)?;
    let names: Vec<&str> = loaded.tables.iter().map(|(t, _, _)| t.as_str()).collect();
    let Some((_, table, errors)) = loaded.tables.iter().find(|(n, _, _)| *n == query.translator) else {
        return Err(unknown_translator(&query.translator, &names).into());
    };
    let Some(table) = table else {
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(format!("the table of `{}` does not load:\n{}", query.translator, errors.join("\n")).into());
    };
    let Some(key) = &query.key else {
        say_part!(cx, "{}", explain::overview(table));
        return Ok(EXIT_OK);
    };
    let rows = explain::find_rows(table, key, query.refinement.as_deref())?;
    let translator = session::resolver(&loaded, &cx.settings.adapters)(&query.translator);
    if let Some(reason) = translator.as_deref().and_then(|t| t.unavailable()) {
        tell!(cx, "note: `{}` is unavailable here, so its cases are not run: {reason}", query.translator);
    }
    let witnesses = if generate { explain::Witnesses::Generate } else { explain::Witnesses::Recorded };
    let text = explain::explain(table, &rows, translator.as_deref(), &loaded.cases, &loaded.records, &loaded.env, witnesses, true);
    say_part!(cx, "{text}");
    Ok(EXIT_OK)
}

/// The tables `check` runs, each with its translator.
type CheckTargets = Vec<(table::Table, Arc<dyn schema_fidelity_translators::Translator>)>;

/// The tables and translators `check` runs: every one, or those `wanted`.
fn check_targets(wanted: &[String], cx: &mut Cx<'_>) -> Result<CheckTargets, Stop> {
    let project = project(cx)?;
    let tables = check::load_tables(&project);
    let names: Vec<&str> = tables.iter().map(|(n, _, _)| n.as_str()).collect();
    check_wanted(wanted, &names)?;
    let resolver = session::resolver_for(&project.root, tables.iter().filter_map(|(_, t, _)| t.as_ref()), &cx.settings.adapters);
    let mut selected = Vec::new();
    for (name, table, errors) in tables {
        if !wanted.is_empty() && !wanted.contains(&name) {
            continue;
        }
        match (table, resolver(&name)) {
            (Some(table), Some(translator)) => {
                if !errors.is_empty() {
                    tell!(cx, "note: dispositions/{name}.yaml has {} lint problem(s); `schema-fidelity lint` lists them", errors.len());
                }
                selected.push((table, translator));
            }
            (None, _) => tell!(cx, "note: skipping `{name}`: its table does not load (`schema-fidelity lint`)"),
            (_, None) => tell!(cx, "note: skipping `{name}`: no translator of that name is known"),
        }
    }
    Ok(selected)
}

fn check_command(file: &str, wanted: &[String], json: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let budgets = &cx.settings.budgets.clone();
    let text = budget::read_text(&cx.path(file), budgets).map_err(|e| format!("{file}: {e}"))?;
    let schema = json::parse(&text).map_err(|e| format!("{file}:{e}"))?;

    let selected = check_targets(wanted, cx)?;
    let targets: Vec<check::Target<'_>> = selected.iter().map(|(table, translator)| check::Target { table, translator: translator.as_ref() }).collect();
    let report = check::check(file, &schema, &targets, &Env::default(), budgets)?;
    if json {
        let out = serde_json::to_string_pretty(&report).map_err(|e| format!("cannot serialize the result: {e}"))?;
        cx.io.out(&(crate::terminal::sanitize_json(&out) + "\n"))?;
    } else {
        say_part!(cx, "{}", check::render_text(&report));
    }
    Ok(match report.outcome() {
        check::CheckOutcome::Clean => EXIT_OK,
        check::CheckOutcome::DeclaredLosses => EXIT_DECLARED_LOSS,
        check::CheckOutcome::Findings => EXIT_FINDINGS,
    })
}

/// `check --mcp COMMAND`: every tool the server lists, against every translator (or `wanted`).
fn mcp_check_command(command: &str, wanted: &[String], json: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    use crate::mcp;
    let argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    if argv.is_empty() {
        return Err("--mcp needs a command to start the server".to_owned().into());
    }
    let selected = check_targets(wanted, cx)?;
    let targets: Vec<check::Target<'_>> = selected.iter().map(|(table, translator)| check::Target { table, translator: translator.as_ref() }).collect();
    let cwd = cx.cwd.clone();
    let launch = mcp::client::Launch { command: &argv, cwd: &cwd, env: None, timeout: cx.settings.mcp_timeout };
    let progress = std::sync::OnceLock::new();
    let err_terminal = cx.err_terminal;
    let tick = |total: usize| progress.get_or_init(|| report::progress::Progress::new("checking tools", total, err_terminal)).tick();
    let result = mcp::check::check_server(&launch, &targets, &Env::default(), &cx.settings.budgets, &tick).map_err(|e| e.to_string());
    if let Some(p) = progress.get() {
        p.finish();
    }
    let result = result?;
    if json {
        let out = serde_json::to_string_pretty(&result).map_err(|e| format!("cannot serialize the result: {e}"))?;
        cx.io.out(&(crate::terminal::sanitize_json(&out) + "\n"))?;
    } else {
        say_part!(cx, "{}", mcp::check::render_text(&result));
    }
    Ok(match result.outcome() {
        check::CheckOutcome::Clean => EXIT_OK,
        check::CheckOutcome::DeclaredLosses => EXIT_DECLARED_LOSS,
        check::CheckOutcome::Findings => EXIT_FINDINGS,
    })
}

/// `harvest`: corpus/mcp/ from the pinned MCP servers.
fn harvest_command(servers: Vec<String>, check_only: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    use crate::mcp::harvest::{self, Outcome};
    let project = project(cx)?;
    let options = harvest::Options { servers, check: check_only, timeout: cx.settings.mcp_timeout };
    let mut ok = true;
    let stale = harvest::harvest(&project.root, &options, &mut |name, outcome| {
        let said = match outcome {
            Outcome::Unchanged { tools, cases } => format!("{tools} tools, {cases} cases: unchanged"),
            Outcome::Written { tools, cases } => format!("{tools} tools, {cases} cases: written"),
            Outcome::Differs { tools, cases } => format!("{tools} tools, {cases} cases: differs from the committed file"),
            Outcome::Failed(why) => format!("failed: {why}"),
        };
        ok &= matches!(outcome, Outcome::Unchanged { .. } | Outcome::Written { .. });
        // A closed stdout stops nothing here: the command ends with it once the harvest returns.
        let _ = cx.io.out(&(crate::terminal::sanitize(&format!("{name}: {said}")) + "\n"));
    })?;
    for file in &stale {
        ok &= !check_only;
        say!(cx, "{file}: no server of the manifest writes it{}", if check_only { "" } else { ": removed" });
    }
    Ok(status(ok))
}

fn lint(cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let loaded = load(cx)?;
    let budgets = &cx.settings.budgets;
    // What the `TRANSLATOR::lint` trials of `cargo test` reject, first: the table's own findings
    // and a translator no one provides. Every file is read; a file that does not parse is one
    // problem (its line), and the other files are still checked.
    let resolver = session::resolver(&loaded, &cx.settings.adapters);
    let mut problems = 0;
    for (name, table, errors) in &loaded.tables {
        for e in errors {
            say!(cx, "{e}");
            problems += 1;
        }
        if resolver(name).is_none() {
            say!(cx, "{}", trials::no_translator_message(name));
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
            say!(cx, "{e}");
            problems += 1;
        }
    }
    // What `init` left to fill in: its marker in the config, the adapters `run:` names, the workflow.
    for e in crate::commands::init::leftover_markers(&loaded.project.root, loaded.tables.iter().filter_map(|(_, table, _)| table.as_deref())) {
        say!(cx, "{e}");
        problems += 1;
    }
    for e in &loaded.corpus_errors {
        say!(cx, "{e}");
        problems += 1;
    }
    // The pins of the harvested MCP servers (their files are corpus files, checked above).
    for e in crate::mcp::manifest::lint(&loaded.project.root) {
        say!(cx, "{e}");
        problems += 1;
    }
    // What every trial of an own case checks first: the schema compiles, the instances have the
    // validity they claim.
    for case in loaded.cases.iter().filter(|c| c.origin == crate::corpus::Origin::Own) {
        if let Err(e) = crate::corpus::check_case(case, &loaded.env) {
            say!(cx, "{e}");
            problems += 1;
        }
    }
    say!(cx, "{} table(s), {} case(s), {problems} problem(s)", loaded.tables.len(), loaded.cases.len());
    Ok(status(problems == 0))
}

fn new_command(name: &str, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    scaffold::check_name(name)?;
    let project = project(cx)?;
    let path = project.dispositions_dir().join(format!("{name}.yaml"));
    let shown = project.relative(&path).display().to_string();
    let exists = || format!("{shown} already exists; `new` never overwrites a table (edit it, or remove it first)");
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(exists().into());
    }
    let dir = project.dispositions_dir();
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!("{}: is a symbolic link; `new` writes only into a real dispositions/ directory of the project", project.relative(&dir).display()).into());
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
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && std::fs::symlink_metadata(&path).is_ok() => return Err(exists().into()),
        Err(e) => return Err(format!("{shown}: cannot write: {e}").into()),
    }
    say!(cx, "wrote {shown}: every row says `disposition: TODO`, and so do `description:`, `source:`, `run:` and `install:`.");
    say!(cx, "Fill each in with what the translator really does; `schema-fidelity lint` lists what is left.");
    say!(cx, "An external translator: write its adapter and point `run:` at it (README, \"Onboarding a translator\").");
    say!(cx, "A built-in one: delete `run:` and `install:` and name it `{name}` in translators/src/builtin/.");
    say!(cx, "Then `schema-fidelity run -t {name}`, and `schema-fidelity report` to regenerate reports/ before committing.");
    if cx.out_terminal {
        say!(cx, "See CONTRACT.md, section 2, for the dispositions.");
    }
    Ok(EXIT_OK)
}
