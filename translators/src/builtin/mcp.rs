//! `mcp`: normalization for the tool schemas MCP servers publish.
//!
//! MCP declares JSON Schema 2020-12 the default dialect of `inputSchema` (SEP-1613), but many
//! servers still emit draft-07 spellings from older generators (zod-to-json-schema, pydantic v1).
//! Read as draft 2020-12, those spellings are *unknown keywords*, that is annotations: the author's
//! `dependencies` constrain nothing, and `#/definitions/x` still resolves only because a JSON
//! pointer does not care what the key is called. This translator upgrades them:
//!
//! - `definitions` becomes `$defs`, and every `#`-pointer through it is rewritten. Exact: the same
//!   schemas are referenced, and neither key validates by itself.
//! - `dependencies` is split into `dependentRequired` (array entries) and `dependentSchemas`
//!   (schema entries). This *adds* validation the 2020-12 reading of the source does not have: a
//!   named narrowing, the draft-07 meaning the author wrote.
//! - `additionalItems` beside `prefixItems` without `items` becomes `items`: a tuple that was
//!   upgraded by hand (`items: [..]` to `prefixItems`) keeps its tail constraint. Also a narrowing.
//!
//! The root must be an object (MCP requires `type: "object"`); it is forced only where exact, as
//! the `object-root` translator does. Where an upgrade could change more than its row says it
//! would (an `unevaluated*` keyword sees the annotations the new keywords produce; a reference
//! points into the keyword being renamed; two spellings collide), that upgrade is skipped for the
//! whole schema and the draft-07 keyword is sent as it came: an annotation, as the source says.

use serde_json::{Map, Value};

use super::object_root::force_object_root;
use crate::model::{Outcome, Refusal, Translator};
use crate::vocabulary::ValueKind;
use crate::walk;

/// The MCP normalizer.
#[derive(Debug, Default, Clone, Copy)]
pub struct Mcp;

impl Translator for Mcp {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "mcp"
    }

    fn translate(&self, source: &Value) -> Outcome {
        match normalize(source) {
            Ok(schema) => Outcome::json_schema(schema),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// Which upgrades apply to one schema: decided once for the whole document, so that every
/// reference is rewritten consistently with the keys it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Upgrades {
    definitions: bool,
    dependencies: bool,
    additional_items: bool,
}

/// Normalize one MCP tool schema.
///
/// # Errors
/// A [`Refusal`] when the root may accept non-objects, or the schema nests too deep.
pub(super) fn normalize(source: &Value) -> Result<Value, Refusal> {
    walk::check_depth(source).map_err(|e| Refusal::limit("max-depth", (walk::MAX_DEPTH + 1) as u64, walk::MAX_DEPTH as u64, e.to_string()))?;
    let rooted = force_object_root(source)?;
    let upgrades = plan(&rooted);
    Ok(upgrade(&rooted, upgrades, 0))
}

fn plan(schema: &Value) -> Upgrades {
    let mut facts = Facts::default();
    facts.scan(schema, 0);
    let references_through = |key: &str| facts.references.iter().any(|r| r.contains(key));
    Upgrades {
        // A fragment `#/definitions/..` is rewritten; a URI naming another resource is not, so
        // any such reference keeps the old spelling everywhere.
        definitions: !facts.defs_and_definitions && !facts.references.iter().any(|r| !r.starts_with('#') && r.contains("definitions")),
        dependencies: !facts.unevaluated && !facts.dependency_collision && !references_through("dependencies"),
        additional_items: !facts.unevaluated && !references_through("additionalItems"),
    }
}

/// What the planner needs to know about the whole document.
#[derive(Debug, Default)]
struct Facts {
    references: Vec<String>,
    unevaluated: bool,
    defs_and_definitions: bool,
    dependency_collision: bool,
}

impl Facts {
    fn scan(&mut self, node: &Value, depth: usize) {
        let Some(map) = node.as_object() else { return };
        if depth > walk::MAX_DEPTH {
            return;
        }
        for key in ["$ref", "$dynamicRef"] {
            if let Some(reference) = map.get(key).and_then(Value::as_str) {
                self.references.push(reference.to_owned());
            }
        }
        self.unevaluated |= map.contains_key("unevaluatedProperties") || map.contains_key("unevaluatedItems");
        self.defs_and_definitions |= map.get("$defs").is_some_and(Value::is_object) && map.get("definitions").is_some_and(Value::is_object);
        if let Some(dependencies) = map.get("dependencies").and_then(Value::as_object) {
            let existing = map.get("dependentSchemas").and_then(Value::as_object);
            self.dependency_collision |= dependencies.iter().any(|(name, v)| walk::is_schema(v) && existing.is_some_and(|e| e.contains_key(name)));
            for value in dependencies.values() {
                self.scan(value, depth + 1);
            }
        }
        if let Some(tail) = map.get("additionalItems") {
            self.scan(tail, depth + 1);
        }
        for child in walk::children(node) {
            self.scan(child.schema, depth + 1);
        }
    }
}

fn upgrade(node: &Value, upgrades: Upgrades, depth: usize) -> Value {
    if depth > walk::MAX_DEPTH {
        return node.clone();
    }
    let Ok(mapped) = walk::map_children(node, |child| Ok::<_, ()>(upgrade(child.schema, upgrades, depth + 1))) else {
        return node.clone();
    };
    let Value::Object(map) = mapped else { return mapped };
    let mut out = Map::with_capacity(map.len());
    let mut dependent_required: Option<Map<String, Value>> = None;
    let mut dependent_schemas: Option<Map<String, Value>> = None;
    let mut leftover_dependencies = Map::new();
    let tail_becomes_items = upgrades.additional_items && map.get("prefixItems").is_some_and(Value::is_array) && !map.contains_key("items");
    for (key, value) in map {
        match key.as_str() {
            "definitions" if upgrades.definitions && value.is_object() => {
                out.insert("$defs".to_owned(), value);
            }
            "$ref" | "$dynamicRef" => {
                let rewritten = value.as_str().map_or(value.clone(), |r| Value::from(rewrite_reference(r, upgrades)));
                out.insert(key, rewritten);
            }
            "dependencies" if upgrades.dependencies && value.is_object() => {
                for (name, entry) in value.as_object().into_iter().flatten() {
                    if is_name_list(entry) {
                        dependent_required.get_or_insert_with(Map::new).insert(name.clone(), entry.clone());
                    } else if walk::is_schema(entry) {
                        dependent_schemas.get_or_insert_with(Map::new).insert(name.clone(), upgrade(entry, upgrades, depth + 1));
                    } else {
                        leftover_dependencies.insert(name.clone(), entry.clone());
                    }
                }
            }
            "additionalItems" if tail_becomes_items && walk::is_schema(&value) => {
                out.insert("items".to_owned(), upgrade(&value, upgrades, depth + 1));
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    if let Some(required) = dependent_required {
        let merged = out.entry("dependentRequired").or_insert_with(|| Value::Object(Map::new()));
        if let Some(existing) = merged.as_object_mut() {
            for (name, names) in required {
                match existing.get_mut(&name).and_then(Value::as_array_mut) {
                    // Both lists must hold: their union, without duplicates (which 2020-12 forbids).
                    Some(list) => {
                        for n in names.as_array().into_iter().flatten() {
                            if !list.contains(n) {
                                list.push(n.clone());
                            }
                        }
                    }
                    None => {
                        existing.insert(name, names);
                    }
                }
            }
        }
    }
    if let Some(schemas) = dependent_schemas {
        let merged = out.entry("dependentSchemas").or_insert_with(|| Value::Object(Map::new()));
        if let Some(existing) = merged.as_object_mut() {
            // The planner skipped the upgrade if a name were in both; extend is exact here.
            existing.extend(schemas);
        }
    }
    if !leftover_dependencies.is_empty() {
        out.insert("dependencies".to_owned(), Value::Object(leftover_dependencies));
    }
    Value::Object(out)
}

/// A `dependencies` entry that is a list of unique property names (what `dependentRequired` holds).
fn is_name_list(entry: &Value) -> bool {
    let Some(names) = entry.as_array() else { return false };
    names.iter().all(Value::is_string) && names.iter().enumerate().all(|(i, n)| !names[..i].contains(n))
}

/// Rewrite the keywords a `#`-pointer walks through, as the schema's keys were renamed.
fn rewrite_reference(reference: &str, upgrades: Upgrades) -> String {
    let Some(pointer) = reference.strip_prefix("#/") else { return reference.to_owned() };
    let mut tokens: Vec<String> = pointer.split('/').map(str::to_owned).collect();
    let mut at_schema = true;
    let mut i = 0;
    while i < tokens.len() {
        if !at_schema {
            break;
        }
        let kind = match tokens[i].as_str() {
            "definitions" => {
                if upgrades.definitions {
                    tokens[i] = "$defs".to_owned();
                }
                Some(ValueKind::SchemaMap)
            }
            keyword => walk::value_kind(keyword),
        };
        match kind {
            Some(ValueKind::SchemaMap | ValueKind::SchemaArray) => i += 2,
            Some(ValueKind::Schema) => i += 1,
            _ => at_schema = false,
        }
    }
    format!("#/{}", tokens.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn definitions_become_defs_with_pointers_rewritten_only_where_keywords_stand() {
        let source = json!({
            "type": "object",
            "definitions": {"level": {"enum": ["info", "warn"]}, "definitions": {"type": "string"}},
            "properties": {
                "definitions": {"$ref": "#/definitions/definitions"},
                "level": {"$ref": "#/definitions/level"},
                "deep": {"$ref": "#/properties/definitions"}
            }
        });
        let out = normalize(&source).unwrap();
        assert!(out.get("definitions").is_none());
        assert_eq!(out["$defs"]["level"], json!({"enum": ["info", "warn"]}));
        assert_eq!(out["properties"]["definitions"]["$ref"], "#/$defs/definitions");
        assert_eq!(out["properties"]["level"]["$ref"], "#/$defs/level");
        // `definitions` here is a property name, not the keyword.
        assert_eq!(out["properties"]["deep"]["$ref"], "#/properties/definitions");
    }

    #[test]
    fn dependencies_split_into_their_2020_12_keywords() {
        let source = json!({
            "type": "object",
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
            "dependentRequired": {"a": ["e"]}
        });
        let out = normalize(&source).unwrap();
        assert_eq!(out["dependentRequired"], json!({"a": ["e", "b"]}));
        assert_eq!(out["dependentSchemas"], json!({"c": {"required": ["d"]}}));
        assert!(out.get("dependencies").is_none());
    }

    #[test]
    fn upgrades_that_unevaluated_keywords_would_see_are_skipped() {
        let source = json!({
            "type": "object",
            "dependencies": {"a": {"properties": {"b": true}}},
            "unevaluatedProperties": false
        });
        assert_eq!(normalize(&source).unwrap(), source);
    }

    #[test]
    fn additional_items_becomes_the_tail_of_a_tuple() {
        let source = json!({"type": "object", "properties": {"row": {"prefixItems": [{"type": "string"}], "additionalItems": {"type": "integer"}}}});
        let out = normalize(&source).unwrap();
        assert_eq!(out["properties"]["row"], json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}));
        let kept = json!({"type": "object", "properties": {"row": {"items": {"type": "string"}, "additionalItems": false}}});
        assert_eq!(normalize(&kept).unwrap(), kept);
    }
}
