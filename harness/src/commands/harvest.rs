//! `harvest`: corpus/mcp/ from the pinned MCP servers.

use crate::commands::{Cx, Stop, project, status};

/// `harvest`: corpus/mcp/ from the pinned MCP servers.
pub(crate) fn command(servers: Vec<String>, check_only: bool, cx: &mut Cx<'_>) -> Result<u8, Stop> {
    use crate::mcp::harvest::{self, Outcome};
    let project = project(cx)?;
    let options = harvest::Options { servers, check: check_only, timeout: cx.settings.mcp_timeout };
    let mut ok = true;
    let stale = harvest::harvest(&project.root, &options, &mut |name, outcome| {
        let said = match outcome {
            Outcome::Unchanged { tools, cases } => format!("{tools} tools, {cases} cases: unchanged"),
            Outcome::Written { tools, cases } => format!("{tools} tools, {cases} cases: written"),
            Outcome::Differs { tools, cases } => format!("{tools} tools, {cases} cases: differs from the committed file"),
            Outcome::Failed(why) => format!("failed: {why}"),
        };
        ok &= matches!(outcome, Outcome::Unchanged { .. } | Outcome::Written { .. });
        // A closed stdout stops nothing here: the command ends with it once the harvest returns.
        let _ = cx.io.out(&(crate::terminal::sanitize(&format!("{name}: {said}")) + "\n"));
    })?;
    for file in &stale {
        ok &= !check_only;
        say!(cx, "{file}: no server of the manifest writes it{}", if check_only { "" } else { ": removed" });
    }
    Ok(status(ok))
}
