//! The one walker over schema positions, shared by every translator and by the oracle.
//!
//! A JSON Schema document mixes two kinds of JSON: *schemas* (whose object keys are keywords) and
//! *data* (property names under `properties`, the payload of `enum`, `const`, `default`,
//! `examples`, the strings of `required`, ...). A translator or an oracle that walks "every object
//! key" confuses the two: a property called `type` or an `enum` value `{"minimum": 1}` is not a
//! keyword. Everything in this crate and in the harness reaches subschemas through this module, so
//! they all agree on where the schemas are.
//!
//! ```
//! use schema_fidelity_translators::walk::{occurrences, Occurrence};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": { "minimum": { "const": { "pattern": 1 } }, "off": false }
//! });
//! let found: Vec<_> = occurrences(&schema).unwrap().into_iter()
//!     .map(|o| format!("{}@{}", o.keyword, o.pointer)).collect();
//! assert_eq!(found, [
//!     "type@", "properties@",
//!     "const@/properties/minimum",      // `minimum` is a property name, `pattern` is payload
//!     "false@/properties/off",          // boolean subschemas are positions too
//! ]);
//! ```
//!
//! The walk is iterative and bounded by [`MAX_DEPTH`], so a 10,000-deep schema yields an error,
//! not a stack overflow.
//!
//! The JSON pointers the walk writes are read and written with [`tokens`] and [`escape`] here, the
//! bottom of the crate, so that the reference resolver (`refs`) and the instance locator
//! (`locate`), which both read pointers, need not reach into each other for them.

use serde_json::{Map, Value};

use crate::vocabulary::{self, ValueKind};

/// The deepest schema nesting anything in this project accepts (defined at the crate root, where
/// [`crate::equality`] reads it too without depending on the walk).
pub use crate::MAX_DEPTH;

/// One keyword (or boolean subschema) found at a schema position.
#[derive(Debug, Clone, PartialEq)]
pub struct Occurrence<'a> {
    /// JSON pointer of the schema node holding the keyword (for a boolean subschema, of the
    /// boolean itself).
    pub pointer: String,
    /// The keyword, an extension key, or `"true"`/`"false"` for a boolean subschema.
    pub keyword: &'a str,
    /// The keyword's value (the boolean itself for a boolean subschema).
    pub value: &'a Value,
    /// Whether the node is the document root.
    pub at_root: bool,
}

/// The schema nests deeper than [`MAX_DEPTH`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    /// JSON pointer of the first node past the limit.
    pub pointer: String,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "schema nests deeper than {MAX_DEPTH} levels (at `{}`)", self.pointer)
    }
}

impl std::error::Error for TooDeep {}

/// A direct subschema of a schema node: where it hangs and what it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Child<'a> {
    /// The keyword whose value holds the subschema.
    pub keyword: &'a str,
    /// The property name (for schema maps) or index (for schema arrays), if any.
    pub key: Option<ChildKey<'a>>,
    pub schema: &'a Value,
}

/// How a subschema is addressed below its keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildKey<'a> {
    Name(&'a str),
    Index(usize),
}

impl Child<'_> {
    /// The JSON pointer suffix from the parent node to this subschema.
    #[must_use]
    pub fn pointer_suffix(&self) -> String {
        let mut out = format!("/{}", escape(self.keyword));
        match self.key {
            Some(ChildKey::Name(name)) => {
                out.push('/');
                out.push_str(&escape(name));
            }
            Some(ChildKey::Index(i)) => {
                out.push('/');
                out.push_str(&i.to_string());
            }
            None => {}
        }
        out
    }
}

/// How the value of `key` is to be walked, or `None` when it holds data. Extension keys are
/// walked as the registry says (`definitions`, whose entries `$ref`s reach by pointer).
#[must_use]
pub fn value_kind(key: &str) -> Option<ValueKind> {
    vocabulary::facts(key).map(|f| f.value).filter(|v| *v != ValueKind::Data)
}

/// The direct subschemas of a schema node, in document order. Values of the wrong JSON type for
/// their keyword (e.g. `properties: 3`) have no children; meta-validation reports those.
#[must_use]
pub fn children(node: &Value) -> Vec<Child<'_>> {
    let Some(map) = node.as_object() else { return Vec::new() };
    let mut out = Vec::new();
    for (key, value) in map {
        match value_kind(key) {
            Some(ValueKind::Schema) if is_schema(value) => {
                out.push(Child { keyword: key, key: None, schema: value });
            }
            Some(ValueKind::SchemaArray) => {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    if is_schema(item) {
                        out.push(Child { keyword: key, key: Some(ChildKey::Index(i)), schema: item });
                    }
                }
            }
            Some(ValueKind::SchemaMap) => {
                for (name, item) in value.as_object().into_iter().flatten() {
                    if is_schema(item) {
                        out.push(Child { keyword: key, key: Some(ChildKey::Name(name)), schema: item });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a JSON value can be a schema (an object or a boolean).
#[must_use]
pub fn is_schema(value: &Value) -> bool {
    value.is_object() || value.is_boolean()
}

/// Every keyword and boolean subschema at every schema position, in document order.
///
/// # Errors
/// [`TooDeep`] when the schema nests deeper than [`MAX_DEPTH`].
pub fn occurrences(root: &Value) -> Result<Vec<Occurrence<'_>>, TooDeep> {
    let mut out = Vec::new();
    // A stack of (node, pointer, depth); children are pushed in reverse to keep document order.
    let mut stack = vec![(root, String::new(), 0usize)];
    while let Some((node, pointer, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(TooDeep { pointer });
        }
        let at_root = depth == 0;
        match node {
            Value::Bool(b) => out.push(Occurrence {
                pointer,
                keyword: if *b { "true" } else { "false" },
                value: node,
                at_root,
            }),
            Value::Object(map) => {
                for (key, value) in map {
                    out.push(Occurrence { pointer: pointer.clone(), keyword: key, value, at_root });
                }
                let kids = children(node);
                for child in kids.into_iter().rev() {
                    stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), depth + 1));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The nesting depth of a schema, or [`TooDeep`] past [`MAX_DEPTH`]. Translators call this first so
/// that their own recursion is bounded.
///
/// # Errors
/// [`TooDeep`] when the schema nests deeper than [`MAX_DEPTH`].
pub fn check_depth(root: &Value) -> Result<usize, TooDeep> {
    let mut deepest = 0;
    let mut stack = vec![(root, 0usize, String::new())];
    while let Some((node, depth, pointer)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(TooDeep { pointer });
        }
        deepest = deepest.max(depth);
        for child in children(node) {
            stack.push((child.schema, depth + 1, format!("{pointer}{}", child.pointer_suffix())));
        }
    }
    Ok(deepest)
}

/// Rebuild a schema object, replacing each direct subschema by `f(child)`; data keywords are
/// copied. Key order is kept. A boolean schema is returned unchanged.
///
/// `f` receives the child and returns its replacement; translators recurse through this so that
/// every one of them descends into exactly the positions the oracle checks.
pub fn map_children<E>(node: &Value, mut f: impl FnMut(&Child<'_>) -> Result<Value, E>) -> Result<Value, E> {
    let Some(map) = node.as_object() else { return Ok(node.clone()) };
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        let mapped = match value_kind(key) {
            Some(ValueKind::Schema) if is_schema(value) => f(&Child { keyword: key, key: None, schema: value })?,
            Some(ValueKind::SchemaArray) if value.is_array() => {
                let items = value.as_array().into_iter().flatten().enumerate();
                let mut mapped = Vec::new();
                for (i, item) in items {
                    mapped.push(if is_schema(item) {
                        f(&Child { keyword: key, key: Some(ChildKey::Index(i)), schema: item })?
                    } else {
                        item.clone()
                    });
                }
                Value::Array(mapped)
            }
            Some(ValueKind::SchemaMap) if value.is_object() => {
                let mut mapped = Map::new();
                for (name, item) in value.as_object().into_iter().flatten() {
                    let new = if is_schema(item) {
                        f(&Child { keyword: key, key: Some(ChildKey::Name(name)), schema: item })?
                    } else {
                        item.clone()
                    };
                    mapped.insert(name.clone(), new);
                }
                Value::Object(mapped)
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), mapped);
    }
    Ok(Value::Object(out))
}

/// Decode the `%XX` escapes of a URI fragment (RFC 3986), as draft 2020-12 requires before a
/// `$ref` fragment is read as a JSON pointer; `None` when they are malformed or do not spell UTF-8.
#[must_use]
pub fn percent_decode(fragment: &str) -> Option<String> {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = fragment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Escape one JSON pointer token (RFC 6901).
#[must_use]
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The tokens of a JSON pointer (RFC 6901), unescaped. `""` is the empty list.
#[must_use]
pub fn tokens(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn payloads_and_property_names_are_not_keywords() {
        let schema = json!({
            "properties": {"type": {"enum": [{"minimum": 1}]}, "a/b": {"default": {"pattern": "x"}}},
            "required": ["format"],
            "examples": [{"items": true}]
        });
        let kws: Vec<_> = occurrences(&schema).unwrap().iter().map(|o| (o.keyword, o.pointer.clone())).collect();
        assert_eq!(
            kws,
            [
                ("properties", String::new()),
                ("required", String::new()),
                ("examples", String::new()),
                ("enum", "/properties/type".to_owned()),
                ("default", "/properties/a~1b".to_owned()),
            ]
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut schema = json!({"type": "string"});
        for _ in 0..10_000 {
            let mut wrapper = Map::new();
            wrapper.insert("items".to_owned(), schema);
            schema = Value::Object(wrapper);
        }
        let err = occurrences(&schema).unwrap_err();
        assert!(err.pointer.starts_with("/items/items"), "{err}");
        assert!(check_depth(&schema).is_err());
        // Dropping a 10,000-deep Value recurses in serde_json; forget it instead of testing that.
        std::mem::forget(schema);
    }

    #[test]
    fn map_children_visits_every_position_once() {
        let schema = json!({
            "prefixItems": [true, {"type": "string"}],
            "$defs": {"a": false},
            "not": {"const": 1},
            "enum": [true]
        });
        let mut seen = Vec::new();
        let out = map_children(&schema, |c| {
            seen.push(c.pointer_suffix());
            Ok::<_, ()>(json!({}))
        })
        .unwrap();
        assert_eq!(seen, ["/prefixItems/0", "/prefixItems/1", "/$defs/a", "/not"]);
        assert_eq!(out["enum"], json!([true]));
    }

    #[test]
    fn pointer_tokens_are_unescaped() {
        assert_eq!(tokens("/a~1b/c~0d"), ["a/b", "c~d"]);
        assert!(tokens("").is_empty());
    }
}
