//! Item storage: partitions in DynamoDB's hash order (`KeyValue::scan_hash`), each an item
//! collection ordered by sort key.
//! Scan walks this order, so `ExclusiveStartKey` resumes exactly and insertion order never shows.

use super::item_text;
use super::schema::{KeySchema, PrimaryKey};
use crate::value::{item_size, AttributeValue, Item, KeyValue};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound;

/// Where a partition sits in scan order: its key's hash, then the key itself.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PartitionSlot {
    pub hash: u64,
    pub key: KeyValue,
}

/// An item as stored: its compact form (`item_text`), in one shared allocation. A read writes its
/// JSON from that form (`to_json`); a condition, a filter, an update or a projection decodes it.
/// Cloning shares the form: an index projecting ALL holds the table's item, not a copy
/// (docs/storage.md, with the forms measured and why this one).
#[derive(Debug, Clone)]
pub struct StoredItem {
    form: arcstr::ArcStr,
}

impl StoredItem {
    /// `key` names the table's key attributes (partition key, then sort key if any).
    pub fn new(item: &Item, key: &[impl AsRef<str>]) -> Self {
        Self { form: arcstr::ArcStr::from(item_text::encode(item, item_size(item), key)) }
    }

    /// The stored form (`item_text`).
    pub(crate) fn form(&self) -> &str {
        &self.form
    }

    /// The item's size by DynamoDB's rules, computed when written.
    pub fn size(&self) -> usize {
        item_text::size(&self.form)
    }

    /// The item itself, decoded.
    pub fn item(&self) -> Item {
        item_text::decode(&self.form)
    }

    /// One top-level attribute, decoded; `None` when the item does not have it.
    pub fn get(&self, name: &str) -> Option<AttributeValue> {
        item_text::attributes(&self.form).find(|a| a.name.text() == name)?.value()
    }

    /// Whether the item's attribute `name` is the key value `value`, compared as stored (no decoding).
    pub fn has_key_value(&self, name: &str, value: &KeyValue) -> bool {
        let Some(attribute) = item_text::attributes(&self.form).find(|a| a.name.text() == name) else { return false };
        let (kind, text) = item_text::Stored::text_of(value);
        let stored = item_text::Stored { kind: attribute.kind, payload: attribute.payload };
        stored.compare(&item_text::Stored { kind, payload: &text }) == Ordering::Equal
    }

    /// Whether the item has the top-level attribute `name` (nothing decoded).
    pub fn has(&self, name: &str) -> bool {
        item_text::attributes(&self.form).any(|a| a.name.text() == name)
    }

    /// The item reduced to `names`, decoding only their values: what a page's LastEvaluatedKey
    /// and the TTL sweep need.
    pub fn only(&self, names: &[&str]) -> Item {
        item_text::decode_only(&self.form, names)
    }

    /// The item as a response member, borrowed.
    pub fn to_json(&self) -> ItemJson<'_> {
        ItemJson::Stored(self)
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
        ItemJson::Owned(self)
    }

    /// The item's DynamoDB JSON, written at the end of `out`.
    pub fn write_json(&self, out: &mut String) {
        item_text::render(&self.form, out);
    }
}

/// An item in a response: a stored item, or an item built for this response (a projection, an
/// update's new image).
#[derive(Debug)]
pub enum ItemJson<'a> {
    Stored(&'a StoredItem),
    Owned(StoredItem),
    Item(Item),
}

impl Serialize for ItemJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Stored(stored) => written(serializer, stored),
            Self::Owned(stored) => written(serializer, stored),
            Self::Item(item) => item.serialize(serializer),
        }
    }
}

impl ItemJson<'_> {
    /// The item's DynamoDB JSON, written at the end of `out`.
    pub fn write_json(&self, out: &mut String) {
        match self {
            Self::Stored(stored) => stored.write_json(out),
            Self::Owned(stored) => stored.write_json(out),
            Self::Item(item) => out.push_str(&serde_json::to_string(item).unwrap_or_default()),
        }
    }

    /// About how many bytes its JSON takes (room to reserve before writing it).
    pub fn room(&self) -> usize {
        let stored = match self {
            Self::Stored(stored) => *stored,
            Self::Owned(stored) => stored,
            Self::Item(_) => return 64,
        };
        stored.form.len() + stored.form.len() / 2 + 16
    }
}

thread_local! {
    /// Text written on the way to somewhere else (an item's JSON into a response, a probe's form
    /// into its allocation): one buffer, reused, so it stays in cache and costs no allocation.
    static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// `use_text` given the thread's scratch buffer, cleared (or a new one if it is in use, which
/// only a call nested in another's would find).
fn with_scratch<R>(use_text: impl FnOnce(&mut String) -> R) -> R {
    SCRATCH.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut buffer) => {
            buffer.clear();
            use_text(&mut buffer)
        }
        Err(_) => use_text(&mut String::new()),
    })
}

fn written<S: serde::Serializer>(serializer: S, stored: &StoredItem) -> Result<S::Ok, S::Error> {
    with_scratch(|buffer| {
        stored.write_json(buffer);
        raw(serializer, buffer)
    })
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

/// One stored item, the leading half of its partition's stable hash (which leads the order: scan
/// order) and its sort key's leading bytes (`key_bytes::leading`), so that finding an item compares
/// numbers held here and reads keys from items only where those are equal. 24 bytes: the hash's
/// 32 bits are enough to keep partitions apart in all but a few cases (keys sharing a hash are
/// handled, `Storage::shared_hashes`), and leave room for 12 bytes of the sort key.
#[derive(Debug, Clone)]
struct Entry {
    hash: u32,
    /// The sort key's leading bytes: the first eight, then the next four (two fields, not a
    /// tuple, so that the entry packs into 24 bytes).
    sort_first: u64,
    sort_next: u32,
    item: StoredItem,
}

/// The hash bits a table keeps (`Entry::hash`), in place: a hash with the rest cleared.
const KEPT_HASH_BITS: u64 = 0xFFFF_FFFF_0000_0000;

impl Entry {
    fn new(hash: u64, sort_leading: u128, item: StoredItem) -> Self {
        // The casts keep exactly the kept bits: the hash's top 32, the leading bytes' top 96.
        Self {
            hash: (hash >> 32) as u32,
            sort_first: (sort_leading >> 64) as u64,
            sort_next: (sort_leading >> 32) as u32,
            item,
        }
    }

    /// The kept hash, in place (`KEPT_HASH_BITS`).
    fn hash(&self) -> u64 {
        u64::from(self.hash) << 32
    }
}

/// A table's order: by partition hash, then by the sort key's leading bytes, then by partition key
/// and sort key. Within a partition that is sort-key order; partitions of different hashes never
/// mix; the items of partitions whose keys share a hash interleave (see `Storage::shared_hashes`).
/// Items and the probes a lookup or a range is made of are both entries (a probe's form holds only
/// its keys, `probe`), so one ordered set serves both and nearly every comparison is of numbers
/// held in the entries, with no call through a trait object.
impl Entry {
    /// Whether this entry is a probe: its form starts with a marker no item's form starts with
    /// (an item's starts with an ASCII digit of its size).
    fn is_probe(&self) -> bool {
        self.item.form.as_bytes().first().is_some_and(|b| !b.is_ascii())
    }

    /// The partition key; `None` before every partition of this hash.
    fn partition(&self) -> Option<item_text::Stored<'_>> {
        if self.is_probe() {
            return probe_keys(&self.item.form).0;
        }
        item_text::key_value(&self.item.form, 0)
    }

    fn sort(&self) -> SortPlace<'_> {
        if !self.is_probe() {
            return SortPlace::At(item_text::key_value(&self.item.form, 1));
        }
        match self.item.form.chars().next() {
            Some(PROBE_FIRST) => SortPlace::First,
            Some(PROBE_LAST) => SortPlace::Last,
            _ => SortPlace::At(probe_keys(&self.item.form).1),
        }
    }
}

/// A place among a partition's sort keys.
#[derive(Clone, Copy)]
enum SortPlace<'a> {
    First,
    /// An item's sort key (`None` on a table without one).
    At(Option<item_text::Stored<'a>>),
    Last,
}

fn compare_sort(a: SortPlace<'_>, b: SortPlace<'_>) -> Ordering {
    let rank = |p: &SortPlace<'_>| match p {
        SortPlace::First => 0,
        SortPlace::At(_) => 1,
        SortPlace::Last => 2,
    };
    match (a, b) {
        (SortPlace::At(a), SortPlace::At(b)) => item_text::Stored::compare_options(a, b),
        (a, b) => rank(&a).cmp(&rank(&b)),
    }
}

fn same_partition(a: &Entry, b: &Entry) -> bool {
    a.hash == b.hash && item_text::Stored::compare_options(a.partition(), b.partition()) == Ordering::Equal
}

fn compare_entries(a: &Entry, b: &Entry) -> Ordering {
    // Nearly every comparison of a lookup ends here, on numbers.
    let prefix = (a.hash, a.sort_first, a.sort_next).cmp(&(b.hash, b.sort_first, b.sort_next));
    if prefix != Ordering::Equal {
        return prefix;
    }
    item_text::Stored::compare_options(a.partition(), b.partition()).then_with(|| compare_sort(a.sort(), b.sort()))
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        compare_entries(self, other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_entries(self, other)
    }
}

/// The first character of a probe's form: where it is among its partition's sort keys.
const PROBE_FIRST: char = '\u{C0}';
const PROBE_AT: char = '\u{C1}';
const PROBE_LAST: char = '\u{C2}';

/// A probe: an entry made from key values (a request's key, a condition's bound, a start key), its
/// form the marker (`PROBE_*`) then the partition key and the sort key, each `-` when absent or
/// its kind, its length, `:` and its stored text.
fn probe(hash: u64, sort_leading: u128, marker: char, partition: Option<&KeyValue>, sort: Option<&KeyValue>) -> Entry {
    let write = |form: &mut String| {
        form.push(marker);
        for key in [partition, sort] {
            match key.map(item_text::Stored::text_of) {
                None => form.push('-'),
                Some((kind, text)) => {
                    form.push(char::from(kind));
                    push_decimal(form, text.len());
                    form.push(':');
                    form.push_str(&text);
                }
            }
        }
        arcstr::ArcStr::from(form.as_str())
    };
    // Written into the scratch buffer, so that a probe costs the one allocation its form is.
    Entry::new(hash, sort_leading, StoredItem { form: with_scratch(write) })
}

/// `n` in decimal (no formatting machinery: a probe is made for every lookup).
fn push_decimal(form: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    form.push_str(std::str::from_utf8(&digits[at..]).unwrap_or("0"));
}

/// A probe's partition key and sort key, read back from its form.
fn probe_keys(form: &str) -> (Option<item_text::Stored<'_>>, Option<item_text::Stored<'_>>) {
    let marker = form.chars().next().map_or(0, char::len_utf8);
    let mut rest = form.get(marker..).unwrap_or("");
    let partition = take_key(&mut rest);
    let sort = take_key(&mut rest);
    (partition, sort)
}

fn take_key<'f>(rest: &mut &'f str) -> Option<item_text::Stored<'f>> {
    let text: &'f str = rest;
    let kind = *text.as_bytes().first()?;
    if kind == b'-' {
        *rest = text.get(1..).unwrap_or("");
        return None;
    }
    let colon = text.find(':')?;
    let length: usize = text.get(1..colon)?.parse().ok()?;
    let payload = text.get(colon + 1..colon + 1 + length)?;
    *rest = text.get(colon + 1 + length..).unwrap_or("");
    Some(item_text::Stored { kind, payload })
}

/// At a sort key of a partition whose hash is `hash` (`None`: a table without a sort key).
fn probe_at(hash: u64, partition: &KeyValue, sort: Option<&KeyValue>) -> Entry {
    probe(hash, sort_leading(sort), PROBE_AT, Some(partition), sort)
}

/// Before every item of a partition whose hash is `hash`.
fn probe_first(hash: u64, partition: &KeyValue) -> Entry {
    probe(hash, 0, PROBE_FIRST, Some(partition), None)
}

/// After every item of a partition whose hash is `hash`.
fn probe_last(hash: u64, partition: &KeyValue) -> Entry {
    probe(hash, u128::MAX, PROBE_LAST, Some(partition), None)
}

/// Before every item whose partition hashes to `hash` or more.
fn probe_from_hash(hash: u64) -> Entry {
    probe(hash, 0, PROBE_FIRST, None, None)
}

fn sort_leading(sort: Option<&KeyValue>) -> u128 {
    sort.map_or(0, super::key_bytes::leading)
}

fn bound((probe, included): &(Entry, bool)) -> Bound<&Entry> {
    if *included {
        Bound::Included(probe)
    } else {
        Bound::Excluded(probe)
    }
}

/// All items of a table, in one ordered set: partitions in stable-hash order, each an item
/// collection ordered by sort key. Keys are not kept beside the items: the order reads them from
/// each item's form (docs/storage.md).
#[derive(Debug, Clone)]
pub struct Storage {
    entries: BTreeSet<Entry>,
    /// The table's key attribute names (partition key, then sort key if any), as forms record them.
    key_names: Vec<String>,
    /// Hashes that two or more partition keys have had (never forgotten). The items of such
    /// partitions interleave in the order, so reading one partition of these hashes skips the
    /// others' items. Of the 32 bits kept, n partitions share about n²/2³³ pairs by chance (a
    /// million partitions: ~116), and keys can be chosen to collide; a small table's set is empty.
    shared_hashes: BTreeSet<u64>,
    /// A partition key's hash: `KeyValue::scan_hash` (tests give a weaker one, to share hashes).
    /// Only its `KEPT_HASH_BITS` are used (`Storage::hash`).
    hash_of: fn(&KeyValue) -> u64,
    item_count: usize,
    total_bytes: usize,
}

impl Storage {
    pub fn new(schema: &KeySchema) -> Self {
        let key_names = std::iter::once(&schema.hash).chain(&schema.range).map(|a| a.name.clone()).collect();
        Self {
            entries: BTreeSet::new(),
            key_names,
            shared_hashes: BTreeSet::new(),
            hash_of: KeyValue::scan_hash,
            item_count: 0,
            total_bytes: 0,
        }
    }

    /// A partition key's hash as the table keeps it (the place in scan order a Scan segment
    /// is judged by).
    pub fn hash(&self, partition: &KeyValue) -> u64 {
        (self.hash_of)(partition) & KEPT_HASH_BITS
    }

    fn probe(&self, key: &PrimaryKey) -> Entry {
        probe_at(self.hash(&key.0), &key.0, key.1.as_ref())
    }

    /// The item form of `item` for this table.
    pub fn encode(&self, item: &Item) -> StoredItem {
        StoredItem::new(item, &self.key_names)
    }

    pub fn item_count(&self) -> usize {
        self.item_count
    }

    pub fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    pub fn get(&self, key: &PrimaryKey) -> Option<&StoredItem> {
        self.entries.get(&self.probe(key)).map(|e| &e.item)
    }

    /// Stores an item already encoded (by [`Storage::encode`]) under `key`, its key.
    pub fn put_stored(&mut self, key: &PrimaryKey, stored: StoredItem) -> Option<StoredItem> {
        let size = stored.size();
        let hash = self.hash(&key.0);
        let entry = Entry::new(hash, sort_leading(key.1.as_ref()), stored);
        let old = self.entries.replace(entry).map(|e| e.item);
        self.total_bytes += size;
        if let Some(previous) = &old {
            self.total_bytes -= previous.size();
        } else {
            self.item_count += 1;
            self.note_shared_hash(hash, &key.0);
        }
        old
    }

    /// After a new item of `partition` went in: whether its hash is now another partition's too.
    /// Until a hash is shared its items are of one partition, so looking at the first and the last
    /// item of the hash tells: if the newcomer is the only item of its partition and another's are
    /// there, one of the two ends is another's.
    fn note_shared_hash(&mut self, hash: u64, partition: &KeyValue) {
        if self.shared_hashes.contains(&hash) {
            return;
        }
        // The next hash a table can keep bounds the run.
        let (first, next) = (probe_from_hash(hash), hash.checked_add(!KEPT_HASH_BITS + 1).map(probe_from_hash));
        let upper = next.as_ref().map_or(Bound::Unbounded, Bound::Excluded);
        let mut run = self.entries.range((Bound::Included(&first), upper));
        let own = probe_first(hash, partition);
        let other = |e: Option<&Entry>| e.is_some_and(|e| !same_partition(e, &own));
        if other(run.next()) || other(run.next_back()) {
            self.shared_hashes.insert(hash);
        }
    }

    pub fn delete(&mut self, key: &PrimaryKey) -> Option<StoredItem> {
        let old = self.entries.take(&self.probe(key))?.item;
        self.item_count -= 1;
        self.total_bytes -= old.size();
        Some(old)
    }

    /// An item's key, read from its form.
    pub fn key_of(&self, stored: &StoredItem) -> PrimaryKey {
        let value = |which| item_text::key_value(&stored.form, which).and_then(|v| v.key_value());
        (value(0).unwrap_or_else(|| KeyValue::S(String::new())), value(1))
    }

    /// Every item, in scan order.
    pub fn stored_items(&self) -> impl DoubleEndedIterator<Item = &StoredItem> + ExactSizeIterator {
        self.entries.iter().map(|e| &e.item)
    }

    /// Every item with its key, in scan order.
    pub fn items(&self) -> impl Iterator<Item = (PrimaryKey, &StoredItem)> {
        self.entries.iter().map(|e| (self.key_of(&e.item), &e.item))
    }

    /// Every item after `after` (or from the first), in scan order: where a TTL sweep resumes.
    pub fn items_after(&self, after: Option<&PrimaryKey>) -> impl Iterator<Item = (PrimaryKey, &StoredItem)> {
        self.scan_from(after, None).map(|(_, item)| (self.key_of(item), item))
    }

    /// Items in scan order with their partition's hash: after the item `after` (exclusive), or
    /// from the first partition whose hash is `first_hash` or more, or from the first.
    pub fn scan_from(
        &self,
        after: Option<&PrimaryKey>,
        first_hash: Option<u64>,
    ) -> impl Iterator<Item = (u64, &StoredItem)> {
        let probe = match (after, first_hash) {
            (Some(key), _) => Some((self.probe(key), true)),
            (None, Some(hash)) => Some((probe_from_hash(hash), false)),
            (None, None) => None,
        };
        let entries = match &probe {
            Some((probe, true)) => self.entries.range((Bound::Excluded(probe), Bound::Unbounded)),
            Some((probe, false)) => self.entries.range((Bound::Included(probe), Bound::Unbounded)),
            None => self.entries.range::<Entry, _>(..),
        };
        entries.map(|e| (e.hash(), &e.item))
    }

    /// The items of one partition whose sort keys are within `lower` and `upper`, in sort-key
    /// order (an empty or inverted range reads nothing).
    pub fn sort_range(
        &self,
        partition: &KeyValue,
        lower: Bound<&KeyValue>,
        upper: Bound<&KeyValue>,
    ) -> impl DoubleEndedIterator<Item = &StoredItem> {
        let hash = self.hash(partition);
        let at = |v| probe_at(hash, partition, Some(v));
        let low = match lower {
            Bound::Included(v) => (at(v), true),
            Bound::Excluded(v) => (at(v), false),
            Bound::Unbounded => (probe_first(hash, partition), true),
        };
        let high = match upper {
            Bound::Included(v) => (at(v), true),
            Bound::Excluded(v) => (at(v), false),
            Bound::Unbounded => (probe_last(hash, partition), true),
        };
        let order = compare_entries(&low.0, &high.0);
        // BTreeSet::range panics on an inverted range, or an empty one with both ends excluded.
        let empty = order == Ordering::Greater || (order == Ordering::Equal && !(low.1 && high.1));
        let range = if empty { None } else { Some(self.entries.range((bound(&low), bound(&high)))) };
        // Another partition's items lie between the two ends only if it has the hash too: when
        // the hash is not shared, they are all another's (the first says) or none is; when it
        // is, each is looked at. The lower end names the partition, as every probe here does.
        let own = low.0;
        let shared = self.shared_hashes.contains(&hash);
        let range = range.filter(|r| shared || r.clone().next().is_none_or(|e| same_partition(e, &own)));
        range.into_iter().flatten().filter(move |e| !shared || same_partition(e, &own)).map(|e| &e.item)
    }

    /// The items of one partition, in sort-key order.
    pub fn collection(&self, partition: &KeyValue) -> impl DoubleEndedIterator<Item = &StoredItem> {
        self.sort_range(partition, Bound::Unbounded, Bound::Unbounded)
    }

    /// Item collections in scan order, each with its partition: the items of one hash, gathered
    /// as they are walked, and parted by partition key where the hash is shared.
    pub fn collections(&self) -> impl Iterator<Item = (PartitionSlot, Vec<&StoredItem>)> {
        let mut entries = self.entries.iter().peekable();
        let mut parted = std::collections::VecDeque::new();
        std::iter::from_fn(move || {
            if let Some(collection) = parted.pop_front() {
                return Some(collection);
            }
            let first = entries.next()?;
            let mut run = vec![first];
            while let Some(next) = entries.next_if(|e| e.hash == first.hash) {
                run.push(next);
            }
            let slot = |entry: &Entry| PartitionSlot { hash: entry.hash(), key: self.key_of(&entry.item).0 };
            if !self.shared_hashes.contains(&first.hash()) {
                return Some((slot(first), run.into_iter().map(|e| &e.item).collect()));
            }
            // In partition-key order; each partition's items keep their (sort-key) order.
            run.sort_by(|a, b| item_text::Stored::compare_options(a.partition(), b.partition()));
            for group in run.chunk_by(|a, b| same_partition(a, b)) {
                if let Some(head) = group.first() {
                    parted.push_back((slot(head), group.iter().map(|e| &e.item).collect()));
                }
            }
            parted.pop_front()
        })
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
        let stored = StoredItem::new(&item(), &["pk"]);
        assert_eq!(stored.item(), item());
        assert_eq!(stored.size(), item_size(&item()));
        assert_eq!(stored.get("n"), item().get("n").cloned());
        assert_eq!(stored.get("absent"), None);
        let written = serde_json::to_string(&stored.to_json()).expect("json");
        assert_eq!(written, serde_json::to_string(&item()).expect("json"), "the stored JSON is what serde writes");
        let as_value = serde_json::to_value(stored.to_json()).expect("value");
        assert_eq!(as_value, serde_json::to_value(item()).expect("value"), "also through serde_json::Value");
    }

    mod order {
        use super::super::*;
        use crate::table::key_bytes::tests::{key_value, kind};
        use crate::table::schema::KeyAttribute;
        use crate::value::ScalarType;
        use proptest::prelude::*;
        use std::collections::BTreeMap;

        fn storage(hash: ScalarType, range: ScalarType, hash_of: fn(&KeyValue) -> u64) -> Storage {
            let mut storage = Storage::new(&KeySchema {
                hash: KeyAttribute { name: "p\"k".into(), kind: hash },
                range: Some(KeyAttribute { name: "sk".into(), kind: range }),
            });
            storage.hash_of = hash_of;
            storage
        }

        /// Two hashes for every key: most partitions share one, as only keys made to collide do.
        fn shared_hash(key: &KeyValue) -> u64 {
            (key.stable_hash() % 2) << 63
        }

        /// Hashes that differ only in the bits a table does not keep: every partition shares one.
        fn hash_differing_in_dropped_bits(key: &KeyValue) -> u64 {
            key.stable_hash() & !KEPT_HASH_BITS
        }

        fn item(key: &PrimaryKey, n: usize) -> Item {
            let mut item = Item::from([
                ("p\"k".to_string(), key.0.to_attribute()),
                ("v".to_string(), AttributeValue::S(n.to_string())),
            ]);
            if let Some(sort) = &key.1 {
                item.insert("sk".into(), sort.to_attribute());
            }
            item
        }

        fn bound(v: &KeyValue, included: bool) -> Bound<&KeyValue> {
            if included {
                Bound::Included(v)
            } else {
                Bound::Excluded(v)
            }
        }

        /// The sort key type, partition and sort values, writes (a partition and a sort value
        /// each, by position) and where a resumed scan starts.
        type Setup = (ScalarType, Vec<KeyValue>, Vec<KeyValue>, Vec<(usize, usize)>, usize);

        fn setup() -> impl Strategy<Value = Setup> {
            (kind(), kind()).prop_flat_map(|(h, r)| {
                (
                    Just(r),
                    proptest::collection::vec(key_value(h), 1..4),
                    proptest::collection::vec(key_value(r), 1..8),
                    proptest::collection::vec((0usize..4, 0usize..8), 0..40),
                    0usize..40,
                )
            })
        }

        proptest! {
            /// The set keeps scan order (partition hash, then within a partition sort-key order;
            /// partitions sharing a hash interleave by the sort key's leading bytes) with keys read
            /// from the items' forms; lookups, ranges, resumes and collections agree with a map kept
            /// beside it — with real hashes, and with hashes most partitions share.
            #[test]
            fn the_set_orders_finds_and_ranges_as_a_map_of_the_keys_does(
                (range_kind, partitions, sorts, writes, cut) in setup(),
                low in 0usize..8, high in 0usize..8, low_in in any::<bool>(), high_in in any::<bool>(),
                hashing in 0usize..3,
            ) {
                let hash_kind = partitions[0].scalar_type();
                let hash_of: fn(&KeyValue) -> u64 = match hashing {
                    0 => KeyValue::scan_hash,
                    1 => shared_hash,
                    _ => hash_differing_in_dropped_bits,
                };
                let mut stored = storage(hash_kind, range_kind, hash_of);
                let mut model: BTreeMap<(u64, u128, KeyValue, KeyValue), usize> = BTreeMap::new();
                for (n, (p, s)) in writes.iter().enumerate() {
                    let key = (partitions[p % partitions.len()].clone(), Some(sorts[s % sorts.len()].clone()));
                    let old = stored.put_stored(&key, stored.encode(&item(&key, n)));
                    let sort = key.1.clone().unwrap_or(key.0.clone());
                    let kept_hash = hash_of(&key.0) & KEPT_HASH_BITS;
                    let before = model.insert((kept_hash, crate::table::key_bytes::leading(&sort), key.0.clone(), sort), n);
                    prop_assert_eq!(old.is_some(), before.is_some());
                }
                let expected: Vec<PrimaryKey> = model.keys().map(|(_, _, p, s)| (p.clone(), Some(s.clone()))).collect();
                let found: Vec<PrimaryKey> = stored.items().map(|(key, _)| key).collect();
                prop_assert_eq!(&found, &expected);
                prop_assert_eq!(stored.item_count(), expected.len());
                for ((_, _, p, s), n) in &model {
                    let got = stored.get(&(p.clone(), Some(s.clone()))).map(|i| i.get("v"));
                    prop_assert_eq!(got, Some(Some(AttributeValue::S(n.to_string()))));
                }
                // Each collection is one partition's items in sort-key order, each partition once.
                let mut by_partition: BTreeMap<KeyValue, Vec<PrimaryKey>> = BTreeMap::new();
                for key in &expected {
                    by_partition.entry(key.0.clone()).or_default().push(key.clone());
                }
                let collections: Vec<(KeyValue, Vec<PrimaryKey>)> =
                    stored.collections().map(|(slot, items)| (slot.key, items.into_iter().map(|i| stored.key_of(i)).collect())).collect();
                prop_assert_eq!(collections.len(), by_partition.len());
                for (partition, keys) in collections {
                    let mut sorted = keys.clone();
                    sorted.sort();
                    prop_assert_eq!(&keys, &sorted);
                    prop_assert_eq!(Some(&keys), by_partition.get(&partition));
                }
                // A sort-key range within one partition, in both directions.
                let partition = &partitions[0];
                let (lo, hi) = (&sorts[low % sorts.len()], &sorts[high % sorts.len()]);
                let inside = |s: &KeyValue| (if low_in { s >= lo } else { s > lo }) && (if high_in { s <= hi } else { s < hi });
                let want: Vec<&PrimaryKey> = expected.iter().filter(|(p, s)| p == partition && s.as_ref().is_some_and(inside)).collect();
                let got: Vec<PrimaryKey> = stored.sort_range(partition, bound(lo, low_in), bound(hi, high_in)).map(|i| stored.key_of(i)).collect();
                prop_assert_eq!(got.iter().collect::<Vec<_>>(), want.clone());
                let back: Vec<PrimaryKey> = stored.sort_range(partition, bound(lo, low_in), bound(hi, high_in)).rev().map(|i| stored.key_of(i)).collect();
                prop_assert_eq!(back.iter().rev().collect::<Vec<_>>(), want);
                // A scan resumed after any item reads exactly the items after it.
                if let Some(after) = expected.get(cut % expected.len().max(1)) {
                    let rest: Vec<PrimaryKey> = stored.items_after(Some(after)).map(|(k, _)| k).collect();
                    let position = expected.iter().position(|k| k == after).unwrap_or(0);
                    prop_assert_eq!(&rest[..], &expected[position + 1..]);
                }
                // Deleting every other item leaves the rest, in order.
                for key in expected.iter().step_by(2) {
                    prop_assert!(stored.delete(key).is_some());
                    prop_assert!(stored.get(key).is_none());
                }
                let left: Vec<PrimaryKey> = stored.items().map(|(k, _)| k).collect();
                let kept: Vec<PrimaryKey> = expected.iter().skip(1).step_by(2).cloned().collect();
                prop_assert_eq!(left, kept);
            }
        }
    }

    #[test]
    fn a_clone_shares_the_text() {
        let a = StoredItem::new(&item(), &["pk"]);
        let b = StoredItem::new(&item(), &["pk"]);
        assert!(arcstr::ArcStr::ptr_eq(&a.clone().form, &a.form));
        assert!(!arcstr::ArcStr::ptr_eq(&b.form, &a.form));
    }

    /// Every table entry and index entry holds a stored item: it is one pointer, and an entry is
    /// its hash, its sort key's leading bytes and that pointer.
    #[test]
    fn a_stored_item_is_one_pointer() {
        assert_eq!(std::mem::size_of::<StoredItem>(), std::mem::size_of::<usize>());
        assert_eq!(std::mem::size_of::<Option<StoredItem>>(), std::mem::size_of::<usize>());
        assert_eq!(std::mem::size_of::<Entry>(), 16 + std::mem::size_of::<usize>());
    }
}
