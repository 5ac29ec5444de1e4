//! One index partition's entries, in order: by RANGE values (as `key_bytes`, kept in the entry,
//! inline when short), then by the table key, read from the entry's item rather than kept beside
//! it (docs/storage.md). An ALL-projected entry is the table's item itself, shared.

use super::item_text::{self, KeyText, Stored};
use super::schema::PrimaryKey;
use super::storage::StoredItem;
use crate::value::KeyValue;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound;

/// Key values as key bytes: inline up to 22 bytes (a number, a short string, a date), else in
/// their own allocation.
#[derive(Debug, Clone)]
pub enum ShortBytes {
    Inline(u8, [u8; 22]),
    Heap(Box<[u8]>),
}

impl PartialEq for ShortBytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl Eq for ShortBytes {}
impl PartialOrd for ShortBytes {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ShortBytes {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

impl ShortBytes {
    pub fn new(bytes: &[u8]) -> Self {
        let mut inline = [0u8; 22];
        match inline.get_mut(..bytes.len()) {
            Some(room) => {
                room.copy_from_slice(bytes);
                Self::Inline(bytes.len() as u8, inline)
            }
            None => Self::Heap(bytes.into()),
        }
    }

    pub fn as_slice(&self) -> &[u8] {
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
    range: ShortBytes,
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

fn compare_places(a: &(dyn Place + '_), b: &(dyn Place + '_)) -> Ordering {
    a.range().cmp(b.range()).then_with(|| match (a.key(), b.key()) {
        (KeyPlace::First, KeyPlace::First) => Ordering::Equal,
        (KeyPlace::First, KeyPlace::At(..)) => Ordering::Less,
        (KeyPlace::At(..), KeyPlace::First) => Ordering::Greater,
        (KeyPlace::At(ap, asort), KeyPlace::At(bp, bsort)) => {
            Stored::compare_options(ap, bp).then_with(|| Stored::compare_options(asort, bsort))
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
type StoredKey = (KeyText<'static>, Option<KeyText<'static>>);

impl EntryPlace {
    /// Before every entry whose RANGE bytes are `range` or after them. A bound from a key
    /// condition (`KeyConditions::position_bounds`) is never a proper extension of a whole
    /// entry's RANGE bytes, so comparing the bytes alone decides where it falls.
    pub fn before(range: Vec<u8>) -> Self {
        Self { range, key: None }
    }

    /// Exactly the entry with these RANGE bytes and this table key (where a read resumes).
    pub fn at(range: Vec<u8>, key: &PrimaryKey) -> Self {
        let owned = |value| item_text::owned_text(Stored::text_of(value));
        Self { range, key: Some((owned(&key.0), key.1.as_ref().map(owned))) }
    }
}

impl Place for EntryPlace {
    fn range(&self) -> &[u8] {
        &self.range
    }
    fn key(&self) -> KeyPlace<'_> {
        match &self.key {
            None => KeyPlace::First,
            Some((partition, sort)) => {
                KeyPlace::At(Some(Stored::of_text(partition)), sort.as_ref().map(Stored::of_text))
            }
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

/// One index partition's entries. Most partitions of an index on a unique attribute (an email, an
/// order number) hold one entry, which is kept as it is: a B-tree costs a whole node even for one,
/// and the set beside a single entry would cost its size in every partition.
#[derive(Debug, Clone, Default)]
pub struct IndexCollection(Entries);

#[derive(Debug, Clone, Default)]
enum Entries {
    #[default]
    None,
    One(Entry),
    /// Two or more.
    Many(BTreeSet<Entry>),
}

impl IndexCollection {
    pub fn len(&self) -> usize {
        match &self.0 {
            Entries::None => 0,
            Entries::One(_) => 1,
            Entries::Many(many) => many.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The only entry, if there is one; the set of them, if there are more.
    fn parts(&self) -> (Option<&Entry>, Option<&BTreeSet<Entry>>) {
        match &self.0 {
            Entries::None => (None, None),
            Entries::One(only) => (Some(only), None),
            Entries::Many(many) => (None, Some(many)),
        }
    }

    /// Every entry, in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &StoredItem> {
        let (one, many) = self.parts();
        one.into_iter().chain(many.into_iter().flatten()).map(|e| &e.item)
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
        let (one, many) = self.parts();
        let one = one.filter(|entry| !empty && within(entry, lower, upper));
        let range = many.filter(|_| !empty).map(|many| range_of(many, place_bound(lower), place_bound(upper)));
        one.into_iter().chain(range.into_iter().flatten()).map(|e| &e.item)
    }

    /// Adds the entry with these RANGE bytes (its table key is in `item`); the one it replaced.
    pub fn insert(&mut self, range: &[u8], item: StoredItem) -> Option<StoredItem> {
        let entry = Entry { range: ShortBytes::new(range), item };
        match std::mem::take(&mut self.0) {
            Entries::None => {
                self.0 = Entries::One(entry);
                None
            }
            Entries::One(only) if only == entry => {
                self.0 = Entries::One(entry);
                Some(only.item)
            }
            Entries::One(only) => {
                self.0 = Entries::Many(BTreeSet::from([only, entry]));
                None
            }
            Entries::Many(mut many) => {
                let replaced = many.replace(entry).map(|e| e.item);
                self.0 = Entries::Many(many);
                replaced
            }
        }
    }

    /// Removes the entry with these RANGE bytes and table key.
    pub fn remove(&mut self, range: &[u8], key: &PrimaryKey) -> Option<StoredItem> {
        let place = EntryPlace::at(range.to_vec(), key);
        match std::mem::take(&mut self.0) {
            Entries::None => None,
            Entries::One(only) if compare_places(&only, &place) == Ordering::Equal => Some(only.item),
            Entries::One(only) => {
                self.0 = Entries::One(only);
                None
            }
            Entries::Many(mut many) => {
                let removed = many.take(&place as &dyn Place).map(|e| e.item);
                // Back to one entry kept as it is.
                self.0 = match many.len() {
                    0 => Entries::None,
                    1 => many.pop_first().map_or(Entries::None, Entries::One),
                    _ => Entries::Many(many),
                };
                removed
            }
        }
    }
}

/// Whether `entry` is within the bounds.
fn within(entry: &Entry, lower: &Bound<EntryPlace>, upper: &Bound<EntryPlace>) -> bool {
    let above = match lower {
        Bound::Included(place) => compare_places(entry, place) != Ordering::Less,
        Bound::Excluded(place) => compare_places(entry, place) == Ordering::Greater,
        Bound::Unbounded => true,
    };
    let below = match upper {
        Bound::Included(place) => compare_places(entry, place) != Ordering::Greater,
        Bound::Excluded(place) => compare_places(entry, place) == Ordering::Less,
        Bound::Unbounded => true,
    };
    above && below
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

    #[test]
    fn a_partition_of_one_entry_reads_removes_and_grows_as_a_larger_one() {
        // A partition costs its one entry and no more (an index on a unique key has one per item).
        assert_eq!(std::mem::size_of::<IndexCollection>(), std::mem::size_of::<Entry>());
        let mut collection = IndexCollection::default();
        let (a, first, first_key) = entry("a", "p1", 1);
        assert!(collection.insert(&a, first.clone()).is_none());
        assert_eq!(collection.len(), 1);
        assert!(matches!(collection.0, Entries::One(_)), "one entry is kept as it is");
        // Replacing it, and the ranges that hold it or not.
        assert!(collection.insert(&a, first.clone()).is_some());
        assert_eq!(collection.len(), 1);
        assert_eq!(collection.range(&Bound::Included(EntryPlace::before(a.clone())), &Bound::Unbounded).count(), 1);
        assert_eq!(
            collection.range(&Bound::Excluded(EntryPlace::at(a.clone(), &first_key)), &Bound::Unbounded).count(),
            0
        );
        assert_eq!(collection.range(&Bound::Unbounded, &Bound::Excluded(EntryPlace::before(a.clone()))).count(), 0);
        // A second entry moves both into the set; removing one brings the other back.
        let (b, second, second_key) = entry("b", "p2", 2);
        collection.insert(&b, second);
        assert!(matches!(&collection.0, Entries::Many(many) if many.len() == 2));
        let order: Vec<_> = collection.values().map(|s| s.get("r")).collect();
        assert_eq!(order, vec![Some(AttributeValue::S("a".into())), Some(AttributeValue::S("b".into()))]);
        assert!(collection.remove(&b, &second_key).is_some());
        assert!(matches!(collection.0, Entries::One(_)));
        assert!(collection.remove(&a, &first_key).is_some());
        assert!(collection.is_empty());
    }
}
