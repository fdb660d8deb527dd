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
use std::path::PathBuf;

use schema_fidelity_translators::root;
use schema_fidelity_translators::walk::{self, Occurrence};
use schema_fidelity_translators::{Dialect, Outcome, Projection, Refusal, Translator};
use serde_json::Value;

use crate::codec::{self, Way};
use crate::corpus::{Case, Origin};
use crate::dialect;
use crate::retrieve::LocalRetriever;
use crate::table::{Direction, Disposition, Row, Table};
use crate::witness;

/// What the oracle needs besides the table and the case.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// The suite's `remotes/` directory, served as `http://localhost:1234/`.
    pub remotes: Option<PathBuf>,
    /// Witness generation: seed, draws, scope, and the source draws shared across translators.
    pub witness: witness::Settings,
}

/// Build a draft 2020-12 validator offline, after meta-validation.
///
/// # Errors
/// A sentence saying why the schema is not a valid draft 2020-12 schema here.
pub fn compile(schema: &Value, env: &Env, assert_formats: bool) -> Result<jsonschema::Validator, String> {
    walk::check_depth(schema).map_err(|e| e.to_string())?;
    jsonschema::draft202012::meta::validate(schema).map_err(|e| format!("not meta-valid draft 2020-12: {e} (at `{}`)", e.instance_path()))?;
    jsonschema::draft202012::options()
        .should_validate_formats(assert_formats)
        .with_retriever(LocalRetriever::new(env.remotes.clone()))
        .build(schema)
        .map_err(|e| format!("does not compile: {e}"))
}

/// One witness instance: where source and projection disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Witness {
    pub direction: Direction,
    pub description: String,
    /// The source-side instance.
    pub instance: Value,
    /// What the model side sees (the encoding).
    pub model_instance: Value,
    pub source_accepts: bool,
    pub projection_accepts: bool,
}

/// Why a trial failed, with the operands a test can assert on.
#[derive(Debug, Clone, PartialEq)]
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
    /// The projection is not a valid draft 2020-12 schema.
    InvalidProjection,
    /// The projection is in another dialect than the table declares.
    WrongDialect,
    /// decode(encode(x)) != x for a source-valid x.
    RoundTrip,
    /// Acceptance differs beyond what the rows allow.
    Deviation { found: BTreeSet<Direction>, inverted: bool, contradicted: bool },
    /// The witness generator's settings (environment variables) are invalid.
    WitnessSettings,
}

/// A failed trial: what failed and the full message.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub witnesses: Vec<Witness>,
}

/// The verdict of one trial.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Pass(Summary),
    Fail(Failure),
    /// A deviation covered by `known_violation` rows: reported, not failed.
    ExpectedFailure { message: String, failure: Failure, known: Vec<String> },
    /// Not checkable here, with the reason.
    Skip(String),
}

/// What a passing trial saw: the outcome and the deviations the table allowed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    pub refused: bool,
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

struct Context<'a> {
    table: &'a Table,
    case: &'a Case,
    rows: Vec<(Occurrence<'a>, &'a Row)>,
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
        let known: Vec<&Row> = self
            .rows
            .iter()
            .filter(|(o, r)| blamed(o) && r.known_violation.as_ref().is_some_and(|k| k.direction == Direction::Narrowing))
            .map(|(_, r)| *r)
            .collect();
        let Some(first) = known.first() else { return Verdict::Fail(failure) };
        let issue = first.known_violation.as_ref().map_or("", |k| k.issue.as_str());
        let message = format!("known violation reproduced (the schema cannot be used): {} ({issue}, narrowing)", first.id);
        let mut known: Vec<String> = known.iter().map(|r| r.id.to_string()).collect();
        known.dedup();
        Verdict::ExpectedFailure { message, failure, known }
    }
}

/// Run the oracle for `translator` (whose table is `table`) on `case`.
#[must_use]
pub fn check(table: &Table, translator: &dyn Translator, case: &Case, env: &Env) -> Verdict {
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
    let ctx = Context { table, case, rows };
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
    // `type: object` onto it narrows, opencode#1667); a root that plainly says `type: "object"`
    // must not be; one in between (an `allOf` with an object branch) may be refused or projected.
    let literal_object_root = case.schema.get("type") == Some(&Value::from("object"));
    let root_refused = table.requires_object_root && !literal_object_root && !root::accepts_only_objects(&case.schema);
    let root_may_be_refused = table.requires_object_root && !literal_object_root;
    let refused_rows: Vec<_> = ctx.rows.iter().filter(|(_, r)| r.disposition == Disposition::Refused).collect();
    let must_refuse = root_refused || !refused_rows.is_empty();
    let outcome = match catch_unwind(AssertUnwindSafe(|| translator.translate(&case.schema))) {
        Ok(o) => o,
        Err(panic) => {
            let text = panic.downcast_ref::<&str>().map(|s| (*s).to_owned()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            return ctx.fail(FailureKind::Panicked, &format!("translator `{}` panicked: {text}", translator.name()));
        }
    };
    let projection = match outcome {
        Outcome::Refused(refusal) => {
            if let Some(limit) = refusal.keyword.strip_prefix(crate::table::LIMIT_PREFIX) {
                // A documented limit may stop any schema; the table must declare it.
                if table.limits.contains_key(limit) {
                    return Verdict::Pass(Summary { refused: true, rows: row_ids(&ctx), ..Summary::default() });
                }
                return ctx.fail(
                    FailureKind::UnexpectedRefusal(refusal.clone()),
                    &format!("the translator {refusal}, but the table declares no limit `{limit}` under `limits:`"),
                );
            }
            let cites_root = root_may_be_refused && refusal.pointer.is_empty() && (refusal.keyword == "type" || case.schema.get(&refusal.keyword).is_some());
            if !must_refuse && !cites_root {
                let what = format!("the translator {refusal}, but no row present is refused: a refusal must cite a refused row");
                let cited = |o: &Occurrence<'_>| o.keyword == refusal.keyword && o.pointer == refusal.pointer;
                return ctx.unusable(FailureKind::UnexpectedRefusal(refusal.clone()), &what, cited);
            }
            let cites_row = refused_rows.iter().any(|(o, _)| o.keyword == refusal.keyword && o.pointer == refusal.pointer);
            if cites_root || cites_row {
                return Verdict::Pass(Summary { refused: true, rows: row_ids(&ctx), ..Summary::default() });
            }
            return ctx.fail(
                FailureKind::RefusalCitesWrongRow(refusal.clone()),
                &format!("the translator {refusal}, which is not where a refused row applies"),
            );
        }
        Outcome::Projected(p) => p,
        Outcome::Faulted(fault) => {
            return ctx.fail(FailureKind::Fault(fault.message.clone()), &format!("translator `{}` faulted: {fault}", translator.name()));
        }
    };
    if must_refuse {
        let mut what = String::from("a refused row applies but the translator projected:");
        if root_refused {
            what.push_str("\n  the table requires an object root and the source root may accept a non-object");
        }
        for (o, r) in &refused_rows {
            let _ = write!(what, "\n  {} at `{}`", r.id, o.pointer);
        }
        let _ = write!(what, "\nprojection: {}", projection.schema);
        return ctx.fail(FailureKind::MissingRefusal, &what);
    }

    // 4. Grammar and meta-validation.
    if projection.dialect != table.dialect {
        return ctx.fail(
            FailureKind::WrongDialect,
            &format!("the projection is in dialect `{}` but the table declares `{}`", projection.dialect.name(), table.dialect.name()),
        );
    }
    if let Some((path, grammar)) = &table.grammar
        && let Err(e) = grammar_errors(grammar, &projection.schema)
    {
        return ctx.fail(FailureKind::Grammar, &format!("the projection breaks the grammar {}:\n{e}\nprojection: {}", path.display(), projection.schema));
    }
    let lifted = match projection.dialect {
        Dialect::JsonSchema => projection.schema.clone(),
        other => match dialect::lift(other, &projection.schema) {
            Ok(v) => v,
            Err(e) => return ctx.fail(FailureKind::Grammar, &format!("cannot lift the projection from `{}`: {e}", other.name())),
        },
    };
    if let Some(cycle) = crate::recursion::forbidden_cycle(&lifted, table.recursion) {
        return ctx.fail(
            FailureKind::Recursion(cycle.to_string()),
            &format!("the projection keeps a reference cycle the provider does not accept (`recursion: {}`): {cycle}\nprojection: {lifted}", table.recursion),
        );
    }
    let compiled = match compile(&lifted, env, case.assert_formats) {
        Ok(v) => v,
        Err(e) => return ctx.unusable(FailureKind::InvalidProjection, &format!("the projection {e}\nprojection: {lifted}"), |_| true),
    };

    // 5. Differential check.
    differential(&ctx, &source, &compiled, &projection, &lifted, &env.witness)
}

fn differential(
    ctx: &Context<'_>,
    source: &jsonschema::Validator,
    compiled: &jsonschema::Validator,
    projection: &Projection,
    lifted: &Value,
    settings: &witness::Settings,
) -> Verdict {
    let mut witnesses = Vec::new();
    for inst in &ctx.case.instances {
        let encoded = codec::apply(&projection.codec, lifted, &inst.data, Way::Encode);
        let projection_accepts = compiled.is_valid(&encoded);
        if inst.valid {
            let back = codec::apply(&projection.codec, lifted, &encoded, Way::Decode);
            if back != inst.data {
                return ctx.fail(
                    FailureKind::RoundTrip,
                    &format!(
                        "round trip: decode(encode(x)) != x\n  x = {}\n  encode(x) = {encoded}\n  decode(encode(x)) = {back}\nprojection: {lifted}",
                        inst.data
                    ),
                );
            }
        }
        let direction = match (inst.valid, projection_accepts) {
            (true, false) => Some(Direction::Narrowing),
            (false, true) => {
                let decoded = codec::apply(&projection.codec, lifted, &encoded, Way::Decode);
                (!source.is_valid(&decoded)).then_some(Direction::Widening)
            }
            _ => None,
        };
        if let Some(direction) = direction {
            witnesses.push(Witness {
                direction,
                description: inst.description.clone(),
                instance: inst.data.clone(),
                model_instance: encoded,
                source_accepts: inst.valid,
                projection_accepts,
            });
        }
    }
    let allowed: BTreeSet<Direction> = ctx
        .rows
        .iter()
        .filter_map(|(_, r)| match r.disposition {
            Disposition::Approximated { direction, .. } => Some(direction),
            _ => None,
        })
        .collect();
    // Generated instances, for the directions neither the envelope nor the case's instances settle.
    let wanted: BTreeSet<Direction> =
        [Direction::Widening, Direction::Narrowing].into_iter().filter(|d| !allowed.contains(d) && !witnesses.iter().any(|w| w.direction == *d)).collect();
    let trial = format!("{}::{}", ctx.table.translator, ctx.case.id);
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
    };
    let generated = match witness::search(settings, &sides, &wanted) {
        Ok(g) => g,
        Err(e) => return ctx.fail(FailureKind::WitnessSettings, &e),
    };
    let hand_written = witnesses.len();
    witnesses.extend(generated.witnesses);
    let inverted = inversions(&ctx.case.schema, lifted);
    let found: BTreeSet<Direction> = witnesses.iter().map(|w| w.direction).collect();
    let unexplained: BTreeSet<Direction> = found.difference(&allowed).copied().collect();
    let contradicted = found.len() == 2 && allowed.len() < 2;
    if unexplained.is_empty() && inverted.is_empty() {
        return Verdict::Pass(Summary { refused: false, found, rows: row_ids(ctx), witnesses });
    }

    let mut what = String::new();
    if !inverted.is_empty() {
        let _ = writeln!(what, "never inverted: a `false` subschema became one that accepts everything at {}", inverted.join(", "));
    }
    if contradicted {
        let _ = writeln!(what, "never contradicted: the projection both accepts what the source rejects and rejects what it accepts");
    }
    if !unexplained.is_empty() {
        let names: Vec<_> = unexplained.iter().map(|d| d.name()).collect();
        let allowed_names: Vec<_> = allowed.iter().map(|d| d.name()).collect();
        let allowed_text = if allowed_names.is_empty() { "none: every row present is preserved".to_owned() } else { allowed_names.join(", ") };
        let _ = writeln!(what, "the table is the oracle: found {} beyond the envelope (allowed: {allowed_text})", names.join(" and "));
    }
    for w in witnesses.iter().filter(|w| unexplained.contains(&w.direction)) {
        let _ = writeln!(
            what,
            "  {} witness `{}`: {} -- source {}, projection {}{}",
            w.direction,
            w.description,
            w.instance,
            if w.source_accepts { "accepts" } else { "rejects" },
            if w.projection_accepts { "accepts" } else { "rejects" },
            if w.model_instance == w.instance { String::new() } else { format!(" (model side {})", w.model_instance) },
        );
    }
    if let (Some(command), true) = (&generated.reproduce, witnesses[hand_written..].iter().any(|w| unexplained.contains(&w.direction))) {
        let _ = writeln!(what, "  (generated witnesses are shrunk; reproduce with: {command})");
    }
    let _ = write!(what, "projection: {lifted}");
    let Verdict::Fail(mut failure) = ctx.fail(FailureKind::Deviation { found: found.clone(), inverted: !inverted.is_empty(), contradicted }, what.trim_end()) else {
        unreachable!("Context::fail returns Verdict::Fail")
    };
    failure.witnesses = witnesses;

    // 6. Ratchet.
    let mut needed = unexplained.clone();
    if !inverted.is_empty() {
        needed.insert(Direction::Widening);
    }
    let known: Vec<_> = ctx.rows.iter().filter_map(|(_, r)| r.known_violation.as_ref().map(|k| (r, k))).collect();
    let covered: BTreeSet<Direction> = known.iter().map(|(_, k)| k.direction).collect();
    if !known.is_empty() && needed.is_subset(&covered) {
        let mut message = String::from("known violation reproduced:");
        for (row, k) in &known {
            let _ = write!(message, " {} ({}, {})", row.id, k.issue, k.direction);
        }
        let known = known.iter().map(|(row, _)| row.id.to_string()).collect();
        return Verdict::ExpectedFailure { message, failure, known };
    }
    Verdict::Fail(failure)
}

/// Pointers where the source holds `false` and the projection, at the same place, accepts everything.
fn inversions(source: &Value, projection: &Value) -> Vec<String> {
    let Ok(occurrences) = walk::occurrences(source) else { return Vec::new() };
    occurrences
        .iter()
        .filter(|o| o.keyword == "false")
        .filter(|o| matches!(projection.pointer(&o.pointer), Some(Value::Bool(true))) || projection.pointer(&o.pointer).is_some_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty)))
        .map(|o| if o.pointer.is_empty() { "the root".to_owned() } else { format!("`{}`", o.pointer) })
        .collect()
}

fn row_ids(ctx: &Context<'_>) -> Vec<String> {
    let mut ids: Vec<String> = ctx.rows.iter().map(|(_, r)| r.id.to_string()).collect();
    ids.sort();
    ids.dedup();
    ids
}

fn grammar_errors(grammar: &Value, projection: &Value) -> Result<(), String> {
    // A grammar is compiled once per run, not once per case: a provider's allowlist with dozens of
    // conditionals costs milliseconds to build, times every case of the corpus and the suite.
    static COMPILED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<jsonschema::Validator>>>> =
        std::sync::OnceLock::new();
    let key = grammar.to_string();
    let cache = COMPILED.get_or_init(Default::default);
    let cached = cache.lock().ok().and_then(|c| c.get(&key).cloned());
    let validator = match cached {
        Some(v) => v,
        None => {
            let built = std::sync::Arc::new(
                jsonschema::draft202012::options().build(grammar).map_err(|e| format!("the grammar itself does not compile: {e}"))?,
            );
            if let Ok(mut c) = cache.lock() {
                c.insert(key, built.clone());
            }
            built
        }
    };
    let errors: Vec<String> = validator.iter_errors(projection).map(|e| format!("  at `{}`: {e}", e.instance_path())).collect();
    if errors.is_empty() { Ok(()) } else { Err(errors.join("\n")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Instance;
    use schema_fidelity_translators::builtin::ObjectRoot;
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
}
