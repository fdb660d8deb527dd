//! What the two Gemini translators (`gemini`, the JSON Schema subset, and `gemini-proto`, the
//! proto `Schema`) share: the refusal scan (object root, draft 2020-12 only, the keywords each
//! refuses), the wording of reference refusals (the resolution itself is [`crate::refs`]'s), the
//! size and depth limits both cite, the spill text ([`Notes`]) and reading a count keyword ([`count`]).
//!
//! Both Gemini forms are one provider's two wire formats: they refuse the same roots and
//! references with the same words and cite the same limits, so a table reads the same for both.
//! Keeping that here means neither provider file is the other's library (as
//! [`super::openai_common`] serves the two OpenAI translators).

use serde_json::{Map, Value};

use super::never::Searches;
use crate::model::{Outcome, Refusal};
use crate::refs::{RefError, Resolver};
use crate::walk::{self, Occurrence};

/// Why a reference to another document is refused.
pub(super) const URI_REFUSAL: &str = "the reference names another document; the provider fetches nothing and the translator resolves only `#` fragments";

/// Why `then: false` and `else: false` are refused: neither form has `if` or `not`, and spilling
/// the `false` would accept what it rejects (an inversion, CONTRACT §4 rule 2).
pub(super) const CONDITIONAL_FALSE_REFUSAL: &str =
    "`false` under `then`/`else` rejects whatever its `if` selects (or leaves); the provider's schema has no `if` and no `not` to say so, and spilling it into the description would accept what it rejects";

/// A refusal of `keyword` at the node `pointer`, whose value holds a subschema rejecting
/// everything at `inside`, which the provider's schema cannot hold.
pub(super) fn never_refusal(keyword: &str, pointer: &str, inside: &str) -> Refusal {
    Refusal::new(
        keyword,
        pointer,
        format!(
            "`{keyword}` holds a subschema that accepts nothing (at `{inside}`); the provider's schema has no `{keyword}`, and spilling it into the description would accept what that `false` rejects"
        ),
    )
}

/// A refusal of `unevaluatedProperties: false` / `unevaluatedItems: false` at the node `pointer`,
/// where what the node evaluates depends on which branch matches.
pub(super) fn unevaluated_refusal(keyword: &str, pointer: &str) -> Refusal {
    Refusal::new(
        keyword,
        pointer,
        format!(
            "`{keyword}: false` here closes over what depends on the instance (which branch of an `anyOf`/`oneOf`/`if`/`dependentSchemas` matches, which keys `patternProperties` or items `contains` match): the provider's schema cannot say it, and spilling it into the description would accept what it rejects"
        ),
    )
}

/// Spill the `if`/`then`/`else` of the node `map` (at `pointer`) into `notes`, or refuse when a
/// `false` in them can decide a rejection: spilling it would accept what it rejects. (An `if` that
/// decides its branch by itself, [`decided_branch`](super::never::decided_branch), is written
/// exactly by the caller instead.)
pub(super) fn spill_conditional(searches: &mut Searches, doc: &Resolver<'_>, map: &Map<String, Value>, pointer: &str, notes: &mut Notes) -> Result<(), Refusal> {
    if let Some((keyword, inside)) = searches.conditional(doc, map, pointer) {
        return Err(never_refusal(keyword, pointer, &inside));
    }
    for keyword in ["if", "then", "else"] {
        if let Some(value) = map.get(keyword) {
            notes.unenforced(keyword, value);
        }
    }
    Ok(())
}

/// The largest projection either Gemini translator emits, in schema nodes.
pub(super) const MAX_NODES: usize = 20_000;

/// The only meta-schema the translators read sources against.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// A count keyword's value (`minItems: 2.0` is the count 2).
pub(super) fn count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        let f = value.as_f64()?;
        // Below 2^53 an f64 holds every integer exactly, so the cast loses nothing.
        (f >= 0.0 && f.fract() == 0.0 && f < 9.0e15).then_some(f as u64)
    })
}

/// Refuse a source whose root is not `type: "object"` (both Gemini forms require an object root)
/// or which holds a keyword `refused` names, citing the first such occurrence.
pub(super) fn scan(source: &Value, refused: impl Fn(&Occurrence<'_>) -> Option<&'static str>) -> Result<(), Refusal> {
    let occurrences = walk::occurrences(source).map_err(|e| too_deep(&e.pointer))?;
    if source.get("type") != Some(&Value::from("object")) {
        return Err(Refusal::new(
            "type",
            "",
            "the function's parameters must be an object schema (`type: \"object\"` at the root); forcing one onto another root changes what it accepts (opencode #1667)",
        ));
    }
    for occurrence in &occurrences {
        if occurrence.keyword == "$schema" && occurrence.value.as_str().map(|s| s.trim_end_matches('#')) != Some(DRAFT_2020_12) {
            return Err(Refusal::limit(
                "meta-schema",
                1,
                0,
                format!(
                    "the source declares the meta-schema {} at `{}`; only draft 2020-12 is read (another meta-schema may turn vocabularies off, and it is not fetched)",
                    occurrence.value, occurrence.pointer
                ),
            ));
        }
        if let Some(reason) = refused(occurrence) {
            return Err(Refusal::new(occurrence.keyword, occurrence.pointer.clone(), reason));
        }
    }
    Ok(())
}

/// A refusal citing the depth limit at `pointer`.
pub(super) fn too_deep(pointer: &str) -> Refusal {
    let (measured, value) = ((walk::MAX_DEPTH + 1) as u64, walk::MAX_DEPTH as u64);
    Refusal::limit("max-depth", measured, value, format!("the projection nests deeper than {} levels at `{pointer}`", walk::MAX_DEPTH))
}

/// A refusal citing the size limit at `pointer`.
pub(super) fn too_large(pointer: &str) -> Refusal {
    let (measured, value) = ((MAX_NODES + 1) as u64, MAX_NODES as u64);
    Refusal::limit("schema-size", measured, value, format!("the projection would exceed {MAX_NODES} schema nodes at `{pointer}` (Gemini rejects schemas with \"too many states\")"))
}

/// The source document indexed for its references ([`crate::refs`]: fragments read against the
/// nearest enclosing `$id`, anchors per resource).
pub(super) fn document(source: &Value) -> Result<Resolver<'_>, Refusal> {
    Resolver::new(source).map_err(|e| too_deep(&e.pointer))
}

/// What both Gemini translators do first: [`scan`] the source for what they refuse, then index
/// it ([`document`]). The refusal comes as the [`Outcome`] to return.
pub(super) fn admit(source: &Value, refused: impl Fn(&Occurrence<'_>) -> Option<&'static str>) -> Result<Resolver<'_>, Outcome> {
    scan(source, refused).and_then(|()| document(source)).map_err(Outcome::Refused)
}

/// The pointer of the schema a reference held by the node at `holder` names.
///
/// # Errors
/// A refusal of the `$ref` at `holder` saying why the reference does not resolve in this document.
pub(super) fn resolve(doc: &Resolver<'_>, holder: &str, reference: &str) -> Result<String, Refusal> {
    doc.resolve(reference, holder).map_err(|e| {
        let why = match e {
            RefError::OtherDocument => format!("`{reference}`: {URI_REFUSAL}"),
            RefError::Malformed => format!("`{reference}` is not a valid percent-encoded fragment"),
            RefError::UnknownAnchor { anchor } => format!("`{reference}`: no anchor `{anchor}` in this resource"),
            RefError::NotASchema { .. } => format!("`{reference}` does not name a schema in this document"),
        };
        Refusal::new("$ref", holder, why)
    })
}

/// What a translator tells the model about keywords it could not express, and the annotations it
/// moved into the description.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Notes {
    /// Assertions the projection no longer enforces (each a named widening in the table).
    pub(super) unenforced: Vec<String>,
    /// Annotations that have no field of their own in the target.
    pub(super) annotations: Vec<String>,
}

impl Notes {
    pub(super) fn unenforced(&mut self, keyword: &str, value: &Value) {
        self.unenforced.push(format!("{keyword}: {value}"));
    }

    pub(super) fn annotate(&mut self, keyword: &str, value: &Value) {
        self.annotations.push(format!("{keyword}: {value}"));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.unenforced.is_empty() && self.annotations.is_empty()
    }

    /// The description text: the source's own, then the annotations, then what is not enforced.
    pub(super) fn describe(&self, own: Option<&str>) -> Option<String> {
        let mut parts: Vec<String> = own.filter(|d| !d.is_empty()).map(str::to_owned).into_iter().collect();
        if !self.annotations.is_empty() {
            parts.push(format!("({})", self.annotations.join("; ")));
        }
        if !self.unenforced.is_empty() {
            parts.push(format!("Must also satisfy (not enforced by this schema): {}.", self.unenforced.join("; ")));
        }
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::algebra::disjoint::provably_disjoint_here as provably_disjoint;

    #[test]
    fn fragments_resolve_against_the_nearest_resource() {
        let doc = json!({"properties": {"v": {"$id": "urn:x", "$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"}}});
        let d = document(&doc).unwrap();
        assert_eq!(resolve(&d, "/properties/v", "#/$defs/a").unwrap(), "/properties/v/$defs/a");
        let anchored = json!({"$defs": {"x": {"$anchor": "here", "type": "null"}}});
        let d = document(&anchored).unwrap();
        assert_eq!(resolve(&d, "", "#here").unwrap(), "/$defs/x");
        assert_eq!(resolve(&d, "", "#/%24defs/x").unwrap(), "/$defs/x");
        let refused = |r: &str| resolve(&d, "/properties/p", r).unwrap_err().to_string();
        assert!(refused("#there").contains("no anchor `there` in this resource"), "{}", refused("#there"));
        assert!(refused("#/%zz").contains("is not a valid percent-encoded fragment"));
        assert!(refused("#/required").contains("does not name a schema in this document"));
        assert!(refused("x.json").contains(URI_REFUSAL));
    }

    #[test]
    fn disjointness_needs_a_proof() {
        assert!(provably_disjoint(&[json!({"type": "string"}), json!({"type": "integer"})]));
        assert!(!provably_disjoint(&[json!({"type": "number"}), json!({"type": "integer"})]));
        let tagged = |t: &str| json!({"type": "object", "properties": {"k": {"const": t}}, "required": ["k"]});
        assert!(provably_disjoint(&[tagged("a"), tagged("b")]));
        assert!(!provably_disjoint(&[tagged("a"), tagged("a")]));
        // Without `type: object` a string matches both branches (`required` only binds objects).
        let untyped = |t: &str| json!({"properties": {"k": {"const": t}}, "required": ["k"]});
        assert!(!provably_disjoint(&[untyped("a"), untyped("b")]));
    }
}
