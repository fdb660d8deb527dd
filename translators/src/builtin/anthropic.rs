//! `anthropic`: the Messages API tool `input_schema`.
//!
//! Anthropic validates `input_schema` against the draft 2020-12 meta-schema and otherwise passes it
//! through, so this translator is a passthrough with the two documented restrictions enforced
//! before the API would answer with a 400:
//!
//! - the root must be an object schema (`type: "object"`): a tool's arguments are an object;
//! - the root may not be a combinator: "input_schema does not support oneOf, allOf, or anyOf at
//!   the top level". Merging root branches into one object changes what is accepted (Mastra's
//!   merge widens `required` to the intersection), so the translator refuses instead; the
//!   `object-root` translator is where exact rewrites belong.
//!
//! A reference to a URI (not a `#` fragment) is refused as well: the API does not fetch
//! documents, so a schema that needs one cannot be evaluated there.

use serde_json::Value;

use crate::form::Form;
use crate::model::{Outcome, Refusal, Translator};
use crate::walk;

/// The Anthropic `input_schema` passthrough.
#[derive(Debug, Default, Clone, Copy)]
pub struct Anthropic;

const ROOT_COMBINATORS: [&str; 3] = ["allOf", "anyOf", "oneOf"];

impl Translator for Anthropic {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "anthropic"
    }

    fn translate(&self, source: &Value) -> Outcome {
        match check(source) {
            Ok(()) => Outcome::json_schema(source.clone()),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

fn check(source: &Value) -> Result<(), Refusal> {
    let occurrences = walk::occurrences(source)
        .map_err(|e| Refusal::limit("max-depth", (walk::MAX_DEPTH + 1) as u64, walk::MAX_DEPTH as u64, e.to_string()))?;
    let Some(root) = source.as_object() else {
        // The root rule, not a row: a boolean root lacks the object type the API requires, so the
        // refusal cites `type` on the root, as for any other non-object root. (Citing `true` or
        // `false` named rows the table keeps preserved, since booleans are fine below the root.)
        return Err(Refusal::new("type", "", format!("input_schema must be an object schema with `type: \"object\"`, not the boolean schema `{source}`")));
    };
    if root.get("type") != Some(&Value::from("object")) {
        return Err(Refusal::new("type", "", "input_schema must declare `type: \"object\"` at the root"));
    }
    if let Some(keyword) = ROOT_COMBINATORS.iter().find(|k| root.contains_key(**k)) {
        return Err(Refusal::new(*keyword, "", format!("input_schema does not support {keyword} at the top level")));
    }
    for occurrence in occurrences {
        if matches!(occurrence.keyword, "$ref" | "$dynamicRef") && Form::of(occurrence.keyword, occurrence.value) == Form::Uri {
            return Err(Refusal::new(
                occurrence.keyword,
                occurrence.pointer,
                format!("`{}` names a URI; the API does not fetch referenced documents", occurrence.value),
            ));
        }
    }
    Ok(())
}
