//! What one approximated occurrence does to its node: the edit each word of `to:` stands for,
//! loosening (a widening) or tightening (a narrowing) the occurrence where it stands and nothing
//! else, and the edits of the table-level rules.

use std::collections::{BTreeMap, BTreeSet};

use schema_fidelity_translators::refs::Resolver;
use schema_fidelity_translators::vocabulary::{self, ValueKind};
use schema_fidelity_translators::walk::{self, Occurrence};
use serde_json::{Value, json};

use super::polarity::{Edit, NodeEdits};
use crate::table::RuleKind;
use crate::deviation::{Becomes, Direction, MarkScope};

/// How closely an edit bounds what its word says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Precision {
    /// The bound is what the word says the keyword became.
    Exact,
    /// The bound lets the keyword reject every instance it applies to: a witness it explains
    /// must also be pinned on the keyword (the projection rejects it at this keyword's family).
    Pinned,
}

/// The `draft 2020-12` meta-schema URIs a `$schema` may name without changing what the source means.
const STANDARD_META_SCHEMAS: [&str; 2] = ["https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"];

/// Add to `out` the edits of `occ` approximated in `direction` as `word`, within `scope`; `depth`
/// is the row's `depth:` for `nesting-bounded`. Returns how precise the bound is, or `None` when
/// the word changes nothing here (a reference off any cycle, a standard `$schema` dropped).
pub(super) fn occurrence(
    root: &Value,
    occ: &Occurrence<'_>,
    word: Becomes,
    direction: Direction,
    scope: Option<&MarkScope>,
    depth: Option<u32>,
    out: &mut BTreeMap<String, NodeEdits>,
) -> Option<Precision> {
    if scope.is_some_and(|s| !s.covers_value(occ.value) || !s.covers_node(root.pointer(&occ.pointer))) {
        return None;
    }
    let names = scope.map(|s| s.names.clone()).filter(|n| !n.is_empty());
    let node = occ.pointer.clone();
    let keyword = occ.keyword.to_owned();
    let push = |out: &mut BTreeMap<String, NodeEdits>, edit: Edit| {
        let slot = out.entry(node.clone()).or_default();
        match direction {
            Direction::Widening => slot.loosen.push(edit),
            Direction::Narrowing => slot.tighten.push(edit),
        }
    };
    match direction {
        Direction::Widening => match word {
            _ if occ.keyword == "false" => push(out, Edit::Replace(Value::Bool(true))),
            _ if occ.keyword == "true" || !vocabulary::asserts(occ.keyword) && vocabulary::is_keyword(occ.keyword) => return None,
            Becomes::AnyOf if occ.keyword == "oneOf" => push(out, Edit::OneOfAsAnyOf),
            Becomes::Unrolled => {
                if !on_cycle(root, &occ.pointer, occ.value) {
                    return None;
                }
                push(out, Edit::Loosen { keyword, names: None });
            }
            // A whole-tool fallback is bounded by the caller, on the whole document.
            Becomes::WholeTool => return None,
            _ => {
                // A `prefixItems` rewritten some other way (into `items`, say) takes the tail along.
                if occ.keyword == "prefixItems" && word == Becomes::Rewritten {
                    push(out, Edit::Loosen { keyword: "items".to_owned(), names: None });
                }
                push(out, Edit::Loosen { keyword, names });
            }
        },
        Direction::Narrowing => match word {
            Becomes::Closed if occ.keyword == "true" => push(out, Edit::Replace(json!({"additionalProperties": false}))),
            Becomes::Closed | Becomes::Required | Becomes::ClosedRequired => {
                if word != Becomes::Required {
                    close(root, occ, &push, out);
                }
                if word != Becomes::Closed {
                    push(out, Edit::RequireAll);
                }
            }
            Becomes::False if occ.keyword == "true" => push(out, Edit::Replace(Value::Bool(false))),
            Becomes::False => match walk::value_kind(occ.keyword) {
                Some(ValueKind::Schema) => push(out, Edit::Set { keyword, value: Value::Bool(false) }),
                Some(ValueKind::SchemaArray | ValueKind::SchemaMap) => push(out, Edit::SetEntries { keyword, value: Value::Bool(false), names }),
                // A data keyword made unsatisfiable: it rejects every instance it applies to.
                _ => push(out, Edit::RejectType(vocabulary::instance_type(occ.keyword).map(vocabulary::InstanceType::name))),
            },
            Becomes::ObjectsEmptied => {
                if occ.keyword == "true" {
                    push(out, Edit::Replace(objects_emptied()));
                } else if occ.value == &Value::Bool(true) || occ.value.as_object().is_some_and(serde_json::Map::is_empty) {
                    push(out, Edit::Set { keyword, value: objects_emptied() });
                } else {
                    return None;
                }
            }
            Becomes::Upgraded => {
                let node = root.pointer(&occ.pointer)?;
                match occ.keyword {
                    "additionalItems" if node.get("prefixItems").is_some() && node.get("items").is_none() => {
                        push(out, Edit::Set { keyword: "items".to_owned(), value: occ.value.clone() });
                    }
                    "dependencies" => {
                        let (mut required, mut schemas) = (serde_json::Map::new(), serde_json::Map::new());
                        for (name, v) in occ.value.as_object()? {
                            if v.is_array() {
                                required.insert(name.clone(), v.clone());
                            } else if walk::is_schema(v) {
                                schemas.insert(name.clone(), v.clone());
                            }
                        }
                        for (k, extra) in [("dependentRequired", required), ("dependentSchemas", schemas)] {
                            if extra.is_empty() {
                                continue;
                            }
                            let mut merged = node.get(k).and_then(Value::as_object).cloned().unwrap_or_default();
                            for (name, v) in extra {
                                merged.entry(name).or_insert(v);
                            }
                            push(out, Edit::Set { keyword: k.to_owned(), value: Value::Object(merged) });
                        }
                    }
                    _ => return None,
                }
            }
            Becomes::FirstMember => {
                let first = occ.value.as_array().and_then(|a| a.first()).cloned()?;
                push(out, Edit::Set { keyword, value: first });
            }
            Becomes::NullDropped => push(out, Edit::DropNull),
            Becomes::Unrolled => {
                if !on_cycle(root, &occ.pointer, occ.value) {
                    return None;
                }
                push(out, Edit::Replace(Value::Bool(false)));
            }
            Becomes::NestingBounded => {
                let levels = depth.unwrap_or(0);
                if occ.keyword == "true" {
                    push(out, Edit::Replace(nesting_bounded(levels)));
                } else if occ.value == &Value::Bool(true) || occ.value.as_object().is_some_and(serde_json::Map::is_empty) {
                    push(out, Edit::Set { keyword, value: nesting_bounded(levels) });
                } else {
                    return None;
                }
            }
            Becomes::Dropped if occ.keyword == "$schema" && occ.value.as_str().is_some_and(|s| STANDARD_META_SCHEMAS.contains(&s)) => return None,
            // A meta-schema of the source's own may switch vocabularies off (`$vocabulary`):
            // dropped, the draft 2020-12 vocabularies apply again, which is what the bound says.
            Becomes::Dropped => push(out, Edit::Loosen { keyword, names: None }),
            _ => {
                push(out, Edit::RejectType(vocabulary::instance_type(occ.keyword).map(vocabulary::InstanceType::name)));
                return Some(Precision::Pinned);
            }
        },
    }
    Some(Precision::Exact)
}

/// The node of `occ` closed over what it declares: `additionalProperties: false`, or
/// `unevaluatedProperties: false` where in-place applicators declare keys too (so that a key a
/// branch or a referenced schema declares is still accepted); a key only a pattern admitted is
/// rejected too (closed over its declared names).
fn close(root: &Value, occ: &Occurrence<'_>, push: &dyn Fn(&mut BTreeMap<String, NodeEdits>, Edit), out: &mut BTreeMap<String, NodeEdits>) {
    if matches!(occ.keyword, "additionalProperties" | "unevaluatedProperties") {
        push(out, Edit::Set { keyword: occ.keyword.to_owned(), value: Value::Bool(false) });
        return;
    }
    let node = root.pointer(&occ.pointer);
    let keyword = if node.is_some_and(has_in_place) { "unevaluatedProperties" } else { "additionalProperties" };
    push(out, Edit::Set { keyword: keyword.to_owned(), value: Value::Bool(false) });
    push(out, Edit::Set { keyword: "patternProperties".to_owned(), value: json!({}) });
}

/// Whether a node applies subschemas in place that can declare keys (references included).
pub(super) fn has_in_place(node: &Value) -> bool {
    node.as_object().is_some_and(|m| m.keys().any(|k| vocabulary::evaluates_in_place(k)))
}

/// The widest value whose arrays nest at most `levels` levels (counting one at this position):
/// what a finite "any value" looks like. A reference to a definition the bound carries once
/// ([`super::polarity::SHARED`]), however many positions use it.
pub(super) fn nesting_bounded(levels: u32) -> Value {
    json!({ "$ref": format!("{}nesting-{levels}", super::polarity::SHARED) })
}

/// Every value whose objects are all empty: OpenAI strict's any-value definition. A reference to
/// a definition the bound carries once.
pub(super) fn objects_emptied() -> Value {
    json!({ "$ref": format!("{}objects-emptied", super::polarity::SHARED) })
}

/// The edits of an implicit `true` (an absent `additionalProperties` or `items`) on every node
/// of `root`, for a `true` row that narrows as `word`: `false` (or `closed`) closes each node
/// where it had none (`unevaluated*` where in-place applicators contribute keys or items, so a
/// key they declare is still accepted), `nesting-bounded` bounds the undeclared properties of
/// each object and the items of each array.
pub(super) fn implicit_true(root: &Value, word: Becomes, depth: Option<u32>, out: &mut BTreeMap<String, NodeEdits>) -> bool {
    let mut any = false;
    let mut stack = vec![(root, String::new(), 0usize)];
    while let Some((node, pointer, level)) = stack.pop() {
        if level > walk::MAX_DEPTH {
            continue;
        }
        for child in walk::children(node) {
            stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), level + 1));
        }
        let Some(map) = node.as_object() else { continue };
        let in_place = has_in_place(node);
        let mut edits = Vec::new();
        match word {
            Becomes::False | Becomes::Closed => {
                if !map.contains_key("additionalProperties") {
                    let keyword = if in_place { "unevaluatedProperties" } else { "additionalProperties" };
                    edits.push(Edit::SetIfAbsent { keyword: keyword.to_owned(), value: Value::Bool(false) });
                }
                if word == Becomes::False && !map.contains_key("items") {
                    let keyword = if in_place { "unevaluatedItems" } else { "items" };
                    edits.push(Edit::SetIfAbsent { keyword: keyword.to_owned(), value: Value::Bool(false) });
                }
            }
            Becomes::ObjectsEmptied => {
                if !map.contains_key("additionalProperties") {
                    let keyword = if in_place { "unevaluatedProperties" } else { "additionalProperties" };
                    edits.push(Edit::SetIfAbsent { keyword: keyword.to_owned(), value: Value::Bool(false) });
                }
                if !map.contains_key("items") && !in_place {
                    edits.push(Edit::SetIfAbsent { keyword: "items".to_owned(), value: objects_emptied() });
                }
            }
            Becomes::NestingBounded => {
                // An undeclared property's value is an any-value position of its own (its arrays
                // count from one); an absent `items` sits one level down, under this array.
                if !map.contains_key("additionalProperties") {
                    let keyword = if in_place { "unevaluatedProperties" } else { "additionalProperties" };
                    edits.push(Edit::SetIfAbsent { keyword: keyword.to_owned(), value: nesting_bounded(depth.unwrap_or(1)) });
                }
                if !map.contains_key("items") && !in_place {
                    edits.push(Edit::SetIfAbsent { keyword: "items".to_owned(), value: nesting_bounded(depth.unwrap_or(1).saturating_sub(1)) });
                }
            }
            _ => {}
        }
        if !edits.is_empty() {
            any = true;
            out.entry(pointer).or_default().tighten.extend(edits);
        }
    }
    any
}

/// The own properties of JavaScript's `Object.prototype`: the names a prototype-pollution guard
/// (`Object.prototype.hasOwnProperty.call(Object.prototype, name)`) refuses.
const OBJECT_PROTOTYPE_MEMBERS: [&str; 12] = [
    "__proto__",
    "constructor",
    "toString",
    "toLocaleString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// The edits of a table-level rule on every node of `root`.
pub(super) fn rule(root: &Value, kind: RuleKind, out: &mut BTreeMap<String, NodeEdits>) -> bool {
    let mut any = false;
    let mut stack = vec![(root, String::new(), 0usize)];
    while let Some((node, pointer, level)) = stack.pop() {
        if level > walk::MAX_DEPTH {
            continue;
        }
        for child in walk::children(node) {
            stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), level + 1));
        }
        // The root is the tool's parameters, which a translator defaulting to STRING still sends
        // as an object (langchain's `_dict_to_genai_schema`): the rule stands below it.
        if kind == RuleKind::UntypedAsString && pointer.is_empty() {
            continue;
        }
        if node == &Value::Bool(true) && kind == RuleKind::UntypedAsString {
            // A `true` subschema is the untyped node at its most explicit.
            any = true;
            out.entry(pointer).or_default().tighten.push(Edit::Replace(json!({"type": "string"})));
            continue;
        }
        let Some(map) = node.as_object() else { continue };
        let untyped = !["type", "anyOf", "oneOf", "allOf"].iter().any(|k| map.contains_key(*k));
        match kind {
            RuleKind::UntypedAsString => {
                if untyped {
                    any = true;
                    out.entry(pointer).or_default().tighten.push(Edit::Set { keyword: "type".to_owned(), value: Value::from("string") });
                }
            }
            RuleKind::ArrayItemsAsObject => {
                let array = match map.get("type") {
                    Some(Value::String(t)) => t == "array",
                    // A type list holding `array` (its array branch, once split, gets the same).
                    Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
                    _ => false,
                };
                if array && !map.contains_key("items") {
                    any = true;
                    out.entry(pointer).or_default().tighten.push(Edit::SetIfAbsent { keyword: "items".to_owned(), value: json!({"type": "object"}) });
                }
            }
            RuleKind::PrototypeNamesDropped => {
                let names: Vec<String> = map
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flat_map(|p| p.keys())
                    .filter(|name| OBJECT_PROTOTYPE_MEMBERS.contains(&name.as_str()))
                    .cloned()
                    .collect();
                if !names.is_empty() {
                    any = true;
                    out.entry(pointer).or_default().tighten.push(Edit::SetEntries { keyword: "properties".to_owned(), value: Value::Bool(false), names: Some(names) });
                }
            }
            RuleKind::UntypedAsObject => {
                if untyped || map.contains_key("properties") {
                    any = true;
                    out.entry(pointer).or_default().tighten.push(Edit::Set { keyword: "type".to_owned(), value: Value::from("object") });
                }
            }
            RuleKind::OptionalNullable => {
                let required: BTreeSet<&str> = map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
                for name in map.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys()) {
                    if !required.contains(name.as_str()) {
                        any = true;
                        out.entry(format!("{pointer}/properties/{}", walk::escape(name))).or_default().loosen.push(Edit::OrNull);
                    }
                }
            }
        }
    }
    any
}

/// Whether the reference at `node` lies on a reference cycle: its target reaches it again. A
/// reference that names nothing in the document (a remote one) lies on no cycle of it.
pub(super) fn on_cycle(root: &Value, node: &str, reference: &Value) -> bool {
    let resolver = Resolver::within_depth(root);
    let Some(start) = reference.as_str().and_then(|r| resolver.resolve_uri(r, node).ok()) else { return false };
    let Ok(occurrences) = walk::occurrences(root) else { return false };
    let refs: Vec<(&str, Option<String>)> = occurrences
        .iter()
        .filter(|o| matches!(o.keyword, "$ref" | "$dynamicRef"))
        .map(|o| (o.pointer.as_str(), o.value.as_str().and_then(|r| resolver.resolve_uri(r, &o.pointer).ok())))
        .collect();
    let mut seen = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(target) = stack.pop() {
        if !seen.insert(target.clone()) {
            continue;
        }
        for (at, to) in &refs {
            let inside = at.strip_prefix(target.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
            if !inside {
                continue;
            }
            if *at == node {
                return true;
            }
            if let Some(to) = to {
                stack.push(to.clone());
            }
        }
    }
    false
}

/// For every node whose loosening drops annotations (an annotating keyword loosened there), the
/// `unevaluated*` of each node that sees it (itself, or a node it is reached from in place,
/// references followed) are loosened too: otherwise they would reject what is no longer
/// evaluated, a tightening the widening never made.
pub(super) fn loosen_unevaluated(root: &Value, out: &mut BTreeMap<String, NodeEdits>) {
    let loosened: Vec<String> = out
        .iter()
        .filter(|(_, e)| e.loosen.iter().any(|edit| matches!(edit, Edit::Loosen { keyword, .. } if vocabulary::feeds_unevaluated(keyword))))
        .map(|(node, _)| node.clone())
        .collect();
    if loosened.is_empty() {
        return;
    }
    let Ok(occurrences) = walk::occurrences(root) else { return };
    let resolver = Resolver::within_depth(root);
    let holders: BTreeSet<&str> = occurrences.iter().filter(|o| matches!(o.keyword, "unevaluatedProperties" | "unevaluatedItems")).map(|o| o.pointer.as_str()).collect();
    for holder in holders {
        // Nodes reached in place from the holder.
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut stack = vec![holder.to_owned()];
        while let Some(at) = stack.pop() {
            if seen.len() > 4096 || !seen.insert(at.clone()) {
                continue;
            }
            let Some(node) = root.pointer(&at) else { continue };
            for child in walk::children(node) {
                if vocabulary::evaluates_in_place(child.keyword) {
                    stack.push(format!("{at}{}", child.pointer_suffix()));
                }
            }
            for reference in ["$ref", "$dynamicRef"] {
                if let Some(target) = node.get(reference).and_then(Value::as_str).and_then(|r| resolver.resolve_uri(r, &at).ok()) {
                    stack.push(target);
                }
            }
        }
        if loosened.iter().any(|n| seen.contains(n)) {
            let slot = out.entry(holder.to_owned()).or_default();
            for keyword in ["unevaluatedProperties", "unevaluatedItems"] {
                slot.loosen.push(Edit::Loosen { keyword: keyword.to_owned(), names: None });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reference_naming_nothing_here_lies_on_no_cycle() {
        let s = json!({"properties": {"a": {"$ref": "https://example.com/elsewhere.json"}, "b": {"$ref": "#/$defs/missing"}}});
        assert!(!on_cycle(&s, "/properties/a", &s["properties"]["a"]["$ref"]));
        assert!(!on_cycle(&s, "/properties/b", &s["properties"]["b"]["$ref"]));
        // A URI reference to a resource embedded here is followed.
        let s = json!({"$id": "https://example.com/root", "$defs": {"n": {"$id": "node", "properties": {"next": {"$ref": "node"}}}}, "properties": {"a": {"$ref": "node"}}});
        assert!(on_cycle(&s, "/$defs/n/properties/next", &s["$defs"]["n"]["properties"]["next"]["$ref"]));
        assert!(!on_cycle(&s, "/properties/a", &s["properties"]["a"]["$ref"]));
    }

    #[test]
    fn loosening_an_annotating_keyword_loosens_only_the_unevaluated_that_see_it() {
        // The nested `unevaluatedProperties` sees the loosened `allOf` through its own node; the
        // outer one does not (a property's subschema is not in place), and a property that is
        // merely named `unevaluatedProperties` is no keyword at all.
        let s = json!({
            "unevaluatedProperties": false,
            "properties": {
                "inner": {"allOf": [{"properties": {"x": true}}], "unevaluatedProperties": false},
                "unevaluatedProperties": {"type": "string"}
            }
        });
        let mut out: BTreeMap<String, NodeEdits> = BTreeMap::new();
        out.entry("/properties/inner".to_owned()).or_default().loosen.push(Edit::Loosen { keyword: "allOf".to_owned(), names: None });
        loosen_unevaluated(&s, &mut out);
        let touched: Vec<&String> = out.iter().filter(|(_, e)| e.loosen.iter().any(|x| matches!(x, Edit::Loosen { keyword, .. } if keyword == "unevaluatedProperties"))).map(|(n, _)| n).collect();
        assert_eq!(touched, ["/properties/inner"]);
    }

    #[test]
    fn every_narrowing_word_but_the_pinned_ones_is_exact() {
        let s = json!({"properties": {"a": {"type": ["string", "null"], "maxLength": 3}}});
        let occurrences = walk::occurrences(&s).unwrap();
        let occ = |k: &str| occurrences.iter().find(|o| o.keyword == k).unwrap().clone();
        let mut out = BTreeMap::new();
        assert_eq!(occurrence(&s, &occ("type"), Becomes::NullDropped, Direction::Narrowing, None, None, &mut out), Some(Precision::Exact));
        assert_eq!(occurrence(&s, &occ("type"), Becomes::FirstMember, Direction::Narrowing, None, None, &mut out), Some(Precision::Exact));
        assert_eq!(occurrence(&s, &occ("maxLength"), Becomes::BoundsTightened, Direction::Narrowing, None, None, &mut out), Some(Precision::Pinned));
        assert_eq!(occurrence(&s, &occ("maxLength"), Becomes::Rewritten, Direction::Narrowing, None, None, &mut out), Some(Precision::Pinned));
        // The pinned bound rejects only the type its keyword applies to.
        assert!(out["/properties/a"].tighten.contains(&Edit::RejectType(Some("string"))));
    }

    #[test]
    fn each_rule_edits_exactly_the_nodes_it_names() {
        let s = json!({
            "properties": {
                "any": true,
                "described": {"description": "d"},
                "typed": {"type": "integer"},
                "union": {"anyOf": [{"type": "string"}]},
                "bare": {"type": "array"},
                "either": {"type": ["object", "array"]},
                "listed": {"type": "array", "items": {"type": "integer"}},
                "guarded": {"properties": {"constructor": true, "name": true}}
            }
        });
        let edited = |kind| {
            let mut out = BTreeMap::new();
            assert!(rule(&s, kind, &mut out));
            out.into_iter().filter(|(_, e): &(String, NodeEdits)| !e.tighten.is_empty()).map(|(n, _)| n).collect::<Vec<_>>()
        };
        assert_eq!(edited(RuleKind::UntypedAsString), ["/properties/any", "/properties/described", "/properties/guarded", "/properties/guarded/properties/constructor", "/properties/guarded/properties/name"]);
        assert_eq!(edited(RuleKind::PrototypeNamesDropped), ["/properties/guarded"]);
        assert_eq!(edited(RuleKind::UntypedAsObject), ["", "/properties/described", "/properties/guarded"]);
        assert_eq!(edited(RuleKind::ArrayItemsAsObject), ["/properties/bare", "/properties/either"]);
    }
}
