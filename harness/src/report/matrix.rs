//! The disposition matrix: translators (columns) × keywords (rows), one symbol per cell, as
//! `matrix.md` (for a code host) and `index.html` (a static page for a browser).
//!
//! Only the tables feed the matrix, never the corpus: a change of a disposition is a change of
//! the matrix, and a change of the corpus is not. That keeps the review diff of the matrix about
//! what the issue asked it to show, and lets the ratchet check the matrix even where the
//! JSON-Schema-Test-Suite is absent.
//!
//! Refined rows (`at_root`, `forms`) get their own lines under their keyword, for every
//! translator, so that a refinement one table makes is visible next to the others' plain rows.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use schema_fidelity_translators::vocabulary::{BOOLEAN_SUBSCHEMAS, DRAFT_2020_12, Vocabulary};

use super::anchor;
use super::model::{Report, RowReport, TranslatorReport, refinement_order};
use super::text::{code, html, md_inline};

/// What one cell shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// The translator has this very row.
    Row { class: &'static str, known: bool, anchor: String, title: String },
    /// No refinement of its own here: the keyword's row (or a matching extension glob) applies,
    /// shown with that row's class, muted.
    Inherited { class: &'static str, known: bool, anchor: String, title: String },
    /// The keyword has no row of its own, only refinements (listed below it).
    ByRefinement,
    /// Nothing applies: a schema using this fails *never silent*.
    Missing,
}

/// The symbol for a disposition class.
#[must_use]
pub fn symbol(class: &str) -> &'static str {
    match class {
        "preserved" => "✓",
        "widening" => "+",
        "narrowing" => "−",
        "refused" => "✗",
        _ => "?",
    }
}

/// The legend, in display order: (class, symbol, name, meaning).
pub const LEGEND: &[(&str, &str, &str, &str)] = &[
    ("preserved", "✓", "preserved", "the projection accepts exactly what the source accepts"),
    ("widening", "+", "widening", "approximated: the projection accepts more than the source"),
    ("narrowing", "−", "narrowing", "approximated: the projection accepts less than the source"),
    ("refused", "✗", "refused", "the translator fails with a named error citing the keyword"),
    ("known", "⚠", "known violation", "the translator is known to break this row (the declared symbol follows)"),
    ("inherited", "(✓)", "same as the keyword", "no refinement here: the keyword's own row (or a matching extension glob) applies"),
    ("by-refinement", "↓", "by refinement", "no row of its own: the refinements below apply"),
    ("missing", "∅", "no row", "a schema using it fails the contract's rule *never silent*"),
];

/// One line of the matrix.
#[derive(Debug, Clone)]
pub struct Line {
    pub key: String,
    pub refinement: Option<String>,
    pub cells: Vec<Cell>,
}

/// A titled group of lines (a vocabulary, the boolean subschemas, the extensions).
#[derive(Debug, Clone)]
pub struct Group {
    pub title: String,
    pub lines: Vec<Line>,
}

/// The matrix, ready to render.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// The translators shown (tables that loaded), in report order.
    pub columns: Vec<String>,
    pub groups: Vec<Group>,
    /// Tables that did not load at all, with the reason.
    pub broken: Vec<(String, String)>,
}

const VOCABULARIES: &[(Vocabulary, &str)] = &[
    (Vocabulary::Core, "Core"),
    (Vocabulary::Applicator, "Applicator"),
    (Vocabulary::Unevaluated, "Unevaluated"),
    (Vocabulary::Validation, "Validation"),
    (Vocabulary::MetaData, "Meta-data"),
    (Vocabulary::FormatAnnotation, "Format annotation"),
    (Vocabulary::Content, "Content"),
];

/// Build the matrix from the report's tables.
#[must_use]
pub fn build(report: &Report) -> Matrix {
    let shown: Vec<&TranslatorReport> = report.translators.iter().filter(|t| t.source.is_some()).collect();
    let broken = report
        .translators
        .iter()
        .filter(|t| t.source.is_none())
        .map(|t| (t.name.clone(), t.lint.first().cloned().unwrap_or_default()))
        .collect();
    let mut groups = Vec::new();
    for (vocabulary, title) in VOCABULARIES {
        let keys = DRAFT_2020_12.iter().filter(|k| k.vocabulary == *vocabulary).map(|k| k.name.to_owned());
        groups.push(Group { title: (*title).to_owned(), lines: lines_for(keys, &shown) });
    }
    groups.push(Group { title: "Boolean subschemas".to_owned(), lines: lines_for(BOOLEAN_SUBSCHEMAS.iter().map(|k| (*k).to_owned()), &shown) });
    let extensions: BTreeSet<String> = shown.iter().flat_map(|t| t.rows.iter()).filter(|r| r.extension).map(|r| r.key.clone()).collect();
    if !extensions.is_empty() {
        groups.push(Group { title: "Extensions".to_owned(), lines: lines_for(extensions.into_iter(), &shown) });
    }
    Matrix { columns: shown.iter().map(|t| t.name.clone()).collect(), groups, broken }
}

fn lines_for(keys: impl Iterator<Item = String>, shown: &[&TranslatorReport]) -> Vec<Line> {
    let mut lines = Vec::new();
    for key in keys {
        let mut refinements: Vec<String> =
            shown.iter().flat_map(|t| t.rows.iter()).filter(|r| r.key == key).filter_map(|r| r.refinement.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        refinements.sort_by_key(|r| refinement_order(Some(r)));
        for refinement in std::iter::once(None).chain(refinements.into_iter().map(Some)) {
            let cells = shown.iter().map(|t| cell(t, &key, refinement.as_deref())).collect();
            lines.push(Line { key: key.clone(), refinement, cells });
        }
    }
    lines
}

fn find<'a>(t: &'a TranslatorReport, key: &str, refinement: Option<&str>) -> Option<&'a RowReport> {
    t.rows.iter().find(|r| r.key == key && r.refinement.as_deref() == refinement)
}

/// The extension pattern of `t` that would govern a key named like `key` (for a glob key, any key
/// it matches): the exact name, else the longest glob.
fn governing_extension<'a>(t: &'a TranslatorReport, key: &str) -> Option<&'a str> {
    let sample = key.strip_suffix('*').unwrap_or(key);
    let patterns = t.rows.iter().filter(|r| r.extension).map(|r| r.key.as_str());
    patterns
        .filter(|p| *p == key || p.strip_suffix('*').is_some_and(|prefix| sample.starts_with(prefix)))
        .max_by_key(|p| (*p == key, p.len()))
}

fn cell(t: &TranslatorReport, key: &str, refinement: Option<&str>) -> Cell {
    if let Some(row) = find(t, key, refinement) {
        return Cell::Row { class: row.class(), known: row.broken(), anchor: row.anchor.clone(), title: title(row) };
    }
    let has_key = t.rows.iter().any(|r| r.key == key);
    if has_key {
        return match (refinement, find(t, key, None)) {
            (Some(_), Some(base)) => Cell::Inherited {
                class: base.class(),
                known: base.broken(),
                anchor: base.anchor.clone(),
                title: format!("no refinement: {}", title(base)),
            },
            (None, None) => Cell::ByRefinement,
            // No base row and no root refinement: on the root, the value's form decides, as
            // everywhere else, so the form lines below apply.
            (Some(anchor::AT_ROOT), None)
                if t.rows.iter().any(|r| r.key == key && r.refinement.as_deref().is_some_and(|x| x != anchor::AT_ROOT)) =>
            {
                Cell::ByRefinement
            }
            _ => Cell::Missing,
        };
    }
    if anchor::is_extension(key)
        && let Some(pattern) = governing_extension(t, key)
        && let Some(row) = find(t, pattern, refinement).or_else(|| find(t, pattern, None))
    {
        return Cell::Inherited {
            class: row.class(),
            known: row.broken(),
            anchor: row.anchor.clone(),
            title: format!("covered by `{pattern}`: {}", title(row)),
        };
    }
    Cell::Missing
}

fn title(row: &RowReport) -> String {
    let mut s = format!("{}: {}", row.citation, row.label());
    if let Some(k) = &row.known_violation {
        s.push_str(&format!("; KNOWN VIOLATION ({}, {})", k.direction, k.issue));
    } else if row.broken() {
        s.push_str("; BROKEN: a witness of the run is pinned on it, covered by another row's mark");
    }
    if let Some(note) = &row.note {
        s.push_str(&format!(". {note}"));
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The label of a line: the keyword, or the refinement under it.
fn refinement_phrase(refinement: &str) -> String {
    match refinement {
        anchor::AT_ROOT => "on the root".to_owned(),
        "true" => "when `true`".to_owned(),
        "false" => "when `false`".to_owned(),
        "schema" => "when a schema".to_owned(),
        "list" => "when a list".to_owned(),
        "fragment" => "when a `#` reference".to_owned(),
        "uri" => "when a URI".to_owned(),
        "scalar" => "when a scalar".to_owned(),
        other => format!("when {other}"),
    }
}

// ---- Markdown ----------------------------------------------------------------------------------

/// `matrix.md`.
#[must_use]
pub fn markdown(m: &Matrix, version: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Disposition matrix\n");
    let _ = writeln!(
        s,
        "What each translator owes each JSON Schema draft 2020-12 keyword, boolean subschema and extension: one symbol per \
         disposition. Each symbol links to the row on the translator's page (its note, issues, table line, the cases that use it \
         and a witness). Read [`CONTRACT.md`](../CONTRACT.md) for what the dispositions promise.\n"
    );
    let _ = writeln!(
        s,
        "Generated by `schema-fidelity report` (schema-fidelity {version}); do not edit. Also as [HTML](index.html) and \
         [JSON](report.json).\n"
    );
    s.push_str("| symbol | meaning |\n|:-:|---|\n");
    for (_, sym, name, meaning) in LEGEND {
        let _ = writeln!(s, "| {sym} | **{name}**: {meaning} |");
    }
    s.push('\n');
    for (name, reason) in &m.broken {
        let _ = writeln!(s, "> **`{name}` is not shown: its table does not load.** {}\n", md_inline(reason));
    }
    s.push_str("| keyword |");
    for c in &m.columns {
        let _ = write!(s, " [{c}]({c}.md) |");
    }
    s.push_str("\n|---|");
    s.push_str(&":-:|".repeat(m.columns.len()));
    s.push('\n');
    for g in &m.groups {
        let _ = write!(s, "| **{}** |", g.title);
        s.push_str(&" |".repeat(m.columns.len()));
        s.push('\n');
        for line in &g.lines {
            let label = match &line.refinement {
                None => code(&line.key),
                Some(r) => format!("&emsp;↳ {}", refinement_phrase(r)),
            };
            let _ = write!(s, "| {label} |");
            for (c, cell) in m.columns.iter().zip(&line.cells) {
                let text = match cell {
                    Cell::Row { class, known: false, anchor, .. } => format!("[{}]({c}.md#{anchor})", symbol(class)),
                    Cell::Row { class, known: true, anchor, .. } => format!("[⚠ {}]({c}.md#{anchor})", symbol(class)),
                    Cell::Inherited { class, known, anchor, .. } => {
                        let warn = if *known { "⚠ " } else { "" };
                        format!("[({warn}{})]({c}.md#{anchor})", symbol(class))
                    }
                    Cell::ByRefinement => "↓".to_owned(),
                    Cell::Missing => "∅".to_owned(),
                };
                let _ = write!(s, " {text} |");
            }
            s.push('\n');
        }
    }
    s
}

// ---- HTML ----------------------------------------------------------------------------------------

/// `index.html`: a page with one small inline script, the filters; without scripts it
/// is the whole matrix.
#[must_use]
pub fn html_page(m: &Matrix, report: &Report) -> String {
    let version = &report.tool.version;
    let mut s = super::text::html_head("disposition matrix");
    s.push_str("<header class=\"intro\">\n<h1>Disposition matrix</h1>\n");
    let _ = writeln!(
        s,
        "<p>What each translator owes each JSON Schema draft 2020-12 keyword, boolean subschema and extension, one symbol per \
         disposition. {} translators &times; {} rows. Each symbol links to the row on the translator&rsquo;s page: its note, \
         issues, table line, the cases that use it and a witness.</p>",
        m.columns.len(),
        m.groups.iter().map(|g| g.lines.len()).sum::<usize>()
    );
    s.push_str("<ul class=\"legend\">\n");
    for (class, sym, name, meaning) in LEGEND {
        let (class, sym) = if *class == "inherited" { ("inherited preserved", "✓") } else { (*class, *sym) };
        let _ = writeln!(
            s,
            "<li><span class=\"sym {class}\">{sym}</span><span><b>{name}</b> <span class=\"what\">{}</span></span></li>",
            html(&meaning.replace('*', ""))
        );
    }
    s.push_str("</ul>\n");
    s.push_str(FILTERS_FORM);
    s.push_str("<p class=\"families\"><a href=\"cases.html\">The cases by family</a>: each case against every translator, one verdict per trial.</p>\n");
    s.push_str("</header>\n<div class=\"wrap\">\n");
    for (name, reason) in &m.broken {
        let _ = writeln!(s, "<p class=\"broken\"><b>{}</b> is not shown: its table does not load. {}</p>", html(name), html(reason));
    }
    s.push_str("<table class=\"matrix\">\n<thead>\n<tr><th class=\"corner\" scope=\"col\">keyword</th>");
    for c in &m.columns {
        let t = report.translators.iter().find(|t| &t.name == c);
        let (sub, long) = t.map(column_summary).unwrap_or_default();
        // A marker for a translator run as an external adapter. (The corpus run's counts are on
        // its page: this page depends on the tables alone, so it is compared without the suite or
        // the external runtimes too.)
        let external = t.and_then(|t| t.adapter.as_deref().map(|run| (run, t.package.as_deref()))).map_or_else(String::new, |(run, package)| {
            let package = package.map_or_else(String::new, |p| format!("{}, ", html(p)));
            format!("<span class=\"sub external\" title=\"{package}run as {}\">external</span>", html(run))
        });
        let _ = write!(
            s,
            "<th scope=\"col\" data-col=\"{0}\"><a href=\"{0}.html\">{0}</a>{external}<span class=\"sub\" title=\"{2}\">{1}</span></th>",
            html(c),
            html(&sub),
            html(&long)
        );
    }
    s.push_str("</tr>\n</thead>\n<tbody>\n");
    for g in &m.groups {
        let cells: String = m.columns.iter().map(|c| format!("<td data-col=\"{}\"></td>", html(c))).collect();
        let _ = writeln!(s, "<tr class=\"group\"><th scope=\"rowgroup\">{}</th>{cells}</tr>", html(&g.title));
        for line in &g.lines {
            let label = match &line.refinement {
                None => format!("<code>{}</code>", html(&line.key)),
                Some(r) => format!("↳ {}", code_html(&refinement_phrase(r))),
            };
            let class = if line.refinement.is_some() { " class=\"refinement\"" } else { "" };
            let _ = write!(s, "<tr{class}><th scope=\"row\">{label}</th>");
            for (c, cell) in m.columns.iter().zip(&line.cells) {
                let _ = write!(s, "<td data-col=\"{}\">", html(c));
                match cell {
                    Cell::Row { class, known, anchor, title } => {
                        let href = format!("{c}.html#{anchor}");
                        if *known {
                            let _ = write!(
                                s,
                                "<a class=\"sym known\" href=\"{}\" title=\"{}\">⚠<span class=\"declared\">{}</span></a>",
                                html(&href),
                                html(title),
                                symbol(class)
                            );
                        } else {
                            let _ = write!(s, "<a class=\"sym {class}\" href=\"{}\" title=\"{}\">{}</a>", html(&href), html(title), symbol(class));
                        }
                    }
                    Cell::Inherited { class, known, anchor, title } => {
                        let warn = if *known { "⚠" } else { "" };
                        let _ = write!(
                            s,
                            "<a class=\"sym inherited {class}\" href=\"{}\" title=\"{}\">{warn}{}</a>",
                            html(&format!("{c}.html#{anchor}")),
                            html(title),
                            symbol(class)
                        );
                    }
                    Cell::ByRefinement => s.push_str("<span class=\"sym by-refinement\" title=\"no row of its own: see the refinements below\">↓</span>"),
                    Cell::Missing => s.push_str("<span class=\"sym missing\" title=\"no row: a schema using it fails never silent\">∅</span>"),
                }
                s.push_str("</td>");
            }
            s.push_str("</tr>\n");
        }
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    let _ = writeln!(
        s,
        "<footer>Generated by <code>schema-fidelity report</code> (schema-fidelity {}); do not edit. Also as \
         <a href=\"matrix.md\">Markdown</a> and <a href=\"report.json\">JSON</a> (with the table and corpus hashes).</footer>",
        html(version)
    );
    let _ = writeln!(s, "<script>{FILTERS_SCRIPT}</script>");
    s.push_str("</body>\n</html>\n");
    s
}

/// The filters above the matrix: translators by name (a family: `openai`, `gemini`), rows by
/// disposition, only rows that deviate or carry a mark. The state is in the address
/// (`index.html?translators=gemini&disposition=widening&deviations=1`), so a filtered view can be
/// linked to.
const FILTERS_FORM: &str = "<form id=\"filters\" class=\"filters\" onsubmit=\"return false\">\n\
<label>translators <input name=\"translators\" type=\"search\" placeholder=\"all; or a family: openai, gemini\"></label>\n\
<label>disposition <select name=\"disposition\"><option value=\"\">any</option><option value=\"preserved\">✓ preserved</option>\
<option value=\"widening\">+ widening</option><option value=\"narrowing\">− narrowing</option><option value=\"refused\">✗ refused</option>\
<option value=\"known\">⚠ known violation</option></select></label>\n\
<label><input name=\"deviations\" type=\"checkbox\"> only rows that deviate or carry a mark</label>\n\
<output id=\"shown\" aria-live=\"polite\"></output>\n</form>\n";

const FILTERS_SCRIPT: &str = r#"
(function () {
  var form = document.getElementById("filters");
  var query = new URLSearchParams(location.search);
  form.elements.translators.value = query.get("translators") || "";
  form.elements.disposition.value = query.get("disposition") || "";
  form.elements.deviations.checked = query.get("deviations") === "1";
  var columns = Array.prototype.map.call(document.querySelectorAll("table.matrix thead th[data-col]"), function (th) { return th.dataset.col; });
  function apply() {
    var words = form.elements.translators.value.toLowerCase().split(/[\s,]+/).filter(Boolean);
    var visible = {};
    columns.forEach(function (c) { visible[c] = words.length === 0 || words.some(function (w) { return c.indexOf(w) >= 0; }); });
    document.querySelectorAll("table.matrix [data-col]").forEach(function (el) { el.hidden = !visible[el.dataset.col]; });
    var disposition = form.elements.disposition.value, deviations = form.elements.deviations.checked, shown = 0, total = 0;
    document.querySelectorAll("table.matrix tbody tr:not(.group)").forEach(function (row) {
      var cells = Array.prototype.filter.call(row.querySelectorAll("td[data-col]"), function (td) { return !td.hidden; });
      function has(cls) { return cells.some(function (td) { return td.querySelector(".sym." + cls) !== null; }); }
      var keep = disposition === "" || has(disposition);
      if (keep && deviations) keep = ["widening", "narrowing", "refused", "known", "missing"].some(has);
      row.hidden = !keep;
      total += 1;
      if (keep) shown += 1;
    });
    var shownColumns = columns.filter(function (c) { return visible[c]; }).length;
    document.getElementById("shown").textContent = shown + " of " + total + " rows, " + shownColumns + " of " + columns.length + " translators";
    document.body.dataset.rowsShown = String(shown);
    document.body.dataset.columnsShown = String(shownColumns);
    var next = new URLSearchParams();
    if (form.elements.translators.value) next.set("translators", form.elements.translators.value);
    if (disposition) next.set("disposition", disposition);
    if (deviations) next.set("deviations", "1");
    try { history.replaceState(null, "", next.toString() ? "?" + next.toString() : location.pathname); } catch (e) { /* file: URLs in some browsers */ }
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  apply();
})();
"#;

/// The table's shape under its name: `57✓ 3✗`, and in words for the tooltip.
fn column_summary(t: &TranslatorReport) -> (String, String) {
    let count = |class: &str| t.rows.iter().filter(|r| r.class() == class).count();
    let known = t.rows.iter().filter(|r| r.broken()).count();
    let counts = [("preserved", "✓", count("preserved")), ("widening", "+", count("widening")), ("narrowing", "−", count("narrowing"))]
        .into_iter()
        .chain([("refused", "✗", count("refused")), ("known violations", "⚠", known)])
        .filter(|(_, _, n)| *n > 0);
    let (short, long): (Vec<String>, Vec<String>) = counts.map(|(name, sym, n)| (format!("{n}{sym}"), format!("{n} {name}"))).unzip();
    (short.join(" "), format!("rows: {}", long.join(", ")))
}

/// Markdown-ish backticks in a phrase as `<code>`.
fn code_html(phrase: &str) -> String {
    let mut out = String::new();
    for (i, part) in phrase.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", html(part));
        } else {
            out.push_str(&html(part));
        }
    }
    out
}
