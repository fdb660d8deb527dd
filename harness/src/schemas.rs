//! The formats of the project's own files as JSON Schemas (`schemas/table.schema.json`,
//! `schemas/target.schema.json`, `schemas/corpus.schema.json`, and for real MCP servers
//! `schemas/mcp-servers.schema.json` and `schemas/mcp-harvest.schema.json`): what editors read
//! (each YAML file names its schema on its first line) and what the lint checks, with a line for
//! every finding.

use std::sync::LazyLock;

use serde_json::Value;

/// Which of the project's formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Target,
    Corpus,
    /// `corpus/mcp/servers.yaml`: the MCP servers whose tools are harvested.
    McpServers,
    /// `corpus/mcp/<server>.json`: what `harvest` writes.
    McpHarvest,
}

impl Format {
    /// The schema's path, relative to the project root.
    #[must_use]
    pub fn path(self) -> &'static str {
        match self {
            Self::Table => "schemas/table.schema.json",
            Self::Target => "schemas/target.schema.json",
            Self::Corpus => "schemas/corpus.schema.json",
            Self::McpServers => "schemas/mcp-servers.schema.json",
            Self::McpHarvest => "schemas/mcp-harvest.schema.json",
        }
    }
}

fn compile(text: &str) -> Result<jsonschema::Validator, String> {
    let schema: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    jsonschema::draft202012::options().build(&schema).map_err(|e| e.to_string())
}

static TABLE: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| compile(include_str!("../../schemas/table.schema.json")));
static TARGET: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| compile(include_str!("../../schemas/target.schema.json")));
static CORPUS: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| compile(include_str!("../../schemas/corpus.schema.json")));
static MCP_SERVERS: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| compile(include_str!("../../schemas/mcp-servers.schema.json")));
static MCP_HARVEST: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| compile(include_str!("../../schemas/mcp-harvest.schema.json")));

/// What `value` (read from the YAML or JSON `text`) breaks of `format`'s schema: each finding with
/// the line of the key it is about, as near as the text shows it.
#[must_use]
pub fn check(format: Format, text: &str, value: &Value) -> Vec<(Option<u64>, String)> {
    let validator = match format {
        Format::Table => &*TABLE,
        Format::Target => &*TARGET,
        Format::Corpus => &*CORPUS,
        Format::McpServers => &*MCP_SERVERS,
        Format::McpHarvest => &*MCP_HARVEST,
    };
    let validator = match validator {
        Ok(v) => v,
        Err(e) => return vec![(None, format!("{} does not compile: {e}", format.path()))],
    };
    validator
        .iter_errors(value)
        .map(|e| {
            let at = e.instance_path().to_string();
            let shown = if at.is_empty() { String::new() } else { format!(" at `{at}`") };
            (line_of(text, &at), format!("{}{shown}: {e}", format.path()))
        })
        .collect()
}

/// The line of the key a JSON pointer ends at, found by following its segments down the text
/// (each segment's key searched from the line of the one before); `None` when it cannot be found.
#[must_use]
pub fn line_of(text: &str, pointer: &str) -> Option<u64> {
    let lines: Vec<&str> = text.lines().collect();
    let mut at = 0usize;
    let mut found = None;
    for segment in pointer.split('/').skip(1) {
        let key = segment.replace("~1", "/").replace("~0", "~");
        if key.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let forms = [format!("{key}:"), format!("\"{key}\":"), format!("'{key}':"), format!("{{ {key}:"), format!(", {key}:")];
        let hit = lines.iter().enumerate().skip(at).find(|(_, l)| {
            let t = l.trim_start().trim_start_matches("- ");
            forms.iter().any(|f| t.starts_with(f.as_str()) || l.contains(&f[..]) && f.starts_with(['{', ',']))
        });
        if let Some((i, _)) = hit {
            at = i;
            found = Some(i as u64 + 1);
        }
    }
    found.or_else(|| (!text.is_empty()).then_some(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_name_the_line_of_their_key() {
        let text = "translator: t\nsource: s\ntarget: x\nkeywords:\n  const: { disposition: kept }\n";
        let value: Value = crate::yaml::from_str(text).unwrap();
        let found = check(Format::Table, text, &value);
        assert!(found.iter().any(|(line, m)| *line == Some(5) && m.contains("/keywords/const/disposition")), "{found:?}");
    }
}
