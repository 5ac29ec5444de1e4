//! Vector indexes (DynamoDB's 2026 vector search): which attribute holds an item's vector, its
//! dimensions and distance function, what a search may filter on, and the index's own compact
//! copy of every vector (32-bit floats, 4 bytes a dimension, where the item's list of numbers takes
//! about 4 KB for 1,536 of them).
//!
//! A search is exact: every vector in the index is compared (a brute-force scan of 100,000 vectors
//! of 256 dimensions takes milliseconds, `crates/engine/benches/search_vectors.rs`), where DynamoDB's index is
//! approximate; the nearest neighbours found are the true ones.

use super::index::Projection;
use super::schema::{KeyAttribute, PrimaryKey};
use crate::error::{DynamoError, Result};
use crate::value::{AttributeValue, Item, KeyValue};
use std::collections::{HashMap, HashSet};

/// How closeness is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distance {
    /// 1 − cosine similarity: 0 for the same direction, 2 for opposite ones; nearest first.
    Cosine,
    /// Straight-line distance; nearest first.
    Euclidean,
    /// The dot product: higher is closer (and it may be negative); highest first.
    DotProduct,
}

impl Distance {
    pub const NAMES: [&'static str; 3] = ["DOT_PRODUCT", "COSINE", "EUCLIDEAN"];

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "COSINE" => Some(Self::Cosine),
            "EUCLIDEAN" => Some(Self::Euclidean),
            "DOT_PRODUCT" => Some(Self::DotProduct),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Cosine => "COSINE",
            Self::Euclidean => "EUCLIDEAN",
            Self::DotProduct => "DOT_PRODUCT",
        }
    }

    /// The score of `candidate` against `query`, computed in 32-bit floats as the index holds them.
    pub fn score(self, query: &[f32], candidate: &[f32]) -> f32 {
        self.score_with_norms(query, norm(query), candidate, norm(candidate))
    }

    /// [`Distance::score`] with both vectors' lengths known (the index keeps each one's).
    pub fn score_with_norms(self, query: &[f32], query_norm: f32, candidate: &[f32], candidate_norm: f32) -> f32 {
        match self {
            Self::DotProduct => dot(query, candidate),
            Self::Euclidean => query.iter().zip(candidate).map(|(a, b)| (a - b) * (a - b)).sum::<f32>().sqrt(),
            Self::Cosine => {
                let norms = query_norm * candidate_norm;
                if norms == 0.0 {
                    1.0
                } else {
                    1.0 - dot(query, candidate) / norms
                }
            }
        }
    }

    /// Whether `a` ranks ahead of `b`.
    pub fn closer(self, a: f32, b: f32) -> std::cmp::Ordering {
        match self {
            Self::DotProduct => b.total_cmp(&a),
            Self::Cosine | Self::Euclidean => a.total_cmp(&b),
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn norm(a: &[f32]) -> f32 {
    dot(a, a).sqrt()
}

/// What a search may filter on: one HASH attribute (an equality every search must give) or an
/// inline filter (an equality it may give).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchRole {
    Hash,
    InlineFilter,
}

impl SearchRole {
    pub fn name(self) -> &'static str {
        match self {
            Self::Hash => "HASH",
            Self::InlineFilter => "INLINE_FILTER",
        }
    }
}

/// A vector index as declared.
#[derive(Debug, Clone)]
pub struct VectorIndexDefinition {
    pub name: String,
    pub attribute: String,
    pub dimensions: usize,
    pub distance: Distance,
    pub projection: Projection,
    /// The search schema's attributes with their types (from AttributeDefinitions) and roles.
    pub search_schema: Vec<(KeyAttribute, SearchRole)>,
}

impl VectorIndexDefinition {
    /// Whether `name` is in the index's entries: the table key, the vector, the search schema and
    /// what the projection adds.
    pub fn projects(&self, name: &str, table_key: &[&str]) -> bool {
        table_key.contains(&name)
            || name == self.attribute
            || self.search_schema.iter().any(|(a, _)| a.name == name)
            || match &self.projection {
                Projection::All => true,
                Projection::KeysOnly => false,
                Projection::Include(names) => names.iter().any(|n| n == name),
            }
    }

    /// DynamoDB's checks of an item about to be written: a vector of the declared size, every
    /// element a number a 32-bit float holds, and the HASH attribute of the index's type and not
    /// empty. Captured from DynamoDB (eu-west-2, 2026-08).
    pub fn check_item(&self, item: &Item) -> Result<()> {
        if let Some(value) = item.get(&self.attribute) {
            let invalid = "One or more parameter values were invalid.";
            let AttributeValue::L(elements) = value else {
                return Err(DynamoError::validation(format!(
                    "{invalid} Invalid type for parameter {}, Expected: 32-bit floating point number list IndexName: {}",
                    self.attribute, self.name
                )));
            };
            if elements.len() != self.dimensions {
                return Err(DynamoError::validation(format!(
                    "{invalid} Invalid size for parameter {}, Expected: {}, Actual: {} IndexName: {}",
                    self.attribute,
                    self.dimensions,
                    elements.len(),
                    self.name
                )));
            }
            for (i, element) in elements.iter().enumerate() {
                if as_f32(element).is_none() {
                    return Err(DynamoError::validation(format!(
                        "{invalid} Invalid type for parameter {}[{i}], Expected: 32-bit floating point number, Actual: {}. IndexName: {}",
                        self.attribute,
                        element.type_name(),
                        self.name
                    )));
                }
            }
        }
        for (attribute, role) in &self.search_schema {
            let Some(value) = item.get(&attribute.name).filter(|_| *role == SearchRole::Hash) else { continue };
            if value.type_name() != attribute.kind.name() {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: Type mismatch for Index Key {} Expected: {} Actual: {} IndexName: {}",
                    attribute.name,
                    attribute.kind.name(),
                    value.type_name(),
                    self.name
                )));
            }
            let empty = matches!(value, AttributeValue::S(s) if s.is_empty())
                || matches!(value, AttributeValue::B(b) if b.is_empty());
            if empty {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty {} value. IndexName: {}, IndexKey: {}",
                    if attribute.kind.name() == "B" { "binary" } else { "string" },
                    self.name,
                    attribute.name
                )));
            }
        }
        Ok(())
    }

    /// The item's vector as the index keeps it, when the item is in the index: it has the vector
    /// and every HASH attribute (an item without them is left out, as from a sparse GSI).
    fn vector_of(&self, item: &Item) -> Option<Box<[f32]>> {
        let AttributeValue::L(elements) = item.get(&self.attribute)? else { return None };
        let in_index =
            self.search_schema.iter().all(|(a, role)| *role != SearchRole::Hash || item.contains_key(&a.name));
        if !in_index || elements.len() != self.dimensions {
            return None;
        }
        elements.iter().map(as_f32).collect()
    }

    /// The bytes a write is charged on this index when it changes the index's entry
    /// (`VectorWriteRequestBytes`): the entry's size with the vector counted as its name and 4 bytes
    /// a dimension, at least 1,024 (DynamoDB, eu-west-2, 2026-08-18).
    fn entry_bytes(&self, item: &Item, table_key: &[&str]) -> usize {
        let size: usize = item
            .iter()
            .filter(|(name, _)| self.projects(name, table_key))
            .map(
                |(name, value)| {
                    if *name == self.attribute {
                        name.len() + 4 * self.dimensions
                    } else {
                        name.len() + value.size()
                    }
                },
            )
            .sum();
        size.max(1024)
    }

    fn entry<'i>(&self, item: &'i Item, table_key: &[&str]) -> Vec<(&'i String, &'i AttributeValue)> {
        item.iter().filter(|(name, _)| self.projects(name, table_key)).collect()
    }
}

/// A number a 32-bit float holds (finite once narrowed), as the index keeps it.
pub fn as_f32(value: &AttributeValue) -> Option<f32> {
    let AttributeValue::N(number) = value else { return None };
    let narrowed = number.to_string().parse::<f64>().ok()? as f32;
    narrowed.is_finite().then_some(narrowed)
}

/// One item's place in a vector index.
#[derive(Debug, Clone)]
pub struct VectorEntry {
    pub vector: Box<[f32]>,
    /// The vector's length, for cosine scores.
    pub norm: f32,
    /// The search schema's values, in its order.
    pub filters: Vec<Option<AttributeValue>>,
}

/// A vector index and its copy of every indexed vector.
#[derive(Debug, Clone)]
pub struct VectorIndex {
    pub definition: VectorIndexDefinition,
    pub entries: HashMap<PrimaryKey, VectorEntry>,
    /// The items under each value of the HASH attribute, when the search schema has one: a search
    /// must name one value, and compares only its items.
    pub by_hash: HashMap<KeyValue, HashSet<PrimaryKey>>,
}

impl VectorIndex {
    pub fn new(definition: VectorIndexDefinition) -> Self {
        Self { definition, entries: HashMap::new(), by_hash: HashMap::new() }
    }

    /// Where the HASH attribute sits in the search schema.
    pub fn hash_position(&self) -> Option<usize> {
        self.definition.search_schema.iter().position(|(_, role)| *role == SearchRole::Hash)
    }

    fn hash_value(&self, entry: &VectorEntry) -> Option<KeyValue> {
        entry.filters.get(self.hash_position()?)?.as_ref().and_then(KeyValue::from_attribute)
    }

    /// Brings the index up to date with one item write; the bytes it charges, when the entry it
    /// holds for the item changed (an identical overwrite costs nothing; a removal is charged the
    /// entry it held).
    pub fn apply(
        &mut self,
        key: &PrimaryKey,
        old: Option<&Item>,
        new: Option<&Item>,
        table_key: &[&str],
    ) -> Option<u64> {
        let d = &self.definition;
        let old_in = old.filter(|item| d.vector_of(item).is_some());
        let new_vector = new.and_then(|item| d.vector_of(item));
        let charged = match (old_in, new.filter(|_| new_vector.is_some())) {
            (None, None) => None,
            (Some(old), None) => Some(d.entry_bytes(old, table_key)),
            (old, Some(new)) => {
                let unchanged = old.is_some_and(|old| d.entry(old, table_key) == d.entry(new, table_key));
                (!unchanged).then(|| d.entry_bytes(new, table_key))
            }
        };
        let filters = new_vector
            .as_ref()
            .zip(new)
            .map(|(_, item)| d.search_schema.iter().map(|(a, _)| item.get(&a.name).cloned()).collect());
        if let Some(old) = self.entries.remove(key) {
            if let Some(hash) = self.hash_value(&old) {
                if let Some(keys) = self.by_hash.get_mut(&hash) {
                    keys.remove(key);
                    if keys.is_empty() {
                        self.by_hash.remove(&hash);
                    }
                }
            }
        }
        if let (Some(vector), Some(filters)) = (new_vector, filters) {
            let entry = VectorEntry { norm: norm(&vector), vector, filters };
            if let Some(hash) = self.hash_value(&entry) {
                self.by_hash.entry(hash).or_default().insert(key.clone());
            }
            self.entries.insert(key.clone(), entry);
        }
        charged.map(|bytes| bytes as u64)
    }

    /// The stored size of the index, for DescribeTable: each entry's vector at 4 bytes a dimension.
    pub fn size_bytes(&self) -> usize {
        self.entries.len() * 4 * self.definition.dimensions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{KeyValue, Number};

    fn definition(distance: Distance) -> VectorIndexDefinition {
        VectorIndexDefinition {
            name: "plain".into(),
            attribute: "embedding".into(),
            dimensions: 3,
            distance,
            projection: Projection::All,
            search_schema: Vec::new(),
        }
    }

    fn vector(values: &[&str]) -> AttributeValue {
        AttributeValue::L(values.iter().map(|v| AttributeValue::N(Number::parse(v).expect("number"))).collect())
    }

    #[test]
    fn scores_are_the_distances_dynamodb_reports() {
        let q = [1.0f32, 0.0, 0.0];
        assert_eq!(Distance::Cosine.score(&q, &[1.0, 0.0, 0.0]), 0.0);
        assert_eq!(Distance::Cosine.score(&q, &[-1.0, 0.0, 0.0]), 2.0);
        assert_eq!(f64::from(Distance::Cosine.score(&q, &[0.6, 0.8, 0.0])), 0.399_999_976_158_142_1);
        assert_eq!(Distance::Euclidean.score(&q, &[-1.0, 0.0, 0.0]), 2.0);
        assert_eq!(Distance::DotProduct.score(&q, &[-1.0, 0.0, 0.0]), -1.0);
        assert_eq!(Distance::DotProduct.closer(1.0, -1.0), std::cmp::Ordering::Less);
        assert_eq!(Distance::Cosine.closer(0.0, 2.0), std::cmp::Ordering::Less);
    }

    #[test]
    fn a_vector_of_the_wrong_size_or_type_is_refused_with_dynamodbs_words() {
        let d = definition(Distance::Cosine);
        let item = |v: AttributeValue| -> Item { [("embedding".to_string(), v)].into_iter().collect() };
        assert!(d.check_item(&item(vector(&["1", "0", "0"]))).is_ok());
        assert_eq!(
            d.check_item(&item(vector(&["1", "0"]))).expect_err("size").message,
            "One or more parameter values were invalid. Invalid size for parameter embedding, Expected: 3, Actual: 2 IndexName: plain"
        );
        let mixed = AttributeValue::L(vec![vector(&["1"]), AttributeValue::S("x".into()), vector(&["0"])]);
        assert!(d
            .check_item(&item(mixed))
            .expect_err("type")
            .message
            .contains("embedding[0], Expected: 32-bit floating point number, Actual: L."));
        assert!(d
            .check_item(&item(AttributeValue::S("v".into())))
            .expect_err("list")
            .message
            .ends_with("number list IndexName: plain"));
    }

    #[test]
    fn writes_are_charged_on_a_changed_entry_only_with_a_floor_of_1024_bytes() {
        let mut index = VectorIndex::new(definition(Distance::Cosine));
        let key = (KeyValue::S("a".into()), None);
        let item: Item =
            [("pk".to_string(), AttributeValue::S("a".into())), ("embedding".to_string(), vector(&["1", "0", "0"]))]
                .into_iter()
                .collect();
        assert_eq!(index.apply(&key, None, Some(&item), &["pk"]), Some(1024));
        assert_eq!(index.apply(&key, Some(&item), Some(&item), &["pk"]), None, "an identical overwrite");
        let mut big = item.clone();
        big.insert("blob".into(), AttributeValue::S("x".repeat(1500)));
        assert_eq!(index.apply(&key, Some(&item), Some(&big), &["pk"]), Some((2 + 1 + 9 + 12 + 4 + 1500) as u64));
        assert_eq!(index.entries.len(), 1);
        assert_eq!(index.apply(&key, Some(&big), None, &["pk"]), Some(1516 + 12));
        assert!(index.entries.is_empty());
    }
}
