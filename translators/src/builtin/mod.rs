//! The reference translators that ship with schema-fidelity, one file each.

mod anthropic;
mod cca_claude;
mod gemini;
mod gemini_common;
mod gemini_proto;
mod identity;
mod mcp;
mod moonshot;
mod never;
mod object_root;
mod openai_common;
mod openai_responses;
mod openai_strict;

pub use anthropic::Anthropic;
pub use cca_claude::CcaClaude;
pub use gemini::Gemini;
pub use gemini_proto::GeminiProto;
pub use identity::Identity;
pub use mcp::Mcp;
pub use moonshot::Moonshot;
pub use object_root::ObjectRoot;
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
        Box::new(CcaClaude),
        Box::new(Moonshot),
        Box::new(Mcp),
        Box::new(ObjectRoot),
    ]
}

/// The built-in translator called `name`.
#[must_use]
pub fn by_name(name: &str) -> Option<Box<dyn Translator>> {
    all().into_iter().find(|t| t.name() == name)
}
