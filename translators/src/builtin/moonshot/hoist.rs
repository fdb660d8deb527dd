//! Reference hoisting: every reference resolved (through embedded resources and anchors, by
//! [`crate::refs`]) and rewritten to `#` or `#/$defs/<plain name>`, its target copied into the
//! root `$defs`, and nested `$id`/`$anchor`/`$defs` removed.
//!
//! Separate because it runs first and alone: after it the document has walle's reference shape,
//! and the normal form ([`super::normal_form`]) never resolves a reference itself.

use std::collections::BTreeMap;

use serde_json::Value;

use super::limits::too_deep;
use crate::model::Refusal;
use crate::refs::{Charset, Names, Resolver};
use crate::walk;

/// The source with every reference rewritten to `#` or `#/$defs/<plain name>`, and the hoisted
/// definitions those names refer to.
pub(super) struct Hoisted {
    pub(super) root: Value,
    pub(super) defs: BTreeMap<String, Value>,
}

pub(super) struct Hoister<'a> {
    resolver: Resolver<'a>,
    /// Target names, and the worklist of targets named but not yet hoisted.
    names: Names,
}

impl<'a> Hoister<'a> {
    pub(super) fn run(document: &'a Value) -> Result<Hoisted, Refusal> {
        let resolver = Resolver::new(document).map_err(|e| too_deep(&e.to_string()))?;
        let mut hoister = Self { resolver, names: Names::new(document, Charset::Dotted) };
        let root = hoister.rewritten("")?;
        let mut defs = BTreeMap::new();
        while let Some((target, name)) = hoister.names.next_unwritten() {
            defs.insert(name, hoister.rewritten(&target)?);
        }
        Ok(Hoisted { root, defs })
    }

    /// A copy of the schema at `pointer` with references rewritten and resource keywords removed.
    fn rewritten(&mut self, pointer: &str) -> Result<Value, Refusal> {
        let node = self.resolver.at(pointer).cloned().unwrap_or(Value::Bool(true));
        self.rewrite(&node, pointer, pointer.is_empty(), 0)
    }

    fn rewrite(&mut self, node: &Value, pointer: &str, document_root: bool, depth: usize) -> Result<Value, Refusal> {
        if depth > walk::MAX_DEPTH {
            return Err(too_deep(&format!("schema nests too deep at `{pointer}`")));
        }
        let mapped = walk::map_children(node, |child| self.rewrite(child.schema, &format!("{pointer}{}", child.pointer_suffix()), false, depth + 1))?;
        let Value::Object(mut map) = mapped else { return Ok(mapped) };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            let target = self
                .resolver
                .resolve(&reference, pointer)
                .map_err(|_| Refusal::new("$ref", pointer, format!("`{reference}` does not name a schema in this document")))?;
            let rewritten = if target.is_empty() { "#".to_owned() } else { format!("#/$defs/{}", self.names.name(&target)) };
            map.insert("$ref".to_owned(), Value::from(rewritten));
        }
        // References now name the root or its `$defs`, so resource boundaries and anchors go; the
        // root's `$defs` is rebuilt from the hoisted targets.
        for key in ["$anchor", "$dynamicAnchor", "$defs", "definitions"] {
            map.remove(key);
        }
        if !document_root {
            map.remove("$id");
            map.remove("$schema");
        }
        Ok(Value::Object(map))
    }
}
