//! Applying a projection's [`Codec`] to instances: *encode* a source instance into what the model
//! would send, *decode* a model answer back into what the tool receives.
//!
//! Sites name object schemas in the projection by JSON pointer, so applying a codec walks the
//! instance alongside the projection schema: `properties`, `additionalProperties`, `items`,
//! `prefixItems`, local `$ref`s (JSON pointers, percent-decoded, and anchors, through
//! [`locate::target_at`]), and the branches of `anyOf`/`oneOf`/`allOf`. For a union the first
//! branch whose declared `type` admits the instance is followed, which is how OpenAI strict's
//! `anyOf: [T, {type: null}]` wrapping reads; among several such branches, the first whose declared
//! shape fits an object instance (no undeclared key in a closed object, `const`/`enum` tags
//! matched, required keys present) wins, so a discriminated union is read through the right branch.
//! Recursion through `$ref` is bounded by the instance's own depth, which serde_json bounds.

use std::collections::{HashMap, HashSet};

use schema_fidelity_translators::codec::{Codec, NullSite};
use schema_fidelity_translators::{Types, locate};
use serde_json::{Map, Value};

/// Which way an instance is being mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// Source instance to model side.
    Encode,
    /// Model side to source instance.
    Decode,
}

/// Map `instance` through `codec` in direction `way`, guided by the projection schema `root`.
/// To map many instances through one codec, prepare a [`Mapper`] once.
#[must_use]
pub fn apply(codec: &Codec, root: &Value, instance: &Value, way: Way) -> Value {
    Mapper::new(codec, root).apply(instance, way)
}

/// A codec prepared for one projection: its sites indexed by object, so that each instance costs
/// a walk, not a scan of every site per key.
pub struct Mapper<'a> {
    root: &'a Value,
    /// `None` for the identity (or a codec with no site).
    sites: Option<(HashMap<&'a str, SitesHere<'a>>, bool)>,
}

impl<'a> Mapper<'a> {
    #[must_use]
    pub fn new(codec: &'a Codec, root: &'a Value) -> Self {
        let sites = match codec {
            Codec::Identity => None,
            Codec::NullMeansAbsent { sites } => (!sites.is_empty()).then(|| (index(sites), true)),
            Codec::AbsentMeansNull { sites } => (!sites.is_empty()).then(|| (index(sites), false)),
        };
        Mapper { root, sites }
    }

    /// Whether every instance maps to itself.
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.sites.is_none()
    }

    /// Map `instance` in direction `way`.
    #[must_use]
    pub fn apply(&self, instance: &Value, way: Way) -> Value {
        let Some((sites, null_means_absent)) = &self.sites else { return instance.clone() };
        // Encode for null-means-absent inserts nulls; decode removes them. The inverse codec swaps.
        let insert_nulls = (way == Way::Encode) == *null_means_absent;
        Walker { root: self.root, sites, insert_nulls }.map(instance, "", 0)
    }
}

/// The sites by object pointer, so that finding an object's sites and asking whether a key is one
/// costs a lookup, not a scan: a scan per key is quadratic in the properties of one object.
fn index(sites: &[NullSite]) -> HashMap<&str, SitesHere<'_>> {
    let mut by_object: HashMap<&str, SitesHere<'_>> = HashMap::new();
    for site in sites {
        let here = by_object.entry(site.object.as_str()).or_default();
        if here.set.insert(site.property.as_str()) {
            here.in_order.push(site.property.as_str());
        }
    }
    by_object
}

/// The null sites of one object: in the codec's order (inserted nulls land where they always
/// did, so witnesses print the same from run to run) and as a set for membership.
#[derive(Default)]
pub struct SitesHere<'a> {
    in_order: Vec<&'a str>,
    set: HashSet<&'a str>,
}

struct Walker<'a> {
    root: &'a Value,
    /// Object pointer to the properties that are null sites there.
    sites: &'a HashMap<&'a str, SitesHere<'a>>,
    insert_nulls: bool,
}

/// Beyond this many `$ref` hops without consuming instance depth, stop following references.
const MAX_REF_HOPS: usize = 32;

impl Walker<'_> {
    fn node(&self, pointer: &str) -> Option<&Value> {
        self.root.pointer(pointer)
    }

    fn map(&self, instance: &Value, pointer: &str, hops: usize) -> Value {
        let Some(schema) = self.node(pointer).and_then(Value::as_object) else { return instance.clone() };
        if hops < MAX_REF_HOPS
            && let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| locate::target_at(self.root, r, pointer))
        {
            let through_ref = self.map(instance, &target, hops + 1);
            return self.map_here(&through_ref, pointer, schema, hops);
        }
        self.map_here(instance, pointer, schema, hops)
    }

    fn map_here(&self, instance: &Value, pointer: &str, schema: &Map<String, Value>, hops: usize) -> Value {
        let mut value = instance.clone();
        for combinator in ["allOf", "anyOf", "oneOf"] {
            let Some(branches) = schema.get(combinator).and_then(Value::as_array) else { continue };
            if combinator == "allOf" {
                for i in 0..branches.len() {
                    value = self.map(&value, &format!("{pointer}/{combinator}/{i}"), hops);
                }
            } else if let Some(i) = self.pick_branch(branches, &value, &format!("{pointer}/{combinator}")) {
                value = self.map(&value, &format!("{pointer}/{combinator}/{i}"), hops);
            }
        }
        match &mut value {
            Value::Object(map) => self.map_object(map, pointer, schema),
            Value::Array(items) => {
                let prefix = schema.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
                for (i, item) in items.iter_mut().enumerate() {
                    let child = if i < prefix { format!("{pointer}/prefixItems/{i}") } else { format!("{pointer}/items") };
                    *item = self.map(item, &child, 0);
                }
            }
            _ => {}
        }
        value
    }

    /// The union branch an instance is read through: among the branches whose `type` admits it,
    /// the first whose declared shape fits it (see [`Walker::fits`]), else the first that admits
    /// it. A discriminated union of closed objects thus routes `{"kind": "b", ...}` to the `b`
    /// branch and applies that branch's sites.
    fn pick_branch(&self, branches: &[Value], value: &Value, prefix: &str) -> Option<usize> {
        let admitting: Vec<usize> = (0..branches.len()).filter(|&i| admits_type(&branches[i], value)).collect();
        admitting.iter().copied().find(|&i| self.fits(&format!("{prefix}/{i}"), value, 0)).or_else(|| admitting.first().copied())
    }

    /// Whether an object instance fits the object schema at `pointer` (through `$ref`s) as far as
    /// the codec can tell without validating: no undeclared key where `additionalProperties` is
    /// false, every present key's `const`/`enum` tag matched, and every required key that is not a
    /// site present. Non-objects, and schemas that declare nothing, fit.
    fn fits(&self, pointer: &str, value: &Value, hops: usize) -> bool {
        let (Some(schema), Value::Object(instance)) = (self.node(pointer).and_then(Value::as_object), value) else { return true };
        if hops < MAX_REF_HOPS
            && let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| locate::target_at(self.root, r, pointer))
            && !self.fits(&target, value, hops + 1)
        {
            return false;
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (key, item) in instance {
            let Some(declared) = properties.and_then(|p| p.get(key)) else {
                if closed {
                    return false;
                }
                continue;
            };
            let tags = declared.get("enum").and_then(Value::as_array).cloned().or_else(|| declared.get("const").map(|c| vec![c.clone()]));
            if tags.is_some_and(|tags| !schema_fidelity_translators::equality::contains(&tags, item)) {
                return false;
            }
        }
        let here = self.sites.get(pointer);
        let is_site = |key: &str| here.is_some_and(|h| h.set.contains(key));
        let required = schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
        required.filter(|key| !is_site(key)).all(|key| instance.contains_key(key))
    }

    fn map_object(&self, map: &mut Map<String, Value>, pointer: &str, schema: &Map<String, Value>) {
        let empty = SitesHere::default();
        let here = self.sites.get(pointer).unwrap_or(&empty);
        for &property in &here.in_order {
            match (self.insert_nulls, map.get(property)) {
                (true, None) => {
                    map.insert(property.to_owned(), Value::Null);
                }
                (false, Some(Value::Null)) => {
                    map.remove(property);
                }
                _ => {}
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, child) in map.iter_mut() {
            if child.is_null() && here.set.contains(key.as_str()) {
                continue;
            }
            let escaped = schema_fidelity_translators::walk::escape(key);
            let child_pointer = if properties.is_some_and(|p| p.contains_key(key)) {
                format!("{pointer}/properties/{escaped}")
            } else if schema.get("additionalProperties").is_some_and(Value::is_object) {
                format!("{pointer}/additionalProperties")
            } else {
                continue;
            };
            *child = self.map(child, &child_pointer, 0);
        }
    }
}

/// Whether a union branch's declared `type` (if any) admits the instance's JSON type, by the
/// one type set (`1.0` is an integer); a malformed `type` admits nothing.
fn admits_type(branch: &Value, instance: &Value) -> bool {
    branch.get("type").is_none_or(|t| Types::of_keyword(t).is_some_and(|types| types.admits(instance)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site(object: &str, property: &str) -> NullSite {
        NullSite { object: object.to_owned(), property: property.to_owned() }
    }

    #[test]
    fn null_means_absent_round_trips_through_nested_arrays() {
        let projection = json!({
            "type": "object",
            "properties": {
                "to": {"type": "string"},
                "cc": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "files": {"type": "array", "items": {"type": "object", "properties": {"mode": {"type": ["string", "null"]}}}}
            }
        });
        let codec = Codec::NullMeansAbsent { sites: vec![site("", "cc"), site("/properties/files/items", "mode")] };
        let source = json!({"to": "a", "files": [{}, {"mode": "r"}]});
        let encoded = apply(&codec, &projection, &source, Way::Encode);
        assert_eq!(encoded, json!({"to": "a", "files": [{"mode": null}, {"mode": "r"}], "cc": null}));
        assert_eq!(apply(&codec, &projection, &encoded, Way::Decode), source);
    }

    #[test]
    fn a_discriminated_union_is_read_through_the_branch_that_fits() {
        let branch = |tag: &str, extra: &str| {
            json!({"type": "object", "properties": {"kind": {"enum": [tag]}, extra: {"type": ["string", "null"]}},
                   "required": ["kind", extra], "additionalProperties": false})
        };
        let projection = json!({"type": "object", "properties": {"action": {"anyOf": [branch("move", "to"), branch("delete", "force")]}}});
        let codec = Codec::NullMeansAbsent {
            sites: vec![site("/properties/action/anyOf/0", "to"), site("/properties/action/anyOf/1", "force")],
        };
        let source = json!({"action": {"kind": "delete"}});
        let encoded = apply(&codec, &projection, &source, Way::Encode);
        assert_eq!(encoded, json!({"action": {"kind": "delete", "force": null}}));
        assert_eq!(apply(&codec, &projection, &encoded, Way::Decode), source);
    }

    #[test]
    fn identity_is_identity() {
        let x = json!({"a": null});
        assert_eq!(apply(&Codec::Identity, &json!({}), &x, Way::Decode), x);
    }
}
