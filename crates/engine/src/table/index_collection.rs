//! One index partition's entries, in order: by RANGE values (as `key_bytes`, kept in the entry,
//! inline when short), then by the table key, read from the entry's item rather than kept beside
//! it (docs/storage.md). An ALL-projected entry is the table's item itself, shared.

use super::item_text::{self, Stored};
use super::schema::PrimaryKey;
use super::storage::StoredItem;
use crate::value::KeyValue;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound;

/// RANGE values as key bytes: inline up to 22 bytes (a number, a short string, a date), else in
/// their own allocation.
#[derive(Debug, Clone)]
enum RangeBytes {
    Inline(u8, [u8; 22]),
    Heap(Box<[u8]>),
}

impl RangeBytes {
    fn new(bytes: &[u8]) -> Self {
        let mut inline = [0u8; 22];
        match inline.get_mut(..bytes.len()) {
            Some(room) => {
                room.copy_from_slice(bytes);
                Self::Inline(bytes.len() as u8, inline)
            }
            None => Self::Heap(bytes.into()),
        }
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            Self::Inline(length, bytes) => bytes.get(..usize::from(*length)).unwrap_or_default(),
            Self::Heap(bytes) => bytes,
        }
    }
}

/// The RANGE values of an entry as key bytes.
pub fn range_bytes(range: &[KeyValue]) -> Vec<u8> {
    let mut out = Vec::with_capacity(24);
    for value in range {
        super::key_bytes::push(value, &mut out);
    }
    out
}

#[derive(Debug, Clone)]
struct Entry {
    range: RangeBytes,
    item: StoredItem,
}

/// Where an entry sits: its RANGE bytes, then its table key.
trait Place {
    fn range(&self) -> &[u8];
    fn key(&self) -> KeyPlace<'_>;
}

#[derive(Clone, Copy)]
enum KeyPlace<'a> {
    /// Before every table key.
    First,
    At(Option<Stored<'a>>, Option<Stored<'a>>),
}

fn compare_stored(a: Option<Stored<'_>>, b: Option<Stored<'_>>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.compare(&b),
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

fn compare_places(a: &(dyn Place + '_), b: &(dyn Place + '_)) -> Ordering {
    a.range().cmp(b.range()).then_with(|| match (a.key(), b.key()) {
        (KeyPlace::First, KeyPlace::First) => Ordering::Equal,
        (KeyPlace::First, KeyPlace::At(..)) => Ordering::Less,
        (KeyPlace::At(..), KeyPlace::First) => Ordering::Greater,
        (KeyPlace::At(ap, asort), KeyPlace::At(bp, bsort)) => {
            compare_stored(ap, bp).then_with(|| compare_stored(asort, bsort))
        }
    })
}

impl Place for Entry {
    fn range(&self) -> &[u8] {
        self.range.as_slice()
    }
    fn key(&self) -> KeyPlace<'_> {
        KeyPlace::At(item_text::key_value(self.item.form(), 0), item_text::key_value(self.item.form(), 1))
    }
}

super::places::ordered_by_place!(Entry, Place, compare_places);

/// A place in an index partition made from values: before every entry whose RANGE bytes are
/// `range` or more, or at one entry (its RANGE bytes and table key).
pub struct EntryPlace {
    range: Vec<u8>,
    key: Option<StoredKey>,
}

/// A table key as stored texts: partition key, and sort key if any.
type StoredKey = ((u8, String), Option<(u8, String)>);

impl EntryPlace {
    /// Before every entry whose RANGE bytes are `range` or after them. A bound from a key
    /// condition (`KeyConditions::position_bounds`) is never a proper extension of a whole
    /// entry's RANGE bytes, so comparing the bytes alone decides where it falls.
    pub fn before(range: Vec<u8>) -> Self {
        Self { range, key: None }
    }

    /// Exactly the entry with these RANGE bytes and this table key (where a read resumes).
    pub fn at(range: Vec<u8>, key: &PrimaryKey) -> Self {
        Self { range, key: Some((Stored::text_of(&key.0), key.1.as_ref().map(Stored::text_of))) }
    }
}

fn stored(text: &(u8, String)) -> Stored<'_> {
    Stored { kind: text.0, payload: &text.1 }
}

impl Place for EntryPlace {
    fn range(&self) -> &[u8] {
        &self.range
    }
    fn key(&self) -> KeyPlace<'_> {
        match &self.key {
            None => KeyPlace::First,
            Some((partition, sort)) => KeyPlace::At(Some(stored(partition)), sort.as_ref().map(stored)),
        }
    }
}

fn place_bound(bound: &Bound<EntryPlace>) -> Bound<&(dyn Place + '_)> {
    match bound {
        Bound::Included(place) => Bound::Included(place),
        Bound::Excluded(place) => Bound::Excluded(place),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// One index partition's entries.
#[derive(Debug, Clone, Default)]
pub struct IndexCollection {
    entries: BTreeSet<Entry>,
}

impl IndexCollection {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &StoredItem> {
        self.entries.iter().map(|e| &e.item)
    }

    /// The entries between two places, in order (an empty or inverted range reads nothing).
    pub fn range(
        &self,
        lower: &Bound<EntryPlace>,
        upper: &Bound<EntryPlace>,
    ) -> impl DoubleEndedIterator<Item = &StoredItem> {
        let empty = match (lower, upper) {
            (Bound::Included(a), Bound::Included(b)) => compare_places(a, b) == Ordering::Greater,
            (Bound::Included(a) | Bound::Excluded(a), Bound::Excluded(b))
            | (Bound::Excluded(a), Bound::Included(b)) => compare_places(a, b) != Ordering::Less,
            _ => false,
        };
        let range = if empty { None } else { Some(range_of(&self.entries, place_bound(lower), place_bound(upper))) };
        range.into_iter().flatten().map(|e| &e.item)
    }

    /// Adds the entry with these RANGE bytes (its table key is in `item`); the one it replaced.
    pub fn insert(&mut self, range: &[u8], item: StoredItem) -> Option<StoredItem> {
        self.entries.replace(Entry { range: RangeBytes::new(range), item }).map(|e| e.item)
    }

    /// Removes the entry with these RANGE bytes and table key.
    pub fn remove(&mut self, range: &[u8], key: &PrimaryKey) -> Option<StoredItem> {
        let place = EntryPlace::at(range.to_vec(), key);
        self.entries.take(&place as &dyn Place).map(|e| e.item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{AttributeValue, Item};

    fn entry(range: &str, pk: &str, sk: i64) -> (Vec<u8>, StoredItem, PrimaryKey) {
        let key = (KeyValue::S(pk.into()), Some(KeyValue::N(crate::value::Number::parse(&sk.to_string()).expect("n"))));
        let item = Item::from([
            ("pk".to_string(), key.0.to_attribute()),
            ("r".to_string(), AttributeValue::S(range.into())),
            ("sk".to_string(), key.1.clone().expect("sort").to_attribute()),
        ]);
        (range_bytes(&[KeyValue::S(range.into())]), StoredItem::new(&item, &["pk", "sk"]), key)
    }

    #[test]
    fn entries_order_by_range_then_table_key_and_ranges_resume_exactly() {
        let mut collection = IndexCollection::default();
        let long = "l".repeat(40);
        let entries = [
            entry("b", "p1", 10),
            entry("a", "p2", 1),
            entry("b", "p1", 9),
            entry(&long, "p0", 1),
            entry("b", "p0", 100),
            entry("a", "p1", 2),
        ];
        for (range, item, _) in &entries {
            assert!(collection.insert(range, item.clone()).is_none());
        }
        let show = |s: &StoredItem| format!("{:?}/{:?}/{:?}", s.get("r"), s.get("pk"), s.get("sk"));
        let order: Vec<String> = collection.values().map(show).collect();
        // "a" (p1 before p2), then "b" (p0 100, then p1 9 before p1 10: numbers by value), then the
        // long value (kept out of line).
        let wanted: Vec<String> = [5, 1, 4, 2, 0, 3].iter().map(|i| show(&entries[*i].1)).collect();
        assert_eq!(order, wanted);
        // Everything from "b" on, and resumed after (b, p1, 9).
        let b = range_bytes(&[KeyValue::S("b".into())]);
        let from_b = collection.range(&Bound::Included(EntryPlace::before(b.clone())), &Bound::Unbounded).count();
        assert_eq!(from_b, 4);
        let after = EntryPlace::at(b.clone(), &entries[2].2);
        let rest: Vec<_> = collection.range(&Bound::Excluded(after), &Bound::Unbounded).map(|s| s.get("sk")).collect();
        assert_eq!(rest.len(), 2);
        assert_eq!(rest[0], entries[0].1.get("sk"));
        // An inverted range reads nothing (and does not panic).
        let c = range_bytes(&[KeyValue::S("c".into())]);
        assert_eq!(
            collection.range(&Bound::Included(EntryPlace::before(c)), &Bound::Excluded(EntryPlace::before(b))).count(),
            0
        );
        // Removing by RANGE bytes and table key.
        let (range, _, key) = &entries[3];
        assert!(collection.remove(range, key).is_some());
        assert!(collection.remove(range, key).is_none());
        assert_eq!(collection.len(), 5);
    }
}
