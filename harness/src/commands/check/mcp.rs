//! `schema-fidelity check --mcp 'COMMAND'`: what each translator does to every tool of a running
//! MCP server.
//!
//! The command (one string, split on whitespace: no quoting, so a path with spaces needs a
//! wrapper script) is started in the current directory with the caller's environment (a server
//! may need its credentials to list its tools), its tools are listed ([`crate::mcp::client`]) and the
//! server is stopped, its process tree reaped. Each tool's input schema is then checked as
//! `check SCHEMA.json` checks a file ([`super::check`]): the same verdicts, the same
//! oracle, the same draws (seeded by the tool's name). The text output is a table, a row per
//! tool and a column per translator, one symbol per verdict ([`symbol`]), then every finding
//! that is not a loss the tables declare; `--format json` gives every tool's full check report.
//! A tool whose schema cannot be checked (not valid draft 2020-12, over a budget) is an error in
//! its row, not the end of the run.

use std::fmt::Write as _;

use serde::Serialize;

use crate::mcp::client::{self, Launch, McpError};
use crate::budget::Budgets;
use crate::validation::Env;
use super::{self as check, CheckOutcome, CheckReport, CheckVerdict, Target};

/// What `check --mcp` found.
#[derive(Debug, Clone, Serialize)]
pub struct ServerCheck {
    /// The command, as given.
    pub command: String,
    /// `serverInfo` of the server's `initialize` answer.
    pub server: ServerOut,
    /// The translators checked, in the order of the table's columns.
    pub translators: Vec<String>,
    pub tools: Vec<ToolCheck>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServerOut {
    pub name: String,
    pub version: String,
    pub protocol: String,
}

/// One tool's check.
#[derive(Debug, Clone, Serialize)]
pub struct ToolCheck {
    pub tool: String,
    /// Why its schema could not be checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckReport>,
}

impl ServerCheck {
    /// The overall outcome, as for one schema: a tool that could not be checked is a finding.
    #[must_use]
    pub fn outcome(&self) -> CheckOutcome {
        let outcomes: Vec<CheckOutcome> = self.tools.iter().map(|t| t.check.as_ref().map_or(CheckOutcome::Findings, CheckReport::outcome)).collect();
        if outcomes.contains(&CheckOutcome::Findings) {
            CheckOutcome::Findings
        } else if outcomes.contains(&CheckOutcome::DeclaredLosses) {
            CheckOutcome::DeclaredLosses
        } else {
            CheckOutcome::Clean
        }
    }
}

/// Start the server, list its tools and check each against every target, calling `tick` after
/// each tool.
///
/// # Errors
/// The listing's [`McpError`]: the server did not start, answer in time, or speak the protocol.
pub fn check_server(launch: &Launch<'_>, targets: &[Target<'_>], env: &Env, budgets: &Budgets, tick: &dyn Fn(usize)) -> Result<ServerCheck, Box<McpError>> {
    let listing = client::list_tools(launch)?;
    let command = launch.command.join(" ");
    let mut tools = Vec::with_capacity(listing.tools.len());
    for tool in &listing.tools {
        // The tool's name labels its schema: it seeds the draws, so the same tool of the same
        // server gets the same verdicts again.
        let checked = check::check(&tool.name, &tool.input_schema, targets, env, budgets);
        tools.push(match checked {
            Ok(mut report) => {
                reproduce_with_mcp(&mut report, &tool.name, &command);
                ToolCheck { tool: tool.name.clone(), error: None, check: Some(report) }
            }
            Err(e) => ToolCheck { tool: tool.name.clone(), error: Some(e), check: None },
        });
        tick(listing.tools.len());
    }
    Ok(ServerCheck {
        command,
        server: ServerOut { name: listing.server_name, version: listing.server_version, protocol: listing.protocol },
        translators: targets.iter().map(|t| t.table.translator.clone()).collect(),
        tools,
    })
}

/// `check`'s advice and failure messages say how to check the schema again, as a file
/// (`schema-fidelity check TOOL ...`); here that is `check --mcp COMMAND`, which checks the tool
/// under the same label, so with the same draws.
fn reproduce_with_mcp(report: &mut CheckReport, tool: &str, command: &str) {
    let as_file = format!("schema-fidelity check {} ", check::shell_quote(tool));
    let as_server = format!("schema-fidelity check --mcp {} ", check::shell_quote(command));
    for t in &mut report.translators {
        for text in t.advice.iter_mut().chain(t.failure.as_mut()) {
            *text = text.replace(&as_file, &as_server);
        }
    }
}

/// The table's symbol for a verdict.
#[must_use]
pub fn symbol(verdict: CheckVerdict) -> char {
    match verdict {
        CheckVerdict::Exact => '✓',
        CheckVerdict::NoLossFound => '○',
        CheckVerdict::Widened => '+',
        CheckVerdict::Narrowed => '−',
        CheckVerdict::WidenedAndNarrowed => '±',
        CheckVerdict::Refused => '✗',
        CheckVerdict::NoRow => '?',
        CheckVerdict::KnownViolation => '⚠',
        CheckVerdict::Violation => '!',
        CheckVerdict::Unavailable => '·',
    }
}

/// The symbol of a tool whose schema could not be checked.
const ERROR_SYMBOL: char = 'E';

const LEGEND: &str = "✓ exact  ○ no loss found  + widened  − narrowed  ± widened and narrowed  ✗ refused\n\
                      ? a keyword with no row  ⚠ known violation  ! violation  · unavailable here  E not checked (the schema's error below)";

/// The text output: the table, its legends, and the findings that are not declared losses.
#[must_use]
pub fn render_text(result: &ServerCheck) -> String {
    let mut s = String::new();
    let s_ = &result.server;
    let _ = writeln!(
        s,
        "MCP server `{}` ({} {}, protocol {}): {} tool(s) × {} translator(s)\n",
        result.command,
        if s_.name.is_empty() { "unnamed" } else { &s_.name },
        s_.version,
        s_.protocol,
        result.tools.len(),
        result.translators.len()
    );
    if result.tools.is_empty() {
        s.push_str("the server lists no tools: nothing to check\n");
        return s;
    }
    let n = result.translators.len();
    let cell = n.to_string().len() + 1;
    let width = result.tools.iter().map(|t| t.tool.chars().count()).max().unwrap_or(0).max("tool".len());
    let _ = write!(s, "{:<width$}", "tool");
    for i in 1..=n {
        let _ = write!(s, "{i:>cell$}");
    }
    s.push('\n');
    for tool in &result.tools {
        let _ = write!(s, "{:<width$}", tool.tool);
        for i in 0..n {
            let mark = match &tool.check {
                Some(report) => report.translators.get(i).map_or(' ', |t| symbol(t.verdict)),
                None => ERROR_SYMBOL,
            };
            let _ = write!(s, "{mark:>cell$}");
        }
        s.push('\n');
    }
    s.push('\n');
    let columns: Vec<String> = result.translators.iter().enumerate().map(|(i, name)| format!("{} {name}", i + 1)).collect();
    let _ = writeln!(s, "columns: {}", columns.join(", "));
    let _ = writeln!(s, "{LEGEND}\n");
    // Totals per verdict, over every cell.
    let mut totals: Vec<(CheckVerdict, usize)> = Vec::new();
    for t in result.tools.iter().filter_map(|t| t.check.as_ref()).flat_map(|r| &r.translators) {
        match totals.iter_mut().find(|(v, _)| *v == t.verdict) {
            Some((_, count)) => *count += 1,
            None => totals.push((t.verdict, 1)),
        }
    }
    totals.sort_by_key(|(v, _)| *v as usize);
    let said: Vec<String> = totals.iter().map(|(v, count)| format!("{count} {}", v.name())).collect();
    let errors = result.tools.iter().filter(|t| t.error.is_some()).count();
    let _ = write!(s, "verdicts: {}", if said.is_empty() { "none".to_owned() } else { said.join(", ") });
    if errors > 0 {
        let _ = write!(s, "; {errors} tool(s) not checked");
    }
    s.push('\n');
    let mut unavailable: Vec<&str> = Vec::new();
    let mut errors = Vec::new();
    // The findings that are not declared losses, one line per translator and what it says, with
    // the tools it says it of: a mark the table holds usually acts on many tools alike.
    let mut findings: Vec<(&str, CheckVerdict, String, Vec<&str>)> = Vec::new();
    for tool in &result.tools {
        if let Some(e) = &tool.error {
            errors.push(format!("{}: not checked: {e}", tool.tool));
        }
        for t in tool.check.iter().flat_map(|r| &r.translators) {
            match t.verdict {
                CheckVerdict::Unavailable if !unavailable.contains(&t.translator.as_str()) => unavailable.push(&t.translator),
                CheckVerdict::Unavailable => {}
                v if !v.declared() && v.lossy() => {
                    let cited: Vec<&str> = t.rows.iter().map(|r| r.citation.as_str()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
                    let said = if cited.is_empty() { t.summary.clone() } else { format!("{} [{}]", t.summary, cited.join(", ")) };
                    match findings.iter_mut().find(|(name, verdict, text, _)| *name == t.translator && *verdict == v && *text == said) {
                        Some((_, _, _, tools)) => tools.push(&tool.tool),
                        None => findings.push((&t.translator, v, said, vec![&tool.tool])),
                    }
                }
                _ => {}
            }
        }
    }
    if !unavailable.is_empty() {
        let _ = writeln!(s, "unavailable here (not installed), so not checked: {}", unavailable.join(", "));
    }
    if !errors.is_empty() {
        let _ = writeln!(s, "\n{} tool(s) not checked:", errors.len());
        for e in errors {
            let _ = writeln!(s, "  {e}");
        }
    }
    if !findings.is_empty() {
        findings.sort_by(|a, b| (a.0, a.1 as usize).cmp(&(b.0, b.1 as usize)));
        let _ = writeln!(s, "\nfindings beyond the losses the tables declare:");
        let all = result.tools.len();
        for (translator, verdict, said, tools) in findings {
            let on = if tools.len() == all { format!("every tool ({all})") } else { tools.join(", ") };
            let _ = writeln!(s, "  {translator}: {} on {on}: {said}", verdict.name());
        }
    }
    let _ = writeln!(s, "\nOne tool against every translator in full: save its inputSchema as a file and run `schema-fidelity check FILE`; `--format json` gives each tool's full report.");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::super::TranslatorCheck;
    use serde_json::Value;

    #[test]
    fn advice_to_check_again_names_the_server_not_a_file() {
        let advice = |tool: &str| format!("look harder: `SCHEMA_FIDELITY_DRAWS=1024 schema-fidelity check {tool} --translator gemini` draws more");
        let mut report = CheckReport {
            schema: "read file".to_owned(),
            instances: 0,
            valid_instances: 0,
            translators: vec![TranslatorCheck {
                translator: "gemini".to_owned(),
                verdict: CheckVerdict::NoLossFound,
                summary: String::new(),
                rows: Vec::new(),
                declared: Vec::new(),
                evidence: None,
                witnesses: Vec::new(),
                refusal: None,
                missing: Vec::new(),
                failure: Some("reproduce with `schema-fidelity check 'read file' --translator gemini`".to_owned()),
                projection: None,
                advice: vec![advice("'read file'"), advice("other")],
                draws: None,
            }],
            lossy: false,
            notes: Vec::new(),
            source: Value::Null,
        };
        reproduce_with_mcp(&mut report, "read file", "node server.js --stdio");
        let t = &report.translators[0];
        assert_eq!(t.advice, [advice("--mcp 'node server.js --stdio'"), advice("other")]);
        assert_eq!(t.failure.as_deref(), Some("reproduce with `schema-fidelity check --mcp 'node server.js --stdio' --translator gemini`"));
    }
}
