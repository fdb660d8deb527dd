//! What several modules read and none changes, loaded once per test process.
//!
//! Loading the project (every table and corpus file, parsed and linted) is most of a second in a
//! debug build; the mutant tests alone loaded it twenty-five times.

use std::sync::OnceLock;

use schema_fidelity::project::Project;
use schema_fidelity::session::{self, Loaded, Selection};
use schema_fidelity::trials;

/// The repository's tables and corpus, as the contract run loads them.
pub(crate) fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| session::load(Project::at(trials::workspace_root()), &Selection::All))
}
