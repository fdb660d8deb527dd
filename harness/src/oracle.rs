//! The oracle: one check of one translator on one case, against the translator's table.
//!
//! The steps, in order (each failure says which):
//!
//! 1. The case's source is meta-valid draft 2020-12 and compiles offline; its instances have the
//!    validity the case claims.
//! 2. Every keyword present has a row (*never silent*).
//! 3. The outcome agrees with the refused rows: refuse exactly when one applies, and cite one.
//! 4. The projection satisfies the translator's grammar and meta-validates against draft 2020-12
//!    (meta-schema plus an offline compile, which also checks `pattern` regexes).
//! 5. Differential check on the instances through the codec: a *narrowing witness* is a source-valid
//!    instance whose encoding the projection rejects; a *widening witness* is a source-invalid
//!    instance whose encoding the projection accepts and whose decoding the source still rejects.
//!    A `false` subschema that became `true`/`{}` is an *inversion*; witnesses in both directions
//!    that no pair of rows explains are a *contradiction*. Found directions must lie within the
//!    envelope, the join of the approximated rows present. Besides the case's instances, the
//!    [witness generator](crate::witness) draws instances from both sides for the directions the
//!    envelope does not allow; a witness it finds is shrunk and reported with its seed.
//! 6. Ratchet: a deviation covered by a row's `known_violation` is an expected failure.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

use schema_fidelity_translators::root;
use schema_fidelity_translators::walk::{self, Occurrence};
use schema_fidelity_translators::{Cites, Crash, Dialect, Outcome, Projection, Refusal, Translator};
use serde_json::Value;

use crate::attribution::{Bounds, ProjectionSide};
use crate::codec::{self, Way};
use crate::corpus::{Case, Origin};
use crate::deviation::{Direction, KnownViolation};
use crate::dialect;
use crate::grammar::{Offence, grammar_offences};
use crate::prover;
use crate::table::{Disposition, Row, Table, TargetRule};
use crate::validation::{Env, compile};
use crate::verdict::{Attribution, Evidence, Failure, FailureKind, Inversion, Summary, TrialEvidence, Verdict, Witness, shown};
use crate::witness;

struct Context<'a> {
    table: &'a Table,
    case: &'a Case,
    rows: Vec<(Occurrence<'a>, &'a Row)>,
    /// The target requires an object root and this source's root may accept a non-object: a
    /// projection (rather than a refusal) forced it.
    root_forced: bool,
}

impl Context<'_> {
    fn header(&self) -> String {
        let mut s = String::new();
        let line = self.case.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(s, "case: {} ({}{line})", self.case.id, self.case.file.display());
        let _ = writeln!(s, "table: {}", self.table.file.display());
        let mut seen = BTreeSet::new();
        for (occ, row) in &self.rows {
            if seen.insert(row.id.to_string()) {
                let at = if occ.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", occ.pointer) };
                let _ = writeln!(s, "  row {}: {} (at {at})", row.id, row.disposition.label());
            }
        }
        let _ = writeln!(s, "source schema: {}", self.case.schema);
        s
    }

    fn fail(&self, kind: FailureKind, what: &str) -> Verdict {
        Verdict::Fail(Failure { kind, message: format!("{what}\n{}", self.header()), witnesses: Vec::new() })
    }

    /// A refusal no refused row explains, or a projection that does not compile, leaves the tool
    /// unusable for this schema: nothing the source accepts gets through, a narrowing to nothing.
    /// A `known_violation` with direction `narrowing` on a row present (for a refusal: the row it
    /// cites, picked by `blamed`) marks it as expected, like any other deviation (the ratchet).
    fn unusable(&self, kind: FailureKind, what: &str, blamed: impl Fn(&Occurrence<'_>) -> bool) -> Verdict {
        let Verdict::Fail(failure) = self.fail(kind, what) else { unreachable!("Context::fail returns Verdict::Fail") };
        let known: Vec<(&Row, &KnownViolation)> =
            self.rows.iter().filter(|(o, _)| blamed(o)).filter_map(|(_, r)| r.mark_bounding(Direction::Narrowing).map(|k| (*r, k))).collect();
        let Some((first, mark)) = known.first() else { return Verdict::Fail(failure) };
        let message = format!("known violation reproduced (the schema cannot be used): {} ({}, narrowing)", first.mark_id(mark), mark.issue);
        let mut known: Vec<String> = known.iter().map(|(r, k)| r.mark_id(k)).collect();
        known.dedup();
        Verdict::ExpectedFailure { message, failure, known }
    }
}

impl Context<'_> {
    /// A crash: a failure, unless a `crash:` mark on the row of a keyword present matches its
    /// message (CONTRACT §7); then the expected failure of every such mark.
    fn crashed(&self, translator: &str, crash: &Crash) -> Verdict {
        let what = format!("translator `{translator}` threw on this schema (a crash, not a refusal), so the tool cannot be sent with it: {crash}");
        let Verdict::Fail(failure) = self.fail(FailureKind::Crashed(crash.message.clone()), &what) else { unreachable!("Context::fail returns Verdict::Fail") };
        let known: Vec<(&Row, &KnownViolation)> = self.rows.iter().filter_map(|(_, r)| r.mark_covering_crash(&crash.message).map(|k| (*r, k))).collect();
        let Some((first, mark)) = known.first() else { return Verdict::Fail(failure) };
        let message = format!("known violation reproduced (the translator crashes): {} ({}, crash)", first.mark_id(mark), mark.issue);
        let mut known: Vec<String> = known.iter().map(|(r, k)| r.mark_id(k)).collect();
        known.sort();
        known.dedup();
        Verdict::ExpectedFailure { message, failure, known }
    }

    /// A failure of a target rule the table marks (`target_violations`): the failure and the mark
    /// ids it reproduces when the mark covers every keyword it names (`None`: the rule as a
    /// whole), else the failure, naming what the mark does not cover.
    fn target_mark(&self, kind: FailureKind, what: &str, mark: &crate::table::TargetViolation, keywords: &[Option<&str>]) -> Result<(Failure, Vec<String>), Box<Verdict>> {
        let mut uncovered: Vec<&str> = keywords.iter().flatten().filter(|k| !mark.keywords.iter().any(|m| m == *k)).copied().collect();
        if !uncovered.is_empty() {
            uncovered.sort_unstable();
            uncovered.dedup();
            let more = format!("{what}\n(the `target_violations.{}` mark at line {} does not list {})", mark.rule.name(), mark.line, uncovered.join(", "));
            return Err(Box::new(self.fail(kind, &more)));
        }
        let Verdict::Fail(failure) = self.fail(kind, what) else { unreachable!("Context::fail returns Verdict::Fail") };
        let mut known: Vec<String> = keywords.iter().map(|k| mark.id(&self.table.file, *k)).collect();
        known.sort();
        known.dedup();
        Ok((failure, known))
    }
}

/// The verdict of a trial whose projection broke target rules under marks: expected failures
/// join, a pass becomes the marks' expected failure, a failure stays one (saying the marks too).
fn settle(verdict: Verdict, marked: Vec<(Failure, Vec<String>)>) -> Verdict {
    let Some((first, _)) = marked.first() else { return verdict };
    let mut known: Vec<String> = marked.iter().flat_map(|(_, k)| k.iter().cloned()).collect();
    let mut message = format!("known violation reproduced: the target's rules ({})", known.join(", "));
    let failure = first.clone();
    match verdict {
        Verdict::Pass(_) => {}
        Verdict::ExpectedFailure { message: m, known: k, .. } => {
            message = format!("{message}; {m}");
            known.extend(k);
        }
        Verdict::Fail(mut f) => {
            let _ = write!(f.message, "\n(also known: {message})");
            return Verdict::Fail(f);
        }
        Verdict::Skip(reason) => return Verdict::Skip(reason),
    }
    known.sort();
    known.dedup();
    Verdict::ExpectedFailure { message, failure, known }
}

/// The verdict of a trial with target-rule failures no mark covers: the first failure names the
/// kind, and every finding (the comparison's too) is in the message.
fn with_findings(verdict: Verdict, findings: Vec<Failure>) -> Verdict {
    let Some(first) = findings.first() else { return verdict };
    let mut failure = first.clone();
    for more in &findings[1..] {
        let _ = write!(failure.message, "\n\nalso: {}", more.message);
    }
    match verdict {
        Verdict::Fail(f) | Verdict::ExpectedFailure { failure: f, .. } => {
            let _ = write!(failure.message, "\n\nalso: {}", f.message);
            failure.witnesses = f.witnesses;
        }
        Verdict::Pass(summary) => failure.witnesses = summary.witnesses,
        Verdict::Skip(_) => {}
    }
    Verdict::Fail(failure)
}

/// Whether a grammar offence is the `$id` the harness gave a wrapped suite case (CONTRACT §8),
/// sent on by the translator: not the translator's doing.
fn harness_added(offence: &Offence, projection: &Value) -> bool {
    offence.keyword == "$id"
        && projection.pointer(&offence.at).and_then(|node| node.get("$id")).and_then(Value::as_str).is_some_and(|id| id.starts_with(crate::corpus::WRAPPED_ID_PREFIX))
}

/// A refusal citing a limit passes only when the table declares it (the target's `limits:` or the
/// translator's `bounds:`) with the value the refusal gives, and the source exceeds it by the
/// oracle's own count. A bound the oracle cannot count carries a `known_violation`: refusing on
/// it is a known narrowing.
fn limit_refusal(ctx: &Context<'_>, refusal: &Refusal, limit: &str, measured: u64, value: u64) -> Verdict {
    let table = ctx.table;
    let refused = || Verdict::Pass(Summary { refused: true, rows: row_ids(ctx), ..Summary::default() });
    let unexpected = |why: String| ctx.fail(FailureKind::UnexpectedRefusal(refusal.clone()), &format!("the translator {refusal}, but {why}"));
    let Some(declared) = table.limit(limit) else {
        return unexpected(format!("neither target `{}` (`limits:`) nor the table (`bounds:`) declares a limit `{limit}`", target_name(table)));
    };
    if declared.value != value {
        return unexpected(format!("`{limit}` is declared with the value {}, not {value}", declared.value));
    }
    if measured <= value {
        return unexpected(format!("its own count {measured} does not exceed {value}"));
    }
    if let Some(k) = &declared.known_violation {
        let id = format!("{} bound `{limit}`", table.file.display());
        let Verdict::Fail(failure) = ctx.fail(FailureKind::UnexpectedRefusal(refusal.clone()), &format!("the translator {refusal}: a bound the oracle cannot count"))
        else {
            unreachable!("Context::fail returns Verdict::Fail")
        };
        return Verdict::ExpectedFailure { message: format!("known violation reproduced: {id} ({}, narrowing)", k.issue), failure, known: vec![id] };
    }
    let counted = crate::measure::measure(&ctx.case.schema, declared.counts);
    if counted <= value {
        return ctx.fail(
            FailureKind::LimitNotExceeded { limit: limit.to_owned(), measured: counted, value },
            &format!("the translator {refusal}, but the source does not exceed it: {counted} ({}) where {value} is allowed", declared.counts),
        );
    }
    refused()
}

fn target_name(table: &Table) -> &str {
    table.target.as_ref().map_or("(none)", |t| t.name.as_str())
}

/// Run the oracle for `translator` (whose table is `table`) on `case`.
#[must_use]
pub fn check(table: &Table, translator: &dyn Translator, case: &Case, env: &Env) -> Verdict {
    judge(table, translator, case, env).verdict
}

/// What one run of the oracle saw: its verdict, what the translator answered (`None` when the
/// case stopped it before translation), so that views show the refusal or projection judged
/// without translating again, and the evidence per direction (`None` when no projection was
/// compared with its source).
#[derive(Debug, Clone)]
pub struct Judged {
    pub verdict: Verdict,
    pub outcome: Option<Outcome>,
    pub evidence: Option<TrialEvidence>,
}

/// [`check`], keeping the translator's answer and the evidence.
#[must_use]
pub fn judge(table: &Table, translator: &dyn Translator, case: &Case, env: &Env) -> Judged {
    let mut outcome = None;
    let mut evidence = None;
    let verdict = judge_into(table, translator, case, env, &mut outcome, &mut evidence);
    Judged { verdict, outcome, evidence }
}

fn judge_into(table: &Table, translator: &dyn Translator, case: &Case, env: &Env, answered: &mut Option<Outcome>, evidence: &mut Option<TrialEvidence>) -> Verdict {
    // 1. The case.
    let source = match compile(&case.schema, env, case.assert_formats) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("{}: the source schema of `{}` {e}", case.file.display(), case.id);
            return match case.origin {
                Origin::Own => Verdict::Fail(Failure { kind: FailureKind::BadCase, message, witnesses: Vec::new() }),
                Origin::Suite { .. } => Verdict::Skip(message),
            };
        }
    };
    for inst in &case.instances {
        let got = source.is_valid(&inst.data);
        if got != inst.valid {
            let message = format!(
                "{}: case `{}`, instance `{}` ({}) is expected {} but the source schema {} it",
                case.file.display(),
                case.id,
                inst.description,
                inst.data,
                if inst.valid { "valid" } else { "invalid" },
                if got { "accepts" } else { "rejects" },
            );
            return match case.origin {
                Origin::Own => Verdict::Fail(Failure { kind: FailureKind::BadCase, message, witnesses: Vec::new() }),
                Origin::Suite { .. } => Verdict::Skip(format!("the validator disagrees with the suite: {message}")),
            };
        }
    }

    // 2. Never silent.
    let occurrences = match walk::occurrences(&case.schema) {
        Ok(o) => o,
        Err(e) => return Verdict::Fail(Failure { kind: FailureKind::BadCase, message: e.to_string(), witnesses: Vec::new() }),
    };
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for occ in occurrences {
        match table.row(occ.keyword, occ.value, occ.at_root) {
            Ok(row) => rows.push((occ, row)),
            Err(m) => missing.push((occ.pointer.clone(), m)),
        }
    }
    let literal_object_root = case.schema.get("type") == Some(&Value::from("object"));
    let root_forced = table.requires_object_root && !literal_object_root && !root::accepts_only_objects(&case.schema);
    let ctx = Context { table, case, rows, root_forced };
    if !missing.is_empty() {
        let mut what = format!("never silent: {} has no row for", table.file.display());
        let mut names = Vec::new();
        for (pointer, m) in &missing {
            let at = if m.at_root { " on the root" } else { "" };
            let _ = write!(what, "\n  keyword `{}` (form `{}`{at}) at `{pointer}`", m.keyword, m.form.name());
            names.push(m.keyword.clone());
        }
        names.dedup();
        return ctx.fail(FailureKind::MissingRows(names), &what);
    }

    // 3. Refusals.
    // Under `requires_object_root`, a root that may accept a non-object must be refused (forcing
    // `type: object` onto it narrows, TRACKING.md#sf-1316); a root that plainly says `type: "object"`
    // must not be; one in between (an `allOf` with an object branch) may be refused or projected.
    let root_refused = ctx.root_forced;
    let root_may_be_refused = table.requires_object_root && case.schema.get("type") != Some(&Value::from("object"));
    let refused_rows: Vec<_> = ctx.rows.iter().filter(|(_, r)| r.disposition == Disposition::Refused).collect();
    let must_refuse = root_refused || !refused_rows.is_empty();
    // Translated twice: a translator must give the same answer to the same schema (CONTRACT §1),
    // and one that does not would make every other verdict here a matter of luck.
    let translate = || match catch_unwind(AssertUnwindSafe(|| translator.translate(&case.schema))) {
        Ok(o) => Ok(o),
        Err(panic) => Err(panic.downcast_ref::<&str>().map(|s| (*s).to_owned()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default()),
    };
    let outcome = match translate() {
        Ok(o) => o,
        Err(text) => return ctx.fail(FailureKind::Panicked, &format!("translator `{}` panicked: {text}", translator.name())),
    };
    *answered = Some(outcome.clone());
    // A fault is answered below, without asking again (a hung adapter would cost a second timeout).
    let again = match &outcome {
        Outcome::Faulted(_) => None,
        _ => match translate() {
            Ok(o) => Some(o),
            Err(text) => return ctx.fail(FailureKind::Panicked, &format!("translator `{}` panicked the second time it translated: {text}", translator.name())),
        },
    };
    if let Some(Outcome::Faulted(fault)) = &again {
        return ctx.fail(FailureKind::Fault(fault.message.clone()), &format!("translator `{}` faulted the second time it translated: {fault}", translator.name()));
    }
    if let Some(again) = again.filter(|again| *again != outcome) {
        let as_json = |o: &Outcome| serde_json::to_value(o).unwrap_or(Value::Null);
        let at = schema_fidelity_translators::equality::first_difference(&as_json(&outcome), &as_json(&again)).unwrap_or_default();
        return ctx.fail(
            FailureKind::Nondeterministic(at.clone()),
            &format!("translator `{}` is not deterministic: two translations of the same schema differ first at `{at}` of its answer", translator.name()),
        );
    }
    let projection = match outcome {
        Outcome::Refused(refusal) => {
            if let Cites::Limit { limit, measured, value } = &refusal.cites {
                return limit_refusal(&ctx, &refusal, limit, *measured, *value);
            }
            let (keyword, pointer) = (refusal.keyword(), refusal.pointer());
            // A boolean root has no keyword but itself: `true`/`false` cites the root.
            let cites_boolean_root = case.schema.as_bool().is_some_and(|b| keyword == b.to_string());
            let cites_root = root_may_be_refused && pointer.is_empty() && (keyword == "type" || case.schema.get(keyword).is_some() || cites_boolean_root);
            if !must_refuse && !cites_root {
                let what = format!("the translator {refusal}, but no row present is refused: a refusal must cite a refused row");
                let cited = |o: &Occurrence<'_>| o.keyword == keyword && o.pointer == pointer;
                return ctx.unusable(FailureKind::UnexpectedRefusal(refusal.clone()), &what, cited);
            }
            let cites_row = refused_rows.iter().any(|(o, _)| o.keyword == keyword && o.pointer == pointer);
            if cites_root || cites_row {
                return Verdict::Pass(Summary { refused: true, rows: row_ids(&ctx), ..Summary::default() });
            }
            // Refused for a keyword whose row does not refuse, although another row would have
            // justified a refusal: the citation is wrong, and a translator that refuses that
            // keyword conditionally (no row can say so) records it as for an unexpected refusal,
            // with a narrowing mark on the row it cites.
            let cited = |o: &Occurrence<'_>| o.keyword == keyword && o.pointer == pointer;
            return ctx.unusable(FailureKind::RefusalCitesWrongRow(refusal.clone()), &format!("the translator {refusal}, which is not where a refused row applies"), cited);
        }
        Outcome::Projected(p) => p,
        Outcome::Crashed(crash) => return ctx.crashed(translator.name(), &crash),
        Outcome::Faulted(fault) => {
            return ctx.fail(FailureKind::Fault(fault.message.clone()), &format!("translator `{}` faulted: {fault}", translator.name()));
        }
    };
    // Every check of the trial runs, and its findings are reported together: a target rule that
    // fails (marked or not) does not end the trial, and the projection is still lifted, compiled
    // and compared, so a meaning change beside a grammar failure is reported too.
    let mut marked: Vec<(Failure, Vec<String>)> = Vec::new();
    let mut findings: Vec<Failure> = Vec::new();
    let verdict = (|| {
        if must_refuse {
            let mut what = String::from("a refused row applies but the translator projected:");
            if root_refused {
                what.push_str("\n  the table requires an object root and the source root may accept a non-object");
            }
            for (o, r) in &refused_rows {
                let _ = write!(what, "\n  {} at `{}`", r.id, o.pointer);
            }
            let _ = write!(what, "\nprojection: {}", projection.schema);
            match table.target_violations.get(&TargetRule::ObjectRoot).filter(|_| refused_rows.is_empty()) {
                Some(mark) => match ctx.target_mark(FailureKind::MissingRefusal, &what, mark, &[None]) {
                    Ok(m) => marked.push(m),
                    Err(v) => findings.extend(v.failure().cloned()),
                },
                None => findings.extend(ctx.fail(FailureKind::MissingRefusal, &what).failure().cloned()),
            }
        }

        // 4. Grammar and meta-validation, under the rules of the surface the projection went to
        // (the table's target, its `alternate_target` when the answer is in that dialect, or the
        // target's non-strict surface when it was sent with `strict: false`).
        let Some(surface) = table.for_projection(projection.dialect, projection.strict) else {
            let alternate = table.alternate_target.as_deref().map_or_else(String::new, |t| format!(" (or `{}` of its alternate target `{}`)", t.dialect.name(), t.name));
            return ctx.fail(
                FailureKind::WrongDialect,
                &format!("the projection is in dialect `{}` but the table declares `{}`{alternate}", projection.dialect.name(), table.dialect.name()),
            );
        };
        let table: &Table = &surface;
        let mut grammar_marked = false;
        if let Some((path, grammar)) = &table.grammar {
            let offences = match grammar_offences(grammar, &projection.schema) {
                Ok(o) => o,
                Err(e) => return ctx.fail(FailureKind::Grammar, &e),
            };
            // What the harness itself added (the `$id` it gives a wrapped suite case) is never
            // blamed on the translator.
            let offences: Vec<Offence> = offences.into_iter().filter(|o| !harness_added(o, &projection.schema)).collect();
            if !offences.is_empty() {
                let shown: Vec<String> = offences.iter().map(|o| format!("  at `{}` (`{}`): {}", o.at, o.keyword, o.message)).collect();
                let what = format!("the projection breaks the grammar {} of target `{}`:\n{}\nprojection: {}", path.display(), target_name(table), shown.join("\n"), projection.schema);
                match table.target_violations.get(&TargetRule::Grammar) {
                    None => findings.extend(ctx.fail(FailureKind::Grammar, &what).failure().cloned()),
                    Some(mark) => {
                        let pairs: Vec<String> = offences.iter().map(Offence::pair).collect();
                        let keywords: Vec<Option<&str>> = pairs.iter().map(|p| Some(p.as_str())).collect();
                        match ctx.target_mark(FailureKind::Grammar, &what, mark, &keywords) {
                            Ok(m) => {
                                marked.push(m);
                                grammar_marked = true;
                            }
                            Err(v) => findings.extend(v.failure().cloned()),
                        }
                    }
                }
            }
        }
        let lifted = match projection.dialect {
            Dialect::JsonSchema => projection.schema.clone(),
            other => match dialect::lift(other, &projection.schema) {
                Ok(v) => v,
                // A projection that cannot be read in its dialect (a boolean where a Schema message
                // goes) breaks its grammar too: under a grammar mark that covered what the grammar
                // found, the provider's rejection is the known violation, and nothing past the
                // grammar can be judged.
                Err(_) if grammar_marked => return Verdict::Pass(Summary::default()),
                Err(e) => return ctx.fail(FailureKind::Grammar, &format!("cannot lift the projection from `{}`: {e}", other.name())),
            },
        };
        if let Some(cycle) = crate::recursion::forbidden_cycle(&lifted, table.recursion) {
            let what = format!(
                "the projection keeps a reference cycle target `{}` does not accept (`recursion: {}`): {cycle}\nprojection: {lifted}",
                target_name(table),
                table.recursion
            );
            match table.target_violations.get(&TargetRule::Recursion) {
                None => findings.extend(ctx.fail(FailureKind::Recursion(cycle.to_string()), &what).failure().cloned()),
                Some(mark) => match ctx.target_mark(FailureKind::Recursion(cycle.to_string()), &what, mark, &[None]) {
                    Ok(m) => marked.push(m),
                    Err(v) => findings.extend(v.failure().cloned()),
                },
            }
        }
        // The target's limits, measured on what would be sent.
        let exceeded: Vec<(&String, &crate::table::Limit, u64)> = table
            .limits
            .iter()
            .map(|(name, l)| (name, l, crate::measure::measure(&projection.schema, l.counts)))
            .filter(|(_, l, measured)| *measured > l.value)
            .collect();
        if !exceeded.is_empty() {
            let shown: Vec<String> = exceeded.iter().map(|(n, l, m)| format!("  `{n}`: {m} ({}) where target `{}` allows {}", l.counts, target_name(table), l.value)).collect();
            let what = format!("the projection exceeds its target's limits:\n{}\nprojection: {}", shown.join("\n"), projection.schema);
            let names: Vec<String> = exceeded.iter().map(|(n, _, _)| (*n).clone()).collect();
            match table.target_violations.get(&TargetRule::Limits) {
                None => findings.extend(ctx.fail(FailureKind::LimitExceeded(names), &what).failure().cloned()),
                Some(mark) => {
                    let keywords: Vec<Option<&str>> = names.iter().map(|n| Some(n.as_str())).collect();
                    match ctx.target_mark(FailureKind::LimitExceeded(names.clone()), &what, mark, &keywords) {
                        Ok(m) => marked.push(m),
                        Err(v) => findings.extend(v.failure().cloned()),
                    }
                }
            }
        }
        let compiled = match compile(&lifted, env, case.assert_formats) {
            Ok(v) => v,
            Err(e) => return ctx.unusable(FailureKind::InvalidProjection, &format!("the projection {e}\nprojection: {lifted}"), |_| true),
        };

        // 5. Differential check.
        differential(&ctx, &source, &compiled, &projection, &lifted, env, evidence)
    })();
    settle(with_findings(verdict, findings), marked)
}

fn differential(
    ctx: &Context<'_>,
    source: &jsonschema::Validator,
    compiled: &jsonschema::Validator,
    projection: &Projection,
    lifted: &Value,
    env: &Env,
    evidence: &mut Option<TrialEvidence>,
) -> Verdict {
    // What can be proven first: a proven direction needs no search, and where a proof stops the
    // search aims there.
    let proofs = prover::prove(&ctx.case.schema, lifted, &projection.codec, env.remotes.as_deref(), ctx.case.assert_formats);
    let implicit_true = ctx.table.row("true", &Value::Bool(true), false).ok();
    let mapper = codec::Mapper::new(&projection.codec, lifted);
    let side = ProjectionSide { validator: compiled, codec: &mapper, is_fallback: crate::attribution::is_fallback(lifted) };
    let mut bounds = Bounds::new(&ctx.case.schema, &ctx.rows, implicit_true, &ctx.table.rules, env, ctx.case.assert_formats).with_projection(side, source);
    if ctx.root_forced
        && let Some(mark) = ctx.table.target_violations.get(&TargetRule::ObjectRoot)
    {
        bounds = bounds.with_forced_object_root(mark.id(&ctx.table.file, None));
    }
    let mut witnesses = Vec::new();
    for inst in &ctx.case.instances {
        let encoded = mapper.apply(&inst.data, Way::Encode);
        let projection_accepts = compiled.is_valid(&encoded);
        if inst.valid {
            let back = mapper.apply(&encoded, Way::Decode);
            if back != inst.data {
                return round_trip(ctx, &inst.data, &encoded, &back, lifted);
            }
        }
        // A widening is judged on what the source side reads back, `decode(encode(x))`.
        let found = match (inst.valid, projection_accepts) {
            (true, false) => Some((Direction::Narrowing, inst.data.clone())),
            (false, true) => {
                let decoded = mapper.apply(&encoded, Way::Decode);
                (!source.is_valid(&decoded)).then_some((Direction::Widening, decoded))
            }
            _ => None,
        };
        if let Some((direction, instance)) = found {
            witnesses.push(Witness {
                direction,
                description: inst.description.clone(),
                instance,
                model_instance: encoded,
                source_accepts: inst.valid,
                projection_accepts,
                generated: false,
                attribution: Attribution::Unjudged,
                inversions: Vec::new(),
            });
        }
    }
    // Generated instances: both directions, until a witness nothing explains.
    let trial = format!("{}::{}", ctx.table.translator, ctx.case.id);
    let explains = |direction: Direction, x: &Value| bounds.judgement(direction, x);
    let sides = witness::Sides {
        trial: &trial,
        translator: &ctx.table.translator,
        case_id: &ctx.case.id,
        suite_case: matches!(ctx.case.origin, Origin::Suite { .. }),
        source_schema: &ctx.case.schema,
        source,
        projection_schema: lifted,
        projection: compiled,
        codec: &projection.codec,
        explains: &explains,
        proofs: Some(&proofs),
        decoded: proofs.decoded.as_ref(),
    };
    let generated = match witness::search(&env.witness, &sides) {
        Ok(g) => g,
        Err(witness::SearchError::Settings(e)) => return ctx.fail(FailureKind::WitnessSettings, &e),
        Err(witness::SearchError::OverBudget(e)) => return ctx.fail(FailureKind::OverBudget, &e),
    };
    if let Some(rt) = &generated.round_trip {
        return round_trip(ctx, &rt.instance, &rt.encoded, &rt.decoded, lifted);
    }
    let hand_written = witnesses.len();
    witnesses.extend(generated.witnesses);
    witnesses.extend(generated.marked);
    witnesses.extend(generated.explained);

    // Attribute every witness where it acts, and judge every widening for inversions.
    for w in &mut witnesses {
        w.attribution = bounds.judge(w.direction, &w.instance);
        if w.direction == Direction::Widening {
            w.inversions = bounds.inversions(&w.instance).into_iter().map(|(culprit, covered_by)| Inversion { culprit, covered_by }).collect();
        }
    }
    // Which rows explain each explained witness on their own (what the reports show per row).
    for w in witnesses.iter_mut().filter(|_| env.name_rows) {
        if let Attribution::Declared(rows) = &mut w.attribution {
            *rows = bounds.rows_explaining(w.direction, &w.instance);
        }
    }
    // The evidence per direction; a witness against a proof is a fault of the prover, never a
    // verdict on the translator.
    let has_witness = |d: Direction| witnesses.iter().any(|w| w.direction == d);
    let evidence_of = |d: Direction| match proofs.of(d) {
        _ if has_witness(d) => Evidence::Shown,
        prover::Proof::Proven => Evidence::Proven,
        prover::Proof::Unknown(why) => Evidence::Unknown(why.to_string()),
    };
    let within = |d: Direction| match proofs.of(d) {
        prover::Proof::Proven => true,
        prover::Proof::Unknown(_) => within_table(ctx, &bounds, proofs.decoded.as_ref(), d, env),
    };
    *evidence = Some(TrialEvidence {
        widening: evidence_of(Direction::Widening),
        narrowing: evidence_of(Direction::Narrowing),
        draws: generated.candidates,
        widening_within_table: within(Direction::Widening),
        narrowing_within_table: within(Direction::Narrowing),
    });
    if let Some(w) = witnesses.iter().find(|w| proofs.of(w.direction).is_proven()) {
        let what = format!(
            "the prover proved that no instance deviates by {}, yet this witness does (a fault of the prover, harness/src/prover/): {} -- source {}, projection {}\nprojection: {lifted}",
            w.direction,
            shown(&w.instance),
            if w.source_accepts { "accepts" } else { "rejects" },
            if w.projection_accepts { "accepts" } else { "rejects" }
        );
        return ctx.fail(FailureKind::ProofContradicted(w.direction), &what);
    }
    let syntactic = literal_inversions(&ctx.case.schema, lifted);
    let uncovered = |w: &&Witness| w.inversions.iter().any(|i| i.covered_by.is_none());
    let unexplained: Vec<&Witness> = witnesses.iter().filter(|w| matches!(w.attribution, Attribution::Unexplained(_)) || uncovered(w)).collect();
    // A literal `false` -> `true`/`{}` at the same place is an inversion whatever the witnesses;
    // it is covered only by a widening mark on the row of that occurrence.
    let syntactic_marks: Vec<&Row> = ctx
        .rows
        .iter()
        .filter(|(o, r)| o.keyword == "false" && syntactic.contains(&o.pointer) && r.mark_bounding(Direction::Widening).is_some())
        .map(|(_, r)| *r)
        .collect();
    let marked: Vec<&Witness> =
        witnesses.iter().filter(|w| !uncovered(w) && (matches!(w.attribution, Attribution::Marked(_)) || w.inversions.iter().any(|i| i.covered_by.is_some()))).collect();
    if unexplained.is_empty() && syntactic.is_empty() && marked.is_empty() {
        let found = witnesses.iter().map(|w| w.direction).collect();
        return Verdict::Pass(Summary { refused: false, found, rows: row_ids(ctx), witnesses, source_valid: generated.source_valid });
    }

    let culprits = |w: &Witness| {
        let mut c = match &w.attribution {
            Attribution::Unexplained(c) => c.clone(),
            _ => Vec::new(),
        };
        c.extend(w.inversions.iter().filter(|i| i.covered_by.is_none()).map(|i| i.culprit.clone()));
        c
    };
    let inverted = !syntactic.is_empty() || unexplained.iter().any(|w| culprits(w).iter().any(|c| c.inverted));
    // A contradiction: one occurrence that deviates both ways.
    let sites = |d: Direction| -> BTreeSet<(String, String)> {
        unexplained.iter().filter(|w| w.direction == d).flat_map(|w| culprits(w)).filter(|c| !c.keyword.is_empty()).map(|c| (c.node, c.keyword)).collect()
    };
    let both: BTreeSet<(String, String)> = sites(Direction::Widening).intersection(&sites(Direction::Narrowing)).cloned().collect();
    let contradicted = !both.is_empty();
    let found: BTreeSet<Direction> = unexplained.iter().map(|w| w.direction).collect();
    let mut blamed: Vec<(String, String)> = Vec::new();
    for w in &unexplained {
        for c in culprits(w) {
            let site = (c.node.clone(), if c.keyword.is_empty() { "(no keyword)".to_owned() } else { c.keyword.clone() });
            if !blamed.contains(&site) {
                blamed.push(site);
            }
        }
    }

    let mut what = String::new();
    if !syntactic.is_empty() {
        let places: Vec<String> = syntactic.iter().map(|p| place(p)).collect();
        let _ = writeln!(what, "never inverted: a `false` subschema became one that accepts everything at {}", places.join(", "));
    }
    if inverted && syntactic.is_empty() {
        let _ = writeln!(what, "never inverted: the projection accepts what a `false` subschema of the source rejects");
    }
    for (node, keyword) in &both {
        let _ = writeln!(what, "never contradicted: `{keyword}` at {} deviates both ways", place(node));
    }
    let unexplained_directions: Vec<&str> =
        unexplained.iter().filter(|w| matches!(w.attribution, Attribution::Unexplained(_))).map(|w| w.direction.name()).collect::<BTreeSet<_>>().into_iter().collect();
    if !unexplained_directions.is_empty() {
        let _ = writeln!(what, "the table is the oracle: {} that no row explains where it acts", unexplained_directions.join(" and "));
    }
    for w in &unexplained {
        describe_witness(&mut what, w, &bounds);
    }
    for w in &marked {
        describe_witness(&mut what, w, &bounds);
    }
    if let (Some(command), true) = (&generated.reproduce, witnesses[hand_written..].iter().any(|w| !matches!(w.attribution, Attribution::Declared(_)))) {
        let _ = writeln!(what, "  (generated witnesses are shrunk; reproduce with: {command})");
    }
    let _ = write!(what, "projection: {lifted}");
    let kind = FailureKind::Deviation { found: found.clone(), inverted, contradicted, blamed };
    let Verdict::Fail(mut failure) = ctx.fail(kind, what.trim_end()) else { unreachable!("Context::fail returns Verdict::Fail") };
    failure.witnesses = witnesses.clone();

    // 6. Ratchet: every deviation the table does not explain must be explained by marks, and only
    // the marks a witness is attributed to count as reproduced.
    let syntactic_covered = syntactic.iter().all(|p| syntactic_marks.iter().any(|r| ctx.rows.iter().any(|(o, row)| o.pointer == *p && row.id == r.id)));
    if unexplained.is_empty() && syntactic_covered {
        let all_rows = || ctx.rows.iter().map(|(_, r)| *r).chain(implicit_true).chain(ctx.table.rules.iter().map(|r| &r.row));
        let mut credited: Vec<(&Row, &KnownViolation)> = Vec::new();
        let mut credit = |row: &'_ Row, direction: Direction| {
            let Some(row) = all_rows().find(|r| r.id == row.id) else { return };
            // The mark of the witness's direction; under polarity, a mark of the other direction
            // can explain it too.
            let mark = row.mark_bounding(direction).or_else(|| row.marks.iter().find(|k| k.crash.is_none()));
            if let Some(k) = mark
                && !credited.iter().any(|(r, m)| r.id == row.id && *m == k)
            {
                credited.push((row, k));
            }
        };
        for w in &marked {
            if let Attribution::Marked(rows) = &w.attribution {
                for id in rows {
                    if let Some(row) = all_rows().find(|r| r.id.to_string() == *id) {
                        credit(row, w.direction);
                    }
                }
            }
            for id in w.inversions.iter().filter_map(|i| i.covered_by.as_ref()) {
                if let Some(row) = all_rows().find(|r| r.id.to_string() == *id) {
                    credit(row, Direction::Widening);
                }
            }
        }
        for r in &syntactic_marks {
            credit(r, Direction::Widening);
        }
        let mut message = String::from("known violation reproduced:");
        for (row, k) in &credited {
            let _ = write!(message, " {} ({}, {})", row.mark_id(k), k.issue, k.direction);
        }
        let known = credited.iter().map(|(row, k)| row.mark_id(k)).collect();
        return Verdict::ExpectedFailure { message, failure, known };
    }
    Verdict::Fail(failure)
}

/// Whether every deviation of `direction` is proven to be one the table's declared approximations
/// explain (see [`TrialEvidence::widening_within_table`]).
fn within_table(ctx: &Context<'_>, bounds: &Bounds<'_>, decoded: Option<&Value>, direction: Direction, env: &Env) -> bool {
    let Some(projection) = decoded else { return false };
    let bound = match bounds.declared_bound(direction) {
        crate::attribution::Declared::Everything => return true,
        crate::attribution::Declared::Schema(bound) => bound,
    };
    let (sub, sup) = match direction {
        Direction::Widening => (projection, &bound),
        Direction::Narrowing => (&bound, projection),
    };
    if !prover::included(sub, sup, env.remotes.as_deref(), ctx.case.assert_formats).is_proven() {
        return false;
    }
    // A widening the bound explains may still invert a `false` the bound loosened (CONTRACT §4
    // rule 2): only a bound that keeps every `false` and `not` of the source rules that out.
    direction == Direction::Narrowing
        || walk::occurrences(&ctx.case.schema).is_ok_and(|occurrences| {
            occurrences.iter().all(|o| match o.keyword {
                "false" => bound.pointer(&o.pointer) == Some(&Value::Bool(false)),
                "not" => bound.pointer(&o.pointer).and_then(|n| n.get("not")) == Some(o.value),
                _ => true,
            })
        })
}

fn round_trip(ctx: &Context<'_>, x: &Value, encoded: &Value, back: &Value, lifted: &Value) -> Verdict {
    ctx.fail(
        FailureKind::RoundTrip,
        &format!(
            "round trip: decode(encode(x)) != x\n  x = {}\n  encode(x) = {}\n  decode(encode(x)) = {}\nprojection: {lifted}",
            shown(x),
            shown(encoded),
            shown(back)
        ),
    )
}

fn place(node: &str) -> String {
    if node.is_empty() { "the root".to_owned() } else { format!("`{node}`") }
}

/// One witness with the occurrences it is pinned on and their rows.
fn describe_witness(what: &mut String, w: &Witness, bounds: &Bounds<'_>) {
    let verdicts = format!(
        "source {}, projection {}",
        if w.source_accepts { "accepts" } else { "rejects" },
        if w.projection_accepts { "accepts" } else { "rejects" }
    );
    let model = if w.model_instance == w.instance { String::new() } else { format!(" (model side {})", shown(&w.model_instance)) };
    let _ = writeln!(what, "  {} witness `{}`: {}{model} -- {verdicts}", w.direction, w.description, shown(&w.instance));
    match &w.attribution {
        Attribution::Unexplained(culprits) if culprits.is_empty() => {
            let _ = writeln!(what, "    (no single occurrence could be named: the deviation comes from the case as a whole)");
        }
        Attribution::Unexplained(culprits) => {
            for c in culprits {
                let at = if c.instance_at.is_empty() { "the instance".to_owned() } else { format!("`{}`", c.instance_at) };
                let row = bounds.row_at(&c.node, &c.keyword);
                let row_text = row.map_or_else(|| "no row here".to_owned(), |r| format!("{} ({}:{})", r.disposition.label(), r.id.file.display(), r.id.line));
                let line = match (w.direction, c.keyword.is_empty(), c.inverted) {
                    (_, true, _) => format!("the projection rejects {at}, where the source's node {} has no such keyword", place(&c.node)),
                    (Direction::Widening, false, true) => {
                        format!("`{}` at {} is `false` in the source and rejects {at}, yet the projection accepts it: an inversion ({row_text})", c.keyword, place(&c.node))
                    }
                    (Direction::Widening, false, false) => {
                        format!("`{}` at {} is {row_text}, yet the projection accepts {at}, which it rejects", c.keyword, place(&c.node))
                    }
                    (Direction::Narrowing, false, _) => {
                        format!("`{}` at {} is {row_text}, yet the projection rejects {at}, which the source accepts", c.keyword, place(&c.node))
                    }
                };
                let _ = writeln!(what, "    {line}");
            }
        }
        Attribution::Marked(rows) => {
            let _ = writeln!(what, "    explained only by the known violation of {}", rows.join(", "));
        }
        Attribution::Declared(_) | Attribution::Unjudged => {}
    }
    for i in &w.inversions {
        let c = &i.culprit;
        let at = if c.instance_at.is_empty() { "the instance".to_owned() } else { format!("`{}`", c.instance_at) };
        match &i.covered_by {
            None => {
                let _ = writeln!(what, "    an inversion: `{}` at {} is `false` in the source and rejects {at}, yet the projection accepts it (no mark on its row covers it)", c.keyword, place(&c.node));
            }
            Some(row) => {
                let _ = writeln!(what, "    an inversion at {} ({at}), covered by the known violation of {row}", place(&c.node));
            }
        }
    }
}

/// Pointers where the source holds `false` and the projection, at the same place, accepts
/// everything. (The pointers themselves: marks are matched on them.) A pointer through the
/// branches of `allOf`/`anyOf`/`oneOf` is not compared: an exact rewrite may reorder or drop
/// branches, so the same index need not be the same branch (the witnesses judge those).
fn literal_inversions(source: &Value, projection: &Value) -> Vec<String> {
    let Ok(occurrences) = walk::occurrences(source) else { return Vec::new() };
    let through_branches = |pointer: &str| {
        let tokens = schema_fidelity_translators::walk::tokens(pointer);
        tokens.windows(2).any(|w| matches!(w[0].as_str(), "allOf" | "anyOf" | "oneOf") && w[1].parse::<usize>().is_ok())
    };
    occurrences
        .iter()
        .filter(|o| o.keyword == "false" && !through_branches(&o.pointer))
        .filter(|o| matches!(projection.pointer(&o.pointer), Some(Value::Bool(true))) || projection.pointer(&o.pointer).is_some_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty)))
        .map(|o| o.pointer.clone())
        .collect()
}

fn row_ids(ctx: &Context<'_>) -> Vec<String> {
    let mut ids: Vec<String> = ctx.rows.iter().map(|(_, r)| r.id.to_string()).collect();
    ids.sort();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Instance;
    use schema_fidelity_translators::builtin::ObjectRoot;
    use std::path::{Path, PathBuf};
    use serde_json::json;

    /// A translator that answers with a fixed outcome, whatever the schema.
    struct Fixed(Outcome);

    impl Translator for Fixed {
        fn name(&self) -> &str {
            "object-root"
        }
        fn translate(&self, _: &Value) -> Outcome {
            self.0.clone()
        }
    }

    fn table() -> Table {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let path = root.join("dispositions/object-root.yaml");
        crate::table::load(&path, &path, &root.join("dispositions")).expect("the object-root table loads")
    }

    fn case(schema: Value, instances: &[(Value, bool)]) -> Case {
        Case {
            id: "inline::case".to_owned(),
            file: PathBuf::from("inline"),
            line: None,
            description: String::new(),
            issues: Vec::new(),
            schema,
            instances: instances.iter().map(|(data, valid)| Instance { description: String::new(), data: data.clone(), valid: *valid }).collect(),
            origin: Origin::Own,
            assert_formats: true,
        }
    }

    #[test]
    fn a_root_that_only_accepts_objects_may_be_forced() {
        let c = case(json!({"allOf": [{"type": "object", "required": ["a"]}]}), &[(json!({"a": 1}), true), (json!("a"), false)]);
        assert!(matches!(check(&table(), &ObjectRoot, &c, &Env::default()), Verdict::Pass(Summary { refused: false, .. })));
        // Refusing it, citing the missing `type`, is also within the rule.
        let refuse = Fixed(Outcome::Refused(Refusal::new("type", "", "no literal object type")));
        assert!(matches!(check(&table(), &refuse, &c, &Env::default()), Verdict::Pass(Summary { refused: true, .. })));
    }

    #[test]
    fn a_root_that_accepts_more_must_be_refused_citing_the_root() {
        let c = case(json!({"not": {"type": "string"}}), &[(json!({}), true), (json!(1), true), (json!("a"), false)]);
        let forced = Fixed(Outcome::json_schema(json!({"type": "object", "not": {"type": "string"}})));
        let verdict = check(&table(), &forced, &c, &Env::default());
        assert_eq!(verdict.failure().map(|f| f.kind.clone()), Some(FailureKind::MissingRefusal));
        assert!(matches!(check(&table(), &ObjectRoot, &c, &Env::default()), Verdict::Pass(Summary { refused: true, .. })));
        let elsewhere = Fixed(Outcome::Refused(Refusal::new("type", "/not", "wrong place")));
        assert!(matches!(check(&table(), &elsewhere, &c, &Env::default()).failure().map(|f| &f.kind), Some(FailureKind::RefusalCitesWrongRow(_))));
    }

    #[test]
    fn a_literal_object_root_may_not_be_refused_for_its_root() {
        let c = case(json!({"type": "object"}), &[(json!({}), true)]);
        let refuse = Fixed(Outcome::Refused(Refusal::new("type", "", "no")));
        assert!(matches!(check(&table(), &refuse, &c, &Env::default()).failure().map(|f| &f.kind), Some(FailureKind::UnexpectedRefusal(_))));
    }

    fn load(name: &str) -> Table {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let path = root.join(format!("dispositions/{name}.yaml"));
        crate::table::load(&path, &path, &root.join("dispositions")).expect("the table loads")
    }

    fn nested_objects(levels: usize) -> Value {
        let mut v = json!({"type": "string"});
        for i in (1..=levels).rev() {
            v = json!({"type": "object", "properties": {format!("l{i}"): v}, "required": [format!("l{i}")], "additionalProperties": false});
        }
        v
    }

    /// A translator that refuses every schema citing `limit:max-depth` fails on a small schema:
    /// the oracle counts the source itself.
    #[test]
    fn a_limit_refusal_passes_only_when_the_source_exceeds_the_limit() {
        let table = load("openai-strict");
        let small = case(json!({"type": "object", "properties": {"a": {"type": "string"}}}), &[(json!({"a": "x"}), true)]);
        let liar = Fixed(Outcome::Refused(Refusal::limit("max-depth", 11, 10, "too deep")));
        let verdict = check(&table, &liar, &small, &Env::default());
        assert_eq!(verdict.failure().map(|f| f.kind.clone()), Some(FailureKind::LimitNotExceeded { limit: "max-depth".to_owned(), measured: 1, value: 10 }));
        // The same refusal of a schema 11 object levels deep is right.
        let deep = case(nested_objects(11), &[]);
        assert!(matches!(check(&table, &liar, &deep, &Env::default()), Verdict::Pass(Summary { refused: true, .. })));
        // A wrong value, a count that does not exceed it, and a limit nobody declares all fail.
        for (refusal, says) in [
            (Refusal::limit("max-depth", 11, 5, "x"), "declared with the value 10, not 5"),
            (Refusal::limit("max-depth", 10, 10, "x"), "its own count 10 does not exceed 10"),
            (Refusal::limit("max-nesting", 200, 128, "x"), "declares a limit `max-nesting`"),
        ] {
            let verdict = check(&table, &Fixed(Outcome::Refused(refusal)), &deep, &Env::default());
            let failure = verdict.failure().expect("fails");
            assert!(matches!(failure.kind, FailureKind::UnexpectedRefusal(_)) && failure.message.contains(says), "{}", failure.message);
        }
    }

    /// A bound the oracle cannot count (openai-strict's merge budget) is a known narrowing, not a
    /// pass.
    #[test]
    fn a_bound_without_a_count_is_a_known_narrowing() {
        let table = load("openai-strict");
        let small = case(json!({"type": "object"}), &[(json!({}), true)]);
        let merge = Fixed(Outcome::Refused(Refusal::limit("merge-budget", 4097, 4096, "budget")));
        assert!(matches!(check(&table, &merge, &small, &Env::default()), Verdict::ExpectedFailure { .. }));
    }

    /// A projection over a limit of its target fails, whatever the translator's table says.
    #[test]
    fn a_projection_over_a_target_limit_fails() {
        let table = load("openai-strict");
        let schema = nested_objects(11);
        let c = case(schema.clone(), &[]);
        let sender = Fixed(Outcome::Projected(Projection { schema, dialect: Dialect::JsonSchema, codec: Default::default(), strict: Some(true) }));
        let verdict = check(&table, &sender, &c, &Env::default());
        assert_eq!(verdict.failure().map(|f| f.kind.clone()), Some(FailureKind::LimitExceeded(vec!["max-depth".to_owned()])));
    }

    /// Grammar errors are pinned on the projection keyword at fault, through the grammar's unions.
    #[test]
    fn grammar_offences_name_the_keyword_at_fault() {
        let table = load("openai-strict");
        let (_, grammar) = table.grammar.clone().expect("openai-strict has a grammar");
        let projection = json!({"type": "object", "$comment": "c", "properties": {"a": {"type": "string", "not": {"type": "integer"}}}, "required": ["a"], "additionalProperties": false});
        let offences = grammar_offences(&grammar, &projection).expect("compiles");
        let keywords: BTreeSet<&str> = offences.iter().map(|o| o.keyword.as_str()).collect();
        assert!(keywords.contains("$comment") && keywords.contains("not"), "{offences:?}");
        assert!(!keywords.contains("type") && !keywords.contains("properties"), "only what is at fault: {offences:?}");
    }

    /// A built-in table with `target_violations` marks added (grammar: `$comment`; object-root;
    /// recursion), so that these tests do not lean on an external translator's table.
    fn marked(name: &str) -> Table {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let path = root.join(format!("dispositions/{name}.yaml"));
        let text = std::fs::read_to_string(&path).expect("the table");
        let marks = "target_violations:\n  grammar: { issue: \"demo#1\", keywords: [\"$comment: not-allowed\"], witness: \"a comment\" }\n  object-root: { issue: \"demo#2\", witness: \"a loose root\" }\n  recursion: { issue: \"demo#3\", witness: \"a cycle\" }\nkeywords:\n";
        let text = text.replacen("keywords:\n", marks, 1);
        let (table, errors) = crate::table::parse(&text, Path::new(&format!("dispositions/{name}.yaml")), &root.join("dispositions"));
        assert!(errors.is_empty(), "{errors:?}");
        table.expect("parses")
    }

    /// A `target_violations` mark covers only the keywords it lists.
    #[test]
    fn a_grammar_mark_covers_only_its_keywords() {
        let table = marked("openai-strict");
        let c = case(json!({"type": "object", "properties": {"a": {"type": "string"}}}), &[(json!({"a": "x"}), true)]);
        let projection = |schema: Value| Fixed(Outcome::Projected(Projection { schema, dialect: Dialect::JsonSchema, codec: Default::default(), strict: Some(true) }));
        // `$comment` is listed in the mark: known.
        let listed = projection(json!({"type": "object", "$comment": "c", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}));
        assert!(matches!(check(&table, &listed, &c, &Env::default()), Verdict::ExpectedFailure { .. }));
        // `not` is not: a failure naming it.
        let unlisted = projection(json!({"type": "object", "properties": {"a": {"type": "string", "not": {"const": "y"}}}, "required": ["a"], "additionalProperties": false}));
        let verdict = check(&table, &unlisted, &c, &Env::default());
        let failure = verdict.failure().expect("fails");
        assert!(matches!(verdict, Verdict::Fail(_)) && failure.message.contains("does not list not: not-allowed"), "{}", failure.message);
    }

    fn sends(schema: Value) -> Fixed {
        Fixed(Outcome::Projected(Projection { schema, dialect: Dialect::JsonSchema, codec: Default::default(), strict: Some(true) }))
    }

    /// A marked target rule does not end the trial: a deviation the table does not explain still
    /// fails it.
    #[test]
    fn a_marked_grammar_violation_hides_no_deviation() {
        let table = marked("openai-strict");
        let c = case(json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}), &[(json!({"a": "x"}), true)]);
        let marked_only = sends(json!({"type": "object", "$comment": "c", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}));
        assert!(matches!(check(&table, &marked_only, &c, &Env::default()), Verdict::ExpectedFailure { .. }));
        let also_wrong = sends(json!({"type": "object", "$comment": "c", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}));
        let verdict = check(&table, &also_wrong, &c, &Env::default());
        let Verdict::Fail(failure) = &verdict else { panic!("the deviation is hidden: {verdict:?}") };
        assert!(matches!(failure.kind, FailureKind::Deviation { .. }) && failure.message.contains("also known"), "{}", failure.message);
    }

    /// The object-root and recursion rules of a target fail a projection, unless the table marks
    /// them.
    #[test]
    fn object_root_and_recursion_rules_fail_unless_marked() {
        let loose_root = case(json!({"properties": {"a": {"type": "string"}}, "required": ["a"]}), &[(json!({"a": "x"}), true), (json!(3), true)]);
        // Forced to an object (TRACKING.md#sf-1316): the narrowing to objects is the object-root rule's.
        let as_is = sends(json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}));
        let unmarked = check(&load("openai-strict"), &as_is, &loose_root, &Env::default());
        assert_eq!(unmarked.failure().map(|f| f.kind.clone()), Some(FailureKind::MissingRefusal));
        let known = check(&marked("openai-strict"), &as_is, &loose_root, &Env::default());
        assert!(matches!(known, Verdict::ExpectedFailure { .. }), "{known:?}");

        let cycle = json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/n"}}, "required": ["n"],
            "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}}});
        let c = case(cycle.clone(), &[]);
        let kept = Fixed(Outcome::json_schema(cycle));
        let unmarked = check(&load("gemini"), &kept, &c, &Env::default());
        assert!(matches!(unmarked.failure().map(|f| &f.kind), Some(FailureKind::Recursion(_))), "{unmarked:?}");
        let known = check(&marked("gemini"), &kept, &c, &Env::default());
        assert!(matches!(known, Verdict::ExpectedFailure { .. }), "{known:?}");
    }

    /// Under an object-root target a boolean root is refused citing itself.
    #[test]
    fn a_boolean_root_may_be_refused_citing_itself() {
        let c = case(json!(true), &[(json!({}), true)]);
        let refuse = Fixed(Outcome::Refused(Refusal::new("true", "", "a boolean root")));
        assert!(matches!(check(&table(), &refuse, &c, &Env::default()), Verdict::Pass(Summary { refused: true, .. })));
    }
}
