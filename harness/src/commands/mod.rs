//! The commands of the `schema-fidelity` binary, in the library where they can be tested as
//! functions; [`crate::cli`] parses the command line and calls them with a [`Cx`]. The commands
//! depend on nothing of the parser: what they share (the context, the exit statuses, the output
//! macros `say!`, `say_part!`, `tell!`) is here.
//!
//! - [`check`]: what each translator does to a user's tool schema;
//! - [`explain`]: one row of a table in plain words, with its cases and a witness;
//! - [`scaffold`]: a new table with a `TODO` row per keyword (`new`);
//! - [`init`]: a repository of one's own (config, table, adapter, workflow);
//! - `run`, `report`, `lint`, `harvest`: the commands that run the contract, write and compare
//!   the reports, check the files, and harvest the MCP servers' tools.

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

mod context;

pub use context::{EXIT_CLOSED_PIPE, EXIT_DECLARED_LOSS, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Stop};
pub(crate) use context::{Cx, Io, check_wanted, load, load_wanted, project, status, unavailable_translators, unknown_translator};

pub mod check;
pub mod explain;
pub(crate) mod harvest;
pub mod init;
pub(crate) mod lint;
pub(crate) mod report;
pub(crate) mod run;
pub mod scaffold;
