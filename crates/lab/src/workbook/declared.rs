//! What a design file declares about a table's capacity beyond its CreateTable request: auto
//! scaling ranges, the regions of a global table with each replica's own read settings, and what
//! an importer had to assume because the file did not say (a billing mode, an index's capacity).
//! The analysis prices it ([`super::analysis::capacity`]).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    /// Set when the file named no billing mode: the mode taken and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_assumed: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_scaling: Option<Range>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_scaling: Option<Range>,
    /// Per global secondary index.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub indexes: BTreeMap<String, DeclaredIndex>,
    /// A global table's regions, each with its own read settings; writes are the same in each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<Replica>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredIndex {
    /// Set when the index declares no capacity of its own: what was taken instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assumed: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_scaling: Option<Range>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_scaling: Option<Range>,
}

/// An auto scaling range, in capacity units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub min: u64,
    pub max: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replica {
    pub region: String,
    /// Its own provisioned reads, when it sets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_units: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_scaling: Option<Range>,
    /// Its own table class, when it sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_class: Option<String>,
}

impl Range {
    /// `{"MinCapacity": 5, "MaxCapacity": 100}` (CloudFormation, Application Auto Scaling and
    /// NoSQL Workbench all write it so; numbers may be quoted).
    pub fn from_capacity(value: &serde_json::Value) -> Option<Self> {
        Some(Self { min: units(value.get("MinCapacity"))?, max: units(value.get("MaxCapacity"))? })
    }
}

/// A capacity as design files write it: a number, or a number in quotes (`"5"`).
pub fn units(value: Option<&serde_json::Value>) -> Option<u64> {
    let value = value?;
    value.as_u64().or_else(|| value.as_str()?.trim().parse().ok())
}
