//! The adapter protocol, version 1: JSON lines over the adapter's stdin and stdout.
//!
//! The protocol is specified as JSON Schema in `protocol/request.schema.json` and
//! `protocol/response.schema.json`; this module holds the typed side of it and checks every line an
//! adapter writes against the response schema before reading it. The schemas are compiled once per
//! run. By default unknown members are tolerated (an adapter written for a later minor revision
//! still works); with [`STRICT_ENV`] set they are rejected and the requests the harness writes are
//! validated too, which is what an adapter author wants while writing one.

use std::sync::LazyLock;

use schema_fidelity_translators::{Projection, Refusal};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this harness speaks.
pub const VERSION: u32 = 1;

/// Set to `1` to validate strictly: unknown members in adapter messages are errors, and the
/// harness validates its own requests as well.
pub const STRICT_ENV: &str = "SCHEMA_FIDELITY_PROTOCOL_STRICT";

const REQUEST_SCHEMA: &str = include_str!("../../../protocol/request.schema.json");
const RESPONSE_SCHEMA: &str = include_str!("../../../protocol/response.schema.json");

/// The handshake request.
#[derive(Debug, Serialize)]
pub struct StartRequest {
    pub start: Start,
}

#[derive(Debug, Serialize)]
pub struct Start {
    pub protocol: u32,
}

/// One translation request. Borrows the schema so that sending it does not copy it.
#[derive(Debug, Serialize)]
pub struct TranslateRequest<'a> {
    pub id: u64,
    pub translator: &'a str,
    pub schema: &'a Value,
    /// `Some(Via::Entry)`: through the public call users make, not the code path alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Via>,
}

/// How the adapter is asked to translate, when not through the code path its table names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// Through the table's `entry.call`, with the transport stubbed, reading the request it built.
    Entry,
}

/// The adapter's answer to the handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub protocol: u32,
    pub name: String,
    pub version: String,
    pub translators: Vec<String>,
    #[serde(default)]
    pub packages: std::collections::BTreeMap<String, String>,
    /// The translators whose public entry the adapter can drive (`via: entry`).
    #[serde(default)]
    pub entries: Vec<String>,
}

/// Every line an adapter may write, once it has passed the response schema.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Response {
    Started { started: Started },
    Unavailable { unavailable: Unavailable },
    Answer(Answer),
}

/// The handshake answer of an adapter whose package is not installed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Unavailable {
    pub reason: String,
}

/// The answer to one translation request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Answer {
    pub id: u64,
    #[serde(flatten)]
    pub body: AnswerBody,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerBody {
    Projection(Projection),
    Refusal(Refusal),
    /// The translator failed in a way that is not a refusal.
    Error(AdapterError),
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AdapterError {
    pub message: String,
}

/// The members that tell the response messages apart, each the name of its `$defs` entry.
const RESPONSE_KINDS: [&str; 5] = ["started", "unavailable", "projection", "refusal", "error"];

/// A response schema, compiled whole (the truth) and per message kind (for errors that say what
/// is wrong, rather than "not valid under any of the schemas listed in oneOf").
struct ResponseValidator {
    whole: jsonschema::Validator,
    kinds: Vec<(&'static str, jsonschema::Validator)>,
}

struct Validators {
    request: jsonschema::Validator,
    response_strict: ResponseValidator,
    response_lenient: ResponseValidator,
}

fn compile_schema(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft202012::options().build(schema).map_err(|e| format!("protocol schema does not compile: {e}"))
}

fn parse_schema(text: &str, lenient: bool) -> Result<Value, String> {
    let mut schema: Value = serde_json::from_str(text).map_err(|e| format!("protocol schema is not JSON: {e}"))?;
    if lenient {
        allow_unknown_members(&mut schema);
    }
    Ok(schema)
}

fn response_validator(lenient: bool) -> Result<ResponseValidator, String> {
    let schema = parse_schema(RESPONSE_SCHEMA, lenient)?;
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let mut kinds = Vec::new();
    for kind in RESPONSE_KINDS {
        let one = serde_json::json!({ "$defs": defs, "$ref": format!("#/$defs/{kind}") });
        kinds.push((kind, compile_schema(&one)?));
    }
    Ok(ResponseValidator { whole: compile_schema(&schema)?, kinds })
}

/// Compiled once: the schemas ship inside the binary, so a failure to compile them is a bug in
/// this crate, reported on every message rather than by a panic.
static VALIDATORS: LazyLock<Result<Validators, String>> = LazyLock::new(|| {
    Ok(Validators {
        request: compile_schema(&parse_schema(REQUEST_SCHEMA, false)?)?,
        response_strict: response_validator(false)?,
        response_lenient: response_validator(true)?,
    })
});

impl ResponseValidator {
    fn errors(&self, value: &Value) -> Vec<String> {
        if self.whole.is_valid(value) {
            return Vec::new();
        }
        let kind = value.as_object().and_then(|m| self.kinds.iter().find(|(k, _)| m.contains_key(*k)));
        match kind {
            Some((kind, validator)) => {
                let errors: Vec<String> =
                    validator.iter_errors(value).take(5).map(|e| format!("as a `{kind}` message, at `{}`: {e}", e.instance_path())).collect();
                if errors.is_empty() {
                    vec![format!("it is a valid `{kind}` message but also matches another kind; send exactly one of {}", RESPONSE_KINDS.join(", "))]
                } else {
                    errors
                }
            }
            None => vec![format!("an object with one of the members {} is expected", RESPONSE_KINDS.join(", "))],
        }
    }
}

/// The lenient reading of a protocol schema: every `additionalProperties: false` removed.
fn allow_unknown_members(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                map.remove("additionalProperties");
            }
            map.values_mut().for_each(allow_unknown_members);
        }
        Value::Array(items) => items.iter_mut().for_each(allow_unknown_members),
        _ => {}
    }
}

/// Why a line is not a protocol message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// Not JSON at all: a log line or a banner on stdout.
    NotJson { line: String, error: String },
    /// JSON, but not one of the messages of `protocol/response.schema.json`.
    NotProtocol { line: String, errors: Vec<String> },
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotJson { line, error } => write!(f, "a line on stdout is not protocol JSON ({error}): {}", excerpt(line)),
            Self::NotProtocol { line, errors } => {
                write!(f, "a line on stdout breaks protocol/response.schema.json: {}", excerpt(line))?;
                for e in errors {
                    write!(f, "\n  {e}")?;
                }
                Ok(())
            }
        }
    }
}

/// Parse and validate one line an adapter wrote.
///
/// # Errors
/// [`LineError`] naming what is wrong with the line.
pub fn parse_response(line: &str, strict: bool) -> Result<Response, LineError> {
    let value: Value = serde_json::from_str(line).map_err(|e| LineError::NotJson { line: line.to_owned(), error: e.to_string() })?;
    let validators = VALIDATORS.as_ref().map_err(|e| LineError::NotProtocol { line: line.to_owned(), errors: vec![e.clone()] })?;
    let validator = if strict { &validators.response_strict } else { &validators.response_lenient };
    let errors = validator.errors(&value);
    if !errors.is_empty() {
        return Err(LineError::NotProtocol { line: line.to_owned(), errors });
    }
    serde_json::from_value(value).map_err(|e| LineError::NotProtocol { line: line.to_owned(), errors: vec![e.to_string()] })
}

/// Check a request the harness is about to send (strict mode only: it guards the harness itself).
///
/// # Errors
/// The validator's messages.
pub fn check_request(request: &Value) -> Result<(), String> {
    let validators = VALIDATORS.as_ref().map_err(Clone::clone)?;
    let errors: Vec<String> = validators.request.iter_errors(request).take(5).map(|e| format!("at `{}`: {e}", e.instance_path())).collect();
    if errors.is_empty() { Ok(()) } else { Err(format!("the harness wrote a request that breaks protocol/request.schema.json:\n  {}", errors.join("\n  "))) }
}

/// The start of a long line, for messages.
#[must_use]
pub fn excerpt(line: &str) -> String {
    const MAX: usize = 200;
    let trimmed = line.trim_end();
    // The adapter's bytes end up on a terminal: escapes are shown, not sent.
    match trimmed.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}... ({} bytes)", crate::terminal::sanitize(&trimmed[..cut]), trimmed.len()),
        None => crate::terminal::sanitize(trimmed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_parse_into_outcomes() {
        let line = r#"{"id":3,"projection":{"schema":{"type":"object"},"dialect":"gemini-proto","codec":{"kind":"null-means-absent","sites":[{"object":"","property":"a"}]},"strict":true}}"#;
        let Response::Answer(Answer { id: 3, body: AnswerBody::Projection(p) }) = parse_response(line, true).unwrap() else { panic!("a projection") };
        assert_eq!(p.dialect, schema_fidelity_translators::Dialect::GeminiProto);
        assert_eq!(p.strict, Some(true));
        assert!(!p.codec.is_identity());

        let line = r#"{"id":4,"refusal":{"keyword":"$ref","pointer":"/properties/a","message":"recursive"}}"#;
        let Response::Answer(Answer { id: 4, body: AnswerBody::Refusal(r) }) = parse_response(line, true).unwrap() else { panic!("a refusal") };
        assert_eq!((r.keyword(), r.pointer()), ("$ref", "/properties/a"));
        // A typed limit refusal: name, the translator's count and the limit's value.
        let line = r#"{"id":5,"refusal":{"limit":"max-depth","measured":11,"value":10,"message":"deep"}}"#;
        let Response::Answer(Answer { id: 5, body: AnswerBody::Refusal(r) }) = parse_response(line, true).unwrap() else { panic!("a refusal") };
        assert_eq!(r.cites, schema_fidelity_translators::Cites::Limit { limit: "max-depth".to_owned(), measured: 11, value: 10 });
        // The old free-string form and a limit without its count are protocol faults.
        for line in [
            r#"{"id":6,"refusal":{"keyword":"limit:max-depth","message":"deep"}}"#,
            r#"{"id":6,"refusal":{"limit":"max-depth","message":"deep"}}"#,
            r#"{"id":6,"refusal":{"keyword":"$depth","pointer":"","limit":"max-depth","measured":1,"value":0,"message":"both"}}"#,
        ] {
            assert!(parse_response(line, true).is_err(), "{line}");
        }
        let line = r#"{"started":{"protocol":1,"name":"x","version":"1.0.0","translators":["x"]}}"#;
        assert!(matches!(parse_response(line, true).unwrap(), Response::Started { .. }));
    }

    #[test]
    fn unknown_members_are_tolerated_unless_strict() {
        let line = r#"{"id":1,"projection":{"schema":true,"dialect":"json-schema"},"elapsed_ms":3}"#;
        assert!(parse_response(line, false).is_ok());
        let Err(LineError::NotProtocol { errors, .. }) = parse_response(line, true) else { panic!("strict rejects it") };
        assert!(errors.iter().any(|e| e.contains("elapsed_ms")), "{errors:?}");
    }

    #[test]
    fn malformed_lines_are_named() {
        assert!(matches!(parse_response("listening on stdin", false), Err(LineError::NotJson { .. })));
        let Err(e) = parse_response(r#"{"id":1,"projection":{"schema":{}}}"#, false) else { panic!("no dialect") };
        assert!(e.to_string().contains("dialect"), "{e}");
        assert!(parse_response(r#"{"id":0,"error":{"message":"x"}}"#, false).is_err(), "ids start at 1");
    }

    #[test]
    fn requests_the_harness_writes_are_protocol() {
        let schema = json!({"type": "object"});
        let request = serde_json::to_value(TranslateRequest { id: 1, translator: "x", schema: &schema, via: None }).unwrap();
        check_request(&request).unwrap();
        let through_entry = serde_json::to_value(TranslateRequest { id: 2, translator: "x", schema: &schema, via: Some(Via::Entry) }).unwrap();
        assert_eq!(through_entry["via"], "entry");
        check_request(&through_entry).unwrap();
        assert!(check_request(&json!({"id": 1, "translator": "x", "schema": {}, "via": "elsewhere"})).is_err());
        check_request(&serde_json::to_value(StartRequest { start: Start { protocol: VERSION } }).unwrap()).unwrap();
        assert!(check_request(&json!({"id": 1, "schema": {}})).is_err());
    }
}
