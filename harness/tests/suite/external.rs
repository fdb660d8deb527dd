//! External translators under faults: an adapter that crashes, hangs, writes garbage, exits early
//! or answers the wrong id must have each fault reported against the case it hit, with the last
//! lines of its stderr, while every other case still runs; no process may be left behind.
//!
//! The adapters are small Python scripts in `tests/fixtures/adapters/`; `faulty.py` misbehaves on
//! a schema whose root carries `x-fault: <kind>`. Timeouts are short here (1 s per request) so the
//! whole file runs in a few seconds.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use libtest_mimic::Arguments;
use schema_fidelity::corpus::{Case, Instance, Origin};
use schema_fidelity::diagnostic;
use schema_fidelity::external::{self, Adapter, AdapterSpec, Config, ExternalTranslator};
use schema_fidelity::oracle;
use schema_fidelity::project::Project;
use schema_fidelity::session::{self, Loaded};
use schema_fidelity::table::{self, Table};
use schema_fidelity::trials;
use schema_fidelity::validation::Env;
use schema_fidelity::verdict::{FailureKind, Verdict};
use schema_fidelity_translators::{Outcome, Translator};
use serde_json::{Value, json};

fn root() -> PathBuf {
    trials::workspace_root()
}

fn config() -> Config {
    Config { request_timeout: Duration::from_secs(1), start_timeout: Duration::from_secs(20), max_line_bytes: 100_000, ..Config::default() }
}

fn adapter(script: &str, args: &[&str], config: Config) -> Arc<Adapter> {
    let mut command = vec!["python3".to_owned(), format!("harness/tests/fixtures/adapters/{script}")];
    command.extend(args.iter().map(|a| (*a).to_owned()));
    Arc::new(Adapter::new(AdapterSpec { command, cwd: root(), install: Some("pip install faulty-translator==0.0.1".to_owned()) }, config))
}

/// The `identity` table claimed by `name`, which lets `x-fault` through as an annotation.
fn table(name: &str, run: Option<&str>) -> Table {
    let text = std::fs::read_to_string(root().join("dispositions/identity.yaml")).expect("identity table");
    // Not the reference for the real translator the identity table models: this one is its own.
    let text: String = text.lines().filter(|l| !l.starts_with("models:")).map(|l| format!("{l}\n")).collect();
    let mut text = text.replacen("translator: identity", &format!("translator: {name}"), 1);
    if let Some(run) = run {
        text.push_str(&format!("run: {run}\ninstall: \"pip install faulty-translator==0.0.1\"\npackage: \"faulty-translator 0.0.1 (PyPI)\"\nentry:\n  call: \"ident(S)\"\n  path: \"unchanged\"\n  reads: \"the answer\"\n"));
    }
    let (table, errors) = table::parse(&text, Path::new(&format!("{name}.yaml")), &root().join("dispositions"));
    assert!(errors.is_empty(), "{errors:?}");
    table.expect("table parses")
}

/// A case whose schema asks the adapter for `fault` (or nothing), with one valid and one invalid
/// instance so that a correct answer passes the differential check.
fn case(name: &str, fault: Option<&str>) -> Case {
    let mut schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    if let Some(fault) = fault {
        schema["x-fault"] = Value::from(fault);
    }
    Case {
        id: format!("corpus/faults.yaml::{name}"),
        file: PathBuf::from("corpus/faults.yaml"),
        line: None,
        description: String::new(),
        issues: Vec::new(),
        schema,
        instances: vec![
            Instance { description: "an integer".to_owned(), data: json!({"n": 1}), valid: true },
            Instance { description: "a string".to_owned(), data: json!({"n": "1"}), valid: false },
        ],
        origin: Origin::Own,
        assert_formats: true,
    }
}

/// Whether the process `pid` is gone: dead and reaped (a zombie still has its `/proc` entry).
fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn each_fault_fails_its_own_case_and_the_run_goes_on() {
    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    let table = table("faulty", None);
    let env = Env::default();
    // (case, fault, what the message must say)
    let plan: &[(&str, Option<&str>, &[&str])] = &[
        ("first", None, &[]),
        ("crash", Some("crash"), &["exited before answering request", "faulty: about to crash on request", "exit status: 3"]),
        ("after-crash", None, &[]),
        ("hang", Some("hang"), &["within 1000 ms: the adapter hangs"]),
        ("after-hang", None, &[]),
        ("garbage", Some("garbage"), &["is not protocol JSON", "{this is not json"]),
        ("log-on-stdout", Some("log"), &["is not protocol JSON", "translating..."]),
        ("oversized", Some("oversized"), &["a line longer than 100000 bytes"]),
        ("wrong-id", Some("wrong-id"), &["the adapter answered id 100"]),
        ("early-exit", Some("exit"), &["exited before answering request", "exit status: 0"]),
        ("not-protocol", Some("not-protocol"), &["breaks protocol/response.schema.json", "dialect"]),
        ("stderr-flood", Some("stderr-flood"), &[]),
        ("last", None, &[]),
    ];
    let mut stopped_pids = Vec::new();
    for (name, fault, expected) in plan {
        // Start the adapter if the previous fault stopped it, to know which process this case hits.
        assert_eq!(faulty.unavailable(), None);
        let pid_before = faulty.adapter().pid();
        let verdict = oracle::check(&table, &faulty, &case(name, *fault), &env);
        if expected.is_empty() {
            assert!(matches!(verdict, Verdict::Pass(_)), "{name}: {verdict:?}");
            continue;
        }
        let Verdict::Fail(failure) = verdict else { panic!("{name}: expected a failure, got {verdict:?}") };
        let FailureKind::Fault(fault_message) = &failure.kind else { panic!("{name}: expected a fault, got {:?}", failure.kind) };
        for fragment in *expected {
            assert!(fault_message.contains(fragment), "{name}: `{fragment}` not in:\n{fault_message}");
        }
        // Reported against the case it hit: the trial message names the case and the table.
        assert!(failure.message.contains(&format!("case: corpus/faults.yaml::{name}")), "{}", failure.message);
        assert!(failure.message.contains("translator `faulty` faulted"), "{}", failure.message);
        // A hang starts the new process at once, to probe it; every other fault leaves that to
        // the next case.
        let next = if *fault == Some("hang") { "a new one answered a probe and serves the next case" } else { "the next case starts a new one" };
        assert!(fault_message.contains(next), "{name}: {fault_message}");
        stopped_pids.extend(pid_before);
    }
    assert_eq!(stopped_pids.len(), 8, "a process was started and stopped per breaking fault: {stopped_pids:?}");
    for pid in &stopped_pids {
        assert!(gone(*pid), "adapter process {pid} was left behind");
    }
    let last = faulty.adapter().pid().expect("the adapter runs after the last case");
    drop(faulty);
    assert!(gone(last), "dropping the translator stops and reaps its adapter ({last})");
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn the_crash_message_carries_the_last_lines_of_stderr_not_the_flood() {
    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    assert!(matches!(faulty.translate(&case("ok", None).schema), Outcome::Projected(_)));
    let Outcome::Faulted(fault) = faulty.translate(&case("crash", Some("crash")).schema) else { panic!("a crash faults") };
    assert!(fault.message.contains("stderr:\n  | faulty: about to crash on request 2"), "{}", fault.message);

    let flood = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    assert!(matches!(flood.translate(&case("flood", Some("stderr-flood")).schema), Outcome::Projected(_)));
    let Outcome::Faulted(fault) = flood.translate(&case("hang", Some("hang")).schema) else { panic!("a hang faults") };
    assert!(fault.message.contains("last 20 lines of stderr (of 10001)"), "{}", fault.message);
    assert!(fault.message.contains("faulty: flood done"), "{}", fault.message);
    assert!(fault.message.lines().count() < 30, "the tail is bounded:\n{}", fault.message);
}

#[test]
fn an_adapter_whose_answers_differ_from_call_to_call_fails_naming_where() {
    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    let verdict = oracle::check(&table("faulty", None), &faulty, &case("flaky", Some("flaky")), &Env::default());
    let Verdict::Fail(failure) = verdict else { panic!("a translator that answers differently twice fails: {verdict:?}") };
    assert_eq!(failure.kind, FailureKind::Nondeterministic("/schema/description".to_owned()), "{}", failure.message);
    assert!(failure.message.contains("is not deterministic: two translations of the same schema differ first at `/schema/description`"), "{}", failure.message);
    // The same adapter, asked a schema it answers the same way twice, passes.
    assert!(matches!(oracle::check(&table("faulty", None), &faulty, &case("steady", None), &Env::default()), Verdict::Pass(_)));
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn parallel_trials_share_one_process_and_keep_going_past_faults() {
    let faulty = Arc::new(ExternalTranslator::new("faulty", adapter("faulty.py", &[], config())));
    let table = Arc::new(table("faulty", None));
    let faults = ["crash", "garbage", "wrong-id", "exit"];
    let cases: Vec<Case> = (0..24)
        .map(|i| if i % 6 == 5 { case(&format!("fault-{i}"), Some(faults[i / 6])) } else { case(&format!("ok-{i}"), None) })
        .collect();
    let results: Vec<(String, bool)> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .chunks(6)
            .map(|chunk| {
                let (faulty, table) = (faulty.clone(), table.clone());
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| (c.id.clone(), matches!(oracle::check(&table, faulty.as_ref(), c, &Env::default()), Verdict::Pass(_))))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("no trial thread panics")).collect()
    });
    for (id, passed) in &results {
        assert_eq!(*passed, id.contains("::ok-"), "{id}");
    }
    assert_eq!(results.len(), 24);
}

#[test]
fn a_missing_runtime_skips_the_trials_with_the_install_command() {
    let missing = Arc::new(Adapter::new(
        AdapterSpec {
            command: vec!["schema-fidelity-no-such-runtime".to_owned(), "adapter.js".to_owned()],
            cwd: root(),
            install: Some("npm ci --prefix translators/external/node".to_owned()),
        },
        config(),
    ));
    let translator = ExternalTranslator::new("missing", missing);
    let reason = translator.unavailable().expect("unavailable");
    assert!(reason.contains("`schema-fidelity-no-such-runtime` is not installed"), "{reason}");
    assert!(reason.contains("install it with `npm ci --prefix translators/external/node`"), "{reason}");

    // Through the trials: every case of the table is reported as ignored, none fails.
    let loaded = Arc::new(Loaded {
        project: Project::at(root()),
        env: Env::default(),
        tables: vec![("missing".to_owned(), Some(Arc::new(table("missing", Some("[schema-fidelity-no-such-runtime, adapter.js]")))), Vec::new())],
        cases: vec![Arc::new(case("one", None)), Arc::new(case("two", None))],
        corpus_errors: Vec::new(),
        records: Default::default(),
    });
    let list = trials::build(&loaded, &session::resolver(&loaded, &config()));
    // The nested run writes to a log file, not to stdout: its closing `test result:` line would
    // otherwise stand in `cargo test`'s output among the real ones, where CI parsers read them.
    let log = std::env::temp_dir().join(format!("schema-fidelity-external-{}.log", std::process::id()));
    let args = Arguments {
        test_threads: Some(1),
        filter: Some("missing::corpus/".to_owned()),
        logfile: Some(log.display().to_string()),
        ..Arguments::default()
    };
    let conclusion = libtest_mimic::run(&args, list);
    let printed = std::fs::read_to_string(&log).expect("the nested run's log");
    let _ = std::fs::remove_file(&log);
    assert_eq!((conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored), (0, 0, 2), "{printed}");
    let skipped = printed.lines().filter(|l| l.contains(" ... ignored (") && l.contains("`schema-fidelity-no-such-runtime` is not installed")).count();
    assert_eq!(skipped, 2, "each trial is reported ignored with the reason:\n{printed}");
}

/// The closing summary asks only the translators that had a trial in the run whether they are
/// unavailable: asking starts an adapter, and a run filtered to one built-in translator started
/// all fourteen external ones (17 s of a one-trial run).
#[test]
fn the_closing_summary_asks_only_the_translators_that_ran() {
    let loaded = Loaded {
        project: Project::at(root()),
        env: Env::default(),
        tables: vec![
            ("identity".to_owned(), Some(Arc::new(table("identity", None))), Vec::new()),
            ("missing".to_owned(), Some(Arc::new(table("missing", Some("[schema-fidelity-no-such-runtime, adapter.js]")))), Vec::new()),
        ],
        cases: Vec::new(),
        corpus_errors: Vec::new(),
        records: Default::default(),
    };
    let resolver = session::resolver(&loaded, &config());
    assert_eq!(trials::closing_summary(&loaded, &resolver, &|name| name == "identity"), None);
    let all = trials::closing_summary(&loaded, &resolver, &|_| true).expect("a summary naming the unavailable translator");
    assert!(all.contains("missing") && all.contains("not run: "), "{all}");
}

#[test]
fn an_adapter_whose_package_is_missing_says_so_in_the_handshake() {
    let translator = ExternalTranslator::new("faulty", adapter("faulty.py", &["--unavailable"], config()));
    let reason = translator.unavailable().expect("unavailable");
    assert!(reason.contains("the package `faulty-translator` is not installed"), "{reason}");
    assert!(reason.contains("pip install faulty-translator==0.0.1"), "{reason}");
}

#[test]
fn an_adapter_that_cannot_start_is_given_up_on_after_three_attempts() {
    let translator = ExternalTranslator::new("faulty", adapter("faulty.py", &["--die-at-start"], config()));
    assert_eq!(translator.unavailable(), None, "a start that faults is a failure, not a skip");
    let messages: Vec<String> = (0..5)
        .map(|i| match translator.translate(&case(&format!("c{i}"), None).schema) {
            Outcome::Faulted(f) => f.message,
            other => panic!("{other:?}"),
        })
        .collect();
    // The probe above was the first start; two more are tried, then no more.
    for m in &messages[..2] {
        assert!(m.contains("the handshake failed: the adapter exited") && m.contains("missing configuration"), "{m}");
    }
    for m in &messages[2..] {
        assert!(m.contains("gave up after 3 failed starts"), "{m}");
    }
}

#[test]
fn a_translator_the_adapter_does_not_serve_faults() {
    let translator = ExternalTranslator::new("other", adapter("faulty.py", &[], config()));
    let Outcome::Faulted(fault) = translator.translate(&json!({"type": "object"})) else { panic!("faults") };
    assert!(fault.message.contains("does not serve translator `other`; it serves: faulty"), "{}", fault.message);
}

#[test]
fn unknown_members_pass_unless_validation_is_strict() {
    let lenient = ExternalTranslator::new("faulty", adapter("faulty.py", &["--chatty"], config()));
    assert!(matches!(lenient.translate(&json!({"type": "object"})), Outcome::Projected(_)));
    let strict = ExternalTranslator::new("faulty", adapter("faulty.py", &["--chatty"], Config { strict: true, ..config() }));
    let Outcome::Faulted(fault) = strict.translate(&json!({"type": "object"})) else { panic!("strict rejects unknown members") };
    assert!(fault.message.contains("elapsed_ms"), "{}", fault.message);
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn the_identity_adapter_passes_the_own_corpus_like_the_builtin() {
    let loaded = crate::shared::loaded();
    let table = table("external-identity", None);
    let translator = ExternalTranslator::new("external-identity", adapter("identity.py", &[], config()));
    let own: Vec<_> = loaded.cases.iter().filter(|c| c.id.starts_with("corpus/")).collect();
    assert!(!own.is_empty());
    for case in own {
        let verdict = oracle::check(&table, &translator, case, &loaded.env);
        assert!(matches!(verdict, Verdict::Pass(_)), "{}: {verdict:?}", case.id);
    }
    let started = translator.adapter().started().expect("started once for the whole corpus");
    assert_eq!(started.translators, ["external-identity"]);
}

// ---- process trees -------------------------------------------------------------------------------

/// Whether `pid` is a live process: present in `/proc` and not a zombie. (A killed grandchild is
/// adopted by init, which reaps it; where init does not reap, a zombie is dead all the same.)
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

/// The live processes of process group `pgid`.
fn group_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the command: state, ppid, pgrp.
        if fields.first() != Some(&"Z") && fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid) {
            out.push(pid);
        }
    }
    out
}

/// Wait up to `limit` for `done`.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// The adapter that starts a `sleep` beside itself, writing both pids to `pids`.
fn grandparent(pids: &Path, config: Config) -> Arc<Adapter> {
    let command = vec!["sh".to_owned(), "harness/tests/fixtures/adapters/with-grandchild.sh".to_owned(), pids.display().to_string()];
    Arc::new(Adapter::new(AdapterSpec { command, cwd: root(), install: None }, config))
}

/// The adapter's and its grandchild's pid, once it has written them.
fn read_pids(path: &Path) -> (u32, u32) {
    assert!(eventually(Duration::from_secs(20), || path.exists()), "the adapter wrote {}", path.display());
    let text = std::fs::read_to_string(path).expect("pids");
    let mut it = text.split_whitespace().map(|p| p.parse::<u32>().expect("a pid"));
    (it.next().expect("adapter pid"), it.next().expect("grandchild pid"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schema-fidelity-external-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    // The tables written here name their targets: the project's, copied (a linked targets/ is
    // refused, as a way out of the project).
    std::fs::create_dir_all(dir.join("targets")).expect("targets dir");
    for entry in std::fs::read_dir(root().join("targets")).expect("targets").flatten() {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::copy(entry.path(), dir.join("targets").join(entry.file_name())).expect("copy target");
        }
    }
    dir
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn no_process_of_the_adapter_tree_outlives_it_on_any_exit_path() {
    let dir = scratch("tree");
    // Each path: what is done to the adapter after it served one case.
    let paths: &[(&str, Option<&str>)] = &[("dropped after success", None), ("crashed", Some("crash")), ("hung", Some("hang")), ("exited", Some("exit"))];
    for (i, (path, fault)) in paths.iter().enumerate() {
        let pids = dir.join(format!("pids-{i}"));
        let translator = ExternalTranslator::new("faulty", grandparent(&pids, config()));
        assert!(matches!(translator.translate(&case("ok", None).schema), Outcome::Projected(_)), "{path}");
        let (adapter, grandchild) = read_pids(&pids);
        assert_eq!(group_members(adapter).len(), 3, "{path}: the adapter, its sleep and the watcher share a group: {:?}", group_members(adapter));
        match fault {
            Some(fault) => assert!(matches!(translator.translate(&case(path, Some(fault)).schema), Outcome::Faulted(_)), "{path}"),
            None => drop(translator),
        }
        assert!(eventually(Duration::from_secs(5), || group_members(adapter).is_empty()), "{path}: left behind: {:?}", group_members(adapter));
        assert!(!alive(adapter) && !alive(grandchild), "{path}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_harness_that_is_killed_takes_the_adapter_tree_with_it() {
    // The harness here is the CLI, killed (SIGKILL: no destructor runs) while the adapter hangs.
    let dir = scratch("killed");
    std::fs::create_dir_all(dir.join("dispositions")).expect("dir");
    std::fs::create_dir_all(dir.join("corpus")).expect("dir");
    let pids = dir.join("pids");
    let table = std::fs::read_to_string(root().join("dispositions/identity.yaml")).expect("identity table").replacen("translator: identity", "translator: faulty", 1)
        + &format!("run: [sh, {}, {}]\n", root().join("harness/tests/fixtures/adapters/with-grandchild.sh").display(), pids.display());
    std::fs::write(dir.join("dispositions/faulty.yaml"), table).expect("table");
    std::fs::write(dir.join("tool.json"), r#"{"type": "object", "x-fault": "hang"}"#).expect("schema");
    let mut cli = std::process::Command::new(env!("CARGO_BIN_EXE_schema-fidelity"))
        .args(["check", "tool.json"])
        .current_dir(&dir)
        .env("SCHEMA_FIDELITY_ADAPTER_TIMEOUT_MS", "600000")
        .env("SCHEMA_FIDELITY_JSTS", dir.join("no-suite"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the CLI starts");
    let (adapter, grandchild) = read_pids(&pids);
    assert!(eventually(Duration::from_secs(10), || group_members(adapter).len() == 3), "{:?}", group_members(adapter));
    cli.kill().expect("kill the CLI");
    let _ = cli.wait();
    assert!(eventually(Duration::from_secs(10), || group_members(adapter).is_empty()), "left behind: {:?}", group_members(adapter));
    assert!(!alive(adapter) && !alive(grandchild));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A translator that hangs on one kind of schema only (one keyword it loops on) costs those cases
/// their timeout, and answers every other: before, two hangs in a row gave the adapter up, and
/// every case after them failed.
#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn a_hang_that_is_one_schemas_alone_costs_only_that_case() {
    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    for i in 0..4 {
        let Outcome::Faulted(f) = faulty.translate(&case(&format!("hang-{i}"), Some("hang")).schema) else { panic!("hang {i} faults") };
        assert!(f.message.contains("no answer to request") && f.message.contains("the adapter hangs"), "{}", f.message);
        assert!(f.message.contains("a new one answered a probe and serves the next case"), "{}", f.message);
    }
    assert!(matches!(faulty.translate(&case("ok-after", None).schema), Outcome::Projected(_)), "the cases it answers are still answered");
}

/// An adapter whose new process does not answer a trivial schema either is given up on for the
/// run: the cases after it fault at once instead of each waiting out the timeout.
#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn an_adapter_that_does_not_answer_the_probe_either_is_given_up() {
    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &["--hang-always"], config()));
    let Outcome::Faulted(first) = faulty.translate(&case("one", None).schema) else { panic!("a hang faults") };
    assert!(first.message.contains("given up on for this run: a new one did not answer a probe (`{\"type\":\"object\"}`) either"), "{}", first.message);
    for i in 0..3 {
        let started = std::time::Instant::now();
        let Outcome::Faulted(f) = faulty.translate(&case(&format!("after-{i}"), None).schema) else { panic!("given up") };
        assert!(f.message.contains("gave up for this run after a request and a probe went unanswered within 1000 ms"), "{}", f.message);
        assert!(started.elapsed() < Duration::from_millis(500), "not waited for again: {:?}", started.elapsed());
    }
}

#[test]
fn an_adapters_escape_sequences_are_shown_not_sent() {
    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    let Outcome::Faulted(fault) = faulty.translate(&case("escapes", Some("escapes")).schema) else { panic!("a crash faults") };
    assert!(fault.message.contains("faulty: \\x1b[2J\\x1b]0;pwned\\x07 cleared the screen"), "{}", fault.message);
    assert!(!fault.message.chars().any(|c| c.is_control() && c != '\n'), "{:?}", fault.message);
}

/// A table whose `properties` row says the translator throws on it (a `crash:` mark matching
/// `text`), or a plain narrowing mark there when `text` is `None`.
fn table_with_crash_mark(text: Option<&str>) -> Table {
    let identity = std::fs::read_to_string(root().join("dispositions/identity.yaml")).expect("identity table");
    let crash = text.map_or_else(String::new, |t| format!(", crash: \"{t}\""));
    let row = format!("properties: {{ disposition: preserved, known_violation: {{ issue: \"owner/repo#1\", direction: narrowing{crash}, witness: 'faults' }} }}");
    let text = identity.replacen("translator: identity", "translator: faulty", 1);
    let (before, after) = text.split_once("  properties:").expect("identity has a properties row");
    let rest = after.split_once('\n').map_or("", |(_, rest)| rest);
    let text = format!("{before}  {row}\n{rest}");
    let (table, errors) = table::parse(&text, Path::new("faulty.yaml"), &root().join("dispositions"));
    assert!(errors.is_empty(), "{errors:?}");
    table.expect("table parses")
}

#[test]
fn a_translator_that_throws_is_a_crash_not_a_fault_and_only_a_crash_mark_covers_it() {
    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    let env = Env::default();
    let thrown = case("translator-error", Some("error"));

    // No mark: the trial fails as a crash, with the exception, and the adapter keeps serving.
    let pid = {
        assert!(matches!(faulty.translate(&case("warm-up", None).schema), Outcome::Projected(_)));
        faulty.adapter().pid()
    };
    let Verdict::Fail(failure) = oracle::check(&table("faulty", None), &faulty, &thrown, &env) else { panic!("a crash fails") };
    let FailureKind::Crashed(message) = &failure.kind else { panic!("expected a crash, got {:?}", failure.kind) };
    assert_eq!(message, "TypeError: cannot read properties of undefined");
    assert!(failure.message.contains("threw on this schema (a crash, not a refusal)"), "{}", failure.message);
    assert!(failure.message.contains("threw on request"), "the detail says which request: {}", failure.message);
    assert_eq!(faulty.adapter().pid(), pid, "a crash is an answer: the adapter was not restarted");

    // A `crash:` mark on a keyword present whose text the message contains: an expected failure.
    match oracle::check(&table_with_crash_mark(Some("TypeError")), &faulty, &thrown, &env) {
        Verdict::ExpectedFailure { known, failure, .. } => {
            assert!(matches!(failure.kind, FailureKind::Crashed(_)));
            assert_eq!(known.len(), 1);
            assert!(known[0].contains("properties"), "{known:?}");
        }
        other => panic!("a matching crash mark covers the crash: {other:?}"),
    }
    // A crash mark whose text the message does not contain, and a plain narrowing mark, do not.
    for table in [table_with_crash_mark(Some("AttributeError")), table_with_crash_mark(None)] {
        let verdict = oracle::check(&table, &faulty, &thrown, &env);
        assert!(matches!(&verdict, Verdict::Fail(f) if matches!(f.kind, FailureKind::Crashed(_))), "{verdict:?}");
    }
    // And a crash mark explains no deviation: on a case the translator answers, it is not credited.
    let verdict = oracle::check(&table_with_crash_mark(Some("TypeError")), &faulty, &case("answered", None), &env);
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
}

#[test]
fn a_crash_mark_must_be_a_narrowing_with_a_text() {
    let identity = std::fs::read_to_string(root().join("dispositions/identity.yaml")).expect("identity table");
    for (mark, expected) in [
        ("{ issue: \"owner/repo#1\", direction: widening, crash: \"TypeError\" }", "has `direction: narrowing`"),
        ("{ issue: \"owner/repo#1\", direction: narrowing, crash: \" \" }", "is empty or a TODO"),
    ] {
        let text = identity.replacen("  const: { disposition: preserved }", &format!("  const: {{ disposition: preserved, known_violation: {mark} }}"), 1);
        assert_ne!(text, identity, "the identity table has a plain const row");
        let (_, errors) = table::parse(&text, Path::new("identity.yaml"), &root().join("dispositions"));
        assert!(errors.iter().any(|e| e.to_string().contains(expected)), "{mark}: {errors:?}");
    }
}

/// The identity table aimed at `target` (and `alternate`, when given).
fn identity_aimed_at(target: &str, alternate: Option<&str>) -> (Option<Table>, Vec<diagnostic::TableError>) {
    let identity = std::fs::read_to_string(root().join("dispositions/identity.yaml")).expect("identity table");
    let mut aimed = format!("target: {target}\n");
    if let Some(alternate) = alternate {
        aimed.push_str(&format!("alternate_target: {alternate}\n"));
    }
    let text = identity.replacen("target: json-schema\n", &aimed, 1);
    table::parse(&text, Path::new("identity.yaml"), &root().join("dispositions"))
}

#[test]
fn a_projection_in_the_alternate_targets_dialect_is_held_to_that_target() {
    // The identity translator answers `json-schema`. Aimed at the proto surface alone, that is the
    // wrong dialect; with Gemini's parametersJsonSchema as the alternate target, it is judged there.
    let identity = schema_fidelity_translators::builtin::by_name("identity").expect("identity is built in");
    let env = Env::default();
    let plain = case("plain", None);
    let (proto_only, errors) = identity_aimed_at("gemini-proto", None);
    assert!(errors.is_empty(), "{errors:?}");
    let verdict = oracle::check(&proto_only.expect("parses"), identity.as_ref(), &plain, &env);
    assert!(matches!(&verdict, Verdict::Fail(f) if f.kind == FailureKind::WrongDialect), "{verdict:?}");

    let (both, errors) = identity_aimed_at("gemini-proto", Some("gemini-json-schema"));
    assert!(errors.is_empty(), "{errors:?}");
    let both = both.expect("parses");
    let verdict = oracle::check(&both, identity.as_ref(), &plain, &env);
    assert!(matches!(verdict, Verdict::Pass(_)), "judged under gemini-json-schema, where it is exact: {verdict:?}");
    // ... and held to that target's grammar: `pattern` is outside Gemini's JSON Schema subset.
    let mut patterned = case("patterned", None);
    patterned.schema["properties"]["s"] = json!({"type": "string", "pattern": "^a"});
    let verdict = oracle::check(&both, identity.as_ref(), &patterned, &env);
    let Verdict::Fail(failure) = verdict else { panic!("the alternate target's grammar applies: {verdict:?}") };
    assert_eq!(failure.kind, FailureKind::Grammar);
    assert!(failure.message.contains("target `gemini-json-schema`"), "{}", failure.message);

    // An alternate target in the target's own dialect could not be told apart: the lint says so.
    let (_, errors) = identity_aimed_at("gemini-json-schema", Some("json-schema"));
    assert!(errors.iter().any(|e| e.message.contains("speaks the dialect of `target:`")), "{errors:?}");
}

/// A translator that refuses every schema citing `minimum` at `/properties/n`.
struct RefusesMinimum;

impl Translator for RefusesMinimum {
    fn name(&self) -> &str {
        "refuses-minimum"
    }
    fn translate(&self, _: &Value) -> Outcome {
        Outcome::Refused(schema_fidelity_translators::Refusal {
            cites: schema_fidelity_translators::Cites::Keyword { keyword: "minimum".to_owned(), pointer: "/properties/n".to_owned() },
            message: "minimum is not supported beside a not".to_owned(),
        })
    }
}

#[test]
fn a_refusal_citing_a_row_that_does_not_refuse_is_covered_only_by_a_narrowing_mark_there() {
    // `not` is refused by the table, so a refusal is due; the translator cites `minimum` instead.
    let identity = std::fs::read_to_string(root().join("dispositions/identity.yaml")).expect("identity table");
    let refusing = identity.replacen("  not: { disposition: preserved }", "  not: { disposition: refused }", 1);
    let marked = refusing.replacen(
        "  minimum: { disposition: preserved }",
        "  minimum: { disposition: preserved, known_violation: { issue: \"owner/repo#2\", direction: narrowing, witness: 'refuses minimum beside a not' } }",
        1,
    );
    let parse = |text: &str| {
        let (table, errors) = table::parse(text, Path::new("identity.yaml"), &root().join("dispositions"));
        assert!(errors.is_empty(), "{errors:?}");
        table.expect("parses")
    };
    let mut c = case("wrong-citation", None);
    c.schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}, "s": {"not": {"type": "string"}}}});
    c.instances.clear();
    let env = Env::default();
    let verdict = oracle::check(&parse(&refusing), &RefusesMinimum, &c, &env);
    assert!(matches!(&verdict, Verdict::Fail(f) if matches!(f.kind, FailureKind::RefusalCitesWrongRow(_))), "{verdict:?}");
    match oracle::check(&parse(&marked), &RefusesMinimum, &c, &env) {
        Verdict::ExpectedFailure { known, failure, .. } => {
            assert!(matches!(failure.kind, FailureKind::RefusalCitesWrongRow(_)));
            assert!(known.iter().any(|k| k.contains("minimum")), "{known:?}");
        }
        other => panic!("the mark on the cited row covers it: {other:?}"),
    }
}

#[test]
fn a_row_may_carry_a_deviation_mark_and_a_crash_mark_each_credited_under_its_own_id() {
    let identity = std::fs::read_to_string(root().join("dispositions/identity.yaml")).expect("identity table");
    let marks = "[{ issue: \"owner/repo#1\", direction: widening, witness: 'w' }, { issue: \"owner/repo#2\", direction: narrowing, crash: \"TypeError\", witness: 'c' }]";
    let text = identity.replacen("translator: identity", "translator: faulty", 1).replacen(
        "  properties: { disposition: preserved }",
        &format!("  properties: {{ disposition: preserved, known_violation: {marks} }}"),
        1,
    );
    let (table, errors) = table::parse(&text, Path::new("faulty.yaml"), &root().join("dispositions"));
    assert!(errors.is_empty(), "{errors:?}");
    let table = table.expect("parses");
    let row = table.rows().into_iter().find(|r| r.id.keyword == "properties").expect("the row");
    assert_eq!(row.mark_ids().len(), 2);
    assert!(row.mark_ids()[1].ends_with("(crash: TypeError)"), "{:?}", row.mark_ids());

    let faulty = ExternalTranslator::new("faulty", adapter("faulty.py", &[], config()));
    match oracle::check(&table, &faulty, &case("translator-error", Some("error")), &Env::default()) {
        Verdict::ExpectedFailure { known, .. } => assert_eq!(known, vec![row.mark_ids()[1].clone()], "the crash mark, not the widening one"),
        other => panic!("the crash mark covers the crash: {other:?}"),
    }

    // Two marks of one class on a row are one too many.
    let twice = identity.replacen(
        "  properties: { disposition: preserved }",
        "  properties: { disposition: preserved, known_violation: [{ issue: \"o/r#1\", direction: widening }, { issue: \"o/r#2\", direction: widening }] }",
        1,
    );
    let (_, errors) = table::parse(&twice, Path::new("identity.yaml"), &root().join("dispositions"));
    assert!(errors.iter().any(|e| e.message.contains("two `known_violation` marks of one class (widening)")), "{errors:?}");
}

// ---- the entry check -----------------------------------------------------------------------------

fn entry_fixture(flags: &[&str]) -> ExternalTranslator {
    let mut command = vec!["node".to_owned(), "harness/tests/fixtures/adapters/entry.mjs".to_owned()];
    command.extend(flags.iter().map(|f| (*f).to_owned()));
    let adapter = Arc::new(Adapter::new(AdapterSpec { command, cwd: root(), install: None }, config()));
    ExternalTranslator::new("stub-sdk", adapter)
}

fn own_schemas() -> Vec<(String, Value)> {
    let loaded = crate::shared::loaded();
    loaded.cases.iter().filter(|c| c.id.starts_with("corpus/")).map(|c| (c.id.clone(), c.schema.clone())).collect()
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn an_entry_that_sends_what_the_path_answers_passes_on_the_whole_own_corpus() {
    let schemas = own_schemas();
    let translator = entry_fixture(&[]);
    let checked = external::entry::check(&translator, schemas.iter().map(|(id, s)| (id.as_str(), s))).expect("the call sends what the conversion returns");
    assert_eq!(checked, schemas.len());
    assert_eq!(translator.adapter().started().expect("started").entries, ["stub-sdk"]);
    // A refusal by design is the same answer on both paths: the call never sends the request.
    let refused = json!({"type": "object", "x-refuse": true});
    let (Outcome::Refused(a), Some(Outcome::Refused(b))) = (translator.translate(&refused), translator.through_entry(&refused)) else { panic!("refused on both") };
    assert_eq!(a.cites, b.cites);
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn an_entry_that_sends_something_else_fails_naming_the_cases_and_both_answers() {
    let schemas = own_schemas();
    let translator = entry_fixture(&["--drift"]);
    let Err(error) = external::entry::check(&translator, schemas.iter().map(|(id, s)| (id.as_str(), s))) else { panic!("the drift is seen") };
    let external::entry::EntryError::Disagree { checked, disagreements } = &error else { panic!("{error}") };
    assert_eq!(*checked, schemas.len());
    // Exactly the schemas whose objects the call closes: those with `properties` not already closed.
    let closes = |s: &Value| s.to_string().contains("\"properties\"");
    assert!(!disagreements.is_empty() && disagreements.iter().all(|d| closes(&schemas.iter().find(|(id, _)| *id == d.case).expect("a case").1)));
    let message = error.to_string();
    assert!(message.contains("the entry is not the path the table names") && message.contains(&disagreements[0].case), "{message}");
    assert!(message.contains("through the path:") && message.contains("through the entry:") && message.contains("\"additionalProperties\":false"), "{message}");
}

#[test]
fn an_entry_that_throws_where_the_path_projects_fails_and_a_missing_entry_is_an_error() {
    let schema = json!({"type": "object", "not": {"required": ["a"]}});
    let translator = entry_fixture(&["--throws"]);
    let Err(error) = external::entry::check(&translator, [("corpus/x.yaml::not", &schema)]) else { panic!("the throw is seen") };
    assert!(error.to_string().contains("crashed: TypeError: the SDK cannot take `not`"), "{error}");
    let translator = entry_fixture(&["--no-entry"]);
    let Err(external::entry::EntryError::Fault { message, .. }) = external::entry::check(&translator, [("corpus/x.yaml::not", &schema)]) else { panic!("no entry") };
    assert!(message.contains("does not drive the entry of translator `stub-sdk`"), "{message}");
}
