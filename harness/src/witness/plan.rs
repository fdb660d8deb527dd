//! A schema compiled for drawing: every node's constraints gathered once, so a draw is a walk over
//! plain data instead of a re-reading of JSON.
//!
//! A schema node is the conjunction of its keywords, its `allOf` branches and its `$ref` target
//! (draft 2020-12 applies `$ref` beside its siblings). The compiler flattens that conjunction into
//! one [`Shape`]: types intersected, bounds tightened, `properties` merged name by name, and a
//! property declared by one conjunct but not another given the other's `additionalProperties`.
//! Disjunctions (`anyOf`, `oneOf`, `if`/`then`/`else`) become a [`Node::Choice`] over the
//! conjunction with each branch. Nodes are memoised by the set of document nodes they conjoin, so
//! a recursive `$ref` becomes a cycle in the plan, which draws stop by depth.
//!
//! The plan may be wrong in places: a `not` is ignored for valid draws, a `oneOf` branch may also
//! satisfy another, `dependentSchemas` only adds its keys after the fact, `unevaluated*` is read as
//! applying to what no conjunct declares, `$dynamicRef` is followed like `$ref`, and another
//! document's `$ref` is `Any`. That costs yield, never soundness: the validator judges every draw.
//!
//! References are resolved by the project's one resolver ([`refs::Resolver::follow`]): JSON
//! pointers, anchors and resources embedded in the document (`nested/b.json#/$defs/c`); another
//! document is never fetched. Each reference is resolved once, when the plan is built, from the
//! position it is written at ([`References`]).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use schema_fidelity_translators::vocabulary::InstanceType;
use schema_fidelity_translators::{Types, refs, vocabulary, walk};
use serde_json::{Map, Value};

use super::strings::Pattern;

/// Index of a node in [`Plan::nodes`].
pub(crate) type NodeId = usize;

/// Past this many nodes the compiler stops expanding disjunctions and gives unseen subschemas
/// `Any`: schemas with many `anyOf`s would otherwise compile to a product of their branches.
const NODE_BUDGET: usize = 512;
/// Most conjuncts one node gathers (`allOf` and `$ref` chains).
const MAX_CONJUNCTS: usize = 64;

/// Whether a key constrains nothing by itself: it asserts nothing (annotations, unknown keys,
/// identifiers, definitions), or it is a reference, which the compiler follows separately.
fn inert(key: &str) -> bool {
    vocabulary::is_reference(key) || !vocabulary::asserts(key)
}

/// A compiled schema.
#[derive(Debug)]
pub struct Plan {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
    /// Where the sweeps through long enums start, as a fraction of their length: 0 for a
    /// source's plan, one half for a projection's, so that the two sides' valid draws together
    /// visit every value of an enum up to about twice their number.
    pub(crate) sweep_start: f64,
    /// Per node, whether it has a finite valid instance the generator can see. A recursion
    /// through required properties or non-empty arrays (what a strict rewrite makes of an optional
    /// one) has none: a valid draw stops at such a node at once instead of spending the whole
    /// node budget on an instance the validator then rejects.
    finite: Vec<bool>,
}

/// One node of a plan.
#[derive(Debug)]
pub(crate) enum Node {
    /// `true`, `{}`, or a reference the generator cannot follow.
    Any,
    /// `false`.
    Never,
    /// One of several conjunctions (`anyOf`, `oneOf`, `if`/`then`/`else` expanded).
    Choice(Vec<NodeId>),
    Shape(Box<Shape>),
}

/// The gathered constraints of one conjunction.
#[derive(Debug, Default)]
pub(crate) struct Shape {
    /// Allowed types.
    pub types: Types,
    /// Types whose keywords appear: an untyped schema with `properties` is meant for objects.
    pub hinted: Types,
    /// `const`/`enum`, intersected.
    pub values: Option<Vec<Value>>,
    /// The next value of a long enum that valid draws take: values are visited in turn rather
    /// than at random, so a changed value in a 251-value enum is reached by the draws.
    pub sweep: std::sync::atomic::AtomicUsize,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
    pub multiple_of: Option<f64>,
    pub min_length: u64,
    pub max_length: Option<u64>,
    pub pattern: Option<Arc<Pattern>>,
    pub format: Option<String>,
    pub prefix: Vec<NodeId>,
    pub items: Option<NodeId>,
    pub contains: Vec<Contains>,
    pub min_items: u64,
    pub max_items: Option<u64>,
    pub unique: bool,
    pub properties: Vec<(String, NodeId)>,
    pub pattern_properties: Vec<(Arc<Pattern>, NodeId)>,
    /// The schema of keys no conjunct declares (every `additionalProperties` and, approximately,
    /// `unevaluatedProperties`).
    pub additional: Option<NodeId>,
    pub property_names: Option<NodeId>,
    pub required: Vec<String>,
    /// The node of each required key's value (declared, else `additional`), beside `required`.
    pub required_nodes: Vec<Option<NodeId>>,
    /// Indices into `properties` of the optional keys that may appear (not `false`).
    pub optional: Vec<usize>,
    /// The node of each declared property, by name (the first, as `properties` lists them).
    pub declared: HashMap<String, NodeId>,
    pub min_properties: u64,
    pub max_properties: Option<u64>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    /// `dependentSchemas`: when the key is present, the object also meets the node.
    pub dependent_schemas: Vec<(String, NodeId)>,
    /// `not` subschemas: a draw from one is a near miss here.
    pub nots: Vec<NodeId>,
}

/// A numeric bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bound {
    pub value: f64,
    pub exclusive: bool,
}

/// A `contains` with its `minContains`/`maxContains`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Contains {
    pub node: NodeId,
    pub min: u64,
    pub max: Option<u64>,
}

impl Plan {
    /// Compile `schema`. Never fails: what the compiler does not understand becomes `Any`.
    #[must_use]
    pub fn new(schema: &Value) -> Self {
        let references = References::new(schema);
        let mut compiler = Compiler { references, nodes: Vec::new(), memo: HashMap::new(), depth: 0 };
        let root = compiler.node(&[schema], &BTreeSet::new());
        let finite = finite_nodes(&compiler.nodes);
        Plan { nodes: compiler.nodes, root, sweep_start: 0.0, finite }
    }

    /// The conjunction of the subschemas of `schema` at `pointers` (every reference inside read
    /// against the whole document), compiled for drawing: what the witness search draws where a
    /// proof stopped. No pointer, or none that names a subschema, is `true`.
    #[must_use]
    pub fn within(schema: &Value, pointers: &[String]) -> Self {
        let references = References::new(schema);
        let parts: Vec<&Value> = pointers.iter().filter_map(|p| schema.pointer(p)).collect();
        let mut compiler = Compiler { references, nodes: Vec::new(), memo: HashMap::new(), depth: 0 };
        let root = compiler.node(&parts, &BTreeSet::new());
        let finite = finite_nodes(&compiler.nodes);
        Plan { nodes: compiler.nodes, root, sweep_start: 0.0, finite }
    }

    /// Whether a valid draw from `id` can end (see [`Plan::finite`]).
    pub(crate) fn is_finite(&self, id: NodeId) -> bool {
        self.finite.get(id).copied().unwrap_or(true)
    }

    /// This plan with its enum sweeps starting half way (for the projection side).
    #[must_use]
    pub fn sweeping_from_the_middle(mut self) -> Self {
        self.sweep_start = 0.5;
        self
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        self.nodes.get(id).unwrap_or(&Node::Any)
    }
}

/// The nodes that have a finite valid instance, as the least fixpoint of "some branch of a choice
/// has one; a shape has one when a scalar type or its values allow one, or an object or array
/// type whose required parts all have one". Only what a shape requires is looked at, so a node
/// is called infinite only when every valid instance must nest without end (never on a guess).
fn finite_nodes(nodes: &[Node]) -> Vec<bool> {
    // Children are compiled after their parent, so one pass from the last node settles all but
    // what a cycle feeds back; a few passes settle those. Past the cap the unsettled nodes count
    // as finite: that loses the shortcut, never a valid draw.
    const PASSES: usize = 16;
    let mut finite = vec![false; nodes.len()];
    let known = |finite: &[bool], id: Option<NodeId>| id.is_none_or(|id| finite.get(id).copied().unwrap_or(true));
    for _ in 0..PASSES {
        let mut changed = false;
        for (id, node) in nodes.iter().enumerate().rev() {
            if finite[id] {
                continue;
            }
            let now = match node {
                Node::Any => true,
                Node::Never => false,
                Node::Choice(branches) => branches.iter().any(|&b| known(&finite, Some(b))),
                Node::Shape(s) => {
                    let by_values = s.values.as_ref().is_some_and(|v| !v.is_empty());
                    let object = s.types.intersects(Types::OBJECT) && s.required_nodes.iter().all(|&n| known(&finite, n));
                    let needed_prefix = usize::try_from(s.min_items).unwrap_or(usize::MAX).min(s.prefix.len());
                    let array = s.types.intersects(Types::ARRAY)
                        && s.prefix.iter().take(needed_prefix).all(|&n| known(&finite, Some(n)))
                        && (s.min_items <= s.prefix.len() as u64 || known(&finite, s.items))
                        && s.contains.iter().all(|c| c.min == 0 || known(&finite, Some(c.node)));
                    by_values || s.types.intersects(Types::SCALARS) || object || array
                }
            };
            if now {
                finite[id] = true;
                changed = true;
            }
        }
        if !changed {
            return finite;
        }
    }
    vec![true; nodes.len()]
}

/// A node's identity: its address inside the borrowed document. The compiler meets nodes as
/// values (branches, reference targets), so their address is what names them in memo keys.
fn address(node: &Value) -> usize {
    std::ptr::from_ref(node) as usize
}

/// The reference keywords the compiler follows (`$dynamicRef` like `$ref`, see the module docs).
const REFERENCES: [&str; 2] = ["$ref", "$dynamicRef"];

/// What each reference of one document names: resolved once, from the position it is written at.
struct References<'a> {
    resolver: refs::Resolver<'a>,
    /// (address of the node holding the keyword, keyword) -> the schema it names, for every
    /// reference at a schema position within [`walk::MAX_DEPTH`]; a reference that names nothing
    /// here is absent.
    targets: HashMap<(usize, &'static str), &'a Value>,
    /// Addresses of the nodes the walk visited (a node holding a reference absent from `targets`
    /// then names nothing the resolver can find).
    visited: HashSet<usize>,
}

impl<'a> References<'a> {
    /// Index `root` and resolve every reference at its schema positions, in one iterative walk
    /// that stops at [`walk::MAX_DEPTH`] like every walk in this project.
    fn new(root: &'a Value) -> Self {
        let resolver = refs::Resolver::within_depth(root);
        let mut targets = HashMap::new();
        let mut visited = HashSet::new();
        let mut stack = vec![(root, String::new(), 0usize)];
        while let Some((node, pointer, depth)) = stack.pop() {
            if depth > walk::MAX_DEPTH {
                continue;
            }
            visited.insert(address(node));
            for keyword in REFERENCES {
                if let Some(target) = node.get(keyword).and_then(Value::as_str).and_then(|r| Self::named(&resolver, r, &pointer)) {
                    targets.insert((address(node), keyword), target);
                }
            }
            for child in walk::children(node) {
                stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), depth + 1));
            }
        }
        Self { resolver, targets, visited }
    }

    /// Data a pointer leads to is followed too ([`refs::Resolver::follow`]): an object there is
    /// read as a schema, as a validator may read it.
    fn named(resolver: &refs::Resolver<'a>, reference: &str, at: &str) -> Option<&'a Value> {
        resolver.follow(reference, at).map(|(_, value)| value)
    }

    /// The schema the `keyword` reference of `node` names. A node the walk did not reach (deeper
    /// than it goes) is read as if written at the root, a guess that costs yield at worst.
    fn target(&self, node: &'a Value, keyword: &'static str) -> Option<&'a Value> {
        let at = address(node);
        if self.visited.contains(&at) {
            return self.targets.get(&(at, keyword)).copied();
        }
        node.get(keyword).and_then(Value::as_str).and_then(|r| Self::named(&self.resolver, r, ""))
    }
}

/// A disjunction already expanded on the way to a node: (schema node address, keyword).
type Expanded = BTreeSet<(usize, &'static str)>;

/// A node's memo key: the addresses of its conjuncts, and the disjunctions already expanded.
type MemoKey = (Vec<usize>, Vec<(usize, &'static str)>);

struct Compiler<'a> {
    references: References<'a>,
    nodes: Vec<Node>,
    memo: HashMap<MemoKey, NodeId>,
    /// Nesting of `node` calls: past `walk::MAX_DEPTH` a subschema is `Any`, so a schema nested
    /// thousands deep compiles without exhausting the stack.
    depth: usize,
}

impl<'a> Compiler<'a> {
    /// The node for the conjunction of `parts`.
    fn node(&mut self, parts: &[&'a Value], expanded: &Expanded) -> NodeId {
        if self.depth >= walk::MAX_DEPTH {
            return self.push(Node::Any);
        }
        self.depth += 1;
        let id = self.node_within_depth(parts, expanded);
        self.depth -= 1;
        id
    }

    fn node_within_depth(&mut self, parts: &[&'a Value], expanded: &Expanded) -> NodeId {
        let Some(flat) = self.flatten(parts) else { return self.push(Node::Never) };
        if flat.is_empty() {
            return self.push(Node::Any);
        }
        let mut key: Vec<usize> = flat.iter().map(|v| address(v)).collect();
        key.sort_unstable();
        let memo_key = (key, expanded.iter().copied().collect::<Vec<_>>());
        if let Some(&id) = self.memo.get(&memo_key) {
            return id;
        }
        let id = self.push(Node::Any);
        self.memo.insert(memo_key, id);
        if self.nodes.len() > NODE_BUDGET {
            // Out of budget: fold what is here, without children.
            let shape = self.shape(&flat, false);
            self.nodes[id] = Node::Shape(Box::new(shape));
            return id;
        }
        let node = match self.disjunction(&flat, expanded) {
            Some((which, branches)) => {
                let mut inner = expanded.clone();
                inner.insert(which);
                let ids = branches
                    .into_iter()
                    .map(|extra| {
                        let mut with: Vec<&'a Value> = flat.clone();
                        with.extend(extra);
                        self.node(&with, &inner)
                    })
                    .collect();
                Node::Choice(ids)
            }
            None => Node::Shape(Box::new(self.shape(&flat, true))),
        };
        self.nodes[id] = node;
        id
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The schema objects a conjunction consists of, following `allOf` and references; `None`
    /// when one of them is `false`.
    fn flatten(&self, parts: &[&'a Value]) -> Option<Vec<&'a Value>> {
        let mut out: Vec<&'a Value> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&'a Value> = parts.iter().rev().copied().collect();
        while let Some(part) = stack.pop() {
            match part {
                Value::Bool(false) => return None,
                Value::Object(map) => {
                    if !seen.insert(address(part)) || out.len() >= MAX_CONJUNCTS {
                        continue;
                    }
                    // A node that only refers (and annotates) adds no constraint of its own;
                    // leaving it out lets a recursive `$ref` meet its target's memo entry.
                    if !map.keys().all(|k| inert(k)) {
                        out.push(part);
                    }
                    for keyword in REFERENCES {
                        if map.contains_key(keyword)
                            && let Some(target) = self.references.target(part, keyword)
                        {
                            stack.push(target);
                        }
                    }
                    if let Some(Value::Array(branches)) = map.get("allOf") {
                        stack.extend(branches.iter().rev());
                    }
                }
                _ => {}
            }
        }
        Some(out)
    }

    /// The first disjunction not yet expanded, as its branches (each a list of extra conjuncts).
    #[allow(clippy::type_complexity)]
    fn disjunction(&self, flat: &[&'a Value], expanded: &Expanded) -> Option<((usize, &'static str), Vec<Vec<&'a Value>>)> {
        for part in flat {
            let at = address(part);
            for keyword in ["anyOf", "oneOf"] {
                if expanded.contains(&(at, keyword)) {
                    continue;
                }
                if let Some(Value::Array(branches)) = part.get(keyword)
                    && !branches.is_empty()
                {
                    return Some(((at, keyword), branches.iter().map(|b| vec![b]).collect()));
                }
            }
            if !expanded.contains(&(at, "if"))
                && let Some(condition) = part.get("if")
            {
                let mut then_branch = vec![condition];
                then_branch.extend(part.get("then"));
                let else_branch: Vec<&Value> = part.get("else").into_iter().collect();
                return Some(((at, "if"), vec![then_branch, else_branch]));
            }
        }
        None
    }

    /// Fold the keywords of a flattened conjunction into one shape. Without `children`, subschemas
    /// are left out (`Any`), which is how an out-of-budget node stays cheap.
    #[allow(clippy::too_many_lines)]
    fn shape(&mut self, flat: &[&'a Value], children: bool) -> Shape {
        let mut s = Shape { types: Types::ALL, ..Shape::default() };
        let maps: Vec<(&'a Value, &'a Map<String, Value>)> = flat.iter().filter_map(|v| v.as_object().map(|m| (*v, m))).collect();
        let mut patterns: Vec<&str> = Vec::new();
        let mut required_seen: HashSet<&str> = HashSet::new();
        for (_, m) in &maps {
            if let Some(t) = m.get("type") {
                let bits = match t {
                    Value::String(name) => Types::named(name).unwrap_or(Types::NONE),
                    Value::Array(names) => names.iter().filter_map(Value::as_str).fold(Types::NONE, |acc, n| acc.or(Types::named(n).unwrap_or(Types::NONE))),
                    _ => Types::ALL,
                };
                s.types = s.types.and(bits);
            }
            let mut constrain = |values: Vec<Value>| {
                s.values = Some(match s.values.take() {
                    None => values,
                    Some(old) => {
                        // By key, not pairwise: two enums of thousands of values would cost their product.
                        let allowed: HashSet<String> = values.iter().map(equality_key).collect();
                        old.into_iter().filter(|v| allowed.contains(&equality_key(v))).collect()
                    }
                });
            };
            if let Some(c) = m.get("const") {
                constrain(vec![c.clone()]);
            }
            if let Some(Value::Array(e)) = m.get("enum") {
                constrain(e.clone());
            }
            for (keyword, exclusive, lower) in [("minimum", false, true), ("exclusiveMinimum", true, true), ("maximum", false, false), ("exclusiveMaximum", true, false)] {
                let Some(value) = m.get(keyword).and_then(Value::as_f64) else { continue };
                s.hinted = s.hinted.or(Types::NUMBER);
                let bound = Bound { value, exclusive };
                let slot = if lower { &mut s.lower } else { &mut s.upper };
                *slot = Some(match *slot {
                    None => bound,
                    Some(old) => tighter(old, bound, lower),
                });
            }
            if let Some(m) = m.get("multipleOf").and_then(Value::as_f64).filter(|m| *m > 0.0) {
                s.hinted = s.hinted.or(Types::NUMBER);
                s.multiple_of.get_or_insert(m);
            }
            if let Some(n) = m.get("minLength").and_then(Value::as_u64) {
                s.hinted = s.hinted.or(Types::STRING);
                s.min_length = s.min_length.max(n);
            }
            if let Some(n) = m.get("maxLength").and_then(Value::as_u64) {
                s.hinted = s.hinted.or(Types::STRING);
                s.max_length = Some(s.max_length.map_or(n, |old| old.min(n)));
            }
            if let Some(p) = m.get("pattern").and_then(Value::as_str) {
                s.hinted = s.hinted.or(Types::STRING);
                patterns.push(p);
            }
            if let Some(f) = m.get("format").and_then(Value::as_str)
                && s.format.is_none()
            {
                s.format = Some(f.to_owned());
            }
            if let Some(n) = m.get("minItems").and_then(Value::as_u64) {
                s.hinted = s.hinted.or(Types::ARRAY);
                s.min_items = s.min_items.max(n);
            }
            if let Some(n) = m.get("maxItems").and_then(Value::as_u64) {
                s.hinted = s.hinted.or(Types::ARRAY);
                s.max_items = Some(s.max_items.map_or(n, |old| old.min(n)));
            }
            if m.get("uniqueItems") == Some(&Value::Bool(true)) {
                s.hinted = s.hinted.or(Types::ARRAY);
                s.unique = true;
            }
            if let Some(Value::Array(names)) = m.get("required") {
                s.hinted = s.hinted.or(Types::OBJECT);
                for name in names.iter().filter_map(Value::as_str) {
                    if required_seen.insert(name) {
                        s.required.push(name.to_owned());
                    }
                }
            }
            if let Some(n) = m.get("minProperties").and_then(Value::as_u64) {
                s.hinted = s.hinted.or(Types::OBJECT);
                s.min_properties = s.min_properties.max(n);
            }
            if let Some(n) = m.get("maxProperties").and_then(Value::as_u64) {
                s.hinted = s.hinted.or(Types::OBJECT);
                s.max_properties = Some(s.max_properties.map_or(n, |old| old.min(n)));
            }
            if let Some(Value::Object(deps)) = m.get("dependentRequired") {
                s.hinted = s.hinted.or(Types::OBJECT);
                for (key, names) in deps {
                    let names = names.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
                    s.dependent_required.push((key.clone(), names));
                }
            }
            // A subschema keyword of objects or arrays hints its type, whatever its value.
            for key in m.keys() {
                if let Some(f) = vocabulary::facts(key)
                    && f.value != vocabulary::ValueKind::Data
                    && let Some(t) = f.instance.filter(|t| matches!(t, InstanceType::Object | InstanceType::Array))
                {
                    s.hinted = s.hinted.or(t.types());
                }
            }
        }
        if !patterns.is_empty() {
            s.pattern = Some(Arc::new(Pattern::new(&patterns)));
        }
        if !children {
            self.index_keys(&mut s);
            return s;
        }
        let empty = BTreeSet::new();

        // Objects: a name any conjunct declares gets every conjunct's say about it.
        let mut names: Vec<&'a str> = Vec::new();
        let mut named: HashSet<&'a str> = HashSet::new();
        for (_, m) in &maps {
            for name in m.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys()) {
                if named.insert(name) {
                    names.push(name);
                }
            }
        }
        for name in names {
            let mut parts: Vec<&'a Value> = Vec::new();
            for (_, m) in &maps {
                // `unevaluatedProperties` sees the names its neighbours declare; only
                // `additionalProperties` applies to a name its own object does not declare.
                match m.get("properties").and_then(|p| p.get(name)) {
                    Some(declared) => parts.push(declared),
                    None => parts.extend(m.get("additionalProperties")),
                }
            }
            let id = self.node(&parts, &empty);
            s.properties.push((name.to_owned(), id));
        }
        for (_, m) in &maps {
            for (source, schema) in m.get("patternProperties").and_then(Value::as_object).into_iter().flatten() {
                let id = self.node(&[schema], &empty);
                s.pattern_properties.push((Arc::new(Pattern::new(&[source.as_str()])), id));
            }
        }
        let additional: Vec<&'a Value> = maps.iter().flat_map(|(_, m)| [m.get("additionalProperties"), m.get("unevaluatedProperties")]).flatten().collect();
        if !additional.is_empty() {
            s.additional = Some(self.node(&additional, &empty));
        }
        let names_schemas: Vec<&'a Value> = maps.iter().filter_map(|(_, m)| m.get("propertyNames")).collect();
        if !names_schemas.is_empty() {
            s.property_names = Some(self.node(&names_schemas, &empty));
        }

        // Arrays.
        let longest_prefix = maps.iter().filter_map(|(_, m)| m.get("prefixItems").and_then(Value::as_array).map(Vec::len)).max().unwrap_or(0);
        for i in 0..longest_prefix {
            let mut parts: Vec<&'a Value> = Vec::new();
            for (_, m) in &maps {
                match m.get("prefixItems").and_then(Value::as_array) {
                    Some(prefix) if i < prefix.len() => parts.push(&prefix[i]),
                    _ => parts.extend(m.get("items")),
                }
            }
            let id = self.node(&parts, &empty);
            s.prefix.push(id);
        }
        let items: Vec<&'a Value> = maps.iter().flat_map(|(_, m)| [m.get("items"), m.get("unevaluatedItems")]).flatten().collect();
        if !items.is_empty() {
            s.items = Some(self.node(&items, &empty));
        }
        for (_, m) in &maps {
            if let Some(schema) = m.get("contains") {
                let node = self.node(&[schema], &empty);
                let min = m.get("minContains").and_then(Value::as_u64).unwrap_or(1);
                let max = m.get("maxContains").and_then(Value::as_u64);
                s.contains.push(Contains { node, min, max });
            }
        }

        for (_, m) in &maps {
            for (key, schema) in m.get("dependentSchemas").and_then(Value::as_object).into_iter().flatten() {
                let id = self.node(&[schema], &empty);
                s.dependent_schemas.push((key.clone(), id));
            }
        }
        for (_, m) in &maps {
            if let Some(schema) = m.get("not") {
                let id = self.node(&[schema], &empty);
                s.nots.push(id);
            }
        }
        self.index_keys(&mut s);
        s
    }

    /// Resolve once what every object draw would otherwise look up by name (by hashing: a
    /// search per name would be quadratic in the property count).
    fn index_keys(&self, s: &mut Shape) {
        let mut declared: HashMap<String, NodeId> = HashMap::with_capacity(s.properties.len());
        for (name, id) in &s.properties {
            declared.entry(name.clone()).or_insert(*id);
        }
        s.required_nodes = s.required.iter().map(|name| declared.get(name).copied().or(s.additional)).collect();
        let required: HashSet<&str> = s.required.iter().map(String::as_str).collect();
        s.optional = (0..s.properties.len())
            .filter(|&i| !required.contains(s.properties[i].0.as_str()) && !matches!(self.nodes.get(s.properties[i].1), Some(Node::Never)))
            .collect();
        s.declared = declared;
    }
}

fn tighter(old: Bound, new: Bound, lower: bool) -> Bound {
    let new_wins = if lower { new.value > old.value } else { new.value < old.value };
    if new_wins || (new.value == old.value && new.exclusive) { new } else { old }
}

pub(crate) use schema_fidelity_translators::equality::key as equality_key;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The compiler follows every reference the registry knows, and leaves out of a conjunction
    /// exactly the keys that assert nothing besides them.
    #[test]
    fn references_and_inert_keys_are_the_registry_s() {
        let registry: Vec<&str> = vocabulary::DRAFT_2020_12.iter().filter(|k| k.is_reference()).map(|k| k.name).collect();
        assert_eq!(REFERENCES.as_slice(), registry.as_slice());
        let inert_keywords: Vec<&str> = vocabulary::DRAFT_2020_12.iter().map(|k| k.name).filter(|k| inert(k)).collect();
        assert_eq!(
            inert_keywords,
            [
                "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs", "title", "description", "default",
                "deprecated", "readOnly", "writeOnly", "examples", "contentEncoding", "contentMediaType", "contentSchema"
            ]
        );
        assert!(inert("definitions") && inert("nullable") && inert("x-vendor") && !inert("dependencies") && !inert("format"));
    }

    fn shape(plan: &Plan, id: NodeId) -> &Shape {
        match plan.node(id) {
            Node::Shape(s) => s,
            other => panic!("not a shape: {other:?}"),
        }
    }

    #[test]
    fn all_of_and_refs_fold_into_one_shape() {
        let schema = json!({
            "$defs": {"bounded": {"maximum": 10, "minimum": 0}},
            "allOf": [{"$ref": "#/$defs/bounded"}, {"type": "integer", "exclusiveMaximum": 10}]
        });
        let plan = Plan::new(&schema);
        let s = shape(&plan, plan.root);
        assert_eq!(s.types, Types::INTEGER);
        assert_eq!(s.lower, Some(Bound { value: 0.0, exclusive: false }));
        assert_eq!(s.upper, Some(Bound { value: 10.0, exclusive: true }));
    }

    /// The generator side of `refs::tests::pointers_anchors_and_embedded_resources_resolve` (the
    /// test of the generator's former resolver): each reference folds its target into the shape.
    #[test]
    fn pointers_anchors_and_embedded_resources_resolve() {
        let schema = json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "a": {"$anchor": "here", "type": "integer"},
                "b": {"$id": "nested/b.json", "$defs": {"c": {"type": "string"}}, "$ref": "../root.json#/$defs/%70ct"},
                "pct": {"type": "null"},
                "d": {"$id": "d.json", "$ref": "#/$defs/e", "$defs": {"e": {"type": "boolean"}}}
            },
            "properties": {
                "p": {"$ref": "#/$defs/a"},
                "q": {"$ref": "#here"},
                "r": {"$ref": "nested/b.json#/$defs/c"},
                "s": {"$ref": "nested/b.json"},
                "t": {"$ref": "d.json"},
                "u": {"$ref": "https://other.example/x.json", "type": "array"}
            }
        });
        let plan = Plan::new(&schema);
        let root = shape(&plan, plan.root);
        let types_of = |name: &str| shape(&plan, root.properties.iter().find(|(n, _)| n == name).expect(name).1).types;
        assert_eq!(types_of("p"), Types::INTEGER);
        assert_eq!(types_of("q"), Types::INTEGER);
        assert_eq!(types_of("r"), Types::STRING);
        assert_eq!(types_of("s"), Types::NULL);
        assert_eq!(types_of("t"), Types::BOOLEAN);
        // Another document is never fetched: only the node's own keywords constrain it.
        assert_eq!(types_of("u"), Types::ARRAY);
        // A pointer to data is followed as the generator always followed it (a validator may too).
        let data = json!({"const": {"type": "string"}, "properties": {"p": {"$ref": "#/const"}}});
        let plan = Plan::new(&data);
        let p = shape(&plan, plan.root).properties[0].1;
        assert_eq!(shape(&plan, p).types, Types::STRING);
    }

    #[test]
    fn recursion_becomes_a_cycle() {
        let schema = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
        let plan = Plan::new(&schema);
        let root = shape(&plan, plan.root);
        assert_eq!(root.properties[0].1, plan.root);
    }

    #[test]
    fn a_property_one_conjunct_does_not_declare_meets_its_additional_properties() {
        let schema = json!({"allOf": [{"properties": {"a": true}, "additionalProperties": false}, {"properties": {"b": {"type": "string"}}}]});
        let plan = Plan::new(&schema);
        let s = shape(&plan, plan.root);
        let b = s.properties.iter().find(|(n, _)| n == "b").expect("b").1;
        assert!(matches!(plan.node(b), Node::Never));
    }

    #[test]
    fn a_schema_nested_past_the_depth_limit_compiles() {
        let mut schema = json!({"type": "string"});
        for _ in 0..1000 {
            let mut properties = Map::new();
            properties.insert("a".to_owned(), schema);
            let mut node = Map::new();
            node.insert("properties".to_owned(), Value::Object(properties));
            schema = Value::Object(node);
        }
        let plan = Plan::new(&schema);
        assert!(plan.nodes.len() > walk::MAX_DEPTH);
        // Dropping a 1,000-deep value recurses in serde_json; forget it instead of testing that.
        std::mem::forget(schema);
    }

    #[test]
    fn only_recursions_every_valid_instance_of_which_is_endless_are_infinite() {
        let endless = json!({
            "type": "object", "required": ["and"], "additionalProperties": false,
            "properties": {"and": {"type": "array", "items": {"$ref": "#"}, "minItems": 2}}
        });
        assert!(!Plan::new(&endless).is_finite(Plan::new(&endless).root));
        for ends in [
            // the recursion is optional
            json!({"type": "object", "properties": {"and": {"type": "array", "items": {"$ref": "#"}, "minItems": 2}}}),
            // required but nullable, as a strict rewrite makes an optional property
            json!({"type": "object", "required": ["and"], "properties": {"and": {"anyOf": [{"type": "array", "items": {"$ref": "#"}, "minItems": 2}, {"type": "null"}]}}}),
            // the array may be empty
            json!({"type": "object", "required": ["and"], "properties": {"and": {"type": "array", "items": {"$ref": "#"}}}}),
            // a scalar ends it
            json!({"type": ["object", "string"], "required": ["and"], "properties": {"and": {"$ref": "#"}}}),
            // an enum pins it
            json!({"enum": [{"and": 1}], "required": ["and"], "properties": {"and": {"$ref": "#"}}}),
        ] {
            let plan = Plan::new(&ends);
            assert!(plan.is_finite(plan.root), "{ends}");
        }
    }

    #[test]
    fn a_valid_draw_from_an_endless_recursion_stops_at_once() {
        let endless = json!({
            "type": "object", "required": ["and", "or"],
            "properties": {"and": {"type": "array", "items": {"$ref": "#"}, "minItems": 2}, "or": {"type": "array", "items": {"$ref": "#"}, "minItems": 2}}
        });
        let plan = Plan::new(&endless);
        let mut rng = crate::witness::source_stream(1);
        for i in 0..8 {
            let drawn = crate::witness::draw(&plan, &mut rng, crate::witness::Pool::of(i));
            assert!(drawn.to_string().len() < 4096, "draw {i} ran on: {} bytes", drawn.to_string().len());
        }
    }

    #[test]
    fn large_enums_and_required_lists_compile_in_linear_time() {
        // Quadratic intersection or deduplication would take 100 times longer for ten times the
        // values; linear takes ten. A ratio within one run, not a wall-clock bound: the machine
        // may be loaded.
        let compile = |n: usize| {
            let big: Vec<Value> = (0..n).map(Value::from).collect();
            let names: Vec<Value> = (0..n).map(|i| Value::from(format!("k{i}"))).collect();
            let schema = json!({"allOf": [{"enum": big.clone()}, {"enum": big}, {"required": names.clone()}, {"required": names}]});
            let started = std::time::Instant::now();
            let plan = Plan::new(&schema);
            let s = shape(&plan, plan.root);
            assert_eq!(s.values.as_ref().map(Vec::len), Some(n));
            assert_eq!(s.required.len(), n);
            started.elapsed()
        };
        let small = compile(10_000);
        let large = compile(100_000);
        assert!(large < small * 40, "10x the values took {:.1}x the time ({small:?} -> {large:?})", large.as_secs_f64() / small.as_secs_f64());
    }

    #[test]
    fn any_of_is_a_choice_of_conjunctions() {
        let schema = json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]});
        let plan = Plan::new(&schema);
        let Node::Choice(branches) = plan.node(plan.root) else { panic!("a choice") };
        let required: Vec<_> = branches.iter().map(|b| shape(&plan, *b).required.clone()).collect();
        assert_eq!(required, [vec!["a".to_owned()], vec!["b".to_owned()]]);
    }
}
