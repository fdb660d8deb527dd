//! Budgets: how much input the harness takes on before it says no, and how large an instance it
//! builds.
//!
//! Every command reads files and schemas it did not write: a user's tool schema (`check`), a
//! corpus someone contributed, a suite. Without bounds, one `required` list of 50,000 names or one
//! `minLength: 1000000000` costs gigabytes, and an enum of 100,000 values minutes. So each
//! dimension that drives time or memory has a named budget with a default that keeps a trial
//! under about a second on a 2-core machine, an environment variable to raise it, and an error
//! that names the budget, where it was exceeded and how to raise it:
//!
//! | budget | default | hard ceiling | variable |
//! |---|---|---|---|
//! | input size (one file read) | 4 MiB | 256 MiB | `SCHEMA_FIDELITY_MAX_INPUT_BYTES` |
//! | report size (one `report.json` read by `report --diff`) | 64 MiB | 256 MiB | `SCHEMA_FIDELITY_MAX_REPORT_BYTES` |
//! | schema size (JSON values in one schema) | 20,000 | 5,000,000 | `SCHEMA_FIDELITY_MAX_SCHEMA_NODES` |
//! | enum size (values of one `enum`) | 2,000 | 1,000,000 | `SCHEMA_FIDELITY_MAX_ENUM` |
//! | property count (`properties` of one object schema) | 300 | 100,000 | `SCHEMA_FIDELITY_MAX_PROPERTIES` |
//! | required length (names in one `required`) | 300 | 1,000,000 | `SCHEMA_FIDELITY_MAX_REQUIRED` |
//! | `$ref` chain (references, each inside the target of the one before) | 64 | 1,024 | `SCHEMA_FIDELITY_MAX_REF_CHAIN` |
//! | instance length (longest array built) | 4,096 | 16,384 | `SCHEMA_FIDELITY_MAX_INSTANCE_LENGTH` |
//! | string length (longest string built) | 262,144 | 1,048,576 | `SCHEMA_FIDELITY_MAX_STRING_LENGTH` |
//! | trial time (one trial's witness search, in seconds) | 30 | 3,600 | `SCHEMA_FIDELITY_MAX_TRIAL_SECONDS` |
//!
//! A variable is input like any other: a value that is not a whole number from 1 to the budget's
//! hard ceiling is a usage error naming the variable ([`Budgets::from_env`]), never a fallback to
//! the default. The ceilings are what keeps a setting from doing what a hostile schema cannot: a
//! string length of 2^64 - 1 overflowed an allocation, an input size of 2^64 - 1 let
//! `check /dev/zero` read gigabytes. The generators keep about a trial's draws in memory at once
//! (256 by default), so the instance and string ceilings are set for that many instances at the
//! ceiling to fit in about a gigabyte, and the `$ref` chain ceiling for the translators that
//! inline a chain recursively to stay well inside a thread's stack.
//!
//! The committed reports are made with the defaults: `report` refuses to write while a budget is
//! set to anything else ([`Budgets::departure`]), since a lower one turns corpus cases into
//! errors and a higher one draws other instances.
//!
//! Nesting is bounded too, but not here: JSON is read at most 128 levels deep (serde_json's limit)
//! and schemas are walked at most [`walk::MAX_DEPTH`] (also 128) levels deep; neither is a knob,
//! since recursion in the validators depends on it.
//!
//! The instance-length budget is different in kind: a schema may demand a string longer than it
//! (`minLength: 1000000000`), and that is not an error. Instances are simply never built beyond it;
//! `check` says that the bound is beyond the generator and compares on the instances it can build.
//!
//! The structural budgets apply to `check`'s schema and to every own corpus case (a case over
//! budget is a corpus error naming its file and line); the JSON-Schema-Test-Suite is read as it
//! is, its cases being small by construction.
//!
//! Memory follows from these; there is no separate knob for it. What the generators build is
//! bounded by the instance length and the schema's own size, and the witness plans and draws,
//! the candidate generator, applying a codec (`codec.rs` indexes its sites once per projection)
//! and the translators' enum handling are linear in an enum, a property list or a `required`
//! list. The hostile-input tests run every command under a 2 GiB address-space limit.
//!
//! Time follows from them too, but a search whose every draw is slow (a pattern the regex engine
//! takes long over, a schema just inside every budget) could still take minutes, so a trial's
//! witness search has a time budget of its own: past it the trial fails, naming the budget and
//! the draws it made, rather than pass on fewer draws than it claims. The default is a safety
//! net thirty times a slow trial's cost in a debug build, not a target; the property count
//! defaults to 300 because a debug-build `openai-strict` trial costs about 7 ms per property of
//! one object (2 s at 300) through its null-means-absent codec.

use std::collections::HashMap;
use std::fmt;
use std::io::Read as _;
use std::path::Path;
use std::sync::OnceLock;

use schema_fidelity_translators::{refs, walk};
use serde_json::Value;

/// One named budget.
#[derive(Debug, PartialEq, Eq)]
pub struct Budget {
    /// How messages name it.
    pub name: &'static str,
    /// The environment variable that raises (or lowers) it.
    pub env: &'static str,
    pub default: u64,
    /// The most any setting may ask for: what the harness can take on without an allocation
    /// beyond its means or an overflow.
    pub ceiling: u64,
    /// What is counted, for messages ("values", "bytes").
    pub unit: &'static str,
}

pub const INPUT_BYTES: Budget = Budget { name: "input size", env: "SCHEMA_FIDELITY_MAX_INPUT_BYTES", default: 4 << 20, ceiling: 256 << 20, unit: "bytes" };
/// A `report.json` is this tool's own output, with the attribution of every known trial: about
/// 10 MB for this repository's 49 translators, more than a schema a user hands `check` should be.
pub const REPORT_BYTES: Budget =
    Budget { name: "report size", env: "SCHEMA_FIDELITY_MAX_REPORT_BYTES", default: 64 << 20, ceiling: 256 << 20, unit: "bytes" };
pub const SCHEMA_NODES: Budget =
    Budget { name: "schema size", env: "SCHEMA_FIDELITY_MAX_SCHEMA_NODES", default: 20_000, ceiling: 5_000_000, unit: "JSON values" };
pub const ENUM_VALUES: Budget = Budget { name: "enum size", env: "SCHEMA_FIDELITY_MAX_ENUM", default: 2_000, ceiling: 1_000_000, unit: "values" };
pub const PROPERTIES: Budget =
    Budget { name: "property count", env: "SCHEMA_FIDELITY_MAX_PROPERTIES", default: 300, ceiling: 100_000, unit: "properties" };
pub const REQUIRED: Budget = Budget { name: "required length", env: "SCHEMA_FIDELITY_MAX_REQUIRED", default: 300, ceiling: 1_000_000, unit: "names" };
pub const REF_CHAIN: Budget = Budget {
    name: "$ref chain",
    env: "SCHEMA_FIDELITY_MAX_REF_CHAIN",
    default: 64,
    ceiling: 1_024,
    unit: "references, each inside the target of the one before",
};
pub const INSTANCE_LENGTH: Budget =
    Budget { name: "instance length", env: "SCHEMA_FIDELITY_MAX_INSTANCE_LENGTH", default: 4096, ceiling: 16_384, unit: "characters or items" };
pub const STRING_LENGTH: Budget =
    Budget { name: "string length", env: "SCHEMA_FIDELITY_MAX_STRING_LENGTH", default: 262_144, ceiling: 1 << 20, unit: "characters" };
pub const TRIAL_SECONDS: Budget = Budget { name: "trial time", env: "SCHEMA_FIDELITY_MAX_TRIAL_SECONDS", default: 30, ceiling: 3_600, unit: "seconds" };

/// Every budget, in the order the documentation lists them.
pub const ALL: [&Budget; 10] =
    [&INPUT_BYTES, &REPORT_BYTES, &SCHEMA_NODES, &ENUM_VALUES, &PROPERTIES, &REQUIRED, &REF_CHAIN, &INSTANCE_LENGTH, &STRING_LENGTH, &TRIAL_SECONDS];

/// The budgets of a run: the defaults, with what the environment overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budgets {
    limits: HashMap<&'static str, u64>,
}

impl Default for Budgets {
    fn default() -> Self {
        Self { limits: ALL.iter().map(|b| (b.env, b.default)).collect() }
    }
}

impl Budgets {
    /// The defaults, overridden by the environment.
    ///
    /// # Errors
    /// The first variable that is set but is not a whole number from 1 to its budget's hard
    /// ceiling, named: a budget the user asked for and did not get would be a silent change of
    /// what is checked, and one beyond the ceiling an allocation the harness cannot make.
    pub fn from_env() -> Result<Self, String> {
        Self::from_vars(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
    }

    /// The defaults, overridden by what `var` gives for each budget's variable.
    ///
    /// # Errors
    /// As [`Budgets::from_env`].
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let mut budgets = Self::default();
        for b in ALL {
            if let Some(text) = var(b.env) {
                budgets.set(b, parse_limit(b, &text)?);
            }
        }
        Ok(budgets)
    }

    /// The budgets set to something other than their default, as `VARIABLE=value`, or `None`.
    /// The committed reports are made with the defaults: a run that departs from them may judge
    /// the corpus differently (a lower budget turns a case into a corpus error, a higher string
    /// or instance length draws other instances), so its reports must not replace them.
    #[must_use]
    pub fn departure(&self) -> Option<String> {
        let set: Vec<String> = ALL.iter().filter(|b| self.get(b) != b.default).map(|b| format!("{}={}", b.env, self.get(b))).collect();
        (!set.is_empty()).then(|| set.join(", "))
    }

    /// The limit of `budget`.
    #[must_use]
    pub fn get(&self, budget: &Budget) -> u64 {
        self.limits.get(budget.env).copied().unwrap_or(budget.default)
    }

    /// Set the limit of `budget` (for tests and callers that take it from elsewhere).
    pub fn set(&mut self, budget: &Budget, limit: u64) {
        self.limits.insert(budget.env, limit);
    }

    /// `found` against `budget`: an error at `pointer` when it is over.
    fn allow(&self, budget: &'static Budget, found: u64, pointer: Option<&str>, what: &str) -> Result<(), Exceeded> {
        let limit = self.get(budget);
        if found > limit { Err(Exceeded { budget, limit, found, pointer: pointer.map(str::to_owned), what: what.to_owned() }) } else { Ok(()) }
    }
}

/// Parse one budget variable's value: a whole number from 1 to the budget's ceiling.
fn parse_limit(b: &Budget, text: &str) -> Result<u64, String> {
    let what = format!("the {} budget, in {}; default {}", b.name, b.unit, b.default);
    let beyond = || Err(format!("{}={text:?} is beyond the hard ceiling of {} ({what}): no setting may pass it", b.env, b.ceiling));
    match text.trim().parse::<u64>() {
        Ok(n) if n > b.ceiling => beyond(),
        Ok(n) if n > 0 => Ok(n),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => beyond(),
        _ => Err(format!("{}={text:?} is not a positive whole number ({what}, at most {})", b.env, b.ceiling)),
    }
}

/// The budgets of this process, settled once: [`install`]ed by the CLI from the settings it
/// parsed, or else read from the environment on first use.
static CURRENT: OnceLock<Result<Budgets, String>> = OnceLock::new();

/// Make `budgets` the budgets of this process ([`current`]). The CLI calls it once, with the
/// budgets of its [`crate::settings::Settings`], before anything reads a file; it has no effect
/// once the budgets are settled.
pub fn install(budgets: Budgets) {
    let _ = CURRENT.set(Ok(budgets));
}

/// The budgets of this process, or why the environment gives none (a variable that is not a
/// valid setting), read from the environment once per process unless [`install`]ed first.
///
/// # Errors
/// The invalid variable, named.
pub fn settled() -> Result<&'static Budgets, String> {
    CURRENT.get_or_init(Budgets::from_env).as_ref().map_err(Clone::clone)
}

/// The budgets of this process ([`settled`]); the defaults when a variable is invalid, which the
/// CLI has already refused with a usage error and the corpus loader reports as an error of
/// every file it reads.
#[must_use]
pub fn current() -> &'static Budgets {
    static DEFAULTS: OnceLock<Budgets> = OnceLock::new();
    settled().unwrap_or_else(|_| DEFAULTS.get_or_init(Budgets::default))
}

/// The longest string or array the generators build ([`INSTANCE_LENGTH`]).
#[must_use]
pub fn instance_length() -> u64 {
    current().get(&INSTANCE_LENGTH)
}

/// The longest string the generators build ([`STRING_LENGTH`]). Strings are built as a short
/// random head and one repeated character, so a `maxLength: 100000` (a real `write-file` tool) is
/// probed at its bound for the cost of a copy; arrays, whose items are each drawn, keep the
/// smaller [`INSTANCE_LENGTH`].
#[must_use]
pub fn string_length() -> u64 {
    current().get(&STRING_LENGTH)
}

/// The longest a trial's witness search may take ([`TRIAL_SECONDS`]).
#[must_use]
pub fn trial_time() -> std::time::Duration {
    std::time::Duration::from_secs(current().get(&TRIAL_SECONDS))
}

/// A budget exceeded: which, by how much, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exceeded {
    pub budget: &'static Budget,
    pub limit: u64,
    pub found: u64,
    /// JSON pointer of the schema node, or `None` for the schema as a whole.
    pub pointer: Option<String>,
    /// What was counted, in words ("`enum`", "the file").
    pub what: String,
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = match self.pointer.as_deref() {
            None => String::new(),
            Some("") => " at the root".to_owned(),
            Some(p) => format!(" at `{p}`"),
        };
        write!(f, "{}{at} has {} {}, beyond the {} budget of {}", self.what, self.found, self.budget.unit, self.budget.name, self.limit)?;
        if self.found > self.budget.ceiling {
            write!(f, " (and beyond its hard ceiling of {}, which {} cannot pass)", self.budget.ceiling, self.budget.env)
        } else {
            write!(f, " (raise it with {}={})", self.budget.env, self.found)
        }
    }
}

/// Read a file the user or a contributor wrote, at most [`INPUT_BYTES`] of it: a huge file is an
/// error naming the budget, never an allocation of its size, and only a regular file is read
/// ([`read_limited`]).
///
/// # Errors
/// The read error, the budget exceeded, a file that is not a regular file, or text that is not
/// UTF-8, as a sentence without the file name (the caller names it).
pub fn read_text(path: &Path, budgets: &Budgets) -> Result<String, String> {
    let bytes = read_limited(path, budgets.get(&INPUT_BYTES))?;
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

/// Read at most `limit` bytes of the regular file at `path` (symbolic links followed).
///
/// Every file a command reads goes through here, so that none can make it wait or grow without
/// bound: a device (`/dev/zero` never ends), a FIFO (opening one waits for a writer, forever if
/// none comes) or a directory is refused before it is opened, and opened without blocking in case
/// the path is swapped for one in between; a file longer than `limit` is an error naming the
/// [`INPUT_BYTES`] budget, read no further than that.
///
/// # Errors
/// As [`read_text`], without the UTF-8 check.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    read_limited_by(path, limit, &INPUT_BYTES)
}

/// Read a `report.json` at most [`REPORT_BYTES`] long, as [`read_text`] does.
///
/// # Errors
/// As [`read_text`].
pub fn read_report(path: &Path, budgets: &Budgets) -> Result<String, String> {
    let bytes = read_limited_by(path, budgets.get(&REPORT_BYTES), &REPORT_BYTES)?;
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

/// [`read_limited`], the error naming `budget`.
fn read_limited_by(path: &Path, limit: u64, budget: &Budget) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    regular(&meta)?;
    let nonblocking = i32::try_from(rustix::fs::OFlags::NONBLOCK.bits()).unwrap_or(0);
    let file = std::fs::OpenOptions::new().read(true).custom_flags(nonblocking).open(path).map_err(|e| format!("cannot read: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    regular(&meta)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        let size = if meta.len() > limit { format!("{} bytes", meta.len()) } else { "more than that".to_owned() };
        return Err(format!(
            "the file is larger than the {} budget of {limit} bytes ({size}; raise it with {}=N, at most {})",
            budget.name, budget.env, budget.ceiling
        ));
    }
    Ok(bytes)
}

/// An error unless `meta` is a regular file's, saying what it is instead.
fn regular(meta: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt as _;
    let t = meta.file_type();
    let what = if t.is_file() {
        return Ok(());
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (a named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    };
    Err(format!("is {what}, not a regular file: only regular files are read (a device or a pipe may never end)"))
}

/// Check one schema against the structural budgets: its size, every `enum`, `properties` and
/// `required`, and every chain of `$ref`s. Iterative; linear in the size of the schema.
///
/// # Errors
/// The first budget exceeded, with the pointer of the node; a schema nested deeper than
/// [`walk::MAX_DEPTH`] is reported as such.
pub fn check_schema(schema: &Value, budgets: &Budgets) -> Result<(), String> {
    let nodes = count_values(schema);
    budgets.allow(&SCHEMA_NODES, nodes, None, "the schema").map_err(|e| e.to_string())?;
    let occurrences = walk::occurrences(schema).map_err(|e| e.to_string())?;
    for o in &occurrences {
        let result = match (o.keyword, o.value) {
            ("enum", Value::Array(values)) => budgets.allow(&ENUM_VALUES, values.len() as u64, Some(&o.pointer), "`enum`"),
            ("properties", Value::Object(properties)) => budgets.allow(&PROPERTIES, properties.len() as u64, Some(&o.pointer), "`properties`"),
            ("required", Value::Array(names)) => budgets.allow(&REQUIRED, names.len() as u64, Some(&o.pointer), "`required`"),
            _ => Ok(()),
        };
        result.map_err(|e| e.to_string())?;
    }
    check_ref_chains(schema, &occurrences, budgets)
}

/// Every JSON value in `value` (itself included), counted without recursion.
fn count_values(value: &Value) -> u64 {
    let mut count = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}

/// The longest chain of references, each found inside the target of the one before: directly (a
/// `$ref` whose target is itself a `$ref`) or deeper (a definition whose `items` refers to the next
/// definition). Translators and generators inline or follow such chains, often recursively, so
/// their length is what costs time and stack; a cycle (a recursive schema) is followed once
/// around, as the validators follow it lazily.
///
/// References are resolved by the project's one resolver ([`refs::Resolver::follow`]), from
/// the position each is written at: JSON pointers and anchors in the enclosing resource, and URI
/// references to resources embedded in the document; another document is never fetched, so a
/// reference to one ends its chain. The references form a graph between their targets; its
/// strongly connected components (Tarjan, iteratively) are weighted by their size, and the longest
/// path is found over the components in reverse topological order. Linear in the schema, times
/// its depth for nested targets and for finding the resource around each reference.
struct RefGraph<'a> {
    resolver: refs::Resolver<'a>,
    /// Targets by address (two pointers to one node are one target), with their index.
    index: HashMap<*const Value, usize>,
    /// Each target and its document pointer (where the references inside it are written).
    targets: Vec<(&'a Value, String)>,
    edges: Vec<Vec<usize>>,
}

impl<'a> RefGraph<'a> {
    /// What `reference`, written at the schema position `at`, leads to, with its pointer: data
    /// too ([`refs::Resolver::follow`]), since the generator follows that as well.
    fn target(&self, reference: &Value, at: &str) -> Option<(&'a Value, String)> {
        self.resolver.follow(reference.as_str()?, at).map(|(pointer, value)| (value, pointer))
    }

    fn node(&mut self, (target, pointer): (&'a Value, String)) -> usize {
        let key: *const Value = target;
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        self.targets.push((target, pointer));
        self.edges.push(Vec::new());
        self.index.insert(key, self.targets.len() - 1);
        self.targets.len() - 1
    }

    /// The graph of every target reachable from the references in `refs` (each a `$ref` value
    /// and the pointer of the node holding it).
    fn build(resolver: refs::Resolver<'a>, refs: &[(&'a Value, &str)]) -> (Self, Vec<Option<usize>>) {
        let mut g = Self { resolver, index: HashMap::new(), targets: Vec::new(), edges: Vec::new() };
        let starts: Vec<Option<usize>> = refs.iter().map(|(r, at)| g.target(r, at).map(|t| g.node(t))).collect();
        let mut next = 0;
        while next < g.targets.len() {
            let (value, pointer) = &g.targets[next];
            // Occurrence pointers are relative to the target; the resolver reads them in the document.
            let inner: Vec<(&'a Value, String)> = walk::occurrences(value)
                .map(|os| {
                    os.into_iter().filter(|o| o.keyword == "$ref").filter_map(|o| g.target(o.value, &format!("{pointer}{}", o.pointer))).collect()
                })
                .unwrap_or_default();
            for t in inner {
                let j = g.node(t);
                g.edges[next].push(j);
            }
            next += 1;
        }
        (g, starts)
    }

    /// For every target, the most references a chain entering it follows.
    fn longest(&self) -> Vec<u64> {
        let n = self.targets.len();
        let components = schema_fidelity_translators::graph::strongly_connected_components(&self.edges);
        let mut component = vec![usize::MAX; n];
        for (c, members) in components.iter().enumerate() {
            for &v in members {
                component[v] = c;
            }
        }
        // Components come out successors first, so each one's successors are already measured.
        let mut best = vec![0u64; components.len()];
        for (c, members) in components.iter().enumerate() {
            let after = members.iter().flat_map(|&v| &self.edges[v]).map(|&w| component[w]).filter(|&d| d != c).map(|d| best[d]).max().unwrap_or(0);
            best[c] = members.len() as u64 + after;
        }
        (0..n).map(|v| best[component[v]]).collect()
    }
}

/// The reference chain budget over every `$ref` of `schema` (given its occurrences).
///
/// # Errors
/// The budget exceeded, or a schema too deep to index (which [`walk::occurrences`] has already
/// reported when it gave the occurrences; said the same way in case it did not).
fn check_ref_chains(schema: &Value, occurrences: &[walk::Occurrence<'_>], budgets: &Budgets) -> Result<(), String> {
    let refs: Vec<&walk::Occurrence<'_>> = occurrences.iter().filter(|o| o.keyword == "$ref").collect();
    if refs.is_empty() {
        return Ok(());
    }
    let resolver = refs::Resolver::new(schema).map_err(|e| e.to_string())?;
    let values: Vec<(&Value, &str)> = refs.iter().map(|o| (o.value, o.pointer.as_str())).collect();
    let (graph, starts) = RefGraph::build(resolver, &values);
    let longest = graph.longest();
    // The longest chain is the one reported (the first of them, in document order).
    let longest_chain = refs.iter().zip(starts).map(|(o, start)| (start.map_or(1, |t| longest[t]), o)).rev().max_by_key(|(length, _)| *length);
    match longest_chain {
        Some((length, o)) => budgets.allow(&REF_CHAIN, length, Some(&o.pointer), "the `$ref` chain").map_err(|e| e.to_string()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn small() -> Budgets {
        let mut b = Budgets::default();
        b.set(&ENUM_VALUES, 3);
        b.set(&PROPERTIES, 2);
        b.set(&REQUIRED, 2);
        b.set(&REF_CHAIN, 3);
        b.set(&SCHEMA_NODES, 100);
        b
    }

    #[test]
    fn each_structural_budget_is_named_with_its_pointer_and_variable() {
        let b = small();
        let e = check_schema(&json!({"properties": {"a": {"enum": [1, 2, 3, 4]}}}), &b).unwrap_err();
        assert!(e.contains("`enum` at `/properties/a` has 4 values, beyond the enum size budget of 3 (raise it with SCHEMA_FIDELITY_MAX_ENUM=4)"), "{e}");
        let e = check_schema(&json!({"properties": {"a": {}, "b": {}, "c": {}}}), &b).unwrap_err();
        assert!(e.contains("property count budget of 2") && e.contains("SCHEMA_FIDELITY_MAX_PROPERTIES"), "{e}");
        let e = check_schema(&json!({"items": {"required": ["a", "b", "c"]}}), &b).unwrap_err();
        assert!(e.contains("`required` at `/items` has 3 names"), "{e}");
        let e = check_schema(&json!({"const": (0..200).collect::<Vec<_>>()}), &b).unwrap_err();
        assert!(e.contains("the schema has 202 JSON values, beyond the schema size budget of 100"), "{e}");
        // Payload is not schema: an `enum` key inside a `const` is data.
        assert!(check_schema(&json!({"const": {"enum": [1, 2, 3, 4, 5]}}), &b).is_ok());
    }

    #[test]
    fn ref_chains_are_measured_without_recursion_and_cycles_end_them() {
        let b = small();
        // d0 -> d1 -> ... -> dn, each definition either a bare `$ref` or one inside `items`.
        let chain = |n: usize, nested: bool| {
            let mut defs = serde_json::Map::new();
            for i in 0..n {
                let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
                defs.insert(format!("d{i}"), if nested { json!({"type": "array", "items": next}) } else { next });
            }
            defs.insert(format!("d{n}"), json!({"type": "string"}));
            json!({"$defs": defs, "properties": {"a": {"$ref": "#/$defs/d0"}}})
        };
        // The property's `$ref` plus two in `$defs`: three in a row.
        assert!(check_schema(&chain(2, false), &b).is_ok());
        assert!(check_schema(&chain(2, true), &b).is_ok());
        for nested in [false, true] {
            let e = check_schema(&chain(3, nested), &b).unwrap_err();
            assert!(e.contains("the `$ref` chain at `/properties/a` has 4 references, each inside the target of the one before, beyond the $ref chain budget of 3"), "{e}");
            assert!(e.contains("SCHEMA_FIDELITY_MAX_REF_CHAIN"), "{e}");
        }
        let mut wide = Budgets::default();
        wide.set(&SCHEMA_NODES, 1_000_000);
        let e = check_schema(&chain(10_000, true), &wide).unwrap_err();
        assert!(e.contains("has 10001 references"), "{e}");
        // A cycle is followed once around: a recursive tree is one reference deep, a reference
        // into a cycle of two definitions is two.
        let tree = json!({"$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"});
        assert!(check_schema(&tree, &b).is_ok());
        let cycle = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"});
        assert!(check_schema(&cycle, &b).is_ok());
        let mut tight = small();
        tight.set(&REF_CHAIN, 1);
        assert!(check_schema(&tree, &tight).is_ok());
        let e = check_schema(&cycle, &tight).unwrap_err();
        assert!(e.contains("has 2 references"), "{e}");
    }

    /// Both fail before the budget used the shared resolver: its own followed only `#/...`
    /// pointers from the document root, so each chain below measured 1.
    #[test]
    fn ref_chains_run_through_anchors_and_embedded_resources() {
        let mut b = small();
        b.set(&REF_CHAIN, 2);
        // `#first` -> an anchored definition whose `items` refer to `#second` -> another anchor.
        let anchors = json!({
            "$defs": {"a": {"$anchor": "first", "items": {"$ref": "#second"}}, "b": {"$anchor": "second", "items": {"$ref": "#/$defs/c"}}, "c": {"type": "string"}},
            "$ref": "#first"
        });
        let e = check_schema(&anchors, &b).unwrap_err();
        assert!(e.contains("the `$ref` chain at the root has 3 references"), "{e}");
        // Into an embedded resource by its URI, then a fragment read in that resource (its own
        // `$defs`, not the root's), then back out by a relative URI.
        let embedded = json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "inner": {"$id": "nested/inner.json", "$defs": {"x": {"items": {"$ref": "../root.json#/$defs/end"}}}, "$ref": "#/$defs/x"},
                "x": {"type": "null"},
                "end": {"type": "string"}
            },
            "properties": {"p": {"$ref": "nested/inner.json"}}
        });
        let e = check_schema(&embedded, &b).unwrap_err();
        assert!(e.contains("the `$ref` chain at `/properties/p` has 3 references"), "{e}");
        b.set(&REF_CHAIN, 3);
        assert!(check_schema(&anchors, &b).is_ok() && check_schema(&embedded, &b).is_ok());
    }

    #[test]
    fn a_file_beyond_the_input_budget_is_not_read_whole() {
        let mut b = Budgets::default();
        b.set(&INPUT_BYTES, 10);
        let path = std::env::temp_dir().join(format!("schema-fidelity-budget-{}", std::process::id()));
        std::fs::write(&path, "x".repeat(100)).expect("write");
        let e = read_text(&path, &b).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert!(e.contains("larger than the input size budget of 10 bytes (100 bytes") && e.contains("SCHEMA_FIDELITY_MAX_INPUT_BYTES"), "{e}");
        // /dev/zero never ends, and a FIFO may never be written: neither is opened for reading.
        let e = read_text(Path::new("/dev/zero"), &b).unwrap_err();
        assert!(e.contains("is a device, not a regular file"), "{e}");
        let e = read_text(Path::new("/"), &b).unwrap_err();
        assert!(e.contains("is a directory, not a regular file"), "{e}");
    }

    #[test]
    fn a_budget_variable_is_a_whole_number_from_one_to_its_ceiling() {
        let vars = |name: &'static str, value: &'static str| move |n: &str| (n == name).then(|| value.to_owned());
        for bad in ["abc", "0", "-1", "", "1.5", "0x10"] {
            let e = Budgets::from_vars(vars("SCHEMA_FIDELITY_MAX_ENUM", bad)).unwrap_err();
            assert!(e.starts_with(&format!("SCHEMA_FIDELITY_MAX_ENUM={bad:?} is not a positive whole number")), "{e}");
        }
        for huge in ["18446744073709551615", "18446744073709551616", "1000001"] {
            let e = Budgets::from_vars(vars("SCHEMA_FIDELITY_MAX_ENUM", huge)).unwrap_err();
            assert!(e.contains("is beyond the hard ceiling of 1000000"), "{e}");
        }
        let at_ceiling = Budgets::from_vars(vars("SCHEMA_FIDELITY_MAX_STRING_LENGTH", "1048576")).expect("the ceiling itself is allowed");
        assert_eq!(at_ceiling.get(&STRING_LENGTH), STRING_LENGTH.ceiling);
        assert_eq!(at_ceiling.departure().as_deref(), Some("SCHEMA_FIDELITY_MAX_STRING_LENGTH=1048576"));
        let at_default = Budgets::from_vars(vars("SCHEMA_FIDELITY_MAX_ENUM", " 2000 ")).expect("the default, spelled out");
        assert_eq!(at_default.departure(), None, "the default value is no departure");
        for b in ALL {
            assert!(b.default <= b.ceiling, "{}", b.env);
        }
    }
}
