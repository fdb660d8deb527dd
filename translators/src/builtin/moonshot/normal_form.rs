//! The MFJS normal form: every node typed (an untyped node becomes an `anyOf` of one branch per
//! JSON type it admits), keywords beside `anyOf`/`$ref` distributed into the branches, and
//! conjunctions through the shared exact [`conj`](crate::algebra::conj) with the residue kept in
//! an `allOf`.
//!
//! Separate from [`super::hoist`] (which leaves only plain references) and [`super::limits`]
//! (which checks the result): this is where acceptance is preserved, so it is read on its own.

use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;

use serde_json::{Map, Value};

use super::{ALL_TYPES, MAX_ALTERNATIVES, MAX_ANY_OF_ITEMS};
use crate::algebra::combine::{Types, admitted_types, domain};
use crate::algebra::conj::{Conj, conj};
use crate::algebra::disjoint::provably_disjoint_here as provably_disjoint;
use crate::vocabulary;
use crate::walk;

/// One alternative of a node's normal form: a typed node, or `{$ref}` alone.
type Alt = Map<String, Value>;

const ANNOTATIONS: [&str; 2] = ["description", "title"];

pub(super) struct Normalizer {
    raw_defs: BTreeMap<String, Value>,
    done: BTreeMap<String, Value>,
    recursive: BTreeSet<String>,
    unevaluated: bool,
    /// Bytes of inlined definitions left; past it references stay references.
    inline_budget: usize,
}

impl Normalizer {
    pub(super) fn new(raw_defs: BTreeMap<String, Value>, unevaluated: bool) -> Self {
        let recursive = recursive_definitions(&raw_defs);
        Self { raw_defs, done: BTreeMap::new(), recursive, unevaluated, inline_budget: 20_000 }
    }

    pub(super) fn all_defs(&mut self) -> Map<String, Value> {
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
    pub(super) fn node(&mut self, schema: &Value, depth: usize) -> Value {
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
        // Keywords that decide together which part of an instance each applies to.
        for group in [&vocabulary::PROPERTY_GROUP[..], &vocabulary::ITEM_GROUP] {
            let both = group.iter().any(|k| a.contains_key(*k)) && group.iter().any(|k| b.contains_key(*k));
            let per_property = group[0] == "properties"
                && !self.unevaluated
                && [a, b].iter().all(|s| !s.contains_key("patternProperties") && !s.contains_key("additionalProperties"));
            if both && !per_property {
                for k in group {
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
pub(super) fn recursive_definitions(defs: &BTreeMap<String, Value>) -> BTreeSet<String> {
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
