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
//!   `{}` becomes six typed branches): never an invented `type: string` (kimi-cli#2621);
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

use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;

use serde_json::{Map, Value};

use super::object_root::force_object_root;
use crate::algebra::combine::{Types, admitted_types, domain};
use crate::algebra::conj::{Conj, conj};
use crate::algebra::disjoint::provably_disjoint_here as provably_disjoint;
use crate::form::Form;
use crate::model::{Outcome, Refusal, Translator};
use crate::refs::{Charset, Names, Resolver};
use crate::vocabulary;
use crate::walk;

/// Moonshot/Kimi MFJS.
#[derive(Debug, Default, Clone, Copy)]
pub struct Moonshot;

impl Translator for Moonshot {
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

// ---- references ----------------------------------------------------------------------------

/// The source with every reference rewritten to `#` or `#/$defs/<plain name>`, and the hoisted
/// definitions those names refer to.
struct Hoisted {
    root: Value,
    defs: BTreeMap<String, Value>,
}

struct Hoister<'a> {
    resolver: Resolver<'a>,
    names: Names,
    /// Targets named but not yet hoisted.
    pending: Vec<String>,
}

impl<'a> Hoister<'a> {
    fn run(document: &'a Value) -> Result<Hoisted, Refusal> {
        let resolver = Resolver::new(document).map_err(|e| too_deep(&e.to_string()))?;
        let mut hoister = Self { resolver, names: Names::new(document, Charset::Dotted), pending: Vec::new() };
        let root = hoister.rewritten("")?;
        let mut defs = BTreeMap::new();
        while let Some(target) = hoister.pending.pop() {
            let Some(name) = hoister.names.get(&target).map(str::to_owned) else { continue };
            defs.insert(name, hoister.rewritten(&target)?);
        }
        Ok(Hoisted { root, defs })
    }

    fn name_for(&mut self, target: &str) -> String {
        let (name, new) = self.names.name(target);
        if new {
            self.pending.push(target.to_owned());
        }
        name
    }

    /// A copy of the schema at `pointer` with references rewritten and resource keywords removed.
    fn rewritten(&mut self, pointer: &str) -> Result<Value, Refusal> {
        let node = self.resolver.at(pointer).cloned().unwrap_or(Value::Bool(true));
        self.rewrite(&node, pointer, pointer.is_empty(), 0)
    }

    fn rewrite(&mut self, node: &Value, pointer: &str, document_root: bool, depth: usize) -> Result<Value, Refusal> {
        if depth > walk::MAX_DEPTH {
            return Err(too_deep(&format!("schema nests too deep at `{pointer}`")));
        }
        let mapped = walk::map_children(node, |child| self.rewrite(child.schema, &format!("{pointer}{}", child.pointer_suffix()), false, depth + 1))?;
        let Value::Object(mut map) = mapped else { return Ok(mapped) };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            let target = self
                .resolver
                .resolve(&reference, pointer)
                .map_err(|_| Refusal::new("$ref", pointer, format!("`{reference}` does not name a schema in this document")))?;
            let rewritten = if target.is_empty() { "#".to_owned() } else { format!("#/$defs/{}", self.name_for(&target)) };
            map.insert("$ref".to_owned(), Value::from(rewritten));
        }
        // References now name the root or its `$defs`, so resource boundaries and anchors go; the
        // root's `$defs` is rebuilt from the hoisted targets.
        for key in ["$anchor", "$dynamicAnchor", "$defs", "definitions"] {
            map.remove(key);
        }
        if !document_root {
            map.remove("$id");
            map.remove("$schema");
        }
        Ok(Value::Object(map))
    }
}

// ---- the normal form -----------------------------------------------------------------------

/// One alternative of a node's normal form: a typed node, or `{$ref}` alone.
type Alt = Map<String, Value>;

/// Keywords that decide together which part of an instance each applies to.
const GROUPS: [&[&str]; 4] = [
    &["properties", "patternProperties", "additionalProperties"],
    &["prefixItems", "items"],
    &["contains", "minContains", "maxContains"],
    &["if", "then", "else"],
];

const ANNOTATIONS: [&str; 2] = ["description", "title"];

struct Normalizer {
    raw_defs: BTreeMap<String, Value>,
    done: BTreeMap<String, Value>,
    recursive: BTreeSet<String>,
    unevaluated: bool,
    /// Bytes of inlined definitions left; past it references stay references.
    inline_budget: usize,
}

impl Normalizer {
    fn new(raw_defs: BTreeMap<String, Value>, unevaluated: bool) -> Self {
        let recursive = recursive_definitions(&raw_defs);
        Self { raw_defs, done: BTreeMap::new(), recursive, unevaluated, inline_budget: 20_000 }
    }

    fn all_defs(&mut self) -> Map<String, Value> {
        let names: Vec<String> = self.raw_defs.keys().cloned().collect();
        names.into_iter().map(|n| (n.clone(), self.def(&n))).collect()
    }

    fn def(&mut self, name: &str) -> Value {
        if let Some(v) = self.done.get(name) {
            return v.clone();
        }
        let raw = self.raw_defs.get(name).cloned().unwrap_or(Value::Bool(true));
        let normal = self.node(&raw, 0);
        self.done.insert(name.to_owned(), normal.clone());
        normal
    }

    /// The normal form of a schema at a position walle checks.
    fn node(&mut self, schema: &Value, depth: usize) -> Value {
        self.node_as(schema, depth, false)
    }

    /// `branch`: the node is an `anyOf` branch whose alternatives will be conjoined with its
    /// parent's keywords, so `required` names the parent lists are left for the parent to settle.
    fn node_as(&mut self, schema: &Value, depth: usize, branch: bool) -> Value {
        if depth > walk::MAX_DEPTH {
            return schema.clone();
        }
        let map = match schema {
            Value::Bool(true) => Map::new(),
            Value::Bool(false) => return Value::Object(unsatisfiable()),
            Value::Object(map) => map.clone(),
            other => return other.clone(),
        };
        let (annotations, rest) = split_annotations(&map);
        let alts = self.alternatives(&rest, depth, branch);
        assemble(annotations, alts)
    }

    fn alternatives(&mut self, rest: &Map<String, Value>, depth: usize, branch: bool) -> Vec<Alt> {
        let mut rest = rest.clone();
        if !rest.contains_key("anyOf")
            && let Some(Value::Array(branches)) = rest.get("oneOf")
            && provably_disjoint(branches)
        {
            // Exactly one of disjoint branches is any one of them: MFJS enforces `anyOf`.
            let branches = rest.remove("oneOf").unwrap_or_default();
            rest.insert("anyOf".to_owned(), branches);
        }
        let rest = &rest;
        let constraints = rest.keys().any(|k| !matches!(k.as_str(), "anyOf" | "$ref") && vocabulary::is_keyword(k));
        if self.unevaluated && (rest.contains_key("anyOf") || rest.contains_key("$ref")) && constraints {
            return opaque(rest);
        }
        let mut base = rest.clone();
        let any_of = base.remove("anyOf");
        let reference = base.remove("$ref");
        let base = self.prepare(base, depth);
        let mut alts = vec![base];
        if let Some(Value::String(target)) = reference {
            alts = alts.into_iter().flat_map(|a| self.with_reference(a, &target, depth)).collect();
        }
        if let Some(Value::Array(branches)) = any_of {
            let mut branch_alts = Vec::new();
            for b in &branches {
                let normal = self.node_as(b, depth + 1, true);
                branch_alts.extend(flatten(&normal));
            }
            let mut out = Vec::new();
            for a in &alts {
                for b in &branch_alts {
                    out.extend(self.conjoin(a, b, depth));
                }
            }
            alts = out;
        }
        let alts: Vec<Alt> = alts.into_iter().flat_map(|a| finish(a, !branch)).collect();
        if alts.len() > MAX_ALTERNATIVES {
            // Distributing nested unions multiplies branches; past a point the node is sent whole.
            return opaque(rest);
        }
        alts
    }

    /// Normalize what walle walks below this node: property values, `items`, `additionalProperties`.
    fn prepare(&mut self, mut map: Alt, depth: usize) -> Alt {
        if let Some(Value::Object(properties)) = map.get("properties").cloned() {
            let normal = properties.iter().map(|(k, v)| (k.clone(), self.node(v, depth + 1))).collect();
            map.insert("properties".to_owned(), Value::Object(normal));
        }
        match map.get("additionalProperties").cloned() {
            Some(Value::Object(ap)) if !ap.is_empty() => {
                let normal = self.node(&Value::Object(ap), depth + 1);
                map.insert("additionalProperties".to_owned(), normal);
            }
            _ => {}
        }
        let prefix = map.get("prefixItems").and_then(Value::as_array).map(Vec::len);
        match (map.get("items").cloned(), prefix) {
            (Some(Value::Bool(false)), _) => {
                // No element past the prefix: a bound MFJS enforces.
                map.remove("items");
                let n = prefix.unwrap_or(0) as u64;
                let bound = map.get("maxItems").and_then(Value::as_u64).map_or(n, |m| m.min(n));
                map.insert("maxItems".to_owned(), Value::from(bound));
            }
            // `items: true` evaluates every item: with `unevaluatedItems` about, that annotation
            // matters, so the keyword stays (as a typed "anything", or in `allOf` past a prefix).
            (Some(Value::Bool(true)), _) if !self.unevaluated => {
                map.remove("items");
            }
            (Some(Value::Object(items)), _) if items.is_empty() && !self.unevaluated => {
                map.remove("items");
            }
            (Some(items), Some(n)) => {
                // walle would apply `items` to every element; inside `allOf` it still starts past
                // the prefix.
                map.remove("items");
                let mut tail = Map::new();
                tail.insert("prefixItems".to_owned(), Value::Array(vec![Value::Bool(true); n]));
                tail.insert("items".to_owned(), items);
                push_all_of(&mut map, Value::Object(tail));
            }
            (Some(items), None) => {
                let normal = self.node(&items, depth + 1);
                map.insert("items".to_owned(), normal);
            }
            (None, _) => {}
        }
        map
    }

    /// `a ∧ $ref`: the reference alone when `a` constrains nothing; else the target inlined (not
    /// recursive) or the reference kept inside `allOf`.
    fn with_reference(&mut self, mut a: Alt, target: &str, depth: usize) -> Vec<Alt> {
        let constrains = a.keys().any(|k| vocabulary::is_keyword(k) && !matches!(k.as_str(), "default" | "examples" | "deprecated" | "readOnly" | "writeOnly" | "$comment"));
        if !constrains {
            return vec![Map::from_iter([("$ref".to_owned(), Value::from(target))])];
        }
        let name = target.strip_prefix("#/$defs/");
        if let Some(name) = name
            && !self.recursive.contains(name)
            && self.raw_defs.contains_key(name)
        {
            let inlined = self.def(name);
            let size = inlined.to_string().len();
            if size <= self.inline_budget {
                self.inline_budget -= size;
                let mut out = Vec::new();
                for t in flatten(&inlined) {
                    out.extend(self.conjoin(&a, &t, depth));
                }
                return out;
            }
        }
        push_all_of(&mut a, Value::Object(Map::from_iter([("$ref".to_owned(), Value::from(target))])));
        vec![a]
    }

    /// `a ∧ b`, exactly: the shared [`conj`] as one node, with its residue (and what the normal
    /// form cannot hold in one node) in `allOf`, MFJS's policy for a residue.
    fn conjoin(&mut self, a: &Alt, b: &Alt, depth: usize) -> Vec<Alt> {
        if let Some(Value::String(target)) = b.get("$ref").filter(|_| b.len() == 1) {
            return self.with_reference(a.clone(), &target.clone(), depth);
        }
        // The normal form settles these groups per node: `items` beside `prefixItems` is moved into
        // an `allOf` by `prepare`, and property schemas are conjoined only where no
        // `patternProperties`/`additionalProperties` or `unevaluated*` decides which keys they
        // reach. Elsewhere both sides' groups stay apart, `b`'s in the `allOf`.
        let mut theirs = b.clone();
        let mut leftover = Map::new();
        for group in [&GROUPS[0], &GROUPS[1]] {
            let both = group.iter().any(|k| a.contains_key(*k)) && group.iter().any(|k| b.contains_key(*k));
            let per_property = group[0] == "properties"
                && !self.unevaluated
                && [a, b].iter().all(|s| !s.contains_key("patternProperties") && !s.contains_key("additionalProperties"));
            if both && !per_property {
                for k in *group {
                    if let Some(v) = theirs.remove(*k) {
                        leftover.insert((*k).to_owned(), v);
                    }
                }
            }
        }
        // Property schemas are normal-form nodes; `propertyNames` and `dependentSchemas` values
        // may still be booleans, which the normal form reads as objects.
        let mut sub = |x: &Value, y: &Value| {
            Ok::<_, Infallible>(match (x, y) {
                (Value::Bool(true), other) | (other, Value::Bool(true)) => other.clone(),
                (Value::Bool(false), _) | (_, Value::Bool(false)) => Value::Object(unsatisfiable()),
                _ => self.conjoin_nodes(x, y, depth + 1),
            })
        };
        let conjunction = conj(a, &theirs, &mut sub);
        let mut out = match conjunction {
            Ok(Conj::Combined { schema, residue }) => {
                leftover.extend(residue);
                schema
            }
            Ok(Conj::Unsatisfiable) => return Vec::new(),
            Err(never) => match never {},
        };
        if !leftover.is_empty() {
            push_all_of(&mut out, Value::Object(leftover));
        }
        vec![out]
    }

    /// Two normal-form nodes as one normal-form node (for a property both sides declare).
    fn conjoin_nodes(&mut self, x: &Value, y: &Value, depth: usize) -> Value {
        let annotations = x.as_object().map(|m| split_annotations(m).0).unwrap_or_default();
        let mut alts = Vec::new();
        for a in flatten(x) {
            for b in flatten(y) {
                alts.extend(self.conjoin(&a, &b, depth).into_iter().flat_map(|a| finish(a, true)));
            }
        }
        assemble(annotations, alts)
    }
}

/// The definitions that reach themselves through references: those on a cycle, i.e. in a
/// strongly connected component of more than one definition or referring to themselves.
/// Components, not a search from every definition: that was quadratic in their number, and a
/// chain of thousands of definitions took minutes.
fn recursive_definitions(defs: &BTreeMap<String, Value>) -> BTreeSet<String> {
    let names: Vec<&String> = defs.keys().collect();
    let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    // Only definitions have outgoing edges, so only edges between definitions can close a cycle.
    let edges: Vec<Vec<usize>> = defs.values().map(|schema| referenced_names(schema).iter().filter_map(|n| index.get(n.as_str()).copied()).collect()).collect();
    let mut out = BTreeSet::new();
    for component in crate::graph::strongly_connected_components(&edges) {
        if component.len() > 1 || component.first().is_some_and(|&v| edges[v].contains(&v)) {
            out.extend(component.into_iter().map(|w| names[w].clone()));
        }
    }
    out
}

fn referenced_names(schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Ok(occurrences) = walk::occurrences(schema) {
        for o in occurrences {
            if o.keyword == "$ref"
                && let Some(r) = o.value.as_str()
            {
                // `#` is the root, which may itself reach any definition: treat it as recursion.
                out.insert(r.strip_prefix("#/$defs/").unwrap_or("#").to_owned());
            }
        }
    }
    out
}

fn split_annotations(map: &Map<String, Value>) -> (Map<String, Value>, Map<String, Value>) {
    let mut annotations = Map::new();
    let mut rest = Map::new();
    for (k, v) in map {
        if ANNOTATIONS.contains(&k.as_str()) && v.is_string() {
            annotations.insert(k.clone(), v.clone());
        } else {
            rest.insert(k.clone(), v.clone());
        }
    }
    (annotations, rest)
}

fn push_all_of(map: &mut Alt, schema: Value) {
    match map.get_mut("allOf").and_then(Value::as_array_mut) {
        Some(all) => all.push(schema),
        None => {
            map.insert("allOf".to_owned(), Value::Array(vec![schema]));
        }
    }
}

/// The alternatives of a normal-form node.
fn flatten(node: &Value) -> Vec<Alt> {
    let Some(map) = node.as_object() else { return Vec::new() };
    let Some(items) = map.get("anyOf").and_then(Value::as_array) else { return vec![map.clone()] };
    let (annotations, _) = split_annotations(map);
    let mut out = Vec::new();
    for item in items {
        for mut alt in flatten(item) {
            if !alt.contains_key("$ref") {
                for (k, v) in &annotations {
                    alt.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            out.push(alt);
        }
    }
    out
}

/// A node accepting nothing that walle still reads as typed.
fn unsatisfiable() -> Alt {
    Map::from_iter([("type".to_owned(), Value::from("null")), ("not".to_owned(), Value::Object(Map::new()))])
}

/// One node from a node's annotations and alternatives.
fn assemble(annotations: Map<String, Value>, mut alts: Vec<Alt>) -> Value {
    match alts.len() {
        0 => {
            let mut out = unsatisfiable();
            out.extend(annotations);
            Value::Object(out)
        }
        1 if !alts[0].contains_key("$ref") => {
            let mut out = alts.remove(0);
            out.extend(annotations);
            Value::Object(out)
        }
        1 if annotations.is_empty() => Value::Object(alts.remove(0)),
        _ => {
            let mut out = annotations;
            out.insert("anyOf".to_owned(), Value::Array(chunk(alts)));
            Value::Object(out)
        }
    }
}

/// At most ten `anyOf` items (walle), nesting unions where there are more.
fn chunk(alts: Vec<Alt>) -> Vec<Value> {
    if alts.len() <= MAX_ANY_OF_ITEMS {
        return alts.into_iter().map(Value::Object).collect();
    }
    let size = alts.len().div_ceil(MAX_ANY_OF_ITEMS);
    let mut groups = Vec::new();
    let mut rest = alts;
    while !rest.is_empty() {
        let tail = rest.split_off(size.min(rest.len()));
        groups.push(Value::Object(Map::from_iter([("anyOf".to_owned(), Value::Array(chunk(rest)))])));
        rest = tail;
    }
    groups
}

/// With `unevaluated*` about, a node whose keywords would have to move is kept whole inside
/// `allOf`, under one typed branch per type it admits.
fn opaque(rest: &Map<String, Value>) -> Vec<Alt> {
    let types = admitted_types(rest);
    let names: Vec<&str> = ALL_TYPES.iter().copied().filter(|t| types.named_admits(t) || (*t == "number" && types.named_admits("integer"))).collect();
    names
        .into_iter()
        .map(|t| {
            let t = if t == "number" && !types.named_admits("number") { "integer" } else { t };
            Map::from_iter([("type".to_owned(), Value::from(t)), ("allOf".to_owned(), Value::Array(vec![Value::Object(rest.clone())]))])
        })
        .collect()
}

/// One alternative as walle wants it: a `$ref` alone, or typed nodes (one per admitted type),
/// each holding only the keywords that apply to its type, `enum`/`const` agreeing with it, and
/// `required` naming only listed properties.
fn finish(alt: Alt, settle_required: bool) -> Vec<Alt> {
    if alt.contains_key("$ref") {
        return vec![alt];
    }
    let types = types_within(&alt, 0);
    let mut out = Vec::new();
    for t in ALL_TYPES {
        let name = if t == "number" && !types.named_admits("number") && types.named_admits("integer") { "integer" } else { t };
        if !types.named_admits(name) {
            continue;
        }
        if let Some(typed) = typed(&alt, name, settle_required) {
            out.push(typed);
        }
    }
    out
}

/// The types a schema admits, also through the `allOf` and `oneOf` it holds (an untyped `oneOf`
/// of objects admits only objects, so it needs no branch per type).
fn types_within(schema: &Map<String, Value>, depth: usize) -> Types {
    let mut types = admitted_types(schema);
    if depth > 8 {
        return types;
    }
    let of = |s: &Value| match s {
        Value::Object(m) => types_within(m, depth + 1),
        Value::Bool(true) => Types::ALL,
        _ => Types::NONE,
    };
    for branch in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        types = types.and(of(branch));
    }
    if let Some(branches) = schema.get("oneOf").and_then(Value::as_array) {
        let union = branches.iter().map(of).reduce(|a, b| a.or(b));
        if let Some(union) = union {
            types = types.and(union);
        }
    }
    types
}

fn typed(alt: &Alt, t: &'static str, settle_required: bool) -> Option<Alt> {
    let mut out = Map::new();
    out.insert("type".to_owned(), Value::from(t));
    for (k, v) in alt {
        if k == "type" {
            continue;
        }
        if let Some(d) = domain(k)
            && !(d == t || (d == "number" && t == "integer"))
        {
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    let matches = |v: &Value| Types::named(t).is_some_and(|ty| ty.admits(v));
    if let Some(values) = out.get("enum").and_then(Value::as_array) {
        let kept: Vec<Value> = values.iter().filter(|v| matches(v)).cloned().collect();
        if kept.is_empty() {
            return None;
        }
        if t == "null" || (t == "boolean" && kept.len() == 2) {
            out.remove("enum");
        } else {
            out.insert("enum".to_owned(), Value::Array(kept));
        }
    }
    if let Some(c) = out.get("const").cloned() {
        if !matches(&c) {
            return None;
        }
        if matches!(t, "string" | "number" | "integer") {
            out.remove("const");
            out.insert("enum".to_owned(), Value::Array(vec![c]));
        } else if t == "null" {
            out.remove("const");
        }
    }
    if out.get("default").is_some_and(|d| !matches!(t, "string" | "number" | "integer" | "boolean" | "null") || !matches(d)) {
        out.remove("default");
    }
    // `required` may only name listed properties; the rest stays a constraint inside `allOf`.
    if let Some(required) = out.get("required").and_then(Value::as_array).cloned().filter(|_| settle_required) {
        let listed = out.get("properties").and_then(Value::as_object);
        let (known, ghosts): (Vec<Value>, Vec<Value>) = required.into_iter().partition(|n| n.as_str().is_some_and(|n| listed.is_some_and(|p| p.contains_key(n))));
        if known.is_empty() {
            out.remove("required");
        } else {
            out.insert("required".to_owned(), Value::Array(known));
        }
        if !ghosts.is_empty() {
            push_all_of(&mut out, Value::Object(Map::from_iter([("required".to_owned(), Value::Array(ghosts))])));
        }
    }
    Some(out)
}

// ---- limits --------------------------------------------------------------------------------

fn limit(name: &str, measured: usize, value: usize, message: String) -> Refusal {
    Refusal::limit(name, measured as u64, value as u64, message)
}

/// Subschemas and references nesting past the walker's bound: cited as `max-depth` (MFJS's own
/// limit on nesting is far below it), counting the walker's levels.
fn too_deep(message: &str) -> Refusal {
    limit("max-depth", walk::MAX_DEPTH + 1, MAX_DEPTH, format!("{message} (more than {} levels; the translator's own bound)", walk::MAX_DEPTH))
}

fn check_limits(root: &Value) -> Result<(), Refusal> {
    let mut tally = Tally::default();
    let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut followed = BTreeMap::new();
    tally.visit(root, 0, &defs, &mut Path::default(), &mut followed)?;
    for (name, def) in &defs {
        if let Some(key) = slash_key(def) {
            return Err(limit("slash-in-defs", 1, 0, format!("`$defs/{name}` holds the key `{key}`; walle rejects `/` in any key inside `$defs`")));
        }
        tally.visit(def, 0, &defs, &mut Path::default(), &mut followed)?;
    }
    if tally.properties > MAX_PROPERTIES {
        return Err(limit("max-properties", tally.properties, MAX_PROPERTIES, format!("{} properties in all; MFJS allows {MAX_PROPERTIES}", tally.properties)));
    }
    if tally.enum_values > MAX_ENUM_VALUES {
        return Err(limit("max-enum-values", tally.enum_values, MAX_ENUM_VALUES, format!("{} enum values in all; MFJS allows {MAX_ENUM_VALUES}", tally.enum_values)));
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Tally {
    properties: usize,
    enum_values: usize,
}

/// Where a [`Tally`] walk is: the definitions on the way (each followed once per path) and how
/// many calls deep the walk is.
#[derive(Debug, Default)]
struct Path {
    definitions: BTreeSet<String>,
    frames: usize,
    /// References not followed because their definition was already on the path.
    cuts: usize,
}

impl Tally {
    /// Walk what walle walks, counting; `depth` counts `properties` levels as walle does, through
    /// references (each definition followed once per path).
    ///
    /// `followed` remembers, per definition, the deepest `depth` it was walked from without a
    /// refusal and without a cycle cut: walking it again from there or shallower finds nothing
    /// new, and without that a chain of definitions each referring twice to the next costs 2^n
    /// walks. The walk itself
    /// stops at [`walk::MAX_DEPTH`] calls: a chain of thousands of definitions nested through
    /// `items` would otherwise overflow the stack.
    fn visit(&mut self, node: &Value, depth: usize, defs: &Map<String, Value>, path: &mut Path, followed: &mut BTreeMap<String, usize>) -> Result<(), Refusal> {
        let Some(map) = node.as_object() else { return Ok(()) };
        if depth > MAX_DEPTH {
            return Err(limit("max-depth", depth, MAX_DEPTH, format!("objects nest {depth} levels deep; MFJS allows {MAX_DEPTH}")));
        }
        if path.frames > walk::MAX_DEPTH {
            return Err(too_deep("subschemas and references nest too deep"));
        }
        path.frames += 1;
        let result = self.visit_children(map, depth, defs, path, followed);
        path.frames -= 1;
        result
    }

    fn visit_children(&mut self, map: &Map<String, Value>, depth: usize, defs: &Map<String, Value>, path: &mut Path, followed: &mut BTreeMap<String, usize>) -> Result<(), Refusal> {
        self.enum_values += map.get("enum").and_then(Value::as_array).map_or(0, Vec::len);
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            self.properties += properties.len();
            for (name, schema) in properties {
                if RESERVED_PROPERTY_NAMES.contains(&name.as_str()) {
                    return Err(limit("reserved-property-names", 1, 0, format!("a property is named `{name}`, which walle reserves for a keyword")));
                }
                self.visit(schema, depth + 1, defs, path, followed)?;
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(child) = map.get(key) {
                self.visit(child, depth, defs, path, followed)?;
            }
        }
        for item in map.get("anyOf").and_then(Value::as_array).into_iter().flatten() {
            self.visit(item, depth, defs, path, followed)?;
        }
        if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"))
            && followed.get(name).is_none_or(|deepest| depth > *deepest)
        {
            if !path.definitions.insert(name.to_owned()) {
                // Cut here: what this walk saw depends on the path, so it is not remembered.
                path.cuts += 1;
                return Ok(());
            }
            let cuts = path.cuts;
            let mut counting = Tally::default();
            if let Some(def) = defs.get(name) {
                counting.visit(def, depth, defs, path, followed)?;
            }
            path.definitions.remove(name);
            if path.cuts == cuts {
                followed.insert(name.to_owned(), depth);
            }
        }
        Ok(())
    }
}

fn slash_key(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| if k.contains('/') { Some(k.clone()) } else { slash_key(v) }),
        Value::Array(items) => items.iter().find_map(slash_key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn project(source: Value) -> Value {
        translate(&source).expect("projects")
    }

    #[test]
    fn recursion_is_found_on_cycles_only() {
        let defs: BTreeMap<String, Value> = [
            ("a", json!({"$ref": "#/$defs/b"})),
            ("b", json!({"items": {"$ref": "#/$defs/a"}})),
            ("self", json!({"properties": {"next": {"$ref": "#/$defs/self"}}})),
            ("leaf", json!({"$ref": "#/$defs/a"})),
            ("root", json!({"$ref": "#"})),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let found: Vec<String> = recursive_definitions(&defs).into_iter().collect();
        assert_eq!(found, ["a", "b", "self"]);
    }

    #[test]
    fn a_long_chain_of_definitions_is_refused_or_projected_quickly_without_overflow() {
        // 5,000 definitions, each an array of the next: a search from every definition was
        // quadratic, and the limit walk recursed once per definition (a stack overflow).
        let mut defs = Map::new();
        for i in 0..5_000 {
            defs.insert(format!("d{i}"), json!({"type": "array", "items": {"$ref": format!("#/$defs/d{}", i + 1)}}));
        }
        defs.insert("d5000".to_owned(), json!({"type": "string"}));
        let source = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs});
        let started = std::time::Instant::now();
        let refusal = translate(&source).expect_err("refused");
        assert_eq!(refusal.limit_name(), Some("max-depth"), "{refusal}");
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn untyped_properties_get_every_type_they_admit_never_an_invented_string() {
        let out = project(json!({"type": "object", "properties": {"level": {"enum": ["a", "b"]}, "any": {"description": "anything"}}}));
        assert_eq!(out["properties"]["level"], json!({"type": "string", "enum": ["a", "b"]}));
        let any = &out["properties"]["any"];
        assert_eq!(any["description"], "anything");
        let types: Vec<&str> = any["anyOf"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(types, ALL_TYPES);
    }

    #[test]
    fn conjoined_keywords_combine_and_the_residue_goes_into_all_of() {
        // Two patterns: the second stays in an `allOf`; `propertyNames: true` conjoins to the
        // other side's schema, never to "no names".
        let out = project(json!({
            "type": "object",
            "properties": {"p": {"type": "string", "pattern": "^a", "anyOf": [{"pattern": "b$"}]}},
            "propertyNames": true,
            "anyOf": [{"propertyNames": {"maxLength": 3}, "minProperties": 1}]
        }));
        assert_eq!(out["properties"]["p"], json!({"type": "string", "pattern": "^a", "allOf": [{"pattern": "b$"}]}));
        assert_eq!(out["propertyNames"], json!({"maxLength": 3}));
    }

    #[test]
    fn type_beside_any_of_moves_into_each_branch() {
        // The string branch contradicts the parent's type and goes; one branch needs no union.
        let out = project(json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "string"}]}));
        assert_eq!(out, json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}));
        let out = project(json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": {}, "b": {}}}));
        assert!(out.get("type").is_none());
        assert_eq!(out["anyOf"][0]["type"], "object");
        assert_eq!(out["anyOf"][1]["required"], json!(["b"]));
    }

    #[test]
    fn ref_with_description_is_wrapped_and_ref_with_constraints_inlined() {
        let out = project(json!({
            "type": "object",
            "$defs": {"id": {"type": "string", "pattern": "^[a-z]+$"}},
            "properties": {"a": {"$ref": "#/$defs/id", "description": "an id"}, "b": {"$ref": "#/$defs/id", "maxLength": 8}}
        }));
        assert_eq!(out["properties"]["a"], json!({"description": "an id", "anyOf": [{"$ref": "#/$defs/id"}]}));
        assert_eq!(out["properties"]["b"], json!({"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"}));
    }

    #[test]
    fn false_property_and_closed_tuple_keep_their_meaning() {
        let out = project(json!({"type": "object", "properties": {"legacy": false, "point": {"type": "array", "prefixItems": [{"type": "number"}], "items": false}}}));
        assert_eq!(out["properties"]["legacy"], json!({"type": "null", "not": {}}));
        assert_eq!(out["properties"]["point"], json!({"type": "array", "prefixItems": [{"type": "number"}], "maxItems": 1}));
    }

    #[test]
    fn references_through_embedded_resources_are_hoisted_to_plain_names() {
        let out = project(json!({
            "type": "object",
            "properties": {"value": {"$id": "urn:x", "$defs": {"a%b": {"type": "integer"}}, "$ref": "#/$defs/a%25b"}}
        }));
        assert_eq!(out["properties"]["value"], json!({"$ref": "#/$defs/ab"}));
        assert_eq!(out["$defs"]["ab"], json!({"type": "integer"}));
    }

    #[test]
    fn documented_limits_refuse_by_name() {
        let reserved = translate(&json!({"type": "object", "properties": {"required": {"type": "string"}}})).unwrap_err();
        assert_eq!(reserved.limit_name(), Some("reserved-property-names"));
        let mut deep = json!({"type": "string"});
        for _ in 0..6 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        assert_eq!(translate(&deep).unwrap_err().limit_name(), Some("max-depth"));
    }
}
