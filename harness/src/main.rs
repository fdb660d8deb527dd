//! `schema-fidelity`: run the fidelity contract and tell people what it found.
//!
//! The commands live in the library ([`schema_fidelity::cli`]), callable in process; this binary
//! hands them what a process has: its arguments, its folder, its environment, its stdout and
//! stderr and whether each is a terminal.

use std::io::IsTerminal as _;
use std::process::ExitCode;

use schema_fidelity::cli::{self, Invocation};

fn main() -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("error: cannot read the current directory: {e}");
            return ExitCode::from(cli::EXIT_USAGE);
        }
    };
    // A variable whose name or value is not UTF-8 is passed on lossily: no setting takes such a
    // value, so it is refused by name rather than ignored.
    let vars = std::env::vars_os().map(|(name, value)| (name.to_string_lossy().into_owned(), value.to_string_lossy().into_owned())).collect();
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let (out_terminal, err_terminal) = (out.is_terminal(), err.is_terminal());
    let invocation = Invocation { cwd, vars, out: &mut out, err: &mut err, out_terminal, err_terminal };
    ExitCode::from(cli::run(std::env::args_os(), invocation))
}
