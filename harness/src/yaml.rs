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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    #[test]
    fn yaml_1_1_booleans_stay_strings() {
        let v: Value = super::from_str("required: [x, y, no, on]\nflag: true").unwrap();
        assert_eq!(v, json!({"required": ["x", "y", "no", "on"], "flag": true}));
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        assert!(super::from_str::<Value>("a: 1\na: 2").is_err());
    }
}
