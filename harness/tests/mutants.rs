//! Testing the tester: translators with one historical defect each, claiming the `identity` table
//! (everything preserved), must be caught on the own corpus, with the right direction.
//!
//! Each mutant reintroduces a defect observed in a real translator (opencode's schema issues,
//! named on each mutant). A mutant that is not caught, or caught only for an unrelated reason,
//! fails this test: the oracle would have let that defect through.

use std::sync::Arc;

use schema_fidelity::corpus::Case;
use schema_fidelity::oracle::{self, Env, FailureKind, Verdict};
use schema_fidelity::project::Project;
use schema_fidelity::table::{self, Direction, Table};
use schema_fidelity::trials::{self, Selection};
use schema_fidelity_translators::walk;
use schema_fidelity_translators::{Outcome, Translator};
use serde_json::{Map, Value};

/// A mutant: identity with one rewrite applied at every schema node, bottom-up.
struct Mutant {
    name: &'static str,
    rewrite: fn(&mut Map<String, Value>),
    /// Replaces boolean subschemas (for the inversion).
    boolean: fn(bool) -> Value,
}

impl Mutant {
    fn apply(&self, schema: &Value) -> Value {
        match schema {
            Value::Bool(b) => (self.boolean)(*b),
            Value::Object(_) => {
                let mapped = walk::map_children(schema, |c| Ok::<_, ()>(self.apply(c.schema))).unwrap_or_else(|()| schema.clone());
                let Value::Object(mut map) = mapped else { return mapped };
                (self.rewrite)(&mut map);
                Value::Object(map)
            }
            other => other.clone(),
        }
    }
}

impl Translator for Mutant {
    fn name(&self) -> &str {
        self.name
    }
    fn translate(&self, source: &Value) -> Outcome {
        Outcome::json_schema(self.apply(source))
    }
}

fn keep(b: bool) -> Value {
    Value::Bool(b)
}

fn unchanged(_: &mut Map<String, Value>) {}

fn fixture() -> (Table, Vec<Arc<Case>>, Env) {
    let project = Project::at(trials::workspace_root());
    let path = project.dispositions_dir().join("identity.yaml");
    let table = table::load(&path, project.relative(&path), &project.dispositions_dir()).expect("identity table lints clean");
    let loaded = trials::load(project, &Selection::All);
    assert!(loaded.corpus_errors.is_empty(), "corpus loads: {:?}", loaded.corpus_errors);
    let own: Vec<_> = loaded.cases.iter().filter(|c| c.id.starts_with("corpus/")).cloned().collect();
    assert!(!own.is_empty());
    (table, own, loaded.env.clone())
}

/// Every deviation the oracle reports for `mutant` on the own corpus, as (case, kind).
fn deviations(mutant: &Mutant) -> Vec<(String, FailureKind)> {
    let (table, cases, env) = fixture();
    let mut out = Vec::new();
    for case in &cases {
        match oracle::check(&table, mutant, case, &env) {
            Verdict::Fail(f) => {
                assert!(
                    matches!(f.kind, FailureKind::Deviation { .. }),
                    "{}: {} failed for a reason other than a deviation:\n{}",
                    mutant.name,
                    case.id,
                    f.message
                );
                out.push((case.id.clone(), f.kind));
            }
            Verdict::ExpectedFailure { .. } => panic!("the identity table marks no known violation"),
            Verdict::Pass(_) | Verdict::Skip(_) => {}
        }
    }
    out
}

/// Assert a deviation's directions and flags, and that it names the occurrence `keyword` (at a node
/// ending with `node_suffix`) as responsible.
fn assert_deviation(kind: &FailureKind, directions: &[Direction], inverted: bool, contradicted: bool, keyword: &str, node_suffix: &str) {
    let FailureKind::Deviation { found, inverted: i, contradicted: c, blamed } = kind else { panic!("not a deviation: {kind:?}") };
    assert_eq!(found.iter().copied().collect::<Vec<_>>(), directions, "{kind:?}");
    assert_eq!((*i, *c), (inverted, contradicted), "{kind:?}");
    assert!(blamed.iter().any(|(node, k)| k == keyword && node.ends_with(node_suffix)), "`{keyword}` at `...{node_suffix}` is blamed: {blamed:?}");
}

#[test]
fn const_dropped_is_caught_as_widening() {
    let mutant = Mutant { name: "const-dropped", rewrite: |m| drop(m.remove("const")), boolean: keep };
    let found = deviations(&mutant);
    let hit = found.iter().find(|(id, _)| id.ends_with("::const-string")).expect("caught on const-string");
    assert_deviation(&hit.1, &[Direction::Widening], false, false, "const", "");
}

#[test]
fn false_turned_into_empty_schema_is_caught_as_inversion() {
    let mutant = Mutant { name: "false-inverted", rewrite: unchanged, boolean: |b| if b { Value::Bool(true) } else { Value::Object(Map::new()) } };
    let found = deviations(&mutant);
    let hit = found.iter().find(|(id, _)| id.ends_with("::false-property")).expect("caught on false-property");
    let FailureKind::Deviation { found, inverted, .. } = &hit.1 else { unreachable!() };
    assert!(*inverted, "reported as an inversion: {:?}", hit.1);
    assert!(found.contains(&Direction::Widening));
}

#[test]
fn type_union_cut_to_first_member_is_caught_as_narrowing() {
    let mutant = Mutant {
        name: "type-union-collapsed",
        rewrite: |m| {
            if let Some(Value::Array(types)) = m.get("type")
                && let Some(first) = types.first().cloned()
            {
                m.insert("type".to_owned(), first);
            }
        },
        boolean: keep,
    };
    let found = deviations(&mutant);
    let hit = found.iter().find(|(id, _)| id.ends_with("::string-or-integer")).expect("caught on string-or-integer");
    assert_deviation(&hit.1, &[Direction::Narrowing], false, false, "type", "");
}

#[test]
fn prefix_items_dropped_beside_items_is_caught_as_contradiction() {
    let mutant = Mutant {
        name: "prefix-items-dropped",
        rewrite: |m| {
            if m.contains_key("items") {
                m.remove("prefixItems");
            }
        },
        boolean: keep,
    };
    let found = deviations(&mutant);
    let hit = found.iter().find(|(id, _)| id.ends_with("::tuple-then-booleans")).expect("caught on tuple-then-booleans");
    assert_deviation(&hit.1, &[Direction::Widening, Direction::Narrowing], false, true, "type", "/prefixItems/0");
}

/// opencode#1667: `type: object` forced onto a root that is only a combinator.
struct ForcedObjectRoot;

impl Translator for ForcedObjectRoot {
    fn name(&self) -> &str {
        "forced-object-root"
    }
    fn translate(&self, source: &Value) -> Outcome {
        let mut out = source.clone();
        if let Some(root) = out.as_object_mut() {
            root.insert("type".to_owned(), Value::from("object"));
        }
        Outcome::json_schema(out)
    }
}

#[test]
fn object_forced_onto_combinator_roots_is_caught_as_narrowing() {
    let (table, cases, env) = fixture();
    for name in ["::all-of-string-root", "::not-root-untyped"] {
        let case = cases.iter().find(|c| c.id.ends_with(name)).expect("regression case exists");
        let verdict = oracle::check(&table, &ForcedObjectRoot, case, &env);
        let Some(failure) = verdict.failure() else { panic!("{name}: not caught: {verdict:?}") };
        assert_deviation(&failure.kind, &[Direction::Narrowing], false, false, "type", "");
    }
}

/// opencode#1585: mutually recursive `$defs` sent uncut to a provider that unrolls cycles only
/// through non-required properties. The mutant passes the references through (as the pre-fix
/// normalize did for cycles spanning two definitions); the table is identity's with Gemini's
/// `recursion: optional-only` (its target's rule, set on the loaded table).
#[test]
fn mutually_recursive_defs_left_uncut_are_caught() {
    let (_, cases, env) = fixture();
    let p = Project::at(trials::workspace_root());
    let text = std::fs::read_to_string(p.dispositions_dir().join("identity.yaml")).expect("identity table");
    let (table, errors) = table::parse(&text, std::path::Path::new("dispositions/identity.yaml"), &p.dispositions_dir());
    assert!(errors.is_empty(), "{errors:?}");
    let mut table = table.expect("parses");
    table.recursion = schema_fidelity::recursion::Recursion::OptionalOnly;
    let identity = schema_fidelity_translators::builtin::Identity;
    let case = |name: &str| cases.iter().find(|c| c.id.ends_with(name)).expect("regression case exists").clone();
    let verdict = oracle::check(&table, &identity, &case("::expression-statement-cycle"), &env);
    let Some(failure) = verdict.failure() else { panic!("not caught: {verdict:?}") };
    let FailureKind::Recursion(cycle) = &failure.kind else { panic!("caught for another reason: {}", failure.message) };
    assert!(cycle.contains("#/$defs/block") && cycle.contains("#/$defs/statement"), "the cycle names both definitions: {cycle}");
    // A cycle that passes an optional property (company.office, address.contact) is one Gemini
    // unrolls: not a violation, and the oracle must not call it one.
    let verdict = oracle::check(&table, &identity, &case("::three-definition-cycle"), &env);
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
}

/// opencode#1548: an ARRAY sent to the proto form without `items` (the API answers
/// `parameters.properties[paths].items: missing field`). The mutant is gemini-proto with `items`
/// stripped from every array it emits; the proto grammar must reject it.
struct ProtoWithoutItems;

impl Translator for ProtoWithoutItems {
    fn name(&self) -> &str {
        "gemini-proto-without-items"
    }
    fn translate(&self, source: &Value) -> Outcome {
        fn strip(v: &mut Value) {
            match v {
                Value::Object(map) => {
                    if map.get("type") == Some(&Value::from("ARRAY")) {
                        map.remove("items");
                    }
                    map.values_mut().for_each(strip);
                }
                Value::Array(items) => items.iter_mut().for_each(strip),
                _ => {}
            }
        }
        match schema_fidelity_translators::builtin::GeminiProto.translate(source) {
            Outcome::Projected(mut p) => {
                strip(&mut p.schema);
                Outcome::Projected(p)
            }
            other => other,
        }
    }
}

#[test]
fn an_array_without_items_in_the_proto_form_is_caught_by_its_grammar() {
    let (_, cases, env) = fixture();
    let p = Project::at(trials::workspace_root());
    let path = p.dispositions_dir().join("gemini-proto.yaml");
    let table = table::load(&path, p.relative(&path), &p.dispositions_dir()).expect("gemini-proto lints clean");
    for name in ["::bare-array-property", "::bare-array-with-count-bounds"] {
        let case = cases.iter().find(|c| c.id.ends_with(name)).expect("regression case exists");
        assert!(
            matches!(oracle::check(&table, &schema_fidelity_translators::builtin::GeminiProto, case, &env), Verdict::Pass(_)),
            "{name}: gemini-proto itself keeps the contract"
        );
        let verdict = oracle::check(&table, &ProtoWithoutItems, case, &env);
        let Some(failure) = verdict.failure() else { panic!("{name}: not caught: {verdict:?}") };
        assert_eq!(failure.kind, FailureKind::Grammar, "{name}: {}", failure.message);
        assert!(failure.message.contains("items"), "{name}: the grammar names the missing field: {}", failure.message);
    }
}

#[test]
fn identity_itself_passes_every_case() {
    let (table, cases, env) = fixture();
    let identity = schema_fidelity_translators::builtin::Identity;
    for case in &cases {
        let verdict = oracle::check(&table, &identity, case, &env);
        assert!(matches!(verdict, Verdict::Pass(_)), "{}: {verdict:?}", case.id);
    }
}

// ---- mutants under non-empty envelopes --------------------------------------------------------
//
// The mutants above claim identity's table, where nothing is approximated. A harness that judged a
// whole case by the join of its rows would let these next ones through: each sits in cases where
// the table legitimately approximates something else in the same direction.

fn load_table(name: &str) -> Table {
    let project = Project::at(trials::workspace_root());
    let path = project.dispositions_dir().join(format!("{name}.yaml"));
    table::load(&path, project.relative(&path), &project.dispositions_dir()).expect("the table lints clean")
}

/// Collapse every `type` list to its first member (opencode#1556), everywhere in a schema.
fn collapse_type_unions(schema: &Value) -> Value {
    let mapped = walk::map_children(schema, |c| Ok::<_, ()>(collapse_type_unions(c.schema))).unwrap_or_else(|()| schema.clone());
    match mapped {
        Value::Object(mut m) => {
            if let Some(Value::Array(types)) = m.get("type")
                && let Some(first) = types.first().cloned()
            {
                m.insert("type".to_owned(), first);
            }
            Value::Object(m)
        }
        other => other,
    }
}

/// openai-strict with its type-union handling replaced by first-member collapse: the schema is
/// collapsed before the real translator sees it.
struct StrictCollapsingUnions;

impl Translator for StrictCollapsingUnions {
    fn name(&self) -> &str {
        "openai-strict"
    }
    fn translate(&self, source: &Value) -> Outcome {
        schema_fidelity_translators::builtin::by_name("openai-strict").expect("built-in").translate(&collapse_type_unions(source))
    }
}

#[test]
fn a_collapsed_union_fails_openai_strict_although_its_objects_are_closed() {
    let (_, cases, env) = fixture();
    let table = load_table("openai-strict");
    let case = cases.iter().find(|c| c.id.ends_with("type-union-collapsed.yaml::string-or-integer")).expect("the #1556 case");
    // The honest translator passes, although its `properties` and root `type` rows narrow here.
    let honest = schema_fidelity_translators::builtin::by_name("openai-strict").expect("built-in");
    assert!(matches!(oracle::check(&table, honest.as_ref(), case, &env), Verdict::Pass(_)));
    let verdict = oracle::check(&table, &StrictCollapsingUnions, case, &env);
    let Some(failure) = verdict.failure() else { panic!("not caught: {verdict:?}") };
    assert_deviation(&failure.kind, &[Direction::Narrowing], false, false, "type", "/properties/id");
    assert!(failure.message.contains("`type` at `/properties/id` is preserved (dispositions/openai-strict.yaml:"), "{}", failure.message);
}

/// Moves `pattern` into the description (declared) and silently drops `maxLength` (not declared).
struct PatternSpillerMaxLengthDropper;

fn spill_pattern_drop_max_length(schema: &Value) -> Value {
    let mapped = walk::map_children(schema, |c| Ok::<_, ()>(spill_pattern_drop_max_length(c.schema))).unwrap_or_else(|()| schema.clone());
    match mapped {
        Value::Object(mut m) => {
            if let Some(p) = m.remove("pattern") {
                m.insert("description".to_owned(), Value::from(format!("must match {p}")));
            }
            m.remove("maxLength");
            Value::Object(m)
        }
        other => other,
    }
}

impl Translator for PatternSpillerMaxLengthDropper {
    fn name(&self) -> &str {
        "identity"
    }
    fn translate(&self, source: &Value) -> Outcome {
        Outcome::json_schema(spill_pattern_drop_max_length(source))
    }
}

#[test]
fn a_declared_pattern_widening_does_not_hide_a_dropped_max_length() {
    let (_, cases, env) = fixture();
    let project = Project::at(trials::workspace_root());
    let text = std::fs::read_to_string(project.dispositions_dir().join("identity.yaml")).expect("identity table");
    let text = text.replacen("  pattern: { disposition: preserved }", "  pattern: { disposition: approximated, direction: widening, to: description }", 1);
    let (table, errors) = table::parse(&text, std::path::Path::new("dispositions/identity.yaml"), &project.dispositions_dir());
    assert!(errors.is_empty(), "{errors:?}");
    let table = table.expect("parses");
    let with_both: Vec<_> = cases
        .iter()
        .filter(|c| {
            let text = c.schema.to_string();
            text.contains("\"pattern\"") && text.contains("\"maxLength\"")
        })
        .collect();
    assert!(!with_both.is_empty(), "the corpus has cases holding both keywords");
    let mut caught = 0;
    for case in &with_both {
        if let Some(failure) = oracle::check(&table, &PatternSpillerMaxLengthDropper, case, &env).failure() {
            let FailureKind::Deviation { blamed, .. } = &failure.kind else { panic!("{}: {}", case.id, failure.message) };
            assert!(blamed.iter().all(|(_, k)| k == "maxLength"), "{}: only maxLength is blamed, never the declared pattern: {blamed:?}", case.id);
            caught += 1;
        }
    }
    // A case whose maxLength no instance can exceed past its pattern (an anchored fixed-length
    // pattern, say) may legitimately pass; every other one is caught.
    assert!(caught * 4 >= with_both.len() * 3, "caught {caught} of {} cases holding pattern and maxLength", with_both.len());
}

/// Deletes `additionalProperties: false`: the inversion by deletion, not by a literal `{}`.
#[test]
fn deleting_additional_properties_false_is_an_inversion() {
    let mutant = Mutant {
        name: "closed-objects-opened",
        rewrite: |m| {
            if m.get("additionalProperties") == Some(&Value::Bool(false)) {
                m.remove("additionalProperties");
            }
        },
        boolean: keep,
    };
    let found = deviations(&mutant);
    let hit = found.iter().find(|(id, _)| id.ends_with("::false-positions")).expect("caught on false-positions");
    assert_deviation(&hit.1, &[Direction::Widening], true, false, "false", "/additionalProperties");
}

/// An inversion is covered only by a widening mark on the `false` occurrence's own row, and the
/// mark is then credited; without the mark the same mutant fails (above).
#[test]
fn a_marked_false_row_covers_its_inversion_and_is_credited() {
    let (_, cases, env) = fixture();
    let project = Project::at(trials::workspace_root());
    let text = std::fs::read_to_string(project.dispositions_dir().join("identity.yaml")).expect("identity table");
    let text = text.replacen(
        "  \"false\": { disposition: preserved }",
        "  \"false\": { disposition: preserved, known_violation: { issue: \"demo#2\", direction: widening } }",
        1,
    );
    let (table, errors) = table::parse(&text, std::path::Path::new("dispositions/identity.yaml"), &project.dispositions_dir());
    assert!(errors.is_empty(), "{errors:?}");
    let table = table.expect("parses");
    let mutant = Mutant { name: "false-inverted", rewrite: unchanged, boolean: |b| if b { Value::Bool(true) } else { Value::Object(Map::new()) } };
    let case = cases.iter().find(|c| c.id.ends_with("::false-property")).expect("false-property");
    match oracle::check(&table, &mutant, case, &env) {
        Verdict::ExpectedFailure { known, .. } => assert!(known.iter().any(|k| k.contains("`false`")), "{known:?}"),
        other => panic!("the mark covers the inversion: {other:?}"),
    }
}
