//! Attribute names, interned once per process: a stored item names its attributes by a small number
//! instead of repeating the text in every item (docs/storage.md).
//!
//! Ids are never reused and never leave memory: a name keeps its id for the life of the process,
//! so items of every table, engine and clone read them the same way without a table of their own.
//! The set is bounded (a table whose items each carry new names must not grow it without end):
//! beyond [`MAX_NAMES`] names, or for a name longer than [`MAX_INTERNED_LEN`] bytes, an item keeps
//! the name's text itself. Reading an id is two atomic loads, no lock; interning takes a lock
//! once per item written.

use rustc_hash::FxHashMap;
use std::sync::{Mutex, OnceLock};

const CHUNK: usize = 256;
const CHUNKS: usize = 16;
/// How many names are interned at most; later names are kept in the items themselves.
pub const MAX_NAMES: usize = CHUNK * CHUNKS;
/// The longest name interned, in bytes; a longer one is kept in the item.
pub const MAX_INTERNED_LEN: usize = 64;

/// An interned name: its text, and the JSON a read writes between the previous attribute's value
/// and this one's (`"},"name":{"S":"` and the like), so that each attribute is two copies: this
/// and its value (`item_text::render`).
pub struct Name {
    pub text: Box<str>,
    /// By what came before (`item_text::BEFORE`), then by the value's kind (`item_text::OPENING`).
    fragments: [[Box<str>; 4]; 3],
}

impl Name {
    fn new(text: &str) -> Self {
        let json = serde_json::to_string(text).unwrap_or_default();
        let fragment = |before: &str, opening: &str| format!("{before}{json}:{opening}").into_boxed_str();
        let by_kind = |before: &str| super::item_text::OPENING.map(|opening| fragment(before, opening));
        Self { text: text.into(), fragments: super::item_text::BEFORE.map(by_kind) }
    }

    /// What a read writes before this attribute's value: `before` indexes `item_text::BEFORE`,
    /// `kind` indexes `item_text::OPENING`.
    #[inline]
    pub fn fragment(&self, before: usize, kind: usize) -> &str {
        self.fragments.get(before).and_then(|f| f.get(kind)).map_or("", |f| f)
    }
}

type Chunk = Box<[OnceLock<Name>]>;

static CHUNK_TABLE: [OnceLock<Chunk>; CHUNKS] = [const { OnceLock::new() }; CHUNKS];
static IDS: Mutex<Option<FxHashMap<Box<str>, u32>>> = Mutex::new(None);

/// The name with this id (`None` only for an id never given out).
#[inline]
pub fn get(id: u32) -> Option<&'static Name> {
    let id = id as usize;
    CHUNK_TABLE.get(id / CHUNK)?.get()?.get(id % CHUNK)?.get()
}

/// The ids of `names`, interning those not seen before; `None` for a name kept in the item.
pub fn intern<'n>(names: impl Iterator<Item = &'n str>, ids: &mut Vec<Option<u32>>) {
    ids.clear();
    // A poisoned lock only means another thread panicked while holding it; the map is still whole
    // (an insert either happened or not), so it is used as it is.
    let mut guard = IDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let map = guard.get_or_insert_with(FxHashMap::default);
    for name in names {
        if let Some(id) = map.get(name) {
            ids.push(Some(*id));
            continue;
        }
        let next = map.len();
        if name.len() > MAX_INTERNED_LEN || next >= MAX_NAMES {
            ids.push(None);
            continue;
        }
        let Some(chunk) = CHUNK_TABLE.get(next / CHUNK) else {
            ids.push(None);
            continue;
        };
        let chunk = chunk.get_or_init(|| (0..CHUNK).map(|_| OnceLock::new()).collect());
        if chunk[next % CHUNK].set(Name::new(name)).is_err() {
            ids.push(None);
            continue;
        }
        let id = next as u32;
        map.insert(name.into(), id);
        ids.push(Some(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_keeps_its_id_and_reads_back_with_its_json_form() {
        let mut ids = Vec::new();
        intern(["names-test-a", "names \"test\" b"].into_iter(), &mut ids);
        let first = ids.clone();
        intern(["names \"test\" b", "names-test-a"].into_iter(), &mut ids);
        assert_eq!(ids, vec![first[1], first[0]]);
        let b = get(first[1].expect("interned")).expect("known");
        assert_eq!(&*b.text, "names \"test\" b");
        assert_eq!(b.fragment(0, 1), r#"{"names \"test\" b":{"N":""#);
        assert_eq!(b.fragment(1, 0), r#""},"names \"test\" b":{"S":""#);
        assert_eq!(b.fragment(2, 3), r#","names \"test\" b":"#);
        assert!(get(u32::MAX).is_none());
    }

    #[test]
    fn a_long_name_is_not_interned() {
        let mut ids = Vec::new();
        let long = "n".repeat(MAX_INTERNED_LEN + 1);
        intern([long.as_str()].into_iter(), &mut ids);
        assert_eq!(ids, vec![None]);
    }
}
