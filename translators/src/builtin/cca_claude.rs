//! `cca-claude`: work in progress.
use serde_json::Value;
use crate::model::{Outcome, Translator};
/// Stub.
#[derive(Debug, Default, Clone, Copy)]
pub struct CcaClaude;
impl Translator for CcaClaude {
    fn name(&self) -> &str {
        "cca-claude"
    }
    fn translate(&self, source: &Value) -> Outcome {
        Outcome::json_schema(source.clone())
    }
}
