//! Tool-schema translators and the pieces they share with the fidelity oracle.
//!
//! A *translator* turns a tool's source schema (JSON Schema draft 2020-12) into what one provider
//! accepts: a [`Projection`] (schema, dialect, codec) or a named
//! [`Refusal`]. Every translator here descends through schemas with the one
//! [walker](walk), so the oracle in the harness and the translators agree on what a schema
//! position is.
//!
//! - [`vocabulary`]: the keyword registry: the draft 2020-12 keywords and the extension keys tables
//!   know, with the facts every reader classifies keywords by (value shape, whether it asserts,
//!   where and with which polarity it applies subschemas, instance type, bound).
//! - [`walk`]: the walker over schema positions.
//! - [`equality`]: JSON equality as JSON Schema reads it (`1` equals `1.0`).
//! - [`types`]: the JSON type set (`integer` apart from the fractions) and `const`/`enum` value sets.
//! - [`form`]: value forms, by which a disposition row may refine itself.
//! - [`model`]: the [`Translator`] trait and its outcome.
//! - [`codec`]: instance mappings for projections that change instance shape on purpose.
//! - [`graph`]: strongly connected components of reference graphs.
//! - [`locate`]: the instance locator (which schema nodes apply at an instance location).
//! - [`refs`]: the one `$ref` resolver (translators and the oracle's generator and budgets) and the
//!   one `$defs` naming and hoisting worklist of the built-in translators.
//! - [`root`]: whether a root accepts only objects (where forcing `type: object` is exact).
//! - `algebra`: the schema algebra the built-in translators share: the exact conjunction with its
//!   residue (`conj`), the union, the per-keyword meet, disjointness, `multipleOf` arithmetic.
//! - [`builtin`]: the reference translators.

pub(crate) mod algebra;
pub mod builtin;
pub mod codec;
pub mod equality;
pub mod form;
pub mod graph;
pub mod locate;
pub mod refs;
pub mod model;
pub mod root;
pub mod vocabulary;
pub mod types;
pub mod walk;

pub use codec::Codec;
pub use form::Form;
pub use types::Types;
pub use model::{Cites, Crash, Dialect, Fault, Outcome, Projection, Refusal, Translator};

/// The deepest schema nesting anything in this project accepts ([`walk::MAX_DEPTH`]). Provider
/// limits are far lower (OpenAI strict allows 10 levels); this bound only keeps recursion in
/// translators and validators safe.
pub const MAX_DEPTH: usize = 128;

/// The [`Translator::fingerprint`] of every built-in translator: its code is the program's, which
/// the records are kept under already.
pub const BUILTIN_FINGERPRINT: u64 = 0;
