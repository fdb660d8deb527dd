//! Small text helpers shared by the Markdown and HTML views.

use serde_json::Value;

/// Longest instance shown inline; `report.json` always has the whole value.
pub(super) const MAX_INLINE: usize = 240;

/// `s` as a Markdown code span, whatever backticks it holds.
#[must_use]
pub(super) fn code(s: &str) -> String {
    let longest_run = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// `s` cut to `max` characters, marking the cut.
#[must_use]
pub(super) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

/// A JSON value on one line, cut to [`MAX_INLINE`].
#[must_use]
pub(crate) fn json_inline(v: &Value) -> String {
    truncate(&v.to_string(), MAX_INLINE)
}

/// Text for a Markdown table cell or a one-line paragraph: no pipes, no line breaks.
#[must_use]
pub(super) fn md_inline(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

/// Text for HTML element content and attribute values.
#[must_use]
pub(super) fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The one stylesheet every HTML page links to, written once as `reports/style.css` rather than
/// inlined into each of the dozens of pages (which made every page repeat it).
pub(super) const STYLESHEET: &str = "style.css";

/// The stylesheet's text. `reports/style.css` is its one copy: hand-written, not generated from
/// the tables, so it is embedded from there (and written beside the pages wherever `report` writes
/// them) rather than kept a second time as string constants here.
pub(super) const STYLESHEET_TEXT: &str = include_str!("../../../reports/style.css");

/// The opening of every HTML page up to `<body>`: the charset, the viewport, the title (escaped
/// here) and the link to [`STYLESHEET`].
#[must_use]
pub(super) fn html_head(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>schema-fidelity: {}</title>\n<link rel=\"stylesheet\" href=\"{STYLESHEET}\">\n</head>\n<body>\n",
        html(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 3), "abc…");
        assert_eq!(truncate("abc", 3), "abc");
    }
}
