//! walle's documented limits checked on the projection (nesting depth, property count, enum
//! values, reserved property names, `/` inside `$defs`), each refused as `limit:<name>`, and the
//! [`Tally`] walk that counts them the way walle walks.
//!
//! Separate because it judges the finished projection, never the source: the numbers are
//! [`super`]'s policy, the walk that measures them is here.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{MAX_DEPTH, MAX_ENUM_VALUES, MAX_PROPERTIES, RESERVED_PROPERTY_NAMES};
use crate::model::Refusal;
use crate::walk;

pub(super) fn limit(name: &str, measured: usize, value: usize, message: String) -> Refusal {
    Refusal::limit(name, measured as u64, value as u64, message)
}

/// Subschemas and references nesting past the walker's bound: cited as `max-depth` (MFJS's own
/// limit on nesting is far below it), counting the walker's levels.
pub(super) fn too_deep(message: &str) -> Refusal {
    limit("max-depth", walk::MAX_DEPTH + 1, MAX_DEPTH, format!("{message} (more than {} levels; the translator's own bound)", walk::MAX_DEPTH))
}

pub(super) fn check_limits(root: &Value) -> Result<(), Refusal> {
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
