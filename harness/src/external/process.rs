//! One adapter process: spawning it, writing its requests and reading its stdout as bounded
//! lines, each with a timeout, draining its stderr into a bounded ring, and making sure it is
//! gone (killed and reaped) when dropped, with every process it started.
//!
//! Reads and writes happen on threads of their own, three per process, so that a hung adapter
//! cannot hang the caller: the caller waits on a channel with a deadline, for a line from the
//! stdout reader and for the writer to have handed a request over. (A request larger than the
//! pipe buffer to an adapter that never reads its stdin blocked the harness in `write` forever;
//! now the wait for the writer times out like the wait for an answer.) A flood on stderr cannot
//! fill the pipe and stall the adapter (stderr is always drained, and only its last lines are
//! kept).
//!
//! **The whole tree goes.** An adapter may start processes of its own (a Node worker, `sleep &` in
//! a shell wrapper); killing only the adapter left them running after every command. So each
//! adapter is started as the leader of its own process group, and stopping it kills the group.
//! A process that leaves the group (`setsid`, a daemon's double fork) is beyond that kill, so the
//! harness is also the *subreaper* of everything below it (`prctl(PR_SET_CHILD_SUBREAPER)`): a
//! process whose parent dies is handed to the harness instead of to init, and every adapter's
//! environment carries [`TREE_ENV`], which its descendants inherit. When an adapter stops, every
//! process handed to the harness that carries the variable is killed and reaped, until none is
//! left ([`sweep`]). The workspace forbids `unsafe`, so the system calls (`prctl`, `kill` of a
//! group, `waitpid` of a pid the standard library did not spawn) go through `rustix`.
//!
//! **Also when the harness dies.** A harness stopped by Ctrl-C or killed runs no destructor, and
//! an adapter in its own group no longer receives the terminal's Ctrl-C. So beside each adapter a
//! *watcher* (`sh`, joined to the adapter's group) reads a pipe only the harness writes to; when
//! the harness is gone the pipe ends and the watcher kills every process that carries the
//! adapter's [`TREE_ENV`] value (those that left the group included), then its group, adapter and
//! descendants with it. Processes killed this way are reaped by whoever adopts them (init).
//! What no user-space watcher reaches is a descendant that both leaves the group and clears its
//! environment while the harness is killed; a cgroup per adapter would, where the machine lets an
//! unprivileged harness create one.

use std::collections::{HashSet, VecDeque};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions};

/// The variable every adapter's environment carries, and so every process it starts: the
/// harness's process id and the adapter's number, which is how [`sweep`] and the watcher find the
/// processes that left the adapter's group.
pub const TREE_ENV: &str = "SCHEMA_FIDELITY_ADAPTER_TREE";

/// How many lines of stderr are kept for fault messages.
pub const STDERR_LINES: usize = 20;
/// Longest stderr line kept (longer ones are cut): a flood of one endless line stays bounded.
const STDERR_LINE_BYTES: usize = 400;
/// How many stdout lines may wait unread: the reader thread blocks (and so does an adapter that
/// writes far ahead) rather than buffering without bound.
const STDOUT_QUEUE: usize = 64;

/// What the stdout reader saw.
#[derive(Debug)]
pub enum StdoutEvent {
    Line(String),
    /// A line longer than the limit; it is discarded up to its newline.
    TooLong { limit: usize, start: String },
    /// End of stdout (the adapter exited or closed it), or a read error.
    Closed(Option<io::Error>),
}

/// Why no line came.
#[derive(Debug)]
pub enum ReceiveError {
    Timeout,
    Closed(Option<io::Error>),
}

/// The last lines an adapter wrote to stderr, and how many there were in all.
#[derive(Debug, Default)]
pub struct StderrTail {
    lines: VecDeque<String>,
    total: u64,
}

impl StderrTail {
    /// Record a line of which `start` was kept out of `length` bytes.
    fn push(&mut self, start: &[u8], length: usize) {
        // Shown in fault messages on a terminal: an adapter's escape sequences are shown, not sent.
        let mut text = crate::terminal::sanitize(&String::from_utf8_lossy(start));
        if start.len() < length {
            text.push_str(&format!("... ({length} bytes)"));
        }
        if self.lines.len() == STDERR_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(text);
        self.total += 1;
    }

    /// The kept lines, indented, with a heading that says how many were not kept.
    #[must_use]
    pub fn render(&self) -> String {
        if self.lines.is_empty() {
            return "stderr: (empty)".to_owned();
        }
        let mut s = if self.total > self.lines.len() as u64 {
            format!("last {} lines of stderr (of {}):", self.lines.len(), self.total)
        } else {
            "stderr:".to_owned()
        };
        for line in &self.lines {
            s.push_str("\n  | ");
            s.push_str(line);
        }
        s
    }
}

/// The harness's end of an adapter's writer thread: requests in, each write's result out.
type Writer = (SyncSender<Vec<u8>>, Receiver<io::Result<()>>);

/// A running adapter process.
pub struct Process {
    child: Child,
    /// The writer thread's end: requests go in, and the result of writing each comes back.
    writer: Option<Writer>,
    stdout: Receiver<StdoutEvent>,
    stderr: Arc<Mutex<StderrTail>>,
    stderr_done: Receiver<()>,
    pid: u32,
    /// The watcher in the adapter's group, and the pipe whose end tells it the harness is gone.
    watcher: Option<(Child, ChildStdin)>,
}

/// The watcher's script: wait for the end of stdin (the harness exited, however it exited), then
/// kill every process whose environment carries the adapter's tree variable (`$1` is
/// `NAME=value`), a few rounds to catch those forked meanwhile, then the whole process group,
/// itself included.
const WATCHER: &str = "while read -r _; do :; done; \
    for round in 1 2 3; do for f in $(grep -lzaxsF -e \"$1\" /proc/[0-9]*/environ); do \
    p=${f#/proc/}; kill -KILL \"${p%/environ}\" 2>/dev/null; done; done; kill -KILL 0";

/// The adapters and watchers this process started and has not reaped yet: [`sweep`] leaves them
/// to their [`Process`], which reaps them through the standard library. Held while spawning, so
/// that a sweep never sees an adapter that is not registered yet.
fn live() -> &'static Mutex<HashSet<u32>> {
    static LIVE: OnceLock<Mutex<HashSet<u32>>> = OnceLock::new();
    LIVE.get_or_init(Mutex::default)
}

/// Make this process the subreaper of its descendants (once): a process whose parent exits is
/// handed to it rather than to init, so that [`sweep`] can find it. Whether that worked.
fn become_subreaper() -> bool {
    static DONE: OnceLock<bool> = OnceLock::new();
    *DONE.get_or_init(|| rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok())
}

/// The value of [`TREE_ENV`] for this process's adapters: its id, then the adapter's number.
fn tree_prefix() -> String {
    format!("{}-", std::process::id())
}

impl Process {
    /// Start `command` (program and arguments) in `cwd` with piped stdio.
    ///
    /// # Errors
    /// The spawn error; [`io::ErrorKind::NotFound`] means the program is not installed.
    pub fn spawn(command: &[String], cwd: &Path, max_line: usize) -> io::Result<Self> {
        Self::spawn_with_env(command, cwd, max_line, None)
    }

    /// [`Process::spawn`], with `env` as the whole environment when given (besides [`TREE_ENV`],
    /// which every process started here carries): a process that must see no credentials
    /// (`schema-fidelity harvest` starting an MCP server) gets only what it is handed.
    ///
    /// # Errors
    /// As [`Process::spawn`].
    pub fn spawn_with_env(command: &[String], cwd: &Path, max_line: usize, env: Option<&[(String, String)]>) -> io::Result<Self> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let (program, args) = command.split_first().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        become_subreaper();
        let tree = format!("{}{}", tree_prefix(), NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let mut registry = live().lock().unwrap_or_else(PoisonError::into_inner);
        let mut command = Command::new(program);
        if let Some(env) = env {
            command.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
        }
        let mut child = command
            .args(args)
            .current_dir(cwd)
            .env(TREE_ENV, &tree)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, with its pid as the group id: stopping it kills the group.
            .process_group(0)
            .spawn()?;
        let pid = child.id();
        registry.insert(pid);
        let watcher = spawn_watcher(pid, &format!("{TREE_ENV}={tree}"));
        if let Some((w, _)) = &watcher {
            registry.insert(w.id());
        }
        drop(registry);
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take()) else {
            let mut process = Self::bare(child, pid, watcher);
            process.stop();
            return Err(io::Error::other("the adapter's stdio pipes were not created"));
        };
        let (line_tx, line_rx) = mpsc::sync_channel(STDOUT_QUEUE);
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let (done_tx, done_rx) = mpsc::sync_channel(1);
        let (request_tx, request_rx) = mpsc::sync_channel::<Vec<u8>>(1);
        let (written_tx, written_rx) = mpsc::sync_channel(1);
        let drain_tail = tail.clone();
        let threads = thread::Builder::new()
            .name(format!("adapter-{pid}-stdout"))
            .spawn(move || read_lines(stdout, max_line, &line_tx))
            .and_then(|_| thread::Builder::new().name(format!("adapter-{pid}-stderr")).spawn(move || drain_stderr(stderr, &drain_tail, &done_tx)))
            .and_then(|_| thread::Builder::new().name(format!("adapter-{pid}-stdin")).spawn(move || write_requests(stdin, &request_rx, &written_tx)));
        let mut process = Self { child, writer: Some((request_tx, written_rx)), stdout: line_rx, stderr: tail, stderr_done: done_rx, pid, watcher };
        if let Err(e) = threads {
            process.stop();
            return Err(e);
        }
        Ok(process)
    }

    /// A process whose pipes are not set up (to stop it).
    fn bare(child: Child, pid: u32, watcher: Option<(Child, ChildStdin)>) -> Self {
        let (_, stdout) = mpsc::sync_channel(1);
        let (_, stderr_done) = mpsc::sync_channel(1);
        Self { child, writer: None, stdout, stderr: Arc::default(), stderr_done, pid, watcher }
    }

    #[must_use]
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Write one line (a newline is appended) and flush it, waiting at most `timeout` for the
    /// adapter to take it in.
    ///
    /// # Errors
    /// The write error: a broken pipe means the adapter has exited; [`io::ErrorKind::TimedOut`]
    /// that it did not read the line within `timeout` (the writer thread stays blocked until the
    /// process is stopped, which the caller then does).
    pub fn send(&mut self, line: &[u8], timeout: Duration) -> io::Result<()> {
        let closed = || io::Error::new(io::ErrorKind::BrokenPipe, "stdin already closed");
        let (requests, written) = self.writer.as_ref().ok_or_else(closed)?;
        requests.send(line.to_vec()).map_err(|_| closed())?;
        match written.recv_timeout(timeout) {
            Ok(result) => result,
            Err(RecvTimeoutError::Timeout) => {
                // Not sent again: the thread is still in the middle of this line.
                self.writer = None;
                Err(io::Error::new(io::ErrorKind::TimedOut, format!("the adapter did not read it within {} ms", timeout.as_millis())))
            }
            Err(RecvTimeoutError::Disconnected) => Err(closed()),
        }
    }

    /// The next stdout line, waiting at most `timeout`.
    ///
    /// # Errors
    /// [`ReceiveError::Timeout`] when nothing came in time, [`ReceiveError::Closed`] at the end
    /// of stdout. A too-long line comes back as [`StdoutEvent::TooLong`].
    pub fn receive(&self, timeout: Duration) -> Result<StdoutEvent, ReceiveError> {
        match self.stdout.recv_timeout(timeout) {
            Ok(StdoutEvent::Closed(e)) => Err(ReceiveError::Closed(e)),
            Ok(event) => Ok(event),
            Err(RecvTimeoutError::Timeout) => Err(ReceiveError::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(ReceiveError::Closed(None)),
        }
    }

    /// Stop the process (kill, then reap it) and return how it ended and the last lines of its
    /// stderr, waiting briefly for the stderr drain to reach the end so that the adapter's dying
    /// words are in the tail.
    pub fn terminate(mut self) -> (Option<ExitStatus>, String) {
        let status = self.stop();
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        let tail = self.stderr.lock().unwrap_or_else(PoisonError::into_inner).render();
        (status, tail)
    }

    /// The last lines of stderr so far.
    #[must_use]
    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().unwrap_or_else(PoisonError::into_inner).render()
    }

    fn stop(&mut self) -> Option<ExitStatus> {
        // Closing stdin first lets a well-behaved adapter see the end of its input; the kill
        // covers the others. Either way the child is reaped: no zombie is left behind.
        drop(self.writer.take());
        let status = reap(&mut self.child, Some(self.pid));
        let mut reaped = vec![self.pid];
        if let Some((mut watcher, pipe)) = self.watcher.take() {
            // Killed with the group already; closing its pipe would end it too.
            drop(pipe);
            let _ = watcher.kill();
            let _ = watcher.wait();
            reaped.push(watcher.id());
        }
        let mut registry = live().lock().unwrap_or_else(PoisonError::into_inner);
        for pid in reaped {
            registry.remove(&pid);
        }
        drop(registry);
        // What left the group was handed to this process when the adapter died.
        sweep();
        status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Start the watcher of the group `pgid` (see the module documentation), which kills the
/// processes whose environment holds `marker` (`NAME=value`) when the harness is gone. `None`
/// when `sh` cannot be started: the adapter still runs, and is still killed with its group on
/// every path the harness lives through.
fn spawn_watcher(pgid: u32, marker: &str) -> Option<(Child, ChildStdin)> {
    let group = i32::try_from(pgid).ok()?;
    let mut watcher = Command::new("sh")
        .args(["-c", WATCHER, "watcher", marker])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(group)
        .spawn()
        .ok()?;
    let pipe = watcher.stdin.take()?;
    Some((watcher, pipe))
}

/// Kill the process group `pgid` (every process in it, descendants the adapter started included).
/// Whether any process was signalled.
fn kill_group(pgid: u32) -> bool {
    let pid = i32::try_from(pgid).ok().and_then(Pid::from_raw);
    pid.is_some_and(|pid| rustix::process::kill_process_group(pid, Signal::KILL).is_ok())
}

/// The children of this process (handed to it as their subreaper, or started by it) whose
/// environment carries one of its adapters' [`TREE_ENV`] values and that no [`Process`] owns.
fn orphans(registry: &HashSet<u32>) -> Vec<Pid> {
    let me = std::process::id();
    let marker = format!("{TREE_ENV}={}", tree_prefix());
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| !registry.contains(pid))
        .filter(|pid| {
            // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so split at the last.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok())))
                == Some(me)
        })
        .filter(|pid| std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| env.split(|b| *b == 0).any(|var| var.starts_with(marker.as_bytes()))))
        .filter_map(|pid| i32::try_from(pid).ok().and_then(Pid::from_raw))
        .collect()
}

/// Kill and reap every process of an adapter's tree that was handed to this process (see the
/// module documentation), round after round until a round finds none: killing one hands its own
/// children over in turn. A zombie among them (already dead) is reaped all the same.
pub fn sweep() {
    let registry = live().lock().unwrap_or_else(PoisonError::into_inner);
    for _ in 0..100 {
        let found = orphans(&registry);
        if found.is_empty() {
            return;
        }
        for pid in &found {
            let _ = rustix::process::kill_process(*pid, Signal::KILL);
        }
        // A killed process is reaped as soon as it has died; a second at most for each round.
        let deadline = Instant::now() + Duration::from_secs(1);
        let mut waiting: Vec<Pid> = found;
        while !waiting.is_empty() && Instant::now() < deadline {
            waiting.retain(|pid| !matches!(rustix::process::waitpid(Some(*pid), WaitOptions::NOHANG), Ok(Some(_)) | Err(_)));
            if !waiting.is_empty() {
                thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// Stop `child` and reap it; with `group`, kill its process group first, even when the child
/// itself has already exited (its descendants may not have). The group is killed before the
/// leader is reaped, so its id cannot have been reused.
fn reap(child: &mut Child, group: Option<u32>) -> Option<ExitStatus> {
    let killed = group.is_some_and(kill_group);
    if let Ok(Some(status)) = child.try_wait() {
        return Some(status);
    }
    if !killed {
        let _ = child.kill();
    }
    child.wait().ok()
}

/// Write each request to the adapter's stdin, reporting each write's result, until the requests
/// end (the process is stopped) or a write fails; stdin is closed on the way out.
fn write_requests(mut stdin: ChildStdin, requests: &Receiver<Vec<u8>>, written: &SyncSender<io::Result<()>>) {
    for line in requests {
        let result = stdin.write_all(&line).and_then(|()| stdin.write_all(b"\n")).and_then(|()| stdin.flush());
        let failed = result.is_err();
        if written.send(result).is_err() || failed {
            return;
        }
    }
}

/// Split stdout into lines of at most `max_line` bytes (without the newline).
fn read_lines(stdout: impl Read, max_line: usize, out: &SyncSender<StdoutEvent>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line: Vec<u8> = Vec::new();
    let mut discarding = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) => {
                if !line.is_empty() && !discarding {
                    // A last line without its newline still counts as a line.
                    let _ = out.send(StdoutEvent::Line(String::from_utf8_lossy(&line).into_owned()));
                }
                let _ = out.send(StdoutEvent::Closed(None));
                return;
            }
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = out.send(StdoutEvent::Closed(Some(e)));
                return;
            }
        };
        let (taken, complete) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if !discarding {
            line.extend_from_slice(&chunk[..taken]);
        }
        reader.consume(if complete { taken + 1 } else { taken });
        if !discarding && line.len() > max_line {
            let start = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
            if out.send(StdoutEvent::TooLong { limit: max_line, start }).is_err() {
                return;
            }
            line = Vec::new();
            discarding = !complete;
            continue;
        }
        if complete {
            if discarding {
                discarding = false;
            } else {
                let text = String::from_utf8_lossy(&line).into_owned();
                line.clear();
                if out.send(StdoutEvent::Line(text)).is_err() {
                    return;
                }
            }
        }
    }
}

/// Keep the last lines of stderr, reading everything so the adapter never blocks on it.
fn drain_stderr(stderr: impl Read, tail: &Mutex<StderrTail>, done: &SyncSender<()>) {
    let mut reader = BufReader::with_capacity(16 * 1024, stderr);
    // The start of the current line (at most STDERR_LINE_BYTES) and its full length.
    let mut kept: Vec<u8> = Vec::new();
    let mut length = 0usize;
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let (taken, complete) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        let room = STDERR_LINE_BYTES.saturating_sub(kept.len()).min(taken);
        kept.extend_from_slice(&chunk[..room]);
        length += taken;
        reader.consume(if complete { taken + 1 } else { taken });
        if complete {
            tail.lock().unwrap_or_else(PoisonError::into_inner).push(&kept, length);
            kept.clear();
            length = 0;
        }
    }
    if length > 0 {
        tail.lock().unwrap_or_else(PoisonError::into_inner).push(&kept, length);
    }
    let _ = done.send(());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<String> {
        let (tx, rx) = mpsc::sync_channel(100);
        read_lines(input, max, &tx);
        rx.try_iter()
            .map(|e| match e {
                StdoutEvent::Line(l) => format!("line {l}"),
                StdoutEvent::TooLong { limit, start } => format!("too long ({limit}) {start}"),
                StdoutEvent::Closed(_) => "closed".to_owned(),
            })
            .collect()
    }

    #[test]
    fn stdout_splits_into_bounded_lines() {
        assert_eq!(lines(b"a\nbb\nc", 10), ["line a", "line bb", "line c", "closed"]);
        assert_eq!(lines(b"a\n0123456789abc\nok\n", 10), ["line a", "too long (10) 0123456789abc", "line ok", "closed"]);
    }

    #[test]
    fn stderr_keeps_only_the_last_lines() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let tail = Mutex::new(StderrTail::default());
        let (tx, _rx) = mpsc::sync_channel(1);
        drain_stderr(text.as_bytes(), &tail, &tx);
        let tail = tail.into_inner().unwrap();
        assert_eq!(tail.total, 100);
        assert_eq!(tail.lines.len(), STDERR_LINES);
        assert_eq!(tail.lines.back().map(String::as_str), Some("line 99"));
        assert!(tail.render().starts_with("last 20 lines of stderr (of 100):"));
    }

    #[test]
    fn one_endless_stderr_line_stays_bounded() {
        let text = vec![b'x'; 1_000_000];
        let tail = Mutex::new(StderrTail::default());
        let (tx, _rx) = mpsc::sync_channel(1);
        drain_stderr(&text[..], &tail, &tx);
        let tail = tail.into_inner().unwrap();
        assert!(tail.lines[0].len() < 2 * STDERR_LINE_BYTES, "{}", tail.lines[0].len());
    }
}
