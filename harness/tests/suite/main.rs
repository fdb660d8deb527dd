//! The integration tests, one binary.
//!
//! Each module was a test binary of its own. `cargo test` runs test binaries one after another and
//! the tests of one binary in parallel, so eleven binaries meant the machine idled while the
//! longest test of each ran alone, and every build linked eleven copies of the harness. One binary
//! packs every test onto the cores libtest has, and links once. The modules keep their own
//! helpers; what they share is loaded once per process (`shared`).
//!
//! ```sh
//! cargo test --test suite                 # the quick tier
//! cargo test --test suite -- --ignored    # the long tier (CI runs both)
//! cargo test --test suite -- cli::        # one module
//! ```
//!
//! The long tier is `#[ignore = "long: ..."]`: tests that start processes outside the harness
//! (adapters, pip and npm, MCP servers, Chromium, the CLI killed mid-write), wait on real
//! timeouts, run whole commands over a project (`run`, `explain`, `report`; `init` and onboarding
//! from nothing), sweep every case through a view, or feed hostile inputs of tens of thousands of
//! items. They keep
//! `cargo test` near 30 s warm on two cores; `.ci/run` runs them on every push. A test belongs
//! there by what it does, not by what it checks: every path that must fail on a wrong table (the
//! contract, `run`, the tables, the nextest-style run) stays in the quick tier.
//!
//! `contract` (the generated trials) and `nextest` (which drives the contract binary as nextest
//! does) stay binaries of their own: both need their own `main`.

mod cli;
mod evidence;
mod external;
mod fuzz;
mod hostile;
mod layout;
mod mcp;
mod mutants;
mod reports;
mod setup;
mod sf;
mod shared;
mod tables;
mod witness;
