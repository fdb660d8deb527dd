//! The integration tests, one binary.
//!
//! Each module was a test binary of its own. `cargo test` runs test binaries one after another and
//! the tests of one binary in parallel, so eleven binaries meant the machine idled while the
//! longest test of each ran alone, and every build linked eleven copies of the harness. One binary
//! packs every test onto the cores libtest has, and links once. The modules keep their own
//! helpers; what they share is loaded once per process (`shared`).
//!
//! ```sh
//! cargo test --test suite                 # all of them
//! cargo test --test suite -- cli::        # one module
//! ```
//!
//! `contract` (the generated trials) and `nextest` (which drives the contract binary as nextest
//! does) stay binaries of their own: both need their own `main`.

mod cli;
mod evidence;
mod external;
mod fuzz;
mod hostile;
mod mcp;
mod mutants;
mod reports;
mod setup;
mod sf;
mod shared;
mod tables;
mod witness;
