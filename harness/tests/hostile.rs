//! Hostile input: every class of input that once made a command panic, hang, abort or run out of
//! memory (issue 16), and the classes already handled, each answered with a clear error or a
//! verdict within its budget.
//!
//! The inputs are generated here, at test time, into a temporary directory (no large committed
//! files). Each command runs as a child process under `ulimit -v` (so exceeding the memory
//! budget fails the test instead of the machine) and a deadline (so a hang fails it instead of
//! stalling `cargo test`).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_schema-fidelity");

/// Virtual memory a command may use, in KiB (`ulimit -v`): far below the gigabytes the inputs
/// used to take, well above what a debug build reserves for its threads.
const MEMORY_KIB: u64 = 3 * 1024 * 1024;
/// Wall-clock time a command may take: generous for a loaded 2-core machine in a debug build,
/// far below the minutes the inputs used to take.
const DEADLINE: Duration = Duration::from_secs(60);

fn repo() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

/// A temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-hostile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        // The tables copied in name their targets: the project's, linked.
        std::os::unix::fs::symlink(repo().join("targets"), dir.join("targets")).expect("link targets");
        Self(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create dir");
        }
        std::fs::write(&path, text).expect("write");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Run {
    /// The exit code; `None` when killed by a signal (an abort, a stack overflow, the deadline).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Run {
    fn all(&self) -> String {
        let cut = |s: &str| s.chars().take(4000).collect::<String>();
        format!("exit {:?} after {:?}\n--- stdout\n{}--- stderr\n{}", self.code, self.elapsed, cut(&self.stdout), cut(&self.stderr))
    }

    /// Exit 0, 1 or 3 (a verdict; 3: `check` found only declared losses) or 2 (an input error):
    /// never a panic (101), a signal or a closed pipe (141).
    fn assert_answered(&self) {
        assert!(matches!(self.code, Some(0..=3)), "no clear answer: {}", self.all());
    }

    fn assert_error(&self, fragments: &[&str]) {
        assert_eq!(self.code, Some(2), "an input error: {}", self.all());
        for f in fragments {
            assert!(self.stderr.contains(f), "`{f}` not in the error: {}", self.all());
        }
    }
}

/// Run the binary in `dir` with `args` and `env`, under the memory limit and the deadline.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut script = format!("ulimit -v {MEMORY_KIB}; exec \"$0\"");
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${i}\""));
    }
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).arg(BIN).args(args).current_dir(dir).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.env("SCHEMA_FIDELITY_JSTS", dir.join("no-suite-here"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().expect("the binary starts");
    let (mut out, mut err) = (child.stdout.take().expect("stdout"), child.stderr.take().expect("stderr"));
    let readers = (
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        }),
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        }),
    );
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`schema-fidelity {}` gave no answer within {DEADLINE:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    Run { code: status.code(), stdout: readers.0.join().unwrap_or_default(), stderr: readers.1.join().unwrap_or_default(), elapsed }
}

/// `check FILE` from the repository (its tables), with `env`.
fn check(file: &Path, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let mut args = vec!["check", file.to_str().expect("utf-8 path")];
    args.extend(extra);
    run(&repo(), &args, env)
}

fn object_with(property: Value) -> Value {
    json!({"type": "object", "properties": {"p": property}, "required": ["p"]})
}

/// `d0 -> d1 -> ... -> dn` in `$defs`, each an array of the next; the root's property refers to d0.
fn ref_chain(n: usize) -> Value {
    let mut defs = Map::new();
    for i in 0..n {
        defs.insert(format!("d{i}"), json!({"type": "array", "items": {"$ref": format!("#/$defs/d{}", i + 1)}}));
    }
    defs.insert(format!("d{n}"), json!({"type": "string"}));
    json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs})
}

// ---- bounds beyond what the generators build ---------------------------------------------------

/// One schema for both lengths: every translator (the external adapters' start is most of a
/// `check`) gets both hostile bounds in one run.
#[test]
fn min_lengths_of_a_billion_and_of_u64_max_are_compared_not_allocated() {
    let dir = Scratch::new("min-length-max");
    // Written by hand: serde_json would write the same, but the point is the literal.
    let file = dir.write(
        "tool.json",
        r#"{"type":"object","properties":{"s":{"type":"string","minLength":18446744073709551615},"p":{"type":"string","minLength":1000000000}},"required":["s"]}"#,
    );
    let out = check(&file, &[], &[]);
    out.assert_answered();
    assert!(out.stdout.contains("`minLength: 18446744073709551615` at `/properties/s` is beyond the generator"), "{}", out.all());
    assert!(out.stdout.contains("`minLength: 1000000000` at `/properties/p` is beyond the generator"), "{}", out.all());
    assert!(out.stdout.contains("SCHEMA_FIDELITY_MAX_STRING_LENGTH"), "{}", out.all());
}

// ---- structural budgets ----------------------------------------------------------------------

#[test]
fn fifty_thousand_required_names_are_refused_by_budget_and_checked_linearly_when_raised() {
    let dir = Scratch::new("required");
    let names: Vec<String> = (0..50_000).map(|i| format!("k{i}")).collect();
    let file = dir.write("tool.json", &json!({"type": "object", "required": names}).to_string());
    let out = check(&file, &[], &[("SCHEMA_FIDELITY_MAX_SCHEMA_NODES", "1000000")]);
    out.assert_error(&["`required` at the root has 50000 names, beyond the required length budget of 300", "SCHEMA_FIDELITY_MAX_REQUIRED"]);
    // Raised, the check runs: in bounded memory (it took 6 GB) and time.
    let out = check(&file, &["-t", "identity"], &[("SCHEMA_FIDELITY_MAX_SCHEMA_NODES", "1000000"), ("SCHEMA_FIDELITY_MAX_REQUIRED", "100000")]);
    out.assert_answered();
    assert!(out.stdout.contains("identity  exact"), "{}", out.all());
}

#[test]
fn an_enum_of_a_hundred_thousand_values_is_refused_by_budget_and_checked_linearly_when_raised() {
    let dir = Scratch::new("enum");
    let file = dir.write("tool.json", &object_with(json!({"enum": (0..100_000).collect::<Vec<_>>()})).to_string());
    let out = check(&file, &[], &[]);
    out.assert_error(&["the schema has 100007 JSON values, beyond the schema size budget of 20000", "SCHEMA_FIDELITY_MAX_SCHEMA_NODES"]);
    let out = check(&file, &[], &[("SCHEMA_FIDELITY_MAX_SCHEMA_NODES", "1000000")]);
    out.assert_error(&["`enum` at `/properties/p` has 100000 values, beyond the enum size budget of 2000", "SCHEMA_FIDELITY_MAX_ENUM"]);
    // gemini-proto turned each value into a branch and compared them pairwise (no answer in 120 s).
    let out = check(&file, &["-t", "gemini-proto"], &[("SCHEMA_FIDELITY_MAX_SCHEMA_NODES", "1000000"), ("SCHEMA_FIDELITY_MAX_ENUM", "100000")]);
    out.assert_answered();
    assert!(out.stdout.contains("gemini-proto"), "{}", out.all());
}

#[test]
fn an_object_with_too_many_properties_is_refused_by_budget() {
    let dir = Scratch::new("properties");
    let properties: Map<String, Value> = (0..1_000).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    let file = dir.write("tool.json", &json!({"type": "object", "properties": properties}).to_string());
    let out = check(&file, &[], &[]);
    out.assert_error(&["`properties` at the root has 1000 properties, beyond the property count budget of 300", "SCHEMA_FIDELITY_MAX_PROPERTIES"]);
}

#[test]
fn a_trial_that_outruns_its_time_budget_fails_naming_it() {
    // 1,000 properties through openai-strict's null-means-absent codec: several seconds of draws
    // in a debug build, cut at one second.
    let dir = Scratch::new("trial-time");
    let properties: Map<String, Value> = (0..1_000).map(|i| (format!("p{i}"), json!({"type": "string", "maxLength": 5}))).collect();
    let file = dir.write("tool.json", &json!({"type": "object", "properties": properties}).to_string());
    let env = [("SCHEMA_FIDELITY_MAX_PROPERTIES", "5000"), ("SCHEMA_FIDELITY_MAX_TRIAL_SECONDS", "1")];
    let out = check(&file, &["-t", "openai-strict"], &env);
    out.assert_answered();
    assert!(out.stdout.contains("the witness search exceeded the trial time budget of 1 s after"), "{}", out.all());
    assert!(out.stdout.contains("SCHEMA_FIDELITY_MAX_TRIAL_SECONDS=N"), "{}", out.all());
    assert!(out.elapsed < Duration::from_secs(20), "cut at the budget, not run to the end: {:?}", out.elapsed);
}

#[test]
fn a_file_beyond_the_input_budget_is_not_read() {
    let dir = Scratch::new("input");
    let file = dir.write("tool.json", &format!("{{\"type\": \"object\", \"description\": \"{}\"}}", "x".repeat(200_000)));
    let out = check(&file, &[], &[("SCHEMA_FIDELITY_MAX_INPUT_BYTES", "100000")]);
    out.assert_error(&["the file is larger than the input size budget of 100000 bytes", "SCHEMA_FIDELITY_MAX_INPUT_BYTES"]);
    // An endless file is read up to the budget, not to the end.
    let out = check(Path::new("/dev/zero"), &[], &[]);
    out.assert_error(&["/dev/zero: the file is larger than the input size budget"]);
}

#[test]
fn a_budget_variable_that_is_not_a_number_is_an_error() {
    let dir = Scratch::new("bad-budget");
    let file = dir.write("tool.json", r#"{"type": "object"}"#);
    let out = check(&file, &[], &[("SCHEMA_FIDELITY_MAX_ENUM", "lots")]);
    out.assert_error(&["SCHEMA_FIDELITY_MAX_ENUM=\"lots\" is not a positive whole number"]);
}

#[test]
fn a_ref_chain_ten_thousand_long_is_refused_by_budget_in_check_and_in_the_corpus() {
    let dir = Scratch::new("ref-chain");
    let schema = ref_chain(10_000);
    let file = dir.write("tool.json", &schema.to_string());
    let raised = [("SCHEMA_FIDELITY_MAX_SCHEMA_NODES", "1000000")];
    let out = check(&file, &[], &raised);
    out.assert_error(&["the `$ref` chain at `/properties/a` has 10001 references", "beyond the $ref chain budget of 64", "SCHEMA_FIDELITY_MAX_REF_CHAIN"]);

    // As a corpus case it aborted `report --check` with a stack overflow: now it is a corpus error
    // naming the file, and the rest of the corpus still runs.
    let project = Scratch::new("ref-chain-project");
    std::fs::create_dir_all(project.0.join("dispositions")).expect("dir");
    for table in ["identity.yaml", "moonshot.yaml"] {
        std::fs::copy(repo().join("dispositions").join(table), project.0.join("dispositions").join(table)).expect("copy table");
    }
    let case = json!({"cases": [{"name": "chain", "description": "a long chain", "schema": schema, "instances": [{"data": {"a": []}, "valid": true}]}]});
    project.write("corpus/chain.json", &case.to_string());
    project.write("corpus/ok.yaml", "cases:\n  - name: ok\n    description: fine\n    schema: { type: object }\n    instances: [{ data: {}, valid: true }]\n");
    let out = run(&project.0, &["lint"], &raised);
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(out.stdout.contains("corpus/chain.json: case `chain`: the `$ref` chain at `/properties/a` has 10001 references"), "{}", out.all());
    let out = run(&project.0, &["run"], &raised);
    assert_eq!(out.code, Some(1), "a corpus error fails the run, which finishes: {}", out.all());
    assert!(out.stdout.contains("corpus error: ") && out.stdout.contains("moonshot"), "{}", out.all());
}

// ---- messages that say what is wrong ------------------------------------------------------------

#[test]
fn ten_thousand_levels_deep_is_too_deep_not_invalid() {
    let dir = Scratch::new("deep");
    let file = dir.write("tool.json", &format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000)));
    let out = check(&file, &[], &[]);
    out.assert_error(&["tool.json:1:", "nested deeper than 128 levels (the reader's limit)"]);
    assert!(!out.stderr.contains("not valid JSON"), "{}", out.all());
}

#[test]
fn ten_thousand_levels_deep_in_a_yaml_corpus_file_is_too_deep_not_malformed() {
    let project = Scratch::new("deep-yaml");
    std::fs::create_dir_all(project.0.join("dispositions")).expect("dir");
    std::fs::copy(repo().join("dispositions/identity.yaml"), project.0.join("dispositions/identity.yaml")).expect("copy table");
    let deep_schema = format!("{}{{}}{}", "{\"items\": ".repeat(10_000), "}".repeat(10_000));
    project.write("corpus/deep.yaml", &format!("cases:\n  - name: deep\n    description: d\n    schema: {deep_schema}\n    instances: [{{data: 1, valid: true}}]\n"));
    let deep_data = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    project.write("corpus/deep-data.yaml", &format!("cases:\n  - name: deep\n    description: d\n    schema: {{}}\n    instances: [{{data: {deep_data}, valid: true}}]\n"));
    let out = run(&project.0, &["lint"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(out.stdout.contains("corpus/deep.yaml:4: not a corpus file: ") && out.stdout.contains("nested deeper than 64 levels (the YAML reader's limit)"), "{}", out.all());
    assert!(out.stdout.contains("corpus/deep-data.yaml:5: not a corpus file: ") && out.stdout.contains("nested deeper than"), "{}", out.all());
}

#[test]
fn a_regex_beyond_the_engine_size_limit_is_called_valid() {
    let dir = Scratch::new("regex");
    let file = dir.write("tool.json", &object_with(json!({"type": "string", "pattern": "^(a{1000}){1000}$"})).to_string());
    let out = check(&file, &[], &[]);
    out.assert_error(&["the `pattern` \"^(a{1000}){1000}$\" at `/properties/p` is a valid ECMA-262 regex, but beyond the regex engine's size limit"]);
    // A regex that is really invalid still says so.
    let file = dir.write("bad.json", &object_with(json!({"type": "string", "pattern": "(unclosed"})).to_string());
    let out = check(&file, &[], &[]);
    assert_eq!(out.code, Some(2), "{}", out.all());
    assert!(!out.stderr.contains("size limit"), "{}", out.all());
}

// ---- JSON that would be read as something else ----------------------------------------------

#[test]
fn duplicate_keys_are_an_error_with_line_and_column() {
    let dir = Scratch::new("duplicates");
    let file = dir.write("tool.json", "{\n  \"type\": \"object\",\n  \"properties\": {\"a\": {\"type\": \"string\"}},\n  \"type\": \"string\"\n}\n");
    let out = check(&file, &[], &[]);
    out.assert_error(&["tool.json:4:3: duplicate key \"type\" in the root object (first at line 2, column 3)"]);
}

#[test]
fn an_integer_beyond_64_bits_is_an_error_naming_its_pointer() {
    let dir = Scratch::new("big-integer");
    let file = dir.write("tool.json", r#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 18446744073709551616}}}"#);
    let out = check(&file, &[], &[]);
    out.assert_error(&["the integer 18446744073709551616 at `/properties/n/maximum` does not fit in 64 bits and would be rounded"]);
}

#[test]
fn a_json_corpus_file_gets_the_same_strict_reading() {
    let project = Scratch::new("json-corpus");
    std::fs::create_dir_all(project.0.join("dispositions")).expect("dir");
    std::fs::copy(repo().join("dispositions/identity.yaml"), project.0.join("dispositions/identity.yaml")).expect("copy table");
    project.write("corpus/dup.json", r#"{"cases": [{"name": "a", "description": "d", "schema": {"type": "object", "type": "string"}, "instances": [{"data": {}, "valid": true}]}]}"#);
    let out = run(&project.0, &["lint"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(out.stdout.contains("corpus/dup.json:1: column ") && out.stdout.contains("duplicate key \"type\" in the object at `/cases/0/schema`"), "{}", out.all());
}

#[test]
fn tables_and_corpus_files_that_are_endless_are_read_up_to_the_budget_not_skipped() {
    let project = Scratch::new("endless-table");
    std::fs::create_dir_all(project.0.join("dispositions")).expect("dir");
    std::fs::create_dir_all(project.0.join("corpus")).expect("dir");
    std::os::unix::fs::symlink("/dev/zero", project.0.join("dispositions/identity.yaml")).expect("symlink");
    std::os::unix::fs::symlink("/dev/zero", project.0.join("corpus/endless.yaml")).expect("symlink");
    let out = run(&project.0, &["lint"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(out.stdout.contains("dispositions/identity.yaml: the file is larger than the input size budget"), "{}", out.all());
    assert!(out.stdout.contains("corpus/endless.yaml: the file is larger than the input size budget"), "{}", out.all());
}

// ---- classes already handled, kept handled ---------------------------------------------------

#[test]
fn malformed_json_and_non_utf8_are_errors_with_the_file() {
    let dir = Scratch::new("malformed");
    let file = dir.write("tool.json", "{\"type\": \"object\",\n \"properties\": }");
    let out = check(&file, &[], &[]);
    out.assert_error(&["tool.json:2:16: not valid JSON: expected value"]);
    let file = dir.0.join("latin1.json");
    std::fs::write(&file, b"{\"description\": \"caf\xe9\"}").expect("write");
    let out = check(&file, &[], &[]);
    out.assert_error(&["latin1.json: not UTF-8 text"]);
}

#[test]
fn references_that_leave_the_document_are_refused_not_fetched() {
    let dir = Scratch::new("remote");
    for (name, reference) in [("http.json", "http://example.invalid/s.json"), ("file.json", "file:///etc/passwd"), ("missing.json", "#/$defs/nowhere")] {
        let file = dir.write(name, &object_with(json!({"$ref": reference})).to_string());
        let out = check(&file, &[], &[]);
        assert_eq!(out.code, Some(2), "{name}: {}", out.all());
        assert!(out.stderr.contains(name) && out.stderr.contains("does not compile"), "{name}: {}", out.all());
        assert!(out.elapsed < Duration::from_secs(30), "{name}: no network wait: {}", out.all());
    }
}

// ---- terminal escapes ---------------------------------------------------------------------------

/// Whether `text` holds a character that would act on a terminal (other than newline and tab).
fn has_raw_escapes(text: &str) -> bool {
    text.chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
}

#[test]
fn escape_sequences_in_a_schema_are_shown_not_sent() {
    let dir = Scratch::new("escapes");
    // A property name that clears the screen (shown in the row's pointer: openai-strict widens
    // `minLength`), a C1 control sequence and a right-to-left override in a description.
    let name = "\u{1b}[2Jname";
    let schema = json!({
        "type": "object",
        "properties": {name: {"type": "string", "minLength": 2, "description": "safe \u{9b}31m \u{202e}txt.exe"}},
        "required": [name]
    });
    let file = dir.write("tool.json", &schema.to_string());
    for format in ["text", "json"] {
        let out = check(&file, &["-t", "openai-strict", "--format", format], &[]);
        out.assert_answered();
        assert!(!has_raw_escapes(&out.stdout) && !has_raw_escapes(&out.stderr), "{format}: {:?}", out.stdout);
        if format == "text" {
            assert!(out.stdout.contains("row openai-strict/minLength at `/properties/\\x1b[2Jname`"), "{}", out.all());
        } else {
            // Still JSON, with the same data.
            let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
            let rows = v["translators"][0]["rows"].as_array().expect("rows");
            assert!(rows.iter().any(|r| r["pointer"] == format!("/properties/{name}")), "{v}");
        }
    }
}

#[test]
fn a_case_name_with_control_characters_is_a_corpus_error() {
    let project = Scratch::new("case-name");
    std::fs::create_dir_all(project.0.join("dispositions")).expect("dir");
    std::fs::copy(repo().join("dispositions/identity.yaml"), project.0.join("dispositions/identity.yaml")).expect("copy table");
    project.write("corpus/names.yaml", "cases:\n  - name: \"clear\\e[2J\"\n    description: d\n    schema: { type: object }\n    instances: [{ data: {}, valid: true }]\n");
    let out = run(&project.0, &["lint"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(out.stdout.contains("corpus/names.yaml:2: case name \"clear\\u001b[2J\" may not contain control characters"), "{}", out.all());
    assert!(!has_raw_escapes(&out.stdout), "{:?}", out.stdout);
}
