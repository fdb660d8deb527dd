//! The one JSON type set of the translators and the oracle, and the value set a node's
//! `const`/`enum` pins it to.
//!
//! `number` is split into its integral and fractional parts (`1.0` is integral, as draft 2020-12
//! says), so `number ∩ integer = integer` and `integer ∩ enum: [1.5] = ∅` are plain bit
//! operations. Value sets compare by [`json_eq`] (`1` equals `1.0`).

use serde_json::Value;

use crate::equality::json_eq;

/// Whether a number is an integer in the JSON Schema sense (`1.0` is).
#[must_use]
fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// A set of JSON types. `number` is split into its integral and fractional parts so that
/// `number ∩ integer = integer` is a plain intersection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Types(u8);

impl Types {
    pub const NULL: Self = Self(1);
    pub const BOOLEAN: Self = Self(1 << 1);
    pub const OBJECT: Self = Self(1 << 2);
    pub const ARRAY: Self = Self(1 << 3);
    pub const STRING: Self = Self(1 << 4);
    pub const INTEGER: Self = Self(1 << 5);
    /// Numbers that are not integers.
    pub const FRACTION: Self = Self(1 << 6);
    pub const NUMBER: Self = Self(Self::INTEGER.0 | Self::FRACTION.0);
    pub const ALL: Self = Self(0x7f);
    pub const NONE: Self = Self(0);
    /// The types whose instances have no children.
    pub const SCALARS: Self = Self(Self::NULL.0 | Self::BOOLEAN.0 | Self::STRING.0 | Self::NUMBER.0);

    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[must_use]
    pub fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    #[must_use]
    pub fn and(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    #[must_use]
    pub fn or(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    #[must_use]
    pub fn is_subset_of(self, other: Self) -> bool {
        self.0 & !other.0 == 0
    }

    /// The type named by a `type` keyword entry.
    #[must_use]
    pub fn named(name: &str) -> Option<Self> {
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
    pub fn of_keyword(value: &Value) -> Option<Self> {
        match value {
            Value::String(s) => Self::named(s),
            Value::Array(names) => names.iter().try_fold(Self::default(), |acc, n| Some(acc.or(Self::named(n.as_str()?)?))),
            _ => None,
        }
    }

    /// The type of one instance.
    #[must_use]
    pub fn of_value(value: &Value) -> Self {
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
    pub fn admits(self, value: &Value) -> bool {
        self.intersects(Self::of_value(value))
    }

    /// The `type` keyword value naming exactly these types (a string for one, a list otherwise).
    /// Fractions alone are spelled `number`: they only arise from `enum` values, which keep the
    /// integers out themselves.
    #[must_use]
    pub fn to_keyword(self) -> Value {
        match self.names().as_slice() {
            [one] => Value::from(*one),
            names => Value::from(names.to_vec()),
        }
    }
}

/// The type set read by JSON type *names*, for the translators that write `type` lists: `number`
/// covers `integer`, and alone stands for the fractions too (a set of fractions is written
/// `number`; no `type` name means "numbers that are not integers").
impl Types {
    /// The names, in a fixed order, one per type present: `number` when a fraction is admitted,
    /// else `integer` when an integer is.
    #[must_use]
    pub fn names(self) -> Vec<&'static str> {
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
        names
    }

    /// The one name these types go by, when one does.
    #[must_use]
    pub fn single(self) -> Option<&'static str> {
        match self.names().as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// Whether the set reaches the type `name` as [`Types::names`] spells it: `number` means the
    /// set admits non-integral numbers, `integer` that it admits integers.
    #[must_use]
    pub fn named_admits(self, name: &str) -> bool {
        match name {
            "number" => self.intersects(Self::FRACTION),
            other => Self::named(other).is_some_and(|t| self.intersects(t)),
        }
    }

    /// Whether a keyword whose domain is the type `domain` can apply (a `number` keyword applies
    /// to integers as well).
    #[must_use]
    pub fn meets(self, domain: &str) -> bool {
        Self::named(domain).is_some_and(|t| self.intersects(t))
    }

    #[must_use]
    pub fn is_all(self) -> bool {
        self == Self::ALL
    }

    /// The types not in this set.
    #[must_use]
    pub fn complement(self) -> Self {
        Self(!self.0 & Self::ALL.0)
    }

    /// How many of the seven types (`integer` and the fractions counted apart) the set holds.
    #[must_use]
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }
}

/// The values a node is restricted to by `const` and `enum` (their intersection), or `None`
/// when it has neither.
#[must_use]
pub fn value_set(node: &serde_json::Map<String, Value>) -> Option<Vec<Value>> {
    let from_enum = node.get("enum").and_then(Value::as_array).cloned();
    match (node.get("const"), from_enum) {
        (Some(c), Some(values)) => Some(if values.iter().any(|v| json_eq(v, c)) { vec![c.clone()] } else { Vec::new() }),
        (Some(c), None) => Some(vec![c.clone()]),
        (None, values) => values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn names_spell_number_over_integer() {
        let of = |v: serde_json::Value| Types::of_keyword(&v).unwrap();
        assert_eq!(of(json!(["integer", "number"])).names(), ["number"]);
        assert_eq!(of(json!(["null", "string"])).names(), ["string", "null"]);
        assert_eq!(of(json!("integer")).single(), Some("integer"));
        assert!(of(json!("number")).named_admits("integer"));
        assert!(!of(json!("integer")).named_admits("number"));
        assert!(of(json!("integer")).meets("number"));
        // Enum values `1.5` and type `integer` share no instance.
        assert_eq!(of(json!("integer")).and(Types::of_value(&json!(1.5))), Types::NONE);
        assert!(Types::ALL.is_all());
    }

    #[test]
    fn value_sets_meet_by_value() {
        let node = json!({"const": 1, "enum": [1.0, 2]});
        assert_eq!(value_set(node.as_object().unwrap()).map(|v| v.len()), Some(1));
    }
}
