//! What a translator is and what it returns: a projection (schema, dialect, codec) or a refusal.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::codec::Codec;

/// A tool-schema translator: draft 2020-12 source schema in, projection or refusal out.
///
/// Implementations must be deterministic and must not panic on any JSON input; the fuzzing in the
/// harness holds them to that.
pub trait Translator: Send + Sync {
    /// The translator's name, which is also its table's file stem (`dispositions/<name>.yaml`).
    fn name(&self) -> &str;
    /// Translate one source schema.
    fn translate(&self, source: &Value) -> Outcome;

    /// Why this translator cannot run on this machine, if it cannot: an external translator whose
    /// runtime or package is not installed. Its trials are then skipped with this reason (which
    /// should say how to install it) instead of failing. Built-in translators are always available.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// The same translation, made through the public call the translator's users make to send a
    /// tool (an external translator's `entry:`), with the transport stubbed. `None` for a
    /// translator that has no such call (the built-in ones). Holding it equal to [`Self::translate`]
    /// shows that the code path the table names is the one users reach.
    fn through_entry(&self, _source: &Value) -> Option<Outcome> {
        None
    }

    /// A hash of what this translator's answers depend on besides the schema and the program
    /// running it (an external adapter's code and installed packages), or `None` when that is not
    /// known: the records of its trials are then never kept from one run to the next. A built-in
    /// translator is part of the program: [`crate::BUILTIN_FINGERPRINT`].
    fn fingerprint(&self) -> Option<u64> {
        None
    }
}

/// The result of a translation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    Projected(Projection),
    Refused(Refusal),
    /// The translator threw on this schema (an external adapter's `error` answer: the package
    /// raised a `TypeError`, an `AssertionError`, ...): an answer about the schema, which the tool
    /// cannot be sent with (CONTRACT §7: a narrowing to nothing, covered only by a `crash:` mark).
    Crashed(Crash),
    /// The translator could not answer: an external translator's process crashed, hung, or broke
    /// the protocol. Not an answer about the schema (a refusal is one), so the oracle fails the
    /// trial with the fault instead of judging the schema.
    Faulted(Fault),
}

impl Outcome {
    /// Shorthand for a JSON-Schema projection with the identity codec.
    #[must_use]
    pub fn json_schema(schema: Value) -> Self {
        Self::Projected(Projection { schema, dialect: Dialect::JsonSchema, codec: Codec::Identity, strict: None })
    }
}

/// The schema a translator sends, in its dialect, with the instance mapping between the two sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    pub schema: Value,
    pub dialect: Dialect,
    #[serde(default)]
    pub codec: Codec,
    /// For providers with a strict flag: whether the projection is sent strict. `None` when the
    /// provider has no such flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// The language a projection is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// JSON Schema draft 2020-12 (possibly a provider subset of it).
    JsonSchema,
    /// The Gemini/Vertex proto `Schema` message used by the legacy `parameters` field.
    GeminiProto,
    /// OpenAPI 3.0's Schema Object: lowercase JSON Schema whose `nullable: true` admits `null`
    /// (Gemini-style schemas written with lowercase types).
    #[serde(rename = "openapi-3.0")]
    OpenApi30,
}

impl Dialect {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::JsonSchema => "json-schema",
            Self::GeminiProto => "gemini-proto",
            Self::OpenApi30 => "openapi-3.0",
        }
    }
}

/// Why a translator gave no answer for one schema: what went wrong, with the context needed to
/// debug it (for an external adapter, the last lines of its stderr).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    pub message: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a translator threw on a schema: the exception as the adapter reported it (`message`, which
/// `crash:` marks match) and what its process said on stderr meanwhile (`detail`, for people).
///
/// Two crashes are the same answer when their messages are: the detail carries the request's id
/// and whatever else was logged, which differ from call to call.
#[derive(Debug, Clone, Eq, Serialize, Deserialize)]
pub struct Crash {
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl PartialEq for Crash {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message
    }
}

impl std::fmt::Display for Crash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if !self.detail.is_empty() {
            write!(f, "\n{}", self.detail)?;
        }
        Ok(())
    }
}

/// A translator's named refusal to project a schema, with its typed reason.
///
/// Serialized as `{keyword, pointer, message}` or `{limit, measured, value, message}`: the shape of
/// the `refusal` message in the adapter protocol (`protocol/response.schema.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    #[serde(flatten)]
    pub cites: Cites,
    /// A sentence for the person reading the error.
    pub message: String,
}

/// What a refusal cites: a keyword where it stands, or a limit with the translator's count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cites {
    /// A keyword with a `refused` row (or `type`, or the boolean root, for a table that requires an
    /// object root) and the JSON pointer, into the source, of the schema node holding it.
    Keyword { keyword: String, pointer: String },
    /// A limit of the target or a bound of the translator (`limits:`/`bounds:` by name), the
    /// translator's count and the limit's value: `measured` exceeds `value`.
    Limit { limit: String, measured: u64, value: u64 },
}

impl Refusal {
    /// A refusal citing `keyword` at `pointer`.
    #[must_use]
    pub fn new(keyword: impl Into<String>, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self { cites: Cites::Keyword { keyword: keyword.into(), pointer: pointer.into() }, message: message.into() }
    }

    /// A refusal citing the limit `name`: the translator counted `measured` where it allows `value`.
    #[must_use]
    pub fn limit(name: impl Into<String>, measured: u64, value: u64, message: impl Into<String>) -> Self {
        Self { cites: Cites::Limit { limit: name.into(), measured, value }, message: message.into() }
    }

    /// The keyword cited, or `""` for a limit.
    #[must_use]
    pub fn keyword(&self) -> &str {
        match &self.cites {
            Cites::Keyword { keyword, .. } => keyword,
            Cites::Limit { .. } => "",
        }
    }

    /// The pointer of the keyword cited, or `""` for a limit.
    #[must_use]
    pub fn pointer(&self) -> &str {
        match &self.cites {
            Cites::Keyword { pointer, .. } => pointer,
            Cites::Limit { .. } => "",
        }
    }

    /// The limit cited, if the refusal cites one.
    #[must_use]
    pub fn limit_name(&self) -> Option<&str> {
        match &self.cites {
            Cites::Limit { limit, .. } => Some(limit),
            Cites::Keyword { .. } => None,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cites {
            Cites::Keyword { keyword, pointer } => write!(f, "refused `{keyword}` at `{pointer}`: {}", self.message),
            Cites::Limit { limit, measured, value } => write!(f, "refused citing `limit:{limit}` ({measured} where {value} is allowed): {}", self.message),
        }
    }
}
