//! `gemini`: Gemini `FunctionDeclaration.parametersJsonSchema`, the JSON Schema subset.
//!
//! Gemini accepts a JSON Schema *subset* for tool parameters: `$id, $defs, $ref, $anchor, type,
//! format, title, description, enum (strings and numbers), items, prefixItems, minItems, maxItems,
//! minimum, maximum, anyOf, oneOf (read as anyOf), properties, additionalProperties, required`
//! and `propertyOrdering`; a `$ref` may have no siblings but `$`-keywords; cycles may only run
//! through non-required properties. This translator keeps what the subset says and otherwise
//! either rewrites exactly or names what it loses:
//!
//! - **Exact rewrites.** A conjunction (`allOf`, a `$ref` with siblings) becomes single-branch
//!   `anyOf`/`oneOf` slots: `{anyOf: [A]}` is `A`, and a node holds two slots, so
//!   `{.., anyOf: [A], oneOf: [{anyOf: [B], oneOf: [C]}]}` is `.. ∧ A ∧ B ∧ C` without merging
//!   keywords (merging is where peers override siblings, D10). `const` becomes `enum` (a string or
//!   number), `type: "null"`, or for objects and arrays the structure that pins the value.
//!   A `false` subschema becomes an unsatisfiable schema (never `{}`); `items: false` becomes
//!   `maxItems`. Non-recursive references are inlined, so no `$ref` ever has siblings.
//! - **A `false` is never spilled.** At a keyword outside the subset it is written exactly where
//!   the subset can say it: `not: {}` is the unsatisfiable schema, `contains: false` a conjunct no
//!   array passes, `propertyNames: false` a conjunct `additionalProperties: false`,
//!   `dependentSchemas` (every entry) "absent, or S" as an `anyOf`, an `if` asserting nothing (or
//!   nothing passes) its `then` (its `else`), and `unevaluated*: false` beside conjuncts only
//!   closes over what they declare ([`super::never::evaluated`]). Elsewhere (`patternProperties`
//!   holding a `false`, `unevaluated*: false` beside branches that evaluate, `then`/`else: false`,
//!   a `false` inside another spilled keyword) the translator refuses: spilling would accept what
//!   the `false` rejects, an inversion (CONTRACT §4 rule 2).
//! - **Named widenings.** Keywords outside the subset (`pattern`, `minLength`, `not`,
//!   `if`/`then`/`else`, `uniqueItems`, ...) are spilled into `description` and no longer enforced.
//!   `oneOf` becomes `anyOf` (exact only when the branches are provably disjoint). Boolean
//!   `enum`/`const` values widen to `type: "boolean"`: the subset's `enum` holds strings and numbers.
//! - **Recursion.** A cycle through a non-required property stays a `$ref` into a generated root
//!   `$defs` (the provider unrolls it to a limited depth: a narrowing the table names). A cycle that
//!   runs only through required properties, items or combinators is unrolled twice and then *cut*
//!   to the unsatisfiable schema, at every place it loops (mutual recursion included, opencode
//!   #1585): a named narrowing.
//! - **Refusals.** References to other documents (`$ref` to a URI) and `$dynamicRef`; roots that are
//!   not `type: "object"` (the declaration "must describe an object", and forcing one is opencode
//!   #1667).
//!
//! The refusal scan, the wording of reference refusals, the limits and the spill text are shared
//! with `gemini-proto` and live in [`super::gemini_common`].

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::gemini_common::{
    CONDITIONAL_FALSE_REFUSAL, MAX_NODES, Notes, URI_REFUSAL, admit, count, never_refusal, resolve, spill_conditional, too_deep, too_large, unevaluated_refusal,
};
use super::never::{Evaluated, Searches, Side, asserts_nothing, decided_branch, evaluated, is_never};
use crate::algebra::{meet, numbers};
use crate::algebra::disjoint::provably_disjoint_here as provably_disjoint;
use crate::form::Form;
use crate::model::{Outcome, Refusal, Translator};
use crate::refs::{Charset, Names, Resolver};
use crate::types::Types;
use crate::vocabulary::{self, Effect};
use crate::walk::{self, Occurrence};

/// Gemini `parametersJsonSchema` (JSON Schema subset).
#[derive(Debug, Default, Clone, Copy)]
pub struct Gemini;

impl Translator for Gemini {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "gemini"
    }

    fn translate(&self, source: &Value) -> Outcome {
        let refused = |o: &Occurrence<'_>| match o.keyword {
            "$ref" if Form::of(o.keyword, o.value) == Form::Uri => Some(URI_REFUSAL),
            "$dynamicRef" => Some("`$dynamicRef` resolves by dynamic scope, which the subset has no way to express"),
            "then" | "else" if o.value == &Value::Bool(false) => Some(CONDITIONAL_FALSE_REFUSAL),
            _ => None,
        };
        let doc = match admit(source, refused) {
            Ok(doc) => doc,
            Err(refused) => return refused,
        };
        let mut build = Build { names: Names::new(source, Charset::Word), doc, nodes: 0, searches: Searches::default() };
        match build.finish() {
            Ok(schema) => Outcome::json_schema(schema),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// Whether `name` is listed in the node's `required`.
fn is_required(node: &Map<String, Value>, name: &str) -> bool {
    node.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)))
}

// ---- the JSON Schema subset --------------------------------------------------------------------

/// How often a cycle that the provider may not unroll (no non-required property on it) is
/// unrolled by the translator before it is cut.
const MAX_UNROLL: usize = 2;

/// Keywords outside the subset whose assertions are spilled into `description`, unenforced.
const SPILLED: &[&str] = &[
    "dependencies",
    "not",
    "contains",
    "minContains",
    "maxContains",
    "pattern",
    "minLength",
    "maxLength",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "patternProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedItems",
    "unevaluatedProperties",
];


/// The schema that accepts nothing, written in the subset: what a `false` subschema, an empty
/// `enum` and a cut recursion become. Never `{}`.
fn never() -> Value {
    json!({"description": "No value is valid here.", "type": "number", "minimum": 1, "maximum": 0})
}

/// `contains: false` (unless `minContains: 0`): no array is valid, whatever else the node is.
/// `minItems`/`maxItems` apply to arrays only, so other values still pass.
fn no_array() -> Value {
    json!({"description": "No array is valid here (`contains: false`).", "minItems": 1, "maxItems": 0})
}

/// `propertyNames: false`: an object is valid only without properties. `additionalProperties`
/// applies to objects only, so other values still pass.
fn no_property() -> Value {
    json!({"description": "No property is valid here (`propertyNames: false`).", "additionalProperties": false})
}


/// One conjunct of a node: a disjunction (an `anyOf`) or a single schema.
enum Slot {
    Any(Vec<Value>),
    All(Value),
}

impl Slot {
    fn into_list(self) -> Vec<Value> {
        match self {
            Self::Any(list) => list,
            Self::All(schema) => vec![schema],
        }
    }

    fn into_schema(self) -> Value {
        match self {
            Self::Any(list) => json!({ "anyOf": list }),
            Self::All(schema) => schema,
        }
    }
}

/// The conjunction of `slots` as one schema: `{anyOf: [left], oneOf: [right]}`, halves nested,
/// so a thousand conjuncts nest ten levels, not a thousand.
fn chain(mut slots: Vec<Slot>) -> Value {
    if slots.len() == 1 {
        return slots.remove(0).into_schema();
    }
    let right = slots.split_off(slots.len() / 2);
    let left = if slots.len() == 1 { slots.remove(0).into_list() } else { vec![chain(slots)] };
    json!({ "anyOf": left, "oneOf": [chain(right)] })
}

/// A schema node on the path being projected (reached structurally or through a reference).
struct Frame {
    target: String,
    /// How many non-required properties the path had stepped into when the target was entered.
    optional_at_entry: usize,
}

struct Build<'a> {
    doc: Resolver<'a>,
    /// `$defs` names of the targets kept as `$ref` (allowed cycles), and those still to project.
    names: Names,
    nodes: usize,
    /// Where a `false` sits in the values this translation spills (a definition inlined at many
    /// places is searched once).
    searches: Searches,
}

impl Build<'_> {
    fn finish(&mut self) -> Result<Value, Refusal> {
        let root = self.doc.root();
        let mut out = self.project(root, "", &mut Vec::new(), 0, 0)?;
        let mut defs = Map::new();
        while let Some((target, name)) = self.names.next_unwritten() {
            let node = self.doc.at(&target).ok_or_else(|| Refusal::new("$ref", target.clone(), "the reference target vanished"))?;
            let projected = self.project(node, &target, &mut Vec::new(), 0, 0)?;
            defs.insert(name, projected);
        }
        if !defs.is_empty()
            && let Value::Object(map) = &mut out
        {
            map.insert("$defs".to_owned(), Value::Object(defs));
        }
        Ok(out)
    }

    fn project(&mut self, schema: &Value, pointer: &str, frames: &mut Vec<Frame>, optional: usize, depth: usize) -> Result<Value, Refusal> {
        if depth > walk::MAX_DEPTH {
            return Err(too_deep(pointer));
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(too_large(pointer));
        }
        // Every node on the path is a frame, so a reference back to an ancestor is seen as the
        // cycle it is on its first visit, not after one needless unrolling.
        frames.push(Frame { target: pointer.to_owned(), optional_at_entry: optional });
        let projected = match schema {
            Value::Bool(true) => Ok(json!({})),
            Value::Object(map) => self.project_object(map, pointer, frames, optional, depth),
            _ => Ok(never()),
        };
        frames.pop();
        projected
    }

    fn reference(&mut self, holder: &str, reference: &str, frames: &mut Vec<Frame>, optional: usize, depth: usize) -> Result<Value, Refusal> {
        let target = resolve(&self.doc, holder, reference)?;
        let entered: Vec<usize> = frames.iter().filter(|f| f.target == target).map(|f| f.optional_at_entry).collect();
        if let Some(&nearest) = entered.last() {
            if optional > nearest {
                // The cycle runs through a non-required property: the provider may unroll it.
                let name = self.names.name(&target);
                return Ok(json!({ "$ref": format!("#/$defs/{name}") }));
            }
            if entered.len() > MAX_UNROLL {
                let mut cut = never();
                cut["description"] = Value::from(format!(
                    "Recursion through `{reference}` cut here: it loops only through required properties, which the provider cannot unroll."
                ));
                return Ok(cut);
            }
        }
        let node = self.doc.at(&target).ok_or_else(|| Refusal::new("$ref", holder, "the reference target vanished"))?;
        self.project(node, &target, frames, optional, depth + 1)
    }

    #[allow(clippy::too_many_lines)] // one arm per keyword reads better than a table of closures
    fn project_object(&mut self, map: &Map<String, Value>, pointer: &str, frames: &mut Vec<Frame>, optional: usize, depth: usize) -> Result<Value, Refusal> {
        let at = |keyword: &str| format!("{pointer}/{}", walk::escape(keyword));
        let pattern_properties = map.get("patternProperties").and_then(Value::as_object).is_some_and(|m| !m.is_empty());
        let mut out = Map::new();
        let mut slots = Vec::new();
        let mut notes = Notes::default();
        let mut own_description = None;
        let (mut close_properties, mut close_items) = (false, false);
        for (key, value) in map {
            match key.as_str() {
                "type" | "required" | "minimum" | "maximum" | "title" | "format" => {
                    out.insert(key.clone(), value.clone());
                }
                "minItems" | "maxItems" => {
                    out.insert(key.clone(), count(value).map_or_else(|| value.clone(), Value::from));
                }
                "description" => own_description = value.as_str(),
                "properties" => {
                    let mut properties = Map::new();
                    for (name, sub) in value.as_object().into_iter().flatten() {
                        let step = usize::from(!is_required(map, name));
                        let child = format!("{}/{}", at(key), walk::escape(name));
                        properties.insert(name.clone(), self.project(sub, &child, frames, optional + step, depth + 1)?);
                    }
                    out.insert(key.clone(), Value::Object(properties));
                }
                // Beside `patternProperties` (spilled), `additionalProperties` would now also bind
                // the keys the patterns exempted: a narrowing. Both are spilled instead.
                "additionalProperties" if pattern_properties => notes.unenforced(key, value),
                "additionalProperties" => match value {
                    Value::Bool(true) => {}
                    Value::Bool(false) => {
                        out.insert(key.clone(), Value::Bool(false));
                    }
                    sub => {
                        out.insert(key.clone(), self.project(sub, &at(key), frames, optional, depth + 1)?);
                    }
                },
                "items" => match value {
                    // `items: false` is handled below as `maxItems`.
                    Value::Bool(_) => {}
                    sub => {
                        out.insert(key.clone(), self.project(sub, &at(key), frames, optional, depth + 1)?);
                    }
                },
                "prefixItems" => {
                    let mut projected = Vec::new();
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        projected.push(self.project(sub, &format!("{}/{i}", at(key)), frames, optional, depth + 1)?);
                    }
                    out.insert(key.clone(), Value::Array(projected));
                }
                "$ref" => {
                    let reference = value.as_str().unwrap_or_default();
                    slots.push(Slot::All(self.reference(pointer, reference, frames, optional, depth)?));
                }
                "anyOf" | "oneOf" => {
                    let branches = value.as_array().map(Vec::as_slice).unwrap_or_default();
                    let mut projected = Vec::new();
                    for (i, sub) in branches.iter().enumerate() {
                        projected.push(self.project(sub, &format!("{}/{i}", at(key)), frames, optional, depth + 1)?);
                    }
                    if key == "oneOf" && !provably_disjoint(branches) {
                        notes.unenforced.push("exactly one of the `anyOf` alternatives (the source says `oneOf`)".to_owned());
                    }
                    slots.push(Slot::Any(projected));
                }
                "allOf" => {
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        if sub != &Value::Bool(true) {
                            slots.push(Slot::All(self.project(sub, &format!("{}/{i}", at(key)), frames, optional, depth + 1)?));
                        }
                    }
                }
                "const" => self.constant(value, map.contains_key("enum"), map.contains_key("type"), &mut out, &mut slots, &mut notes, pointer)?,
                "enum" => self.enumeration(value, &mut out, &mut slots, &mut notes, pointer)?,
                "uniqueItems" if value == &Value::Bool(false) => {}
                "uniqueItems" => notes.unenforced(key, value),
                // `not` of a schema asserting nothing rejects everything, exactly the `never` schema;
                // `not` of one rejecting everything accepts everything.
                "not" if asserts_nothing(value) => slots.push(Slot::All(never())),
                "not" if is_never(value) => {}
                // Beside `minContains: 0`, `contains: false` asserts nothing.
                "contains" if is_never(value) && map.get("minContains").and_then(count) == Some(0) => {}
                "contains" if is_never(value) => slots.push(Slot::All(no_array())),
                "propertyNames" if is_never(value) => slots.push(Slot::All(no_property())),
                "unevaluatedProperties" if is_never(value) => close_properties = true,
                "unevaluatedItems" if is_never(value) => close_items = true,
                "dependentSchemas" => {
                    let entries = value.as_object().into_iter().flatten();
                    self.dependent_schemas(entries, &at(key), &mut slots, frames, optional, depth)?;
                }
                "dependencies" => {
                    // Draft-07: a list is `dependentRequired` (spilled), a schema `dependentSchemas`.
                    let entries = value.as_object().into_iter().flatten();
                    let (schemas, lists): (Vec<_>, Vec<_>) = entries.partition(|(_, v)| walk::is_schema(v));
                    self.dependent_schemas(schemas.into_iter(), &at(key), &mut slots, frames, optional, depth)?;
                    if !lists.is_empty() {
                        let lists: Map<String, Value> = lists.into_iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                        notes.unenforced(key, &Value::Object(lists));
                    } else if !value.is_object() {
                        notes.unenforced(key, value);
                    }
                }
                "if" => self.conditional(map, pointer, &mut slots, &mut notes, frames, optional, depth)?,
                k if SPILLED.contains(&k) => {
                    // A spilled value may hold a `false` that rejects what reaches it: spilling
                    // it would accept what that `false` rejects (an inversion), so such a value is
                    // refused instead. (Not below `not`, where a `false` only accepts more;
                    // `if`/`then`/`else` are [`Build::conditional`]'s.)
                    if vocabulary::facts(k).is_some_and(vocabulary::Facts::holds_required_subschemas)
                        && let Some(inside) = self.searches.keyword(&self.doc, key, value, &at(key))
                    {
                        return Err(never_refusal(key, pointer, &inside));
                    }
                    notes.unenforced(key, value);
                }
                // The other annotations of draft 2020-12 (`title` and `description` have fields,
                // above) have none in the subset: moved into `description`, acceptance unchanged.
                k if vocabulary::keyword(k).is_some_and(|k| k.facts.effect == Effect::Annotation) => notes.annotate(key, value),
                // `$schema`, `$id`, `$anchor`, `$dynamicAnchor`, `$vocabulary`, `$comment`, `$defs`
                // and extensions: resolved or annotations, so dropping them keeps acceptance.
                _ => {}
            }
        }
        // An exclusive bound becomes an inclusive one: on an integer the next integer inside it
        // (exact), otherwise the bound itself, admitted (a widening by one point, still spilled).
        let integer = map.get("type").and_then(Value::as_str) == Some("integer");
        for (exclusive, inclusive, lower) in [("exclusiveMinimum", "minimum", true), ("exclusiveMaximum", "maximum", false)] {
            let Some(bound) = map.get(exclusive).filter(|v| v.is_number()) else { continue };
            let (limit, exact) = match integer.then(|| numbers::integer_inside(bound, lower)).flatten() {
                Some(next) => (next, true),
                None => (bound.clone(), false),
            };
            if let Some(tightest) = meet::bound(out.get(inclusive), Some(&limit), lower) {
                out.insert(inclusive.to_owned(), tightest);
            }
            if exact {
                let spilled = format!("{exclusive}: {bound}");
                notes.unenforced.retain(|n| *n != spilled);
            }
        }
        if map.get("items") == Some(&Value::Bool(false)) {
            let prefix = map.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
            let cap = out.get("maxItems").and_then(Value::as_u64).map_or(prefix as u64, |m| m.min(prefix as u64));
            out.insert("maxItems".to_owned(), Value::from(cap));
        }
        self.close_unevaluated(map, pointer, close_properties, close_items, &mut out)?;
        let description = notes.describe(own_description);
        if slots.is_empty() {
            if let Some(d) = description {
                out.insert("description".to_owned(), Value::from(d));
            }
            return Ok(Value::Object(out));
        }
        // A node that is nothing but one conjunct is that conjunct.
        if out.is_empty() && matches!(slots.as_slice(), [Slot::All(_)]) && let Some(Slot::All(only)) = slots.pop() {
            match (description, only) {
                (None, only) => return Ok(only),
                (Some(d), Value::Object(mut inner)) if !inner.contains_key("$ref") && !inner.contains_key("description") => {
                    inner.insert("description".to_owned(), Value::from(d));
                    return Ok(Value::Object(inner));
                }
                (description, only) => {
                    slots.push(Slot::All(only));
                    if let Some(d) = description {
                        out.insert("description".to_owned(), Value::from(d));
                    }
                }
            }
        } else if let Some(d) = description {
            out.insert("description".to_owned(), Value::from(d));
        }
        if slots.is_empty() {
            return Ok(Value::Object(out));
        }
        let first = slots.remove(0);
        out.insert("anyOf".to_owned(), Value::Array(first.into_list()));
        if !slots.is_empty() {
            out.insert("oneOf".to_owned(), Value::Array(vec![chain(slots)]));
        }
        Ok(Value::Object(out))
    }

    /// `unevaluatedProperties: false` and `unevaluatedItems: false`, written with the subset's
    /// keywords where what the node evaluates does not depend on which branch matches: the node
    /// closed over every property its conjuncts declare (`additionalProperties: false`), or
    /// `maxItems` at the longest prefix; nothing where every key or item is evaluated anyway.
    /// Otherwise refused: spilling the `false` would accept what it rejects.
    fn close_unevaluated(&self, map: &Map<String, Value>, pointer: &str, properties: bool, items: bool, out: &mut Map<String, Value>) -> Result<(), Refusal> {
        let types = map.get("type").and_then(Types::of_keyword).unwrap_or(Types::ALL);
        if properties && types.intersects(Types::OBJECT) {
            match evaluated(&self.doc, map, pointer, Side::Properties) {
                None => return Err(unevaluated_refusal("unevaluatedProperties", pointer)),
                Some(Evaluated::Names(names)) => {
                    let declared = out.entry("properties").or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(declared) = declared {
                        for name in names {
                            declared.entry(name).or_insert_with(|| json!({}));
                        }
                    }
                    out.insert("additionalProperties".to_owned(), Value::Bool(false));
                }
                Some(_) => {}
            }
        }
        if items && types.intersects(Types::ARRAY) {
            match evaluated(&self.doc, map, pointer, Side::Items) {
                None => return Err(unevaluated_refusal("unevaluatedItems", pointer)),
                Some(Evaluated::Prefix(n)) => {
                    let n = n as u64;
                    let cap = out.get("maxItems").and_then(Value::as_u64).map_or(n, |m| m.min(n));
                    out.insert("maxItems".to_owned(), Value::from(cap));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// `if`/`then`/`else` (called for the `if`; without one, `then` and `else` assert nothing and
    /// are dropped). An `if` asserting nothing is exactly its `then`, one rejecting everything
    /// exactly its `else`, conjoined. Otherwise all three are spilled (the subset has no `if`),
    /// unless a `false` in them can decide a rejection: spilling would accept what it rejects, so
    /// that is refused (`then: false`/`else: false` by the scan).
    #[allow(clippy::too_many_arguments)] // the pieces of one node under construction
    fn conditional(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        slots: &mut Vec<Slot>,
        notes: &mut Notes,
        frames: &mut Vec<Frame>,
        optional: usize,
        depth: usize,
    ) -> Result<(), Refusal> {
        let Some(condition) = map.get("if") else { return Ok(()) };
        let Some(branch) = decided_branch(condition) else {
            return spill_conditional(&mut self.searches, &self.doc, map, pointer, notes);
        };
        if let Some(sub) = map.get(branch) {
            slots.push(Slot::All(self.project(sub, &format!("{pointer}/{branch}"), frames, optional, depth + 1)?));
        }
        Ok(())
    }

    /// `dependentSchemas` (and the schema entries of draft-07 `dependencies`), exactly: an entry
    /// `name: S` holds when `name` is absent or `S` holds, `anyOf: [{properties: {name: never}}, S]`
    /// (`properties` binds objects only, so other values pass as the source's do). An entry that
    /// rejects everything is the first half alone; one asserting nothing is dropped.
    #[allow(clippy::too_many_arguments)] // the pieces of one node under construction
    fn dependent_schemas<'v>(
        &mut self,
        entries: impl Iterator<Item = (&'v String, &'v Value)>,
        at: &str,
        slots: &mut Vec<Slot>,
        frames: &mut Vec<Frame>,
        optional: usize,
        depth: usize,
    ) -> Result<(), Refusal> {
        for (name, sub) in entries {
            if asserts_nothing(sub) {
                continue;
            }
            let absent = json!({ "properties": { name.clone(): never() } });
            if is_never(sub) {
                slots.push(Slot::All(absent));
                continue;
            }
            let projected = self.project(sub, &format!("{at}/{}", walk::escape(name)), frames, optional, depth + 1)?;
            slots.push(Slot::Any(vec![absent, projected]));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)] // the pieces of one node under construction
    fn constant(
        &mut self,
        value: &Value,
        beside_enum: bool,
        beside_type: bool,
        out: &mut Map<String, Value>,
        slots: &mut Vec<Slot>,
        notes: &mut Notes,
        pointer: &str,
    ) -> Result<(), Refusal> {
        match value {
            Value::String(_) | Value::Number(_) if !beside_enum => {
                out.insert("enum".to_owned(), json!([value]));
            }
            Value::Null if !beside_type => {
                out.insert("type".to_owned(), Value::from("null"));
            }
            _ => {
                let pinned = pin(value, pointer, 0)?;
                if contains_boolean(value) {
                    notes.unenforced("const", value);
                }
                slots.push(Slot::All(pinned));
            }
        }
        Ok(())
    }

    fn enumeration(&mut self, value: &Value, out: &mut Map<String, Value>, slots: &mut Vec<Slot>, notes: &mut Notes, pointer: &str) -> Result<(), Refusal> {
        let values = value.as_array().map(Vec::as_slice).unwrap_or_default();
        if values.is_empty() {
            slots.push(Slot::All(never()));
            return Ok(());
        }
        if values.iter().all(|v| v.is_string() || v.is_number()) {
            out.insert("enum".to_owned(), value.clone());
            return Ok(());
        }
        let scalars: Vec<Value> = values.iter().filter(|v| v.is_string() || v.is_number()).cloned().collect();
        let mut branches = Vec::new();
        if !scalars.is_empty() {
            branches.push(json!({ "enum": scalars }));
        }
        let mut seen = BTreeSet::new();
        for v in values.iter().filter(|v| !v.is_string() && !v.is_number()) {
            let pinned = pin(v, pointer, 0)?;
            if seen.insert(pinned.to_string()) {
                branches.push(pinned);
            }
        }
        if values.iter().any(contains_boolean) {
            notes.unenforced("enum", value);
        }
        slots.push(if branches.len() == 1 { Slot::All(branches.remove(0)) } else { Slot::Any(branches) });
        Ok(())
    }
}

/// Whether a `const`/`enum` value holds a boolean, which the subset cannot pin (its `enum` holds
/// strings and numbers): that value widens to `type: "boolean"`.
fn contains_boolean(value: &Value) -> bool {
    match value {
        Value::Bool(_) => true,
        Value::Array(items) => items.iter().any(contains_boolean),
        Value::Object(map) => map.values().any(contains_boolean),
        _ => false,
    }
}

/// The subset schema accepting exactly `value` (booleans: any boolean).
fn pin(value: &Value, pointer: &str, depth: usize) -> Result<Value, Refusal> {
    if depth > walk::MAX_DEPTH {
        return Err(too_deep(pointer));
    }
    Ok(match value {
        Value::String(_) | Value::Number(_) => json!({ "enum": [value] }),
        Value::Null => json!({ "type": "null" }),
        Value::Bool(_) => json!({ "type": "boolean" }),
        Value::Object(map) => {
            let mut properties = Map::new();
            for (k, v) in map {
                properties.insert(k.clone(), pin(v, pointer, depth + 1)?);
            }
            let required: Vec<&String> = map.keys().collect();
            json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
        }
        Value::Array(items) if items.is_empty() => json!({ "type": "array", "maxItems": 0 }),
        Value::Array(items) => {
            let prefix: Result<Vec<Value>, Refusal> = items.iter().map(|v| pin(v, pointer, depth + 1)).collect();
            json!({ "type": "array", "prefixItems": prefix?, "minItems": items.len(), "maxItems": items.len() })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the translator spills is assertions (annotations go their own way), and the values it
    /// searches for a `false` before spilling are those the registry says a `false` rejects in.
    #[test]
    fn spilled_keywords_assert_and_searched_ones_hold_required_subschemas() {
        assert!(SPILLED.iter().all(|k| vocabulary::asserts(k)), "{SPILLED:?}");
        let searched: Vec<&str> = SPILLED.iter().copied().filter(|k| vocabulary::facts(k).is_some_and(vocabulary::Facts::holds_required_subschemas)).collect();
        assert_eq!(searched, ["contains", "propertyNames", "patternProperties", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties"]);
    }

    fn project(source: Value) -> Value {
        match Gemini.translate(&source) {
            Outcome::Projected(p) => p.schema,
            Outcome::Refused(r) => panic!("refused: {r}"),
            Outcome::Crashed(c) => panic!("crashed: {c:?}"),
            Outcome::Faulted(f) => panic!("faulted: {f:?}"),
        }
    }

    fn refusal(source: &Value) -> (String, String) {
        match Gemini.translate(source) {
            Outcome::Refused(r) => (r.keyword().to_owned(), r.pointer().to_owned()),
            other => panic!("projected: {other:?}"),
        }
    }

    fn object(property: Value) -> Value {
        json!({"type": "object", "properties": {"p": property}})
    }

    #[test]
    fn a_false_outside_the_subset_is_written_exactly_never_spilled() {
        let out = project(object(json!({"type": "string", "not": {}})));
        assert_eq!(out["properties"]["p"], json!({"type": "string", "anyOf": [never()]}));
        let out = project(object(json!({"not": {"description": "anything"}})));
        assert_eq!(out["properties"]["p"], never());
        let out = project(object(json!({"not": false})));
        assert_eq!(out["properties"]["p"], json!({}), "`not: false` accepts everything");
        let out = project(object(json!({"type": "array", "contains": false})));
        assert_eq!(out["properties"]["p"], json!({"type": "array", "anyOf": [no_array()]}));
        let out = project(object(json!({"type": "array", "contains": false, "minContains": 0})));
        assert_eq!(out["properties"]["p"]["anyOf"], Value::Null, "with `minContains: 0` it asserts nothing: {out}");
        let out = project(object(json!({"propertyNames": false})));
        assert_eq!(out["properties"]["p"], no_property());
        assert!(!out.to_string().contains("not enforced"), "{out}");
    }

    #[test]
    fn dependent_schemas_are_absent_or_the_schema() {
        let out = project(json!({
            "type": "object",
            "properties": {"token": {"type": "string"}},
            "dependentSchemas": {"token": {"properties": {"user": false}}, "never": false, "free": {}}
        }));
        let absent = |name: &str| json!({"properties": {name: never()}});
        assert_eq!(out["anyOf"], json!([absent("token"), {"properties": {"user": never()}}]));
        assert_eq!(out["oneOf"], json!([absent("never")]));
        let draft_07 = project(json!({"type": "object", "dependencies": {"a": ["b"], "c": false}}));
        assert_eq!(draft_07["anyOf"], json!([absent("c")]));
        assert!(draft_07["description"].as_str().unwrap().contains(r#"dependencies: {"a":["b"]}"#), "{draft_07}");
    }

    #[test]
    fn unevaluated_false_closes_over_what_conjuncts_declare_and_is_refused_beside_branches() {
        let out = project(object(json!({
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "allOf": [{"properties": {"note": {"type": "string"}}}],
            "unevaluatedProperties": false
        })));
        let p = &out["properties"]["p"];
        assert_eq!(p["additionalProperties"], json!(false));
        assert_eq!(p["properties"], json!({"id": {"type": "string"}, "note": {}}));
        let out = project(object(json!({"type": "array", "prefixItems": [{}, {}], "maxItems": 5, "unevaluatedItems": false})));
        assert_eq!(out["properties"]["p"]["maxItems"], json!(2));
        let beside_a_union = object(json!({"anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}], "unevaluatedProperties": false}));
        assert_eq!(refusal(&beside_a_union), ("unevaluatedProperties".to_owned(), "/properties/p".to_owned()));
        let beside_contains = object(json!({"contains": {"type": "string"}, "unevaluatedItems": false}));
        assert_eq!(refusal(&beside_contains), ("unevaluatedItems".to_owned(), "/properties/p".to_owned()));
        let not_an_object = project(object(json!({"type": "string", "anyOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false})));
        assert_eq!(not_an_object["properties"]["p"]["type"], json!("string"), "it binds objects only: nothing to refuse");
    }

    #[test]
    fn a_false_that_cannot_be_written_is_refused_citing_its_keyword() {
        let patterns = json!({"type": "object", "patternProperties": {"^x-": false}});
        assert_eq!(refusal(&patterns), ("patternProperties".to_owned(), String::new()));
        let nested = json!({"type": "object", "patternProperties": {"^x-": {"$ref": "#/$defs/closed"}}, "$defs": {"closed": {"additionalProperties": false}}});
        assert_eq!(refusal(&nested), ("patternProperties".to_owned(), String::new()), "through a reference too");
        assert_eq!(refusal(&object(json!({"if": {"type": "string"}, "then": false}))), ("then".to_owned(), "/properties/p".to_owned()));
        let in_then = object(json!({"if": {"required": ["a"]}, "then": {"properties": {"b": false}}}));
        assert_eq!(refusal(&in_then), ("then".to_owned(), "/properties/p".to_owned()));
        let harmless = project(object(json!({"if": {"properties": {"a": false}}, "then": {"required": ["b"]}})));
        assert!(harmless["properties"]["p"]["description"].as_str().unwrap().contains("if: "), "a failing `if` only skips `then`: {harmless}");
    }

    #[test]
    fn a_decided_if_is_its_then_or_its_else() {
        let out = project(object(json!({"if": true, "then": {"type": "string"}, "else": {"type": "integer"}})));
        assert_eq!(out["properties"]["p"], json!({"type": "string"}));
        let out = project(object(json!({"if": false, "then": {"type": "string"}, "else": {"type": "integer"}})));
        assert_eq!(out["properties"]["p"], json!({"type": "integer"}));
        let out = project(object(json!({"type": "string", "then": {"minLength": 1}})));
        assert_eq!(out["properties"]["p"], json!({"type": "string"}), "without an `if`, `then` asserts nothing");
    }

    #[test]
    fn ref_with_siblings_becomes_a_conjunction_not_an_override() {
        let out = project(json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/s", "type": "integer"}},
            "$defs": {"s": {"type": "string"}}
        }));
        assert_eq!(out["properties"]["p"], json!({"type": "integer", "anyOf": [{"type": "string"}]}));
    }

    #[test]
    fn mutual_recursion_through_required_properties_is_cut_everywhere() {
        let out = project(json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "required": ["a"],
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}, "required": ["b"]},
                "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"]}
            }
        }));
        let text = out.to_string();
        assert!(!text.contains("$ref"), "no reference survives a required-only cycle: {text}");
        assert!(text.contains("Recursion through `#/$defs/A` cut here"), "{text}");
    }

    #[test]
    fn recursion_through_an_optional_property_stays_a_reference() {
        let out = project(json!({
            "type": "object",
            "properties": {"next": {"$ref": "#"}, "v": {"type": "string"}}
        }));
        assert_eq!(out["properties"]["next"], json!({"$ref": "#/$defs/root"}));
        assert_eq!(out["$defs"]["root"]["properties"]["next"], json!({"$ref": "#/$defs/root"}));
    }
}
