//! The only way a `$ref` leaves the document: the suite's `remotes/`, read from disk.
//!
//! Nothing reaches the network. The JSON-Schema-Test-Suite addresses its remote documents as
//! `http://localhost:1234/<path>`; those are served from the suite's `remotes/` directory. Every
//! other URI is refused with a message that says so, never fetched.

use std::path::PathBuf;

use jsonschema::{Retrieve, Uri};
use serde_json::Value;

/// The suite's remotes base URI.
pub const SUITE_REMOTES: &str = "http://localhost:1234/";

/// Serves the suite's remotes from disk and refuses everything else.
#[derive(Debug, Clone)]
pub struct LocalRetriever {
    remotes: Option<PathBuf>,
}

impl LocalRetriever {
    #[must_use]
    pub fn new(remotes: Option<PathBuf>) -> Self {
        Self { remotes }
    }
}

impl Retrieve for LocalRetriever {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let uri = uri.as_str();
        if let (Some(dir), Some(rel)) = (&self.remotes, uri.strip_prefix(SUITE_REMOTES)) {
            let rel = rel.split('#').next().unwrap_or(rel);
            if rel.split('/').any(|seg| seg == "..") {
                return Err(format!("remote $ref `{uri}` leaves the suite's remotes directory").into());
            }
            let text = crate::budget::read_text(&dir.join(rel), crate::budget::current()).map_err(|e| format!("suite remote `{uri}`: {e}"))?;
            return Ok(serde_json::from_str(&text)?);
        }
        Err(format!("remote $ref refused: schema-fidelity never fetches `{uri}`").into())
    }
}
