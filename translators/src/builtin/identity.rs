//! `identity`: the reference translator. It sends the source unchanged, so its table says
//! `preserved` for everything; the oracle's self-test wraps it in mutants.

use serde_json::Value;

use crate::model::{Outcome, Translator};

/// Sends the source schema unchanged.
#[derive(Debug, Default, Clone, Copy)]
pub struct Identity;

impl Translator for Identity {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "identity"
    }

    fn translate(&self, source: &Value) -> Outcome {
        Outcome::json_schema(source.clone())
    }
}
