//! Setting up an external translator's environment on first use, as pre-commit does for its hooks.
//!
//! A table names the environment its adapter runs in, typed, not as a shell string the harness
//! would run: `environment: {kind: python-venv, dir: translators/external/litellm}` is a virtual
//! environment at `DIR/.venv` made from `DIR/requirements.txt`; `{kind: npm, dir: ...}` is
//! `DIR/node_modules` made by `npm ci` from `DIR/package.json` and `DIR/package-lock.json`. The
//! environment goes where the table's `run:` already points (inside the project, ignored by git),
//! so tables and adapters are the same whether a person, CI or the harness made it.
//!
//! **When.** The first time a translator is asked anything (whether it is available, a
//! translation, its fingerprint), its environment is looked at, once per process ([`Setup`]):
//!
//! - present, with the harness's marker recording the hash of the lock files it was made from:
//!   used as it is;
//! - present without the marker (made by hand, or by an older `.ci/run`), or a symbolic link:
//!   used as it is, never touched (delete it to have it made again);
//! - missing, or made from other lock files (the marker's hash differs): made now, unless
//!   [`Config::install`](super::Config::install) is off (`--no-install`, [`NO_INSTALL_ENV`]):
//!   then a missing one leaves the translator unavailable with that reason, and an outdated one
//!   is used as it is, with a note. So `lint`, which never asks a translator anything, never
//!   installs.
//!
//! The runtime a kind needs (`python3`; `npm` and `node`) is looked up on `PATH` first: without
//! it the translator is unavailable, with the reason. An install that fails is not "unavailable"
//! (the translator is there to be measured and could not be): every case of its translators fails,
//! naming the log, and the log's last lines are printed when it happens.
//!
//! **Whole or not at all.** The environment is made in a temporary sibling of `DIR`
//! (`.DIRNAME.schema-fidelity-setup/`, at the same depth, so that the relative links `npm` makes
//! for a `file:` dependency still point at `DIR`'s own files once moved), the marker is written
//! into it last, and it is renamed into place. An interrupted setup leaves only the temporary
//! sibling, which the next setup deletes; never a half environment that looks made. A virtual
//! environment records its absolute path in `pyvenv.cfg` and in the scripts of `bin/`: those are
//! rewritten to the final path before the rename (Python itself finds its environment from
//! `pyvenv.cfg` beside its interpreter, wherever that is).
//!
//! **Once.** Inside a process, translators sharing an environment share one [`Setup`]; across
//! processes (two commands at once, the trials of `cargo nextest`, one process each), an
//! exclusive `flock` on `target/schema-fidelity/setup/<name>.lock` is held while making it, and
//! whoever waited for it looks again before making anything.
//!
//! **What it says.** One line on stderr when a setup starts (what, why, the log) and one when it
//! ends, with the time it took; on a terminal, a line in between that shows it moving (elapsed
//! time, and for pip the packages collected so far). The commands' output goes to
//! `target/schema-fidelity/setup/<name>.log`, rewritten by each setup.
//!
//! What the projection cache keys on is unchanged: it is opened once the environment is ready, so
//! a newly made environment (its `pyvenv.cfg`, its distributions, `node_modules/.package-lock.json`)
//! gives the adapter a new fingerprint ([`super::cache`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::hash::Fnv1a;

/// Set to `1` to never set an environment up (as `--no-install` does).
pub const NO_INSTALL_ENV: &str = "SCHEMA_FIDELITY_NO_INSTALL";

/// The marker inside a made environment: the hash of the lock files it was made from.
const MARKER: &str = ".schema-fidelity-setup.json";
/// The suffix of the temporary sibling an environment is made in.
const STAGING_SUFFIX: &str = "schema-fidelity-setup";
/// Log lines shown when a setup fails.
const TAIL_LINES: usize = 20;
/// Bumped when the way an environment is made changes, so that every marker is outdated.
const RECIPE: &[u8] = b"schema-fidelity setup 1";

/// How an environment is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `python3 -m venv DIR/.venv`, then `pip install -r requirements.txt` from `DIR`.
    PythonVenv,
    /// `npm ci` in `DIR`: `DIR/node_modules` from `package.json` and `package-lock.json`.
    Npm,
}

impl Kind {
    /// The name tables use.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::PythonVenv => "python-venv",
            Self::Npm => "npm",
        }
    }

    /// The folder under `DIR` it makes.
    #[must_use]
    pub fn installed(self) -> &'static str {
        match self {
            Self::PythonVenv => ".venv",
            Self::Npm => "node_modules",
        }
    }

    /// The files under `DIR` it is made from, whose bytes the marker's hash covers.
    #[must_use]
    pub fn locks(self) -> &'static [&'static str] {
        match self {
            Self::PythonVenv => &["requirements.txt"],
            Self::Npm => &["package.json", "package-lock.json"],
        }
    }

    /// The programs making it needs on `PATH`.
    #[must_use]
    pub fn runtimes(self) -> &'static [&'static str] {
        match self {
            Self::PythonVenv => &["python3"],
            Self::Npm => &["npm", "node"],
        }
    }
}

/// An environment as a table declares it (`environment:`): its kind and its folder, relative to
/// the project root.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    pub kind: Kind,
    pub dir: String,
}

impl Environment {
    /// What it makes, relative to the project root: `DIR/.venv`, `DIR/node_modules`.
    #[must_use]
    pub fn installed(&self) -> String {
        format!("{}/{}", self.dir, self.kind.installed())
    }

    /// The commands a person would run to make it by hand (the hint shown when a translator is
    /// unavailable, in place of a table's `install:`).
    #[must_use]
    pub fn install_hint(&self) -> String {
        let dir = &self.dir;
        match self.kind {
            Kind::PythonVenv => format!("python3 -m venv {dir}/.venv && {dir}/.venv/bin/pip install -r {dir}/requirements.txt"),
            Kind::Npm => format!("npm ci --prefix {dir}"),
        }
    }

    /// Whether the `run:` word `word` (a project-relative path) lies in what this environment
    /// makes, so that it exists once the environment is set up.
    #[must_use]
    pub fn provides(&self, word: &str) -> bool {
        word.strip_prefix(self.installed().as_str()).is_some_and(|rest| rest.starts_with('/'))
    }

    /// What is wrong with its shape, without looking at the disk: `dir` must be a plain relative
    /// path inside the project.
    #[must_use]
    pub fn shape_problems(&self) -> Vec<String> {
        let dir = Path::new(&self.dir);
        let plain = !self.dir.is_empty() && !self.dir.ends_with('/') && !self.dir.contains("//") && dir.components().all(|c| matches!(c, Component::Normal(_)));
        if plain {
            Vec::new()
        } else {
            vec![format!("`environment.dir: {}` is not a plain folder of the project: a relative path without `.`, `..` or a trailing `/`, e.g. `translators/external/python`", self.dir)]
        }
    }

    /// What would keep it from being set up, or from being the one `run` (the table's `run:`)
    /// loads its packages from: a folder or lock file that does not exist under `root`, a `run:`
    /// that does not start this environment's interpreter (python-venv) or names nothing in its
    /// folder (npm).
    #[must_use]
    pub fn problems(&self, root: &Path, run: &[String]) -> Vec<String> {
        if !self.shape_problems().is_empty() {
            return Vec::new();
        }
        let dir = root.join(&self.dir);
        if !dir.is_dir() {
            return vec![format!("`environment.dir: {}` is not a folder of the project (paths are relative to the project root)", self.dir)];
        }
        let mut out: Vec<String> = self
            .kind
            .locks()
            .iter()
            .filter(|lock| !dir.join(lock).is_file())
            .map(|lock| format!("`environment:` {} is made from {}/{lock}, which does not exist", self.kind.name(), self.dir))
            .collect();
        match self.kind {
            Kind::PythonVenv => {
                let interpreter = format!("{}/bin/python", self.installed());
                if !run.first().is_some_and(|program| program.starts_with(&interpreter)) {
                    out.push(format!(
                        "`run:` does not start this environment's interpreter `{interpreter}`, so the packages set up there are not the ones the adapter loads"
                    ));
                }
            }
            Kind::Npm => {
                let prefix = format!("{}/", self.dir);
                if !run.iter().any(|word| word.starts_with(&prefix)) {
                    out.push(format!(
                        "`run:` names nothing in `{}/`, so the packages npm sets up there are not the ones the adapter loads (Node looks for them beside its script)",
                        self.dir
                    ));
                }
            }
        }
        out
    }

    /// The file names of its log and lock under `target/schema-fidelity/setup/`.
    fn slug(&self) -> String {
        format!("{}-{}", self.dir.replace('/', "-"), self.kind.name())
    }
}

/// Whether an environment can be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// There (made now, before, or by hand).
    Ready,
    /// Missing, and not to be made here: the reason (`--no-install`, no runtime on `PATH`).
    Unavailable(String),
    /// Making it failed: why, naming the log.
    Failed(String),
}

/// What is on disk where an environment goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Missing,
    /// Made by the harness from the current lock files.
    Current,
    /// Made by the harness from other lock files (or its marker does not read).
    Outdated,
    /// Not the harness's (no marker, a link, a file): used as it is, never touched.
    ByHand,
}

/// What the marker records.
#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    kind: Kind,
    /// The hash of the lock files ([`lock_hash`]).
    locks: String,
    /// How long making it took.
    seconds: f64,
}

/// One environment of one project, set up at most once per process.
#[derive(Debug)]
pub struct Setup {
    environment: Environment,
    root: PathBuf,
    install: bool,
    readiness: OnceLock<Readiness>,
}

impl Setup {
    /// The environment `environment` of the project at `root`; `install` says whether a missing
    /// or outdated one may be made.
    #[must_use]
    pub fn new(environment: Environment, root: &Path, install: bool) -> Self {
        Self { environment, root: root.to_owned(), install, readiness: OnceLock::new() }
    }

    #[must_use]
    pub fn environment(&self) -> &Environment {
        &self.environment
    }

    /// Whether it can be used, making it first if it has to be (once per process: every later
    /// call, from any thread, gets the first one's answer, waiting for it if need be).
    pub fn readiness(&self) -> &Readiness {
        self.readiness.get_or_init(|| self.prepare())
    }

    fn dir(&self) -> PathBuf {
        self.root.join(&self.environment.dir)
    }

    fn installed(&self) -> PathBuf {
        self.dir().join(self.environment.kind.installed())
    }

    fn prepare(&self) -> Readiness {
        let shown = self.environment.installed();
        let hint = self.environment.install_hint();
        let locks = match lock_hash(&self.dir(), self.environment.kind) {
            Ok(hash) => hash,
            // Without its lock files it cannot be judged: one that is there is left alone.
            Err(_) if fs::symlink_metadata(self.installed()).is_ok() => return Readiness::Ready,
            Err(e) => return Readiness::Failed(format!("its environment {shown} is not set up, and cannot be: {e}")),
        };
        let found = match found(&self.installed(), &locks) {
            Ok(found) => found,
            Err(e) => return Readiness::Failed(format!("cannot look at its environment {shown}: {e}")),
        };
        match found {
            Found::Current | Found::ByHand => return Readiness::Ready,
            Found::Outdated if !self.install => {
                note(&format!("{shown} was set up from other {}; --no-install leaves it as it is", self.lock_names()));
                return Readiness::Ready;
            }
            Found::Missing if !self.install => {
                return Readiness::Unavailable(format!(
                    "its environment {shown} is not set up, and --no-install (or {NO_INSTALL_ENV}=1) turns setup off: without it, the first `run`, `check` or `report` sets it up; install it with `{hint}`"
                ));
            }
            Found::Missing | Found::Outdated => {}
        }
        let runtimes: Result<Vec<PathBuf>, &str> = self.environment.kind.runtimes().iter().map(|r| on_path(r).ok_or(*r)).collect();
        let runtimes = match runtimes {
            Ok(found) => found,
            Err(missing) if found == Found::Outdated => {
                note(&format!("{shown} was set up from other {}, and `{missing}` is not on PATH to set it up again: it is used as it is", self.lock_names()));
                return Readiness::Ready;
            }
            Err(missing) => {
                return Readiness::Unavailable(format!("its environment {shown} is not set up, and `{missing}`, which sets it up, is not on PATH; install it with `{hint}`"));
            }
        };
        match self.make(found, &locks, &runtimes) {
            Ok(()) => Readiness::Ready,
            Err(message) => Readiness::Failed(message),
        }
    }

    /// "requirements.txt", "package.json and package-lock.json".
    fn lock_names(&self) -> String {
        self.environment.kind.locks().join(" and ")
    }

    /// Make the environment, under the lock; `Err` says why it failed, naming the log.
    fn make(&self, found: Found, locks: &str, runtimes: &[PathBuf]) -> Result<(), String> {
        let shown = self.environment.installed();
        let kept = crate::disk::kept_dir(&self.root, &["setup"]);
        crate::disk::create_real_dirs(&self.root, &kept).map_err(|e| format!("its environment {shown} could not be set up: cannot create {}: {e}", self.relative(&kept)))?;
        let lock_file = kept.join(format!("{}.lock", self.environment.slug()));
        let _lock = lock(&lock_file, &shown).map_err(|e| format!("its environment {shown} could not be set up: cannot lock {}: {e}", self.relative(&lock_file)))?;
        // Another process may have made it while this one waited.
        match found_again(&self.installed(), locks) {
            Found::Current | Found::ByHand => return Ok(()),
            Found::Missing | Found::Outdated => {}
        }
        let log_path = kept.join(format!("{}.log", self.environment.slug()));
        let log_shown = self.relative(&log_path);
        let why = match found {
            Found::Outdated => format!("its {} changed", self.lock_names()),
            _ => "first use here".to_owned(),
        };
        let started = Instant::now();
        say(&format!("setting up {shown} ({}; {why}); log: {log_shown}", self.recipe()));
        let shown_line = Shown::start(&shown, &log_path, self.packages());
        let made = self.make_in_staging(&log_path, locks, started, runtimes);
        drop(shown_line);
        match made {
            Ok(()) => {
                say(&format!("set up {shown} in {:.1} s", started.elapsed().as_secs_f64()));
                Ok(())
            }
            Err(why) => {
                let tail = tail(&log_path, TAIL_LINES);
                say(&format!(
                    "error: setting up {shown} failed after {:.1} s: {why}; its translators fail until it is set up (the log: {log_shown}); its last lines:\n{tail}",
                    started.elapsed().as_secs_f64()
                ));
                Err(format!("its environment {shown} could not be set up: {why} (the log: {log_shown})"))
            }
        }
    }

    /// What making it runs, in words.
    fn recipe(&self) -> &'static str {
        match self.environment.kind {
            Kind::PythonVenv => "python3 -m venv, then pip install -r requirements.txt",
            Kind::Npm => "npm ci",
        }
    }

    /// How many packages `requirements.txt` pins (what pip's progress counts up to).
    fn packages(&self) -> Option<usize> {
        (self.environment.kind == Kind::PythonVenv).then(|| {
            let text = fs::read_to_string(self.dir().join("requirements.txt")).unwrap_or_default();
            text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('-')).count()
        })
    }

    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).display().to_string()
    }

    /// Make it in the temporary sibling, mark it, rename it into place.
    fn make_in_staging(&self, log_path: &Path, locks: &str, started: Instant, runtimes: &[PathBuf]) -> Result<(), String> {
        let dir = std::path::absolute(self.dir()).map_err(|e| format!("cannot resolve {}: {e}", self.environment.dir))?;
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
            return Err(format!("{} has no parent folder", self.environment.dir));
        };
        let staging = parent.join(format!(".{}.{STAGING_SUFFIX}", name.to_string_lossy()));
        // What an interrupted setup left, if anything: never used, always made again.
        remove_any(&staging).map_err(|e| format!("cannot remove what an earlier setup left in {}: {e}", staging.display()))?;
        fs::create_dir(&staging).map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
        let result = self.make_at(&dir, &staging, log_path, locks, started, runtimes);
        let _ = remove_any(&staging);
        result
    }

    fn make_at(&self, dir: &Path, staging: &Path, log_path: &Path, locks: &str, started: Instant, runtimes: &[PathBuf]) -> Result<(), String> {
        let mut log = File::create(log_path).map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
        let _ = writeln!(log, "# schema-fidelity: setting up {} ({})", self.environment.installed(), self.recipe());
        let kind = self.environment.kind;
        let installed = kind.installed();
        let made = staging.join(installed);
        let runtime = |name: &str| runtimes.iter().find(|p| p.file_name().is_some_and(|f| f == name)).cloned().unwrap_or_else(|| PathBuf::from(name));
        match kind {
            Kind::PythonVenv => {
                let python3 = runtime("python3");
                // ensurepip is most of `python3 -m venv` (6.4 of 6.6 s here): where the host's pip
                // can install into another interpreter (`--python`, pip 22.3), the environment is
                // made without one and the host's pip installs into it. Otherwise, pip inside it.
                let host_pip = host_pip_installs_elsewhere(&python3);
                let mut venv = Command::new(&python3);
                venv.arg("-m").arg("venv");
                if host_pip {
                    venv.arg("--without-pip");
                }
                run_logged(&mut log, "python3 -m venv", venv.arg(&made).current_dir(dir))?;
                let mut pip = if host_pip {
                    let mut pip = Command::new(&python3);
                    pip.args(["-m", "pip", "--python"]).arg(made.join("bin").join("python"));
                    pip
                } else {
                    let mut pip = Command::new(made.join("bin").join("python"));
                    pip.args(["-m", "pip"]);
                    pip
                };
                // From DIR: a relative path in requirements.txt (a local package, `--find-links`)
                // means the same as when a person runs it there.
                run_logged(
                    &mut log,
                    "pip install -r requirements.txt",
                    pip.args(["install", "--disable-pip-version-check", "--no-input", "--progress-bar", "off", "-r", "requirements.txt"]).current_dir(dir),
                )?;
                relocate_venv(&made, &dir.join(installed)).map_err(|e| format!("cannot move the virtual environment's paths to {}: {e}", dir.join(installed).display()))?;
            }
            Kind::Npm => {
                // npm installs into the folder it runs in: a copy of DIR's own files (the lock
                // files, and any `file:` dependency), at the same depth as DIR.
                copy_sources(dir, staging).map_err(|e| format!("cannot copy {} to {}: {e}", dir.display(), staging.display()))?;
                run_logged(
                    &mut log,
                    "npm ci",
                    Command::new(runtime("npm")).args(["ci", "--no-audit", "--no-fund"]).env("npm_config_update_notifier", "false").current_dir(staging),
                )?;
            }
        }
        let marker = Marker { kind, locks: locks.to_owned(), seconds: started.elapsed().as_secs_f64() };
        let bytes = serde_json::to_vec_pretty(&marker).map_err(|e| format!("cannot encode the marker: {e}"))?;
        fs::write(made.join(MARKER), bytes).map_err(|e| format!("cannot write the marker in {}: {e}", made.display()))?;
        // Into place: an outdated one (the harness's own, never one made by hand) is moved aside
        // first and removed with the staging folder.
        let target = dir.join(installed);
        if fs::symlink_metadata(&target).is_ok() {
            fs::rename(&target, staging.join("outdated")).map_err(|e| format!("cannot move the outdated {} aside: {e}", target.display()))?;
        }
        fs::rename(&made, &target).map_err(|e| format!("cannot move {} into place: {e}", made.display()))?;
        let _ = writeln!(log, "# schema-fidelity: set up in {:.1} s", started.elapsed().as_secs_f64());
        Ok(())
    }
}

/// The hash of the lock files of a `kind` environment in `dir`, as the marker records it.
fn lock_hash(dir: &Path, kind: Kind) -> Result<String, String> {
    let mut h = Fnv1a::default();
    h.write_framed(RECIPE);
    h.write_framed(kind.name().as_bytes());
    for lock in kind.locks() {
        let path = dir.join(lock);
        let bytes = crate::budget::read_limited(&path, 64 * 1024 * 1024).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        h.write_framed(lock.as_bytes());
        h.write_framed(&bytes);
    }
    Ok(h.finish())
}

/// What is at `installed`, judged against the lock files' hash `locks`.
fn found(installed: &Path, locks: &str) -> io::Result<Found> {
    match fs::symlink_metadata(installed) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Found::Missing),
        Err(e) => Err(e),
        Ok(m) if !m.is_dir() => Ok(Found::ByHand),
        Ok(_) => Ok(match fs::read(installed.join(MARKER)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Found::ByHand,
            Err(_) => Found::Outdated,
            Ok(bytes) => match serde_json::from_slice::<Marker>(&bytes) {
                Ok(marker) if marker.locks == locks => Found::Current,
                _ => Found::Outdated,
            },
        }),
    }
}

/// [`found`], where an error reads as missing (making it again then says what is wrong).
fn found_again(installed: &Path, locks: &str) -> Found {
    found(installed, locks).unwrap_or(Found::Missing)
}

/// An exclusive lock on `path`, held until the file is dropped; says so when it has to wait.
fn lock(path: &Path, shown: &str) -> io::Result<File> {
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(file),
        Err(rustix::io::Errno::WOULDBLOCK) => {
            say(&format!("waiting for another schema-fidelity process to finish setting up {shown}"));
            rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
            Ok(file)
        }
        Err(e) => Err(e.into()),
    }
}

/// Run `command` with its output appended to `log` (after its full command line); `Err` names
/// it by `what` (the log has the rest) with its exit status.
/// Whether `python3 -m pip` is there and can install into another interpreter (`--python`, from
/// pip 22.3). A Python without pip of its own (Debian's `python3` without `python3-pip`) answers
/// no, and its environments get pip from ensurepip as before.
fn host_pip_installs_elsewhere(python3: &Path) -> bool {
    let Ok(out) = Command::new(python3).args(["-m", "pip", "--version"]).env("PIP_DISABLE_PIP_VERSION_CHECK", "1").stdin(Stdio::null()).stderr(Stdio::null()).output()
    else {
        return false;
    };
    out.status.success() && pip_version_has_python_option(&String::from_utf8_lossy(&out.stdout))
}

/// `pip 23.2.1 from ... (python 3.11)`: at least 22.3?
fn pip_version_has_python_option(version_line: &str) -> bool {
    let Some(version) = version_line.strip_prefix("pip ").and_then(|rest| rest.split_whitespace().next()) else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => (major, minor) >= (22, 3),
        _ => false,
    }
}

fn run_logged(log: &mut File, what: &str, command: &mut Command) -> Result<(), String> {
    let words: Vec<String> = std::iter::once(command.get_program()).chain(command.get_args()).map(|w| w.to_string_lossy().into_owned()).collect();
    let _ = writeln!(log, "$ {}", words.join(" "));
    let (out, err) = match (log.try_clone(), log.try_clone()) {
        (Ok(out), Ok(err)) => (out, err),
        (Err(e), _) | (_, Err(e)) => return Err(format!("cannot hand the log to `{what}`: {e}")),
    };
    let status = command.stdin(Stdio::null()).stdout(out).stderr(err).status().map_err(|e| format!("cannot start `{what}`: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`{what}` failed ({status})")) }
}

/// Rewrite the absolute path of the virtual environment `venv` (made there) to `target` (where it
/// is going) in `pyvenv.cfg` and in the scripts of `bin/` (their `#!` lines, `activate`), so
/// that `bin/activate` and the packages' commands work once it is moved. Binaries are left alone.
fn relocate_venv(venv: &Path, target: &Path) -> io::Result<()> {
    let from = venv.to_string_lossy().into_owned();
    let to = target.to_string_lossy().into_owned();
    let mut files = vec![venv.join("pyvenv.cfg")];
    for entry in fs::read_dir(venv.join("bin"))?.flatten() {
        let path = entry.path();
        let is_file = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if is_file {
            files.push(path);
        }
    }
    for file in files {
        let Ok(bytes) = fs::read(&file) else { continue };
        let name = file.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let text_script = bytes.starts_with(b"#!") || name.starts_with("activate") || name == "pyvenv.cfg";
        let Ok(text) = String::from_utf8(bytes) else { continue };
        if text_script && text.contains(&from) {
            let permissions = fs::metadata(&file)?.permissions();
            fs::write(&file, text.replace(&from, &to))?;
            fs::set_permissions(&file, permissions)?;
        }
    }
    Ok(())
}

/// Copy the files of `from` (an npm project's folder) into `to`, without what is installed or
/// hidden there (`node_modules`, dot-files and folders); links are copied as links.
fn copy_sources(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)?.flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') || name == "node_modules" {
            continue;
        }
        copy_entry(&entry.path(), &to.join(&name))?;
    }
    Ok(())
}

fn copy_entry(from: &Path, to: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(fs::read_link(from)?, to)
    } else if meta.is_dir() {
        fs::create_dir(to)?;
        for entry in fs::read_dir(from)?.flatten() {
            copy_entry(&entry.path(), &to.join(entry.file_name()))?;
        }
        Ok(())
    } else {
        fs::copy(from, to).map(|_| ())
    }
}

/// Remove `path` whatever it is (a link is removed, not followed); nothing there is fine.
fn remove_any(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
    }
}

/// `program` on `PATH`, an executable file.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// The last `n` lines of the log, indented, made safe to print.
fn tail(log: &Path, n: usize) -> String {
    let text = fs::read(log).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(n);
    lines[start..].iter().map(|l| format!("  {}", crate::terminal::sanitize(l))).collect::<Vec<_>>().join("\n")
}

/// A line on stderr (clearing the progress line first on a terminal).
fn say(line: &str) {
    let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
    let mut err = io::stderr().lock();
    if !shown.is_empty() {
        let _ = write!(err, "\r\x1b[2K");
    }
    let _ = writeln!(err, "{}", crate::terminal::sanitize(line));
}

fn note(line: &str) {
    say(&format!("note: {line}"));
}

// ---- the progress line on a terminal --------------------------------------------------------------

/// The setups under way in this process, drawn on one stderr line while any is.
static SHOWN: Mutex<Vec<Progress>> = Mutex::new(Vec::new());
static TICKER: OnceLock<()> = OnceLock::new();

struct Progress {
    id: u64,
    label: String,
    started: Instant,
    log: PathBuf,
    /// For pip: how many packages the requirements pin.
    packages: Option<usize>,
}

/// One setup on the progress line, removed when dropped. Nothing at all when stderr is not a
/// terminal (the start and end lines are enough there).
struct Shown(Option<u64>);

impl Shown {
    fn start(label: &str, log: &Path, packages: Option<usize>) -> Self {
        use std::io::IsTerminal as _;
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        if !io::stderr().is_terminal() {
            return Self(None);
        }
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        SHOWN.lock().unwrap_or_else(PoisonError::into_inner).push(Progress { id, label: label.to_owned(), started: Instant::now(), log: log.to_owned(), packages });
        TICKER.get_or_init(|| {
            std::thread::spawn(tick);
        });
        Self(Some(id))
    }
}

impl Drop for Shown {
    fn drop(&mut self) {
        let Some(id) = self.0 else { return };
        let mut shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
        shown.retain(|p| p.id != id);
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
    }
}

/// Redraw the progress line five times a second, for the life of the process.
fn tick() {
    const SPINNER: [char; 4] = ['|', '/', '-', '\\'];
    let mut frame = 0usize;
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
        if shown.is_empty() {
            continue;
        }
        frame += 1;
        let parts: Vec<String> = shown.iter().map(Progress::describe).collect();
        let mut line = format!("{} setting up {}", SPINNER[frame % SPINNER.len()], parts.join("; "));
        // One line, never wrapped (a wrapped line is not redrawn in place).
        if line.chars().count() > 78 {
            line = line.chars().take(77).collect::<String>() + "…";
        }
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}", crate::terminal::sanitize(&line));
        let _ = err.flush();
    }
}

impl Progress {
    fn describe(&self) -> String {
        let seconds = self.started.elapsed().as_secs();
        match self.packages {
            Some(total) => {
                let collected = fs::read(&self.log).map_or(0, |b| String::from_utf8_lossy(&b).lines().filter(|l| l.starts_with("Collecting ") || l.starts_with("Processing ")).count());
                format!("{} {seconds} s, {}/{total} packages", self.label, collected.min(total))
            }
            None => format!("{} {seconds} s", self.label),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-setup-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("env")).unwrap();
        fs::write(dir.join("env/requirements.txt"), "a==1\n").unwrap();
        dir
    }

    fn venv() -> Environment {
        Environment { kind: Kind::PythonVenv, dir: "env".to_owned() }
    }

    #[test]
    fn what_is_there_is_judged_by_the_marker_and_one_made_by_hand_is_left_alone() {
        let root = scratch("found");
        let dir = root.join("env");
        let installed = dir.join(".venv");
        let hash = lock_hash(&dir, Kind::PythonVenv).unwrap();
        assert_eq!(found(&installed, &hash).unwrap(), Found::Missing);
        fs::create_dir(&installed).unwrap();
        assert_eq!(found(&installed, &hash).unwrap(), Found::ByHand, "no marker: made by hand");
        let marker = |locks: &str| serde_json::to_vec(&Marker { kind: Kind::PythonVenv, locks: locks.to_owned(), seconds: 1.0 }).unwrap();
        fs::write(installed.join(MARKER), marker(&hash)).unwrap();
        assert_eq!(found(&installed, &hash).unwrap(), Found::Current);
        fs::write(dir.join("requirements.txt"), "a==2\n").unwrap();
        let changed = lock_hash(&dir, Kind::PythonVenv).unwrap();
        assert_ne!(hash, changed, "the hash follows the lock file's bytes");
        assert_eq!(found(&installed, &changed).unwrap(), Found::Outdated);
        fs::write(installed.join(MARKER), "not json").unwrap();
        assert_eq!(found(&installed, &changed).unwrap(), Found::Outdated, "a marker that does not read is the harness's, outdated");
        // A link is someone's own arrangement, even a dangling one.
        fs::remove_dir_all(&installed).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), &installed).unwrap();
        assert_eq!(found(&installed, &changed).unwrap(), Found::ByHand);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn without_install_a_missing_environment_is_unavailable_and_nothing_is_made() {
        let root = scratch("no-install");
        let setup = Setup::new(venv(), &root, false);
        let Readiness::Unavailable(reason) = setup.readiness() else { panic!("{:?}", setup.readiness()) };
        assert!(reason.contains("env/.venv is not set up") && reason.contains("--no-install"), "{reason}");
        assert!(reason.contains("install it with `python3 -m venv env/.venv && env/.venv/bin/pip install -r env/requirements.txt`"), "{reason}");
        assert!(!root.join("env/.venv").exists() && !root.join("target").exists(), "nothing made, nothing logged");
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn only_a_pip_from_22_3_installs_into_another_interpreter() {
        assert!(pip_version_has_python_option("pip 23.2.1 from /usr/lib/python3/dist-packages/pip (python 3.11)"));
        assert!(pip_version_has_python_option("pip 22.3 from x (python 3.10)"));
        assert!(pip_version_has_python_option("pip 24.0 from x (python 3.12)"));
        assert!(!pip_version_has_python_option("pip 22.2.2 from x (python 3.10)"));
        assert!(!pip_version_has_python_option("pip 9.0.1 from x (python 3.6)"));
        assert!(!pip_version_has_python_option("/usr/bin/python3: No module named pip"));
        assert!(!pip_version_has_python_option(""));
        // No such interpreter: pip inside the venv, from ensurepip.
        assert!(!host_pip_installs_elsewhere(Path::new("/nonexistent/python3")));
    }

    #[test]
    fn a_venv_moved_into_place_names_its_new_path() {
        let root = scratch("relocate");
        let made = root.join("staging/.venv");
        fs::create_dir_all(made.join("bin")).unwrap();
        let from = made.to_string_lossy().into_owned();
        fs::write(made.join("pyvenv.cfg"), format!("home = /usr/bin\ncommand = /usr/bin/python3 -m venv {from}\n")).unwrap();
        fs::write(made.join("bin/pip"), format!("#!{from}/bin/python3\nimport pip\n")).unwrap();
        fs::set_permissions(made.join("bin/pip"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(made.join("bin/activate"), format!("VIRTUAL_ENV=\"{from}\"\n")).unwrap();
        let binary = [b"\x7fELF".as_slice(), from.as_bytes()].concat();
        fs::write(made.join("bin/tool"), &binary).unwrap();
        let target = root.join("env/.venv");
        relocate_venv(&made, &target).unwrap();
        let to = target.to_string_lossy();
        assert_eq!(fs::read_to_string(made.join("bin/pip")).unwrap(), format!("#!{to}/bin/python3\nimport pip\n"));
        assert_eq!(fs::metadata(made.join("bin/pip")).unwrap().permissions().mode() & 0o777, 0o755, "still executable");
        assert!(fs::read_to_string(made.join("pyvenv.cfg")).unwrap().contains(&format!("-m venv {to}\n")));
        assert_eq!(fs::read_to_string(made.join("bin/activate")).unwrap(), format!("VIRTUAL_ENV=\"{to}\"\n"));
        assert_eq!(fs::read(made.join("bin/tool")).unwrap(), binary, "a binary is not edited");
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_table_environment_is_a_plain_folder_that_its_run_line_uses() {
        let root = scratch("lint");
        let env = venv();
        assert!(env.shape_problems().is_empty());
        for bad in ["", "/abs", "../up", "a/../b", "./a", "a/", "a//b"] {
            assert_eq!(Environment { kind: Kind::Npm, dir: bad.to_owned() }.shape_problems().len(), 1, "`{bad}`");
        }
        let run = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert!(env.problems(&root, &run(&["env/.venv/bin/python", "a.py"])).is_empty());
        let wrong = env.problems(&root, &run(&["python3", "env/a.py"]));
        assert!(wrong.len() == 1 && wrong[0].contains("interpreter `env/.venv/bin/python`"), "{wrong:?}");
        let npm = Environment { kind: Kind::Npm, dir: "env".to_owned() };
        let problems = npm.problems(&root, &run(&["node", "other/a.mjs"]));
        assert!(problems.iter().any(|p| p.contains("env/package.json")) && problems.iter().any(|p| p.contains("env/package-lock.json")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("names nothing in `env/`")), "{problems:?}");
        assert!(npm.provides("env/node_modules/.bin/bun") && !npm.provides("env/node_modules") && !npm.provides("env/node_modulesx/a"));
        assert_eq!(npm.install_hint(), "npm ci --prefix env");
        let _ = fs::remove_dir_all(&root);
    }
}
