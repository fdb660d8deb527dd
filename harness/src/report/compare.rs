//! `schema-fidelity report --diff OLD.json [NEW.json]`: what changed between two runs, read from
//! their `report.json` files, in the terms a reviewer of a translator bump reads: translators added,
//! removed or upgraded (their table's `source:` changed), dispositions changed, marks added (a new
//! known violation) or removed (fixed), cases that started or stopped failing, proofs lost or
//! gained (a direction of a trial no longer proven, or proven now), and the corpus.
//!
//! It reads the reports as JSON values rather than the typed model, so a report written by an older
//! version of the tool still compares: a field one side lacks reads as absent.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// The changes from `old` to `new`, one line each; empty when nothing a reviewer cares about moved.
#[must_use]
pub fn compare(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    corpus(old, new, &mut out);
    let old_t = by_name(old);
    let new_t = by_name(new);
    for (name, t) in &new_t {
        if !old_t.contains_key(name) {
            out.push(format!("+ translator {name} added ({})", text(t, "source")));
        }
    }
    for name in old_t.keys() {
        if !new_t.contains_key(name) {
            out.push(format!("- translator {name} removed"));
        }
    }
    for (name, n) in &new_t {
        let Some(o) = old_t.get(name) else { continue };
        translator(name, o, n, &mut out);
    }
    out
}

/// The text form: a heading and the lines, or a sentence saying nothing changed.
#[must_use]
pub fn render(old_name: &str, new_name: &str, changes: &[String]) -> String {
    let mut s = format!("{old_name} -> {new_name}\n");
    if changes.is_empty() {
        s.push_str("no change in translators, dispositions, marks, verdicts or corpus\n");
    }
    for c in changes {
        let _ = writeln!(s, "{c}");
    }
    s
}

fn by_name(report: &Value) -> BTreeMap<String, &Value> {
    report["translators"].as_array().into_iter().flatten().filter_map(|t| Some((t["name"].as_str()?.to_owned(), t))).collect()
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

fn corpus(old: &Value, new: &Value, out: &mut Vec<String>) {
    let (o, n) = (&old["corpus"], &new["corpus"]);
    if o["own_cases"] != n["own_cases"] {
        out.push(format!("~ corpus: {} -> {} own cases", o["own_cases"], n["own_cases"]));
    } else if o["own"]["hash"] != n["own"]["hash"] {
        out.push("~ corpus: own cases edited (same count)".to_owned());
    }
    if o["suite"]["hash"] != n["suite"]["hash"] {
        out.push(format!("~ JSON-Schema-Test-Suite: {} -> {}", o["suite"]["hash"], n["suite"]["hash"]));
    }
    // Case by case, when both reports list them (format 3 on).
    if o["cases"].is_array() && n["cases"].is_array() {
        moved(o, n, "cases", out, |c| format!("+ case {c} added"), |c| format!("- case {c} removed"));
    }
}

/// The strings of the array `v[key]`, as a set.
fn list(v: &Value, key: &str) -> std::collections::BTreeSet<String> {
    v[key].as_array().into_iter().flatten().filter_map(|c| c.as_str().map(str::to_owned)).collect()
}

/// A line for each string in `new[key]` and not in `old[key]` (`entered`), then for each the
/// other way round (`left`).
fn moved(old: &Value, new: &Value, key: &str, out: &mut Vec<String>, entered: impl Fn(&str) -> String, left: impl Fn(&str) -> String) {
    let (o, n) = (list(old, key), list(new, key));
    out.extend(n.difference(&o).map(|c| entered(c)));
    out.extend(o.difference(&n).map(|c| left(c)));
}

fn translator(name: &str, o: &Value, n: &Value, out: &mut Vec<String>) {
    if o["source"] != n["source"] {
        out.push(format!("~ {name}: upgraded or re-read: source `{}` -> `{}`", text(o, "source"), text(n, "source")));
    }
    let rows = |t: &Value| -> BTreeMap<String, Value> {
        t["rows"].as_array().into_iter().flatten().filter_map(|r| Some((r["citation"].as_str()?.to_owned(), r.clone()))).collect()
    };
    let (or, nr) = (rows(o), rows(n));
    for (cite, r) in &nr {
        let Some(before) = or.get(cite) else {
            out.push(format!("+ {cite}: new row, {}", disposition(r)));
            continue;
        };
        if disposition(before) != disposition(r) {
            out.push(format!("~ {cite}: {} -> {}", disposition(before), disposition(r)));
        }
        match (mark(before), mark(r)) {
            (None, Some(m)) => out.push(format!("! {cite}: new known violation ({m})")),
            (Some(m), None) => out.push(format!("✓ {cite}: known violation fixed, mark removed ({m})")),
            (Some(a), Some(b)) if a != b => out.push(format!("~ {cite}: known violation {a} -> {b}")),
            _ => {}
        }
    }
    for cite in or.keys() {
        if !nr.contains_key(cite) {
            out.push(format!("- {cite}: row removed"));
        }
    }
    // Evidence: a case whose witness is now pinned on a row (marked, unexplained or inverted) that
    // it was not pinned on before, above all under a row the table says is preserved.
    for (cite, r) in &nr {
        let before = or.get(cite).map(|b| &b["evidence"]).unwrap_or(&Value::Null);
        for (kind, says) in [("marked", "explained only by a known violation"), ("unexplained", "unexplained"), ("inverted", "an inversion")] {
            let preserved = if text(r, "disposition") == "preserved" { " (a preserved row)" } else { "" };
            moved(before, &r["evidence"], kind, out, |c| format!("! {cite}{preserved}: {c} now {says} here"), |c| format!("✓ {cite}: {c} no longer {says} here"));
        }
    }
    let (ot, nt) = (&o["trials"], &n["trials"]);
    if ot.is_object() && nt.is_object() {
        for field in ["passed", "failed", "known_violations", "skipped"] {
            if ot[field] != nt[field] {
                out.push(format!("~ {name}: {field} {} -> {}", ot[field], nt[field]));
            }
        }
        moved(ot, nt, "failed_cases", out, |c| format!("! {name}: {c} now fails"), |c| format!("✓ {name}: {c} no longer fails"));
        // A known trial whose credited marks changed: the attribution moved from one mark to another.
        let known = |t: &Value| -> BTreeMap<String, Value> {
            t["known"].as_array().into_iter().flatten().filter_map(|k| Some((k["case"].as_str()?.to_owned(), k["marks"].clone()))).collect()
        };
        let (ok, nk) = (known(ot), known(nt));
        for (case, marks) in &nk {
            if let Some(was) = ok.get(case)
                && was != marks
            {
                out.push(format!("~ {name}: {case}: the attribution moved from {was} to {marks}"));
            }
        }
        if ot["known_cases"].is_array() && nt["known_cases"].is_array() {
            moved(
                ot,
                nt,
                "known_cases",
                out,
                |c| format!("~ {name}: {c} now reproduces a known violation"),
                |c| format!("~ {name}: {c} no longer reproduces a known violation"),
            );
        }
        proofs(name, &ot["evidence"], &nt["evidence"], out);
    }
}

/// Proofs lost and gained (format 6 on): per direction, a case the old run proved that the new one
/// does not (unknown, or shown by a witness), and the other way round. A compared trial listed
/// neither as shown nor as unknown is proven; a case compared by only one run says nothing.
fn proofs(name: &str, o: &Value, n: &Value, out: &mut Vec<String>) {
    if !o.is_object() || !n.is_object() {
        return;
    }
    if o["proven_exact"] != n["proven_exact"] {
        out.push(format!("~ {name}: proven exact {} -> {} of {} compared", o["proven_exact"], n["proven_exact"], n["compared"]));
    }
    for direction in ["widening", "narrowing"] {
        let unknown = |e: &Value| -> BTreeMap<String, String> {
            e[direction]["unknown"].as_array().into_iter().flatten().filter_map(|u| Some((u["case"].as_str()?.to_owned(), text(u, "why").to_owned()))).collect()
        };
        let shown = |e: &Value| list(&e[direction], "shown");
        let (ou, nu, os, ns) = (unknown(o), unknown(n), shown(o), shown(n));
        for (case, why) in &nu {
            if !ou.contains_key(case) && !os.contains(case) {
                out.push(format!("! {name}: {case}: {direction} proof lost ({why})"));
            }
        }
        for case in ns.difference(&os) {
            if !ou.contains_key(case) {
                out.push(format!("! {name}: {case}: proven no {direction} before, a witness shows one now"));
            }
        }
        for case in ou.keys() {
            if !nu.contains_key(case) && !ns.contains(case) {
                out.push(format!("✓ {name}: {case}: {direction} proof gained"));
            }
        }
    }
}

fn disposition(row: &Value) -> String {
    let mut s = text(row, "disposition").to_owned();
    if let Some(d) = row["direction"].as_str() {
        let _ = write!(s, " ({d})");
    }
    if let Some(to) = row["to"].as_str() {
        let _ = write!(s, " to {to}");
    }
    s
}

fn mark(row: &Value) -> Option<String> {
    let k = row.get("known_violation").filter(|k| k.is_object())?;
    Some(format!("{}, {}", text(k, "direction"), text(k, "issue")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(source: &str, rows: Value, failed: &[&str]) -> Value {
        json!({
            "corpus": {"own": {"hash": "a"}, "own_cases": 3, "suite": null},
            "translators": [{
                "name": "t", "source": source, "rows": rows,
                "trials": {"passed": 3 - failed.len(), "failed": failed.len(), "known_violations": 0, "skipped": 0, "failed_cases": failed}
            }]
        })
    }

    #[test]
    fn a_bump_shows_its_upgrade_marks_dispositions_and_verdicts() {
        let old = report(
            "pkg 1.0",
            json!([
                {"citation": "t/const", "disposition": "preserved", "known_violation": {"issue": "x#1", "direction": "widening"}},
                {"citation": "t/pattern", "disposition": "preserved"}
            ]),
            &["corpus/a.yaml::x"],
        );
        let new = report(
            "pkg 2.0",
            json!([
                {"citation": "t/const", "disposition": "preserved"},
                {"citation": "t/pattern", "disposition": "approximated", "direction": "widening", "to": "description"}
            ]),
            &["corpus/b.yaml::y"],
        );
        let changes = compare(&old, &new);
        assert_eq!(
            changes,
            [
                "~ t: upgraded or re-read: source `pkg 1.0` -> `pkg 2.0`",
                "✓ t/const: known violation fixed, mark removed (widening, x#1)",
                "~ t/pattern: preserved -> approximated (widening) to description",
                "! t: corpus/b.yaml::y now fails",
                "✓ t: corpus/a.yaml::x no longer fails",
            ]
        );
        assert!(compare(&new, &new).is_empty());
    }

    #[test]
    fn cases_added_and_known_violations_reproduced_are_listed_from_format_3() {
        let at = |cases: &[&str], known: &[&str]| {
            json!({
                "corpus": {"own": {"hash": "a"}, "own_cases": cases.len(), "suite": null, "cases": cases},
                "translators": [{"name": "t", "source": "s", "rows": [], "trials": {"passed": 0, "failed": 0, "known_violations": known.len(), "skipped": 0, "failed_cases": [], "known_cases": known, "skipped_cases": []}}]
            })
        };
        let changes = compare(&at(&["c/a", "c/b"], &["c/a"]), &at(&["c/b", "c/c"], &["c/c"]));
        assert!(changes.contains(&"+ case c/c added".to_owned()) && changes.contains(&"- case c/a removed".to_owned()), "{changes:?}");
        assert!(changes.contains(&"~ t: c/c now reproduces a known violation".to_owned()), "{changes:?}");
        assert!(changes.contains(&"~ t: c/a no longer reproduces a known violation".to_owned()), "{changes:?}");
    }

    #[test]
    fn an_attribution_that_moves_or_appears_under_a_preserved_row_is_listed() {
        let at = |marks: &[&str], marked: &[&str]| {
            json!({"corpus": {}, "translators": [{"name": "t", "source": "s",
                "rows": [{"citation": "t/required", "disposition": "preserved", "evidence": {"declared": 0, "marked": marked, "unexplained": [], "inverted": []}}],
                "trials": {"passed": 0, "failed": 0, "known_violations": 1, "skipped": 0, "failed_cases": [], "known": [{"case": "c/a", "marks": marks}]}}]})
        };
        let changes = compare(&at(&["m1"], &[]), &at(&["m2"], &["c/a"]));
        assert!(changes.iter().any(|c| c.contains("c/a: the attribution moved from [\"m1\"] to [\"m2\"]")), "{changes:?}");
        assert!(changes.contains(&"! t/required (a preserved row): c/a now explained only by a known violation here".to_owned()), "{changes:?}");
    }

    #[test]
    fn a_proof_lost_or_gained_is_listed_per_direction() {
        let at = |proven_exact: usize, unknown: Value, shown: &[&str]| {
            json!({"corpus": {}, "translators": [{"name": "t", "source": "s", "rows": [],
                "trials": {"passed": 3, "failed": 0, "known_violations": 0, "skipped": 0, "failed_cases": [],
                    "evidence": {"compared": 3, "proven_exact": proven_exact, "proven_within_table": 3,
                        "widening": {"proven": 3, "shown": [], "unknown": []},
                        "narrowing": {"proven": 1, "shown": shown, "unknown": unknown}}}}]})
        };
        let old = at(2, json!([{"case": "c/a", "why": "`pattern` is not implied there at `/x`"}]), &[]);
        let new = at(1, json!([{"case": "c/b", "why": "a recursion that crosses no instance level at the root"}]), &["c/c"]);
        let changes = compare(&old, &new);
        assert_eq!(
            changes,
            [
                "~ t: proven exact 2 -> 1 of 3 compared",
                "! t: c/b: narrowing proof lost (a recursion that crosses no instance level at the root)",
                "! t: c/c: proven no narrowing before, a witness shows one now",
                "✓ t: c/a: narrowing proof gained",
            ]
        );
    }

    #[test]
    fn translators_added_and_removed_are_listed() {
        let old = json!({"translators": [{"name": "a", "source": "s"}]});
        let new = json!({"translators": [{"name": "b", "source": "pkg 3"}]});
        assert_eq!(compare(&old, &new), ["+ translator b added (pkg 3)", "- translator a removed"]);
    }
}
