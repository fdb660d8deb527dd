//! What every command runs with ([`Cx`]: its streams, folder, settings and environment), how it
//! stops ([`Stop`]) and the exit statuses it gives; [`crate::cli`] builds a [`Cx`] from an
//! invocation and hands it to a command. Here, with the commands, so that they need nothing of the
//! parser that calls them.

use std::io::Write;
use std::path::PathBuf;

use crate::diagnostic;
use crate::project::Project;
use crate::report;
use crate::session::{self, Selection};
use crate::settings::Settings;

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
pub(crate) struct Io<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    /// The first failed write to `out`, kept: a closure that cannot return it (harvest's
    /// progress) writes nothing more once stdout is gone, and the command ends with it.
    failed: Option<std::io::ErrorKind>,
}

impl<'a> Io<'a> {
    /// The streams, neither failed yet.
    pub(crate) fn new(out: &'a mut dyn Write, err: &'a mut dyn Write) -> Self {
        Self { out, err, failed: None }
    }

    /// Write `text` to stdout, flushed (so that it interleaves with stderr as written).
    ///
    /// # Errors
    /// [`Stop::ClosedPipe`] on a closed stdout; any other failure as an error naming it.
    pub(crate) fn out(&mut self, text: &str) -> Result<(), Stop> {
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
    pub(crate) fn err(&mut self, text: &str) {
        let _ = self.err.write_all(text.as_bytes()).and_then(|()| self.err.flush());
    }

    /// Why the command must stop, when a write to stdout failed where it could not say so.
    pub(crate) fn failure(&self) -> Result<(), Stop> {
        self.failed.map_or(Ok(()), |kind| Err(Self::stop(kind)))
    }
}

/// What a command runs with.
pub(crate) struct Cx<'a> {
    pub(crate) io: Io<'a>,
    pub(crate) cwd: PathBuf,
    pub(crate) settings: Settings,
    /// The invocation's environment, for the MCP server `check --mcp` starts.
    pub(crate) vars: Vec<(String, String)>,
    pub(crate) out_terminal: bool,
    pub(crate) err_terminal: bool,
}

impl Cx<'_> {
    /// A path the user gave, read from the invocation's folder (an absolute one as it is).
    pub(crate) fn path(&self, given: impl AsRef<std::path::Path>) -> PathBuf {
        self.cwd.join(given)
    }

    /// Progress on stderr, drawn only when stderr is a terminal.
    pub(crate) fn progress(&self, label: &str, total: usize) -> report::progress::Progress {
        report::progress::Progress::new(label, total, self.err_terminal)
    }
}

/// The translators whose runtime or package is missing here, as one sentence, if any.
pub(crate) fn unavailable_translators(loaded: &session::Loaded, resolver: &session::Resolver) -> Option<String> {
    let missing: Vec<String> = loaded
        .tables
        .iter()
        .filter_map(|(name, _, _)| resolver(name).and_then(|t| t.unavailable()).map(|why| format!("{name} ({why})")))
        .collect();
    (!missing.is_empty()).then(|| format!("unavailable translators: {}", missing.join("; ")))
}

/// [`EXIT_OK`] when `ok`, else [`EXIT_FINDINGS`].
pub(crate) fn status(ok: bool) -> u8 {
    if ok { EXIT_OK } else { EXIT_FINDINGS }
}

/// Tables and corpus, with the records of an earlier run read back unless the caches are off
/// (`--no-cache`).
pub(crate) fn load(cx: &Cx<'_>) -> Result<session::Loaded, String> {
    load_wanted(cx, &[])
}

/// What [`load`] reads, once every name in `wanted` is known to name a table file: a misspelt
/// `--translator` is answered before a corpus is read (a second, in a debug build, in this
/// repository).
pub(crate) fn load_wanted(cx: &Cx<'_>, wanted: &[String]) -> Result<session::Loaded, String> {
    let project = project(cx)?;
    if !wanted.is_empty() {
        let files = project.table_files();
        let names: Vec<&str> = files.iter().filter_map(|f| f.file_stem().and_then(|s| s.to_str())).collect();
        check_wanted(wanted, &names)?;
    }
    Ok(session::load_with(project, &Selection::All, cx.settings.adapters.cache))
}

/// The project the invocation's folder is in.
pub(crate) fn project(cx: &Cx<'_>) -> Result<Project, String> {
    Project::discover_with(&cx.cwd, cx.settings.suite.clone())
}

/// An error for a translator name no table has, suggesting the nearest.
pub(crate) fn unknown_translator(name: &str, known: &[&str]) -> String {
    let mut message = format!("no table named `{name}` (dispositions/{name}.yaml)");
    match diagnostic::nearest(name, known.iter().copied()) {
        Some(near) => message.push_str(&format!("; did you mean `{near}`?")),
        None => message.push_str(&format!("; tables: {}", known.join(", "))),
    }
    message
}

/// An error when a `--translator` name names no table.
pub(crate) fn check_wanted(wanted: &[String], names: &[&str]) -> Result<(), String> {
    match wanted.iter().find(|name| !names.contains(&name.as_str())) {
        Some(name) => Err(unknown_translator(name, names)),
        None => Ok(()),
    }
}

