//! Embeds the project's corpus and targets (with their grammars) in the binary, so that it checks
//! a translator from any repository: one that holds only its own `schema-fidelity.toml`, a table
//! and an adapter reads these (see `src/embedded.rs`).
//!
//! Written by hand rather than with `include_dir`: a list of `include_bytes!` is all it takes, and
//! a proc-macro crate would lengthen the cold build for it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The folders embedded, relative to the workspace root.
const FOLDERS: &[&str] = &["corpus", "targets"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest.parent().expect("the harness is a member of the workspace").to_owned();
    let mut files = Vec::new();
    for folder in FOLDERS {
        let dir = workspace.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        collect(&workspace, &dir, &mut files);
    }
    files.sort();
    let mut out = String::from("/// The embedded files, as (path relative to the workspace root, contents), sorted by path.\npub static FILES: &[(&str, &[u8])] = &[\n");
    for (relative, path) in &files {
        // Every file and folder is watched: cargo's rerun-if-changed on a folder only notices
        // files added or removed at its top, not an edit below it.
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(out, "    ({relative:?}, include_bytes!({:?})),", path.display().to_string());
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out_dir.join("embedded.rs"), out).expect("write embedded.rs into OUT_DIR");
}

/// Every regular file under `dir`, as (slash path relative to `workspace`, path).
fn collect(workspace: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("{} is not a readable folder: the binary embeds it", dir.display());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(workspace, &path, files);
        } else if kind.is_file() {
            let relative = path.strip_prefix(workspace).expect("under the workspace");
            let relative: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            files.push((relative.join("/"), path));
        }
    }
}
