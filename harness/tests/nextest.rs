//! nextest runs the trials `cargo test` runs, and fails where `cargo test` fails.
//!
//! nextest lists a test binary with `--list --format terse` and runs each test in its own process
//! as `BINARY --exact NAME --nocapture`, NAME being the line `--list` printed (for the trials,
//! `[kind] name`). These tests hold the contract binary to that:
//!
//! - *nextest-style* (no nextest needed): the contract binary, run the way nextest runs it against
//!   a copy of the project whose `identity` table is made wrong on purpose, fails the trial under
//!   both name forms; an `--exact` name that names no trial is an error, not a run of nothing; the
//!   one-trial selection builds every trial a full load builds, under the same unique name.
//! - *real nextest* (the long tier: ignored by `cargo test`, run by CI with `-- --ignored`; needs
//!   `cargo nextest`, skipped with the reason when it is absent, a failure when `CI` is set): `cargo nextest run`, reusing the build (`--binaries-metadata`,
//!   `--workspace-remap`), on the copy with the wrong table, split in two hash partitions: every
//!   trial runs exactly once and nextest fails exactly the trials the libtest run fails; and
//!   `cargo nextest list --partition hash:K/3` puts every trial in exactly one partition.
//!
//! The copy is the project tree without target directories, `.git`, `node_modules` and `.venv`;
//! the trials read it because `trials::workspace_root` takes `CARGO_MANIFEST_DIR` at run time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, OnceLock};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use schema_fidelity::external;
use schema_fidelity::project::Project;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::trials;
use serde_json::Value;

/// The nextest version CI installs (`.ci/run`).
const NEXTEST_INSTALL: &str = "cargo install --locked cargo-nextest --version 0.9.143";

/// The trial the wrong table must fail: it has `const` under `contains`.
const CASE: &str = "identity::corpus/keywords/arrays.yaml::contains-min-zero";
/// The row made wrong, and what it becomes.
const ROW: &str = "  const: { disposition: preserved }\n";
const WRONG_ROW: &str = "  const: { disposition: refused }\n";
/// The trials the real nextest run covers: the identity trials of `corpus/keywords/`.
const SUBSET: &str = "identity::corpus/keywords/";
const SUBSET_FILTER: &str = r"binary_id(schema-fidelity::contract) & test(/(^|\] )identity::corpus\/keywords\//)";

type Check = Result<(), Failed>;

fn main() {
    let args = Arguments::from_args();
    let tests = vec![
        Trial::test("nextest_style::a_wrong_table_fails_the_trial_under_both_name_forms", a_wrong_table_fails_the_trial),
        Trial::test("nextest_style::an_exact_name_that_names_no_trial_is_an_error", an_unknown_exact_name_is_an_error),
        Trial::test("nextest_style::the_one_trial_selection_builds_what_a_full_load_builds", the_exact_selection_is_complete),
        // The long tier (README, "Tests"): each drives cargo-nextest over the contract binary, ten
        // seconds apiece. CI runs them: `cargo test --test suite --test nextest -- --ignored`.
        Trial::ignorable_test("real_nextest::partitions_run_every_trial_once_and_fail_the_wrong_table", || {
            with_nextest(nextest_fails_the_wrong_table_across_partitions)
        })
        .with_ignored_flag(true),
        Trial::ignorable_test("real_nextest::list_partitions_cover_every_trial_exactly_once", || with_nextest(partitions_cover_every_trial)).with_ignored_flag(true),
    ];
    let conclusion = libtest_mimic::run(&args, tests);
    let _ = std::fs::remove_dir_all(metadata_dir());
    conclusion.exit();
}

/// Where the reused build's metadata is written for this process's nextest runs.
fn metadata_dir() -> PathBuf {
    std::env::temp_dir().join(format!("schema-fidelity-nextest-metadata-{}", std::process::id()))
}

// ---------------------------------------------------------------------------------------------
// The tests

fn a_wrong_table_fails_the_trial() -> Check {
    let bin = contract_binary()?;
    let copy = Copy::new("wrong-table")?;
    let listed = listed_name(&list(&bin, &copy.root)?, CASE)?;
    // Right table: the trial runs and passes, under the listed name (what nextest passes) and bare.
    for name in [listed.as_str(), CASE] {
        let out = run_exact(&bin, &copy.root, name)?;
        ensure(out.status.success() && stdout(&out).contains("1 passed; 0 failed"), || format!("`--exact '{name}'` on the right table:\n{}", both(&out)))?;
    }
    copy.make_identity_wrong()?;
    for name in [listed.as_str(), CASE] {
        let out = run_exact(&bin, &copy.root, name)?;
        let text = stdout(&out);
        ensure(!out.status.success(), || format!("`--exact '{name}'` exited 0 on a wrong table:\n{}", both(&out)))?;
        ensure(text.contains("0 passed; 1 failed"), || format!("`--exact '{name}'` did not run and fail one trial:\n{}", both(&out)))?;
        ensure(text.contains("dispositions/identity.yaml:") && text.contains("`const`: refused"), || {
            format!("the failure does not cite the wrong row:\n{}", both(&out))
        })?;
    }
    Ok(())
}

fn an_unknown_exact_name_is_an_error() -> Check {
    let bin = contract_binary()?;
    let root = trials::workspace_root();
    let typo = CASE.trim_end_matches('o');
    for name in [format!("[identity] {typo}"), typo.to_owned()] {
        let out = run_exact(&bin, &root, &name)?;
        let err = String::from_utf8_lossy(&out.stderr);
        ensure(!out.status.success(), || format!("`--exact '{name}'` names no trial but exited 0:\n{}", both(&out)))?;
        ensure(err.contains(&format!("`--exact '{name}'` names no trial")), || format!("the error does not name `{name}`:\n{}", both(&out)))?;
        ensure(err.contains(&format!("the nearest trial is `{CASE}`")), || format!("the error does not name the nearest trial:\n{}", both(&out)))?;
        ensure(!stdout(&out).contains("test result:"), || format!("a closing `test result:` line for a run of nothing:\n{}", both(&out)))?;
    }
    let out = run_exact(&bin, &root, "[nosuch] nosuch::lint")?;
    ensure(!out.status.success(), || format!("an unknown translator's trial name exited 0:\n{}", both(&out)))?;
    // `cargo test -- --exact NAME` passes NAME to every test binary: the name of another binary's
    // test runs nothing here, as in any libtest binary.
    let out = run_exact(&bin, &root, "a_wrong_table_fails_the_trial")?;
    ensure(out.status.success() && stdout(&out).contains("0 passed; 0 failed"), || {
        format!("another binary's test name must run nothing and pass:\n{}", both(&out))
    })
}

fn the_exact_selection_is_complete() -> Check {
    let args = |filter: &str| Arguments { filter: Some(filter.to_owned()), exact: true, ..Arguments::default() };
    ensure(Selection::from_args(&args("[identity] identity::lint")) == Selection::Exact("identity::lint".to_owned()), || "the kind is kept".to_owned())?;
    ensure(Selection::from_args(&args("identity::lint")) == Selection::Exact("identity::lint".to_owned()), || "the bare name".to_owned())?;
    ensure(Selection::from_args(&Arguments { filter: Some("identity::".to_owned()), ..Arguments::default() }) == Selection::All, || {
        "a substring filter loads everything".to_owned()
    })?;

    let root = trials::workspace_root();
    let names = trial_names(&root, &Selection::All);
    let unique: BTreeSet<&String> = names.iter().collect();
    ensure(unique.len() == names.len(), || {
        let mut seen = BTreeSet::new();
        let dup: Vec<_> = names.iter().filter(|n| !seen.insert(*n)).take(5).collect();
        format!("trial names are not unique (nextest and --exact need them to be): {dup:?}")
    })?;
    // Every lint and suite-skip trial, one case trial of every corpus file (of a translator taken
    // in turn), and the ratchet and entry trials of three translators: the selection for its name
    // builds it, once. A ratchet or entry selection loads the whole corpus by one rule whatever
    // the translator (`Selection::wants_file`), so three of each check that rule; all of them
    // would load the corpus a hundred times over.
    let reads_every_case = |n: &&String| n.split_once("::").is_some_and(|(_, rest)| rest == "ratchet" || rest == "entry");
    let mut sample: Vec<&String> =
        names.iter().filter(|n| n.split_once("::").is_none_or(|(_, rest)| !rest.contains('/')) && !reads_every_case(n)).collect();
    for kind in ["ratchet", "entry"] {
        let of_kind: Vec<&String> = names.iter().filter(|n| reads_every_case(n) && n.ends_with(kind)).collect();
        ensure(of_kind.len() >= 3, || format!("fewer than three `{kind}` trials: {of_kind:?}"))?;
        sample.extend([of_kind[0], of_kind[of_kind.len() / 2], of_kind[of_kind.len() - 1]]);
    }
    let mut by_file: BTreeMap<&str, Vec<&String>> = BTreeMap::new();
    for name in &names {
        if let Some((file, _)) = name.split_once("::").and_then(|(_, rest)| rest.split_once("::")) {
            by_file.entry(file).or_default().push(name);
        }
    }
    for (i, cases) in by_file.values().enumerate() {
        sample.push(cases[(i * 7919) % cases.len()]);
    }
    ensure(sample.len() > by_file.len() && by_file.len() > 10, || format!("too small a sample: {} names, {} files", sample.len(), by_file.len()))?;
    // Each a load of its own: spread over the cores this binary's three quick tests leave idle.
    use rayon::prelude::*;
    sample.par_iter().try_for_each(|name| {
        let built = trial_names(&root, &Selection::Exact((*name).clone()));
        let count = built.iter().filter(|b| b == name).count();
        ensure(count == 1, || format!("the selection for `{name}` built it {count} times (of {} trials)", built.len()))
    })?;
    Ok(())
}

fn nextest_fails_the_wrong_table_across_partitions(nextest: &Nextest) -> Check {
    let bin = contract_binary()?;
    let copy = Copy::new("nextest-run")?;
    copy.make_identity_wrong()?;
    let expected: BTreeSet<String> = list(&bin, &copy.root)?.into_iter().filter(|n| trials::bare_name(n).starts_with(SUBSET)).collect();
    ensure(expected.len() > 10, || format!("only {} trials under {SUBSET}", expected.len()))?;

    // What libtest says of the same trials on the same copy: the failures nextest must report.
    let out = Command::new(&bin)
        .args([SUBSET, "--format", "json", "--test-threads", "2"])
        .current_dir(copy.root.join("harness"))
        .env("CARGO_MANIFEST_DIR", copy.root.join("harness"))
        .envs(suite_env())
        .output()
        .map_err(|e| format!("running {}: {e}", bin.display()))?;
    let mut libtest_failed = BTreeSet::new();
    for line in stdout(&out).lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        if line["type"] == "test" && line["event"] == "failed" {
            libtest_failed.insert(line["name"].as_str().unwrap_or_default().to_owned());
        }
    }
    ensure(libtest_failed.contains(CASE), || format!("libtest does not fail {CASE} on the wrong table:\n{}", both(&out)))?;

    let mut ran: BTreeMap<String, usize> = BTreeMap::new();
    let mut nextest_failed = BTreeSet::new();
    for k in 1..=2 {
        let out = nextest
            .command("run", &copy.root)
            .args(["--no-fail-fast", "--retries", "0", "--no-tests", "pass", "--color", "never"])
            .args(["--status-level", "pass", "--final-status-level", "none"])
            .args(["--partition", &format!("hash:{k}/2"), "-E", SUBSET_FILTER])
            .output()
            .map_err(|e| format!("cargo nextest run: {e}"))?;
        let text = String::from_utf8_lossy(&out.stderr).into_owned() + &stdout(&out);
        let mut failed_here = false;
        for (status, name) in text.lines().filter_map(status_line) {
            *ran.entry(name.clone()).or_default() += 1;
            if status == "FAIL" {
                failed_here = true;
                nextest_failed.insert(trials::bare_name(&name).to_owned());
            }
        }
        ensure(out.status.success() != failed_here, || format!("partition {k}/2: exit status {} with failures {failed_here}:\n{text}", out.status))?;
    }
    let twice: Vec<_> = ran.iter().filter(|(_, n)| **n > 1).map(|(name, _)| name).collect();
    ensure(twice.is_empty(), || format!("trials run in both partitions: {twice:?}"))?;
    let ran: BTreeSet<String> = ran.into_keys().collect();
    ensure(ran == expected, || {
        let missing: Vec<_> = expected.difference(&ran).collect();
        let extra: Vec<_> = ran.difference(&expected).collect();
        format!("the partitions did not run the trials listed: missing {missing:?}, not listed {extra:?}")
    })?;
    ensure(nextest_failed == libtest_failed, || format!("nextest failed {nextest_failed:?}, libtest {libtest_failed:?}"))
}

fn partitions_cover_every_trial(nextest: &Nextest) -> Check {
    let root = trials::workspace_root();
    let all = list(&contract_binary()?, &root)?;
    let mut seen: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for k in 1..=3 {
        let out = nextest
            .command("list", &root)
            .args(["--message-format", "json", "-E", "binary_id(schema-fidelity::contract)", "--partition", &format!("hash:{k}/3")])
            .output()
            .map_err(|e| format!("cargo nextest list: {e}"))?;
        ensure(out.status.success(), || format!("cargo nextest list --partition hash:{k}/3:\n{}", both(&out)))?;
        let json: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("nextest list JSON: {e}"))?;
        let cases = json["rust-suites"]["schema-fidelity::contract"]["testcases"].as_object().ok_or("no contract suite in the nextest list")?;
        let mut matched = 0;
        for (name, case) in cases {
            seen.entry(name.clone()).or_default();
            if case["filter-match"]["status"] == "matches" {
                seen.get_mut(name).expect("entered").push(k);
                matched += 1;
            }
        }
        ensure(matched > 0, || format!("partition {k}/3 is empty"))?;
    }
    let listed: BTreeSet<&String> = all.iter().collect();
    let by_nextest: BTreeSet<&String> = seen.keys().collect();
    ensure(listed == by_nextest, || format!("nextest lists {} trials, the binary {}", by_nextest.len(), listed.len()))?;
    let wrong: Vec<_> = seen.iter().filter(|(_, parts)| parts.len() != 1).take(5).collect();
    ensure(wrong.is_empty(), || format!("trials not in exactly one partition: {wrong:?}"))
}

// ---------------------------------------------------------------------------------------------
// The contract binary, run the way nextest runs it

/// The contract test binary of this build, built if it is not (a no-op under `cargo test`, which
/// built it): `cargo test --no-run --test contract` in the target directory and profile this test
/// runs from, so the binary tested is never a stale one.
fn contract_binary() -> Result<PathBuf, Failed> {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let profile_dir = exe.parent().and_then(Path::parent).ok_or("no target directory above the test binary")?;
        let target_dir = profile_dir.parent().ok_or("no target directory above the test binary")?;
        let mut cmd = Command::new(cargo());
        cmd.current_dir(trials::workspace_root())
            .args(["test", "--no-run", "--offline", "-p", "schema-fidelity", "--test", "contract", "--message-format", "json-render-diagnostics"])
            .arg("--target-dir")
            .arg(target_dir);
        match profile_dir.file_name().and_then(|p| p.to_str()) {
            Some("debug") => {}
            Some("release") => {
                cmd.arg("--release");
            }
            Some(profile) => {
                cmd.args(["--profile", profile]);
            }
            None => {}
        }
        let out = cmd.output().map_err(|e| format!("cargo test --no-run: {e}"))?;
        if !out.status.success() {
            return Err(format!("cargo test --no-run --test contract failed:\n{}", both(&out)));
        }
        stdout(&out)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "contract" && m["executable"].is_string())
            .and_then(|m| m["executable"].as_str().map(PathBuf::from))
            .ok_or_else(|| "cargo named no contract executable".to_owned())
    })
    .clone()
    .map_err(Failed::from)
}

fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from(env!("CARGO")), PathBuf::from)
}

/// The trial names `--list --format terse` prints for the project at `root`, as nextest reads them.
fn list(bin: &Path, root: &Path) -> Result<Vec<String>, Failed> {
    let out = contract(bin, root).args(["--list", "--format", "terse"]).output().map_err(|e| format!("{}: {e}", bin.display()))?;
    ensure(out.status.success(), || format!("--list failed:\n{}", both(&out)))?;
    Ok(stdout(&out).lines().filter_map(|l| l.strip_suffix(": test")).map(str::to_owned).collect())
}

/// The name `--list` printed for the trial `bare`.
fn listed_name(names: &[String], bare: &str) -> Result<String, Failed> {
    names.iter().find(|n| trials::bare_name(n) == bare).cloned().ok_or_else(|| Failed::from(format!("`--list` has no trial {bare}")))
}

/// One trial as nextest runs it.
fn run_exact(bin: &Path, root: &Path, name: &str) -> Result<Output, Failed> {
    contract(bin, root).args(["--exact", name, "--nocapture"]).output().map_err(|e| Failed::from(format!("{}: {e}", bin.display())))
}

/// The contract binary for the project at `root`, in the environment nextest gives a test.
fn contract(bin: &Path, root: &Path) -> Command {
    let mut cmd = Command::new(bin);
    cmd.current_dir(root.join("harness"))
        .env("CARGO_MANIFEST_DIR", root.join("harness"))
        .env("NEXTEST", "1")
        .env("NEXTEST_EXECUTION_MODE", "process-per-test")
        .envs(suite_env());
    cmd
}

/// The names of the trials built for `selection`.
fn trial_names(root: &Path, selection: &Selection) -> Vec<String> {
    let loaded = Arc::new(session::load(Project::at(root), selection));
    trials::build(&loaded, &session::resolver(&loaded, &external::Config::default())).iter().map(|t| t.name().to_owned()).collect()
}

/// A copy reads the same JSON-Schema-Test-Suite as the project (it is looked for beside the
/// project, and the copy has none beside it).
fn suite_env() -> Vec<(&'static str, PathBuf)> {
    Project::at(trials::workspace_root()).suite.ok().map(|s| (schema_fidelity::project::SUITE_ENV, s.root)).into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// The copy

struct Copy {
    root: PathBuf,
}

impl Copy {
    fn new(tag: &str) -> Result<Self, Failed> {
        let source = trials::workspace_root();
        let root = std::env::temp_dir().join(format!("schema-fidelity-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let copy = Self { root };
        let walk = walkdir::WalkDir::new(&source).into_iter().filter_entry(|e| {
            let name = e.file_name().to_str().unwrap_or_default();
            // Target directories (cargo marks them with CACHEDIR.TAG, whatever their name).
            // Installed packages are skipped whether they are folders or links to them.
            !(matches!(name, "node_modules" | ".venv") || e.file_type().is_dir() && (matches!(name, "target" | ".git") || e.path().join("CACHEDIR.TAG").exists()))
        });
        for entry in walk {
            let entry = entry.map_err(|e| format!("copying the project: {e}"))?;
            let to = copy.root.join(entry.path().strip_prefix(&source).expect("under the source"));
            let done = if entry.file_type().is_dir() { std::fs::create_dir_all(&to) } else { std::fs::copy(entry.path(), &to).map(drop) };
            done.map_err(|e| format!("copying {} to {}: {e}", entry.path().display(), to.display()))?;
        }
        Ok(copy)
    }

    /// Flip a `preserved` row of the identity table to `refused`: every case using `const` must
    /// now fail, since identity projects it unchanged.
    fn make_identity_wrong(&self) -> Check {
        let path = self.root.join("dispositions/identity.yaml");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        ensure(text.contains(ROW), || format!("{} has no row `{}` to make wrong", path.display(), ROW.trim()))?;
        std::fs::write(&path, text.replacen(ROW, WRONG_ROW, 1)).map_err(|e| Failed::from(format!("{}: {e}", path.display())))
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

// ---------------------------------------------------------------------------------------------
// Real nextest

/// `cargo nextest` reusing this build: the binaries and cargo metadata are written once, and every
/// run or list reads them (with `--workspace-remap` for a copy), so nothing is rebuilt.
struct Nextest {
    binaries: PathBuf,
    metadata: PathBuf,
}

impl Nextest {
    /// `cargo nextest SUBCOMMAND` (`run`, `list`) in `workspace`, on the build of this project.
    fn command(&self, subcommand: &str, workspace: &Path) -> Command {
        let mut cmd = Command::new(cargo());
        cmd.args(["nextest", subcommand]);
        strip_nextest_env(&mut cmd);
        cmd.current_dir(workspace)
            .envs(suite_env())
            .arg("--binaries-metadata")
            .arg(&self.binaries)
            .arg("--cargo-metadata")
            .arg(&self.metadata)
            .arg("--workspace-remap")
            .arg(workspace);
        cmd
    }
}

/// Run `check` with nextest when it is installed. Without it the test is reported as ignored with
/// the reason and the install command, never as passed; on CI (`CI` set) it fails, since CI
/// installs nextest.
fn with_nextest(check: fn(&Nextest) -> Check) -> Result<Completion, Failed> {
    static NEXTEST: OnceLock<Result<Result<Nextest, String>, String>> = OnceLock::new();
    let prepared = NEXTEST.get_or_init(|| {
        let mut version = Command::new(cargo());
        strip_nextest_env(&mut version);
        match version.args(["nextest", "--version"]).output() {
            Ok(out) if out.status.success() => Ok(prepare_nextest()),
            Ok(out) => Err(format!("`cargo nextest --version` failed: {}", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or_default().trim())),
            Err(e) => Err(format!("cannot run cargo: {e}")),
        }
    });
    match prepared {
        Ok(Ok(nextest)) => check(nextest).map(|()| Completion::Completed),
        Ok(Err(setup)) => Err(Failed::from(setup.clone())),
        Err(absent) if std::env::var_os("CI").is_some() => Err(Failed::from(format!("CI must run this with nextest: {absent}; install it with `{NEXTEST_INSTALL}`"))),
        Err(absent) => Ok(Completion::ignored_with(format!("skipped, cargo-nextest is not installed ({absent}); install it with `{NEXTEST_INSTALL}`"))),
    }
}

fn prepare_nextest() -> Result<Nextest, String> {
    let contract = contract_binary().map_err(|e| e.message().unwrap_or("the contract binary").to_owned())?;
    let target_dir = contract.parent().and_then(Path::parent).and_then(Path::parent).ok_or("no target directory")?;
    let dir = metadata_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let nextest = Nextest { binaries: dir.join("binaries.json"), metadata: dir.join("cargo-metadata.json") };
    let root = trials::workspace_root();
    let profile = contract.parent().and_then(Path::parent).and_then(Path::file_name).and_then(|p| p.to_str()).unwrap_or("debug");
    let mut list = Command::new(cargo());
    strip_nextest_env(&mut list);
    list.current_dir(&root)
        .args(["nextest", "list", "--list-type", "binaries-only", "--message-format", "json", "--offline", "-p", "schema-fidelity", "--test", "contract"])
        .arg("--target-dir")
        .arg(target_dir);
    if profile != "debug" {
        list.args(["--cargo-profile", profile]);
    }
    let out = list.output().map_err(|e| format!("cargo nextest list: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo nextest list --list-type binaries-only failed:\n{}", both(&out)));
    }
    std::fs::write(&nextest.binaries, &out.stdout).map_err(|e| e.to_string())?;
    let out = Command::new(cargo())
        .current_dir(&root)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata failed:\n{}", both(&out)));
    }
    std::fs::write(&nextest.metadata, &out.stdout).map_err(|e| e.to_string())?;
    Ok(nextest)
}

/// A nextest run inside a test that nextest runs must not inherit the outer run's settings.
fn strip_nextest_env(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        if key.to_str().is_some_and(|k| k.starts_with("NEXTEST")) {
            cmd.env_remove(key);
        }
    }
}

/// `PASS [ 0.02s] (1/56) schema-fidelity::contract [identity] identity::…` → (`PASS`, name).
fn status_line(line: &str) -> Option<(String, String)> {
    let line = line.trim_start();
    let (status, rest) = line.split_once(' ')?;
    // Not SKIP: that is a trial filtered out of this run (another partition's), not one run.
    if !matches!(status, "PASS" | "FAIL" | "SIGSEGV" | "SIGABRT" | "SIGKILL" | "TIMEOUT" | "LEAK") {
        return None;
    }
    let (_, name) = rest.split_once(" schema-fidelity::contract ")?;
    Some((status.to_owned(), name.trim_end().to_owned()))
}

// ---------------------------------------------------------------------------------------------

fn ensure(condition: bool, message: impl FnOnce() -> String) -> Check {
    if condition { Ok(()) } else { Err(Failed::from(message())) }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Exit status, stdout and stderr, for a failure message (long outputs cut in the middle).
fn both(out: &Output) -> String {
    let cut = |s: String| {
        let chars: Vec<char> = s.chars().collect();
        if chars.len() > 6000 {
            format!("{}\n[...]\n{}", chars[..3000].iter().collect::<String>(), chars[chars.len() - 3000..].iter().collect::<String>())
        } else {
            s
        }
    };
    format!("{}\n--- stdout\n{}\n--- stderr\n{}", out.status, cut(stdout(out)), cut(String::from_utf8_lossy(&out.stderr).into_owned()))
}
