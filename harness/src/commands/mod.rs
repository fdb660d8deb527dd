//! The commands of the `schema-fidelity` binary, in the library where they can be tested as
//! functions; [`crate::cli`] parses the command line and calls them.
//!
//! - [`check`]: what each translator does to a user's tool schema;
//! - [`explain`]: one row of a table in plain words, with its cases and a witness;
//! - [`scaffold`]: a new table with a `TODO` row per keyword (`new`);
//! - [`init`]: a repository of one's own (config, table, adapter, workflow);
//! - `run`, `report`, `lint`, `harvest`: the commands that run the contract, write and compare
//!   the reports, check the files, and harvest the MCP servers' tools.

pub mod check;
pub mod explain;
pub(crate) mod harvest;
pub mod init;
pub(crate) mod lint;
pub(crate) mod report;
pub(crate) mod run;
pub mod scaffold;
