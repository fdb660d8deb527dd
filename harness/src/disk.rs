//! What the harness keeps between runs, under `target/schema-fidelity/` in the project: written
//! so that no write leaves the project and a killed run leaves whole files or none.
//!
//! Every directory from the project root down is created here and must be a real directory: a
//! symbolic link on the way makes the write fail (and a read miss) rather than lead outside the
//! project. A file is written to a temporary name beside it and renamed into place.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where the kept files live, relative to the project root.
pub const KEPT: [&str; 2] = ["target", "schema-fidelity"];

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// `root/target/schema-fidelity/<parts...>`.
#[must_use]
pub fn kept_dir(root: &Path, parts: &[&str]) -> PathBuf {
    let mut dir = root.to_owned();
    for part in KEPT.iter().chain(parts) {
        dir.push(part);
    }
    dir
}

/// Write `bytes` to `file` (under `root`) through a temporary file beside it, creating the
/// directories on the way.
///
/// # Errors
/// When `file` is not under `root`, a directory on the way is not a real one, or the write fails.
pub fn write_within(root: &Path, file: &Path, bytes: &[u8]) -> io::Result<()> {
    let parent = file.parent().ok_or_else(|| io::Error::other("no parent"))?;
    make_real_directories(root, parent)?;
    let temp = parent.join(format!(".tmp-{}-{}", std::process::id(), TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)));
    let written = fs::OpenOptions::new().write(true).create_new(true).open(&temp).and_then(|mut f| f.write_all(bytes));
    if let Err(e) = written.and_then(|()| fs::rename(&temp, file)) {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    Ok(())
}

/// The bytes of `file` (under `root`), at most `limit` of them, when every directory on the way is
/// a real one and `file` a regular file.
#[must_use]
pub fn read_within(root: &Path, file: &Path, limit: u64) -> Option<Vec<u8>> {
    if !is_within_real_directories(root, file) {
        return None;
    }
    crate::budget::read_limited(file, limit).ok()
}

/// Create every directory from `root` down to `dir`, each a real directory (not a link).
///
/// # Errors
/// When `dir` is not under `root`, a directory on the way is not a real one, or one cannot be
/// created.
pub fn create_real_dirs(root: &Path, dir: &Path) -> io::Result<()> {
    make_real_directories(root, dir)
}

fn make_real_directories(root: &Path, dir: &Path) -> io::Result<()> {
    let rel = dir.strip_prefix(root).map_err(|_| io::Error::other("outside the project"))?;
    let mut at = root.to_owned();
    for part in rel.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(io::Error::other(format!("{} is not a directory", at.display()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(&at) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) => {}
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Whether every directory from `root` down to `file`'s parent is a real one, and `file` a
/// regular file.
fn is_within_real_directories(root: &Path, file: &Path) -> bool {
    let Ok(rel) = file.strip_prefix(root) else { return false };
    let mut at = root.to_owned();
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let Ok(m) = fs::symlink_metadata(&at) else { return false };
        let last = i + 1 == parts.len();
        if (last && !m.is_file()) || (!last && !m.is_dir()) {
            return false;
        }
    }
    true
}
