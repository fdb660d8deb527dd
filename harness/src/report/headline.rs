//! The matrix's headline, which the README opens with: per translator, how many keywords it keeps
//! exactly, approximates and refuses, and its known violations by class, so that a reader sees
//! which SDK loses what before reading any table.
//!
//! Built from `report.json` as it is written (after an unavailable translator's committed entry is
//! kept), like the case-family pages, and held current by the reports trial: the README's block
//! between [`START`] and [`END`] is part of the reports.

use std::fmt::Write as _;

use serde_json::Value;

/// The line that opens the generated block in README.md.
pub const START: &str = "<!-- headline: written by `schema-fidelity report` from reports/report.json; edit the tables, not this block -->";
/// The line that closes it.
pub const END: &str = "<!-- /headline -->";

/// One translator's line.
#[derive(Debug, Default, PartialEq, Eq)]
struct Line {
    name: String,
    package: Option<String>,
    /// The code path the package runs on a tool's schema (the table's `entry.path`).
    path: Option<String>,
    target: String,
    exact: usize,
    /// Of the exact rows, those proven on every compared case that uses them.
    exact_proven: usize,
    /// Compared trials, and those proven exact both ways (`None`: not run).
    compared: Option<(usize, usize)>,
    widening: usize,
    narrowing: usize,
    refused: usize,
    marks_widening: usize,
    marks_narrowing: usize,
    marks_crash: usize,
    marks_target: usize,
    crashed_cases: Option<usize>,
}

fn line(t: &Value) -> Line {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut l = Line {
        name: text(t, "name").unwrap_or_default(),
        package: text(t, "package"),
        path: t.get("entry").and_then(|e| text(e, "path")),
        target: text(t, "target").unwrap_or_else(|| "none".to_owned()),
        marks_target: t.get("target_violations").and_then(Value::as_array).map_or(0, Vec::len),
        crashed_cases: t.get("trials").and_then(|trials| trials.get("crashed_cases")).and_then(Value::as_array).map(Vec::len),
        compared: t.get("trials").and_then(|trials| trials.get("evidence")).and_then(|e| {
            let n = |k: &str| e.get(k).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
            Some((n("compared")?, n("proven_exact")?))
        }),
        ..Line::default()
    };
    for row in t.get("rows").and_then(Value::as_array).into_iter().flatten() {
        let mark = row.get("known_violation").filter(|k| k.is_object());
        let others = row.get("other_known_violations").and_then(Value::as_array).into_iter().flatten();
        for k in mark.into_iter().chain(others) {
            if k.get("crash").is_some_and(Value::is_string) {
                l.marks_crash += 1;
            } else if k.get("direction").and_then(Value::as_str) == Some("widening") {
                l.marks_widening += 1;
            } else {
                l.marks_narrowing += 1;
            }
        }
        // Keywords are counted by their own rows: not refinements, not extensions.
        let keyword_row = row.get("refinement").is_some_and(Value::is_null) && row.get("extension") == Some(&Value::Bool(false));
        if !keyword_row {
            continue;
        }
        // Exact from evidence: preserved, unmarked, and no witness of the run pinned on it.
        let evidence = row.get("evidence").filter(|e| e.is_object());
        let pinned = evidence.is_some_and(|e| ["marked", "unexplained", "inverted"].iter().any(|k| e.get(*k).and_then(Value::as_array).is_some_and(|a| !a.is_empty())));
        match (text(row, "disposition").as_deref(), text(row, "direction").as_deref()) {
            (Some("preserved"), _) if mark.is_none() && !pinned => {
                l.exact += 1;
                let count = |k: &str| evidence.and_then(|e| e.get(k)).and_then(Value::as_u64).unwrap_or(0);
                if count("compared") > 0 && count("proven") == count("compared") {
                    l.exact_proven += 1;
                }
            }
            (Some("approximated"), Some("widening")) => l.widening += 1,
            (Some("approximated"), _) => l.narrowing += 1,
            (Some("refused"), _) => l.refused += 1,
            _ => {}
        }
    }
    l
}

fn marks(l: &Line) -> String {
    let total = l.marks_widening + l.marks_narrowing + l.marks_crash + l.marks_target;
    if total == 0 {
        return "0".to_owned();
    }
    let classes: Vec<String> = [(l.marks_widening, "widening"), (l.marks_narrowing, "narrowing"), (l.marks_crash, "crash"), (l.marks_target, "target rule")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    format!("{total} ({})", classes.join(", "))
}

/// The package and its version, then the path its users' tools take through it.
fn package_and_path(l: &Line) -> String {
    match (&l.package, &l.path) {
        (None, _) => "built-in".to_owned(),
        (Some(package), None) => package.clone(),
        (Some(package), Some(path)) => format!("{package}: {}", path.replace('|', "\\|")),
    }
}

/// The block, markers included, from `report.json`'s value.
#[must_use]
pub fn block(report: &Value) -> String {
    let mut lines: Vec<Line> = report.get("translators").and_then(Value::as_array).into_iter().flatten().map(line).collect();
    // The packages people run first, then the reference translators.
    lines.sort_by(|a, b| (a.package.is_none(), &a.name).cmp(&(b.package.is_none(), &b.name)));
    let mut s = String::new();
    let _ = writeln!(s, "{START}");
    let _ = writeln!(
        s,
        "What each translator does to the keywords of draft 2020-12 (a row per keyword; refinements and extensions are in its table), \
         and the violations its table marks: `exact` keeps the keyword with no known violation and no witness of the run pinned on it, \
         `proven` where, on every case using it, each deviation is proven to be one the table declares (else only not refuted); \
         `approximated` widens (w) or narrows (n) it, as declared; `known violations` are the marks the oracle reproduces, \
         by class (a crash: the translator throws on a valid schema; a target rule: a grammar, cycle, root or limit of the provider it breaks); \
         `crashed` counts the corpus cases it throws on. A package is measured on the path its users' tools take \
         (the call and where the request is read are on its page). Each row links to its page in `reports/`.\n"
    );
    let _ = writeln!(s, "| translator | package: path | target | exact (proven) | approximated | refused | known violations | crashed |");
    let _ = writeln!(s, "|---|---|---|---:|---:|---:|---|---:|");
    for l in &lines {
        let approximated = if l.widening + l.narrowing == 0 { "0".to_owned() } else { format!("{} ({}w, {}n)", l.widening + l.narrowing, l.widening, l.narrowing) };
        let _ = writeln!(
            s,
            "| [`{0}`](reports/{0}.md) | {1} | `{2}` | {3} ({4}) | {5} | {6} | {7} | {8} |",
            l.name,
            package_and_path(l),
            l.target,
            l.exact,
            l.exact_proven,
            approximated,
            l.refused,
            marks(l),
            l.crashed_cases.map_or_else(|| "not run".to_owned(), |n| n.to_string())
        );
    }
    let (compared, proven) = lines.iter().filter_map(|l| l.compared).fold((0, 0), |(c, p), (lc, lp)| (c + lc, p + lp));
    let _ = writeln!(
        s,
        "\nOf the {compared} trials whose projection was compared with its source (known violations included), {proven} are proven exact: the projection accepts \
         exactly what the source accepts, both ways (CONTRACT section 5); the others deviate by a witness, or are not refuted.\n"
    );
    if let Some(line) = super::real_tools::headline_line(report) {
        let _ = writeln!(s, "{line}\n");
    }
    let _ = write!(s, "{END}");
    s
}

/// `readme` with its block replaced by `block`; `None` when it has no block (or a broken one).
#[must_use]
pub fn replace(readme: &str, block: &str) -> Option<String> {
    let start = readme.find(START)?;
    let end = readme[start..].find(END)? + start + END.len();
    Some(format!("{}{block}{}", &readme[..start], &readme[end..]))
}

/// The block `readme` holds now, markers included.
#[must_use]
pub fn current(readme: &str) -> Option<&str> {
    let start = readme.find(START)?;
    let end = readme[start..].find(END)? + start + END.len();
    Some(&readme[start..end])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(key: &str, disposition: &str, direction: Option<&str>, mark: Value) -> Value {
        json!({"key": key, "refinement": null, "extension": false, "disposition": disposition, "direction": direction, "known_violation": mark})
    }

    #[test]
    fn counts_keyword_rows_and_marks_by_class() {
        let report = json!({"translators": [
            {"name": "b-builtin", "package": null, "target": "json-schema", "target_violations": [], "trials": {"crashed_cases": [], "evidence": {"compared": 5, "proven_exact": 3}}, "rows": [
                {"key": "const", "refinement": null, "extension": false, "disposition": "preserved", "known_violation": null, "evidence": {"declared": 0, "marked": [], "unexplained": [], "inverted": [], "compared": 2, "proven": 2}},
                {"key": "enum", "refinement": null, "extension": false, "disposition": "preserved", "known_violation": null, "evidence": {"declared": 0, "marked": [], "unexplained": [], "inverted": [], "compared": 2, "proven": 1}},
            ]},
            {"name": "a-sdk", "package": "sdk 1.0 (npm)", "entry": {"call": "sdk.send(tools=[...])", "path": "`sdk.convert`", "reads": "body.tools[0]"}, "target": "gemini-proto", "target_violations": [{"rule": "grammar"}], "trials": {"crashed_cases": ["c1", "c2"]}, "rows": [
                row("const", "preserved", None, json!({"issue": "o/r#1", "direction": "widening"})),
                row("false", "preserved", None, json!({"issue": "o/r#2", "direction": "narrowing", "crash": "TypeError"})),
                row("pattern", "approximated", Some("widening"), Value::Null),
                row("minimum", "approximated", Some("narrowing"), json!({"issue": "o/r#3", "direction": "narrowing"})),
                row("not", "refused", None, Value::Null),
                row("type", "preserved", None, Value::Null),
                {"key": "type", "refinement": "at_root", "extension": false, "disposition": "refused", "known_violation": null},
                {"key": "nullable", "refinement": null, "extension": true, "disposition": "preserved", "known_violation": null},
            ]},
            {"name": "c-absent", "package": "x 1 (PyPI)", "target": "moonshot", "rows": []},
        ]});
        let b = block(&report);
        let lines: Vec<&str> = b.lines().filter(|l| l.starts_with("| [")).collect();
        assert_eq!(lines.len(), 3, "{b}");
        assert_eq!(lines[0], "| [`a-sdk`](reports/a-sdk.md) | sdk 1.0 (npm): `sdk.convert` | `gemini-proto` | 1 (0) | 2 (1w, 1n) | 1 | 4 (1 widening, 1 narrowing, 1 crash, 1 target rule) | 2 |");
        assert!(lines[1].starts_with("| [`c-absent`]") && lines[1].ends_with("| not run |"), "packages first, a translator not run says so: {}", lines[1]);
        assert_eq!(lines[2], "| [`b-builtin`](reports/b-builtin.md) | built-in | `json-schema` | 2 (1) | 0 | 0 | 0 | 0 |", "a row is proven only where every compared case is");
        assert!(b.contains("Of the 5 trials whose projection was compared with its source (known violations included), 3 are proven exact"), "{b}");
    }

    #[test]
    fn the_block_is_replaced_between_its_markers_only() {
        let readme = format!("# title\n\nintro\n\n{START}\nold\n{END}\n\n## next\n");
        let new = replace(&readme, &format!("{START}\nnew\n{END}")).expect("has a block");
        assert_eq!(new, format!("# title\n\nintro\n\n{START}\nnew\n{END}\n\n## next\n"));
        assert_eq!(current(&new), Some(format!("{START}\nnew\n{END}").as_str()));
        assert_eq!(replace("# no block\n", "x"), None);
    }
}
