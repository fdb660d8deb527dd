//! What the projection tells the model instead of enforcing: the source's title and description
//! carried over, `default` as ` (default: X)`, and the spilled keywords (unsupported constraints,
//! annotations without a field) as a `{keyword: value, ...}` block in the description.
//!
//! Separate because it is the one place a named widening becomes text; it decides nothing about
//! acceptance.

use serde_json::{Map, Value, json};

use super::is_never;

pub(super) fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(v) = from.get(*key) {
            to.insert((*key).to_owned(), v.clone());
        }
    }
}

pub(super) fn spill(from: &Map<String, Value>, spills: &mut Vec<(String, Value)>, keys: &[&str]) {
    for key in keys {
        if let Some(v) = from.get(*key) {
            spills.push(((*key).to_owned(), v.clone()));
        }
    }
}

/// Put the source node's title and description on its translation, with the spilled keywords:
/// ` (default: X)` after the description, then a `{keyword: value, ...}` block. A bare `$ref`
/// takes no siblings in strict mode, so it is wrapped as a one-branch `anyOf` first.
pub(super) fn annotate(node: Value, source: &Map<String, Value>, mut spills: Vec<(String, Value)>) -> Value {
    if is_never(&node) {
        return node;
    }
    let mut text = source.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
    if let Some(default) = source.get("default")
        && !text.contains("(default:")
    {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&format!("(default: {default})"));
    }
    let mut annotations = Vec::new();
    for (key, value) in source {
        let keep = match key.as_str() {
            "examples" | "contentEncoding" | "contentMediaType" => true,
            "deprecated" | "readOnly" | "writeOnly" => value != &Value::Bool(false),
            _ => false,
        };
        if keep {
            annotations.push((key.clone(), value.clone()));
        }
    }
    annotations.append(&mut spills);
    if !annotations.is_empty() {
        let block: Vec<String> = annotations.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push('{');
        text.push_str(&block.join(", "));
        text.push('}');
    }
    let title = source.get("title").filter(|t| t.is_string()).cloned();
    if text.is_empty() && title.is_none() {
        return node;
    }
    let node = if node.get("$ref").is_some() { json!({"anyOf": [node]}) } else { node };
    let Value::Object(inner) = node else { return node };
    let mut out = Map::new();
    if let Some(title) = title {
        out.insert("title".to_owned(), title);
    }
    if !text.is_empty() {
        if let Some(own) = inner.get("description").and_then(Value::as_str) {
            text = format!("{text}\n\n{own}");
        }
        out.insert("description".to_owned(), Value::from(text));
    }
    for (k, v) in inner {
        out.entry(k).or_insert(v);
    }
    Value::Object(out)
}
