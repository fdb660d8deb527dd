//! The reference translators that ship with schema-fidelity, one file each.

mod anthropic;
mod gemini;
mod gemini_proto;
mod identity;
mod openai_common;
mod openai_responses;
mod openai_strict;

pub use anthropic::Anthropic;
pub use gemini::Gemini;
pub use gemini_proto::GeminiProto;
pub use identity::Identity;
pub use openai_responses::OpenAiResponses;
pub use openai_strict::OpenAiStrict;

use crate::model::Translator;

/// Every built-in translator, in the order reports list them.
#[must_use]
pub fn all() -> Vec<Box<dyn Translator>> {
    vec![
        Box::new(Identity),
        Box::new(Anthropic),
        Box::new(OpenAiStrict),
        Box::new(OpenAiResponses),
        Box::new(Gemini),
        Box::new(GeminiProto),
    ]
}

/// The built-in translator called `name`.
#[must_use]
pub fn by_name(name: &str) -> Option<Box<dyn Translator>> {
    all().into_iter().find(|t| t.name() == name)
}
