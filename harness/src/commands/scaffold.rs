//! `schema-fidelity new TRANSLATOR`: a table to fill in, listing every draft 2020-12 keyword and
//! both boolean subschemas with `disposition: TODO`.
//!
//! Onboarding a provider should start from the complete list, not from the keywords someone
//! remembered. The lint rejects `TODO` with a message naming each unfilled row, so the table
//! cannot pass until every row says what the translator really does.
//!
//! `schema-fidelity init` writes the same rows under a header of its own (an external translator
//! whose adapter it writes too: [`crate::commands::init`]), through [`scaffold_with`].

use std::io::Write as _;

use crate::commands::{Cx, EXIT_OK, Stop, project};
use std::fmt::Write as _;

use schema_fidelity_translators::vocabulary::{BOOLEAN_SUBSCHEMAS, DRAFT_2020_12};

use crate::report::RESERVED_NAMES;

/// Whether `name` can name a translator: lower-case ASCII letters, digits and `-`, starting with a
/// letter (it becomes a file name, a report page and part of every citation).
///
/// # Errors
/// Saying what is wrong with the name.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok_chars = name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if name.is_empty() || !ok_chars || !name.starts_with(|c: char| c.is_ascii_lowercase()) || name.ends_with('-') {
        return Err(format!("`{name}` is not a translator name: use lower-case letters, digits and `-`, starting with a letter (e.g. `openai-strict`)"));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(format!("`{name}` is a name the reports use for themselves ({}); pick another", RESERVED_NAMES.join(", ")));
    }
    Ok(())
}

/// The text of a new table for `name`, as `schema-fidelity new` writes it: placeholders for how
/// it runs, since it may be built in (Rust) or external (an adapter).
#[must_use]
pub fn scaffold(name: &str) -> String {
    let runs = format!(
        "# An external translator (any language, run over the JSON-lines protocol; README, \"Onboarding a\n\
         # translator\"): how to start its adapter, from the project root, and the command that installs\n\
         # what it needs (shown when it is missing). For a Python venv or an npm project, replace\n\
         # `install:` with the environment, which the harness then sets up on first use:\n\
         # `environment: {{ kind: npm, dir: translators/external/node }}` (or `kind: python-venv`).\n\
         # The lint rejects a `run:` or `install:` that still says TODO, and a `run:` program or script\n\
         # that does not exist; `package:` names what it runs, with the version pinned (the reports\n\
         # show it). A built-in (Rust) translator needs none of these: delete them.\n\
         run: [TODO-runtime, translators/external/TODO/{name}.adapter]   # e.g. [node, translators/external/node/{name}.mjs]\n\
         install: \"TODO: the command that installs it\"   # e.g. \"npm ci --prefix translators/external/node\"\n\
         package: \"TODO: the package and the version pinned\"   # e.g. \"@mastra/schema-compat 1.3.11 (npm)\"\n"
    );
    scaffold_with(
        name,
        &Header {
            editor_schema: Some("../schemas/table.schema.json"),
            written_by: &format!("`schema-fidelity new {name}`"),
            contract: "CONTRACT.md, section 2",
            runs: &runs,
            entry_comment: "# Where its users send a tool: the public call (`call:`), the code path it runs on the schema\n\
                            # (`path:`: the adapter answers through it) and where the projection is read from the request\n\
                            # the call builds (`reads:`). The adapter drives `call` with its transport stubbed when asked\n\
                            # `via: entry`, and the `NAME::entry` trial holds both answers equal (README, \"Onboarding\").\n",
            target_comment: "# The provider surface the projection is sent to: one of targets/*.yaml (openai-strict,\n\
                             # gemini-json-schema, anthropic, mcp, ...). Its grammar, cycle rule, object-root rule and limits\n\
                             # then apply to every projection. The lint rejects TODO.\n",
            target: "TODO",
        },
    )
}

/// What differs between the tables `new` and `init` write: who wrote it, and the header lines that
/// say how the translator runs and where its projections go. The rows are the same.
pub struct Header<'a> {
    /// The table's JSON Schema, for editors (`# yaml-language-server: $schema=...`), as a path
    /// from the table's folder, where there is one to point at.
    pub editor_schema: Option<&'a str>,
    /// The command that wrote the table, as the first comment names it.
    pub written_by: &'a str,
    /// Where the dispositions are defined, as the first comment cites it.
    pub contract: &'a str,
    /// The lines after `source:` that say how the translator runs (`run:`, `install:`,
    /// `package:`), with their comment; each ends with a newline.
    pub runs: &'a str,
    /// The comment above `entry:` (ending with a newline), whose three fields are placeholders.
    pub entry_comment: &'a str,
    /// The comment above `target:` (ending with a newline), and its value.
    pub target_comment: &'a str,
    pub target: &'a str,
}

/// The text of a new table for `name`, with `header`'s parts: every row `disposition: TODO`.
#[must_use]
pub fn scaffold_with(name: &str, header: &Header) -> String {
    let mut s = String::new();
    if let Some(schema) = header.editor_schema {
        let _ = writeln!(s, "# yaml-language-server: $schema={schema}");
    }
    let _ = writeln!(
        s,
        "# Disposition table for `{name}`, scaffolded by {}.\n\
         # Every row says `disposition: TODO`, which the lint rejects: replace each with what the translator\n\
         # really does ({}):\n\
         #   {{ disposition: preserved }}                                       accepts exactly what the source accepts\n\
         #   {{ disposition: preserved, as: enum }}                             ... spelled another way\n\
         #   {{ disposition: approximated, direction: widening, to: dropped }}  accepts more (`narrowing`: less); `to:` what it became\n\
         #   {{ disposition: refused }}                                         fails with a named error citing the keyword\n\
         # A row may refine itself by place (`at_root:`) or by its value's form (`forms:` true, false, schema,\n\
         # list, fragment, uri, scalar), and carry `note:`, `issues: [..]` and `known_violation:`.",
        header.written_by, header.contract
    );
    let _ = writeln!(s, "translator: {name}");
    s.push_str("description: >-\n  TODO: the provider form this translator produces.\n");
    s.push_str("source: >-\n  TODO: where the provider grammar comes from, with the date it was read\n");
    s.push_str("# dialect: json-schema            # or gemini-proto\n# requires_object_root: true\n");
    s.push_str(header.runs);
    s.push_str(header.entry_comment);
    s.push_str("entry:\n");
    s.push_str("  call: \"TODO: the public call, e.g. anthropic.Anthropic().messages.create(tools=[...])\"\n");
    s.push_str("  path: \"TODO: the code path it runs on the schema, e.g. agents.strict_schema.ensure_strict_json_schema\"\n");
    s.push_str("  reads: \"TODO: where in the request the projection is read, e.g. body.tools[0].input_schema\"\n");
    s.push_str(header.target_comment);
    let _ = writeln!(s, "target: {}", header.target);
    s.push_str("keywords:\n");
    let mut vocabulary = None;
    for k in DRAFT_2020_12 {
        if vocabulary != Some(k.vocabulary) {
            let _ = writeln!(s, "  # {}", k.vocabulary.name());
            vocabulary = Some(k.vocabulary);
        }
        let _ = writeln!(s, "  {}: {{ disposition: TODO }}", yaml_key(k.name));
    }
    s.push_str("  # boolean subschemas\n");
    for k in BOOLEAN_SUBSCHEMAS {
        let _ = writeln!(s, "  {}: {{ disposition: TODO }}", yaml_key(k));
    }
    s.push_str(
        "# Keys that are not draft 2020-12 keywords. Those some provider interprets need a row each; other\n\
         # keys schemas carry need rows too (a name ending in `*` is a glob, which may only be preserved).\n\
         extensions:\n",
    );
    for k in crate::table::INTERPRETED_EXTENSIONS {
        let _ = writeln!(s, "  {}: {{ disposition: TODO }}", yaml_key(k));
    }
    s.push_str("  \"*\": { disposition: preserved, note: \"unknown keywords are annotations in draft 2020-12\" }\n");
    s
}

/// Quote keys YAML would read as something other than a plain string.
fn yaml_key(k: &str) -> String {
    if k.starts_with('$') || k == "true" || k == "false" { format!("\"{k}\"") } else { k.to_owned() }
}

// ---- the command -------------------------------------------------------------------------------

pub(crate) fn command(name: &str, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    check_name(name)?;
    let project = project(cx)?;
    let path = project.dispositions_dir().join(format!("{name}.yaml"));
    let shown = project.relative(&path).display().to_string();
    let exists = || format!("{shown} already exists; `new` never overwrites a table (edit it, or remove it first)");
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(exists().into());
    }
    let dir = project.dispositions_dir();
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!("{}: is a symbolic link; `new` writes only into a real dispositions/ directory of the project", project.relative(&dir).display()).into());
    }
    // Whole or not at all: written beside it, then linked into place, which never replaces a
    // file (nor follows a link) that appeared meanwhile.
    let temp = dir.join(format!(".{name}.yaml.schema-fidelity-{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| f.write_all(scaffold(name).as_bytes()).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::hard_link(&temp, &path));
    let _ = std::fs::remove_file(&temp);
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && std::fs::symlink_metadata(&path).is_ok() => return Err(exists().into()),
        Err(e) => return Err(format!("{shown}: cannot write: {e}").into()),
    }
    say!(cx, "wrote {shown}: every row says `disposition: TODO`, and so do `description:`, `source:`, `run:` and `install:`.");
    say!(cx, "Fill each in with what the translator really does; `schema-fidelity lint` lists what is left.");
    say!(cx, "An external translator: write its adapter and point `run:` at it (README, \"Onboarding a translator\").");
    say!(cx, "A built-in one: delete `run:` and `install:` and name it `{name}` in translators/src/builtin/.");
    say!(cx, "Then `schema-fidelity run -t {name}`, and `schema-fidelity report` to regenerate reports/ before committing.");
    if cx.out_terminal {
        say!(cx, "See CONTRACT.md, section 2, for the dispositions.");
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check_name("openai-strict").is_ok());
        assert!(check_name("OpenAI").is_err());
        assert!(check_name("a/b").is_err());
        assert!(check_name("").is_err());
        assert!(check_name("matrix").is_err());
    }

    #[test]
    fn the_scaffold_parses_and_fails_lint_on_every_row() {
        let text = scaffold("fresh");
        let (table, errors) = crate::table::parse(&text, std::path::Path::new("dispositions/fresh.yaml"), std::path::Path::new("dispositions"));
        assert!(table.is_some(), "{errors:?}");
        let todo = errors.iter().filter(|e| e.message.contains("`disposition: TODO`")).count();
        assert_eq!(todo, DRAFT_2020_12.len() + BOOLEAN_SUBSCHEMAS.len() + crate::table::INTERPRETED_EXTENSIONS.len(), "{errors:?}");
        assert!(errors.iter().any(|e| e.message.starts_with("target `TODO`")), "the target placeholder is rejected: {errors:?}");
        // The scaffolded header fields, too: description, source, run, install, package, entry.
        let placeholders: Vec<&str> = errors.iter().filter(|e| e.message.contains("still says TODO")).map(|e| e.message.as_str()).collect();
        assert_eq!(placeholders.len(), 5, "{errors:?}");
        for key in ["description", "source", "run", "install", "package"] {
            assert!(placeholders.iter().any(|m| m.starts_with(&format!("`{key}:`"))), "{key}: {errors:?}");
        }
        for key in ["call", "path", "reads"] {
            assert!(errors.iter().any(|e| e.message.starts_with(&format!("`entry.{key}:` is a placeholder"))), "entry.{key}: {errors:?}");
        }
        assert!(errors.iter().all(|e| e.line.is_some()), "every finding has a line: {errors:?}");
    }
}
