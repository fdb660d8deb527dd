//! Progress for long runs, on a terminal only.
//!
//! Running every translator over the corpus and the suite takes seconds to minutes. A person at a
//! terminal wants to see it move; a script, a pipe or CI wants clean output. So progress goes to
//! stderr, overwriting one line, and only when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A counter that redraws one stderr line as it advances. Shareable between threads.
#[derive(Debug)]
pub struct Progress {
    enabled: bool,
    label: String,
    total: usize,
    done: AtomicUsize,
}

impl Progress {
    /// Progress on stderr when it is a terminal, silent otherwise.
    #[must_use]
    pub fn on_terminal(label: impl Into<String>, total: usize) -> Self {
        Self { enabled: std::io::stderr().is_terminal(), label: label.into(), total, done: AtomicUsize::new(0) }
    }

    /// Progress on stderr when `enabled` (the caller knows whether its stderr is a terminal).
    #[must_use]
    pub fn new(label: impl Into<String>, total: usize, enabled: bool) -> Self {
        Self { enabled, label: label.into(), total, done: AtomicUsize::new(0) }
    }

    /// Never prints (tests, library callers).
    #[must_use]
    pub fn quiet() -> Self {
        Self { enabled: false, label: String::new(), total: 0, done: AtomicUsize::new(0) }
    }

    /// One more unit done.
    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.enabled {
            return;
        }
        // Redraw about a hundred times per run, whatever its size.
        let step = (self.total / 100).max(1);
        if done.is_multiple_of(step) || done == self.total {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{} {done}/{}", self.label, self.total);
            let _ = err.flush();
        }
    }

    /// Clear the line, leaving the terminal as it was.
    pub fn finish(&self) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}
