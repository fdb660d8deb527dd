//! What `run` tells a CI system, besides its summary: a JUnit XML document (`run --junit FILE`)
//! and GitHub Actions workflow commands (`run --format github`).
//!
//! Both are made from the records `run` read ([`Suite`]), never from a second run of the oracle.
//!
//! **JUnit** ([`junit`]): `<testsuites>` holding one `<testsuite name=TRANSLATOR>` per translator
//! run, with its counts (`tests`, `failures`, `errors`, `skipped`) and the time its trials took,
//! and one `<testcase classname=TRANSLATOR name=TRIAL>` per trial, named as the contract binary
//! names it (`TRANSLATOR::corpus/file.yaml::case`, so a name from CI can be given to
//! `cargo test --test contract -- --exact`):
//!
//! - a failing trial holds `<failure message=FIRST-LINE>` with the whole failure text (the rows,
//!   the witnesses), and the `file` and `line` of the row at fault as attributes of the testcase;
//! - a known violation is `<skipped message="known violation reproduced: ... (ISSUE, ...)">` with
//!   the failure it stands for as text: reported, not failed, as `run` counts it;
//! - a case not run here (a suite case the validator gets wrong) is `<skipped>` with its reason;
//! - a translator unavailable here is one skipped testcase `TRANSLATOR::contract` with the reason;
//! - the table's lint errors (and a table that cannot be run at all) are one failing testcase
//!   `TRANSLATOR::lint`, as in the contract binary.
//!
//! Every text is made valid XML 1.0 first ([`xml_text`]): an adapter's stderr may hold control
//! characters XML cannot carry, which are written as `\u{..}` instead. The XML is written by
//! `quick-xml`, which escapes `& < > " '`.
//!
//! **GitHub** ([`github_annotations`]): one `::error` line per failing trial, at the table line of
//! the row at fault ([`row_at_fault`]); the lint errors at their file and line; one `::notice`
//! line per known violation, at the mark it reproduces; nothing else. Messages are escaped as workflow commands require
//! ([`command_data`], [`command_property`]).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use schema_fidelity_translators::{Cites, walk};

use crate::verdict::Attribution;
use crate::verdict::{Failure, FailureKind, Verdict};
use crate::records::Record;
use crate::diagnostic::TableError;
use crate::table::Table;

/// What `run` did with one translator.
#[derive(Debug)]
pub struct Suite<'a> {
    pub translator: &'a str,
    /// The table's file as messages cite it (relative to the project root).
    pub table_file: PathBuf,
    /// The table's lint errors.
    pub lint: &'a [TableError],
    pub ran: Ran<'a>,
}

/// Whether the contract of a translator was run, and what it found.
#[derive(Debug)]
pub enum Ran<'a> {
    /// The records of every trial, in the corpus order.
    Trials { table: &'a Table, records: Vec<Arc<Record>> },
    /// Not run: the translator is not installed here (the reason says what to install).
    Unavailable(String),
    /// Not run: its table does not load, or no translator has its name.
    NotRun(String),
}

/// The trial name of `record`, as the contract binary names it.
fn trial_name(record: &Record) -> String {
    format!("{}::{}", record.translator, record.case.id)
}

/// `text` with every character XML 1.0 cannot hold (the control characters other than tab, line
/// feed and carriage return; U+FFFE and U+FFFF) written as `\u{..}`, so that whatever an adapter
/// printed still makes a well-formed document, and shows what it was.
#[must_use]
fn xml_text(text: &str) -> Cow<'_, str> {
    let forbidden = |c: char| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}');
    if !text.chars().any(forbidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if forbidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The line of the row at fault in `record`'s failure: the row of the first occurrence the
/// failure blames (a witness's culprit, a deviation's blamed occurrence, the keyword a refusal
/// cites), else the first row of `table` its message names (`FILE:LINE`, as the oracle writes
/// rows); `None` when no row is at fault (keywords with no row, a fault of the adapter that
/// names none).
#[must_use]
fn row_at_fault(table: &Table, record: &Record, failure: &Failure) -> Option<u64> {
    let at = |node: &str, keyword: &str| -> Option<u64> {
        let occurrences = walk::occurrences(&record.case.schema).ok()?;
        let o = occurrences.iter().find(|o| o.pointer == node && o.keyword == keyword)?;
        table.row(o.keyword, o.value, o.at_root).ok().map(|row| row.id.line)
    };
    let culprit = failure.witnesses.iter().find_map(|w| match &w.attribution {
        Attribution::Unexplained(culprits) => culprits.iter().filter(|c| !c.keyword.is_empty()).find_map(|c| at(&c.node, &c.keyword)),
        _ => None,
    });
    if culprit.is_some() {
        return culprit;
    }
    match &failure.kind {
        FailureKind::MissingRows(_) => return None,
        FailureKind::Deviation { blamed, .. } => {
            if let Some(line) = blamed.iter().find_map(|(keyword, node)| at(node, keyword)) {
                return Some(line);
            }
        }
        FailureKind::UnexpectedRefusal(refusal) | FailureKind::RefusalCitesWrongRow(refusal) => {
            if let Cites::Keyword { keyword, pointer } = &refusal.cites
                && let Some(line) = at(pointer, keyword)
            {
                return Some(line);
            }
        }
        _ => {}
    }
    first_line_cited(&failure.message, &table.file.display().to_string())
}

/// The line a trial's annotation points at: for a known violation, the mark it reproduces (the
/// first of `known`, each cited `FILE:LINE ...`: a row's mark or a `target_violations` mark),
/// else [`row_at_fault`].
fn line_at_fault(table: &Table, record: &Record) -> Option<u64> {
    let file = table.file.display().to_string();
    match &record.verdict {
        Verdict::ExpectedFailure { failure, known, .. } => known.iter().find_map(|id| first_line_cited(id, &file)).or_else(|| row_at_fault(table, record, failure)),
        Verdict::Fail(failure) => row_at_fault(table, record, failure),
        Verdict::Pass(_) | Verdict::Skip(_) => None,
    }
}

/// The first `FILE:LINE` in `message` (a row's citation).
fn first_line_cited(message: &str, file: &str) -> Option<u64> {
    let needle = format!("{file}:");
    let mut rest = message;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(line) = digits.parse() {
            return Some(line);
        }
    }
    None
}

/// One testcase as the document shows it.
struct TestCase {
    name: String,
    classname: String,
    seconds: Option<f64>,
    /// The file and line of the row at fault, for a failure or a known violation.
    at: Option<(String, Option<u64>)>,
    result: CaseResult,
}

enum CaseResult {
    Passed,
    Failed { message: String, text: String },
    Skipped { message: String, text: Option<String> },
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn lint_text(suite: &Suite<'_>) -> Option<String> {
    let mut lines: Vec<String> = suite.lint.iter().map(ToString::to_string).collect();
    if let Ran::NotRun(reason) = &suite.ran {
        lines.push(format!("{}: {reason}", suite.table_file.display()));
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

fn cases(suite: &Suite<'_>) -> Vec<TestCase> {
    let classname = suite.translator.to_owned();
    let mut out = Vec::new();
    if let Some(text) = lint_text(suite) {
        out.push(TestCase {
            name: format!("{}::lint", suite.translator),
            classname: classname.clone(),
            seconds: None,
            at: None,
            result: CaseResult::Failed { message: first_line(&text).to_owned(), text },
        });
    }
    match &suite.ran {
        Ran::NotRun(_) => {}
        Ran::Unavailable(reason) => out.push(TestCase {
            name: format!("{}::contract", suite.translator),
            classname,
            seconds: None,
            at: None,
            result: CaseResult::Skipped { message: format!("unavailable here, so its contract was not run: {reason}"), text: None },
        }),
        Ran::Trials { table, records } => {
            let file = suite.table_file.display().to_string();
            for record in records {
                let at = record.verdict.failure().map(|_| (file.clone(), line_at_fault(table, record)));
                let result = match &record.verdict {
                    Verdict::Pass(_) => CaseResult::Passed,
                    Verdict::Fail(f) => CaseResult::Failed { message: first_line(&f.message).to_owned(), text: f.message.clone() },
                    Verdict::ExpectedFailure { message, failure, .. } => CaseResult::Skipped { message: message.clone(), text: Some(failure.message.clone()) },
                    Verdict::Skip(reason) => CaseResult::Skipped { message: reason.clone(), text: None },
                };
                out.push(TestCase { name: trial_name(record), classname: classname.clone(), seconds: Some(record.elapsed.as_secs_f64()), at, result });
            }
        }
    }
    out
}

/// Counts of a list of testcases: tests, failures, skipped, and the time when any case has one.
fn counts(cases: &[TestCase]) -> (usize, usize, usize, Option<f64>) {
    let failures = cases.iter().filter(|c| matches!(c.result, CaseResult::Failed { .. })).count();
    let skipped = cases.iter().filter(|c| matches!(c.result, CaseResult::Skipped { .. })).count();
    let timed: Vec<f64> = cases.iter().filter_map(|c| c.seconds).collect();
    (cases.len(), failures, skipped, (!timed.is_empty()).then(|| timed.iter().sum()))
}

fn seconds(s: f64) -> String {
    format!("{s:.3}")
}

/// The JUnit XML document of a run.
///
/// # Errors
/// Only when the XML writer fails, which writing into memory does not.
pub fn junit(suites: &[Suite<'_>]) -> io::Result<String> {
    let per_suite: Vec<Vec<TestCase>> = suites.iter().map(cases).collect();
    let all: Vec<&TestCase> = per_suite.iter().flatten().collect();
    let failures = all.iter().filter(|c| matches!(c.result, CaseResult::Failed { .. })).count();
    let skipped = all.iter().filter(|c| matches!(c.result, CaseResult::Skipped { .. })).count();
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let (tests, failures, skipped) = (all.len().to_string(), failures.to_string(), skipped.to_string());
    writer
        .create_element("testsuites")
        .with_attributes([("name", "schema-fidelity"), ("tests", tests.as_str()), ("failures", failures.as_str()), ("errors", "0"), ("skipped", skipped.as_str())])
        .write_inner_content(|w| {
            for (suite, cases) in suites.iter().zip(&per_suite) {
                write_suite(w, suite, cases)?;
            }
            Ok(())
        })?;
    String::from_utf8(writer.into_inner()).map_err(io::Error::other)
}

fn write_suite(w: &mut Writer<Vec<u8>>, suite: &Suite<'_>, cases: &[TestCase]) -> io::Result<()> {
    let (tests, failures, skipped, time) = counts(cases);
    let (tests, failures, skipped) = (tests.to_string(), failures.to_string(), skipped.to_string());
    let name = xml_text(suite.translator);
    let time = time.map(seconds);
    let mut attributes = vec![("name", name.as_ref()), ("tests", tests.as_str()), ("failures", failures.as_str()), ("errors", "0"), ("skipped", skipped.as_str())];
    if let Some(time) = &time {
        attributes.push(("time", time));
    }
    w.create_element("testsuite").with_attributes(attributes).write_inner_content(|w| {
        for case in cases {
            write_case(w, case)?;
        }
        Ok(())
    })?;
    Ok(())
}

fn write_case(w: &mut Writer<Vec<u8>>, case: &TestCase) -> io::Result<()> {
    let (name, classname) = (xml_text(&case.name), xml_text(&case.classname));
    let time = case.seconds.map(seconds);
    let line = case.at.as_ref().and_then(|(_, line)| line.map(|l| l.to_string()));
    let mut attributes = vec![("classname", classname.as_ref()), ("name", name.as_ref())];
    if let Some(time) = &time {
        attributes.push(("time", time));
    }
    if let Some((file, _)) = &case.at {
        attributes.push(("file", file));
    }
    if let Some(line) = &line {
        attributes.push(("line", line));
    }
    let element = w.create_element("testcase").with_attributes(attributes);
    let (tag, message, text) = match &case.result {
        CaseResult::Passed => {
            element.write_empty()?;
            return Ok(());
        }
        CaseResult::Failed { message, text } => ("failure", message, Some(text)),
        CaseResult::Skipped { message, text } => ("skipped", message, text.as_ref()),
    };
    element.write_inner_content(|w| {
        // An attribute's line breaks become spaces when read: the message is one line, the
        // element's text the whole.
        let message = xml_text(first_line(message));
        let inner = w.create_element(tag).with_attribute(("message", message.as_ref()));
        match text {
            Some(text) => inner.write_text_content(BytesText::new(&xml_text(text)))?,
            None => inner.write_empty()?,
        };
        Ok(())
    })?;
    Ok(())
}

/// `text` escaped as the data (message) of a workflow command: `%`, CR and LF.
#[must_use]
fn command_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// `text` escaped as a property (`file=`, `title=`) of a workflow command: as data, and `:` and
/// `,`, which end a property.
#[must_use]
fn command_property(text: &str) -> String {
    command_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn command(level: &str, file: &str, line: Option<u64>, title: &str, message: &str) -> String {
    let line = line.map(|l| format!(",line={l}")).unwrap_or_default();
    format!("::{level} file={}{line},title={}::{}\n", command_property(file), command_property(title), command_data(message))
}

/// GitHub Actions workflow commands for a run: an `::error` per failing trial at the line of its
/// row at fault, per lint error at its file and line, and for a table that cannot be run; one
/// `::notice` per mark a known violation reproduces, with how many trials reproduce it and the
/// first (one per trial was 5,549 notices on the whole matrix, far past what a CI page shows);
/// nothing for what passed, was skipped or is unavailable.
#[must_use]
pub fn github_annotations(suites: &[Suite<'_>]) -> String {
    let mut out = String::new();
    for suite in suites {
        let table_file = suite.table_file.display().to_string();
        let lint_title = format!("{}::lint", suite.translator);
        for e in suite.lint {
            out.push_str(&command("error", &e.file.display().to_string(), e.line, &lint_title, &e.message));
        }
        match &suite.ran {
            Ran::NotRun(reason) => out.push_str(&command("error", &table_file, None, &lint_title, reason)),
            Ran::Unavailable(_) => {}
            Ran::Trials { table, records } => {
                // Per mark line: how many trials reproduce it, and the first of them.
                let mut marks: std::collections::BTreeMap<Option<u64>, (usize, String, &str)> = std::collections::BTreeMap::new();
                for record in records {
                    match &record.verdict {
                        Verdict::Fail(f) => out.push_str(&command("error", &table_file, line_at_fault(table, record), &trial_name(record), &f.message)),
                        Verdict::ExpectedFailure { message, .. } => {
                            marks.entry(line_at_fault(table, record)).or_insert_with(|| (0, trial_name(record), message.as_str())).0 += 1;
                        }
                        Verdict::Pass(_) | Verdict::Skip(_) => {}
                    }
                }
                for (line, (count, first, message)) in marks {
                    let title = format!("{}: a known violation, reproduced by {count} trial(s)", suite.translator);
                    out.push_str(&command("notice", &table_file, line, &title, &format!("first: {first}\n{message}")));
                }
            }
        }
    }
    out
}

/// `path` with `.` and `..` taken away by their names alone (no link is followed).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Write the JUnit document `xml` to `file` (relative to `cwd`), whole or not at all: it is
/// written beside it and renamed into place. Inside the project at `root`, through
/// [`crate::disk::write_within`] (no symbolic link on the way, directories created); outside it
/// (a CI artifact directory), into the existing directory named. Returns the path written.
///
/// # Errors
/// A sentence naming the file when it cannot be written.
pub fn write_junit(root: &Path, cwd: &Path, file: &Path, xml: &str) -> Result<PathBuf, String> {
    let path = lexical(&cwd.join(file));
    let shown = file.display();
    if path.file_name().is_none() {
        return Err(format!("--junit {shown}: names no file"));
    }
    if path.starts_with(root) {
        return crate::disk::write_within(root, &path, xml.as_bytes()).map(|()| path.clone()).map_err(|e| format!("--junit {shown}: cannot write: {e}"));
    }
    let parent = path.parent().ok_or_else(|| format!("--junit {shown}: names no file"))?;
    let temp = parent.join(format!(".{}.schema-fidelity-{}.tmp", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(), std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| io::Write::write_all(&mut f, xml.as_bytes()).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&temp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(format!("--junit {shown}: cannot write: {e}"));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Case, Instance, Origin};
    use crate::verdict::Summary;
    use quick_xml::Reader;
    use serde_json::json;
    use std::time::Duration;

    /// Every element's name, attributes and text, in document order, read back by a real parser
    /// (which rejects a document that is not well-formed).
    /// An element's name, attributes and text.
    type Element = (String, Vec<(String, String)>, String);

    fn parse(xml: &str) -> Vec<Element> {
        let mut reader = Reader::from_str(xml);
        let mut out: Vec<Element> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Start(e) => {
                    let attrs = e.attributes().map(|a| a.expect("attribute")).map(|a| (a.key.0.to_owned(), a.normalized_value(quick_xml::XmlVersion::Explicit1_0).expect("value").into_owned())).collect();
                    out.push((e.name().0.to_owned(), attrs, String::new()));
                    open.push(out.len() - 1);
                }
                Event::Empty(e) => {
                    let attrs = e.attributes().map(|a| a.expect("attribute")).map(|a| (a.key.0.to_owned(), a.normalized_value(quick_xml::XmlVersion::Explicit1_0).expect("value").into_owned())).collect();
                    out.push((e.name().0.to_owned(), attrs, String::new()));
                }
                Event::End(_) => {
                    open.pop();
                }
                Event::Text(t) => {
                    if let Some(&i) = open.last() {
                        out[i].2.push_str(&t.xml10_content());
                    }
                }
                Event::GeneralRef(r) => {
                    if let Some(&i) = open.last() {
                        let c = match r.resolve_char_ref().expect("char ref") {
                            Some(c) => c.to_string(),
                            None => quick_xml::escape::resolve_predefined_entity(&r.xml10_content()).expect("predefined entity").to_owned(),
                        };
                        out[i].2.push_str(&c);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        out
    }

    fn attr<'a>(element: &'a Element, name: &str) -> Option<&'a str> {
        element.1.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    fn identity_table() -> Table {
        let dir = crate::trials::workspace_root().join("dispositions");
        crate::table::load(&dir.join("identity.yaml"), Path::new("dispositions/identity.yaml"), &dir).expect("identity table")
    }

    fn record(case: &str, schema: serde_json::Value, verdict: Verdict) -> Arc<Record> {
        Arc::new(Record {
            translator: "identity".to_owned(),
            case: Arc::new(Case {
                id: format!("corpus/x.yaml::{case}"),
                file: PathBuf::from("corpus/x.yaml"),
                line: None,
                description: "d".to_owned(),
                issues: Vec::new(),
                schema,
                instances: vec![Instance { description: "i".to_owned(), data: json!("ab"), valid: true }],
                origin: Origin::Own,
                assert_formats: true,
            }),
            verdict,
            outcome: None,
            rows: Default::default(),
            evidence: None,
            elapsed: Duration::from_millis(5),
        })
    }

    /// A message with everything XML and terminals choke on.
    const HOSTILE: &str = "adapter said: \u{1b}[31mred\u{0}\u{7} <b>&amp;</b> \"quoted\" 'single' ]]> done\r\nsecond line\u{ffff}";

    #[test]
    fn xml_text_writes_what_xml_1_0_forbids_as_escapes_and_keeps_the_rest() {
        assert_eq!(xml_text("tab\tnl\ncr\r é 😀"), "tab\tnl\ncr\r é 😀");
        assert_eq!(xml_text("a\u{0}b\u{1b}c\u{ffff}"), "a\\u{0}b\\u{1b}c\\u{ffff}");
    }

    #[test]
    fn hostile_text_makes_a_well_formed_document_that_reads_back_as_written() {
        let table = identity_table();
        let failure = Failure { kind: FailureKind::Fault(HOSTILE.to_owned()), message: HOSTILE.to_owned(), witnesses: Vec::new() };
        let records = vec![record("hostile\"<&>", json!({"type": "string"}), Verdict::Fail(failure)), record("fine", json!({"type": "string"}), Verdict::Pass(Summary::default()))];
        let suites = [Suite { translator: "identity", table_file: table.file.clone(), lint: &[], ran: Ran::Trials { table: &table, records } }];
        let xml = junit(&suites).expect("written");
        assert!(!xml.contains('\u{0}') && !xml.contains('\u{1b}'), "{xml}");
        let elements = parse(&xml);
        let failure = elements.iter().find(|e| e.0 == "failure").expect("a failure");
        let expected = xml_text(HOSTILE).replace("\r\n", "\n");
        assert_eq!(failure.2.replace("\r\n", "\n"), expected, "the text reads back whole");
        assert_eq!(attr(failure, "message"), Some(xml_text(first_line(HOSTILE)).as_ref()));
        let case = elements.iter().find(|e| e.0 == "testcase" && attr(e, "name").is_some_and(|n| n.contains("hostile"))).expect("the case");
        assert_eq!(attr(case, "name"), Some("identity::corpus/x.yaml::hostile\"<&>"));
        let suite = elements.iter().find(|e| e.0 == "testsuite").expect("a suite");
        assert_eq!((attr(suite, "tests"), attr(suite, "failures"), attr(suite, "skipped"), attr(suite, "time")), (Some("2"), Some("1"), Some("0"), Some("0.010")));
    }

    #[test]
    fn an_unavailable_translator_is_one_skipped_case_and_lint_errors_one_failing_case() {
        let lint = [TableError { file: PathBuf::from("dispositions/broken.yaml"), line: Some(7), message: "a row left `TODO`".to_owned() }];
        let suites = [
            Suite { translator: "gone", table_file: PathBuf::from("dispositions/gone.yaml"), lint: &[], ran: Ran::Unavailable("install it with `npm ci`".to_owned()) },
            Suite { translator: "broken", table_file: PathBuf::from("dispositions/broken.yaml"), lint: &lint, ran: Ran::NotRun("no translator or no table to run".to_owned()) },
        ];
        let elements = parse(&junit(&suites).expect("written"));
        let names: Vec<&str> = elements.iter().filter(|e| e.0 == "testcase").filter_map(|e| attr(e, "name")).collect();
        assert_eq!(names, ["gone::contract", "broken::lint"]);
        let skipped = elements.iter().find(|e| e.0 == "skipped").expect("skipped");
        assert!(attr(skipped, "message").is_some_and(|m| m.contains("install it with `npm ci`")), "{skipped:?}");
        let failure = elements.iter().find(|e| e.0 == "failure").expect("failure");
        assert!(failure.2.contains("dispositions/broken.yaml:7: a row left `TODO`") && failure.2.contains("no translator or no table to run"), "{failure:?}");
        let root = &elements[0];
        assert_eq!((attr(root, "tests"), attr(root, "failures"), attr(root, "skipped")), (Some("2"), Some("1"), Some("1")));
        assert_eq!(attr(&elements[1], "time"), None, "no records, no time");

        let annotations = github_annotations(&suites);
        assert_eq!(
            annotations,
            "::error file=dispositions/broken.yaml,line=7,title=broken%3A%3Alint::a row left `TODO`\n\
             ::error file=dispositions/broken.yaml,title=broken%3A%3Alint::no translator or no table to run\n"
        );
    }

    #[test]
    fn workflow_command_escaping() {
        assert_eq!(command_data("50% of a\r\nb: c, d"), "50%25 of a%0D%0Ab: c, d");
        assert_eq!(command_property("identity::corpus/a,b.yaml::100%"), "identity%3A%3Acorpus/a%2Cb.yaml%3A%3A100%25");
        let line = command("error", "dispositions/x.yaml", Some(12), "x::corpus/a.yaml::c", "first\nsecond: 5%");
        assert_eq!(line, "::error file=dispositions/x.yaml,line=12,title=x%3A%3Acorpus/a.yaml%3A%3Ac::first%0Asecond: 5%25\n");
        assert_eq!(line.matches('\n').count(), 1, "one command, one line");
    }

    #[test]
    fn a_known_violation_is_skipped_in_junit_and_a_notice_at_its_mark() {
        let table = identity_table();
        let failure = Failure { kind: FailureKind::Grammar, message: "the grammar\n  row dispositions/identity.yaml:3 `type`".to_owned(), witnesses: Vec::new() };
        let message = "known violation reproduced: dispositions/identity.yaml:9 `maxLength` (TRACKING.md#sf-7, narrowing)".to_owned();
        let known = vec!["dispositions/identity.yaml:9 `maxLength`".to_owned()];
        let records = vec![record("k", json!({"maxLength": 1}), Verdict::ExpectedFailure { message: message.clone(), failure, known })];
        let suites = [Suite { translator: "identity", table_file: table.file.clone(), lint: &[], ran: Ran::Trials { table: &table, records } }];
        let elements = parse(&junit(&suites).expect("written"));
        let skipped = elements.iter().find(|e| e.0 == "skipped").expect("skipped");
        assert_eq!(attr(skipped, "message"), Some(message.as_str()));
        assert!(skipped.2.contains("the grammar"), "the failure it stands for: {skipped:?}");
        assert!(!elements.iter().any(|e| e.0 == "failure"));
        let case = elements.iter().find(|e| e.0 == "testcase").expect("case");
        assert_eq!(attr(case, "line"), Some("9"), "the mark, not the first row of the header");
        assert_eq!(
            github_annotations(&suites),
            format!(
                "::notice file=dispositions/identity.yaml,line=9,title=identity%3A a known violation%2C reproduced by 1 trial(s)::{}\n",
                command_data(&format!("first: identity::corpus/x.yaml::k\n{message}"))
            )
        );
    }

    /// The row at fault is found from the failure's operands, not from the order rows are listed.
    #[test]
    fn the_row_at_fault_is_the_one_the_failure_blames() {
        let table = identity_table();
        let schema = json!({"type": "string", "maxLength": 3, "const": "ab"});
        let line_of = |keyword: &str| table.row(keyword, &schema[keyword], true).ok().map(|row| row.id.line);
        assert!(line_of("maxLength").is_some() && line_of("const").is_some() && line_of("maxLength") != line_of("const"));
        let refusal = schema_fidelity_translators::Refusal::new("maxLength", "", "no");
        let failure = Failure { kind: FailureKind::UnexpectedRefusal(refusal), message: "refused".to_owned(), witnesses: Vec::new() };
        let r = record("c", schema.clone(), Verdict::Fail(failure.clone()));
        assert_eq!(row_at_fault(&table, &r, &failure), line_of("maxLength"));
        let blamed = Failure { kind: FailureKind::Deviation { found: Default::default(), inverted: false, contradicted: false, blamed: vec![("const".to_owned(), String::new())] }, ..failure.clone() };
        assert_eq!(row_at_fault(&table, &r, &blamed), line_of("const"));
        let missing = Failure { kind: FailureKind::MissingRows(vec!["x-new".to_owned()]), message: format!("no row\n  row {}:3 `type`", table.file.display()), ..failure.clone() };
        assert_eq!(row_at_fault(&table, &r, &missing), None, "no row is at fault for a keyword with none");
        let cited = Failure { kind: FailureKind::MissingRefusal, message: format!("a refused row applies\n  {}:{} `const` at ``\n  row {}:2 `type`", table.file.display(), 41, table.file.display()), ..failure };
        assert_eq!(row_at_fault(&table, &r, &cited), Some(41), "else the first row the message names");
    }
}
