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
        let mut encoded = Vec::with_capacity(size + 4 * item.len() + 8);
        for (name, value) in item.iter() {
            push_varint(&mut encoded, u64::from(names.intern(name)));
            Encoded::push(value, &mut encoded);
        }
        Self { encoded: encoded.into(), names: Arc::clone(names), size }
    }

    /// Each attribute: the number of its name and its value.
    fn attributes(&self) -> Attributes<'_> {
        Attributes(&self.encoded)
    }

    /// The item itself, decoded.
    pub fn item(&self) -> Item {
        let names = self.names.read();
        self.attributes().filter_map(|(id, value)| Some((names.name(id).to_string(), value.decode()?))).collect()
    }

    /// One top-level attribute, decoded; `None` when the item does not have it.
    pub fn get(&self, name: &str) -> Option<AttributeValue> {
        let id = *self.names.read().ids().get(name)?;
        self.attributes().find(|(n, _)| *n == id).and_then(|(_, value)| value.decode())
    }

    /// The item as DynamoDB JSON.
    fn json(&self) -> String {
        let names = self.names.read();
        let mut out = String::with_capacity(self.encoded.len() + 16 * 8);
        out.push('{');
        for (i, (id, value)) in self.attributes().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(names.json_key(id));
            value.write_json(&mut out);
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
}

/// One value as stored. Strings and numbers, most of any item, keep only their text as JSON
/// writes it, the type in one byte; a response puts the constant `{"S":"` and `"}` around it.
/// Other types keep their whole JSON.
enum Encoded<'a> {
    /// A string JSON writes as it is.
    Plain(&'a [u8]),
    /// A string with characters JSON escapes: the escaped text, without its quotes.
    Escaped(&'a [u8]),
    Number(&'a [u8]),
    True,
    False,
    Null,
    Json(&'a [u8]),
}

const TAG_JSON: u8 = 0;
const TAG_PLAIN: u8 = 1;
const TAG_ESCAPED: u8 = 2;
const TAG_NUMBER: u8 = 3;
const TAG_TRUE: u8 = 4;
const TAG_FALSE: u8 = 5;
const TAG_NULL: u8 = 6;

impl Encoded<'_> {
    fn push(value: &AttributeValue, out: &mut Vec<u8>) {
        let with_text = |out: &mut Vec<u8>, tag: u8, text: &[u8]| {
            out.push(tag);
            push_varint(out, text.len() as u64);
            out.extend_from_slice(text);
        };
        match value {
            AttributeValue::S(s) if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') => {
                with_text(out, TAG_PLAIN, s.as_bytes());
            }
            AttributeValue::S(s) => {
                let quoted = serde_json::to_string(s).unwrap_or_default();
                let inner = quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or_default();
                with_text(out, TAG_ESCAPED, inner.as_bytes());
            }
            AttributeValue::N(n) => with_text(out, TAG_NUMBER, n.to_string().as_bytes()),
            AttributeValue::Bool(true) => out.push(TAG_TRUE),
            AttributeValue::Bool(false) => out.push(TAG_FALSE),
            AttributeValue::Null => out.push(TAG_NULL),
            other => with_text(out, TAG_JSON, &serde_json::to_vec(other).unwrap_or_default()),
        }
    }

    fn decode(&self) -> Option<AttributeValue> {
        let text = |bytes: &[u8]| std::str::from_utf8(bytes).ok().map(str::to_string);
        Some(match self {
            Self::Plain(bytes) => AttributeValue::S(text(bytes)?),
            Self::Escaped(bytes) => {
                let mut quoted = Vec::with_capacity(bytes.len() + 2);
                quoted.push(b'"');
                quoted.extend_from_slice(bytes);
                quoted.push(b'"');
                AttributeValue::S(serde_json::from_slice(&quoted).ok()?)
            }
            Self::Number(bytes) => {
                AttributeValue::N(crate::value::Number::parse(std::str::from_utf8(bytes).ok()?).ok()?)
            }
            Self::True => AttributeValue::Bool(true),
            Self::False => AttributeValue::Bool(false),
            Self::Null => AttributeValue::Null,
            Self::Json(bytes) => serde_json::from_slice(bytes).ok()?,
        })
    }

    /// The value's JSON. Its text was written by `push` from a Rust string or by serde_json.
    fn write_json(&self, out: &mut String) {
        fn text(bytes: &[u8]) -> &str {
            std::str::from_utf8(bytes).unwrap_or_default()
        }
        match self {
            Self::Plain(bytes) | Self::Escaped(bytes) => {
                out.push_str("{\"S\":\"");
                out.push_str(text(bytes));
                out.push_str("\"}");
            }
            Self::Number(bytes) => {
                out.push_str("{\"N\":\"");
                out.push_str(text(bytes));
                out.push_str("\"}");
            }
            Self::True => out.push_str("{\"BOOL\":true}"),
            Self::False => out.push_str("{\"BOOL\":false}"),
            Self::Null => out.push_str("{\"NULL\":true}"),
            Self::Json(bytes) => out.push_str(text(bytes)),
        }
    }
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
    type Item = (u32, Encoded<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.0;
        let (id, used) = read_varint(bytes)?;
        let tag = *bytes.get(used)?;
        let mut at = used + 1;
        let mut text = || -> Option<&'a [u8]> {
            let (len, used_len) = read_varint(bytes.get(at..)?)?;
            let start = at + used_len;
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            at = end;
            bytes.get(start..end)
        };
        let value = match tag {
            TAG_PLAIN => Encoded::Plain(text()?),
            TAG_ESCAPED => Encoded::Escaped(text()?),
            TAG_NUMBER => Encoded::Number(text()?),
            TAG_TRUE => Encoded::True,
            TAG_FALSE => Encoded::False,
            TAG_NULL => Encoded::Null,
            TAG_JSON => Encoded::Json(text()?),
            _ => return None,
        };
        self.0 = bytes.get(at..)?;
        Some((u32::try_from(id).ok()?, value))
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
            ("quote".to_string(), AttributeValue::S("say \"hi\" \\ back".into())),
            ("yes".to_string(), AttributeValue::Bool(true)),
            ("no".to_string(), AttributeValue::Bool(false)),
            ("nothing".to_string(), AttributeValue::Null),
            ("zero".to_string(), AttributeValue::N(Number::zero())),
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
