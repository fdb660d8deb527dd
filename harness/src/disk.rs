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
///
/// A warm run reads tens of thousands of kept files from a few directories, so a directory is
/// looked at once per process ([`verified_directory`]) and the file itself is opened without
/// following a link (`O_NOFOLLOW`) and without blocking, then looked at through its handle: three
/// system calls a file where walking the path from the root took ten.
#[must_use]
pub fn read_within(root: &Path, file: &Path, limit: u64) -> Option<Vec<u8>> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let parent = file.parent()?;
    if !verified_directory(root, parent) {
        return None;
    }
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let handle = fs::OpenOptions::new().read(true).custom_flags(i32::try_from(flags.bits()).ok()?).open(file).ok()?;
    let meta = handle.metadata().ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).ok()?);
    handle.take(limit.saturating_add(1)).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

/// Whether `dir` and every directory from `root` down to it is a real one, looked at once per
/// process: one found real is not looked at again (a read through a directory swapped for a link
/// afterwards still reads only what a key then checks; writes look every time).
fn verified_directory(root: &Path, dir: &Path) -> bool {
    static VERIFIED: std::sync::Mutex<Option<std::collections::HashSet<PathBuf>>> = std::sync::Mutex::new(None);
    let known = |set: &Option<std::collections::HashSet<PathBuf>>| set.as_ref().is_some_and(|s| s.contains(dir));
    if known(&VERIFIED.lock().unwrap_or_else(std::sync::PoisonError::into_inner)) {
        return true;
    }
    if !is_real_directory_chain(root, dir) {
        return false;
    }
    VERIFIED.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert_with(Default::default).insert(dir.to_owned());
    true
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

/// Whether `dir` and every directory from `root` down to it is a real one (no link, no `..`).
fn is_real_directory_chain(root: &Path, dir: &Path) -> bool {
    let Ok(rel) = dir.strip_prefix(root) else { return false };
    let mut at = root.to_owned();
    for part in rel.components() {
        if !matches!(part, std::path::Component::Normal(_)) {
            return false;
        }
        at.push(part);
        if !fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("schema-fidelity-disk-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_file_is_read_back_within_its_limit_and_not_through_a_link() {
        let root = scratch("read");
        let outside = scratch("read-outside");
        fs::write(outside.join("secret.json"), "outside").unwrap();
        let file = kept_dir(&root, &["records", "x.json"]);
        write_within(&root, &file, b"kept").unwrap();
        assert_eq!(read_within(&root, &file, 4).as_deref(), Some(&b"kept"[..]));
        assert_eq!(read_within(&root, &file, 3), None, "over its limit");
        assert_eq!(read_within(&root, &kept_dir(&root, &["records", "missing.json"]), 4), None);

        // A link as the file itself, or as a directory on the way (never looked at before): a miss.
        let linked = kept_dir(&root, &["records", "linked.json"]);
        std::os::unix::fs::symlink(outside.join("secret.json"), &linked).unwrap();
        assert_eq!(read_within(&root, &linked, 100), None);
        std::os::unix::fs::symlink(&outside, kept_dir(&root, &["elsewhere"])).unwrap();
        assert_eq!(read_within(&root, &kept_dir(&root, &["elsewhere", "secret.json"]), 100), None);
        // Not under the root, or climbing out of it: a miss.
        assert_eq!(read_within(&root, &outside.join("secret.json"), 100), None);
        assert_eq!(read_within(&root, &root.join("target/../../").join(outside.file_name().unwrap()).join("secret.json"), 100), None);
        // A directory or a FIFO where a file was kept: a miss, never a read that blocks.
        assert_eq!(read_within(&root, &kept_dir(&root, &["records"]), 100), None);
        let fifo = kept_dir(&root, &["records", "fifo.json"]);
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600), 0).unwrap();
        assert_eq!(read_within(&root, &fifo, 100), None);
        let _ = fs::remove_dir_all(&root);
        let _ = fs::remove_dir_all(&outside);
    }
}
