//! Testing the tester: translators with one historical defect each, claiming the `identity` table
//! (everything preserved), must be caught on the own corpus, with the right direction.
//!
//! Each mutant reintroduces a defect observed in a real translator (opencode's schema issues,
//! named on each mutant). A mutant that is not caught, or caught only for an unrelated reason,
//! fails this test: the oracle would have let that defect through.

use std::sync::Arc;

use schema_fidelity::corpus::Case;
use schema_fidelity::deviation::Direction;
use schema_fidelity::oracle;
use schema_fidelity::project::Project;
use schema_fidelity::table::{self, Table};
use schema_fidelity::trials;
use schema_fidelity::validation::Env;
use schema_fidelity::verdict::{FailureKind, Verdict};
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
    let loaded = crate::shared::loaded();
    assert!(loaded.corpus_errors.is_empty(), "corpus loads: {:?}", loaded.corpus_errors);
    let own: Vec<_> = loaded.cases.iter().filter(|c| c.id.starts_with("corpus/")).cloned().collect();
    assert!(!own.is_empty());
    (table, own, loaded.env.clone())
}

/// Every deviation the oracle reports for `mutant` on the own corpus, as (case, kind).
fn deviations(mutant: &Mutant) -> Vec<(String, FailureKind)> {
    let (table, cases, env) = fixture();
    let mut out = Vec::new();
    // A case the mutant leaves as it is gets identity's projection, which passes every case
    // (`identity_itself_passes_every_case`, and the contract's identity trials): only the cases it
    // rewrites are judged.
    for case in cases.iter().filter(|c| mutant.apply(&c.schema) != c.schema) {
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

/// TRACKING.md#sf-1316: `type: object` forced onto a root that is only a combinator.
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

/// TRACKING.md#sf-1315: mutually recursive `$defs` sent uncut to a provider that unrolls cycles only
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

/// TRACKING.md#sf-1310: an ARRAY sent to the proto form without `items` (the API answers
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

/// Collapse every `type` list to its first member (TRACKING.md#sf-1311), everywhere in a schema.
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
            // The dropped `maxLength` is named where it acts: on `maxLength`, or on the `oneOf` whose
            // branches it makes overlap; never on the declared `pattern`.
            assert!(blamed.iter().all(|(_, k)| k == "maxLength" || k == "oneOf"), "{}: the declared pattern is never blamed: {blamed:?}", case.id);
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

// ---- sound verdicts: one mutant per class of excuse --------------------------------------------
//
// Each class is a way a verdict could excuse what no row declares. For each, a translator that does
// the declared half (the faithful one) passes, and a mutant that adds an undeclared deviation is
// caught, naming the occurrence that deviates.

/// identity's table with some rows replaced: `rows` maps a keyword to the YAML of its new row;
/// `extra` is appended (a `rules:` section).
fn identity_with(rows: &[(&str, &str)], extra: &str) -> Table {
    let project = Project::at(trials::workspace_root());
    let mut text = std::fs::read_to_string(project.dispositions_dir().join("identity.yaml")).expect("identity table");
    for (keyword, row) in rows {
        let quoted = if keyword.starts_with('$') || matches!(*keyword, "true" | "false") { format!("\"{keyword}\"") } else { (*keyword).to_owned() };
        let old = format!("  {quoted}: {{ disposition: preserved }}");
        assert!(text.contains(&old), "identity has a plain row for `{keyword}`");
        text = text.replacen(&old, &format!("  {quoted}: {row}"), 1);
    }
    text.push_str(extra);
    let (table, errors) = table::parse(&text, std::path::Path::new("dispositions/identity.yaml"), &project.dispositions_dir());
    assert!(errors.is_empty(), "{errors:?}");
    table.expect("parses")
}

/// The own case ending with `name`.
fn own_case(name: &str) -> Arc<Case> {
    let (_, cases, _) = fixture();
    cases.iter().find(|c| c.id.ends_with(name)).unwrap_or_else(|| panic!("the corpus has `{name}`")).clone()
}

/// A translator applying `rewrite` to every schema node, bottom-up (booleans kept).
struct Rewriting(&'static str, fn(&mut Map<String, Value>));

impl Translator for Rewriting {
    fn name(&self) -> &str {
        self.0
    }
    fn translate(&self, source: &Value) -> Outcome {
        Outcome::json_schema(Mutant { name: self.0, rewrite: self.1, boolean: keep }.apply(source))
    }
}

fn passes(table: &Table, translator: &dyn Translator, case: &Case) {
    let verdict = oracle::check(table, translator, case, &Env::default());
    assert!(matches!(verdict, Verdict::Pass(_)), "{} on {}: the faithful translator passes: {verdict:?}", translator.name(), case.id);
}

fn caught(table: &Table, translator: &dyn Translator, case: &Case) -> FailureKind {
    let verdict = oracle::check(table, translator, case, &Env::default());
    match verdict {
        Verdict::Fail(f) => f.kind,
        other => panic!("{} on {}: not caught: {other:?}", translator.name(), case.id),
    }
}

fn drop_null_from_type(m: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = m.get_mut("type") {
        types.retain(|t| t.as_str() != Some("null"));
    }
}

fn halve_max_length(m: &mut Map<String, Value>) {
    if let Some(n) = m.get("maxLength").and_then(Value::as_u64) {
        m.insert("maxLength".to_owned(), Value::from(n / 2));
    }
}

/// Class 1: a narrowing bound as tight as its word. `null` dropped from a type list is declared
/// (`null-dropped`); a halved `maxLength` beside it is not, and is caught on `maxLength`. Under the
/// loose word `rewritten` the halving is caught too (the bound is pinned on its keyword).
#[test]
fn class_1_a_declared_null_drop_hides_no_halved_max_length() {
    let case = own_case("sound-verdicts.yaml::nullable-string-with-length");
    for word in ["null-dropped", "rewritten"] {
        let table = identity_with(&[("type", &format!("{{ forms: {{ list: {{ disposition: approximated, direction: narrowing, to: {word} }}, scalar: {{ disposition: preserved }} }} }}"))], "");
        passes(&table, &Rewriting("drops-null", drop_null_from_type), &case);
        let kind = caught(&table, &Rewriting("drops-null-halves-max-length", |m| {
            drop_null_from_type(m);
            halve_max_length(m);
        }), &case);
        assert_deviation(&kind, &[Direction::Narrowing], false, false, "maxLength", "/properties/note");
    }
}

/// The lint names the words that fit when one does not.
#[test]
fn class_1_the_lint_rejects_a_word_that_does_not_fit_its_keyword() {
    let project = Project::at(trials::workspace_root());
    let text = std::fs::read_to_string(project.dispositions_dir().join("identity.yaml")).expect("identity table");
    let text = text.replacen("  maxLength: { disposition: preserved }", "  maxLength: { disposition: approximated, direction: narrowing, to: first-member }", 1);
    let (_, errors) = table::parse(&text, std::path::Path::new("dispositions/identity.yaml"), &project.dispositions_dir());
    let message = errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    assert!(message.contains("`to: first-member` does not fit `maxLength`") && message.contains("bounds-tightened"), "{message}");
}

fn close_objects(m: &mut Map<String, Value>) {
    if m.contains_key("properties") && !m.contains_key("additionalProperties") {
        m.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}

fn tighten_glob_pattern(m: &mut Map<String, Value>) {
    if m.get("pattern").and_then(Value::as_str) == Some("^[*a-z.]+$") {
        m.insert("pattern".to_owned(), Value::from("^[*a-y.]+$"));
    }
}

/// Class 2: closing objects beside in-place applicators. A translator that closes every object
/// (declared: `properties` closed, and `true` narrowed to `false` where `additionalProperties` is
/// absent) passes on a nullable object; one that also tightens the pattern inside it is caught on
/// `pattern`: the bound does not reject every key beside the `anyOf`.
#[test]
fn class_2_a_closed_nullable_object_hides_no_tightened_pattern() {
    let case = own_case("sound-verdicts.yaml::nullable-object");
    let table = identity_with(
        &[
            ("properties", "{ disposition: approximated, direction: narrowing, to: closed }"),
            ("true", "{ disposition: approximated, direction: narrowing, to: \"false\" }"),
        ],
        "",
    );
    passes(&table, &Rewriting("closes", close_objects), &case);
    let kind = caught(&table, &Rewriting("closes-tightens-pattern", |m| {
        close_objects(m);
        tighten_glob_pattern(m);
    }), &case);
    assert_deviation(&kind, &[Direction::Narrowing], false, false, "pattern", "/anyOf/0/properties/glob");
}

fn drop_pattern(m: &mut Map<String, Value>) {
    m.remove("pattern");
}

/// Class 3: polarity both ways, and `oneOf` stays `oneOf`. Dropping `pattern` in a branch of an
/// overlapping `oneOf` (declared) narrows the whole (two branches now match) and widens it: the
/// faithful translator is blamed for neither. Writing the `oneOf` as `anyOf` too is not declared,
/// and is caught.
#[test]
fn class_3_one_of_read_as_any_of_is_caught_and_cross_polarity_is_not_blamed() {
    let case = own_case("sound-verdicts.yaml::one-of-overlapping-strings");
    let table = identity_with(&[("pattern", "{ disposition: approximated, direction: widening, to: dropped }")], "");
    passes(&table, &Rewriting("drops-pattern", drop_pattern), &case);
    let kind = caught(&table, &Rewriting("drops-pattern-one-of-as-any-of", |m| {
        drop_pattern(m);
        if let Some(branches) = m.remove("oneOf") {
            m.insert("anyOf".to_owned(), branches);
        }
    }), &case);
    let FailureKind::Deviation { found, blamed, .. } = &kind else { panic!("{kind:?}") };
    assert!(found.contains(&Direction::Widening), "{kind:?}");
    assert!(blamed.iter().any(|(node, k)| k == "oneOf" && node == "/properties/id"), "the oneOf is named: {blamed:?}");
}

/// Class 3, under `not`: a declared widening inside a `not` narrows the whole; not blamed.
#[test]
fn class_3_a_widening_under_not_is_not_blamed_for_the_narrowing_it_makes() {
    let case = Case {
        id: "inline::not-pattern".to_owned(),
        file: std::path::PathBuf::from("inline"),
        line: None,
        description: String::new(),
        issues: Vec::new(),
        schema: serde_json::json!({"type": "object", "properties": {"name": {"type": "string", "not": {"pattern": "^tmp"}}}, "required": ["name"]}),
        instances: vec![
            schema_fidelity::corpus::Instance { description: "a name".into(), data: serde_json::json!({"name": "data"}), valid: true },
            schema_fidelity::corpus::Instance { description: "a temporary name".into(), data: serde_json::json!({"name": "tmp1"}), valid: false },
        ],
        origin: schema_fidelity::corpus::Origin::Own,
        assert_formats: true,
    };
    let table = identity_with(&[("pattern", "{ disposition: approximated, direction: widening, to: dropped }")], "");
    passes(&table, &Rewriting("drops-pattern", drop_pattern), &case);
    // Dropping `maxLength`-free `not` entirely is a widening no row declares.
    let kind = caught(&table, &Rewriting("drops-not", |m| drop(m.remove("not"))), &case);
    assert_deviation(&kind, &[Direction::Widening], false, false, "not", "/properties/name");
}

/// Class 4: an inversion is judged on every witness. `not: {}` dropped under a `not` row that
/// declares a widening is still an inversion; a translator that keeps it passes.
#[test]
fn class_4_not_empty_dropped_under_a_widening_not_row_is_an_inversion() {
    let case = own_case("sound-verdicts.yaml::not-empty-forbids-a-property");
    let table = identity_with(&[("not", "{ disposition: approximated, direction: widening, to: dropped }")], "");
    passes(&table, &schema_fidelity_translators::builtin::Identity, &case);
    let kind = caught(&table, &Rewriting("drops-not", |m| drop(m.remove("not"))), &case);
    assert_deviation(&kind, &[Direction::Widening], true, false, "not", "/properties/legacy");
    // A `false` inside `patternProperties`, dropped with it under a declared widening, too.
    let case = own_case("sound-verdicts.yaml::pattern-properties-false");
    let table = identity_with(&[("patternProperties", "{ disposition: approximated, direction: widening, to: dropped }")], "");
    let kind = caught(&table, &Rewriting("drops-pattern-properties", |m| drop(m.remove("patternProperties"))), &case);
    assert_deviation(&kind, &[Direction::Widening], true, false, "false", "/patternProperties/^x-");
}

/// Class 5: a mark is as narrow as the defect. A widening mark on `properties` scoped to one name
/// covers that property's loss and nothing else: a dropped `pattern` under another property is
/// caught. A mark on an in-place applicator does not make its node `true`.
#[test]
fn class_5_a_mark_covers_its_own_occurrence_only() {
    let case = Case {
        id: "inline::proto-property".to_owned(),
        file: std::path::PathBuf::from("inline"),
        line: None,
        description: String::new(),
        issues: Vec::new(),
        schema: serde_json::json!({"type": "object", "properties": {"__proto__": {"type": "string"}, "name": {"type": "string", "pattern": "^[a-z]+$"}}, "required": ["name"]}),
        instances: vec![
            schema_fidelity::corpus::Instance { description: "a name".into(), data: serde_json::json!({"name": "abc"}), valid: true },
            schema_fidelity::corpus::Instance { description: "a proto number".into(), data: serde_json::json!({"name": "abc", "__proto__": 1}), valid: false },
            schema_fidelity::corpus::Instance { description: "a bad name".into(), data: serde_json::json!({"name": "ABC"}), valid: false },
        ],
        origin: schema_fidelity::corpus::Origin::Own,
        assert_formats: true,
    };
    let table = identity_with(&[("properties", "{ disposition: preserved, known_violation: { issue: \"demo#5\", direction: widening, where: { names: [__proto__] } } }")], "");
    fn drop_proto(m: &mut Map<String, Value>) {
        if let Some(Value::Object(p)) = m.get_mut("properties") {
            p.remove("__proto__");
        }
    }
    let verdict = oracle::check(&table, &Rewriting("drops-proto", drop_proto), &case, &Env::default());
    assert!(matches!(verdict, Verdict::ExpectedFailure { .. }), "the scoped mark covers the lost property: {verdict:?}");
    let kind = caught(&table, &Rewriting("drops-proto-and-pattern", |m| {
        drop_proto(m);
        drop_pattern(m);
    }), &case);
    assert_deviation(&kind, &[Direction::Widening], false, false, "pattern", "/properties/name");

    // A mark on `allOf` at the root bounds the `allOf`, not the root: a dropped `required` beside it
    // is caught.
    let case = own_case("combinators.yaml::all-of");
    let table = identity_with(&[("allOf", "{ disposition: preserved, known_violation: { issue: \"demo#6\", direction: widening } }")], "");
    let kind = caught(&table, &Rewriting("drops-all-of-and-required", |m| {
        m.remove("allOf");
        m.remove("required");
    }), &case);
    let FailureKind::Deviation { blamed, .. } = &kind else { panic!("{kind:?}") };
    assert!(blamed.iter().any(|(_, k)| k == "required"), "{blamed:?}");
}

/// Class 6: every check of a trial runs. A projection that breaks its target's grammar and also
/// halves a `maxLength` reports both; the grammar failure does not hide the deviation.
#[test]
fn class_6_a_grammar_failure_does_not_skip_the_comparison() {
    let case = own_case("sound-verdicts.yaml::nullable-string-with-length");
    let table = load_table("openai-responses");
    let translator = Rewriting("openai-responses-with-extras", |m| {
        halve_max_length(m);
        if m.contains_key("properties") {
            m.insert("oneOf".to_owned(), serde_json::json!([{"type": "object"}]));
        }
    });
    let verdict = oracle::check(&table, &translator, &case, &Env::default());
    let Some(failure) = verdict.failure() else { panic!("not caught: {verdict:?}") };
    assert_eq!(failure.kind, FailureKind::Grammar, "{}", failure.message);
    assert!(failure.message.contains("maxLength"), "the deviation is reported beside the grammar failure: {}", failure.message);
}

/// Class 6: a projection sent with `strict: false` is judged by the target's non-strict surface,
/// not by the strict grammar.
#[test]
fn class_6_a_projection_sent_non_strict_is_judged_by_the_non_strict_surface() {
    let case = own_case("sound-verdicts.yaml::nullable-string-with-length");
    let table = load_table("openai-strict");
    struct FailOpen(bool);
    impl Translator for FailOpen {
        fn name(&self) -> &str {
            "fail-open"
        }
        fn translate(&self, source: &Value) -> Outcome {
            Outcome::Projected(schema_fidelity_translators::Projection {
                schema: source.clone(),
                dialect: schema_fidelity_translators::Dialect::JsonSchema,
                codec: Default::default(),
                strict: Some(self.0),
            })
        }
    }
    // Sent strict, the source as it is breaks the strict grammar (`maxLength`, an open object).
    assert!(oracle::check(&table, &FailOpen(true), &case, &Env::default()).failure().is_some());
    // Sent non-strict, it is what the plain surface takes: nothing to blame.
    let verdict = oracle::check(&table, &FailOpen(false), &case, &Env::default());
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
}

/// Class 7: an in-place applicator's row excuses no inversion below it. `additionalProperties:
/// false` stripped inside a referenced definition is an inversion, although the table declares the
/// `$ref` a widening.
#[test]
fn class_7_a_closed_object_opened_behind_a_widening_ref_is_an_inversion() {
    let case = own_case("sound-verdicts.yaml::referenced-closed-object");
    let table = identity_with(&[("$ref", "{ disposition: approximated, direction: widening, to: merged }")], "");
    passes(&table, &schema_fidelity_translators::builtin::Identity, &case);
    let kind = caught(&table, &Rewriting("opens-definitions", |m| {
        if m.get("additionalProperties") == Some(&Value::Bool(false)) {
            m.remove("additionalProperties");
        }
    }), &case);
    assert_deviation(&kind, &[Direction::Widening], true, false, "false", "/$defs/range/additionalProperties");
}

/// Table-level rules are bounded exactly: `untyped-as-object` explains an untyped node sent as an
/// object, and nothing else beside it.
#[test]
fn a_table_rule_explains_its_behaviour_and_nothing_beside_it() {
    let case = own_case("sound-verdicts.yaml::nullable-object");
    fn type_untyped(m: &mut Map<String, Value>) {
        if !["type", "anyOf", "oneOf", "allOf"].iter().any(|k| m.contains_key(*k)) {
            m.insert("type".to_owned(), Value::from("object"));
        }
    }
    let table = identity_with(&[], "rules:\n  untyped-as-object: { direction: narrowing, note: \"an untyped node is sent as an object\" }\n");
    passes(&table, &Rewriting("types-untyped", type_untyped), &case);
    let kind = caught(&table, &Rewriting("types-untyped-tightens-pattern", |m| {
        type_untyped(m);
        tighten_glob_pattern(m);
    }), &case);
    assert_deviation(&kind, &[Direction::Narrowing], false, false, "pattern", "/anyOf/0/properties/glob");
}

/// A narrowing the projection makes with a keyword that no node applying there holds (the root
/// closed beside its `anyOf`: the branches declare the keys, the root has none) is carried by a
/// pinned mark on a keyword of a node applying in place at that location (the root's `type`).
/// Without the mark it is caught; with it, known. Before, the witness was pinned on the last
/// branch the locator listed, which holds no keyword a mark could stand on, and no mark explained it.
#[test]
fn a_narrowing_with_no_keyword_there_is_carried_by_a_mark_on_a_node_applying_in_place() {
    let case = own_case("refused.yaml::root-any-of");
    let closes_root = Rewriting("closes-root", |m| {
        if m.get("type") == Some(&Value::from("object")) && m.contains_key("anyOf") {
            m.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
    });
    caught(&identity_with(&[], ""), &closes_root, &case);
    let marked = identity_with(&[("type", "{ disposition: preserved, known_violation: { issue: \"demo#3\", direction: narrowing } }")], "");
    let verdict = oracle::check(&marked, &closes_root, &case, &Env::default());
    assert!(matches!(verdict, Verdict::ExpectedFailure { .. }), "the mark on the root's type carries it: {verdict:?}");
}

/// A `{type: null}` member dropped (merged into its node as a `nullable` that no `type` carries) is
/// bounded by `null-dropped` on that member's `type`: the bound is `enum: []` there, not the
/// `type: []` that the meta-schema forbids (the bound did not compile, and no mark explained it).
#[test]
fn a_null_member_dropped_behind_a_reference_is_bounded_by_null_dropped() {
    let case = own_case("recursion.yaml::mutual-recursion-through-required");
    let merges = Rewriting("merges-null", |m| {
        if let Some(Value::Array(branches)) = m.get("anyOf").cloned()
            && branches.len() == 2
            && branches[1] == serde_json::json!({"type": "null"})
        {
            m.remove("anyOf");
            if let Value::Object(first) = &branches[0] {
                for (k, v) in first {
                    m.insert(k.clone(), v.clone());
                }
            }
        }
    });
    let marked = identity_with(&[("type", "{ disposition: preserved, known_violation: { issue: \"demo#4\", direction: narrowing, to: null-dropped, where: { value: \"null\" } } }")], "");
    let verdict = oracle::check(&marked, &merges, &case, &Env::default());
    assert!(matches!(verdict, Verdict::ExpectedFailure { .. }), "{verdict:?}");
}
