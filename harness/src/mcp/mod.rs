//! Real MCP servers: their tools, as the contract's cases and as `check`'s input.
//!
//! Hand-written cases show what someone thought of; the tools that MCP servers really list show
//! what translators meet. This module talks to servers and keeps what they list:
//!
//! - [`client`]: a stdio MCP client that starts a server, lists its tools and stops it, every
//!   wait bounded ([`client::TIMEOUT_ENV`]) and the server's process tree reaped;
//! - [`manifest`]: `corpus/mcp/servers.yaml`, the servers pinned (registry, package, exact
//!   version, how to start each with no network and no credentials), held to what
//!   `translators/external/mcp-servers/` installs;
//! - [`harvest`]: `schema-fidelity harvest`, which writes `corpus/mcp/<server>.json` from the
//!   pins (structure kept, free text replaced by placeholders, provenance and a digest recorded),
//!   and the loader that makes those files corpus cases, checked against the manifest;
//!
//! `schema-fidelity check --mcp 'COMMAND'`, every tool of a server against every translator, is a
//! command and lives with `check` ([`crate::commands::check::mcp`]): this module serves it and the
//! corpus, and depends on neither.

pub mod client;
pub mod harvest;
pub mod manifest;
