//! The prover: whether a projection can deviate from its source at all, per direction.
//!
//! A witness shows a deviation; only a proof shows there is none. For each trial the prover tries
//! both inclusions between the source `S` and the projection `D` (lifted to draft 2020-12 and
//! read through its codec, [`codec::decoded`]):
//!
//! - `D ⊆ S`: every instance the projection accepts, the source accepts: **no widening**;
//! - `S ⊆ D`: every instance the source accepts, the projection accepts: **no narrowing**.
//!
//! Each is [`Proof::Proven`] or [`Proof::Unknown`] with the places the proof stopped
//! ([`inclusion::Stop`]: an instance path, the subschemas of both sides there, and why). A stop is
//! not a deviation: the witness search ([`crate::witness`]) takes it as where to look (values
//! built from the subschemas there, placed at that path), and only a validated witness says the
//! direction deviates. Some stops carry a value one side accepts and the other rejects there
//! ([`inclusion::Why::Value`]): a counterexample in place, which the search places in whole
//! instances and judges like any other draw.
//!
//! The prover is the project's own (no dependency): a structural inclusion over the two documents
//! ([`inclusion`]), sound by construction (the included side is only ever read more loosely, the
//! including side more strictly), with two exact shortcuts: a projection equal to its source
//! once annotations are set aside proves both directions, and equal subtrees that refer to nothing
//! are equal wherever they stand.

pub mod codec;
mod docs;
pub mod inclusion;

use std::time::{Duration, Instant};

use schema_fidelity_translators::{Codec, vocabulary, walk};
use serde_json::{Map, Value};

pub use inclusion::{Seg, Stop, Why};

/// What the prover found for one direction.
#[derive(Debug, Clone, PartialEq)]
pub enum Proof {
    /// No instance deviates in this direction.
    Proven,
    /// Not proven: where the proof stopped (at least one place), or why it could not start.
    Unknown(Unproven),
}

/// Why a direction is not proven.
#[derive(Debug, Clone, PartialEq)]
pub enum Unproven {
    /// The proof stopped at these places (at least one, the first first).
    Stopped(Vec<Stop>),
    /// The projection could not be read through its codec.
    Codec(String),
}

impl std::fmt::Display for Unproven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unproven::Stopped(stops) => {
                let shown: Vec<String> = stops
                    .iter()
                    .map(|stop| {
                        let at = stop.at();
                        format!(
                            "{} at {}",
                            stop.why,
                            if at.is_empty() {
                                "the root".to_owned()
                            } else {
                                format!("`{at}`")
                            }
                        )
                    })
                    .collect();
                f.write_str(&shown.join("; "))
            }
            Unproven::Codec(why) => write!(f, "the codec: {why}"),
        }
    }
}

impl Proof {
    #[must_use]
    pub fn is_proven(&self) -> bool {
        matches!(self, Proof::Proven)
    }

    /// Where the proof stopped first, if it did inside the schemas.
    #[must_use]
    pub fn stop(&self) -> Option<&Stop> {
        self.stops().first()
    }

    /// Every place the proof stopped.
    #[must_use]
    pub fn stops(&self) -> &[Stop] {
        match self {
            Proof::Unknown(Unproven::Stopped(s)) => s,
            _ => &[],
        }
    }
}

/// Both directions of one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct Proofs {
    /// `D ⊆ S`: the projection accepts nothing the source rejects.
    pub widening: Proof,
    /// `S ⊆ D`: the projection rejects nothing the source accepts.
    pub narrowing: Proof,
    /// How it was settled: [`How::Equal`] when the documents are equal once annotations are set
    /// aside, else [`How::Structural`].
    pub how: How,
    pub elapsed: Duration,
    /// The projection read through its codec (`None` when the codec could not be read): the
    /// schema the projection side's stops point into.
    pub decoded: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Equal,
    Structural,
}

impl Proofs {
    /// The proof of one direction (`Widening`: no widening).
    #[must_use]
    pub fn of(&self, direction: crate::deviation::Direction) -> &Proof {
        match direction {
            crate::deviation::Direction::Widening => &self.widening,
            crate::deviation::Direction::Narrowing => &self.narrowing,
        }
    }
}

/// Prove what can be proven about `source` against `projection` (draft 2020-12, lifted) through
/// `codec`. `formats`: whether `format` asserts (the case's setting).
#[must_use]
pub fn prove(
    source: &Value,
    projection: &Value,
    codec: &Codec,
    remotes: Option<&std::path::Path>,
    formats: bool,
) -> Proofs {
    let started = Instant::now();
    let decoded = match codec::decoded(projection, codec) {
        Ok(d) => d,
        Err(codec::Unsupported(why)) => {
            let unknown = || Proof::Unknown(Unproven::Codec(why.clone()));
            return Proofs {
                widening: unknown(),
                narrowing: unknown(),
                how: How::Structural,
                elapsed: started.elapsed(),
                decoded: None,
            };
        }
    };
    if canonical(source) == canonical(&decoded) {
        return Proofs {
            widening: Proof::Proven,
            narrowing: Proof::Proven,
            how: How::Equal,
            elapsed: started.elapsed(),
            decoded: Some(decoded),
        };
    }
    // Equal documents are equal under any meta-schema; anything else is read as draft 2020-12.
    if let Some(unread) = unread_dialect(source).or_else(|| unread_dialect(&decoded)) {
        return Proofs {
            widening: unread.clone(),
            narrowing: unread,
            how: How::Structural,
            elapsed: started.elapsed(),
            decoded: Some(decoded),
        };
    }
    let remotes = remotes.map(std::path::Path::to_path_buf);
    let s = docs::Doc::new(source, formats, remotes.clone());
    let d = docs::Doc::new(&decoded, formats, remotes);
    let widening = proof(inclusion::Prover::new(&d, &s, formats).prove());
    let narrowing = proof(inclusion::Prover::new(&s, &d, formats).prove());
    drop((s, d));
    Proofs {
        widening,
        narrowing,
        how: How::Structural,
        elapsed: started.elapsed(),
        decoded: Some(decoded),
    }
}

/// Whether every instance `sub` accepts, `sup` accepts (two schemas of source-side instances,
/// no codec between them): what a proof that the table explains every deviation of a direction
/// is made of (`sub` the projection and `sup` the table's upper bound, or `sub` its lower bound
/// and `sup` the projection).
#[must_use]
pub fn included(sub: &Value, sup: &Value, remotes: Option<&std::path::Path>, formats: bool) -> Proof {
    if canonical(sub) == canonical(sup) {
        return Proof::Proven;
    }
    if let Some(unread) = [sub, sup].into_iter().find_map(unread_dialect) {
        return unread;
    }
    let remotes = remotes.map(std::path::Path::to_path_buf);
    let b = docs::Doc::new(sub, formats, remotes.clone());
    let a = docs::Doc::new(sup, formats, remotes);
    proof(inclusion::Prover::new(&b, &a, formats).prove())
}

/// The projection as the prover reads it (through its codec), for the witness search to draw from
/// the same schema its stops point into; `None` when the codec is not read.
#[must_use]
pub fn decoded(projection: &Value, codec: &Codec) -> Option<Value> {
    codec::decoded(projection, codec).ok()
}

/// A document that names a meta-schema other than draft 2020-12 anywhere: its vocabularies may
/// switch keywords off (the suite's `vocabulary.json`), so no reading of it is sound but equality
/// with a document equal to it.
fn unread_dialect(schema: &Value) -> Option<Proof> {
    (crate::measure::measure(schema, crate::measure::Counts::ForeignMetaSchemas) > 0).then(|| {
        Proof::Unknown(Unproven::Stopped(vec![Stop {
            path: Vec::new(),
            trail: Vec::new(),
            included: Vec::new(),
            including: Vec::new(),
            why: Why::Unsupported("$schema".to_owned()),
        }]))
    })
}

fn proof(result: Result<(), Vec<Stop>>) -> Proof {
    match result {
        Ok(()) => Proof::Proven,
        Err(stops) => Proof::Unknown(Unproven::Stopped(stops)),
    }
}

/// A schema with what asserts nothing set aside: notes (annotations, comments, unknown keys:
/// [`vocabulary::is_note`]) removed from every schema node,
/// `type` as a sorted list, `required` sorted. Two documents equal this way accept the same
/// instances (every reference is a pointer into a document of the same shape).
fn canonical(schema: &Value) -> Value {
    fn node(v: &Value, depth: usize) -> Value {
        if depth > walk::MAX_DEPTH {
            return v.clone();
        }
        let mapped = walk::map_children(v, |child| Ok::<Value, ()>(node(child.schema, depth + 1)))
            .unwrap_or_else(|()| v.clone());
        let Value::Object(map) = mapped else {
            return mapped;
        };
        let mut out = Map::new();
        for (k, value) in map {
            let kept = match k.as_str() {
                k if vocabulary::is_note(k) => false,
                "type" => {
                    let mut names: Vec<Value> = match &value {
                        Value::String(_) => vec![value.clone()],
                        Value::Array(list) => list.clone(),
                        _ => vec![value.clone()],
                    };
                    names.sort_by_key(ToString::to_string);
                    names.dedup();
                    out.insert(k, Value::Array(names));
                    continue;
                }
                "required" => {
                    let mut names = value.as_array().cloned().unwrap_or_default();
                    names.sort_by_key(ToString::to_string);
                    names.dedup();
                    out.insert(k, Value::Array(names));
                    continue;
                }
                _ => true,
            };
            if kept {
                out.insert(k, value);
            }
        }
        Value::Object(out)
    }
    node(schema, 0)
}

#[cfg(test)]
mod tests;
