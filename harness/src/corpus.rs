//! The corpus: schema cases with instances and their expected validity.
//!
//! Two sources feed it:
//!
//! - **own cases**, YAML or JSON files under `corpus/`, each a list of named cases:
//!
//!   ```yaml
//!   description: what the file guards
//!   cases:
//!     - name: const-kept
//!       description: a fixed-value parameter
//!       issues: ["TRACKING.md#sf-1312"]
//!       schema: { type: object, properties: { mode: { const: fast } }, required: [mode] }
//!       instances:
//!         - { data: { mode: fast }, valid: true }
//!         - { data: { mode: slow }, valid: false }
//!   ```
//!
//!   Files under `corpus/mcp/` are the tools of real MCP servers, written by `schema-fidelity
//!   harvest` in a format of their own, without instances ([`crate::mcp::harvest`]).
//!
//! - **the JSON-Schema-Test-Suite** draft 2020-12, read in its own format. Tool schemas have an
//!   object root, so a suite schema whose root is not `type: "object"` is wrapped as the property
//!   `value` of an object root (given its own `$id` so that its `#` references still resolve to
//!   itself), and each instance `x` becomes `{"value": x}`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use serde_saphyr::Spanned;
use walkdir::WalkDir;

/// The start of the `$id` the harness gives a wrapped suite case's schema (CONTRACT §8): a grammar
/// offence at such an `$id` is the harness's, not the translator's.
pub const WRAPPED_ID_PREFIX: &str = "urn:schema-fidelity:";

/// One schema case.
#[derive(Debug, Clone)]
pub struct Case {
    /// `corpus/relative/path.yaml::name` or `jsts/relative/path.json::slug`: the trial name suffix.
    pub id: String,
    /// The file the case comes from (for messages).
    pub file: PathBuf,
    pub line: Option<u64>,
    pub description: String,
    pub issues: Vec<String>,
    pub schema: Value,
    pub instances: Vec<Instance>,
    pub origin: Origin,
    /// Whether `format` is an assertion when validating this case. Own cases assert formats (a
    /// format is a constraint the model is told, so dropping it widens); the suite asserts them
    /// only in `optional/format/`, as its README specifies.
    pub assert_formats: bool,
}

/// Where a case comes from, which decides how a disagreement with its expectations is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Our own corpus: an instance whose expected validity is wrong is a bad case (a failure).
    Own,
    /// The JSON-Schema-Test-Suite: where the validator disagrees with the suite, the case is skipped
    /// with the reason (a validator limitation, not a translator defect).
    Suite { wrapped: bool },
}

/// One instance with its expected validity under the source schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub description: String,
    pub data: Value,
    pub valid: bool,
}

/// A corpus file that could not be read, or a case in it that is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusError {
    /// `corpus/relative/path.yaml`, the name of the failing trial.
    pub id: String,
    pub file: PathBuf,
    pub line: Option<u64>,
    pub message: String,
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnFile {
    #[serde(default)]
    #[allow(dead_code)] // read by people; kept so `deny_unknown_fields` accepts it
    description: Option<String>,
    #[serde(default)]
    issues: Vec<String>,
    cases: Vec<Spanned<OwnCase>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnCase {
    name: String,
    description: String,
    #[serde(default)]
    issues: Vec<String>,
    schema: Value,
    #[serde(default)]
    instances: Vec<OwnInstance>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnInstance {
    #[serde(default)]
    description: Option<String>,
    data: Value,
    valid: bool,
}

/// Is `path` a corpus file?
fn is_case_file(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json"))
}

/// A folder of corpus files. A case's id is its file's path relative to `base`, then its name
/// (`corpus/keywords.yaml::const-string`), so the built-in corpus keeps the ids it has here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusDir {
    pub base: PathBuf,
    pub dir: PathBuf,
    /// The corpus built into the binary (its files are shown as `corpus/...`, built in).
    pub built_in: bool,
}

/// The corpus files under a corpus folder, sorted, as (id prefix: the path relative to the
/// folder's base, path).
#[must_use]
pub fn own_files(corpus: &CorpusDir) -> Vec<(String, PathBuf)> {
    WalkDir::new(&corpus.dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        // Anything with a corpus file's name but a directory: a symlink or a special file is read
        // (through the input budget) and answered, never skipped without a word.
        .filter(|e| !e.file_type().is_dir() && is_case_file(e.path()))
        // The pins of the harvested MCP servers, not cases (crate::mcp::manifest).
        .filter(|e| e.path() != corpus.base.join(crate::mcp::manifest::MANIFEST))
        .map(|e| {
            let rel = e.path().strip_prefix(&corpus.base).unwrap_or(e.path());
            (slash_path(rel), e.path().to_owned())
        })
        .collect()
}

/// Load one own-corpus file.
///
/// # Errors
/// A [`CorpusError`] naming the file (and line where known) when it cannot be read or parsed, or a
/// case is malformed (duplicated name, no instances).
pub fn load_own_file(id_prefix: &str, path: &Path) -> Result<Vec<Case>, CorpusError> {
    let fail = |line: Option<u64>, message: String| CorpusError { id: id_prefix.to_owned(), file: path.to_owned(), line, message };
    // What `schema-fidelity harvest` wrote from real MCP servers: its own format, no instances
    // (the generator draws them), checked against the servers' pins.
    if let Some(root) = crate::mcp::harvest::harvested_root(id_prefix, path) {
        let cases = crate::mcp::harvest::load_file(id_prefix, path, &root).map_err(|(line, message)| fail(line, message))?;
        return Ok(cases
            .into_iter()
            .map(|c| Case {
                id: format!("{id_prefix}::{}", c.name),
                file: path.to_owned(),
                line: c.line,
                description: c.description,
                issues: Vec::new(),
                schema: c.schema,
                instances: Vec::new(),
                origin: Origin::Own,
                assert_formats: true,
            })
            .collect());
    }
    let budgets = crate::budget::settled().map_err(|e| fail(None, e))?;
    let text = crate::budget::read_text(path, budgets).map_err(|e| fail(None, e))?;
    let is_json = path.extension().is_some_and(|e| e == "json");
    let file: OwnFile = if is_json {
        // JSON files carry no per-case line; the reader bounds nesting and rejects duplicate keys
        // and integers it would round, as it does for `check`.
        let raw: Value = crate::json::parse(&text).map_err(|e| fail(Some(e.line as u64), format!("column {}: {}", e.column, e.message)))?;
        from_json_value(raw).map_err(|e| fail(None, format!("not a corpus file: {e}")))?
    } else {
        crate::yaml::from_str(&text).map_err(|e| {
            let line = e.location().map(|l| l.line());
            fail(line, format!("not a corpus file: {}", crate::yaml::message(&e)))
        })?
    };
    // The format as a JSON Schema (schemas/corpus.schema.json, what editors read).
    let value: Option<Value> = if is_json { crate::json::parse(&text).ok() } else { crate::yaml::from_str(&text).ok() };
    if let Some((line, message)) = value.and_then(|v| crate::schemas::check(crate::schemas::Format::Corpus, &text, &v).into_iter().next()) {
        return Err(fail(if is_json { None } else { line }, message));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut cases = Vec::new();
    for spanned in file.cases {
        let line = (!is_json).then(|| spanned.referenced.line());
        let c = spanned.value;
        if !seen.insert(c.name.clone()) {
            return Err(fail(line, format!("case name `{}` is used twice in this file", c.name)));
        }
        if c.name.contains("::") || c.name.trim().is_empty() {
            return Err(fail(line, format!("case name `{}` must be non-empty and may not contain `::`", c.name)));
        }
        // A case name becomes a trial name, printed raw by the test runner: no escape sequences.
        if c.name.chars().any(char::is_control) {
            return Err(fail(line, format!("case name {} may not contain control characters", Value::from(c.name.as_str()))));
        }
        if c.instances.is_empty() {
            return Err(fail(line, format!("case `{}` has no instances", c.name)));
        }
        // Before any trial runs it: an enum of 100,000 values or a `$ref` chain thousands long
        // would cost every translator minutes (or overflow a stack) instead of one clear error.
        crate::budget::check_schema(&c.schema, budgets).map_err(|e| fail(line, format!("case `{}`: {e}", c.name)))?;
        let mut issues = file.issues.clone();
        issues.extend(c.issues);
        cases.push(Case {
            id: format!("{id_prefix}::{}", c.name),
            file: path.to_owned(),
            line,
            description: c.description,
            issues,
            schema: c.schema,
            instances: c
                .instances
                .into_iter()
                .enumerate()
                .map(|(i, inst)| Instance { description: inst.description.unwrap_or_else(|| format!("instance {i}")), data: inst.data, valid: inst.valid })
                .collect(),
            origin: Origin::Own,
            assert_formats: true,
        });
    }
    Ok(cases)
}

/// What every trial of an own case checks before its translator runs: the schema compiles here
/// (meta-valid draft 2020-12, offline), and each instance has the validity the case claims. For
/// `lint`, so that a broken case is found before a run fails it once per translator.
///
/// # Errors
/// The first problem, with the case's file and line.
pub fn check_case(case: &Case, env: &crate::validation::Env) -> Result<(), CorpusError> {
    let fail = |message: String| CorpusError { id: case.id.clone(), file: case.file.clone(), line: case.line, message };
    let name = case.id.rsplit_once("::").map_or(case.id.as_str(), |(_, n)| n);
    let source = crate::validation::compile(&case.schema, env, case.assert_formats).map_err(|e| fail(format!("case `{name}`: the schema {e}")))?;
    for instance in &case.instances {
        let accepted = source.is_valid(&instance.data);
        if accepted != instance.valid {
            return Err(fail(format!(
                "case `{name}`: instance `{}` ({}) is claimed {} but the schema {} it",
                instance.description,
                instance.data,
                if instance.valid { "valid" } else { "invalid" },
                if accepted { "accepts" } else { "rejects" }
            )));
        }
    }
    Ok(())
}

/// Shape JSON input like YAML input: the same structs, without spans (lines are unknown).
fn from_json_value(raw: Value) -> Result<OwnFile, serde_json::Error> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct JsonFile {
        #[serde(default)]
        description: Option<String>,
        #[serde(default)]
        issues: Vec<String>,
        cases: Vec<OwnCase>,
    }
    let f: JsonFile = serde_json::from_value(raw)?;
    let unknown = serde_saphyr::Location::UNKNOWN;
    Ok(OwnFile {
        description: f.description,
        issues: f.issues,
        cases: f.cases.into_iter().map(|c| Spanned::new(c, unknown, unknown)).collect(),
    })
}

// ---- the JSON-Schema-Test-Suite --------------------------------------------------------------

/// Where the suite lives and what it holds.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The suite's root (holding `tests/` and `remotes/`).
    pub root: PathBuf,
}

impl Suite {
    /// The draft 2020-12 test directory.
    #[must_use]
    pub fn tests_dir(&self) -> PathBuf {
        self.root.join("tests").join("draft2020-12")
    }

    /// The `remotes/` directory, served as `http://localhost:1234/`.
    #[must_use]
    pub fn remotes_dir(&self) -> PathBuf {
        self.root.join("remotes")
    }

    /// The suite files, sorted, as (id prefix, path).
    #[must_use]
    pub fn files(&self) -> Vec<(String, PathBuf)> {
        let dir = self.tests_dir();
        WalkDir::new(&dir)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json"))
            .map(|e| {
                let rel = e.path().strip_prefix(&dir).unwrap_or(e.path());
                (format!("jsts/{}", slash_path(rel)), e.path().to_owned())
            })
            .collect()
    }
}

#[derive(Deserialize)]
struct SuiteCase {
    description: String,
    schema: Value,
    tests: Vec<SuiteTest>,
}

#[derive(Deserialize)]
struct SuiteTest {
    description: String,
    data: Value,
    valid: bool,
}

/// The wrapper property that carries a non-object suite schema.
pub const WRAP_PROPERTY: &str = "value";

/// Load one suite file.
///
/// # Errors
/// A [`CorpusError`] when the file is not in the suite's format.
pub fn load_suite_file(id_prefix: &str, path: &Path) -> Result<Vec<Case>, CorpusError> {
    let fail = |message: String| CorpusError { id: id_prefix.to_owned(), file: path.to_owned(), line: None, message };
    let text = crate::budget::read_text(path, crate::budget::current()).map_err(fail)?;
    let raw: Vec<SuiteCase> = serde_json::from_str(&text).map_err(|e| fail(format!("not a suite file: {e}")))?;
    let mut used = std::collections::BTreeMap::<String, usize>::new();
    Ok(raw
        .into_iter()
        .enumerate()
        .map(|(index, c)| {
            let mut slug = slugify(&c.description);
            let n = used.entry(slug.clone()).or_default();
            *n += 1;
            if *n > 1 {
                slug = format!("{slug}-{n}");
            }
            let (schema, wrapped) = wrap(c.schema, &format!("{WRAPPED_ID_PREFIX}{id_prefix}:{index}"));
            let instances = c
                .tests
                .into_iter()
                .map(|t| Instance {
                    description: t.description,
                    data: if wrapped { json!({ WRAP_PROPERTY: t.data }) } else { t.data },
                    valid: t.valid,
                })
                .collect();
            Case {
                id: format!("{id_prefix}::{slug}"),
                file: path.to_owned(),
                line: None,
                description: c.description,
                issues: Vec::new(),
                schema,
                instances,
                origin: Origin::Suite { wrapped },
                assert_formats: id_prefix.starts_with("jsts/optional/format/"),
            }
        })
        .collect())
}

/// Give a suite schema an object root, as tool schemas have.
fn wrap(schema: Value, id: &str) -> (Value, bool) {
    if schema.get("type") == Some(&Value::from("object")) {
        return (schema, false);
    }
    let inner = match schema {
        Value::Object(mut map) => {
            if !map.contains_key("$id") {
                // A new resource boundary keeps `#`-relative references pointing at this schema.
                let mut with_id = Map::new();
                with_id.insert("$id".to_owned(), Value::from(id));
                with_id.append(&mut map);
                map = with_id;
            }
            Value::Object(map)
        }
        other => other,
    };
    (
        json!({
            "type": "object",
            "properties": { WRAP_PROPERTY: inner },
            "required": [WRAP_PROPERTY],
        }),
        true,
    )
}

fn slugify(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() { "case".to_owned() } else { out }
}

fn slash_path(p: &Path) -> String {
    p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}
