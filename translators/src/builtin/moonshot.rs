//! `moonshot`: work in progress.
use serde_json::Value;
use crate::model::{Outcome, Translator};
/// Stub.
#[derive(Debug, Default, Clone, Copy)]
pub struct Moonshot;
impl Translator for Moonshot {
    fn name(&self) -> &str {
        "moonshot"
    }
    fn translate(&self, source: &Value) -> Outcome {
        Outcome::json_schema(source.clone())
    }
}
