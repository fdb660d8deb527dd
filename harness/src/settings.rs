//! Settings: every `SCHEMA_FIDELITY_*` variable, read once per command into one value.
//!
//! The environment is input like a schema is: a variable set to something the harness cannot
//! use is a usage error naming it, before anything runs, for every command. A value read
//! leniently in one place and strictly in another let `report` rewrite the committed reports
//! with every corpus case turned into an error (`SCHEMA_FIDELITY_MAX_ENUM=abc`), while `lint`
//! refused the same variable.
//!
//! | variable | what | read by |
//! |---|---|---|
//! | `SCHEMA_FIDELITY_MAX_*` | the budgets ([`crate::budget`]), each from 1 to its hard ceiling | every command |
//! | `SCHEMA_FIDELITY_SEED`, `_DRAWS`, `_GENERATE` | the witness search ([`witness::Settings`]); draws at most [`MAX_DRAWS`] | `run`, `report`, `explain`, `check` |
//! | `SCHEMA_FIDELITY_ADAPTER_TIMEOUT_MS`, `_ADAPTER_START_TIMEOUT_MS` | adapter timeouts, 1 to [`MAX_TIMEOUT_MS`] | every command that runs an adapter |
//! | `SCHEMA_FIDELITY_MCP_TIMEOUT_MS` | how long an MCP server may take to answer (`harvest`, `check --mcp`), 1 to [`MAX_TIMEOUT_MS`] | those two |
//! | `SCHEMA_FIDELITY_PROTOCOL_STRICT` | strict adapter protocol: `1`, or `0`/empty | the same |
//! | `SCHEMA_FIDELITY_NO_CACHE` | `1`: answer every schema from the adapters, neither reading nor writing the projection cache ([`external::cache`]) | the same |
//! | `SCHEMA_FIDELITY_NO_INSTALL` | `1`: never set up an external translator's environment ([`external::setup`]); a missing one leaves it unavailable | the same |
//! | `SCHEMA_FIDELITY_JSTS` | where the JSON-Schema-Test-Suite is ([`crate::project`]) | every command that loads the corpus |
//! | `SCHEMA_FIDELITY_BLESS` | `1`, or `0`/empty: lets `cargo test --test contract` rewrite reports/ | the tests (checked here too) |
//! | `SCHEMA_FIDELITY_TEST_PAUSE_AT` | a test hook: `report` stops at this step of its write until killed ([`PAUSE_STEPS`]) | `report` |
//!
//! Any other `SCHEMA_FIDELITY_*` variable is named in a note (a misspelt budget is otherwise a
//! silent default), except the ones the tests and `.ci/run` read themselves.
//!
//! **Settings and the committed reports.** The committed reports are made with the defaults.
//! [`Settings::departure`] names every setting that could make `report` write something else:
//! a budget other than its default, witness settings, a shorter adapter timeout (a slow answer
//! becomes a fault) and strict protocol checking. `report` refuses to write while any is set.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::budget::Budgets;
use crate::external;
use crate::witness;

/// The most draws per side a trial may be asked for: the source-side draws of a case are kept
/// for every translator, so draws times the string-length ceiling must stay within memory.
pub const MAX_DRAWS: usize = 1_024;
/// The longest adapter timeout that may be set (an hour), in milliseconds.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// The variable that makes `report` stop at one step of its write (a test hook).
pub const TEST_PAUSE_ENV: &str = "SCHEMA_FIDELITY_TEST_PAUSE_AT";

/// The steps of `report`'s write at which [`TEST_PAUSE_ENV`] can stop it, in order: the new set
/// assembled; the old set moved aside (only where the two cannot be exchanged); the new set in
/// place; half the README's temporary file written; all of it written; the README renamed,
/// before the cleanup. (The write, in [`crate::report`], names these steps; they are here with
/// the variable whose values they are.)
pub const PAUSE_STEPS: &[&str] = &["assembled", "aside", "swapped", "readme-half", "readme-written", "readme-renamed"];

/// Set to `1` to let the ratchet test rewrite the committed reports instead of failing.
pub const BLESS_ENV: &str = "SCHEMA_FIDELITY_BLESS";

/// Variables with this prefix are settings.
const PREFIX: &str = "SCHEMA_FIDELITY_";

/// The variables read here, and those read by others (the tests, `.ci/run`, the adapters' marker),
/// none of which is unknown.
const KNOWN: &[&str] = &[
    witness::SEED_ENV,
    witness::DRAWS_ENV,
    witness::GENERATE_ENV,
    external::TIMEOUT_ENV,
    external::START_TIMEOUT_ENV,
    external::protocol::STRICT_ENV,
    external::cache::NO_CACHE_ENV,
    external::setup::NO_INSTALL_ENV,
    crate::project::SUITE_ENV,
    BLESS_ENV,
    TEST_PAUSE_ENV,
    external::process::TREE_ENV,
    crate::mcp::client::TIMEOUT_ENV,
    // Read by harness/tests/suite/fuzz.rs and .ci/run, not by the harness.
    "SCHEMA_FIDELITY_FUZZ_SCHEMAS",
    "SCHEMA_FIDELITY_REPORT_BASE",
];

/// Every setting of one command.
#[derive(Debug, Clone)]
pub struct Settings {
    pub budgets: Budgets,
    pub witness: witness::Settings,
    pub adapters: external::Config,
    /// How long an MCP server may take to answer one request ([`crate::mcp::client`]).
    pub mcp_timeout: Duration,
    /// The step at which `report` pauses ([`TEST_PAUSE_ENV`]).
    pub test_pause: Option<String>,
    /// Where the JSON-Schema-Test-Suite is, when [`crate::project::SUITE_ENV`] names it (it wins
    /// over `suite =` in the config).
    pub suite: Option<PathBuf>,
    /// [`BLESS_ENV`] asks the ratchet to rewrite the committed reports.
    pub bless: bool,
    /// `CI` is set: the committed reports are never rewritten there.
    pub on_ci: bool,
    /// `SCHEMA_FIDELITY_*` variables no setting reads, for a note.
    pub unknown: Vec<String>,
}

impl Settings {
    /// Every setting from the environment.
    ///
    /// # Errors
    /// Every variable that is set to a value it cannot take, one per line, each named with what
    /// it takes.
    pub fn from_env() -> Result<Self, String> {
        Self::from_vars(std::env::vars_os().filter_map(|(name, value)| Some((name.into_string().ok()?, value.to_string_lossy().into_owned()))))
    }

    /// Every setting from `vars`, an environment given as (name, value) pairs: what
    /// [`Self::from_env`] reads from the process, and what a command run in process
    /// ([`crate::cli`]) is given instead.
    ///
    /// # Errors
    /// As [`Self::from_env`].
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Result<Self, String> {
        let vars: BTreeMap<String, String> = vars.into_iter().collect();
        let var = |name: &str| vars.get(name).cloned();
        let mut problems = Vec::new();
        let budgets = Budgets::from_vars(var).unwrap_or_else(|e| {
            problems.push(e);
            Budgets::default()
        });
        let mut witness = witness::Settings::from_vars(var);
        witness.time_budget = Duration::from_secs(budgets.get(&crate::budget::TRIAL_SECONDS));
        if let Some(invalid) = &witness.invalid {
            problems.push(invalid.clone());
        } else if witness.draws > MAX_DRAWS {
            problems.push(format!("{}={} is beyond the hard ceiling of {MAX_DRAWS} draws per side (default {})", witness::DRAWS_ENV, witness.draws, witness::DEFAULT_DRAWS));
        }
        let defaults = external::Config::default();
        let mut timeout = |name: &str, default: Duration| match var(name) {
            None => default,
            Some(text) => match text.trim().parse::<u64>() {
                Ok(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Duration::from_millis(ms),
                _ => {
                    problems.push(format!("{name}={text:?} is not a whole number of milliseconds from 1 to {MAX_TIMEOUT_MS} (default {})", default.as_millis()));
                    default
                }
            },
        };
        let request_timeout = timeout(external::TIMEOUT_ENV, defaults.request_timeout);
        let start_timeout = timeout(external::START_TIMEOUT_ENV, defaults.start_timeout);
        let mcp_timeout = timeout(crate::mcp::client::TIMEOUT_ENV, crate::mcp::client::DEFAULT_TIMEOUT);
        let mut switch = |name: &str| match var(name).as_deref().map(str::trim) {
            None | Some("" | "0") => false,
            Some("1") => true,
            Some(other) => {
                problems.push(format!("{name}={other:?} is not 1, 0 or empty"));
                false
            }
        };
        let strict = switch(external::protocol::STRICT_ENV);
        let no_cache = switch(external::cache::NO_CACHE_ENV);
        let no_install = switch(external::setup::NO_INSTALL_ENV);
        let bless = switch(BLESS_ENV);
        let test_pause = var(TEST_PAUSE_ENV).filter(|s| !s.is_empty());
        if let Some(step) = &test_pause
            && !PAUSE_STEPS.contains(&step.as_str())
        {
            problems.push(format!("{TEST_PAUSE_ENV}={step:?} is not one of {}", PAUSE_STEPS.join(", ")));
        }
        let unknown: Vec<String> = vars
            .keys()
            .filter(|name| name.starts_with(PREFIX) && !KNOWN.contains(&name.as_str()) && !crate::budget::ALL.iter().any(|b| b.env == name.as_str()))
            .cloned()
            .collect();
        let suite = var(crate::project::SUITE_ENV).map(PathBuf::from);
        let on_ci = vars.contains_key("CI");
        if !problems.is_empty() {
            return Err(problems.join("\n"));
        }
        let adapters = external::Config { request_timeout, start_timeout, strict, cache: !no_cache, install: !no_install, ..defaults };
        Ok(Self { budgets, witness, adapters, mcp_timeout, test_pause, suite, bless, on_ci, unknown })
    }

    /// A note per unknown `SCHEMA_FIDELITY_*` variable, with the nearest known name.
    #[must_use]
    pub fn notes(&self) -> Vec<String> {
        let names: Vec<&str> = KNOWN.iter().copied().chain(crate::budget::ALL.iter().map(|b| b.env)).collect();
        self.unknown
            .iter()
            .map(|name| {
                let near = crate::diagnostic::nearest(name, names.iter().copied()).map(|n| format!(" (did you mean {n}?)")).unwrap_or_default();
                format!("{name} is not a setting of schema-fidelity and is ignored{near}")
            })
            .collect()
    }

    /// The settings that could make `report` write reports other than the defaults make, as
    /// `VARIABLE=value`s, or `None` (see the module documentation).
    #[must_use]
    pub fn departure(&self) -> Option<String> {
        let defaults = external::Config::default();
        let mut set: Vec<String> = [self.budgets.departure(), self.witness.departure()].into_iter().flatten().collect();
        for (name, value, default) in
            [(external::TIMEOUT_ENV, self.adapters.request_timeout, defaults.request_timeout), (external::START_TIMEOUT_ENV, self.adapters.start_timeout, defaults.start_timeout)]
        {
            if value < default {
                set.push(format!("{name}={} (below the default {}: a slower answer becomes a fault)", value.as_millis(), default.as_millis()));
            }
        }
        if self.adapters.strict {
            set.push(format!("{}=1", external::protocol::STRICT_ENV));
        }
        (!set.is_empty()).then(|| set.join(", "))
    }
}
