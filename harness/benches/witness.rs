//! Witness checks per second against raw validation, on the same instances.
//!
//! For every corpus case (own cases and, when present, the JSON-Schema-Test-Suite), the projection
//! is the source rewritten without changing its meaning (a `$comment` on every node), so that no
//! witness ends the search early and every trial makes all its draws. Three numbers:
//!
//! - **harness, first translator**: `witness::search` with an empty cache: compile the generator
//!   plans, draw, judge every candidate on both sides through the codec;
//! - **harness, next translators**: the same with the case's source draws cached (what every
//!   translator after the first pays);
//! - **raw**: `is_valid` of the source and of the projection on exactly the instances the harness
//!   drew, and nothing else.
//!
//! ```sh
//! cargo bench -p schema-fidelity --bench witness                 # release, as in BENCHMARKS.md
//! cargo bench -p schema-fidelity --bench witness -- --draws 1024 --own
//! cargo bench -p schema-fidelity --bench witness -- --own --slowest  # and the costliest cases
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use schema_fidelity::corpus::{Case, Origin};
use schema_fidelity::deviation::Direction;
use schema_fidelity::project::Project;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::trials;
use schema_fidelity::validation::{self, Env};
use schema_fidelity::verdict::Judgement;
use schema_fidelity::witness::{self, Plan, Pool, Scope, Settings, Sides};
use schema_fidelity_translators::{Codec, walk};
use serde_json::{Value, json};

const TRANSLATOR: &str = "bench";
/// Each measure is taken this many times; the fastest counts.
const ROUNDS: usize = 7;

struct Prepared<'a> {
    case: &'a Case,
    source: jsonschema::Validator,
    projection_schema: Value,
    projection: jsonschema::Validator,
}

fn commented(schema: &Value) -> Value {
    let mapped = walk::map_children(schema, |c| Ok::<_, ()>(commented(c.schema))).unwrap_or_else(|()| schema.clone());
    match mapped {
        Value::Object(mut map) => {
            map.insert("$comment".to_owned(), json!("rewritten"));
            Value::Object(map)
        }
        other => other,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let draws = args.iter().position(|a| a == "--draws").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok()).unwrap_or(witness::DEFAULT_DRAWS);
    let own_only = args.iter().any(|a| a == "--own");
    let loaded = session::load(Project::at(trials::workspace_root()), &Selection::All);
    let env = Env { remotes: loaded.env.remotes.clone(), ..Env::default() };
    let mut prepared = Vec::new();
    for case in &loaded.cases {
        if own_only && case.origin != Origin::Own {
            continue;
        }
        let Ok(source) = validation::compile(&case.schema, &env, case.assert_formats) else { continue };
        // The oracle skips suite cases the validator disagrees with; so does the benchmark.
        if case.instances.iter().any(|i| source.is_valid(&i.data) != i.valid) {
            continue;
        }
        let projection_schema = commented(&case.schema);
        // A boolean root cannot carry a comment: its "rewrite" is the source, which the search
        // skips (nothing can disagree), so the raw pass must not count it either.
        if projection_schema == case.schema {
            continue;
        }
        let Ok(projection) = validation::compile(&projection_schema, &env, case.assert_formats) else { continue };
        prepared.push(Prepared { case, source, projection_schema, projection });
    }
    // An equivalent rewrite has no deviation to attribute: the attribution is never asked.
    let explains = |_: Direction, _: &Value| Judgement::Unexplained;
    let codec = Codec::Identity;
    let trial_names: Vec<String> = prepared.iter().map(|p| format!("{TRANSLATOR}::{}", p.case.id)).collect();
    let sides: Vec<Sides<'_>> = prepared
        .iter()
        .zip(&trial_names)
        .map(|(p, trial)| Sides {
            trial,
            translator: TRANSLATOR,
            case_id: &p.case.id,
            suite_case: p.case.origin != Origin::Own,
            source_schema: &p.case.schema,
            source: &p.source,
            projection_schema: &p.projection_schema,
            projection: &p.projection,
            codec: &codec,
            explains: &explains,
            // The search loop alone: no proof settles a direction here.
            proofs: None,
            decoded: None,
        })
        .collect();

    // The raw pass validates exactly the instances the harness draws: draw them once, here.
    let mut instances: Vec<(&Prepared<'_>, Vec<Value>)> = Vec::new();
    for p in &prepared {
        let seed = witness::case_seed(&p.case.id);
        let mut drawn = Vec::with_capacity(2 * draws);
        let plan = Plan::new(&p.case.schema);
        let mut rng = witness::source_stream(seed);
        drawn.extend((0..draws).map(|i| witness::draw(&plan, &mut rng, Pool::of(i))));
        let plan = Plan::new(&p.projection_schema);
        let mut rng = witness::projection_stream(seed, TRANSLATOR);
        drawn.extend((0..draws).map(|i| witness::draw(&plan, &mut rng, Pool::of(i))));
        instances.push((p, drawn));
    }
    let raw_count: usize = instances.iter().map(|(_, v)| v.len()).sum();

    // Rounds, keeping the fastest time of each measure: the machine is shared, and the fastest
    // round is the one least disturbed.
    let (mut cold, mut warm, mut raw, mut draw_only, mut plans) = (Duration::MAX, Duration::MAX, Duration::MAX, Duration::MAX, Duration::MAX);
    let mut candidates = 0;
    for _ in 0..ROUNDS {
        let mut settings = Settings::fixed(None, draws);
        settings.scope = Scope::All;
        let started = Instant::now();
        candidates = 0;
        let mut found = 0;
        for s in &sides {
            let result = witness::search(&settings, s).expect("settings are valid");
            candidates += result.candidates;
            found += result.witnesses.len();
        }
        cold = cold.min(started.elapsed());
        assert_eq!(found, 0, "an equivalent rewrite has no witness; the generator reported {found}");
        let started = Instant::now();
        for s in &sides {
            black_box(witness::search(&settings, s).expect("settings are valid"));
        }
        warm = warm.min(started.elapsed());
        drop(settings);

        let started = Instant::now();
        for (p, drawn) in &instances {
            for x in drawn {
                black_box(p.source.is_valid(x));
                black_box(p.projection.is_valid(x));
            }
        }
        raw = raw.min(started.elapsed());

        let started = Instant::now();
        for p in &prepared {
            let plan = Plan::new(&p.case.schema);
            let mut rng = witness::source_stream(witness::case_seed(&p.case.id));
            for i in 0..draws {
                black_box(witness::draw(&plan, &mut rng, Pool::of(i)));
            }
        }
        draw_only = draw_only.min(started.elapsed());

        let started = Instant::now();
        for p in &prepared {
            black_box(Plan::new(&p.case.schema));
        }
        plans = plans.min(started.elapsed());
    }
    assert_eq!(raw_count, candidates, "the raw pass validates exactly the harness's candidates");

    if args.iter().any(|a| a == "--slowest") {
        // Where the time goes: the first-translator search per case against raw validation of
        // that case's instances, the ten worst ratios.
        let mut rows: Vec<(f64, Duration, Duration, &str)> = Vec::new();
        for (s, (p, drawn)) in sides.iter().zip(&instances) {
            let (mut harness, mut raw) = (Duration::MAX, Duration::MAX);
            for _ in 0..ROUNDS {
                let mut settings = Settings::fixed(None, draws);
                settings.scope = Scope::All;
                let started = Instant::now();
                black_box(witness::search(&settings, s).expect("settings are valid"));
                harness = harness.min(started.elapsed());
                let started = Instant::now();
                for x in drawn {
                    black_box(p.source.is_valid(x));
                    black_box(p.projection.is_valid(x));
                }
                raw = raw.min(started.elapsed());
            }
            rows.push((harness.as_secs_f64() / raw.as_secs_f64(), harness, raw, &p.case.id));
        }
        rows.sort_by_key(|r| std::cmp::Reverse(r.1.saturating_sub(r.2)));
        println!("cases costing the most over raw validation (first translator):");
        for (ratio, harness, raw, id) in rows.iter().take(15) {
            println!("  {:>8.3} ms harness {:>8.3} ms raw  ({ratio:>5.1}x)  {id}", harness.as_secs_f64() * 1e3, raw.as_secs_f64() * 1e3);
        }
    }

    let per_second = |d: Duration| candidates as f64 / d.as_secs_f64();
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    println!("witness benchmark ({profile}, fastest of {ROUNDS} rounds): {} cases, {draws} draws per side, {candidates} candidates", prepared.len());
    println!("  harness, first translator: {:>9.0} checks/s  ({:.3} s, {:.2} ms per trial)", per_second(cold), cold.as_secs_f64(), cold.as_secs_f64() * 1e3 / prepared.len() as f64);
    println!("  harness, next translators: {:>9.0} checks/s  ({:.3} s, {:.2} ms per trial)", per_second(warm), warm.as_secs_f64(), warm.as_secs_f64() * 1e3 / prepared.len() as f64);
    println!("  raw is_valid, both sides:  {:>9.0} checks/s  ({:.3} s)", per_second(raw), raw.as_secs_f64());
    println!("  drawing alone (source side, plans included): {:.3} s, of which plans {:.3} s", draw_only.as_secs_f64(), plans.as_secs_f64());
    println!("  ratio harness/raw: first translator {:.2}, next translators {:.2}", cold.as_secs_f64() / raw.as_secs_f64(), warm.as_secs_f64() / raw.as_secs_f64());
}
