//! Witness generation, done-when: mutants of `identity` that claim the identity table (everything
//! preserved) are caught on cases whose hand-written instances do NOT expose them, by generated
//! instances, with a shrunk witness and both verdicts in the message.
//!
//! Each case below is written so that its own instances pass under the mutant (checked first, with
//! generation switched off), so the catch can only come from the generator.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use proptest::test_runner::{Config, TestError, TestRunner};
use schema_fidelity::corpus::{Case, Instance, Origin};
use schema_fidelity::deviation::Direction;
use schema_fidelity::oracle;
use schema_fidelity::project::Project;
use schema_fidelity::table::{self, Table};
use schema_fidelity::trials;
use schema_fidelity::validation::{self, Env};
use schema_fidelity::verdict::{Failure, FailureKind, Verdict};
use schema_fidelity::witness::{self, Pool, Settings};
use schema_fidelity_translators::walk;
use schema_fidelity_translators::{Outcome, Translator};
use serde_json::{Map, Value, json};

/// Identity with one rewrite applied at every schema node, bottom-up (as in `mutants.rs`).
struct Mutant {
    name: &'static str,
    rewrite: fn(&mut Map<String, Value>),
}

impl Mutant {
    fn apply(&self, schema: &Value) -> Value {
        let mapped = walk::map_children(schema, |c| Ok::<_, ()>(self.apply(c.schema))).unwrap_or_else(|()| schema.clone());
        let Value::Object(mut map) = mapped else { return mapped };
        (self.rewrite)(&mut map);
        Value::Object(map)
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

fn identity_table() -> Table {
    let project = Project::at(trials::workspace_root());
    let path = project.dispositions_dir().join("identity.yaml");
    table::load(&path, project.relative(&path), &project.dispositions_dir()).expect("identity table lints clean")
}

/// A test-only own case with `{n: 1}`-style instances that do not reach the boundary.
fn case(name: &str, schema: Value, instances: &[(Value, bool)]) -> Case {
    Case {
        id: format!("tests/witness.rs::{name}"),
        file: PathBuf::from("harness/tests/witness.rs"),
        line: None,
        description: name.to_owned(),
        issues: Vec::new(),
        schema,
        instances: instances.iter().enumerate().map(|(i, (data, valid))| Instance { description: format!("instance {i}"), data: data.clone(), valid: *valid }).collect(),
        origin: Origin::Own,
        assert_formats: true,
    }
}

fn env(settings: Settings) -> Env {
    Env { remotes: None, witness: settings, name_rows: false }
}

/// The oracle's verdict on `case` for `mutant`: passing without generation (the hand-written
/// instances miss the defect), failing with it. Returns the failure.
fn caught(mutant: &Mutant, case: &Case) -> Failure {
    let table = identity_table();
    let without = oracle::check(&table, mutant, case, &env(Settings::fixed(None, 0)));
    assert!(matches!(without, Verdict::Pass(_)), "{}: the hand-written instances alone must not expose the mutant: {without:?}", mutant.name);
    match oracle::check(&table, mutant, case, &env(Settings::fixed(None, witness::DEFAULT_DRAWS))) {
        Verdict::Fail(f) => f,
        other => panic!("{}: generated instances must catch the mutant, got {other:?}", mutant.name),
    }
}

/// Assert the failure's one generated witness: direction, shrunk instance, both verdicts, and that
/// the message shows them with the command that reproduces it.
fn assert_witness(failure: &Failure, direction: Direction, instance: &Value) {
    let FailureKind::Deviation { found, inverted, contradicted, blamed } = &failure.kind else { panic!("not a deviation: {}", failure.message) };
    assert_eq!((found, *inverted, *contradicted), (&BTreeSet::from([direction]), false, false), "{}", failure.message);
    assert!(!blamed.is_empty(), "the deviation is pinned on an occurrence: {}", failure.message);
    let generated: Vec<_> = failure.witnesses.iter().filter(|w| w.description.starts_with("generated")).collect();
    assert_eq!(generated.len(), 1, "{}", failure.message);
    let w = generated[0];
    assert_eq!((w.direction, &w.instance), (direction, instance), "{}", failure.message);
    let (source, projection) = match direction {
        Direction::Widening => ("rejects", "accepts"),
        Direction::Narrowing => ("accepts", "rejects"),
    };
    assert_eq!((w.source_accepts, w.projection_accepts), (direction == Direction::Narrowing, direction == Direction::Widening));
    let line = format!("{instance} -- source {source}, projection {projection}");
    assert!(failure.message.contains(&line), "the message shows `{line}`:\n{}", failure.message);
    assert!(failure.message.contains("reproduce with: SCHEMA_FIDELITY_SEED=0x"), "{}", failure.message);
    assert!(failure.message.contains("cargo test --test contract -- --exact 'identity::tests/witness.rs::"), "{}", failure.message);
}

#[test]
fn maximum_dropped_is_caught_with_the_boundary_plus_one() {
    let mutant = Mutant { name: "mutant", rewrite: |m| drop(m.remove("maximum")) };
    let case = case(
        "maximum",
        json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 10}}, "required": ["n"]}),
        &[(json!({"n": 1}), true), (json!({}), false)],
    );
    assert_witness(&caught(&mutant, &case), Direction::Widening, &json!({"n": 11}));
}

#[test]
fn a_large_max_length_dropped_or_halved_is_caught_at_its_bound() {
    // A real `write-file` tool: `maxLength: 100000`. Strings used to stop at 4,096 characters, so
    // losing this bound was never seen.
    let schema = json!({"type": "object", "properties": {"content": {"type": "string", "maxLength": 100_000}}, "required": ["content"]});
    let instances = [(json!({"content": "short"}), true), (json!({}), false)];
    let dropped = Mutant { name: "mutant", rewrite: |m| drop(m.remove("maxLength")) };
    let failure = caught(&dropped, &case("max-length-dropped", schema.clone(), &instances));
    let w = failure.witnesses.iter().find(|w| w.generated).expect("a generated witness");
    assert_eq!((w.direction, w.instance["content"].as_str().map(|s| s.chars().count())), (Direction::Widening, Some(100_001)), "{}", failure.message);
    assert!(failure.message.contains("more characters]") && failure.message.len() < 20_000, "the message cuts the long string: {} bytes", failure.message.len());
    let halved = Mutant {
        name: "mutant",
        rewrite: |m| {
            if let Some(n) = m.get("maxLength").and_then(Value::as_u64) {
                m.insert("maxLength".into(), json!(n / 2));
            }
        },
    };
    let failure = caught(&halved, &case("max-length-halved", schema, &instances));
    let w = failure.witnesses.iter().find(|w| w.generated).expect("a generated witness");
    let length = w.instance["content"].as_str().map_or(0, |s| s.chars().count());
    assert!(w.direction == Direction::Narrowing && (50_001..=100_000).contains(&length), "{length}: {}", failure.message);
}

#[test]
fn integer_widened_to_number_six_levels_down_behind_optional_arrays_is_caught() {
    // Past depth 4 optional arrays were drawn empty, so this never reached the integer.
    let mut leaf = json!({"type": "integer"});
    for _ in 0..6 {
        leaf = json!({"type": "object", "properties": {"items": {"type": "array", "items": leaf}}});
    }
    let mutant = Mutant {
        name: "mutant",
        rewrite: |m| {
            if m.get("type") == Some(&json!("integer")) {
                m.insert("type".into(), json!("number"));
            }
        },
    };
    let failure = caught(&mutant, &case("deep-integer", leaf, &[(json!({}), true), (json!([]), false)]));
    let FailureKind::Deviation { found, .. } = &failure.kind else { panic!("not a deviation: {}", failure.message) };
    assert_eq!(found, &BTreeSet::from([Direction::Widening]), "{}", failure.message);
}

#[test]
fn min_length_dropped_is_caught_with_the_empty_string() {
    let mutant = Mutant { name: "mutant", rewrite: |m| drop(m.remove("minLength")) };
    let case = case(
        "min-length",
        json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 3}}, "required": ["s"]}),
        &[(json!({"s": "abcd"}), true), (json!({}), false)],
    );
    assert_witness(&caught(&mutant, &case), Direction::Widening, &json!({"s": ""}));
}

#[test]
fn unique_items_dropped_is_caught_with_a_pair_of_equal_items() {
    let mutant = Mutant { name: "mutant", rewrite: |m| drop(m.remove("uniqueItems")) };
    let case = case(
        "unique-items",
        json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "integer"}, "uniqueItems": true}}, "required": ["tags"]}),
        &[(json!({"tags": [1, 2]}), true), (json!({}), false)],
    );
    assert_witness(&caught(&mutant, &case), Direction::Widening, &json!({"tags": [0, 0]}));
}

#[test]
fn minimum_raised_is_caught_as_narrowing_at_the_old_bound() {
    let mutant = Mutant {
        name: "mutant",
        rewrite: |m| {
            if m.get("minimum") == Some(&json!(0)) {
                m.insert("minimum".to_owned(), json!(1));
            }
        },
    };
    let case = case(
        "minimum",
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}),
        &[(json!({"n": 5}), true), (json!({}), false)],
    );
    assert_witness(&caught(&mutant, &case), Direction::Narrowing, &json!({"n": 0}));
}

#[test]
fn the_reported_seed_reproduces_the_witness() {
    let mutant = Mutant { name: "mutant", rewrite: |m| drop(m.remove("maxLength")) };
    let case = case(
        "max-length",
        json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]+$", "maxLength": 3}}, "required": ["code"]}),
        &[(json!({"code": "AB"}), true), (json!({}), false)],
    );
    let first = caught(&mutant, &case);
    let again = caught(&mutant, &case);
    assert_eq!(first.message, again.message, "deterministic by default");
    let description = &first.witnesses[0].description;
    let seed = description.split("seed 0x").nth(1).and_then(|s| s.split(')').next()).expect("the seed is in the description");
    let seed = u64::from_str_radix(seed, 16).expect("hex seed");
    let table = identity_table();
    let replay = oracle::check(&table, &mutant, &case, &env(Settings::fixed(Some(seed), witness::DEFAULT_DRAWS)));
    let replay = replay.failure().expect("the seed reproduces the failure");
    assert_eq!(replay.witnesses, first.witnesses);
    // Four upper-case letters: one past `maxLength`, and the `pattern` kept.
    assert_eq!(first.witnesses[0].instance["code"].as_str().map(str::len), Some(4), "{}", first.message);
}

#[test]
fn two_deviations_of_two_occurrences_are_each_named() {
    // `exclusiveMaximum: 10` sent as `maximum: 9.5`: rejects nothing valid for integers, but for
    // numbers it rejects 9.75 (narrowing) and accepts nothing more; `minimum: 0` sent as
    // `exclusiveMinimum: -1` accepts -0.5 (widening).
    let mutant = Mutant {
        name: "mutant",
        rewrite: |m| {
            if m.remove("exclusiveMaximum").is_some() {
                m.insert("maximum".to_owned(), json!(9.5));
            }
            if m.remove("minimum").is_some() {
                m.insert("exclusiveMinimum".to_owned(), json!(-1));
            }
        },
    };
    let case = case(
        "bounds",
        json!({"type": "object", "properties": {"x": {"type": "number", "minimum": 0, "exclusiveMaximum": 10}}, "required": ["x"]}),
        &[(json!({"x": 5}), true), (json!({"x": 11}), false)],
    );
    let failure = caught(&mutant, &case);
    // Two occurrences each deviating one way is not a contradiction (one occurrence replaced by
    // another meaning is): each is named with its own direction.
    let FailureKind::Deviation { found, contradicted, blamed, .. } = &failure.kind else { panic!("not a deviation: {}", failure.message) };
    assert_eq!(found, &BTreeSet::from([Direction::Widening, Direction::Narrowing]), "{}", failure.message);
    assert!(!contradicted, "{}", failure.message);
    for keyword in ["minimum", "exclusiveMaximum"] {
        assert!(blamed.iter().any(|(node, k)| node == "/properties/x" && k == keyword), "`{keyword}` is blamed: {}", failure.message);
    }
}

#[test]
fn every_generated_witness_is_confirmed_by_fresh_validators() {
    // Soundness: whatever the generator drew, a reported witness is one the validators agree on.
    let mutants = [
        Mutant { name: "mutant", rewrite: |m| drop(m.remove("pattern")) },
        Mutant { name: "mutant", rewrite: |m| drop(m.remove("required")) },
        Mutant { name: "mutant", rewrite: |m| drop(m.remove("additionalProperties")) },
    ];
    let case = case(
        "closed-object",
        json!({
            "type": "object",
            "properties": {"id": {"type": "string", "pattern": "^[a-z]{3}-[0-9]{2}$"}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}}},
            "required": ["id"],
            "additionalProperties": false
        }),
        &[(json!({"id": "abc-12"}), true), (json!({"id": "abc-12", "tags": ["a"]}), true)],
    );
    let source = jsonschema::draft202012::new(&case.schema).expect("compiles");
    for mutant in &mutants {
        let failure = caught(mutant, &case);
        let Outcome::Projected(p) = mutant.translate(&case.schema) else { panic!("projects") };
        let projection = jsonschema::draft202012::new(&p.schema).expect("compiles");
        for w in &failure.witnesses {
            assert_eq!(source.is_valid(&w.instance), w.source_accepts, "{w:?}");
            assert_eq!(projection.is_valid(&w.model_instance), w.projection_accepts, "{w:?}");
            assert_ne!(w.source_accepts, w.projection_accepts);
        }
    }
}

#[test]
fn equivalent_rewrites_pass_every_own_case_with_generation() {
    // A rewrite that changes the text but not the meaning (so the shortcut for identical schemas
    // does not apply and every trial draws): no generated witness may appear.
    let mutant = Mutant { name: "mutant", rewrite: |m| drop(m.insert("$comment".to_owned(), json!("rewritten"))) };
    let table = identity_table();
    let loaded = crate::shared::loaded();
    let settings = Settings::fixed(None, witness::DEFAULT_DRAWS);
    let env = Env { remotes: loaded.env.remotes.clone(), witness: settings, name_rows: false };
    let own: Vec<&Arc<Case>> = loaded.cases.iter().filter(|c| c.origin == Origin::Own).collect();
    assert!(!own.is_empty());
    for case in own {
        let verdict = oracle::check(&table, &mutant, case, &env);
        assert!(matches!(verdict, Verdict::Pass(_)), "{}: {verdict:?}", case.id);
    }
}

#[test]
fn invalid_settings_fail_the_trial_with_the_reason() {
    let mutant = Mutant { name: "mutant", rewrite: |m| drop(m.remove("maximum")) };
    let case = case("settings", json!({"type": "object", "properties": {"n": {"maximum": 1}}}), &[(json!({}), true)]);
    let mut settings = Settings::fixed(None, 8);
    settings.invalid = Some("SCHEMA_FIDELITY_SEED=\"abc\" is not a number".to_owned());
    let verdict = oracle::check(&identity_table(), &mutant, &case, &env(settings));
    let failure = verdict.failure().expect("fails");
    assert_eq!(failure.kind, FailureKind::WitnessSettings);
    assert!(failure.message.contains("SCHEMA_FIDELITY_SEED=\"abc\""), "{}", failure.message);
}

#[test]
fn the_generator_is_a_proptest_strategy_that_shrinks() {
    // The same generator drives ordinary proptest properties, and proptest shrinks through it.
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 1000}, "s": {"type": "string"}}, "required": ["n"]});
    let mut runner = TestRunner::new_with_rng(Config { cases: 256, failure_persistence: None, ..Config::default() }, witness::rng(7, "strategy"));
    let result = runner.run(&witness::instances(&schema, Pool::Valid), |v| {
        proptest::prop_assert!(v["n"].as_i64().is_none_or(|n| n <= 10));
        Ok(())
    });
    match result {
        Err(TestError::Fail(_, smallest)) => assert_eq!(smallest, json!({"n": 11})),
        other => panic!("the property must fail and shrink: {other:?}"),
    }
}

#[test]
fn near_misses_are_mostly_rejected_and_valid_draws_mostly_accepted() {
    // The generator aims, on the own corpus; the validator keeps it honest either way. Every case
    // gets some accepted draws and some rejected near misses, and on average most land as aimed.
    let loaded = crate::shared::loaded();
    let (mut valid_total, mut missed_total, mut cases) = (0, 0, 0);
    for case in loaded.cases.iter().filter(|c| c.origin == Origin::Own) {
        let validator = validation::compile(&case.schema, &Env::default(), case.assert_formats).expect("own cases compile");
        let plan = witness::Plan::new(&case.schema);
        let mut rng = witness::rng(1, &case.id);
        let valid = (0..100).filter(|_| validator.is_valid(&witness::draw(&plan, &mut rng, Pool::Valid))).count();
        let missed = (0..100).filter(|_| !validator.is_valid(&witness::draw(&plan, &mut rng, Pool::NearMiss))).count();
        // An unsatisfiable case (no valid instance of its own) cannot have a valid draw, and one
        // that rejects nothing (a `true` root: no invalid instance of its own) no rejected miss.
        let satisfiable = case.instances.iter().any(|i| i.valid);
        let rejects_something = case.instances.iter().any(|i| !i.valid);
        assert!(valid > 0 || !satisfiable, "{}: no valid draw is accepted", case.id);
        assert!(missed > 0 || !rejects_something, "{}: no near miss is rejected", case.id);
        valid_total += valid;
        missed_total += missed;
        cases += 1;
    }
    assert!(valid_total >= 85 * cases, "mean valid yield {}% is below 85%", valid_total / cases.max(1));
    assert!(missed_total >= 85 * cases, "mean near-miss yield {}% is below 85%", missed_total / cases.max(1));
}

#[test]
fn a_trial_says_how_many_generated_instances_its_source_accepted() {
    // A rewrite that changes nothing the validator accepts, in a form the prover does not prove
    // (a `propertyNames` pattern every name matches), so that the search runs: a rewrite it proves
    // equal is settled without a draw.
    let annotate = Mutant { name: "mutant", rewrite: |m| drop(m.insert("propertyNames".into(), json!({"pattern": ".*"}))) };
    let accepted = |schema: Value| {
        let c = case("counted", schema, &[(json!({"p": 1}), false)]);
        match oracle::check(&identity_table(), &annotate, &c, &env(Settings::fixed(None, witness::DEFAULT_DRAWS))) {
            Verdict::Pass(summary) => summary.source_valid,
            other => panic!("{other:?}"),
        }
    };
    let (valid, made) = accepted(json!({"type": "object", "properties": {"p": {"type": "string"}}})).expect("draws were made");
    assert!(valid > 0 && made == witness::DEFAULT_DRAWS, "{valid} of {made}");
    // Nothing satisfies a required property that must and must not match: the count says so. (A required
    // `false` would say it too plainly: the prover sees that no instance exists, and no draw is
    // made.)
    let none = accepted(json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "^a", "not": {"pattern": "^a"}}}, "required": ["p"]}));
    assert_eq!(none.map(|(valid, _)| valid), Some(0));
}

#[test]
fn a_changed_value_in_a_251_value_enum_is_caught_wherever_it_is() {
    // Drawn at random, one value in 251 was reached by 8 seeds in 20; swept, always. Every
    // tenth position is changed in turn (a translator that truncates or rewrites one value).
    let values: Vec<Value> = (0..251).map(|i| json!(format!("region-{i}"))).collect();
    let schema = json!({"type": "object", "properties": {"region": {"enum": values}}, "required": ["region"]});
    let table = identity_table();
    let mut missed = Vec::new();
    for changed in (0..251).step_by(10).chain([250]) {
        let mut projected = schema.clone();
        projected["properties"]["region"]["enum"][changed] = json!("elsewhere");
        let translator = Fixed(projected);
        let c = case("long-enum", schema.clone(), &[(json!({"region": "region-0"}), true), (json!({}), false)]);
        let c = if changed == 0 { case("long-enum", schema.clone(), &[(json!({"region": "region-1"}), true), (json!({}), false)]) } else { c };
        if !matches!(oracle::check(&table, &translator, &c, &env(Settings::fixed(None, witness::DEFAULT_DRAWS))), Verdict::Fail(_)) {
            missed.push(changed);
        }
    }
    assert!(missed.is_empty(), "changed values not caught at positions {missed:?}");
}

/// A translator that answers one fixed projection.
struct Fixed(Value);

impl Translator for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
    fn translate(&self, _: &Value) -> Outcome {
        Outcome::json_schema(self.0.clone())
    }
}

#[test]
fn dropped_contains_counts_and_a_cut_dynamic_ref_are_caught() {
    // Each projection loses one constraint that only a valid draw near its bound shows: the
    // hand-written instances here say nothing about it.
    let table = identity_table();
    let plans: Vec<(&str, Value, Value)> = vec![
        (
            "min-contains",
            json!({"type": "object", "properties": {"tags": {"type": "array", "contains": {"const": "urgent"}, "minContains": 2}}, "required": ["tags"]}),
            json!({"type": "object", "properties": {"tags": {"type": "array", "contains": {"const": "urgent"}}}, "required": ["tags"]}),
        ),
        (
            "max-contains",
            json!({"type": "object", "properties": {"tags": {"type": "array", "contains": {"const": "urgent"}, "maxContains": 1}}, "required": ["tags"]}),
            json!({"type": "object", "properties": {"tags": {"type": "array", "contains": {"const": "urgent"}}}, "required": ["tags"]}),
        ),
        (
            "dynamic-ref",
            json!({
                "$id": "urn:t:list", "type": "object", "properties": {"list": {"$ref": "#/$defs/list"}}, "required": ["list"],
                "$defs": {
                    "list": {"$dynamicAnchor": "item", "type": "array", "items": {"$dynamicRef": "#item"}},
                    "strings": {"$id": "urn:t:strings", "$ref": "urn:t:list", "$defs": {"item": {"$dynamicAnchor": "item", "type": "string"}}}
                },
                "$comment": "the list's items resolve through $dynamicRef to the list itself: nested arrays"
            }),
            json!({"type": "object", "properties": {"list": {"type": "array"}}, "required": ["list"]}),
        ),
    ];
    for (name, source, projected) in plans {
        let c = case(name, source, &[(json!({"x": 1}), false)]);
        let verdict = oracle::check(&table, &Fixed(projected), &c, &env(Settings::fixed(None, witness::DEFAULT_DRAWS)));
        let Verdict::Fail(failure) = verdict else { panic!("{name}: the loss is not caught: {verdict:?}") };
        assert!(failure.witnesses.iter().any(|w| w.direction == Direction::Widening), "{name}: {failure:?}");
    }
}

#[test]
fn a_projection_whose_valid_instances_are_all_infinite_is_judged_in_bounded_time_and_memory() {
    // What a strict rewrite makes of an optional recursion: every property required, so each
    // level holds two arrays of at least two operands each. No finite instance is valid, and a
    // draw of one used to grow as 4^depth until memory ran out (corpus/refs/recursion.yaml
    // root-self-reference under openai-agents).
    let operands = json!({"type": "array", "items": {"$ref": "#"}, "minItems": 2});
    let source = json!({
        "type": "object",
        "properties": {"field": {"type": "string"}, "and": operands, "or": operands},
        "additionalProperties": false, "minProperties": 1
    });
    let mut projected = source.clone();
    projected["required"] = json!(["field", "and", "or"]);
    let c = case("infinite", source, &[(json!({"field": "a"}), true), (json!({}), false)]);
    let verdict = oracle::check(&identity_table(), &Fixed(projected), &c, &env(Settings::fixed(None, witness::DEFAULT_DRAWS)));
    // The projection rejects every finite instance: a narrowing the identity table does not allow.
    let Verdict::Fail(failure) = verdict else { panic!("the narrowing is caught: {verdict:?}") };
    assert!(failure.witnesses.iter().any(|w| w.direction == Direction::Narrowing), "{failure:?}");
}

#[test]
fn an_empty_schema_sent_as_an_object_is_covered_only_by_the_untyped_as_object_rule() {
    // litellm sends `{}` (any value) as `{type: object}`: a narrowing with no occurrence to carry
    // it. The table-level rule `untyped-as-object` bounds it exactly (declared once, here as a
    // known violation); nothing else does.
    let source = json!({"type": "object", "properties": {"value": {}, "n": {"type": "integer"}}, "required": ["value"]});
    let mut projected = source.clone();
    projected["properties"]["value"] = json!({"type": "object"});
    let c = case("any-value", source, &[(json!({"value": {}}), true), (json!({}), false)]);
    let settings = || env(Settings::fixed(None, witness::DEFAULT_DRAWS));
    let verdict = oracle::check(&identity_table(), &Fixed(projected.clone()), &c, &settings());
    assert!(matches!(&verdict, Verdict::Fail(f) if f.witnesses.iter().any(|w| w.direction == Direction::Narrowing)), "{verdict:?}");

    let project = Project::at(trials::workspace_root());
    let text = std::fs::read_to_string(project.dispositions_dir().join("identity.yaml")).expect("identity");
    let ruled = format!(
        "{text}rules:\n  untyped-as-object: {{ direction: narrowing, note: \"an untyped node is sent as an object\", known_violation: {{ issue: \"BerriAI/litellm#22391\", direction: narrowing, witness: 'x' }} }}\n"
    );
    let (table, errors) = table::parse(&ruled, std::path::Path::new("identity.yaml"), &project.dispositions_dir());
    assert!(errors.is_empty(), "{errors:?}");
    match oracle::check(&table.expect("parses"), &Fixed(projected), &c, &settings()) {
        Verdict::ExpectedFailure { known, .. } => assert!(known.iter().any(|k| k.contains("untyped-as-object")), "{known:?}"),
        other => panic!("the rule covers the narrowed empty schema: {other:?}"),
    }
}
