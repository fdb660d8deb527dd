//! The normal form `gemini-proto` computes: a disjunction ([`Disj`]) of typed branches
//! ([`Branch`]), one per JSON type a node admits, each holding only what the proto can say about
//! that type, and [`simplify`], which keeps a disjunction free of duplicates.
//!
//! Separate because both halves of the translator speak it: [`super::lower`] builds it from the
//! source and [`super::emit`] writes it out as the proto `Schema`.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::types::Types;

/// A proto `Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ty {
    String,
    Number,
    Integer,
    Boolean,
    Array,
    Object,
    Null,
}

impl Ty {
    pub(super) fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "string" => Self::String,
            "number" => Self::Number,
            "integer" => Self::Integer,
            "boolean" => Self::Boolean,
            "array" => Self::Array,
            "object" => Self::Object,
            "null" => Self::Null,
            _ => return None,
        })
    }

    /// The shared type set of this proto type.
    fn types(self) -> Types {
        match self {
            Self::String => Types::STRING,
            Self::Number => Types::NUMBER,
            Self::Integer => Types::INTEGER,
            Self::Boolean => Types::BOOLEAN,
            Self::Array => Types::ARRAY,
            Self::Object => Types::OBJECT,
            Self::Null => Types::NULL,
        }
    }

    pub(super) fn proto(self) -> &'static str {
        match self {
            Self::String => "STRING",
            Self::Number => "NUMBER",
            Self::Integer => "INTEGER",
            Self::Boolean => "BOOLEAN",
            Self::Array => "ARRAY",
            Self::Object => "OBJECT",
            Self::Null => "NULL",
        }
    }

    /// The type of instances both `self` and `other` admit (`integer` is a `number`), by the
    /// shared type set.
    pub(super) fn meet(self, other: Self) -> Option<Self> {
        Self::parse(self.types().and(other.types()).single()?)
    }
}

/// Every JSON type (`integer` is inside `number`).
pub(super) const ALL_TYPES: [Ty; 6] = [Ty::String, Ty::Number, Ty::Boolean, Ty::Array, Ty::Object, Ty::Null];

/// One typed branch of the normal form: what the proto can say about one JSON type.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Branch {
    pub(super) ty: Ty,
    /// Allowed strings (`None`: any).
    pub(super) strings: Option<Vec<String>>,
    pub(super) date_time: bool,
    pub(super) minimum: Option<Value>,
    pub(super) maximum: Option<Value>,
    /// Every item's schema (`None`: unconstrained).
    pub(super) items: Option<Disj>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) properties: Vec<(String, Disj)>,
    pub(super) required: Vec<String>,
    pub(super) title: Option<String>,
    /// Description paragraphs.
    pub(super) notes: Vec<String>,
    pub(super) default: Option<Value>,
}

/// A disjunction of branches; empty accepts nothing.
pub(super) type Disj = Vec<Branch>;

impl Branch {
    pub(super) fn new(ty: Ty) -> Self {
        Self {
            ty,
            strings: None,
            date_time: false,
            minimum: None,
            maximum: None,
            items: None,
            min_items: None,
            max_items: None,
            properties: Vec::new(),
            required: Vec::new(),
            title: None,
            notes: Vec::new(),
            default: None,
        }
    }

    pub(super) fn note(&mut self, paragraph: String) {
        if !self.notes.contains(&paragraph) {
            self.notes.push(paragraph);
        }
    }
}

/// Every value, in normal form.
pub(super) fn any() -> Disj {
    ALL_TYPES.iter().map(|t| Branch::new(*t)).collect()
}

/// Whether two STRING branches differ at most in their `enum`.
fn same_but_strings(a: &Branch, b: &Branch) -> bool {
    a.ty == Ty::String
        && b.ty == Ty::String
        && a.date_time == b.date_time
        && a.title == b.title
        && a.notes == b.notes
        && a.default == b.default
        && a.strings.is_some() == b.strings.is_some()
}

/// What `same_but_strings` compares of a STRING branch, but its `default`: `date_time`, `title`,
/// `notes` and whether it has an `enum`.
type StringClass = (bool, Option<String>, Vec<String>, bool);

/// Drop duplicate branches and unite string branches that differ only in their `enum`.
///
/// An `enum` of n values arrives here as n branches, so nothing is searched pairwise: branches
/// are bucketed by a key their equality implies, and the strings of a united branch are kept in a
/// set beside it (a pairwise search took minutes on an enum of 100,000 values).
pub(super) fn simplify(branches: Disj) -> Disj {
    let mut out: Disj = Vec::with_capacity(branches.len());
    // STRING branches: each class of `same_but_strings` has at most one branch in `out` (a later
    // one unites into it), found by its key; an exact duplicate of it unites to no change.
    let mut classes: HashMap<StringClass, Vec<usize>> = HashMap::new();
    let mut united: HashMap<usize, HashSet<String>> = HashMap::new();
    // Other branches: exact duplicates, bucketed by the fields equality compares most cheaply.
    let mut buckets: HashMap<String, Vec<usize>> = HashMap::new();
    for b in branches {
        if b.ty == Ty::String {
            let key = (b.date_time, b.title.clone(), b.notes.clone(), b.strings.is_some());
            let class = classes.entry(key).or_default();
            if let Some(&i) = class.iter().find(|&&i| same_but_strings(&out[i], &b)) {
                if let (Some(existing), Some(added)) = (out[i].strings.as_mut(), b.strings) {
                    let set = united.entry(i).or_insert_with(|| existing.iter().cloned().collect());
                    // The union: the strings not already there, in their order.
                    let new: Vec<String> = added.into_iter().filter(|s| !set.contains(s)).collect();
                    set.extend(new.iter().cloned());
                    existing.extend(new);
                }
                continue;
            }
            class.push(out.len());
            out.push(b);
            continue;
        }
        let key = format!("{:?}|{:?}|{:?}|{:?}|{:?}|{:?}", b.ty, b.minimum, b.maximum, b.min_items, b.max_items, b.properties.len());
        let bucket = buckets.entry(key).or_default();
        if bucket.iter().any(|&i| out[i] == b) {
            continue;
        }
        bucket.push(out.len());
        out.push(b);
    }
    out
}
