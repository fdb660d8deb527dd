//! Naming the occurrences a deviation is pinned on.
//!
//! A widening is pinned where the source (loosened by the table) still rejects it: each error of
//! that bound names a source node and keyword. A narrowing is pinned where the projection rejects
//! it: each projection error names an instance location, which the instance locator turns into
//! the source nodes in force there, and a keyword, matched to the source's occurrence of the same
//! family at those nodes.

use schema_fidelity_translators::locate;
use schema_fidelity_translators::vocabulary::ValueKind;
use schema_fidelity_translators::walk;
use serde_json::{Map, Value};

use crate::verdict::Culprit;

/// The occurrences a widening is rejected at in `relaxed` (the source loosened by the table),
/// `x` being the source-side instance. `provenance` maps the locations the bound rewrote (a
/// `oneOf` bounded both ways, a second copy of the document) back to the source's occurrences.
pub(super) fn widening(relaxed: &Value, validator: &jsonschema::Validator, x: &Value, provenance: &Provenance) -> Vec<Culprit> {
    let mut out: Vec<Culprit> = Vec::new();
    for error in validator.iter_errors(x) {
        for leaf in leaves(&error, None) {
            let path = leaf.schema_path().as_str().to_owned();
            let instance_at = leaf.instance_path().as_str().to_owned();
            if let Some((node, keyword)) = provenance.source_of(&path) {
                push(&mut out, Culprit { node, keyword, instance_at, inverted: false, also_at: Vec::new() });
                continue;
            }
            let path = provenance.in_source(&path);
            let (node, keyword) = split_keyword(&path, relaxed);
            let value = relaxed.pointer(&path).filter(|_| is_schema_position(&path));
            let inverted = matches!(value, Some(Value::Bool(false))) || (keyword == "not" && value.is_some_and(is_empty_schema));
            push(&mut out, Culprit { node, keyword, instance_at, inverted, also_at: Vec::new() });
        }
    }
    out
}

/// The source occurrences in force where `projection` rejects `encoded` (the encoding of the
/// source-side `x`): for each projection error, the source nodes at its instance location with
/// the keyword the projection failed on (or the deepest node, keyword empty, when the source has
/// no occurrence of that family there). `occurs(node, keyword)` says whether the source has one.
pub(super) fn narrowing(
    source: &Value,
    resolver: Option<&schema_fidelity_translators::refs::Resolver<'_>>,
    projection: &jsonschema::Validator,
    x: &Value,
    encoded: &Value,
    occurs: &dyn Fn(&str, &str) -> Vec<String>,
) -> Vec<Culprit> {
    let mut out: Vec<Culprit> = Vec::new();
    for error in projection.iter_errors(encoded) {
        for leaf in leaves(&error, Some(source)) {
            let at = leaf.instance_path().as_str().to_owned();
            let keyword = leaf.kind().keyword().to_owned();
            // Where the source has no schema for that location (an item of an array the source
            // constrains only by `enum`), the nearest enclosing location it has one for.
            let mut nodes = locate::applicable_nodes_with(resolver, source, x, &at);
            let mut up = at.as_str();
            while nodes.is_empty() && !up.is_empty() {
                up = up.rfind('/').map_or("", |i| &up[..i]);
                nodes = locate::applicable_nodes_with(resolver, source, x, up);
            }
            let mut named = false;
            for node in &nodes {
                for k in occurs(node, &keyword) {
                    push(&mut out, Culprit { node: node.clone(), keyword: k, instance_at: at.clone(), inverted: false, also_at: Vec::new() });
                    named = true;
                }
            }
            if !named && let Some(node) = nodes.last() {
                let also_at = nodes[..nodes.len() - 1].to_vec();
                push(&mut out, Culprit { node: node.clone(), keyword: String::new(), instance_at: at.clone(), inverted: false, also_at });
            }
        }
    }
    out
}

/// The errors a union's failure comes down to: for `anyOf`/`oneOf` with no branch matching, the
/// errors of the branches meant for the instance (those it has the type of, when some do), else the
/// union itself. A `oneOf` that matched several branches is the `oneOf`'s own failure.
///
/// For a narrowing (`source` given), a projection `anyOf` standing where the source has one of as
/// many branches, some of them accepting anything (`true`, `{}`): the source accepts the instance
/// through those, so their counterparts' errors are what the union's failure comes down to, a type
/// error included (a `true` branch a translator wrote as `{type: boolean}` is what narrowed).
fn leaves<'e>(error: &'e jsonschema::ValidationError<'e>, source: Option<&Value>) -> Vec<&'e jsonschema::ValidationError<'e>> {
    use jsonschema::error::ValidationErrorKind as K;
    let (K::AnyOf { context } | K::OneOfNotValid { context }) = error.kind() else { return vec![error] };
    if matches!(error.kind(), K::AnyOf { .. })
        && let Some(Value::Array(branches)) = source.and_then(|s| s.pointer(error.schema_path().as_str()))
        && branches.len() == context.len()
    {
        let open: Vec<usize> = (0..branches.len()).filter(|i| is_any_value(&branches[*i]) && !context[*i].is_empty()).collect();
        if !open.is_empty() {
            return open.into_iter().flat_map(|i| context[i].iter().flat_map(|e| leaves(e, source))).collect();
        }
    }
    let at = error.instance_path().as_str();
    let typed: Vec<&Vec<jsonschema::ValidationError<'e>>> =
        context.iter().filter(|branch| !branch.is_empty() && !branch.iter().any(|e| matches!(e.kind(), K::Type { .. }) && e.instance_path().as_str() == at)).collect();
    let branches: Vec<&Vec<jsonschema::ValidationError<'e>>> = if typed.is_empty() { context.iter().filter(|b| !b.is_empty()).collect() } else { typed };
    if branches.is_empty() {
        return vec![error];
    }
    branches.into_iter().flat_map(|branch| branch.iter().flat_map(|e| leaves(e, source))).collect()
}

/// A subschema that accepts every instance: `true` or `{}`.
fn is_any_value(schema: &Value) -> bool {
    schema == &Value::Bool(true) || schema.as_object().is_some_and(Map::is_empty)
}

/// Where the locations of a bound came from: the parts the bound wrote itself (a `oneOf`, `if` or
/// bounded `contains` rewritten to follow polarity, a `oneOf` read as `anyOf`) name the source
/// occurrence they stand for, and the second copy of the document maps to the source by its
/// prefix.
#[derive(Debug, Clone, Default)]
pub(super) struct Provenance {
    /// (location in the bound, source node, source keyword), longest locations first.
    pub written: Vec<(String, String, String)>,
    /// The prefix of the second copy (`/$defs/sf:other`), if one was made.
    pub copy: Option<String>,
}

impl Provenance {
    /// The source occurrence a location the bound wrote stands for.
    fn source_of(&self, path: &str) -> Option<(String, String)> {
        let path = self.in_source(path);
        self.written
            .iter()
            .find(|(at, _, _)| path == *at || path.strip_prefix(at.as_str()).is_some_and(|rest| rest.starts_with('/')))
            .map(|(_, node, keyword)| (node.clone(), keyword.clone()))
    }

    /// A location of the second copy as the source location it copies.
    fn in_source(&self, path: &str) -> String {
        match &self.copy {
            Some(prefix) => path.strip_prefix(prefix.as_str()).filter(|rest| rest.is_empty() || rest.starts_with('/')).unwrap_or(path).to_owned(),
            None => path.to_owned(),
        }
    }
}

/// Whether a projection's keyword can stand for the source's: the same keyword, or one spelled
/// another way (`maximum` for `exclusiveMaximum`, `enum` for `const`, a `false` schema for
/// `additionalProperties: false`).
pub(super) fn same_family(source: &str, projection: &str) -> bool {
    const FAMILIES: &[&[&str]] = &[
        &["minimum", "exclusiveMinimum"],
        &["maximum", "exclusiveMaximum"],
        &["enum", "const"],
        &["additionalProperties", "unevaluatedProperties", "falseSchema", "false"],
        &["items", "prefixItems", "unevaluatedItems"],
    ];
    source == projection || FAMILIES.iter().any(|f| f.contains(&source) && f.contains(&projection))
}

fn push(out: &mut Vec<Culprit>, culprit: Culprit) {
    if !out.contains(&culprit) {
        out.push(culprit);
    }
}

/// Whether a keyword location names a subschema position (the value of a schema-valued keyword,
/// or an entry of a schema map or array), not data that happens to be `false` (`const: false`).
pub(super) fn is_schema_position(path: &str) -> bool {
    let tokens = walk::tokens(path);
    match tokens.as_slice() {
        [] => true,
        [.., last] if walk::value_kind(last) == Some(ValueKind::Schema) => true,
        [.., keyword, _] => matches!(walk::value_kind(keyword), Some(ValueKind::SchemaMap | ValueKind::SchemaArray)),
        _ => false,
    }
}

pub(super) fn is_empty_schema(value: &Value) -> bool {
    matches!(value, Value::Bool(true)) || value.as_object().is_some_and(Map::is_empty)
}

/// Split a keyword location into its node and keyword. A location naming a boolean subschema
/// (`/properties/a` holding `false`) is the node itself, keyword `false`.
pub(super) fn split_keyword(path: &str, schema: &Value) -> (String, String) {
    if let Some(Value::Bool(b)) = schema.pointer(path) {
        return (path.to_owned(), b.to_string());
    }
    match path.rsplit_once('/') {
        Some((node, keyword)) => (node.to_owned(), keyword.replace("~1", "/").replace("~0", "~")),
        None => (String::new(), path.to_owned()),
    }
}
