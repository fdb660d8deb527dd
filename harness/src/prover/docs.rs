//! One schema document as the prover reads it: its references resolved by the project's one
//! resolver, and validators for any of its subschemas, compiled on first use.
//!
//! A subschema is validated where it stands: the document is served (offline) under a URN of its
//! own and a one-line schema refers into it by JSON pointer, so every reference inside the
//! subschema resolves as it does in the whole document. A subschema is validated alone only where
//! that means what it means in place: never in a document with `$dynamicRef` (whose target depends
//! on the path taken from the root) or with an embedded `$id` (whose base the URN would move).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::{Retrieve, Uri};
use schema_fidelity_translators::{refs, walk};
use serde_json::Value;

use crate::retrieve::LocalRetriever;

/// The URN a document is served under while one of its subschemas is validated.
const DOCUMENT_URN: &str = "urn:schema-fidelity:prover:document";

/// One document: its root, its references, and validators of its subschemas.
pub(crate) struct Doc<'a> {
    pub root: &'a Value,
    resolver: refs::Resolver<'a>,
    /// Subschemas may be validated alone (see the module docs).
    validatable: bool,
    assert_formats: bool,
    remotes: Option<std::path::PathBuf>,
    validators: Mutex<HashMap<String, Option<Arc<jsonschema::Validator>>>>,
    /// Pointers whose subtree holds no reference, identifier or anchor: two such subtrees that are
    /// equal as JSON accept the same instances wherever they stand.
    self_contained: Mutex<HashMap<String, bool>>,
}

impl<'a> Doc<'a> {
    pub(crate) fn new(
        root: &'a Value,
        assert_formats: bool,
        remotes: Option<std::path::PathBuf>,
    ) -> Self {
        let validatable = !has_key_anywhere(
            root,
            &[
                "$dynamicRef",
                "$dynamicAnchor",
                "$recursiveRef",
                "$recursiveAnchor",
            ],
        ) && !has_embedded_id(root);
        Doc {
            root,
            resolver: refs::Resolver::within_depth(root),
            validatable,
            assert_formats,
            remotes,
            validators: Mutex::default(),
            self_contained: Mutex::default(),
        }
    }

    /// The value at a document pointer.
    pub(crate) fn at(&self, pointer: &str) -> Option<&'a Value> {
        self.root.pointer(pointer)
    }

    /// The pointer the reference `reference`, written at the node `at`, leads to.
    pub(crate) fn follow(&self, reference: &str, at: &str) -> Option<String> {
        self.resolver
            .follow(reference, at)
            .map(|(pointer, _)| pointer)
    }

    /// Whether the subschema at `pointer` accepts `instance`; `None` when it cannot be validated
    /// alone here (see the module docs) or does not compile.
    pub(crate) fn accepts(&self, pointer: &str, instance: &Value) -> Option<bool> {
        self.validator(pointer).map(|v| v.is_valid(instance))
    }

    fn validator(&self, pointer: &str) -> Option<Arc<jsonschema::Validator>> {
        if !self.validatable {
            return None;
        }
        if let Some(found) = self
            .validators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(pointer)
        {
            return found.clone();
        }
        let built = self.build(pointer).map(Arc::new);
        self.validators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(pointer.to_owned(), built.clone());
        built
    }

    fn build(&self, pointer: &str) -> Option<jsonschema::Validator> {
        let options =
            jsonschema::draft202012::options().should_validate_formats(self.assert_formats);
        if pointer.is_empty() {
            return options
                .with_retriever(LocalRetriever::new(self.remotes.clone()))
                .build(self.root)
                .ok();
        }
        // A subtree with no reference, identifier or anchor means alone what it means in place:
        // compiled alone, it costs its own size, not a copy and an index of the whole document
        // per subschema (quadratic on a tool with thousands of properties).
        if self.self_contained(pointer) {
            return options.with_retriever(LocalRetriever::new(self.remotes.clone())).build(self.at(pointer)?).ok();
        }
        // The root's own `$id` would be the base of every reference inside: served under the URN,
        // the document keeps it, and the pointer is read against the URN it was fetched by.
        let wrapper =
            serde_json::json!({ "$ref": format!("{DOCUMENT_URN}#{}", encode_fragment(pointer)) });
        let retriever = Serving {
            document: self.root.clone(),
            otherwise: LocalRetriever::new(self.remotes.clone()),
        };
        options.with_retriever(retriever).build(&wrapper).ok()
    }

    /// Whether the subtree at `pointer` holds no reference, identifier or anchor.
    pub(crate) fn self_contained(&self, pointer: &str) -> bool {
        if let Some(known) = self
            .self_contained
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(pointer)
        {
            return *known;
        }
        let answer = self.at(pointer).is_some_and(|v| {
            !has_key_anywhere(
                v,
                &[
                    "$ref",
                    "$dynamicRef",
                    "$id",
                    "$anchor",
                    "$dynamicAnchor",
                    "$recursiveRef",
                ],
            )
        });
        self.self_contained
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(pointer.to_owned(), answer);
        answer
    }
}

/// Serves one document under [`DOCUMENT_URN`], and the suite's remotes as [`LocalRetriever`] does.
struct Serving {
    document: Value,
    otherwise: LocalRetriever,
}

impl Retrieve for Serving {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.as_str().split('#').next() == Some(DOCUMENT_URN) {
            return Ok(self.document.clone());
        }
        self.otherwise.retrieve(uri)
    }
}

/// A JSON pointer as a URI fragment: everything but unreserved characters and `/` percent-encoded.
fn encode_fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for b in pointer.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether any schema position of `schema` (at most [`walk::MAX_DEPTH`] deep) holds one of `keys`;
/// `schema` may also be a list of subschemas.
pub(crate) fn has_key_anywhere(schema: &Value, keys: &[&str]) -> bool {
    let mut stack = vec![(schema, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > walk::MAX_DEPTH {
            return true;
        }
        if let Some(map) = node.as_object()
            && keys.iter().any(|k| map.contains_key(*k))
        {
            return true;
        }
        // A list of subschemas (an `anyOf`'s value, asked of as a whole): each entry is a schema.
        if let Value::Array(entries) = node {
            stack.extend(entries.iter().map(|e| (e, depth + 1)));
            continue;
        }
        stack.extend(
            walk::children(node)
                .into_iter()
                .map(|c| (c.schema, depth + 1)),
        );
    }
    false
}

/// Whether a schema below the root carries a string `$id` (an embedded resource).
fn has_embedded_id(root: &Value) -> bool {
    walk::children(root).iter().any(|c| id_below(c.schema))
}

fn id_below(schema: &Value) -> bool {
    let mut stack = vec![(schema, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > walk::MAX_DEPTH {
            return true;
        }
        if node.get("$id").is_some_and(Value::is_string) {
            return true;
        }
        stack.extend(
            walk::children(node)
                .into_iter()
                .map(|c| (c.schema, depth + 1)),
        );
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_subschema_is_validated_where_it_stands() {
        let doc = json!({
            "$defs": {"n": {"type": "integer", "minimum": 1}},
            "properties": {"a b/c~": {"type": "array", "items": {"$ref": "#/$defs/n"}}}
        });
        let d = Doc::new(&doc, true, None);
        let at = "/properties/a b~1c~0";
        assert_eq!(d.accepts(at, &json!([1, 2])), Some(true));
        assert_eq!(d.accepts(at, &json!([0])), Some(false));
        assert_eq!(d.accepts(&format!("{at}/items"), &json!(3)), Some(true));
        assert_eq!(d.accepts("", &json!({"a b/c~": [0]})), Some(false));
    }

    #[test]
    fn a_document_with_dynamic_references_is_not_validated_piecewise() {
        let doc = json!({"$dynamicAnchor": "x", "properties": {"a": {"$dynamicRef": "#x"}}});
        assert_eq!(
            Doc::new(&doc, true, None).accepts("/properties/a", &json!(1)),
            None
        );
    }
}
