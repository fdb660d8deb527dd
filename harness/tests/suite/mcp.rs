//! Real MCP servers: the harvested corpus (`corpus/mcp/`) against its schema, its digest and its
//! pins; `harvest` reproducing it from the installed servers; `check --mcp` against an installed
//! server; and the stdio client against a fake server that pages, pings, lies about its protocol,
//! writes garbage, exits or never answers (`tests/fixtures/mcp/fake_server.py`).
//!
//! The tests that need the pinned npm servers installed (`npm ci --prefix
//! translators/external/mcp-servers`, which `.ci/run` does) say so and pass without them, except
//! under CI, where they must run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use schema_fidelity::corpus;
use schema_fidelity::mcp::client::{self, ErrorKind, Launch};
use schema_fidelity::mcp::harvest::{self, HarvestFile};
use schema_fidelity::mcp::manifest;
use serde_json::Value;


fn repo() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

use crate::sf::Run;

/// `schema-fidelity ARGS` in `dir`, in process (`crate::sf`).
fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    crate::sf::in_process(dir, args, env, &[])
}

/// The harvested files of the project at `root`, as (id, path).
fn harvested(root: &Path) -> Vec<(String, PathBuf)> {
    let folder = schema_fidelity::project::CorpusDir { base: root.to_owned(), dir: root.join("corpus"), built_in: false };
    corpus::own_files(&folder).into_iter().filter(|(id, _)| id.starts_with("corpus/mcp/")).collect()
}

/// Whether the pinned npm servers are installed here; under CI they must be.
fn npm_servers_installed() -> bool {
    let installed = repo().join(manifest::INSTALL_DIR).join("node_modules/@modelcontextprotocol/server-memory/package.json").is_file();
    assert!(installed || std::env::var_os("CI").is_none(), "CI must have the pinned MCP servers (.ci/run: {})", manifest::NPM_INSTALL);
    if !installed {
        eprintln!("note: the pinned npm MCP servers are not installed here, so this test did not run ({})", manifest::NPM_INSTALL);
    }
    installed
}

// ---- the committed corpus ----------------------------------------------------------------------

#[test]
fn every_harvested_file_loads_and_names_a_pinned_server_at_its_version() {
    let root = repo();
    let servers = manifest::load(&root).expect("the manifest loads");
    assert!(servers.len() >= 20, "{} servers pinned", servers.len());
    assert_eq!(manifest::check_pins(&root, &servers), [], "the manifest agrees with package.json and requirements.txt");
    assert_eq!(manifest::lint(&root), [], "every pinned server has its file");
    let files = harvested(&root);
    assert_eq!(files.len(), servers.len(), "one file per pinned server, and no other: {files:?}");
    let (mut tools, mut cases) = (0, 0);
    for (id, path) in &files {
        let loaded = corpus::load_own_file(id, path).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(path).expect("read");
        let file: HarvestFile = serde_json::from_str(&text).expect("a harvested file");
        let pinned = servers.iter().find(|s| s.name == file.harvest.server).unwrap_or_else(|| panic!("{id}: server not pinned"));
        assert_eq!((file.harvest.registry.as_str(), &file.harvest.package, &file.harvest.version), (pinned.registry.name(), &pinned.package, &pinned.version), "{id}");
        assert_eq!(loaded.len(), file.cases.len(), "{id}");
        for (case, c) in loaded.iter().zip(&file.cases) {
            assert_eq!(case.id, format!("{id}::{}", c.name));
            assert!(case.instances.is_empty(), "{}: harvested cases have no instances of their own; the generator draws them", case.id);
            assert_eq!(harvest::prose_left(&case.schema), None, "{}", case.id);
        }
        tools += file.cases.iter().map(|c| c.tools.len()).sum::<usize>();
        cases += file.cases.len();
    }
    assert!(tools >= 300 && cases >= 300, "{tools} tools in {cases} cases");
}

/// A throwaway project holding the manifest and one harvested file, as committed.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-mcp-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("corpus/mcp")).expect("dir");
        std::fs::create_dir_all(dir.join("dispositions")).expect("dir");
        for file in [manifest::MANIFEST, "corpus/mcp/memory.json", "dispositions/identity.yaml"] {
            let text = std::fs::read_to_string(repo().join(file)).expect("read");
            let text: String = if file.starts_with("dispositions") { text.lines().filter(|l| !l.starts_with("models:")).map(|l| format!("{l}\n")).collect() } else { text };
            std::fs::write(dir.join(file), text).expect("write");
        }
        Self(dir)
    }

    fn memory(&self) -> PathBuf {
        self.0.join("corpus/mcp/memory.json")
    }

    fn load(&self) -> Result<Vec<corpus::Case>, corpus::CorpusError> {
        corpus::load_own_file("corpus/mcp/memory.json", &self.memory())
    }

    /// Edit the parsed file, and write it back as the harvest would, digest and all: an edit made
    /// to look like a harvest.
    fn rewrite(&self, edit: impl Fn(&mut HarvestFile)) {
        let mut file: HarvestFile = serde_json::from_str(&std::fs::read_to_string(self.memory()).expect("read")).expect("parse");
        edit(&mut file);
        file.harvest.digest = harvest::digest_of(&file);
        std::fs::write(self.memory(), harvest::render(&file)).expect("write");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_hand_edited_harvested_file_is_an_error_naming_it() {
    let s = Scratch::new("edits");
    assert!(s.load().is_ok(), "{:?}", s.load().err());
    let original = std::fs::read_to_string(s.memory()).expect("read");
    let expect = |what: &str, says: &str| {
        let e = s.load().expect_err(what);
        assert!(e.file.ends_with("corpus/mcp/memory.json") && e.message.contains(says), "{what}: {e}");
        std::fs::write(s.memory(), &original).expect("restore");
    };

    // A changed schema, the digest left as it was.
    std::fs::write(s.memory(), original.replacen("\"type\": \"string\"", "\"type\": \"integer\"", 1)).expect("write");
    expect("a type changed", "does not match its digest");
    // The same content, formatted otherwise.
    let value: Value = serde_json::from_str(&original).expect("parse");
    std::fs::write(s.memory(), serde_json::to_string(&value).expect("json")).expect("write");
    expect("compact JSON", "not formatted as `schema-fidelity harvest` writes it");
    // Edits that recompute the digest: the pins and the placeholders still hold.
    s.rewrite(|f| f.harvest.version = "0.0.1".to_owned());
    expect("another version", "pins @modelcontextprotocol/server-memory");
    s.rewrite(|f| f.cases[0].schema["description"] = Value::from("Creates entities in the graph"));
    expect("prose", "is not a placeholder");
    s.rewrite(|f| f.harvest.server = "other".to_owned());
    expect("another server", "its file name says `memory`");
    s.rewrite(|f| f.cases[0].tools.push("aaa".to_owned()));
    expect("unsorted tools", "sorted tool names");
    // The server unpinned.
    let manifest_path = s.0.join(manifest::MANIFEST);
    let text = std::fs::read_to_string(&manifest_path).expect("read");
    std::fs::write(&manifest_path, text.replace("name: memory\n", "name: memories\n")).expect("write");
    expect("unpinned", "the server `memory` is not in corpus/mcp/servers.yaml");
    std::fs::write(&manifest_path, text).expect("restore");

    // `lint` says the same, with the file.
    std::fs::write(s.memory(), original.replacen("\"type\": \"string\"", "\"type\": \"integer\"", 1)).expect("write");
    let out = run_in(&s.0, &["lint"], &[("SCHEMA_FIDELITY_JSTS", "/nonexistent")]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("corpus/mcp/memory.json: its content does not match its digest"), "{}", out.all());
    // And a pinned server without its file.
    std::fs::remove_file(s.memory()).expect("remove");
    let out = run_in(&s.0, &["lint"], &[("SCHEMA_FIDELITY_JSTS", "/nonexistent")]);
    assert!(out.stdout.contains("server `filesystem` is pinned, but corpus/mcp/filesystem.json is missing"), "{}", out.all());
}

#[test]
fn the_manifest_is_held_to_its_schema_and_pins() {
    let s = Scratch::new("manifest");
    let path = s.0.join(manifest::MANIFEST);
    let text = std::fs::read_to_string(&path).expect("read");
    for (from, to, says) in [
        ("version: \"2026.8.31\"", "version: \"^2026.8.31\"", "schemas/mcp-servers.schema.json"),
        ("name: time\n", "name: memory\n", "server `memory` is named twice"),
        ("registry: PyPI", "registry: pypi", "schemas/mcp-servers.schema.json"),
        ("    run: [translators/external/mcp-servers/.venv/bin/mcp-server-git]", "    run: []", "schemas/mcp-servers.schema.json"),
    ] {
        assert!(text.contains(from), "{from}");
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
        let e = manifest::load(&s.0).expect_err(from);
        assert!(e.message.contains(says) && e.line.is_some(), "{from}: {e}");
    }
    // The pins of the manifest against what installs the servers.
    std::fs::write(&path, &text).expect("restore");
    let mut servers = manifest::load(&s.0).expect("loads");
    std::fs::create_dir_all(s.0.join(manifest::INSTALL_DIR)).expect("dir");
    for file in ["package.json", "requirements.txt"] {
        std::fs::copy(repo().join(manifest::INSTALL_DIR).join(file), s.0.join(manifest::INSTALL_DIR).join(file)).expect("copy");
    }
    assert_eq!(manifest::check_pins(&s.0, &servers), []);
    servers.iter_mut().find(|s| s.name == "git").expect("git").version = "1.0".to_owned();
    servers.retain(|s| s.name != "memory");
    let problems: Vec<String> = manifest::check_pins(&s.0, &servers).iter().map(ToString::to_string).collect();
    assert!(problems.iter().any(|p| p.contains("requirements.txt pins 2026.10.19")), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("depends on @modelcontextprotocol/server-memory, which no server")), "{problems:?}");
}

// ---- harvest and check --mcp against installed servers ---------------------------------------------

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn harvest_writes_what_is_committed_from_the_installed_servers() {
    if !npm_servers_installed() {
        return;
    }
    let out = run_in(&repo(), &["harvest", "--check", "--server", "memory", "--server", "everything", "--server", "filesystem"], &[]);
    assert_eq!(out.code, 0, "{}", out.all());
    for server in ["memory", "everything", "filesystem"] {
        assert!(out.stdout.contains(&format!("{server}: ")) && !out.stdout.contains("differs"), "{}", out.all());
    }
    assert_eq!(out.stdout.matches(": unchanged").count(), 3, "{}", out.all());
    let wrong = run_in(&repo(), &["harvest", "--check", "--server", "memroy"], &[]);
    assert_eq!(wrong.code, 2, "{}", wrong.all());
    assert!(wrong.stderr.contains("no server named `memroy`") && wrong.stderr.contains("did you mean `memory`?"), "{}", wrong.all());
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn check_mcp_checks_every_tool_of_an_installed_server() {
    if !npm_servers_installed() {
        return;
    }
    let command = format!("{}/node_modules/.bin/mcp-server-memory", manifest::INSTALL_DIR);
    let scratch = std::env::temp_dir().join(format!("schema-fidelity-mcp-{}-memory-file", std::process::id()));
    let memory_file = ("MEMORY_FILE_PATH", scratch.to_str().expect("a UTF-8 path"));
    let out = run_in(&repo(), &["check", "--mcp", &command, "-t", "identity", "-t", "anthropic", "--format", "json"], &[memory_file]);
    assert!([0, 1, 3].contains(&out.code), "{}", out.all());
    let result: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.all()));
    assert_eq!(result["command"], Value::from(command.as_str()));
    assert_eq!(result["translators"], serde_json::json!(["anthropic", "identity"]));
    // Every tool the committed harvest of the same package holds, each checked by both.
    let committed: HarvestFile = serde_json::from_str(&std::fs::read_to_string(repo().join("corpus/mcp/memory.json")).expect("read")).expect("parse");
    let mut expected: Vec<&str> = committed.cases.iter().flat_map(|c| c.tools.iter().map(String::as_str)).collect();
    expected.sort_unstable();
    let tools = result["tools"].as_array().expect("tools");
    let mut listed: Vec<&str> = tools.iter().map(|t| t["tool"].as_str().expect("name")).collect();
    listed.sort_unstable();
    assert_eq!(listed, expected);
    for tool in tools {
        let checked: Vec<&str> = tool["check"]["translators"].as_array().expect("a check report").iter().map(|t| t["translator"].as_str().expect("name")).collect();
        assert_eq!(checked, ["anthropic", "identity"], "{tool}");
    }
    // The table: a row per tool, a column per translator.
    let text = run_in(&repo(), &["check", "--mcp", &command, "-t", "identity", "-t", "anthropic"], &[memory_file]);
    assert_eq!(text.code, out.code, "{}", text.all());
    assert!(text.stdout.contains("columns: 1 anthropic, 2 identity"), "{}", text.all());
    for tool in &expected {
        assert!(text.stdout.lines().any(|l| l.starts_with(&format!("{tool} "))), "{tool}: {}", text.all());
    }
    let _ = std::fs::remove_file(&scratch);
}

// ---- the client against a fake server -------------------------------------------------------------

fn fake(mode: &str) -> Vec<String> {
    vec!["python3".to_owned(), repo().join("harness/tests/fixtures/mcp/fake_server.py").display().to_string(), mode.to_owned()]
}

fn list(command: &[String], timeout: Duration) -> Result<client::Listing, Box<client::McpError>> {
    client::list_tools(&Launch { command, cwd: &repo(), env: None, timeout })
}

#[test]
fn the_client_follows_pages_answers_the_servers_ping_and_passes_notifications_by() {
    let listing = list(&fake("ok"), Duration::from_secs(20)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((listing.protocol.as_str(), listing.server_name.as_str(), listing.server_version.as_str()), (client::PROTOCOL_VERSION, "fake", "0.1"));
    let names: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search", "fetch", "noop"], "both pages, in order");
    assert_eq!(listing.tools[0].input_schema["properties"]["q"]["minLength"], Value::from(1));
}

#[test]
fn the_client_names_what_went_wrong_and_what_it_awaited() {
    let long = Duration::from_secs(20);
    let e = list(&fake("old"), long).expect_err("an unknown revision");
    assert!(matches!(&e.kind, ErrorKind::Unsupported { version } if version == "1999-01-01"), "{e}");
    let e = list(&fake("cursor"), long).expect_err("a cursor loop");
    assert!(matches!(&e.kind, ErrorKind::Malformed(why) if why.contains("given twice")) && e.awaited.contains("page 2"), "{e}");
    let e = list(&fake("garbage"), long).expect_err("garbage");
    assert!(matches!(&e.kind, ErrorKind::NotJson { line, .. } if line == "Server listening on stdio") && e.awaited == "the answer to initialize", "{e}");
    let e = list(&fake("exit"), long).expect_err("an early exit");
    assert!(matches!(&e.kind, ErrorKind::Exited(Some(status)) if status.code() == Some(3)), "{e}");
    assert!(e.to_string().starts_with(&format!("the MCP server `{}` closed its output", fake("exit").join(" "))), "{e}");
    let e = list(&["no-such-mcp-server-here".to_owned()], long).expect_err("not installed");
    assert!(matches!(e.kind, ErrorKind::NotStarted(_)) && e.to_string().contains("not found"), "{e}");
}

/// Whether the process `pid` still runs (a zombie has ended).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn check_mcp_against_a_server_that_never_answers_fails_within_the_budget_and_leaves_no_process() {
    let pids = std::env::temp_dir().join(format!("schema-fidelity-mcp-{}-pids", std::process::id()));
    let mut command = fake("silent");
    command.push(pids.display().to_string());
    let command = command.join(" ");
    let started = Instant::now();
    let out = run_in(&repo(), &["check", "--mcp", &command, "-t", "identity"], &[("SCHEMA_FIDELITY_MCP_TIMEOUT_MS", "1500")]);
    let took = started.elapsed();
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains(&format!("the MCP server `{command}` gave no answer within 1500 ms, awaiting the answer to initialize")), "{}", out.all());
    assert!(took < Duration::from_secs(15), "{took:?}");
    let written = std::fs::read_to_string(&pids).expect("the fake server wrote its process ids");
    let _ = std::fs::remove_file(&pids);
    let ids: Vec<&str> = written.split_whitespace().collect();
    assert_eq!(ids.len(), 3, "{written}");
    // The server, its child and the grandchild that left the group: all gone once `check` is.
    let deadline = Instant::now() + Duration::from_secs(5);
    while ids.iter().any(|p| running(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<&&str> = ids.iter().filter(|p| running(p)).collect();
    assert!(left.is_empty(), "still running: {left:?} of {written}");
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn check_mcp_reports_a_server_that_exits_or_writes_garbage_as_an_error() {
    for (mode, says) in [("exit", "closed its output and ended (exit status: 3), awaiting the answer to initialize"), ("garbage", "wrote a line that is not JSON, awaiting the answer to initialize")] {
        let out = run_in(&repo(), &["check", "--mcp", &fake(mode).join(" "), "-t", "identity"], &[]);
        assert_eq!(out.code, 2, "{}", out.all());
        assert!(out.stderr.contains(says), "{mode}: {}", out.all());
    }
    let out = run_in(&repo(), &["check", "--mcp", &fake("ok").join(" "), "-t", "identity", "-t", "anthropic"], &[]);
    assert!([0, 1, 3].contains(&out.code), "{}", out.all());
    assert!(out.stdout.contains("(fake 0.1, protocol 2025-06-18): 3 tool(s) × 2 translator(s)"), "{}", out.all());
    let both = run_in(&repo(), &["check", "schema.json", "--mcp", "x"], &[]);
    assert_eq!(both.code, 2, "a schema file and --mcp: {}", both.all());
    let neither = run_in(&repo(), &["check"], &[]);
    assert_eq!(neither.code, 2, "{}", neither.all());
}

#[test]
fn harvest_and_check_mcp_have_their_help_pages() {
    let harvest = run_in(&repo(), &["harvest", "--help"], &[]);
    assert_eq!(harvest.code, 0, "{}", harvest.all());
    for fragment in ["Usage: schema-fidelity harvest", "--server <NAME>", "--check", "no network and no credentials", manifest::NPM_INSTALL, "  2    usage and input errors"] {
        assert!(harvest.stdout.contains(fragment), "harvest --help lacks `{fragment}`: {}", harvest.all());
    }
    let check = run_in(&repo(), &["check", "--help"], &[]);
    for fragment in ["--mcp <COMMAND>", "a row per tool and a column per translator", client::TIMEOUT_ENV] {
        assert!(check.stdout.contains(fragment), "check --help lacks `{fragment}`: {}", check.all());
    }
    let top = run_in(&repo(), &["--help"], &[]);
    assert!(top.stdout.contains("\n  harvest "), "{}", top.all());
}
