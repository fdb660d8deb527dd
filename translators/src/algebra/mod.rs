//! The schema algebra the built-in translators share, one module per concern, so that no
//! translator keeps its own copy of a primitive with its own semantics.
//!
//! - type set: [`crate::types`] (`integer` and the fractions as separate bits, shared with the
//!   oracle's witness generator), re-exported here as `types`.
//! - equality: [`crate::equality`] (`1` equals `1.0`), re-exported here as [`json_eq`]
//!   and [`contains`].
//! - [`disjoint`]: the one `oneOf` disjointness prover.
//! - [`conj`]: the one exact conjunction of two schema maps, returning the combined map and the
//!   residue it could not combine; each translator's policy decides what the residue becomes.
//! - [`combine`]: `merge` (`conj` keeping the first value of each residue, cca-claude's stated
//!   widening) and union (`join`) of combinator-free schemas.
//! - [`meet`]: the meet of two values of one keyword (bounds, counts, value lists, name lists,
//!   annotations) and the one emptiness test of bounds: the rules both conjunction engines apply,
//!   [`conj`] over schema maps and gemini-proto over its typed normal form.
//! - [`numbers`]: exact `multipleOf` arithmetic (openai-strict's, now cca-claude's too) and bounds.
//! - [`patterns`]: the conjunction of two `pattern`s (lookaheads).
//!
//! What each translator *does* with a `oneOf` it cannot prove disjoint (write `anyOf` and declare
//! a widening, keep `oneOf`, add a note) is its policy and stays in its own file.

pub(crate) mod combine;
pub(crate) mod conj;
pub(crate) mod disjoint;
pub(crate) mod meet;
pub(crate) mod numbers;
pub(crate) mod patterns;

pub(crate) use crate::equality::{contains, json_eq};
pub(crate) use crate::types;
