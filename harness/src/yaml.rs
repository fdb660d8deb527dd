//! The one way this project reads YAML: serde-saphyr with YAML 1.2 booleans.
//!
//! serde-saphyr accepts YAML 1.1 boolean spellings by default, so an unquoted `y`, `n`, `yes`,
//! `no`, `on` or `off` would load as a boolean. In a corpus that silently changes what a case
//! tests (`required: [x, y]` becomes `[x, true]`, an `enum: [on, off]` becomes booleans), so both
//! tables and cases are read with `strict_booleans`: only `true`/`false` are booleans.

use serde::de::DeserializeOwned;

/// Parse YAML text into `T`, rejecting duplicate keys, with YAML 1.2 booleans.
///
/// # Errors
/// The parser's error, which carries a line and column.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_saphyr::Error> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_str_with_options(text, options)
}

/// The first line of a reader error, in words: the reader's depth limits are named as limits, not
/// as a budget's debug form or a "recursion limit" the text never had.
#[must_use]
pub fn message(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or_default().to_owned();
    if first.contains("budget breached: Depth") {
        let (at, _) = first.split_once("budget breached").unwrap_or_default();
        return format!("{at}nested deeper than {YAML_MAX_DEPTH} levels (the YAML reader's limit)");
    }
    if let Some((at, _)) = first.split_once("recursion limit exceeded") {
        return format!("{at}nested deeper than 128 levels (the reader's limit)");
    }
    first
}

/// serde-saphyr's default nesting budget.
const YAML_MAX_DEPTH: usize = 64;

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    #[test]
    fn yaml_1_1_booleans_stay_strings() {
        let v: Value = super::from_str("required: [x, y, no, on]\nflag: true").unwrap();
        assert_eq!(v, json!({"required": ["x", "y", "no", "on"], "flag": true}));
    }

    #[test]
    fn depth_limits_are_named_as_limits() {
        let deep = format!("a: {}1{}", "[".repeat(100), "]".repeat(100));
        let e = super::from_str::<Value>(&deep).unwrap_err();
        assert!(super::message(&e).ends_with("nested deeper than 64 levels (the YAML reader's limit)"), "{}", super::message(&e));
        let deepest = format!("a: {}", "[".repeat(10_000));
        let e = super::from_str::<Value>(&deepest).unwrap_err();
        assert!(super::message(&e).contains("nested deeper than"), "{}", super::message(&e));
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        assert!(super::from_str::<Value>("a: 1\na: 2").is_err());
    }
}
