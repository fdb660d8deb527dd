//! Setting up an external translator's environment on first use (`harness/src/external/setup.rs`),
//! driven through the `schema-fidelity` binary in throwaway projects.
//!
//! Each project has two external translators whose adapter imports `sfmarker`, a package that
//! exists only as a wheel in the project (`adapters/wheels/`), installed with `--no-index`: no
//! registry is asked. Without it the adapter answers the handshake `unavailable`, so a translator
//! that runs proves its environment was set up.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_schema-fidelity");
/// Where the environment goes, and what the run's messages call it.
const VENV: &str = "adapters/.venv";
const LOG: &str = "target/schema-fidelity/setup/adapters-python-venv.log";
const REQUIREMENTS: &str = "--no-index\n--find-links wheels\nsfmarker==1.0\n";

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

    fn from(output: Output) -> Self {
        let Output { status, stdout, stderr } = output;
        Self { code: status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&stdout).into_owned(), stderr: String::from_utf8_lossy(&stderr).into_owned() }
    }
}

/// A throwaway project: the identity table and one corpus file from this repository, and two
/// external translators, `ext-a` and `ext-b` (two adapter processes), in one environment.
struct Project(PathBuf);

impl Project {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-setup-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&repo().join("targets"), &dir.join("targets"));
        std::fs::create_dir_all(dir.join("corpus/keywords")).expect("corpus dir");
        std::fs::copy(repo().join("corpus/keywords/annotations.yaml"), dir.join("corpus/keywords/annotations.yaml")).expect("copy a corpus file");
        std::fs::create_dir_all(dir.join("dispositions")).expect("dispositions dir");
        std::fs::create_dir_all(dir.join("adapters/wheels")).expect("adapters dir");
        let identity = std::fs::read_to_string(repo().join("dispositions/identity.yaml")).expect("identity table");
        let identity: String = identity.lines().filter(|l| !l.starts_with("models:")).map(|l| format!("{l}\n")).collect();
        for name in ["ext-a", "ext-b"] {
            let table = identity.replacen("translator: identity", &format!("translator: {name}"), 1)
                + &format!(
                    "run: [{VENV}/bin/python, adapters/ident.py, {name}]\nenvironment: {{ kind: python-venv, dir: adapters }}\npackage: \"sfmarker 1.0 (a local wheel)\"\nentry:\n  call: \"ident(S)\"\n  path: \"unchanged\"\n  reads: \"the answer\"\n"
                );
            std::fs::write(dir.join(format!("dispositions/{name}.yaml")), table).expect("write table");
        }
        std::fs::copy(repo().join("translators/external/python/sf_adapter.py"), dir.join("adapters/sf_adapter.py")).expect("copy the protocol helper");
        std::fs::write(
            dir.join("adapters/ident.py"),
            "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nfrom sf_adapter import serve\n\
             try:\n    import sfmarker\n    missing = None\nexcept ImportError as e:\n    missing = f'the package `sfmarker` is not installed ({e})'\n\
             name = sys.argv[1]\nserve('ident', '1.0.0', {name: lambda schema: {'schema': schema, 'dialect': 'json-schema'}}, unavailable=missing)\n",
        )
        .expect("write the adapter");
        std::fs::write(dir.join("adapters/requirements.txt"), REQUIREMENTS).expect("write requirements");
        wheel(&dir.join("adapters/wheels"));
        Self(dir)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(BIN);
        // No suite: runs stay small and do not depend on the machine.
        cmd.args(args).current_dir(&self.0).env("SCHEMA_FIDELITY_JSTS", self.0.join("no-suite-here")).env_remove("SCHEMA_FIDELITY_NO_INSTALL").envs(env.iter().copied());
        cmd
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        Run::from(self.command(args, env).output().expect("the binary runs"))
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy file");
        }
    }
}

/// `sfmarker-1.0-py3-none-any.whl` in `dir`: a package with one module, built by hand (a wheel is
/// a zip with a RECORD), so that no build backend is fetched either.
fn wheel(dir: &Path) {
    let script = r#"
import base64, hashlib, sys, zipfile
files = {
    "sfmarker/__init__.py": "VERSION = '1.0'\n",
    "sfmarker-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: sfmarker\nVersion: 1.0\n",
    "sfmarker-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: schema-fidelity-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
def digest(text):
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
record = "".join(f"{name},sha256={digest(text)},{len(text.encode())}\n" for name, text in files.items())
record += "sfmarker-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as whl:
    for name, text in files.items():
        whl.writestr(name, text)
    whl.writestr("sfmarker-1.0.dist-info/RECORD", record)
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(dir.join("sfmarker-1.0-py3-none-any.whl")).output().expect("python3 runs");
    assert!(out.status.success(), "the wheel is built: {}", String::from_utf8_lossy(&out.stderr));
}

/// How many times the run set the environment up.
fn setups(run: &Run) -> usize {
    run.stderr.matches(&format!("set up {VENV} in ")).count()
}

fn assert_both_ran(run: &Run) {
    assert_eq!(run.code, 0, "{}", run.all());
    for name in ["ext-a", "ext-b"] {
        let row = run.stdout.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("a row for {name}: {}", run.all()));
        assert!(!row.contains("unavailable"), "{row}\n{}", run.all());
    }
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn first_use_sets_the_environment_up_once_and_later_runs_reuse_it() {
    let p = Project::new("once");
    let first = p.run(&["run"], &[]);
    assert_both_ran(&first);
    // Two translators, two adapter processes, one environment: set up once.
    assert_eq!(setups(&first), 1, "{}", first.all());
    assert!(first.stderr.contains(&format!("setting up {VENV} (python3 -m venv, then pip install -r requirements.txt; first use here); log: {LOG}")), "{}", first.all());
    let log = std::fs::read_to_string(p.path(LOG)).expect("the log is kept");
    assert!(log.contains("Successfully installed sfmarker-1.0"), "{log}");
    assert!(p.path(&format!("{VENV}/.schema-fidelity-setup.json")).is_file(), "the marker");
    // Moved into place from where it was made: its scripts name where it is now.
    let activate = std::fs::read_to_string(p.path(&format!("{VENV}/bin/activate"))).expect("bin/activate");
    assert!(activate.contains(&format!("VIRTUAL_ENV=\"{}\"", p.path(VENV).display())) && !activate.contains(".adapters.schema-fidelity-setup"), "{activate}");
    // Its interpreter is the environment's: the package is importable there and nowhere else.
    let python = Command::new(p.path(&format!("{VENV}/bin/python"))).args(["-c", "import sfmarker, sys; print(sys.prefix)"]).output().expect("the venv's python");
    assert!(python.status.success() && String::from_utf8_lossy(&python.stdout).trim() == p.path(VENV).display().to_string(), "{python:?}");
    assert!(!p.path(".adapters.schema-fidelity-setup").exists(), "nothing left beside it");

    // Reused: not made again (a file the test leaves in it survives), nothing said.
    std::fs::write(p.path(&format!("{VENV}/left-by-the-test")), "").expect("write into the venv");
    let second = p.run(&["run"], &[]);
    assert_both_ran(&second);
    assert_eq!(setups(&second), 0, "{}", second.all());
    assert!(!second.stderr.contains("setting up"), "{}", second.all());
    assert!(p.path(&format!("{VENV}/left-by-the-test")).exists());

    // A changed requirements.txt makes it again.
    std::fs::write(p.path("adapters/requirements.txt"), format!("{REQUIREMENTS}# pinned again\n")).expect("edit requirements");
    let third = p.run(&["run"], &[]);
    assert_both_ran(&third);
    assert_eq!(setups(&third), 1, "{}", third.all());
    assert!(third.stderr.contains("its requirements.txt changed"), "{}", third.all());
    assert!(!p.path(&format!("{VENV}/left-by-the-test")).exists(), "a new environment");
}

#[test]
fn without_install_or_a_runtime_a_missing_environment_is_unavailable_with_the_reason() {
    let p = Project::new("unavailable");
    // `lint` never installs, and a table whose interpreter its environment will make is fine.
    let lint = p.run(&["lint"], &[]);
    assert_eq!(lint.code, 0, "{}", lint.all());
    assert!(!p.path(VENV).exists(), "lint made nothing");

    let reason = format!("its environment {VENV} is not set up, and --no-install (or SCHEMA_FIDELITY_NO_INSTALL=1) turns setup off");
    for (args, env) in [(&["run", "--no-install"][..], &[][..]), (&["run"][..], &[("SCHEMA_FIDELITY_NO_INSTALL", "1")][..])] {
        let out = p.run(args, env);
        assert_eq!(out.code, 1, "{args:?} {env:?}: {}", out.all());
        for name in ["ext-a", "ext-b"] {
            let row = out.stdout.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("{}", out.all()));
            assert!(row.contains("unavailable: ") && row.contains(&reason), "{row}");
            assert!(row.contains("install it with `python3 -m venv adapters/.venv && adapters/.venv/bin/pip install -r adapters/requirements.txt`"), "{row}");
        }
        assert!(!out.stdout.contains("failure(s)"), "unavailable, not failed: {}", out.all());
        assert!(!out.stderr.contains("setting up") && !p.path(VENV).exists(), "nothing made: {}", out.all());
    }

    // No python3 on PATH: unavailable, saying so, and nothing made.
    let empty = p.path("empty-path");
    std::fs::create_dir_all(&empty).expect("an empty folder");
    let out = p.run(&["run"], &[("PATH", empty.to_str().expect("utf-8 path"))]);
    assert_eq!(out.code, 1, "{}", out.all());
    let row = out.stdout.lines().find(|l| l.starts_with("ext-a ")).unwrap_or_else(|| panic!("{}", out.all()));
    assert!(row.contains(&format!("unavailable: adapter `{VENV}/bin/python adapters/ident.py ext-a`: its environment {VENV} is not set up, and `python3`, which sets it up, is not on PATH")), "{row}");
    assert!(!p.path(VENV).exists());
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn an_install_that_fails_fails_the_translators_loudly_naming_the_log() {
    let p = Project::new("fails");
    std::fs::write(p.path("adapters/requirements.txt"), "--no-index\n--find-links wheels\nsfmarker-nowhere==9.9\n").expect("edit requirements");
    let out = p.run(&["run"], &[]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(!out.stdout.contains("unavailable"), "a failed setup is not `unavailable`: {}", out.all());
    assert!(out.stdout.contains("failure(s)"), "{}", out.all());
    let why = format!("its environment {VENV} could not be set up: `");
    assert!(out.stdout.contains(&why) && out.stdout.contains(&format!("(the log: {LOG})")), "every case says why, naming the log: {}", out.all());
    // Once, on stderr, with the log's last lines: pip's own words.
    assert_eq!(out.stderr.matches(&format!("error: setting up {VENV} failed")).count(), 1, "{}", out.all());
    assert!(out.stderr.contains("No matching distribution found for sfmarker-nowhere==9.9"), "{}", out.all());
    // Nothing half made that would look set up.
    assert!(!p.path(VENV).exists() && !p.path(".adapters.schema-fidelity-setup").exists(), "{}", out.all());
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn two_runs_at_once_set_the_environment_up_once() {
    let p = Project::new("concurrent");
    let spawn = || p.command(&["run"], &[]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary starts");
    let (a, b) = (spawn(), spawn());
    let (a, b) = (Run::from(a.wait_with_output().expect("a ends")), Run::from(b.wait_with_output().expect("b ends")));
    assert_both_ran(&a);
    assert_both_ran(&b);
    assert_eq!(setups(&a) + setups(&b), 1, "one of them sets it up:\n{}\n{}", a.all(), b.all());
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn an_interrupted_setup_leaves_nothing_that_looks_set_up() {
    use std::os::unix::process::CommandExt as _;
    let p = Project::new("interrupted");
    // Killed (with every process it started) while `python3 -m venv` is making the environment.
    let mut child = p.command(&["run"], &[]).process_group(0).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("the binary starts");
    let making = p.path(".adapters.schema-fidelity-setup/.venv/pyvenv.cfg");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !making.exists() && Instant::now() < deadline && child.try_wait().expect("wait").is_none() {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(making.exists(), "the environment was being made beside its place");
    let group = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process_group(group, rustix::process::Signal::KILL).expect("kill the group");
    let _ = child.wait();
    assert!(!p.path(VENV).exists(), "nothing where the environment goes");

    let out = p.run(&["run"], &[]);
    assert_both_ran(&out);
    assert_eq!(setups(&out), 1, "{}", out.all());
    assert!(!p.path(".adapters.schema-fidelity-setup").exists(), "what the killed setup left is gone");
}
