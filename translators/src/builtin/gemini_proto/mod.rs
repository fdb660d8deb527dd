//! `gemini-proto`: the legacy Gemini/Vertex `FunctionDeclaration.parameters`, a proto `Schema`
//! message (used by Vertex, Antigravity and Cloud Code Assist).
//!
//! The proto (googleapis `google/ai/generativelanguage/v1beta/content.proto` @c76b7407) knows
//! `type` (an upper-case enum, required), `format`, `title`, `description`, `nullable`, `enum`
//! (strings only), `items` (required for `ARRAY`), `minItems`/`maxItems` (int64, sent as strings),
//! `properties`, `required`, `minimum`/`maximum`, `anyOf` (which Vertex wants alone on its node),
//! `propertyOrdering` and `default`. No references, no `allOf`, no closed objects, no tuples.
//!
//! So the translator does not map keyword by keyword; it computes a **normal form**: a
//! disjunction of typed branches, one per JSON type a node admits, each holding only what the
//! proto can say about that type. A conjunction (`allOf`, a `$ref` with siblings, `const` beside
//! `type`, ...) is the pairwise merge of two disjunctions, which is exact in this vocabulary
//! (types intersect, bounds tighten, enums intersect, properties merge, `required` unites). The
//! normal form is then written out: one branch is a typed `Schema`; several are an `anyOf` alone
//! on its node, a `null` branch folded into `nullable` on another branch.
//!
//! - **Type unions** become `anyOf` of typed branches (or `T` + `nullable`), never their first
//!   member (opencode #1556).
//! - **Non-string `const`/`enum`** values are never stringified: a number is pinned by
//!   `minimum = maximum`, `null` is `NULL`, exactly; booleans, objects and arrays have no exact
//!   proto form and widen, named (opencode #1557).
//! - **`false`** becomes an unsatisfiable `NUMBER` (`minimum: 1, maximum: 0`), never `{}` (#1573).
//!   At a keyword the proto has no field for it is written exactly where the normal form can say
//!   it (`not: {}` leaves no branch, `contains: false` no ARRAY branch, a `false` entry of
//!   `dependentSchemas` forbids its property, `unevaluatedItems: false` beside conjuncts only is
//!   `maxItems`) and refused elsewhere: spilling it would accept what it rejects (an inversion).
//!   `additionalProperties: false` is the exception the table marks (sf-5): refusing it would
//!   refuse most tool schemas.
//! - **`prefixItems`** widens to `items: {anyOf: [positions..]}` with `maxItems` for a closed tuple;
//!   never dropped while `items` still applies to position 0 (#1574).
//! - **References** are inlined; a cycle is unrolled twice and then cut to the unsatisfiable
//!   schema at every place it loops, mutual recursion included (#1585): a named narrowing.
//! - **Arrays without `items`** (and every value left unconstrained, `true` included) get the
//!   widest finite proto form: an `anyOf` of every type whose arrays nest at most [`ANY_NESTING`]
//!   levels deep. The proto requires `items` on `ARRAY` (#1548) and `type` on every schema, so "any value"
//!   has no exact form; deeper arrays are rejected (a narrowing).
//! - **Roots** must be `type: "object"` and stay one `OBJECT` (Vertex rejects anything else); a
//!   root that is not is refused, never forced (#1667). A root union of objects (`anyOf`/`oneOf`/
//!   `allOf` on the root) is merged into one `OBJECT`, a named widening; a `$ref` on the root is
//!   refused.
//!
//! The normal form is [`normal_form`]; [`lower`] computes it from the source and [`emit`] writes it
//! as the proto `Schema`.

use serde_json::Value;

use super::gemini_common::{CONDITIONAL_FALSE_REFUSAL, MAX_NODES, URI_REFUSAL, admit, too_large};
use super::never::Searches;
use crate::codec::Codec;
use crate::form::Form;
use crate::model::{Dialect, Outcome, Projection, Refusal, Translator};
use crate::refs::Resolver;
use crate::walk::Occurrence;

mod emit;
mod lower;
mod normal_form;
#[cfg(test)]
mod tests;

/// Gemini/Vertex proto `parameters`.
#[derive(Debug, Default, Clone, Copy)]
pub struct GeminiProto;

impl Translator for GeminiProto {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "gemini-proto"
    }

    fn translate(&self, source: &Value) -> Outcome {
        let refused = |o: &Occurrence<'_>| match o.keyword {
            "$ref" if o.at_root => Some("a `$ref` on the root may name a union or a recursion, and the proto root must be one OBJECT schema"),
            "$ref" if Form::of(o.keyword, o.value) == Form::Uri => Some(URI_REFUSAL),
            "$dynamicRef" => Some("`$dynamicRef` resolves by dynamic scope; the proto has no references at all"),
            "then" | "else" if o.value == &Value::Bool(false) => Some(CONDITIONAL_FALSE_REFUSAL),
            "unevaluatedProperties" if o.value == &Value::Bool(false) => Some(
                "`unevaluatedProperties: false` closes an object, and the proto cannot close one (no `additionalProperties`); spilling it into the description would accept what it rejects",
            ),
            "propertyNames" if o.value == &Value::Bool(false) => Some(
                "`propertyNames: false` admits only the empty object, and the proto cannot close one (no `additionalProperties`, no `maxProperties`); spilling it would accept what it rejects",
            ),
            _ => None,
        };
        let doc = match admit(source, refused) {
            Ok(doc) => doc,
            Err(refused) => return refused,
        };
        let mut build = Build { doc, nodes: 0, searches: Searches::default() };
        let projected = build.lower(source, "", &mut Vec::new(), 0).and_then(|root| build.emit_root(root));
        match projected {
            Ok(schema) => Outcome::Projected(Projection { schema, dialect: Dialect::GeminiProto, codec: Codec::Identity, strict: None }),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// How deep arrays may nest (counting the outermost) where the source leaves items unconstrained.
const ANY_NESTING: usize = 3;

/// How often a reference cycle is unrolled before it is cut.
const MAX_UNROLL: usize = 2;

/// The largest count written to `minItems`/`maxItems` (int64 decimal strings, which the grammar
/// reads as at most 18 digits). A bound above it is written as it: no array has 10^18 items, so
/// both accept the same instances (a source `minItems: 18446744073709551615`, beyond int64, was
/// written as is and broke the proto).
const MAX_COUNT: u64 = 999_999_999_999_999_999;

/// The most branches one disjunction may hold before the projection is refused as too large.
const MAX_BRANCHES: usize = 256;

/// One translation: the indexed source, and the schema nodes lowered, merged and written so far
/// (both halves spend the one [`MAX_NODES`] budget).
struct Build<'a> {
    doc: Resolver<'a>,
    nodes: usize,
    /// Where a `false` sits in the values this translation spills (a definition inlined at many
    /// places is searched once).
    searches: Searches,
}

impl Build<'_> {
    fn count(&mut self, pointer: &str) -> Result<(), Refusal> {
        self.nodes += 1;
        if self.nodes > MAX_NODES { Err(too_large(pointer)) } else { Ok(()) }
    }
}
