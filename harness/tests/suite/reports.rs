//! The committed reports: the JSON report's format, anchors that resolve, determinism, and the
//! per-row facts (cases, witnesses) on a translator built to approximate.
//!
//! That `reports/` is current is not checked here but by the `reports::current` trial of the
//! contract run, which builds the reports from the records the case trials made (one run of the
//! oracle for both). The tests here read the committed files, which that trial holds equal to a
//! fresh build. To rewrite `reports/`:
//!
//! ```sh
//! cargo run -p schema-fidelity -- report
//! # or
//! SCHEMA_FIDELITY_BLESS=1 cargo test -p schema-fidelity --test contract -- --exact reports::current
//! ```
//!
//! The bless variable is refused when `CI` is set: on CI the committed reports must already be
//! current.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use schema_fidelity::budget::Budgets;
use schema_fidelity::corpus::{Case, Instance, Origin};
use schema_fidelity::oracle;
use schema_fidelity::project::Project;
use schema_fidelity::records::Records;
use schema_fidelity::report::model::{self, Corpus, Fingerprint, Report, Tool};
use schema_fidelity::report::progress::Progress;
use schema_fidelity::commands::{check, explain};
use schema_fidelity::report::{self, anchor, pages};
use schema_fidelity::session::{self, Selection};
use schema_fidelity::table::{self, Table};
use schema_fidelity::trials;
use schema_fidelity::validation::Env;
use schema_fidelity::verdict::{FailureKind, Verdict};
use schema_fidelity_translators::walk;
use schema_fidelity_translators::{Outcome, Translator};
use serde_json::{Value, json};

fn project() -> Project {
    Project::at(trials::workspace_root())
}

/// The committed `reports/` files, by name.
fn committed() -> &'static std::collections::BTreeMap<String, String> {
    static COMMITTED: OnceLock<std::collections::BTreeMap<String, String>> = OnceLock::new();
    COMMITTED.get_or_init(|| {
        let dir = report::reports_dir(&project());
        std::fs::read_dir(&dir)
            .expect("reports/ is committed")
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).expect("a report is UTF-8 text")))
            .collect()
    })
}

/// The committed `reports/report.json`.
fn committed_json() -> Value {
    serde_json::from_str(&committed()["report.json"]).expect("the committed report.json is JSON")
}

/// Reports generated afresh over part of the own corpus (the keyword, reference and regression
/// cases) for three built-in translators that approximate, refuse and rewrite. The whole run's
/// reports are the contract binary's `reports::current` trial.
fn fresh_loaded() -> session::Loaded {
    let mut loaded = session::load(project(), &Selection::All);
    loaded.cases.retain(|c| ["corpus/keywords/", "corpus/refs/", "corpus/regressions/"].iter().any(|p| c.id.starts_with(p)));
    loaded.tables.retain(|(name, _, _)| matches!(name.as_str(), "anthropic" | "openai-strict" | "gemini-proto"));
    loaded
}

fn fresh() -> &'static report::Generated {
    static FRESH: OnceLock<report::Generated> = OnceLock::new();
    FRESH.get_or_init(|| report::generate(&fresh_loaded(), &session::builtin_resolver(), false).expect("the reports generate"))
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn reports_are_deterministic() {
    // A second run, with records of its own (a new store), gives the same files.
    let again = report::generate(&fresh_loaded(), &session::builtin_resolver(), false).expect("the reports generate");
    for (name, text) in &fresh().files {
        assert_eq!(Some(text), again.files.get(name), "{name} differs between two runs");
    }
    assert_eq!(fresh().files.len(), again.files.len());
}

fn report_schema() -> jsonschema::Validator {
    let path = trials::workspace_root().join("schemas").join("report.schema.json");
    let text = std::fs::read_to_string(&path).expect("schemas/report.schema.json exists");
    let schema: Value = serde_json::from_str(&text).expect("the report schema is JSON");
    jsonschema::draft202012::meta::validate(&schema).expect("the report schema is valid draft 2020-12");
    jsonschema::draft202012::new(&schema).expect("the report schema compiles")
}

fn assert_follows_schema(what: &str, report: &Value) {
    let validator = report_schema();
    let errors: Vec<String> = validator.iter_errors(report).map(|e| format!("  at `{}`: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{what} breaks schemas/report.schema.json:\n{}", errors.join("\n"));
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn report_json_follows_its_schema() {
    assert_follows_schema("the committed reports/report.json", &committed_json());
    assert_follows_schema("a generated report.json", &serde_json::from_str(&fresh().files["report.json"]).expect("report.json is JSON"));
}

#[test]
fn report_schema_rejects_what_it_should() {
    let mut json = committed_json();
    json["translators"][0]["rows"][0]["disposition"] = json!("kept");
    assert!(!report_schema().is_valid(&json), "an unknown disposition is rejected");
    let mut json = committed_json();
    json["tables"]["hash"] = json!("sha1:00");
    assert!(!report_schema().is_valid(&json), "a hash in another form is rejected");
}

/// The anchors a page defines: GitHub heading anchors and explicit `<a id>`s.
fn anchors_of(page: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in page.lines() {
        if let Some(h) = line.strip_prefix("### ").or_else(|| line.strip_prefix("## ")) {
            out.insert(anchor::github_slug(h));
        }
        if let Some(rest) = line.strip_prefix("<a id=\"")
            && let Some((id, _)) = rest.split_once('"')
        {
            out.insert(id.to_owned());
        }
    }
    out
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn every_matrix_link_lands_on_an_anchor_and_every_row_has_one() {
    let files = committed();
    let mut links = 0;
    for source in ["matrix.md", "index.html"] {
        let text = &files[source];
        for (at, _) in text.match_indices(".md#") {
            let is_name = |c: char| c.is_ascii_alphanumeric() || c == '-';
            let page_start = text[..at].rfind(|c: char| !is_name(c)).map_or(0, |i| i + 1);
            let page = &text[page_start..at];
            // Marks cite their tracking entry as `TRACKING.md#sf-N`: text about a project file, not a
            // link between report pages.
            if page == "TRACKING" {
                continue;
            }
            let anchor: String = text[at + 4..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
            let target = files.get(&format!("{page}.md")).unwrap_or_else(|| panic!("{source} links to {page}.md, which is not generated"));
            assert!(anchors_of(target).contains(&anchor), "{source} links to {page}.md#{anchor}, which that page does not define");
            links += 1;
        }
    }
    assert!(links > 100, "the matrix links its cells ({links} links)");
    // index.html links the HTML pages, whose rows are sections with the same anchors.
    let ids_of = |page: &str| -> BTreeSet<String> { page.match_indices(" id=\"").map(|(i, _)| page[i + 5..].split('"').next().unwrap_or_default().to_owned()).collect() };
    let index = &files["index.html"];
    let mut html_links = 0;
    for (at, _) in index.match_indices(".html#") {
        let page_start = index[..at].rfind('"').map_or(0, |i| i + 1);
        let page = &index[page_start..at];
        let anchor: String = index[at + 6..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
        let target = files.get(&format!("{page}.html")).unwrap_or_else(|| panic!("index.html links to {page}.html, which is not generated"));
        assert!(ids_of(target).contains(&anchor), "index.html links to {page}.html#{anchor}, which that page does not define");
        html_links += 1;
    }
    assert!(html_links > 100, "index.html links its cells to the HTML pages ({html_links} links)");
    assert!(!index.split("href=\"").skip(1).any(|link| link.split('"').next().unwrap_or_default().contains(".md#")), "index.html links no Markdown row (a browser shows it raw, at its top)");
    let json = committed_json();
    for t in json["translators"].as_array().expect("translators") {
        let name = t["name"].as_str().expect("a name");
        let defined = ids_of(&files[&format!("{name}.html")]);
        for row in t["rows"].as_array().expect("rows") {
            let (anchor, citation) = (row["anchor"].as_str().expect("an anchor"), row["citation"].as_str().expect("a citation"));
            assert!(defined.contains(anchor), "{name}.html: row {citation} has no section `{anchor}`");
        }
    }
    for t in json["translators"].as_array().expect("translators") {
        let name = t["name"].as_str().expect("a name");
        let defined = anchors_of(&files[&format!("{name}.md")]);
        let mut seen = BTreeSet::new();
        for row in t["rows"].as_array().expect("rows") {
            let (anchor, citation) = (row["anchor"].as_str().expect("an anchor"), row["citation"].as_str().expect("a citation"));
            assert!(defined.contains(anchor), "{name}: row {citation} has no anchor `{anchor}` on its page");
            assert!(seen.insert(anchor.to_owned()), "{name}: anchor `{anchor}` is used twice");
        }
    }
}

#[test]
fn the_issue_examples_have_the_anchors_it_names() {
    let json = committed_json();
    let anthropic = json["translators"].as_array().expect("translators").iter().find(|t| t["name"] == "anthropic").expect("anthropic is reported");
    let row_of = |key: &str, refinement: &str| {
        anthropic["rows"].as_array().expect("rows").iter().find(|r| r["key"] == key && r["refinement"] == refinement).cloned().expect("the row")
    };
    let row = row_of("anyOf", "at_root");
    assert_eq!(row["anchor"], "anyof-at-root");
    assert_eq!(row["citation"], "anthropic/anyOf:at_root");
    assert_eq!(row["disposition"], "refused");
    assert!(row["cases"].is_u64(), "anthropic is run over the corpus");
    let uri = row_of("$ref", "uri");
    assert_eq!((&uri["anchor"], &uri["citation"]), (&json!("ref-uri"), &json!("anthropic/$ref:uri")));
    assert!(committed()["anthropic.md"].contains("### `anyOf` at root"));
}

// ---- per-row facts on a translator that approximates ------------------------------------------

/// Drops `pattern` (declared: approximated, widening) and `const` (declared preserved, marked as a
/// known violation) everywhere.
struct Dropper;

fn drop_keywords(schema: &Value) -> Value {
    let mapped = walk::map_children(schema, |c| Ok::<_, ()>(drop_keywords(c.schema))).unwrap_or_else(|()| schema.clone());
    match mapped {
        Value::Object(mut map) => {
            map.remove("pattern");
            map.remove("const");
            Value::Object(map)
        }
        other => other,
    }
}

impl Translator for Dropper {
    fn name(&self) -> &str {
        "dropper"
    }
    fn translate(&self, source: &Value) -> Outcome {
        Outcome::json_schema(drop_keywords(source))
    }
}

fn dropper_table() -> Table {
    let identity = std::fs::read_to_string(trials::workspace_root().join("dispositions/identity.yaml")).expect("identity table");
    let text = identity
        .replace("translator: identity", "translator: dropper")
        .replace("  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, direction: widening, to: dropped, note: \"dropped\" }")
        .replace(
            "  const: { disposition: preserved }",
            "  const: { disposition: preserved, known_violation: { issue: \"demo#1\", direction: widening } }",
        );
    let (table, errors) = table::parse(&text, Path::new("dispositions/dropper.yaml"), &trials::workspace_root().join("dispositions"));
    assert!(errors.is_empty(), "{errors:?}");
    table.expect("the dropper table parses")
}

fn case(name: &str, schema: Value, instances: &[(Value, bool)]) -> Arc<Case> {
    Arc::new(Case {
        id: format!("corpus/demo.yaml::{name}"),
        file: "corpus/demo.yaml".into(),
        line: None,
        description: name.to_owned(),
        issues: Vec::new(),
        schema,
        instances: instances.iter().map(|(d, v)| Instance { description: format!("{d}"), data: d.clone(), valid: *v }).collect(),
        origin: Origin::Own,
        assert_formats: true,
    })
}

fn demo_cases() -> Vec<Arc<Case>> {
    let code = json!({ "type": "object", "properties": { "code": { "type": "string", "pattern": "^[a-z]+$" } }, "required": ["code"] });
    let mode = json!({ "type": "object", "properties": { "mode": { "const": "fast" } }, "required": ["mode"] });
    let both = json!({ "type": "object", "properties": { "code": { "pattern": "^[a-z]+$" }, "mode": { "const": "fast" } } });
    vec![
        // Both rows present: a witness here could be either's, so it is not the one shown.
        case("both", both, &[(json!({ "code": "abc" }), true), (json!({ "code": "X" }), false), (json!({ "mode": "m" }), false)]),
        case("code", code, &[(json!({ "code": "abc" }), true), (json!({ "code": "ABC" }), false)]),
        case("mode", mode, &[(json!({ "mode": "fast" }), true), (json!({ "mode": "slow" }), false)]),
    ]
}

fn demo_report() -> (Table, model::TranslatorReport) {
    let table = dropper_table();
    let runs = model::run_translator(&table, &Dropper, &demo_cases(), &Env::default(), &Progress::quiet());
    let report = model::translator_report("dropper", "dispositions/dropper.yaml", Some(&table), Vec::new(), Some(&runs));
    (table, report)
}

#[test]
fn an_approximation_gets_the_least_ambiguous_witness_and_its_case_count() {
    let (_, report) = demo_report();
    let pattern = report.rows.iter().find(|r| r.key == "pattern").expect("pattern row");
    assert_eq!(pattern.cases, Some(2));
    let w = pattern.witness.as_ref().expect("a witness for the approximation");
    // Attributed to the `pattern` row alone, wherever it was found (the oracle now also searches
    // the directions a table allows, so a shrunk generated witness can be the shortest).
    assert_eq!(w.explained_by, 1, "{w:?}");
    let code = w.instance["code"].as_str().expect("a string code");
    assert!(!code.chars().all(|c| c.is_ascii_lowercase()) || code.is_empty(), "the witness breaks the pattern: {w:?}");
    assert_eq!((w.source_accepts, w.projection_accepts, w.direction.as_str()), (false, true, "widening"));

    let konst = report.rows.iter().find(|r| r.key == "const").expect("const row");
    let w = konst.witness.as_ref().expect("a witness for the known violation");
    assert!(w.instance["mode"].is_string() && w.instance["mode"] != json!("fast"), "the witness breaks the const: {w:?}");
    assert_eq!(w.explained_by, 1, "attributed to the `const` mark alone: {w:?}");
    let trials = report.trials.as_ref().expect("run");
    // `both` holds the declared `pattern` widening and the marked `const` drop: the envelope used
    // to let the `pattern` row excuse the `const` drop there. Judged where each acts, `both` is a
    // known violation like `mode`, not a pass.
    assert_eq!((trials.passed, trials.known_violations, trials.failed), (1, 2, 0), "{trials:?}");

    let preserved = report.rows.iter().find(|r| r.key == "type").expect("type row");
    assert!(preserved.witness.is_none(), "a preserved row has no witness");
}

/// Without the `const` mark, the `both` case fails, naming `const` (preserved) as the occurrence
/// the widening witness is pinned on, although the case also holds a declared widening.
#[test]
fn a_declared_widening_does_not_excuse_an_undeclared_one_in_the_same_case() {
    let text = std::fs::read_to_string(trials::workspace_root().join("dispositions/identity.yaml")).expect("identity table");
    let text = text
        .replace("translator: identity", "translator: dropper")
        .replace("  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, direction: widening, to: dropped, note: \"dropped\" }");
    let (table, errors) = table::parse(&text, Path::new("dispositions/dropper.yaml"), &trials::workspace_root().join("dispositions"));
    assert!(errors.is_empty(), "{errors:?}");
    let table = table.expect("parses");
    let both = demo_cases().into_iter().find(|c| c.id.ends_with("::both")).expect("both case");
    let verdict = oracle::check(&table, &Dropper, &both, &Env::default());
    let Verdict::Fail(failure) = verdict else { panic!("the const drop must fail: {verdict:?}") };
    let FailureKind::Deviation { blamed, .. } = &failure.kind else { panic!("{}", failure.message) };
    assert_eq!(blamed, &[("/properties/mode".to_owned(), "const".to_owned())], "{}", failure.message);
    assert!(failure.message.contains("`const` at `/properties/mode` is preserved (dispositions/dropper.yaml:"), "{}", failure.message);
}

#[test]
fn the_page_shows_the_witness_and_the_known_violation() {
    let (_, t) = demo_report();
    let r = Report {
        format: model::FORMAT_VERSION,
        tool: Tool { name: "schema-fidelity".into(), version: "0.0.0".into() },
        tables: Fingerprint { hash: "fnv1a64:0000000000000000".into(), files: 1 },
        corpus: Corpus { own: Fingerprint { hash: "fnv1a64:0000000000000000".into(), files: 1 }, own_cases: 3, suite: None, real_tools: Default::default(), errors: Vec::new(), cases: Vec::new() },
        translators: vec![t],
    };
    let page = pages::page(&r.translators[0], &r);
    let w = r.translators[0].rows.iter().find(|r| r.key == "pattern").and_then(|r| r.witness.as_ref()).expect("pattern witness");
    let shown = format!("**Witness** (widening): `{}`: the source rejects it, the projection accepts it", w.instance);
    assert!(page.contains(&shown), "{page}");
    assert!(page.contains("**Known violation** (widening, `demo#1`)"), "{page}");
    assert!(page.contains("- + [`pattern`](#pattern) approximated: widening, to dropped: dropped"), "{page}");
    assert_follows_schema("a report with witnesses and known violations", &serde_json::to_value(&r).expect("serializes"));
}

#[test]
fn check_reports_a_widening_with_its_witness_and_row() {
    let table = dropper_table();
    let schema = json!({ "type": "object", "properties": { "code": { "type": "string", "pattern": "^[a-z]+$" } }, "required": ["code"] });
    let targets = [check::Target { table: &table, translator: &Dropper }];
    let out = check::check("tool.json", &schema, &targets, &Env::default(), &Budgets::default()).expect("checks");
    let t = &out.translators[0];
    assert_eq!(t.verdict, check::CheckVerdict::Widened);
    assert!(out.lossy);
    assert_eq!(t.rows.iter().map(|r| r.citation.as_str()).collect::<Vec<_>>(), ["dropper/pattern"]);
    assert_eq!(t.rows[0].pointer, "/properties/code");
    let w = t.witnesses.first().expect("a candidate tells source and projection apart");
    assert!(!w.schema_accepts && w.projection_accepts);
    assert_eq!(w.rows, ["dropper/pattern"]);
    let text = check::render_text(&out);
    assert!(text.contains("dropper  widened") && text.contains("row dropper/pattern at `/properties/code`"), "{text}");
}

#[test]
fn explain_shows_a_generated_witness_when_the_corpus_has_none() {
    let table = dropper_table();
    // Only a valid instance, in a case of the JSON-Schema-Test-Suite, which the run does not
    // draw instances for: the run records no witness, the instances `--generate` draws do.
    let mut only = Arc::unwrap_or_clone(case(
        "code-valid-only",
        json!({ "type": "object", "properties": { "code": { "type": "string", "pattern": "^[a-z]+$" } }, "required": ["code"] }),
        &[(json!({ "code": "abc" }), true)],
    ));
    only.origin = Origin::Suite { wrapped: false };
    let cases = vec![Arc::new(only)];
    let rows = explain::find_rows(&table, "pattern", None).expect("pattern row");
    let env = Env { name_rows: true, ..Env::default() };
    // By default only what the run recorded: no witness, and the way to draw one.
    let recorded = explain::explain(&table, &rows, Some(&Dropper), &cases, &Records::default(), &env, explain::Witnesses::Recorded, false);
    assert!(recorded.contains("witness:     none in the run's records") && recorded.contains("`explain --generate` draws on the 1 case(s)"), "{recorded}");
    assert!(!recorded.contains("generated (source near miss"), "{recorded}");
    let text = explain::explain(&table, &rows, Some(&Dropper), &cases, &Records::default(), &env, explain::Witnesses::Generate, false);
    assert!(text.contains("dropper/pattern  (reports/dropper.md#pattern)"), "{text}");
    assert!(text.contains("table:       dispositions/dropper.yaml:"), "{text}");
    assert!(text.contains("cases:       1 use it"), "{text}");
    assert!(text.contains("generated (source near miss") && text.contains("drawn by --generate"), "{text}");
    assert!(text.contains("the source rejects it, the projection accepts it"), "{text}");
}

/// Issue 4: every approximation and refusal a table declares is exercised by at least one case,
/// so no row is a claim nobody checks. (Extension rows are exempt: a glob covers keys no corpus
/// can list.)
#[test]
fn every_approximated_or_refused_row_is_exercised_by_a_case() {
    // The committed counts: `reports::current` holds them equal to this run's.
    let json = committed_json();
    let mut unexercised = Vec::new();
    for t in json["translators"].as_array().expect("translators") {
        if t["trials"].is_null() {
            continue;
        }
        for row in t["rows"].as_array().expect("rows") {
            if row["disposition"] != "preserved" && row["extension"] == false && row["cases"] == 0 {
                unexercised.push(row["citation"].as_str().unwrap_or_default().to_owned());
            }
        }
    }
    assert!(unexercised.is_empty(), "rows no case exercises (add a case under corpus/): {unexercised:?}");
}

#[test]
#[ignore = "long: run by CI; cargo test --test suite -- --ignored"]
fn every_case_has_a_row_on_its_family_page_with_a_verdict_per_translator() {
    let files = committed();
    let json = committed_json();
    let index = &files["cases.html"];
    assert!(files["index.html"].contains("href=\"cases.html\""), "the matrix links the families");
    let translators = json["translators"].as_array().expect("translators").len();
    let mut rows = 0;
    for case in json["corpus"]["cases"].as_array().expect("format 3 lists the cases") {
        let case = case.as_str().expect("a case id");
        let page = report::families::page_name(&report::families::family_of(case));
        assert!(index.contains(&format!("href=\"{page}\"")), "cases.html links {page}");
        let text = files.get(&page).unwrap_or_else(|| panic!("{page} is generated"));
        let id = report::families::anchor(case);
        let row = text.split(&format!("<tr id=\"{id}\">")).nth(1).unwrap_or_else(|| panic!("{page} has a row for {case}"));
        let row = row.split("</tr>").next().unwrap_or_default();
        assert_eq!(row.matches("<td class=\"v ").count(), translators, "{case}: one verdict per translator");
        rows += 1;
    }
    assert!(rows > 200, "{rows} cases");
    // A failing or known case shows as such: the known violations of some translator appear.
    assert!(files.iter().any(|(name, text)| name.starts_with("cases-") && text.contains("class=\"v known\"")));
}

#[test]
fn the_readme_opens_with_the_headline_of_the_committed_report() {
    // The reports trial keeps the block current; this holds the README to having it, right after
    // the opening paragraph, and to its being the committed report's.
    let readme = std::fs::read_to_string(trials::workspace_root().join("README.md")).expect("README.md");
    let block = report::headline::current(&readme).expect("README.md has the headline block");
    assert_eq!(block, report::headline::block(&committed_json()), "the README's headline is not the committed report's: bless the reports");
    let before = &readme[..readme.find(report::headline::START).expect("start")];
    assert_eq!(before.matches("\n## ").count(), 1, "only the headline's own heading comes before it:\n{before}");
    for translator in committed_json()["translators"].as_array().expect("translators") {
        let name = translator["name"].as_str().expect("a name");
        assert!(block.contains(&format!("[`{name}`](reports/{name}.md)")), "{name} has a line in the headline");
    }
}
