//! What rejects every instance, and what a node's in-place subtree evaluates: the questions a
//! translator must answer before it drops or spills a subschema, so that it never turns a `false`
//! into "anything" (CONTRACT §4 rule 2, an inversion).
//!
//! - [`is_never`]: a subschema that rejects everything (`false`, or `not` of a schema asserting
//!   nothing), the positions the oracle judges inversions at.
//! - [`never_within`]: the first such position a subschema holds where it can decide a rejection
//!   (not below an odd number of `not`s), following local references: what spilling or dropping
//!   that subschema would invert; [`Searches`] remembers it per position (for a keyword's value,
//!   and for an `if` as far as its `then`/`else` let a `false` in it decide).
//! - [`evaluated`]: the properties or items the in-place applicators of a node evaluate, when that
//!   does not depend on which branch matches, so `unevaluatedProperties: false` and
//!   `unevaluatedItems: false` can be written with the keywords a subset has
//!   (`additionalProperties: false`, `maxItems`).
//!
//! Shared by `gemini`, `gemini-proto` and `cca-claude`, whose targets lack some of the keywords
//! that hold a `false`.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value};

use crate::refs::Resolver;
use crate::vocabulary::{self, Applies, ValueKind};
use crate::walk;

/// Whether a schema asserts nothing: `true`, `{}`, or only identifiers, comments, definitions and
/// annotations ([`vocabulary::asserts`]: unknown keys are annotations in draft 2020-12; the
/// draft-07 `dependencies` asserts, as the oracle's validator still applies it).
pub(super) fn asserts_nothing(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(map) => map.keys().all(|k| !vocabulary::asserts(k)),
        _ => false,
    }
}

/// Whether a subschema rejects every instance: `false`, or a node holding `not` of a schema that
/// asserts nothing (`not: {}`, `not: true`).
pub(super) fn is_never(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => !*b,
        Value::Object(map) => map.get("not").is_some_and(asserts_nothing),
        _ => false,
    }
}

/// The pointer of the first subschema within `schema` (which stands at `pointer` in `doc`) that
/// rejects everything ([`is_never`]) where it can decide a rejection of `schema`: anywhere but
/// below an odd number of `not`s, and inside an `if` as its `then`/`else` let it decide (below).
/// Local references are followed; definitions are reached only through them.
pub(super) fn never_within(doc: &Resolver<'_>, schema: &Value, pointer: &str) -> Option<String> {
    search(doc, schema, pointer, Polarity::Positive)
}

/// [`never_within`] for the value of `keyword` (at `pointer`): a schema, or each entry of a schema
/// map (`patternProperties`, `dependentSchemas`, ...) or list.
fn never_within_keyword(doc: &Resolver<'_>, keyword: &str, value: &Value, pointer: &str) -> Option<String> {
    match (walk::value_kind(keyword), value) {
        (Some(ValueKind::SchemaMap), Value::Object(entries)) => {
            entries.iter().find_map(|(name, entry)| never_within(doc, entry, &format!("{pointer}/{}", walk::escape(name))))
        }
        (Some(ValueKind::SchemaArray), Value::Array(items)) => items.iter().enumerate().find_map(|(i, item)| never_within(doc, item, &format!("{pointer}/{i}"))),
        (Some(ValueKind::Schema), _) => never_within(doc, value, pointer),
        _ => None,
    }
}

/// [`never_within`] for the `if` of the node `map` (at `pointer`): a `false` in it can decide a
/// rejection only through an `else` that asserts something (it makes the `if` fail) or, below a
/// `not`, through such a `then`.
fn never_within_if(doc: &Resolver<'_>, map: &Map<String, Value>, pointer: &str) -> Option<String> {
    let condition = map.get("if")?;
    search(doc, condition, &format!("{pointer}/if"), if_polarity(map, Polarity::Positive)?)
}

/// The polarity of the `if` of `map`, a node of `polarity`, or `None` when nothing in it can
/// decide a rejection (neither `then` nor `else` asserts anything).
fn if_polarity(map: &Map<String, Value>, polarity: Polarity) -> Option<Polarity> {
    let decides = |k: &str| map.get(k).is_some_and(|s| !asserts_nothing(s));
    match (decides("then"), decides("else")) {
        (true, true) => Some(Polarity::Either),
        (false, true) => Some(polarity),
        (true, false) => Some(polarity.flipped()),
        (false, false) => None,
    }
}

fn search(doc: &Resolver<'_>, schema: &Value, pointer: &str, polarity: Polarity) -> Option<String> {
    // (node, pointer, polarity, depth); a reference target is entered once per polarity.
    let mut stack = vec![(schema, pointer.to_owned(), polarity, 0usize)];
    let mut entered: HashSet<(String, Polarity)> = HashSet::new();
    while let Some((node, at, polarity, depth)) = stack.pop() {
        if depth > walk::MAX_DEPTH {
            continue;
        }
        if polarity != Polarity::Negative && is_never(node) {
            return Some(at);
        }
        let Some(map) = node.as_object() else { continue };
        for keyword in ["$ref", "$dynamicRef"] {
            let Some(reference) = map.get(keyword).and_then(Value::as_str) else { continue };
            if let Some((target, value)) = doc.follow(reference, &at)
                && entered.insert((target.clone(), polarity))
            {
                stack.push((value, target, polarity, depth + 1));
            }
        }
        let bounded_contains = map.contains_key("maxContains");
        for child in walk::children(node).into_iter().rev() {
            // Definitions count only where referenced, and `contentSchema` is never applied.
            if vocabulary::facts(child.keyword).is_some_and(|f| f.applies == Some(Applies::Nowhere)) {
                continue;
            }
            let child_polarity = match vocabulary::polarity(child.keyword) {
                Some(vocabulary::Polarity::Condition) => match if_polarity(map, polarity) {
                    Some(p) => p,
                    None => continue,
                },
                // One under `not`, or in a `contains` bounded by `maxContains`, flips.
                Some(vocabulary::Polarity::Negated) => polarity.flipped(),
                _ if child.keyword == "contains" && bounded_contains => polarity.flipped(),
                _ => polarity,
            };
            stack.push((child.schema, format!("{at}{}", child.pointer_suffix()), child_polarity, depth + 1));
        }
    }
    None
}

/// The searches of [`never_within`], remembered by the position searched: a definition a
/// translator inlines at many places is searched once.
#[derive(Debug, Default)]
pub(super) struct Searches(HashMap<(String, Searched), Option<String>>);

/// What was searched at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Searched {
    Schema,
    Keyword,
    Condition,
}

impl Searches {
    /// [`never_within`], remembered.
    pub(super) fn schema(&mut self, doc: &Resolver<'_>, schema: &Value, pointer: &str) -> Option<String> {
        self.0.entry((pointer.to_owned(), Searched::Schema)).or_insert_with(|| never_within(doc, schema, pointer)).clone()
    }

    /// [`never_within_keyword`], remembered.
    pub(super) fn keyword(&mut self, doc: &Resolver<'_>, keyword: &str, value: &Value, pointer: &str) -> Option<String> {
        self.0.entry((pointer.to_owned(), Searched::Keyword)).or_insert_with(|| never_within_keyword(doc, keyword, value, pointer)).clone()
    }

    /// [`never_within_if`], remembered.
    fn condition(&mut self, doc: &Resolver<'_>, map: &Map<String, Value>, pointer: &str) -> Option<String> {
        self.0.entry((pointer.to_owned(), Searched::Condition)).or_insert_with(|| never_within_if(doc, map, pointer)).clone()
    }

    /// The first `false` in the conditional of the node `map` (at `pointer`) that can decide a
    /// rejection: the keyword holding it (`if`, `then`, `else`) and where it is.
    pub(super) fn conditional(&mut self, doc: &Resolver<'_>, map: &Map<String, Value>, pointer: &str) -> Option<(&'static str, String)> {
        if let Some(inside) = self.condition(doc, map, pointer) {
            return Some(("if", inside));
        }
        ["then", "else"].into_iter().find_map(|branch| {
            let value = map.get(branch)?;
            self.keyword(doc, branch, value, &format!("{pointer}/{branch}")).map(|inside| (branch, inside))
        })
    }
}

/// The branch an `if` decides by itself: `then` when it asserts nothing, `else` when it rejects
/// everything (the conditional is then exactly that branch).
pub(super) fn decided_branch(condition: &Value) -> Option<&'static str> {
    if asserts_nothing(condition) {
        Some("then")
    } else if is_never(condition) {
        Some("else")
    } else {
        None
    }
}

/// Whether a rejection at a position rejects the whole schema (`Positive`), accepts it (`Negative`:
/// below an odd number of `not`s) or may do either (`Either`: inside an `if` with both a `then`
/// and an `else`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Polarity {
    Positive,
    Negative,
    Either,
}

impl Polarity {
    fn flipped(self) -> Self {
        match self {
            Self::Positive => Self::Negative,
            Self::Negative => Self::Positive,
            Self::Either => Self::Either,
        }
    }
}

/// What the in-place applicators of a node evaluate (draft 2020-12 annotations), as far as the
/// `unevaluated*` keyword of that node can see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Evaluated {
    /// Every property (or item) of a valid instance.
    Every,
    /// Exactly these property names, whichever branch matches.
    Names(BTreeSet<String>),
    /// The first n items, whichever branch matches.
    Prefix(usize),
}

/// Which `unevaluated*` keyword is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Properties,
    Items,
}

impl Evaluated {
    fn nothing(side: Side) -> Self {
        match side {
            Side::Properties => Self::Names(BTreeSet::new()),
            Side::Items => Self::Prefix(0),
        }
    }

    fn is_nothing(&self) -> bool {
        matches!(self, Self::Names(n) if n.is_empty()) || *self == Self::Prefix(0)
    }

    /// Both evaluate (conjuncts that both apply).
    fn and(self, other: Self) -> Self {
        match (self, other) {
            (Self::Every, _) | (_, Self::Every) => Self::Every,
            (Self::Names(mut a), Self::Names(b)) => {
                a.extend(b);
                Self::Names(a)
            }
            (Self::Prefix(a), Self::Prefix(b)) => Self::Prefix(a.max(b)),
            // A side never mixes names and prefixes.
            (a, _) => a,
        }
    }
}

/// What the node `map` (at `pointer` in `doc`) evaluates for its own `unevaluatedProperties` or
/// `unevaluatedItems`, not counting that keyword itself; `None` when it depends on which branch of
/// an `anyOf`/`oneOf`/`if`/`dependentSchemas` matches, on which keys `patternProperties` match or
/// which items `contains` matches, on a dynamic reference or a reference cycle, or when answering
/// would visit more than [`EVALUATION_BUDGET`] nodes (references shared by many conjuncts could
/// otherwise be walked exponentially often).
pub(super) fn evaluated(doc: &Resolver<'_>, map: &Map<String, Value>, pointer: &str, side: Side) -> Option<Evaluated> {
    let mut walk = Evaluation { doc, side, path: vec![pointer.to_owned()], budget: EVALUATION_BUDGET };
    walk.node(map, pointer, false, 0)
}

/// The most schema nodes one [`evaluated`] visits before it gives up (and the caller refuses).
const EVALUATION_BUDGET: usize = 10_000;

/// One [`evaluated`] question: the document, which keyword asks, the nodes entered on the way
/// (a reference back to one is a cycle) and the visits left.
struct Evaluation<'d, 'a> {
    doc: &'d Resolver<'a>,
    side: Side,
    path: Vec<String>,
    budget: usize,
}

impl Evaluation<'_, '_> {
    fn node(&mut self, map: &Map<String, Value>, pointer: &str, own: bool, depth: usize) -> Option<Evaluated> {
        if depth > walk::MAX_DEPTH || self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let at = |keyword: &str| format!("{pointer}/{}", walk::escape(keyword));
        let mut out = Evaluated::nothing(self.side);
        match self.side {
            Side::Properties => {
                if map.contains_key("additionalProperties") || (own && map.contains_key("unevaluatedProperties")) {
                    return Some(Evaluated::Every);
                }
                if map.get("patternProperties").and_then(Value::as_object).is_some_and(|p| !p.is_empty()) {
                    return None;
                }
                if let Some(properties) = map.get("properties").and_then(Value::as_object) {
                    out = out.and(Evaluated::Names(properties.keys().cloned().collect()));
                }
            }
            Side::Items => {
                if map.contains_key("items") || (own && map.contains_key("unevaluatedItems")) {
                    return Some(Evaluated::Every);
                }
                match map.get("contains") {
                    None => {}
                    Some(Value::Bool(true)) => return Some(Evaluated::Every),
                    Some(c) if is_never(c) => {}
                    Some(_) => return None,
                }
                if let Some(prefix) = map.get("prefixItems").and_then(Value::as_array) {
                    out = out.and(Evaluated::Prefix(prefix.len()));
                }
            }
        }
        if map.contains_key("$dynamicRef") {
            return None;
        }
        // Conjuncts: every one applies to a valid instance, so what each evaluates counts.
        let mut conjuncts: Vec<(&Value, String)> = Vec::new();
        for (i, branch) in map.get("allOf").and_then(Value::as_array).into_iter().flatten().enumerate() {
            conjuncts.push((branch, format!("{}/{i}", at("allOf"))));
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let (target, value) = self.doc.follow(reference, pointer)?;
            if self.path.contains(&target) {
                return None;
            }
            conjuncts.push((value, target));
        }
        // Alternatives: which applies depends on the instance, so they may evaluate nothing.
        let mut alternatives: Vec<(&Value, String)> = Vec::new();
        for keyword in ["anyOf", "oneOf"] {
            for (i, branch) in map.get(keyword).and_then(Value::as_array).into_iter().flatten().enumerate() {
                alternatives.push((branch, format!("{}/{i}", at(keyword))));
            }
        }
        for keyword in ["if", "then", "else"] {
            if let Some(branch) = map.get(keyword) {
                alternatives.push((branch, at(keyword)));
            }
        }
        // (Draft-07 `dependencies` is asserted by the oracle's validator but annotates nothing.)
        for (name, branch) in map.get("dependentSchemas").and_then(Value::as_object).into_iter().flatten() {
            alternatives.push((branch, format!("{}/{}", at("dependentSchemas"), walk::escape(name))));
        }
        for (branch, branch_at) in conjuncts {
            out = out.and(self.child(branch, &branch_at, depth)?);
        }
        for (branch, branch_at) in alternatives {
            if !self.child(branch, &branch_at, depth)?.is_nothing() {
                return None;
            }
        }
        Some(out)
    }

    fn child(&mut self, schema: &Value, pointer: &str, depth: usize) -> Option<Evaluated> {
        match schema {
            Value::Object(map) => {
                self.path.push(pointer.to_owned());
                let found = self.node(map, pointer, true, depth + 1);
                self.path.pop();
                found
            }
            // `true` evaluates nothing; `false` makes the node reject everything anyway.
            _ => Some(Evaluated::nothing(self.side)),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn within(schema: &Value) -> Option<String> {
        let doc = Resolver::new(schema).unwrap();
        never_within(&doc, schema, "")
    }

    fn evaluates(schema: &Value, side: Side) -> Option<Evaluated> {
        let doc = Resolver::new(schema).unwrap();
        evaluated(&doc, schema.as_object().unwrap(), "", side)
    }

    fn names(list: &[&str]) -> Evaluated {
        Evaluated::Names(list.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn nothing_asserted_is_annotations_only() {
        assert!(asserts_nothing(&json!({})));
        assert!(asserts_nothing(&json!(true)));
        assert!(asserts_nothing(&json!({"description": "d", "x-note": 1, "$comment": "c"})));
        assert!(!asserts_nothing(&json!({"type": "string"})));
        assert!(!asserts_nothing(&json!({"dependencies": {"a": ["b"]}})), "the oracle's validator applies it");
        assert!(!asserts_nothing(&json!(false)));
        assert!(is_never(&json!(false)) && is_never(&json!({"not": {}})) && is_never(&json!({"not": true, "type": "string"})));
        assert!(!is_never(&json!({"not": {"type": "string"}})));
    }

    #[test]
    fn a_never_is_found_through_references_but_not_below_a_single_not() {
        let referenced = json!({"$defs": {"closed": {"additionalProperties": false}}, "properties": {"c": {"$ref": "#/$defs/closed"}}});
        assert_eq!(within(&referenced).as_deref(), Some("/$defs/closed/additionalProperties"));
        assert_eq!(within(&json!({"properties": {"a": {"not": {}}}})).as_deref(), Some("/properties/a"));
        assert_eq!(within(&json!({"not": {"properties": {"a": false}}})), None, "below one `not` a `false` only accepts more");
        assert_eq!(within(&json!({"not": {"not": {"properties": {"a": false}}}})).as_deref(), Some("/not/not/properties/a"));
        let decided_by_then = json!({"if": {"not": {"properties": {"a": false}}}, "then": {"required": ["b"]}});
        assert_eq!(within(&decided_by_then).as_deref(), Some("/if/not/properties/a"));
        assert_eq!(within(&json!({"if": {"properties": {"a": false}}, "then": {"required": ["b"]}})), None, "a failing `if` only skips `then`");
        assert_eq!(within(&json!({"if": false, "else": true})), None);
        assert_eq!(within(&json!({"if": false, "else": {"required": ["b"]}})).as_deref(), Some("/if"));
        assert_eq!(within(&json!({"$defs": {"unused": false}, "type": "object"})), None, "definitions count only where referenced");
        let cycle = json!({"properties": {"next": {"$ref": "#"}}});
        assert_eq!(within(&cycle), None);
        let doc_root = json!({});
        let doc = Resolver::new(&doc_root).unwrap();
        let map = json!({"^a": {}, "^x": {"properties": {"y": false}}});
        assert_eq!(never_within_keyword(&doc, "patternProperties", &map, "/patternProperties").as_deref(), Some("/patternProperties/^x/properties/y"));
        assert_eq!(never_within_keyword(&doc, "then", &json!(false), "/then").as_deref(), Some("/then"));
        assert_eq!(never_within_keyword(&doc, "dependencies", &json!({"a": ["b"]}), "/dependencies"), None, "a list entry is no schema");
    }

    #[test]
    fn conjuncts_add_what_they_evaluate_and_alternatives_must_evaluate_nothing() {
        let all_of = json!({"properties": {"a": {}}, "allOf": [{"properties": {"b": {}}}, {"$ref": "#/$defs/c"}], "$defs": {"c": {"properties": {"c": {}}}}});
        assert_eq!(evaluates(&all_of, Side::Properties), Some(names(&["a", "b", "c"])));
        let any_of = json!({"anyOf": [{"properties": {"b": {}}}, {"required": ["a"]}]});
        assert_eq!(evaluates(&any_of, Side::Properties), None);
        let checked_only = json!({"properties": {"a": {}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "not": {"properties": {"z": {}}}});
        assert_eq!(evaluates(&checked_only, Side::Properties), Some(names(&["a"])));
        assert_eq!(evaluates(&json!({"patternProperties": {"^x": {}}}), Side::Properties), None);
        assert_eq!(evaluates(&json!({"allOf": [{"additionalProperties": {"type": "string"}}]}), Side::Properties), Some(Evaluated::Every));
        assert_eq!(evaluates(&json!({"allOf": [{"unevaluatedProperties": false}]}), Side::Properties), Some(Evaluated::Every));
        assert_eq!(evaluates(&json!({"unevaluatedProperties": false}), Side::Properties), Some(names(&[])), "the node's own keyword is not counted");
        assert_eq!(evaluates(&json!({"dependentSchemas": {"a": {"properties": {"b": {}}}}}), Side::Properties), None);
        let draft_07 = json!({"properties": {"a": {}}, "dependencies": {"a": {"properties": {"b": {}}}}});
        assert_eq!(evaluates(&draft_07, Side::Properties), Some(names(&["a"])), "draft-07 `dependencies` annotates nothing");
    }

    #[test]
    fn items_evaluate_as_the_longest_prefix_or_every_item() {
        let tuple = json!({"prefixItems": [{}], "allOf": [{"prefixItems": [{}, {}, {}]}]});
        assert_eq!(evaluates(&tuple, Side::Items), Some(Evaluated::Prefix(3)));
        assert_eq!(evaluates(&json!({"prefixItems": [{}], "items": {}}), Side::Items), Some(Evaluated::Every));
        assert_eq!(evaluates(&json!({"contains": {"type": "string"}}), Side::Items), None);
        assert_eq!(evaluates(&json!({"contains": false, "minContains": 0}), Side::Items), Some(Evaluated::Prefix(0)));
        assert_eq!(evaluates(&json!({"anyOf": [{"prefixItems": [{}]}, true]}), Side::Items), None);
        let cyclic = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        assert_eq!(evaluates(&cyclic, Side::Items), None, "a reference cycle in place is not followed forever");
    }

    #[test]
    fn references_shared_by_many_conjuncts_are_not_walked_exponentially() {
        // d0 -> d1 twice -> d2 twice ...: 2^60 paths. The budget answers `None` at once.
        let mut defs = serde_json::Map::new();
        for i in 0..60 {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(format!("d{i}"), json!({"allOf": [{"$ref": next}, {"$ref": next}]}));
        }
        defs.insert("d60".to_owned(), json!({"properties": {"a": {}}}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let started = std::time::Instant::now();
        assert_eq!(evaluates(&schema, Side::Properties), None);
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }
}
