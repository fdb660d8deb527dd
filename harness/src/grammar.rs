//! Holding a projection to its target's grammar: the meta-schema a provider's surface accepts
//! (`targets/grammars/`), and each way a projection breaks it as an [`Offence`] pinned on the
//! projection keyword at fault, in the closed vocabulary of [`GrammarError`].
//!
//! The oracle ([`crate::oracle`]) reports the offences; a table's `target_violations.grammar` mark
//! lists the ones its translator is known to commit (`pattern: not-allowed`), which the table lint
//! ([`crate::table`]) checks against [`GrammarError::ALL`]. It is a leaf (it reads only the
//! translators' vocabulary), so that the table need not read the oracle.

use serde_json::Value;

/// One way a projection breaks its grammar: where, the projection keyword at fault (`(node)`
/// when the grammar rejects the node as a whole), what the grammar says of it, and the
/// validator's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offence {
    pub at: String,
    pub keyword: String,
    pub error: GrammarError,
    pub message: String,
}

impl Offence {
    /// The (keyword, grammar error) pair a `target_violations.grammar` mark lists:
    /// `pattern: not-allowed`.
    #[must_use]
    pub fn pair(&self) -> String {
        format!("{}: {}", self.keyword, self.error.name())
    }
}

/// What a target's grammar says of a projection keyword: a closed vocabulary, so that a grammar
/// mark names the defect it covers (a `pattern` the subset has no room for is not a `pattern`
/// whose regex it cannot compile).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GrammarError {
    /// The key is not allowed there.
    NotAllowed,
    /// The key is allowed but its value is rejected.
    Value,
    /// A key the grammar requires is missing.
    Required,
    /// The node is rejected as a whole.
    Node,
}

impl GrammarError {
    pub const ALL: [Self; 4] = [Self::NotAllowed, Self::Value, Self::Required, Self::Node];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::NotAllowed => "not-allowed",
            Self::Value => "value",
            Self::Required => "required",
            Self::Node => "node",
        }
    }
}

/// How `projection` breaks `grammar`, each error pinned on the projection keyword at fault.
///
/// # Errors
/// When the grammar itself does not compile.
pub fn grammar_offences(grammar: &Value, projection: &Value) -> Result<Vec<Offence>, String> {
    // A grammar is compiled once per run, not once per case: a provider's allowlist with dozens of
    // conditionals costs milliseconds to build, times every case of the corpus and the suite.
    static COMPILED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<jsonschema::Validator>>>> =
        std::sync::OnceLock::new();
    let key = grammar.to_string();
    let cache = COMPILED.get_or_init(Default::default);
    let cached = cache.lock().ok().and_then(|c| c.get(&key).cloned());
    let validator = match cached {
        Some(v) => v,
        None => {
            let built = std::sync::Arc::new(
                jsonschema::draft202012::options().build(grammar).map_err(|e| format!("the grammar itself does not compile: {e}"))?,
            );
            if let Ok(mut c) = cache.lock() {
                c.insert(key, built.clone());
            }
            built
        }
    };
    let mut out = Vec::new();
    for e in validator.iter_errors(projection) {
        offences_of(&e, projection, &mut out);
    }
    out.dedup();
    Ok(out)
}

/// A key of a projection node as an offence names it: a keyword or known extension by its name,
/// anything else as `(unknown key)`.
fn key(k: &str) -> &str {
    let known = schema_fidelity_translators::vocabulary::is_keyword(k) || schema_fidelity_translators::vocabulary::is_known_extension(k);
    if known { k } else { "(unknown key)" }
}

fn offences_of(e: &jsonschema::ValidationError<'_>, projection: &Value, out: &mut Vec<Offence>) {
    use jsonschema::error::ValidationErrorKind as K;
    let at = e.instance_path().to_string();
    let message = e.to_string();
    let push = |keyword: &str, error: GrammarError, out: &mut Vec<Offence>| out.push(Offence { at: at.clone(), keyword: keyword.to_owned(), error, message: message.clone() });
    match e.kind() {
        K::AdditionalProperties { unexpected } | K::UnevaluatedProperties { unexpected } => {
            for k in unexpected {
                push(key(k), GrammarError::NotAllowed, out);
            }
        }
        K::PropertyNames { error } => match error.instance().as_str() {
            Some(k) => push(key(k), GrammarError::NotAllowed, out),
            None => push("(node)", GrammarError::Node, out),
        },
        K::Required { property } => match property.as_str() {
            Some(k) => push(k, GrammarError::Required, out),
            None => push("(node)", GrammarError::Node, out),
        },
        // A union in the grammar: the branch with the fewest offences says what is wrong.
        K::AnyOf { context } | K::OneOfNotValid { context } if !context.is_empty() => {
            let best = context
                .iter()
                .filter(|branch| !branch.is_empty())
                .map(|branch| {
                    let mut found = Vec::new();
                    for inner in branch {
                        offences_of(inner, projection, &mut found);
                    }
                    found
                })
                .min_by_key(Vec::len);
            match best {
                Some(found) => out.extend(found),
                None => push("(node)", GrammarError::Node, out),
            }
        }
        _ => {
            // The keyword whose value holds the error (array indices skipped: `/enum/0` is `enum`).
            let value = projection.pointer(&at);
            let last = at.rsplit('/').find(|s| s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit())).unwrap_or_default().replace("~1", "/").replace("~0", "~");
            let known = |k: &str| schema_fidelity_translators::vocabulary::is_keyword(k) || schema_fidelity_translators::vocabulary::is_known_extension(k);
            let (keyword, error) = match value {
                Some(Value::Bool(b)) => (b.to_string(), GrammarError::NotAllowed),
                _ if known(&last) => (last, GrammarError::Value),
                _ => ("(node)".to_owned(), GrammarError::Node),
            };
            push(&keyword, error, out);
        }
    }
}
