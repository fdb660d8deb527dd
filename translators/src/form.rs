//! Value forms: the refinement a disposition row may make when a translator treats one keyword
//! differently depending on its value (`additionalProperties: false` vs a schema, a `$ref` to a
//! fragment vs a URI, `type` as one name vs a list).
//!
//! Every value has exactly one form, so a row's `forms:` map is never ambiguous.

use serde_json::Value;

/// The form of a keyword's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    /// The boolean `true` (a subschema that accepts everything, or a flag set).
    True,
    /// The boolean `false` (a subschema that accepts nothing, or a flag unset).
    False,
    /// A JSON object: a subschema, or a map of them.
    Schema,
    /// A JSON array (`type: [..]`, `enum`, `allOf`, ...).
    List,
    /// A reference (`$ref`, `$dynamicRef`) that starts with `#`: it resolves inside the document.
    Fragment,
    /// A reference to a URI, which may name another document.
    Uri,
    /// Any other string, number or null.
    Scalar,
}

/// All forms, in the order tables list them.
pub const ALL: &[Form] = &[Form::True, Form::False, Form::Schema, Form::List, Form::Fragment, Form::Uri, Form::Scalar];

impl Form {
    /// The form of `value` held by `keyword`.
    #[must_use]
    pub fn of(keyword: &str, value: &Value) -> Self {
        match value {
            Value::Bool(true) => Self::True,
            Value::Bool(false) => Self::False,
            Value::Object(_) => Self::Schema,
            Value::Array(_) => Self::List,
            Value::String(s) if matches!(keyword, "$ref" | "$dynamicRef") => {
                if s.starts_with('#') { Self::Fragment } else { Self::Uri }
            }
            _ => Self::Scalar,
        }
    }

    /// The name a table uses for the form.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::True => "true",
            Self::False => "false",
            Self::Schema => "schema",
            Self::List => "list",
            Self::Fragment => "fragment",
            Self::Uri => "uri",
            Self::Scalar => "scalar",
        }
    }

    /// Parse a form name as a table spells it.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        ALL.iter().copied().find(|f| f.name() == name)
    }
}
