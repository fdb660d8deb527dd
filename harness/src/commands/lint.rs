//! `lint`: the tables and the corpus files checked, every problem with its file and line.

use crate::budget;
use crate::commands::{Cx, Stop, load, status};
use crate::diagnostic;
use crate::report;
use crate::session;
use crate::table;
use crate::trials;

pub(crate) fn command(cx: &mut Cx<'_>) -> Result<u8, Stop> {
    let loaded = load(cx)?;
    let budgets = &cx.settings.budgets;
    // What the `TRANSLATOR::lint` trials of `cargo test` reject, first: the table's own findings
    // and a translator no one provides. Every file is read; a file that does not parse is one
    // problem (its line), and the other files are still checked.
    let resolver = session::resolver(&loaded, &cx.settings.adapters);
    let mut problems = 0;
    for (name, table, errors) in &loaded.tables {
        for e in errors {
            say!(cx, "{e}");
            problems += 1;
        }
        if resolver(name).is_none() {
            say!(cx, "{}", trials::no_translator_message(name));
            problems += 1;
        }
        // What `run` would trip over: a grammar that does not compile, a `run:` program that
        // cannot start, a name the reports take.
        let runnable = match table {
            Some(table) => {
                let text = budget::read_text(&loaded.project.root.join(&table.file), budgets).unwrap_or_default();
                table::lint_runnable(table, &text, &loaded.project.root, report::RESERVED_NAMES)
            }
            None if report::RESERVED_NAMES.contains(&name.as_str()) => {
                vec![diagnostic::TableError { file: format!("dispositions/{name}.yaml").into(), line: None, message: format!("`{name}` is a name the reports use for themselves; rename the translator") }]
            }
            None => Vec::new(),
        };
        for e in runnable {
            say!(cx, "{e}");
            problems += 1;
        }
    }
    // What `init` left to fill in: its marker in the config, the adapters `run:` names, the workflow.
    for e in crate::commands::init::leftover_markers(&loaded.project.root, loaded.tables.iter().filter_map(|(_, table, _)| table.as_deref())) {
        say!(cx, "{e}");
        problems += 1;
    }
    for e in &loaded.corpus_errors {
        say!(cx, "{e}");
        problems += 1;
    }
    // The pins of the harvested MCP servers (their files are corpus files, checked above).
    for e in crate::mcp::manifest::lint(&loaded.project.root) {
        say!(cx, "{e}");
        problems += 1;
    }
    // What every trial of an own case checks first: the schema compiles, the instances have the
    // validity they claim.
    for case in loaded.cases.iter().filter(|c| c.origin == crate::corpus::Origin::Own) {
        if let Err(e) = crate::corpus::check_case(case, &loaded.env) {
            say!(cx, "{e}");
            problems += 1;
        }
    }
    say!(cx, "{} table(s), {} case(s), {problems} problem(s)", loaded.tables.len(), loaded.cases.len());
    Ok(status(problems == 0))
}
