//! A Model Context Protocol client over stdio, for one purpose: start a server, list its tools,
//! and stop it, with every wait bounded and the server's whole process tree reaped.
//!
//! The transport is the protocol's stdio transport: JSON-RPC 2.0 messages, one per line, on the
//! server's stdin and stdout; the server's stderr is its log (drained, and its last lines kept for
//! error messages). The exchange:
//!
//! 1. `initialize` with [`PROTOCOL_VERSION`] (2025-06-18), no client capabilities and this
//!    program's name and version. The server answers the version it will speak: one of
//!    [`ACCEPTED_VERSIONS`] (every published revision whose `tools/list` this client reads the
//!    same way: `tools[].name` and `tools[].inputSchema`, paged by `nextCursor`), or the listing
//!    stops with [`ErrorKind::Unsupported`].
//! 2. `notifications/initialized`.
//! 3. `tools/list`, again with each `nextCursor` until none is given (at most [`MAX_PAGES`] pages,
//!    and a cursor given twice is an error, not a loop).
//!
//! While an answer is awaited the server may send notifications (logging, list changes: ignored)
//! and requests of its own (`ping` is answered; `roots/list`, `sampling/createMessage` and the
//! rest get "method not found", since this client declares none of those capabilities). A
//! JSON-RPC batch (an array, allowed by the 2025-03-26 revision) is read message by message.
//!
//! Every answer is awaited under one time budget ([`TIMEOUT_ENV`], default [`DEFAULT_TIMEOUT`])
//! from the moment its request is handed over; lines that are not the answer do not extend it.
//! What goes wrong is an [`McpError`]: the command, what was awaited, what happened
//! ([`ErrorKind`]: not started, no answer in time, exited, wrote a line that is not JSON or not
//! JSON-RPC, answered with an error, speaks another protocol version, listed tools in a shape that
//! is not the protocol's) and the last lines of the server's stderr. The server runs as an
//! adapter does ([`crate::external::process`]): in its own process group, with this process as
//! the subreaper of its descendants, and the whole tree is killed and reaped when the listing
//! ends, however it ends.

use std::fmt;
use std::io;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::external::process::{Process, ReceiveError, StdoutEvent};

/// The protocol revision this client asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The revisions a server may answer with: their `tools/list` results have the same shape.
pub const ACCEPTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Milliseconds one answer may take (the server's start included, for `initialize`).
pub const TIMEOUT_ENV: &str = "SCHEMA_FIDELITY_MCP_TIMEOUT_MS";

/// The default of [`TIMEOUT_ENV`]: a server run from an installed package answers `initialize`
/// in a few seconds here (the slowest of the pinned ones, a .NET program started by a Node shim,
/// in about three).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The most `tools/list` pages read.
pub const MAX_PAGES: usize = 1_000;

/// The longest line read from a server: a `tools/list` page is one line, and large servers list
/// about 100 KB of schemas; past this a line is an error, not an allocation without bound.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// How a server is started.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    /// Program and arguments.
    pub command: &'a [String],
    /// The working directory.
    pub cwd: &'a Path,
    /// The whole environment, when given (else inherited).
    pub env: Option<&'a [(String, String)]>,
    /// How long each answer may take.
    pub timeout: Duration,
}

/// What a server said about itself and its tools.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// The protocol revision the server answered with.
    pub protocol: String,
    /// `serverInfo.name` and `serverInfo.version` of its `initialize` answer.
    pub server_name: String,
    pub server_version: String,
    /// The tools, in the order listed.
    pub tools: Vec<Tool>,
}

/// One listed tool: its name and its input schema, as the server sent them.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub input_schema: Value,
}

/// A listing that failed: the command, what was awaited, what happened, and the server's last
/// words on stderr.
#[derive(Debug)]
pub struct McpError {
    /// The command, its arguments joined by spaces.
    pub command: String,
    /// What was awaited when it went wrong (`the answer to initialize`).
    pub awaited: String,
    pub kind: ErrorKind,
    /// The last lines of the server's stderr (rendered), empty when it never started.
    pub stderr: String,
}

/// What went wrong in a listing.
#[derive(Debug)]
pub enum ErrorKind {
    /// The program could not be started.
    NotStarted(io::Error),
    /// No answer within the budget.
    Timeout(Duration),
    /// The server closed its stdout (it exited, or was ending), with how it ended.
    Exited(Option<ExitStatus>),
    /// A request could not be written (the server stopped reading, or exited).
    NotSent(io::Error),
    /// A line on stdout that is not JSON.
    NotJson { line: String, error: String },
    /// A JSON line that is not a JSON-RPC 2.0 message.
    NotJsonRpc { line: String, why: String },
    /// A line longer than [`MAX_LINE_BYTES`].
    LineTooLong { start: String },
    /// The server answered the request with a JSON-RPC error.
    ErrorAnswer { code: Option<i64>, message: String },
    /// The server speaks a protocol revision this client does not read.
    Unsupported { version: String },
    /// The answer is not in the protocol's shape (a tool without a name, a repeated cursor, ...).
    Malformed(String),
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.kind {
            ErrorKind::NotStarted(e) if e.kind() == io::ErrorKind::NotFound => format!("could not be started: the program is not found ({e})"),
            ErrorKind::NotStarted(e) => format!("could not be started: {e}"),
            ErrorKind::Timeout(budget) => {
                format!("gave no answer within {} ms, awaiting {} ({TIMEOUT_ENV} sets the budget)", budget.as_millis(), self.awaited)
            }
            ErrorKind::Exited(status) => {
                let how = status.map_or_else(|| "ended".to_owned(), |s| format!("ended ({s})"));
                format!("closed its output and {how}, awaiting {}", self.awaited)
            }
            ErrorKind::NotSent(e) => format!("did not take the request in, awaiting {}: {e}", self.awaited),
            ErrorKind::NotJson { line, error } => format!("wrote a line that is not JSON, awaiting {}: {error}: {}", self.awaited, shown(line)),
            ErrorKind::NotJsonRpc { line, why } => format!("wrote a line that is not a JSON-RPC 2.0 message ({why}), awaiting {}: {}", self.awaited, shown(line)),
            ErrorKind::LineTooLong { start } => format!("wrote a line longer than {MAX_LINE_BYTES} bytes, awaiting {}: {}...", self.awaited, shown(start)),
            ErrorKind::ErrorAnswer { code, message } => {
                let code = code.map(|c| format!(" {c}")).unwrap_or_default();
                format!("answered {} with error{code}: {message}", self.awaited.trim_start_matches("the answer to "))
            }
            ErrorKind::Unsupported { version } => format!(
                "speaks protocol revision {version:?}, which this client does not read (it asks for {PROTOCOL_VERSION} and reads {})",
                ACCEPTED_VERSIONS.join(", ")
            ),
            ErrorKind::Malformed(why) => format!("gave {} in a shape that is not the protocol's: {why}", self.awaited),
        };
        write!(f, "the MCP server `{}` {what}", self.command)?;
        if !self.stderr.is_empty() {
            write!(f, "\n{}", self.stderr)?;
        }
        Ok(())
    }
}

impl std::error::Error for McpError {}

/// A line as shown in an error: at most 200 characters.
fn shown(line: &str) -> String {
    let mut s: String = line.chars().take(200).collect();
    if s.len() < line.len() {
        s.push_str("...");
    }
    s
}

/// Start the server, initialize, list every tool and stop it (its process tree killed and
/// reaped, on every path).
///
/// # Errors
/// An [`McpError`] naming the command and what was awaited.
pub fn list_tools(launch: &Launch<'_>) -> Result<Listing, Box<McpError>> {
    let command = launch.command.join(" ");
    let process = Process::spawn_with_env(launch.command, launch.cwd, MAX_LINE_BYTES, launch.env)
        .map_err(|e| Box::new(McpError { command: command.clone(), awaited: "its start".to_owned(), kind: ErrorKind::NotStarted(e), stderr: String::new() }))?;
    let mut session = Session { process: Some(process), timeout: launch.timeout, next_id: 1 };
    let result = session.list();
    // Stopped whatever happened: the group killed, the leader and what left the group reaped.
    let (status, stderr) = session.process.take().map(Process::terminate).unwrap_or_default();
    result.map_err(|(awaited, kind)| {
        let kind = match kind {
            ErrorKind::Exited(_) => ErrorKind::Exited(status),
            other => other,
        };
        Box::new(McpError { command, awaited, kind, stderr })
    })
}

/// A started server and the next request id.
struct Session {
    process: Option<Process>,
    timeout: Duration,
    next_id: u64,
}

/// What was awaited, and what went wrong.
type Failure = (String, ErrorKind);

impl Session {
    fn list(&mut self) -> Result<Listing, Failure> {
        let init = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": { "name": "schema-fidelity", "version": env!("CARGO_PKG_VERSION") },
            }),
            "the answer to initialize",
        )?;
        let malformed = |why: String| ("the answer to initialize".to_owned(), ErrorKind::Malformed(why));
        let version = init.get("protocolVersion").and_then(Value::as_str).ok_or_else(|| malformed("no `protocolVersion` string".to_owned()))?;
        if !ACCEPTED_VERSIONS.contains(&version) {
            return Err(("the answer to initialize".to_owned(), ErrorKind::Unsupported { version: version.to_owned() }));
        }
        let info = init.get("serverInfo");
        let text = |key: &str| info.and_then(|i| i.get(key)).and_then(Value::as_str).unwrap_or_default().to_owned();
        let (server_name, server_version) = (text("name"), text("version"));
        if init.get("capabilities").and_then(|c| c.get("tools")).is_none() {
            return Err(malformed("its capabilities declare no `tools`: the server has no tools to list".to_owned()));
        }
        self.notify("notifications/initialized", "the notification initialized to be taken in")?;
        let mut tools = Vec::new();
        let mut seen_cursors = std::collections::BTreeSet::new();
        let mut cursor: Option<String> = None;
        for page in 1..=MAX_PAGES {
            let awaited = if page == 1 { "the answer to tools/list".to_owned() } else { format!("the answer to tools/list (page {page})") };
            let params = cursor.as_ref().map_or_else(|| json!({}), |c| json!({ "cursor": c }));
            let result = self.request("tools/list", params, &awaited)?;
            let malformed = |why: String| (awaited.clone(), ErrorKind::Malformed(why));
            let listed = result.get("tools").and_then(Value::as_array).ok_or_else(|| malformed("no `tools` array".to_owned()))?;
            for (i, tool) in listed.iter().enumerate() {
                let name = tool.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()).ok_or_else(|| malformed(format!("tool {i} has no name")))?;
                let schema = tool.get("inputSchema").filter(|s| s.is_object()).ok_or_else(|| malformed(format!("tool `{name}` has no `inputSchema` object")))?;
                if tools.iter().any(|t: &Tool| t.name == name) {
                    return Err(malformed(format!("tool `{name}` is listed twice")));
                }
                tools.push(Tool { name: name.to_owned(), input_schema: schema.clone() });
            }
            match result.get("nextCursor") {
                None | Some(Value::Null) => return Ok(Listing { protocol: version.to_owned(), server_name, server_version, tools }),
                Some(Value::String(next)) => {
                    if !seen_cursors.insert(next.clone()) {
                        return Err(malformed(format!("the cursor {next:?} is given twice: the pages would never end")));
                    }
                    cursor = Some(next.clone());
                }
                Some(other) => return Err(malformed(format!("`nextCursor` is not a string: {other}"))),
            }
        }
        Err(("the last page of tools/list".to_owned(), ErrorKind::Malformed(format!("more than {MAX_PAGES} pages"))))
    }

    fn process(&mut self) -> &mut Process {
        self.process.as_mut().expect("the process lives as long as the session")
    }

    /// Write one message, waiting at most the budget for the server to take it in.
    fn write(&mut self, message: &Value, awaited: &str) -> Result<(), Failure> {
        let line = serde_json::to_vec(message).expect("a JSON value serializes");
        let timeout = self.timeout;
        self.process().send(&line, timeout).map_err(|e| {
            let kind = if e.kind() == io::ErrorKind::BrokenPipe { ErrorKind::Exited(None) } else { ErrorKind::NotSent(e) };
            (awaited.to_owned(), kind)
        })
    }

    fn notify(&mut self, method: &str, awaited: &str) -> Result<(), Failure> {
        self.write(&json!({ "jsonrpc": "2.0", "method": method }), awaited)
    }

    /// Send a request and await its answer's `result`.
    fn request(&mut self, method: &str, params: Value, awaited: &str) -> Result<Value, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }), awaited)?;
        let deadline = Instant::now() + self.timeout;
        let fail = |kind: ErrorKind| (awaited.to_owned(), kind);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(fail(ErrorKind::Timeout(self.timeout)));
            }
            let line = match self.process().receive(left) {
                Ok(StdoutEvent::Line(line)) => line,
                Ok(StdoutEvent::TooLong { start, .. }) => return Err(fail(ErrorKind::LineTooLong { start })),
                Ok(StdoutEvent::Closed(_)) | Err(ReceiveError::Closed(_)) => return Err(fail(ErrorKind::Exited(None))),
                Err(ReceiveError::Timeout) => return Err(fail(ErrorKind::Timeout(self.timeout))),
            };
            if line.trim().is_empty() {
                continue;
            }
            let value = crate::json::parse(&line).map_err(|e| fail(ErrorKind::NotJson { line: line.clone(), error: e.message }))?;
            let messages = match value {
                Value::Array(batch) => batch,
                single => vec![single],
            };
            for message in messages {
                if let Some(answer) = self.take(message, id).map_err(|why| fail(ErrorKind::NotJsonRpc { line: line.clone(), why }))? {
                    return answer.map_err(fail);
                }
            }
        }
    }

    /// Read one message while the answer to `id` is awaited: the answer's result (or its error),
    /// `None` for anything else (a notification; a request of the server's, answered here), or
    /// why it is not a JSON-RPC message.
    fn take(&mut self, message: Value, id: u64) -> Result<Option<Result<Value, ErrorKind>>, String> {
        let Value::Object(map) = message else { return Err("not an object".to_owned()) };
        if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err("no `\"jsonrpc\": \"2.0\"`".to_owned());
        }
        match (map.get("method"), map.get("id")) {
            (Some(Value::String(method)), Some(request_id)) => {
                // A request of the server's: answered, so that a server waiting on it goes on.
                let answer = if method == "ping" {
                    json!({ "jsonrpc": "2.0", "id": request_id, "result": {} })
                } else {
                    json!({ "jsonrpc": "2.0", "id": request_id, "error": { "code": -32601, "message": format!("method not found: schema-fidelity only lists tools (it declares no {method:?})") } })
                };
                // A server that stops reading shows up as the awaited answer not coming.
                let _ = self.write(&answer, "its request to be answered");
                Ok(None)
            }
            (Some(Value::String(_)), None) => Ok(None),
            (Some(_), _) => Err("`method` is not a string".to_owned()),
            (None, Some(answer_id)) if answer_id == &json!(id) => {
                if let Some(result) = map.get("result") {
                    return Ok(Some(Ok(result.clone())));
                }
                let error = map.get("error").ok_or("an answer with neither `result` nor `error`")?;
                let code = error.get("code").and_then(Value::as_i64);
                let message = error.get("message").and_then(Value::as_str).unwrap_or("(no message)").to_owned();
                Ok(Some(Err(ErrorKind::ErrorAnswer { code, message })))
            }
            (None, Some(other)) => Err(format!("an answer to id {other}, which was never asked (awaiting id {id})")),
            (None, None) => Err("neither a request, a notification nor an answer".to_owned()),
        }
    }
}
