//! Item storage: partitions in stable-hash order, each an item collection ordered by sort key.
//! Scan walks this order, so `ExclusiveStartKey` resumes exactly and insertion order never shows.

use super::names::Names;
use super::schema::PrimaryKey;
use crate::value::{item_size, AttributeValue, Item, KeyValue};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

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

/// An item as stored: its attributes encoded in one shared buffer, each top-level name by its
/// number in the table's [`Names`] and each value as the DynamoDB JSON a response carries, so a
/// read copies bytes instead of serialising values (docs/storage.md). Cloning shares the buffer:
/// an index that projects every attribute holds the table's item, not a copy.
#[derive(Debug, Clone)]
pub struct StoredItem {
    encoded: Arc<[u8]>,
    names: Arc<Names>,
    /// The item's size by DynamoDB's rules, computed when written.
    pub size: usize,
}

impl StoredItem {
    pub fn new(item: &Item, names: &Arc<Names>) -> Self {
        let size = item_size(item);
        let mut encoded = Vec::with_capacity(size + 8 * item.len() + 8);
        for (name, value) in item.iter() {
            push_varint(&mut encoded, u64::from(names.intern(name)));
            let json = serde_json::to_vec(value).unwrap_or_default();
            push_varint(&mut encoded, json.len() as u64);
            encoded.extend_from_slice(&json);
        }
        Self { encoded: encoded.into(), names: Arc::clone(names), size }
    }

    /// Each attribute: the number of its name and its value's JSON.
    fn attributes(&self) -> Attributes<'_> {
        Attributes(&self.encoded)
    }

    /// The item itself, decoded.
    pub fn item(&self) -> Item {
        let names = self.names.read();
        self.attributes().filter_map(|(id, json)| Some((names.name(id).to_string(), decode_value(json)?))).collect()
    }

    /// One top-level attribute, decoded; `None` when the item does not have it.
    pub fn get(&self, name: &str) -> Option<AttributeValue> {
        let id = *self.names.read().ids().get(name)?;
        self.attributes().find(|(n, _)| *n == id).and_then(|(_, json)| decode_value(json))
    }

    /// The item as DynamoDB JSON.
    fn json(&self) -> String {
        let names = self.names.read();
        let mut out = String::with_capacity(self.encoded.len() + 16 * 8);
        out.push('{');
        for (i, (id, json)) in self.attributes().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(names.json_key(id));
            // Written by serde_json in `new`: valid UTF-8 JSON.
            out.push_str(std::str::from_utf8(json).unwrap_or("null"));
        }
        out.push('}');
        out
    }

    /// The item as a response member.
    pub fn to_json(&self) -> ItemJson<'static> {
        ItemJson::Encoded(self.json())
    }

    /// The item as a response member, taking ownership (for items just removed or replaced).
    pub fn into_json(self) -> ItemJson<'static> {
        self.to_json()
    }

    /// Bytes of memory the item's own buffer takes (for the memory benchmark's breakdown).
    pub fn encoded_bytes(&self) -> usize {
        self.encoded.len()
    }
}

fn decode_value(json: &[u8]) -> Option<AttributeValue> {
    serde_json::from_slice(json).ok()
}

fn push_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut n = 0u64;
    for (i, b) in bytes.iter().enumerate().take(10) {
        n |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    None
}

struct Attributes<'a>(&'a [u8]);

impl<'a> Iterator for Attributes<'a> {
    type Item = (u32, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let (id, used) = read_varint(self.0)?;
        let (len, used_len) = read_varint(&self.0[used..])?;
        let start = used + used_len;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        let json = self.0.get(start..end)?;
        self.0 = &self.0[end..];
        Some((u32::try_from(id).ok()?, json))
    }
}

/// An item in a response: its stored JSON, or an item built for this response (a projection, an
/// update's new image).
#[derive(Debug)]
pub enum ItemJson<'a> {
    Stored(&'a RawValue),
    Raw(Box<RawValue>),
    /// JSON assembled from a stored item: written through as it is (it was written by serde_json).
    Encoded(String),
    Item(Item),
}

impl Serialize for ItemJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Stored(raw) => raw.serialize(serializer),
            Self::Raw(raw) => raw.serialize(serializer),
            // serde_json writes a one-field struct of this name through unchanged: how its own
            // `RawValue` serialises (serde_json 1.x, `raw_value` feature), without parsing the
            // text again. A test below pins it.
            Self::Encoded(json) => {
                use serde::ser::SerializeStruct;
                let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
                raw.serialize_field(RAW_VALUE_TOKEN, json.as_str())?;
                raw.end()
            }
            Self::Item(item) => item.serialize(serializer),
        }
    }
}

const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// One partition key's items, by sort key (`None` on tables without a sort key).
pub type Collection = BTreeMap<Option<KeyValue>, StoredItem>;

/// All items of a table.
#[derive(Debug, Default, Clone)]
pub struct Storage {
    partitions: BTreeMap<PartitionSlot, Collection>,
    item_count: usize,
    total_bytes: usize,
    names: Arc<Names>,
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

    /// The table's attribute names.
    pub fn names(&self) -> &Arc<Names> {
        &self.names
    }

    /// Stores `item` under `key`, returning what was there.
    pub fn put(&mut self, key: PrimaryKey, item: &Item) -> Option<StoredItem> {
        self.put_stored(key, StoredItem::new(item, &self.names))
    }

    /// Stores an item already encoded with this table's names.
    pub fn put_stored(&mut self, key: PrimaryKey, stored: StoredItem) -> Option<StoredItem> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Number;

    fn item() -> Item {
        let mut nested = Item::new();
        nested.insert(
            "deep \"quoted\"".into(),
            AttributeValue::L(vec![AttributeValue::Null, AttributeValue::Bool(true)]),
        );
        Item::from([
            ("pk".to_string(), AttributeValue::S("USER#1".into())),
            ("n".to_string(), AttributeValue::N(Number::parse("-12.50").expect("number"))),
            ("b".to_string(), AttributeValue::B(vec![0, 255, 7])),
            ("m".to_string(), AttributeValue::M(nested)),
            ("ss".to_string(), AttributeValue::Ss(vec!["a".into(), "b".into()])),
            ("\u{1F600}".to_string(), AttributeValue::S("é\n".into())),
        ])
    }

    #[test]
    fn an_item_comes_back_as_it_went_in_and_its_json_is_the_items() {
        let names = Names::new();
        let stored = StoredItem::new(&item(), &names);
        assert_eq!(stored.item(), item());
        assert_eq!(stored.size, item_size(&item()));
        assert_eq!(stored.get("n"), item().get("n").cloned());
        assert_eq!(stored.get("absent"), None);
        let written = serde_json::to_string(&stored.to_json()).expect("json");
        assert_eq!(written, serde_json::to_string(&item()).expect("json"), "the stored JSON is what serde writes");
        let as_value = serde_json::to_value(stored.to_json()).expect("value");
        assert_eq!(as_value, serde_json::to_value(item()).expect("value"), "also through serde_json::Value");
    }

    #[test]
    fn items_share_one_table_of_names_and_a_clone_shares_the_buffer() {
        let names = Names::new();
        let a = StoredItem::new(&item(), &names);
        let b = StoredItem::new(&item(), &names);
        assert_eq!(names.read().ids().len(), item().len(), "each name once");
        let shared = a.clone();
        assert!(Arc::ptr_eq(&shared.encoded, &a.encoded));
        assert!(!Arc::ptr_eq(&b.encoded, &a.encoded));
    }
}
