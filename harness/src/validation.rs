//! The validation environment: how a schema becomes a draft 2020-12 validator here, offline.
//!
//! [`compile`] meta-validates a schema and builds its validator with the offline retriever
//! ([`crate::retrieve`]: the suite's `remotes/` served as `http://localhost:1234/`, nothing from the
//! network); [`Env`] carries what that needs, with the witness search's settings the oracle runs
//! under. The oracle ([`crate::oracle`]) judges with it, the corpus check and the reports compile
//! with it, and the attribution builds its bounds' validators under the same `Env`, so every
//! validator of a run reads references the same way.
//!
//! It sits below all of those. It is not quite a leaf: it reads the retriever and the witness
//! settings ([`crate::witness::Settings`], part of `Env`), neither of which reads it back.

use std::path::PathBuf;

use schema_fidelity_translators::walk;
use serde_json::Value;

use crate::retrieve::LocalRetriever;
use crate::witness;

/// What the oracle needs besides the table and the case.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// The suite's `remotes/` directory, served as `http://localhost:1234/`.
    pub remotes: Option<PathBuf>,
    /// Witness generation: seed, draws, scope, and the source draws shared across translators.
    pub witness: witness::Settings,
    /// Name, for each witness the table explains, the rows that explain it on their own (one
    /// bound compiled per row): what reports, `check` and `explain` show. A test run needs only
    /// the verdict, so it is off by default.
    pub name_rows: bool,
}

/// Build a draft 2020-12 validator offline, after meta-validation.
///
/// # Errors
/// A sentence saying why the schema is not a valid draft 2020-12 schema here.
pub fn compile(schema: &Value, env: &Env, assert_formats: bool) -> Result<jsonschema::Validator, String> {
    walk::check_depth(schema).map_err(|e| e.to_string())?;
    jsonschema::draft202012::meta::validate(schema).map_err(|e| format!("not meta-valid draft 2020-12: {e} (at `{}`)", e.instance_path()))?;
    jsonschema::draft202012::options()
        .should_validate_formats(assert_formats)
        .with_retriever(LocalRetriever::new(env.remotes.clone()))
        .build(schema)
        .map_err(|e| format!("does not compile: {e}"))
}
