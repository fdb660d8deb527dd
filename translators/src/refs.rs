//! The one reference resolver and the one `$defs` naming scheme of the built-in translators.
//!
//! [`Resolver`] indexes a document once and resolves a `$ref` written at a schema position the way
//! draft 2020-12 does within one document: a fragment is read against the nearest enclosing schema
//! resource (the nearest node with a string `$id`, else the document root), either as a JSON
//! pointer (percent-decoded first, then `~0`/`~1` unescaped by the pointer) or as a plain-name
//! anchor declared by `$anchor` or `$dynamicAnchor` *in that resource* (an embedded resource keeps
//! its anchors to itself). It guarantees:
//!
//! - a resolved target is a document pointer to a schema (an object or a boolean), never to data;
//! - a failure is a typed [`RefError`], so every translator words its own refusal;
//! - indexing visits only schema positions (through [`walk::children`]) and stops with
//!   [`walk::TooDeep`] past [`walk::MAX_DEPTH`], so no document can make it recurse without bound.
//!
//! References to other documents are never fetched: they are [`RefError::OtherDocument`].
//! [`Resolver::resolve`], which every translator calls, reads only `#` fragments and calls anything
//! else another document (translators refuse such references, and their refusals say so).
//! [`Resolver::resolve_uri`], which the oracle calls, also resolves a URI reference (RFC 3986 §5.2,
//! the common cases) against the base URI of the resource it is written in, and follows it when it
//! names this document or a resource embedded in it (`nested/b.json#/$defs/c`), since that is no
//! other document at all. Each resource's base URI is its `$id` joined against the base of the
//! resource around it; the document's own base, without `$id`, is [`DOCUMENT_BASE`].
//!
//! `Names` turns target pointers into plain, unique root `$defs` names, one scheme for every
//! translator that hoists: a root `$defs/<name>` keeps its name when it is plain, anything else is
//! named after its last pointer token, cleaned to the target's character set. The character set is
//! the one parameter (`Charset`), since providers differ in which `$defs` keys they accept.
//!
//! This lives beside [`walk`] rather than in `algebra`: it is about where things are in a
//! document, not what a schema means.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;

use crate::vocabulary::ValueKind;
use crate::walk;

/// The base URI of a document without `$id`: a URN, so that a relative `$id` or reference
/// against it stays as written (a URN has no path to join against) and still matches the `$id` it
/// names.
pub const DOCUMENT_BASE: &str = "urn:schema-fidelity:document";

/// Why a reference does not resolve in its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefError {
    /// The reference names another document, which is never fetched ([`Resolver::resolve`]: it is
    /// not a `#` fragment; [`Resolver::resolve_uri`]: its URI is neither this document's nor an
    /// embedded resource's).
    OtherDocument,
    /// The fragment's `%XX` escapes are malformed or do not spell UTF-8.
    Malformed,
    /// A plain-name fragment that no `$anchor`/`$dynamicAnchor` of the resource declares.
    UnknownAnchor {
        /// The anchor name, decoded.
        anchor: String,
    },
    /// The pointer names nothing, or names data rather than a schema.
    NotASchema {
        /// The document pointer the fragment led to.
        target: String,
    },
}

/// A document indexed for resolving references: every schema resource (a node with a string
/// `$id`) with its base URI, and every `$anchor`/`$dynamicAnchor` by the resource declaring it.
#[derive(Debug, Clone)]
pub struct Resolver<'a> {
    root: &'a Value,
    /// `(resource root pointer, anchor name)` -> pointer of the anchored node; the first in
    /// document order wins (a resource declaring an anchor twice is invalid anyway).
    anchors: BTreeMap<(String, String), String>,
    /// Resource root pointer -> its base URI (the root's is always here).
    bases: BTreeMap<String, String>,
    /// Base URI (without fragment) -> resource root pointer; the first in document order wins.
    /// [`DOCUMENT_BASE`] always names the root, with or without its own `$id`.
    resources: BTreeMap<String, String>,
}

impl<'a> Resolver<'a> {
    /// Index `root`.
    ///
    /// # Errors
    /// [`walk::TooDeep`] when the document nests past [`walk::MAX_DEPTH`].
    pub fn new(root: &'a Value) -> Result<Self, walk::TooDeep> {
        Self::index(root, true)
    }

    /// Index `root` down to [`walk::MAX_DEPTH`] and no further, for callers that must not fail (the
    /// oracle's generator): resources and anchors nested deeper are not indexed, so a reference to
    /// one of them does not resolve (a `#` pointer into the deep part still does).
    #[must_use]
    pub fn within_depth(root: &'a Value) -> Self {
        match Self::index(root, false) {
            Ok(resolver) => resolver,
            // Not reached (the lenient walk does not fail); an empty index resolves less, never wrongly.
            Err(_) => Self::unindexed(root),
        }
    }

    /// A resolver that has indexed nothing: `#` pointers resolve, anchors and URIs do not.
    fn unindexed(root: &'a Value) -> Self {
        Self { root, anchors: BTreeMap::new(), bases: BTreeMap::new(), resources: BTreeMap::new() }
    }

    /// One walk over the schema positions of `root`; past [`walk::MAX_DEPTH`] it fails when
    /// `strict`, and otherwise leaves the deeper part out.
    fn index(root: &'a Value, strict: bool) -> Result<Self, walk::TooDeep> {
        let mut resolver = Self::unindexed(root);
        let root_base = match root.get("$id").and_then(Value::as_str) {
            Some(id) => strip_fragment(&join(DOCUMENT_BASE, id)).to_owned(),
            None => DOCUMENT_BASE.to_owned(),
        };
        resolver.resources.insert(DOCUMENT_BASE.to_owned(), String::new());
        resolver.resources.entry(root_base.clone()).or_default();
        resolver.bases.insert(String::new(), root_base.clone());
        // (node, pointer, enclosing resource pointer, its base URI, depth). Children are pushed
        // in reverse so that nodes are visited in document order.
        let mut stack = vec![(root, String::new(), String::new(), root_base, 0usize)];
        while let Some((node, pointer, inherited, inherited_base, depth)) = stack.pop() {
            if depth > walk::MAX_DEPTH {
                if strict {
                    return Err(walk::TooDeep { pointer });
                }
                continue;
            }
            let (resource, base) = match node.get("$id").and_then(Value::as_str) {
                Some(_) if pointer.is_empty() => (inherited, inherited_base),
                Some(id) => {
                    let base = strip_fragment(&join(&inherited_base, id)).to_owned();
                    resolver.resources.entry(base.clone()).or_insert_with(|| pointer.clone());
                    resolver.bases.insert(pointer.clone(), base.clone());
                    (pointer.clone(), base)
                }
                None => (inherited, inherited_base),
            };
            for key in ["$anchor", "$dynamicAnchor"] {
                if let Some(name) = node.get(key).and_then(Value::as_str) {
                    resolver.anchors.entry((resource.clone(), name.to_owned())).or_insert_with(|| pointer.clone());
                }
            }
            for child in walk::children(node).into_iter().rev() {
                stack.push((child.schema, format!("{pointer}{}", child.pointer_suffix()), resource.clone(), base.clone(), depth + 1));
            }
        }
        Ok(resolver)
    }

    /// The document.
    #[must_use]
    pub fn root(&self) -> &'a Value {
        self.root
    }

    /// The value at a document pointer (`""` is the root).
    #[must_use]
    pub fn at(&self, pointer: &str) -> Option<&'a Value> {
        self.root.pointer(pointer)
    }

    /// The base URI of the resource holding the position `pointer` (see [`Resolver::resource_of`]),
    /// or `None` when that resource lies deeper than the index went.
    #[must_use]
    fn base_of(&self, pointer: &str) -> Option<&str> {
        self.bases.get(&self.resource_of(pointer)).map(String::as_str)
    }

    /// The pointer of the schema resource holding the position `pointer`: the nearest schema at or
    /// above it with a string `$id`, else the document root (`""`). Only schema positions count:
    /// the walk down follows keywords whose values are schemas and stops at data.
    #[must_use]
    pub fn resource_of(&self, pointer: &str) -> String {
        let tokens: Vec<String> = walk::tokens(pointer);
        let mut resource = String::new();
        let mut node = self.root;
        let mut at = String::new();
        let mut i = 0;
        loop {
            if !at.is_empty() && node.get("$id").is_some_and(Value::is_string) {
                resource.clone_from(&at);
            }
            let Some(keyword) = tokens.get(i) else { break };
            let steps = match walk::value_kind(keyword) {
                Some(ValueKind::SchemaMap | ValueKind::SchemaArray) => 2,
                Some(ValueKind::Schema) => 1,
                _ => break,
            };
            for _ in 0..steps {
                let Some(token) = tokens.get(i) else { break };
                at.push('/');
                at.push_str(&walk::escape(token));
                node = match node {
                    Value::Object(map) => map.get(token).unwrap_or(&Value::Null),
                    Value::Array(items) => token.parse::<usize>().ok().and_then(|n| items.get(n)).unwrap_or(&Value::Null),
                    _ => &Value::Null,
                };
                i += 1;
            }
        }
        resource
    }

    /// The document pointer of the schema a `#` reference written at the schema position `at`
    /// names. Any other reference is [`RefError::OtherDocument`], even one naming a resource
    /// embedded in this document: translators refuse those ([`Resolver::resolve_uri`] follows them).
    ///
    /// # Errors
    /// A [`RefError`] saying why it names no schema of this document.
    pub fn resolve(&self, reference: &str, at: &str) -> Result<String, RefError> {
        let fragment = reference.strip_prefix('#').ok_or(RefError::OtherDocument)?;
        let fragment = walk::percent_decode(fragment).ok_or(RefError::Malformed)?;
        self.in_resource(self.resource_of(at), fragment)
    }

    /// The document pointer of the schema any reference written at the schema position `at` names:
    /// a `#` fragment exactly as [`Resolver::resolve`]; a URI reference is joined against the base
    /// URI of the resource around `at`, and its fragment read in the resource with the resulting
    /// URI, which is this document or one embedded in it.
    ///
    /// # Errors
    /// [`RefError::OtherDocument`] when the URI names no resource of this document (or the base it
    /// is joined against lies deeper than the index went); otherwise as [`Resolver::resolve`].
    pub fn resolve_uri(&self, reference: &str, at: &str) -> Result<String, RefError> {
        if reference.starts_with('#') {
            return self.resolve(reference, at);
        }
        let (uri, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let base = self.base_of(at).ok_or(RefError::OtherDocument)?;
        let resource = self.resources.get(strip_fragment(&join(base, uri))).ok_or(RefError::OtherDocument)?;
        let fragment = walk::percent_decode(fragment).ok_or(RefError::Malformed)?;
        self.in_resource(resource.clone(), fragment)
    }

    /// What a reference written at `at` leads to, for the oracle, which follows what a validator
    /// may follow: [`Resolver::resolve_uri`]'s target, or the value a pointer leads to even when it
    /// is data rather than a schema (a validator may read that value as a schema, so the generator
    /// and the `$ref`-chain budget read it too). `None` when it leads nowhere in this document.
    #[must_use]
    pub fn follow(&self, reference: &str, at: &str) -> Option<(String, &'a Value)> {
        match self.resolve_uri(reference, at) {
            Ok(target) | Err(RefError::NotASchema { target }) => self.at(&target).map(|value| (target, value)),
            Err(_) => None,
        }
    }

    /// The pointer a decoded fragment names in the resource rooted at `resource`.
    fn in_resource(&self, resource: String, fragment: String) -> Result<String, RefError> {
        let target = if fragment.is_empty() || fragment.starts_with('/') {
            format!("{resource}{fragment}")
        } else {
            let key = (resource, fragment);
            match self.anchors.get(&key) {
                Some(target) => target.clone(),
                None => return Err(RefError::UnknownAnchor { anchor: key.1 }),
            }
        };
        match self.at(&target) {
            Some(value) if walk::is_schema(value) => Ok(target),
            _ => Err(RefError::NotASchema { target }),
        }
    }
}

/// [`Resolver::resolve`] for a single reference, indexing anchors only when the fragment is one:
/// for callers that resolve a reference now and then and should not index the document each time.
///
/// # Errors
/// As [`Resolver::resolve`]; a document too deep to index has no anchors.
pub(crate) fn resolve_once(root: &Value, reference: &str, at: &str) -> Result<String, RefError> {
    let fragment = reference.strip_prefix('#').ok_or(RefError::OtherDocument)?;
    let anchored = walk::percent_decode(fragment).is_some_and(|f| !f.is_empty() && !f.starts_with('/'));
    let resolver = if anchored { Resolver::new(root).unwrap_or_else(|_| Resolver::unindexed(root)) } else { Resolver::unindexed(root) };
    resolver.resolve(reference, at)
}

/// `uri` without its fragment.
fn strip_fragment(uri: &str) -> &str {
    uri.split_once('#').map_or(uri, |(u, _)| u)
}

/// Whether `s` starts with a URI scheme (`https:`, `urn:`, ...).
fn has_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Resolve `reference` against `base` (RFC 3986 section 5.2, the common cases: absolute,
/// network-path, absolute-path, relative-path and fragment-only references). A relative reference
/// against a base without hierarchy (`urn:`) is returned as it is: it then matches an `$id`
/// written the same way, and nothing else.
fn join(base: &str, reference: &str) -> String {
    if has_scheme(reference) {
        return reference.to_owned();
    }
    if reference.starts_with('#') {
        // Same document: the base without its fragment, with the reference's.
        return format!("{}{reference}", strip_fragment(base));
    }
    let Some((scheme, rest)) = base.split_once("://") else {
        return if reference.is_empty() { base.to_owned() } else { reference.to_owned() };
    };
    if let Some(authority_relative) = reference.strip_prefix("//") {
        return format!("{scheme}://{authority_relative}");
    }
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    let path = strip_fragment(path);
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let merged = if let Some(absolute) = reference.strip_prefix('/') {
        absolute.to_owned()
    } else if reference.is_empty() {
        path.to_owned()
    } else {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        if dir.is_empty() { reference.to_owned() } else { format!("{dir}/{reference}") }
    };
    format!("{scheme}://{authority}/{}", remove_dot_segments(&merged))
}

/// RFC 3986 section 5.2.4 over a path without its leading `/`: `.` segments dropped, `..` removing
/// the segment before it (never above the root).
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

/// Which characters a target accepts in a `$defs` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charset {
    /// `[A-Za-z0-9_-]`: OpenAI strict mode (`#/$defs/[A-Za-z0-9_-]+`, its grammar).
    Dashed,
    /// `[A-Za-z0-9_.-]`: Moonshot's walle (`#/$defs/[A-Za-z0-9_.-]+`).
    Dotted,
    /// `[A-Za-z0-9_]`: identifiers, for targets that state no rule (Gemini); no `-` either, so a
    /// name reads as an identifier wherever a client turns definitions into types.
    Word,
}

impl Charset {
    fn allows(self, c: char) -> bool {
        c.is_ascii_alphanumeric()
            || c == '_'
            || match self {
                Self::Dashed => c == '-',
                Self::Dotted => matches!(c, '-' | '.'),
                Self::Word => false,
            }
    }

    /// What joins a stem to its clash counter (`-2`, or `_2` where `-` is not allowed).
    fn separator(self) -> char {
        if self.allows('-') { '-' } else { '_' }
    }
}

/// The longest name [`Names`] derives (OpenAI's own limit for names; generous elsewhere).
const MAX_NAME: usize = 64;

/// Plain, unique root `$defs` names for hoisted targets, and the worklist of targets named but
/// not yet written: every translator that hoists names a target where it meets a reference to it,
/// then writes one definition per named target, first named first ([`Names::next_unwritten`]),
/// so the hoisting order is the same everywhere.
///
/// A target at `/$defs/<name>` keeps `<name>` when it is plain (non-empty, within the charset,
/// at most [`MAX_NAME`] characters); those names are reserved when the scheme is created, so no
/// other target takes them first. Any other target is named after its last pointer token with the
/// characters outside the charset removed (the document root is `root`); an empty or numeric stem
/// becomes `def-<stem>`, and a name already taken gets `-2`, `-3`, ... (with `_` where `-` is
/// not allowed).
#[derive(Debug, Clone)]
pub(crate) struct Names {
    charset: Charset,
    /// Target pointer -> its name.
    names: BTreeMap<String, String>,
    /// Root `$defs` targets whose names are kept, until first named.
    reserved: BTreeMap<String, String>,
    taken: BTreeSet<String>,
    /// Targets named whose definitions are not written yet, first named first.
    unwritten: VecDeque<String>,
}

impl Names {
    /// A scheme for `document`, reserving the plain names of its root `$defs`.
    #[must_use]
    pub(crate) fn new(document: &Value, charset: Charset) -> Self {
        let mut reserved = BTreeMap::new();
        let mut taken = BTreeSet::new();
        for name in document.get("$defs").and_then(Value::as_object).into_iter().flat_map(serde_json::Map::keys) {
            if plain(name, charset) && taken.insert(name.clone()) {
                reserved.insert(format!("/$defs/{}", walk::escape(name)), name.clone());
            }
        }
        Self { charset, names: BTreeMap::new(), reserved, taken, unwritten: VecDeque::new() }
    }

    /// The name of `target`. The first call for a target names it and puts it on the worklist.
    pub(crate) fn name(&mut self, target: &str) -> String {
        if let Some(name) = self.names.get(target) {
            return name.clone();
        }
        let name = match self.reserved.remove(target) {
            Some(name) => name,
            None => {
                let stem = self.stem(target);
                self.fresh(&stem)
            }
        };
        self.names.insert(target.to_owned(), name.clone());
        self.unwritten.push_back(target.to_owned());
        name
    }

    /// The next target named whose definition is not written yet, with its name; the caller
    /// writes it (which may name more targets). `None` once every named target is taken.
    pub(crate) fn next_unwritten(&mut self) -> Option<(String, String)> {
        let target = self.unwritten.pop_front()?;
        let name = self.names.get(&target).cloned().unwrap_or_default();
        Some((target, name))
    }

    /// A name for something that is not a document target (a definition the translator writes
    /// itself), `base` cleaned and made unique.
    pub(crate) fn fresh(&mut self, base: &str) -> String {
        let stem = self.clean(base);
        let mut name = stem.clone();
        let mut n = 2;
        while !self.taken.insert(name.clone()) {
            name = format!("{stem}{}{n}", self.charset.separator());
            n += 1;
        }
        name
    }

    fn stem(&self, target: &str) -> String {
        if target.is_empty() {
            return "root".to_owned();
        }
        let last = walk::tokens(target).pop().unwrap_or_default();
        self.clean(&last)
    }

    fn clean(&self, raw: &str) -> String {
        let cleaned: String = raw.chars().filter(|c| self.charset.allows(*c)).take(MAX_NAME).collect();
        if cleaned.is_empty() {
            "def".to_owned()
        } else if cleaned.chars().all(|c| c.is_ascii_digit()) {
            format!("def{}{cleaned}", self.charset.separator())
        } else {
            cleaned
        }
    }
}

fn plain(name: &str, charset: Charset) -> bool {
    !name.is_empty() && name.chars().count() <= MAX_NAME && name.chars().all(|c| charset.allows(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fragments_resolve_against_the_nearest_embedded_resource() {
        let doc = json!({
            "$defs": {"a": {"type": "null"}},
            "properties": {
                "v": {"$id": "urn:x", "$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a",
                      "properties": {"w": {"$ref": "#"}}},
                "b": {"$ref": "#/properties/v"}
            }
        });
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.resolve("#/$defs/a", "/properties/v"), Ok("/properties/v/$defs/a".to_owned()));
        assert_eq!(r.resolve("#", "/properties/v/properties/w"), Ok("/properties/v".to_owned()));
        assert_eq!(r.resolve("#/$defs/a", "/properties/b"), Ok("/$defs/a".to_owned()));
        assert_eq!(r.resolve("#/properties/v", "/properties/b"), Ok("/properties/v".to_owned()));
        assert_eq!(r.resource_of("/properties/v/$defs/a"), "/properties/v");
        assert_eq!(r.resource_of("/properties/b"), "");
    }

    #[test]
    fn anchors_belong_to_their_resource() {
        let doc = json!({
            "$defs": {"top": {"$anchor": "here", "type": "null"}},
            "properties": {
                "v": {"$id": "urn:x", "$defs": {"in": {"$dynamicAnchor": "here", "type": "string"}}},
                "w": {"$ref": "#here"}
            }
        });
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.resolve("#here", ""), Ok("/$defs/top".to_owned()));
        assert_eq!(r.resolve("#here", "/properties/v"), Ok("/properties/v/$defs/in".to_owned()));
        assert_eq!(r.resolve("#here", "/properties/w"), Ok("/$defs/top".to_owned()));
        assert_eq!(r.resolve("#elsewhere", ""), Err(RefError::UnknownAnchor { anchor: "elsewhere".to_owned() }));
    }

    #[test]
    fn fragments_are_percent_decoded_then_pointer_unescaped() {
        let doc = json!({"$defs": {"percent%field": true, "a/b": {"type": "string"}, "t~x": false, "a b": {}}});
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.resolve("#/$defs/percent%25field", ""), Ok("/$defs/percent%field".to_owned()));
        assert_eq!(r.resolve("#/%24defs/a~1b", ""), Ok("/$defs/a~1b".to_owned()));
        assert_eq!(r.resolve("#/$defs/t~0x", ""), Ok("/$defs/t~0x".to_owned()));
        assert_eq!(r.resolve("#/$defs/a%20b", ""), Ok("/$defs/a b".to_owned()));
        assert_eq!(r.resolve("#/$defs/bad%2", ""), Err(RefError::Malformed));
        assert_eq!(r.resolve("#/$defs/bad%ff", ""), Err(RefError::Malformed));
    }

    #[test]
    fn data_and_missing_targets_and_other_documents_are_errors() {
        let doc = json!({"enum": [{"type": "string"}], "const": 3, "properties": {"a": {"type": "string"}}});
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.resolve("#/const", ""), Err(RefError::NotASchema { target: "/const".to_owned() }));
        assert_eq!(r.resolve("#/nowhere", ""), Err(RefError::NotASchema { target: "/nowhere".to_owned() }));
        assert_eq!(r.resolve("other.json#/a", ""), Err(RefError::OtherDocument));
        assert_eq!(r.resolve("https://example.com/s.json", ""), Err(RefError::OtherDocument));
        // `enum` holds data, so an anchor-like key inside it declares nothing.
        let data = json!({"enum": [{"$anchor": "x"}]});
        assert!(matches!(Resolver::new(&data).unwrap().resolve("#x", ""), Err(RefError::UnknownAnchor { .. })));
    }

    #[test]
    fn one_shot_resolution_agrees_with_the_index() {
        let doc = json!({"$defs": {"a": {"$anchor": "x"}}, "properties": {"v": {"$id": "urn:v", "$defs": {"a": {"$anchor": "x"}}}}});
        let r = Resolver::new(&doc).unwrap();
        for (reference, at) in [("#x", ""), ("#x", "/properties/v"), ("#/$defs/a", "/properties/v"), ("#/$defs/a", ""), ("#y", ""), ("#/%", ""), ("u.json", "")] {
            assert_eq!(resolve_once(&doc, reference, at), r.resolve(reference, at), "{reference} at {at}");
        }
    }

    #[test]
    fn indexing_is_bounded() {
        let mut doc = json!({"$anchor": "deep", "type": "string"});
        for _ in 0..(walk::MAX_DEPTH + 2) {
            doc = json!({"items": doc});
        }
        assert!(Resolver::new(&doc).is_err());
        // The lenient index stops at the bound: the deep anchor is unknown, a pointer still resolves.
        let lenient = Resolver::within_depth(&doc);
        assert!(matches!(lenient.resolve_uri("#deep", ""), Err(RefError::UnknownAnchor { .. })));
        let deep = "/items".repeat(walk::MAX_DEPTH + 2);
        assert_eq!(lenient.resolve_uri(&format!("#{deep}"), ""), Ok(deep));
    }

    /// Ported from the oracle's generator, whose own resolver this one replaced.
    #[test]
    fn pointers_anchors_and_embedded_resources_resolve() {
        let doc = json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "a": {"$anchor": "here", "type": "integer"},
                "b": {"$id": "nested/b.json", "$defs": {"c": {"type": "string"}}},
                "pct": {"type": "null"}
            }
        });
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.resolve_uri("#/$defs/a", ""), Ok("/$defs/a".to_owned()));
        assert_eq!(r.resolve_uri("#here", ""), Ok("/$defs/a".to_owned()));
        assert_eq!(r.resolve_uri("nested/b.json#/$defs/c", ""), Ok("/$defs/b/$defs/c".to_owned()));
        assert_eq!(r.resolve_uri("#/$defs/c", "/$defs/b"), Ok("/$defs/b/$defs/c".to_owned()));
        assert_eq!(r.resolve_uri("../root.json#/$defs/%70ct", "/$defs/b"), Ok("/$defs/pct".to_owned()));
        assert_eq!(r.resolve_uri("https://example.com/nested/b.json", ""), Ok("/$defs/b".to_owned()));
        assert_eq!(r.resolve_uri("/root.json#here", "/$defs/b/$defs/c"), Ok("/$defs/a".to_owned()));
        assert_eq!(r.resolve_uri("https://other.example/x.json", ""), Err(RefError::OtherDocument));
        assert_eq!(r.resolve_uri("nested/c.json#/x", ""), Err(RefError::OtherDocument));
        assert_eq!(r.resolve_uri("root.json", "/$defs/b"), Err(RefError::OtherDocument), "that is nested/root.json");
        assert_eq!(r.resolve_uri("nested/b.json#nowhere", ""), Err(RefError::UnknownAnchor { anchor: "nowhere".to_owned() }));
        assert_eq!(r.resolve_uri("nested/b.json#/type", ""), Err(RefError::NotASchema { target: "/$defs/b/type".to_owned() }));
        assert_eq!(r.follow("nested/b.json#/$id", ""), Some(("/$defs/b/$id".to_owned(), &json!("nested/b.json"))));
        assert_eq!(r.follow("#/nowhere", ""), None);
        assert_eq!(r.follow("#here", "/$defs/b"), None);
        assert_eq!(r.follow("#here", ""), Some(("/$defs/a".to_owned(), &doc["$defs"]["a"])));
        assert_eq!(r.resolve_uri("root.json#/bad%2", ""), Err(RefError::Malformed));
        assert_eq!(r.base_of("/$defs/b/$defs/c"), Some("https://example.com/nested/b.json"));
        // The translators' method still reads `#` fragments only.
        assert_eq!(r.resolve("nested/b.json#/$defs/c", ""), Err(RefError::OtherDocument));
    }

    #[test]
    fn a_document_without_id_has_the_fixed_base() {
        let doc = json!({
            "$defs": {"b": {"$id": "b.json", "$defs": {"c": {"$anchor": "c"}}}, "u": {"$id": "urn:example:u", "type": "null"}}
        });
        let r = Resolver::new(&doc).unwrap();
        assert_eq!(r.base_of(""), Some(DOCUMENT_BASE));
        assert_eq!(r.resolve_uri(DOCUMENT_BASE, "/$defs/b"), Ok(String::new()));
        assert_eq!(r.resolve_uri(&format!("{DOCUMENT_BASE}#/$defs/u"), ""), Ok("/$defs/u".to_owned()));
        // A relative `$id` against a URN stays as written, and a reference written the same way finds it.
        assert_eq!(r.resolve_uri("b.json#c", ""), Ok("/$defs/b/$defs/c".to_owned()));
        assert_eq!(r.resolve_uri("urn:example:u", "/$defs/b"), Ok("/$defs/u".to_owned()));
        assert_eq!(r.resolve_uri("c.json", ""), Err(RefError::OtherDocument));
    }

    #[test]
    fn joins_follow_rfc_3986() {
        assert_eq!(join("https://a.example/x/y.json", "z.json"), "https://a.example/x/z.json");
        assert_eq!(join("https://a.example/x/y.json", "../z.json"), "https://a.example/z.json");
        assert_eq!(join("https://a.example/x/y.json", "./z.json"), "https://a.example/x/z.json");
        assert_eq!(join("https://a.example/x/y.json", "/z.json"), "https://a.example/z.json");
        assert_eq!(join("https://a.example/x/y.json", "//b.example/z.json"), "https://b.example/z.json");
        assert_eq!(join("https://a.example/x/y.json", ""), "https://a.example/x/y.json");
        assert_eq!(join("https://a.example/x/y.json#f", "#g"), "https://a.example/x/y.json#g");
        assert_eq!(join("urn:x:y", "urn:x:z"), "urn:x:z");
        assert_eq!(join("urn:x:y", "z.json"), "z.json");
        assert_eq!(join("urn:x:y", "#g"), "urn:x:y#g");
        assert_eq!(remove_dot_segments("a/b/../../../c/./d"), "c/d");
        assert!(has_scheme("https://x") && has_scheme("urn:x") && !has_scheme("a/b:c") && !has_scheme("1a:b") && !has_scheme("b.json"));
    }

    #[test]
    fn names_are_plain_unique_and_keep_root_definitions() {
        let doc = json!({"$defs": {"a": {}, "b.c": {}, "1": {}, "x y": {}}});
        let mut names = Names::new(&doc, Charset::Dashed);
        // A nested `a` cannot take the root's `a`, reserved before it was first named.
        assert_eq!(names.name("/properties/p/$defs/a"), "a-2");
        assert_eq!(names.name("/$defs/a"), "a");
        assert_eq!(names.name("/$defs/a"), "a");
        assert_eq!(names.name("/$defs/b.c"), "bc");
        assert_eq!(names.name("/$defs/1"), "1");
        assert_eq!(names.name("/$defs/x y"), "xy");
        assert_eq!(names.name("/anyOf/0"), "def-0");
        assert_eq!(names.name("/properties/~1~0"), "def");
        assert_eq!(names.name("/properties/%"), "def-2");
        assert_eq!(names.name(""), "root");
        assert_eq!(names.fresh("json_value"), "json_value");
        assert_eq!(names.fresh("json_value"), "json_value-2");

        let mut dotted = Names::new(&doc, Charset::Dotted);
        assert_eq!(dotted.name("/$defs/b.c"), "b.c");
        let mut word = Names::new(&json!({}), Charset::Word);
        assert_eq!(word.name("/properties/a-b"), "ab");
        assert_eq!(word.name("/items/ab"), "ab_2");
        assert_eq!(word.name("/prefixItems/3"), "def_3");
        let long = "x".repeat(100);
        assert_eq!(word.name(&format!("/properties/{long}")).len(), MAX_NAME);
    }

    #[test]
    fn named_targets_are_written_first_named_first_and_once() {
        let mut names = Names::new(&json!({"$defs": {"a": {}}}), Charset::Dashed);
        assert_eq!(names.name("/$defs/a"), "a");
        assert_eq!(names.name("/properties/b"), "b");
        assert_eq!(names.name("/$defs/a"), "a");
        assert_eq!(names.fresh("json_value"), "json_value");
        assert_eq!(names.next_unwritten(), Some(("/$defs/a".to_owned(), "a".to_owned())));
        // Writing a definition may name another target: it joins the end of the worklist.
        assert_eq!(names.name("/items"), "items");
        assert_eq!(names.next_unwritten(), Some(("/properties/b".to_owned(), "b".to_owned())));
        assert_eq!(names.next_unwritten(), Some(("/items".to_owned(), "items".to_owned())));
        assert_eq!(names.next_unwritten(), None);
    }
}
