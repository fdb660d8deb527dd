//! What `openai-strict` and `openai-responses` both need to reason about a source schema without
//! changing its meaning: JSON Schema equality, the JSON types a node admits, where a `#` reference
//! lands, and when the branches of a `oneOf` provably exclude each other.
//!
//! Both translators rewrite `oneOf` into `anyOf` (strict mode and the Responses API reject
//! `oneOf`). That rewrite is exact only when no instance can match two branches, so the
//! disjointness test here is deliberately conservative: it answers `true` only on evidence
//! (disjoint types, disjoint value sets, or a required key whose `const`/`enum` tags differ), and
//! the tables call the rewrite a widening for every other case.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::walk;

pub(crate) use crate::equality::json_eq;

/// Whether a number is an integer in the JSON Schema sense (`1.0` is).
#[must_use]
pub(crate) fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// A set of JSON types. `number` is split into its integral and fractional parts so that
/// `number ∩ integer = integer` is a plain intersection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Types(u8);

impl Types {
    pub(crate) const NULL: Self = Self(1);
    pub(crate) const BOOLEAN: Self = Self(1 << 1);
    pub(crate) const OBJECT: Self = Self(1 << 2);
    pub(crate) const ARRAY: Self = Self(1 << 3);
    pub(crate) const STRING: Self = Self(1 << 4);
    pub(crate) const INTEGER: Self = Self(1 << 5);
    /// Numbers that are not integers.
    pub(crate) const FRACTION: Self = Self(1 << 6);
    pub(crate) const NUMBER: Self = Self(Self::INTEGER.0 | Self::FRACTION.0);
    pub(crate) const ALL: Self = Self(0x7f);
    /// The types whose instances have no children.
    pub(crate) const SCALARS: Self = Self(Self::NULL.0 | Self::BOOLEAN.0 | Self::STRING.0 | Self::NUMBER.0);

    #[must_use]
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[must_use]
    pub(crate) fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    #[must_use]
    pub(crate) fn and(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    #[must_use]
    pub(crate) fn or(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    #[must_use]
    pub(crate) fn is_subset_of(self, other: Self) -> bool {
        self.0 & !other.0 == 0
    }

    /// The type named by a `type` keyword entry.
    #[must_use]
    pub(crate) fn named(name: &str) -> Option<Self> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "string" => Self::STRING,
            "integer" => Self::INTEGER,
            "number" => Self::NUMBER,
            _ => return None,
        })
    }

    /// The types a `type` keyword admits, or `None` when its value is malformed.
    #[must_use]
    pub(crate) fn of_keyword(value: &Value) -> Option<Self> {
        match value {
            Value::String(s) => Self::named(s),
            Value::Array(names) => names.iter().try_fold(Self::default(), |acc, n| Some(acc.or(Self::named(n.as_str()?)?))),
            _ => None,
        }
    }

    /// The type of one instance.
    #[must_use]
    pub(crate) fn of_value(value: &Value) -> Self {
        match value {
            Value::Null => Self::NULL,
            Value::Bool(_) => Self::BOOLEAN,
            Value::Object(_) => Self::OBJECT,
            Value::Array(_) => Self::ARRAY,
            Value::String(_) => Self::STRING,
            Value::Number(n) if is_integral(n) => Self::INTEGER,
            Value::Number(_) => Self::FRACTION,
        }
    }

    /// Whether an instance has one of these types.
    #[must_use]
    pub(crate) fn admits(self, value: &Value) -> bool {
        self.intersects(Self::of_value(value))
    }

    /// The `type` keyword value naming exactly these types (a string for one, a list otherwise).
    /// Fractions alone are spelled `number`: they only arise from `enum` values, which keep the
    /// integers out themselves.
    #[must_use]
    pub(crate) fn to_keyword(self) -> Value {
        let mut names = Vec::new();
        for (bit, name) in [(Self::STRING, "string"), (Self::BOOLEAN, "boolean"), (Self::OBJECT, "object"), (Self::ARRAY, "array")] {
            if self.intersects(bit) {
                names.push(name);
            }
        }
        if self.intersects(Self::FRACTION) {
            names.push("number");
        } else if self.intersects(Self::INTEGER) {
            names.push("integer");
        }
        if self.intersects(Self::NULL) {
            names.push("null");
        }
        match names.as_slice() {
            [one] => Value::from(*one),
            _ => Value::from(names),
        }
    }
}

/// The values a node is restricted to by `const` and `enum` (their intersection), or `None`
/// when it has neither.
#[must_use]
pub(crate) fn value_set(node: &serde_json::Map<String, Value>) -> Option<Vec<Value>> {
    let from_enum = node.get("enum").and_then(Value::as_array).cloned();
    match (node.get("const"), from_enum) {
        (Some(c), Some(values)) => Some(if values.iter().any(|v| json_eq(v, c)) { vec![c.clone()] } else { Vec::new() }),
        (Some(c), None) => Some(vec![c.clone()]),
        (None, values) => values,
    }
}

/// Where `#` references land: every schema node's resource (the nearest enclosing `$id`) and every
/// `$anchor`/`$dynamicAnchor`, so that a fragment can be resolved to a JSON pointer into the
/// document.
#[derive(Debug, Clone)]
pub(crate) struct Resolver<'a> {
    root: &'a Value,
    /// Schema node pointer -> pointer of its resource root.
    bases: BTreeMap<String, String>,
    /// (resource root, anchor name) -> pointer of the anchored node.
    anchors: BTreeMap<(String, String), String>,
}

impl<'a> Resolver<'a> {
    /// Index `root`.
    ///
    /// # Errors
    /// [`walk::TooDeep`] past [`walk::MAX_DEPTH`].
    pub(crate) fn new(root: &'a Value) -> Result<Self, walk::TooDeep> {
        let mut bases = BTreeMap::new();
        let mut anchors = BTreeMap::new();
        let mut stack = vec![(root, String::new(), String::new(), 0usize)];
        while let Some((node, pointer, inherited, depth)) = stack.pop() {
            if depth > walk::MAX_DEPTH {
                return Err(walk::TooDeep { pointer });
            }
            let base = match node.get("$id") {
                Some(Value::String(_)) => pointer.clone(),
                _ => inherited,
            };
            for key in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(name)) = node.get(key) {
                    anchors.entry((base.clone(), name.clone())).or_insert_with(|| pointer.clone());
                }
            }
            for child in walk::children(node) {
                stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), base.clone(), depth + 1));
            }
            bases.insert(pointer, base);
        }
        Ok(Self { root, bases, anchors })
    }

    /// The resource root of the schema node at `pointer`.
    #[must_use]
    pub(crate) fn base_of(&self, pointer: &str) -> &str {
        self.bases.get(pointer).map_or("", String::as_str)
    }

    /// The document pointer a `#` reference held by the node at `at` lands on, when it is a
    /// fragment that resolves to a schema (object or boolean) in this document.
    #[must_use]
    pub(crate) fn resolve(&self, reference: &str, at: &str) -> Option<String> {
        let fragment = crate::walk::percent_decode(reference.strip_prefix('#')?)?;
        let base = self.base_of(at);
        let target = if fragment.is_empty() {
            base.to_owned()
        } else if fragment.starts_with('/') {
            format!("{base}{fragment}")
        } else {
            self.anchors.get(&(base.to_owned(), fragment))?.clone()
        };
        self.root.pointer(&target).filter(|v| walk::is_schema(v)).map(|_| target)
    }
}

/// Split a JSON pointer into its unescaped tokens.
#[must_use]
pub(crate) fn pointer_tokens(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect()
}

/// How a disjointness test follows a `$ref`: from the referencing node's document pointer and the
/// reference, to the pointer it lands on.
pub(crate) type Follow<'f> = &'f dyn Fn(&str, &str) -> Option<String>;

/// Whether no instance can match two of `branches` (given with their document pointers), so that
/// `oneOf` and `anyOf` over them accept the same instances.
#[must_use]
pub(crate) fn provably_disjoint(root: &Value, branches: &[(String, &Value)], follow: Follow<'_>) -> bool {
    let peeled: Vec<(String, &Value)> = branches.iter().map(|(p, b)| peel(root, p, b, follow)).collect();
    peeled.iter().enumerate().all(|(i, (pa, a))| peeled[i + 1..].iter().all(|(pb, b)| pair_disjoint(root, (pa, a), (pb, b), follow)))
}

/// Follow a node that is only a `$ref` (beside annotations) to what it names, a bounded number of
/// times.
fn peel<'v>(root: &'v Value, pointer: &str, node: &'v Value, follow: Follow<'_>) -> (String, &'v Value) {
    let mut current = (pointer.to_owned(), node);
    for _ in 0..16 {
        let Some(map) = current.1.as_object() else { break };
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else { break };
        let only_ref = map.keys().all(|k| k == "$ref" || !constrains(k));
        let target = follow(&current.0, reference).and_then(|t| root.pointer(&t).map(|v| (t, v)));
        match target {
            Some(next) if only_ref => current = next,
            _ => break,
        }
    }
    current
}

/// Whether a keyword can reject an instance (as opposed to annotating it).
fn constrains(keyword: &str) -> bool {
    crate::vocabulary::is_keyword(keyword)
        && !matches!(
            keyword,
            "title" | "description" | "default" | "examples" | "deprecated" | "readOnly" | "writeOnly" | "$comment" | "$schema" | "$id"
                | "$anchor" | "$dynamicAnchor" | "$vocabulary" | "$defs" | "contentEncoding" | "contentMediaType" | "contentSchema"
        )
}

/// The JSON types a (peeled) branch can accept, judged from `type`, `const` and `enum` alone.
fn admitted_types(node: &Value) -> Types {
    let Some(map) = node.as_object() else {
        return if node == &Value::Bool(false) { Types::default() } else { Types::ALL };
    };
    let mut types = map.get("type").and_then(Types::of_keyword).unwrap_or(Types::ALL);
    if let Some(values) = value_set(map) {
        types = types.and(values.iter().fold(Types::default(), |acc, v| acc.or(Types::of_value(v))));
    }
    types
}

fn pair_disjoint(root: &Value, (pa, a): (&str, &Value), (pb, b): (&str, &Value), follow: Follow<'_>) -> bool {
    if !admitted_types(a).intersects(admitted_types(b)) {
        return true;
    }
    let (Some(ma), Some(mb)) = (a.as_object(), b.as_object()) else { return false };
    if let (Some(va), Some(vb)) = (value_set(ma), value_set(mb))
        && !va.iter().any(|x| vb.iter().any(|y| json_eq(x, y)))
    {
        return true;
    }
    // A discriminated union: both branches accept only objects, require the same key, and tag it
    // with disjoint values.
    if !(admitted_types(a).is_subset_of(Types::OBJECT) && admitted_types(b).is_subset_of(Types::OBJECT)) {
        return false;
    }
    let required = |m: &serde_json::Map<String, Value>| -> Vec<String> {
        m.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
    };
    let tag = |pointer: &str, m: &serde_json::Map<String, Value>, key: &str| -> Option<Vec<Value>> {
        let sub = m.get("properties")?.get(key)?;
        let sub_pointer = format!("{pointer}/properties/{}", walk::escape(key));
        let (_, sub) = peel(root, &sub_pointer, sub, follow);
        value_set(sub.as_object()?)
    };
    let required_b = required(mb);
    required(ma).iter().filter(|k| required_b.contains(k)).any(|k| match (tag(pa, ma, k), tag(pb, mb, k)) {
        (Some(va), Some(vb)) => !va.iter().any(|x| vb.iter().any(|y| json_eq(x, y))),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equality_is_by_value() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1, {"b": 2.0}]}), &json!({"a": [1.0, {"b": 2}]})));
        assert!(!json_eq(&json!(1), &json!(true)));
        assert!(!json_eq(&json!([0]), &json!([false])));
    }

    #[test]
    fn types_intersect_number_and_integer() {
        let number = Types::of_keyword(&json!("number")).unwrap();
        let integer = Types::of_keyword(&json!(["integer", "null"])).unwrap();
        assert_eq!(number.and(integer), Types::INTEGER);
        assert_eq!(Types::NULL.or(Types::STRING).to_keyword(), json!(["string", "null"]));
        assert!(Types::INTEGER.admits(&json!(2.0)));
        assert!(!Types::INTEGER.admits(&json!(2.5)));
        assert_eq!(Types::of_keyword(&json!(3)), None);
    }

    #[test]
    fn references_resolve_inside_their_resource() {
        let doc = json!({
            "properties": {
                "value": {"$id": "urn:x", "$defs": {"a": {"$anchor": "here", "type": "string"}}, "$ref": "#/$defs/a"},
                "b": {"$ref": "#/properties/value"},
                "c": {"$ref": "#/$defs/percent%25field"}
            },
            "$defs": {"percent%field": true}
        });
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.resolve("#/$defs/a", "/properties/value").as_deref(), Some("/properties/value/$defs/a"));
        assert_eq!(r.resolve("#here", "/properties/value").as_deref(), Some("/properties/value/$defs/a"));
        assert_eq!(r.resolve("#", "/properties/value/$defs/a").as_deref(), Some("/properties/value"));
        assert_eq!(r.resolve("#/properties/value", "/properties/b").as_deref(), Some("/properties/value"));
        assert_eq!(r.resolve("#/$defs/percent%25field", "/properties/c").as_deref(), Some("/$defs/percent%field"));
        assert_eq!(r.resolve("#/nowhere", ""), None);
        assert_eq!(r.resolve("other.json", ""), None);
    }

    fn disjoint(branches: &Value) -> bool {
        let doc = json!({"oneOf": branches});
        let list: Vec<(String, &Value)> =
            doc["oneOf"].as_array().unwrap().iter().enumerate().map(|(i, b)| (format!("/oneOf/{i}"), b)).collect();
        let resolver = Resolver::new(&doc).unwrap();
        provably_disjoint(&doc, &list, &|at, r| resolver.resolve(r, at))
    }

    #[test]
    fn disjointness_needs_evidence() {
        assert!(disjoint(&json!([{"type": "string"}, {"type": "integer"}])));
        assert!(disjoint(&json!([{"const": "a"}, {"enum": ["b", "c"]}])));
        assert!(disjoint(&json!([
            {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ])));
        // Tags that are not required do not separate: `{}` matches both.
        assert!(!disjoint(&json!([
            {"type": "object", "properties": {"kind": {"const": "a"}}},
            {"type": "object", "properties": {"kind": {"const": "b"}}}
        ])));
        // Without `type: object`, a string matches both branches.
        assert!(!disjoint(&json!([
            {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ])));
        assert!(!disjoint(&json!([{"type": "string", "minLength": 3}, {"type": "string"}])));
        assert!(!disjoint(&json!([{"type": "number"}, {"type": "integer"}])));
    }
}
