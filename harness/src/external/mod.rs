//! External translators: a translator written in any language, checked by the same oracle.
//!
//! The translators people depend on live in TypeScript and Python packages. A table that declares
//! `run: [program, args...]` names an *adapter*: a small program that loads such a package and
//! speaks the [protocol] (JSON lines on stdin/stdout, specified in `protocol/*.schema.json`). The
//! harness starts the adapter once per run, not once per case, and an [`ExternalTranslator`] is an
//! ordinary [`Translator`]: same trial names, same oracle, same reports.
//!
//! Trials run on parallel threads while `translate` is synchronous, so each adapter process sits
//! behind a mutex and serves one request at a time. That costs little (the adapters are
//! single-threaded anyway, and the oracle's own work runs outside the lock) and buys exact blame:
//! whatever goes wrong while a request is outstanding belongs to that request's case.
//!
//! **Faults.** A crash, a hang (no answer within the per-request timeout), a malformed, oversized
//! or non-protocol line on stdout, an answer with the wrong id, or an exit mid-stream is turned
//! into [`Outcome::Faulted`] for the case it hit, with the last lines of the adapter's stderr; the
//! process is killed and reaped (with every process it started: it runs in its own process
//! group, see [`process`]), and the next case starts a fresh one. An adapter that fails to start
//! [`Config::start_attempts`] times in a row is given up on for the run. After a hang, a new process
//! is asked about a trivial schema: a hang that is one schema's alone costs that case its timeout,
//! and an adapter that does not answer the probe either is given up on for the run, so a hung
//! adapter costs two timeouts, not one per case. Stderr is drained continuously into a bounded ring, so a flood
//! there neither stalls the adapter nor grows memory.
//!
//! **Crashes are not faults.** An `error` answer means the wrapped package threw on the schema (a
//! `TypeError` on a valid schema): the adapter works, the translator does not. It becomes
//! [`Outcome::Crashed`], an answer the oracle judges (CONTRACT §7), and the process keeps serving.
//!
//! **Not installed.** When the adapter's program is not on `PATH`, or the adapter answers the
//! handshake with `unavailable` (its package is missing), [`Translator::unavailable`] says so with
//! the table's `install:` command, and the trials are skipped with that reason.
//!
//! **Set up on first use.** A table that names its `environment:` (a Python virtual environment,
//! an npm project) has it made the first time one of its translators is asked anything, before
//! the adapter starts and before its fingerprint is taken ([`setup`]); `--no-install` turns that
//! off. A missing runtime leaves the translator unavailable; a failed install faults every case.
//!
//! **Cached answers.** An answer confirmed by two equal translations is kept on disk ([`cache`])
//! and given again while the adapter's code and installed packages are unchanged: a schema seen
//! before does not start the adapter. The adapter starts on the first miss.
//!
//! Knobs (environment): [`TIMEOUT_ENV`] (per request, default 10 s), [`START_TIMEOUT_ENV`]
//! (handshake, default 30 s), [`protocol::STRICT_ENV`], [`cache::NO_CACHE_ENV`] and
//! [`setup::NO_INSTALL_ENV`].

pub mod cache;
pub mod entry;
pub mod process;
pub mod protocol;
pub mod setup;

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use schema_fidelity_translators::{Crash, Fault, Outcome, Translator};
use serde_json::Value;

use self::cache::{Cache, Call};
use self::process::{Process, ReceiveError, StdoutEvent};
use self::protocol::{AnswerBody, LineError, Response, Started, Via};
use self::setup::{Readiness, Setup};

/// Milliseconds an adapter may take to answer one request.
pub const TIMEOUT_ENV: &str = "SCHEMA_FIDELITY_ADAPTER_TIMEOUT_MS";
/// Milliseconds an adapter may take to start and answer the handshake.
pub const START_TIMEOUT_ENV: &str = "SCHEMA_FIDELITY_ADAPTER_START_TIMEOUT_MS";

/// How the harness treats adapters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// How long one request may go unanswered before the adapter counts as hung.
    pub request_timeout: Duration,
    /// How long the adapter may take to start and answer the handshake.
    pub start_timeout: Duration,
    /// Longest line accepted on stdout.
    pub max_line_bytes: usize,
    /// Strict protocol validation ([`protocol::STRICT_ENV`]).
    pub strict: bool,
    /// Consecutive failed starts after which the adapter is given up on for the run.
    pub start_attempts: u32,
    /// Keep confirmed answers on disk and give them again ([`cache`]). Off by default, so that a
    /// test of an adapter's behaviour sees the adapter; the commands and the contract trials
    /// turn it on unless [`cache::NO_CACHE_ENV`] (or `--no-cache`) says otherwise.
    pub cache: bool,
    /// Set up a table's `environment:` when it is missing or outdated ([`setup`]). Off by default,
    /// so that a library caller never installs unasked; the commands and the contract trials turn
    /// it on unless [`setup::NO_INSTALL_ENV`] (or `--no-install`) says otherwise.
    pub install: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(10),
            start_timeout: Duration::from_secs(30),
            max_line_bytes: 16 * 1024 * 1024,
            strict: false,
            start_attempts: 3,
            cache: false,
            install: false,
        }
    }
}

/// How to start an adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    /// The directory it runs in (the project root, so that `run:` paths are project-relative).
    pub cwd: PathBuf,
    /// The command that installs its runtime and package, for the skip message.
    pub install: Option<String>,
}

impl AdapterSpec {
    fn label(&self) -> String {
        format!("adapter `{}`", self.command.join(" "))
    }

    fn install_hint(&self) -> String {
        match &self.install {
            Some(command) => format!("install it with `{command}`"),
            None => "the table gives no `install:` command".to_owned(),
        }
    }
}

/// One adapter process, started on first use and shared by every translator it serves.
pub struct Adapter {
    spec: AdapterSpec,
    config: Config,
    /// The environment it runs in, made before it starts ([`setup`]).
    setup: Option<Arc<Setup>>,
    state: Mutex<State>,
}

/// What gave the adapter up for the run.
#[derive(Debug, Clone)]
enum GiveUp {
    /// Too many failed starts: the last fault.
    Starts(String),
    /// A request went unanswered, and so did a probe of a new process: the fault.
    Hangs(String),
    /// Its environment could not be set up: why, naming the log.
    Setup(String),
}

enum State {
    /// Not running: failed starts in a row.
    Idle { failed_starts: u32 },
    Running(Box<Running>),
    /// Not installed: the reason, with the install hint. Permanent for the run.
    Unavailable(String),
    /// Failed to start, or left requests unanswered, too often. Permanent for the run.
    GivenUp(GiveUp),
}

struct Running {
    process: Process,
    started: Started,
    next_id: u64,
}

/// Why an exchange broke the process; the process is then stopped and restarted.
#[derive(Debug)]
enum Breakage {
    Write { id: u64, error: io::Error },
    /// The request was not taken in within the timeout: the adapter does not read its stdin.
    Unread { id: u64, timeout: Duration },
    Hang { id: u64, timeout: Duration },
    Exited { id: u64, error: Option<io::Error> },
    TooLong { id: u64, limit: usize, start: String },
    Line { id: u64, error: LineError },
    WrongId { id: u64, got: u64 },
    Handshake { id: u64 },
}

impl fmt::Display for Breakage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Write { id, error } => write!(f, "cannot write request {id} to the adapter ({error}): it has exited"),
            Self::Unread { id, timeout } => {
                write!(f, "request {id} was not read within {} ms: the adapter hangs without reading its input", timeout.as_millis())
            }
            Self::Hang { id, timeout } => write!(f, "no answer to request {id} within {} ms: the adapter hangs", timeout.as_millis()),
            Self::Exited { id, error: None } => write!(f, "the adapter exited before answering request {id}"),
            Self::Exited { id, error: Some(e) } => write!(f, "reading the answer to request {id} failed ({e})"),
            Self::TooLong { id, limit, start } => {
                write!(f, "while answering request {id}, the adapter wrote a line longer than {limit} bytes: {}...", protocol::excerpt(start))
            }
            Self::Line { id, error } => write!(f, "while answering request {id}, {error}"),
            Self::WrongId { id, got } => write!(f, "asked request {id}, the adapter answered id {got}"),
            Self::Handshake { id } => write!(f, "the adapter answered request {id} with a handshake message"),
        }
    }
}

enum StartError {
    Unavailable(String),
    Fault(String),
}

impl Adapter {
    #[must_use]
    pub fn new(spec: AdapterSpec, config: Config) -> Self {
        Self { spec, config, setup: None, state: Mutex::new(State::Idle { failed_starts: 0 }) }
    }

    /// The adapter, run in the environment `setup` makes (on first use, before it starts).
    #[must_use]
    fn in_environment(mut self, setup: Arc<Setup>) -> Self {
        self.setup = Some(setup);
        self
    }

    /// Whether its environment is ready, setting it up first if it has to be (once per process).
    /// An adapter without an environment is always ready.
    pub fn readiness(&self) -> &Readiness {
        static READY: Readiness = Readiness::Ready;
        self.setup.as_deref().map_or(&READY, Setup::readiness)
    }

    #[must_use]
    pub fn spec(&self) -> &AdapterSpec {
        &self.spec
    }

    /// The adapter's handshake, once it has started.
    #[must_use]
    pub fn started(&self) -> Option<Started> {
        match &*self.lock() {
            State::Running(r) => Some(r.started.clone()),
            _ => None,
        }
    }

    /// The process id of the running adapter, if one is running.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        match &*self.lock() {
            State::Running(r) => Some(r.process.pid()),
            _ => None,
        }
    }

    /// Whether the adapter has been started, or tried, in this run.
    #[must_use]
    fn has_run(&self) -> bool {
        !matches!(&*self.lock(), State::Idle { failed_starts: 0 })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why the adapter cannot run here, starting it if it has not been started yet. A start that
    /// faults is not "unavailable": the trials then run and report the fault.
    #[must_use]
    pub fn unavailable(&self) -> Option<String> {
        let mut state = self.lock();
        if let State::Idle { failed_starts: 0, .. } = &*state {
            // The fault, if any, is reported by the first translation.
            let _ = self.ensure_running(&mut state);
        }
        match &*state {
            State::Unavailable(reason) => Some(reason.clone()),
            _ => None,
        }
    }

    /// Ask the adapter to translate `schema` with `translator`, through the code path its table
    /// names.
    pub fn translate(&self, translator: &str, schema: &Value) -> Outcome {
        self.request(translator, schema, None)
    }

    /// Ask the adapter to translate `schema` through the public call `translator`'s users make
    /// (its table's `entry.call`, transport stubbed). A fault when the adapter does not drive it.
    fn translate_through_entry(&self, translator: &str, schema: &Value) -> Outcome {
        self.request(translator, schema, Some(Via::Entry))
    }

    fn request(&self, translator: &str, schema: &Value, via: Option<Via>) -> Outcome {
        let mut state = self.lock();
        if let Err(message) = self.ensure_running(&mut state) {
            return faulted(message);
        }
        let State::Running(running) = &mut *state else {
            return faulted(format!("{}: not running", self.spec.label()));
        };
        if !running.started.translators.iter().any(|t| t == translator) {
            return faulted(format!(
                "{} ({} {}) does not serve translator `{translator}`; it serves: {}",
                self.spec.label(),
                running.started.name,
                running.started.version,
                crate::terminal::sanitize(&running.started.translators.join(", "))
            ));
        }
        if via == Some(Via::Entry) && !running.started.entries.iter().any(|t| t == translator) {
            return faulted(format!(
                "{} ({} {}) does not drive the entry of translator `{translator}` (its handshake lists no `entries` for it): give `serve` an entry function for it",
                self.spec.label(),
                running.started.name,
                running.started.version
            ));
        }
        let id = running.next_id;
        running.next_id += 1;
        match self.exchange(running, id, translator, schema, via) {
            Ok(outcome) => outcome,
            Err(breakage) => {
                let State::Running(running) = std::mem::replace(&mut *state, State::Idle { failed_starts: 0 }) else {
                    return faulted(breakage.to_string());
                };
                let hung = matches!(breakage, Breakage::Hang { .. } | Breakage::Unread { .. });
                let who = format!("{} ({} {})", self.spec.label(), running.started.name, running.started.version);
                let (status, tail) = running.process.terminate();
                let status = status.map_or_else(|| "status unknown".to_owned(), |s| s.to_string());
                if !hung {
                    return faulted(format!("{who}: {breakage}\nthe adapter was stopped ({status}); the next case starts a new one\n{tail}"));
                }
                // A hang may be this schema's alone (a translator that loops on one keyword): a
                // new process is asked about a trivial schema, and only when that goes
                // unanswered too is the adapter given up, rather than failing every case after.
                match self.probe(&mut state, translator) {
                    Ok(()) => faulted(format!("{who}: {breakage}\nthe adapter was stopped ({status}); a new one answered a probe and serves the next case\n{tail}")),
                    Err(why) => {
                        let message = format!("{who}: {breakage}\nthe adapter was stopped ({status}) and given up on for this run: {why}\n{tail}");
                        *state = State::GivenUp(GiveUp::Hangs(message.clone()));
                        faulted(message)
                    }
                }
            }
        }
    }

    /// After a hang: start a new process and ask it to translate a trivial schema within the
    /// request timeout. `Ok` leaves it running; `Err` says why the adapter cannot be trusted.
    fn probe(&self, state: &mut State, translator: &str) -> Result<(), String> {
        if let Err(fault) = self.ensure_running(state) {
            return Err(format!("a new one did not start: {fault}"));
        }
        let State::Running(running) = &mut *state else { return Err("a new one did not start".to_owned()) };
        let id = running.next_id;
        running.next_id += 1;
        let trivial = serde_json::json!({"type": "object"});
        match self.exchange(running, id, translator, &trivial, None) {
            Ok(Outcome::Faulted(fault)) => Err(format!("a new one faulted on a probe (`{trivial}`): {fault}")),
            Ok(_) => Ok(()),
            Err(breakage) => {
                let State::Running(running) = std::mem::replace(state, State::Idle { failed_starts: 0 }) else {
                    return Err(breakage.to_string());
                };
                let _ = running.process.terminate();
                Err(format!("a new one did not answer a probe (`{trivial}`) either: {breakage}"))
            }
        }
    }

    fn exchange(&self, running: &mut Running, id: u64, translator: &str, schema: &Value, via: Option<Via>) -> Result<Outcome, Breakage> {
        let request = protocol::TranslateRequest { id, translator, schema, via };
        if self.config.strict {
            let value = serde_json::to_value(&request).unwrap_or(Value::Null);
            if let Err(e) = protocol::check_request(&value) {
                return Ok(faulted(e));
            }
        }
        let line = match serde_json::to_vec(&request) {
            Ok(line) => line,
            Err(e) => return Ok(faulted(format!("cannot encode request {id}: {e}"))),
        };
        // One timeout for the whole exchange: the request taken in, then the answer.
        let asked = std::time::Instant::now();
        let timeout = self.config.request_timeout;
        running.process.send(&line, timeout).map_err(|error| match error.kind() {
            io::ErrorKind::TimedOut => Breakage::Unread { id, timeout },
            _ => Breakage::Write { id, error },
        })?;
        let line = match running.process.receive(timeout.saturating_sub(asked.elapsed())) {
            Ok(StdoutEvent::Line(line)) => line,
            Ok(StdoutEvent::TooLong { limit, start }) => return Err(Breakage::TooLong { id, limit, start }),
            Ok(StdoutEvent::Closed(error)) | Err(ReceiveError::Closed(error)) => return Err(Breakage::Exited { id, error }),
            Err(ReceiveError::Timeout) => return Err(Breakage::Hang { id, timeout: self.config.request_timeout }),
        };
        let answer = match protocol::parse_response(&line, self.config.strict) {
            Ok(Response::Answer(answer)) => answer,
            Ok(Response::Started { .. } | Response::Unavailable { .. }) => return Err(Breakage::Handshake { id }),
            Err(error) => return Err(Breakage::Line { id, error }),
        };
        if answer.id != id {
            return Err(Breakage::WrongId { id, got: answer.id });
        }
        // What the adapter says is shown on a terminal in trial failures: sanitized here, where
        // it enters (the refusal's keyword and pointer stay exact: the oracle matches them).
        Ok(match answer.body {
            AnswerBody::Projection(p) => Outcome::Projected(p),
            AnswerBody::Refusal(mut r) => {
                r.message = crate::terminal::sanitize(&r.message);
                Outcome::Refused(r)
            }
            // The package threw: an answer about this schema (the tool cannot be sent with it),
            // not a breakage of the adapter, which keeps serving.
            AnswerBody::Error(e) => Outcome::Crashed(Crash {
                message: crate::terminal::sanitize(&e.message),
                detail: format!(
                    "{} ({} {}) threw on request {id} (not a refusal)\n{}",
                    self.spec.label(),
                    running.started.name,
                    running.started.version,
                    running.process.stderr_tail()
                ),
            }),
        })
    }

    /// Start the process if it is not running. `Err` carries the fault for the current request.
    fn ensure_running(&self, state: &mut State) -> Result<(), String> {
        let failed_starts = match state {
            State::Running(_) => return Ok(()),
            State::Unavailable(reason) => return Err(reason.clone()),
            State::GivenUp(GiveUp::Starts(last)) => {
                return Err(format!("{}: gave up after {} failed starts; the last one: {last}", self.spec.label(), self.config.start_attempts));
            }
            State::GivenUp(GiveUp::Hangs(last)) => {
                return Err(format!(
                    "{}: gave up for this run after a request and a probe went unanswered within {} ms (not waited for again): {last}",
                    self.spec.label(),
                    self.config.request_timeout.as_millis()
                ));
            }
            State::GivenUp(GiveUp::Setup(why)) => return Err(format!("{}: {why}", self.spec.label())),
            State::Idle { failed_starts } => *failed_starts,
        };
        // Its environment first: made now if it has to be, or the reason it cannot run.
        match self.readiness() {
            Readiness::Ready => {}
            Readiness::Unavailable(reason) => {
                let reason = format!("{}: {reason}", self.spec.label());
                *state = State::Unavailable(reason.clone());
                return Err(reason);
            }
            Readiness::Failed(why) => {
                *state = State::GivenUp(GiveUp::Setup(why.clone()));
                return Err(format!("{}: {why}", self.spec.label()));
            }
        }
        match self.start() {
            Ok(running) => {
                *state = State::Running(Box::new(running));
                Ok(())
            }
            Err(StartError::Unavailable(reason)) => {
                *state = State::Unavailable(reason.clone());
                Err(reason)
            }
            Err(StartError::Fault(message)) => {
                let failed_starts = failed_starts + 1;
                *state = if failed_starts >= self.config.start_attempts {
                    State::GivenUp(GiveUp::Starts(message.clone()))
                } else {
                    State::Idle { failed_starts }
                };
                Err(message)
            }
        }
    }

    fn start(&self) -> Result<Running, StartError> {
        let label = self.spec.label();
        let mut process = match Process::spawn(&self.spec.command, &self.spec.cwd, self.config.max_line_bytes) {
            Ok(p) => p,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let program = self.spec.command.first().map_or("", String::as_str);
                return Err(StartError::Unavailable(format!(
                    "{label}: `{program}` is not installed (not found on PATH, from {}); {}",
                    self.spec.cwd.display(),
                    self.spec.install_hint()
                )));
            }
            Err(e) => return Err(StartError::Fault(format!("{label}: cannot start it: {e}"))),
        };
        let fail = |process: Process, what: String| {
            let (status, tail) = process.terminate();
            let status = status.map_or_else(|| "status unknown".to_owned(), |s| s.to_string());
            StartError::Fault(format!("{label}: the handshake failed: {what} ({status})\n{tail}"))
        };
        let start = protocol::StartRequest { start: protocol::Start { protocol: protocol::VERSION } };
        let line = serde_json::to_vec(&start).unwrap_or_default();
        let asked = std::time::Instant::now();
        if let Err(e) = process.send(&line, self.config.start_timeout) {
            return Err(fail(process, format!("cannot write the start request: {e}")));
        }
        let line = match process.receive(self.config.start_timeout.saturating_sub(asked.elapsed())) {
            Ok(StdoutEvent::Line(line)) => line,
            Ok(StdoutEvent::TooLong { limit, .. }) => return Err(fail(process, format!("a line longer than {limit} bytes"))),
            Ok(StdoutEvent::Closed(_)) | Err(ReceiveError::Closed(_)) => return Err(fail(process, "the adapter exited".to_owned())),
            Err(ReceiveError::Timeout) => {
                return Err(fail(process, format!("no answer within {} ms", self.config.start_timeout.as_millis())));
            }
        };
        match protocol::parse_response(&line, self.config.strict) {
            Ok(Response::Started { mut started }) if started.protocol == protocol::VERSION => {
                started.name = crate::terminal::sanitize(&started.name);
                started.version = crate::terminal::sanitize(&started.version);
                Ok(Running { process, started, next_id: 1 })
            }
            Ok(Response::Started { started }) => {
                Err(fail(process, format!("it speaks protocol {}, the harness speaks {}", started.protocol, protocol::VERSION)))
            }
            Ok(Response::Unavailable { unavailable }) => {
                drop(process);
                Err(StartError::Unavailable(format!("{label}: {}; {}", crate::terminal::sanitize(&unavailable.reason), self.spec.install_hint())))
            }
            Ok(Response::Answer(_)) => Err(fail(process, "it answered the start request with a translation".to_owned())),
            Err(e) => Err(fail(process, e.to_string())),
        }
    }
}

fn faulted(message: String) -> Outcome {
    Outcome::Faulted(Fault { message })
}

/// A translator served by an adapter.
pub struct ExternalTranslator {
    name: String,
    adapter: Arc<Adapter>,
    /// Opened on first use, once the adapter's environment is ready: its fingerprint covers the
    /// installed packages, so it must not be taken before they are set up.
    cache: Option<Arc<OnceLock<Cache>>>,
}

impl ExternalTranslator {
    /// A translator that asks `adapter` every time.
    #[must_use]
    pub fn new(name: impl Into<String>, adapter: Arc<Adapter>) -> Self {
        Self { name: name.into(), adapter, cache: None }
    }

    /// A translator that asks its cache first, and `adapter` on a miss. The cache is opened in
    /// `cache` (shared by the translators of one adapter) on first use, after the adapter's
    /// environment is set up; a translator whose environment failed to set up has none.
    #[must_use]
    pub fn cached(name: impl Into<String>, adapter: Arc<Adapter>, cache: Arc<OnceLock<Cache>>) -> Self {
        Self { name: name.into(), adapter, cache: Some(cache) }
    }

    /// The cache, opened once the environment is ready.
    fn cache(&self) -> Option<&Cache> {
        let cell = self.cache.as_ref()?;
        matches!(self.adapter.readiness(), Readiness::Ready).then(|| cell.get_or_init(|| Cache::open(self.adapter.spec())))
    }

    /// Keep the handshake once the adapter has answered through it.
    fn keep_started(&self, cache: &Cache) {
        if let Some(started) = self.adapter.started() {
            cache.keep_started(&started);
        }
    }

    #[must_use]
    pub fn adapter(&self) -> &Arc<Adapter> {
        &self.adapter
    }
}

impl Translator for ExternalTranslator {
    fn name(&self) -> &str {
        &self.name
    }

    fn translate(&self, source: &Value) -> Outcome {
        let Some(cache) = self.cache() else { return self.adapter.translate(&self.name, source) };
        if let Some(kept) = cache.get(&self.name, Call::Conversion, source) {
            return kept;
        }
        let outcome = self.adapter.translate(&self.name, source);
        self.keep_started(cache);
        cache.offer(&self.name, source, &outcome);
        outcome
    }

    /// Not asked of the adapter (which would start it) when it has started under the same
    /// fingerprint before: a missing package changes the fingerprint. Its environment is set up
    /// first, if it has to be; one that failed to set up is not "unavailable": every case faults.
    fn unavailable(&self) -> Option<String> {
        if let Readiness::Unavailable(_) | Readiness::Failed(_) = self.adapter.readiness() {
            return self.adapter.unavailable();
        }
        if self.cache().is_some_and(|c| c.started().is_some()) && !self.adapter.has_run() {
            return None;
        }
        self.adapter.unavailable()
    }

    /// The adapter's fingerprint ([`cache::fingerprint`]) when its answers are cached; without the
    /// cache (`--no-cache`, or an environment that failed to set up) its records are not kept
    /// either.
    fn fingerprint(&self) -> Option<u64> {
        self.cache().map(Cache::fingerprint)
    }

    fn through_entry(&self, source: &Value) -> Option<Outcome> {
        let Some(cache) = self.cache() else { return Some(self.adapter.translate_through_entry(&self.name, source)) };
        if let Some(kept) = cache.get(&self.name, Call::Entry, source) {
            return Some(kept);
        }
        let outcome = self.adapter.translate_through_entry(&self.name, source);
        self.keep_started(cache);
        cache.offer_entry(&self.name, source, &outcome);
        Some(outcome)
    }
}

/// An external translator as its table declares it.
#[derive(Debug, Clone, Copy)]
pub struct Declared<'a> {
    pub name: &'a str,
    /// `run:`, the adapter's command.
    pub run: &'a [String],
    /// The install hint (`install:`, or the one `environment:` gives).
    pub install: Option<&'a str>,
    /// `environment:`, set up on first use.
    pub environment: Option<&'a setup::Environment>,
}

/// The external translators `tables` declare, one adapter process per distinct command, run from
/// `root`, each behind its cache when [`Config::cache`] says so, and each environment set up (on
/// first use) once for every adapter that runs in it.
#[must_use]
pub fn from_tables<'a>(root: &std::path::Path, tables: impl IntoIterator<Item = Declared<'a>>, config: &Config) -> BTreeMap<String, Arc<ExternalTranslator>> {
    type Shared = (Arc<Adapter>, Option<Arc<OnceLock<Cache>>>);
    let mut adapters: BTreeMap<Vec<String>, Shared> = BTreeMap::new();
    let mut setups: BTreeMap<setup::Environment, Arc<Setup>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for Declared { name, run: command, install, environment } in tables {
        let (adapter, cache) = adapters
            .entry(command.to_vec())
            .or_insert_with(|| {
                let spec = AdapterSpec { command: command.to_vec(), cwd: root.to_owned(), install: install.map(str::to_owned) };
                let mut adapter = Adapter::new(spec, config.clone());
                if let Some(environment) = environment {
                    let setup = setups.entry(environment.clone()).or_insert_with(|| Arc::new(Setup::new(environment.clone(), root, config.install)));
                    adapter = adapter.in_environment(setup.clone());
                }
                (Arc::new(adapter), config.cache.then(|| Arc::new(OnceLock::new())))
            })
            .clone();
        let translator = match cache {
            Some(cache) => ExternalTranslator::cached(name, adapter, cache),
            None => ExternalTranslator::new(name, adapter),
        };
        out.insert(name.to_owned(), Arc::new(translator));
    }
    out
}
