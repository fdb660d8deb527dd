//! Lifting projections written in another dialect to draft 2020-12, so that the differential check
//! compares like with like. A dialect's *grammar* (what the provider accepts) is data: a meta-schema
//! under `targets/grammars/`; this module only says what each construct of the dialect means.

use schema_fidelity_translators::Dialect;
use serde_json::{Map, Value};

/// Lift `schema`, written in `dialect`, to an equivalent draft 2020-12 schema.
///
/// # Errors
/// A sentence naming the first construct that has no meaning in draft 2020-12.
pub fn lift(dialect: Dialect, schema: &Value) -> Result<Value, String> {
    match dialect {
        Dialect::JsonSchema => Ok(schema.clone()),
        Dialect::GeminiProto => lift_proto(schema, "", 0),
        Dialect::OpenApi30 => lift_openapi(schema, "", 0),
    }
}

/// OpenAPI 3.0: JSON Schema spelled in lowercase, where `nullable: true` beside a `type` admits
/// `null` too (and an `enum` beside it gains `null`), and `example` is an annotation. Lifted like
/// the proto form, but every other keyword keeps its JSON Schema meaning and subschemas are found
/// by the shared walker.
fn lift_openapi(schema: &Value, pointer: &str, depth: usize) -> Result<Value, String> {
    use schema_fidelity_translators::walk;
    if depth > walk::MAX_DEPTH {
        return Err(format!("nesting deeper than {} at `{pointer}`", walk::MAX_DEPTH));
    }
    let mapped = walk::map_children(schema, |child| lift_openapi(child.schema, &format!("{pointer}{}", child.pointer_suffix()), depth + 1))?;
    let Value::Object(mut map) = mapped else { return Ok(mapped) };
    map.remove("example");
    let Some(nullable) = map.remove("nullable") else { return Ok(Value::Object(map)) };
    if nullable != Value::Bool(true) {
        return Ok(Value::Object(map));
    }
    match map.get("type").cloned() {
        Some(Value::String(t)) if t != "null" => {
            map.insert("type".to_owned(), Value::from(vec![Value::from(t), Value::from("null")]));
        }
        Some(Value::Array(mut ts)) if !ts.contains(&Value::from("null")) => {
            ts.push(Value::from("null"));
            map.insert("type".to_owned(), Value::Array(ts));
        }
        // OpenAPI 3.0: `nullable` without `type` has no effect.
        _ => return Ok(Value::Object(map)),
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Ok(Value::Object(map))
}

/// Count fields that the proto types as int64 and so may arrive as strings.
const INT64_FIELDS: &[&str] = &["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"];

fn lift_proto(schema: &Value, pointer: &str, depth: usize) -> Result<Value, String> {
    if depth > schema_fidelity_translators::walk::MAX_DEPTH {
        return Err(format!("nesting deeper than {} at `{pointer}`", schema_fidelity_translators::walk::MAX_DEPTH));
    }
    let Some(map) = schema.as_object() else {
        return Err(format!("`{pointer}` is not a Schema message (proto schemas are objects)"));
    };
    let mut out = Map::new();
    let nullable = map.get("nullable").and_then(Value::as_bool).unwrap_or(false);
    for (key, value) in map {
        let lifted = match key.as_str() {
            "type" => {
                let name = value.as_str().ok_or_else(|| format!("`{pointer}/type` is not a string"))?;
                // Either case: the service reads the enum name case-insensitively, and SDKs send
                // lower-case names (@ai-sdk/google 3, litellm).
                let t = match name.to_ascii_uppercase().as_str() {
                    "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL" => name.to_ascii_lowercase(),
                    "TYPE_UNSPECIFIED" => continue,
                    other => return Err(format!("`{pointer}/type`: `{other}` is not a proto Type")),
                };
                if nullable && t != "null" { Value::from(vec![Value::from(t), Value::from("null")]) } else { Value::from(t) }
            }
            "enum" if nullable => {
                let mut values = value.as_array().cloned().unwrap_or_default();
                values.push(Value::Null);
                Value::Array(values)
            }
            "nullable" | "propertyOrdering" | "example" => continue,
            // `format: enum` marks a string enum in the proto; it is no JSON Schema format.
            "format" if value == "enum" => continue,
            k if INT64_FIELDS.contains(&k) => match value {
                Value::String(s) => Value::from(s.parse::<u64>().map_err(|_| format!("`{pointer}/{k}`: `{s}` is not an int64"))?),
                other => other.clone(),
            },
            "items" => lift_proto(value, &format!("{pointer}/items"), depth + 1)?,
            "anyOf" => {
                let branches = value.as_array().ok_or_else(|| format!("`{pointer}/anyOf` is not a list"))?;
                let mut lifted = Vec::new();
                for (i, b) in branches.iter().enumerate() {
                    lifted.push(lift_proto(b, &format!("{pointer}/anyOf/{i}"), depth + 1)?);
                }
                Value::Array(lifted)
            }
            // Definitions are Schema messages too (a translator that writes `$defs` writes them in
            // the proto's dialect): a `nullable` there admits null as it does inline.
            "properties" | "$defs" | "definitions" => {
                let props = value.as_object().ok_or_else(|| format!("`{pointer}/{key}` is not a map"))?;
                let mut lifted = Map::new();
                for (name, p) in props {
                    let child = format!("{pointer}/{key}/{}", schema_fidelity_translators::walk::escape(name));
                    lifted.insert(name.clone(), lift_proto(p, &child, depth + 1)?);
                }
                Value::Object(lifted)
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), lifted);
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openapi_nullable_admits_null_beside_a_type() {
        let schema = json!({"type": "object", "example": {"a": "x"}, "$defs": {"n": {"type": "integer", "nullable": true}}, "properties": {
            "a": {"type": "string", "nullable": true, "enum": ["x"]},
            "b": {"type": ["integer", "boolean"], "nullable": true},
            "c": {"nullable": true, "minimum": 1},
            "d": {"type": "string", "nullable": false},
            "f": {"$ref": "#/$defs/n"},
            "e": {"type": "array", "items": {"type": "number", "nullable": true}}
        }});
        assert_eq!(
            lift(Dialect::OpenApi30, &schema).unwrap(),
            json!({"type": "object", "$defs": {"n": {"type": ["integer", "null"]}}, "properties": {
                "a": {"type": ["string", "null"], "enum": ["x", null]},
                "b": {"type": ["integer", "boolean", "null"]},
                "c": {"minimum": 1},
                "d": {"type": "string"},
                "f": {"$ref": "#/$defs/n"},
                "e": {"type": "array", "items": {"type": ["number", "null"]}}
            }})
        );
    }

    #[test]
    fn proto_definitions_lift_like_inline_nodes() {
        let proto = json!({"type": "OBJECT", "$defs": {"n": {"type": "INTEGER", "nullable": true}}, "properties": {"m": {"$ref": "#/$defs/n"}}});
        assert_eq!(
            lift(Dialect::GeminiProto, &proto).unwrap(),
            json!({"type": "object", "$defs": {"n": {"type": ["integer", "null"]}}, "properties": {"m": {"$ref": "#/$defs/n"}}})
        );
    }

    #[test]
    fn proto_types_nullable_and_counts_lift() {
        let proto = json!({"type": "OBJECT", "properties": {"a": {"type": "STRING", "nullable": true, "enum": ["x"], "format": "enum"},
            "b": {"type": "ARRAY", "items": {"type": "INTEGER"}, "maxItems": "3"}}});
        assert_eq!(
            lift(Dialect::GeminiProto, &proto).unwrap(),
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "enum": ["x", null]},
                "b": {"type": "array", "items": {"type": "integer"}, "maxItems": 3}}})
        );
    }

    #[test]
    fn lower_case_type_names_lift_like_upper_case_ones_and_unknown_names_do_not() {
        // @ai-sdk/google 3 and litellm send lower-case names, which the service accepts.
        let proto = json!({"type": "object", "properties": {"a": {"type": "string", "nullable": true}, "b": {"type": "Array", "items": {"type": "integer"}}}});
        assert_eq!(
            lift(Dialect::GeminiProto, &proto).unwrap(),
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "array", "items": {"type": "integer"}}}})
        );
        assert!(lift(Dialect::GeminiProto, &json!({"type": "map"})).is_err());
    }

    /// Everything the `gemini-proto` translator emits lifts to the draft 2020-12 schema that means
    /// the same: a union with `null` folded into one branch, pinned numbers, the NULL type,
    /// `date-time`, annotations, and the unsatisfiable NUMBER that stands for `false`.
    #[test]
    fn what_gemini_proto_emits_lifts_faithfully() {
        let proto = json!({"type": "OBJECT", "title": "t", "description": "d", "required": ["u"], "properties": {
            "u": {"anyOf": [{"type": "INTEGER", "nullable": true, "minimum": 1, "maximum": 1}, {"type": "STRING", "format": "date-time", "default": "x"}]},
            "n": {"type": "NULL"},
            "never": {"type": "NUMBER", "minimum": 1, "maximum": 0},
            "list": {"type": "ARRAY", "items": {"anyOf": [{"type": "STRING", "nullable": true}, {"type": "OBJECT"}]}, "minItems": "0", "maxItems": "2"}
        }});
        assert_eq!(
            lift(Dialect::GeminiProto, &proto).unwrap(),
            json!({"type": "object", "title": "t", "description": "d", "required": ["u"], "properties": {
                "u": {"anyOf": [{"type": ["integer", "null"], "minimum": 1, "maximum": 1}, {"type": "string", "format": "date-time", "default": "x"}]},
                "n": {"type": "null"},
                "never": {"type": "number", "minimum": 1, "maximum": 0},
                "list": {"type": "array", "items": {"anyOf": [{"type": ["string", "null"]}, {"type": "object"}]}, "minItems": 0, "maxItems": 2}
            }})
        );
    }
}
