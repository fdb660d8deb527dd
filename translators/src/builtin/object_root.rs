//! `object-root`: give a tool schema the object root providers ask for, only where that is exact.
//!
//! Providers want a tool's arguments to be an object. Real translators forced `type: "object"`
//! onto every root (TRACKING.md#sf-1316): a root that is only `allOf` of string constraints became
//! unsatisfiable, and a root that is only `not: {type: string}` lost every number, array and null
//! it accepted. This translator forces the object root exactly where the root already accepts
//! nothing but objects ([`root::accepts_only_objects`]: an `allOf` with an object branch, an
//! `anyOf`/`oneOf` of objects, a local `$ref` to an object schema), and refuses every other root,
//! citing the root keyword that keeps it from being an object root (`not`, `allOf`, ...) or
//! `type`. Everything below the root is sent unchanged.

use serde_json::{Map, Value};

use crate::model::{Outcome, Refusal, Translator};
use crate::root;

/// Forces `type: "object"` onto roots that accept only objects; refuses the rest.
#[derive(Debug, Default, Clone, Copy)]
pub struct ObjectRoot;

impl Translator for ObjectRoot {
    fn fingerprint(&self) -> Option<u64> {
        Some(crate::BUILTIN_FINGERPRINT)
    }

    fn name(&self) -> &str {
        "object-root"
    }

    fn translate(&self, source: &Value) -> Outcome {
        match force_object_root(source) {
            Ok(schema) => Outcome::json_schema(schema),
            Err(refusal) => Outcome::Refused(refusal),
        }
    }
}

/// Root keywords that, on a root without an object type, are why it may accept non-objects. The
/// first one present is cited, so the error names what the author wrote.
const ROOT_CULPRITS: [&str; 9] = ["not", "allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "enum", "const"];

/// The source with `type: "object"` at its root, when adding it changes nothing.
///
/// # Errors
/// A [`Refusal`] citing a root keyword (or `type`) when the root may accept a non-object: forcing
/// an object type onto it would narrow it.
pub(super) fn force_object_root(source: &Value) -> Result<Value, Refusal> {
    if source.get("type") == Some(&Value::from("object")) {
        return Ok(source.clone());
    }
    if !root::accepts_only_objects(source) {
        let keyword = source
            .as_object()
            .and_then(|root| ROOT_CULPRITS.iter().find(|k| root.contains_key(**k)))
            .map_or("type", |k| *k);
        return Err(Refusal::new(
            keyword,
            "",
            format!(
                "the root may accept values that are not objects (it is `{}`); forcing `type: \"object\"` onto it would narrow it (TRACKING.md#sf-1316)",
                shorten(source)
            ),
        ));
    }
    let mut out = Map::new();
    out.insert("type".to_owned(), Value::from("object"));
    match source {
        Value::Object(root) => {
            for (key, value) in root {
                if key != "type" {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        // `false` accepts nothing, objects included: keep it accepting nothing.
        _ => {
            out.insert("not".to_owned(), Value::Object(Map::new()));
        }
    }
    Ok(Value::Object(out))
}

fn shorten(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 80 { text } else { format!("{}...", text.chars().take(77).collect::<String>()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_branches_make_an_exact_object_root() {
        let source = json!({"allOf": [{"type": "object", "required": ["a"]}, {"type": "object"}]});
        let out = force_object_root(&source).unwrap();
        assert_eq!(out["type"], "object");
        assert_eq!(out["allOf"], source["allOf"]);
        assert_eq!(force_object_root(&json!(false)).unwrap(), json!({"type": "object", "not": {}}));
    }

    #[test]
    fn roots_of_opencode_1667_are_refused_naming_their_keyword() {
        let string_root = json!({"allOf": [{"type": "string"}, {"minLength": 2}]});
        assert_eq!(force_object_root(&string_root).unwrap_err().keyword(), "allOf");
        let not_root = json!({"not": {"type": "string"}});
        assert_eq!(force_object_root(&not_root).unwrap_err().keyword(), "not");
        let untyped = json!({"properties": {"a": {"type": "string"}}});
        assert_eq!(force_object_root(&untyped).unwrap_err().keyword(), "type");
        assert_eq!(force_object_root(&json!(true)).unwrap_err().keyword(), "type");
    }
}
