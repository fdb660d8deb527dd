//! What a limit counts, measured by the oracle on the source and on the projection.
//!
//! A refusal citing a limit passes only when the source exceeds it by the oracle's own count, and
//! a projection over one of its target's limits fails. Each [`Counts`] is one way of counting;
//! a target or a table says which its limit uses (`counts:`).

use std::collections::{BTreeSet, HashMap};

use schema_fidelity_translators::locate::target_at;
use schema_fidelity_translators::{vocabulary, walk};
use serde_json::Value;

/// One way of measuring a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Counts {
    /// Levels of object schemas (a node whose `type` admits `object`, or that declares
    /// `properties`) on a path, the root being level 1; references are not followed, and each
    /// definition (`$defs`, `definitions`) counts from its own root (OpenAI strict).
    ObjectDepth,
    /// Levels of `properties` on a path (the root is level 0), following local references, each
    /// definition once per path (walle's count for Moonshot).
    PropertyDepth,
    /// Nesting of subschemas on a path, local references followed (each once per path): the
    /// walker's bound.
    SchemaDepth,
    /// Object properties declared in the whole schema, definitions included.
    Properties,
    /// Values of every `enum`, plus one per `const`, in the whole schema.
    EnumValues,
    /// The largest total string length of one `enum` holding more than 250 values (OpenAI's rule
    /// for large enums); 0 when no enum is that large.
    LargeEnumStringLength,
    /// Characters of property names, definition names, string `enum` values and string `const`
    /// values, in total.
    StringLength,
    /// Schema nodes with every local reference inlined (a cycle counted once).
    SchemaSize,
    /// `$schema` values that are not draft 2020-12's meta-schema.
    ForeignMetaSchemas,
    /// Property names walle reserves for keywords (`$defs`, `$ref`, `anyOf`, `required`,
    /// `additionalProperties`).
    ReservedPropertyNames,
    /// Keys holding a `/` anywhere inside an entry of the root `$defs` (property names, pattern
    /// keys, payloads).
    SlashKeysInDefs,
}

const ALL: [(Counts, &str); 11] = [
    (Counts::ObjectDepth, "object-depth"),
    (Counts::PropertyDepth, "property-depth"),
    (Counts::SchemaDepth, "schema-depth"),
    (Counts::Properties, "properties"),
    (Counts::EnumValues, "enum-values"),
    (Counts::LargeEnumStringLength, "large-enum-string-length"),
    (Counts::StringLength, "string-length"),
    (Counts::SchemaSize, "schema-size"),
    (Counts::ForeignMetaSchemas, "foreign-meta-schemas"),
    (Counts::ReservedPropertyNames, "reserved-property-names"),
    (Counts::SlashKeysInDefs, "slash-keys-in-defs"),
];

/// Property names walle reserves.
const RESERVED: [&str; 5] = ["$defs", "$ref", "anyOf", "required", "additionalProperties"];

/// An `enum` counts for [`Counts::LargeEnumStringLength`] past this many values.
const LARGE_ENUM: usize = 250;

/// The draft 2020-12 meta-schema, as `$schema` names it.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// How deep [`measure`] follows references and subschemas before it stops counting deeper.
const MAX_STEPS: usize = 4 * walk::MAX_DEPTH;

impl Counts {
    /// The spelling in a target or table.
    #[must_use]
    pub fn name(self) -> &'static str {
        ALL.iter().find(|(c, _)| *c == self).map_or("", |(_, n)| n)
    }

    /// The value spelled `name`.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        ALL.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }

    /// Every spelling, in the order the lint lists them.
    #[must_use]
    pub fn names() -> Vec<&'static str> {
        ALL.iter().map(|(_, n)| *n).collect()
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `schema` measured by `counts`.
#[must_use]
pub fn measure(schema: &Value, counts: Counts) -> u64 {
    match counts {
        Counts::ObjectDepth => object_depth(schema),
        Counts::PropertyDepth => Deep::new(schema, true).depth(schema, "", 0),
        Counts::SchemaDepth => Deep::new(schema, false).depth(schema, "", 0),
        Counts::SchemaSize => Size { root: schema, memo: HashMap::new(), path: BTreeSet::new(), cuts: 0 }.size(schema, "", 0),
        Counts::SlashKeysInDefs => schema.get("$defs").and_then(Value::as_object).map_or(0, |defs| defs.values().map(slash_keys).sum()),
        other => tally(schema, other),
    }
}

fn is_object_schema(node: &Value) -> bool {
    let typed = match node.get("type") {
        Some(Value::String(t)) => t.eq_ignore_ascii_case("object"),
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str().is_some_and(|t| t.eq_ignore_ascii_case("object"))),
        _ => false,
    };
    typed || node.get("properties").is_some_and(Value::is_object)
}

fn object_depth(schema: &Value) -> u64 {
    let mut deepest = 0u64;
    let mut stack = vec![(schema, 0u64, 0usize)];
    while let Some((node, level, depth)) = stack.pop() {
        if depth > MAX_STEPS {
            continue;
        }
        let level = level + u64::from(is_object_schema(node));
        deepest = deepest.max(level);
        for child in walk::children(node) {
            let child_level = if vocabulary::holds_definitions(child.keyword) { 0 } else { level };
            stack.push((child.schema, child_level, depth + 1));
        }
    }
    deepest
}

/// Depth through references: the deepest path, a node entered at most once per path (a cycle is
/// walked once). Depths below a node are remembered when its walk cut no cycle short, so a chain
/// of definitions each referring twice to the next is not walked 2^n times.
struct Deep<'a> {
    root: &'a Value,
    properties_only: bool,
    memo: HashMap<String, u64>,
    path: BTreeSet<String>,
    cuts: usize,
}

impl<'a> Deep<'a> {
    fn new(root: &'a Value, properties_only: bool) -> Self {
        Self { root, properties_only, memo: HashMap::new(), path: BTreeSet::new(), cuts: 0 }
    }

    fn depth(&mut self, node: &Value, pointer: &str, steps: usize) -> u64 {
        if let Some(d) = self.memo.get(pointer) {
            return *d;
        }
        if steps > MAX_STEPS || !self.path.insert(pointer.to_owned()) {
            self.cuts += 1;
            return 0;
        }
        let cuts = self.cuts;
        let mut deepest = 0u64;
        for child in walk::children(node) {
            let step = u64::from(self.properties_only && child.keyword == "properties");
            let child_pointer = format!("{pointer}{}", child.pointer_suffix());
            deepest = deepest.max(step + self.depth(child.schema, &child_pointer, steps + 1));
        }
        if let Some(target) = node.get("$ref").and_then(Value::as_str).and_then(|r| target_at(self.root, r, pointer))
            && let Some(schema) = self.root.pointer(&target)
        {
            let below = self.depth(schema, &target, steps + 1);
            // The target stands for this node: its own level is not a level more.
            deepest = deepest.max(below.saturating_sub(u64::from(!self.properties_only)));
        }
        deepest += u64::from(!self.properties_only);
        self.path.remove(pointer);
        if self.cuts == cuts {
            self.memo.insert(pointer.to_owned(), deepest);
        }
        deepest
    }
}

/// Schema nodes with references inlined, each node entered at most once per path.
struct Size<'a> {
    root: &'a Value,
    memo: HashMap<String, u64>,
    path: BTreeSet<String>,
    cuts: usize,
}

impl Size<'_> {
    fn size(&mut self, node: &Value, pointer: &str, steps: usize) -> u64 {
        if let Some(n) = self.memo.get(pointer) {
            return *n;
        }
        if steps > MAX_STEPS || !self.path.insert(pointer.to_owned()) {
            self.cuts += 1;
            return 0;
        }
        let cuts = self.cuts;
        let mut n = 1u64;
        for child in walk::children(node) {
            let child_pointer = format!("{pointer}{}", child.pointer_suffix());
            n = n.saturating_add(self.size(child.schema, &child_pointer, steps + 1));
        }
        if let Some(target) = node.get("$ref").and_then(Value::as_str).and_then(|r| target_at(self.root, r, pointer))
            && let Some(schema) = self.root.pointer(&target)
        {
            n = n.saturating_add(self.size(schema, &target, steps + 1));
        }
        self.path.remove(pointer);
        if self.cuts == cuts {
            self.memo.insert(pointer.to_owned(), n);
        }
        n
    }
}

/// The counts that add up over every node.
fn tally(schema: &Value, counts: Counts) -> u64 {
    let chars = |s: &str| s.chars().count() as u64;
    let mut total = 0u64;
    let mut stack = vec![(schema, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_STEPS {
            continue;
        }
        let Some(map) = node.as_object() else { continue };
        let properties = map.get("properties").and_then(Value::as_object);
        let n: u64 = match counts {
            Counts::Properties => properties.map_or(0, |p| p.len() as u64),
            Counts::EnumValues => map.get("enum").and_then(Value::as_array).map_or(0, |e| e.len() as u64) + u64::from(map.contains_key("const")),
            Counts::LargeEnumStringLength => {
                let values = map.get("enum").and_then(Value::as_array).filter(|e| e.len() > LARGE_ENUM);
                let length = values.map_or(0, |e| e.iter().filter_map(Value::as_str).map(chars).sum());
                total = total.max(length);
                0
            }
            Counts::StringLength => {
                let names: u64 = properties.map_or(0, |p| p.keys().map(|k| chars(k)).sum());
                let defs: u64 = ["$defs", "definitions"].iter().filter_map(|k| map.get(*k).and_then(Value::as_object)).flat_map(|d| d.keys()).map(|k| chars(k)).sum();
                let values: u64 = map.get("enum").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(chars).sum();
                names + defs + values + map.get("const").and_then(Value::as_str).map_or(0, chars)
            }
            Counts::ForeignMetaSchemas => u64::from(map.get("$schema").is_some_and(|s| s.as_str().map(|s| s.trim_end_matches('#')) != Some(DRAFT_2020_12))),
            Counts::ReservedPropertyNames => properties.map_or(0, |p| p.keys().filter(|k| RESERVED.contains(&k.as_str())).count() as u64),
            Counts::ObjectDepth | Counts::SlashKeysInDefs | Counts::PropertyDepth | Counts::SchemaDepth | Counts::SchemaSize => 0,
        };
        total = total.saturating_add(n);
        for child in walk::children(node) {
            stack.push((child.schema, depth + 1));
        }
    }
    total
}

/// Keys holding a `/` anywhere in a JSON value.
fn slash_keys(v: &Value) -> u64 {
    match v {
        Value::Object(m) => m.iter().map(|(k, v)| u64::from(k.contains('/')) + slash_keys(v)).sum(),
        Value::Array(items) => items.iter().map(slash_keys).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested_objects(levels: usize) -> Value {
        let mut v = json!({"type": "object"});
        for _ in 1..levels {
            v = json!({"type": "object", "properties": {"a": v}});
        }
        v
    }

    #[test]
    fn object_depth_counts_objects_and_restarts_in_definitions() {
        assert_eq!(measure(&nested_objects(1), Counts::ObjectDepth), 1);
        assert_eq!(measure(&nested_objects(11), Counts::ObjectDepth), 11);
        let with_defs = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d"}}, "$defs": {"d": nested_objects(3)}});
        assert_eq!(measure(&with_defs, Counts::ObjectDepth), 3);
        // A union of objects is one level, not two.
        assert_eq!(measure(&json!({"type": "object", "properties": {"u": {"anyOf": [{"type": "object"}]}}}), Counts::ObjectDepth), 2);
    }

    #[test]
    fn property_depth_follows_references_once_per_path() {
        let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d"}}, "$defs": {"d": {"type": "object", "properties": {"b": {"type": "string"}}}}});
        assert_eq!(measure(&s, Counts::PropertyDepth), 2);
        let cycle = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"});
        assert_eq!(measure(&cycle, Counts::PropertyDepth), 1);
    }

    #[test]
    fn counts_over_the_whole_schema() {
        let s = json!({"type": "object", "properties": {"ab": {"enum": ["x", "yz"]}, "c": {"const": "q"}}, "$defs": {"def": {"type": "object", "properties": {"d": true}}}});
        assert_eq!(measure(&s, Counts::Properties), 3);
        assert_eq!(measure(&s, Counts::EnumValues), 3);
        assert_eq!(measure(&s, Counts::StringLength), 2 + 1 + 3 + 3 + 1 + 1);
        // The root, `ab`, `c`, `$defs/def` and its `d`.
        assert_eq!(measure(&s, Counts::SchemaSize), 5);
        assert_eq!(measure(&json!({"properties": {"$ref": {}, "anyOf": {}}}), Counts::ReservedPropertyNames), 2);
        assert_eq!(measure(&json!({"$schema": "http://json-schema.org/draft-07/schema#"}), Counts::ForeignMetaSchemas), 1);
        assert_eq!(measure(&json!({"$schema": "https://json-schema.org/draft/2020-12/schema"}), Counts::ForeignMetaSchemas), 0);
        assert_eq!(measure(&json!({"$defs": {"d": {"properties": {"a/b": {}}, "default": {"x/y": 1}}}}), Counts::SlashKeysInDefs), 2);
        let large: Vec<String> = (0..251).map(|i| format!("v{i:03}")).collect();
        assert_eq!(measure(&json!({"enum": large}), Counts::LargeEnumStringLength), 251 * 4);
        assert_eq!(measure(&json!({"enum": ["a"]}), Counts::LargeEnumStringLength), 0);
    }

    #[test]
    fn schema_depth_and_size_inline_references() {
        let s = json!({"properties": {"a": {"$ref": "#/$defs/d"}, "b": {"$ref": "#/$defs/d"}}, "$defs": {"d": {"items": {"type": "string"}}}});
        // root -> properties/a -> (d, standing for a) -> items
        assert_eq!(measure(&s, Counts::SchemaDepth), 3);
        // root, a, b, $defs/d, d/items, and d + items inlined under a and b.
        assert_eq!(measure(&s, Counts::SchemaSize), 9);
    }

    #[test]
    fn every_name_parses_back() {
        for name in Counts::names() {
            assert_eq!(Counts::parse(name).map(Counts::name), Some(name));
        }
    }
}
