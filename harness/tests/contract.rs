//! The conformance run: one trial per (translator × case), one lint trial per table, and a ratchet
//! trial per table with known violations. See `schema_fidelity::trials` for the names.

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::Arguments;
use schema_fidelity::external;
use schema_fidelity::project::Project;
use schema_fidelity::trials::{self, Selection};

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let selection = Selection::from_args(&args);
    let loaded = Arc::new(trials::load(Project::at(trials::workspace_root()), &selection));
    let resolver = trials::resolver(&loaded, &external::Config::from_env());
    let list = trials::build(&loaded, &resolver);
    libtest_mimic::run(&args, list).exit_code()
}
