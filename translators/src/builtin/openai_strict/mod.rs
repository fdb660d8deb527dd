//! `openai-strict`: OpenAI function calling and Structured Outputs with `strict: true`.
//!
//! Strict mode constrains decoding to a subset of JSON Schema: every node is typed (or an `anyOf`,
//! or a bare `$ref`), every object is closed (`additionalProperties: false`) and lists every
//! property in `required`, and `allOf`, `not`, conditionals and `dependent*` are rejected. The
//! subset is written down as data in `targets/grammars/openai-strict.json`; this translator
//! rewrites a draft 2020-12 source into it and, where it cannot say the same thing, says so in a
//! named direction or refuses. The choices, keyword by keyword, are the rows of
//! `dispositions/openai-strict.yaml`; in short:
//!
//! - **Optional properties** become required and nullable, and the projection carries the
//!   null-means-absent codec naming each such site. A property that is optional *and* already
//!   admits `null` cannot keep both meanings; it stays as it is and becomes required: leaving it
//!   out is no longer expressible (a narrowing), while a `null` keeps meaning `null`.
//! - **Objects are closed.** A source object without `additionalProperties: false` accepted
//!   undeclared keys; the projection does not (a narrowing, named by `properties`, and by `type`
//!   on the root). An explicitly open object (`additionalProperties` true or a schema,
//!   `patternProperties`, `propertyNames`) is refused: closing it would change what it is for.
//! - **Conjunctions are merged.** Strict mode has no `allOf`, so a `$ref` with constraining
//!   siblings, or siblings beside `anyOf`/`oneOf` branches, are merged into one schema per branch.
//!   The merge is the shared exact [`conj`](crate::algebra::conj) (types and values intersect,
//!   bounds tighten, `required` unions, closed sides forbid the other side's extra properties);
//!   [`merge`] keeps its callback (references inlined, a merge budget spent) and its policy for
//!   the residue: two patterns are combined with lookaheads, two unions crossed, a second
//!   `format` spilled, anything else refused. Where it cannot be done within the translator's
//!   declared budget it refuses (`limit:merge-budget`). An explicit `allOf` is refused.
//! - **`oneOf` becomes `anyOf`** (exact when the branches are provably disjoint, otherwise a named
//!   widening, and the description says that exactly one must match).
//! - **Untyped nodes** are split per type into an `anyOf`; a schema that accepts anything (`{}`,
//!   `true`) becomes a reference to a shared any-value definition whose objects can only be empty.
//! - **Unsupported value constraints** (`minLength`, `uniqueItems`, `minProperties`, formats
//!   outside OpenAI's list, ...) are spilled into the description: a named widening, never a
//!   silent drop. Annotations (`default` as ` (default: X)`, `examples`, `deprecated`) are
//!   spilled too, which changes nothing that validates.
//! - **References** are resolved at translation time (through `$id` and `$anchor`, by
//!   [`crate::refs`]) and re-aimed at root `$defs`: OpenAI resolves `#` and `#/$defs/<name>`, so any
//!   other target is hoisted into a definition of its own, named by the shared scheme
//!   ([`crate::refs::Names`], in OpenAI's `[A-Za-z0-9_-]`). Recursion is kept.
//! - **A `false` subschema** is never turned into `{}`: an optional property that must be absent is
//!   left out of the closed object, anywhere else `false` becomes a node no value satisfies
//!   (`{type: integer, minimum: 1, maximum: 0}`, inside the subset).
//! - **Documented limits** (object nesting, property count, enum values, total string length) are
//!   checked on the projection and refused with `limit:<name>`.
//!
//! This file keeps the translation and its policy (the refusals, the limits' numbers); merging is
//! [`merge`], the description text [`annotate`], the null-means-absent sites [`null_sites`] and
//! the limit checks [`limits`].


use serde_json::{Map, Value, json};

use super::openai_common::{Types, json_eq, provably_disjoint, value_set};
use crate::refs::{Charset, Names, Resolver};
use crate::codec::Codec;
use crate::form::Form;
use crate::model::{Dialect, Outcome, Projection, Refusal, Translator};
use crate::walk;
use annotate::{annotate, copy, spill};
use limits::{budget_exceeded, check_limits, too_deep};
use null_sites::{admits_null, nullable, take_sites};

mod annotate;
mod limits;
mod merge;
mod null_sites;
#[cfg(test)]
mod tests;

/// OpenAI strict function calling.
#[derive(Debug, Default, Clone, Copy)]
pub struct OpenAiStrict;

impl Translator for OpenAiStrict {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "openai-strict"
    }

    fn translate(&self, source: &Value) -> Outcome {
        match project(source) {
            Ok(projection) => Outcome::Projected(projection),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// Object nesting levels strict mode allows (the root object is level 1).
pub(crate) const MAX_NESTING: usize = 10;
/// Object properties strict mode allows in one schema, definitions included.
pub(crate) const MAX_PROPERTIES: usize = 5000;
/// Enum values strict mode allows across the whole schema.
pub(crate) const MAX_ENUM_VALUES: usize = 1000;
/// Total characters of property names, definition names and enum string values.
pub(crate) const MAX_STRING_LENGTH: usize = 120_000;
/// Total characters of one string enum's values, when it has more than
/// [`LARGE_ENUM_VALUES`] values.
pub(crate) const MAX_LARGE_ENUM_STRING_LENGTH: usize = 15_000;
/// The enum size past which [`MAX_LARGE_ENUM_STRING_LENGTH`] applies.
pub(crate) const LARGE_ENUM_VALUES: usize = 250;
/// Merge steps the translator spends on writing conjunctions out before it refuses.
pub(crate) const MERGE_BUDGET: usize = 4096;
/// Branches one distribution of siblings over `anyOf`/`oneOf` (or their cross product) may make.
pub(crate) const MAX_BRANCHES: usize = 64;
/// How deep merges may nest (a merge of two properties merges their schemas, references inline
/// into each other...). Far beyond what a real schema needs, and shallow enough for a thread's
/// stack.
const MAX_MERGE_DEPTH: usize = 48;
/// How deep translation may recurse: the source's own nesting plus what inlined references add.
const MAX_TRANSLATE_DEPTH: usize = walk::MAX_DEPTH + MAX_MERGE_DEPTH;

/// The formats OpenAI documents for strict mode.
const SUPPORTED_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// Where an object node records its null-means-absent properties until the projection is
/// assembled and their pointers are known. Not a keyword, so the walker reports it like any
/// extension and the marker can be found wherever the node ended up.
const SITES_MARKER: &str = "\u{0}null-sites";
/// Constraints a merge could not keep and that must be spilled into the description. Carried in
/// the merged node itself, since merged nodes nest inside each other's properties; `prepare`
/// removes any source key spelled like it (or like [`SITES_MARKER`]), so only a merge writes it.
const SPILL_MARKER: &str = "\u{0}spill";

/// The node no value satisfies. Strict mode has no `false` and no `not`; an empty integer range
/// uses only documented keywords.
fn never() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 0})
}

fn is_never(node: &Value) -> bool {
    node == &never()
}

/// Why strict mode cannot take `keyword` holding `value` here, or `None` when it can. This is the
/// `refused` column of the table, and the oracle holds the two to each other on every case.
fn refused_reason(keyword: &str, value: &Value, at_root: bool) -> Option<&'static str> {
    let form = Form::of(keyword, value);
    Some(match keyword {
        "$ref" if at_root => "a root `$ref` would make the root a reference; strict roots are object schemas",
        "$ref" if form == Form::Uri => "the reference names a URI; OpenAI fetches no documents",
        "$dynamicRef" => "dynamic scope has no strict-mode equivalent",
        "allOf" => "strict mode rejects `allOf`",
        "not" => "strict mode rejects `not`",
        "if" | "then" | "else" => "strict mode rejects `if`/`then`/`else`",
        "dependentRequired" | "dependentSchemas" => "strict mode rejects `dependentRequired`/`dependentSchemas`",
        "patternProperties" => "keys matched by pattern make an open object; strict objects are closed",
        "propertyNames" => "constraining the names of undeclared keys needs an open object; strict objects are closed",
        "prefixItems" => "tuples are not in the strict subset",
        "contains" => "`contains` is not in the strict subset, and dropping it would accept arrays without the item",
        "unevaluatedItems" => "`unevaluatedItems` is not in the strict subset",
        "additionalProperties" | "unevaluatedProperties" if form != Form::False => {
            "an open object cannot be sent: strict mode requires `additionalProperties: false`"
        }
        "anyOf" | "oneOf" if at_root => "the strict root must be an object schema, not a union",
        "enum" if at_root => "a root `enum` would make the root a union of fixed objects",
        _ => return None,
    })
}

/// Keywords that never reject an instance here: those that assert nothing (annotations,
/// identifiers, comments, definitions: the registry's), and `minContains`/`maxContains`, which
/// only act beside `contains` (refused).
fn inert(keyword: &str) -> bool {
    !crate::vocabulary::asserts(keyword) || matches!(keyword, "minContains" | "maxContains")
}

/// Whether a key of a (prepared) schema node can reject an instance. Extension keys never count:
/// strict mode rejects unknown keys, so they are dropped (the table declares what that widens:
/// the draft-07 `dependencies`).
fn constrains(key: &str) -> bool {
    key == SPILL_MARKER || (crate::vocabulary::is_keyword(key) && !inert(key))
}

fn project(source: &Value) -> Result<Projection, Refusal> {
    walk::check_depth(source)
        .map_err(|e| too_deep(format!("{e}; strict mode allows {MAX_NESTING} levels of object nesting")))?;
    if source.get("type") != Some(&Value::from("object")) {
        return Err(Refusal::new("type", "", "strict function parameters must be an object schema (`type: \"object\"` at the root)"));
    }
    let occurrences = walk::occurrences(source).map_err(|e| too_deep(e.to_string()))?;
    for occurrence in &occurrences {
        if let Some(reason) = refused_reason(occurrence.keyword, occurrence.value, occurrence.at_root) {
            return Err(Refusal::new(occurrence.keyword, occurrence.pointer.clone(), reason));
        }
    }
    let resolver = Resolver::new(source).map_err(|e| too_deep(e.to_string()))?;
    let prepared = prepare(source, "", &resolver, 0)?;

    let mut state = State::new(&prepared);
    let root = state.translate(&prepared, 0)?;
    let mut root = object_root(root)?;
    let mut definitions = Map::new();
    while let Some((pointer, name)) = state.names.next_unwritten() {
        let target = prepared.pointer(&pointer).ok_or_else(|| Refusal::new("$ref", "", format!("`#{pointer}` does not resolve")))?;
        let translated = state.translate(target, 0)?;
        definitions.insert(name, translated);
    }
    if let Some(name) = &state.any_name {
        definitions.insert(name.clone(), any_value_definition(name));
    }
    if !definitions.is_empty()
        && let Some(map) = root.as_object_mut()
    {
        map.insert("$defs".to_owned(), Value::Object(definitions));
    }

    walk::check_depth(&root).map_err(|e| too_deep(format!("the projection {e}")))?;
    let sites = take_sites(&mut root);
    check_limits(&root)?;
    let codec = if sites.is_empty() { Codec::Identity } else { Codec::NullMeansAbsent { sites } };
    Ok(Projection { schema: root, dialect: Dialect::JsonSchema, codec, strict: Some(true) })
}

/// The translated root must be one object schema. A root that accepts nothing becomes an object
/// with a required property that accepts nothing.
fn object_root(root: Value) -> Result<Value, Refusal> {
    if is_never(&root) {
        return Ok(json!({"type": "object", "properties": {"never": never()}, "required": ["never"], "additionalProperties": false}));
    }
    if root.get("type") == Some(&Value::from("object")) {
        Ok(root)
    } else {
        Err(Refusal::new("type", "", "the root did not translate to one object schema"))
    }
}

/// Rewrite every `#` reference to `#<document pointer>` of what it lands on, so that merging and
/// hoisting (which move schemas around) never change what a reference means.
fn prepare(node: &Value, pointer: &str, resolver: &Resolver<'_>, depth: usize) -> Result<Value, Refusal> {
    if depth > walk::MAX_DEPTH {
        return Err(too_deep(format!("schema nests deeper than {} levels at `{pointer}`", walk::MAX_DEPTH)));
    }
    let mapped = walk::map_children(node, |child| prepare(child.schema, &format!("{pointer}{}", child.pointer_suffix()), resolver, depth + 1))?;
    let Value::Object(mut map) = mapped else { return Ok(mapped) };
    // The translator's own markers travel in-band through merged nodes; a source key spelled like
    // one is an extension that asserts nothing, dropped here so that it is never read as one.
    map.remove(SPILL_MARKER);
    map.remove(SITES_MARKER);
    if let Some(reference) = map.get("$ref") {
        let text = reference.as_str().unwrap_or_default();
        let target = resolver
            .resolve(text, pointer)
            .map_err(|_| Refusal::new("$ref", pointer, format!("`{reference}` does not resolve to a schema in this document")))?;
        map.insert("$ref".to_owned(), Value::String(format!("#{target}")));
    }
    Ok(Value::Object(map))
}

/// The shared any-value definition: every scalar, arrays of any value, and the empty object (strict
/// objects are closed, so this is as close to "anything" as strict mode gets).
fn any_value_definition(name: &str) -> Value {
    json!({
        "description": "Any JSON value; objects must be empty (strict mode closes every object).",
        "anyOf": [
            {"type": ["string", "number", "boolean", "null"]},
            {"type": "array", "items": {"$ref": format!("#/$defs/{name}")}},
            {"type": "object", "properties": {}, "required": [], "additionalProperties": false}
        ]
    })
}

struct State<'a> {
    /// The prepared source: every `$ref` is `#<document pointer>`.
    doc: &'a Value,
    /// Document pointer of a reference target -> its definition name in the projection (root
    /// `$defs` names kept where plain), and the targets still to translate.
    names: Names,
    any_name: Option<String>,
    budget: usize,
}

impl<'a> State<'a> {
    fn new(doc: &'a Value) -> Self {
        Self { doc, names: Names::new(doc, Charset::Dashed), any_name: None, budget: MERGE_BUDGET }
    }

    /// The projection's reference to the schema at `pointer` in the document.
    fn reference_to(&mut self, pointer: &str) -> String {
        if pointer.is_empty() {
            return "#".to_owned();
        }
        format!("#/$defs/{}", self.names.name(pointer))
    }

    fn any(&mut self) -> Value {
        let name = match &self.any_name {
            Some(name) => name.clone(),
            None => {
                let name = self.names.fresh("json_value");
                self.any_name = Some(name.clone());
                name
            }
        };
        json!({"$ref": format!("#/$defs/{name}")})
    }

    fn target(&self, reference: &Value) -> Result<&'a Value, Refusal> {
        let doc = self.doc;
        reference
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| doc.pointer(p))
            .ok_or_else(|| Refusal::new("$ref", "", format!("`{reference}` does not resolve")))
    }

    fn spend(&mut self) -> Result<(), Refusal> {
        self.budget = self.budget.checked_sub(1).ok_or_else(|| budget_exceeded(&format!("more than {MERGE_BUDGET} merge steps")))?;
        Ok(())
    }

    // ---- translation ---------------------------------------------------------------------

    /// Translate one (prepared) schema into the strict subset.
    fn translate(&mut self, schema: &Value, depth: usize) -> Result<Value, Refusal> {
        if depth > MAX_TRANSLATE_DEPTH {
            return Err(budget_exceeded("references inline into each other too deeply"));
        }
        let map = match schema {
            Value::Bool(true) => return Ok(self.any()),
            Value::Bool(false) => return Ok(never()),
            Value::Object(map) => map,
            other => return Err(Refusal::new("type", "", format!("`{other}` is not a schema"))),
        };
        // The walker never sees schemas under unknown keys, but a reference can land there.
        if let Some((keyword, reason)) = map.iter().find_map(|(k, v)| refused_reason(k, v, false).map(|r| (k, r))) {
            return Err(Refusal::new(keyword.as_str(), "", reason));
        }
        if let Some(reference) = map.get("$ref") {
            if !map.keys().any(|k| k != "$ref" && constrains(k)) {
                let target = reference.as_str().and_then(|r| r.strip_prefix('#')).unwrap_or_default().to_owned();
                let node = json!({"$ref": self.reference_to(&target)});
                return Ok(annotate(node, map, Vec::new()));
            }
            let target = self.target(reference)?;
            let mut rest = map.clone();
            rest.remove("$ref");
            let merged = self.merge(&Value::Object(rest), target, 0, true)?;
            return self.translate(&merged, depth + 1);
        }
        if map.contains_key("anyOf") || map.contains_key("oneOf") {
            return self.translate_union(map, depth);
        }
        if let Some(values) = value_set(map)
            && values.iter().any(|v| v.is_object() || v.is_array())
        {
            return self.translate_composite_values(map, &values, depth);
        }
        self.translate_typed(map, depth)
    }

    /// `anyOf`/`oneOf` (both: their cross product), with the node's other constraints merged into
    /// every branch, since strict mode allows nothing but annotations beside `anyOf`.
    fn translate_union(&mut self, map: &Map<String, Value>, depth: usize) -> Result<Value, Refusal> {
        let any_of = map.get("anyOf").and_then(Value::as_array);
        let one_of = map.get("oneOf").and_then(Value::as_array);
        let branches = match (any_of, one_of) {
            (Some(a), Some(o)) => self.cross(a, o, 0)?,
            (Some(branches), None) | (None, Some(branches)) => branches.clone(),
            (None, None) => return Err(Refusal::new("anyOf", "", "`anyOf`/`oneOf` must be a list of schemas")),
        };
        let rest: Map<String, Value> =
            map.iter().filter(|(k, _)| *k != "anyOf" && *k != "oneOf" && constrains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        let mut translated = Vec::new();
        for branch in branches {
            let merged = if rest.is_empty() { branch } else { self.merge(&Value::Object(rest.clone()), &branch, 0, true)? };
            push_branch(&mut translated, self.translate(&merged, depth + 1)?);
        }
        let mut notes = Vec::new();
        if let Some(one_of) = one_of {
            let list: Vec<(String, &Value)> = one_of.iter().map(|b| (String::new(), b)).collect();
            if !provably_disjoint(self.doc, &list, &|_, r| r.strip_prefix('#').map(str::to_owned)) {
                notes.push(("oneOf".to_owned(), Value::from("exactly one alternative must match")));
            }
        }
        let node = match translated.len() {
            0 => never(),
            1 => translated.pop().unwrap_or_else(never),
            _ => json!({"anyOf": translated}),
        };
        Ok(annotate(node, map, notes))
    }

    /// An `enum`/`const` holding objects or arrays: each such value becomes the exact schema of
    /// that value (a closed object, a fixed-length array), as an `anyOf` branch.
    fn translate_composite_values(&mut self, map: &Map<String, Value>, values: &[Value], depth: usize) -> Result<Value, Refusal> {
        let types = match map.get("type") {
            Some(t) => Types::of_keyword(t).ok_or_else(|| Refusal::new("type", "", format!("`{t}` is not a type")))?,
            None => Types::ALL,
        };
        let admitted: Vec<&Value> = values.iter().filter(|v| types.admits(v)).collect();
        let scalars: Vec<Value> = admitted.iter().filter(|v| !v.is_object() && !v.is_array()).map(|v| (*v).clone()).collect();
        let mut branches = Vec::new();
        if !scalars.is_empty() {
            branches.push(json!({"enum": scalars}));
        }
        for value in admitted.iter().filter(|v| v.is_object() || v.is_array()) {
            branches.push(exact_schema(value, 0)?);
        }
        if branches.is_empty() {
            return Ok(never());
        }
        let mut rest = map.clone();
        rest.remove("enum");
        rest.remove("const");
        rest.insert("anyOf".to_owned(), Value::Array(branches));
        self.translate(&Value::Object(rest), depth + 1)
    }

    /// A node without references or unions: one typed node per kind (scalars, array, object), as
    /// an `anyOf` when the source admits several kinds.
    fn translate_typed(&mut self, map: &Map<String, Value>, depth: usize) -> Result<Value, Refusal> {
        let mut types = match map.get("type") {
            Some(t) => Types::of_keyword(t).ok_or_else(|| Refusal::new("type", "", format!("`{t}` is not a type")))?,
            None => Types::ALL,
        };
        let values = value_set(map);
        if let Some(values) = &values {
            types = types.and(values.iter().fold(Types::default(), |acc, v| acc.or(Types::of_value(v))));
        }
        let values: Option<Vec<Value>> = values.map(|v| v.into_iter().filter(|x| types.admits(x)).collect());
        if types.is_empty() || values.as_ref().is_some_and(Vec::is_empty) {
            return Ok(never());
        }
        let mut spills = Vec::new();
        let mut kinds = Vec::new();
        let scalars = types.and(Types::SCALARS);
        if !scalars.is_empty() {
            let mut node = Map::new();
            node.insert("type".to_owned(), scalars.to_keyword());
            if let Some(values) = &values {
                node.insert("enum".to_owned(), Value::Array(values.clone()));
            }
            if scalars.intersects(Types::STRING) {
                copy(map, &mut node, &["pattern"]);
                spill(map, &mut spills, &["minLength", "maxLength"]);
            }
            // A format strict mode lists is kept on strings; any other is told (on a number,
            // `int32` asserts nothing, but it still tells the model something).
            if let Some(format) = map.get("format") {
                if scalars.intersects(Types::STRING) && format.as_str().is_some_and(|f| SUPPORTED_FORMATS.contains(&f)) {
                    node.insert("format".to_owned(), format.clone());
                } else {
                    spills.push(("format".to_owned(), format.clone()));
                }
            }
            if scalars.intersects(Types::NUMBER) {
                copy(map, &mut node, &["multipleOf", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"]);
            }
            kinds.push(Value::Object(node));
        }
        if types.intersects(Types::ARRAY) {
            let items = match map.get("items") {
                Some(items) => self.translate(items, depth + 1)?,
                None => self.any(),
            };
            let mut node = Map::new();
            node.insert("type".to_owned(), Value::from("array"));
            node.insert("items".to_owned(), items);
            copy(map, &mut node, &["minItems", "maxItems"]);
            if map.get("uniqueItems") == Some(&Value::Bool(true)) {
                spills.push(("uniqueItems".to_owned(), Value::Bool(true)));
            }
            kinds.push(Value::Object(node));
        }
        if types.intersects(Types::OBJECT) {
            kinds.push(self.translate_object(map, depth)?);
            spill(map, &mut spills, &["minProperties", "maxProperties"]);
        }
        if let Some(Value::Array(pending)) = map.get(SPILL_MARKER) {
            for entry in pending.iter().filter_map(Value::as_object) {
                spills.extend(entry.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        let node = if kinds.len() == 1 { kinds.pop().unwrap_or_else(never) } else { json!({"anyOf": kinds}) };
        Ok(annotate(node, map, spills))
    }

    /// A closed object requiring every property; optional ones are made nullable and recorded as
    /// null-means-absent sites.
    fn translate_object(&mut self, map: &Map<String, Value>, depth: usize) -> Result<Value, Refusal> {
        let mut required: Vec<&str> = Vec::new();
        for name in map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !required.contains(&name) {
                required.push(name);
            }
        }
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false)) || map.get("unevaluatedProperties") == Some(&Value::Bool(false));
        let declared = map.get("properties").and_then(Value::as_object);
        let mut properties = Map::new();
        let mut sites = Vec::new();
        for (name, schema) in declared.into_iter().flatten() {
            let is_required = required.contains(&name.as_str());
            let translated = self.translate(schema, depth + 1)?;
            if !is_required && is_never(&translated) {
                continue; // must be absent: the closed object already says so
            }
            if is_required || admits_null(self.doc, schema, 0) {
                properties.insert(name.clone(), translated);
            } else {
                properties.insert(name.clone(), nullable(translated));
                sites.push(Value::from(name.as_str()));
            }
        }
        for name in required {
            if !properties.contains_key(name) {
                // Required but undeclared: any value if the object was open, none if it was closed.
                let schema = if closed { never() } else { self.any() };
                properties.insert(name.to_owned(), schema);
            }
        }
        let names: Vec<Value> = properties.keys().map(|k| Value::from(k.as_str())).collect();
        let mut node = Map::new();
        node.insert("type".to_owned(), Value::from("object"));
        node.insert("properties".to_owned(), Value::Object(properties));
        node.insert("required".to_owned(), Value::Array(names));
        node.insert("additionalProperties".to_owned(), Value::Bool(false));
        if !sites.is_empty() {
            node.insert(SITES_MARKER.to_owned(), Value::Array(sites));
        }
        Ok(Value::Object(node))
    }
}

/// The exact schema of one `enum`/`const` value: a closed object of exact properties, or an array
/// of fixed length whose items are all that one value. An array of differing items has no exact
/// schema without `prefixItems`; it becomes `false` (left out: a narrowing the table names).
fn exact_schema(value: &Value, depth: usize) -> Result<Value, Refusal> {
    if depth > walk::MAX_DEPTH {
        return Err(too_deep(format!("an enum value nests deeper than {} levels", walk::MAX_DEPTH)));
    }
    Ok(match value {
        Value::Object(map) => {
            let mut properties = Map::new();
            for (k, v) in map {
                properties.insert(k.clone(), exact_schema(v, depth + 1)?);
            }
            let names: Vec<Value> = map.keys().map(|k| Value::from(k.as_str())).collect();
            json!({"type": "object", "properties": properties, "required": names, "additionalProperties": false})
        }
        Value::Array(items) => match items.first() {
            None => json!({"type": "array", "maxItems": 0}),
            Some(first) if items.iter().all(|i| json_eq(i, first)) => {
                json!({"type": "array", "items": exact_schema(first, depth + 1)?, "minItems": items.len(), "maxItems": items.len()})
            }
            Some(_) => Value::Bool(false),
        },
        scalar => json!({"const": scalar}),
    })
}

/// Add a translated branch to a union: a never-valid branch adds nothing, a bare `anyOf` is
/// spliced in.
fn push_branch(branches: &mut Vec<Value>, node: Value) {
    if is_never(&node) {
        return;
    }
    match node {
        Value::Object(map) if map.len() == 1 && map.get("anyOf").is_some_and(Value::is_array) => {
            if let Some(Value::Array(inner)) = map.into_iter().next().map(|(_, v)| v) {
                branches.extend(inner);
            }
        }
        other => branches.push(other),
    }
}
