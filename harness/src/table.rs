//! Disposition tables: loading `dispositions/<translator>.yaml`, linting it, and looking rows up.
//!
//! A table gives every keyword exactly one disposition for one translator:
//!
//! ```yaml
//! translator: anthropic
//! source: "Anthropic tool use docs, input_schema, read 2026-11-29"
//! requires_object_root: true
//! keywords:
//!   const: { disposition: preserved }
//!   anyOf:
//!     disposition: preserved
//!     at_root: { disposition: refused, note: "input_schema does not support anyOf at the top level" }
//!   additionalProperties:
//!     forms:
//!       "false": { disposition: preserved }
//!       schema: { disposition: approximated, direction: widening, to: description }
//!   "false": { disposition: preserved }
//! extensions:
//!   "x-*": { disposition: preserved }
//! ```
//!
//! A row is found for a keyword occurrence by: the `at_root` refinement when the keyword sits on the
//! root node, else the `forms` refinement for the value's [`Form`], else the row itself. A row that
//! only has refinements and none that applies is *missing*: never silent.
//!
//! YAML is read with serde-saphyr, which rejects duplicated keys (a duplicated row) and gives a
//! line for every row, so every message below names `file:line`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use schema_fidelity_translators::form::{self, Form};
use schema_fidelity_translators::vocabulary::{self, BOOLEAN_SUBSCHEMAS, DRAFT_2020_12};
use schema_fidelity_translators::Dialect;
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::deviation::{Becomes, Direction, KnownViolation};
use crate::diagnostic::{TableError, TableErrors, is_placeholder, nearest};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DispositionName {
    Preserved,
    Approximated,
    Refused,
    /// The placeholder `schema-fidelity new` writes: a row still to be filled in.
    #[serde(rename = "TODO")]
    Todo,
}

/// What a translator owes one keyword.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// The projection accepts exactly what the source accepts, possibly spelled another way.
    Preserved { spelled_as: Option<String> },
    /// The projection deviates in one named direction; `to` says what the keyword became.
    Approximated { direction: Direction, to: Becomes },
    /// The translator fails with a named error.
    Refused,
}

impl Disposition {
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Self::Preserved { spelled_as: None } => "preserved".to_owned(),
            Self::Preserved { spelled_as: Some(s) } => format!("preserved as {s}"),
            Self::Approximated { direction, to } => format!("approximated ({direction}) to {to}"),
            Self::Refused => "refused".to_owned(),
        }
    }
}

/// Where a row stands: file, line, and which refinement of which keyword it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowId {
    pub file: PathBuf,
    pub line: u64,
    /// The keyword or extension pattern the row is keyed by.
    pub keyword: String,
    /// `None` for the row itself, else `at_root` or the form name.
    pub refinement: Option<String>,
}

impl fmt::Display for RowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} `{}`", self.file.display(), self.line, self.keyword)?;
        if let Some(r) = &self.refinement {
            write!(f, " ({r})")?;
        }
        Ok(())
    }
}

/// One resolved row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: RowId,
    pub disposition: Disposition,
    /// For an approximation, what the keyword became in words (`to:` is the oracle's token).
    pub becomes: Option<String>,
    /// For `to: nesting-bounded`: how many levels arrays may nest at an any-value position.
    pub depth: Option<u32>,
    pub note: Option<String>,
    pub issues: Vec<String>,
    /// The row's `known_violation` marks: at most one per class (widening, narrowing, each crash
    /// text), so that a translator that deviates one way and throws on the same keyword can say both.
    pub marks: Vec<KnownViolation>,
}

impl Row {
    /// The mark that bounds deviations in `direction`, if any (a crash mark bounds none).
    #[must_use]
    pub fn mark_bounding(&self, direction: Direction) -> Option<&KnownViolation> {
        self.marks.iter().find(|k| k.bounds(direction))
    }

    /// The mark that covers a crash with this message, if any.
    #[must_use]
    pub fn mark_covering_crash(&self, message: &str) -> Option<&KnownViolation> {
        self.marks.iter().find(|k| k.covers_crash(message))
    }

    /// The id the ratchet credits `mark` under: the row's own id when it has one mark, else the
    /// row's id and the mark's class (`widening`, `narrowing`, `crash: TEXT`).
    #[must_use]
    pub fn mark_id(&self, mark: &KnownViolation) -> String {
        if self.marks.len() <= 1 {
            return self.id.to_string();
        }
        format!("{} ({})", self.id, mark.class())
    }

    /// The ids of all its marks.
    #[must_use]
    pub fn mark_ids(&self) -> Vec<String> {
        self.marks.iter().map(|k| self.mark_id(k)).collect()
    }
}

/// One mark, or several (YAML: a mapping or a sequence of mappings). Read by shape rather than
/// by trying each (`untagged`), so that a misspelled field still gets its own message.
#[derive(Debug, Clone)]
enum Marks {
    One(KnownViolation),
    Many(Vec<KnownViolation>),
}

impl<'de> Deserialize<'de> for Marks {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Shape;
        impl<'de> serde::de::Visitor<'de> for Shape {
            type Value = Marks;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mark `{issue, direction, witness}` or a list of marks")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Marks, A::Error> {
                KnownViolation::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Marks::One)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Marks, A::Error> {
                Vec::<KnownViolation>::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(Marks::Many)
            }
        }
        deserializer.deserialize_any(Shape)
    }
}

impl Marks {
    fn into_vec(self) -> Vec<KnownViolation> {
        match self {
            Self::One(k) => vec![k],
            Self::Many(ks) => ks,
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    base: Option<Row>,
    at_root: Option<Row>,
    forms: BTreeMap<Form, Row>,
}

/// A loaded, linted disposition table.
#[derive(Debug, Clone)]
pub struct Table {
    pub translator: String,
    pub file: PathBuf,
    pub description: Option<String>,
    /// The dated source the table is pinned to.
    pub source: String,
    /// The provider surface the translator aims at (`targets/<name>.yaml`), whose rules below are
    /// copied from it: the dialect, grammar, object-root rule, recursion rule and limits.
    pub target: Option<TargetRef>,
    pub dialect: Dialect,
    /// A meta-schema the projection must satisfy (a provider allowlist as data).
    pub grammar: Option<(PathBuf, Value)>,
    pub requires_object_root: bool,
    /// Which reference cycles the provider accepts in a projection.
    pub recursion: crate::recursion::Recursion,
    /// The target's documented limits (nesting depth, property count, enum size, ...): a
    /// projection may not exceed them, and a refusal may cite one only when the source exceeds it.
    pub limits: BTreeMap<String, Limit>,
    /// The translator's own bounds (`bounds:`), not the provider's: a refusal may cite one like a
    /// limit, when the source exceeds it by the oracle's count, or under the bound's
    /// `known_violation` when the oracle cannot count it.
    pub bounds: BTreeMap<String, Limit>,
    /// Rules of the target the translator is known to break (the ratchet).
    pub target_violations: BTreeMap<TargetRule, TargetViolation>,
    /// For an external translator: the command that starts its adapter (program and arguments,
    /// run from the project root), which speaks the protocol in `protocol/`.
    pub run: Option<Vec<String>>,
    /// For an external translator: the command that installs its runtime and package, shown when
    /// they are missing and its trials are skipped: the table's `install:`, or the commands that
    /// make its `environment:`.
    pub install: Option<String>,
    /// For an external translator: the environment its adapter runs in (`environment:`, a Python
    /// virtual environment or an npm project), which the harness sets up on first use
    /// ([`crate::external::setup`]).
    pub environment: Option<crate::external::setup::Environment>,
    /// For an external translator: the package and the version pinned, as people name it
    /// (`@mastra/schema-compat 1.3.11 (npm)`), shown beside its verdicts in the reports.
    pub package: Option<String>,
    /// For an external translator: the public call its users make to send a tool, the code path
    /// that call runs on the schema, and where the projection is read from the request it builds.
    pub entry: Option<EntryPoint>,
    /// For a built-in translator: the real (external) translator it is the reference for
    /// (`models:`). The reports show the two side by side, row by row.
    pub models: Option<String>,
    /// For a built-in translator: the rows where it gives up what the real translator it models
    /// keeps, reviewed and found right, each with why (`models_reviewed:`, keyed like a citation
    /// without the translator: `$ref:uri`, `true`). Any other such row says the reference is wrong.
    pub models_reviewed: BTreeMap<String, String>,
    /// A second surface the translator sends some schemas to, in another dialect
    /// (`alternate_target:`; @ai-sdk/google sends a recursive schema as `parametersJsonSchema`
    /// instead of the proto `parameters`): a projection in its dialect is held to its rules.
    pub alternate_target: Option<Box<crate::target::Target>>,
    /// Behaviours that cut across keywords (`rules:`), each bounded exactly.
    pub rules: Vec<TableRule>,
    /// The surface a projection sent with `strict: false` is judged by (the target's
    /// `when_not_strict`).
    pub not_strict_target: Option<Box<crate::target::Target>>,
    keywords: BTreeMap<String, Entry>,
    extensions: Vec<(String, Entry)>,
}

pub use crate::target::Limit;

/// Where an external translator's users send a tool (`entry:` in its table). The adapter answers
/// each case through `path` and, asked `via: entry`, through `call` itself with its transport
/// stubbed; the `TRANSLATOR::entry` trial holds the two answers equal, so a table cannot name a
/// function its users never reach.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryPoint {
    /// The public call a user makes to send a tool, as code, with the model or client it needs:
    /// `anthropic.Anthropic().messages.create(model=..., tools=[{..., "strict": True}])`.
    pub call: String,
    /// The code path that call runs on the tool's schema, as the package names it (the function,
    /// or "unchanged" when none touches it): `agents.strict_schema.ensure_strict_json_schema`.
    pub path: String,
    /// Where the projection is read, in the request the call builds (`body.tools[0].input_schema`)
    /// or, for a framework without a client of its own, in what the named call site returns.
    pub reads: String,
}

/// The target a table names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetRef {
    pub name: String,
    /// `targets/<name>.yaml`.
    pub file: PathBuf,
}

impl Table {
    /// The limit or bound `name`: the target's limits first, then the table's own bounds.
    #[must_use]
    pub fn limit(&self, name: &str) -> Option<&Limit> {
        self.limits.get(name).or_else(|| self.bounds.get(name))
    }

    /// The table as it judges a projection in `dialect` sent with the strict flag `strict`: itself,
    /// or, when the projection went to its alternate target (another dialect) or was sent
    /// non-strict (`strict: false` where the target names its non-strict surface), the same rows
    /// under that surface's rules (its grammar, cycle rule, object-root rule and limits). `None`
    /// when no surface speaks `dialect`.
    #[must_use]
    pub fn for_projection(&self, dialect: Dialect, strict: Option<bool>) -> Option<std::borrow::Cow<'_, Self>> {
        if strict == Some(false)
            && let Some(loose) = self.not_strict_target.as_deref().filter(|t| t.dialect == dialect)
        {
            return Some(std::borrow::Cow::Owned(self.switched_to(loose)));
        }
        if dialect == self.dialect {
            return Some(std::borrow::Cow::Borrowed(self));
        }
        let alternate = self.alternate_target.as_deref().filter(|t| t.dialect == dialect)?;
        Some(std::borrow::Cow::Owned(self.switched_to(alternate)))
    }

    /// The same rows under the rules of `alternate`.
    fn switched_to(&self, alternate: &crate::target::Target) -> Self {
        let mut switched = self.clone();
        switched.target = Some(TargetRef { name: alternate.name.clone(), file: alternate.file.clone() });
        switched.dialect = alternate.dialect;
        switched.grammar.clone_from(&alternate.grammar);
        switched.requires_object_root = alternate.requires_object_root;
        switched.recursion = alternate.recursion;
        switched.limits.clone_from(&alternate.limits);
        switched
    }
}

/// A keyword occurrence for which the table has no row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingRow {
    pub keyword: String,
    pub form: Form,
    pub at_root: bool,
}

impl Table {
    /// The row governing `keyword` holding `value`, on the root node or not.
    ///
    /// # Errors
    /// [`MissingRow`] when no row applies: the keyword is silent in this table.
    pub fn row(&self, keyword: &str, value: &Value, at_root: bool) -> Result<&Row, MissingRow> {
        let form = Form::of(keyword, value);
        let missing = || MissingRow { keyword: keyword.to_owned(), form, at_root };
        let entry = match self.keywords.get(keyword) {
            Some(e) => e,
            None => self.extension(keyword).ok_or_else(missing)?,
        };
        if at_root && let Some(row) = &entry.at_root {
            return Ok(row);
        }
        entry.forms.get(&form).or(entry.base.as_ref()).ok_or_else(missing)
    }

    fn extension(&self, key: &str) -> Option<&Entry> {
        // Exact names first, then the longest matching glob, so `x-*` beats `*`.
        if let Some((_, e)) = self.extensions.iter().find(|(p, _)| p == key) {
            return Some(e);
        }
        self.extensions
            .iter()
            .filter(|(p, _)| p.strip_suffix('*').is_some_and(|prefix| key.starts_with(prefix)))
            .max_by_key(|(p, _)| p.len())
            .map(|(_, e)| e)
    }

    /// Every row of the table, refinements included, in keyword order.
    #[must_use]
    pub fn rows(&self) -> Vec<&Row> {
        let entries = self.keywords.values().chain(self.extensions.iter().map(|(_, e)| e));
        let mut out = Vec::new();
        for e in entries {
            out.extend(e.base.iter());
            out.extend(e.at_root.iter());
            out.extend(e.forms.values());
        }
        out
    }

}

// ---- loading -------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    translator: String,
    #[serde(default)]
    description: Option<String>,
    source: String,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    alternate_target: Option<String>,
    #[serde(default)]
    bounds: BTreeMap<String, Spanned<BoundFile>>,
    #[serde(default)]
    target_violations: BTreeMap<String, Spanned<TargetViolationFile>>,
    // The provider's rules live in its target now: named only to say so.
    #[serde(default)]
    dialect: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    grammar: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    requires_object_root: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    recursion: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    limits: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    run: Option<Vec<String>>,
    #[serde(default)]
    install: Option<String>,
    #[serde(default)]
    environment: Option<crate::external::setup::Environment>,
    #[serde(default)]
    package: Option<String>,
    #[serde(default)]
    entry: Option<EntryPoint>,
    #[serde(default)]
    models: Option<String>,
    #[serde(default)]
    models_reviewed: BTreeMap<String, String>,
    keywords: BTreeMap<String, Spanned<RowFile>>,
    #[serde(default)]
    extensions: BTreeMap<String, Spanned<RowFile>>,
    #[serde(default)]
    rules: BTreeMap<String, Spanned<RuleFile>>,
}

/// A table-level rule (`rules:`): a behaviour that cuts across keywords.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    direction: Direction,
    note: String,
    #[serde(default)]
    issues: Vec<String>,
    #[serde(default)]
    known_violation: Option<KnownViolation>,
}

/// A behaviour of a translator that cuts across keywords, declared once for the whole table and
/// bounded exactly by the oracle (instead of the same mark on dozens of rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleKind {
    /// A schema node with no `type` and no `anyOf`/`oneOf`/`allOf`, or a node with `properties`,
    /// is sent as `type: object`: a narrowing (an untyped node accepted every type).
    UntypedAsObject,
    /// A schema node below the root with no `type` and no `anyOf`/`oneOf`/`allOf`, a `true`
    /// subschema included, is sent as `type: string`: a narrowing (langchain's default type).
    UntypedAsString,
    /// A node whose `type` is `"array"` (or a list holding it) and which has no `items` gets
    /// `items: {type: object}`: a
    /// narrowing (the implicit `items: true` accepted every item).
    ArrayItemsAsObject,
    /// A property named after an `Object.prototype` member (`__proto__`, `constructor`,
    /// `toString`, ...) is left out of its object, which then rejects it: a narrowing (zod-based
    /// JavaScript converters guard their shapes against prototype pollution this way).
    PrototypeNamesDropped,
    /// Every property its object does not require also accepts `null`: a widening (the model is
    /// told an optional property may be null).
    OptionalNullable,
}

impl RuleKind {
    pub const ALL: [Self; 5] = [Self::UntypedAsObject, Self::UntypedAsString, Self::ArrayItemsAsObject, Self::PrototypeNamesDropped, Self::OptionalNullable];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::UntypedAsObject => "untyped-as-object",
            Self::UntypedAsString => "untyped-as-string",
            Self::ArrayItemsAsObject => "array-items-as-object",
            Self::PrototypeNamesDropped => "prototype-names-dropped",
            Self::OptionalNullable => "optional-nullable",
        }
    }

    /// The direction the behaviour deviates in.
    #[must_use]
    pub fn direction(self) -> Direction {
        match self {
            Self::UntypedAsObject | Self::UntypedAsString | Self::ArrayItemsAsObject | Self::PrototypeNamesDropped => Direction::Narrowing,
            Self::OptionalNullable => Direction::Widening,
        }
    }
}

/// One `rules:` entry: its kind, and a row standing for it (its id, its disposition: approximated
/// when declared, preserved with a `known_violation` when a defect; its marks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRule {
    pub kind: RuleKind,
    pub row: Row,
}

/// Extensions some target interprets (`nullable` in Gemini's proto and OpenAPI 3.0, `discriminator`,
/// Gemini's `propertyOrdering` and `example`, Google's `x-google-*`, draft-07's `additionalItems`,
/// `dependencies` and `definitions`): every table gives each an explicit row, never a glob's.
pub const INTERPRETED_EXTENSIONS: &[&str] =
    &["nullable", "discriminator", "propertyOrdering", "example", "x-google-*", "additionalItems", "dependencies", "definitions"];

/// A mark that the translator is known to break one of its target's rules.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetViolationFile {
    issue: String,
    witness: String,
    #[serde(default)]
    keywords: Vec<String>,
}

/// A rule of the target a table can mark as known broken (`target_violations:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TargetRule {
    /// The projection breaks the target's grammar: `keywords` names the projection keywords the
    /// grammar rejects (or `(node)` for a node it rejects as a whole).
    Grammar,
    /// The projection keeps a reference cycle the target does not accept.
    Recursion,
    /// The translator projects a root that may accept a non-object where the target requires an
    /// object root.
    ObjectRoot,
    /// The projection exceeds one of the target's limits: `keywords` names the limits.
    Limits,
}

impl TargetRule {
    pub const ALL: [(Self, &'static str); 4] = [(Self::Grammar, "grammar"), (Self::Recursion, "recursion"), (Self::ObjectRoot, "object-root"), (Self::Limits, "limits")];

    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(r, _)| *r == self).map_or("", |(_, n)| n)
    }
}

/// A `target_violations:` mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetViolation {
    pub rule: TargetRule,
    pub line: u64,
    pub issue: String,
    pub witness: String,
    /// For `grammar`: the projection keywords; for `limits`: the limit names.
    pub keywords: Vec<String>,
}

impl TargetViolation {
    /// The ids the ratchet tracks: one per keyword (or one for the rule when it lists none).
    #[must_use]
    pub fn ids(&self, file: &Path) -> Vec<String> {
        if self.keywords.is_empty() {
            vec![self.id(file, None)]
        } else {
            self.keywords.iter().map(|k| self.id(file, Some(k))).collect()
        }
    }

    /// The id of this mark for `keyword`.
    #[must_use]
    pub fn id(&self, file: &Path, keyword: Option<&str>) -> String {
        match keyword {
            Some(k) => format!("{}:{} target `{}` ({k})", file.display(), self.line, self.rule.name()),
            None => format!("{}:{} target `{}`", file.display(), self.line, self.rule.name()),
        }
    }
}

/// A translator's own bound: what it counts and its value, or (when the oracle cannot count it)
/// the `known_violation` that makes a refusal citing it an expected narrowing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoundFile {
    value: u64,
    #[serde(default)]
    counts: Option<String>,
    note: String,
    #[serde(default)]
    known_violation: Option<KnownViolation>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowFile {
    #[serde(default)]
    disposition: Option<DispositionName>,
    #[serde(default, rename = "as")]
    spelled_as: Option<String>,
    #[serde(default)]
    direction: Option<Direction>,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    becomes: Option<String>,
    /// For `to: nesting-bounded`: how many levels arrays may nest at an any-value position.
    #[serde(default)]
    depth: Option<u32>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    issues: Vec<String>,
    #[serde(default)]
    known_violation: Option<Marks>,
    #[serde(default)]
    at_root: Option<Box<Spanned<RowFile>>>,
    #[serde(default)]
    forms: BTreeMap<String, Spanned<RowFile>>,
}

/// Where a table's neighbours are: the folder of the tables (`models:` names another table), the
/// targets (`target:`) and the project root (`TRACKING.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirs {
    pub tables: PathBuf,
    pub targets: PathBuf,
    pub root: PathBuf,
}

impl Dirs {
    /// The folders of `project`.
    #[must_use]
    pub fn of(project: &crate::project::Project) -> Self {
        Self { tables: project.tables_dir.clone(), targets: project.targets_dir.clone(), root: project.root.clone() }
    }
}

/// The tables in `dir`, with this repository's layout around it: `targets/` beside it, the root
/// its parent.
impl From<&Path> for Dirs {
    fn from(tables: &Path) -> Self {
        let root = tables.parent().map_or_else(|| PathBuf::from("."), Path::to_owned);
        Self { tables: tables.to_owned(), targets: root.join("targets"), root }
    }
}

impl From<&PathBuf> for Dirs {
    fn from(tables: &PathBuf) -> Self {
        Self::from(tables.as_path())
    }
}

impl From<&Dirs> for Dirs {
    fn from(dirs: &Dirs) -> Self {
        dirs.clone()
    }
}

/// Load and lint the table at `path`, naming it `shown_as` in messages (a path relative to the
/// project root reads best). `dirs` says where the targets, the other tables and the project
/// root are.
///
/// # Errors
/// Every lint finding, each with file and line.
pub fn load(path: &Path, shown_as: &Path, dirs: impl Into<Dirs>) -> Result<Table, TableErrors> {
    let (table, errors) = load_lenient(path, shown_as, dirs);
    match table {
        Some(t) if errors.is_empty() => Ok(t),
        _ => Err(TableErrors(errors)),
    }
}

/// Like [`load`], but also returns the table when it parses and only the lint finds problems, so
/// that cases can still be checked against the rows it has.
#[must_use]
pub fn load_lenient(path: &Path, shown_as: &Path, dirs: impl Into<Dirs>) -> (Option<Table>, Vec<TableError>) {
    // A table is read through the input budget like every file people write: a table that is
    // (or links to) something endless is an error, not an allocation.
    match crate::budget::read_text(path, crate::budget::current()) {
        Ok(text) => parse(&text, shown_as, dirs),
        Err(message) => (None, vec![TableError { file: shown_as.to_owned(), line: None, message }]),
    }
}

/// Parse and lint a table from text. `path` names the file in messages and gives the expected
/// translator name (its stem). Returns the table when the YAML has the table's shape, and every
/// lint finding.
#[must_use]
pub fn parse(text: &str, path: &Path, dirs: impl Into<Dirs>) -> (Option<Table>, Vec<TableError>) {
    let dirs = dirs.into();
    let mut errors = Vec::new();
    let err = |line: Option<u64>, message: String| TableError { file: path.to_owned(), line, message };
    let file: TableFile = match crate::yaml::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let line = e.location().map(|l| l.line());
            return (None, vec![err(line, shape_error(text, line, &crate::yaml::message(&e)))]);
        }
    };

    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if file.translator != stem {
        errors.push(err(crate::target::key_line(text, "translator"), format!("`translator: {}` does not match the file name `{stem}.yaml`", file.translator)));
    }
    // The placeholders `schema-fidelity new` scaffolds say TODO until someone fills them in.
    let run = file.run.as_ref().map(|r| r.join(" "));
    let placeholders = [
        ("description", file.description.as_deref()),
        ("source", Some(file.source.as_str())),
        ("run", run.as_deref()),
        ("install", file.install.as_deref()),
        ("package", file.package.as_deref()),
    ];
    for (key, value) in placeholders {
        if value.is_some_and(|v| v.contains("TODO")) {
            errors.push(err(top_level_line(text, key), format!("`{key}:` still says TODO: fill it in (see the comment above it)")));
        }
    }
    // An external translator is a package someone pinned: the reports name it beside its verdicts.
    if file.run.is_some() && file.package.as_deref().is_none_or(|p| p.trim().is_empty()) {
        errors.push(err(top_level_line(text, "run"), "an external translator (`run:`) names its `package:` and pinned version, e.g. `package: \"@mastra/schema-compat 1.3.11 (npm)\"`".to_owned()));
    }
    errors.extend(entry_errors(text, file.run.is_some(), file.entry.as_ref()).into_iter().map(|(line, message)| err(line, message)));
    errors.extend(environment_errors(text, file.run.is_some(), file.install.is_some(), file.environment.as_ref()).into_iter().map(|(line, message)| err(line, message)));
    errors.extend(models_errors(text, file.run.is_some(), file.models.as_deref(), &dirs.tables).into_iter().map(|(line, message)| err(line, message)));

    let mut tracked_rule_issues: Vec<(u64, String)> = Vec::new();
    let mut keywords = BTreeMap::new();
    for (name, row) in &file.keywords {
        let line = row.referenced.line();
        if !vocabulary::is_keyword(name) && !BOOLEAN_SUBSCHEMAS.contains(&name.as_str()) {
            let mut message = format!("`{name}` is not a draft 2020-12 keyword");
            if let Some(near) = nearest(name, DRAFT_2020_12.iter().map(|k| k.name).chain(BOOLEAN_SUBSCHEMAS.iter().copied())) {
                message.push_str(&format!(" (did you mean `{near}`?)"));
            } else {
                message.push_str(" (rows for other keys go under `extensions:`)");
            }
            errors.push(err(Some(line), message));
            continue;
        }
        keywords.insert(name.clone(), entry(path, name, row, &mut errors));
    }
    for k in DRAFT_2020_12.iter().map(|k| k.name).chain(BOOLEAN_SUBSCHEMAS.iter().copied()) {
        if !file.keywords.contains_key(k) {
            errors.push(err(None, format!("no row for keyword `{k}`: every draft 2020-12 keyword needs a disposition")));
        }
    }
    let extensions_line = crate::target::key_line(text, "extensions");
    for name in INTERPRETED_EXTENSIONS {
        if !file.extensions.contains_key(*name) {
            errors.push(err(
                extensions_line,
                format!("no row for extension `{name}`: some target interprets it, so every table says what its translator does with it (a `*` glob may cover only pure annotations)"),
            ));
        }
    }
    for (pattern, row) in file.extensions.iter().filter(|(p, _)| p.ends_with('*') && !INTERPRETED_EXTENSIONS.contains(&p.as_str())) {
        let r = &row.value;
        if r.disposition != Some(DispositionName::Preserved) || r.at_root.is_some() || !r.forms.is_empty() {
            errors.push(err(
                Some(row.referenced.line()),
                format!("the glob `{pattern}` may cover only pure annotations, which change no acceptance: it is `preserved` (give an extension the translator interprets a row of its own)"),
            ));
        }
    }

    let mut extensions = Vec::new();
    for (pattern, row) in &file.extensions {
        let line = row.referenced.line();
        if vocabulary::is_keyword(pattern) || BOOLEAN_SUBSCHEMAS.contains(&pattern.as_str()) {
            errors.push(err(Some(line), format!("`{pattern}` is a draft 2020-12 keyword: its row goes under `keywords:`")));
            continue;
        }
        if pattern.contains('*') && (!pattern.ends_with('*') || pattern.matches('*').count() > 1) {
            errors.push(err(Some(line), format!("`{pattern}`: a glob may only end in one `*` (e.g. `x-*`)")));
            continue;
        }
        if !pattern.contains('*')
            && !vocabulary::is_known_extension(pattern)
            && let Some(near) = nearest(pattern, DRAFT_2020_12.iter().map(|k| k.name))
        {
            errors.push(err(Some(line), format!("extension `{pattern}` looks like a misspelled keyword (did you mean `{near}`?)")));
            continue;
        }
        extensions.push((pattern.clone(), entry(path, pattern, row, &mut errors)));
    }

    for (key, present) in [
        ("dialect", file.dialect.is_some()),
        ("grammar", file.grammar.is_some()),
        ("requires_object_root", file.requires_object_root.is_some()),
        ("recursion", file.recursion.is_some()),
        ("limits", file.limits.is_some()),
    ] {
        if present {
            errors.push(err(
                crate::target::key_line(text, key),
                format!("`{key}:` is a provider rule: it belongs to the target (`targets/<name>.yaml`), which the table names with `target:`"),
            ));
        }
    }
    let targets_dir = &dirs.targets;
    let target = match &file.target {
        None => {
            let must = if file.run.is_some() { " (an external translator must name one)" } else { "" };
            errors.push(err(crate::target::key_line(text, "translator"), format!("no `target:`: name the provider surface the translator aims at, one of targets/*.yaml{must}")));
            None
        }
        Some(name) => match crate::target::load(targets_dir, name) {
            Ok(t) => Some(t),
            Err(es) => {
                let line = crate::target::key_line(text, "target");
                for e in es {
                    errors.push(err(line, format!("target `{name}`: {e}")));
                }
                None
            }
        },
    };
    let alternate_target = file.alternate_target.as_deref().and_then(|name| {
        let line = crate::target::key_line(text, "alternate_target");
        match crate::target::load(targets_dir, name) {
            Ok(t) if target.as_ref().is_some_and(|main| main.dialect == t.dialect) => {
                errors.push(err(line, format!("`alternate_target: {name}` speaks the dialect of `target:`: a projection's dialect must say which of the two it went to")));
                None
            }
            Ok(t) => Some(Box::new(t)),
            Err(es) => {
                for e in es {
                    errors.push(err(line, format!("alternate target `{name}`: {e}")));
                }
                None
            }
        }
    });
    let not_strict_target = target.as_ref().and_then(|t| t.when_not_strict.clone()).and_then(|name| match crate::target::load(targets_dir, &name) {
        Ok(t) => Some(Box::new(t)),
        Err(es) => {
            let line = crate::target::key_line(text, "target");
            for e in es {
                errors.push(err(line, format!("the non-strict surface `{name}` of the target: {e}")));
            }
            None
        }
    });
    let mut bounds = BTreeMap::new();
    for (name, b) in &file.bounds {
        let line = Some(b.referenced.line());
        let b = &b.value;
        if target.as_ref().is_some_and(|t| t.limits.contains_key(name)) {
            errors.push(err(line, format!("bound `{name}` has the name of a limit of the target: a translator's own bound needs a name of its own")));
            continue;
        }
        let counts = match b.counts.as_deref().map(|c| (c, crate::measure::Counts::parse(c))) {
            Some((_, Some(c))) => Some(c),
            Some((c, None)) => {
                errors.push(err(line, format!("bound `{name}`: `counts: {c}` is not one of {}", crate::measure::Counts::names().join(", "))));
                continue;
            }
            None => None,
        };
        if is_placeholder(&b.note) {
            errors.push(err(line, format!("bound `{name}`: the `note` is a placeholder; say what the translator bounds and why")));
        }
        let (counts, known_violation) = match (counts, &b.known_violation) {
            (Some(c), None) => (c, None),
            // Not counted: `counts` is never read for a bound with a mark (the oracle stops at the mark).
            (None, Some(k)) if k.direction == Direction::Narrowing => (crate::measure::Counts::SchemaSize, Some(k.clone())),
            (None, Some(_)) => {
                errors.push(err(line, format!("bound `{name}`: a refusal is a narrowing; its `known_violation` has `direction: narrowing`")));
                continue;
            }
            (Some(_), Some(_)) => {
                errors.push(err(line, format!("bound `{name}`: a bound the oracle counts (`counts:`) needs no `known_violation`")));
                continue;
            }
            (None, None) => {
                errors.push(err(
                    line,
                    format!("bound `{name}`: say what the oracle counts (`counts:`), or, when it cannot count it, mark refusals citing it as a `known_violation` (a narrowing)"),
                ));
                continue;
            }
        };
        if let Some(k) = &known_violation {
            check_issue(&k.issue, &mut |m| errors.push(err(line, format!("bound `{name}`: {m}"))));
        }
        bounds.insert(name.clone(), Limit { value: b.value, counts, note: b.note.clone(), known_violation });
    }
    let mut target_violations = BTreeMap::new();
    for (rule, v) in &file.target_violations {
        let line = v.referenced.line();
        let Some(r) = TargetRule::ALL.iter().find(|(_, n)| n == rule).map(|(r, _)| *r) else {
            let names: Vec<_> = TargetRule::ALL.iter().map(|(_, n)| *n).collect();
            errors.push(err(Some(line), format!("`target_violations`: `{rule}` is not a target rule ({})", names.join(", "))));
            continue;
        };
        check_issue(&v.value.issue, &mut |m| errors.push(err(Some(line), format!("`target_violations.{rule}`: {m}"))));
        if v.value.witness.trim().is_empty() {
            errors.push(err(Some(line), format!("`target_violations.{rule}` needs a `witness`")));
        }
        if r == TargetRule::Grammar {
            for entry in &v.value.keywords {
                let class = entry.rsplit_once(": ").map(|(_, c)| c);
                if !class.is_some_and(|c| crate::grammar::GrammarError::ALL.iter().any(|e| e.name() == c)) {
                    let names: Vec<&str> = crate::grammar::GrammarError::ALL.iter().map(|e| e.name()).collect();
                    errors.push(err(
                        Some(line),
                        format!("`target_violations.grammar`: `{entry}` names a keyword but not the grammar error it covers: write `{}: <error>`, the error one of {}", entry.split(": ").next().unwrap_or(entry), names.join(", ")),
                    ));
                }
            }
        }
        if matches!(r, TargetRule::Grammar | TargetRule::Limits) == v.value.keywords.is_empty() {
            errors.push(err(Some(line), format!("`target_violations.{rule}`: `keywords` lists what breaks the rule for `grammar` (projection keywords) and `limits` (limit names), and only there")));
        }
        target_violations.insert(r, TargetViolation { rule: r, line, issue: v.value.issue.clone(), witness: v.value.witness.clone(), keywords: v.value.keywords.clone() });
    }
    let (dialect, grammar, requires_object_root, recursion, limits) = match &target {
        Some(t) => (t.dialect, t.grammar.clone(), t.requires_object_root, t.recursion, t.limits.clone()),
        None => (Dialect::JsonSchema, None, false, crate::recursion::Recursion::Allowed, BTreeMap::new()),
    };
    for (key, value) in [("description", file.description.as_deref()), ("source", Some(file.source.as_str()))] {
        if value.is_some_and(is_placeholder) {
            errors.push(err(crate::target::key_line(text, key), format!("`{key}:` is a placeholder: say what the translator is and where its behaviour was read")));
        }
    }

    if file.run.as_ref().is_some_and(|r| r.first().is_none_or(String::is_empty)) {
        errors.push(err(None, "`run:` needs a program and its arguments, e.g. `[node, translators/external/node/adapter.mjs]`".to_owned()));
    }

    // The format as a JSON Schema (schemas/table.schema.json, what editors read): checked last, for
    // what the checks above do not say better.
    if errors.is_empty()
        && let Ok(value) = crate::yaml::from_str::<Value>(text)
    {
        for (line, message) in crate::schemas::check(crate::schemas::Format::Table, text, &value) {
            errors.push(err(line, message));
        }
    }

    // Marks that point into TRACKING.md must point at an entry that exists.
    let root = dirs.root.as_path();
    let mut tracked: Vec<(u64, &str)> = Vec::new();
    for e in keywords.values().chain(extensions.iter().map(|(_, e)| e)) {
        for r in e.base.iter().chain(e.at_root.iter()).chain(e.forms.values()) {
            for k in &r.marks {
                tracked.push((r.id.line, k.issue.as_str()));
            }
        }
    }
    for b in file.bounds.values() {
        if let Some(k) = &b.value.known_violation {
            tracked.push((b.referenced.line(), k.issue.as_str()));
        }
    }
    for v in target_violations.values() {
        tracked.push((v.line, v.issue.as_str()));
    }
    if tracked.iter().any(|(_, i)| matches!(issue_ref(i), Some(IssueRef::Tracking(_)))) {
        let anchors = tracking_anchors(root);
        for (line, issue) in tracked {
            if let Some(IssueRef::Tracking(anchor)) = issue_ref(issue)
                && !anchors.contains(&anchor)
            {
                errors.push(err(Some(line), format!("`known_violation` issue `TRACKING.md#{anchor}`: TRACKING.md has no entry `## {anchor}`")));
            }
        }
    }

    // A review names a row of this table, and only a reference (`models:`) has one to review.
    let reviewed_line = top_level_line(text, "models_reviewed");
    if !file.models_reviewed.is_empty() && file.models.is_none() {
        errors.push(err(reviewed_line, "`models_reviewed:` reviews the differences from the real translator a built-in one models: it needs `models:`".to_owned()));
    }
    for (citation, why) in &file.models_reviewed {
        let (key, refinement) = citation.split_once(':').map_or((citation.as_str(), None), |(k, r)| (k, Some(r)));
        let known = keywords.get(key).is_some_and(|e: &Entry| match refinement {
            None => e.base.is_some(),
            Some("at_root") => e.at_root.is_some(),
            Some(form) => e.forms.keys().any(|f| f.name() == form),
        }) || (refinement.is_none() && extensions.iter().any(|(name, _)| name == key));
        if !known {
            errors.push(err(reviewed_line, format!("`models_reviewed: {citation}` names no row of this table (`key` or `key:refinement`, as `explain` cites it)")));
        }
        if is_placeholder(why) {
            errors.push(err(reviewed_line, format!("`models_reviewed: {citation}` is a placeholder: say why the reference is right there")));
        }
    }

    let mut rules = Vec::new();
    for (name, r) in &file.rules {
        let line = r.referenced.line();
        let Some(kind) = RuleKind::ALL.into_iter().find(|k| k.name() == name) else {
            let names: Vec<_> = RuleKind::ALL.iter().map(|k| k.name()).collect();
            errors.push(err(Some(line), format!("`rules`: `{name}` is not a rule the oracle bounds ({})", names.join(", "))));
            continue;
        };
        let r = &r.value;
        let mut fail = |message: String| errors.push(err(Some(line), format!("rule `{name}`: {message}")));
        if r.direction != kind.direction() {
            fail(format!("the rule is a {}, not a {}", kind.direction(), r.direction));
        }
        if is_placeholder(&r.note) {
            fail("the `note` is a placeholder: say what the translator does".to_owned());
        }
        if let Some(k) = &r.known_violation {
            check_issue(&k.issue, &mut fail);
            if k.direction != kind.direction() || k.crash.is_some() || k.to.is_some() || k.scope.is_some() {
                fail(format!("its `known_violation` has `direction: {}` and no `to`, `where` or `crash` (the rule says what it does)", kind.direction()));
            }
            tracked_rule_issues.push((line, k.issue.clone()));
        }
        let disposition = match &r.known_violation {
            Some(_) => Disposition::Preserved { spelled_as: None },
            None => Disposition::Approximated { direction: kind.direction(), to: Becomes::Rewritten },
        };
        let row = Row {
            id: RowId { file: path.to_owned(), line, keyword: name.clone(), refinement: Some("rule".to_owned()) },
            disposition,
            becomes: None,
            depth: None,
            note: Some(r.note.clone()),
            issues: r.issues.clone(),
            marks: r.known_violation.clone().into_iter().collect(),
        };
        rules.push(TableRule { kind, row });
    }
    if !tracked_rule_issues.is_empty() {
        let anchors = tracking_anchors(root);
        for (line, issue) in &tracked_rule_issues {
            if let Some(IssueRef::Tracking(anchor)) = issue_ref(issue)
                && !anchors.contains(&anchor)
            {
                errors.push(err(Some(*line), format!("`known_violation` issue `TRACKING.md#{anchor}`: TRACKING.md has no entry `## {anchor}`")));
            }
        }
    }

    errors.sort_by_key(|e| e.line.unwrap_or(u64::MAX));
    let table = Table {
        translator: file.translator,
        file: path.to_owned(),
        description: file.description,
        source: file.source,
        target: target.map(|t| TargetRef { name: t.name, file: t.file }),
        dialect,
        grammar,
        requires_object_root,
        recursion,
        limits,
        bounds,
        target_violations,
        run: file.run,
        install: file.install.or_else(|| file.environment.as_ref().map(crate::external::setup::Environment::install_hint)),
        environment: file.environment,
        package: file.package,
        entry: file.entry,
        models: file.models,
        models_reviewed: file.models_reviewed,
        alternate_target,
        rules,
        not_strict_target,
        keywords,
        extensions,
    };
    (Some(table), errors)
}

fn entry(path: &Path, keyword: &str, row: &Spanned<RowFile>, errors: &mut Vec<TableError>) -> Entry {
    let base = if row.value.disposition.is_some() || (row.value.forms.is_empty() && row.value.at_root.is_none()) {
        resolve(path, keyword, None, row, errors)
    } else {
        check_base_is_empty(path, keyword, row, errors);
        None
    };
    let at_root = row.value.at_root.as_deref().and_then(|r| {
        check_leaf(path, keyword, "at_root", r, errors);
        resolve(path, keyword, Some("at_root".to_owned()), r, errors)
    });
    let mut forms = BTreeMap::new();
    for (name, r) in &row.value.forms {
        let Some(form) = Form::parse(name) else {
            let names: Vec<_> = form::ALL.iter().map(|f| f.name()).collect();
            errors.push(TableError {
                file: path.to_owned(),
                line: Some(r.referenced.line()),
                message: format!("`{keyword}`: unknown form `{name}` (forms are {})", names.join(", ")),
            });
            continue;
        };
        check_leaf(path, keyword, name, r, errors);
        if let Some(resolved) = resolve(path, keyword, Some(name.clone()), r, errors) {
            forms.insert(form, resolved);
        }
    }
    // A widening row of a keyword whose `false` rejects something also governs that `false`
    // unless a form says otherwise: that would declare the inversion `false` -> `{}`.
    // (Keywords holding one subschema whose `false` rejects what reaches it: not under `not` or
    // `if`, which reject nothing by a `false` of their own.)
    if vocabulary::false_rejects(keyword) && !forms.contains_key(&Form::False) {
        for r in base.iter().chain(at_root.iter()) {
            if matches!(r.disposition, Disposition::Approximated { direction: Direction::Widening, .. }) {
                errors.push(TableError {
                    file: path.to_owned(),
                    line: Some(r.id.line),
                    message: format!(
                        "`{keyword}` widens, and without a `\"false\"` form that row also governs `{keyword}: false`, where a widening is the inversion `false` -> `{{}}`: give `forms: {{\"false\": ...}}` a row of its own (preserved or refused; a `known_violation` if the translator drops it anyway)"
                    ),
                });
            }
        }
    }
    Entry { base, at_root, forms }
}


fn check_base_is_empty(path: &Path, keyword: &str, row: &Spanned<RowFile>, errors: &mut Vec<TableError>) {
    let r = &row.value;
    if r.direction.is_some() || r.to.is_some() || r.spelled_as.is_some() || r.known_violation.is_some() {
        errors.push(TableError {
            file: path.to_owned(),
            line: Some(row.referenced.line()),
            message: format!("`{keyword}`: `direction`, `to`, `as` and `known_violation` need a `disposition` beside them"),
        });
    }
}

fn check_leaf(path: &Path, keyword: &str, refinement: &str, row: &Spanned<RowFile>, errors: &mut Vec<TableError>) {
    if row.value.at_root.is_some() || !row.value.forms.is_empty() {
        errors.push(TableError {
            file: path.to_owned(),
            line: Some(row.referenced.line()),
            message: format!("`{keyword}` ({refinement}): a refinement cannot itself have `at_root` or `forms`"),
        });
    }
}

fn resolve(path: &Path, keyword: &str, refinement: Option<String>, row: &Spanned<RowFile>, errors: &mut Vec<TableError>) -> Option<Row> {
    let line = row.referenced.line();
    let r = &row.value;
    let what = match &refinement {
        Some(refinement) => format!("`{keyword}` ({refinement})"),
        None => format!("`{keyword}`"),
    };
    let mut fail = |message: String| errors.push(TableError { file: path.to_owned(), line: Some(line), message: format!("{what}: {message}") });
    let disposition = match r.disposition {
        None => {
            fail("missing `disposition:` (preserved, approximated or refused)".to_owned());
            return None;
        }
        Some(DispositionName::Todo) => {
            fail("`disposition: TODO` is not filled in yet: say what the translator does (preserved, approximated or refused)".to_owned());
            return None;
        }
        Some(DispositionName::Preserved) => {
            if r.direction.is_some() || r.to.is_some() || r.becomes.is_some() {
                fail("a preserved row has no `direction`, `to` or `becomes` (use `as:` for another spelling)".to_owned());
            }
            Disposition::Preserved { spelled_as: r.spelled_as.clone() }
        }
        Some(DispositionName::Refused) => {
            if r.direction.is_some() || r.to.is_some() || r.spelled_as.is_some() {
                fail("a refused row has no `direction`, `to` or `as`".to_owned());
            }
            Disposition::Refused
        }
        Some(DispositionName::Approximated) => {
            let (Some(direction), Some(to)) = (r.direction, r.to.clone()) else {
                fail("an approximated row needs `direction: widening | narrowing` and `to:` (what the keyword became)".to_owned());
                return None;
            };
            if r.spelled_as.is_some() {
                fail("`as:` belongs to preserved rows; an approximation says what it became with `to:`".to_owned());
            }
            let Some(to) = Becomes::parse(to.trim()) else {
                let names: Vec<_> = Becomes::ALL.iter().map(|b| b.name()).collect();
                fail(format!("`to: {to}` is not one of {} (say the details in `note:`)", names.join(", ")));
                return None;
            };
            let form = refinement.as_deref().and_then(Form::parse);
            if !to.fits(keyword, form, direction) {
                fail(fits_message(keyword, form, direction, to, "row"));
            }
            if (to == Becomes::NestingBounded) != r.depth.is_some() {
                fail("`depth:` goes with `to: nesting-bounded` (how many levels arrays nest at an any-value position), and only there".to_owned());
            }
            Disposition::Approximated { direction, to }
        }
    };
    // Never inverted: a `false` subschema that accepts nothing may not become one that accepts more,
    // whether it is the boolean subschema itself or the `false` form of a keyword
    // (`additionalProperties: false`, `items: false`, ...).
    let schema_valued = schema_fidelity_translators::walk::value_kind(keyword) == Some(vocabulary::ValueKind::Schema);
    let false_form = keyword == "false" || (schema_valued && refinement.as_deref() == Some(Form::False.name()));
    if false_form && matches!(disposition, Disposition::Approximated { direction: Direction::Widening, .. }) {
        fail("a `false` subschema may not be approximated as a widening: that is the inversion `false` -> `{}`; refuse it or keep it (a `known_violation` if the translator does it anyway)".to_owned());
    }
    let marks = r.known_violation.clone().map(Marks::into_vec).unwrap_or_default();
    let form = refinement.as_deref().and_then(Form::parse);
    for kv in &marks {
        if let Some(to) = kv.to
            && (!to.fits(keyword, form, kv.direction) || to == Becomes::NestingBounded)
        {
            fail(fits_message(keyword, form, kv.direction, to, "mark"));
        }
        if let Some(scope) = &kv.scope {
            let map_valued = schema_fidelity_translators::walk::value_kind(keyword) == Some(vocabulary::ValueKind::SchemaMap);
            if !scope.names.is_empty() && !map_valued {
                fail(format!("`where: {{names}}` scopes a mark to entries of a schema map (`properties`, `patternProperties`, ...); `{keyword}` holds none"));
            }
            if scope.names.is_empty() && scope.value.is_none() && scope.beside.is_empty() {
                fail("`where:` is empty: name the entries (`names:`), the value (`value:`) or the keywords beside it (`beside:`) the mark is about".to_owned());
            }
            if let Some(unknown) = scope.beside.iter().find(|k| !vocabulary::is_keyword(k)) {
                fail(format!("`where: {{beside}}` names `{unknown}`, which is no draft 2020-12 keyword"));
            }
            if !scope.beside.is_empty() && kv.direction == Direction::Narrowing && kv.to.is_none() {
                fail("`where: {beside}` scopes the bound of a mark: a narrowing mark without `to:` is pinned on its row, which no scope narrows; give it a `to:`".to_owned());
            }
        }
    }
    for (i, kv) in marks.iter().enumerate() {
        if marks[..i].iter().any(|other| other.class() == kv.class()) {
            fail(format!("two `known_violation` marks of one class ({}) on one row: merge them", kv.class()));
        }
        check_issue(&kv.issue, &mut fail);
        match kv.crash.as_deref() {
            Some(text) if text.trim().is_empty() || text.contains("TODO") => {
                fail("`crash:` is empty or a TODO: give a text the translator's error message contains".to_owned());
            }
            Some(_) if kv.direction != Direction::Narrowing => {
                fail("a `crash:` mark has `direction: narrowing`: a translator that throws leaves the tool unusable".to_owned());
            }
            Some(_) if kv.to.is_some() || kv.scope.is_some() => fail("a `crash:` mark bounds no projection: `to` and `where` mean nothing on it".to_owned()),
            _ => {}
        }
    }
    for issue in r.issues.iter().filter(|i| is_placeholder(i)) {
        fail(format!("issue `{issue}` is a placeholder: name a filed issue (`owner/repo#N`, `repo#N` or a URL)"));
    }
    if r.note.as_deref().is_some_and(|n| n.contains("TODO")) {
        fail("the `note` is a TODO: say what the translator does".to_owned());
    }
    Some(Row {
        id: RowId { file: path.to_owned(), line, keyword: keyword.to_owned(), refinement },
        disposition,
        becomes: r.becomes.clone(),
        depth: r.depth,
        note: r.note.clone(),
        issues: r.issues.clone(),
        marks,
    })
}

/// What is wrong with a table's `environment:`: it is for an external translator (`run:`), whose
/// `install:` hint it replaces (one source for both), and its folder is a plain relative path.
fn environment_errors(text: &str, external: bool, install: bool, environment: Option<&crate::external::setup::Environment>) -> Vec<(Option<u64>, String)> {
    let Some(environment) = environment else { return Vec::new() };
    let line = top_level_line(text, "environment");
    if !external {
        return vec![(line, "`environment:` is for an external translator (`run:`), whose adapter runs in it; a built-in translator has none".to_owned())];
    }
    let mut out: Vec<(Option<u64>, String)> = environment.shape_problems().into_iter().map(|message| (line, message)).collect();
    if install {
        out.push((
            top_level_line(text, "install"),
            format!("`install:` goes with `environment:`: the harness sets the environment up itself, and the hint it shows is its commands (`{}`); remove `install:`", environment.install_hint()),
        ));
    }
    out
}

/// What is wrong with a table's `entry:`: an external translator (`run:`) must name where its
/// users send a tool, with every field filled in; a built-in one has no entry to drive.
fn entry_errors(text: &str, external: bool, entry: Option<&EntryPoint>) -> Vec<(Option<u64>, String)> {
    let Some(entry) = entry else {
        return if external {
            vec![(
                top_level_line(text, "run"),
                "an external translator (`run:`) names its `entry:`: the public call its users make to send a tool (`call:`), the code path it runs on the schema (`path:`) and where the projection is read from the request (`reads:`)".to_owned(),
            )]
        } else {
            Vec::new()
        };
    };
    let line = top_level_line(text, "entry");
    if !external {
        return vec![(line, "`entry:` is for an external translator (`run:`), whose adapter drives it; a built-in translator has none".to_owned())];
    }
    [("call", &entry.call), ("path", &entry.path), ("reads", &entry.reads)]
        .into_iter()
        .filter(|(_, value)| is_placeholder(value))
        .map(|(key, _)| (line, format!("`entry.{key}:` is a placeholder: say {}", entry_field_meaning(key))))
        .collect()
}

/// What is wrong with a table's `models:`: it is for a built-in translator, and names the real
/// translator it is the reference for, an external table (`run:`) in `dispositions/`. (That every
/// committed built-in table names one is a test of the repository, `tests/suite/tables.rs`: a copy of a
/// few built-in tables is a valid project.)
fn models_errors(text: &str, external: bool, models: Option<&str>, dispositions_dir: &Path) -> Vec<(Option<u64>, String)> {
    let Some(name) = models else { return Vec::new() };
    let line = top_level_line(text, "models");
    if external {
        return vec![(line, "`models:` is for a built-in translator, the reference for a real one; an external translator (`run:`) is a real one".to_owned())];
    }
    if is_placeholder(name) {
        return vec![(line, "`models:` is a placeholder: name the external translator this built-in one is the reference for".to_owned())];
    }
    let external_tables = external_table_names(dispositions_dir);
    if external_tables.iter().any(|t| t == name) {
        return Vec::new();
    }
    // The directory by its name, not its path: the message lands in reports/, which must not
    // depend on where the project is checked out.
    let dir = dispositions_dir.file_name().map_or_else(|| "dispositions".into(), |n| n.to_string_lossy());
    let mut message = format!("`models: {name}` names no external translator (a table in {dir}/ with `run:`)");
    if let Some(near) = nearest(name, external_tables.iter().map(String::as_str)) {
        message.push_str(&format!(" (did you mean `{near}`?)"));
    }
    vec![(line, message)]
}

/// The stems of the tables in `dir` that declare `run:` at the top level (external translators),
/// sorted; read as text, since a table that does not parse is linted on its own.
fn external_table_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|text| text.lines().any(|l| l.starts_with("run:"))))
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
        .collect();
    names.sort();
    names
}

fn entry_field_meaning(key: &str) -> &'static str {
    match key {
        "call" => "the public call a user makes to send a tool, e.g. `anthropic.Anthropic().messages.create(tools=[...])`",
        "path" => "the code path that call runs on the schema, e.g. `agents.strict_schema.ensure_strict_json_schema`",
        _ => "where in the request the call builds the projection is read, e.g. `body.tools[0].input_schema`",
    }
}

/// The lint's message for a `to:` that does not fit its keyword and direction, naming those that do.
fn fits_message(keyword: &str, form: Option<Form>, direction: Direction, to: Becomes, what: &str) -> String {
    let fitting = Becomes::fitting(keyword, form, direction);
    let fitting = fitting.into_iter().filter(|w| !(what == "mark" && *w == "nesting-bounded")).collect::<Vec<_>>();
    let words = if fitting.is_empty() { "none: this keyword cannot deviate that way by any word the oracle bounds".to_owned() } else { fitting.join(", ") };
    format!("`to: {to}` does not fit `{keyword}` in a {direction} {what} (the oracle bounds each word only where it fits); words that fit: {words}")
}

/// Where an issue reference points: `owner/repo#N`, `repo#N`, a URL, or an entry of the project's
/// `TRACKING.md` (`TRACKING.md#sf-N`, for a violation not filed upstream yet). Text may follow
/// (`owner/repo#123 (the cycle rule)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueRef {
    Upstream,
    Tracking(String),
}

/// The reference at the start of `issue`, if it starts with one.
#[must_use]
fn issue_ref(issue: &str) -> Option<IssueRef> {
    let token = issue.split_whitespace().next().unwrap_or_default();
    if let Some(anchor) = token.strip_prefix("TRACKING.md#") {
        let n = anchor.strip_prefix("sf-")?;
        return (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| IssueRef::Tracking(anchor.to_owned()));
    }
    if token.starts_with("https://") || token.starts_with("http://") {
        return Some(IssueRef::Upstream);
    }
    let (repo, number) = token.split_once('#')?;
    let name_ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    let repo_ok = match repo.split_once('/') {
        Some((owner, name)) => name_ok(owner) && name_ok(name),
        None => name_ok(repo),
    };
    (repo_ok && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some(IssueRef::Upstream)
}

/// A `known_violation`'s issue must name one: `owner/repo#N`, `repo#N`, a URL, or
/// `TRACKING.md#sf-N`; a placeholder (`schema-fidelity: untracked`, a `TODO`) tracks nothing.
fn check_issue(issue: &str, fail: &mut dyn FnMut(String)) {
    if issue.trim().is_empty() {
        fail("`known_violation` needs an `issue`".to_owned());
    } else if is_placeholder(issue) || issue.contains("untracked") {
        fail(format!("`known_violation` issue `{issue}` is a placeholder: name the upstream issue (`owner/repo#N`, `repo#N`, a URL) or an entry of TRACKING.md (`TRACKING.md#sf-N`)"));
    } else if issue_ref(issue).is_none() {
        fail(format!("`known_violation` issue `{issue}` names no issue: start it with `owner/repo#N`, `repo#N`, a URL or `TRACKING.md#sf-N`"));
    }
}

/// The `sf-N` anchors of the project's TRACKING.md (its `## sf-N` headings).
fn tracking_anchors(root: &Path) -> std::collections::BTreeSet<String> {
    let text = crate::target::read_inside(root, "TRACKING.md", "TRACKING.md lives at the project root").unwrap_or_default();
    text.lines().filter_map(|l| l.strip_prefix("## ")).map(|h| h.trim().to_owned()).filter(|h| h.starts_with("sf-")).collect()
}

/// The YAML reader's message, said in the table's terms: a duplicated row names the keyword and
/// both lines, a misspelled field gets the nearest right one. Anything else is passed on.
fn shape_error(text: &str, line: Option<u64>, message: &str) -> String {
    let body = message.split_once(": duplicate mapping key: ").map(|(_, rest)| rest).or_else(|| message.strip_prefix("duplicate mapping key: "));
    if let (Some(rest), Some(line)) = (body, line) {
        let key = rest.split(',').next().unwrap_or(rest).trim();
        let at = usize::try_from(line).unwrap_or(usize::MAX);
        let lines: Vec<&str> = text.lines().collect();
        let indent = |l: &str| l.len() - l.trim_start().len();
        let this_indent = lines.get(at.wrapping_sub(1)).map_or(0, |l| indent(l));
        let is_key = |l: &str| {
            let t = l.trim_start();
            [format!("{key}:"), format!("\"{key}\":"), format!("'{key}':")].iter().any(|k| t.starts_with(k.as_str()))
        };
        let first = lines.iter().take(at.saturating_sub(1)).enumerate().filter(|(_, l)| indent(l) == this_indent && is_key(l)).map(|(i, _)| i + 1).next_back();
        return match first {
            Some(first) => format!("`{key}` has two rows (lines {first} and {line}): a keyword gets exactly one disposition"),
            None => format!("`{key}` is listed twice: a keyword gets exactly one disposition"),
        };
    }
    if let Some((_, rest)) = message.split_once("unknown field `")
        && let Some((field, expected)) = rest.split_once("`, expected one of ")
    {
        let fields = expected.split(", ").map(|f| f.trim_matches('`'));
        let near = nearest(field, fields).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
        return format!("unknown field `{field}`{near}; the fields here are {expected}");
    }
    format!("not a valid disposition table: {message}")
}

// ---- what `run` needs from a loaded table (issue 17) ---------------------------------------------

/// What `run`, `report` and `check` would trip over in a table that loads: a `grammar:` that does
/// not compile (every trial would fail on it), a `run:` program that is missing or not
/// executable, or a script it names that does not exist (the translator cannot start; what its
/// `environment:` makes counts as there until it is set up), an `environment:` whose folder or
/// lock files are missing or that `run:` does not use, and a
/// translator name that a report file takes for itself (`reserved`: `matrix`, `index`, `report`).
/// `text` is the table's YAML (for the line of each key), `root` the project root, from which
/// `run:` commands start.
#[must_use]
pub fn lint_runnable(table: &Table, text: &str, root: &Path, reserved: &[&str]) -> Vec<TableError> {
    let mut out = Vec::new();
    let at = |key: &str| top_level_line(text, key);
    let mut fail = |line: Option<u64>, message: String| out.push(TableError { file: table.file.clone(), line, message });
    if reserved.contains(&table.translator.as_str()) {
        fail(
            at("translator"),
            format!("`{}` is a name the reports use for themselves (reports/{}.md would be overwritten); rename the translator", table.translator, table.translator),
        );
    }
    if let Some((path, grammar)) = &table.grammar
        && let Err(e) = jsonschema::draft202012::options().build(grammar)
    {
        let target = table.target.as_ref().map(|t| format!(" of target `{}`", t.name)).unwrap_or_default();
        fail(at("target"), format!("the grammar {}{target} does not compile: {e}", path.display()));
    }
    if let Some(command) = &table.run {
        let install = table.install.as_deref().map(|c| format!("; install it with `{c}`")).unwrap_or_default();
        // What the table's environment makes is there once it is set up, on first use: not a
        // problem while it is not (a fresh clone has none), and `lint` never installs. Once it
        // is there, what `run:` names in it must be too.
        let provided = |word: &str| table.environment.as_ref().is_some_and(|e| e.provides(word) && std::fs::symlink_metadata(root.join(e.installed())).is_err());
        match command.split_first() {
            None => fail(at("run"), "`run:` is empty: it needs a program".to_owned()),
            Some((program, args)) => {
                if !provided(program)
                    && let Err(why) = runnable_program(program, root)
                {
                    fail(at("run"), format!("the `run:` program `{program}` {why}{install}"));
                }
                // A script the program is given, named by a path: it must exist, or the adapter
                // cannot start.
                for arg in args.iter().filter(|a| a.contains('/') && !a.starts_with('-') && !a.contains("://") && !provided(a)) {
                    if !root.join(arg).exists() {
                        fail(at("run"), format!("the `run:` argument `{arg}` names no file (paths are relative to the project root){install}"));
                    }
                }
            }
        }
        if let Some(environment) = &table.environment {
            for problem in environment.problems(root, command) {
                fail(at("environment"), problem);
            }
        }
    }
    out
}

/// The 1-based line of the top-level key `key` in YAML `text` (unindented `key:`), if any.
fn top_level_line(text: &str, key: &str) -> Option<u64> {
    let plain = format!("{key}:");
    let quoted = format!("\"{key}\":");
    text.lines().position(|l| l.starts_with(&plain) || l.starts_with(&quoted)).map(|i| i as u64 + 1)
}

/// Whether `program` can be started from `root` as the adapter runner starts it: a path (with a
/// `/`) relative to the project root, or a name found on `PATH`; either way an executable file.
fn runnable_program(program: &str, root: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |path: &Path| std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.contains('/') {
        let path = root.join(program);
        return match std::fs::metadata(&path) {
            Err(_) => Err("does not exist (paths are relative to the project root)".to_owned()),
            Ok(_) if !executable(&path) => Err("is not an executable file".to_owned()),
            Ok(_) => Ok(()),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found: Vec<PathBuf> = std::env::split_paths(&path).map(|dir| dir.join(program)).filter(|p| p.is_file()).collect();
    if found.iter().any(|p| executable(p)) {
        Ok(())
    } else if found.is_empty() {
        Err("is not on PATH".to_owned())
    } else {
        Err(format!("is on PATH ({}) but not executable", found[0].display()))
    }
}
