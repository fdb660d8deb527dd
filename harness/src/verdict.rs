//! The verdict vocabulary: what a trial of the oracle concludes, and the words its evidence is
//! given in.
//!
//! A [`Verdict`] passes (with a [`Summary`]), fails (with a [`Failure`] of a [`FailureKind`]),
//! reproduces a known violation, or skips. A [`Witness`] is an instance source and projection
//! disagree on; its deviation is attributed ([`Attribution`]) to the rows that explain it, or to
//! the occurrences it is pinned on ([`Culprit`]) when none does, and its rejections at a `false`
//! of the source are [`Inversion`]s. Per direction, a trial's [`Evidence`] is a proof, a witness,
//! or neither ([`TrialEvidence`]).
//!
//! How the witness search is to take a witness ([`Judgement`]) and how messages show an
//! instance ([`shown`]) are here too.
//!
//! The oracle ([`crate::oracle`]) writes these; the witness search ([`crate::witness`]), the
//! attribution ([`crate::attribution`]), the prover's messages, the records and the reports read
//! them. So they live here, below all of them: this module reads only the words of a deviation
//! ([`crate::deviation`]) and the translators' answers, none of the machinery that produces a
//! verdict.

use std::collections::BTreeSet;

use schema_fidelity_translators::Refusal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::deviation::Direction;

/// One witness instance: where source and projection disagree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Witness {
    pub direction: Direction,
    pub description: String,
    /// The source-side instance.
    pub instance: Value,
    /// What the model side sees (the encoding).
    pub model_instance: Value,
    pub source_accepts: bool,
    pub projection_accepts: bool,
    /// Drawn by the witness generator rather than written in the case: views prefer a case's own
    /// instances, which carry a description a person wrote.
    pub generated: bool,
    /// Which rows the deviation is attributed to, where it acts.
    pub attribution: Attribution,
    /// For a widening: the `false` subschemas of the source it is rejected at (inversions,
    /// judged whatever explains the rest).
    pub inversions: Vec<Inversion>,
}

/// A `false` subschema of the source a widening witness is rejected at (CONTRACT §4 rule 2): an
/// inversion, covered only by a widening mark on the row of that very occurrence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inversion {
    pub culprit: Culprit,
    /// The row whose widening mark covers it, if one does.
    pub covered_by: Option<String>,
}

/// Why a trial failed, with the operands a test can assert on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FailureKind {
    /// The case itself is broken (invalid schema, wrong expected validity).
    BadCase,
    /// Keywords with no row.
    MissingRows(Vec<String>),
    /// The translator panicked.
    Panicked,
    /// The translator gave no answer: an external adapter crashed, hung or broke the protocol.
    Fault(String),
    /// The translator refused although no refused row applies.
    UnexpectedRefusal(Refusal),
    /// A refused row applies but the translator projected.
    MissingRefusal,
    /// The refusal cites a keyword whose row is not refused.
    RefusalCitesWrongRow(Refusal),
    /// The projection breaks its dialect's grammar.
    Grammar,
    /// The projection holds a reference cycle the provider does not accept (`recursion:`).
    Recursion(String),
    /// The projection exceeds these limits of its target.
    LimitExceeded(Vec<String>),
    /// The refusal cites a limit the source does not exceed (the limit, the oracle's count of the
    /// source, the limit's value).
    LimitNotExceeded { limit: String, measured: u64, value: u64 },
    /// The projection is not a valid draft 2020-12 schema.
    InvalidProjection,
    /// The projection is in another dialect than the table declares.
    WrongDialect,
    /// decode(encode(x)) != x for a source-valid x.
    RoundTrip,
    /// Acceptance differs where no row allows it: the directions of the witnesses the table does
    /// not explain, whether one is an inversion (a `false` subschema accepting), whether one
    /// occurrence deviates both ways, and the occurrences blamed (`keyword` at `node`).
    Deviation { found: BTreeSet<Direction>, inverted: bool, contradicted: bool, blamed: Vec<(String, String)> },
    /// The witness generator's settings (environment variables) are invalid.
    WitnessSettings,
    /// The trial ran out of its time budget before it could answer: not a verdict on the
    /// translator, but not a pass either.
    OverBudget,
    /// Two translations of the same schema differ; the pointer (into the serialized answer) of
    /// the first difference.
    Nondeterministic(String),
    /// A witness deviates in a direction the prover proved it cannot: a fault of the harness's
    /// prover, reported so that no verdict ever rests on a wrong proof.
    ProofContradicted(Direction),
    /// The translator threw on the schema (an external adapter's `error` answer): the exception's
    /// message. The tool cannot be sent: a narrowing to nothing no row can declare.
    Crashed(String),
}

/// A failed trial: what failed and the full message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub witnesses: Vec<Witness>,
}

/// The verdict of one trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Verdict {
    Pass(Summary),
    Fail(Failure),
    /// A deviation covered by `known_violation` rows: reported, not failed.
    ExpectedFailure { message: String, failure: Failure, known: Vec<String> },
    /// Not checkable here, with the reason.
    Skip(String),
}

/// What a passing trial saw: the outcome and the deviations the table allowed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Summary {
    pub refused: bool,
    /// Of the generated source-side draws, how many the source accepted and how many were made
    /// (`None` when none were made: generation off, a suite case, or a projection equal to the
    /// source).
    pub source_valid: Option<(usize, usize)>,
    pub found: BTreeSet<Direction>,
    /// Rows involved, by id string (for coverage reports).
    pub rows: Vec<String>,
    pub witnesses: Vec<Witness>,
}

impl Verdict {
    #[must_use]
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Self::Fail(f) | Self::ExpectedFailure { failure: f, .. } => Some(f),
            _ => None,
        }
    }
}

/// How a witness is explained, as the witness search needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// The table's approximations (and declared rules) explain it.
    Declared,
    /// Only `known_violation` marks explain it; the value fingerprints which marks do, so that
    /// the search keeps a witness for each set of marks it meets and the ratchet credits every
    /// mark a witness needed (keeping only the first marked witness of a direction called a mark
    /// stale that a later witness could not do without).
    Marked(u64),
    /// Nothing explains it (or it inverts a `false` no mark covers).
    Unexplained,
}

/// What a witness's deviation is attributed to.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Attribution {
    /// Not judged yet (as the generator hands it over).
    Unjudged,
    /// The table's approximations explain it; the rows (and rules) that do on their own (empty
    /// when only several together do, or when they were not asked for).
    Declared(Vec<String>),
    /// Only `known_violation` marks explain it: the rows (or rules) carrying them.
    Marked(Vec<String>),
    /// Nothing in the table explains it; the occurrences it is pinned on.
    Unexplained(Vec<Culprit>),
}

/// One occurrence a deviation is pinned on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Culprit {
    /// The source schema node (JSON pointer).
    pub node: String,
    /// The keyword there (`false` for a boolean subschema; empty when the projection failed on a
    /// keyword the source does not have at that place).
    pub keyword: String,
    /// Where in the instance.
    pub instance_at: String,
    /// The source rejects there with a `false` subschema: a widening there is an inversion.
    pub inverted: bool,
    /// With no keyword named: the other source nodes that apply in place at that location (the
    /// node holding an `anyOf` or `$ref` the culprit's node is a branch or target of). A pinned
    /// mark on one of them stands where the projection's keyword does: the closing of a root
    /// typed `object` shows up at its `anyOf` branch, which holds no keyword that could carry it.
    pub also_at: Vec<String>,
}

impl Culprit {
    /// Whether an occurrence at `node` stands where this culprit is pinned: its own node, or,
    /// with no keyword named, a node applying in place at the same location.
    #[must_use]
    pub fn stands_at(&self, node: &str) -> bool {
        self.node == node || (self.keyword.is_empty() && self.also_at.iter().any(|n| n == node))
    }
}

/// What a trial knows about one direction of deviation (CONTRACT §5): a proof that no instance
/// deviates that way, a validated witness that one does, or neither. A row that declares the
/// direction is never evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Evidence {
    /// The prover showed that no instance deviates this way ([`crate::prover`]).
    Proven,
    /// A validated witness deviates this way (whatever explains it).
    Shown,
    /// Neither: the proof stopped (the reason says where and why) and no draw showed a witness.
    Unknown(String),
}

impl Evidence {
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Evidence::Proven => "proven",
            Evidence::Shown => "shown",
            Evidence::Unknown(_) => "unknown",
        }
    }
}

/// The evidence of one trial, per direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialEvidence {
    /// Whether the projection accepts something the source rejects.
    pub widening: Evidence,
    /// Whether the projection rejects something the source accepts.
    pub narrowing: Evidence,
    /// Generated candidates the witness search judged (the case's own instances aside).
    pub draws: usize,
    /// Whether every widening is proven to be one the table's declared approximations explain
    /// (none at all when the direction is proven): the projection inside the table's upper
    /// bound, and no `false` of the source loosened by it (so no widening can be an inversion).
    pub widening_within_table: bool,
    /// Whether every narrowing is proven to be one the declared approximations explain: the
    /// table's lower bound inside the projection.
    pub narrowing_within_table: bool,
}

impl TrialEvidence {
    /// The evidence of one direction.
    #[must_use]
    pub fn of(&self, direction: Direction) -> &Evidence {
        match direction {
            Direction::Widening => &self.widening,
            Direction::Narrowing => &self.narrowing,
        }
    }

    /// Proven both ways: the projection accepts exactly what the source accepts.
    #[must_use]
    pub fn exact(&self) -> bool {
        self.widening == Evidence::Proven && self.narrowing == Evidence::Proven
    }
}

/// An instance as messages show it: strings over 200 characters are cut to their first 40 and
/// the count of the rest (a `maxLength: 100000` witness is 100,001 characters long).
#[must_use]
pub fn shown(v: &Value) -> String {
    fn cut(v: &Value) -> Value {
        match v {
            Value::String(s) if s.chars().count() > 200 => {
                let head: String = s.chars().take(40).collect();
                Value::from(format!("{head}…[{} more characters]", s.chars().count() - 40))
            }
            Value::Array(items) => Value::Array(items.iter().map(cut).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), cut(v))).collect()),
            other => other.clone(),
        }
    }
    cut(v).to_string()
}
