//! Robustness fuzzing of the built-in translators: generated schemas, keyword-rich and hostile
//! (nested combinators, `$ref` cycles, boolean subschemas, unknown keys, very long strings,
//! nesting past `walk::MAX_DEPTH`), fed to every translator of `builtin::all()`.
//!
//! A translator may refuse anything. It may not panic, hang (each translation runs in its own
//! thread and is given [`TIMEOUT`]), answer differently twice, or, for a source that is a valid
//! draft 2020-12 schema, project something that breaks its table's `grammar` or is not itself a
//! valid draft 2020-12 schema once lifted from its dialect. One valid source in
//! [`ORACLE_SAMPLE`] also goes through the whole oracle (table, generated witnesses both ways) for
//! every translator, which must answer without a panic. Scalars, bounds and `multipleOf` include
//! integral floats (`3.0`), and a second stream of tool schemas where `1` meets `1.0` (in `enum`,
//! `const`, `allOf` of enums, `multipleOf`, bounds and `oneOf` tags) must keep every table true.
//!
//! ```sh
//! cargo test --test suite -- fuzz::                                     # 200 schemas (part of `cargo test`)
//! SCHEMA_FIDELITY_FUZZ_SCHEMAS=10000 cargo test --release --test suite -- fuzz::translators_survive
//! SCHEMA_FIDELITY_FUZZ_SCHEMAS=5000 cargo test --release --test suite -- fuzz::readers_survive
//! SCHEMA_FIDELITY_SEED=0x1234 cargo test --test suite -- fuzz::         # another seed
//! ```
//!
//! A failure names the translator, what went wrong and the schema (shrunk by proptest, except for
//! a hang, which is reported as drawn), with the seed that reproduces it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use schema_fidelity::corpus::{self, Case, Origin};
use schema_fidelity::oracle;
use schema_fidelity::project::Project;
use schema_fidelity::table;
use schema_fidelity::trials;
use schema_fidelity::validation::{self, Env};
use schema_fidelity::verdict::Verdict;
use schema_fidelity::witness::{self, Settings};
use schema_fidelity::dialect;
use schema_fidelity_translators::{Dialect, Outcome, Translator, builtin};
use serde_json::{Map, Value, json};

/// Schemas per run of the default test. The long run is the same test with a count, in release:
/// `SCHEMA_FIDELITY_FUZZ_SCHEMAS=10000 cargo test --release --test suite -- fuzz::translators_survive`
/// (`#[ignore]` in this binary is the long tier CI runs, README "Tests").
const DEFAULT_SCHEMAS: u32 = 200;
/// Schemas per run of the integral-float oracle test.
const DEFAULT_INTEGRAL_SCHEMAS: u32 = 24;
/// Environment variable overriding any count.
const COUNT_ENV: &str = "SCHEMA_FIDELITY_FUZZ_SCHEMAS";
/// One translation (twice, for determinism) may take this long; a real one takes microseconds.
const TIMEOUT: Duration = Duration::from_secs(10);

// ---- the schemas --------------------------------------------------------------------------------

fn type_name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["null", "boolean", "integer", "number", "string", "array", "object"])
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        integral_float(),
        "[a-z]{0,6}".prop_map(Value::from),
        Just(json!({"nested": [1, {"pattern": "not a keyword"}]})),
    ]
}

/// A number written with a fraction part that is zero (`3.0`): the same number as the integer `3`
/// in JSON Schema, a different `serde_json::Value`.
fn integral_float() -> impl Strategy<Value = Value> {
    (-20i64..20).prop_map(|n| Value::from(n as f64))
}

/// `n` spelled as an integer or as an integral float.
fn spelled(n: i64, float: bool) -> Value {
    if float { Value::from(n as f64) } else { Value::from(n) }
}

/// Schemas where `1` and `1.0` meet: `enum`, `const`, `multipleOf`, bounds and `oneOf` tags, each
/// value spelled either way, alone or under `allOf`/`anyOf` beside the other spelling.
fn integral_float_property() -> BoxedStrategy<Value> {
    let n = -3i64..4;
    prop_oneof![
        vec((n.clone(), any::<bool>()), 1..4).prop_map(|v| obj([("enum", Value::Array(v.into_iter().map(|(n, f)| spelled(n, f)).collect()))])),
        (n.clone(), any::<bool>()).prop_map(|(n, f)| obj([("const", spelled(n, f))])),
        (n.clone(), any::<bool>(), n.clone(), any::<bool>()).prop_map(|(a, fa, b, fb)| {
            obj([("allOf", json!([{"enum": [spelled(a, fa), spelled(a + 1, !fa)]}, {"enum": [spelled(b, fb), spelled(a, !fa)]}]))])
        }),
        (n.clone(), any::<bool>(), prop::sample::select(vec!["allOf", "anyOf"])).prop_map(|(a, fa, k)| {
            // `enum` and `const` side by side, the `const` in the other spelling.
            let both = json!({"enum": [spelled(a, fa), spelled(a + 1, fa)], "const": spelled(a, !fa)});
            obj([(k, json!([both, {"enum": [spelled(a, fa), "x"]}]))])
        }),
        (1i64..4, any::<bool>(), n.clone(), any::<bool>(), 0i64..5, any::<bool>()).prop_map(|(m, fm, lo, fl, span, fh)| {
            obj([("type", json!("number")), ("multipleOf", spelled(m, fm)), ("minimum", spelled(lo, fl)), ("maximum", spelled(lo + span, fh))])
        }),
        (n.clone(), any::<bool>(), n, any::<bool>()).prop_map(|(a, fa, b, fb)| {
            let branch = |tag: Value, key: &str| json!({"type": "object", "properties": {"kind": {"const": tag}, key: {"type": "integer"}}, "required": ["kind", key]});
            obj([("oneOf", json!([branch(spelled(a, fa), "r"), branch(spelled(b, fb), "w")]))])
        }),
        (prop::sample::select(vec!["integer", "number"]), n_bound()).prop_map(|(t, (k, v))| obj([("type", json!(t)), (k, v)])),
    ]
    .boxed()
}

fn n_bound() -> impl Strategy<Value = (&'static str, Value)> {
    (prop::sample::select(vec!["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]), -3i64..4, any::<bool>()).prop_map(|(k, n, f)| (k, spelled(n, f)))
}

/// Tool schemas of [`integral_float_property`] properties, all required.
fn integral_float_source() -> BoxedStrategy<Value> {
    btree_map(prop::sample::select(vec!["a", "b", "c"]).prop_map(str::to_owned), integral_float_property(), 1..3)
        .prop_map(|properties| {
            let required: Vec<Value> = properties.keys().cloned().map(Value::from).collect();
            obj([("type", json!("object")), ("properties", Value::Object(properties.into_iter().collect())), ("required", Value::Array(required))])
        })
        .boxed()
}

fn property_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["a", "b", "c", "id", "name", "items"]).prop_map(str::to_owned),
        1 => prop::sample::select(vec!["type", "properties", "$ref", "", "a/b", "~0x", "日本", "required"]).prop_map(str::to_owned),
        1 => (200usize..2000).prop_map(|n| "k".repeat(n)),
    ]
}

fn pattern() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "^[a-z]+$",
        "\\d{3}-\\d{4}",
        "^(foo|bar)*$",
        "^\\p{L}+$",
        "a{2,}",
        "(?<year>\\d{4})",
        "^$",
        ".*",
        "[",
        "(?=look)ahead",
        "\\cJ",
        "^\\S+@\\S+$",
    ])
    .prop_map(str::to_owned)
}

fn long_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[ -~]{0,40}",
        1 => (1000usize..100_000).prop_map(|n| "x".repeat(n)),
    ]
}

/// A schema object from its entries, moving the values (`json!` would copy each one through the
/// serializer, quadratic for the deep schemas below).
fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// Schemas without children.
fn leaf() -> BoxedStrategy<Value> {
    let bound = prop_oneof![(-100i64..100).prop_map(Value::from), (-100.0f64..100.0).prop_map(Value::from), integral_float(), Just(json!(1e300))];
    let count = 0u64..12;
    prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        type_name().prop_map(|t| json!({"type": t})),
        vec(type_name(), 1..4).prop_map(|t| json!({"type": t})),
        (prop::sample::select(vec!["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]), bound).prop_map(|(k, v)| obj([(k, v)])),
        prop_oneof![(1i64..50).prop_map(Value::from), (1i64..50).prop_map(|n| Value::from(n as f64)), Just(json!(0.01)), Just(json!(1e-8))].prop_map(|m| obj([("type", json!("number")), ("multipleOf", m)])),
        (prop::sample::select(vec!["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"]), count)
            .prop_map(|(k, n)| obj([(k, Value::from(n))])),
        pattern().prop_map(|p| json!({"type": "string", "pattern": p})),
        prop::sample::select(vec!["date-time", "email", "uri", "uuid", "ipv4", "hostname", "no-such-format"]).prop_map(|f| json!({"type": "string", "format": f})),
        vec(scalar(), 0..5).prop_map(|v| obj([("enum", Value::Array(v))])),
        scalar().prop_map(|v| obj([("const", v)])),
        Just(json!({"type": "array", "uniqueItems": true})),
        vec(property_name(), 0..4).prop_map(|r| json!({"required": r})),
        Just(json!({"dependentRequired": {"a": ["b"], "b": []}})),
        prop::sample::select(vec!["#", "#/$defs/a", "#/$defs/missing", "#node", "other.json#/x", "#/properties/a"]).prop_map(|r| json!({"$ref": r})),
        Just(json!({"$dynamicRef": "#node", "$dynamicAnchor": "node"})),
        Just(json!({"$anchor": "node", "type": "object"})),
        (prop::sample::select(vec!["nullable", "x-extension", "example", "discriminator", "definitions", "propertyOrdering", "unknownKeyword"]), scalar()).prop_map(|(k, v)| obj([(k, v)])),
        (prop::sample::select(vec!["description", "title", "$comment"]), long_text()).prop_map(|(k, s)| obj([(k, Value::from(s))])),
        (scalar(), vec(scalar(), 0..3)).prop_map(|(d, e)| obj([("default", d), ("examples", Value::Array(e)), ("deprecated", json!(true)), ("readOnly", json!(true))])),
        Just(json!({"contentEncoding": "base64", "contentMediaType": "application/json", "contentSchema": {"type": "object"}})),
        Just(json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true}})),
    ]
    .boxed()
}

/// Two schema objects as one (keys of the second win); a boolean stays as it is.
fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            x.extend(y);
            Value::Object(x)
        }
        (a, _) => a,
    }
}

fn schema() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(6, 64, 6, |inner| {
            let named = btree_map(property_name(), inner.clone(), 0..5);
            prop_oneof![
                (named, vec(property_name(), 0..3), prop::option::of(inner.clone())).prop_map(|(properties, required, additional)| {
                    let mut m = Map::new();
                    m.insert("type".into(), json!("object"));
                    m.insert("properties".into(), Value::Object(properties.into_iter().collect()));
                    m.insert("required".into(), json!(required));
                    if let Some(a) = additional {
                        m.insert("additionalProperties".into(), a);
                    }
                    Value::Object(m)
                }),
                inner.clone().prop_map(|s| obj([("type", json!("array")), ("items", s)])),
                (vec(inner.clone(), 1..4), prop::option::of(inner.clone())).prop_map(|(p, items)| {
                    let mut m = obj([("type", json!("array")), ("prefixItems", Value::Array(p))]);
                    if let Some(items) = items {
                        m["items"] = items;
                    }
                    m
                }),
                (inner.clone(), 0u64..3).prop_map(|(s, n)| obj([("contains", s), ("minContains", Value::from(n))])),
                (prop::sample::select(vec!["allOf", "anyOf", "oneOf"]), vec(inner.clone(), 1..4)).prop_map(|(k, v)| obj([(k, Value::Array(v))])),
                inner.clone().prop_map(|s| obj([("not", s)])),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|(i, t, e)| obj([("if", i), ("then", t), ("else", e)])),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| obj([("$defs", obj([("a", a), ("b", b)])), ("$ref", json!("#/$defs/a"))])),
                btree_map(pattern(), inner.clone(), 1..3).prop_map(|p| obj([("patternProperties", Value::Object(p.into_iter().collect()))])),
                inner.clone().prop_map(|s| obj([("propertyNames", s)])),
                (prop::sample::select(vec!["unevaluatedProperties", "unevaluatedItems", "additionalProperties", "items", "contentSchema"]), inner.clone())
                    .prop_map(|(k, s)| obj([(k, s)])),
                inner.clone().prop_map(|s| obj([("dependentSchemas", obj([("a", s)]))])),
                inner.clone().prop_map(|s| obj([("definitions", obj([("legacy", s)])), ("$ref", json!("#/definitions/legacy"))])),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| merge(a, b)),
            ]
        })
        .boxed()
}

/// `$ref` cycles: through an applicator (legal recursion) and without one (a pure loop).
fn cycles() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!({"type": "object", "properties": {"next": {"$ref": "#"}, "value": {"type": "integer"}}})),
        Just(json!({"$defs": {"a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}}, "b": {"type": "array", "items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"})),
        Just(json!({"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}})),
        Just(json!({"type": "object", "properties": {"self": {"$ref": "#/properties/self"}}})),
        Just(json!({"$dynamicAnchor": "node", "type": "object", "properties": {"kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}})),
        Just(json!({"type": "object", "allOf": [{"$ref": "#"}]})),
    ]
    .boxed()
}

/// A schema nested `depth` levels through `properties` or `items`, some past `walk::MAX_DEPTH`.
fn deep() -> BoxedStrategy<Value> {
    (1usize..300, any::<bool>())
        .prop_map(|(depth, via_items)| {
            let mut s = json!({"type": "string"});
            for _ in 0..depth {
                s = if via_items {
                    obj([("type", json!("array")), ("items", s)])
                } else {
                    obj([("type", json!("object")), ("properties", obj([("a", s)])), ("required", json!(["a"]))])
                };
            }
            s
        })
        .boxed()
}

/// What the fuzzer feeds: mostly object roots (tool schemas), sometimes anything.
fn source() -> BoxedStrategy<Value> {
    prop_oneof![
        6 => (schema(), btree_map(property_name(), schema(), 0..4))
            .prop_map(|(extra, properties)| merge(obj([("type", json!("object")), ("properties", Value::Object(properties.into_iter().collect()))]), extra)),
        2 => schema(),
        1 => cycles(),
        1 => deep(),
    ]
    .boxed()
}

// ---- the checks ---------------------------------------------------------------------------------

struct Subject {
    translator: Arc<dyn Translator>,
    grammar: Option<(String, jsonschema::Validator)>,
    /// The translator's table, for running the whole oracle on a sample of the schemas.
    table: Option<table::Table>,
}

fn subjects() -> Vec<Subject> {
    let project = Project::at(trials::workspace_root());
    let dir = project.dispositions_dir();
    builtin::all()
        .into_iter()
        .map(|t| {
            let path = dir.join(format!("{}.yaml", t.name()));
            let table = table::load(&path, project.relative(&path), &dir).ok();
            let grammar = table.as_ref().and_then(|table| table.grammar.clone()).map(|(file, grammar)| {
                let validator = jsonschema::draft202012::options().build(&grammar).unwrap_or_else(|e| panic!("grammar {} compiles: {e}", file.display()));
                (file.display().to_string(), validator)
            });
            Subject { translator: Arc::from(t), grammar, table }
        })
        .collect()
}

/// A translation that finished, or why it did not.
enum Run {
    Done(Outcome, Outcome),
    Panicked(String),
    TimedOut,
}

fn translate_twice(translator: &Arc<dyn Translator>, schema: &Value) -> Run {
    let (tx, rx) = mpsc::channel();
    let (translator, input) = (translator.clone(), schema.clone());
    let spawned = std::thread::Builder::new().name("fuzz-translate".into()).spawn(move || {
        let first = translator.translate(&input);
        let second = translator.translate(&input);
        // The receiver may be gone after a timeout; nothing to do then.
        let _ = tx.send((first, second));
    });
    let Ok(handle) = spawned else { return Run::Panicked("could not spawn a thread".into()) };
    match rx.recv_timeout(TIMEOUT) {
        Ok((first, second)) => {
            let _ = handle.join();
            Run::Done(first, second)
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let message = match handle.join() {
                Err(panic) => panic.downcast_ref::<&str>().map(|s| (*s).to_owned()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default(),
                Ok(()) => "the thread ended without an answer".into(),
            };
            Run::Panicked(message)
        }
        // The thread is left running: a hung translator cannot be stopped from outside.
        Err(mpsc::RecvTimeoutError::Timeout) => Run::TimedOut,
    }
}

/// What is wrong with `translator`'s handling of `schema`, if anything. `valid_source` says
/// whether `schema` is a valid draft 2020-12 schema (compiled once by the caller).
fn problem(subject: &Subject, schema: &Value, valid_source: bool, env: &Env) -> Option<String> {
    let name = subject.translator.name();
    let (first, second) = match translate_twice(&subject.translator, schema) {
        Run::Done(a, b) => (a, b),
        Run::Panicked(message) => return Some(format!("`{name}` panicked: {message}")),
        Run::TimedOut => return Some(format!("`{name}` did not answer within {TIMEOUT:?}")),
    };
    if first != second {
        return Some(format!("`{name}` is not deterministic: two translations of the same schema differ"));
    }
    let Outcome::Projected(projection) = first else { return None };
    // The contract covers valid sources; for an invalid one only the absence of crashes counts.
    if !valid_source {
        return None;
    }
    if let Some((file, grammar)) = &subject.grammar {
        let errors: Vec<String> = grammar.iter_errors(&projection.schema).take(3).map(|e| format!("at `{}`: {e}", e.instance_path())).collect();
        if !errors.is_empty() {
            return Some(format!("`{name}`'s projection breaks its grammar {file}: {}\nprojection: {}", errors.join("; "), clip(&projection.schema)));
        }
    }
    // A projection that is its source is as valid as the source (a passthrough).
    if projection.dialect == Dialect::JsonSchema && &projection.schema == schema {
        return None;
    }
    let lifted = match projection.dialect {
        Dialect::JsonSchema => projection.schema.clone(),
        other => match dialect::lift(other, &projection.schema) {
            Ok(v) => v,
            Err(e) => return Some(format!("`{name}`'s projection cannot be lifted from `{}`: {e}\nprojection: {}", other.name(), clip(&projection.schema))),
        },
    };
    if let Err(e) = validation::compile(&lifted, env, false) {
        return Some(format!("`{name}`'s projection of a valid source {e}\nprojection: {}", clip(&lifted)));
    }
    None
}

/// Schemas of the generated stream that also go through the whole oracle (one in this many).
const ORACLE_SAMPLE: u32 = 10;

/// The whole oracle on `schema` for `subject` (its table, generated witnesses both ways, no
/// hand-written instances): the verdict, or what went wrong when the oracle itself panicked.
fn judge(subject: &Subject, schema: &Value, env: &Env) -> Option<Result<Verdict, String>> {
    let table = subject.table.as_ref()?;
    let case = Case {
        id: "fuzz::generated".to_owned(),
        file: PathBuf::from("fuzz"),
        line: None,
        description: "a generated schema".to_owned(),
        issues: Vec::new(),
        schema: schema.clone(),
        instances: Vec::new(),
        origin: Origin::Own,
        assert_formats: true,
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| oracle::check(table, subject.translator.as_ref(), &case, env)));
    Some(run.map_err(|panic| {
        let message = panic.downcast_ref::<&str>().map(|s| (*s).to_owned()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
        format!("the oracle panicked on `{}`: {message}", subject.translator.name())
    }))
}

/// The environment the sampled oracle runs under: generated witnesses from a fixed seed, few
/// enough draws to keep `cargo test` quick.
fn oracle_env(seed: u64) -> Env {
    Env { remotes: None, witness: Settings::fixed(Some(seed), 48), name_rows: false }
}

fn clip(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 4000 {
        let cut = (0..=4000).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
        s.truncate(cut);
        s.push_str("... (clipped)");
    }
    s
}

fn count(default: u32) -> u32 {
    match std::env::var(COUNT_ENV) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("{COUNT_ENV}={text:?} is not a count")),
        Err(_) => default,
    }
}

fn fuzz(schemas: u32, command: &str) {
    let settings = Settings::from_env();
    if let Some(reason) = &settings.invalid {
        panic!("{reason}");
    }
    let seed = settings.seed.unwrap_or_else(|| witness::case_seed("fuzz"));
    let subjects = subjects();
    assert!(!subjects.is_empty(), "builtin::all() lists translators");
    let env = Env { remotes: None, witness: Settings::fixed(None, 0), name_rows: false };
    let config = Config { cases: schemas, max_shrink_iters: 1024, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, witness::rng(seed, "fuzz"));
    // A hang is reported as drawn: shrinking it would cost a timeout per step.
    let hang: RefCell<Option<(String, Value)>> = RefCell::new(None);
    let tally: RefCell<BTreeMap<&str, (u32, u32)>> = RefCell::new(BTreeMap::new());
    let judged: RefCell<BTreeMap<&'static str, u32>> = RefCell::new(BTreeMap::new());
    let drawn = RefCell::new(0u32);
    let judge_env = oracle_env(seed);
    let result = runner.run(&source(), |schema| {
        if hang.borrow().is_some() {
            return Ok(());
        }
        let valid_source = validation::compile(&schema, &env, false).is_ok();
        *drawn.borrow_mut() += 1;
        if valid_source && drawn.borrow().is_multiple_of(ORACLE_SAMPLE) {
            // The whole oracle, not only the translation: it may find a deviation the table does
            // not explain (a generated schema combines what no corpus case does), but it must
            // answer, and say which.
            for subject in &subjects {
                match judge(subject, &schema, &judge_env) {
                    Some(Err(panicked)) => return Err(TestCaseError::fail(panicked)),
                    Some(Ok(verdict)) => *judged.borrow_mut().entry(verdict_name(&verdict)).or_default() += 1,
                    None => {}
                }
            }
        }
        for subject in &subjects {
            let found = problem(subject, &schema, valid_source, &env);
            if let Some(message) = found {
                if message.contains("did not answer within") {
                    *hang.borrow_mut() = Some((message, schema));
                    return Ok(());
                }
                return Err(TestCaseError::fail(message));
            }
            let mut t = tally.borrow_mut();
            let entry = t.entry(subject.translator.name()).or_default();
            entry.0 += 1;
            entry.1 += u32::from(valid_source);
        }
        Ok(())
    });
    let reproduce = format!("reproduce: {}={seed:#x} {COUNT_ENV}={schemas} {command}", witness::SEED_ENV);
    if let Some((message, schema)) = hang.into_inner() {
        panic!("{message}\nschema: {}\n{reproduce}", clip(&schema));
    }
    match result {
        Ok(()) => {
            for (name, (checked, valid)) in tally.into_inner() {
                println!("{name}: {checked} schemas translated, {valid} of them valid sources whose projections were checked");
            }
            println!("the whole oracle on one valid source in {ORACLE_SAMPLE}, for every translator: {:?}", judged.into_inner());
        }
        Err(TestError::Fail(reason, schema)) => panic!("{reason}\nschema (shrunk): {}\n{reproduce}", clip(&schema)),
        Err(TestError::Abort(reason)) => panic!("fuzzing aborted: {reason}"),
    }
}

fn verdict_name(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Pass(_) => "pass",
        Verdict::Fail(_) => "fail",
        Verdict::ExpectedFailure { .. } => "known",
        Verdict::Skip(_) => "skip",
    }
}

/// Tool schemas where `1` meets `1.0` (see [`integral_float_property`]) through the whole oracle
/// for every built-in translator: each table's verdicts must hold, as they do for the corpus's
/// `numeric-equality.yaml`. A translator comparing numbers by their JSON text fails here.
fn fuzz_integral_floats(schemas: u32, command: &str) {
    let settings = Settings::from_env();
    if let Some(reason) = &settings.invalid {
        panic!("{reason}");
    }
    let seed = settings.seed.unwrap_or_else(|| witness::case_seed("fuzz-integral-floats"));
    let subjects = subjects();
    let env = oracle_env(seed);
    let config = Config { cases: schemas, max_shrink_iters: 256, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, witness::rng(seed, "fuzz-integral-floats"));
    let judged: RefCell<BTreeMap<&'static str, u32>> = RefCell::new(BTreeMap::new());
    let result = runner.run(&integral_float_source(), |schema| {
        for subject in &subjects {
            match judge(subject, &schema, &env) {
                Some(Err(panicked)) => return Err(TestCaseError::fail(panicked)),
                Some(Ok(Verdict::Fail(failure))) => {
                    return Err(TestCaseError::fail(format!("`{}` fails the oracle: {}", subject.translator.name(), failure.message)));
                }
                Some(Ok(verdict)) => *judged.borrow_mut().entry(verdict_name(&verdict)).or_default() += 1,
                None => {}
            }
        }
        Ok(())
    });
    let reproduce = format!("reproduce: {}={seed:#x} {COUNT_ENV}={schemas} {command}", witness::SEED_ENV);
    match result {
        Ok(()) => println!("{schemas} integral-float schemas through the whole oracle, every translator: {:?}", judged.into_inner()),
        Err(TestError::Fail(reason, schema)) => panic!("{reason}\nschema (shrunk): {}\n{reproduce}", clip(&schema)),
        Err(TestError::Abort(reason)) => panic!("fuzzing aborted: {reason}"),
    }
}

#[test]
fn integral_floats_keep_every_table_true() {
    fuzz_integral_floats(count(DEFAULT_INTEGRAL_SCHEMAS), "cargo test --test suite -- fuzz::integral_floats");
}

#[test]
fn translators_survive_generated_schemas() {
    fuzz(count(DEFAULT_SCHEMAS), "cargo test --test suite -- fuzz::translators_survive_generated_schemas");
}

#[test]
fn a_panicking_translator_is_caught_and_its_schema_shown() {
    // The checks themselves must work: a translator that panics on `maxLength` is reported.
    struct Fragile;
    impl Translator for Fragile {
        fn name(&self) -> &str {
            "fragile"
        }
        fn translate(&self, source: &Value) -> Outcome {
            assert!(!source.to_string().contains("maxLength"), "fragile translator met maxLength");
            Outcome::json_schema(source.clone())
        }
    }
    let subject = Subject { translator: Arc::new(Fragile), grammar: None, table: None };
    let env = Env { remotes: None, witness: Settings::fixed(None, 0), name_rows: false };
    let message = problem(&subject, &json!({"type": "object", "properties": {"s": {"maxLength": 3}}}), true, &env).expect("caught");
    assert!(message.contains("`fragile` panicked: fragile translator met maxLength"), "{message}");
    assert_eq!(problem(&subject, &json!({"type": "object"}), true, &env), None);
}

// ---- the table and corpus readers ---------------------------------------------------------------
//
// The readers take files people write by hand: a table or corpus file with a stray character, a
// line lost in a merge, a tab, a truncated write. Whatever the text, a reader answers with the
// parsed file or errors naming the file (and a line inside it, when it gives one); it never
// panics and never hangs. The texts are the project's own tables and corpus files, mutated.

/// Files per run of the default reader test; the long run sets the count:
/// `SCHEMA_FIDELITY_FUZZ_SCHEMAS=5000 cargo test --release --test suite -- fuzz::readers_survive`.
const DEFAULT_FILES: u32 = 200;

/// One edit of a text, at a position given as a fraction of its length.
#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(f64),
    DuplicateLine(f64),
    Insert(f64, String),
    DeleteSpan(f64, usize),
    Truncate(f64),
    SwapLines(f64, f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let fraction = 0.0f64..1.0;
    let snippet = prop::sample::select(vec![
        "\t", ":", " ", "- ", "\n", "{", "}", "[", "]", "'", "\"", "&a", "*a", "!!binary", "? ", "|", ">", "#", "%YAML 1.2\n", "---\n",
        "\u{0}", "\u{1b}[2J", "\u{feff}", "é", "99999999999999999999999", "-1", "~", "null", "true", ".nan", "<<: *a\n",
        "  extra: field\n", "rows:\n", "cases:\n", "disposition: refused\n", "schema: {\"$ref\": \"#\"}\n",
    ])
    .prop_map(str::to_owned);
    prop_oneof![
        fraction.clone().prop_map(Mutation::DeleteLine),
        fraction.clone().prop_map(Mutation::DuplicateLine),
        (fraction.clone(), snippet).prop_map(|(at, s)| Mutation::Insert(at, s)),
        (fraction.clone(), 1usize..200).prop_map(|(at, n)| Mutation::DeleteSpan(at, n)),
        fraction.clone().prop_map(Mutation::Truncate),
        (fraction.clone(), fraction).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
    ]
}

/// The char boundary nearest below `at` × the length.
fn boundary(text: &str, at: f64) -> usize {
    let mut i = ((text.len() as f64) * at) as usize;
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i.min(text.len())
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut text = text.to_owned();
    for m in mutations {
        let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
        let line = |at: f64, n: usize| ((n as f64) * at) as usize % n.max(1);
        match m {
            Mutation::DeleteLine(at) if !lines.is_empty() => {
                lines.remove(line(*at, lines.len()));
                text = lines.concat();
            }
            Mutation::DuplicateLine(at) if !lines.is_empty() => {
                let i = line(*at, lines.len());
                lines.insert(i, lines[i].clone());
                text = lines.concat();
            }
            Mutation::SwapLines(a, b) if !lines.is_empty() => {
                let (i, j) = (line(*a, lines.len()), line(*b, lines.len()));
                lines.swap(i, j);
                text = lines.concat();
            }
            Mutation::Insert(at, s) => {
                let i = boundary(&text, *at);
                text.insert_str(i, s);
            }
            Mutation::DeleteSpan(at, n) => {
                let i = boundary(&text, *at);
                let mut j = (i + n).min(text.len());
                while !text.is_char_boundary(j) {
                    j += 1;
                }
                text.replace_range(i..j, "");
            }
            Mutation::Truncate(at) => {
                let i = boundary(&text, *at);
                text.truncate(i);
            }
            _ => {}
        }
    }
    text
}

/// The texts mutated: every table and every own corpus file, with the name it is read under.
fn reader_seeds() -> Vec<(PathBuf, String)> {
    let root = trials::workspace_root();
    let mut seeds = Vec::new();
    for dir in ["dispositions", "corpus"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.expect("walk the project");
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") && entry.file_type().is_file() {
                let text = std::fs::read_to_string(path).expect("a project file is UTF-8 text");
                seeds.push((path.strip_prefix(&root).expect("inside the project").to_owned(), text));
            }
        }
    }
    seeds
}

/// What is wrong with the readers' answer to `text`, if anything.
fn reader_problem(relative: &Path, text: &str) -> Option<String> {
    let root = trials::workspace_root();
    let (relative, text, scratch) = (relative.to_owned(), text.to_owned(), std::env::temp_dir().join(format!("sf-fuzz-readers-{}", std::process::id())));
    answer_within(move || {
            let lines = text.lines().count() as u64 + 1;
            let in_file = |line: Option<u64>| line.is_none_or(|l| (1..=lines).contains(&l));
            if relative.starts_with("dispositions") {
                let (_, errors) = table::parse(&text, &relative, &root.join("dispositions"));
                for e in &errors {
                    if e.file != relative || e.message.trim().is_empty() || !in_file(e.line) {
                        return Err(format!("a table error that does not say where or what: {e:?}"));
                    }
                }
            } else {
                // The corpus reader reads from disk (through the input budget): a scratch copy
                // with the same name.
                let path = scratch.join(relative.file_name().expect("a file name"));
                std::fs::create_dir_all(&scratch).expect("scratch dir");
                std::fs::write(&path, &text).expect("scratch file");
                if let Err(e) = corpus::load_own_file("corpus/fuzzed", &path)
                    && (e.file != path || e.message.trim().is_empty() || !in_file(e.line))
                {
                    return Err(format!("a corpus error that does not say where or what: {e:?}"));
                }
            }
            Ok(())
    })
}

/// Run `read` in a thread of its own: its problem, a panic or no answer within [`TIMEOUT`].
fn answer_within(read: impl FnOnce() -> Result<(), String> + Send + 'static) -> Option<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)));
    });
    match rx.recv_timeout(TIMEOUT) {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(problem))) => Some(problem),
        Ok(Err(panic)) => {
            let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()));
            Some(format!("the reader panicked: {}", message.unwrap_or_default()))
        }
        Err(_) => Some(format!("the reader did not answer within {TIMEOUT:?}")),
    }
}

fn fuzz_readers(files: u32, command: &str) {
    let settings = Settings::from_env();
    if let Some(reason) = &settings.invalid {
        panic!("{reason}");
    }
    let seed = settings.seed.unwrap_or_else(|| witness::case_seed("fuzz-readers"));
    let seeds = reader_seeds();
    assert!(seeds.iter().any(|(p, _)| p.starts_with("dispositions")) && seeds.iter().any(|(p, _)| p.starts_with("corpus")), "tables and corpus files to mutate");
    let config = Config { cases: files, max_shrink_iters: 256, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, witness::rng(seed, "fuzz-readers"));
    let strategy = (0..seeds.len(), vec(mutation(), 1..6));
    let result = runner.run(&strategy, |(i, mutations)| {
        let (relative, text) = &seeds[i];
        match reader_problem(relative, &mutate(text, &mutations)) {
            None => Ok(()),
            Some(problem) => Err(TestCaseError::fail(format!("{}: {problem}", relative.display()))),
        }
    });
    let reproduce = format!("reproduce: {}={seed:#x} {COUNT_ENV}={files} {command}", witness::SEED_ENV);
    match result {
        Ok(()) => println!("{files} mutated tables and corpus files read without a panic, a hang or an error that does not say where"),
        Err(TestError::Fail(reason, (i, mutations))) => {
            let text = mutate(&seeds[i].1, &mutations);
            panic!("{reason}\nmutations (shrunk): {mutations:?}\ntext:\n{text}\n{reproduce}");
        }
        Err(TestError::Abort(reason)) => panic!("fuzzing aborted: {reason}"),
    }
}

#[test]
fn readers_survive_mutated_tables_and_corpus_files() {
    fuzz_readers(count(DEFAULT_FILES), "cargo test --test suite -- fuzz::readers_survive_mutated");
}

#[test]
fn the_reader_fuzzer_sees_a_panic_and_mutates_where_it_says() {
    assert_eq!(answer_within(|| panic!("boom")), Some("the reader panicked: boom".to_owned()));
    assert_eq!(answer_within(|| Err("no line".to_owned())), Some("no line".to_owned()));
    assert_eq!(mutate("a\nb\nc\n", &[Mutation::DeleteLine(0.5)]), "a\nc\n");
    assert_eq!(mutate("abc", &[Mutation::Insert(0.0, "x".to_owned())]), "xabc");
    // A truncated table is an error with a line, not a problem of the reader.
    assert_eq!(reader_problem(Path::new("dispositions/identity.yaml"), "rows: [\n"), None);
}
