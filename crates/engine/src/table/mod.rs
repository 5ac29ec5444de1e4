//! Tables: definition, storage and secondary indexes, and the one write path every operation
//! goes through.

pub mod index;
pub mod index_collection;
pub mod item_text;
pub mod key_bytes;
pub mod names;
mod places;
pub mod schema;
pub mod shapes;
pub mod storage;
pub mod vector_index;

pub use index::{Index, IndexDefinition, IndexKind, Projection};
pub use schema::{BillingMode, KeyAttribute, KeySchema, PrimaryKey, TableClass, TableDefinition};
pub use storage::{ItemJson, PartitionSlot, Storage, StoredItem};

use crate::capacity::{Consumption, Units};
use crate::error::{DynamoError, Result};
use crate::value::{item_size, AttributeValue, Item};

/// A table with its items and indexes.
#[derive(Debug, Clone)]
pub struct Table {
    pub definition: TableDefinition,
    pub storage: Storage,
    pub indexes: Vec<Index>,
    /// Its vector indexes (DynamoDB's 2026 vector search), each with its copy of the vectors.
    pub vector_indexes: Vec<vector_index::VectorIndex>,
    /// The TTL attribute, while time to live is enabled.
    pub time_to_live: Option<String>,
    pub tags: Vec<crate::ops::tags::Tag>,
    /// Its streams, oldest first; the last one records while enabled.
    pub streams: Vec<crate::stream::Stream>,
    /// How many item writes it has taken: the engine's change mark (see `Engine::apply`).
    pub changes: u64,
}

/// What one item write did: the item it replaced and the units it consumed.
#[derive(Debug)]
pub struct Written {
    pub old: Option<StoredItem>,
    pub consumption: Consumption,
}

/// An item collection's size for `ReturnItemCollectionMetrics=SIZE` (tables with LSIs only).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ItemCollectionMetrics {
    pub item_collection_key: Item,
    #[serde(rename = "SizeEstimateRangeGB")]
    pub size_estimate_range_gb: [f64; 2],
}

/// The 400 KB item limit, names included; on LSI tables it covers the LSI entries too (fact sheet §1).
pub const MAX_ITEM_BYTES: usize = 409_600;

/// The item-collection limit of tables with local secondary indexes: 10 GB (fact sheet §4).
pub const ITEM_COLLECTION_LIMIT_BYTES: u64 = 10 * 1024 * 1024 * 1024;

impl Table {
    pub fn new(definition: TableDefinition, indexes: Vec<IndexDefinition>) -> Self {
        Self {
            storage: Storage::new(&definition.key_schema),
            definition,
            indexes: indexes.into_iter().map(Index::new).collect(),
            vector_indexes: Vec::new(),
            time_to_live: None,
            tags: Vec::new(),
            streams: Vec::new(),
            changes: 0,
        }
    }

    /// The table key's attribute names.
    pub fn key_names(&self) -> Vec<&str> {
        let schema = &self.definition.key_schema;
        std::iter::once(schema.hash.name.as_str()).chain(schema.range.as_ref().map(|r| r.name.as_str())).collect()
    }

    pub fn index(&self, name: &str) -> Option<&Index> {
        self.indexes.iter().find(|i| i.definition.name == name)
    }

    /// Stores `new` at `key` (or removes the item when `new` is `None`), keeping every index in
    /// step. Every write, single or in a batch or transaction, goes through here, so capacity is
    /// counted in one place: the larger of the old and new item in 1 KB units on the table (one
    /// unit for removing nothing), and each index's own writes (see `Index::apply`).
    pub fn write(&mut self, key: &PrimaryKey, new: Option<Item>) -> Written {
        self.write_as(key, new, crate::stream::Origin::Request)
    }

    /// The enabled stream, if any.
    pub fn live_stream(&mut self) -> Option<&mut crate::stream::Stream> {
        self.streams.last_mut().filter(|s| s.enabled)
    }

    /// [`Table::write`], saying who wrote (DynamoDB's TTL process marks its stream records).
    pub fn write_as(&mut self, key: &PrimaryKey, new: Option<Item>, origin: crate::stream::Origin) -> Written {
        let new_size = new.as_ref().map_or(0, item_size);
        let new_stored = new.as_ref().map(|item| self.storage.encode(item));
        let mut consumption = Consumption::default();
        // What the write is billed beyond each item's stored size (vectors, below).
        let (mut new_billed, mut old_billed) = (0isize, 0isize);
        if !self.vector_indexes.is_empty() {
            let key_names: Vec<String> = self.key_names().into_iter().map(String::from).collect();
            let key_names: Vec<&str> = key_names.iter().map(String::as_str).collect();
            let old = self.storage.get(key).map(StoredItem::item);
            new_billed = new.as_ref().map_or(0, |item| self.vector_billing(item));
            old_billed = old.as_ref().map_or(0, |item| self.vector_billing(item));
            for index in &mut self.vector_indexes {
                if let Some(bytes) = index.apply(key, old.as_ref(), new.as_ref(), &key_names) {
                    crate::explain::vector(
                        &self.definition.name,
                        &index.definition.name,
                        crate::explain::StepKind::VectorWrite,
                        std::slice::from_ref(&key.0),
                        bytes,
                        "the entry the index keeps: its vector at 4 B a dimension, the keys and projected attributes (at least 1,024 B)",
                    );
                    consumption.vector_indexes.insert(index.definition.name.clone(), bytes);
                }
            }
        }
        if !self.indexes.is_empty() {
            let key_names: Vec<String> = self.key_names().into_iter().map(String::from).collect();
            let key_names: Vec<&str> = key_names.iter().map(String::as_str).collect();
            let old = self.storage.get(key).map(StoredItem::item);
            let new = new.as_ref().zip(new_stored.as_ref());
            for index in &mut self.indexes {
                let units = index.apply(key, old.as_ref(), new, &key_names, Some(&self.definition.name));
                if units > Units(0) {
                    let name = index.definition.name.clone();
                    match index.definition.kind {
                        IndexKind::Global => consumption.global_indexes.insert(name, units),
                        IndexKind::Local => consumption.local_indexes.insert(name, units),
                    };
                }
            }
        }
        let stores = new.is_some();
        let streamed = if self.streams.last().is_some_and(|s| s.enabled) {
            Some((new, self.key_names().iter().map(|n| (*n).to_string()).collect::<Vec<_>>()))
        } else {
            None
        };
        let partition = crate::explain::recording().then(|| key.0.clone());
        let old = match new_stored {
            Some(encoded) => self.storage.put_stored(key, encoded),
            None => self.storage.delete(key),
        };
        if stores || old.is_some() {
            self.changes += 1;
        }
        if let (Some((new, key_names)), Some(stream)) = (streamed, self.streams.last_mut()) {
            let old_item = old.as_ref().map(StoredItem::item);
            let image = new.as_ref().or(old_item.as_ref());
            let keys: Item = image
                .map(|i| key_names.iter().filter_map(|n| i.get(n).map(|v| (n.clone(), v.clone()))).collect())
                .unwrap_or_default();
            stream.capture(keys, old_item.as_ref(), new.as_ref(), origin);
        }
        let old_size = old.as_ref().map_or(0, storage::StoredItem::size);
        let (new_size, old_size) =
            (new_size.saturating_add_signed(new_billed), old_size.saturating_add_signed(old_billed));
        consumption.table = Units::write(new_size.max(old_size));
        if partition.is_some() {
            // Only an explanation reads the wording: not formatted on every write.
            crate::explain::write(
                &self.definition.name,
                None,
                partition.as_slice(),
                new_size.max(old_size),
                consumption.table,
                format!("the larger of the old ({old_size} B) and new ({new_size} B) item"),
            );
        }
        Written { old, consumption }
    }

    /// How much more (or less) than its stored size a write of `item` is billed: DynamoDB bills an
    /// attribute a vector index reads as its name and 4 bytes a dimension, not as the list of
    /// numbers it stores (reads and the 400 KB limit still size the list; eu-west-2 and us-east-1,
    /// 2026-10-09, the autumn-2026 suite's vector capacity tests).
    fn vector_billing(&self, item: &Item) -> isize {
        let mut counted: Vec<&str> = Vec::new();
        let mut difference = 0isize;
        for index in &self.vector_indexes {
            let d = &index.definition;
            if counted.contains(&d.attribute.as_str()) {
                continue;
            }
            if let Some(value @ AttributeValue::L(elements)) = item.get(&d.attribute) {
                if elements.len() == d.dimensions {
                    counted.push(&d.attribute);
                    difference += (4 * d.dimensions) as isize - value.size() as isize;
                }
            }
        }
        difference
    }

    pub fn has_local_indexes(&self) -> bool {
        self.indexes.iter().any(|i| i.definition.kind == IndexKind::Local)
    }

    /// Bytes of one item collection: its items and their LSI entries.
    pub fn collection_bytes(&self, partition: &crate::value::KeyValue) -> u64 {
        let items: usize = self.storage.collection(partition).map(StoredItem::size).sum();
        let entries: usize = self
            .indexes
            .iter()
            .filter(|i| i.definition.kind == IndexKind::Local)
            .filter_map(|i| i.collection(std::slice::from_ref(partition)))
            .map(|c| c.values().map(storage::StoredItem::size).sum::<usize>())
            .sum();
        (items + entries) as u64
    }

    /// The metrics DynamoDB returns for a write to an item collection, on tables with LSIs. The
    /// range brackets the size in whole GB, as the service's estimate does ([0.0, 1.0] when small).
    pub fn collection_metrics(&self, partition: &crate::value::KeyValue) -> Option<ItemCollectionMetrics> {
        if !self.has_local_indexes() {
            return None;
        }
        let gb = (self.collection_bytes(partition) as f64 / (1024.0 * 1024.0 * 1024.0)).floor();
        let key = self.definition.key_schema.hash.name.clone();
        Some(ItemCollectionMetrics {
            item_collection_key: Item::from([(key, partition.to_attribute())]),
            size_estimate_range_gb: [gb, gb + 1.0],
        })
    }

    /// Bytes an item takes in its item collection: itself and its LSI entries.
    fn stored_with_local_entries(&self, item: &Item) -> usize {
        let key_names = self.key_names();
        let entries: usize = self
            .indexes
            .iter()
            .filter(|i| i.definition.kind == IndexKind::Local && i.definition.key_of(item).is_some())
            .map(|i| item_size(&i.definition.entry(item, &key_names)))
            .sum();
        item_size(item) + entries
    }

    /// Refuses a write that would take an item collection of an LSI table past `limit` bytes.
    pub fn check_collection_limit(&self, key: &PrimaryKey, new: Option<&Item>, limit: u64) -> Result<()> {
        if !self.has_local_indexes() {
            return Ok(());
        }
        let old = self.storage.get(key).map_or(0, |s| self.stored_with_local_entries(&s.item())) as u64;
        let added = new.map_or(0, |item| self.stored_with_local_entries(item)) as u64;
        if self.collection_bytes(&key.0).saturating_sub(old) + added > limit {
            return Err(DynamoError::new(
                crate::error::ErrorKind::ItemCollectionSizeLimitExceeded,
                "Collection size exceeded.",
            ));
        }
        Ok(())
    }

    /// What the indexes require of an item about to be written: index key attributes of their
    /// index's type and not empty (real DynamoDB's wording; DynamoDB Local omits the names and
    /// types), and on LSI tables the 400 KB limit counted over the item and its LSI entries.
    pub fn check_item_for_indexes(&self, item: &Item, via_update: bool) -> Result<()> {
        self.check_index_key_values(item, via_update)?;
        for index in &self.vector_indexes {
            index.definition.check_item(item)?;
        }
        if self.has_local_indexes() && self.stored_with_local_entries(item) > MAX_ITEM_BYTES {
            return Err(DynamoError::validation(if via_update {
                "Item size to update has exceeded the maximum allowed size"
            } else {
                "Item size has exceeded the maximum allowed size"
            }));
        }
        Ok(())
    }

    fn check_index_key_values(&self, item: &Item, via_update: bool) -> Result<()> {
        self.check_index_key_types(item)?;
        self.check_index_keys_not_empty(item, via_update)
    }

    /// Index key attributes of their index's scalar type and within the key size limits. A
    /// transaction cancels an action failing this with a ValidationError reason.
    pub fn check_index_key_types(&self, item: &Item) -> Result<()> {
        for index in &self.indexes {
            if let Some((hash, range)) = index.definition.key_of(item) {
                schema::check_key_sizes(&hash, &range)?;
            }
            for attribute in index.definition.key_attributes() {
                let Some(value) = item.get(&attribute.name) else { continue };
                let is_key_type = matches!(value, AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_));
                if !is_key_type || value.type_name() != attribute.kind.name() {
                    return Err(DynamoError::validation(format!(
                        "One or more parameter values were invalid: Type mismatch for Index Key {} Expected: {} Actual: {} IndexName: {}",
                        attribute.name,
                        attribute.kind.name(),
                        value.type_name(),
                        index.definition.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// No index key attribute an empty string or binary. A transaction refuses the whole request
    /// for this one, where it cancels for a wrong type (DynamoDB splits them this way).
    pub fn check_index_keys_not_empty(&self, item: &Item, via_update: bool) -> Result<()> {
        for index in &self.indexes {
            for attribute in index.definition.key_attributes() {
                let Some(value) = item.get(&attribute.name) else { continue };
                let empty = matches!(value, AttributeValue::S(s) if s.is_empty())
                    || matches!(value, AttributeValue::B(b) if b.is_empty());
                if empty {
                    return Err(DynamoError::validation(if via_update {
                        "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.".to_string()
                    } else {
                        format!(
                            "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty {} value. IndexName: {}, IndexKey: {}",
                            if attribute.kind.name() == "B" { "binary" } else { "string" },
                            index.definition.name,
                            attribute.name
                        )
                    }));
                }
            }
        }
        Ok(())
    }
}
