//! The corpus and targets built into the binary (by `build.rs`), for a project that has none of
//! its own: a repository holding only `schema-fidelity.toml`, a table and an adapter.
//!
//! The rest of the harness reads corpus files and targets (and the grammars targets name) from
//! folders, with paths in its messages; so the embedded files are written out once, under
//! `target/schema-fidelity/embedded/<hash>/` in the project, and read from there like any other.
//! The folder is named after the contents' hash, so a binary with another corpus writes another
//! folder and never reads a stale one; it is written complete to a temporary name and renamed
//! into place, so a killed run leaves the whole folder or none.

use std::path::{Path, PathBuf};

use crate::hash::Fnv1a;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The hash of every embedded path and its bytes, as 16 hex digits.
#[must_use]
pub fn digest() -> String {
    let mut h = Fnv1a::default();
    for (path, bytes) in FILES {
        h.write_framed(path.as_bytes());
        h.write_framed(bytes);
    }
    format!("{:016x}", h.value())
}

/// The folder the embedded files are written to for the project at `root`, writing them first when
/// they are not there yet. It holds `corpus/` and `targets/` as this project's repository does.
///
/// # Errors
/// When the folder cannot be written (naming it and why).
pub fn materialised(root: &Path) -> Result<PathBuf, String> {
    let parent = crate::disk::kept_dir(root, &["embedded"]);
    let dir = parent.join(digest());
    if dir.join(COMPLETE).is_file() {
        return Ok(dir);
    }
    let fail = |e: std::io::Error| format!("cannot write the built-in corpus and targets to {}: {e}", dir.display());
    crate::disk::create_real_dirs(root, &parent).map_err(fail)?;
    let temp = parent.join(format!(".tmp-{}-{}", std::process::id(), digest()));
    let _ = std::fs::remove_dir_all(&temp);
    let written = (|| {
        for (path, bytes) in FILES {
            let file = temp.join(path);
            crate::disk::write_within(root, &file, bytes)?;
        }
        std::fs::write(temp.join(COMPLETE), b"")?;
        match std::fs::rename(&temp, &dir) {
            Ok(()) => Ok(()),
            // Another process wrote it first: theirs is the same bytes.
            Err(_) if dir.join(COMPLETE).is_file() => {
                let _ = std::fs::remove_dir_all(&temp);
                Ok(())
            }
            Err(e) => Err(e),
        }
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&temp);
        return Err(fail(e));
    }
    Ok(dir)
}

/// The marker written last into a complete folder.
const COMPLETE: &str = ".complete";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_carries_the_corpus_targets_and_grammars() {
        let has = |prefix: &str| FILES.iter().any(|(p, _)| p.starts_with(prefix));
        assert!(has("corpus/"), "no corpus file embedded");
        assert!(has("targets/grammars/"), "no grammar embedded");
        assert!(FILES.iter().any(|(p, _)| *p == "targets/openai-strict.yaml"));
        // The same bytes as the repository's files.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (path, bytes) in FILES {
            assert_eq!(std::fs::read(root.join(path)).expect("the embedded file is in the repository"), *bytes, "{path}");
        }
    }

    #[test]
    fn the_files_are_written_once_whole_and_read_again() {
        let root = std::env::temp_dir().join(format!("sf-embedded-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let dir = materialised(&root).expect("written");
        assert!(dir.starts_with(root.join("target/schema-fidelity/embedded")));
        for (path, bytes) in FILES {
            assert_eq!(std::fs::read(dir.join(path)).unwrap(), *bytes, "{path}");
        }
        // A second call reads the folder as it is: a file changed by hand is not rewritten.
        std::fs::write(dir.join("corpus/marker"), b"x").unwrap();
        assert_eq!(materialised(&root).unwrap(), dir);
        assert!(dir.join("corpus/marker").is_file());
        let leftovers: Vec<_> = std::fs::read_dir(dir.parent().unwrap()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with(".tmp")).collect();
        assert!(leftovers.is_empty(), "no temporary folder left");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
