//! The projection cache: an external translator's answers kept on disk, so that a schema seen
//! before is answered without starting its adapter.
//!
//! A translator is a pure function of its code, its installed package and the schema: CONTRACT
//! §1 requires it, and the oracle checks it by translating every schema twice. An answer is
//! therefore kept once two translations of the same schema agreed (the determinism check still
//! runs, on every miss), and given again while nothing it depends on changed. What it depends on
//! is the adapter's *fingerprint*, a hash of:
//!
//! - the `run:` command, word by word;
//! - the program: a path's bytes are not read (an interpreter is tens of megabytes), its
//!   canonical path, size and modification time are; a program found on `PATH` likewise;
//! - a virtual environment the program lives in (`X/bin/python` beside `X/pyvenv.cfg`): the
//!   `pyvenv.cfg` and the names of the installed distributions (`*.dist-info`, which carry their
//!   versions);
//! - every file the command names, and every file beside it (the adapter's shared modules, its
//!   `requirements.txt`, `package.json` and lock file), recursively, except installed trees
//!   (`node_modules`, `.venv`, caches, dot-directories);
//! - `node_modules/.package-lock.json` beside such a file: what `npm ci` installed.
//!
//! A change to any of them is another fingerprint, another directory, and every schema misses.
//! Faults (a crash of the adapter, a hang) are never kept: they are about the process, not the
//! schema. The keys name the translator, the path (`conversion` or `entry`) and a hash of the
//! schema's text, and each entry holds the schema itself, compared on every hit, so that a hash
//! collision is a miss, never a wrong answer.
//!
//! The cache lives in `target/schema-fidelity/projections/` under the project root, written as
//! [`crate::disk`] writes (never through a link, whole files or none). Anything unreadable is a
//! miss. `--no-cache` and [`NO_CACHE_ENV`] turn it off.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::UNIX_EPOCH;

use schema_fidelity_translators::Outcome;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use walkdir::WalkDir;

use super::AdapterSpec;
use super::protocol::{self, Started};
use crate::hash::Fnv1a;

/// Set to `1` to neither read nor write the projection cache (as `--no-cache` does).
pub const NO_CACHE_ENV: &str = "SCHEMA_FIDELITY_NO_CACHE";

/// The largest entry read back: an entry is a schema and its projection, both within the input
/// budget; anything larger was not written by this cache.
const MAX_ENTRY_BYTES: u64 = 64 * 1024 * 1024;

/// Which call of the adapter answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Call {
    /// The code path the table names (`translate`).
    Conversion,
    /// The public call users make (`through_entry`).
    Entry,
}

impl Call {
    fn name(self) -> &'static str {
        match self {
            Self::Conversion => "conversion",
            Self::Entry => "entry",
        }
    }
}

/// One entry on disk.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The schema's text, compared on every hit.
    schema: String,
    outcome: Outcome,
}

/// The cache of one adapter (one fingerprint).
pub struct Cache {
    /// The adapter's fingerprint.
    fingerprint: u64,
    /// `target/schema-fidelity/projections/<fingerprint>` under the project root.
    dir: PathBuf,
    /// The project root: no directory is created above it.
    root: PathBuf,
    /// First answers waiting for the second translation that confirms them.
    pending: Mutex<HashMap<(String, Call, String), Outcome>>,
    /// Whether the handshake has been kept in this run.
    started_kept: AtomicBool,
    /// The kept handshake, once read: asked before every trial, and once there it stays.
    started_read: OnceLock<Started>,
}

impl Cache {
    /// The cache of the adapter `spec` describes, under `spec.cwd` (the project root).
    #[must_use]
    pub fn open(spec: &AdapterSpec) -> Self {
        let mut dir = crate::disk::kept_dir(&spec.cwd, &["projections"]);
        let fingerprint = fingerprint(spec);
        dir.push(format!("{fingerprint:016x}"));
        Self { fingerprint, dir, root: spec.cwd.clone(), pending: Mutex::new(HashMap::new()), started_kept: AtomicBool::new(false), started_read: OnceLock::new() }
    }

    /// The adapter's fingerprint (see the module documentation).
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The directory this adapter's entries go to.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The kept answer of `translator` to `schema` through `call`, if any.
    #[must_use]
    pub fn get(&self, translator: &str, call: Call, schema: &Value) -> Option<Outcome> {
        let text = serde_json::to_string(schema).ok()?;
        let bytes = crate::disk::read_within(&self.root, &self.entry_file(translator, call, &text), MAX_ENTRY_BYTES)?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        (entry.schema == text && !matches!(entry.outcome, Outcome::Faulted(_))).then_some(entry.outcome)
    }

    /// Offer a conversion's answer: kept when it is the second answer to the same schema and
    /// equals the first (the oracle's determinism check asks twice).
    pub fn offer(&self, translator: &str, schema: &Value, outcome: &Outcome) {
        self.offer_via(translator, Call::Conversion, schema, outcome, 2);
    }

    /// Offer an entry's answer: kept at once (the entry is asked once per schema; its equality
    /// with the confirmed conversion is what the `entry` trial checks).
    pub fn offer_entry(&self, translator: &str, schema: &Value, outcome: &Outcome) {
        self.offer_via(translator, Call::Entry, schema, outcome, 1);
    }

    fn offer_via(&self, translator: &str, call: Call, schema: &Value, outcome: &Outcome, confirmations: u32) {
        let Ok(text) = serde_json::to_string(schema) else { return };
        let key = (translator.to_owned(), call, text);
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(outcome, Outcome::Faulted(_)) {
            pending.remove(&key);
            return;
        }
        if confirmations > 1 {
            match pending.remove(&key) {
                Some(first) if first == *outcome => {}
                _ => {
                    pending.insert(key, outcome.clone());
                    return;
                }
            }
        }
        drop(pending);
        let (translator, call, text) = key;
        let _ = self.write(&translator, call, text, outcome);
    }

    /// Whether the adapter has started under this fingerprint before (its handshake is kept): it
    /// is then not asked whether it is available, which would start it.
    #[must_use]
    pub fn started(&self) -> Option<Started> {
        if let Some(started) = self.started_read.get() {
            return Some(started.clone());
        }
        let bytes = crate::disk::read_within(&self.root, &self.dir.join("started.json"), MAX_ENTRY_BYTES)?;
        let started = serde_json::from_slice::<Started>(&bytes).ok().filter(|s| s.protocol == protocol::VERSION)?;
        Some(self.started_read.get_or_init(|| started).clone())
    }

    /// Keep the adapter's handshake (once per run).
    pub fn keep_started(&self, started: &Started) {
        if self.started_kept.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Ok(bytes) = serde_json::to_vec(started) {
            let _ = crate::disk::write_within(&self.root, &self.dir.join("started.json"), &bytes);
        }
    }

    fn entry_file(&self, translator: &str, call: Call, text: &str) -> PathBuf {
        let mut h = Fnv1a::default();
        h.write_framed(text.as_bytes());
        self.dir.join(component(translator)).join(format!("{}-{:016x}.json", call.name(), h.value()))
    }

    fn write(&self, translator: &str, call: Call, schema: String, outcome: &Outcome) -> io::Result<()> {
        let file = self.entry_file(translator, call, &schema);
        let bytes = serde_json::to_vec(&Entry { schema, outcome: outcome.clone() }).map_err(io::Error::other)?;
        crate::disk::write_within(&self.root, &file, &bytes)
    }
}

/// A translator's name as a path component: table stems are `[a-z0-9-]`; anything else is
/// spelt as its hash.
fn component(name: &str) -> String {
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        name.to_owned()
    } else {
        let mut h = Fnv1a::default();
        h.write_framed(name.as_bytes());
        format!("name-{:016x}", h.value())
    }
}

/// Directories under an adapter's folder that hold installed packages or caches, not its code.
const NOT_CODE: &[&str] = &["node_modules", "__pycache__"];

/// The adapter's fingerprint (see the module documentation).
#[must_use]
pub fn fingerprint(spec: &AdapterSpec) -> u64 {
    let mut h = Fnv1a::default();
    h.write_framed(b"schema-fidelity projection cache 1");
    h.write_framed(&protocol::VERSION.to_le_bytes());
    for word in &spec.command {
        h.write_framed(word.as_bytes());
    }
    let Some(program) = spec.command.first() else { return h.value() };
    let program_path = if program.contains('/') { Some(spec.cwd.join(program)) } else { on_path(program) };
    match &program_path {
        Some(path) => {
            h.write_framed(b"program");
            stamp(&mut h, path);
            // A virtual environment: X/bin/python beside X/pyvenv.cfg.
            if let Some(env) = path.parent().and_then(Path::parent)
                && let Ok(config) = fs::read(env.join("pyvenv.cfg"))
            {
                h.write_framed(b"pyvenv.cfg");
                h.write_framed(&config);
                h.write_framed(b"distributions");
                for name in distributions(env) {
                    h.write_framed(name.as_bytes());
                }
            }
        }
        None => h.write_framed(b"program not found"),
    }
    let mut folders: Vec<PathBuf> = spec.command[1..]
        .iter()
        .map(|word| spec.cwd.join(word))
        .filter(|path| path.is_file())
        .filter_map(|path| path.parent().map(Path::to_owned))
        .collect();
    folders.sort();
    folders.dedup();
    for folder in folders {
        h.write_framed(b"folder");
        h.write_framed(folder.to_string_lossy().as_bytes());
        let mut files: Vec<PathBuf> = WalkDir::new(&folder)
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                e.depth() == 0 || !(NOT_CODE.contains(&name.as_ref()) || (e.file_type().is_dir() && name.starts_with('.')))
            })
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(walkdir::DirEntry::into_path)
            .collect();
        files.sort();
        for file in files {
            h.write_framed(file.strip_prefix(&folder).unwrap_or(&file).to_string_lossy().as_bytes());
            match crate::budget::read_limited(&file, MAX_ENTRY_BYTES) {
                Ok(bytes) => h.write_framed(&bytes),
                Err(_) => stamp(&mut h, &file),
            }
        }
        let installed = folder.join("node_modules").join(".package-lock.json");
        h.write_framed(b"node_modules");
        match crate::budget::read_limited(&installed, MAX_ENTRY_BYTES) {
            Ok(bytes) => h.write_framed(&bytes),
            Err(_) => h.write_framed(b"none"),
        }
    }
    h.value()
}

/// A file's identity without its bytes: canonical path, size and modification time.
pub(crate) fn stamp(h: &mut Fnv1a, path: &Path) {
    let canonical = fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    h.write_framed(canonical.to_string_lossy().as_bytes());
    match fs::metadata(&canonical) {
        Ok(m) => {
            h.write(&m.len().to_le_bytes());
            let modified = m.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
            h.write(&modified.to_le_bytes());
        }
        Err(_) => h.write_framed(b"missing"),
    }
}

/// The distributions installed in the virtual environment `env`, sorted (`name-version.dist-info`).
fn distributions(env: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(env.join("lib"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .flat_map(|python| fs::read_dir(python.path().join("site-packages")).into_iter().flatten().filter_map(Result::ok))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".dist-info"))
        .collect();
    names.sort();
    names
}

/// `program` as found on `PATH`.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-cache-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("adapters")).unwrap();
        fs::write(dir.join("adapters/a.py"), "print('a')\n").unwrap();
        dir
    }

    fn spec(root: &Path) -> AdapterSpec {
        AdapterSpec { command: vec!["python3".to_owned(), "adapters/a.py".to_owned()], cwd: root.to_owned(), install: None }
    }

    fn projected(n: i64) -> Outcome {
        Outcome::json_schema(serde_json::json!({"type": "integer", "minimum": n}))
    }

    #[test]
    fn an_answer_is_kept_only_once_a_second_translation_confirms_it() {
        let root = scratch("confirm");
        let cache = Cache::open(&spec(&root));
        let schema = serde_json::json!({"type": "integer"});
        cache.offer("t", &schema, &projected(1));
        assert_eq!(cache.get("t", Call::Conversion, &schema), None, "one answer is not yet an answer");
        cache.offer("t", &schema, &projected(2));
        assert_eq!(cache.get("t", Call::Conversion, &schema), None, "two different answers are not kept");
        cache.offer("t", &schema, &projected(2));
        assert_eq!(cache.get("t", Call::Conversion, &schema), Some(projected(2)));
        // Another translator, another path, another schema: misses.
        assert_eq!(cache.get("u", Call::Conversion, &schema), None);
        assert_eq!(cache.get("t", Call::Entry, &schema), None);
        assert_eq!(cache.get("t", Call::Conversion, &serde_json::json!({"type": "string"})), None);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_fault_is_never_kept() {
        let root = scratch("fault");
        let cache = Cache::open(&spec(&root));
        let schema = serde_json::json!({});
        let fault = Outcome::Faulted(schema_fidelity_translators::Fault { message: "hung".to_owned() });
        cache.offer("t", &schema, &fault);
        cache.offer("t", &schema, &fault);
        cache.offer_entry("t", &schema, &fault);
        assert_eq!(cache.get("t", Call::Conversion, &schema), None);
        assert_eq!(cache.get("t", Call::Entry, &schema), None);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn editing_the_adapter_or_its_neighbours_changes_the_fingerprint() {
        let root = scratch("fingerprint");
        let before = fingerprint(&spec(&root));
        assert_eq!(before, fingerprint(&spec(&root)), "stable");
        fs::write(root.join("adapters/shared.py"), "X = 1\n").unwrap();
        let with_module = fingerprint(&spec(&root));
        assert_ne!(before, with_module, "a module beside the adapter");
        fs::create_dir_all(root.join("adapters/node_modules")).unwrap();
        fs::write(root.join("adapters/node_modules/.package-lock.json"), "{}").unwrap();
        assert_ne!(with_module, fingerprint(&spec(&root)), "what npm installed");
        let mut other = spec(&root);
        other.command.push("--flag".to_owned());
        assert_ne!(fingerprint(&spec(&root)), fingerprint(&other), "the command");
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_link_on_the_way_turns_the_cache_off() {
        let root = scratch("link");
        let outside = std::env::temp_dir().join(format!("schema-fidelity-cache-{}-outside", std::process::id()));
        let _ = fs::remove_dir_all(&outside);
        fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("target")).unwrap();
        let cache = Cache::open(&spec(&root));
        let schema = serde_json::json!({});
        cache.offer_entry("t", &schema, &projected(1));
        assert_eq!(cache.get("t", Call::Entry, &schema), None);
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "nothing written through the link");
        let _ = fs::remove_dir_all(&root);
        let _ = fs::remove_dir_all(&outside);
    }

    #[test]
    fn an_entry_for_another_schema_under_the_same_name_is_a_miss() {
        let root = scratch("collision");
        let cache = Cache::open(&spec(&root));
        let schema = serde_json::json!({"type": "integer"});
        cache.offer_entry("t", &schema, &projected(1));
        // Overwrite the entry's recorded schema, as a hash collision would leave it.
        let file = cache.entry_file("t", Call::Entry, &serde_json::to_string(&schema).unwrap());
        let text = fs::read_to_string(&file).unwrap().replace("integer", "string");
        fs::write(&file, text).unwrap();
        assert_eq!(cache.get("t", Call::Entry, &schema), None);
        let _ = fs::remove_dir_all(&root);
    }
}
