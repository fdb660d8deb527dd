//! Where a `$ref` points inside one schema document, for the generator.
//!
//! The generator follows references so that a `$ref` to `#/$defs/address` draws addresses, and a
//! recursive schema draws trees. It needs only the document it was given: schema resources
//! (`$id`), anchors (`$anchor`, `$dynamicAnchor`) and JSON pointers. A reference it cannot follow
//! (another document, a URI form it does not resolve) is not an error: the generator draws
//! anything there, and the validator, which resolves references properly, decides what the draw
//! is worth. So this index may be simpler than a full resolver without ever producing a false
//! witness.

use std::collections::HashMap;

use schema_fidelity_translators::walk;
use serde_json::Value;

/// The base URI of a document without `$id`.
const DOCUMENT_BASE: &str = "urn:schema-fidelity:witness:document";

/// A node's identity: its address inside the borrowed document.
pub(crate) fn address(node: &Value) -> usize {
    std::ptr::from_ref(node) as usize
}

/// The schema resources, anchors and base URIs of one document.
pub(crate) struct Index<'a> {
    resources: HashMap<String, &'a Value>,
    anchors: HashMap<(String, String), &'a Value>,
    bases: HashMap<usize, String>,
}

impl<'a> Index<'a> {
    /// Index every schema position of `root`. The walk is iterative and stops at
    /// [`walk::MAX_DEPTH`], like every walk in this project.
    pub(crate) fn new(root: &'a Value) -> Self {
        let mut index = Index { resources: HashMap::new(), anchors: HashMap::new(), bases: HashMap::new() };
        index.resources.insert(DOCUMENT_BASE.to_owned(), root);
        let mut stack = vec![(root, DOCUMENT_BASE.to_owned(), 0usize)];
        while let Some((node, parent_base, depth)) = stack.pop() {
            if depth > walk::MAX_DEPTH {
                continue;
            }
            let mut base = parent_base;
            if let Some(id) = node.get("$id").and_then(Value::as_str) {
                base = strip_fragment(&join(&base, id)).to_owned();
                index.resources.insert(base.clone(), node);
            }
            for keyword in ["$anchor", "$dynamicAnchor"] {
                if let Some(name) = node.get(keyword).and_then(Value::as_str) {
                    index.anchors.entry((base.clone(), name.to_owned())).or_insert(node);
                }
            }
            index.bases.insert(address(node), base.clone());
            for child in walk::children(node) {
                stack.push((child.schema, base.clone(), depth + 1));
            }
        }
        index
    }

    /// The node `reference` (a `$ref` value) names, seen from `from`.
    pub(crate) fn resolve(&self, from: &Value, reference: &str) -> Option<&'a Value> {
        let base = self.bases.get(&address(from)).map_or(DOCUMENT_BASE, String::as_str);
        let (uri, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let target = if uri.is_empty() { base.to_owned() } else { strip_fragment(&join(base, uri)).to_owned() };
        let resource = self.resources.get(&target)?;
        let fragment = schema_fidelity_translators::walk::percent_decode(fragment).unwrap_or_else(|| fragment.to_owned());
        if fragment.is_empty() {
            Some(resource)
        } else if fragment.starts_with('/') {
            resource.pointer(&fragment)
        } else {
            self.anchors.get(&(target, fragment)).copied()
        }
    }
}

fn strip_fragment(uri: &str) -> &str {
    uri.split_once('#').map_or(uri, |(u, _)| u)
}

/// Whether `s` starts with a URI scheme (`https:`, `urn:`, ...).
fn has_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Resolve `reference` against `base` (RFC 3986 section 5.2, the common cases). A relative
/// reference against a base without hierarchy (`urn:`) is returned as it is, so it finds nothing.
fn join(base: &str, reference: &str) -> String {
    if has_scheme(reference) {
        return reference.to_owned();
    }
    let Some((scheme, rest)) = base.split_once("://") else {
        return if reference.is_empty() { base.to_owned() } else { reference.to_owned() };
    };
    if let Some(authority_relative) = reference.strip_prefix("//") {
        return format!("{scheme}://{authority_relative}");
    }
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    let path = strip_fragment(path);
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let merged = if let Some(absolute) = reference.strip_prefix('/') {
        absolute.to_owned()
    } else if reference.is_empty() {
        path.to_owned()
    } else {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        if dir.is_empty() { reference.to_owned() } else { format!("{dir}/{reference}") }
    };
    format!("{scheme}://{authority}/{}", remove_dot_segments(&merged))
}

fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_anchors_and_embedded_resources_resolve() {
        let doc = json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "a": {"$anchor": "here", "type": "integer"},
                "b": {"$id": "nested/b.json", "$defs": {"c": {"type": "string"}}},
                "pct": {"type": "null"}
            }
        });
        let index = Index::new(&doc);
        assert_eq!(index.resolve(&doc, "#/$defs/a"), Some(&doc["$defs"]["a"]));
        assert_eq!(index.resolve(&doc, "#here"), Some(&doc["$defs"]["a"]));
        assert_eq!(index.resolve(&doc, "nested/b.json#/$defs/c"), Some(&doc["$defs"]["b"]["$defs"]["c"]));
        assert_eq!(index.resolve(&doc["$defs"]["b"], "#/$defs/c"), Some(&doc["$defs"]["b"]["$defs"]["c"]));
        assert_eq!(index.resolve(&doc["$defs"]["b"], "../root.json#/$defs/%70ct"), Some(&doc["$defs"]["pct"]));
        assert_eq!(index.resolve(&doc, "https://other.example/x.json"), None);
    }

    #[test]
    fn joins_follow_rfc_3986() {
        assert_eq!(join("https://a.example/x/y.json", "z.json"), "https://a.example/x/z.json");
        assert_eq!(join("https://a.example/x/y.json", "../z.json"), "https://a.example/z.json");
        assert_eq!(join("https://a.example/x/y.json", "/z.json"), "https://a.example/z.json");
        assert_eq!(join("urn:x:y", "urn:x:z"), "urn:x:z");
    }
}
