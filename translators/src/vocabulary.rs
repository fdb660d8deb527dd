//! The draft 2020-12 keyword vocabularies, and what kind of value each keyword holds.
//!
//! Two consumers need this list and must agree on it: the [walker](crate::walk), which has to know
//! which keyword values are subschemas (so it never mistakes a property *name* or an `enum`
//! *payload* for a keyword), and the table lint, which demands one row per keyword. Keeping both in
//! one table means a keyword cannot be walked without also being required in every table.

/// Which draft 2020-12 vocabulary a keyword belongs to (the meta-schema files of the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Vocabulary {
    Core,
    Applicator,
    Unevaluated,
    Validation,
    MetaData,
    FormatAnnotation,
    Content,
}

impl Vocabulary {
    /// The vocabulary's name as the specification spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Core => "core",
            Self::Applicator => "applicator",
            Self::Unevaluated => "unevaluated",
            Self::Validation => "validation",
            Self::MetaData => "meta-data",
            Self::FormatAnnotation => "format-annotation",
            Self::Content => "content",
        }
    }
}

/// The shape of a keyword's value, as far as the walker cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// The value is one subschema (`not`, `items`, `additionalProperties`, ...).
    Schema,
    /// The value is an array of subschemas (`allOf`, `prefixItems`, ...).
    SchemaArray,
    /// The value is an object whose values are subschemas (`properties`, `$defs`, ...).
    SchemaMap,
    /// The value is data, not a schema (`enum`, `const`, `required`, `minimum`, ...).
    Data,
}

/// One keyword of the draft 2020-12 vocabularies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyword {
    pub name: &'static str,
    pub vocabulary: Vocabulary,
    pub value: ValueKind,
}

const fn kw(name: &'static str, vocabulary: Vocabulary, value: ValueKind) -> Keyword {
    Keyword { name, vocabulary, value }
}

use ValueKind::{Data, Schema, SchemaArray, SchemaMap};
use Vocabulary::{Applicator, Content, Core, FormatAnnotation, MetaData, Unevaluated, Validation};

/// Every keyword of the seven draft 2020-12 vocabularies, in specification order.
pub const DRAFT_2020_12: &[Keyword] = &[
    kw("$schema", Core, Data),
    kw("$id", Core, Data),
    kw("$ref", Core, Data),
    kw("$anchor", Core, Data),
    kw("$dynamicRef", Core, Data),
    kw("$dynamicAnchor", Core, Data),
    kw("$vocabulary", Core, Data),
    kw("$comment", Core, Data),
    kw("$defs", Core, SchemaMap),
    kw("prefixItems", Applicator, SchemaArray),
    kw("items", Applicator, Schema),
    kw("contains", Applicator, Schema),
    kw("additionalProperties", Applicator, Schema),
    kw("properties", Applicator, SchemaMap),
    kw("patternProperties", Applicator, SchemaMap),
    kw("dependentSchemas", Applicator, SchemaMap),
    kw("propertyNames", Applicator, Schema),
    kw("if", Applicator, Schema),
    kw("then", Applicator, Schema),
    kw("else", Applicator, Schema),
    kw("allOf", Applicator, SchemaArray),
    kw("anyOf", Applicator, SchemaArray),
    kw("oneOf", Applicator, SchemaArray),
    kw("not", Applicator, Schema),
    kw("unevaluatedItems", Unevaluated, Schema),
    kw("unevaluatedProperties", Unevaluated, Schema),
    kw("type", Validation, Data),
    kw("const", Validation, Data),
    kw("enum", Validation, Data),
    kw("multipleOf", Validation, Data),
    kw("maximum", Validation, Data),
    kw("exclusiveMaximum", Validation, Data),
    kw("minimum", Validation, Data),
    kw("exclusiveMinimum", Validation, Data),
    kw("maxLength", Validation, Data),
    kw("minLength", Validation, Data),
    kw("pattern", Validation, Data),
    kw("maxItems", Validation, Data),
    kw("minItems", Validation, Data),
    kw("uniqueItems", Validation, Data),
    kw("maxContains", Validation, Data),
    kw("minContains", Validation, Data),
    kw("maxProperties", Validation, Data),
    kw("minProperties", Validation, Data),
    kw("required", Validation, Data),
    kw("dependentRequired", Validation, Data),
    kw("title", MetaData, Data),
    kw("description", MetaData, Data),
    kw("default", MetaData, Data),
    kw("deprecated", MetaData, Data),
    kw("readOnly", MetaData, Data),
    kw("writeOnly", MetaData, Data),
    kw("examples", MetaData, Data),
    kw("format", FormatAnnotation, Data),
    kw("contentEncoding", Content, Data),
    kw("contentMediaType", Content, Data),
    kw("contentSchema", Content, Schema),
];

/// Keys that are not draft 2020-12 keywords but whose values real schemas use as subschemas.
///
/// `definitions` is the draft-07 spelling of `$defs` and is still what many MCP servers emit; a
/// `$ref` into it resolves by JSON pointer, so the walker must see the keywords inside it or they
/// would go unchecked. It remains an *extension* for the tables: it needs an extension row.
pub const LEGACY_SCHEMA_MAPS: &[&str] = &["definitions"];

/// Extension keys that real tool schemas carry and that tables may name even though they are one
/// or two letters away from a keyword (`example` vs `examples`). Any other extension row that
/// close to a keyword is rejected by the lint as a probable typo.
pub const KNOWN_EXTENSIONS: &[&str] = &[
    "nullable",
    "example",
    "definitions",
    "dependencies",
    "additionalItems",
    "discriminator",
    "propertyOrdering",
    "id",
    "$recursiveRef",
    "$recursiveAnchor",
];

/// The pseudo-keywords naming boolean subschemas, which need rows like any keyword.
pub const BOOLEAN_SUBSCHEMAS: &[&str] = &["true", "false"];

/// Look a keyword up by name.
#[must_use]
pub fn keyword(name: &str) -> Option<&'static Keyword> {
    DRAFT_2020_12.iter().find(|k| k.name == name)
}

/// Whether `name` is a keyword of the draft 2020-12 vocabularies.
#[must_use]
pub fn is_keyword(name: &str) -> bool {
    keyword(name).is_some()
}

/// Whether `name` asserts anything about an instance: `false` for identifiers, references'
/// targets, comments and annotations (`$id`, `$defs`, `title`, `default`, the content keywords,
/// ...), whose removal changes no acceptance. Extensions assert nothing under draft 2020-12.
#[must_use]
pub fn asserts(name: &str) -> bool {
    match keyword(name) {
        Some(k) => !matches!(k.vocabulary, Vocabulary::MetaData | Vocabulary::Content)
            && !matches!(name, "$schema" | "$id" | "$anchor" | "$dynamicAnchor" | "$vocabulary" | "$comment" | "$defs"),
        // `true`/`false` are positions, not keywords: `false` rejects everything.
        None => name == "false",
    }
}

/// Whether the subschemas of `name` apply to the instance at the node itself (rather than to a
/// property's value or an item): the in-place applicators, references included.
#[must_use]
pub fn in_place(name: &str) -> bool {
    matches!(name, "allOf" | "anyOf" | "oneOf" | "not" | "if" | "then" | "else" | "dependentSchemas" | "$ref" | "$dynamicRef")
}

/// Whether `name` contributes to the annotations `unevaluatedProperties`/`unevaluatedItems` read:
/// it evaluates properties or items itself, or applies subschemas in place whose annotations count.
/// (`not` never contributes: its subschema's annotations are dropped.)
#[must_use]
pub fn annotates(name: &str) -> bool {
    matches!(
        name,
        "properties" | "patternProperties" | "additionalProperties" | "prefixItems" | "items" | "contains" | "unevaluatedProperties" | "unevaluatedItems"
    ) || (in_place(name) && name != "not")
}

/// The JSON type of the instances `name` constrains (`"string"` for `pattern`, `"object"` for
/// `required`), or `None` when it constrains every instance (`type`, `enum`, the in-place
/// applicators) or none.
#[must_use]
pub fn instance_type(name: &str) -> Option<&'static str> {
    match name {
        "multipleOf" | "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => Some("number"),
        "maxLength" | "minLength" | "pattern" | "format" | "contentEncoding" | "contentMediaType" | "contentSchema" => Some("string"),
        "prefixItems" | "items" | "contains" | "maxItems" | "minItems" | "uniqueItems" | "maxContains" | "minContains" | "unevaluatedItems" => Some("array"),
        "properties" | "patternProperties" | "additionalProperties" | "propertyNames" | "dependentSchemas" | "maxProperties" | "minProperties" | "required"
        | "dependentRequired" | "unevaluatedProperties" => Some("object"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_is_listed_once() {
        let mut names: Vec<_> = DRAFT_2020_12.iter().map(|k| k.name).collect();
        let before = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), before);
        assert_eq!(before, 57, "draft 2020-12 has 57 keywords across its seven vocabularies");
    }
}
