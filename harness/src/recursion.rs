//! Which recursion a provider accepts, checked on the projection.
//!
//! A grammar written as a meta-schema sees one node at a time; it cannot see that `$defs/A`
//! requires a `B` that requires an `A`. Providers differ exactly there: OpenAI strict accepts
//! recursion, Gemini's `parametersJsonSchema` unrolls cycles "only within non-required properties",
//! and the proto `parameters` form has no references at all. A table states which with
//! `recursion:`, and this module finds a cycle the provider would not accept, so a translator that
//! leaves mutually recursive `$defs` uncut (TRACKING.md#sf-1315) is caught whatever its grammar says.

use std::collections::BTreeMap;

use schema_fidelity_translators::vocabulary;
use schema_fidelity_translators::walk::{self, ChildKey};
use serde::Deserialize;
use serde_json::Value;

/// The recursion a provider accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recursion {
    /// Any cycle through local references.
    #[default]
    Allowed,
    /// A cycle must pass through a property its object does not require (a declared property left
    /// out of `required`, or one matched by `additionalProperties`/`patternProperties`). Array items
    /// and union branches do not count: Gemini's wording is "only within non-required properties".
    OptionalOnly,
    /// No cycle at all.
    None,
}

impl std::fmt::Display for Recursion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Allowed => "allowed",
            Self::OptionalOnly => "optional-only",
            Self::None => "none",
        })
    }
}

/// A cycle the provider does not accept: the schema pointers along it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle(pub Vec<String>);

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: Vec<String> = self.0.iter().map(|p| if p.is_empty() { "#".to_owned() } else { format!("#{p}") }).collect();
        f.write_str(&shown.join(" -> "))
    }
}

/// The first cycle in `schema` that `rule` forbids, if any.
#[must_use]
pub fn forbidden_cycle(schema: &Value, rule: Recursion) -> Option<Cycle> {
    if rule == Recursion::Allowed {
        return None;
    }
    let graph = graph(schema, rule == Recursion::OptionalOnly);
    find_cycle(&graph)
}

/// Edges between schema positions (by pointer) that keep an instance inside the recursion:
/// subschemas, and a local `$ref` to its target. With `skip_optional`, optional steps are left
/// out, so that a remaining cycle is one an instance cannot leave.
fn graph(schema: &Value, skip_optional: bool) -> BTreeMap<String, Vec<String>> {
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut stack = vec![(schema, String::new(), 0usize)];
    while let Some((node, pointer, depth)) = stack.pop() {
        if depth > walk::MAX_DEPTH || edges.contains_key(&pointer) {
            continue;
        }
        let mut out = Vec::new();
        // Percent-encoded pointers and anchors too: a cycle spelled `#/$defs/a%20b` or `#node` is
        // still a cycle.
        if let Some(target) = node.get("$ref").and_then(Value::as_str).and_then(|r| schema_fidelity_translators::locate::target_at(schema, r, &pointer)) {
            out.push(target);
        }
        let required: Vec<&str> = node.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        for child in walk::children(node) {
            let child_pointer = format!("{pointer}{}", child.pointer_suffix());
            stack.push((child.schema, child_pointer.clone(), depth + 1));
            let optional = match (child.keyword, child.key) {
                ("properties", Some(ChildKey::Name(name))) => !required.contains(&name),
                ("additionalProperties" | "patternProperties", _) => true,
                (k, _) if vocabulary::holds_definitions(k) => continue, // a definition is reached only through a $ref
                _ => false,
            };
            if !(skip_optional && optional) {
                out.push(child_pointer);
            }
        }
        edges.insert(pointer, out);
    }
    edges
}

fn find_cycle(graph: &BTreeMap<String, Vec<String>>) -> Option<Cycle> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    let mut marks: BTreeMap<&str, Mark> = BTreeMap::new();
    for start in graph.keys() {
        if marks.contains_key(start.as_str()) {
            continue;
        }
        // Iterative DFS: (node, index of the next edge to follow); `path` mirrors the open nodes.
        let mut stack: Vec<(&str, usize)> = vec![(start.as_str(), 0)];
        marks.insert(start, Mark::Open);
        while let Some((node, next)) = stack.last().copied() {
            let edges = graph.get(node).map_or(&[][..], Vec::as_slice);
            if let Some(to) = edges.get(next) {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                match marks.get(to.as_str()) {
                    Some(Mark::Open) => {
                        let from = stack.iter().position(|(n, _)| *n == to.as_str()).unwrap_or(0);
                        let mut cycle: Vec<String> = stack[from..].iter().map(|(n, _)| (*n).to_owned()).collect();
                        cycle.push(to.clone());
                        return Some(Cycle(cycle));
                    }
                    Some(Mark::Done) => {}
                    None => {
                        marks.insert(to, Mark::Open);
                        stack.push((to.as_str(), 0));
                    }
                }
            } else {
                marks.insert(node, Mark::Done);
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mutual(required_back: bool) -> Value {
        let back = if required_back { json!(["a"]) } else { json!([]) };
        json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "required": ["a"],
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}, "required": ["b"]},
                "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": back}
            }
        })
    }

    #[test]
    fn a_cycle_through_required_properties_is_found_for_optional_only() {
        let cycle = forbidden_cycle(&mutual(true), Recursion::OptionalOnly).expect("a required cycle");
        assert!(cycle.to_string().contains("#/$defs/A"), "{cycle}");
        assert_eq!(forbidden_cycle(&mutual(false), Recursion::OptionalOnly), None);
    }

    #[test]
    fn any_cycle_is_found_for_none_and_none_for_allowed() {
        assert!(forbidden_cycle(&mutual(false), Recursion::None).is_some());
        assert_eq!(forbidden_cycle(&mutual(true), Recursion::Allowed), None);
        assert_eq!(forbidden_cycle(&json!({"type": "object", "properties": {"x": {"type": "string"}}}), Recursion::None), None);
    }

    #[test]
    fn array_items_do_not_make_a_cycle_optional_but_an_optional_property_does() {
        let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}, "required": ["kids"]});
        assert!(forbidden_cycle(&tree, Recursion::OptionalOnly).is_some());
        let optional = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}});
        assert_eq!(forbidden_cycle(&optional, Recursion::OptionalOnly), None);
        assert!(forbidden_cycle(&optional, Recursion::None).is_some());
    }

    #[test]
    fn cycles_through_percent_encoded_pointers_and_anchors_are_found() {
        let encoded = json!({"$defs": {"a b": {"type": "object", "properties": {"n": {"$ref": "#/$defs/a%20b"}}, "required": ["n"]}}, "$ref": "#/$defs/a%20b"});
        assert!(forbidden_cycle(&encoded, Recursion::OptionalOnly).is_some());
        let anchored = json!({"$defs": {"n": {"$anchor": "node", "type": "object", "properties": {"n": {"$ref": "#node"}}, "required": ["n"]}}, "$ref": "#node"});
        assert!(forbidden_cycle(&anchored, Recursion::None).is_some());
    }
}
