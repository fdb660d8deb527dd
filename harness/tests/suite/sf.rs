//! The command line as the tests drive it: in process ([`schema_fidelity::cli::run`]) for what a
//! command says and does, as the binary ([`spawned`]) only for what a process alone shows (the
//! exit on a closed stdout, colour on a terminal, budgets settled per process, a kill mid-write,
//! a shell pipeline).
//!
//! In process, a command costs what it does: no process start, no second link of the binary's
//! code into memory. Both paths run the same `cli::run`; the binary is a shell that hands it the
//! process's arguments, folder, environment and streams (`harness/src/main.rs`).

use std::path::Path;
use std::process::{Command, Output};

use schema_fidelity::cli::{self, Invocation};

/// The binary, for what only a process shows.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_schema-fidelity");

/// What a command did: its exit status and what it wrote.
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// Everything, for an assertion's message.
    pub(crate) fn all(&self) -> String {
        format!("exit {}\n--- stdout\n{}--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

impl From<Output> for Run {
    fn from(Output { status, stdout, stderr }: Output) -> Self {
        Self { code: status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&stdout).into_owned(), stderr: String::from_utf8_lossy(&stderr).into_owned() }
    }
}

/// Run `schema-fidelity ARGS` in process in `dir`, with this process's environment less
/// `remove` and with `env` set, as a process started there with that environment would.
pub(crate) fn in_process(dir: &Path, args: &[&str], env: &[(&str, &str)], remove: &[&str]) -> Run {
    // What `cli::run` reads from its variables (and `check --mcp` hands its server whole);
    // anything else (PATH, say) reaches the processes a command starts only through the process's
    // own environment, so a test that sets it must start the binary.
    let mcp = args.contains(&"--mcp");
    for name in env.iter().map(|(name, _)| name).chain(remove) {
        assert!(
            mcp || name.starts_with("SCHEMA_FIDELITY_") || ["CI", "NO_COLOR", "CLICOLOR_FORCE", "TERM"].contains(name),
            "{name} is not read by cli::run: run the command as a process (crate::sf::spawned)"
        );
    }
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.to_string_lossy().into_owned())))
        .filter(|(name, _)| !remove.contains(&name.as_str()) && !env.iter().any(|(set, _)| set == name))
        .collect();
    vars.extend(env.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run(std::iter::once("schema-fidelity").chain(args.iter().copied()), Invocation::new(dir, vars, &mut out, &mut err));
    Run { code: i32::from(code), stdout: String::from_utf8_lossy(&out).into_owned(), stderr: String::from_utf8_lossy(&err).into_owned() }
}

/// `schema-fidelity ARGS` as a process of its own in `dir`, with `env` set and `remove` unset.
#[allow(dead_code, reason = "the modules that still need a process use their own; kept for those that move here")]
pub(crate) fn spawned(dir: &Path, args: &[&str], env: &[(&str, &str)], remove: &[&str]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir);
    for name in remove {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().copied());
    Run::from(cmd.output().expect("the binary runs"))
}
