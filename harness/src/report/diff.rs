//! A line diff for the report ratchet: what changed between the committed report and the
//! regenerated one, in a unified-diff-like form a reviewer can read in a test log.
//!
//! Common leading and trailing lines are trimmed first (a typical change touches a few lines of a
//! long file); the rest is aligned by a longest common subsequence, bounded so that a rewrite of a
//! huge file cannot take quadratic memory: past the bound the middle is shown as removed and added.

use std::fmt::Write as _;

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many cells the LCS table is not built.
const MAX_LCS_CELLS: usize = 4_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Removed,
    Added,
}

/// A unified-style diff of `old` (labelled `old_name`) against `new`, or `None` when they are equal.
#[must_use]
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str) -> Option<String> {
    if old == new {
        return None;
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = align(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    // Index each op with its line numbers, then print hunks: changes with CONTEXT lines around.
    let mut rows = Vec::with_capacity(ops.len());
    let (mut i, mut j) = (0, 0);
    for op in &ops {
        rows.push((*op, i, j));
        match op {
            Op::Same => {
                i += 1;
                j += 1;
            }
            Op::Removed => i += 1,
            Op::Added => j += 1,
        }
    }
    let changed: Vec<usize> = rows.iter().enumerate().filter(|(_, r)| r.0 != Op::Same).map(|(k, _)| k).collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k + 1 < changed.len() && changed[k + 1] <= end + 2 * CONTEXT + 1 {
            k += 1;
            end = changed[k];
        }
        let end = (end + CONTEXT + 1).min(rows.len());
        let (_, i0, j0) = rows[start];
        let _ = writeln!(out, "@@ -{} +{} @@", i0 + 1, j0 + 1);
        for &(op, i, j) in &rows[start..end] {
            let (sign, line) = match op {
                Op::Same => (' ', a[i]),
                Op::Removed => ('-', a[i]),
                Op::Added => ('+', b[j]),
            };
            let _ = writeln!(out, "{sign}{line}");
        }
        k += 1;
    }
    if a.len() == b.len() && ops.iter().all(|o| *o == Op::Same) {
        out.push_str("(the files differ only in line endings or a final newline)\n");
    }
    Some(out)
}

fn align(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops = vec![Op::Same; prefix];
    if ma.len().saturating_mul(mb.len()) > MAX_LCS_CELLS {
        ops.extend(std::iter::repeat_n(Op::Removed, ma.len()));
        ops.extend(std::iter::repeat_n(Op::Added, mb.len()));
    } else {
        // lcs[i][j]: length of the LCS of ma[i..] and mb[j..].
        let w = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * w];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * w + j] = if ma[i] == mb[j] { lcs[(i + 1) * w + j + 1] + 1 } else { lcs[(i + 1) * w + j].max(lcs[i * w + j + 1]) };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                ops.push(Op::Same);
                i += 1;
                j += 1;
            } else if i < ma.len() && (j == mb.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
                // Removals before additions, as `diff -u` shows a changed line.
                ops.push(Op::Removed);
                i += 1;
            } else {
                ops.push(Op::Added);
                j += 1;
            }
        }
    }
    ops.extend(std::iter::repeat_n(Op::Same, suffix));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a", "b", "x\ny\n", "x\ny\n"), None);
    }

    #[test]
    fn a_changed_line_shows_as_removed_and_added_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        let d = unified("old", "new", old, new).expect("differs");
        assert!(d.contains("-5\n+five\n"), "{d}");
        assert!(d.contains(" 4\n") && d.contains(" 6\n"), "{d}");
        assert!(!d.contains(" 1\n"), "context is bounded: {d}");
        assert!(d.contains("@@ -2 +2 @@"), "{d}");
    }

    #[test]
    fn a_missing_final_newline_is_named() {
        let d = unified("old", "new", "x", "x\n").expect("differs");
        assert!(d.contains("line endings"), "{d}");
    }
}
