//! The `schema-fidelity` binary, driven as people use it: `explain`, `check`, `lint`, `new`,
//! `report --check`, and the suggestions for wrong names. Commands that change files run in
//! throwaway projects under the system temp directory, never in this repository.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_schema-fidelity");

fn repo() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("exit {}\n--- stdout\n{}--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir);
    if !dir.starts_with(repo()) {
        // A throwaway project: no suite, so runs stay small and do not depend on the machine.
        cmd.env("SCHEMA_FIDELITY_JSTS", dir.join("no-suite-here"));
    }
    let Output { status, stdout, stderr } = cmd.output().expect("the binary runs");
    Run { code: status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&stdout).into_owned(), stderr: String::from_utf8_lossy(&stderr).into_owned() }
}

fn run(args: &[&str]) -> Run {
    run_in(&repo(), args)
}

/// A throwaway project: this repository's tables and own corpus, copied.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&repo().join("corpus"), &dir.join("corpus"));
        copy_dir(&repo().join("targets"), &dir.join("targets"));
        // Only the two reference tables: the expectations below must not move when a provider
        // table is added to the repository.
        std::fs::create_dir_all(dir.join("dispositions")).expect("create scratch dir");
        for table in ["identity.yaml", "anthropic.yaml"] {
            std::fs::copy(repo().join("dispositions").join(table), dir.join("dispositions").join(table)).expect("copy table");
        }
        Self(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::write(&path, text).expect("write into the scratch project");
        path
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let path = self.0.join(rel);
        let text = std::fs::read_to_string(&path).expect("read scratch file");
        assert!(text.contains(from), "{rel} holds `{from}`");
        std::fs::write(&path, text.replace(from, to)).expect("write scratch file");
    }

    fn run(&self, args: &[&str]) -> Run {
        run_in(&self.0, args)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create scratch dir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy file");
        }
    }
}

const OBJECT_SCHEMA: &str = r#"{"type":"object","properties":{"name":{"type":"string","minLength":1},"n":{"type":"integer","minimum":0}},"required":["name"]}"#;

// ---- explain ---------------------------------------------------------------------------------

#[test]
fn explain_shows_the_rows_their_lines_meaning_and_cases() {
    let out = run(&["explain", "anthropic", "anyOf"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let table = std::fs::read_to_string(repo().join("dispositions/anthropic.yaml")).expect("table");
    let line = table.lines().position(|l| l.contains("at_root: { disposition: refused, note: \"input_schema does not support anyOf")).expect("row") + 1;
    assert!(out.stdout.contains("anthropic/anyOf:at_root  (reports/anthropic.md#anyof-at-root)"), "{}", out.all());
    assert!(out.stdout.contains(&format!("table:       dispositions/anthropic.yaml:{line}")), "{}", out.all());
    assert!(out.stdout.contains("disposition: refused"), "{}", out.all());
    assert!(out.stdout.contains("meaning:     `anyOf` on the root schema makes the translator refuse"), "{}", out.all());
    assert!(out.stdout.contains("anthropic/anyOf  (reports/anthropic.md#anyof)"), "the keyword's own row too: {}", out.all());
    assert!(out.stdout.contains("cases:"), "{}", out.all());
}

#[test]
fn explain_takes_the_citation_and_the_anchor_forms() {
    let cited = run(&["explain", "anthropic/$ref:uri"]);
    assert_eq!(cited.code, 0, "{}", cited.all());
    assert!(cited.stdout.starts_with("anthropic/$ref:uri  (reports/anthropic.md#ref-uri)"), "{}", cited.all());
    assert!(cited.stdout.contains("cases:       "), "{}", cited.all());
    let anchored = run(&["explain", "anthropic", "anyof-at-root"]);
    assert_eq!(anchored.code, 0, "{}", anchored.all());
    assert!(anchored.stdout.starts_with("anthropic/anyOf:at_root"), "{}", anchored.all());
    let listed = run(&["explain", "identity"]);
    assert_eq!(listed.code, 0, "{}", listed.all());
    assert!(listed.stdout.contains("identity/pattern") && listed.stdout.contains("identity/*"), "{}", listed.all());
}

#[test]
fn wrong_names_get_the_nearest_right_one() {
    let out = run(&["explain", "antropic", "const"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("no table named `antropic`") && out.stderr.contains("did you mean `anthropic`?"), "{}", out.all());

    let out = run(&["explain", "anthropic", "patern"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("dispositions/anthropic.yaml has no row `patern`; did you mean `pattern`?"), "{}", out.all());

    let out = run(&["run", "--translator", "identiy"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("did you mean `identity`?"), "{}", out.all());

    let out = run(&["chek"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("did you mean `check`?"), "{}", out.all());
}

// ---- check -----------------------------------------------------------------------------------

#[test]
fn check_says_exact_and_exits_zero() {
    let s = Scratch::new("check-exact");
    let schema = s.write("tool.json", OBJECT_SCHEMA);
    let out = s.run(&["check", schema.to_str().expect("utf-8 path")]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("anthropic  exact") && out.stdout.contains("identity   exact"), "{}", out.all());
    assert!(out.stdout.contains("nothing lossy or silent"), "{}", out.all());
}

#[test]
fn check_says_which_keyword_is_refused_and_why() {
    let s = Scratch::new("check-refused");
    s.write("tool.json", r#"{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}"#);
    let out = s.run(&["check", "tool.json", "--translator", "anthropic"]);
    assert_eq!(out.code, 0, "a refusal is explicit, not lossy: {}", out.all());
    assert!(out.stdout.contains("anthropic  refused     refuses `anyOf` at the root"), "{}", out.all());
    assert!(out.stdout.contains("row anthropic/anyOf:at_root at the root: refused (dispositions/anthropic.yaml:"), "{}", out.all());
    assert!(out.stdout.contains("why: input_schema does not support anyOf at the top level"), "{}", out.all());
    assert!(!out.stdout.contains("identity"), "--translator selects: {}", out.all());
}

#[test]
fn check_says_lossy_with_the_rows_responsible_and_exits_one() {
    let s = Scratch::new("check-lossy");
    s.edit("dispositions/identity.yaml", "  minLength: { disposition: preserved }", "  minLength: { disposition: approximated, direction: widening, to: dropped }");
    s.write("tool.json", OBJECT_SCHEMA);
    let out = s.run(&["check", "tool.json"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("identity   widened"), "{}", out.all());
    assert!(out.stdout.contains("row identity/minLength at `/properties/name`: approximated (widening) to dropped"), "{}", out.all());
    assert!(out.stdout.contains("reports/identity.md#minlength"), "{}", out.all());
    assert!(out.stdout.contains("lossy or silent: identity"), "{}", out.all());
}

#[test]
fn check_never_stays_silent_about_a_keyword_without_a_row() {
    let s = Scratch::new("check-norow");
    s.edit("dispositions/identity.yaml", "  \"*\": { disposition: preserved", "  \"x-known-*\": { disposition: preserved");
    s.write("tool.json", r#"{"type":"object","properties":{"a":{"type":"string","x-ui":"wide"}}}"#);
    let out = s.run(&["check", "tool.json"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("identity   no row"), "{}", out.all());
    assert!(out.stdout.contains("keyword `x-ui` (form `scalar`) at `/properties/a`: no row"), "{}", out.all());
    assert!(out.stdout.contains("anthropic  exact"), "anthropic's `*` row covers it: {}", out.all());
}

#[test]
fn check_speaks_json_for_scripts() {
    let s = Scratch::new("check-json");
    s.write("tool.json", r#"{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}"#);
    let out = s.run(&["check", "tool.json", "--format", "json"]);
    // The remote reference cannot be compiled offline: the schema itself is rejected, naming the file.
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("tool.json: does not compile"), "{}", out.all());

    s.write("tool.json", OBJECT_SCHEMA);
    let out = s.run(&["check", "tool.json", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["schema"], "tool.json");
    assert_eq!(v["lossy"], false);
    assert!(v["instances"].as_u64().is_some_and(|n| n > 5), "candidates were generated: {v}");
    let verdicts: Vec<(&str, &str)> = v["translators"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| (t["translator"].as_str().unwrap_or_default(), t["verdict"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(verdicts, [("anthropic", "exact"), ("identity", "exact")]);
}

#[test]
fn check_errors_name_the_file() {
    let s = Scratch::new("check-errors");
    let out = s.run(&["check", "missing.json"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("missing.json: cannot read"), "{}", out.all());
    s.write("broken.json", "{\"type\": \"object\",\n  \"properties\": }");
    let out = s.run(&["check", "broken.json"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("broken.json:2:") && out.stderr.contains("not valid JSON"), "{}", out.all());
    s.write("meta.json", r#"{"type":"object","minLength":"three"}"#);
    let out = s.run(&["check", "meta.json"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("meta.json: not meta-valid draft 2020-12"), "{}", out.all());
}

// ---- lint and new ----------------------------------------------------------------------------

#[test]
fn lint_names_file_and_line_of_a_broken_table() {
    let s = Scratch::new("lint");
    s.edit("dispositions/identity.yaml", "  maxLength: { disposition: preserved }", "  maxLenght: { disposition: preserved }");
    let table = std::fs::read_to_string(s.0.join("dispositions/identity.yaml")).expect("table");
    let line = table.lines().position(|l| l.contains("maxLenght")).expect("typo row") + 1;
    let out = s.run(&["lint"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(
        out.stdout.contains(&format!("dispositions/identity.yaml:{line}: `maxLenght` is not a draft 2020-12 keyword (did you mean `maxLength`?)")),
        "{}",
        out.all()
    );
    assert!(out.stdout.contains("no row for keyword `maxLength`"), "{}", out.all());
}

#[test]
fn new_scaffolds_a_table_that_fails_lint_until_filled_and_is_never_overwritten() {
    let s = Scratch::new("new");
    let out = s.run(&["new", "acme-strict"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let path = s.0.join("dispositions/acme-strict.yaml");
    let text = std::fs::read_to_string(&path).expect("the table was written");
    assert!(text.contains("translator: acme-strict") && text.contains("  \"$schema\": { disposition: TODO }"), "{text}");

    let lint = s.run(&["lint"]);
    assert_eq!(lint.code, 1, "{}", lint.all());
    let todo: Vec<&str> = lint.stdout.lines().filter(|l| l.starts_with("dispositions/acme-strict.yaml:") && l.contains("`disposition: TODO` is not filled in yet")).collect();
    assert_eq!(todo.len(), 59, "one finding per keyword and boolean subschema:\n{}", lint.all());
    let pattern_line = text.lines().position(|l| l.starts_with("  pattern:")).expect("pattern row") + 1;
    assert!(lint.stdout.contains(&format!("dispositions/acme-strict.yaml:{pattern_line}: `pattern`: `disposition: TODO`")), "{}", lint.all());

    std::fs::write(&path, "edited by hand\n").expect("edit");
    let again = s.run(&["new", "acme-strict"]);
    assert_eq!(again.code, 2, "{}", again.all());
    assert!(again.stderr.contains("dispositions/acme-strict.yaml already exists"), "{}", again.all());
    assert_eq!(std::fs::read_to_string(&path).expect("still there"), "edited by hand\n", "not overwritten");

    let bad = s.run(&["new", "Acme_Strict"]);
    assert_eq!(bad.code, 2, "{}", bad.all());
    assert!(bad.stderr.contains("is not a translator name"), "{}", bad.all());
}

// ---- report ----------------------------------------------------------------------------------

#[test]
fn report_writes_then_check_shows_a_changed_disposition_as_a_diff() {
    let s = Scratch::new("report");
    let out = s.run(&["report"]);
    assert_eq!(out.code, 0, "{}", out.all());
    for f in ["matrix.md", "index.html", "report.json", "anthropic.md", "identity.md"] {
        assert!(s.0.join("reports").join(f).is_file(), "reports/{f} written: {}", out.all());
    }
    let current = s.run(&["report", "--check"]);
    assert_eq!(current.code, 0, "{}", current.all());
    assert!(current.stdout.contains("reports/ is current"), "{}", current.all());

    s.edit("dispositions/identity.yaml", "  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, direction: widening, to: description }");
    let stale = s.run(&["report", "--check"]);
    assert_eq!(stale.code, 1, "{}", stale.all());
    assert!(stale.stdout.contains("--- reports/matrix.md (committed)"), "{}", stale.all());
    assert!(stale.stdout.contains("-| `pattern` | [✓](anthropic.md#pattern) | [✓](identity.md#pattern) |"), "{}", stale.all());
    assert!(stale.stdout.contains("+| `pattern` | [✓](anthropic.md#pattern) | [+](identity.md#pattern) |"), "{}", stale.all());
    assert!(stale.stderr.is_empty() || !stale.stderr.contains('\r'), "no progress when stderr is not a terminal: {:?}", stale.stderr);
}

#[test]
fn report_keeps_files_it_did_not_write_removes_its_own_stale_pages_and_refuses_a_linked_reports_dir() {
    let s = Scratch::new("report-foreign");
    assert_eq!(s.run(&["report"]).code, 0);
    s.write("reports/NOTES.md", "kept by people");
    // A translator removed: its page goes, the notes stay.
    std::fs::remove_file(s.0.join("dispositions/anthropic.yaml")).expect("remove table");
    let out = s.run(&["report"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("reports/anthropic.md (removed)"), "{}", out.all());
    assert!(!s.0.join("reports/anthropic.md").exists());
    assert_eq!(std::fs::read_to_string(s.0.join("reports/NOTES.md")).ok().as_deref(), Some("kept by people"));
    assert!(!s.0.join(".reports.new").exists() && !s.0.join(".reports.old").exists());

    // reports/ as a link to another folder: refused, and nothing there is written or removed.
    let elsewhere = s.0.join("elsewhere");
    std::fs::rename(s.0.join("reports"), &elsewhere).expect("move");
    std::os::unix::fs::symlink(&elsewhere, s.0.join("reports")).expect("symlink");
    s.write("elsewhere/identity.md", "someone else's");
    let out = s.run(&["report"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("is a symbolic link"), "{}", out.all());
    assert_eq!(std::fs::read_to_string(elsewhere.join("identity.md")).ok().as_deref(), Some("someone else's"));
    assert!(elsewhere.join("NOTES.md").exists());
}

/// The identity table renamed to `name`, with `extra` appended (a `grammar:`, a `run:`).
fn identity_as(s: &Scratch, name: &str, extra: &str) -> String {
    let text = std::fs::read_to_string(s.0.join("dispositions/identity.yaml")).expect("table").replacen("translator: identity", &format!("translator: {name}"), 1) + extra;
    s.write(&format!("dispositions/{name}.yaml"), &text);
    text
}

fn line_of(text: &str, start: &str) -> usize {
    text.lines().position(|l| l.starts_with(start)).expect("the key") + 1
}

#[test]
fn lint_finds_what_run_would_reject_with_file_and_line() {
    let s = Scratch::new("lint-runnable");
    // A target whose grammar is JSON but does not compile (a pattern that is not a regex).
    s.write("targets/grammars/broken.json", r#"{"properties": {"pattern": {"pattern": "("}}}"#);
    let target = std::fs::read_to_string(s.0.join("targets/json-schema.yaml")).expect("target").replacen("target: json-schema", "target: broken", 1);
    s.write("targets/broken.yaml", &format!("{target}grammar: {{ file: grammars/broken.json, source: here, read: 2026-11-29 }}\n"));
    let grammar = identity_as(&s, "broken-grammar", "").replacen("target: json-schema", "target: broken", 1);
    s.write("dispositions/broken-grammar.yaml", &grammar);
    // A `run:` program that does not exist, one that is not executable, a script that is missing.
    let missing = identity_as(&s, "missing-program", "run: [adapters/nowhere.sh]\ninstall: \"make adapters\"\n");
    std::fs::create_dir_all(s.0.join("adapters")).expect("dir");
    s.write("adapters/plain.sh", "#!/bin/sh\n");
    let plain = identity_as(&s, "not-executable", "run: [adapters/plain.sh]\n");
    let script = identity_as(&s, "missing-script", "run: [sh, adapters/gone.sh]\n");
    // A table named like a report file.
    let matrix = identity_as(&s, "matrix", "");
    // Own cases whose claimed validity is wrong, and whose schema does not compile.
    s.write(
        "corpus/broken.yaml",
        "cases:\n  - name: wrong-claim\n    description: d\n    schema: { type: object, required: [a] }\n    instances: [{ data: {}, valid: true }]\n  - name: not-a-schema\n    description: d\n    schema: { type: object, minLength: -1 }\n    instances: [{ data: {}, valid: true }]\n",
    );

    let out = s.run(&["lint"]);
    assert_eq!(out.code, 1, "{}", out.all());
    let expect = |fragment: String| assert!(out.stdout.contains(&fragment), "`{fragment}` not in:\n{}", out.all());
    expect(format!("dispositions/broken-grammar.yaml:{}: the grammar targets/grammars/broken.json of target `broken` does not compile", line_of(&grammar, "target:")));
    expect(format!("dispositions/missing-program.yaml:{}: the `run:` program `adapters/nowhere.sh` does not exist (paths are relative to the project root); install it with `make adapters`", line_of(&missing, "run:")));
    expect(format!("dispositions/not-executable.yaml:{}: the `run:` program `adapters/plain.sh` is not an executable file", line_of(&plain, "run:")));
    expect(format!("dispositions/missing-script.yaml:{}: the `run:` argument `adapters/gone.sh` names no file", line_of(&script, "run:")));
    expect(format!("dispositions/matrix.yaml:{}: `matrix` is a name the reports use for themselves", line_of(&matrix, "translator:")));
    expect("corpus/broken.yaml:2: case `wrong-claim`: instance `instance 0` ({}) is claimed valid but the schema rejects it".to_owned());
    expect("corpus/broken.yaml:6: case `not-a-schema`: the schema not meta-valid draft 2020-12".to_owned());
}

#[test]
fn run_fails_when_a_translator_cannot_start() {
    let s = Scratch::new("run-not-started");
    identity_as(&s, "external", "run: [schema-fidelity-no-such-runtime, adapter.js]\ninstall: \"npm ci\"\n");
    let out = s.run(&["run"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("external             skipped: adapter `schema-fidelity-no-such-runtime adapter.js`"), "{}", out.all());
    assert!(out.stdout.contains("1 translator(s) could not be started, so their contract was not run: external"), "{}", out.all());
    // The ones that can run still pass on their own.
    let out = s.run(&["run", "-t", "identity", "-t", "anthropic"]);
    assert_eq!(out.code, 0, "{}", out.all());
}

/// The main job fails on a deliberately wrong table (a check that cannot fail is the worst
/// defect): `const` claimed refused although identity never refuses.
#[test]
fn run_fails_on_a_deliberately_wrong_table() {
    let s = Scratch::new("run-wrong-table");
    let out = s.run(&["run", "-t", "identity"]);
    assert_eq!(out.code, 0, "the honest table passes: {}", out.all());
    s.edit("dispositions/identity.yaml", "  const: { disposition: preserved }", "  const: { disposition: refused }");
    let out = s.run(&["run", "-t", "identity"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.all().contains("a refused row applies but the translator projected"), "{}", out.all());
}

#[test]
fn report_diff_compares_two_runs_without_running_anything() {
    let committed = repo().join("reports/report.json");
    let committed = committed.to_str().expect("utf-8 path");
    let out = run(&["report", "--diff", committed, committed]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("no change in translators, dispositions, marks, verdicts or corpus"), "{}", out.all());
    let out = run(&["report", "--diff", "/nonexistent/old.json"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.all().contains("/nonexistent/old.json: cannot read"), "{}", out.all());
}
