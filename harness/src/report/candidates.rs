//! Instances for a schema that comes without any: what `check` compares source and projection on.
//!
//! A user's tool schema has no hand-written instances, and the differential check can only show a
//! deviation on an instance that exhibits it. This is a deliberately simple, deterministic source
//! of candidates: the values the schema itself offers (`const`, `enum`, `default`, `examples`),
//! one *typical* value per node (required keys with values of their declared type, numbers at
//! their bounds, strings of their minimum length or in their `format`), and *near misses* one step
//! outside each constraint (a bound crossed, a required key left out, an extra key, a wrong type,
//! an optional key sent as `null`). Whether each candidate is valid is decided afterwards by the
//! source schema itself, so a candidate never has to be right, only telling.
//!
//! It is not a witness generator: a `pattern` gets a few short strings, not a string built to
//! match it. The proptest generator (issue 3, `harness/src/witness/`) is meant to replace or
//! extend this: `check` takes its instances from any `Fn(&Value) -> Vec<Value>`, and
//! [`candidate_instances`] is only the default.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

/// At most this many candidates per schema.
pub const MAX_CANDIDATES: usize = 256;
/// At most this many values per schema node (typical first, then near misses).
const MAX_PER_NODE: usize = 32;
/// Nesting explored below the root; deeper nodes get their typical value only.
const MAX_NESTING: usize = 8;
/// `$ref` hops followed from one node.
const MAX_REF_HOPS: usize = 8;
/// Schema nodes expanded per schema (typical value and near misses); later ones get `null`.
const MAX_EXPANSIONS: usize = 2_000;
/// Near misses built per object schema: more than [`MAX_CANDIDATES`] (duplicates are dropped
/// later), far fewer than one per property and required name of a large object.
const MAX_MISSES_PER_OBJECT: usize = 2 * MAX_CANDIDATES;
/// Members in all the near misses of one object schema: each is a copy of the typical object, so
/// an object with thousands of required names gets fewer of them (at least a few).
const MAX_MISS_MEMBERS: usize = 1 << 18;
/// The key added to objects to probe `additionalProperties` and friends.
pub const EXTRA_KEY: &str = "zz_extra";

/// Candidate instances for `schema`, deduplicated, at most [`MAX_CANDIDATES`].
#[must_use]
pub fn candidate_instances(schema: &Value) -> Vec<Value> {
    let generator = Generator { root: schema, budget: Cell::new(MAX_EXPANSIONS) };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for v in generator.values(schema, 0) {
        if out.len() >= MAX_CANDIDATES {
            break;
        }
        if seen.insert(v.to_string()) {
            out.push(v);
        }
    }
    out
}

struct Generator<'a> {
    root: &'a Value,
    /// Schema nodes still to expand; a recursive schema with many properties would otherwise
    /// expand exponentially in [`MAX_NESTING`].
    budget: Cell<usize>,
}

impl<'a> Generator<'a> {
    /// Follow local `$ref`s (`#/...` pointers) from `schema`, a bounded number of hops.
    fn resolve(&self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..MAX_REF_HOPS {
            let Some(target) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|p| self.root.pointer(&schema_fidelity_translators::walk::percent_decode(p).unwrap_or_else(|| p.to_owned())))
            else {
                break;
            };
            schema = target;
        }
        schema
    }

    /// Values for `schema`: its typical value first, then the values it offers, then near misses.
    fn values(&self, schema: &'a Value, depth: usize) -> Vec<Value> {
        let Value::Object(own) = schema else { return vec![Value::Null] };
        let target = self.resolve(schema);
        let Value::Object(node) = target else { return vec![Value::Null] };
        let mut offered = offered_values(own);
        if !std::ptr::eq(own, node) {
            offered.extend(offered_values(node));
        }
        // A node with a fixed value set: its values, then one step outside.
        if node.contains_key("const") || node.contains_key("enum") {
            offered.extend([json!("zz-not-listed"), json!(987_654_321), Value::Null]);
            return cap(offered, depth);
        }
        let remaining = self.budget.get();
        let expand = depth < MAX_NESTING && remaining > 0;
        self.budget.set(remaining.saturating_sub(1));
        let types = types_of(node);
        let mut typical = Vec::new();
        let mut misses = Vec::new();
        for t in &types {
            let (value, near) = self.typed(node, t, depth, expand);
            typical.push(value);
            misses.extend(near);
        }
        let mut out = Vec::new();
        out.extend(typical.first().cloned());
        out.extend(offered);
        out.extend(typical.into_iter().skip(1));
        if expand {
            for branch_key in ["anyOf", "oneOf", "allOf"] {
                for branch in node.get(branch_key).and_then(Value::as_array).into_iter().flatten() {
                    out.extend(self.values(branch, depth + 1).into_iter().take(MAX_PER_NODE / 4));
                }
            }
            out.extend(misses);
        }
        // One value of a type the node does not declare.
        if !types.is_empty() {
            out.push(if types.iter().any(|t| t == "string") { json!(1) } else { json!("x") });
            if !types.iter().any(|t| t == "null") {
                out.push(Value::Null);
            }
        }
        if out.is_empty() {
            out.push(Value::Null);
        }
        cap(out, depth)
    }

    /// The values of a subschema, or just `null` once the nesting or budget runs out.
    fn child(&self, schema: &'a Value, depth: usize, expand: bool) -> Vec<Value> {
        if expand { self.values(schema, depth + 1) } else { vec![Value::Null] }
    }

    /// The typical value of type `t` for `node`, and its near misses (when `expand`).
    fn typed(&self, node: &'a Map<String, Value>, t: &str, depth: usize, expand: bool) -> (Value, Vec<Value>) {
        match t {
            "null" => (Value::Null, Vec::new()),
            "boolean" => (json!(true), vec![json!(false)]),
            "integer" | "number" => {
                let typical = if t == "integer" { integer_typical(node) } else { number_typical(node) };
                (typical, number_misses(node, t))
            }
            "string" => (string_typical(node), string_misses(node)),
            "array" => self.array(node, depth, expand),
            "object" => self.object(node, depth, expand),
            _ => (Value::Null, Vec::new()),
        }
    }

    fn array(&self, node: &'a Map<String, Value>, depth: usize, expand: bool) -> (Value, Vec<Value>) {
        let min = count(node, "minItems").unwrap_or(0);
        let item_values = node.get("items").map_or_else(|| vec![json!("x"), json!(1)], |s| self.child(s, depth, expand));
        let fill = item_values.first().cloned().unwrap_or(Value::Null);
        let mut items: Vec<Value> = node
            .get("prefixItems")
            .and_then(Value::as_array)
            .map(|p| p.iter().map(|s| self.child(s, depth, expand).into_iter().next().unwrap_or(Value::Null)).collect())
            .unwrap_or_default();
        while items.len() < min && items.len() < 16 {
            items.push(fill.clone());
        }
        let mut misses = Vec::new();
        if min > 0 {
            misses.push(Value::Array(items.iter().take(min - 1).cloned().collect()));
        }
        if let Some(n) = count(node, "maxItems") {
            misses.push(Value::Array(vec![fill.clone(); n.saturating_add(1).min(64)]));
        }
        for v in item_values.iter().take(MAX_PER_NODE / 2) {
            let mut arr = items.clone();
            arr.push(v.clone());
            misses.push(Value::Array(arr));
        }
        misses.push(json!([fill.clone(), fill]));
        (Value::Array(items), misses)
    }

    fn object(&self, node: &'a Map<String, Value>, depth: usize, expand: bool) -> (Value, Vec<Value>) {
        let required = required(node);
        let properties: Vec<(&String, Vec<Value>)> = node
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.iter().map(|(k, s)| (k, self.child(s, depth, expand))).collect())
            .unwrap_or_default();
        // Looked up by name, not searched: an object with thousands of properties and required
        // names would otherwise cost their product.
        let by_name: HashMap<&str, &Vec<Value>> = properties.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let is_required: HashSet<&str> = required.iter().copied().collect();
        let first = |key: &str| by_name.get(key).and_then(|v| v.first().cloned()).unwrap_or(Value::Null);
        let mut typical = Map::new();
        for key in &required {
            typical.insert((*key).to_owned(), first(key));
        }
        // Each miss below is a copy of the typical object; past what the caller keeps they would
        // only cost memory (a copy per required name is quadratic in `required`).
        let mut misses = Vec::new();
        let most = MAX_MISSES_PER_OBJECT.min((MAX_MISS_MEMBERS / typical.len().max(1)).max(8));
        let room = |misses: &Vec<Value>| misses.len() < most;
        // Every declared property present, then each optional one alone, then as `null`.
        let mut full = typical.clone();
        for (key, values) in &properties {
            full.entry((*key).clone()).or_insert_with(|| values.first().cloned().unwrap_or(Value::Null));
        }
        misses.push(Value::Object(full));
        for (key, values) in properties.iter().filter(|(k, _)| !is_required.contains(k.as_str())) {
            if !room(&misses) {
                break;
            }
            let mut with = typical.clone();
            with.insert((*key).clone(), values.first().cloned().unwrap_or(Value::Null));
            misses.push(Value::Object(with));
            let mut null = typical.clone();
            null.insert((*key).clone(), Value::Null);
            misses.push(Value::Object(null));
        }
        for key in required.iter().take(most.saturating_sub(misses.len())) {
            let mut without = typical.clone();
            without.remove(*key);
            misses.push(Value::Object(without));
        }
        let mut extra = typical.clone();
        extra.insert(EXTRA_KEY.to_owned(), json!("x"));
        misses.push(Value::Object(extra));
        misses.push(Value::Object(Map::new()));
        // Each property's own values, set one at a time into the typical object.
        'properties: for (key, values) in &properties {
            for v in values.iter().skip(1).take(MAX_PER_NODE / 2) {
                if !room(&misses) {
                    break 'properties;
                }
                let mut with = typical.clone();
                with.insert((*key).clone(), v.clone());
                misses.push(Value::Object(with));
            }
        }
        (Value::Object(typical), misses)
    }
}

fn number_misses(node: &Map<String, Value>, t: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let step = if t == "integer" { 1.0 } else { 0.5 };
    for (key, delta) in [("minimum", -step), ("exclusiveMinimum", 0.0), ("maximum", step), ("exclusiveMaximum", 0.0)] {
        if let Some(bound) = node.get(key).and_then(Value::as_f64) {
            out.push(number(bound + delta));
            out.push(number(bound));
        }
    }
    if let Some(m) = node.get("multipleOf").and_then(Value::as_f64) {
        out.push(number(m / 2.0));
        out.push(number(m * 3.0));
    }
    if t == "integer" {
        out.push(json!(1.5));
    }
    out.push(json!(-1));
    out
}

fn string_misses(node: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    let cap = max_length();
    // One short of a `minLength` beyond the cap would itself be beyond it (`minLength:
    // 1000000000` is a gigabyte): not built; `check` says the bound is beyond the generator.
    if let Some(n) = count(node, "minLength").filter(|n| n.saturating_sub(1) <= cap) {
        out.push(Value::String("a".repeat(n.saturating_sub(1))));
    }
    if let Some(n) = count(node, "maxLength") {
        out.push(Value::String("a".repeat(n.saturating_add(1).min(cap))));
    }
    if node.contains_key("pattern") {
        out.extend(["", "a", "abc", "A1", "0", "a b", "-"].map(Value::from));
    }
    if let Some(f) = node.get("format").and_then(Value::as_str) {
        out.push(Value::from(if f == "regex" { "(" } else { "not a valid value" }));
    }
    out
}

/// The values a node offers itself: `const`, `enum`, `default`, `examples`.
fn offered_values(node: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    out.extend(node.get("const").cloned());
    out.extend(node.get("enum").and_then(Value::as_array).into_iter().flatten().cloned());
    out.extend(node.get("default").cloned());
    out.extend(node.get("examples").and_then(Value::as_array).into_iter().flatten().cloned());
    out
}

/// The node's declared types, or the ones its keywords imply.
fn types_of(node: &Map<String, Value>) -> Vec<String> {
    match node.get("type") {
        Some(Value::String(t)) => return vec![t.clone()],
        Some(Value::Array(ts)) => return ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => {}
    }
    let has = |keys: &[&str]| keys.iter().any(|k| node.contains_key(*k));
    let mut out = Vec::new();
    if has(&["properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "propertyNames"]) {
        out.push("object".to_owned());
    }
    if has(&["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"]) {
        out.push("array".to_owned());
    }
    if has(&["minLength", "maxLength", "pattern", "format"]) {
        out.push("string".to_owned());
    }
    if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
        out.push("number".to_owned());
    }
    out
}

fn required(node: &Map<String, Value>) -> Vec<&str> {
    node.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

fn count(node: &Map<String, Value>, key: &str) -> Option<usize> {
    node.get(key).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok())
}

fn integer_typical(node: &Map<String, Value>) -> Value {
    let min = node.get("minimum").and_then(Value::as_f64).or_else(|| node.get("exclusiveMinimum").and_then(Value::as_f64).map(|m| m.floor() + 1.0));
    let mut v = min.unwrap_or(0.0).ceil();
    if let Some(m) = node.get("multipleOf").and_then(Value::as_f64).filter(|m| *m > 0.0) {
        v = (v / m).ceil() * m;
    }
    number(v)
}

fn number_typical(node: &Map<String, Value>) -> Value {
    let min = node.get("minimum").and_then(Value::as_f64).or_else(|| node.get("exclusiveMinimum").and_then(Value::as_f64).map(|m| m + 1.0));
    let mut v = min.unwrap_or(0.0);
    if let Some(m) = node.get("multipleOf").and_then(Value::as_f64).filter(|m| *m > 0.0) {
        v = (v / m).ceil() * m;
    }
    number(v)
}

fn string_typical(node: &Map<String, Value>) -> Value {
    if let Some(sample) = node.get("format").and_then(Value::as_str).and_then(format_sample) {
        return Value::from(sample);
    }
    let n = count(node, "minLength").unwrap_or(1).clamp(1, max_length().max(1));
    Value::String("a".repeat(n))
}

/// The longest string built ([`crate::budget::STRING_LENGTH`]).
fn max_length() -> usize {
    usize::try_from(crate::budget::string_length()).unwrap_or(usize::MAX)
}

/// A valid value of each draft 2020-12 format.
fn format_sample(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" => "2024-01-02T03:04:05Z",
        "date" => "2024-01-02",
        "time" => "03:04:05Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uri" | "iri" => "https://example.com/a",
        "uri-reference" | "iri-reference" => "/a",
        "uri-template" => "https://example.com/{id}",
        "uuid" => "123e4567-e89b-12d3-a456-426614174000",
        "json-pointer" => "/a/b",
        "relative-json-pointer" => "0/a",
        "regex" => "^a+$",
        _ => return None,
    })
}

/// A JSON number: an integer when it is whole (JSON Schema counts `1.0` as an integer anyway), else
/// a float.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)] // whole and within i64, checked above
        return json!(v as i64);
    }
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// Nested nodes keep their first [`MAX_PER_NODE`] values (typical first); the root keeps all, and
/// [`candidate_instances`] caps the total.
fn cap(mut v: Vec<Value>, depth: usize) -> Vec<Value> {
    if depth > 0 {
        v.truncate(MAX_PER_NODE);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(c: &[Value], v: &Value) -> bool {
        c.contains(v)
    }

    #[test]
    fn an_object_gets_its_required_keys_and_one_miss_per_constraint() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "minLength": 2, "pattern": "^[a-z]+$" },
                "n": { "type": "integer", "minimum": 1, "maximum": 5 },
                "tag": { "enum": ["a", "b"] }
            },
            "required": ["name", "n"],
            "additionalProperties": false
        });
        let c = candidate_instances(&schema);
        assert_eq!(c[0], json!({ "name": "aa", "n": 1 }), "the typical instance comes first");
        assert!(has(&c, &json!({ "name": "aa", "n": 0 })), "below minimum");
        assert!(has(&c, &json!({ "name": "aa", "n": 6 })), "above maximum");
        assert!(has(&c, &json!({ "name": "a", "n": 1 })), "below minLength");
        assert!(has(&c, &json!({ "n": 1 })), "a required key left out");
        assert!(has(&c, &json!({ "name": "aa", "n": 1, EXTRA_KEY: "x" })), "an extra key");
        assert!(has(&c, &json!({ "name": "aa", "n": 1, "tag": null })), "an optional key as null");
        assert!(has(&c, &json!({ "name": "aa", "n": 1, "tag": "zz-not-listed" })), "outside the enum");
        assert!(has(&c, &json!({ "name": "A1", "n": 1 })), "a pattern probe");
    }

    #[test]
    fn offered_values_and_local_refs_are_used() {
        let schema = json!({
            "type": "object",
            "properties": { "when": { "$ref": "#/$defs/day" } },
            "required": ["when"],
            "examples": [{ "when": "2020-02-02" }],
            "$defs": { "day": { "type": "string", "format": "date" } }
        });
        let c = candidate_instances(&schema);
        assert_eq!(c[0], json!({ "when": "2024-01-02" }));
        assert!(has(&c, &json!({ "when": "2020-02-02" })), "the schema's own example");
        assert!(has(&c, &json!({ "when": "not a valid value" })), "a format miss");
    }

    #[test]
    fn huge_bounds_and_long_lists_build_small_candidates() {
        // `minLength` one below `u64::MAX` used to be allocated (a capacity-overflow panic) and
        // `minLength: 1000000000` a gigabyte; a `required` list of 50,000 names a copy of the
        // object per name (gigabytes).
        for n in [u64::MAX, 1_000_000_000] {
            let schema = json!({"type": "object", "properties": {"s": {"type": "string", "minLength": n, "maxLength": n}}, "required": ["s"]});
            let c = candidate_instances(&schema);
            let longest = c.iter().map(|v| v.to_string().len()).max().unwrap_or(0);
            let cap = usize::try_from(crate::budget::STRING_LENGTH.default).unwrap_or(usize::MAX);
            assert!(longest <= cap + 32, "a candidate of {longest} bytes, beyond the string length budget");
        }
        let names: Vec<String> = (0..50_000).map(|i| format!("k{i}")).collect();
        let c = candidate_instances(&json!({"type": "object", "required": names, "maxItems": u64::MAX, "items": {}}));
        let members: usize = c.iter().filter_map(Value::as_object).map(Map::len).sum();
        assert!(members <= MAX_MISS_MEMBERS + 4 * 50_000, "{members} members in all");
        assert!(c.len() <= MAX_CANDIDATES);
    }

    #[test]
    fn recursion_is_bounded() {
        let schema = json!({ "$ref": "#", "type": "object", "properties": { "a": { "$ref": "#" } }, "required": ["a"] });
        let c = candidate_instances(&schema);
        assert!(!c.is_empty() && c.len() <= MAX_CANDIDATES);
    }
}
