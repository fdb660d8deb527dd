//! Strict mode's documented size limits (object nesting, property count, enum values, total
//! string length) checked on the projection, and the refusals that cite them or the translator's
//! own merge budget.
//!
//! Separate because it judges what would be sent, after translation: the numbers are policy and
//! stay in [`super`], the measuring walk is here.

use serde_json::Value;

use super::{LARGE_ENUM_VALUES, MAX_ENUM_VALUES, MAX_LARGE_ENUM_STRING_LENGTH, MAX_NESTING, MAX_PROPERTIES, MAX_STRING_LENGTH, MERGE_BUDGET};
use crate::builtin::openai_common::Types;
use crate::model::Refusal;
use crate::walk;

pub(super) fn limit(name: &str, measured: usize, value: usize, message: String) -> Refusal {
    Refusal::limit(name, measured as u64, value as u64, message)
}

/// Nesting past the walker's bound, cited as `max-depth` (strict mode's own limit on nesting is far
/// below it), counting the walker's levels.
pub(super) fn too_deep(message: String) -> Refusal {
    limit("max-depth", walk::MAX_DEPTH + 1, MAX_NESTING, message)
}

/// The translator's merge budget ran out. Its `measured` is the budget plus one: the merge stops
/// counting where it stops (the message says which of the budget's bounds was reached).
pub(super) fn budget_exceeded(what: &str) -> Refusal {
    limit(
        "merge-budget",
        MERGE_BUDGET + 1,
        MERGE_BUDGET,
        format!("{what}; strict mode has no allOf, and writing this conjunction out exactly exceeds the translator's budget"),
    )
}

/// The documented size limits, checked on what would be sent.
pub(super) fn check_limits(projection: &Value) -> Result<(), Refusal> {
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    let mut characters: usize = projection.get("$defs").and_then(Value::as_object).map_or(0, |d| d.keys().map(|k| k.chars().count()).sum());
    let mut stack = vec![(projection, String::new(), 0usize)];
    while let Some((node, pointer, level)) = stack.pop() {
        let is_object = node.get("type").and_then(Types::of_keyword).is_some_and(|t| t.intersects(Types::OBJECT));
        let level = level + usize::from(is_object);
        if level > MAX_NESTING {
            return Err(limit("max-depth", level, MAX_NESTING, format!("objects nest {level} levels deep at `{pointer}`; strict mode allows {MAX_NESTING}")));
        }
        if let Some(declared) = node.get("properties").and_then(Value::as_object) {
            properties += declared.len();
            characters += declared.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            enum_values += values.len();
            let length: usize = values.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum();
            characters += length;
            if values.len() > LARGE_ENUM_VALUES && length > MAX_LARGE_ENUM_STRING_LENGTH {
                return Err(limit(
                    "max-enum-string-length",
                    length,
                    MAX_LARGE_ENUM_STRING_LENGTH,
                    format!(
                        "the enum at `{pointer}` has {} values of {length} characters in total; past {LARGE_ENUM_VALUES} values strict mode allows {MAX_LARGE_ENUM_STRING_LENGTH}",
                        values.len()
                    ),
                ));
            }
        }
        for child in walk::children(node) {
            // Each definition is its own tree: its nesting starts again at its root.
            let child_level = if child.keyword == "$defs" { 0 } else { level };
            stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), child_level));
        }
    }
    if properties > MAX_PROPERTIES {
        return Err(limit("max-properties", properties, MAX_PROPERTIES, format!("{properties} object properties; strict mode allows {MAX_PROPERTIES}")));
    }
    if enum_values > MAX_ENUM_VALUES {
        return Err(limit("max-enum-values", enum_values, MAX_ENUM_VALUES, format!("{enum_values} enum values; strict mode allows {MAX_ENUM_VALUES}")));
    }
    if characters > MAX_STRING_LENGTH {
        return Err(limit(
            "max-string-length",
            characters,
            MAX_STRING_LENGTH,
            format!("{characters} characters of property names, definition names and enum values; strict mode allows {MAX_STRING_LENGTH}"),
        ));
    }
    Ok(())
}
