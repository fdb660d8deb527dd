//! The one way this project reads JSON a person wrote (a schema given to `check`, a JSON corpus
//! file): strictly, so that what is checked is what was written.
//!
//! serde_json alone is lenient in two ways that change a schema silently: a duplicated key keeps
//! its last value (`{"type": "object", "type": "string"}` is a string schema), and an integer
//! beyond 64 bits becomes the nearest double (`maximum: 18446744073709551617` is checked as
//! `18446744073709551616`). The YAML reader already rejects duplicate keys, so JSON must too; and
//! keeping big integers exact would need serde_json's `arbitrary_precision`, which changes how every
//! `Value` in the workspace compares numbers. So both are errors with line and column, the second
//! also naming the JSON pointer of the number.
//!
//! The text is parsed by serde_json first (syntax errors, and its nesting limit of 128 levels,
//! reported in words); a second pass over the now known-valid text finds duplicates and lossy
//! integers. That pass is iterative, with a stack as deep as the nesting serde_json accepted.

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

/// How deep serde_json reads (its recursion limit; not configurable without its
/// `unbounded_depth` feature, which would let deep input overflow the stack).
pub const READER_DEPTH: usize = 128;

/// Why JSON text was not accepted, with the position (1-based line and column, columns in
/// characters) of the offending token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for JsonError {}

/// Parse `text` as JSON, rejecting duplicate keys and integers a 64-bit number cannot hold.
///
/// # Errors
/// A [`JsonError`]: not JSON, nested deeper than [`READER_DEPTH`], a duplicated key, or an
/// integer beyond 64 bits.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let value: Value = serde_json::from_str(text).map_err(|e| from_serde(&e))?;
    strictness(text)?;
    Ok(value)
}

/// serde_json's error in words: its message without the position suffix (the position is ours).
fn from_serde(e: &serde_json::Error) -> JsonError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let bare = full.strip_suffix(&suffix).unwrap_or(&full);
    let message = if bare.starts_with("recursion limit exceeded") {
        format!("nested deeper than {READER_DEPTH} levels (the reader's limit); the JSON may be valid, but it is too deep to read")
    } else {
        format!("not valid JSON: {bare}")
    };
    JsonError { line: e.line(), column: e.column(), message }
}

/// One open container of the second pass.
enum Frame {
    Object {
        /// Keys seen so far, with the position of each.
        keys: HashMap<String, (usize, usize)>,
        /// The key whose value comes next (or came last).
        current: Option<String>,
        expecting_key: bool,
    },
    Array {
        index: usize,
    },
}

/// A cursor over text, tracking line and column.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    column: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Advance over one byte, counting lines and characters (not UTF-8 continuation bytes).
    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.at += 1;
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if b & 0xc0 != 0x80 {
                self.column += 1;
            }
        }
    }
}

/// The second pass over text serde_json accepted: duplicate keys and lossy integers.
fn strictness(text: &str) -> Result<(), JsonError> {
    let mut c = Cursor { text, at: 0, line: 1, column: 1 };
    let mut stack: Vec<Frame> = Vec::new();
    while let Some(b) = c.peek() {
        let (line, column) = (c.line, c.column);
        match b {
            b'{' => {
                stack.push(Frame::Object { keys: HashMap::new(), current: None, expecting_key: true });
                c.bump();
            }
            b'[' => {
                stack.push(Frame::Array { index: 0 });
                c.bump();
            }
            b'}' | b']' => {
                stack.pop();
                c.bump();
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { expecting_key, .. }) => *expecting_key = true,
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                c.bump();
            }
            b':' => {
                if let Some(Frame::Object { expecting_key, .. }) = stack.last_mut() {
                    *expecting_key = false;
                }
                c.bump();
            }
            b'"' => {
                let start = c.at;
                c.bump();
                while let Some(b) = c.peek() {
                    c.bump();
                    match b {
                        b'\\' => c.bump(),
                        b'"' => break,
                        _ => {}
                    }
                }
                if let Some(Frame::Object { keys, current, expecting_key: true }) = stack.last_mut() {
                    // Decoded, so that `"a"` and `"\u0061"` are the same key, as serde_json sees them.
                    let key: String = serde_json::from_str(&text[start..c.at]).unwrap_or_default();
                    if let Some(&first) = keys.get(&key) {
                        let (first_line, first_column) = first;
                        let at = match pointer(&stack[..stack.len() - 1]) {
                            p if p.is_empty() => "the root object".to_owned(),
                            p => format!("the object at `{p}`"),
                        };
                        let message = format!(
                            "duplicate key {} in {at} (first at line {first_line}, column {first_column}); JSON readers keep only one of them",
                            serde_json::Value::from(key.as_str()),
                        );
                        return Err(JsonError { line, column, message });
                    }
                    keys.insert(key.clone(), (line, column));
                    *current = Some(key);
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = c.at;
                while c.peek().is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                    c.bump();
                }
                let token = &text[start..c.at];
                let integral = !token.contains(['.', 'e', 'E']);
                if integral && token.parse::<i64>().is_err() && token.parse::<u64>().is_err() {
                    let rounded = token.parse::<f64>().map(|f| format!(" (it would be read as {f:e})")).unwrap_or_default();
                    let message = format!(
                        "the integer {token} at `{}` does not fit in 64 bits and would be rounded{rounded}; write it as a decimal number (`{token}.0`) if an approximation is meant",
                        pointer(&stack)
                    );
                    return Err(JsonError { line, column, message });
                }
            }
            _ => c.bump(),
        }
    }
    Ok(())
}

/// The JSON pointer of the value the innermost frame is at.
fn pointer(stack: &[Frame]) -> String {
    let mut out = String::new();
    for frame in stack {
        out.push('/');
        match frame {
            Frame::Object { current, .. } => out.push_str(&current.as_deref().map(escape).unwrap_or_default()),
            Frame::Array { index } => out.push_str(&index.to_string()),
        }
    }
    out
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_json_reads_as_serde_json_reads_it() {
        let text = r#"{"a": [1, -2, 3.5, 1e3, 18446744073709551615, -9223372036854775808], "b": {"c\"d": "x,y:{"}, "e": []}"#;
        assert_eq!(parse(text).unwrap(), serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn a_duplicate_key_is_an_error_at_its_line_and_column() {
        let e = parse("{\n  \"type\": \"object\",\n  \"properties\": {\"a\": {}, \"b\": {}, \"\\u0061\": {}}\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 36), "{e}");
        assert!(e.message.contains("duplicate key \"a\" in the object at `/properties` (first at line 3, column 18)"), "{e}");
        let e = parse(r#"{"type": "object", "type": "string"}"#).unwrap_err();
        assert!(e.message.contains("duplicate key \"type\" in the root object"), "{e}");
        // The same key in sibling objects is no duplicate.
        assert!(parse(r#"[{"a": 1}, {"a": 2}]"#).is_ok());
    }

    #[test]
    fn an_integer_beyond_64_bits_is_an_error_naming_its_pointer() {
        let e = parse("{\"properties\": {\"n\": {\"maximum\": 18446744073709551616}}, \"x\": [0, 1, -99999999999999999999]}").unwrap_err();
        assert!(e.message.contains("the integer 18446744073709551616 at `/properties/n/maximum` does not fit in 64 bits"), "{e}");
        assert_eq!((e.line, e.column), (1, 34));
        let e = parse("{\"x\": [0, 1, -99999999999999999999]}").unwrap_err();
        assert!(e.message.contains("at `/x/2`"), "{e}");
        // Written as a decimal, the approximation is the writer's choice.
        assert_eq!(parse("{\"m\": 18446744073709551616.0}").unwrap(), json!({"m": 18_446_744_073_709_551_616.0}));
    }

    #[test]
    fn too_deep_is_not_called_invalid() {
        let text = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        let e = parse(&text).unwrap_err();
        assert!(e.message.starts_with("nested deeper than 128 levels (the reader's limit)"), "{e}");
        assert!(!e.message.contains("not valid JSON"), "{e}");
        let e = parse("{\"a\": }").unwrap_err();
        assert!(e.message.starts_with("not valid JSON: expected value") && !e.message.contains("at line"), "{e}");
    }
}
