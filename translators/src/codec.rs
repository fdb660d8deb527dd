//! How instances change shape between the source side and the model side of a projection.
//!
//! Most projections accept the same JSON the source does, and their codec is the identity. Some
//! change the shape on purpose: OpenAI strict mode has no optional properties, so an optional key
//! becomes required and nullable, and a `null` the model sends there means "left out". The codec
//! records such sites so the oracle can *encode* a source instance into what the model would send
//! and *decode* a model answer back into what the tool receives. The codec is a description
//! (data); the harness applies it, guided by the projection schema.

use serde::{Deserialize, Serialize};

/// The instance mapping of a projection.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Codec {
    /// Model-side instances are source instances.
    #[default]
    Identity,
    /// At each site, an absent key is sent as `null` (encode) and a `null` is read as absent
    /// (decode).
    NullMeansAbsent { sites: Vec<NullSite> },
    /// The inverse: at each site the source allows `null`, the projection makes the key optional
    /// instead; an absent key is read as `null` (decode) and a `null` is sent as absent (encode).
    AbsentMeansNull { sites: Vec<NullSite> },
}

/// A property of an object schema in the projection.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NullSite {
    /// JSON pointer, into the projection schema, of the object schema declaring the property.
    pub object: String,
    /// The property name.
    pub property: String,
}

impl Codec {
    #[must_use]
    pub fn is_identity(&self) -> bool {
        match self {
            Self::Identity => true,
            Self::NullMeansAbsent { sites } | Self::AbsentMeansNull { sites } => sites.is_empty(),
        }
    }
}
