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
    /// A GSI's `OnDemandThroughput` caps (read, write request units a second), when capped.
    pub on_demand_max: (Option<i64>, Option<i64>),
    /// A GSI's `WarmThroughput` when a request set it (read, write units a second).
    pub warm_throughput: Option<(i64, i64)>,
}

/// The hash of an index partition's HASH values: the order of partitions (scan order). One
/// attribute hashes as a table's partition key does (`KeyValue::scan_hash`).
pub fn partition_hash(key: &[KeyValue]) -> u64 {
    key.iter().fold(0u64, |h, k| h.rotate_left(17) ^ k.scan_hash())
}

pub use super::index_collection::{range_bytes, EntryPlace, IndexCollection, ShortBytes};

/// The partitions of one hash: almost always one, kept without its key (its HASH values are in
/// its items); partitions whose values share a hash (FNV can be made to collide) are kept by
/// their values as key bytes, in that order.
#[derive(Debug, Clone)]
enum HashPartitions {
    One(IndexCollection),
    Shared(Vec<(ShortBytes, IndexCollection)>),
}

impl HashPartitions {
    /// Adds an entry to the partition of HASH values `key` (as key bytes) under a hash that holds
    /// another partition, or several: they are kept apart, in key order.
    fn insert_shared(&mut self, names: &[KeyAttribute], key: &[u8], range: &[u8], stored: StoredItem) {
        if let Self::One(other) = self {
            let other = std::mem::take(other);
            *self = Self::Shared(vec![(ShortBytes::new(&key_bytes_of(names, &other)), other)]);
        }
        let Self::Shared(shared) = self else { return };
        match shared.binary_search_by(|(k, _)| k.as_slice().cmp(key)) {
            Ok(found) => {
                if let Some((_, collection)) = shared.get_mut(found) {
                    collection.insert(range, stored);
                }
            }
            Err(place) => {
                let mut collection = IndexCollection::default();
                collection.insert(range, stored);
                shared.insert(place, (ShortBytes::new(key), collection));
            }
        }
    }

    /// Removes the entry of HASH values `hash`, RANGE bytes `range` and table key `key`; of
    /// partitions sharing a hash, the last one left is kept as one again.
    fn remove(&mut self, hash: &[KeyValue], range: &[u8], key: &PrimaryKey) -> Option<StoredItem> {
        match self {
            Self::One(only) => only.remove(range, key),
            Self::Shared(shared) => {
                let key_bytes = range_bytes(hash);
                let old = shared.iter_mut().find(|(k, _)| k.as_slice() == key_bytes)?.1.remove(range, key);
                shared.retain(|(_, c)| !c.is_empty());
                if shared.len() == 1 {
                    if let Some((_, only)) = shared.pop() {
                        *self = Self::One(only);
                    }
                }
                old
            }
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Self::One(only) => only.is_empty(),
            Self::Shared(shared) => shared.is_empty(),
        }
    }
}

/// Where a walk over an index's partitions starts.
#[derive(Clone, Copy)]
pub enum PartitionsFrom<'k> {
    First,
    /// The first partition whose hash is this or more (where a Scan segment starts).
    Hash(u64),
    /// This partition (its HASH values), or the first after where it would be.
    Partition(&'k [KeyValue]),
}

/// One index partition in a walk.
pub struct IndexPartition<'a> {
    pub hash: u64,
    /// Whether it is the partition the walk was asked to start at (`PartitionsFrom::Partition`).
    pub is_start: bool,
    pub collection: &'a IndexCollection,
}

/// An index with its entries.
#[derive(Debug, Clone)]
pub struct Index {
    pub definition: IndexDefinition,
    partitions: BTreeMap<u64, HashPartitions>,
    /// A partition's hash: `partition_hash` (tests give one every partition shares).
    hash_of: fn(&[KeyValue]) -> u64,
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
        Self { definition, partitions: BTreeMap::new(), hash_of: partition_hash, item_count: 0, total_bytes: 0 }
    }

    /// The hash of a partition of this index (its HASH values): its place in scan order.
    pub fn hash_of(&self, values: &[KeyValue]) -> u64 {
        (self.hash_of)(values)
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
        let range = range_bytes(&range);
        let names = &self.definition.hash;
        let at = (self.hash_of)(&hash);
        match self.partitions.get_mut(&at) {
            Some(HashPartitions::One(only)) if holds(names, only, &hash) => {
                only.insert(&range, stored);
            }
            Some(partitions) => partitions.insert_shared(names, &range_bytes(&hash), &range, stored),
            None => {
                let mut only = IndexCollection::default();
                only.insert(&range, stored);
                self.partitions.insert(at, HashPartitions::One(only));
            }
        }
        written
    }

    fn remove(&mut self, (hash, range): &(Vec<KeyValue>, Vec<KeyValue>), key: &PrimaryKey) -> (Units, usize) {
        let at = (self.hash_of)(hash);
        let range = range_bytes(range);
        let Some(partitions) = self.partitions.get_mut(&at) else { return (Units(0), 0) };
        // The table key names one item, so the entry is found only in its own partition.
        let Some(old) = partitions.remove(hash, &range, key) else { return (Units(0), 0) };
        if partitions.is_empty() {
            self.partitions.remove(&at);
        }
        self.item_count -= 1;
        self.total_bytes -= old.size();
        (Units::write(old.size()), old.size())
    }

    /// One index partition.
    pub fn collection(&self, hash: &[KeyValue]) -> Option<&IndexCollection> {
        match self.partitions.get(&(self.hash_of)(hash))? {
            HashPartitions::One(only) => holds(&self.definition.hash, only, hash).then_some(only),
            HashPartitions::Shared(shared) => {
                let key = range_bytes(hash);
                shared.iter().find(|(k, _)| k.as_slice() == key).map(|(_, c)| c)
            }
        }
    }

    /// Index partitions from `start` on, in scan order.
    pub fn partitions_from<'a>(&'a self, start: PartitionsFrom<'_>) -> impl Iterator<Item = IndexPartition<'a>> {
        let (first, start_key) = match start {
            PartitionsFrom::First => (0, None),
            PartitionsFrom::Hash(hash) => (hash, None),
            PartitionsFrom::Partition(values) => ((self.hash_of)(values), Some(range_bytes(values))),
        };
        let names = &self.definition.hash;
        self.partitions.range(first..).flat_map(move |(&hash, partitions)| {
            // Only the start's own hash holds partitions before it, or the start itself: `None`
            // before it, `Some(true)` the start, `Some(false)` after it. (Its key is copied for
            // that hash alone, so that the walk below may keep it.)
            let key = if hash == first { start_key.clone() } else { None };
            let starts_here = key.is_some();
            let place = move |bytes: &[u8]| match key.as_deref().map(|key| bytes.cmp(key)) {
                None | Some(std::cmp::Ordering::Greater) => Some(false),
                Some(std::cmp::Ordering::Equal) => Some(true),
                Some(std::cmp::Ordering::Less) => None,
            };
            // One partition or several; either way walked without collecting them.
            let (one, shared): (Option<IndexPartition<'a>>, &'a [(ShortBytes, IndexCollection)]) = match partitions {
                HashPartitions::One(only) => {
                    // Its values are read from an entry only where the start's hash needs them.
                    let is_start = if starts_here { place(&key_bytes_of(names, only)) } else { Some(false) };
                    (is_start.map(|is_start| IndexPartition { hash, is_start, collection: only }), &[])
                }
                HashPartitions::Shared(shared) => (None, shared),
            };
            one.into_iter().chain(
                shared.iter().filter_map(move |(k, c)| {
                    Some(IndexPartition { hash, is_start: place(k.as_slice())?, collection: c })
                }),
            )
        })
    }
}

/// Whether a partition's HASH values are `values` (read from one of its entries, as stored).
fn holds(names: &[KeyAttribute], collection: &IndexCollection, values: &[KeyValue]) -> bool {
    let Some(item) = collection.values().next() else { return false };
    names.len() == values.len() && names.iter().zip(values).all(|(a, v)| item.has_key_value(&a.name, v))
}

/// A partition's HASH values as key bytes, read from one of its entries (every entry holds the
/// index key).
fn key_bytes_of(names: &[KeyAttribute], collection: &IndexCollection) -> Vec<u8> {
    let Some(item) = collection.values().next() else { return Vec::new() };
    let values: Vec<KeyValue> =
        names.iter().filter_map(|a| item.get(&a.name).as_ref().and_then(KeyValue::from_attribute)).collect();
    range_bytes(&values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{AttributeValue, ScalarType};

    fn index() -> Index {
        Index::new(IndexDefinition {
            name: "by_g".into(),
            kind: IndexKind::Global,
            hash: vec![KeyAttribute { name: "g".into(), kind: ScalarType::S }],
            range: vec![],
            projection: Projection::All,
            throughput: None,
            on_demand_max: (None, None),
            warm_throughput: None,
        })
    }

    fn item(g: &str, id: usize) -> (PrimaryKey, Item) {
        let key = (KeyValue::S(format!("id{id}")), None);
        (key.clone(), Item::from([("id".into(), key.0.to_attribute()), ("g".into(), AttributeValue::S(g.into()))]))
    }

    #[test]
    fn a_partition_costs_its_entries_and_its_hash() {
        assert_eq!(std::mem::size_of::<HashPartitions>(), std::mem::size_of::<IndexCollection>());
    }

    #[test]
    fn partitions_whose_values_share_a_hash_stay_apart_and_in_order() {
        let mut index = index();
        index.hash_of = |_| 7;
        let put = |index: &mut Index, g: &str, id: usize| {
            let (key, item) = item(g, id);
            index.apply(&key, None, Some((&item, &StoredItem::new(&item, &["id"]))), &["id"], None);
        };
        let delete = |index: &mut Index, g: &str, id: usize| {
            let (key, item) = item(g, id);
            index.apply(&key, Some(&item), None, &["id"], None);
        };
        let g = |v: &str| vec![KeyValue::S(v.into())];
        put(&mut index, "b", 1);
        assert!(index.collection(&g("b")).is_some());
        assert!(index.collection(&g("a")).is_none(), "the one partition of the hash is b's, not a's");
        for (value, id) in [("c", 2), ("a", 3), ("a", 4)] {
            put(&mut index, value, id);
        }
        let len = |index: &Index, v: &str| index.collection(&g(v)).map(IndexCollection::len);
        assert_eq!(
            (len(&index, "a"), len(&index, "b"), len(&index, "c"), len(&index, "d")),
            (Some(2), Some(1), Some(1), None)
        );
        let walk = |index: &Index, from: PartitionsFrom<'_>| -> Vec<(bool, usize)> {
            index.partitions_from(from).map(|p| (p.is_start, p.collection.len())).collect()
        };
        assert_eq!(walk(&index, PartitionsFrom::First), [(false, 2), (false, 1), (false, 1)], "a, b, c in key order");
        assert_eq!(walk(&index, PartitionsFrom::Partition(&g("b"))), [(true, 1), (false, 1)]);
        assert_eq!(walk(&index, PartitionsFrom::Partition(&g("bb"))), [(false, 1)], "after where bb would be: c");
        delete(&mut index, "b", 1);
        assert_eq!(len(&index, "b"), None);
        delete(&mut index, "a", 3);
        delete(&mut index, "a", 4);
        assert!(matches!(index.partitions.get(&7), Some(HashPartitions::One(_))), "one partition left: kept as one");
        assert_eq!(walk(&index, PartitionsFrom::Partition(&g("a"))), [(false, 1)], "c, after where a would be");
        assert_eq!(walk(&index, PartitionsFrom::Partition(&g("d"))), [], "nothing after d");
        delete(&mut index, "c", 2);
        assert!(index.partitions.is_empty());
        assert_eq!((index.item_count(), index.total_bytes()), (0, 0));
    }
}
