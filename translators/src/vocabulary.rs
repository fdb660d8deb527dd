//! The keyword registry: every draft 2020-12 keyword, the extension keys tables know, and the
//! facts about each that more than one part of the project reads.
//!
//! A fact belongs here when it is about the keyword, whatever reads it: what shape its value has
//! (the [walker](crate::walk) must never mistake a property *name* or an `enum` *payload* for a
//! keyword), whether it can reject an instance or only annotates, where its subschemas apply and
//! with which polarity, which instance type it constrains, whether it bounds a count or a number.
//! The table lint demands one row per keyword of [`DRAFT_2020_12`]; the witness planner, the
//! prover, the attribution, the schema algebra and the translators classify keywords by these
//! facts. Keeping them in one table means a keyword cannot be added to one reader and left out of
//! another, and two readers cannot disagree about, say, whether `contentEncoding` asserts.
//!
//! What stays with its reader is what states one reader's policy rather than a fact: the keywords
//! one translator spills into a description, the keywords the prover has code for, the keywords a
//! target's grammar admits. Where such a list means "every keyword that is X", the reader derives
//! it from the facts here, so a new keyword cannot be left behind.
//!
//! The facts are those of the draft 2020-12 specification (Core and Validation), as applied by the
//! oracle's validator (jsonschema 0.61 in draft 2020-12 mode). For the [extension keys](EXTENSIONS)
//! that validator is what decides: it still applies the draft-07 `dependencies`, and treats the
//! rest as unknown keywords, which draft 2020-12 (Core §6.5) collects as annotations.

use crate::types::Types;

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
    /// The value is data, not a schema (`enum`, `const`, `required`, `minimum`, ...), or a value
    /// the walker does not descend into (a reference's URI; the draft-07 `dependencies`, whose
    /// entries may be name lists).
    Data,
}

/// What a keyword does to validation: whether it can reject an instance, and if not, what
/// dropping it would still change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// It can reject an instance, by itself (`minimum`, `required`) or through its subschemas or
    /// its target (`items`, `allOf`, `$ref`). `if` counts: it decides what `then`/`else` assert.
    Asserts,
    /// `format`: an annotation under the format-annotation vocabulary (Validation §7.2.1), an
    /// assertion when the validator is told to assert formats, as the oracle is per case
    /// (`assert_formats`). Read as asserting wherever that setting is not known.
    FormatAssertion,
    /// It produces an annotation and rejects nothing: the meta-data and content vocabularies
    /// (Validation §8: `contentEncoding`, `contentMediaType` and `contentSchema` are not
    /// assertions; the oracle's validator compiles them as annotations), and unknown keywords
    /// (Core §6.5). Dropping it changes neither acceptance nor what a reference resolves to.
    Annotation,
    /// `$comment`: for readers of the schema only (Core §8.3); neither asserts nor annotates.
    Comment,
    /// It identifies a schema resource, a location or the dialect (`$schema`, `$id`, `$anchor`,
    /// `$dynamicAnchor`, `$vocabulary`). It rejects nothing, but moving or dropping it can change
    /// what a reference resolves to, so it is no annotation to drop freely.
    Identifier,
    /// It holds subschemas that only references reach (`$defs`, the draft-07 `definitions`): it
    /// rejects nothing, but dropping it can leave a reference unresolved.
    Definitions,
}

/// Where a keyword's subschemas (or a reference's target) are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// To the instance at the node itself (Core §10.2 and §8.2.3): `allOf`, `anyOf`, `oneOf`,
    /// `not`, `if`/`then`/`else`, `dependentSchemas`, and the references `$ref`/`$dynamicRef`.
    InPlace,
    /// To child instances, property values or array items (Core §10.3, §11): `properties`,
    /// `items`, `contains`, `unevaluatedProperties`, ...
    Children,
    /// To each property name, as a string instance: `propertyNames` (Core §10.3.2.4). The names
    /// are no child locations, so it evaluates no property for `unevaluatedProperties`.
    Names,
    /// Nowhere: validation never applies the subschemas at this position. `$defs`/`definitions`
    /// are reached only through references; `contentSchema` describes decoded content, as an
    /// annotation (Validation §8.5).
    Nowhere,
}

/// How the outcome of an applied subschema becomes the keyword's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    /// What the subschema is applied to must satisfy it (`contains`: some item must), so a
    /// `false` there rejects whatever reaches it, and widening it never narrows the keyword.
    Required,
    /// One (`anyOf`) or exactly one (`oneOf`) of the subschemas must hold: a `false` branch only
    /// removes itself.
    Alternative,
    /// `not`: the subschema must fail, so a `false` there accepts everything.
    Negated,
    /// `if`: its outcome only chooses whether `then` or `else` applies (Core §10.2.2.1); it
    /// rejects nothing by itself, and a `false` there selects `else`.
    Condition,
}

/// The JSON type of the instances a keyword constrains; on any other type it holds vacuously
/// (Validation §6: "if the instance is not a string, ..."). `number` includes the integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InstanceType {
    String,
    Number,
    Array,
    Object,
}

impl InstanceType {
    /// The type's name in a `type` keyword.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Number => "number",
            Self::Array => "array",
            Self::Object => "object",
        }
    }

    /// The type as a [`Types`] set.
    #[must_use]
    pub fn types(self) -> Types {
        match self {
            Self::String => Types::STRING,
            Self::Number => Types::NUMBER,
            Self::Array => Types::ARRAY,
            Self::Object => Types::OBJECT,
        }
    }
}

/// Which side a numeric keyword bounds: a limit on a number (`minimum`) or on a count (`minLength`,
/// `minItems`, `minContains`, `minProperties`). Two lower bounds combine to the larger, two upper
/// bounds to the smaller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Lower,
    Upper,
}

/// The facts about one keyword or extension key (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// The shape of its value, as the walker reads it.
    pub value: ValueKind,
    pub effect: Effect,
    /// Where its subschemas (or, for a reference, its target) apply; `None` for a keyword that
    /// applies no schema.
    pub applies: Option<Applies>,
    /// How an applied subschema's outcome counts; `None` where nothing is applied.
    pub polarity: Option<Polarity>,
    /// The instance type it constrains; `None` for every type (`type`, `enum`, the in-place
    /// applicators) or none (annotations that name no type).
    pub instance: Option<InstanceType>,
    pub bound: Option<Bound>,
}

impl Facts {
    /// Whether it can reject an instance, `format` included (its assertion depends on a setting
    /// the reader may not know; see [`Facts::asserts_under`]).
    #[must_use]
    pub fn asserts(&self) -> bool {
        self.asserts_under(true)
    }

    /// Whether it can reject an instance under a validator that asserts formats or not.
    #[must_use]
    pub fn asserts_under(&self, formats: bool) -> bool {
        match self.effect {
            Effect::Asserts => true,
            Effect::FormatAssertion => formats,
            Effect::Annotation | Effect::Comment | Effect::Identifier | Effect::Definitions => false,
        }
    }

    /// Whether it is a note for the schema's readers (an annotation or a comment): dropping it
    /// changes neither acceptance nor reference resolution. Identifiers and definitions assert
    /// nothing either, but are no notes.
    #[must_use]
    pub fn is_note(&self) -> bool {
        matches!(self.effect, Effect::Annotation | Effect::Comment)
    }

    /// Whether its subschemas (or target) apply to the instance at the node itself.
    #[must_use]
    pub fn in_place(&self) -> bool {
        self.applies == Some(Applies::InPlace)
    }

    /// Whether its value, written `false`, rejects something: one subschema applied with
    /// [`Polarity::Required`] (`additionalProperties: false` rejects every extra property,
    /// `then: false` every instance passing `if`). A `false` under `not` or `if` rejects nothing
    /// by itself, and `contentSchema` is never applied.
    #[must_use]
    pub fn false_rejects(&self) -> bool {
        self.value == ValueKind::Schema && self.polarity == Some(Polarity::Required)
    }

    /// Whether a `false` anywhere in its subschemas can reject what reaches it: subschemas applied
    /// with [`Polarity::Required`], a single one or a map's or array's entries.
    #[must_use]
    pub fn holds_required_subschemas(&self) -> bool {
        self.value != ValueKind::Data && self.polarity == Some(Polarity::Required)
    }
}

/// One keyword of the draft 2020-12 vocabularies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyword {
    pub name: &'static str,
    pub vocabulary: Vocabulary,
    pub facts: Facts,
}

impl Keyword {
    /// Whether it is a reference (`$ref`, `$dynamicRef`): it applies in place a schema named by
    /// its value rather than written in it. (The draft-07 `dependencies` also applies in place
    /// from a value the walker reads as data, but it is no keyword and names nothing.)
    #[must_use]
    pub fn is_reference(&self) -> bool {
        self.facts.in_place() && self.facts.value == ValueKind::Data
    }

    /// Whether it contributes to the annotations `unevaluatedProperties`/`unevaluatedItems` read
    /// (Core §11.1): it evaluates properties or items itself, or applies subschemas in place whose
    /// annotations count. `not` never contributes (its subschema's annotations are dropped), nor
    /// does `propertyNames` (names are no properties' values). Extension keys never do: the
    /// oracle's validator reads no `dependencies` there.
    #[must_use]
    pub fn feeds_unevaluated(&self) -> bool {
        match self.facts.applies {
            Some(Applies::Children) => true,
            Some(Applies::InPlace) => self.facts.polarity != Some(Polarity::Negated),
            Some(Applies::Names | Applies::Nowhere) | None => false,
        }
    }
}

/// Where an extension key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// An earlier draft of JSON Schema (`definitions`, `dependencies`, `additionalItems`, `id`,
    /// `$recursiveRef`, ...), named by its draft.
    Draft(&'static str),
    /// OpenAPI 3.0's schema object (`nullable`, `example`, `discriminator`).
    OpenApi,
    /// Google's Gemini `Schema` message (`propertyOrdering`).
    Gemini,
}

/// An extension key: no draft 2020-12 keyword, but one real tool schemas carry and tables may
/// name even though it is one or two letters away from a keyword (`example` vs `examples`). Its
/// facts are what the oracle's validator does with it in draft 2020-12 mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extension {
    pub name: &'static str,
    pub origin: Origin,
    pub facts: Facts,
}

use Effect::{Annotation, Asserts, Comment, Definitions, FormatAssertion, Identifier};
use InstanceType::{Array, Number, Object, String as Text};
use Polarity::{Alternative, Condition, Negated, Required};
use ValueKind::{Data, Schema, SchemaArray, SchemaMap};
use Vocabulary::{Applicator, Content, Core, FormatAnnotation, MetaData, Unevaluated, Validation};

/// Facts with only a value kind and an effect; the builders below add the rest.
const fn plain(value: ValueKind, effect: Effect) -> Facts {
    Facts { value, effect, applies: None, polarity: None, instance: None, bound: None }
}

impl Facts {
    const fn applied(self, applies: Applies, polarity: Polarity) -> Self {
        Self { applies: Some(applies), polarity: Some(polarity), ..self }
    }
    const fn unapplied(self) -> Self {
        Self { applies: Some(Applies::Nowhere), ..self }
    }
    const fn on(self, instance: InstanceType) -> Self {
        Self { instance: Some(instance), ..self }
    }
    const fn lower(self) -> Self {
        Self { bound: Some(Bound::Lower), ..self }
    }
    const fn upper(self) -> Self {
        Self { bound: Some(Bound::Upper), ..self }
    }
}

const fn kw(name: &'static str, vocabulary: Vocabulary, facts: Facts) -> Keyword {
    Keyword { name, vocabulary, facts }
}

/// A data keyword that asserts.
const fn assertion() -> Facts {
    plain(Data, Asserts)
}

/// A keyword whose subschemas apply in place.
const fn applied_in_place(value: ValueKind, polarity: Polarity) -> Facts {
    plain(value, Asserts).applied(Applies::InPlace, polarity)
}

/// A keyword whose subschemas apply to the children of an instance of type `instance`.
const fn to_children(value: ValueKind, instance: InstanceType) -> Facts {
    plain(value, Asserts).applied(Applies::Children, Required).on(instance)
}

/// Every keyword of the seven draft 2020-12 vocabularies, in specification order.
pub const DRAFT_2020_12: &[Keyword] = &[
    kw("$schema", Core, plain(Data, Identifier)),
    kw("$id", Core, plain(Data, Identifier)),
    kw("$ref", Core, applied_in_place(Data, Required)),
    kw("$anchor", Core, plain(Data, Identifier)),
    kw("$dynamicRef", Core, applied_in_place(Data, Required)),
    kw("$dynamicAnchor", Core, plain(Data, Identifier)),
    kw("$vocabulary", Core, plain(Data, Identifier)),
    kw("$comment", Core, plain(Data, Comment)),
    kw("$defs", Core, plain(SchemaMap, Definitions).unapplied()),
    kw("prefixItems", Applicator, to_children(SchemaArray, Array)),
    kw("items", Applicator, to_children(Schema, Array)),
    kw("contains", Applicator, to_children(Schema, Array)),
    kw("additionalProperties", Applicator, to_children(Schema, Object)),
    kw("properties", Applicator, to_children(SchemaMap, Object)),
    kw("patternProperties", Applicator, to_children(SchemaMap, Object)),
    kw("dependentSchemas", Applicator, applied_in_place(SchemaMap, Required).on(Object)),
    kw("propertyNames", Applicator, plain(Schema, Asserts).applied(Applies::Names, Required).on(Object)),
    kw("if", Applicator, applied_in_place(Schema, Condition)),
    kw("then", Applicator, applied_in_place(Schema, Required)),
    kw("else", Applicator, applied_in_place(Schema, Required)),
    kw("allOf", Applicator, applied_in_place(SchemaArray, Required)),
    kw("anyOf", Applicator, applied_in_place(SchemaArray, Alternative)),
    kw("oneOf", Applicator, applied_in_place(SchemaArray, Alternative)),
    kw("not", Applicator, applied_in_place(Schema, Negated)),
    kw("unevaluatedItems", Unevaluated, to_children(Schema, Array)),
    kw("unevaluatedProperties", Unevaluated, to_children(Schema, Object)),
    kw("type", Validation, assertion()),
    kw("const", Validation, assertion()),
    kw("enum", Validation, assertion()),
    kw("multipleOf", Validation, assertion().on(Number)),
    kw("maximum", Validation, assertion().on(Number).upper()),
    kw("exclusiveMaximum", Validation, assertion().on(Number).upper()),
    kw("minimum", Validation, assertion().on(Number).lower()),
    kw("exclusiveMinimum", Validation, assertion().on(Number).lower()),
    kw("maxLength", Validation, assertion().on(Text).upper()),
    kw("minLength", Validation, assertion().on(Text).lower()),
    kw("pattern", Validation, assertion().on(Text)),
    kw("maxItems", Validation, assertion().on(Array).upper()),
    kw("minItems", Validation, assertion().on(Array).lower()),
    kw("uniqueItems", Validation, assertion().on(Array)),
    kw("maxContains", Validation, assertion().on(Array).upper()),
    kw("minContains", Validation, assertion().on(Array).lower()),
    kw("maxProperties", Validation, assertion().on(Object).upper()),
    kw("minProperties", Validation, assertion().on(Object).lower()),
    kw("required", Validation, assertion().on(Object)),
    kw("dependentRequired", Validation, assertion().on(Object)),
    kw("title", MetaData, plain(Data, Annotation)),
    kw("description", MetaData, plain(Data, Annotation)),
    kw("default", MetaData, plain(Data, Annotation)),
    kw("deprecated", MetaData, plain(Data, Annotation)),
    kw("readOnly", MetaData, plain(Data, Annotation)),
    kw("writeOnly", MetaData, plain(Data, Annotation)),
    kw("examples", MetaData, plain(Data, Annotation)),
    kw("format", FormatAnnotation, plain(Data, FormatAssertion).on(Text)),
    kw("contentEncoding", Content, plain(Data, Annotation).on(Text)),
    kw("contentMediaType", Content, plain(Data, Annotation).on(Text)),
    kw("contentSchema", Content, plain(Schema, Annotation).unapplied().on(Text)),
];

const fn ext(name: &'static str, origin: Origin, facts: Facts) -> Extension {
    Extension { name, origin, facts }
}

/// An unknown keyword to the oracle's validator: an annotation (Core §6.5), not walked into.
const UNKNOWN: Facts = plain(Data, Annotation);

/// The extension keys tables know (see [`Extension`]). Any other extension row that close to a
/// keyword is rejected by the lint as a probable typo.
pub const EXTENSIONS: &[Extension] = &[
    ext("nullable", Origin::OpenApi, UNKNOWN),
    ext("example", Origin::OpenApi, UNKNOWN),
    // The draft-07 spelling of `$defs`, still what many MCP servers emit: a `$ref` into it
    // resolves by JSON pointer, so the walker must see the keywords inside it or they would go
    // unchecked. It remains an extension for the tables: it needs an extension row.
    ext("definitions", Origin::Draft("draft-07"), plain(SchemaMap, Definitions).unapplied()),
    // The oracle's validator applies it in every draft, as draft-07 did: a name list per key is
    // `dependentRequired`, a schema `dependentSchemas` (in place, on objects). The walker does not
    // descend into it, and `unevaluated*` read none of its annotations.
    ext("dependencies", Origin::Draft("draft-07"), applied_in_place(Data, Required).on(Object)),
    // The validator applies it only beside an array-valued `items`, which draft 2020-12 does not
    // have (`items` is one schema): an unknown keyword here.
    ext("additionalItems", Origin::Draft("draft-07"), UNKNOWN),
    ext("discriminator", Origin::OpenApi, UNKNOWN),
    ext("propertyOrdering", Origin::Gemini, UNKNOWN),
    // Draft-04's `$id`: the validator identifies no resource by it in draft 2020-12 mode.
    ext("id", Origin::Draft("draft-04"), UNKNOWN),
    // Draft 2019-09's dynamic references, which the validator applies in that draft's mode only.
    ext("$recursiveRef", Origin::Draft("2019-09"), UNKNOWN),
    ext("$recursiveAnchor", Origin::Draft("2019-09"), UNKNOWN),
];

/// Groups of keywords whose meaning depends on one another in the same schema object, so that a
/// reader that moves, merges or drops one must treat its group whole. `additionalProperties`
/// applies to the properties `properties` and `patternProperties` do not match (Core §10.3.2.3).
pub const PROPERTY_GROUP: [&str; 3] = ["properties", "patternProperties", "additionalProperties"];
/// `items` applies to the items after those `prefixItems` covers (Core §10.3.1.2).
pub const ITEM_GROUP: [&str; 2] = ["prefixItems", "items"];
/// `minContains`/`maxContains` count the items `contains` matches (Validation §6.4.4-5).
pub const CONTAINS_GROUP: [&str; 3] = ["contains", "minContains", "maxContains"];
/// `then` or `else` applies by the outcome of `if` (Core §10.2.2).
pub const CONDITIONAL_GROUP: [&str; 3] = ["if", "then", "else"];

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

/// Look an extension key up by name.
#[must_use]
pub fn extension(name: &str) -> Option<&'static Extension> {
    EXTENSIONS.iter().find(|e| e.name == name)
}

/// Whether `name` is an extension key the tables know.
#[must_use]
pub fn is_known_extension(name: &str) -> bool {
    extension(name).is_some()
}

/// The facts about `name`, a keyword or a known extension key; `None` for any other key (an
/// unknown keyword, an annotation: see [`asserts`] and [`is_note`]).
#[must_use]
pub fn facts(name: &str) -> Option<&'static Facts> {
    keyword(name).map(|k| &k.facts).or_else(|| extension(name).map(|e| &e.facts))
}

/// Whether a key in a schema object can reject an instance (`format` included). Unknown keys
/// are annotations and reject nothing. (The pseudo-keywords `true`/`false` of boolean subschema
/// positions are no keys: their readers decide them apart.)
#[must_use]
pub fn asserts(name: &str) -> bool {
    facts(name).is_some_and(Facts::asserts)
}

/// [`asserts`] under a validator that asserts formats (`formats`) or not.
#[must_use]
pub fn asserts_under(name: &str, formats: bool) -> bool {
    facts(name).is_some_and(|f| f.asserts_under(formats))
}

/// Whether a key in a schema object is a note for readers (see [`Facts::is_note`]); unknown keys
/// are (annotations, Core §6.5).
#[must_use]
pub fn is_note(name: &str) -> bool {
    facts(name).is_none_or(Facts::is_note)
}

/// Whether `name` identifies a resource, a location or the dialect ([`Effect::Identifier`]).
#[must_use]
pub fn is_identifier(name: &str) -> bool {
    facts(name).is_some_and(|f| f.effect == Effect::Identifier)
}

/// Whether `name` holds definitions that only references reach (`$defs`, `definitions`).
#[must_use]
pub fn holds_definitions(name: &str) -> bool {
    facts(name).is_some_and(|f| f.effect == Effect::Definitions)
}

/// Whether the subschemas of `name` (or its target) apply to the instance at the node itself:
/// the in-place applicators, references and the draft-07 `dependencies` included.
#[must_use]
pub fn in_place(name: &str) -> bool {
    facts(name).is_some_and(Facts::in_place)
}

/// Whether `name` is a reference (`$ref`, `$dynamicRef`).
#[must_use]
pub fn is_reference(name: &str) -> bool {
    keyword(name).is_some_and(Keyword::is_reference)
}

/// The polarity with which `name` applies its subschemas, if it applies any.
#[must_use]
pub fn polarity(name: &str) -> Option<Polarity> {
    facts(name).and_then(|f| f.polarity)
}

/// See [`Keyword::feeds_unevaluated`].
#[must_use]
pub fn feeds_unevaluated(name: &str) -> bool {
    keyword(name).is_some_and(Keyword::feeds_unevaluated)
}

/// Whether `name` applies subschemas in place whose evaluated properties and items the node's
/// `unevaluated*` see (every in-place applicator but `not`, references included; not the
/// draft-07 `dependencies`, which the oracle's validator leaves out there).
#[must_use]
pub fn evaluates_in_place(name: &str) -> bool {
    keyword(name).is_some_and(|k| k.facts.in_place() && k.feeds_unevaluated())
}

/// See [`Facts::false_rejects`].
#[must_use]
pub fn false_rejects(name: &str) -> bool {
    facts(name).is_some_and(Facts::false_rejects)
}

/// The instance type `name` constrains (`String` for `pattern`, `Object` for `required`), or
/// `None` when it constrains every instance (`type`, `enum`, the in-place applicators) or none.
#[must_use]
pub fn instance_type(name: &str) -> Option<InstanceType> {
    facts(name).and_then(|f| f.instance)
}

/// Which side `name` bounds, if it is a numeric or count limit.
#[must_use]
pub fn bound(name: &str) -> Option<Bound> {
    facts(name).and_then(|f| f.bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(keep: impl Fn(&Keyword) -> bool) -> Vec<&'static str> {
        DRAFT_2020_12.iter().filter(|k| keep(k)).map(|k| k.name).collect()
    }

    #[test]
    fn every_keyword_is_listed_once() {
        let mut names: Vec<_> = DRAFT_2020_12.iter().map(|k| k.name).collect();
        let before = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), before);
        assert_eq!(before, 57, "draft 2020-12 has 57 keywords across its seven vocabularies");
    }

    #[test]
    fn extensions_are_no_keywords_and_listed_once() {
        let mut names: Vec<_> = EXTENSIONS.iter().map(|e| e.name).collect();
        assert!(names.iter().all(|n| !is_keyword(n) && !BOOLEAN_SUBSCHEMAS.contains(n)), "{names:?}");
        let before = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    /// The facts follow from the vocabulary where the specification says so.
    #[test]
    fn effects_follow_the_vocabularies() {
        for k in DRAFT_2020_12 {
            let expected = match k.vocabulary {
                Vocabulary::Applicator | Vocabulary::Unevaluated | Vocabulary::Validation => Some(Effect::Asserts),
                Vocabulary::MetaData | Vocabulary::Content => Some(Effect::Annotation),
                Vocabulary::FormatAnnotation => Some(Effect::FormatAssertion),
                Vocabulary::Core => None,
            };
            if let Some(effect) = expected {
                assert_eq!(k.facts.effect, effect, "{}", k.name);
            }
        }
        // Core: the references assert, the rest identify, define or comment (Core §8).
        assert_eq!(names(|k| k.vocabulary == Vocabulary::Core && k.facts.asserts()), ["$ref", "$dynamicRef"]);
        assert_eq!(names(|k| k.facts.effect == Effect::Identifier), ["$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary"]);
    }

    /// Every applicator says where and how it applies; nothing else does.
    #[test]
    fn applicators_are_classified_consistently() {
        for k in DRAFT_2020_12.iter().map(|k| (k.name, k.facts)).chain(EXTENSIONS.iter().map(|e| (e.name, e.facts))) {
            let (name, f) = k;
            let applied = matches!(f.applies, Some(Applies::InPlace | Applies::Children | Applies::Names));
            assert_eq!(applied, f.polarity.is_some(), "{name}: a polarity exactly where a subschema is applied");
            if f.value != ValueKind::Data {
                assert!(f.applies.is_some(), "{name}: a subschema value is applied somewhere or nowhere, but said so");
            }
            if applied {
                assert!(f.asserts(), "{name}: an applied subschema can reject");
            }
            if f.applies == Some(Applies::Children) {
                assert!(matches!(f.instance, Some(InstanceType::Array | InstanceType::Object)), "{name}: children are items or property values");
            }
            if let Some(bound) = f.bound {
                assert!(f.value == ValueKind::Data && f.asserts() && f.instance.is_some(), "{name}");
                assert!(name.starts_with(if bound == Bound::Lower { "min" } else { "max" }) || name.starts_with("exclusive"), "{name}");
            }
            if f.is_note() || matches!(f.effect, Effect::Identifier) {
                assert!(!applied, "{name}: a note or identifier applies nothing to the instance");
            }
        }
        // In draft 2020-12 the only applicators whose value is no schema are the references.
        assert_eq!(names(|k| k.facts.applies.is_some() && k.facts.value == ValueKind::Data), ["$ref", "$dynamicRef"]);
        assert_eq!(names(Keyword::is_reference), ["$ref", "$dynamicRef"]);
        for k in DRAFT_2020_12.iter().filter(|k| matches!(k.vocabulary, Vocabulary::Applicator | Vocabulary::Unevaluated)) {
            assert!(k.facts.value != ValueKind::Data, "{}: the applicator vocabularies hold subschemas", k.name);
        }
    }

    /// The sets the specification names, as the registry derives them.
    #[test]
    fn derived_sets_match_the_specification() {
        // Core §10.2 (in place) and §8.2.3 (references).
        assert_eq!(
            names(|k| k.facts.in_place()),
            ["$ref", "$dynamicRef", "dependentSchemas", "if", "then", "else", "allOf", "anyOf", "oneOf", "not"]
        );
        // Core §10.3 and §11 (child instances).
        assert_eq!(
            names(|k| k.facts.applies == Some(Applies::Children)),
            ["prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties", "unevaluatedItems", "unevaluatedProperties"]
        );
        assert_eq!(
            names(|k| !k.facts.asserts()),
            [
                "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "$defs", "title", "description", "default", "deprecated",
                "readOnly", "writeOnly", "examples", "contentEncoding", "contentMediaType", "contentSchema"
            ]
        );
        assert_eq!(
            names(|k| k.facts.false_rejects()),
            ["items", "contains", "additionalProperties", "propertyNames", "then", "else", "unevaluatedItems", "unevaluatedProperties"]
        );
        assert_eq!(
            names(Keyword::feeds_unevaluated),
            [
                "$ref", "$dynamicRef", "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties", "dependentSchemas",
                "if", "then", "else", "allOf", "anyOf", "oneOf", "unevaluatedItems", "unevaluatedProperties"
            ]
        );
        assert_eq!(
            names(|k| evaluates_in_place(k.name)),
            ["$ref", "$dynamicRef", "dependentSchemas", "if", "then", "else", "allOf", "anyOf", "oneOf"]
        );
        assert!(!asserts_under("format", false) && asserts_under("format", true) && asserts("format"));
    }

    #[test]
    fn groups_are_keywords_of_one_instance_type() {
        for group in [&PROPERTY_GROUP[..], &ITEM_GROUP, &CONTAINS_GROUP, &CONDITIONAL_GROUP] {
            let types: Vec<_> = group.iter().map(|k| keyword(k).map(|k| k.facts.instance)).collect();
            assert!(types.iter().all(|t| t.is_some() && *t == types[0]), "{group:?}");
        }
    }

    /// Keys outside the registry: unknown keywords annotate.
    #[test]
    fn unknown_keys_are_annotations() {
        assert!(!asserts("x-vendor") && is_note("x-vendor") && facts("x-vendor").is_none());
        assert!(asserts("dependencies") && in_place("dependencies") && !feeds_unevaluated("dependencies") && !is_reference("dependencies"));
        assert!(!asserts("nullable") && is_note("nullable") && holds_definitions("definitions"));
        // Only `definitions` is walked: `$ref`s reach into it by pointer.
        assert_eq!(EXTENSIONS.iter().filter(|e| e.facts.value != ValueKind::Data).map(|e| (e.name, e.facts.value)).collect::<Vec<_>>(), [("definitions", ValueKind::SchemaMap)]);
    }
}
