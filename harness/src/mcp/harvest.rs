//! `schema-fidelity harvest`: the tool schemas of real MCP servers, as corpus cases.
//!
//! For each server of the manifest ([`super::manifest`]), at its pinned version (the installed
//! version is read and must be the pinned one), the harvest starts the server with no network
//! (through `unshare --net --map-root-user`, a network namespace with only a loopback device that
//! is down) and no credentials (an environment of `PATH`, `HOME` and `TMPDIR` in a scratch
//! directory, `LANG`, `TZ=UTC`, `NO_COLOR`, `DO_NOT_TRACK` and what the manifest gives it), in
//! that scratch directory, lists its tools
//! ([`super::client`]), and writes `corpus/mcp/<server>.json`:
//!
//! ```json
//! {
//!   "description": "...",
//!   "harvest": { "server": "filesystem", "registry": "npm", "package": "@modelcontextprotocol/server-filesystem",
//!                "version": "2026.8.31", "protocol": "2025-06-18",
//!                "server_info": { "name": "secure-filesystem-server", "version": "0.2.0" },
//!                "digest": "fnv1a64:..." },
//!   "cases": [ { "name": "create_directory", "description": "...", "tools": ["create_directory"], "schema": { ... } } ]
//! }
//! ```
//!
//! **Structure, not prose.** Each tool's `inputSchema` is kept exactly (property names, types,
//! enums, patterns, bounds, key order), except its free text: every `description`, `title` and
//! `$comment` at a schema position becomes a placeholder ([`DESCRIPTION`], [`TITLE`],
//! [`COMMENT`]), and every `examples` item and `example` value a placeholder of the same JSON type
//! ([`placeholder_of`]); the keywords stay, since translators treat them. A property *named*
//! `description` is data, not a keyword, and is kept ([`walk`] says where the schemas are). The
//! tool's own description, title, annotations and output schema are not kept.
//!
//! **One case per distinct schema.** Tools of one server with the same schema (after the
//! placeholders) are one case, named after the first of them by name and listing them all in
//! `tools`: the oracle judges schemas, and judging one schema twice would double the trials and
//! tell nothing new. A case's trial is `TRANSLATOR::corpus/mcp/<server>.json::<name>`. The cases
//! have no instances of their own: the witness generator draws them, as for every own case.
//!
//! **Deterministic and checked.** Tools are sorted by name, the file is pretty-printed JSON with a
//! final newline, and a file whose bytes would not change is not written. Loading a harvested
//! file ([`load_file`], what the corpus loader, `lint` and every trial do) holds it to
//! `schemas/mcp-harvest.schema.json`, to the formatting the harvest writes, to its `digest` (FNV-1a
//! of the file with an empty digest), to placeholders only, and to the manifest (the server is
//! there, at the registry, package and version the file names): a hand-edited file is an error.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schema_fidelity_translators::walk;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{self, Launch, Listing};
use super::manifest::{self, Server};

/// The folder the harvest writes, relative to the project root.
pub const DIR: &str = "corpus/mcp";
/// What a `description` becomes.
pub const DESCRIPTION: &str = "(description)";
/// What a `title` becomes.
pub const TITLE: &str = "(title)";
/// What a `$comment` becomes.
pub const COMMENT: &str = "(comment)";
/// What a string in `examples` (or an `example`) becomes.
pub const EXAMPLE: &str = "(example)";

/// The placeholder of a free-text keyword at a schema position, or `None` for other keywords.
fn text_placeholder(keyword: &str) -> Option<&'static str> {
    match keyword {
        "description" => Some(DESCRIPTION),
        "title" => Some(TITLE),
        "$comment" => Some(COMMENT),
        _ => None,
    }
}

/// A placeholder of the same JSON type as `value`: `"(example)"`, `0` (`0.0` for a number that
/// is not an integer), `false`, `null`, `[]` or `{}`.
#[must_use]
fn placeholder_of(value: &Value) -> Value {
    match value {
        Value::String(_) => Value::from(EXAMPLE),
        Value::Number(n) if n.is_f64() => Value::from(0.0),
        Value::Number(_) => Value::from(0),
        Value::Bool(_) => Value::Bool(false),
        Value::Null => Value::Null,
        Value::Array(_) => Value::Array(Vec::new()),
        Value::Object(_) => Value::Object(serde_json::Map::new()),
    }
}

/// `schema` with its free text replaced by placeholders (see the module documentation). The
/// caller bounds the depth first ([`walk::check_depth`]).
#[must_use]
fn neutralize(schema: &Value) -> Value {
    let Ok(mut node) = walk::map_children(schema, |child| Ok::<_, Infallible>(neutralize(child.schema)));
    if let Value::Object(map) = &mut node {
        for (keyword, value) in map.iter_mut() {
            match keyword.as_str() {
                k if value.is_string() && text_placeholder(k).is_some() => *value = Value::from(text_placeholder(k).unwrap_or_default()),
                "examples" => {
                    let replaced = match &*value {
                        Value::Array(items) => Value::Array(items.iter().map(placeholder_of).collect()),
                        other => placeholder_of(other),
                    };
                    *value = replaced;
                }
                "example" => *value = placeholder_of(value),
                _ => {}
            }
        }
    }
    node
}

/// The first free text [`neutralize`] would have replaced, as `KEYWORD at POINTER`, or `None`.
#[must_use]
pub fn prose_left(schema: &Value) -> Option<String> {
    let occurrences = walk::occurrences(schema).ok()?;
    occurrences.iter().find_map(|o| {
        let is_placeholder = match (o.keyword, o.value) {
            (k, Value::String(s)) if text_placeholder(k).is_some() => text_placeholder(k) == Some(s.as_str()),
            ("examples", Value::Array(items)) => items.iter().all(|v| placeholder_of(v) == *v),
            ("examples" | "example", v) => placeholder_of(v) == *v,
            _ => true,
        };
        let at = if o.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", o.pointer) };
        (!is_placeholder).then(|| format!("`{}` at {at}", o.keyword))
    })
}

/// A harvested file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarvestFile {
    pub description: String,
    pub harvest: Provenance,
    pub cases: Vec<HarvestCase>,
}

/// Where a harvested file's schemas come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The server's name in the manifest.
    pub server: String,
    /// `npm` or `PyPI`.
    pub registry: String,
    pub package: String,
    pub version: String,
    /// The protocol revision the server answered with.
    pub protocol: String,
    pub server_info: ServerInfo,
    /// FNV-1a of the file with this field empty ([`digest_of`]).
    pub digest: String,
}

/// `serverInfo` of the server's `initialize` answer (its name and version only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

/// One distinct input schema and the tools that have it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarvestCase {
    /// The first of `tools`.
    pub name: String,
    pub description: String,
    /// The tools with this schema, sorted.
    pub tools: Vec<String>,
    pub schema: Value,
}

/// The digest a harvested file carries: FNV-1a of its compact JSON with an empty digest.
#[must_use]
pub fn digest_of(file: &HarvestFile) -> String {
    let mut blank = file.clone();
    blank.harvest.digest = String::new();
    let mut hash = crate::hash::Fnv1a::default();
    hash.write(serde_json::to_string(&blank).expect("a harvested file serializes").as_bytes());
    hash.finish()
}

/// The bytes the harvest writes for `file`.
#[must_use]
pub fn render(file: &HarvestFile) -> String {
    serde_json::to_string_pretty(file).expect("a harvested file serializes") + "\n"
}

/// Whether a tool name can name a case (and so a trial): the protocol's tool-name characters
/// (letters, digits, `_`, `-`, `.`; `/` too, which some servers use), at most 128 of them.
fn valid_tool_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 128 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-./".contains(&b)) && !name.contains("::")
}

/// The harvested file for `server` from what it listed.
///
/// # Errors
/// A tool whose name cannot name a case, or whose schema nests too deep to walk.
pub fn build(server: &Server, listing: &Listing) -> Result<HarvestFile, String> {
    let mut tools: Vec<(&str, Value)> = Vec::new();
    for tool in &listing.tools {
        if !valid_tool_name(&tool.name) {
            return Err(format!("tool {:?}: a tool name may hold only letters, digits, `_`, `-`, `.` and `/` (at most 128), as the protocol advises", tool.name));
        }
        walk::check_depth(&tool.input_schema).map_err(|e| format!("tool `{}`: {e}", tool.name))?;
        tools.push((&tool.name, neutralize(&tool.input_schema)));
    }
    tools.sort_by(|a, b| a.0.cmp(b.0));
    let mut cases: Vec<HarvestCase> = Vec::new();
    for (name, schema) in tools {
        match cases.iter_mut().find(|c| c.schema == schema) {
            Some(case) => case.tools.push(name.to_owned()),
            None => cases.push(HarvestCase { name: name.to_owned(), description: String::new(), tools: vec![name.to_owned()], schema }),
        }
    }
    let of = format!("{} {} ({})", server.package, server.version, server.registry.name());
    for case in &mut cases {
        let names: Vec<String> = case.tools.iter().map(|t| format!("`{t}`")).collect();
        case.description = match names.as_slice() {
            [one] => format!("The input schema of the tool {one} of {of}."),
            many => format!("The input schema of the tools {} of {of}: one schema, judged once.", many.join(", ")),
        };
    }
    let mut file = HarvestFile {
        description: format!(
            "What tools/list of {of} answers: each tool's input schema, with its free text (description, title, $comment, examples) \
             replaced by placeholders. Written by `schema-fidelity harvest` from {}; do not edit (the format, the digest and the pins are checked).",
            manifest::MANIFEST
        ),
        harvest: Provenance {
            server: server.name.clone(),
            registry: server.registry.name().to_owned(),
            package: server.package.clone(),
            version: server.version.clone(),
            protocol: listing.protocol.clone(),
            server_info: ServerInfo { name: listing.server_name.clone(), version: listing.server_version.clone() },
            digest: String::new(),
        },
        cases,
    };
    file.harvest.digest = digest_of(&file);
    Ok(file)
}

/// The project root of a corpus file, when it is a harvested one (under `corpus/mcp/`, other than
/// the manifest): `id_prefix` is its path relative to the root.
#[must_use]
pub fn harvested_root(id_prefix: &str, path: &Path) -> Option<PathBuf> {
    if !id_prefix.starts_with(&format!("{DIR}/")) || id_prefix == manifest::MANIFEST {
        return None;
    }
    path.ancestors().nth(id_prefix.split('/').count()).map(Path::to_owned)
}

/// One case of a harvested file, checked, with its line: what the corpus loader makes a case of.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedCase {
    pub name: String,
    pub line: Option<u64>,
    pub description: String,
    pub schema: Value,
}

/// Load a harvested file's cases (see the module documentation for what is checked). The corpus
/// loader calls this and makes them corpus cases; this module does not know what a case is.
///
/// # Errors
/// The first problem, with a line where there is one.
pub fn load_file(id_prefix: &str, path: &Path, root: &Path) -> Result<Vec<LoadedCase>, (Option<u64>, String)> {
    let budgets = crate::budget::settled().map_err(|e| (None, e))?;
    let text = crate::budget::read_text(path, budgets).map_err(|e| (None, e))?;
    let stem = id_prefix.strip_prefix(&format!("{DIR}/")).and_then(|n| n.strip_suffix(".json"));
    let Some(stem) = stem.filter(|s| manifest::valid_name(s)) else {
        return Err((None, format!("{DIR}/ holds only what `schema-fidelity harvest` writes (SERVER.json) and {}", manifest::MANIFEST)));
    };
    let value = crate::json::parse(&text).map_err(|e| (Some(e.line as u64), format!("column {}: {}", e.column, e.message)))?;
    if let Some((line, message)) = crate::schemas::check(crate::schemas::Format::McpHarvest, &text, &value).into_iter().next() {
        return Err((line, message));
    }
    let file: HarvestFile = serde_json::from_value(value).map_err(|e| (None, format!("not a harvested file: {e}")))?;
    let regenerate = format!("run `schema-fidelity harvest --server {stem}` to write it again");
    if render(&file) != text {
        return Err((None, format!("not formatted as `schema-fidelity harvest` writes it (edited by hand?); {regenerate}")));
    }
    if digest_of(&file) != file.harvest.digest {
        return Err((None, format!("its content does not match its digest {} (edited by hand?); {regenerate}", file.harvest.digest)));
    }
    let h = &file.harvest;
    if h.server != stem {
        return Err((None, format!("it names the server `{}`, but its file name says `{stem}`", h.server)));
    }
    let servers = manifest::load(root).map_err(|e| (None, format!("its pins cannot be checked: {e}")))?;
    let Some(pinned) = servers.iter().find(|s| s.name == h.server) else {
        return Err((None, format!("the server `{}` is not in {}; remove the file, or pin the server and harvest it", h.server, manifest::MANIFEST)));
    };
    if (pinned.registry.name(), pinned.package.as_str(), pinned.version.as_str()) != (h.registry.as_str(), h.package.as_str(), h.version.as_str()) {
        return Err((
            None,
            format!(
                "it holds {} {} ({}), but {} pins {} {} ({}); {regenerate}",
                h.package,
                h.version,
                h.registry,
                manifest::MANIFEST,
                pinned.package,
                pinned.version,
                pinned.registry.name()
            ),
        ));
    }
    let mut tools_seen = BTreeSet::new();
    let mut cases = Vec::new();
    for c in file.cases {
        let line = case_line(&text, &c.name);
        let fail = |message: String| (line, format!("case `{}`: {message}", c.name));
        if !valid_tool_name(&c.name) || c.tools.first() != Some(&c.name) || !c.tools.is_sorted() {
            return Err(fail("its name must be the first of its `tools`, which are sorted tool names".to_owned()));
        }
        if let Some(twice) = c.tools.iter().find(|t| !tools_seen.insert((*t).clone())) {
            return Err(fail(format!("the tool `{twice}` is in two cases")));
        }
        if let Some(prose) = prose_left(&c.schema) {
            return Err(fail(format!("{prose} is not a placeholder: harvested schemas keep structure, not prose")));
        }
        crate::budget::check_schema(&c.schema, budgets).map_err(fail)?;
        cases.push(LoadedCase { name: c.name, line, description: c.description, schema: c.schema });
    }
    Ok(cases)
}

/// The line of the case named `name` in a harvested file's text (its `"name"` member, as
/// [`render`] indents it).
fn case_line(text: &str, name: &str) -> Option<u64> {
    let member = format!("      \"name\": {},", Value::from(name));
    text.lines().position(|l| l == member).map(|i| i as u64 + 1)
}

/// How `harvest` runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Only these servers (all when empty).
    pub servers: Vec<String>,
    /// Compare with the committed files instead of writing.
    pub check: bool,
    /// How long each answer of a server may take.
    pub timeout: Duration,
}

/// What became of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Its file is as the harvest would write it.
    Unchanged { tools: usize, cases: usize },
    /// Its file was written.
    Written { tools: usize, cases: usize },
    /// With `--check`: its file differs from what the harvest would write (or is missing).
    Differs { tools: usize, cases: usize },
    /// It could not be harvested: why.
    Failed(String),
}

/// The network namespace every server is started in.
const OFFLINE: [&str; 4] = ["unshare", "--net", "--map-root-user", "--"];

/// Whether servers can be started without network here, or why not.
fn offline_available(root: &Path) -> Result<(), String> {
    let out = std::process::Command::new(OFFLINE[0]).args(&OFFLINE[1..]).arg("true").current_dir(root).output();
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_owned()),
        Err(e) => Err(e.to_string()),
    }
}

/// A fresh, empty scratch directory for `server`: `target/schema-fidelity/mcp/<server>/`, with
/// `home/` and `tmp/` in it.
fn scratch(root: &Path, server: &str) -> Result<PathBuf, String> {
    let dir = crate::disk::kept_dir(root, &["mcp", server]);
    let shown = dir.display().to_string();
    let parent = dir.parent().ok_or("no parent")?;
    crate::disk::create_real_dirs(root, parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&dir).map_err(|e| format!("{shown}: cannot empty it: {e}"))?,
        Ok(_) => std::fs::remove_file(&dir).map_err(|e| format!("{shown}: cannot remove it: {e}"))?,
        Err(_) => {}
    }
    for sub in ["home", "tmp"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| format!("{shown}: {e}"))?;
    }
    Ok(dir)
}

/// Harvest the servers of the manifest (or `options.servers`), calling `done` after each, and,
/// when every server was asked for, remove (or with `check`, name) the files of `corpus/mcp/` that
/// no server of the manifest writes.
///
/// # Errors
/// The manifest does not load or contradicts its pins, a server asked for is not in it, or servers
/// cannot be started without network here. A server that cannot be harvested is an [`Outcome`].
pub fn harvest(root: &Path, options: &Options, done: &mut dyn FnMut(&str, &Outcome)) -> Result<Vec<String>, String> {
    let servers = manifest::load(root).map_err(|e| e.to_string())?;
    if let Some(problem) = manifest::check_pins(root, &servers).first() {
        return Err(problem.to_string());
    }
    for wanted in &options.servers {
        if !servers.iter().any(|s| &s.name == wanted) {
            let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
            let near = crate::diagnostic::nearest(wanted, names.iter().copied()).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
            return Err(format!("no server named `{wanted}` in {}{near}", manifest::MANIFEST));
        }
    }
    offline_available(root).map_err(|why| {
        format!("harvest starts each server with no network, through `{}`, which does not work here: {why}", OFFLINE[..3].join(" "))
    })?;
    for server in servers.iter().filter(|s| options.servers.is_empty() || options.servers.contains(&s.name)) {
        let outcome = harvest_one(root, server, options).unwrap_or_else(Outcome::Failed);
        done(&server.name, &outcome);
    }
    let mut stale = Vec::new();
    if options.servers.is_empty() {
        for entry in std::fs::read_dir(root.join(DIR)).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".json") else { continue };
            if !servers.iter().any(|s| s.name == stem) {
                if !options.check {
                    std::fs::remove_file(entry.path()).map_err(|e| format!("{DIR}/{name}: cannot remove it: {e}"))?;
                }
                stale.push(format!("{DIR}/{name}"));
            }
        }
    }
    Ok(stale)
}

fn harvest_one(root: &Path, server: &Server, options: &Options) -> Result<Outcome, String> {
    let installed = manifest::installed_version(root, server)?;
    if installed != server.version {
        return Err(format!(
            "{} {installed} is installed, but {} pins {}; install the pins with: {}",
            server.package,
            manifest::MANIFEST,
            server.version,
            server.registry.install()
        ));
    }
    let scratch = scratch(root, &server.name)?;
    let fill = |s: &str| s.replace(manifest::SCRATCH, &scratch.display().to_string()).replace(manifest::ROOT, &root.display().to_string());
    let mut command: Vec<String> = OFFLINE.iter().map(|s| (*s).to_owned()).collect();
    for (i, arg) in server.run.iter().enumerate() {
        let arg = fill(arg);
        // The program, from the project root (the server runs in its scratch directory).
        command.push(if i == 0 && arg.contains('/') && Path::new(&arg).is_relative() { root.join(&arg).display().to_string() } else { arg });
    }
    let mut env: Vec<(String, String)> = vec![
        ("PATH".to_owned(), std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".to_owned())),
        ("HOME".to_owned(), scratch.join("home").display().to_string()),
        ("TMPDIR".to_owned(), scratch.join("tmp").display().to_string()),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ("TZ".to_owned(), "UTC".to_owned()),
        ("NO_COLOR".to_owned(), "1".to_owned()),
        // The convention some servers read to send no usage data (there is no network anyway).
        ("DO_NOT_TRACK".to_owned(), "1".to_owned()),
    ];
    env.extend(server.env.iter().map(|(k, v)| (k.clone(), fill(v))));
    let listing = client::list_tools(&Launch { command: &command, cwd: &scratch, env: Some(&env), timeout: options.timeout }).map_err(|e| e.to_string())?;
    let file = build(server, &listing)?;
    let (tools, cases) = (listing.tools.len(), file.cases.len());
    let text = render(&file);
    let path = root.join(DIR).join(format!("{}.json", server.name));
    if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(Outcome::Unchanged { tools, cases });
    }
    if options.check {
        return Ok(Outcome::Differs { tools, cases });
    }
    crate::disk::write_within(root, &path, text.as_bytes()).map_err(|e| format!("{DIR}/{}.json: cannot write it: {e}", server.name))?;
    Ok(Outcome::Written { tools, cases })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn free_text_becomes_placeholders_and_structure_stays() {
        let schema = json!({
            "type": "object",
            "title": "Args",
            "description": "Read a file",
            "$comment": "internal",
            "properties": {
                "description": { "type": "string", "description": "what to say", "examples": ["a", 1, 2.5, true, null, [1], {"k": "v"}] },
                "title": { "enum": ["A title", "another"], "default": "A title", "example": "x" },
                "n": { "type": "integer", "minimum": 1, "pattern": "^a" }
            },
            "$defs": { "d": { "anyOf": [{ "description": "one" }, true] } },
            "required": ["description"]
        });
        let out = neutralize(&schema);
        assert_eq!(
            out,
            json!({
                "type": "object",
                "title": TITLE,
                "description": DESCRIPTION,
                "$comment": COMMENT,
                "properties": {
                    "description": { "type": "string", "description": DESCRIPTION, "examples": [EXAMPLE, 0, 0.0, false, null, [], {}] },
                    "title": { "enum": ["A title", "another"], "default": "A title", "example": EXAMPLE },
                    "n": { "type": "integer", "minimum": 1, "pattern": "^a" }
                },
                "$defs": { "d": { "anyOf": [{ "description": DESCRIPTION }, true] } },
                "required": ["description"]
            })
        );
        // Key order is kept, so the file shows the schema as the server wrote it.
        assert_eq!(out.as_object().unwrap().keys().next().map(String::as_str), Some("type"));
        assert_eq!(prose_left(&out), None);
        assert_eq!(prose_left(&schema).as_deref(), Some("`title` at the root"));
        assert_eq!(prose_left(&json!({"properties": {"a": {"examples": ["real"]}}})).as_deref(), Some("`examples` at `/properties/a`"));
    }

    fn listing(tools: &[(&str, Value)]) -> Listing {
        Listing {
            protocol: "2025-06-18".to_owned(),
            server_name: "s".to_owned(),
            server_version: "1".to_owned(),
            tools: tools.iter().map(|(n, s)| client::Tool { name: (*n).to_owned(), input_schema: s.clone() }).collect(),
        }
    }

    fn server() -> Server {
        Server {
            name: "demo".to_owned(),
            registry: manifest::Registry::Npm,
            package: "@demo/server".to_owned(),
            version: "1.2.3".to_owned(),
            run: vec!["x".to_owned()],
            env: std::collections::BTreeMap::new(),
            line: None,
        }
    }

    #[test]
    fn tools_with_one_schema_are_one_case_and_the_file_is_deterministic() {
        let a = json!({"type": "object", "properties": {"p": {"type": "string", "description": "first"}}});
        let b = json!({"type": "object", "properties": {"p": {"type": "string", "description": "second"}}});
        let c = json!({"type": "object"});
        let file = build(&server(), &listing(&[("zeta", a.clone()), ("alpha", c.clone()), ("beta", b.clone())])).unwrap();
        let names: Vec<(&str, &[String])> = file.cases.iter().map(|c| (c.name.as_str(), c.tools.as_slice())).collect();
        assert_eq!(names, [("alpha", &["alpha".to_owned()][..]), ("beta", &["beta".to_owned(), "zeta".to_owned()][..])]);
        let again = build(&server(), &listing(&[("beta", b), ("zeta", a), ("alpha", c)])).unwrap();
        assert_eq!(render(&file), render(&again), "the order tools are listed in changes nothing");
        assert_eq!(file.harvest.digest, digest_of(&file));
        let mut edited = file.clone();
        edited.cases[0].schema = json!({"type": "object", "maxProperties": 1});
        assert_ne!(digest_of(&edited), file.harvest.digest, "an edit changes the digest");
    }

    #[test]
    fn tool_names_that_cannot_name_a_trial_are_refused() {
        for bad in ["", "a::b", "with space", "tab\there", &"x".repeat(129)] {
            let e = build(&server(), &listing(&[(bad, json!({"type": "object"}))])).expect_err(bad);
            assert!(e.contains("tool name"), "{e}");
        }
    }
}
