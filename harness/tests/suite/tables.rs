//! The table lint: what it must reject, with file and line.
//!
//! The strongest check runs over every committed table: deleting any one row must make the lint
//! fail with a message naming that keyword and the table file (never silent).

use std::path::{Path, PathBuf};

use schema_fidelity::diagnostic::TableError;
use schema_fidelity::project::Project;
use schema_fidelity::table;
use schema_fidelity::trials;

fn project() -> Project {
    Project::at(trials::workspace_root())
}

fn lint(text: &str, name: &str) -> Vec<TableError> {
    let p = project();
    let (_, errors) = table::parse(text, Path::new(&format!("dispositions/{name}.yaml")), &p.dispositions_dir());
    errors
}

fn identity_text() -> String {
    std::fs::read_to_string(project().dispositions_dir().join("identity.yaml")).expect("identity table")
}

/// The top-level rows under `keywords:`, as (keyword, first line index, end line index exclusive).
fn keyword_rows(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| *l == "keywords:") else { return Vec::new() };
    let mut rows = Vec::new();
    let mut i = start + 1;
    while i < lines.len() {
        let line = lines[i];
        if !line.starts_with(' ') && !line.is_empty() && !line.starts_with('#') {
            break; // the next top-level key
        }
        let is_row = line.starts_with("  ") && !line.starts_with("   ") && !line.trim_start().starts_with('#');
        if is_row {
            let key = line.trim_start().split(':').next().unwrap_or_default().trim_matches('"').to_owned();
            let mut end = i + 1;
            while end < lines.len() && lines[end].starts_with("   ") {
                end += 1;
            }
            rows.push((key, i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    rows
}

#[test]
fn every_committed_table_lints_clean() {
    let p = project();
    let files = p.table_files();
    assert!(files.len() >= 2, "at least identity and anthropic");
    for path in files {
        let (t, errors) = table::load_lenient(&path, p.relative(&path), &p.dispositions_dir());
        assert!(t.is_some() && errors.is_empty(), "{}: {errors:?}", path.display());
    }
}

#[test]
fn deleting_any_row_fails_naming_the_keyword_and_the_file() {
    const BATCHES: usize = 8;
    let p = project();
    for path in p.table_files() {
        let text = std::fs::read_to_string(&path).expect("readable table");
        let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 name").to_owned();
        let rows = keyword_rows(&text);
        assert!(rows.len() >= 59, "{name}: found {} rows; the row finder is out of step with the table layout", rows.len());
        let lines: Vec<&str> = text.lines().collect();
        // Rows are deleted eight batches at a time, each batch every eighth row (so a keyword and
        // its form rows, which sit together, fall in different batches), and every keyword
        // deleted must be reported: stricter than one row at a time, at an eighth of the parses.
        for batch in 0..BATCHES {
            let deleted: Vec<&(String, usize, usize)> = rows.iter().skip(batch).step_by(BATCHES).collect();
            let without: Vec<&str> =
                lines.iter().enumerate().filter(|(i, _)| !deleted.iter().any(|(_, start, end)| (*start..*end).contains(i))).map(|(_, l)| *l).collect();
            let errors = lint(&without.join("\n"), &name);
            let shown: PathBuf = format!("dispositions/{name}.yaml").into();
            for (keyword, _, _) in deleted {
                assert!(
                    errors.iter().any(|e| e.file == shown && e.message.contains(&format!("`{keyword}`"))),
                    "deleting `{keyword}` (with every eighth row from the {batch}th) from {name}.yaml was not reported: {errors:?}"
                );
            }
        }
    }
}

#[test]
fn a_duplicated_row_is_rejected_with_its_line() {
    let text = identity_text().replacen("  minimum: { disposition: preserved }", "  minimum: { disposition: preserved }\n  minimum: { disposition: refused }", 1);
    let errors = lint(&text, "identity");
    let e = errors.first().expect("rejected");
    let line = text.lines().position(|l| l == "  minimum: { disposition: refused }").expect("inserted") as u64 + 1;
    assert_eq!(e.message, format!("`minimum` has two rows (lines {} and {line}): a keyword gets exactly one disposition", line - 1), "{e}");
    assert_eq!(e.line, Some(line), "{e}");
    assert!(e.to_string().starts_with(&format!("dispositions/identity.yaml:{line}:")), "{e}");
}

#[test]
fn a_misspelled_keyword_is_rejected_with_its_line_and_a_suggestion() {
    let text = identity_text().replacen("  minLength: { disposition: preserved }", "  minLenght: { disposition: preserved }", 1);
    let errors = lint(&text, "identity");
    let line = text.lines().position(|l| l.starts_with("  minLenght:")).expect("edited") as u64 + 1;
    let typo = errors.iter().find(|e| e.message.contains("minLenght")).expect("typo reported");
    assert_eq!(typo.line, Some(line));
    assert!(typo.message.contains("did you mean `minLength`"), "{typo}");
    assert!(errors.iter().any(|e| e.message.contains("no row for keyword `minLength`")));
}

#[test]
fn a_misspelled_extension_is_rejected() {
    let text = identity_text().replacen("extensions:\n", "extensions:\n  maxItem: { disposition: preserved }\n", 1);
    let errors = lint(&text, "identity");
    assert!(errors.iter().any(|e| e.message.contains("did you mean `maxItems`")), "{errors:?}");
}

#[test]
fn a_widening_false_row_is_the_inversion_and_is_rejected() {
    let text = identity_text().replacen(
        "  \"false\": { disposition: preserved }",
        "  \"false\": { disposition: approximated, direction: widening, to: rewritten }",
        1,
    );
    let errors = lint(&text, "identity");
    assert!(errors.iter().any(|e| e.message.contains("inversion")), "{errors:?}");
}

#[test]
fn a_widening_false_form_of_a_schema_keyword_is_the_inversion_too() {
    let text = identity_text().replacen(
        "  additionalProperties: { disposition: preserved }",
        "  additionalProperties:\n    forms:\n      \"false\": { disposition: approximated, direction: widening, to: description }\n      \"true\": { disposition: preserved }\n      schema: { disposition: preserved }",
        1,
    );
    let errors = lint(&text, "identity");
    assert!(errors.iter().any(|e| e.message.contains("`additionalProperties` (false)") && e.message.contains("inversion")), "{errors:?}");
    // `const: false` is data, not a subschema: widening it is an ordinary approximation.
    let text = identity_text().replacen(
        "  const: { disposition: preserved }",
        "  const:\n    disposition: preserved\n    forms:\n      \"false\": { disposition: approximated, direction: widening, to: rewritten }",
        1,
    );
    assert!(lint(&text, "identity").is_empty());
}

#[test]
fn a_to_outside_the_vocabulary_is_rejected_with_the_vocabulary() {
    let text = identity_text().replacen("  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, direction: widening, to: the description }", 1);
    let errors = lint(&text, "identity");
    assert!(errors.iter().any(|e| e.message.contains("`to: the description` is not one of dropped, description, anyOf")), "{errors:?}");
}

#[test]
fn an_approximation_without_direction_or_target_is_rejected() {
    let text = identity_text().replacen("  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, to: description }", 1);
    let errors = lint(&text, "identity");
    assert!(errors.iter().any(|e| e.message.contains("`pattern`") && e.message.contains("direction")), "{errors:?}");
    let text = identity_text().replacen("  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, direction: both, to: x }", 1);
    let errors = lint(&text, "identity");
    assert!(!errors.is_empty(), "a row cannot claim both directions");
}

#[test]
fn an_unknown_form_and_a_wrong_translator_name_are_rejected() {
    let text = identity_text().replacen(
        "  items: { disposition: preserved }",
        "  items:\n    forms:\n      tuple: { disposition: preserved }",
        1,
    );
    let errors = lint(&text, "other-name");
    assert!(errors.iter().any(|e| e.message.contains("unknown form `tuple`")), "{errors:?}");
    assert!(errors.iter().any(|e| e.message.contains("does not match the file name")), "{errors:?}");
}

#[test]
fn malformed_yaml_is_an_error_with_a_line_not_a_panic() {
    let errors = lint("translator: identity\nkeywords:\n  type: [unclosed\n", "identity");
    assert_eq!(errors.len(), 1);
    assert!(errors[0].line.is_some(), "{:?}", errors[0]);
}

#[test]
fn rows_resolve_by_root_then_form_then_base() {
    let p = project();
    let path = p.dispositions_dir().join("anthropic.yaml");
    let t = table::load(&path, p.relative(&path), &p.dispositions_dir()).expect("anthropic lints");
    let any_of = serde_json::json!([{"type": "string"}]);
    assert_eq!(t.row("anyOf", &any_of, true).map(|r| r.id.refinement.clone()), Ok(Some("at_root".to_owned())));
    assert_eq!(t.row("anyOf", &any_of, false).map(|r| r.id.refinement.clone()), Ok(None));
    let uri = serde_json::json!("https://example.com/s.json");
    assert_eq!(t.row("$ref", &uri, false).map(|r| r.id.refinement.clone()), Ok(Some("uri".to_owned())));
    assert!(t.row("x-vendor", &serde_json::json!(1), false).is_ok(), "the `*` extension glob");
}

#[test]
fn a_misspelled_field_gets_the_nearest_right_one() {
    let text = identity_text().replacen("  minimum: { disposition: preserved }", "  minimum: { dispositon: preserved }", 1);
    let errors = lint(&text, "identity");
    let e = errors.first().expect("rejected");
    assert!(e.message.starts_with("unknown field `dispositon` (did you mean `disposition`?)"), "{e}");
}

#[test]
fn a_grammar_outside_the_targets_or_not_a_file_is_refused_with_its_line() {
    let dir = trials::workspace_root().join("targets");
    let base = std::fs::read_to_string(dir.join("json-schema.yaml")).expect("json-schema target");
    for (grammar, says) in [("/dev/zero", "outside targets"), ("../Cargo.toml", "outside targets"), ("grammars", "not a regular file")] {
        let text = base.replacen("recursion:", &format!("grammar: {{ file: {grammar}, source: here, read: 2026-11-29 }}\nrecursion:"), 1);
        let errors = schema_fidelity::target::parse(&text, Path::new("targets/json-schema.yaml"), &dir).expect_err("refused");
        let line = text.lines().position(|l| l.starts_with("grammar:")).expect("inserted") as u64 + 1;
        assert!(errors.iter().any(|e| e.line == Some(line) && e.message.contains(says)), "{grammar}: {errors:?}");
    }
}

#[test]
fn a_table_names_a_target_inside_targets() {
    let text = identity_text();
    let line = text.lines().position(|l| l.starts_with("target:")).expect("identity names a target") as u64 + 1;
    for (target, says) in [("../dispositions/identity", "is not a target name"), ("/etc/passwd", "is not a target name"), ("openai-stric", "did you mean `openai-strict`?")] {
        let errors = lint(&text.replacen("target: json-schema", &format!("target: \"{target}\""), 1), "identity");
        assert!(errors.iter().any(|e| e.line == Some(line) && e.message.contains(says)), "{target}: {errors:?}");
    }
    let errors = lint(&text.replacen("target: json-schema\n", "", 1), "identity");
    assert!(errors.iter().any(|e| e.message.starts_with("no `target:`")), "{errors:?}");
    let external = text.replacen("target: json-schema\n", "run: [node, adapter.mjs]\n", 1);
    assert!(lint(&external, "identity").iter().any(|e| e.message.contains("an external translator must name one")));
}

#[test]
fn a_provider_rule_in_a_table_belongs_to_its_target() {
    for (rule, key) in [("dialect: json-schema", "dialect"), ("grammar: grammars/gemini.json", "grammar"), ("requires_object_root: true", "requires_object_root"), ("recursion: none", "recursion"), ("limits: {}", "limits")] {
        let text = identity_text().replacen("keywords:\n", &format!("{rule}\nkeywords:\n"), 1);
        let line = text.lines().position(|l| l.starts_with(key)).expect("inserted") as u64 + 1;
        let errors = lint(&text, "identity");
        assert!(errors.iter().any(|e| e.line == Some(line) && e.message.contains("belongs to the target")), "{rule}: {errors:?}");
    }
}

#[test]
fn the_external_tables_are_checked_against_their_targets() {
    let p = project();
    for (table, target) in [("pydantic-ai-google", "gemini-json-schema"), ("mastra-openai-strict", "openai-strict")] {
        let path = p.dispositions_dir().join(format!("{table}.yaml"));
        let (t, _) = table::load_lenient(&path, p.relative(&path), &p.dispositions_dir());
        let t = t.expect("loads");
        assert_eq!(t.target.as_ref().map(|t| t.name.as_str()), Some(target));
        assert!(t.grammar.is_some() && t.requires_object_root, "{table} gets its target's grammar and object-root rule");
    }
}

#[test]
fn an_external_table_names_its_package() {
    let p = project();
    for table in ["pydantic-ai-google", "mastra-openai-strict"] {
        let path = p.dispositions_dir().join(format!("{table}.yaml"));
        let text = std::fs::read_to_string(&path).expect("the table");
        assert!(table::parse(&text, p.relative(&path), &p.dispositions_dir()).0.and_then(|t| t.package).is_some_and(|p| p.contains(' ')), "{table} names its package and version");
        let without: String = text.lines().filter(|l| !l.starts_with("package:")).map(|l| format!("{l}\n")).collect();
        let errors = lint(&without, table);
        assert!(errors.iter().any(|e| e.message.contains("names its `package:` and pinned version")), "{table}: {errors:?}");
    }
}

/// The committed tables with `run:`: the external translators.
fn external_tables() -> Vec<(String, PathBuf, String)> {
    let p = project();
    let mut out = Vec::new();
    for entry in std::fs::read_dir(p.dispositions_dir()).expect("dispositions/") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("a table");
        if text.lines().any(|l| l.starts_with("run:")) {
            let name = path.file_stem().and_then(|s| s.to_str()).expect("a stem").to_owned();
            out.push((name, path, text));
        }
    }
    out.sort();
    out
}

#[test]
fn every_external_table_names_its_entry_and_the_lint_requires_it() {
    let p = project();
    let tables = external_tables();
    assert!(tables.len() >= 14, "the external tables: {:?}", tables.iter().map(|t| &t.0).collect::<Vec<_>>());
    for (name, path, text) in &tables {
        let entry = table::parse(text, p.relative(path), &p.dispositions_dir()).0.and_then(|t| t.entry);
        let entry = entry.unwrap_or_else(|| panic!("{name} names its entry"));
        assert!(!entry.call.is_empty() && !entry.path.is_empty() && !entry.reads.is_empty(), "{name}: {entry:?}");
        // Without it: an error at the `run:` line.
        let mut without = String::new();
        let mut skipping = false;
        for line in text.lines() {
            skipping = line.starts_with("entry:") || (skipping && line.starts_with("  "));
            if !skipping {
                without.push_str(line);
                without.push('\n');
            }
        }
        let errors = lint(&without, name);
        let run_line = text.lines().position(|l| l.starts_with("run:")).map(|i| i as u64 + 1);
        assert!(
            errors.iter().any(|e| e.message.contains("names its `entry:`") && e.line.is_some() && e.line <= run_line),
            "{name}: {errors:?}"
        );
        // A placeholder in any of its fields is rejected, naming the field.
        for (field, value) in [("call", &entry.call), ("path", &entry.path), ("reads", &entry.reads)] {
            let quoted = serde_json::to_string(value).expect("a string");
            let placeholder = text.replacen(&format!("  {field}: {quoted}"), &format!("  {field}: \"TODO\""), 1);
            assert_ne!(&placeholder, text, "{name}: `{field}:` is written as a one-line quoted string");
            let errors = lint(&placeholder, name);
            assert!(errors.iter().any(|e| e.message.starts_with(&format!("`entry.{field}:` is a placeholder"))), "{name} {field}: {errors:?}");
        }
    }
}

#[test]
fn a_built_in_table_has_no_entry() {
    let text = identity_text();
    let with = text.replacen("keywords:\n", "entry:\n  call: \"identity(S)\"\n  path: \"unchanged\"\n  reads: \"the answer\"\nkeywords:\n", 1);
    let errors = lint(&with, "identity");
    assert!(errors.iter().any(|e| e.message.contains("`entry:` is for an external translator")), "{errors:?}");
}

#[test]
fn every_built_in_table_names_the_real_translator_it_models_and_the_lint_checks_it() {
    let p = project();
    let externals: Vec<String> = external_tables().into_iter().map(|t| t.0).collect();
    let mut built_in = 0;
    for entry in std::fs::read_dir(p.dispositions_dir()).expect("dispositions/") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("a table");
        if text.lines().any(|l| l.starts_with("run:")) {
            continue;
        }
        built_in += 1;
        let name = path.file_stem().and_then(|s| s.to_str()).expect("a stem").to_owned();
        let models = table::parse(&text, p.relative(&path), &p.dispositions_dir()).0.and_then(|t| t.models);
        let models = models.unwrap_or_else(|| panic!("{name} names the real translator it models"));
        assert!(externals.contains(&models), "{name} models `{models}`, which is no external translator");
        // A name one letter off: an error at its line, with the nearest external translator.
        let typo = text.replacen(&format!("models: {models}"), &format!("models: {models}x"), 1);
        let errors = lint(&typo, &name);
        let line = text.lines().position(|l| l.starts_with("models:")).map(|i| i as u64 + 1);
        assert!(
            errors.iter().any(|e| e.line == line && e.message.contains("names no external translator") && e.message.contains(&format!("did you mean `{models}`"))),
            "{name}: {errors:?}"
        );
        // A built-in translator is not a real one.
        let built_in_model = text.replacen(&format!("models: {models}"), "models: identity", 1);
        assert!(lint(&built_in_model, &name).iter().any(|e| e.message.contains("names no external translator")), "{name}");
    }
    assert!(built_in >= 10, "the built-in tables: {built_in}");
}

#[test]
fn a_reviewed_difference_names_a_row_of_the_reference() {
    let text = std::fs::read_to_string(project().dispositions_dir().join("anthropic.yaml")).expect("anthropic table");
    assert!(lint(&text, "anthropic").is_empty(), "{:?}", lint(&text, "anthropic"));
    let wrong = text.replacen("  \"$ref:uri\":", "  \"$ref:schema\":", 1);
    assert_ne!(wrong, text);
    assert!(lint(&wrong, "anthropic").iter().any(|e| e.message.contains("`models_reviewed: $ref:schema` names no row")), "{:?}", lint(&wrong, "anthropic"));
    let unmodelled: String = text.lines().filter(|l| !l.starts_with("models:")).map(|l| format!("{l}\n")).collect();
    assert!(lint(&unmodelled, "anthropic").iter().any(|e| e.message.contains("it needs `models:`")));
}

#[test]
fn an_external_table_models_nothing() {
    let (name, _, text) = external_tables().into_iter().next().expect("an external table");
    let with = text.replacen("keywords:\n", "models: pi-ai-google\nkeywords:\n", 1);
    let errors = lint(&with, &name);
    assert!(errors.iter().any(|e| e.message.contains("`models:` is for a built-in translator")), "{errors:?}");
}

#[test]
fn extensions_some_target_interprets_have_rows_of_their_own() {
    let text = identity_text();
    for name in schema_fidelity::table::INTERPRETED_EXTENSIONS {
        let line = text.lines().find(|l| l.starts_with(&format!("  {name}:")) || l.starts_with(&format!("  \"{name}\":"))).expect("identity has the row");
        let errors = lint(&text.replacen(&format!("{line}\n"), "", 1), "identity");
        assert!(errors.iter().any(|e| e.message.starts_with(&format!("no row for extension `{name}`"))), "{name}: {errors:?}");
    }
    // A glob that is not `preserved` would interpret what it covers.
    let star = text.lines().find(|l| l.starts_with("  \"*\":")).expect("identity has a `*` row");
    let errors = lint(&text.replacen(star, "  \"*\": { disposition: approximated, direction: widening, to: dropped }", 1), "identity");
    assert!(errors.iter().any(|e| e.message.contains("may cover only pure annotations")), "{errors:?}");
}

#[test]
fn placeholders_are_rejected() {
    let text = identity_text();
    let errors = lint(&text.replacen("  minimum: { disposition: preserved }", "  minimum: { disposition: preserved, note: \"TODO\" }", 1), "identity");
    assert!(errors.iter().any(|e| e.message.contains("`minimum`: the `note` is a TODO")), "{errors:?}");
    let errors = lint(&text.replacen("  minimum: { disposition: preserved }", "  minimum: { disposition: preserved, issues: [\"TODO\"] }", 1), "identity");
    assert!(errors.iter().any(|e| e.message.contains("is a placeholder")), "{errors:?}");
    let source = text.lines().find(|l| l.starts_with("source:")).expect("a source line");
    let errors = lint(&text.replacen(source, "source: \"TODO: where the translator was read\"", 1), "identity");
    assert!(errors.iter().any(|e| e.message.starts_with("`source:` is a placeholder")), "{errors:?}");
}

#[test]
fn a_known_violation_names_a_real_issue() {
    let text = identity_text();
    let with = |issue: &str| {
        let row = format!("  minimum: {{ disposition: preserved, known_violation: {{ issue: \"{issue}\", direction: narrowing, witness: w }} }}");
        lint(&text.replacen("  minimum: { disposition: preserved }", &row, 1), "identity")
    };
    for (issue, says) in [
        ("schema-fidelity: untracked", "is a placeholder"),
        ("schema-fidelity: untracked (found later)", "is a placeholder"),
        ("somebody should file this", "names no issue"),
        ("TRACKING.md#sf-99999", "TRACKING.md has no entry `## sf-99999`"),
    ] {
        let errors = with(issue);
        assert!(errors.iter().any(|e| e.message.contains(says)), "{issue}: {errors:?}");
    }
    for issue in ["opencode#1585", "pydantic/pydantic-ai#123 (the cycle rule)", "https://github.com/o/r/issues/1", "TRACKING.md#sf-5"] {
        assert!(with(issue).is_empty(), "{issue}: {:?}", with(issue));
    }
}

#[test]
fn every_table_target_and_corpus_file_names_its_schema_and_satisfies_it() {
    use schema_fidelity::schemas::{self, Format};
    let root = trials::workspace_root();
    let mut files: Vec<(PathBuf, Format)> = Vec::new();
    for (dir, format) in [("dispositions", Format::Table), ("targets", Format::Target)] {
        for e in std::fs::read_dir(root.join(dir)).expect("dir").flatten() {
            if e.path().extension().is_some_and(|x| x == "yaml") {
                files.push((e.path(), format));
            }
        }
    }
    for e in walkdir::WalkDir::new(root.join("corpus")).into_iter().flatten() {
        if e.path().extension().is_some_and(|x| x == "yaml") {
            // The pins of the harvested MCP servers sit with the files they write.
            let format = if e.path() == root.join(schema_fidelity::mcp::manifest::MANIFEST) { Format::McpServers } else { Format::Corpus };
            files.push((e.path().to_owned(), format));
        }
    }
    assert!(files.len() > 60, "{} files", files.len());
    for (path, format) in files {
        let text = std::fs::read_to_string(&path).expect("read");
        let first = text.lines().next().unwrap_or_default();
        let named = first.strip_prefix("# yaml-language-server: $schema=").map(|rel| path.parent().expect("dir").join(rel));
        let expected = root.join(format.path());
        assert!(named.is_some_and(|n| n.canonicalize().ok() == expected.canonicalize().ok()), "{}: the first line names {}", path.display(), format.path());
        let value: serde_json::Value = schema_fidelity::yaml::from_str(&text).expect("YAML");
        let found = schemas::check(format, &text, &value);
        assert!(found.is_empty(), "{}: {found:?}", path.display());
    }
}

#[test]
fn the_lint_holds_corpus_files_to_their_schema_with_a_line() {
    let dir = std::env::temp_dir().join(format!("schema-fidelity-corpus-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("bad.yaml");
    std::fs::write(&path, "cases:\n  - name: n\n    description: d\n    schema: 5\n    instances: []\n").expect("write");
    let e = schema_fidelity::corpus::load_own_file("bad.yaml", &path).expect_err("a number is no schema");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(e.message.contains("schemas/corpus.schema.json at `/cases/0/schema`") && e.line == Some(4), "{e:?}");
}
