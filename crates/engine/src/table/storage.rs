//! Item storage: partitions in stable-hash order, each an item collection ordered by sort key.
//! Scan walks this order, so `ExclusiveStartKey` resumes exactly and insertion order never shows.

use super::schema::PrimaryKey;
use crate::value::{item_size, Item, KeyValue};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::OnceLock;

/// Where a partition sits in scan order: its key's stable hash, then the key itself.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PartitionSlot {
    pub hash: u64,
    pub key: KeyValue,
}

impl PartitionSlot {
    pub fn of(key: &KeyValue) -> Self {
        Self { hash: key.stable_hash(), key: key.clone() }
    }
}

/// An item, its size in bytes (computed when written) and its DynamoDB JSON (computed on the
/// first read): reads copy the JSON into responses instead of cloning and serialising the item.
#[derive(Debug, Clone)]
pub struct StoredItem {
    pub item: Item,
    pub size: usize,
    json: OnceLock<Option<Box<RawValue>>>,
}

impl StoredItem {
    pub fn new(mut item: Item) -> Self {
        // Stored items live long: give back what building them reserved.
        item.shrink_to_fit();
        let size = item_size(&item);
        Self { item, size, json: OnceLock::new() }
    }

    fn raw(&self) -> Option<&RawValue> {
        self.json.get_or_init(|| serde_json::value::to_raw_value(&self.item).ok()).as_deref()
    }

    /// The item as a response member, without copying the item itself.
    pub fn to_json(&self) -> ItemJson<'_> {
        match self.raw() {
            Some(raw) => ItemJson::Stored(raw),
            None => ItemJson::Item(self.item.clone()),
        }
    }

    /// The item as a response member, taking ownership (for items just removed or replaced).
    pub fn into_json(self) -> ItemJson<'static> {
        match self.json.into_inner().flatten() {
            Some(raw) => ItemJson::Raw(raw),
            None => ItemJson::Item(self.item),
        }
    }
}

/// An item in a response: stored JSON borrowed or owned, or an item built for this response
/// (a projection, an update's new image).
#[derive(Debug)]
pub enum ItemJson<'a> {
    Stored(&'a RawValue),
    Raw(Box<RawValue>),
    Item(Item),
}

impl Serialize for ItemJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Stored(raw) => raw.serialize(serializer),
            Self::Raw(raw) => raw.serialize(serializer),
            Self::Item(item) => item.serialize(serializer),
        }
    }
}

/// One partition key's items, by sort key (`None` on tables without a sort key).
pub type Collection = BTreeMap<Option<KeyValue>, StoredItem>;

/// All items of a table.
#[derive(Debug, Default, Clone)]
pub struct Storage {
    partitions: BTreeMap<PartitionSlot, Collection>,
    item_count: usize,
    total_bytes: usize,
}

impl Storage {
    pub fn item_count(&self) -> usize {
        self.item_count
    }

    pub fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    pub fn get(&self, key: &PrimaryKey) -> Option<&StoredItem> {
        self.partitions.get(&PartitionSlot::of(&key.0))?.get(&key.1)
    }

    /// Stores `item` under `key`, returning what was there.
    pub fn put(&mut self, key: PrimaryKey, item: Item) -> Option<StoredItem> {
        let stored = StoredItem::new(item);
        let size = stored.size;
        let collection = self.partitions.entry(PartitionSlot::of(&key.0)).or_default();
        let old = collection.insert(key.1, stored);
        self.total_bytes += size;
        match &old {
            Some(previous) => self.total_bytes -= previous.size,
            None => self.item_count += 1,
        }
        old
    }

    pub fn delete(&mut self, key: &PrimaryKey) -> Option<StoredItem> {
        let slot = PartitionSlot::of(&key.0);
        let collection = self.partitions.get_mut(&slot)?;
        let old = collection.remove(&key.1)?;
        if collection.is_empty() {
            self.partitions.remove(&slot);
        }
        self.item_count -= 1;
        self.total_bytes -= old.size;
        Some(old)
    }

    /// Every item with its key, in scan order.
    pub fn items(&self) -> impl Iterator<Item = (PrimaryKey, &StoredItem)> {
        self.partitions.iter().flat_map(|(slot, collection)| {
            collection.iter().map(move |(sort, s)| ((slot.key.clone(), sort.clone()), s))
        })
    }

    /// Every item after `after` (or from the first), in scan order: where a TTL sweep resumes.
    pub fn items_after(&self, after: Option<&PrimaryKey>) -> impl Iterator<Item = (PrimaryKey, &StoredItem)> {
        let resume = after.map(|(partition, sort)| (PartitionSlot::of(partition), sort.clone()));
        let lower = resume.as_ref().map_or(Bound::Unbounded, |(slot, _)| Bound::Included(slot.clone()));
        self.partitions.range((lower, Bound::Unbounded)).flat_map(move |(slot, collection)| {
            let entries: Box<dyn Iterator<Item = (&Option<KeyValue>, &StoredItem)>> = match &resume {
                Some((first, sort)) if first == slot => {
                    Box::new(collection.range((Bound::Excluded(sort.clone()), Bound::Unbounded)))
                }
                _ => Box::new(collection.iter()),
            };
            entries.map(move |(sort, s)| ((slot.key.clone(), sort.clone()), s))
        })
    }

    /// The item collection of one partition key.
    pub fn collection(&self, partition: &KeyValue) -> Option<&Collection> {
        self.partitions.get(&PartitionSlot::of(partition))
    }

    /// Partitions from `start` (exclusive when `after`), in scan order.
    pub fn partitions_from(
        &self,
        start: Option<&PartitionSlot>,
    ) -> impl Iterator<Item = (&PartitionSlot, &Collection)> {
        let lower = match start {
            Some(slot) => Bound::Included(slot.clone()),
            None => Bound::Unbounded,
        };
        self.partitions.range((lower, Bound::Unbounded))
    }
}
