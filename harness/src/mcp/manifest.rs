//! The pins: `corpus/mcp/servers.yaml` names every MCP server whose tools the corpus holds, with
//! its registry, package and exact version, and how to start it so that it lists its tools with
//! no network and no credentials.
//!
//! ```yaml
//! servers:
//!   - name: filesystem                      # the corpus file: corpus/mcp/filesystem.json
//!     registry: npm                         # or PyPI
//!     package: "@modelcontextprotocol/server-filesystem"
//!     version: "2026.8.31"                  # exact: what package.json (npm) or requirements.txt (PyPI) pins
//!     run: [translators/external/mcp-servers/node_modules/.bin/mcp-server-filesystem, "{scratch}"]
//!     env: { MEMORY_FILE_PATH: "{scratch}/memory.jsonl" }   # optional
//! ```
//!
//! `run` is the program (relative to the project root when it holds a `/`) and its arguments;
//! `{scratch}` in `run` and `env` is a fresh empty directory for the server (also its working
//! directory and `HOME`), `{root}` the project root. The npm servers are installed from `translators/external/mcp-servers/
//! package.json` and its lock, the PyPI ones into `translators/external/mcp-servers/.venv` from
//! its `requirements.txt`: [`check_pins`] holds the manifest to both, and [`installed_version`]
//! reads the version actually installed, which `harvest` requires to be the pinned one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

/// The manifest, relative to the project root.
pub const MANIFEST: &str = "corpus/mcp/servers.yaml";
/// Where the servers are installed, relative to the project root.
pub const INSTALL_DIR: &str = "translators/external/mcp-servers";
/// How to install the npm servers.
pub const NPM_INSTALL: &str = "npm ci --prefix translators/external/mcp-servers --ignore-scripts";
/// How to install the PyPI servers.
pub const PYPI_INSTALL: &str = "python3 -m venv translators/external/mcp-servers/.venv && \
     translators/external/mcp-servers/.venv/bin/pip install -r translators/external/mcp-servers/requirements.txt";
/// The placeholder for the server's scratch directory in `run` and `env`.
pub const SCRATCH: &str = "{scratch}";
/// The placeholder for the project root in `run` and `env` (a script run by `node`).
pub const ROOT: &str = "{root}";

/// The registry a server's package comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Registry {
    #[serde(rename = "npm")]
    Npm,
    #[serde(rename = "PyPI")]
    PyPi,
}

impl Registry {
    /// As the manifest and the corpus files spell it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Npm => "npm",
            Self::PyPi => "PyPI",
        }
    }

    /// The command that installs this registry's servers.
    #[must_use]
    pub fn install(self) -> &'static str {
        match self {
            Self::Npm => NPM_INSTALL,
            Self::PyPi => PYPI_INSTALL,
        }
    }
}

/// One pinned server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// Its name in the corpus: `corpus/mcp/NAME.json`.
    pub name: String,
    pub registry: Registry,
    pub package: String,
    pub version: String,
    /// Program and arguments, `{scratch}` not yet replaced.
    pub run: Vec<String>,
    /// Variables besides the ones every server gets, `{scratch}` not yet replaced.
    pub env: BTreeMap<String, String>,
    /// The line of its entry in the manifest.
    pub line: Option<u64>,
}

/// A manifest that does not load, or a pin it contradicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    pub file: PathBuf,
    pub line: Option<u64>,
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    #[serde(default)]
    #[allow(dead_code)] // read by people; kept so `deny_unknown_fields` accepts it
    description: Option<String>,
    servers: Vec<Spanned<ServerEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerEntry {
    name: String,
    registry: Registry,
    package: String,
    version: String,
    run: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    #[allow(dead_code)] // read by people: why a server needs what it is given
    note: Option<String>,
}

/// Whether `name` can name a server (and so a corpus file and a trial's path): lower-case ASCII
/// letters, digits and `-`, starting with a letter or digit.
#[must_use]
pub fn valid_name(name: &str) -> bool {
    name.bytes().next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Whether `version` is one exact version (no range, tag or URL).
fn exact_version(version: &str) -> bool {
    version.bytes().next().is_some_and(|b| b.is_ascii_digit()) && version.bytes().all(|b| b.is_ascii_alphanumeric() || b".+-".contains(&b))
}

/// Load the manifest of the project at `root`.
///
/// # Errors
/// The first problem, with the manifest's file and line: it cannot be read, breaks
/// `schemas/mcp-servers.schema.json`, names a server twice or by a name that cannot be a file
/// name, pins a version that is not exact, or has an empty `run`.
pub fn load(root: &Path) -> Result<Vec<Server>, ManifestError> {
    let file = PathBuf::from(MANIFEST);
    let fail = |line: Option<u64>, message: String| ManifestError { file: file.clone(), line, message };
    let text = crate::budget::read_text(&root.join(MANIFEST), crate::budget::current()).map_err(|e| fail(None, e))?;
    // Every harvested corpus file checks its pins here: the same text is parsed once per process.
    static PARSED: Mutex<Option<(String, Loaded)>> = Mutex::new(None);
    let mut parsed = PARSED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((seen, result)) = parsed.as_ref()
        && *seen == text
    {
        return result.clone();
    }
    let result = parse(&text, &fail);
    *parsed = Some((text, result.clone()));
    result
}

/// The servers a manifest pins, or why it does not load.
type Loaded = Result<Vec<Server>, ManifestError>;

fn parse(text: &str, fail: &dyn Fn(Option<u64>, String) -> ManifestError) -> Loaded {
    let value: Value = crate::yaml::from_str(text).map_err(|e| fail(e.location().map(|l| l.line()), format!("not a manifest: {}", crate::yaml::message(&e))))?;
    if let Some((line, message)) = crate::schemas::check(crate::schemas::Format::McpServers, text, &value).into_iter().next() {
        return Err(fail(line, message));
    }
    let parsed: ManifestFile = crate::yaml::from_str(text).map_err(|e| fail(e.location().map(|l| l.line()), format!("not a manifest: {}", crate::yaml::message(&e))))?;
    let mut servers: Vec<Server> = Vec::new();
    for spanned in parsed.servers {
        let line = Some(spanned.referenced.line());
        let e = spanned.value;
        if !valid_name(&e.name) {
            return Err(fail(line, format!("server name `{}` must be lower-case letters, digits and `-` (it names corpus/mcp/{}.json)", e.name, e.name)));
        }
        if servers.iter().any(|s| s.name == e.name) {
            return Err(fail(line, format!("server `{}` is named twice", e.name)));
        }
        if !exact_version(&e.version) {
            return Err(fail(line, format!("server `{}`: version `{}` is not one exact version", e.name, e.version)));
        }
        if e.run.first().is_none_or(String::is_empty) {
            return Err(fail(line, format!("server `{}`: `run` needs a program", e.name)));
        }
        servers.push(Server { name: e.name, registry: e.registry, package: e.package, version: e.version, run: e.run, env: e.env, line });
    }
    Ok(servers)
}

/// What `lint` says of the manifest: that it does not load, or names a server whose harvested
/// file is missing (a project without a manifest has nothing to say). The harvested files
/// themselves are corpus files, checked as they load.
#[must_use]
pub fn lint(root: &Path) -> Vec<ManifestError> {
    if std::fs::symlink_metadata(root.join(MANIFEST)).is_err() {
        return Vec::new();
    }
    match load(root) {
        Err(e) => vec![e],
        Ok(servers) => servers
            .iter()
            .filter(|s| std::fs::symlink_metadata(root.join(super::harvest::DIR).join(format!("{}.json", s.name))).is_err())
            .map(|s| ManifestError {
                file: PathBuf::from(MANIFEST),
                line: s.line,
                message: format!("server `{}` is pinned, but {}/{}.json is missing: run `schema-fidelity harvest --server {}`", s.name, super::harvest::DIR, s.name, s.name),
            })
            .collect(),
    }
}

/// Where the pins of the manifest disagree with what installs the servers: an npm server whose
/// package `translators/external/mcp-servers/package.json` does not pin at its version, a PyPI
/// server `requirements.txt` does not pin (as `name==version`), a dependency in `package.json`
/// that no server names. Each problem names the manifest line.
#[must_use]
pub fn check_pins(root: &Path, servers: &[Server]) -> Vec<ManifestError> {
    let mut problems = Vec::new();
    let at = |s: &Server, message: String| ManifestError { file: PathBuf::from(MANIFEST), line: s.line, message };
    let dir = root.join(INSTALL_DIR);
    let package_json = std::fs::read_to_string(dir.join("package.json")).ok().and_then(|t| crate::json::parse(&t).ok());
    let dependencies = package_json.as_ref().and_then(|p| p.get("dependencies")).and_then(Value::as_object);
    let requirements = std::fs::read_to_string(dir.join("requirements.txt")).unwrap_or_default();
    let pinned: BTreeMap<String, &str> = requirements
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter_map(|l| l.split_once("=="))
        .map(|(name, version)| (normalize(name), version.trim()))
        .collect();
    for s in servers {
        match s.registry {
            Registry::Npm => match dependencies.and_then(|d| d.get(&s.package)).and_then(Value::as_str) {
                Some(v) if v == s.version => {}
                Some(v) => problems.push(at(s, format!("`{}` pins {} {}, but {INSTALL_DIR}/package.json pins {v}", s.name, s.package, s.version))),
                None => problems.push(at(s, format!("`{}`: {} is not a dependency in {INSTALL_DIR}/package.json", s.name, s.package))),
            },
            Registry::PyPi => match pinned.get(&normalize(&s.package)) {
                Some(v) if *v == s.version => {}
                Some(v) => problems.push(at(s, format!("`{}` pins {} {}, but {INSTALL_DIR}/requirements.txt pins {v}", s.name, s.package, s.version))),
                None => problems.push(at(s, format!("`{}`: {} is not pinned (`name==version`) in {INSTALL_DIR}/requirements.txt", s.name, s.package))),
            },
        }
    }
    for name in dependencies.into_iter().flat_map(|d| d.keys()) {
        if !servers.iter().any(|s| s.registry == Registry::Npm && &s.package == name) {
            problems.push(ManifestError { file: PathBuf::from(MANIFEST), line: None, message: format!("{INSTALL_DIR}/package.json depends on {name}, which no server of the manifest names") });
        }
    }
    problems
}

/// A PyPI name as the index compares names (PEP 503): lower case, runs of `-`, `_`, `.` as one `-`.
fn normalize(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The version of `server`'s package installed here.
///
/// # Errors
/// A sentence saying it is not installed, with the command that installs it.
pub fn installed_version(root: &Path, server: &Server) -> Result<String, String> {
    let dir = root.join(INSTALL_DIR);
    let missing = || format!("{} ({}) is not installed in {INSTALL_DIR}; install it with: {}", server.package, server.registry.name(), server.registry.install());
    match server.registry {
        Registry::Npm => {
            let text = std::fs::read_to_string(dir.join("node_modules").join(&server.package).join("package.json")).map_err(|_| missing())?;
            let value = crate::json::parse(&text).map_err(|_| missing())?;
            value.get("version").and_then(Value::as_str).map(str::to_owned).ok_or_else(missing)
        }
        Registry::PyPi => {
            let wanted = normalize(&server.package);
            let lib = dir.join(".venv").join("lib");
            for python in std::fs::read_dir(&lib).map_err(|_| missing())?.flatten() {
                for entry in std::fs::read_dir(python.path().join("site-packages")).into_iter().flatten().flatten() {
                    if !entry.file_name().to_string_lossy().ends_with(".dist-info") {
                        continue;
                    }
                    let Ok(metadata) = std::fs::read_to_string(entry.path().join("METADATA")) else { continue };
                    let field = |key: &str| metadata.lines().take_while(|l| !l.is_empty()).find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_owned());
                    if field("Name:").is_some_and(|n| normalize(&n) == wanted) {
                        return field("Version:").ok_or_else(missing);
                    }
                }
            }
            Err(missing())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_versions_and_pypi_names() {
        assert!(valid_name("filesystem") && valid_name("aws-docs") && valid_name("7zip"));
        assert!(!valid_name("") && !valid_name("-x") && !valid_name("Files") && !valid_name("a/b") && !valid_name("a.json"));
        assert!(exact_version("2026.8.31") && exact_version("0.0.1a8") && exact_version("1.0.0-beta.1"));
        assert!(!exact_version("^1.2.3") && !exact_version("latest") && !exact_version(">=1") && !exact_version("1.x || 2"));
        assert_eq!(normalize("awslabs.aws-documentation_MCP--server"), "awslabs-aws-documentation-mcp-server");
    }
}
