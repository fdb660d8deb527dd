//! `openai-responses`: function tools on the OpenAI Responses API, sent non-strict.
//!
//! The Responses API takes a function's `parameters` as JSON Schema and, non-strict, passes it
//! through, except that it rejects `oneOf`. Everything but `oneOf` is therefore sent unchanged:
//!
//! - `oneOf: [A, B]` becomes `anyOf: [A, B]`. That is exact when no instance can match two
//!   branches, which [`provably_disjoint`] checks (disjoint types or values, or a required key with
//!   disjoint `const`/`enum` tags); otherwise it is a widening (an instance matching two branches
//!   is rejected by the source and accepted by the projection), and the table says so.
//! - A node that already has an `anyOf` keeps it: the converted branches go into `allOf` as
//!   `{anyOf: [...]}`, so `anyOf ∧ oneOf` stays a conjunction. Appending the `oneOf` branches to
//!   the existing `anyOf` (defect D15 in the research) turns it into a disjunction.
//! - Moving branches moves their pointers, so every `#/...` reference that went through a
//!   converted `oneOf` is rewritten to where the branch now stands.
//!
//! Like the other tool endpoints the root must be `type: "object"`, and a reference to a URI is
//! refused: the API fetches no documents.

use serde_json::{Map, Value};

use super::openai_common::provably_disjoint;
use crate::refs::Resolver;
use crate::walk::percent_decode;
use crate::form::Form;
use crate::model::{Outcome, Refusal, Translator};
use crate::walk::tokens as pointer_tokens;
use crate::walk;

/// The Responses API function-tool passthrough with `oneOf` rewritten.
#[derive(Debug, Default, Clone, Copy)]
pub struct OpenAiResponses;

impl Translator for OpenAiResponses {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "openai-responses"
    }

    fn translate(&self, source: &Value) -> Outcome {
        match project(source) {
            Ok(schema) => Outcome::json_schema(schema),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// Where a converted `oneOf` went: the pointer of the `oneOf` keyword in the source and the tokens
/// replacing `oneOf` in the projection (`anyOf`, or `allOf/<k>/anyOf`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Move {
    old: String,
    replacement: Vec<String>,
}

fn project(source: &Value) -> Result<Value, Refusal> {
    let occurrences = walk::occurrences(source).map_err(|e| Refusal::limit("max-depth", (walk::MAX_DEPTH + 1) as u64, walk::MAX_DEPTH as u64, e.to_string()))?;
    if source.get("type") != Some(&Value::from("object")) {
        return Err(Refusal::new("type", "", "function parameters must be a JSON Schema object (`type: \"object\"` at the root)"));
    }
    for occurrence in &occurrences {
        if matches!(occurrence.keyword, "$ref" | "$dynamicRef") && Form::of(occurrence.keyword, occurrence.value) == Form::Uri {
            return Err(Refusal::new(
                occurrence.keyword,
                occurrence.pointer.clone(),
                format!("`{}` names a URI; the API does not fetch referenced documents", occurrence.value),
            ));
        }
    }
    let resolver = Resolver::new(source).map_err(|e| Refusal::limit("max-depth", (walk::MAX_DEPTH + 1) as u64, walk::MAX_DEPTH as u64, e.to_string()))?;
    let moves = plan_moves(source);
    let rewriter = Rewriter { source, resolver: &resolver, moves: &moves };
    Ok(rewriter.convert(source, "", 0))
}

/// Every `oneOf` in the source and where its branches will stand.
fn plan_moves(source: &Value) -> Vec<Move> {
    let mut moves = Vec::new();
    let mut stack = vec![(source, String::new())];
    while let Some((node, pointer)) = stack.pop() {
        if let Some(map) = node.as_object()
            && map.get("oneOf").is_some_and(Value::is_array)
        {
            let replacement = if map.contains_key("anyOf") {
                let k = map.get("allOf").and_then(Value::as_array).map_or(0, Vec::len);
                vec!["allOf".to_owned(), k.to_string(), "anyOf".to_owned()]
            } else {
                vec!["anyOf".to_owned()]
            };
            moves.push(Move { old: format!("{pointer}/oneOf"), replacement });
        }
        // `occurrences` already bounded the depth.
        for child in walk::children(node) {
            stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix())));
        }
    }
    moves
}

struct Rewriter<'a> {
    source: &'a Value,
    resolver: &'a Resolver<'a>,
    moves: &'a [Move],
}

impl Rewriter<'_> {
    /// Convert the node at `pointer` (a source pointer) and everything below it.
    fn convert(&self, node: &Value, pointer: &str, depth: usize) -> Value {
        if depth > walk::MAX_DEPTH {
            return node.clone();
        }
        let mapped = walk::map_children(node, |child| Ok::<_, ()>(self.convert(child.schema, &format!("{pointer}{}", child.pointer_suffix()), depth + 1)))
            .unwrap_or_else(|()| node.clone());
        let Value::Object(mut map) = mapped else { return mapped };
        for key in ["$ref", "$dynamicRef"] {
            if let Some(Value::String(reference)) = map.get(key)
                && let Some(rewritten) = self.rewrite_reference(reference, pointer)
            {
                map.insert(key.to_owned(), Value::String(rewritten));
            }
        }
        if map.get("oneOf").is_some_and(Value::is_array) {
            let exact = self.disjoint_at(pointer);
            map = convert_one_of(map, exact);
        }
        Value::Object(map)
    }

    /// The reference held at `pointer`, re-aimed when its target moved; `None` when it did not.
    fn rewrite_reference(&self, reference: &str, pointer: &str) -> Option<String> {
        let fragment = percent_decode(reference.strip_prefix('#')?)?;
        if !fragment.starts_with('/') {
            return None; // an anchor name: anchors move with their nodes
        }
        let base = self.resolver.resource_of(pointer);
        let target = format!("{base}{fragment}");
        let (new_base, new_target) = (self.remap(&base), self.remap(&target));
        if new_target == target && new_base == base {
            return None;
        }
        let relative = new_target.strip_prefix(&new_base)?;
        Some(format!("#{}", encode_fragment(relative)))
    }

    /// A source pointer's place in the projection.
    fn remap(&self, pointer: &str) -> String {
        let mut old = String::new();
        let mut new = String::new();
        for token in pointer_tokens(pointer) {
            old.push('/');
            old.push_str(&walk::escape(&token));
            match self.moves.iter().find(|m| m.old == old) {
                Some(m) => {
                    for t in &m.replacement {
                        new.push('/');
                        new.push_str(t);
                    }
                }
                None => {
                    new.push('/');
                    new.push_str(&walk::escape(&token));
                }
            }
        }
        new
    }

    /// Whether the `oneOf` at `pointer` (a source pointer) is exact as an `anyOf`.
    fn disjoint_at(&self, pointer: &str) -> bool {
        let Some(branches) = self.source.pointer(pointer).and_then(|n| n.get("oneOf")).and_then(Value::as_array) else { return false };
        let list: Vec<(String, &Value)> = branches.iter().enumerate().map(|(i, b)| (format!("{pointer}/oneOf/{i}"), b)).collect();
        provably_disjoint(self.source, &list, &|at, r| self.resolver.resolve(r, at).ok())
    }
}

/// `oneOf` -> `anyOf` in place, or into `allOf` beside an existing `anyOf`; key order kept. When
/// the branches are not provably disjoint (`exact` is false) the description says that exactly
/// one must match, since the schema no longer does.
fn convert_one_of(map: Map<String, Value>, exact: bool) -> Map<String, Value> {
    let has_any_of = map.contains_key("anyOf");
    let mut out = Map::with_capacity(map.len() + 1);
    let mut branches = None;
    for (key, value) in map {
        if key == "oneOf" {
            if has_any_of {
                branches = Some(value);
            } else {
                out.insert("anyOf".to_owned(), value);
            }
        } else {
            out.insert(key, value);
        }
    }
    if !exact {
        // The projection no longer enforces "exactly one"; the model is still told.
        let note = if has_any_of {
            "Exactly one alternative of the last `allOf` entry must match (the schema said `oneOf`)."
        } else {
            "Exactly one of the `anyOf` alternatives must match (the schema said `oneOf`)."
        };
        match out.get_mut("description") {
            Some(Value::String(text)) => {
                text.push_str("\n\n");
                text.push_str(note);
            }
            Some(_) => {}
            None => {
                out.insert("description".to_owned(), Value::from(note));
            }
        }
    }
    if let Some(branches) = branches {
        let mut wrapper = Map::new();
        wrapper.insert("anyOf".to_owned(), branches);
        match out.get_mut("allOf") {
            Some(Value::Array(all_of)) => all_of.push(Value::Object(wrapper)),
            _ => {
                out.insert("allOf".to_owned(), Value::Array(vec![Value::Object(wrapper)]));
            }
        }
    }
    out
}

/// Percent-encode a JSON pointer for use as a URI fragment (RFC 6901 section 6).
fn encode_fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for byte in pointer.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&byte);
        if keep {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: &Value) -> Value {
        match OpenAiResponses.translate(schema) {
            Outcome::Projected(p) => p.schema,
            Outcome::Refused(r) => panic!("refused: {r}"),
            Outcome::Crashed(c) => panic!("crashed: {c:?}"),
            Outcome::Faulted(f) => panic!("faulted: {f:?}"),
        }
    }

    #[test]
    fn one_of_becomes_any_of_in_place() {
        let schema = json!({"type": "object", "properties": {"p": {"description": "d", "oneOf": [{"type": "string"}, {"type": "integer"}], "title": "t"}}});
        // Disjoint by type: exact, so the description is left alone.
        let out = run(&schema);
        assert_eq!(out["properties"]["p"], json!({"description": "d", "anyOf": [{"type": "string"}, {"type": "integer"}], "title": "t"}));
        let keys: Vec<_> = out["properties"]["p"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["description", "anyOf", "title"], "key order is kept");
    }

    #[test]
    fn one_of_beside_any_of_stays_a_conjunction() {
        // D15: appending the oneOf branches to the anyOf would accept {"p": "ab"}.
        let schema = json!({"type": "object", "properties": {"p": {
            "anyOf": [{"type": "string"}, {"type": "integer"}],
            "oneOf": [{"type": "string", "minLength": 3}, {"type": "integer"}]
        }}});
        let out = run(&schema);
        assert_eq!(
            out["properties"]["p"],
            json!({
                "anyOf": [{"type": "string"}, {"type": "integer"}],
                "allOf": [{"anyOf": [{"type": "string", "minLength": 3}, {"type": "integer"}]}]
            })
        );
        let overlapping = json!({"type": "object", "properties": {"p": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 2}]}}});
        assert_eq!(
            run(&overlapping)["properties"]["p"]["description"],
            json!("Exactly one of the `anyOf` alternatives must match (the schema said `oneOf`).")
        );
    }

    #[test]
    fn references_into_moved_branches_follow_them() {
        let schema = json!({
            "type": "object",
            "properties": {
                "p": {"anyOf": [true], "allOf": [true], "oneOf": [{"type": "string"}, {"type": "integer"}]},
                "q": {"$ref": "#/properties/p/oneOf/1"},
                "r": {"$id": "urn:r", "oneOf": [{"$ref": "#/oneOf/1"}, {"type": "null"}]},
                "s": {"$ref": "#/properties/p/anyOf/0"}
            }
        });
        let out = run(&schema);
        assert_eq!(out["properties"]["q"]["$ref"], json!("#/properties/p/allOf/1/anyOf/1"));
        assert_eq!(out["properties"]["r"]["anyOf"][0]["$ref"], json!("#/anyOf/1"));
        assert_eq!(out["properties"]["s"]["$ref"], json!("#/properties/p/anyOf/0"), "untouched references keep their spelling");
    }

    #[test]
    fn nested_one_of_moves_compose() {
        let schema = json!({"type": "object", "properties": {
            "p": {"oneOf": [{"oneOf": [{"type": "string"}, {"type": "null"}]}, {"type": "integer"}]},
            "q": {"$ref": "#/properties/p/oneOf/0/oneOf/1"}
        }});
        let out = run(&schema);
        assert_eq!(out["properties"]["q"]["$ref"], json!("#/properties/p/anyOf/0/anyOf/1"));
        assert!(walk::occurrences(&out).unwrap().iter().all(|o| o.keyword != "oneOf"));
    }

    #[test]
    fn refuses_uri_references_and_non_object_roots() {
        let Outcome::Refused(r) = OpenAiResponses.translate(&json!({"type": "object", "properties": {"a": {"$ref": "other.json"}}})) else {
            panic!("projected")
        };
        assert_eq!((r.keyword(), r.pointer()), ("$ref", "/properties/a"));
        let Outcome::Refused(r) = OpenAiResponses.translate(&json!({"type": "string"})) else { panic!("projected") };
        assert_eq!((r.keyword(), r.pointer()), ("type", ""));
        assert!(matches!(OpenAiResponses.translate(&json!(false)), Outcome::Refused(_)));
        assert!(matches!(OpenAiResponses.translate(&json!([1])), Outcome::Refused(_)));
    }

    #[test]
    fn disjointness_is_reported_per_node() {
        let schema = json!({"type": "object", "properties": {
            "tagged": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
            ]},
            "overlapping": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 2}]}
        }});
        let resolver = Resolver::new(&schema).unwrap();
        let rewriter = Rewriter { source: &schema, resolver: &resolver, moves: &[] };
        assert!(rewriter.disjoint_at("/properties/tagged"));
        assert!(!rewriter.disjoint_at("/properties/overlapping"));
    }
}
