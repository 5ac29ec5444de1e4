//! Item storage: partitions in stable-hash order, each an item collection ordered by sort key.
//! Scan walks this order, so `ExclusiveStartKey` resumes exactly and insertion order never shows.

use super::schema::PrimaryKey;
use crate::value::{item_size, AttributeValue, Item, KeyValue};
use serde::Serialize;
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

/// An item as stored: its DynamoDB JSON, in one shared allocation. A read copies the text into the
/// response as it is (no value is serialised again, nothing is allocated per item); a condition,
/// a filter, an update or a projection decodes it. Cloning shares the text: an index projecting
/// ALL holds the table's item, not a copy (docs/storage.md, with the forms measured and why this
/// one).
#[derive(Debug, Clone)]
pub struct StoredItem {
    json: Arc<str>,
    /// The item's size by DynamoDB's rules, computed when written.
    pub size: usize,
}

impl StoredItem {
    pub fn new(item: &Item) -> Self {
        let json = serde_json::to_string(item).unwrap_or_else(|_| "{}".to_string());
        Self { json: json.into(), size: item_size(item) }
    }

    /// The item itself, decoded (it was written from a valid item, so it reads back).
    pub fn item(&self) -> Item {
        serde_json::from_str(&self.json).unwrap_or_default()
    }

    /// One top-level attribute, decoded; `None` when the item does not have it.
    pub fn get(&self, name: &str) -> Option<AttributeValue> {
        self.only(&[name]).remove(name)
    }

    /// The item reduced to `names`, decoding only their values (the other values are skipped over,
    /// not built): what a page's LastEvaluatedKey and the TTL sweep need.
    pub fn only(&self, names: &[&str]) -> Item {
        let Ok(raw) = serde_json::from_str::<BTreeMap<String, &serde_json::value::RawValue>>(&self.json) else {
            return Item::new();
        };
        raw.into_iter()
            .filter(|(n, _)| names.contains(&n.as_str()))
            .filter_map(|(n, v)| Some((n, serde_json::from_str(v.get()).ok()?)))
            .collect()
    }

    /// The item as a response member, borrowed.
    pub fn to_json(&self) -> ItemJson<'_> {
        ItemJson::Text(&self.json)
    }

    /// The item as a read returns it: whole, or reduced to a projection's paths (decoded only then).
    pub fn to_json_projected(&self, paths: Option<&[crate::expression::DocPath]>) -> ItemJson<'_> {
        match paths {
            Some(paths) => ItemJson::Item(crate::expression::projection::project(&self.item(), paths)),
            None => self.to_json(),
        }
    }

    /// The item as a response member, taking ownership (for items just removed or replaced).
    pub fn into_json(self) -> ItemJson<'static> {
        ItemJson::Shared(self.json)
    }
}

/// An item in a response: a stored item's JSON, or an item built for this response (a projection,
/// an update's new image).
#[derive(Debug)]
pub enum ItemJson<'a> {
    Text(&'a str),
    Shared(Arc<str>),
    Item(Item),
}

impl Serialize for ItemJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(json) => raw(serializer, json),
            Self::Shared(json) => raw(serializer, json),
            Self::Item(item) => item.serialize(serializer),
        }
    }
}

/// Writes JSON text through unchanged, without parsing it again: serde_json writes a one-field
/// struct of this name so (how its own `RawValue` serialises, serde_json 1.x with `raw_value`).
/// The text was written by serde_json from an item. A test below pins the behaviour.
fn raw<S: serde::Serializer>(serializer: S, json: &str) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";
    let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
    raw.serialize_field(RAW_VALUE_TOKEN, json)?;
    raw.end()
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

    /// Stores an item already encoded.
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
        let stored = StoredItem::new(&item());
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
    fn a_clone_shares_the_text() {
        let a = StoredItem::new(&item());
        let b = StoredItem::new(&item());
        assert!(Arc::ptr_eq(&a.clone().json, &a.json));
        assert!(!Arc::ptr_eq(&b.json, &a.json));
    }
}
