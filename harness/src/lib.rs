//! schema-fidelity: the fidelity contract for tool-schema translators, checked.
//!
//! Each translator has a *disposition table* (`dispositions/<name>.yaml`) that gives every JSON
//! Schema keyword one disposition: preserved, approximated in a named direction, or refused. The
//! [oracle] runs the translator on every [corpus] case and holds the projection to its table: no
//! keyword without a row, refusals exactly where rows say so, a projection valid in its grammar
//! and in draft 2020-12, and acceptance that differs from the source only in the directions the
//! rows present allow, shown by witness instances.
//!
//! - [`budget`]: the named limits on input size and on what the generators build.
//! - [`json`]: reading JSON strictly (duplicate keys and lossy integers are errors).
//! - [`terminal`]: text from outside, made safe to print.
//! - [`deviation`]: the words of a deviation (direction, what a keyword became, `known_violation` marks).
//! - [`diagnostic`]: `file:line` diagnostics of the table and target lints.
//! - [`table`]: loading and linting tables; row lookup.
//! - [`target`]: provider surfaces (`targets/<name>.yaml`): dialect, grammar, recursion, object root, limits.
//! - [`measure`]: what a limit counts, measured on source and projection.
//! - [`schemas`]: the JSON Schemas of tables, targets and corpus files, used by the lint.
//! - [`corpus`]: own cases and the JSON-Schema-Test-Suite.
//! - [`validation`]: building draft 2020-12 validators offline, and the environment a trial runs in.
//! - [`grammar`]: holding a projection to its target's grammar.
//! - [`verdict`]: what a trial concludes: verdicts, failures, witnesses, attributions, evidence.
//! - [`oracle`]: the per-trial check.
//! - [`codec`]: applying a projection's instance mapping.
//! - [`dialect`]: lifting non-JSON-Schema dialects for comparison.
//! - [`retrieve`]: the offline `$ref` retriever.
//! - [`session`]: the project, tables, corpus and records, loaded once per command or test run.
//! - [`trials`]: tables × corpus as libtest-mimic trials.
//! - [`external`]: translators in other languages, run as adapter processes over a JSON-lines protocol.
//! - [`project`]: where things are on disk.
//! - [`settings`]: every `SCHEMA_FIDELITY_*` variable, read once per command.
//! - [`report`]: the committed reports (matrix, per-translator pages, `report.json`) and the CLI's
//!   `check`, `explain` and `new`.
//! - [`witness`]: instances drawn from both sides of a trial, near misses, shrinking.
//! - [`commands`]: the CLI's `init`, which scaffolds a repository of one's own (config, table,
//!   adapter, workflow), and the lint of what it left TODO.
//! - [`mcp`]: real MCP servers: a stdio client, the pinned servers whose tools `harvest` turns
//!   into corpus cases, and `check --mcp`.
//!
//! The `schema-fidelity` binary runs the same checks for people; `cargo test` runs them as trials.

pub mod attribution;
pub mod budget;
// Before every module that prints: the output macros (`say!`, `tell!`) are defined there.
#[macro_use]
pub mod commands;
pub mod cli;
pub mod codec;
pub mod corpus;
pub mod deviation;
pub mod diagnostic;
pub mod dialect;
pub mod embedded;
pub mod disk;
pub mod external;
pub mod grammar;
pub mod hash;
pub mod json;
pub mod mcp;
pub mod measure;
pub mod oracle;
pub mod prover;
pub mod project;
pub mod records;
pub mod recursion;
pub mod report;
pub mod retrieve;
pub mod schemas;
pub mod session;
pub mod settings;
pub mod table;
pub mod target;
pub mod terminal;
pub mod trials;
pub mod validation;
pub mod verdict;
pub mod witness;
pub mod yaml;
