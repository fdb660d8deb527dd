//! One document model for the pages written in both Markdown and HTML.
//!
//! A page is built once as [`Block`]s of [`Inline`]s and rendered twice, by [`markdown`] and
//! [`html`]: the two files say the same things because they are the same value, where two
//! hand-written renderers drifted (a limits table with five columns in one and three in the
//! other, a witness note in one only, backticks shown raw in the HTML headings). Only what a
//! format has and the other has not differs: Markdown needs an explicit `<a id>` where GitHub's
//! heading anchor is not the row's anchor; HTML wraps a row in a `<section>` and styles symbols.

use std::fmt::Write as _;

use super::anchor::github_slug;
use super::text::{code, html as escape};

/// Where a link goes; each format spells it with its own file names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Href {
    /// A translator's page, at a row's anchor or at its top: `NAME.md#A` / `NAME.html#A`.
    Page(String, Option<String>),
    /// The same page in the other format (`NAME.html` from Markdown, `NAME.md` from HTML).
    OtherFormat(String),
    /// The matrix: `matrix.md` / `index.html`.
    Matrix,
    /// An anchor on this page.
    Here(String),
    /// A project file, from `reports/`, at a line or not: `../PATH#L12`.
    File(String, Option<u64>),
}

/// Text within a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    /// Plain text (escaped by each renderer; whitespace runs are one space).
    Text(String),
    /// A code span.
    Code(String),
    /// Strong emphasis.
    Strong(Vec<Inline>),
    /// A link.
    Link(Href, Vec<Inline>),
    /// Text with a style class: a `<span class>` in HTML, the text alone in Markdown.
    Styled(String, Vec<Inline>),
    /// The words naming the other format ("HTML" from Markdown, "Markdown" from HTML).
    OtherFormatName,
}

/// `Inline::Text`.
#[must_use]
pub fn text(s: impl Into<String>) -> Inline {
    Inline::Text(s.into())
}

/// `Inline::Code`.
#[must_use]
pub fn code_span(s: impl Into<String>) -> Inline {
    Inline::Code(s.into())
}

/// A phrase whose backtick spans are code (`` `anyOf` at root ``), as inlines.
#[must_use]
pub fn phrase(s: &str) -> Vec<Inline> {
    if s.matches('`').count() % 2 == 1 {
        return vec![text(s)];
    }
    s.split('`').enumerate().filter(|(_, part)| !part.is_empty()).map(|(i, part)| if i % 2 == 1 { code_span(part) } else { text(part) }).collect()
}

/// A part of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A heading, with the anchor it must have where that is not the one its text gives.
    Heading { level: u8, id: Option<String>, content: Vec<Inline> },
    Paragraph(Vec<Inline>),
    Quote(Vec<Inline>),
    /// A bulleted list, with a style class for HTML.
    List { class: Option<&'static str>, items: Vec<Vec<Inline>> },
    /// A two-column table of named facts.
    Facts(Vec<(&'static str, Vec<Inline>)>),
    /// A table with a header row; `numeric` columns are right-aligned in Markdown.
    Table { head: Vec<Vec<Inline>>, numeric: Vec<bool>, rows: Vec<Vec<Vec<Inline>>> },
    /// A row of a translator's page: a heading linked to its own anchor, then its blocks. HTML
    /// makes it a `<section class id>` (the target of the matrix's links).
    Section { id: String, class: String, level: u8, heading: Vec<Inline>, blocks: Vec<Block> },
}

/// The blocks as Markdown.
#[must_use]
pub fn markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        markdown_block(&mut out, b);
    }
    out
}

/// The blocks as HTML (element content of `<body>` or `<main>`).
#[must_use]
pub fn html(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        html_block(&mut out, b);
    }
    out
}

// ---- Markdown ------------------------------------------------------------------------------------

fn markdown_block(out: &mut String, block: &Block) {
    match block {
        Block::Heading { level, id, content } => markdown_heading(out, *level, id.as_deref(), content),
        Block::Paragraph(content) => {
            let _ = writeln!(out, "{}\n", md(content, false));
        }
        Block::Quote(content) => {
            let _ = writeln!(out, "> {}\n", md(content, false));
        }
        Block::List { items, .. } => {
            for item in items {
                let _ = writeln!(out, "- {}", md(item, false));
            }
            out.push('\n');
        }
        Block::Facts(facts) => {
            out.push_str("| | |\n|---|---|\n");
            for (name, value) in facts {
                let _ = writeln!(out, "| {} | {} |", md_text(name, true), md(value, true));
            }
            out.push('\n');
        }
        Block::Table { head, numeric, rows } => {
            let cells = |row: &[Vec<Inline>]| row.iter().map(|c| md(c, true)).collect::<Vec<_>>().join(" | ");
            let _ = writeln!(out, "| {} |", cells(head));
            let rule: Vec<&str> = (0..head.len()).map(|i| if numeric.get(i).copied().unwrap_or(false) { "--:" } else { "---" }).collect();
            let _ = writeln!(out, "|{}|", rule.join("|"));
            for row in rows {
                let _ = writeln!(out, "| {} |", cells(row));
            }
            out.push('\n');
        }
        Block::Section { id, level, heading, blocks, .. } => {
            markdown_heading(out, *level, Some(id), heading);
            for b in blocks {
                markdown_block(out, b);
            }
        }
    }
}

fn markdown_heading(out: &mut String, level: u8, id: Option<&str>, content: &[Inline]) {
    let heading = md(content, false);
    if let Some(id) = id
        && github_slug(&heading) != id
    {
        let _ = writeln!(out, "<a id=\"{id}\"></a>\n");
    }
    let _ = writeln!(out, "{} {heading}\n", "#".repeat(usize::from(level)));
}

fn md(content: &[Inline], in_table: bool) -> String {
    content.iter().map(|i| md_inline(i, in_table)).collect()
}

fn md_inline(inline: &Inline, in_table: bool) -> String {
    match inline {
        Inline::Text(s) => md_text(s, in_table),
        Inline::Code(s) => {
            let one_line = collapse(s);
            code(&if in_table { one_line.replace('|', "\\|") } else { one_line })
        }
        Inline::Strong(content) => format!("**{}**", md(content, in_table)),
        Inline::Link(href, content) => format!("[{}]({})", md(content, in_table), md_href(href)),
        Inline::Styled(_, content) => md(content, in_table),
        Inline::OtherFormatName => "HTML".to_owned(),
    }
}

fn md_href(href: &Href) -> String {
    match href {
        Href::Page(name, None) => format!("{name}.md"),
        Href::Page(name, Some(anchor)) => format!("{name}.md#{anchor}"),
        Href::OtherFormat(name) => format!("{name}.html"),
        Href::Matrix => "matrix.md".to_owned(),
        Href::Here(anchor) => format!("#{anchor}"),
        Href::File(path, None) => format!("../{path}"),
        Href::File(path, Some(line)) => format!("../{path}#L{line}"),
    }
}

/// Text on one line: each run of whitespace one space (the ends kept, so that `a ` + `b` stays
/// two words), and in a table cell no bare `|`.
fn md_text(s: &str, in_table: bool) -> String {
    let one_line = collapse(s);
    if in_table { one_line.replace('|', "\\|") } else { one_line }
}

fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

// ---- HTML ----------------------------------------------------------------------------------------

fn html_block(out: &mut String, block: &Block) {
    match block {
        Block::Heading { level, id, content } => {
            let id = id.as_ref().map_or_else(String::new, |id| format!(" id=\"{}\"", escape(id)));
            let _ = writeln!(out, "<h{level}{id}>{}</h{level}>", html_inlines(content));
        }
        Block::Paragraph(content) => {
            let _ = writeln!(out, "<p>{}</p>", html_inlines(content));
        }
        Block::Quote(content) => {
            let _ = writeln!(out, "<blockquote>{}</blockquote>", html_inlines(content));
        }
        Block::List { class, items } => {
            let class = class.map_or_else(String::new, |c| format!(" class=\"{c}\""));
            let _ = writeln!(out, "<ul{class}>");
            for item in items {
                let _ = writeln!(out, "<li>{}</li>", html_inlines(item));
            }
            out.push_str("</ul>\n");
        }
        Block::Facts(facts) => {
            out.push_str("<table class=\"facts\">\n");
            for (name, value) in facts {
                let _ = writeln!(out, "<tr><th scope=\"row\">{}</th><td>{}</td></tr>", escape(name), html_inlines(value));
            }
            out.push_str("</table>\n");
        }
        Block::Table { head, numeric, rows } => {
            let align = |i: usize| if numeric.get(i).copied().unwrap_or(false) { " class=\"number\"" } else { "" };
            out.push_str("<table class=\"facts\">\n<tr>");
            for (i, h) in head.iter().enumerate() {
                let _ = write!(out, "<th{}>{}</th>", align(i), html_inlines(h));
            }
            out.push_str("</tr>\n");
            for row in rows {
                out.push_str("<tr>");
                for (i, cell) in row.iter().enumerate() {
                    let _ = write!(out, "<td{}>{}</td>", align(i), html_inlines(cell));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        }
        Block::Section { id, class, level, heading, blocks } => {
            let _ = writeln!(out, "<section class=\"{}\" id=\"{}\">", escape(class), escape(id));
            let _ = writeln!(out, "<h{level}><a href=\"#{}\">{}</a></h{level}>", escape(id), html_inlines(heading));
            for b in blocks {
                html_block(out, b);
            }
            out.push_str("</section>\n");
        }
    }
}

fn html_inlines(content: &[Inline]) -> String {
    content.iter().map(html_inline).collect()
}

fn html_inline(inline: &Inline) -> String {
    match inline {
        Inline::Text(s) => escape(s),
        Inline::Code(s) => format!("<code>{}</code>", escape(s)),
        Inline::Strong(content) => format!("<b>{}</b>", html_inlines(content)),
        Inline::Link(href, content) => format!("<a href=\"{}\">{}</a>", escape(&html_href(href)), html_inlines(content)),
        Inline::Styled(class, content) => format!("<span class=\"{}\">{}</span>", escape(class), html_inlines(content)),
        Inline::OtherFormatName => "Markdown".to_owned(),
    }
}

fn html_href(href: &Href) -> String {
    match href {
        Href::Page(name, None) => format!("{name}.html"),
        Href::Page(name, Some(anchor)) => format!("{name}.html#{anchor}"),
        Href::OtherFormat(name) => format!("{name}.md"),
        Href::Matrix => "index.html".to_owned(),
        Href::Here(anchor) => format!("#{anchor}"),
        Href::File(path, None) => format!("../{path}"),
        Href::File(path, Some(line)) => format!("../{path}#L{line}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_keeps_its_code_spans_and_its_spaces() {
        assert_eq!(phrase("`anyOf` at root"), vec![code_span("anyOf"), text(" at root")]);
        assert_eq!(markdown(&[Block::Paragraph(phrase("`anyOf` at root"))]), "`anyOf` at root\n\n");
        assert_eq!(html(&[Block::Paragraph(phrase("`anyOf` at root"))]), "<p><code>anyOf</code> at root</p>\n");
        assert_eq!(phrase("an odd ` tick"), vec![text("an odd ` tick")], "an unpaired backtick is text");
    }

    #[test]
    fn both_formats_say_the_same_with_their_own_links() {
        let page = [
            Block::Heading { level: 2, id: Some("ext-x-star".to_owned()), content: vec![text("Extension "), code_span("x-*")] },
            Block::Paragraph(vec![
                Inline::Link(Href::Page("anthropic".to_owned(), Some("pattern".to_owned())), vec![code_span("pattern")]),
                text(" · "),
                Inline::Link(Href::File("dispositions/a.yaml".to_owned(), Some(7)), vec![text("a <b> & c")]),
            ]),
        ];
        assert_eq!(
            markdown(&page),
            "<a id=\"ext-x-star\"></a>\n\n## Extension `x-*`\n\n[`pattern`](anthropic.md#pattern) · [a <b> & c](../dispositions/a.yaml#L7)\n\n"
        );
        assert_eq!(
            html(&page),
            "<h2 id=\"ext-x-star\">Extension <code>x-*</code></h2>\n\
             <p><a href=\"anthropic.html#pattern\"><code>pattern</code></a> · <a href=\"../dispositions/a.yaml#L7\">a &lt;b&gt; &amp; c</a></p>\n"
        );
    }

    #[test]
    fn a_heading_whose_slug_is_its_anchor_needs_no_explicit_one() {
        let heading = Block::Heading { level: 3, id: Some("anyof-at-root".to_owned()), content: phrase("`anyOf` at root") };
        assert_eq!(markdown(&[heading]), "### `anyOf` at root\n\n");
    }

    #[test]
    fn table_cells_escape_pipes_and_keep_one_line() {
        let table = Block::Table {
            head: vec![vec![text("a")], vec![text("n")]],
            numeric: vec![false, true],
            rows: vec![vec![vec![text("x | y\nz")], vec![code_span("1|2")]]],
        };
        assert_eq!(markdown(std::slice::from_ref(&table)), "| a | n |\n|---|--:|\n| x \\| y z | `1\\|2` |\n\n");
        assert!(html(&[table]).contains("<td>x | y\nz</td><td class=\"number\"><code>1|2</code></td>"));
        assert_eq!(markdown(&[Block::Paragraph(vec![text("a | b")])]), "a | b\n\n", "outside a table a pipe is text");
    }

    #[test]
    fn a_section_is_a_heading_in_markdown_and_a_section_in_html() {
        let section = Block::Section {
            id: "pattern".to_owned(),
            class: "row widening".to_owned(),
            level: 3,
            heading: vec![code_span("pattern")],
            blocks: vec![Block::Quote(vec![text("dropped")])],
        };
        assert_eq!(markdown(std::slice::from_ref(&section)), "### `pattern`\n\n> dropped\n\n");
        assert_eq!(html(&[section]), "<section class=\"row widening\" id=\"pattern\">\n<h3><a href=\"#pattern\"><code>pattern</code></a></h3>\n<blockquote>dropped</blockquote>\n</section>\n");
    }
}
