//! The `schema-fidelity` binary, driven as people use it: `explain`, `check`, `lint`, `new`,
//! `report --check`, and the suggestions for wrong names. Commands that change files run in
//! throwaway projects under the system temp directory, never in this repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::sf::{BIN, Run};

fn repo() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    run_in_with(dir, args, &[])
}

/// `schema-fidelity ARGS` in `dir`, in process (`crate::sf`).
fn run_in_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut env = env.to_vec();
    // A throwaway project: no suite, so runs stay small and do not depend on the machine.
    let no_suite = dir.join("no-suite-here");
    let no_suite = no_suite.to_str().expect("a UTF-8 temporary path");
    if !dir.starts_with(repo()) {
        env.push(("SCHEMA_FIDELITY_JSTS", no_suite));
    }
    crate::sf::in_process(dir, args, &env, &[])
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
        // The own corpus less the real tools (corpus/mcp/, 375 plain object schemas that more
        // than double every run here): what these tests check is the command line, which the
        // written cases exercise in full; the contract runs the real tools.
        copy_dir(&repo().join("corpus"), &dir.join("corpus"));
        std::fs::remove_dir_all(dir.join("corpus/mcp")).expect("the real tools were copied");
        copy_dir(&repo().join("targets"), &dir.join("targets"));
        // Only the two reference tables: the expectations below must not move when a provider
        // table is added to the repository. Without the real translators they model, so without
        // their `models:` (and its reviews).
        std::fs::create_dir_all(dir.join("dispositions")).expect("create scratch dir");
        for table in ["identity.yaml", "anthropic.yaml"] {
            let text = std::fs::read_to_string(repo().join("dispositions").join(table)).expect("read table");
            let mut kept = String::new();
            let mut reviews = false;
            for line in text.lines() {
                reviews = line.starts_with("models_reviewed:") || (reviews && line.starts_with("  "));
                if !reviews && !line.starts_with("models:") {
                    kept.push_str(line);
                    kept.push('\n');
                }
            }
            std::fs::write(dir.join("dispositions").join(table), kept).expect("copy table");
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
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
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

    // A wrong command is clap's usage error: exit 2, with the nearest command.
    let out = run(&["chek"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("unrecognized subcommand 'chek'") && out.stderr.contains("a similar subcommand exists: 'check'"), "{}", out.all());
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
    assert_eq!(out.code, 3, "a refusal the table declares is a declared loss (3), not a violation (1): {}", out.all());
    assert!(out.stdout.contains("anthropic  refused     refuses `anyOf` at the root"), "{}", out.all());
    assert!(out.stdout.contains("row anthropic/anyOf:at_root at the root: refused (dispositions/anthropic.yaml:"), "{}", out.all());
    assert!(out.stdout.contains("why: input_schema does not support anyOf at the top level"), "{}", out.all());
    assert!(!out.stdout.contains("identity"), "--translator selects: {}", out.all());
}

#[test]
fn check_says_lossy_with_the_rows_responsible_and_exits_three() {
    // openai-strict spills `minLength` into the description: a widening a witness shows.
    let s = Scratch::new("check-lossy");
    let schema = s.write("tool.json", OBJECT_SCHEMA);
    let out = run(&["check", schema.to_str().expect("utf-8 path"), "--translator", "openai-strict"]);
    assert_eq!(out.code, 3, "an approximation the table declares is a declared loss: {}", out.all());
    assert!(out.stdout.contains("openai-strict  widened"), "{}", out.all());
    assert!(out.stdout.contains("evidence: widening shown (witness)"), "{}", out.all());
    assert!(out.stdout.contains("row openai-strict/minLength at `/properties/name`: approximated (widening) to description"), "{}", out.all());
    assert!(out.stdout.contains("reports/openai-strict.md#minlength"), "{}", out.all());
    assert!(out.stdout.contains("lossy or silent: openai-strict"), "{}", out.all());
}

#[test]
fn check_lists_a_declared_row_no_witness_shows_apart_and_says_exact_when_proven() {
    // The table declares a widening the translator does not make: a declaration, not evidence.
    let s = Scratch::new("check-declared");
    s.edit("dispositions/identity.yaml", "  minLength: { disposition: preserved }", "  minLength: { disposition: approximated, direction: widening, to: dropped }");
    s.write("tool.json", OBJECT_SCHEMA);
    let out = s.run(&["check", "tool.json", "--translator", "identity"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("identity  exact"), "{}", out.all());
    assert!(out.stdout.contains("evidence: widening proven; narrowing proven"), "{}", out.all());
    assert!(
        out.stdout.contains("row identity/minLength at `/properties/name`: approximated (widening) to dropped -- declared, proven not to act on this schema"),
        "{}",
        out.all()
    );
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
    // Every translator sends this schema unchanged, so nothing needed drawing: the count says so.
    assert_eq!(v["instances"].as_u64(), Some(0), "{v}");
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
    assert_eq!(todo.len(), 67, "one finding per keyword, boolean subschema and interpreted extension:\n{}", lint.all());
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

// ---- init ------------------------------------------------------------------------------------

/// A bare folder under the system temp directory (a repository of one's own), removed when dropped.
struct Bare(PathBuf);

impl Bare {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the folder");
        Self(dir)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.0.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
}

impl Drop for Bare {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const INIT_FILES: [&str; 4] = ["schema-fidelity.toml", "dispositions/demo.yaml", "adapters/demo.py", ".github/workflows/schema-fidelity.yml"];

#[test]
fn init_scaffolds_a_repository_and_never_overwrites_a_file() {
    let b = Bare::new("init");
    let out = run_in(&b.0, &["init", "--lang", "python", "--name", "demo"]);
    assert_eq!(out.code, 0, "{}", out.all());
    for file in INIT_FILES {
        assert!(out.stdout.contains(&format!("wrote {file}")), "{}", out.all());
    }
    assert!(out.stdout.contains("fill in translate() in adapters/demo.py") && out.stdout.contains("`schema-fidelity run`"), "the next steps: {}", out.all());
    assert!(b.read("schema-fidelity.toml").contains("\ntables = \"dispositions\"\n"));
    let table = b.read("dispositions/demo.yaml");
    assert!(table.contains("\ntranslator: demo\n") && table.contains("\nrun: [python3, adapters/demo.py]\n") && table.contains("  pattern: { disposition: TODO }"), "{table}");
    assert!(b.read("adapters/demo.py").contains("\ndef translate(schema):\n"));
    assert!(b.read(".github/workflows/schema-fidelity.yml").contains("run: schema-fidelity run --format github --junit schema-fidelity.junit.xml"));

    std::fs::write(b.0.join("adapters/demo.py"), "edited by hand\n").expect("edit");
    let before: Vec<String> = INIT_FILES.iter().map(|f| b.read(f)).collect();
    let again = run_in(&b.0, &["init", "--lang", "node", "--name", "demo"]);
    assert_eq!(again.code, 2, "{}", again.all());
    assert!(again.stderr.contains("schema-fidelity.toml, dispositions/demo.yaml") && again.stderr.contains("already exist"), "{}", again.all());
    assert_eq!(INIT_FILES.iter().map(|f| b.read(f)).collect::<Vec<_>>(), before, "nothing was overwritten");
    assert!(!b.0.join("adapters/demo.mjs").exists(), "nor written beside: {}", again.all());
}

/// In a project (the scratch copy), what `init` leaves to fill in is what `lint` lists, at its
/// lines, and the adapter's handshake tells `run` what to do.
#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn init_leaves_todos_that_lint_lists_and_an_adapter_that_says_what_to_do() {
    let s = Scratch::new("init-lint");
    let out = s.run(&["init", "--lang", "python", "--name", "demo", "--target", "json-schema"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let lint = s.run(&["lint"]);
    assert_eq!(lint.code, 1, "{}", lint.all());
    let adapter = std::fs::read_to_string(s.0.join("adapters/demo.py")).expect("adapter");
    let workflow = std::fs::read_to_string(s.0.join(".github/workflows/schema-fidelity.yml")).expect("workflow");
    let expected = [
        format!("adapters/demo.py:{}: still a TODO from `schema-fidelity init`: # TODO(schema-fidelity): import", line_of(&adapter, "    # TODO(schema-fidelity): import")),
        format!("adapters/demo.py:{}: still a TODO from `schema-fidelity init`: # TODO(schema-fidelity): call", line_of(&adapter, "    # TODO(schema-fidelity): call")),
        format!(".github/workflows/schema-fidelity.yml:{}: still a TODO from `schema-fidelity init`: run: pip install", line_of(&workflow, "        run: pip install")),
    ];
    let found: Vec<&str> = lint.stdout.lines().filter(|l| l.contains("still a TODO from `schema-fidelity init`")).collect();
    assert_eq!(found.len(), expected.len(), "{}", lint.all());
    for (line, want) in found.iter().zip(&expected) {
        assert!(line.starts_with(want.as_str()), "{line}\nwanted {want}");
    }
    assert!(lint.stdout.contains("dispositions/demo.yaml:") && lint.stdout.contains("`package:` still says TODO"), "{}", lint.all());

    let run = s.run(&["run", "-t", "demo"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(run.stdout.contains("unavailable: adapter `python3 adapters/demo.py`: fill in translate() in adapters/demo.py"), "{}", run.all());
}

// ---- report ----------------------------------------------------------------------------------

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
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
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn report_under_other_witness_settings_never_writes_and_checks_what_the_tables_decide() {
    let s = Scratch::new("report-settings");
    assert_eq!(s.run(&["report"]).code, 0);
    let with_draws = |args: &[&str]| run_in_with(&s.0, args, &[("SCHEMA_FIDELITY_DRAWS", "3")]);
    let before = std::fs::read_to_string(s.0.join("reports/report.json")).expect("report.json written");
    let write = with_draws(&["report"]);
    assert_eq!(write.code, 2, "{}", write.all());
    assert!(write.stderr.contains("SCHEMA_FIDELITY_DRAWS=3") && write.stderr.contains("made with the default settings"), "{}", write.all());
    assert_eq!(std::fs::read_to_string(s.0.join("reports/report.json")).ok().as_deref(), Some(before.as_str()), "nothing rewritten");
    // The check still compares what the tables alone decide, and still fails on a changed one.
    let current = with_draws(&["report", "--check"]);
    assert_eq!(current.code, 0, "{}", current.all());
    s.edit("dispositions/identity.yaml", "  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, direction: widening, to: description }");
    let stale = with_draws(&["report", "--check"]);
    assert_eq!(stale.code, 1, "{}", stale.all());
    assert!(stale.stdout.contains("--- reports/matrix.md (committed)"), "{}", stale.all());
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
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
    let missing = identity_as(&s, "missing-program", "run: [adapters/nowhere.sh]\ninstall: \"make adapters\"\npackage: \"nowhere 1.0\"\nentry:\n  call: \"ident(S)\"\n  path: \"unchanged\"\n  reads: \"the answer\"\n");
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
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn run_fails_when_a_translator_cannot_start() {
    let s = Scratch::new("run-not-started");
    identity_as(&s, "external", "run: [schema-fidelity-no-such-runtime, adapter.js]\ninstall: \"npm ci\"\npackage: \"adapter 1.0 (npm)\"\nentry:\n  call: \"ident(S)\"\n  path: \"unchanged\"\n  reads: \"the answer\"\n");
    let out = s.run(&["run"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("external   unavailable: adapter `schema-fidelity-no-such-runtime adapter.js`"), "{}", out.all());
    assert!(out.stdout.contains("install it with `npm ci`"), "{}", out.all());
    assert!(out.stdout.contains("1 translator(s) unavailable here, so their contract was not run: external"), "{}", out.all());
    assert!(!out.stdout.contains("failure(s)"), "an unavailable translator is not a failure: {}", out.all());
    // The ones that can run still pass on their own.
    let out = s.run(&["run", "-t", "identity", "-t", "anthropic"]);
    assert_eq!(out.code, 0, "{}", out.all());
}

/// The main job fails on a deliberately wrong table (a check that cannot fail is the worst
/// defect): `const` claimed refused although identity never refuses. The records of the honest
/// table's run are kept, and read back by the next run, but not once the table changed.
#[test]
fn run_fails_on_a_deliberately_wrong_table() {
    let s = Scratch::new("run-wrong-table");
    let out = s.run(&["run", "-t", "identity"]);
    assert_eq!(out.code, 0, "the honest table passes: {}", out.all());
    assert!(!out.stderr.contains("read back"), "nothing kept yet: {}", out.all());
    let again = s.run(&["run", "-t", "identity"]);
    assert_eq!((again.code, &again.stdout), (0, &out.stdout), "{}", again.all());
    assert!(again.stderr.contains("trials read back from an earlier run with the same inputs"), "{}", again.all());
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

// ---- the command line itself: help, version, exit statuses, completions, closed pipes ----------

/// `cmd` with no colour forced from the environment: output that is not a terminal.
fn plain(dir: &Path, args: &[&str]) -> Run {
    crate::sf::in_process(dir, args, &[], &["CLICOLOR_FORCE", "NO_COLOR"])
}

const COMMANDS: [(&str, &[&str]); 8] = [
    ("run", &["--translator <NAME>", "--verbose", "legend", "unavailable"]),
    ("report", &["--check", "--diff <OLD.json> [NEW.json]", "git show REV:reports/report.json > /tmp/old.json", "kept as they are"]),
    ("explain", &["<TRANSLATOR> [KEYWORD]", "citation form TRANSLATOR/KEYWORD[:REFINEMENT]", "a witness"]),
    ("check", &["<SCHEMA.json>", "--format <FORMAT>", "--translator <NAME>", "refused (which keyword, where, why)", "what you can do"]),
    ("lint", &["file and line", "does not exist", "Every problem"]),
    ("new", &["<TRANSLATOR>", "`disposition: TODO`", "`run:`", "Never overwrites"]),
    ("init", &["--lang <LANG>", "--name <NAME>", "--target <TARGET>", "schema-fidelity.toml", "unavailable", "Never overwrites"]),
    ("completions", &["<SHELL>", "bash"]),
];

#[test]
fn every_command_has_a_help_page_with_what_it_does_and_the_exit_statuses() {
    for (command, fragments) in COMMANDS {
        let out = plain(&repo(), &[command, "--help"]);
        assert_eq!(out.code, 0, "{command} --help: {}", out.all());
        assert!(out.stdout.contains(&format!("Usage: schema-fidelity {command}")), "{command} --help: {}", out.all());
        for f in fragments {
            assert!(out.stdout.to_lowercase().contains(&f.to_lowercase()), "{command} --help lacks `{f}`: {}", out.all());
        }
        for status in ["  0    all is well", "  1    findings", "  2    usage and input errors", "  3    `check` only", "  141  stdout was closed early"] {
            assert!(out.stdout.contains(status), "{command} --help lacks the exit status `{status}`: {}", out.all());
        }
        assert!(!out.stdout.contains('\u{1b}'), "no colour off a terminal: {:?}", out.stdout);
        // `help COMMAND` is the same page.
        let help = plain(&repo(), &["help", command]);
        assert_eq!((help.code, &help.stdout), (0, &out.stdout), "help {command}");
        // -h is the short page, still naming the command's usage.
        let short = plain(&repo(), &[command, "-h"]);
        assert_eq!(short.code, 0, "{}", short.all());
        assert!(short.stdout.contains(&format!("Usage: schema-fidelity {command}")), "{}", short.all());
    }
    let top = plain(&repo(), &["--help"]);
    assert_eq!(top.code, 0, "{}", top.all());
    for (command, _) in COMMANDS {
        assert!(top.stdout.contains(&format!("\n  {command} ")), "--help lists `{command}`: {}", top.all());
    }
    assert!(top.stdout.contains("  3    `check` only") && !top.stdout.contains('\u{1b}'), "{}", top.all());
}

#[test]
fn version_is_the_crate_version() {
    let expected = format!("schema-fidelity {}\n", env!("CARGO_PKG_VERSION"));
    for args in [&["--version"][..], &["-V"]] {
        let out = plain(&repo(), args);
        assert_eq!((out.code, out.stdout.as_str()), (0, expected.as_str()), "{args:?}: {}", out.all());
    }
    let out = plain(&repo(), &["check", "--version"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, format!("schema-fidelity-check {}\n", env!("CARGO_PKG_VERSION")).as_str()), "{}", out.all());
}

#[test]
fn usage_errors_exit_two_with_the_usage_on_stderr() {
    for args in [
        &[][..],
        &["run", "--bogus"],
        &["run", "extra"],
        &["check"],
        &["check", "a.json", "b.json"],
        &["check", "a.json", "--format", "xml"],
        &["report", "--check", "--diff", "old.json"],
        &["report", "--diff", "a", "b", "c"],
        &["explain"],
        &["new"],
        &["lint", "extra"],
        &["completions", "nosh"],
        &["chek"],
    ] {
        let out = plain(&repo(), args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.all());
        assert!(out.stderr.starts_with("error: ") || out.stderr.contains("Usage: schema-fidelity"), "{args:?}: said on stderr: {}", out.all());
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout: {}", out.all());
    }
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = plain(&repo(), &["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.all());
        for command in ["explain", "check", "completions"] {
            assert!(out.stdout.contains(command), "{shell} completion offers `{command}`: {}", out.all());
        }
    }
    let bash = plain(&repo(), &["completions", "bash"]);
    assert!(bash.stdout.contains("complete -F _schema-fidelity") || bash.stdout.contains("schema-fidelity"), "{}", bash.all());
    assert!(bash.stdout.contains("--translator") && bash.stdout.contains("--format"), "options are completed too: {}", bash.all());
}

/// Run `args` in `dir` as a process with stdout a real pipe whose reading end is closed before
/// the command starts, as `| head` does once it has what it wants: every write the command makes
/// fails with EPIPE, however fast it is.
fn with_closed_stdout(dir: &Path, args: &[&str]) -> Run {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir).stdout(writer).stderr(std::process::Stdio::piped());
    if !dir.starts_with(repo()) {
        cmd.env("SCHEMA_FIDELITY_JSTS", dir.join("no-suite-here"));
    }
    let out = cmd.output().expect("the binary runs");
    Run { code: out.status.code().unwrap_or(-1), stdout: String::new(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
}

/// A stdout whose reader has gone: every write fails as a write to a closed pipe does.
struct ClosedPipe;

impl std::io::Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }
}

/// Run `args` in process in `dir` with stdout closed ([`ClosedPipe`]).
fn in_process_with_closed_stdout(dir: &Path, args: &[&str]) -> Run {
    let no_suite = dir.join("no-suite-here").display().to_string();
    let vars = vec![("SCHEMA_FIDELITY_JSTS".to_owned(), no_suite), ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default())];
    let mut err = Vec::new();
    let code = schema_fidelity::cli::run(std::iter::once("schema-fidelity").chain(args.iter().copied()), schema_fidelity::cli::Invocation::new(dir, vars, &mut ClosedPipe, &mut err));
    Run { code: i32::from(code), stdout: String::new(), stderr: String::from_utf8_lossy(&err).into_owned() }
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn a_closed_stdout_ends_every_command_quietly() {
    let s = Scratch::new("closed-pipe");
    s.write("tool.json", OBJECT_SCHEMA);
    let commands = [
        &["run", "-t", "identity"][..],
        &["explain", "identity"],
        &["explain", "anthropic", "anyOf"],
        &["check", "tool.json"],
        &["check", "tool.json", "--format", "json"],
        &["lint"],
        &["completions", "bash"],
    ];
    // Every command, in process; two of them as processes, where stdout is a real pipe and the
    // status is the process's (the binary hands `cli::run` its stdout and exits with its status).
    let runs = commands
        .iter()
        .map(|args| (*args, in_process_with_closed_stdout(&s.0, args)))
        .chain([&["lint"][..], &["completions", "bash"]].into_iter().map(|args| (args, with_closed_stdout(&s.0, args))));
    for (args, out) in runs {
        assert_eq!(out.code, 141, "{args:?}: a closed pipe ends with 141, like a program SIGPIPE ends: {}", out.all());
        assert!(!out.stderr.contains("panicked") && !out.stderr.contains("failed printing"), "{args:?}: no panic: {}", out.all());
        assert!(out.stderr.is_empty(), "{args:?}: nothing to say about it: {}", out.all());
    }
}

#[test]
fn a_shell_pipeline_into_head_gets_its_line_and_no_noise() {
    // The shell's own `| head -1`: a reader that reads one line and goes away. Whether the writer
    // then meets EPIPE depends on timing (small outputs fit the pipe's buffer), so the EPIPE path
    // itself is forced by `a_closed_stdout_ends_every_command_quietly`.
    let s = Scratch::new("head-pipe");
    let script = format!("'{BIN}' completions bash | head -1; '{BIN}' explain identity | head -1");
    let out = Command::new("sh").arg("-c").arg(&script).current_dir(&s.0).env("SCHEMA_FIDELITY_JSTS", s.0.join("none")).output().expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
}

#[test]
fn check_exits_one_when_anything_is_not_a_declared_loss() {
    // anthropic refuses `anyOf` at the root (declared: 3 alone); identity has no row for `x-ui`
    // (silent: 1). The 1 wins.
    let s = Scratch::new("check-mixed");
    s.edit("dispositions/identity.yaml", "  \"*\": { disposition: preserved", "  \"x-known-*\": { disposition: preserved");
    s.write("tool.json", r#"{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string","x-ui":"wide"}}}"#);
    let out = s.run(&["check", "tool.json"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("anthropic  refused") && out.stdout.contains("identity   no row"), "{}", out.all());
    assert!(out.stdout.contains("exit status 1:"), "{}", out.all());
    let declared = s.run(&["check", "tool.json", "-t", "anthropic"]);
    assert_eq!(declared.code, 3, "{}", declared.all());
    assert!(declared.stdout.contains("exit status 3: every finding is a loss the tables declare"), "{}", declared.all());
}

// ---- run: legend, totals, long names, skipped cases ---------------------------------------------

/// An external translator `name` in the scratch project: a Python adapter (the project's own
/// protocol helper) that sends every schema unchanged, with the identity table renamed.
fn python_identity(s: &Scratch, name: &str) {
    std::fs::create_dir_all(s.0.join("adapters")).expect("dir");
    std::fs::copy(repo().join("translators/external/python/sf_adapter.py"), s.0.join("adapters/sf_adapter.py")).expect("copy the helper");
    s.write(
        "adapters/ident.py",
        &format!(
            "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nfrom sf_adapter import serve\nserve(\"ident\", \"1.0.0\", {{\"{name}\": lambda schema: {{\"schema\": schema, \"dialect\": \"json-schema\"}}}})\n"
        ),
    );
    identity_as(s, name, "run: [python3, adapters/ident.py]\ninstall: \"pip install nothing-needed\"\npackage: \"ident 1.0\"\nentry:\n  call: \"ident(S)\"\n  path: \"unchanged\"\n  reads: \"the answer\"\n");
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn run_explains_its_columns_totals_them_and_keeps_them_straight_for_long_names() {
    let s = Scratch::new("run-columns");
    let long = "a-translator-with-a-very-long-name";
    python_identity(&s, long);
    let out = s.run(&["run"]);
    assert_eq!(out.code, 0, "{}", out.all());
    for column in ["compared", "refused", "failed", "known", "skipped"] {
        assert!(out.stdout.lines().any(|l| l.trim_start().starts_with(&format!("{column} ")) || l.starts_with(&format!("columns: {column} "))), "the legend explains `{column}`: {}", out.all());
    }
    let header = out.stdout.lines().find(|l| l.starts_with("translator ")).expect("a header");
    let rows: Vec<&str> = out.stdout.lines().filter(|l| [long, "anthropic ", "identity ", "total "].iter().any(|n| l.starts_with(n))).collect();
    assert_eq!(rows.len(), 4, "{}", out.all());
    // Every count ends in the same column as its header, whatever the name's length.
    let token_ends = |l: &str| -> Vec<usize> {
        let mut ends = Vec::new();
        let mut inside = false;
        for (i, c) in l.char_indices().chain(std::iter::once((l.len(), ' '))) {
            if c.is_whitespace() && inside {
                ends.push(i);
            }
            inside = !c.is_whitespace();
        }
        ends
    };
    let header_ends: Vec<usize> = token_ends(header)[1..6].to_vec();
    for row in &rows {
        assert_eq!(token_ends(row)[1..6], header_ends[..], "the counts of `{row}` end under their headers in `{header}`:\n{}", out.all());
    }
    // The total is the sum of the rows.
    let counts = |l: &str| -> Vec<usize> { l.split_whitespace().skip(1).take(5).map(|w| w.parse().expect("a count")).collect() };
    let total = counts(rows.iter().find(|l| l.starts_with("total ")).expect("a total line"));
    let sum = rows.iter().filter(|l| !l.starts_with("total ")).map(|l| counts(l)).fold(vec![0; 5], |acc, c| acc.iter().zip(&c).map(|(a, b)| a + b).collect());
    assert_eq!(total, sum, "{}", out.all());
    assert!(total[0] > 0, "the external one ran too: {}", out.all());
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn run_verbose_lists_the_skipped_cases_with_their_reasons() {
    // The suite (when this machine has it) has cases the validator gets wrong: those are skipped.
    let out = run(&["run", "-t", "identity", "--verbose"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let row = out.stdout.lines().find(|l| l.starts_with("identity ")).expect("identity's line");
    let skipped: usize = row.split_whitespace().nth(5).and_then(|w| w.parse().ok()).expect("the skipped count");
    let listed: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("  identity::")).collect();
    assert_eq!(listed.len(), skipped, "every skipped case is listed: {}", out.all());
    if skipped == 0 {
        assert!(out.stdout.contains("no case was skipped"), "{}", out.all());
    } else {
        assert!(out.stdout.contains(&format!("{skipped} skipped case(s):")), "{}", out.all());
        assert!(listed.iter().all(|l| l.split_once(": ").is_some_and(|(_, why)| !why.trim().is_empty())), "each with its reason: {}", out.all());
        let quiet = run(&["run", "-t", "identity"]);
        assert!(quiet.stdout.contains("`run --verbose` lists them") && !quiet.stdout.contains("  identity::"), "{}", quiet.all());
    }
}

// ---- lint is the lint trial, and more ----------------------------------------------------------

#[test]
fn lint_rejects_a_table_whose_translator_does_not_exist_as_the_lint_trial_does() {
    let s = Scratch::new("lint-ghost");
    let ghost = identity_as(&s, "ghost", "");
    assert!(!ghost.contains("run:"), "no `run:`: nothing provides `ghost`");
    let out = s.run(&["lint"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("dispositions/ghost.yaml: no translator named `ghost` is known"), "{}", out.all());
    assert!(out.stdout.contains(" case(s), 1 problem(s)"), "{}", out.all());
    // The trial says the same, in the same words.
    let trial = schema_fidelity::trials::no_translator_message("ghost");
    assert!(out.stdout.contains(&trial), "{}", out.all());
    // Given a way to run it, it is no longer a problem.
    python_identity(&s, "ghost");
    let out = s.run(&["lint"]);
    assert_eq!(out.code, 0, "{}", out.all());
}

#[test]
fn lint_lists_every_problem_of_every_file_before_it_stops() {
    let s = Scratch::new("lint-all");
    // A table that is not YAML at all, a table with a misspelt row, a table nobody runs, a corpus
    // file that is not YAML and a case whose claim is wrong: five files, each with its problem.
    s.write("dispositions/broken.yaml", "translator: [broken\nkeywords: {\n");
    s.edit("dispositions/anthropic.yaml", "  maxLength: { disposition: preserved }", "  maxLenght: { disposition: preserved }");
    identity_as(&s, "ghost", "");
    s.write("corpus/aa-broken.yaml", "cases:\n  - name: x\n    schema: [unclosed\n");
    s.write("corpus/zz-claim.yaml", "cases:\n  - name: wrong-claim\n    description: d\n    schema: { type: object, required: [a] }\n    instances: [{ data: {}, valid: true }]\n");
    let out = s.run(&["lint"]);
    assert_eq!(out.code, 1, "{}", out.all());
    for fragment in [
        "dispositions/broken.yaml:1: not a valid disposition table",
        "dispositions/anthropic.yaml:",
        "`maxLenght` is not a draft 2020-12 keyword (did you mean `maxLength`?)",
        "dispositions/ghost.yaml: no translator named `ghost` is known",
        "corpus/aa-broken.yaml:3: not a corpus file",
        "corpus/zz-claim.yaml:2: case `wrong-claim`",
    ] {
        assert!(out.stdout.contains(fragment), "`{fragment}` is listed: {}", out.all());
    }
}

/// The README's onboarding, followed from `new` to a green translator: fill the scaffold in (an
/// external Python adapter that sends every schema unchanged, every row `preserved`), `lint`,
/// `run`, then `report`, after which `report --check` (what `cargo test` checks) is current.
#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn onboarding_goes_from_new_to_green_and_ends_with_report() {
    let s = Scratch::new("onboarding");
    assert_eq!(s.run(&["report"]).code, 0, "the reports of the project before");
    let out = s.run(&["new", "acme-pass"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("`schema-fidelity report`"), "new says what comes last: {}", out.all());
    let path = s.0.join("dispositions/acme-pass.yaml");
    let scaffold = std::fs::read_to_string(&path).expect("scaffold");
    for key in ["run: [TODO-runtime", "install: \"TODO", "target: TODO"] {
        assert!(scaffold.contains(key), "the scaffold has `{key}`: {scaffold}");
    }
    let lint = s.run(&["lint"]);
    assert_eq!(lint.code, 1, "{}", lint.all());
    for key in ["description", "source", "run", "install", "package"] {
        assert!(lint.stdout.contains(&format!("`{key}:` still says TODO")), "the lint rejects the `{key}:` placeholder: {}", lint.all());
    }
    assert!(lint.stdout.contains("target `TODO`"), "the lint rejects the `target:` placeholder: {}", lint.all());

    // Fill it in, as the README says.
    python_identity(&s, "acme-pass-adapter-unused");
    std::fs::remove_file(s.0.join("dispositions/acme-pass-adapter-unused.yaml")).expect("only the adapter is wanted");
    s.edit("adapters/ident.py", "acme-pass-adapter-unused", "acme-pass");
    let filled = scaffold
        .replace("{ disposition: TODO }", "{ disposition: preserved }")
        .replace("TODO: the provider form this translator produces.", "The schema, unchanged.")
        .replace("TODO: where the provider grammar comes from, with the date it was read", "This test, 2026-12-01")
        .lines()
        .map(|l| {
            if l.starts_with("run:") {
                "run: [python3, adapters/ident.py]".to_owned()
            } else if l.starts_with("install:") {
                "install: \"python3 is enough\"".to_owned()
            } else if l.starts_with("package:") {
                "package: \"this test's adapter 1.0\"".to_owned()
            } else if l.starts_with("target:") {
                "target: json-schema".to_owned()
            } else if l.starts_with("  call:") {
                "  call: \"ident(S)\"".to_owned()
            } else if l.starts_with("  path:") {
                "  path: \"unchanged\"".to_owned()
            } else if l.starts_with("  reads:") {
                "  reads: \"the answer\"".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    std::fs::write(&path, filled).expect("fill in");
    let lint = s.run(&["lint"]);
    assert_eq!(lint.code, 0, "{}", lint.all());
    let run = s.run(&["run", "-t", "acme-pass"]);
    assert_eq!(run.code, 0, "{}", run.all());
    // Until `report`, the committed reports are stale (what `cargo test` would fail on).
    assert_eq!(s.run(&["report", "--check"]).code, 1);
    let report = s.run(&["report"]);
    assert_eq!(report.code, 0, "{}", report.all());
    assert!(report.stdout.contains("reports/acme-pass.md"), "{}", report.all());
    let check = s.run(&["report", "--check"]);
    assert_eq!(check.code, 0, "{}", check.all());
}

// ---- check explains; unavailable translators everywhere ------------------------------------------

/// An external translator `name` whose adapter removes every `minLength`, with the identity table
/// renamed and its `minLength` row replaced by `row`.
fn python_min_length_dropper(s: &Scratch, name: &str, row: &str) -> String {
    std::fs::create_dir_all(s.0.join("adapters")).expect("dir");
    std::fs::copy(repo().join("translators/external/python/sf_adapter.py"), s.0.join("adapters/sf_adapter.py")).expect("copy the helper");
    s.write(
        "adapters/dropper.py",
        &format!(
            "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nfrom sf_adapter import serve\n\
             def drop(v):\n    if isinstance(v, dict):\n        return {{k: drop(x) for k, x in v.items() if k != \"minLength\"}}\n    if isinstance(v, list):\n        return [drop(x) for x in v]\n    return v\n\
             serve(\"dropper\", \"1.0.0\", {{\"{name}\": lambda schema: {{\"schema\": drop(schema), \"dialect\": \"json-schema\"}}}})\n"
        ),
    );
    let text = identity_as(s, name, "run: [python3, adapters/dropper.py]\ninstall: \"pip install nothing\"\n");
    let text = text.replace("  minLength: { disposition: preserved }", row);
    s.write(&format!("dispositions/{name}.yaml"), &text);
    text
}

#[test]
fn check_shows_the_projection_each_witness_with_its_occurrence_and_row_and_what_to_do() {
    let s = Scratch::new("check-explains");
    let table = python_min_length_dropper(&s, "dropper", "  minLength: { disposition: approximated, direction: widening, to: dropped }");
    let line = line_of(&table, "  minLength:");
    s.write("tool.json", OBJECT_SCHEMA);
    let out = s.run(&["check", "tool.json", "-t", "dropper"]);
    assert_eq!(out.code, 3, "a declared widening: {}", out.all());
    assert!(out.stdout.contains("dropper  widened"), "{}", out.all());
    // The projection, as a compact diff against the schema.
    assert!(out.stdout.contains("projection: the schema with (- removed, + added, ~ changed):\n      - /properties/name/minLength: 1\n"), "{}", out.all());
    // A witness, pinned on the one occurrence and its row.
    assert!(out.stdout.contains(r#"witness (widening): {"name":""} -- the schema rejects it, the projection accepts it"#), "{}", out.all());
    assert!(out.stdout.contains(&format!("because of `minLength` at `/properties/name`: row dropper/minLength: approximated (widening) to dropped (dispositions/dropper.yaml:{line})")), "{}", out.all());
    // What the user can do.
    assert!(out.stdout.contains("what you can do: accept the loss the table declares for `minLength`"), "{}", out.all());
    assert!(out.stdout.contains("keep validating the arguments in the tool"), "{}", out.all());
    assert!(out.stdout.contains("or drop `minLength` from the schema, or use another translator"), "{}", out.all());
    let json = s.run(&["check", "tool.json", "-t", "dropper", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let t = &v["translators"][0];
    assert_eq!(t["projection"]["properties"]["name"], serde_json::json!({"type": "string"}), "{v}");
    assert_eq!(t["witnesses"][0]["at"][0]["pointer"], "/properties/name", "{v}");
    assert_eq!(t["witnesses"][0]["at"][0]["table_line"], format!("dispositions/dropper.yaml:{line}"), "{v}");
    assert!(t["advice"].as_array().is_some_and(|a| !a.is_empty()), "{v}");

    // Refused: the refusal with its pointer.
    s.write("anyof.json", r#"{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}"#);
    let out = s.run(&["check", "anyof.json", "-t", "anthropic"]);
    assert!(out.stdout.contains("refusal: `anyOf` at the root (pointer \"\"): "), "{}", out.all());
    assert!(out.stdout.contains("what you can do: drop or rewrite `anyOf` where it stands"), "{}", out.all());
}

#[test]
fn check_reproduce_hint_is_a_command_that_exists_and_reproduces() {
    let s = Scratch::new("check-reproduce");
    // The table says `minLength` is preserved; the adapter drops it: a violation.
    python_min_length_dropper(&s, "dropper", "  minLength: { disposition: preserved }");
    s.write("tool.json", OBJECT_SCHEMA);
    let out = s.run(&["check", "tool.json", "-t", "dropper"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("dropper  violation"), "{}", out.all());
    assert!(out.stdout.contains("because of `minLength` at `/properties/name`: row dropper/minLength: preserved (dispositions/dropper.yaml:"), "{}", out.all());
    assert!(!out.stdout.contains("cargo test --test contract"), "no trial that does not exist: {}", out.all());
    // The advice's hint, in backticks, and the generated witnesses' one, with their seed.
    let mut hints: Vec<&str> = out.stdout.split("reproduce with `").skip(1).filter_map(|rest| rest.split('`').next()).collect();
    assert_eq!(hints.len(), 1, "the advice says how to reproduce: {}", out.all());
    let seeded: Vec<&str> = out.stdout.lines().filter_map(|l| l.split_once("reproduce with: ")).map(|(_, rest)| rest.trim_end_matches(')')).collect();
    assert!(seeded.iter().all(|h| h.starts_with("SCHEMA_FIDELITY_SEED=0x")), "{}", out.all());
    hints.extend(seeded);
    for hint in hints {
        assert!(hint.contains("schema-fidelity check tool.json --translator dropper"), "{hint}");
        // The hint, run as written (the binary under test for `schema-fidelity`).
        let command = hint.replacen("schema-fidelity", &format!("'{BIN}'"), 1);
        let again = Command::new("sh").arg("-c").arg(&command).current_dir(&s.0).env("SCHEMA_FIDELITY_JSTS", s.0.join("none")).output().expect("sh");
        let stdout = String::from_utf8_lossy(&again.stdout);
        assert_eq!(again.status.code(), Some(1), "`{hint}` reproduces: {stdout}");
        assert!(stdout.contains("dropper  violation"), "`{hint}`: {stdout}");
    }
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn an_uninstalled_translator_is_unavailable_everywhere_never_a_failure() {
    let s = Scratch::new("unavailable");
    identity_as(&s, "external", "run: [schema-fidelity-no-such-runtime, adapter.js]\ninstall: \"npm ci\"\npackage: \"adapter 1.0 (npm)\"\nentry:\n  call: \"ident(S)\"\n  path: \"unchanged\"\n  reads: \"the answer\"\n");
    s.write("tool.json", OBJECT_SCHEMA);

    let out = s.run(&["check", "tool.json"]);
    assert_eq!(out.code, 1, "not checked is not all well: {}", out.all());
    assert!(out.stdout.contains("external   unavailable  not checked: adapter `schema-fidelity-no-such-runtime adapter.js`"), "{}", out.all());
    assert!(out.stdout.contains("install it with `npm ci`"), "{}", out.all());
    assert!(out.stdout.contains("unavailable here, not checked: external"), "{}", out.all());
    assert!(!out.stdout.contains("external   violation") && !out.stdout.contains("breaks its table") && !out.stdout.contains("lossy or silent: external"), "{}", out.all());
    let json = s.run(&["check", "tool.json", "--format", "json", "-t", "external"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(v["translators"][0]["verdict"], "unavailable", "{v}");
    assert_eq!(v["lossy"], false, "{v}");
    assert_eq!(s.run(&["check", "tool.json", "-t", "identity", "-t", "anthropic"]).code, 0);

    let out = s.run(&["explain", "external", "const"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("cases:       not run: `external` is unavailable here: adapter"), "{}", out.all());
    assert!(out.stdout.contains("install it with `npm ci`") && out.stderr.contains("is unavailable here"), "{}", out.all());
    assert!(!out.stdout.contains("fault"), "{}", out.all());

    // report: a page for a translator never run here says so, and how to install it.
    let out = s.run(&["report"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stderr.contains("unavailable translators: external"), "{}", out.all());
    let page = std::fs::read_to_string(s.0.join("reports/external.md")).expect("a page");
    assert!(page.contains("not run: unavailable where these reports were generated") && page.contains("install it with `npm ci`"), "{page}");
    assert!(!page.contains("failed"), "{page}");
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn report_keeps_the_committed_page_of_a_translator_unavailable_here() {
    let s = Scratch::new("report-keeps");
    python_identity(&s, "external");
    let out = s.run(&["report"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let page = std::fs::read_to_string(s.0.join("reports/external.md")).expect("a page");
    assert!(page.contains(" passed, 0 failed"), "run here: {page}");
    let entry = |dir: &Path| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("reports/report.json")).expect("report.json")).expect("JSON");
        v["translators"].as_array().expect("a list").iter().find(|t| t["name"] == "external").cloned().expect("its entry")
    };
    let html_page = std::fs::read_to_string(s.0.join("reports/external.html")).expect("an HTML page");
    assert!(html_page.contains("passed</span>") && html_page.contains("external translator"), "{html_page}");
    let before = entry(&s.0);
    assert!(before["trials"]["passed"].as_u64().is_some_and(|n| n > 0), "{before}");

    // Its runtime goes missing (a machine without python, say): the page is not rewritten.
    s.edit("dispositions/external.yaml", "run: [python3, adapters/ident.py]", "run: [schema-fidelity-no-such-python, adapters/ident.py]");
    let out = s.run(&["report"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stderr.contains("unavailable translators: external") && out.stderr.contains("kept as they are"), "{}", out.all());
    assert_eq!(std::fs::read_to_string(s.0.join("reports/external.md")).expect("the page"), page, "the committed page is kept");
    assert_eq!(entry(&s.0), before, "and its report.json entry");
    assert_eq!(std::fs::read_to_string(s.0.join("reports/external.html")).expect("the HTML page"), html_page, "and its HTML page");
    // And `run` says unavailable, with the install command, not failed.
    let out = s.run(&["run", "-t", "external"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("external   unavailable: ") && out.stdout.contains("install it with `pip install nothing-needed`"), "{}", out.all());
    assert!(!out.stdout.contains("failure(s)"), "{}", out.all());
}

/// Help styled only on a terminal, and not with `NO_COLOR`: run under a pseudo-terminal with
/// util-linux `script`.
#[test]
fn help_is_styled_on_a_terminal_only_and_never_with_no_color() {
    let on_pty = |no_color: bool| -> Option<String> {
        let mut cmd = Command::new("script");
        cmd.args(["-qec", &format!("'{BIN}' check --help"), "/dev/null"]).env_remove("CLICOLOR_FORCE").env_remove("NO_COLOR").env("TERM", "xterm");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let out = cmd.output().ok().filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let Some(styled) = on_pty(false) else {
        eprintln!("note: util-linux `script` is not available; only the off-terminal half is checked");
        assert!(!plain(&repo(), &["check", "--help"]).stdout.contains('\u{1b}'));
        return;
    };
    assert!(styled.contains("Usage:") && styled.contains('\u{1b}'), "styled on a terminal: {styled:?}");
    let no_color = on_pty(true).expect("script ran once already");
    assert!(no_color.contains("Usage:") && !no_color.contains('\u{1b}'), "NO_COLOR: {no_color:?}");
    assert!(!plain(&repo(), &["check", "--help"]).stdout.contains('\u{1b}'), "off a terminal");
}

/// The README's onboarding steps end with `report` (else the next `cargo test` fails on stale
/// reports), and its Python `run:` example is the one the onboarded Python translator really uses.
#[test]
fn the_readme_onboarding_ends_with_report_and_shows_the_python_run_line() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README");
    let start = readme.find("## Onboarding a translator").expect("the onboarding section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let steps: Vec<&str> = section.match_indices("\n**").filter(|(i, _)| section[i + 3..].starts_with(|c: char| c.is_ascii_digit())).map(|(i, _)| &section[i + 3..]).collect();
    let last = steps.last().expect("numbered steps");
    assert!(last.contains("Regenerate the reports") && last.contains("schema-fidelity -- report"), "the last step: {last}");
    assert!(section.contains("schema-fidelity new my-translator"), "it starts from `new`");
    let table = std::fs::read_to_string(repo().join("dispositions/pydantic-ai-google.yaml")).expect("the Python table");
    for key in ["run:", "environment:"] {
        let line = table.lines().find(|l| l.starts_with(key)).expect("the key");
        let example = line.replace("pydantic_ai_google.py", "my_translator.py");
        assert!(section.contains(&example), "the README shows `{example}`");
    }
}

// ---- the reports in a browser -------------------------------------------------------------------

/// Headless Chromium, when installed (`.ci/run` installs it from the Debian packages). Under CI its
/// absence is a failure; elsewhere the browser test says it did not run.
fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).map(move |dir| dir.join(name)).collect::<Vec<_>>())
        .find(|p| p.is_file());
    assert!(found.is_some() || std::env::var_os("CI").is_none(), "CI must have chromium (.ci/run installs it)");
    found
}

/// The DOM of `url` after its scripts ran, as headless Chromium serializes it.
fn dump_dom(browser: &Path, profile: &Path, url: &str) -> String {
    let out = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--allow-file-access-from-files"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", url])
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed on {url}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value of `data-NAME="..."` on the page's `<body>`.
fn body_data(dom: &str, name: &str) -> Option<String> {
    let body = &dom[dom.find("<body")?..];
    let tag = &body[..body.find('>')?];
    let at = tag.find(&format!("data-{name}=\""))? + name.len() + 7;
    Some(tag[at..].split('"').next()?.to_owned())
}

/// The matrix's body rows (not the group rows), each as its HTML.
fn matrix_rows(dom: &str) -> Vec<&str> {
    let tbody = &dom[dom.find("<tbody>").expect("a tbody")..];
    tbody.split("<tr").skip(1).filter(|r| !r.starts_with(" class=\"group\"")).map(|r| r.split("</tr>").next().unwrap_or(r)).collect()
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn the_reports_read_well_in_a_browser_anchors_land_and_filters_filter() {
    let Some(browser) = chromium() else {
        eprintln!("note: chromium is not installed here; the browser test did not run (.ci/run installs it)");
        return;
    };
    let s = Scratch::new("browser");
    let out = s.run(&["report"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let reports = s.0.join("reports");
    let profile = s.0.join("chromium-profile");
    let url = |page: &str| format!("file://{}/{page}", reports.display());

    // The whole matrix: every row and both translators shown.
    let dom = dump_dom(&browser, &profile, &url("index.html"));
    let rows = matrix_rows(&dom);
    assert!(rows.len() > 50, "{} rows", rows.len());
    assert_eq!(body_data(&dom, "rows-shown"), Some(rows.len().to_string()), "no filter: every row");
    assert_eq!(body_data(&dom, "columns-shown").as_deref(), Some("2"));

    // A cell links to the row on the translator's HTML page, where it lands (`:target`).
    let link = "anthropic.html#anyof-at-root";
    assert!(dom.contains(&format!("href=\"{link}\"")), "the matrix links {link}");
    let page = dump_dom(&browser, &profile, &url(link));
    assert_eq!(body_data(&page, "target").as_deref(), Some("anyof-at-root"), "the anchor lands on its row");
    assert!(page.contains("<section class=\"row refused\" id=\"anyof-at-root\">"), "the row is a section of its own");
    assert!(page.contains("passed</span>"), "the page has its pass/fail counts");

    // A filter: anthropic only, refused rows only. Exactly the rows whose anthropic cell is a refusal.
    let filtered = dump_dom(&browser, &profile, &url("index.html?translators=anthropic&disposition=refused"));
    let rows = matrix_rows(&filtered);
    let refused_cell = |row: &str| row.split("<td").any(|td| td.starts_with(" data-col=\"anthropic\"") && td.contains("class=\"sym refused\""));
    let shown: Vec<&&str> = rows.iter().filter(|r| !r[..r.find('>').unwrap_or(0)].contains("hidden")).collect();
    let expected = rows.iter().filter(|r| refused_cell(r)).count();
    assert!(expected > 0 && expected < rows.len(), "{expected} refused rows of {}", rows.len());
    assert_eq!(body_data(&filtered, "rows-shown"), Some(expected.to_string()), "the filter keeps exactly the refused rows");
    assert_eq!(shown.len(), expected, "and hides the others");
    assert!(shown.iter().all(|r| refused_cell(r)), "every row shown is a refusal");
    assert_eq!(body_data(&filtered, "columns-shown").as_deref(), Some("1"));
    assert!(filtered.contains("<td data-col=\"identity\" hidden=\"\">"), "identity's column is hidden");
}

// ---- the projection cache ----------------------------------------------------------------------

/// The number of times the scratch project's `ident` adapter has started (it logs each start).
fn starts(s: &Scratch) -> usize {
    std::fs::read_to_string(s.0.join("starts.log")).map_or(0, |log| log.lines().count())
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn a_schema_checked_before_is_answered_without_starting_its_adapter_until_the_adapter_changes() {
    let s = Scratch::new("projection-cache");
    python_identity(&s, "external");
    // The adapter logs each start, before it serves.
    s.edit("adapters/ident.py", "from sf_adapter import serve\n", "from sf_adapter import serve\nopen(os.path.join(os.getcwd(), 'starts.log'), 'a').write('started\\n')\n");
    s.write("tool.json", OBJECT_SCHEMA);
    let first = s.run(&["check", "tool.json", "-t", "external"]);
    assert_eq!(first.code, 0, "{}", first.all());
    assert_eq!(starts(&s), 1, "{}", first.all());
    let again = s.run(&["check", "tool.json", "-t", "external"]);
    assert_eq!((again.code, &again.stdout), (0, &first.stdout), "the same verdict from the kept answer: {}", again.all());
    assert_eq!(starts(&s), 1, "a schema checked before does not start the adapter");
    // Another schema is a miss.
    s.write("other.json", r#"{"type":"object","properties":{"q":{"type":"string"}}}"#);
    assert_eq!(s.run(&["check", "other.json", "-t", "external"]).code, 0);
    assert_eq!(starts(&s), 2);
    // --no-cache and the variable ask the adapter.
    assert_eq!(s.run(&["check", "tool.json", "-t", "external", "--no-cache"]).code, 0);
    assert_eq!(starts(&s), 3);
    assert_eq!(run_in_with(&s.0, &["check", "tool.json", "-t", "external"], &[("SCHEMA_FIDELITY_NO_CACHE", "1")]).code, 0);
    assert_eq!(starts(&s), 4);
    // An edit beside the adapter (a module it may import) is another fingerprint: asked again.
    s.write("adapters/helper.py", "X = 1\n");
    assert_eq!(s.run(&["check", "tool.json", "-t", "external"]).code, 0);
    assert_eq!(starts(&s), 5);
    // An adapter that now drops `minLength` is judged on what it answers now, not on what it
    // answered before: the check finds the loss.
    s.write(
        "adapters/ident.py",
        "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nfrom sf_adapter import serve\n\
         open(os.path.join(os.getcwd(), 'starts.log'), 'a').write('started\\n')\n\
         def drop(s):\n    if isinstance(s, dict):\n        return {k: drop(v) for k, v in s.items() if k != 'minLength'}\n    return s\n\
         serve('ident', '1.0.0', {'external': lambda schema: {'schema': drop(schema), 'dialect': 'json-schema'}})\n",
    );
    let changed = s.run(&["check", "tool.json", "-t", "external"]);
    assert_eq!(starts(&s), 6, "{}", changed.all());
    assert_ne!(changed.code, 0, "the dropped minLength is found: {}", changed.all());
    assert!(changed.stdout.contains("minLength"), "{}", changed.all());
}

// ---- CI output: run --junit FILE, run --format github --------------------------------------

/// A JUnit document's elements in order (name, attributes, text), read by a real XML parser, so a
/// document that is not well-formed fails the test.
type Element = (String, Vec<(String, String)>, String);

fn xml_elements(xml: &str) -> Vec<Element> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out: Vec<Element> = Vec::new();
    let mut open = Vec::new();
    let attributes = |e: &quick_xml::events::BytesStart<'_>| -> Vec<(String, String)> {
        e.attributes().map(|a| a.expect("an attribute")).map(|a| (a.key.0.to_owned(), a.normalized_value(quick_xml::XmlVersion::Explicit1_0).expect("a value").into_owned())).collect()
    };
    loop {
        match reader.read_event().unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{xml}")) {
            Event::Start(e) => {
                out.push((e.name().0.to_owned(), attributes(&e), String::new()));
                open.push(out.len() - 1);
            }
            Event::Empty(e) => out.push((e.name().0.to_owned(), attributes(&e), String::new())),
            Event::End(_) => {
                open.pop();
            }
            Event::Text(t) => {
                if let Some(&i) = open.last() {
                    out[i].2.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if let Some(&i) = open.last() {
                    let text = match r.resolve_char_ref().expect("a character reference") {
                        Some(c) => c.to_string(),
                        None => quick_xml::escape::resolve_predefined_entity(&r.xml10_content()).expect("a predefined entity").to_owned(),
                    };
                    out[i].2.push_str(&text);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

fn attribute<'a>(element: &'a Element, name: &str) -> Option<&'a str> {
    element.1.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// The testcases, each with the element of its result (`failure`, `skipped`) if any.
fn testcases(elements: &[Element]) -> Vec<(&Element, Option<&Element>)> {
    let mut out = Vec::new();
    for (i, e) in elements.iter().enumerate() {
        if e.0 == "testcase" {
            let result = elements.get(i + 1).filter(|r| r.0 == "failure" || r.0 == "skipped");
            out.push((e, result));
        }
    }
    out
}

/// `(N cases per translator)` of `run`'s total line: the trials it made per translator.
fn cases_per_translator(stdout: &str) -> usize {
    let at = stdout.find(" cases per translator)").expect("the total line");
    let head = &stdout[..at];
    head[head.rfind('(').expect("(") + 1..].parse().expect("a count")
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn run_junit_has_a_case_per_trial_and_a_wrong_table_fails_at_the_line_of_its_row() {
    let s = Scratch::new("run-junit");
    let out = s.run(&["run", "-t", "identity", "--junit", "out.xml", "--format", "github"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(!out.stdout.contains("::"), "nothing to annotate on a passing run: {}", out.all());
    let xml = std::fs::read_to_string(s.0.join("out.xml")).expect("the JUnit file");
    let elements = xml_elements(&xml);
    let cases = testcases(&elements);
    assert_eq!(cases.len(), cases_per_translator(&out.stdout), "one testcase per trial");
    assert!(cases.iter().all(|(c, _)| attribute(c, "classname") == Some("identity") && attribute(c, "name").is_some_and(|n| n.starts_with("identity::corpus/"))));
    assert!(cases.iter().all(|(_, result)| result.is_none()), "all pass: {xml}");
    let suite = elements.iter().find(|e| e.0 == "testsuite").expect("a testsuite");
    assert_eq!((attribute(suite, "name"), attribute(suite, "failures")), (Some("identity"), Some("0")));
    assert_eq!(attribute(suite, "tests"), Some(cases.len().to_string().as_str()));

    // `const` claimed refused although identity never refuses: every case with a `const` fails,
    // at the `const` row.
    s.edit("dispositions/identity.yaml", "  const: { disposition: preserved }", "  const: { disposition: refused }");
    let table = std::fs::read_to_string(s.0.join("dispositions/identity.yaml")).expect("table");
    let line = line_of(&table, "  const:");
    let out = s.run(&["run", "-t", "identity", "--junit", "out.xml", "--format", "github"]);
    assert_eq!(out.code, 1, "{}", out.all());
    let xml = std::fs::read_to_string(s.0.join("out.xml")).expect("the JUnit file");
    let elements = xml_elements(&xml);
    let cases = testcases(&elements);
    assert_eq!(cases.len(), cases_per_translator(&out.stdout));
    let failed: Vec<_> = cases.iter().filter(|(_, r)| r.is_some_and(|r| r.0 == "failure")).collect();
    assert!(!failed.is_empty(), "{xml}");
    let cited = format!("dispositions/identity.yaml:{line} `const`");
    for (case, failure) in &failed {
        let failure = failure.expect("a failure");
        assert!(failure.2.contains(&cited) && failure.2.contains("a refused row applies but the translator projected"), "{failure:?}");
        assert_eq!((attribute(case, "file"), attribute(case, "line")), (Some("dispositions/identity.yaml"), Some(line.to_string().as_str())), "{case:?}");
    }
    let suite = elements.iter().find(|e| e.0 == "testsuite").expect("a testsuite");
    assert_eq!(attribute(suite, "failures"), Some(failed.len().to_string().as_str()));

    let errors: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), failed.len(), "one annotation per failing trial: {}", out.all());
    let at = format!("::error file=dispositions/identity.yaml,line={line},title=identity%3A%3Acorpus/");
    assert!(errors.iter().all(|e| e.starts_with(&at) && e.contains("::a refused row applies but the translator projected:%0A")), "{errors:#?}");
    assert!(out.stdout.contains("failure(s):"), "the summary is printed too: {}", out.all());
}

#[test]
fn run_junit_writes_outside_the_project_whole_or_not_at_all() {
    let s = Scratch::new("run-junit-outside");
    let artifacts = std::env::temp_dir().join(format!("schema-fidelity-cli-{}-junit-artifacts", std::process::id()));
    let _ = std::fs::remove_dir_all(&artifacts);
    std::fs::create_dir_all(&artifacts).expect("artifact dir");
    let file = artifacts.join("junit.xml");
    let out = s.run(&["run", "-t", "identity", "--junit", file.to_str().expect("utf-8 path")]);
    assert_eq!(out.code, 0, "{}", out.all());
    let xml = std::fs::read_to_string(&file).expect("written outside the project");
    assert_eq!(testcases(&xml_elements(&xml)).len(), cases_per_translator(&out.stdout));
    let leftovers: Vec<_> = std::fs::read_dir(&artifacts).expect("dir").flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");

    // A directory that does not exist: a usage error naming the file, and no file.
    let nowhere = artifacts.join("missing/junit.xml");
    let out = s.run(&["run", "-t", "identity", "--junit", nowhere.to_str().expect("utf-8 path")]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("--junit") && out.stderr.contains("missing/junit.xml"), "{}", out.all());
    assert!(!nowhere.exists());
    let _ = std::fs::remove_dir_all(&artifacts);
}

/// A repository that is not this one, as a translator's maintainer has it: `schema-fidelity.toml`,
/// one table and a small adapter (standard-library Python), no corpus, targets or grammars of its
/// own. The binary's built-in corpus and targets judge it; a deliberately wrong translator fails
/// at the table's row.
#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn a_foreign_repository_checks_its_translator_with_three_files() {
    let dir = std::env::temp_dir().join(format!("schema-fidelity-foreign-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("checks")).expect("create the scratch repository");
    // The tables in a folder of another name than this repository's: the config is what says so.
    std::fs::write(dir.join("schema-fidelity.toml"), "# the tables of this repository's translator\ntables = \"checks\"\n").expect("config");
    let identity = std::fs::read_to_string(repo().join("dispositions/identity.yaml")).expect("the identity table");
    let table: String = identity
        .lines()
        .filter(|l| !l.starts_with("models:") && !l.starts_with("# The real translator") && !l.starts_with("# side by side"))
        .map(|l| match l {
            "translator: identity" => "translator: demo\n\
                run: [python3, adapter.py]\n\
                package: \"demo 1.0.0 (local)\"\n\
                entry: { call: \"demo.send(tools=[S])\", path: \"translate(S)\", reads: \"the answer\" }"
                .to_owned(),
            other => other.to_owned(),
        })
        .map(|l| l + "\n")
        .collect();
    std::fs::write(dir.join("checks/demo.yaml"), &table).expect("table");
    let adapter = |translate: &str| {
        format!(
            "import json, sys\n\n{translate}\n\nfor line in sys.stdin:\n    request = json.loads(line)\n    if 'start' in request:\n        \
             answer = {{'started': {{'protocol': 1, 'name': 'demo', 'version': '1.0.0', 'translators': ['demo'], 'entries': ['demo']}}}}\n    else:\n        \
             answer = {{'id': request['id'], 'projection': {{'schema': translate(request['schema']), 'dialect': 'json-schema'}}}}\n    \
             sys.stdout.write(json.dumps(answer) + '\\n')\n    sys.stdout.flush()\n"
        )
    };
    std::fs::write(dir.join("adapter.py"), adapter("def translate(schema):\n    return schema")).expect("adapter");

    let out = run_in(&dir, &["lint"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = run_in(&dir, &["run", "--junit", "demo.xml"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("checks/demo.yaml"), "the table is named where it is: {}", out.all());
    let xml = std::fs::read_to_string(dir.join("demo.xml")).expect("the JUnit file");
    let elements = xml_elements(&xml);
    let cases = testcases(&elements);
    assert_eq!(cases.len(), cases_per_translator(&out.stdout), "one testcase per trial");
    let names: Vec<&str> = cases.iter().filter_map(|(c, _)| attribute(c, "name")).collect();
    assert!(cases.iter().all(|(_, result)| result.is_none()), "all pass: {xml}");
    // Every file of this repository's corpus is in the binary, under the id it has here.
    let corpus = repo().join("corpus");
    // (The MCP servers' manifest, corpus/mcp/servers.yaml, is the harvest's pins, not cases.)
    let manifest = repo().join(schema_fidelity::mcp::manifest::MANIFEST);
    for file in walkdir::WalkDir::new(&corpus).into_iter().flatten().filter(|e| e.file_type().is_file() && e.path() != manifest) {
        let id = format!("demo::corpus/{}::", file.path().strip_prefix(&corpus).expect("under corpus").to_string_lossy());
        assert!(names.iter().any(|n| n.starts_with(&id)), "no trial of {id}* among {} trials", names.len());
    }
    assert!(dir.join("target/schema-fidelity/embedded").is_dir(), "the built-in files are written inside the repository");

    // A translator that drops `const`, which the table says it preserves: the run fails, at the row.
    let drops = "def translate(schema):\n    if isinstance(schema, dict):\n        return {k: translate(v) for k, v in schema.items() if k != 'const'}\n    \
                 if isinstance(schema, list):\n        return [translate(v) for v in schema]\n    return schema";
    std::fs::write(dir.join("adapter.py"), adapter(drops)).expect("adapter");
    let out = run_in(&dir, &["run", "--junit", "demo.xml"]);
    assert_eq!(out.code, 1, "{}", out.all());
    let xml = std::fs::read_to_string(dir.join("demo.xml")).expect("the JUnit file");
    let elements = xml_elements(&xml);
    let failed: Vec<_> = testcases(&elements).into_iter().filter(|(_, r)| r.is_some_and(|r| r.0 == "failure")).collect();
    assert!(!failed.is_empty(), "{xml}");
    // Each failure points into the table; where the lost `const` is what disagrees, at its row
    // (elsewhere the disagreement shows at an enclosing keyword, e.g. `minContains` over a
    // `contains` whose `const` went).
    let line = line_of(&table, "  const:").to_string();
    assert!(failed.iter().all(|(case, _)| attribute(case, "file") == Some("checks/demo.yaml")), "{failed:?}");
    assert!(failed.iter().any(|(case, _)| attribute(case, "line") == Some(line.as_str())), "no failure at the `const` row: {failed:?}");
    std::fs::remove_dir_all(&dir).expect("remove the scratch repository");
}

/// The README's "In your own repository", walked: `init` in an empty folder, the lint naming
/// what is left to fill in, the gaps filled in (an identity translator), then `lint` and `run`
/// pass against the built-in corpus.
#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn init_then_filling_in_the_todos_gives_a_repository_whose_contract_passes() {
    let dir = std::env::temp_dir().join(format!("schema-fidelity-init-walk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch repository");
    let out = run_in(&dir, &["init", "--lang", "python", "--name", "demo", "--target", "json-schema"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = run_in(&dir, &["lint"]);
    assert_eq!(out.code, 1, "{}", out.all());
    for file in ["dispositions/demo.yaml:", "adapters/demo.py:", ".github/workflows/schema-fidelity.yml:"] {
        assert!(out.stdout.contains(file) || out.stderr.contains(file), "the lint names {file}: {}", out.all());
    }

    let edit = |file: &str, f: &dyn Fn(&str) -> Option<String>| {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).expect("a scaffolded file");
        let edited: String = text.lines().filter_map(f).map(|l| l + "\n").collect();
        assert_ne!(text, edited, "{file} changed");
        std::fs::write(&path, edited).expect("write");
    };
    edit("dispositions/demo.yaml", &|l| Some(l.replace("disposition: TODO", "disposition: preserved").replace("TODO: ", "")));
    edit("adapters/demo.py", &|l| {
        if l.contains("raise NotImplementedError(") {
            Some("    return {\"schema\": schema, \"dialect\": \"json-schema\"}".to_owned())
        } else if l.trim_start().starts_with('#') && l.contains("TODO(schema-fidelity)") {
            None
        } else {
            Some(l.to_owned())
        }
    });
    edit(".github/workflows/schema-fidelity.yml", &|l| Some(l.replace("  # TODO(schema-fidelity): the install command that works for you", "")));

    let out = run_in(&dir, &["lint"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = run_in(&dir, &["run", "--junit", "demo.xml"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let cases = testcases(&xml_elements(&std::fs::read_to_string(dir.join("demo.xml")).expect("the JUnit file"))).len();
    assert!(cases == cases_per_translator(&out.stdout) && cases > 200, "a trial per built-in case: {cases}\n{}", out.all());
    std::fs::remove_dir_all(&dir).expect("remove the scratch repository");
}
