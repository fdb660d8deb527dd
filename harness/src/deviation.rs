//! The words a deviation is described in: its [`Direction`], what a keyword [`Becomes`], and the
//! [`KnownViolation`] mark (with its [`MarkScope`]) that records a deviation a translator is known
//! to make.
//!
//! Tables ([`crate::table`]) are written in these words, and so are the targets' limits
//! ([`crate::target`], where a translator's own bound may carry a mark) and the verdicts
//! ([`crate::verdict`], whose witnesses have a direction). It is a leaf, reading only the
//! translators' vocabulary, so that a target need not read the table that names it.

use std::fmt;

use schema_fidelity_translators::form::Form;
use schema_fidelity_translators::vocabulary;
use serde::Deserialize;
use serde_json::Value;

/// The direction of an approximation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The projection accepts more than the source.
    Widening,
    /// The projection accepts less than the source.
    Narrowing,
}

impl Direction {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Widening => "widening",
            Self::Narrowing => "narrowing",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an approximated keyword became: a closed vocabulary, because the oracle builds from it the
/// bound a deviation must stay within where the keyword stands (see [`crate::attribution`]). The
/// details go in the row's `note`.
///
/// Each word is bounded exactly for the keywords and the direction it fits ([`Becomes::fits`]);
/// the lint rejects a word that does not fit, naming the words that do, so no row falls back to
/// "its node may become anything".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Becomes {
    /// Removed from the projection (widening: the occurrence as if absent; narrowing: only a
    /// `$schema` naming a meta-schema of its own, whose vocabulary the source used).
    Dropped,
    /// Removed, and stated in the description the model reads (bounded as [`Becomes::Dropped`]).
    Description,
    /// `oneOf` written as `anyOf`.
    AnyOf,
    /// Merged into its neighbours (an `allOf` folded into one schema, a `$ref`'s siblings laid over
    /// its target): widening, bounded as the keyword removed.
    Merged,
    /// The object holding it is closed over what it declares: `additionalProperties: false` (or
    /// `unevaluatedProperties: false` where in-place applicators declare keys too).
    Closed,
    /// Every property of the object holding it is required.
    Required,
    /// Both [`Becomes::Closed`] and [`Becomes::Required`] (OpenAI strict's objects).
    ClosedRequired,
    /// Its value became `false` (a data keyword: it rejects every instance it applies to).
    False,
    /// A `type` list cut to its first member.
    FirstMember,
    /// `null` removed from a `type` list or an `enum` (a nullable value made non-nullable).
    NullDropped,
    /// A reference cycle unrolled and cut: only a `$ref` that lies on a cycle deviates (narrowing:
    /// cut to `false`; widening: cut to `true`).
    Unrolled,
    /// An any-value position (`true`, an absent `items`) written as a finite union whose arrays
    /// nest at most `depth` levels (the row's `depth:`).
    NestingBounded,
    /// An any-value position written as a value whose objects are all empty (OpenAI strict's
    /// any-value definition), and an absent `additionalProperties` as `false`.
    ObjectsEmptied,
    /// A draft-07 spelling enforced with its draft-07 meaning (`additionalItems` beside
    /// `prefixItems` as `items`, `dependencies` split into `dependentRequired` and
    /// `dependentSchemas`), where draft 2020-12 reads it as an annotation.
    Upgraded,
    /// A numeric, length or count bound moved inward by an amount the note gives: bounded as the
    /// keyword rejecting every instance it applies to, and pinned on the keyword (the projection
    /// must reject the witness at this keyword's family, never at a sibling's).
    BoundsTightened,
    /// Where the keyword appears, the translator replaces the whole tool by a fallback that
    /// asserts nothing but the root's type (a widening of the whole document, only when the
    /// projection is such a fallback).
    WholeTool,
    /// Rewritten some other way (the note says how). Widening: the keyword as if removed.
    /// Narrowing: bounded like [`Becomes::BoundsTightened`] (the keyword rejects what it applies
    /// to, pinned on the keyword); CONTRACT §10 lists it as the one loose word.
    Rewritten,
}

impl Becomes {
    /// Every value, in the order the lint lists them.
    pub const ALL: [Self; 17] = [
        Self::Dropped,
        Self::Description,
        Self::AnyOf,
        Self::Merged,
        Self::Closed,
        Self::Required,
        Self::ClosedRequired,
        Self::False,
        Self::FirstMember,
        Self::NullDropped,
        Self::Unrolled,
        Self::NestingBounded,
        Self::ObjectsEmptied,
        Self::Upgraded,
        Self::BoundsTightened,
        Self::WholeTool,
        Self::Rewritten,
    ];

    /// The spelling in a table.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Dropped => "dropped",
            Self::Description => "description",
            Self::AnyOf => "anyOf",
            Self::Merged => "merged",
            Self::Closed => "closed",
            Self::Required => "required",
            Self::ClosedRequired => "closed-required",
            Self::False => "false",
            Self::FirstMember => "first-member",
            Self::NullDropped => "null-dropped",
            Self::Unrolled => "unrolled",
            Self::NestingBounded => "nesting-bounded",
            Self::ObjectsEmptied => "objects-emptied",
            Self::Upgraded => "upgraded",
            Self::BoundsTightened => "bounds-tightened",
            Self::WholeTool => "whole-tool",
            Self::Rewritten => "rewritten",
        }
    }

    /// The value spelled `name`.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether the word can say what `keyword` (with a value of form `form`) became in
    /// `direction`: the oracle bounds each word exactly only where it fits.
    #[must_use]
    pub fn fits(self, keyword: &str, form: Option<Form>, direction: Direction) -> bool {
        let schema_valued = schema_fidelity_translators::walk::value_kind(keyword).is_some();
        let reference = vocabulary::is_reference(keyword);
        match (direction, self) {
            // A widening loosens the occurrence where it stands: any asserting keyword can lose
            // its assertion. Only these words say how.
            (Direction::Widening, Self::Dropped | Self::Description | Self::Rewritten | Self::WholeTool) => keyword != "true",
            (Direction::Widening, Self::AnyOf) => keyword == "oneOf",
            (Direction::Widening, Self::Merged) => matches!(keyword, "allOf" | "$ref" | "$dynamicRef" | "anyOf" | "oneOf"),
            (Direction::Widening, Self::Unrolled) => reference,
            (Direction::Widening, _) => false,
            (Direction::Narrowing, Self::Closed) => {
                matches!(keyword, "properties" | "patternProperties" | "additionalProperties" | "unevaluatedProperties" | "type" | "true")
            }
            (Direction::Narrowing, Self::Required) => matches!(keyword, "properties" | "required"),
            (Direction::Narrowing, Self::ClosedRequired) => keyword == "properties",
            // A data keyword whose value became unsatisfiable rejects every instance it applies to.
            (Direction::Narrowing, Self::False) => keyword != "false" && (schema_valued || vocabulary::asserts(keyword) || keyword == "true"),
            (Direction::Narrowing, Self::FirstMember) => keyword == "type" && form.is_none_or(|f| f == Form::List),
            (Direction::Narrowing, Self::NullDropped) => matches!(keyword, "type" | "enum" | "const" | "nullable"),
            (Direction::Narrowing, Self::Unrolled) => reference,
            (Direction::Narrowing, Self::NestingBounded | Self::ObjectsEmptied) => keyword == "true" || matches!(keyword, "items" | "additionalProperties"),
            (Direction::Narrowing, Self::Upgraded) => matches!(keyword, "additionalItems" | "dependencies"),
            // The registry's bounds, and `multipleOf`, which tightens as a multiple of itself.
            (Direction::Narrowing, Self::BoundsTightened) => vocabulary::bound(keyword).is_some() || keyword == "multipleOf",
            (Direction::Narrowing, Self::Dropped) => keyword == "$schema",
            (Direction::Narrowing, Self::Rewritten) => keyword != "false",
            (Direction::Narrowing, _) => false,
        }
    }

    /// The words that fit `keyword` (of form `form`) in `direction`, for the lint's message.
    #[must_use]
    pub fn fitting(keyword: &str, form: Option<Form>, direction: Direction) -> Vec<&'static str> {
        Self::ALL.into_iter().filter(|b| b.fits(keyword, form, direction)).map(Self::name).collect()
    }
}

impl fmt::Display for Becomes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Becomes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(text.trim()).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|b| b.name()).collect();
            serde::de::Error::custom(format!("`to: {text}` is not one of {}", names.join(", ")))
        })
    }
}

/// A row's mark that its translator is known to break it (the ratchet).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownViolation {
    /// The issue that tracks the fix.
    pub issue: String,
    /// The deviation actually observed.
    pub direction: Direction,
    /// A witness instance and both verdicts, in words.
    #[serde(default)]
    pub witness: Option<String>,
    /// What the keyword became, from the vocabulary of `to:`: the mark then bounds like a row with
    /// that word. Without it, a widening mark bounds the occurrence as removed (and nothing else),
    /// and a narrowing mark is *pinned*: it explains only a witness whose every occurrence at
    /// fault is on a row marked so (CONTRACT §7).
    #[serde(default)]
    pub to: Option<Becomes>,
    /// Where the mark applies, when not to every occurrence of its row.
    #[serde(default, rename = "where")]
    pub scope: Option<MarkScope>,
    /// The translator throws where this row's keyword appears: a text its error message contains
    /// (`TypeError`, `'bool' object has no attribute`). Only such a mark covers a crash, and it
    /// covers nothing else (CONTRACT §7).
    #[serde(default)]
    pub crash: Option<String>,
}

/// Which occurrences of its row a mark covers (`where:`), so that a mark is as narrow as the
/// defect: one property name under `properties` rather than every property.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkScope {
    /// For a keyword holding a schema map (`properties`, `patternProperties`, `dependentSchemas`,
    /// `$defs`): only these entries.
    #[serde(default)]
    pub names: Vec<String>,
    /// Only occurrences whose value is this (a `type` of `"null"`, a `format` of `"uuid"`, a
    /// `const` of `null`: an explicit `null` is a value here, not an absence).
    #[serde(default, deserialize_with = "present")]
    pub value: Option<Value>,
    /// Only occurrences whose node also holds one of these keywords (an `anyOf` beside a `type`
    /// or a `default`, which some translators rewrite as an intersection).
    #[serde(default)]
    pub beside: Vec<String>,
}

/// A field that is present holds a value, `null` included (serde's `Option` would read `null` as
/// absent).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl MarkScope {
    /// Whether an occurrence holding `value` is in scope.
    #[must_use]
    pub fn covers_value(&self, value: &Value) -> bool {
        self.value.as_ref().is_none_or(|v| schema_fidelity_translators::equality::json_eq(v, value))
    }

    /// Whether an occurrence on `node` (the schema object holding it) is in scope by `beside`.
    #[must_use]
    pub fn covers_node(&self, node: Option<&Value>) -> bool {
        self.beside.is_empty() || node.and_then(Value::as_object).is_some_and(|m| self.beside.iter().any(|k| m.contains_key(k)))
    }
}

impl KnownViolation {
    /// Whether this mark bounds deviations in `direction`: a `crash:` mark says the translator
    /// throws, so it bounds no deviation of a projection (and only it covers a crash).
    #[must_use]
    pub fn bounds(&self, direction: Direction) -> bool {
        self.direction == direction && self.crash.is_none()
    }

    /// What the mark is about: its direction, or the crash text.
    #[must_use]
    pub fn class(&self) -> String {
        match &self.crash {
            Some(text) => format!("crash: {text}"),
            None => self.direction.name().to_owned(),
        }
    }

    /// Whether this mark covers a crash with this message.
    #[must_use]
    pub fn covers_crash(&self, message: &str) -> bool {
        self.direction == Direction::Narrowing && self.crash.as_deref().is_some_and(|text| message.contains(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_scoped_to_null_is_scoped_to_null() {
        let scope: MarkScope = serde_json::from_str(r#"{"value": null}"#).expect("parses");
        assert_eq!(scope.value, Some(Value::Null));
        assert!(scope.covers_value(&Value::Null) && !scope.covers_value(&Value::from(1)));
        let unscoped: MarkScope = serde_json::from_str(r#"{"names": ["a"]}"#).expect("parses");
        assert_eq!(unscoped.value, None);
    }
}
