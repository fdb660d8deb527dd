//! A projection read through its codec, as a schema of source-side instances.
//!
//! The prover compares schemas, and a codec changes instances between the two sides (CONTRACT
//! §6). For a projection `P` with codec sites, [`decoded`] writes the schema `D` such that
//!
//! - every source instance `D` accepts encodes to one `P` accepts (`D(x) ⇒ P(encode(x))`), and
//! - every model-side instance `P` accepts decodes to one `D` accepts (`P(y) ⇒ D(decode(y))`),
//!
//! so that `S ⊆ D` proves "no narrowing" and `D ⊆ S` proves "no widening". At a site `(o, p)`:
//!
//! - **null-means-absent** (`p` required and nullable in `P`): in `D`, `p` is optional and its
//!   schema is `P`'s without `null`. Encoding sends an absent `p` as `null`, which `P` must accept
//!   there (checked by validating `null` against it); a `null` the model sends there decodes to
//!   an absent key.
//! - **absent-means-null** (`p` optional and not nullable in `P`): in `D`, `p` is required and
//!   also admits `null` (unless `P` requires `p`, when an absent key never reaches the tool).
//!
//! Both hold only where the codec's walk (harness/src/codec.rs) applies a site at exactly the
//! instance positions where validation meets the site's object, and no other node at those
//! positions says anything about `p`. So every path from the root to a site's object must go
//! through `properties`, `items`, `prefixItems`, `additionalProperties` and `$ref`s both read the
//! same way, or through a nullable wrapper (an `anyOf`/`oneOf` whose other branches are exactly
//! `{type: null}`), each node on the way holding nothing else that applies in place; and the
//! site's object holds only `type`, `properties`, `required`, `additionalProperties` and
//! annotations. Anything else is a [`Unsupported`] answer: the prover then proves neither
//! direction, and the witness search (which applies the codec itself) decides.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schema_fidelity_translators::codec::{Codec, NullSite};
use schema_fidelity_translators::vocabulary::{self, InstanceType};
use schema_fidelity_translators::{locate, walk};
use serde_json::{Map, Value};

use super::docs::Doc;

/// Why a projection cannot be read through its codec here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// Keywords a site's object may hold besides annotations.
const SITE_OBJECT: &[&str] = &["type", "properties", "required", "additionalProperties"];

/// The projection `projection` (draft 2020-12) read through `codec` (see the module docs).
///
/// # Errors
/// Where the codec's sites are not at positions this reading is exact for.
pub fn decoded(projection: &Value, codec: &Codec) -> Result<Value, Unsupported> {
    let (sites, null_means_absent) = match codec {
        Codec::Identity => return Ok(projection.clone()),
        Codec::NullMeansAbsent { sites } => (sites, true),
        Codec::AbsentMeansNull { sites } => (sites, false),
    };
    if sites.is_empty() {
        return Ok(projection.clone());
    }
    let doc = Doc::new(projection, true, None);
    check_paths(projection, &doc, sites)?;
    let mut by_object: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for NullSite { object, property } in sites {
        by_object
            .entry(object.as_str())
            .or_default()
            .insert(property.as_str());
    }
    let mut out = projection.clone();
    // The deepest objects first: rewriting a site's schema moves what lies below it.
    let mut objects: Vec<(&str, BTreeSet<&str>)> = by_object.into_iter().collect();
    objects.sort_by_key(|(object, _)| std::cmp::Reverse(walk::tokens(object).len()));
    for (object, properties) in objects {
        let node = out
            .pointer(object)
            .and_then(Value::as_object)
            .cloned()
            .ok_or_else(|| {
                Unsupported(format!(
                    "a codec site names `{object}`, which is no object schema of the projection"
                ))
            })?;
        let node = &node;
        if let Some(k) = node
            .keys()
            .find(|k| vocabulary::asserts(k) && !SITE_OBJECT.contains(&k.as_str()))
        {
            return Err(Unsupported(format!(
                "the codec site object `{object}` also holds `{k}`"
            )));
        }
        let required: Vec<String> = node
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let mut new_required = required.clone();
        let mut props = node
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for property in properties {
            let escaped = walk::escape(property);
            let schema = props.get(property).cloned().ok_or_else(|| {
                Unsupported(format!(
                    "the codec site `{property}` at `{object}` is not declared there"
                ))
            })?;
            if null_means_absent {
                if doc.accepts(&format!("{object}/properties/{escaped}"), &Value::Null)
                    != Some(true)
                {
                    return Err(Unsupported(format!(
                        "the codec site `{property}` at `{object}` does not accept `null` in the projection"
                    )));
                }
                new_required.retain(|r| r != property);
                props.insert(
                    property.to_owned(),
                    serde_json::json!({"allOf": [schema], "not": {"type": "null"}}),
                );
            } else {
                if !required.iter().any(|r| r == property) {
                    props.insert(
                        property.to_owned(),
                        serde_json::json!({"anyOf": [schema, {"type": "null"}]}),
                    );
                    new_required.push(property.to_owned());
                }
            }
        }
        let target = out
            .pointer_mut(object)
            .and_then(Value::as_object_mut)
            .ok_or_else(|| Unsupported(format!("`{object}` vanished")))?;
        target.insert("properties".to_owned(), Value::Object(props));
        if new_required.is_empty() {
            target.remove("required");
        } else {
            target.insert("required".to_owned(), Value::from(new_required));
        }
    }
    Ok(out)
}


/// Every node from which a site's object is reached must lead there only by edges the codec's
/// walk follows as validation does, and hold nothing else that applies in place.
fn check_paths(root: &Value, doc: &Doc<'_>, sites: &[NullSite]) -> Result<(), Unsupported> {
    // Every schema node and its edges (children and references), by pointer.
    let mut edges: HashMap<String, Vec<(String, Edge)>> = HashMap::new();
    let mut stack = vec![(String::new(), 0usize)];
    let mut seen = BTreeSet::new();
    while let Some((ptr, depth)) = stack.pop() {
        if depth > walk::MAX_DEPTH || !seen.insert(ptr.clone()) {
            continue;
        }
        let Some(node) = root.pointer(&ptr) else {
            continue;
        };
        let mut out = Vec::new();
        for child in walk::children(node) {
            let child_ptr = format!("{ptr}{}", child.pointer_suffix());
            out.push((child_ptr.clone(), Edge::Child(child.keyword.to_owned())));
            stack.push((child_ptr, depth + 1));
        }
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            let read_by_validator = doc.follow(reference, &ptr);
            let read_by_codec = locate::target_at(root, reference, &ptr);
            match read_by_validator {
                Some(target) if read_by_codec.as_deref() == Some(target.as_str()) => {
                    out.push((target.clone(), Edge::Ref));
                    stack.push((target, depth + 1));
                }
                // A reference the two read apart may lead anywhere: nothing is read then.
                _ => {
                    return Err(Unsupported(format!(
                        "the reference `{reference}` at `{ptr}` is not read alike by the validator and the codec"
                    )));
                }
            }
        }
        edges.insert(ptr, out);
    }
    // The nodes from which a site's object is reached.
    let objects: BTreeSet<&str> = sites.iter().map(|s| s.object.as_str()).collect();
    let mut leads: BTreeSet<String> = objects.iter().map(|o| (*o).to_owned()).collect();
    loop {
        let before = leads.len();
        for (from, out) in &edges {
            if !leads.contains(from) && out.iter().any(|(to, _)| leads.contains(to)) {
                leads.insert(from.clone());
            }
        }
        if leads.len() == before {
            break;
        }
    }
    for from in &leads {
        let node = root.pointer(from).and_then(Value::as_object);
        for (to, edge) in edges.get(from).into_iter().flatten() {
            if !leads.contains(to) {
                continue;
            }
            let allowed = match edge {
                Edge::Child(k) => match k.as_str() {
                    "properties" | "items" | "prefixItems" | "additionalProperties" => true,
                    k if vocabulary::holds_definitions(k) => true, // a container, not an edge of validation
                    "anyOf" | "oneOf" => node.is_some_and(|n| nullable_wrapper(n, k)),
                    _ => false,
                },
                Edge::Ref => true,
            };
            if !allowed {
                return Err(Unsupported(format!(
                    "a codec site is reached from `{from}` through what the codec does not read as validation does"
                )));
            }
        }
        // A node that leads on in place (a reference or a wrapper) holds nothing else in place.
        if let Some(node) = node
            && !objects.contains(from.as_str())
        {
            // `then`/`else` go with `if`: the three count once.
            let in_place = node
                .keys()
                .filter(|k| vocabulary::in_place(k) && !matches!(k.as_str(), "then" | "else"))
                .count();
            // Any keyword on objects says something about the site's object here, beside it.
            let object_keywords = node
                .keys()
                .any(|k| vocabulary::instance_type(k) == Some(InstanceType::Object));
            let leads_in_place = edges.get(from).into_iter().flatten().any(|(to, e)| {
                leads.contains(to) && matches!(e, Edge::Ref)
                    || matches!(e, Edge::Child(k) if k == "anyOf" || k == "oneOf")
                        && leads.contains(to)
            });
            if leads_in_place && (in_place > 1 || object_keywords)
            {
                return Err(Unsupported(format!(
                    "`{from}` applies more than one schema in place on the way to a codec site"
                )));
            }
        }
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum Edge {
    Child(String),
    Ref,
}

/// Whether `node`'s `keyword` (`anyOf`/`oneOf`) is a nullable wrapper: every branch but one is
/// exactly `{type: null}`.
fn nullable_wrapper(node: &Map<String, Value>, keyword: &str) -> bool {
    let Some(branches) = node.get(keyword).and_then(Value::as_array) else {
        return false;
    };
    let null = serde_json::json!({"type": "null"});
    branches.iter().filter(|b| **b != null).count() == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site(object: &str, property: &str) -> NullSite {
        NullSite {
            object: object.to_owned(),
            property: property.to_owned(),
        }
    }

    #[test]
    fn null_means_absent_makes_the_site_optional_again() {
        let projection = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
            "required": ["a", "b"], "additionalProperties": false
        });
        let d = decoded(
            &projection,
            &Codec::NullMeansAbsent {
                sites: vec![site("", "b")],
            },
        )
        .expect("exact here");
        assert_eq!(d["required"], json!(["a"]));
        assert_eq!(
            d["properties"]["b"],
            json!({"allOf": [{"anyOf": [{"type": "integer"}, {"type": "null"}]}], "not": {"type": "null"}})
        );
    }

    #[test]
    fn a_site_that_does_not_accept_null_or_sits_under_a_union_is_not_read() {
        let strict =
            json!({"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]});
        assert!(
            decoded(
                &strict,
                &Codec::NullMeansAbsent {
                    sites: vec![site("", "b")]
                }
            )
            .is_err()
        );
        let union = json!({"type": "object", "properties": {"u": {"anyOf": [
            {"type": "object", "properties": {"b": {"type": ["integer", "null"]}}, "required": ["b"]},
            {"type": "object", "properties": {"c": {"type": "string"}}}
        ]}}});
        assert!(
            decoded(
                &union,
                &Codec::NullMeansAbsent {
                    sites: vec![site("/properties/u/anyOf/0", "b")]
                }
            )
            .is_err()
        );
        let wrapped = json!({"type": "object", "properties": {"u": {"anyOf": [
            {"type": "object", "properties": {"b": {"type": ["integer", "null"]}}, "required": ["b"]},
            {"type": "null"}
        ]}}});
        assert!(
            decoded(
                &wrapped,
                &Codec::NullMeansAbsent {
                    sites: vec![site("/properties/u/anyOf/0", "b")]
                }
            )
            .is_ok()
        );
    }

    #[test]
    fn absent_means_null_requires_the_site_and_admits_null() {
        let projection = json!({"type": "object", "properties": {"cc": {"type": "string"}, "n": {"type": "integer"}}, "required": ["n"]});
        let d = decoded(
            &projection,
            &Codec::AbsentMeansNull {
                sites: vec![site("", "cc")],
            },
        )
        .expect("exact here");
        assert_eq!(d["required"], json!(["n", "cc"]));
        assert_eq!(
            d["properties"]["cc"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
    }
}
