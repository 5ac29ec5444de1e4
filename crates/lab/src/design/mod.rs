//! A design as the modelling method writes it: the access-pattern inventory, and per table its
//! keys, entity layout (key templates such as `USER#<userId>`), indexes and design note (pattern →
//! operation → key condition → index). Typed, so every format converts to and from it and a front
//! end edits it; [`Design::to_workbook`] turns it into a workbook to prove (fixture generated from
//! the layout, each design-note row made a request on real items), with every default it took.
//!
//! Data flow: Markdown ([`markdown::read`]) → [`Design`] → [`Design::to_workbook`] ([`fixture`],
//! [`calls`]) → the workbook's plan, run and verdicts. [`markdown::write`] writes it back.

pub mod calls;
pub mod expression;
pub mod fixture;
pub mod markdown;
mod note_words;
pub mod solution;
pub mod template;
mod to_workbook;
pub mod workspace;

use crate::workbook::{Consistency, PatternKind};
use serde::{Deserialize, Serialize};
use template::Template;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Design {
    pub name: String,
    pub description: String,
    pub inventory: Vec<InventoryRow>,
    pub tables: Vec<TableDesign>,
    /// Lines such as `**Write invariants:** …`, kept as written: (label, text).
    pub remarks: Vec<(String, String)>,
    /// What the document held that could not be read: each cell named, what was assumed or left
    /// out, and the patterns it leaves unproven.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<Unread>,
}

/// A cell (or line) of a document that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unread {
    /// Where: `line 12: inventory row "2 List orders", column "Rate (peak/s)"`.
    pub at: String,
    /// What was wrong, and what was assumed or left out instead.
    pub problem: String,
    /// The patterns it touches (their ids): they are reported not proven.
    #[serde(default)]
    pub patterns: Vec<String>,
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.problem)?;
        if !self.patterns.is_empty() {
            write!(f, " (pattern {} not proven)", self.patterns.join(", "))?;
        }
        Ok(())
    }
}

/// One row of the access-pattern inventory. What the document left blank stays `None`; the
/// workbook takes a stated default for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InventoryRow {
    pub id: String,
    pub pattern: String,
    pub kind: PatternKind,
    pub key_inputs: String,
    pub sort_filter: String,
    pub peak_rps: Option<f64>,
    pub avg_rps: Option<f64>,
    pub consistency: Option<Consistency>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableDesign {
    pub name: String,
    /// The heading's parenthesis as written (`on-demand, PITR on, TTL attr `expiresAt``).
    pub settings: String,
    pub partition_key: KeyAttribute,
    pub sort_key: Option<KeyAttribute>,
    pub indexes: Vec<IndexDesign>,
    pub entities: Vec<Entity>,
    pub calls: Vec<CallRow>,
    /// Items the document showed (a sample-data table), in DynamoDB JSON: when there are any, they
    /// are the fixture, in place of the items the layout would generate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Its vector indexes (semantic search), which a `SearchVectors` call names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vector_indexes: Vec<VectorIndexDesign>,
}

/// A vector index: the list-of-numbers attribute it reads, its size and distance, and its search
/// schema (the HASH attribute every search names, and the inline filters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorIndexDesign {
    pub name: String,
    pub attribute: String,
    pub dimensions: u32,
    /// `COSINE`, `EUCLIDEAN` or `DOT_PRODUCT`.
    pub distance: String,
    pub hash_filter: Option<KeyAttribute>,
    #[serde(default)]
    pub inline_filters: Vec<KeyAttribute>,
    pub projection: Projection,
}

impl VectorIndexDesign {
    /// The search schema's attributes, the HASH one first.
    pub fn filters(&self) -> impl Iterator<Item = &KeyAttribute> {
        self.hash_filter.iter().chain(&self.inline_filters)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAttribute {
    pub name: String,
    /// `S`, `N` or `B`.
    pub kind: String,
}

impl KeyAttribute {
    pub fn text(name: &str) -> Self {
        Self { name: name.to_string(), kind: "S".into() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexDesign {
    pub name: String,
    /// A local index shares the table's partition key.
    pub local: bool,
    pub partition_key: KeyAttribute,
    pub sort_key: Option<KeyAttribute>,
    pub projection: Projection,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Projection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

impl std::fmt::Display for Projection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::All => f.write_str("ALL"),
            Self::KeysOnly => f.write_str("KEYS_ONLY"),
            Self::Include(names) => write!(f, "INCLUDE {}", names.join(", ")),
        }
    }
}

/// One entity of a table's layout: its key templates and what its items hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    pub name: String,
    /// Key and index-key attributes with their templates, and the share of items that have the
    /// attribute (1 unless the layout says `(30%)`: what makes an index sparse).
    pub keys: Vec<(String, Template, f64)>,
    pub attributes: Vec<Attribute>,
    pub items: Option<u64>,
    pub per_collection: Option<u64>,
    /// Bytes each item is brought to.
    pub size: Option<u64>,
    /// The share of the entity's items in its busiest item collection (`Skew` 40%): a hot key made
    /// on purpose. Even when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew: Option<f64>,
    pub notes: String,
}

impl Entity {
    pub fn template(&self, attribute: &str) -> Option<&Template> {
        self.keys.iter().find(|(name, _, _)| name == attribute).map(|(_, t, _)| t)
    }
}

/// An attribute beyond the keys: an example value (a template: `<userId>@example.com`) or a size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attribute {
    pub name: String,
    pub example: Option<String>,
    pub size: Option<u64>,
}

/// One row of a table's design note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRow {
    pub id: String,
    pub pattern: String,
    pub operation: String,
    /// In the method's shorthand: `PK=USER#id AND begins_with(SK,'ORDER#'), ScanIndexForward=false`.
    pub key_condition: String,
    /// `None` for the base table.
    pub index: Option<String>,
}

impl Design {
    pub fn table(&self, name: &str) -> Option<&TableDesign> {
        self.tables.iter().find(|t| t.name == name)
    }
}

impl TableDesign {
    pub fn index(&self, name: &str) -> Option<&IndexDesign> {
        self.indexes.iter().find(|i| i.name == name)
    }

    pub fn vector_index(&self, name: &str) -> Option<&VectorIndexDesign> {
        self.vector_indexes.iter().find(|i| i.name == name)
    }

    /// Partition and sort key of the table, or of one of its indexes.
    pub fn keys_of(&self, index: Option<&str>) -> Option<(&KeyAttribute, Option<&KeyAttribute>)> {
        match index {
            None => Some((&self.partition_key, self.sort_key.as_ref())),
            Some(name) => self.index(name).map(|i| (&i.partition_key, i.sort_key.as_ref())),
        }
    }

    /// The table's key attribute names: partition, then sort.
    pub fn key_names(&self) -> Vec<&str> {
        std::iter::once(self.partition_key.name.as_str())
            .chain(self.sort_key.as_ref().map(|k| k.name.as_str()))
            .collect()
    }

    /// Whether the table is billed on demand (the method's default) rather than provisioned.
    pub fn on_demand(&self) -> bool {
        !self.settings.to_ascii_lowercase().contains("provisioned")
    }

    /// Every attribute a key of the table or an index is made of.
    pub fn key_attributes(&self) -> Vec<&KeyAttribute> {
        let mut all: Vec<&KeyAttribute> = vec![&self.partition_key];
        all.extend(self.sort_key.as_ref());
        for index in &self.indexes {
            all.push(&index.partition_key);
            all.extend(index.sort_key.as_ref());
        }
        let mut seen = std::collections::BTreeSet::new();
        all.retain(|a| seen.insert(a.name.clone()));
        all
    }
}

pub use to_workbook::{Bound, Converted};

#[cfg(test)]
mod tests;
