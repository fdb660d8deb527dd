//! File:line diagnostics: the error the table and target lints report, and what they share to
//! word it.
//!
//! A [`TableError`] names the file, the line where there is one, and what is wrong, and prints as
//! `file:line: message`; [`nearest`] finds the name a misspelling was meant to be, and
//! [`is_placeholder`] tells a placeholder (`TODO`, empty) from a value. It is a leaf: it reads
//! nothing else of the crate, so the tables ([`crate::table`]), the targets they name
//! ([`crate::target`]), the settings and the CLI all word their diagnostics the same way without
//! reading each other.

use std::fmt;
use std::path::PathBuf;

/// A problem with a table (or with a target it names), located at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    pub file: PathBuf,
    pub line: Option<u64>,
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// All problems found in one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableErrors(pub Vec<TableError>);

impl fmt::Display for TableErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for TableErrors {}

/// Whether `text` is a placeholder rather than a value: empty, or a `TODO`.
#[must_use]
pub fn is_placeholder(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t.contains("TODO")
}

/// The candidate within edit distance 2 of `name` (case-insensitively), if any.
pub fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|c| (edit_distance(&name.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars.
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
