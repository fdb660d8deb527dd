//! A built-in translator beside the real translator it models (`models:` in its table): the rows
//! where their dispositions differ, and for each what the difference says, which the built-in
//! translator's page shows (`reports/<built-in>.md`, `.html`) and the matrix summarizes.
//!
//! A built-in translator is the reference: what the contract lets a translator to that surface
//! do. Where the real one differs, either it breaks that contract (a mark on its row, or a keyword
//! it sends that its target's grammar rejects), or it gives up what the reference keeps (its own
//! declared approximation), or it keeps what the reference gives up without breaking its target,
//! which says the reference is wrong (and is fixed in the built-in translator), unless the two
//! aim at different targets. Only the tables feed this, like the matrix.

use std::collections::BTreeSet;

use super::doc::{Block, Href, Inline, code_span, phrase, text};
use super::model::{Report, RowReport, TranslatorReport};

/// What one difference says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The real translator breaks the contract the reference keeps: the issues of its marks, or of
    /// the target rule it breaks with this keyword.
    RealBreaks { issues: Vec<String> },
    /// The real translator declares a loss (an approximation or a refusal) where the reference
    /// keeps the keyword exactly.
    RealLoses,
    /// Both give the keyword up, differently.
    BothApproximate,
    /// The reference gives up what the real one keeps exactly, at no cost to its target: the
    /// reference is wrong, unless the two aim at different targets (then `targets_differ`).
    ReferenceWeaker { targets_differ: bool },
    /// Such a row, reviewed: the reference is right, for the reason its table gives
    /// (`models_reviewed:`).
    ReferenceUpheld { why: String },
}

impl Verdict {
    /// A few words for a table cell.
    #[must_use]
    pub fn words(&self, reference: &str, real: &str) -> String {
        match self {
            Self::RealBreaks { issues } => format!("`{real}` breaks the contract `{reference}` keeps ({})", issues.join("; ")),
            Self::RealLoses => format!("`{real}` gives up what `{reference}` keeps (its declared loss)"),
            Self::BothApproximate => "both give it up, differently".to_owned(),
            Self::ReferenceWeaker { targets_differ: false } => format!("`{reference}` gives up what `{real}` keeps at no cost to the target: the reference is wrong"),
            Self::ReferenceWeaker { targets_differ: true } => format!("`{reference}` gives up what `{real}` keeps, for another target"),
            Self::ReferenceUpheld { why } => format!("`{reference}` gives up what `{real}` keeps, and is right to: {why}"),
        }
    }
}

/// One row where the two tables differ.
#[derive(Debug, Clone)]
pub struct Difference<'a> {
    pub key: String,
    pub refinement: Option<String>,
    pub reference: &'a RowReport,
    pub real: &'a RowReport,
    pub verdict: Verdict,
}

/// A built-in translator and the real one it models, with their differences.
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    pub reference: &'a TranslatorReport,
    pub real: &'a TranslatorReport,
    pub differences: Vec<Difference<'a>>,
}

/// Every pair the report's tables declare, in report order of the built-in translators; a `models:`
/// naming a table that did not load gives no pair (the lint says why).
#[must_use]
pub fn pairs(report: &Report) -> Vec<Pair<'_>> {
    report
        .translators
        .iter()
        .filter(|t| t.source.is_some())
        .filter_map(|reference| {
            let real = report.translators.iter().find(|t| Some(&t.name) == reference.models.as_ref() && t.source.is_some())?;
            Some(Pair { reference, real, differences: differences(reference, real) })
        })
        .collect()
}

/// The real translators `name` is the reference for, as pairs with it.
#[must_use]
pub fn modelled_by<'a>(report: &'a Report, real: &str) -> Vec<&'a TranslatorReport> {
    report.translators.iter().filter(|t| t.models.as_deref() == Some(real)).collect()
}

/// The rows where `reference` and `real` differ, in the reference's row order (rows only the real
/// table refines follow).
#[must_use]
pub fn differences<'a>(reference: &'a TranslatorReport, real: &'a TranslatorReport) -> Vec<Difference<'a>> {
    let mut keys: Vec<(String, Option<String>)> = reference.rows.iter().map(|r| (r.key.clone(), r.refinement.clone())).collect();
    let seen: BTreeSet<(String, Option<String>)> = keys.iter().cloned().collect();
    keys.extend(real.rows.iter().map(|r| (r.key.clone(), r.refinement.clone())).filter(|k| !seen.contains(k)));
    let targets_differ = reference.target != real.target;
    keys.into_iter()
        .filter_map(|(key, refinement)| {
            let a = governing(reference, &key, refinement.as_deref())?;
            let b = governing(real, &key, refinement.as_deref())?;
            let marked = has_marks(b) && !has_marks(a);
            if a.label() == b.label() && !marked {
                return None;
            }
            let mut verdict = verdict(a, b, &key, real, targets_differ);
            if matches!(verdict, Verdict::ReferenceWeaker { .. }) {
                let citation = refinement.as_ref().map_or_else(|| key.clone(), |r| format!("{key}:{r}"));
                if let Some(why) = reference.models_reviewed.get(&citation) {
                    verdict = Verdict::ReferenceUpheld { why: why.clone() };
                }
            }
            Some(Difference { key, refinement, reference: a, real: b, verdict })
        })
        .collect()
}

/// The row that governs `key` (with `refinement`) in `t`: its own, else the keyword's, else a
/// matching extension glob's (the longest).
fn governing<'a>(t: &'a TranslatorReport, key: &str, refinement: Option<&str>) -> Option<&'a RowReport> {
    let exact = |k: &str, r: Option<&str>| t.rows.iter().find(|row| row.key == k && row.refinement.as_deref() == r);
    exact(key, refinement).or_else(|| exact(key, None)).or_else(|| {
        t.rows
            .iter()
            .filter(|row| row.extension && row.refinement.is_none() && row.key.ends_with('*') && key.starts_with(row.key.trim_end_matches('*')))
            .max_by_key(|row| row.key.len())
    })
}

fn has_marks(row: &RowReport) -> bool {
    row.known_violation.is_some() || !row.other_known_violations.is_empty()
}

fn verdict(reference: &RowReport, real: &RowReport, key: &str, real_table: &TranslatorReport, targets_differ: bool) -> Verdict {
    // A `false` or `true` form is governed by the boolean subschema's row too (CONTRACT.md section
    // 2): an inversion is marked there.
    let boolean = real.refinement.as_deref().filter(|r| matches!(*r, "true" | "false")).and_then(|r| real_table.rows.iter().find(|row| row.key == r && row.refinement.is_none()));
    let mut issues: Vec<String> =
        real.known_violation.iter().chain(&real.other_known_violations).chain(boolean.into_iter().flat_map(|b| b.known_violation.iter().chain(&b.other_known_violations))).map(|k| first_reference(&k.issue)).collect();
    if issues.is_empty() {
        issues = real_table.target_violations.iter().filter(|v| v.rule == "grammar" && v.keywords.iter().any(|k| k == key)).map(|v| first_reference(&v.issue)).collect();
    }
    if !issues.is_empty() {
        issues.dedup();
        return Verdict::RealBreaks { issues };
    }
    match (reference.class() == "preserved", real.class() == "preserved") {
        (true, false) => Verdict::RealLoses,
        (false, true) => Verdict::ReferenceWeaker { targets_differ },
        _ => Verdict::BothApproximate,
    }
}

/// The issue reference a mark starts with (`TRACKING.md#sf-307`, `owner/repo#N`, a URL).
fn first_reference(issue: &str) -> String {
    issue.split_whitespace().next().unwrap_or(issue).to_owned()
}

/// The anchor of the pair section on the built-in translator's page.
pub const ANCHOR: &str = "beside-the-real-translator";

fn refinement_suffix(d: &Difference<'_>) -> String {
    d.refinement.as_deref().map_or_else(String::new, |r| if r == "at_root" { " (at the root)".to_owned() } else { format!(" (form `{r}`)") })
}

/// The section of the built-in translator's page: the rows where it and the real translator it
/// models differ.
#[must_use]
pub fn blocks(pair: &Pair<'_>) -> Vec<Block> {
    let (reference, real) = (&pair.reference.name, &pair.real.name);
    let mut intro = vec![code_span(reference), text(" is the reference for "), code_span(real)];
    if let Some(package) = &pair.real.package {
        intro.push(text(format!(", {package}")));
    }
    intro.extend([
        text(" ("),
        code_span("models:"),
        text(" in its table). The rows where their dispositions differ, or where "),
        code_span(real),
        text(
            " breaks the row they share; each says whether the real one breaks the reference's contract, gives up what the reference keeps, \
             or keeps what the reference gives up (then the reference is wrong, unless their targets differ).",
        ),
    ]);
    let mut blocks = vec![
        Block::Heading {
            level: 2,
            id: Some(ANCHOR.to_owned()),
            content: vec![text("Beside the real translator it models: "), Inline::Link(Href::Page(real.clone(), None), vec![code_span(real)])],
        },
        Block::Paragraph(intro),
    ];
    if pair.differences.is_empty() {
        blocks.push(Block::Paragraph(vec![text("They agree on every row.")]));
        return blocks;
    }
    let rows = pair
        .differences
        .iter()
        .map(|d| {
            let at_real = || Href::Page(real.clone(), Some(d.real.anchor.clone()));
            let mut row = vec![Inline::Link(at_real(), vec![code_span(&d.key)])];
            row.extend(phrase(&refinement_suffix(d)));
            let real_label = d.real.label() + if has_marks(d.real) { " ⚠" } else { "" };
            vec![
                row,
                vec![Inline::Link(Href::Here(d.reference.anchor.clone()), vec![text(d.reference.label())])],
                vec![Inline::Link(at_real(), vec![text(real_label)])],
                vec![text(d.verdict.words(reference, real))],
            ]
        })
        .collect();
    blocks.push(Block::Table { head: vec![vec![text("row")], vec![code_span(reference)], vec![code_span(real)], vec![text("what it says")]], numeric: vec![false; 4], rows });
    blocks
}

/// The matrix's summary: one line per pair, with how many differences say what.
#[must_use]
pub fn summary_markdown(report: &Report) -> String {
    let pairs = pairs(report);
    if pairs.is_empty() {
        return String::new();
    }
    let mut s = "\n## References beside the real translators they model\n\nEach built-in translator names the real translator it is the reference for (`models:`); its page lists the rows where the two differ.\n\n| reference | real translator | differing rows | the real one breaks the contract | gives up what the reference keeps | both give it up | the reference gives up more (reviewed or wrong) |\n|---|---|--:|--:|--:|--:|--:|\n".to_owned();
    for p in &pairs {
        let count = |f: &dyn Fn(&Verdict) -> bool| p.differences.iter().filter(|d| f(&d.verdict)).count();
        s.push_str(&format!(
            "| [`{}`]({}.md#{ANCHOR}) | [`{}`]({}.md) | {} | {} | {} | {} | {} |\n",
            p.reference.name,
            p.reference.name,
            p.real.name,
            p.real.name,
            p.differences.len(),
            count(&|v| matches!(v, Verdict::RealBreaks { .. })),
            count(&|v| matches!(v, Verdict::RealLoses)),
            count(&|v| matches!(v, Verdict::BothApproximate)),
            count(&|v| matches!(v, Verdict::ReferenceWeaker { .. } | Verdict::ReferenceUpheld { .. })),
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::KnownViolationReport;

    fn row(key: &str, disposition: &str, direction: Option<&str>, mark: Option<&str>) -> RowReport {
        RowReport {
            key: key.to_owned(),
            refinement: None,
            extension: false,
            anchor: key.to_owned(),
            citation: key.to_owned(),
            line: 1,
            disposition: disposition.to_owned(),
            spelled_as: None,
            direction: direction.map(str::to_owned),
            to: direction.map(|_| "dropped".to_owned()),
            becomes: None,
            note: None,
            issues: Vec::new(),
            known_violation: mark.map(|issue| KnownViolationReport { issue: issue.to_owned(), direction: "widening".to_owned(), witness: None, crash: None }),
            other_known_violations: Vec::new(),
            cases: None,
            witness: None,
            refusal: None,
            evidence: None,
        }
    }

    fn table(name: &str, target: &str, rows: Vec<RowReport>) -> TranslatorReport {
        TranslatorReport {
            name: name.to_owned(),
            table: format!("dispositions/{name}.yaml"),
            description: None,
            source: Some("read".to_owned()),
            target: Some(target.to_owned()),
            alternate_target: None,
            dialect: None,
            grammar: None,
            requires_object_root: true,
            limits: Vec::new(),
            target_violations: Vec::new(),
            lint: Vec::new(),
            trials: None,
            rows,
            unavailable: None,
            adapter: None,
            package: None,
            entry: None,
            models: None,
            models_reviewed: std::collections::BTreeMap::new(),
        }
    }

    #[test]
    fn each_difference_says_which_side_gives_up_what() {
        let reference = table(
            "ref",
            "t",
            vec![
                row("const", "preserved", None, None),
                row("pattern", "preserved", None, None),
                row("not", "approximated", Some("widening"), None),
                row("format", "approximated", Some("widening"), None),
                row("title", "preserved", None, None),
            ],
        );
        let real = table(
            "real",
            "t",
            vec![
                row("const", "preserved", None, Some("TRACKING.md#sf-1 (dropped)")),
                row("pattern", "approximated", Some("widening"), None),
                row("not", "preserved", None, None),
                row("format", "approximated", Some("narrowing"), None),
                row("title", "preserved", None, None),
            ],
        );
        let found: Vec<(String, Verdict)> = differences(&reference, &real).into_iter().map(|d| (d.key, d.verdict)).collect();
        assert_eq!(
            found,
            vec![
                ("const".to_owned(), Verdict::RealBreaks { issues: vec!["TRACKING.md#sf-1".to_owned()] }),
                ("pattern".to_owned(), Verdict::RealLoses),
                ("not".to_owned(), Verdict::ReferenceWeaker { targets_differ: false }),
                ("format".to_owned(), Verdict::BothApproximate),
            ]
        );
    }

    #[test]
    fn a_reviewed_difference_upholds_the_reference() {
        let mut reference = table("ref", "t", vec![row("not", "refused", None, None)]);
        let real = table("real", "t", vec![row("not", "preserved", None, None)]);
        assert_eq!(differences(&reference, &real)[0].verdict, Verdict::ReferenceWeaker { targets_differ: false });
        reference.models_reviewed.insert("not".to_owned(), "the provider rejects it".to_owned());
        assert_eq!(differences(&reference, &real)[0].verdict, Verdict::ReferenceUpheld { why: "the provider rejects it".to_owned() });
    }

    #[test]
    fn a_keyword_the_real_one_sends_against_its_target_grammar_is_a_breach() {
        let reference = table("ref", "t", vec![row("if", "approximated", Some("widening"), None)]);
        let mut real = table("real", "t", vec![row("if", "preserved", None, None)]);
        real.target_violations.push(crate::report::model::TargetViolationReport {
            rule: "grammar".to_owned(),
            line: 3,
            issue: "TRACKING.md#sf-2 (kept)".to_owned(),
            keywords: vec!["if".to_owned()],
            witness: "w".to_owned(),
        });
        let found = differences(&reference, &real);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].verdict, Verdict::RealBreaks { issues: vec!["TRACKING.md#sf-2".to_owned()] });
        // Aimed at another target, a stronger real row only says so.
        let other = table("real", "u", vec![row("if", "preserved", None, None)]);
        assert_eq!(differences(&reference, &other)[0].verdict, Verdict::ReferenceWeaker { targets_differ: true });
    }
}
