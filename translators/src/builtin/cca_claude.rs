//! `cca-claude`: Claude through Cloud Code Assist (CCA).
//!
//! CCA forwards a Claude tool's schema only when it holds no `nullable`, no `type` list, no
//! `type: "null"` and no `anyOf`/`oneOf`/`allOf` (the seed's CONSTRAINTS.md §3.5 "residual
//! incompatibility gate"; `targets/grammars/cca-claude.json` is that gate as data). The
//! reference implementation (oh-my-pi `normalizeSchemaForCCA`) got there by collapsing unions to
//! their first member (D4), overwriting a parent's `type` (D2), dropping `null` from required
//! properties (D5), and replacing the whole tool with `{type: object, properties: {}}` for any
//! `allOf`, `not` or `false` (D6, which inverts `false`). This translator keeps the contract:
//!
//! - **Nullable properties become optional, exactly.** A *required* property whose schema admits
//!   `null` through a `type` list or a null-only `anyOf`/`oneOf` branch loses the null alternative
//!   and leaves `required`; the projection carries [`Codec::AbsentMeansNull`] for it, so an absent
//!   key reads back as `null`. That is exact only for required properties: for an *optional*
//!   nullable property, "absent" and "null" would both have to come back from one model answer,
//!   so no codec site is made and the union is handled as any other (a widening, below).
//! - **`type: "null"`** becomes `const: null` (exact).
//! - **`allOf`** is merged into its node: exact where the keywords combine (bounds tighten,
//!   `required` lists unite, property schemas merge); where two values cannot be combined the first
//!   is kept, a widening ([`combine::merge`](crate::algebra::combine::merge)).
//! - **`anyOf`/`oneOf`** are joined and the join merged into the node: object unions become one
//!   object with every branch's properties and the `required` all branches share; scalar unions of
//!   one type keep it; mixed scalar unions lose `type` (any JSON type passes) but never the
//!   parent's own `type`. All widenings ([`combine::union`](crate::algebra::combine::union), its residue dropped), never the first member.
//! - **`type` lists** become the one type they reduce to, or are dropped (a widening).
//! - **`nullable`** is dropped: in draft 2020-12 it is an annotation, so that is exact.
//!
//! Those rewrites widen the node they touch, which widens the tool only where the node stands in a
//! positive position. Under `not`, inside an `if`, beside `unevaluated*` (whose annotations move
//! with the merged keywords), with dynamic references, or with references into the branches being
//! merged, no local rewrite has a known direction. There, and only there, the translator takes the
//! **whole-tool fallback** `{type: object, properties: {}}`: a widening of the entire tool (the
//! root is an object, so it accepts at least everything the source does), reported in the
//! projection's `$comment`. A `false` subschema is never a reason for it: CCA carries `false`, and
//! it is sent as it is. Nor is the fallback ever taken over a `false`: dropping one accepts what it
//! rejects (an inversion, CONTRACT §4 rule 2), so where the source holds a `false` (or `not: {}`)
//! that can decide a rejection, the tool is refused instead, citing it.
//!
//! URI references are refused (CCA resolves nothing), and the root must be an object.

use serde_json::{Map, Value};

use super::never::never_within;
use super::object_root::force_object_root;
use crate::algebra::combine::{self as algebra, Types};
use crate::codec::{Codec, NullSite};
use crate::form::Form;
use crate::model::{Dialect, Outcome, Projection, Refusal, Translator};
use crate::refs::Resolver;
use crate::vocabulary::{self, Polarity};
use crate::walk;

/// Claude through Cloud Code Assist.
#[derive(Debug, Default, Clone, Copy)]
pub struct CcaClaude;

impl Translator for CcaClaude {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "cca-claude"
    }

    fn translate(&self, source: &Value) -> Outcome {
        match translate(source) {
            Ok(projection) => Outcome::Projected(projection),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// Why the whole tool was replaced by the open object: the pointer of the node that could not be
/// rewritten in a known direction, and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fallback {
    pub(super) pointer: String,
    pub(super) reason: String,
}

fn translate(source: &Value) -> Result<Projection, Refusal> {
    walk::check_depth(source).map_err(|e| Refusal::limit("max-depth", (walk::MAX_DEPTH + 1) as u64, walk::MAX_DEPTH as u64, e.to_string()))?;
    refuse_uri_references(source)?;
    let rooted = force_object_root(source)?;
    let (schema, codec) = match normalize(&rooted) {
        Ok((schema, sites)) => (schema, if sites.is_empty() { Codec::Identity } else { Codec::AbsentMeansNull { sites } }),
        Err(fallback) => {
            if let Some(refusal) = refuse_dropping_a_never(&rooted, &fallback) {
                return Err(refusal);
            }
            (whole_tool_fallback(&rooted, &fallback), Codec::Identity)
        }
    };
    Ok(Projection { schema, dialect: Dialect::JsonSchema, codec, strict: None })
}

/// CCA fetches no documents: a reference that is not a `#` fragment cannot be evaluated there.
fn refuse_uri_references(source: &Value) -> Result<(), Refusal> {
    let occurrences = walk::occurrences(source).map_err(|e| Refusal::limit("max-depth", (walk::MAX_DEPTH + 1) as u64, walk::MAX_DEPTH as u64, e.to_string()))?;
    for o in occurrences {
        if matches!(o.keyword, "$ref" | "$dynamicRef") && Form::of(o.keyword, o.value) == Form::Uri {
            return Err(Refusal::new(o.keyword, o.pointer, format!("`{}` names a URI; Cloud Code Assist resolves no referenced documents", o.value)));
        }
    }
    Ok(())
}

/// The whole-tool fallback drops every constraint, a `false` subschema too, and accepting what a
/// `false` rejects is an inversion no row may declare (CONTRACT §4 rule 2). Where the source holds
/// one that can decide a rejection (not below a `not`), the tool is refused instead, citing that
/// `false` (or the `not` of a schema asserting nothing).
fn refuse_dropping_a_never(source: &Value, fallback: &Fallback) -> Option<Refusal> {
    let doc = Resolver::new(source).ok()?;
    let at = never_within(&doc, source, "")?;
    let keyword = if source.pointer(&at) == Some(&Value::Bool(false)) { "false" } else { "not" };
    let fell_at = if fallback.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", fallback.pointer) };
    Some(Refusal::new(
        keyword,
        at.clone(),
        format!(
            "this schema would take the whole-tool fallback ({} at {fell_at}), which would accept what the subschema at `{at}` rejects (it accepts nothing): refused rather than inverted",
            fallback.reason
        ),
    ))
}

/// The open object that replaces a tool whose schema cannot be rewritten in a known direction.
fn whole_tool_fallback(source: &Value, fallback: &Fallback) -> Value {
    let mut out = Map::new();
    out.insert("type".to_owned(), Value::from("object"));
    out.insert("properties".to_owned(), Value::Object(Map::new()));
    if let Some(description) = source.get("description").filter(|d| d.is_string()) {
        out.insert("description".to_owned(), description.clone());
    }
    let at = if fallback.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", fallback.pointer) };
    out.insert(
        "$comment".to_owned(),
        Value::from(format!("schema-fidelity cca-claude: whole-tool fallback (a widening of the whole tool): {} at {at}", fallback.reason)),
    );
    Value::Object(out)
}

/// Rewrite a rooted source into the CCA form, with its codec sites, or say why the whole tool
/// falls back.
pub(super) fn normalize(source: &Value) -> Result<(Value, Vec<NullSite>), Fallback> {
    let mut scan = Scan::default();
    scan.visit(source, "", true, false, 0);
    if let Some(fallback) = scan.fallback() {
        return Err(fallback);
    }
    // A codec site is read where the codec walks (properties, items, additionalProperties, `$ref`s
    // met on the way). A reference to a plain-path object from anywhere else (a `not`, a
    // `patternProperties` value) would validate it without the codec: sites are made only when
    // every reference points into `$defs`, where no site is.
    let mut normalizer = Normalizer { sites: Vec::new(), sites_allowed: references_stay_in_defs(source) };
    let plain = is_plain_node(source);
    let schema = normalizer.node(source, "", plain, 0);
    if let Some((pointer, keyword)) = residue(&schema) {
        // Unreachable by construction; if a rewrite ever leaves a construct CCA rejects, the tool
        // still goes out, as the widest object rather than as a schema CCA would refuse.
        return Err(Fallback { pointer, reason: format!("`{keyword}` survived normalization") });
    }
    Ok((schema, normalizer.sites))
}

/// The first construct the CCA gate rejects, if any (the grammar file says the same, as data).
fn residue(schema: &Value) -> Option<(String, String)> {
    let occurrences = walk::occurrences(schema).ok()?;
    occurrences.into_iter().find_map(|o| {
        let rejected = match o.keyword {
            "anyOf" | "oneOf" | "allOf" | "nullable" => true,
            "type" => o.value.is_array() || o.value == "null",
            _ => false,
        };
        rejected.then(|| (o.pointer.clone(), o.keyword.to_owned()))
    })
}

// ---- where a rewrite has no known direction ------------------------------------------------

/// What the fallback decision needs to know about the whole source.
#[derive(Debug, Default)]
struct Scan {
    /// A node with `anyOf`/`oneOf`/`allOf` or a `type` list: a rewrite that widens its node.
    directed: Option<String>,
    /// Such a node under `not`, `if` or a `contains` bounded by `maxContains`.
    directed_not_positive: Option<String>,
    unevaluated: Option<String>,
    dynamic: Option<String>,
    /// An identifier (`$id`, `$anchor`, `$dynamicAnchor`, ...) inside a combinator branch that will
    /// be merged away.
    resource_in_branch: Option<String>,
    /// A `#`-pointer through `anyOf`/`oneOf`/`allOf`: its target moves when branches merge.
    reference_into_branch: Option<String>,
    /// A reference under `not`/`if`: its target's widening would narrow there.
    reference_not_positive: Option<String>,
}

impl Scan {
    fn visit(&mut self, node: &Value, pointer: &str, positive: bool, in_branch: bool, depth: usize) {
        let Some(map) = node.as_object() else { return };
        if depth > walk::MAX_DEPTH {
            return;
        }
        let note = |slot: &mut Option<String>| {
            if slot.is_none() {
                *slot = Some(pointer.to_owned());
            }
        };
        if ["anyOf", "oneOf", "allOf"].iter().any(|k| map.contains_key(*k)) || map.get("type").is_some_and(Value::is_array) {
            note(&mut self.directed);
            if !positive {
                note(&mut self.directed_not_positive);
            }
        }
        if map.contains_key("unevaluatedProperties") || map.contains_key("unevaluatedItems") {
            note(&mut self.unevaluated);
        }
        if ["$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"].iter().any(|k| map.contains_key(*k)) {
            note(&mut self.dynamic);
        }
        if in_branch && map.keys().any(|k| vocabulary::is_identifier(k)) {
            note(&mut self.resource_in_branch);
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if pointer_walks_through_combinator(reference) {
                note(&mut self.reference_into_branch);
            }
            if !positive {
                note(&mut self.reference_not_positive);
            }
        }
        let bounded_contains = map.contains_key("maxContains");
        for child in walk::children(node) {
            let flips = matches!(vocabulary::polarity(child.keyword), Some(Polarity::Negated | Polarity::Condition))
                || (child.keyword == "contains" && bounded_contains);
            let branch = in_branch || matches!(child.keyword, "anyOf" | "oneOf" | "allOf");
            self.visit(child.schema, &format!("{pointer}{}", child.pointer_suffix()), positive && !flips, branch, depth + 1);
        }
    }

    fn fallback(&self) -> Option<Fallback> {
        let fall = |pointer: &String, reason: &str| Fallback { pointer: pointer.clone(), reason: reason.to_owned() };
        if let Some(p) = &self.directed_not_positive {
            return Some(fall(p, "a union, `allOf` or type list under `not`/`if` (rewriting it would narrow the tool there)"));
        }
        self.directed.as_ref()?;
        let reasons = [
            (&self.unevaluated, "`unevaluated*` beside unions that must be merged (the evaluated-property annotations would move)"),
            (&self.dynamic, "dynamic references beside unions that must be merged"),
            (&self.resource_in_branch, "an `$id`/`$anchor` inside a combinator branch that must be merged away"),
            (&self.reference_into_branch, "a reference into a combinator branch that must be merged away"),
            (&self.reference_not_positive, "a reference under `not`/`if` while unions must be merged (its target's widening would narrow there)"),
        ];
        reasons.into_iter().find_map(|(slot, why)| slot.as_ref().map(|p| fall(p, why)))
    }
}

/// Whether a `#/...` pointer walks through an `anyOf`, `oneOf` or `allOf` keyword position.
fn pointer_walks_through_combinator(reference: &str) -> bool {
    let Some(pointer) = reference.strip_prefix("#/") else { return false };
    let tokens: Vec<&str> = pointer.split('/').collect();
    let mut i = 0;
    while i < tokens.len() {
        let keyword = tokens[i];
        if matches!(keyword, "anyOf" | "oneOf" | "allOf") {
            return true;
        }
        match walk::value_kind(keyword) {
            Some(vocabulary::ValueKind::SchemaMap | vocabulary::ValueKind::SchemaArray) => i += 2,
            Some(vocabulary::ValueKind::Schema) => i += 1,
            _ => return false,
        }
    }
    false
}

// ---- the rewrite ---------------------------------------------------------------------------

/// Keywords through which an object's instance location is reached the way the codec walks it.
const PATH_KEYWORDS: [&str; 4] = ["properties", "items", "prefixItems", "additionalProperties"];

/// Assertions that look at nothing but their own value's shape, so a property made optional by the
/// codec cannot be seen missing by them (no `minProperties`, `enum`, `not`, `dependent*`, the
/// draft-07 `dependencies`, `$ref`, combinators, `contains`, `uniqueItems`, `patternProperties`,
/// `unevaluated*` ...).
const PLAIN_ASSERTIONS: [&str; 17] = [
    "type", "properties", "required", "items", "prefixItems", "additionalProperties", "minItems", "maxItems", "minLength", "maxLength",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
];

/// Whether every key of a node is a plain assertion or asserts nothing (annotations, identifiers,
/// definitions, unknown keys: the registry's [`vocabulary::asserts`]).
fn is_plain_node(node: &Value) -> bool {
    node.as_object().is_some_and(|map| map.keys().all(|k| !vocabulary::asserts(k) || PLAIN_ASSERTIONS.contains(&k.as_str())))
}

#[derive(Debug, Default)]
struct Normalizer {
    sites: Vec<NullSite>,
    sites_allowed: bool,
}

/// Whether every reference in the schema names something inside a `$defs` (or `definitions`).
fn references_stay_in_defs(source: &Value) -> bool {
    walk::occurrences(source).is_ok_and(|occurrences| {
        occurrences.iter().filter(|o| matches!(o.keyword, "$ref" | "$dynamicRef")).all(|o| {
            o.value.as_str().is_some_and(|r| r.starts_with("#/$defs/") || r.starts_with("#/definitions/"))
        })
    })
}

impl Normalizer {
    /// Rewrite one schema node (children first). `plain` says the node is reached from the root
    /// through plain object/array positions only, so a required nullable property here can be
    /// made optional with a codec site.
    fn node(&mut self, schema: &Value, pointer: &str, plain: bool, depth: usize) -> Value {
        let Some(source) = schema.as_object() else { return schema.clone() };
        if depth > walk::MAX_DEPTH {
            return schema.clone();
        }
        let mut map = source.clone();
        if plain && self.sites_allowed {
            self.make_nullable_properties_optional(&mut map, pointer);
        }
        let rebuilt = walk::map_children(&Value::Object(map), |child| {
            let child_plain = plain && PATH_KEYWORDS.contains(&child.keyword) && is_plain_node(child.schema);
            Ok::<_, ()>(self.node(child.schema, &format!("{pointer}{}", child.pointer_suffix()), child_plain, depth + 1))
        });
        let Ok(Value::Object(mut map)) = rebuilt else { return schema.clone() };
        map.remove("nullable");
        let all_of = map.remove("allOf");
        let any_of = map.remove("anyOf");
        let one_of = map.remove("oneOf");
        let mut allowed = map.get("type").and_then(Types::of_keyword).filter(|_| map.get("type").is_some_and(Value::is_array));
        for branch in all_of.as_ref().and_then(Value::as_array).into_iter().flatten() {
            map = conjoin(&map, branch);
        }
        for union in [any_of, one_of].iter().flatten() {
            if let Some(branches) = union.as_array() {
                let types = branches
                    .iter()
                    .map(|b| match b {
                        Value::Object(m) => algebra::admitted_types(m),
                        Value::Bool(true) => Types::ALL,
                        _ => Types::NONE,
                    })
                    .reduce(|a, b| a.or(b));
                allowed = match (allowed, types) {
                    (Some(a), Some(b)) => Some(a.and(b)),
                    (a, b) => a.or(b),
                };
                // The policy for a union's residue: dropped, the widening the table declares on
                // `anyOf`/`oneOf` (and what `name_dropped_types` then says).
                map = conjoin(&map, &algebra::union(branches).schema);
            }
        }
        settle_type(&mut map);
        if let Some(types) = allowed {
            name_dropped_types(&mut map, &types);
        }
        Value::Object(map)
    }

    /// For each required property whose schema admits `null` through a `type` list or a null-only
    /// branch: drop the null alternative, make the property optional, record the codec site.
    fn make_nullable_properties_optional(&mut self, map: &mut Map<String, Value>, pointer: &str) {
        let Some(required) = map.get("required").and_then(Value::as_array).cloned() else { return };
        let mut still_required = Vec::new();
        for name in required {
            let without_null = name.as_str().and_then(|n| map.get("properties")?.get(n)?.as_object()).and_then(without_null);
            match (name.as_str(), without_null) {
                (Some(n), Some(rewritten)) => {
                    if let Some(properties) = map.get_mut("properties").and_then(Value::as_object_mut) {
                        properties.insert(n.to_owned(), rewritten);
                    }
                    self.sites.push(NullSite { object: pointer.to_owned(), property: n.to_owned() });
                }
                _ => still_required.push(name),
            }
        }
        if still_required.is_empty() {
            map.remove("required");
        } else {
            map.insert("required".to_owned(), Value::Array(still_required));
        }
    }
}

/// The schema without its `null` alternative, when `null` comes from a `type` list or a null-only
/// `anyOf`/`oneOf` branch beside other alternatives. The result accepts everything the schema
/// accepts except (possibly) `null`, and nothing the schema rejects.
fn without_null(schema: &Map<String, Value>) -> Option<Value> {
    if let Some(Value::Array(types)) = schema.get("type") {
        let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if others.len() < types.len() && !others.is_empty() {
            let mut out = schema.clone();
            out.insert("type".to_owned(), if others.len() == 1 { others[0].clone() } else { Value::Array(others) });
            if let Some(values) = out.get("enum").and_then(Value::as_array) {
                let kept: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
                if !kept.is_empty() {
                    out.insert("enum".to_owned(), Value::Array(kept));
                }
            }
            return Some(Value::Object(out));
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(branches) = schema.get(key).and_then(Value::as_array) else { continue };
        let others: Vec<Value> = branches.iter().filter(|b| !is_null_only(b)).cloned().collect();
        if others.len() < branches.len() && !others.is_empty() {
            let mut out = schema.clone();
            out.insert(key.to_owned(), Value::Array(others));
            return Some(Value::Object(out));
        }
    }
    None
}

/// A branch that accepts `null` and nothing else, and says nothing but that (and annotations).
fn is_null_only(branch: &Value) -> bool {
    let Some(map) = branch.as_object() else { return false };
    let only_types_and_annotations = map.keys().all(|k| matches!(k.as_str(), "type" | "const" | "enum") || vocabulary::is_note(k));
    let admitted = algebra::admitted_types(map);
    only_types_and_annotations && admitted.single() == Some("null") && ["type", "const", "enum"].iter().any(|k| map.contains_key(*k))
}

/// The node `map` with `branch` merged in as a conjunct.
fn conjoin(map: &Map<String, Value>, branch: &Value) -> Map<String, Value> {
    match branch {
        Value::Object(b) => algebra::merge(map, b),
        Value::Bool(false) => algebra::merge(map, &Map::from_iter([("not".to_owned(), Value::Object(Map::new()))])),
        _ => map.clone(),
    }
}

/// Leave `type` in a form CCA accepts: `type: "null"` as `const: null` (exact); a list as the one
/// type it reduces to, dropped when it admits every type or `enum`/`const` already implies it
/// (exact), dropped otherwise (a widening: the node accepts any type).
fn settle_type(map: &mut Map<String, Value>) {
    let Some(types) = map.get("type").and_then(Types::of_keyword) else { return };
    if types.single() == Some("null") {
        map.remove("type");
        match (map.get("const"), map.get("enum").and_then(Value::as_array)) {
            (Some(c), _) if !c.is_null() => mark_unsatisfiable(map),
            (Some(_), _) => {}
            (None, Some(values)) => {
                if !values.iter().any(Value::is_null) {
                    mark_unsatisfiable(map);
                }
            }
            (None, None) => {
                map.insert("const".to_owned(), Value::Null);
            }
        }
        return;
    }
    if !map.get("type").is_some_and(Value::is_array) {
        return;
    }
    if types.is_empty() {
        map.remove("type");
        mark_unsatisfiable(map);
    } else if let Some(one) = types.single() {
        map.insert("type".to_owned(), Value::from(one));
    } else {
        // Every type, or values that already pin the type: dropping it is exact. Otherwise it is the
        // widening the `type` row names.
        map.remove("type");
    }
}

/// When a union or type list had to lose `type`, say in the description which types it allowed:
/// the schema no longer tells the model, and a description changes no verdict.
fn name_dropped_types(map: &mut Map<String, Value>, types: &Types) {
    if map.contains_key("type") || types.is_all() || types.is_empty() || map.get("description").is_some_and(|d| !d.is_string()) {
        return;
    }
    let names: Vec<&str> = types.names();
    let listed = match names.as_slice() {
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
        [] => return,
    };
    let note = format!("(type: {listed})");
    let text = match map.get("description").and_then(Value::as_str) {
        Some(d) if d.contains(&note) => return,
        Some(d) => format!("{d} {note}"),
        None => note,
    };
    map.insert("description".to_owned(), Value::from(text));
}

fn mark_unsatisfiable(map: &mut Map<String, Value>) {
    map.insert("not".to_owned(), Value::Object(Map::new()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn project(source: Value) -> Projection {
        translate(&source).expect("projects")
    }

    #[test]
    fn required_nullable_property_becomes_optional_with_a_codec_site() {
        let p = project(json!({
            "type": "object",
            "properties": {"cc": {"type": ["string", "null"]}, "to": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "n": {"type": "integer"}},
            "required": ["cc", "to", "n"]
        }));
        assert_eq!(p.schema, json!({"type": "object", "properties": {"cc": {"type": "string"}, "to": {"type": "string"}, "n": {"type": "integer"}}, "required": ["n"]}));
        assert_eq!(
            p.codec,
            Codec::AbsentMeansNull {
                sites: vec![NullSite { object: String::new(), property: "cc".into() }, NullSite { object: String::new(), property: "to".into() }]
            }
        );
    }

    #[test]
    fn optional_nullable_property_is_widened_not_collapsed_to_its_first_member() {
        let p = project(json!({"type": "object", "properties": {"cc": {"type": ["string", "null"], "description": "copy"}}}));
        assert_eq!(p.schema, json!({"type": "object", "properties": {"cc": {"description": "copy (type: string or null)"}}}));
        assert_eq!(p.codec, Codec::Identity);
    }

    #[test]
    fn mixed_scalar_union_keeps_the_parent_type_not_the_first_member() {
        // D2: the collapse must not overwrite the parent's own `type`.
        let p = project(json!({"type": "object", "properties": {"p": {"type": "array", "items": {"type": "string"}, "anyOf": [{"type": "string"}, {"type": "array"}]}}}));
        assert_eq!(p.schema["properties"]["p"], json!({"type": "array", "items": {"type": "string"}}));
    }

    #[test]
    fn no_codec_site_where_a_reference_could_reach_the_object_without_the_codec() {
        let p = project(json!({
            "type": "object",
            "properties": {"a": {"type": "object", "properties": {"x": {"type": ["string", "null"]}}, "required": ["x"]}},
            "patternProperties": {"^b": {"$ref": "#/properties/a"}}
        }));
        assert_eq!(p.codec, Codec::Identity);
        assert_eq!(p.schema["properties"]["a"]["required"], json!(["x"]));
    }

    #[test]
    fn false_is_kept_and_never_triggers_the_fallback() {
        let source = json!({"type": "object", "properties": {"a": {"type": "string"}, "legacy": false}, "required": ["a"]});
        assert_eq!(project(source.clone()).schema, source);
    }

    #[test]
    fn a_union_under_not_takes_the_reported_whole_tool_fallback() {
        let p = project(json!({"type": "object", "properties": {"p": {"not": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}}));
        assert_eq!(p.schema["type"], "object");
        assert_eq!(p.schema["properties"], json!({}));
        assert!(p.schema["$comment"].as_str().unwrap().contains("/properties/p/not"), "{}", p.schema);
    }

    #[test]
    fn the_fallback_is_never_taken_over_a_false_the_tool_is_refused_citing_it() {
        let closed_beside_union = json!({
            "type": "object",
            "properties": {"auth": {"type": "object", "anyOf": [{"properties": {"t": {}}}, {"properties": {"u": {}}}], "unevaluatedProperties": false}}
        });
        let refused = translate(&closed_beside_union).unwrap_err();
        assert_eq!((refused.keyword(), refused.pointer()), ("false", "/properties/auth/unevaluatedProperties"));
        let forbidden = json!({"type": "object", "properties": {"p": {"not": {"anyOf": [{"type": "string"}]}}, "q": {"not": {}}}});
        let refused = translate(&forbidden).unwrap_err();
        assert_eq!((refused.keyword(), refused.pointer()), ("not", "/properties/q"));
        // Below a `not`, a `false` only accepts more: the fallback widens, it inverts nothing.
        let negative = json!({"type": "object", "properties": {"p": {"not": {"anyOf": [{"type": "string"}], "properties": {"a": false}}}}});
        assert_eq!(project(negative).schema["properties"], json!({}));
    }

    #[test]
    fn uri_references_are_refused() {
        let refused = translate(&json!({"type": "object", "properties": {"a": {"$ref": "other.json"}}})).unwrap_err();
        assert_eq!((refused.keyword(), refused.pointer()), ("$ref", "/properties/a"));
    }
}
