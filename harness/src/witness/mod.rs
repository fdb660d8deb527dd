//! Witness generation: instances drawn from the source and from the projection, to find the
//! deviations no hand-written instance exposes.
//!
//! Hand-written instances find the deviations someone thought of. For every trial the oracle also
//! draws instances from both schemas ([`search`]):
//!
//! - from the **source**: instances it accepts (narrowing candidates: does the projection accept
//!   their encoding?) and near misses it just rejects (widening candidates: does the projection
//!   accept them, and the source still reject the decoding?);
//! - from the **projection**: instances it accepts (widening candidates: does the source accept
//!   their decoding?) and near misses (narrowing candidates).
//!
//! The generator ([`Plan`], then a [`draw`] per instance) is only a source of candidates. Every
//! candidate is judged by the real validators on both sides, so a gap in the generator costs
//! yield, never a false witness. A witness found is shrunk with proptest (see [`JsonTree`]) to the
//! smallest instance that still disagrees, and reported like a hand-written one, with the seed and
//! the one command that reproduces it.
//!
//! **Determinism.** The seed of a trial is derived from its case id, so every run draws the same
//! instances; [`SEED_ENV`] overrides it and [`DRAWS_ENV`] sets the number of draws per side (default
//! [`DEFAULT_DRAWS`]). The source-side draws of a case and their source verdicts do not depend on
//! the translator, so they are made once per case and shared by every translator's trial (the
//! [`Settings`] carry the cache); projection-side draws are seeded from the same seed and the
//! translator's name.
//!
//! **Scope.** Own-corpus cases get generated instances. JSON-Schema-Test-Suite cases do not by
//! default: they are about the validator more than about tool schemas, there are three times as
//! many of them, and `cargo test` is kept within seconds (BENCHMARKS.md has the cost); set
//! [`GENERATE_ENV`]`=all` to include them.
//!
//! **Both directions, until a witness the table does not explain.** Every deviation a draw shows is
//! handed to the attribution ([`crate::attribution`]); one the table explains where it acts is kept
//! (the first of each direction, for the reports) and the search goes on. It stops once each
//! direction has a witness the table does not explain, or the draws run out; projection-side
//! draws aim at the direction still missing (what the projection accepts can only widen, what it
//! rejects only narrow). Source-valid draws also check the codec's round trip.
//!
//! **Shortcut.** A projection equal to its source, with the identity codec, is compiled into the
//! same validator and can disagree on nothing: no draws are made for it.

mod dice;
mod draw;
mod focus;
mod plan;
mod shrink;
mod strings;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use proptest::strategy::{NewTree, Strategy};
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
use schema_fidelity_translators::Codec;
use serde_json::Value;

use crate::budget;
use crate::codec::{self, Way};
use crate::deviation::Direction;
use crate::verdict::Judgement;
use crate::verdict::Witness;

pub use plan::Plan;
pub use shrink::JsonTree;

/// Environment variable overriding the seed of every trial (decimal, or hex with `0x`).
pub const SEED_ENV: &str = "SCHEMA_FIDELITY_SEED";
/// Environment variable setting the number of draws per side of each trial.
pub const DRAWS_ENV: &str = "SCHEMA_FIDELITY_DRAWS";
/// Environment variable choosing which cases get generated instances: `own` (the default), `all`
/// (the JSON-Schema-Test-Suite too) or `none`.
pub const GENERATE_ENV: &str = "SCHEMA_FIDELITY_GENERATE";
/// Draws per side of a trial when [`DRAWS_ENV`] is not set.
pub const DEFAULT_DRAWS: usize = 256;

/// Which cases get generated instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    None,
    Own,
    All,
}

/// How witness generation runs, read from the environment once per run.
#[derive(Clone)]
pub struct Settings {
    /// Overrides the per-case seed.
    pub seed: Option<u64>,
    /// Draws per side of a trial.
    pub draws: usize,
    pub scope: Scope,
    /// An environment variable that could not be read, with the reason: trials fail with it
    /// rather than run with a seed the user did not ask for.
    pub invalid: Option<String>,
    /// How long one trial's search may take ([`budget::TRIAL_SECONDS`]).
    pub time_budget: Duration,
    cache: Arc<Cache>,
}

impl Settings {
    /// Read [`SEED_ENV`], [`DRAWS_ENV`] and [`GENERATE_ENV`].
    #[must_use]
    pub fn from_env() -> Self {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// Read [`SEED_ENV`], [`DRAWS_ENV`] and [`GENERATE_ENV`] through `var`.
    #[must_use]
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let mut settings = Self::fixed(None, DEFAULT_DRAWS);
        let mut problems = Vec::new();
        if let Some(text) = var(SEED_ENV) {
            match parse_seed(&text) {
                Some(seed) => settings.seed = Some(seed),
                None => problems.push(format!("{SEED_ENV}={text:?} is not a number (decimal, or hex with 0x)")),
            }
        }
        if let Some(text) = var(DRAWS_ENV) {
            match text.trim().parse() {
                Ok(draws) => settings.draws = draws,
                Err(_) => problems.push(format!("{DRAWS_ENV}={text:?} is not a count")),
            }
        }
        if let Some(text) = var(GENERATE_ENV) {
            match text.trim() {
                "own" => settings.scope = Scope::Own,
                "all" => settings.scope = Scope::All,
                "none" => settings.scope = Scope::None,
                _ => problems.push(format!("{GENERATE_ENV}={text:?} is not one of own, all, none")),
            }
        }
        settings.invalid = (!problems.is_empty()).then(|| problems.join("; "));
        settings
    }

    /// How these settings depart from the defaults the committed reports were made with (a
    /// seed, a number of draws, a scope other than the own corpus), or `None`. A run that departs
    /// draws other witnesses and judges other cases, so its reports cannot equal the committed
    /// ones and must not replace them.
    #[must_use]
    pub fn departure(&self) -> Option<String> {
        let mut set = Vec::new();
        if self.seed.is_some() {
            set.push(SEED_ENV.to_owned());
        }
        if self.draws != DEFAULT_DRAWS {
            set.push(format!("{DRAWS_ENV}={}", self.draws));
        }
        match self.scope {
            Scope::Own => {}
            Scope::All => set.push(format!("{GENERATE_ENV}=all")),
            Scope::None => set.push(format!("{GENERATE_ENV}=none")),
        }
        (!set.is_empty()).then(|| set.join(", "))
    }

    /// Settings that ignore the environment (for tests and benchmarks).
    #[must_use]
    pub fn fixed(seed: Option<u64>, draws: usize) -> Self {
        Self { seed, draws, scope: Scope::Own, invalid: None, time_budget: crate::budget::trial_time(), cache: Arc::default() }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self::from_env()
    }
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings").field("seed", &self.seed).field("draws", &self.draws).field("scope", &self.scope).field("invalid", &self.invalid).finish_non_exhaustive()
    }
}

fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Which kind of instance a draw aims at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    /// Instances the schema accepts.
    Valid,
    /// Instances the schema just rejects: one fault at one position.
    NearMiss,
}

impl Pool {
    fn name(self) -> &'static str {
        match self {
            Self::Valid => "valid draw",
            Self::NearMiss => "near miss",
        }
    }

    /// The pool of the `index`-th draw of a trial: even draws aim valid, odd ones near.
    #[must_use]
    pub fn of(index: usize) -> Self {
        if index.is_multiple_of(2) { Self::Valid } else { Self::NearMiss }
    }
}

/// Draw one instance from `plan`.
pub fn draw(plan: &Plan, rng: &mut TestRng, pool: Pool) -> Value {
    let mut dice = dice::Dice::from_rng(rng);
    let mut drawer = draw::Drawer::new(plan, &mut dice);
    match pool {
        Pool::Valid => drawer.valid_root(),
        Pool::NearMiss => drawer.miss_root(),
    }
}

/// The generator as a proptest strategy: instances of a schema (valid or near misses), shrinking
/// structurally. The oracle draws directly (it caches draws across translators); this is for
/// properties written with proptest.
#[derive(Debug, Clone)]
pub struct Instances {
    plan: Arc<Plan>,
    pool: Pool,
}

/// Instances of `schema` from `pool`, as a proptest strategy.
#[must_use]
pub fn instances(schema: &Value, pool: Pool) -> Instances {
    Instances { plan: Arc::new(Plan::new(schema)), pool }
}

impl Strategy for Instances {
    type Tree = JsonTree;
    type Value = Value;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        Ok(JsonTree::new(draw(&self.plan, runner.rng(), self.pool)))
    }
}

/// A deterministic RNG for one stream of draws.
#[must_use]
pub fn rng(seed: u64, stream: &str) -> TestRng {
    let mut state = seed ^ fnv1a(stream.as_bytes());
    let mut bytes = [0u8; 16];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    TestRng::from_seed(RngAlgorithm::XorShift, &bytes)
}

/// The RNG of a case's source-side draws (shared by every translator).
#[must_use]
pub fn source_stream(seed: u64) -> TestRng {
    rng(seed, "source")
}

/// The RNG of a trial's projection-side draws.
#[must_use]
pub fn projection_stream(seed: u64, translator: &str) -> TestRng {
    rng(seed, &format!("projection:{translator}"))
}

/// The default seed of a case: its id, hashed (FNV-1a, stable across Rust versions).
#[must_use]
pub fn case_seed(case_id: &str) -> u64 {
    fnv1a(case_id.as_bytes())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One source-side draw with the source's verdict.
#[derive(Debug)]
struct SourceDraw {
    instance: Value,
    accepted: bool,
}

#[derive(Debug)]
struct SourceDraws {
    schema: Value,
    draws: Vec<SourceDraw>,
}

/// A case's source-side draws, or the budget they ran out of.
type CachedDraws = Result<Arc<SourceDraws>, SearchError>;

/// Source-side draws per (case, seed, draws), shared by the trials of every translator.
#[derive(Default)]
struct Cache {
    entries: Mutex<HashMap<String, Arc<OnceLock<CachedDraws>>>>,
}

/// How the table explains a deviation where it acts: the direction, and the source-side instance
/// (for a widening, the decoding of the model-side instance).
pub type Explains<'a> = dyn Fn(Direction, &Value) -> Judgement + Sync + 'a;

/// What one trial hands to the search.
pub struct Sides<'a> {
    /// The trial name, `translator::case`.
    pub trial: &'a str,
    pub translator: &'a str,
    pub case_id: &'a str,
    /// Whether the case comes from the JSON-Schema-Test-Suite.
    pub suite_case: bool,
    pub source_schema: &'a Value,
    pub source: &'a jsonschema::Validator,
    /// The projection as draft 2020-12 (lifted from its dialect).
    pub projection_schema: &'a Value,
    pub projection: &'a jsonschema::Validator,
    pub codec: &'a Codec,
    /// The attribution ([`crate::attribution`]): a witness it explains does not end the search.
    pub explains: &'a Explains<'a>,
    /// What the prover settled ([`crate::prover`]): a proven direction is not searched (no
    /// instance can deviate that way), and where a proof stopped the search draws there too.
    pub proofs: Option<&'a crate::prover::Proofs>,
    /// The projection read through its codec, as source-side instances: the schema the prover's
    /// stops point into for the projection side.
    pub decoded: Option<&'a Value>,
}

/// A source-valid instance the codec does not bring back: `decode(encode(x)) != x`.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundTrip {
    pub instance: Value,
    pub encoded: Value,
    pub decoded: Value,
}

/// What a search found.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// At most one shrunk witness per direction that the table does not explain.
    pub witnesses: Vec<Witness>,
    /// At most one shrunk witness per direction that only `known_violation` marks explain (the
    /// search goes on past it, for one nothing explains).
    pub marked: Vec<Witness>,
    /// At most one shrunk witness per direction that the table explains (what an approximation
    /// looks like, for the reports).
    pub explained: Vec<Witness>,
    /// The first generated source-valid instance that does not survive the codec's round trip.
    pub round_trip: Option<RoundTrip>,
    /// Candidates judged (both sides).
    pub candidates: usize,
    /// Of the case's source-side draws, how many the source accepted, and how many were made (set
    /// when draws were made). None accepted means no generated instance checks for a narrowing:
    /// only the case's own valid instances do.
    pub source_valid: Option<(usize, usize)>,
    /// The seed the draws came from, and the command that reproduces the trial with it (set
    /// when draws were made).
    pub seed: Option<u64>,
    pub reproduce: Option<String>,
}

/// Found so far: the first witness of each direction, per judgement.
#[derive(Default)]
struct Finds {
    unexplained: Vec<(Direction, Value, String, Judgement)>,
    marked: Vec<(Direction, Value, String, Judgement)>,
    explained: Vec<(Direction, Value, String, Judgement)>,
    /// Directions the prover settled: none can deviate, none is searched.
    proven: Vec<Direction>,
}

impl Finds {
    fn wants(&self, d: Direction) -> bool {
        !self.proven.contains(&d) && !self.unexplained.iter().any(|(f, ..)| *f == d)
    }

    /// Whether any witness of direction `d` was found, whatever explains it.
    fn any(&self, d: Direction) -> bool {
        [&self.unexplained, &self.marked, &self.explained].iter().any(|list| list.iter().any(|(f, ..)| *f == d))
    }

    fn done(&self) -> bool {
        !self.wants(Direction::Widening) && !self.wants(Direction::Narrowing)
    }

    /// Record a deviation: `value` is what gets shrunk (source side for a narrowing, model side for
    /// a widening), `judgement` the attribution's answer.
    fn record(&mut self, d: Direction, value: Value, origin: String, judgement: Judgement) {
        let list = match judgement {
            Judgement::Declared => &mut self.explained,
            Judgement::Marked(_) => &mut self.marked,
            Judgement::Unexplained => &mut self.unexplained,
        };
        // One witness per direction, and for marked ones per set of marks (see Judgement::Marked).
        if !list.iter().any(|(f, _, _, j)| *f == d && *j == judgement) {
            list.push((d, value, origin, judgement));
        }
    }
}

/// Draw instances from both sides of `sides` and return, for each direction, a shrunk witness the
/// table does not explain, when the draws expose one. Both directions are always searched, and a
/// witness the table explains does not end the search for one it does not.
///
/// # Errors
/// Invalid settings from the environment, or the trial time budget exceeded.
pub fn search(settings: &Settings, sides: &Sides<'_>) -> Result<Found, SearchError> {
    if let Some(reason) = &settings.invalid {
        return Err(SearchError::Settings(format!("witness generation cannot run: {reason}")));
    }
    let in_scope = match settings.scope {
        Scope::None => false,
        Scope::Own => !sides.suite_case,
        Scope::All => true,
    };
    let identical = sides.codec.is_identity() && sides.source_schema == sides.projection_schema;
    let proven: Vec<Direction> = [Direction::Widening, Direction::Narrowing].into_iter().filter(|d| sides.proofs.is_some_and(|p| p.of(*d).is_proven())).collect();
    // Both directions proven and nothing to round-trip: no draw can show anything.
    let settled = proven.len() == 2 && sides.codec.is_identity();
    if settings.draws == 0 || !in_scope || identical || settled {
        return Ok(Found::default());
    }
    let seed = settings.seed.unwrap_or_else(|| case_seed(sides.case_id));
    let judge = Judge { sides, codec: codec::Mapper::new(sides.codec, sides.projection_schema) };
    let mut finds = Finds { proven, ..Finds::default() };
    let mut round_trip = None;
    let mut candidates = 0;
    let clock = Clock { started: Instant::now(), budget: settings.time_budget };

    let source_draws = source_draws(settings, sides, seed, &clock)?;
    for (i, d) in source_draws.draws.iter().enumerate() {
        // Source-valid draws also check the codec's round trip.
        if finds.done() && (sides.codec.is_identity() || round_trip.is_some()) {
            break;
        }
        clock.check(candidates)?;
        candidates += 1;
        let origin = || format!("source {} #{i}", Pool::of(i).name());
        if d.accepted {
            if round_trip.is_none() && !sides.codec.is_identity() {
                let encoded = judge.encode(&d.instance);
                let decoded = judge.decode(&encoded);
                if *decoded != d.instance {
                    round_trip = Some(RoundTrip { instance: d.instance.clone(), encoded: encoded.clone().into_owned(), decoded: decoded.into_owned() });
                }
            }
            if finds.wants(Direction::Narrowing) && judge.narrowing(&d.instance, Some(true)) {
                let explained = (sides.explains)(Direction::Narrowing, &d.instance);
                finds.record(Direction::Narrowing, d.instance.clone(), origin(), explained);
            }
        } else if finds.wants(Direction::Widening) {
            let model = judge.encode(&d.instance);
            if judge.widening(&model) {
                let explained = (sides.explains)(Direction::Widening, &judge.decode(&model));
                finds.record(Direction::Widening, model.into_owned(), origin(), explained);
            }
        }
    }

    if !finds.done() {
        let plan = Plan::new(sides.projection_schema).sweeping_from_the_middle();
        let mut rng = projection_stream(seed, sides.translator);
        for i in 0..settings.draws {
            if finds.done() {
                break;
            }
            clock.check(candidates)?;
            candidates += 1;
            // What the projection accepts can only widen, what it rejects only narrow: with one
            // direction left to find, every draw aims at it.
            let pool = match (finds.wants(Direction::Widening), finds.wants(Direction::Narrowing)) {
                (true, false) => Pool::Valid,
                (false, true) => Pool::NearMiss,
                _ => Pool::of(i),
            };
            let y = draw(&plan, &mut rng, pool);
            let origin = || format!("projection {} #{i}", pool.name());
            let projection_accepts = sides.projection.is_valid(&y);
            if projection_accepts && finds.wants(Direction::Widening) {
                let decoded = judge.decode(&y);
                if !sides.source.is_valid(&decoded) {
                    let explained = (sides.explains)(Direction::Widening, &decoded);
                    finds.record(Direction::Widening, y, origin(), explained);
                }
            } else if !projection_accepts && finds.wants(Direction::Narrowing) {
                let x = judge.decode(&y);
                // Through the identity codec the projection's verdict on encode(x) = y is known.
                let narrowing = if sides.codec.is_identity() { sides.source.is_valid(&x) } else { judge.narrowing(&x, None) };
                if narrowing {
                    let explained = (sides.explains)(Direction::Narrowing, &x);
                    finds.record(Direction::Narrowing, x.into_owned(), origin(), explained);
                }
            }
        }
    }

    // Where a proof stopped and nothing was found yet, draws aimed there before the direction
    // settles on unknown.
    aim(sides, &judge, &mut finds, seed, &clock, &mut candidates)?;

    let shrink_all = |list: Vec<(Direction, Value, String, Judgement)>| -> Result<Vec<Witness>, SearchError> {
        list.into_iter().map(|(direction, start, origin, judgement)| judge.shrunk(direction, start, &origin, seed, judgement, &clock)).collect()
    };
    let witnesses = shrink_all(finds.unexplained)?;
    let marked = shrink_all(finds.marked)?;
    let explained = shrink_all(finds.explained)?;
    let source_valid = Some((source_draws.draws.iter().filter(|d| d.accepted).count(), source_draws.draws.len()));
    Ok(Found { witnesses, marked, explained, round_trip, candidates, source_valid, seed: Some(seed), reproduce: Some(reproduce(settings, sides, seed)) })
}

/// The draws aimed where the prover's proof of a direction stopped ([`focus`]), for each direction
/// it did not prove and no draw has shown yet.
fn aim(sides: &Sides<'_>, judge: &Judge<'_, '_>, finds: &mut Finds, seed: u64, clock: &Clock, candidates: &mut usize) -> Result<(), SearchError> {
    let Some(proofs) = sides.proofs else { return Ok(()) };
    for direction in [Direction::Widening, Direction::Narrowing] {
        if finds.any(direction) || !finds.wants(direction) {
            continue;
        }
        // Widening: the projection (read through its codec) should be inside the source;
        // narrowing: the source inside the projection.
        let (included, including) = match direction {
            Direction::Widening => (sides.decoded, Some(sides.source_schema)),
            Direction::Narrowing => (Some(sides.source_schema), sides.decoded),
        };
        let (Some(included), Some(including)) = (included, including) else { continue };
        for (n, stop) in proofs.of(direction).stops().iter().take(focus::STOPS_PER_DIRECTION).enumerate() {
            if finds.any(direction) {
                break;
            }
            let mut aim = focus::Aim::new(stop, included, including);
            let mut rng = rng(seed, &format!("focus:{}:{direction}:{n}", sides.translator));
            for k in 0..focus::DRAWS_PER_STOP {
                clock.check(*candidates)?;
                *candidates += 1;
                let x = aim.candidate(k, &mut rng);
                let origin = || format!("aimed at {} #{k}", if stop.at().is_empty() { "the root".to_owned() } else { format!("`{}`", stop.at()) });
                match direction {
                    Direction::Widening => {
                        let y = judge.encode(&x).into_owned();
                        if judge.widening(&y) {
                            let explained = (sides.explains)(direction, &judge.decode(&y));
                            finds.record(direction, y, origin(), explained);
                            break;
                        }
                    }
                    Direction::Narrowing => {
                        if judge.narrowing(&x, None) {
                            let explained = (sides.explains)(direction, &x);
                            finds.record(direction, x, origin(), explained);
                            break;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// A trial's time budget ([`budget::TRIAL_SECONDS`]), checked before each draw.
struct Clock {
    started: Instant,
    budget: Duration,
}

/// Why a search gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// The witness settings from the environment are invalid.
    Settings(String),
    /// The trial time budget ran out.
    OverBudget(String),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Settings(m) | SearchError::OverBudget(m) => f.write_str(m),
        }
    }
}

impl Clock {
    /// Before each draw, the source side's included. (Every 16th draw, as it was, let a pattern
    /// whose every check takes a tenth of a second run seconds past the budget; reading the clock
    /// costs a fraction of the cheapest draw.)
    fn check(&self, draws: usize) -> Result<(), SearchError> {
        if self.started.elapsed() <= self.budget {
            return Ok(());
        }
        Err(self.over(&format!("after {draws} draws")))
    }

    fn over(&self, when: &str) -> SearchError {
        SearchError::OverBudget(format!(
            "the witness search exceeded the {} budget of {} s {when} (raise it with {}=N)",
            budget::TRIAL_SECONDS.name,
            self.budget.as_secs(),
            budget::TRIAL_SECONDS.env
        ))
    }
}

/// The one command that re-runs a trial with the same draws.
fn reproduce(settings: &Settings, sides: &Sides<'_>, seed: u64) -> String {
    let mut command = format!("{SEED_ENV}={seed:#x}");
    if settings.draws != DEFAULT_DRAWS {
        command.push_str(&format!(" {DRAWS_ENV}={}", settings.draws));
    }
    if sides.suite_case {
        command.push_str(&format!(" {GENERATE_ENV}=all"));
    }
    let quoted = sides.trial.replace('\'', r"'\''");
    command.push_str(&format!(" cargo test --test contract -- --exact '{quoted}'"));
    command
}

/// `draws` source-side draws from `seed`, each with the source's verdict, within the trial's
/// time budget.
fn draw_source(draws: usize, schema: &Value, source: &jsonschema::Validator, seed: u64, clock: &Clock) -> Result<Vec<SourceDraw>, SearchError> {
    let plan = Plan::new(schema);
    let mut rng = source_stream(seed);
    (0..draws)
        .map(|i| {
            clock.check(i)?;
            let instance = draw(&plan, &mut rng, Pool::of(i));
            let accepted = source.is_valid(&instance);
            Ok(SourceDraw { instance, accepted })
        })
        .collect()
}

/// The source-side draws of a case, made once and shared across translators (a search that ran
/// out of time making them is shared too: each trial would take as long).
fn source_draws(settings: &Settings, sides: &Sides<'_>, seed: u64, clock: &Clock) -> Result<Arc<SourceDraws>, SearchError> {
    let make = || draw_source(settings.draws, sides.source_schema, sides.source, seed, clock).map(|draws| Arc::new(SourceDraws { schema: sides.source_schema.clone(), draws }));
    let key = format!("{seed:x}:{}:{}", settings.draws, sides.case_id);
    let slot = {
        let mut entries = settings.cache.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.entry(key).or_default().clone()
    };
    let cached = slot.get_or_init(make).clone()?;
    // Two cases sharing an id (only possible outside the corpus) must not share draws.
    if &cached.schema == sides.source_schema { Ok(cached) } else { make() }
}

/// Verdicts on both sides, through the codec.
struct Judge<'s, 'a> {
    sides: &'s Sides<'a>,
    /// The projection's codec, prepared once for every instance of the search.
    codec: codec::Mapper<'a>,
}

impl Judge<'_, '_> {
    fn encode<'v>(&self, x: &'v Value) -> Cow<'v, Value> {
        if self.codec.is_identity() { Cow::Borrowed(x) } else { Cow::Owned(self.codec.apply(x, Way::Encode)) }
    }

    fn decode<'v>(&self, y: &'v Value) -> Cow<'v, Value> {
        if self.codec.is_identity() { Cow::Borrowed(y) } else { Cow::Owned(self.codec.apply(y, Way::Decode)) }
    }

    /// `x` (source side) is accepted by the source and its encoding rejected by the projection.
    /// `source_accepts` passes a verdict already known.
    fn narrowing(&self, x: &Value, source_accepts: Option<bool>) -> bool {
        source_accepts.unwrap_or_else(|| self.sides.source.is_valid(x)) && !self.sides.projection.is_valid(&self.encode(x))
    }

    /// `y` (model side) is accepted by the projection and its decoding rejected by the source.
    fn widening(&self, y: &Value) -> bool {
        self.sides.projection.is_valid(y) && !self.sides.source.is_valid(&self.decode(y))
    }

    /// Shrink a witness to the smallest instance that still deviates in `direction` and that the
    /// attribution still judges the same way (`judgement`), so an unexplained witness never
    /// shrinks into one the table explains, nor a marked one into one nothing explains.
    fn shrunk(&self, direction: Direction, start: Value, origin: &str, seed: u64, judgement: Judgement, clock: &Clock) -> Result<Witness, SearchError> {
        let explains = self.sides.explains;
        let explained = judgement == Judgement::Declared;
        // Each step is checked against the trial's time budget: once it is spent, every candidate
        // is taken as passing (the runner then stops quickly) and the trial fails naming it.
        let spent = std::cell::Cell::new(false);
        let in_time = || {
            spent.set(spent.get() || clock.started.elapsed() > clock.budget);
            !spent.get()
        };
        // A witness the table explains is an illustration, not a finding: it is kept as drawn.
        // Shrinking one costs as much as shrinking a finding, and almost every trial of a
        // translator that approximates has one.
        let (smallest, evaluated) = match (direction, explained) {
            (_, true) => (start.clone(), 0),
            (Direction::Narrowing, false) => shrink::shrink(start.clone(), |x| in_time() && self.narrowing(x, None) && explains(direction, x) == judgement),
            (Direction::Widening, false) => shrink::shrink(start.clone(), |y| in_time() && self.widening(y) && explains(direction, &self.decode(y)) == judgement),
        };
        if spent.get() {
            return Err(clock.over("while shrinking a witness"));
        }
        let mut from = start.to_string();
        if from.len() > 160 {
            let cut = (0..=160).rev().find(|i| from.is_char_boundary(*i)).unwrap_or(0);
            from.truncate(cut);
            from.push_str("...");
        }
        let description = if explained {
            format!("generated ({origin}, seed {seed:#x})")
        } else {
            format!("generated ({origin}, seed {seed:#x}), shrunk in {evaluated} steps from {from}")
        };
        Ok(match direction {
            Direction::Narrowing => Witness {
                direction,
                description,
                model_instance: self.encode(&smallest).into_owned(),
                instance: smallest,
                source_accepts: true,
                projection_accepts: false,
                generated: true,
                attribution: crate::verdict::Attribution::Unjudged,
                inversions: Vec::new(),
            },
            Direction::Widening => Witness {
                direction,
                description,
                instance: self.decode(&smallest).into_owned(),
                model_instance: smallest,
                source_accepts: false,
                projection_accepts: true,
                generated: true,
                attribution: crate::verdict::Attribution::Unjudged,
                inversions: Vec::new(),
            },
        })
    }
}
