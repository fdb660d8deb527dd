//! A stable content hash: the report's fingerprints of the tables and the corpus, and the keys of
//! the projection cache ([`crate::external::cache`]).
//!
//! The report records *which* tables and corpus it was computed from, so that a reader can tell
//! a stale report from a current one. That needs a hash that is the same on every machine and
//! every Rust version (so not `std`'s `DefaultHasher`, whose algorithm is unspecified) and is not
//! a security boundary (so no crypto crate): 64-bit FNV-1a over the sorted file list, each file
//! contributing its slash-separated relative path and its bytes, both length-prefixed so that no
//! two different trees feed the same byte stream.

use std::path::Path;

use walkdir::WalkDir;

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a, fed incrementally.
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Self(OFFSET_BASIS)
    }
}

impl Fnv1a {
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }

    /// Write `bytes` preceded by their length, so that concatenations stay unambiguous.
    pub fn write_framed(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }

    /// The hash so far.
    #[must_use]
    pub fn value(&self) -> u64 {
        self.0
    }

    /// The hash as the report spells it: `fnv1a64:` and 16 hex digits.
    #[must_use]
    pub fn finish(self) -> String {
        format!("fnv1a64:{:016x}", self.0)
    }
}

/// A fingerprint of the files under some directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeHash {
    pub hash: String,
    pub files: usize,
}

/// Hash every file under each `(label, dir)`, in sorted order. A missing directory contributes
/// nothing (its label still does, so `a/` empty and `b/` empty differ from nothing at all).
///
/// # Errors
/// When a file cannot be read, naming it.
pub fn tree(dirs: &[(&str, &Path)]) -> Result<TreeHash, String> {
    let mut h = Fnv1a::default();
    let mut files = 0;
    for (label, dir) in dirs {
        h.write_framed(label.as_bytes());
        if !dir.is_dir() {
            continue;
        }
        let mut entries: Vec<_> = WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e.path().strip_prefix(dir).unwrap_or(e.path());
                let name = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
                (name, e.path().to_owned())
            })
            .collect();
        entries.sort();
        for (name, path) in entries {
            let bytes = crate::budget::read_limited(&path, crate::budget::current().get(&crate::budget::INPUT_BYTES)).map_err(|e| format!("{}: {e}", path.display()))?;
            h.write_framed(name.as_bytes());
            h.write_framed(&bytes);
            files += 1;
        }
    }
    Ok(TreeHash { hash: h.finish(), files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        let hash = |s: &str| {
            let mut h = Fnv1a::default();
            h.write(s.as_bytes());
            h.finish()
        };
        assert_eq!(hash(""), "fnv1a64:cbf29ce484222325");
        assert_eq!(hash("a"), "fnv1a64:af63dc4c8601ec8c");
        assert_eq!(hash("foobar"), "fnv1a64:85944171f73967e8");
    }

    #[test]
    fn framing_keeps_concatenations_apart() {
        let framed = |parts: &[&str]| {
            let mut h = Fnv1a::default();
            for p in parts {
                h.write_framed(p.as_bytes());
            }
            h.finish()
        };
        assert_ne!(framed(&["ab", "c"]), framed(&["a", "bc"]));
    }
}
