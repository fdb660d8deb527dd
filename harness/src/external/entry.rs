//! The `TRANSLATOR::entry` check: the public call an external translator's users make (its
//! table's `entry.call`) answers what the code path the table names (`entry.path`) answers.
//!
//! The adapter answers every case through the code path (fast: a conversion function), and is
//! asked again with `via: entry` to drive the public call with its transport stubbed, reading the
//! projection out of the request the call built. When the two agree on every own-corpus schema,
//! the rows written from that code path are what users' tools get on the wire; when they part, the
//! table names a function its users never reach on that schema, and the check says where.

use schema_fidelity_translators::{Outcome, Translator};
use serde_json::Value;

/// Where the entry parts from the code path on one schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// The case whose schema it is.
    pub case: String,
    pub conversion: Outcome,
    pub entry: Outcome,
}

/// Whether the entry's answer is the conversion's: the same projection (schema, dialect, codec,
/// strict flag), a refusal citing the same keyword and pointer (or limit) (the message may be
/// wrapped by the call: `Tool 'f': ...`), or a crash whose message contains the conversion's (so
/// a `crash:` mark written from the conversion matches what users see too).
#[must_use]
pub fn agrees(conversion: &Outcome, entry: &Outcome) -> bool {
    match (conversion, entry) {
        (Outcome::Projected(a), Outcome::Projected(b)) => a == b,
        (Outcome::Refused(a), Outcome::Refused(b)) => a.cites == b.cites,
        (Outcome::Crashed(a), Outcome::Crashed(b)) => b.message.contains(a.message.trim()),
        _ => false,
    }
}

/// Run `schemas` (case id, schema) through both paths of `translator`. `Ok(checked)` when every
/// answer agrees; else the disagreements, the first one first. A fault on either path is an error.
///
/// # Errors
/// A translator without an entry, a fault (the adapter broke), or the disagreements.
pub fn check<'a>(translator: &dyn Translator, schemas: impl IntoIterator<Item = (&'a str, &'a Value)>) -> Result<usize, EntryError> {
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for (case, schema) in schemas {
        let conversion = translator.translate(schema);
        let Some(entry) = translator.through_entry(schema) else {
            return Err(EntryError::NoEntry(translator.name().to_owned()));
        };
        for outcome in [&conversion, &entry] {
            if let Outcome::Faulted(fault) = outcome {
                return Err(EntryError::Fault { case: case.to_owned(), message: fault.message.clone() });
            }
        }
        checked += 1;
        if !agrees(&conversion, &entry) {
            disagreements.push(Disagreement { case: case.to_owned(), conversion, entry });
        }
    }
    if disagreements.is_empty() { Ok(checked) } else { Err(EntryError::Disagree { checked, disagreements }) }
}

/// Why the entry check failed.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryError {
    /// The translator has no public entry to drive (a built-in one, or an adapter that lists none).
    NoEntry(String),
    /// The adapter faulted on a case.
    Fault { case: String, message: String },
    /// The two paths answered differently.
    Disagree { checked: usize, disagreements: Vec<Disagreement> },
}

/// How many disagreements a failure shows in full; the rest are named.
const SHOWN: usize = 3;

impl std::fmt::Display for EntryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoEntry(name) => write!(f, "translator `{name}` has no public entry to drive: its table's `entry:` names one, so its adapter must serve it (`entries` in `serve`)"),
            Self::Fault { case, message } => write!(f, "the adapter faulted on {case}:\n{message}"),
            Self::Disagree { checked, disagreements } => {
                writeln!(
                    f,
                    "the entry is not the path the table names: on {} of {checked} own-corpus schemas the public call (`entry.call`) sends something other than what the adapter answers through `entry.path`",
                    disagreements.len()
                )?;
                for d in disagreements.iter().take(SHOWN) {
                    writeln!(f, "  {}", d.case)?;
                    writeln!(f, "    through the path:  {}", show(&d.conversion))?;
                    writeln!(f, "    through the entry: {}", show(&d.entry))?;
                }
                if disagreements.len() > SHOWN {
                    let rest: Vec<&str> = disagreements[SHOWN..].iter().map(|d| d.case.as_str()).collect();
                    writeln!(f, "  and on: {}", rest.join(", "))?;
                }
                write!(f, "re-point the adapter's conversion at what the call runs (read the package from the call down), or the table's `entry:` at the call that runs the conversion")
            }
        }
    }
}

impl std::error::Error for EntryError {}

/// One outcome on one line, cut to a readable length.
fn show(outcome: &Outcome) -> String {
    let text = match outcome {
        Outcome::Projected(p) => {
            let strict = p.strict.map_or_else(String::new, |s| format!(", strict {s}"));
            let codec = serde_json::to_string(&p.codec).unwrap_or_default();
            format!("{} ({}{strict}, codec {codec})", p.schema, p.dialect.name())
        }
        Outcome::Refused(r) => format!("refused: {} ({})", serde_json::to_string(&r.cites).unwrap_or_default(), r.message),
        Outcome::Crashed(c) => format!("crashed: {}", c.message),
        Outcome::Faulted(f) => format!("faulted: {}", f.message),
    };
    crate::terminal::sanitize(&truncate(&text, 600))
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max { s.to_owned() } else { format!("{}…", s.chars().take(max).collect::<String>()) }
}

#[cfg(test)]
mod tests {
    use schema_fidelity_translators::{Crash, Refusal};
    use serde_json::json;

    use super::*;

    #[test]
    fn answers_agree_only_when_users_would_get_the_same() {
        let a = Outcome::json_schema(json!({"type": "object"}));
        let b = Outcome::json_schema(json!({"type": "object", "additionalProperties": false}));
        assert!(agrees(&a, &a.clone()));
        assert!(!agrees(&a, &b), "a different schema on the wire");
        let refused = |k: &str, m: &str| Outcome::Refused(Refusal::new(k, "/properties/a", m));
        assert!(agrees(&refused("anyOf", "no"), &refused("anyOf", "Tool 'f': no")), "the call may wrap the message");
        assert!(!agrees(&refused("anyOf", "no"), &refused("oneOf", "no")), "another keyword cited");
        let crashed = |m: &str| Outcome::Crashed(Crash { message: m.to_owned(), detail: String::new() });
        assert!(agrees(&crashed("TypeError: x"), &crashed("TypeError: x")));
        assert!(!agrees(&crashed("TypeError: x"), &crashed("APIConnectionError: stub")), "the call threw something else");
        assert!(!agrees(&a, &crashed("TypeError: x")));
        assert!(!agrees(&refused("anyOf", "no"), &a), "the call sent what the path refuses");
    }
}
