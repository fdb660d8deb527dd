//! `moonshot`: Moonshot/Kimi tool `parameters`, which must be "Moonshot flavored JSON Schema" (MFJS).
//!
//! Moonshot checks every tool schema with its validator *walle* before generation and answers
//! `tools.function.parameters is not a valid moonshot flavored json schema` for what it rejects.
//! walle walks only the root, `properties` values, `items`, `additionalProperties`, `anyOf` items
//! and the root's `$defs`; at those positions (see `targets/grammars/moonshot.json`):
//!
//! - every subschema is an object (no `true`/`false`) that declares `type`, or is an `anyOf` or a
//!   `$ref`; `type` never stands beside `anyOf`/`$ref`, and beside them only `description`/`title`
//!   may (the root may also keep `$defs`, `$id`);
//! - `enum` needs a `type` its values match; `items` is one object; `required` names properties;
//! - `$ref` is `#` or `#/$defs/<name>`, `$defs`/`$id` only at the root.
//!
//! Keywords MFJS does not support (`not`, `allOf`, `oneOf`, `if`, `pattern`, `const` ...) pass walle
//! unchecked; the MFJS spec says the model may not be held to them. This translator keeps them
//! rather than dropping them (a dropped `not` inverts what it forbade, D7), and rewrites the
//! structure exactly:
//!
//! - every reference is resolved (through embedded resources and anchors, by [`crate::refs`]), its
//!   target hoisted into the root `$defs` under a plain name (the shared scheme,
//!   [`crate::refs::Names`], in walle's `[A-Za-z0-9_.-]`), and nested `$id`/`$anchor`/`$defs`
//!   removed;
//! - an untyped node becomes an `anyOf` with one branch per JSON type it admits, each keeping the
//!   keywords that apply to that type (`{enum: [a, b]}` becomes `{type: string, enum: [a, b]}`;
//!   `{}` becomes six typed branches): never an invented `type: string` (the default MoonshotAI/kimi-cli#2030 writes);
//! - `type` beside `anyOf`, and every other keyword there, moves into each branch (exact:
//!   `T ∧ (A ∨ B) = (T ∧ A) ∨ (T ∧ B)`); a branch that contradicts it is dropped;
//! - `$ref` with sibling constraints is inlined when its target is not recursive, else kept inside
//!   an `allOf` beside the siblings; `true` becomes the typed "anything", `false` a typed node that
//!   accepts nothing (`not: {}`), `items: false` a `maxItems`;
//! - `items` beside `prefixItems` (walle would apply it to every element, contradicting the
//!   tuple) moves into an `allOf` where it still applies only past the prefix.
//!
//! Conjunctions go through the shared exact [`conj`](crate::algebra::conj); where two keywords
//! cannot share one node (its residue: two `pattern`s, two `not`s, ...; and what the normal form
//! keeps per node: both sides' `properties` with `additionalProperties`, both sides' tuples), the
//! second goes into an `allOf`: exact, but a place MFJS does not enforce. With `unevaluated*` in the schema, a node that would need its keywords
//! distributed is instead wrapped whole (`anyOf` of `{type: T, allOf: [node]}`), so the evaluated
//! annotations stay where they were. Documented limits (nesting depth, property count, enum
//! values, reserved property names, `/` inside `$defs`) refuse with `limit:<name>`.
//!
//! The steps live apart: reference hoisting in [`hoist`], the normal form in [`normal_form`], the
//! check of walle's limits in [`limits`].

use serde_json::{Map, Value};

use super::object_root::force_object_root;
use hoist::Hoister;
use limits::{check_limits, limit, too_deep};
use normal_form::Normalizer;
use crate::form::Form;
use crate::model::{Outcome, Refusal, Translator};
use crate::walk;

mod hoist;
mod limits;
mod normal_form;
#[cfg(test)]
mod tests;

/// Moonshot/Kimi MFJS.
#[derive(Debug, Default, Clone, Copy)]
pub struct Moonshot;

impl Translator for Moonshot {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "moonshot"
    }

    fn translate(&self, source: &Value) -> Outcome {
        match translate(source) {
            Ok(schema) => Outcome::json_schema(schema),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// MFJS limits from walle's documentation (`docs/walle.md`), enforced on the projection.
const MAX_DEPTH: usize = 5;
const MAX_PROPERTIES: usize = 100;
const MAX_ENUM_VALUES: usize = 500;
const MAX_ANY_OF_ITEMS: usize = 10;
/// Past this many alternatives for one node, it is wrapped whole rather than distributed.
const MAX_ALTERNATIVES: usize = 60;
/// Property names walle reserves for keywords.
const RESERVED_PROPERTY_NAMES: [&str; 5] = ["$defs", "$ref", "anyOf", "required", "additionalProperties"];
/// The six JSON types a typed "anything" lists (`integer` is within `number`).
const ALL_TYPES: [&str; 6] = ["string", "number", "boolean", "object", "array", "null"];

fn translate(source: &Value) -> Result<Value, Refusal> {
    walk::check_depth(source).map_err(|e| too_deep(&e.to_string()))?;
    refuse_unsupported_references(source)?;
    let rooted = force_object_root(source)?;
    let hoisted = Hoister::run(&rooted)?;
    let unevaluated = walk::occurrences(&rooted)
        .map_err(|e| too_deep(&e.to_string()))?
        .iter()
        .any(|o| matches!(o.keyword, "unevaluatedProperties" | "unevaluatedItems"));
    let mut normalizer = Normalizer::new(hoisted.defs, unevaluated);
    let defs = normalizer.all_defs();
    // The root's own `$schema`/`$id` describe the document, not the instance: they stay on the
    // root, beside whatever it becomes, with the hoisted definitions.
    let mut document_keys = Map::new();
    let mut body = hoisted.root;
    if let Value::Object(map) = &mut body {
        for key in ["$schema", "$id"] {
            if let Some(v) = map.remove(key) {
                document_keys.insert(key.to_owned(), v);
            }
        }
    }
    let mut root = normalizer.node(&body, 0);
    if let Value::Object(map) = &mut root {
        map.extend(document_keys);
        if !defs.is_empty() {
            map.insert("$defs".to_owned(), Value::Object(defs));
        }
    }
    check_limits(&root)?;
    Ok(root)
}

/// `$dynamicRef` and references to other documents have no MFJS form.
fn refuse_unsupported_references(source: &Value) -> Result<(), Refusal> {
    for o in walk::occurrences(source).map_err(|e| too_deep(&e.to_string()))? {
        match o.keyword {
            // A meta-schema of one's own changes which vocabularies apply; MFJS supports none.
            "$schema" if !o.value.as_str().is_some_and(|u| u.starts_with("https://json-schema.org/") || u.starts_with("http://json-schema.org/")) => {
                return Err(limit("meta-schemas", 1, 0, format!("`$schema` at `{}` names the meta-schema {}; MFJS supports no meta-schemas of one's own", o.pointer, o.value)));
            }
            "$dynamicRef" => {
                return Err(Refusal::new(o.keyword, o.pointer, "MFJS has no dynamic references (walle: `$dynamicRef` is not supported)"));
            }
            "$ref" if Form::of(o.keyword, o.value) == Form::Uri => {
                return Err(Refusal::new(o.keyword, o.pointer, format!("`{}` is not an in-document reference; MFJS allows `#` and `#/$defs/..` only", o.value)));
            }
            _ => {}
        }
    }
    Ok(())
}
