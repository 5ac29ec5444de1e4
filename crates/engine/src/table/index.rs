//! Secondary indexes: their definitions, their own ordered storage, and what a write costs them.
//!
//! An index entry is the item reduced to the table key, the index key and the projected
//! attributes. Entries are ordered by index partition (stable hash, as the table), then by the
//! RANGE attributes in key-schema order, then by the table key, so equal index keys keep a
//! stable order (`index_collection`).

use super::schema::{KeyAttribute, PrimaryKey};
use super::storage::StoredItem;
use crate::capacity::Units;
use crate::value::{Item, KeyValue};
use std::collections::BTreeMap;

/// Global or local.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    Global,
    Local,
}

/// Which attributes an index holds besides the keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Projection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

impl Projection {
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::All => "ALL",
            Self::KeysOnly => "KEYS_ONLY",
            Self::Include(_) => "INCLUDE",
        }
    }
}

/// An index as declared: name, kind, key attributes (up to 4 + 4 for a GSI) and projection.
#[derive(Debug, Clone)]
pub struct IndexDefinition {
    pub name: String,
    pub kind: IndexKind,
    pub hash: Vec<KeyAttribute>,
    pub range: Vec<KeyAttribute>,
    pub projection: Projection,
    /// A GSI's own provisioned throughput (read, write), on provisioned tables.
    pub throughput: Option<(u64, u64)>,
}

/// Where an index partition sits: the stable hash of its HASH values, then the values as key
/// bytes (which sort as the values do; inline when short, so a partition costs no allocation of
/// its own for its key).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct IndexSlot {
    pub hash: u64,
    key: ShortBytes,
}

impl IndexSlot {
    pub fn of(key: &[KeyValue]) -> Self {
        let hash = key.iter().fold(0u64, |h, k| h.rotate_left(17) ^ k.stable_hash());
        Self { hash, key: ShortBytes::new(&range_bytes(key)) }
    }

    /// Before every partition whose hash is `hash` or more (where a Scan segment starts).
    pub fn first_with_hash(hash: u64) -> Self {
        Self { hash, key: ShortBytes::new(&[]) }
    }
}

pub use super::index_collection::{range_bytes, EntryPlace, IndexCollection, ShortBytes};

/// An index with its entries.
#[derive(Debug, Clone)]
pub struct Index {
    pub definition: IndexDefinition,
    partitions: BTreeMap<IndexSlot, IndexCollection>,
    item_count: usize,
    total_bytes: usize,
}

impl IndexDefinition {
    /// The index key of an item, or `None` when the item is not in the index (a key attribute is
    /// missing or not of the key's type: indexes are sparse).
    pub fn key_of(&self, item: &Item) -> Option<(Vec<KeyValue>, Vec<KeyValue>)> {
        let values = |attributes: &[KeyAttribute]| -> Option<Vec<KeyValue>> {
            attributes
                .iter()
                .map(|a| KeyValue::from_attribute(item.get(&a.name)?).filter(|k| k.scalar_type() == a.kind))
                .collect()
        };
        Some((values(&self.hash)?, values(&self.range)?))
    }

    /// Every key attribute, HASH first.
    pub fn key_attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        self.hash.iter().chain(self.range.iter())
    }

    /// The index entry for `item`: table key, index key and projected attributes.
    pub fn entry(&self, item: &Item, table_key: &[&str]) -> Item {
        match &self.projection {
            Projection::All => item.clone(),
            Projection::KeysOnly | Projection::Include(_) => item
                .iter()
                .filter(|(name, _)| {
                    table_key.contains(&name.as_str())
                        || self.key_attributes().any(|a| &a.name == *name)
                        || matches!(&self.projection, Projection::Include(names) if names.contains(name))
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    /// True if `name` is in the index's entries.
    pub fn projects(&self, name: &str, table_key: &[&str]) -> bool {
        match &self.projection {
            Projection::All => true,
            Projection::KeysOnly => table_key.contains(&name) || self.key_attributes().any(|a| a.name == name),
            Projection::Include(names) => {
                table_key.contains(&name)
                    || self.key_attributes().any(|a| a.name == name)
                    || names.iter().any(|n| n == name)
            }
        }
    }
}

impl Index {
    pub fn new(definition: IndexDefinition) -> Self {
        Self { definition, partitions: BTreeMap::new(), item_count: 0, total_bytes: 0 }
    }

    pub fn item_count(&self) -> usize {
        self.item_count
    }

    pub fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    /// Brings the index in step with one item write and returns the units that write costs the
    /// index (fact sheet §2.3): key added → 1 write, key changed → 2, key removed → 1, only
    /// projected attributes changed → 1, nothing it holds changed → 0; each sized on its entry.
    /// `table` names the table for the capacity explanation; `None` when the write is not charged.
    /// `new` comes with the table's stored item, which an index projecting ALL keeps as it is.
    pub fn apply(
        &mut self,
        key: &PrimaryKey,
        old: Option<&Item>,
        new: Option<(&Item, &StoredItem)>,
        table_key: &[&str],
        table: Option<&str>,
    ) -> Units {
        let old_entry =
            old.and_then(|item| Some((self.definition.key_of(item)?, self.definition.entry(item, table_key))));
        let new_stored = new.map(|(_, stored)| stored);
        let new_entry =
            new.and_then(|(item, _)| Some((self.definition.key_of(item)?, self.definition.entry(item, table_key))));
        // The partition the entry lands on (the old one when it is removed), for the explanation.
        let partition: Vec<KeyValue> = if crate::explain::recording() {
            new_entry.as_ref().or(old_entry.as_ref()).map(|((hash, _), _)| hash.clone()).unwrap_or_default()
        } else {
            Vec::new()
        };
        let (units, bytes, why) = match (old_entry, new_entry) {
            (None, None) => return Units(0),
            (None, Some((index_key, entry))) => {
                let (units, bytes) = self.insert(index_key, &entry, new_stored, table_key);
                (units, bytes, "the item now has the index key: one entry written")
            }
            (Some((index_key, _)), None) => {
                let (units, bytes) = self.remove(&index_key, key);
                (units, bytes, "the item no longer has the index key (or is gone): one entry deleted")
            }
            (Some((old_key, old_item)), Some((new_key, new_item))) => {
                if old_key != new_key {
                    let (removed, old_bytes) = self.remove(&old_key, key);
                    let (added, new_bytes) = self.insert(new_key, &new_item, new_stored, table_key);
                    (
                        removed + added,
                        old_bytes + new_bytes,
                        "the index key changed: old entry deleted + new entry written",
                    )
                } else if crate::expression::eval::same_item(&old_item, &new_item) {
                    return Units(0);
                } else {
                    let (removed, old_bytes) = self.remove(&old_key, key);
                    let (added, new_bytes) = self.insert(new_key, &new_item, new_stored, table_key);
                    (removed.max(added), old_bytes.max(new_bytes), "a projected attribute changed: the entry rewritten")
                }
            }
        };
        if let Some(table) = table {
            crate::explain::write(table, Some(&self.definition.name), &partition, bytes, units, why);
        }
        units
    }

    /// Adds an entry; its write units and size.
    fn insert(
        &mut self,
        (hash, range): (Vec<KeyValue>, Vec<KeyValue>),
        entry: &Item,
        table_item: Option<&StoredItem>,
        table_key: &[&str],
    ) -> (Units, usize) {
        // An ALL projection's entry is the item: share the table's buffer.
        let stored = match (&self.definition.projection, table_item) {
            (Projection::All, Some(shared)) => shared.clone(),
            _ => StoredItem::new(entry, table_key),
        };
        let written = (Units::write(stored.size()), stored.size());
        self.item_count += 1;
        self.total_bytes += stored.size();
        self.partitions.entry(IndexSlot::of(&hash)).or_default().insert(&range_bytes(&range), stored);
        written
    }

    fn remove(&mut self, (hash, range): &(Vec<KeyValue>, Vec<KeyValue>), key: &PrimaryKey) -> (Units, usize) {
        let slot = IndexSlot::of(hash);
        let Some(collection) = self.partitions.get_mut(&slot) else { return (Units(0), 0) };
        let Some(old) = collection.remove(&range_bytes(range), key) else { return (Units(0), 0) };
        if collection.is_empty() {
            self.partitions.remove(&slot);
        }
        self.item_count -= 1;
        self.total_bytes -= old.size();
        (Units::write(old.size()), old.size())
    }

    /// One index partition.
    pub fn collection(&self, hash: &[KeyValue]) -> Option<&IndexCollection> {
        self.partitions.get(&IndexSlot::of(hash))
    }

    /// Index partitions from `start` on, in scan order.
    pub fn partitions_from(&self, start: Option<&IndexSlot>) -> impl Iterator<Item = (&IndexSlot, &IndexCollection)> {
        let lower = start.map_or(std::ops::Bound::Unbounded, |s| std::ops::Bound::Included(s.clone()));
        self.partitions.range((lower, std::ops::Bound::Unbounded))
    }
}
