//! Provider surfaces as data: `targets/<name>.yaml`.
//!
//! A target holds what a provider accepts, whichever translator aims at it: the dialect a
//! projection is written in, the grammar (a meta-schema under `targets/grammars/`), which
//! reference cycles it accepts, whether the root must be an object, and its documented limits.
//! Every rule carries the `source:` it was read from and the date it was `read:`.
//!
//! ```yaml
//! target: openai-strict
//! description: OpenAI function calling and Structured Outputs with `strict: true`
//! dialect: { is: json-schema, source: "...", read: 2026-11-29 }
//! grammar: { file: grammars/openai-strict.json, source: "...", read: 2026-11-29 }
//! recursion: { rule: allowed, source: "...", read: 2026-11-29 }
//! object_root: { required: true, source: "...", read: 2026-11-29 }
//! limits:
//!   max-depth: { value: 10, counts: object-depth, source: "...", read: 2026-11-29 }
//! ```
//!
//! A table names its target with `target: <name>`; the oracle holds every projection of that
//! table to the target's rules, and measures the target's limits ([`crate::measure`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schema_fidelity_translators::Dialect;
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::diagnostic::TableError;
use crate::measure::Counts;
use crate::recursion::Recursion;

/// A loaded target.
#[derive(Debug, Clone)]
pub struct Target {
    pub name: String,
    /// The file, as shown in messages (`targets/<name>.yaml`).
    pub file: PathBuf,
    pub description: Option<String>,
    pub dialect: Dialect,
    /// The grammar: its path as shown (`targets/grammars/...`) and the meta-schema.
    pub grammar: Option<(PathBuf, Value)>,
    pub recursion: Recursion,
    pub requires_object_root: bool,
    /// The provider's documented limits, each measured by the oracle.
    pub limits: BTreeMap<String, Limit>,
    /// The surface a projection sent with `strict: false` goes to instead (a strict target's
    /// non-strict mode: OpenAI function calling without `strict`), whose rules judge it.
    pub when_not_strict: Option<String>,
}

/// A documented provider limit: a measure of the schema that must not exceed `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    pub value: u64,
    /// What is counted ([`crate::measure`]).
    pub counts: Counts,
    /// Where it is documented, with the date read; or, for a translator's own bound, why.
    pub note: String,
    /// For a translator's own bound the oracle cannot measure: the mark that makes every refusal
    /// citing it an expected narrowing (the ratchet).
    pub known_violation: Option<crate::deviation::KnownViolation>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetFile {
    target: String,
    #[serde(default)]
    description: Option<String>,
    dialect: Sourced<DialectRule>,
    #[serde(default)]
    grammar: Option<Sourced<GrammarRule>>,
    recursion: Sourced<RecursionRule>,
    object_root: Sourced<ObjectRootRule>,
    #[serde(default)]
    limits: BTreeMap<String, Spanned<LimitFile>>,
    #[serde(default)]
    when_not_strict: Option<Sourced<NotStrictRule>>,
}

#[derive(Debug, Deserialize)]
struct NotStrictRule {
    target: String,
}

#[derive(Debug, Deserialize)]
struct Sourced<T> {
    #[serde(flatten)]
    rule: T,
    source: String,
    read: String,
}

#[derive(Debug, Deserialize)]
struct DialectRule {
    is: Dialect,
}

#[derive(Debug, Deserialize)]
struct GrammarRule {
    file: String,
}

#[derive(Debug, Deserialize)]
struct RecursionRule {
    rule: Recursion,
}

#[derive(Debug, Deserialize)]
struct ObjectRootRule {
    required: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitFile {
    value: u64,
    counts: String,
    source: String,
    read: String,
    #[serde(default)]
    note: Option<String>,
}

/// Whether `date` reads as a date `YYYY-MM-DD`.
pub(crate) fn is_date(date: &str) -> bool {
    let b = date.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
        && (1..=12).contains(&date[5..7].parse::<u8>().unwrap_or(0))
        && (1..=31).contains(&date[8..10].parse::<u8>().unwrap_or(0))
}

/// The largest target or grammar file read.
pub const MAX_TARGET_BYTES: u64 = 4 * 1024 * 1024;

/// Read `name` from inside `dir`: it must resolve (symlinks followed) to a regular file inside
/// `dir`, of at most [`MAX_TARGET_BYTES`]. A table or target is project data, not a way to read
/// `/dev/zero` or a file outside the project.
pub(crate) fn read_inside(dir: &Path, name: &str, what: &str) -> Result<String, String> {
    // The folder itself must be the project's: a `targets/` that is a link would carry every
    // read below it out of the project, however carefully each file is checked.
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        let to = std::fs::read_link(dir).map(|t| t.display().to_string()).unwrap_or_else(|_| "?".to_owned());
        return Err(format!(
            "{} is a symbolic link (to {to}); targets are read only from a real directory of the project, never through a link",
            dir.file_name().and_then(|n| n.to_str()).unwrap_or("the folder")
        ));
    }
    let base = dir.canonicalize().map_err(|e| format!("cannot resolve {}: {e}", dir.display()))?;
    let path = base.join(name).canonicalize().map_err(|e| format!("cannot read: {e}"))?;
    if !path.starts_with(&base) {
        return Err(format!("resolves to {}, outside {}: {what}", path.display(), dir.file_name().and_then(|n| n.to_str()).unwrap_or("the project")));
    }
    let bytes = crate::budget::read_limited(&path, MAX_TARGET_BYTES).map_err(|e| {
        if e.starts_with("the file is larger") { format!("is larger than {MAX_TARGET_BYTES} bytes") } else { e }
    })?;
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

/// Whether `name` may name a target: a plain file stem, no path.
fn plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Load the target `name` from `targets_dir` (the `targets/` folder beside `dispositions/`).
/// Messages name `targets/<name>.yaml` with lines.
///
/// # Errors
/// Every problem found, with file and line.
pub fn load(targets_dir: &Path, name: &str) -> Result<Target, Vec<TableError>> {
    let shown = PathBuf::from("targets").join(format!("{name}.yaml"));
    let err = |line: Option<u64>, message: String| TableError { file: shown.clone(), line, message };
    if !plain_name(name) {
        return Err(vec![err(None, format!("`{name}` is not a target name (a file stem under targets/, like `openai-strict`)"))]);
    }
    let text = read_inside(targets_dir, &format!("{name}.yaml"), "a target lives in targets/").map_err(|e| {
        let known = names(targets_dir);
        // The nearest name for a misspelling; else every name, for a placeholder (`target: TODO`,
        // as `new` and `init` scaffold it) or a guess.
        let hint = match crate::diagnostic::nearest(name, known.iter().map(String::as_str)) {
            Some(n) => format!(" (did you mean `{n}`?)"),
            None if !known.is_empty() => format!(" (targets: {})", known.join(", ")),
            None => String::new(),
        };
        vec![err(None, format!("no target `{name}`: {e}{hint}"))]
    })?;
    parse(&text, &shown, targets_dir)
}

/// The target names found in `targets_dir`, sorted.
#[must_use]
pub fn names(targets_dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(targets_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".yaml")).map(str::to_owned))
        .collect();
    out.sort();
    out
}

/// The 1-based line of the top-level key `key` in YAML `text`, if any.
pub(crate) fn key_line(text: &str, key: &str) -> Option<u64> {
    let plain = format!("{key}:");
    let quoted = format!("\"{key}\":");
    text.lines().position(|l| l.starts_with(&plain) || l.starts_with(&quoted)).map(|i| i as u64 + 1)
}

/// Parse and lint a target from text; `shown` names it in messages.
///
/// # Errors
/// Every problem found, with file and line.
pub fn parse(text: &str, shown: &Path, targets_dir: &Path) -> Result<Target, Vec<TableError>> {
    let err = |line: Option<u64>, message: String| TableError { file: shown.to_owned(), line, message };
    let file: TargetFile = crate::yaml::from_str(text).map_err(|e| {
        let line = e.location().map(|l| l.line());
        vec![err(line, format!("not a valid target: {}", e.to_string().lines().next().unwrap_or_default()))]
    })?;
    let mut errors = Vec::new();
    let stem = shown.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if file.target != stem {
        errors.push(err(key_line(text, "target"), format!("`target: {}` does not match the file name `{stem}.yaml`", file.target)));
    }
    let dated = |errors: &mut Vec<TableError>, key: &str, source: &str, read: &str, line: Option<u64>| {
        if crate::diagnostic::is_placeholder(source) {
            errors.push(err(line, format!("`{key}`: `source:` must say where the rule is documented (a URL or a document)")));
        }
        if !is_date(read) {
            errors.push(err(line, format!("`{key}`: `read: {read}` is not the date the source was read (YYYY-MM-DD)")));
        }
    };
    dated(&mut errors, "dialect", &file.dialect.source, &file.dialect.read, key_line(text, "dialect"));
    dated(&mut errors, "recursion", &file.recursion.source, &file.recursion.read, key_line(text, "recursion"));
    dated(&mut errors, "object_root", &file.object_root.source, &file.object_root.read, key_line(text, "object_root"));
    if let Some(g) = &file.grammar {
        dated(&mut errors, "grammar", &g.source, &g.read, key_line(text, "grammar"));
    }
    if let Some(n) = &file.when_not_strict {
        dated(&mut errors, "when_not_strict", &n.source, &n.read, key_line(text, "when_not_strict"));
        if !plain_name(&n.rule.target) || !targets_dir.join(format!("{}.yaml", n.rule.target)).is_file() {
            errors.push(err(key_line(text, "when_not_strict"), format!("`when_not_strict.target: {}` names no target under targets/", n.rule.target)));
        }
    }
    let mut limits = BTreeMap::new();
    for (name, l) in &file.limits {
        let line = Some(l.referenced.line());
        dated(&mut errors, &format!("limits.{name}"), &l.value.source, &l.value.read, line);
        match Counts::parse(&l.value.counts) {
            Some(counts) => {
                let note = match &l.value.note {
                    Some(n) => format!("{n} ({}, read {})", l.value.source, l.value.read),
                    None => format!("{} (read {})", l.value.source, l.value.read),
                };
                limits.insert(name.clone(), Limit { value: l.value.value, counts, note, known_violation: None });
            }
            None => errors.push(err(line, format!("`limits.{name}`: `counts: {}` is not one of {}", l.value.counts, Counts::names().join(", ")))),
        }
    }
    let grammar_line = key_line(text, "grammar");
    let grammar = file.grammar.as_ref().and_then(|g| {
        let read = read_inside(targets_dir, &g.rule.file, "a grammar must live beside the targets");
        match read.and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string())) {
            Ok(v) => Some((PathBuf::from("targets").join(&g.rule.file), v)),
            Err(e) => {
                errors.push(err(grammar_line, format!("grammar `{}`: {e}", g.rule.file)));
                None
            }
        }
    });
    // The format as a JSON Schema (schemas/target.schema.json, what editors read).
    if errors.is_empty()
        && let Ok(value) = crate::yaml::from_str::<Value>(text)
    {
        errors.extend(crate::schemas::check(crate::schemas::Format::Target, text, &value).into_iter().map(|(line, m)| err(line, m)));
    }
    if !errors.is_empty() {
        errors.sort_by_key(|e| e.line.unwrap_or(u64::MAX));
        return Err(errors);
    }
    Ok(Target {
        name: file.target,
        file: shown.to_owned(),
        description: file.description,
        dialect: file.dialect.rule.is,
        grammar,
        recursion: file.recursion.rule.rule,
        requires_object_root: file.object_root.rule.required,
        limits,
        when_not_strict: file.when_not_strict.map(|n| n.rule.target),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn every_target_loads() {
        let dir = root().join("targets");
        let names = names(&dir);
        assert!(names.len() >= 10, "{names:?}");
        for name in names {
            if let Err(e) = load(&dir, &name) {
                panic!("{}", e.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
            }
        }
    }

    #[test]
    fn a_target_outside_targets_is_refused() {
        let dir = root().join("targets");
        let e = load(&dir, "../dispositions/identity").unwrap_err();
        assert!(e[0].message.contains("is not a target name"), "{e:?}");
        let e = load(&dir, "nowhere").unwrap_err();
        assert!(e[0].message.contains("no target `nowhere`"), "{e:?}");
        // Nothing near it: every target is named, so a placeholder says what to write.
        assert!(e[0].message.contains(&format!("(targets: {})", names(&dir).join(", "))), "{e:?}");
        let e = load(&dir, "openai-strikt").unwrap_err();
        assert!(e[0].message.contains("(did you mean `openai-strict`?)") && !e[0].message.contains("targets:"), "{e:?}");
    }

    #[test]
    fn a_rule_without_a_source_or_date_is_rejected() {
        let text = "target: t\ndialect: { is: json-schema, source: \"\", read: 2026-11-29 }\nrecursion: { rule: allowed, source: x, read: yesterday }\nobject_root: { required: true, source: x, read: 2026-11-29 }\nlimits:\n  max-depth: { value: 1, counts: nothing, source: x, read: 2026-11-29 }\n";
        let e = parse(text, Path::new("targets/t.yaml"), &root().join("targets")).unwrap_err();
        let shown: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert!(shown.iter().any(|m| m.starts_with("targets/t.yaml:2: `dialect`: `source:`")), "{shown:?}");
        assert!(shown.iter().any(|m| m.starts_with("targets/t.yaml:3: `recursion`: `read: yesterday`")), "{shown:?}");
        assert!(shown.iter().any(|m| m.starts_with("targets/t.yaml:6: `limits.max-depth`: `counts: nothing`")), "{shown:?}");
    }

    #[test]
    fn dates() {
        assert!(is_date("2026-11-29"));
        assert!(!is_date("2026-13-01"));
        assert!(!is_date("2026-1-01"));
        assert!(!is_date("TODO"));
    }
}
