//! Attribute names, interned once per process: a stored item names its attributes by a small number
//! instead of repeating the text in every item (docs/storage.md).
//!
//! Ids are never reused and never leave memory: a name keeps its id for the life of the process,
//! so items of every table, engine and clone read them the same way without a table of their own.
//! The set is bounded (a table whose items each carry new names must not grow it without end):
//! beyond [`MAX_NAMES`] names, or for a name longer than [`MAX_INTERNED_LEN`] bytes, an item keeps
//! the name's text itself. Reading an id is two atomic loads, no lock; interning takes a lock
//! once per item written.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

const CHUNK: usize = 256;
const CHUNKS: usize = 64;
/// How many names are interned at most; later names are kept in the items themselves.
pub const MAX_NAMES: usize = CHUNK * CHUNKS;
/// The longest name interned, in bytes; a longer one is kept in the item.
pub const MAX_INTERNED_LEN: usize = 64;

/// An interned name: its text, and how a JSON object writes it as a member name (`"name":`),
/// alone and followed by the opening of an `S`, `N` or `B` value (what a read writes before such a
/// value, in one copy).
pub struct Name {
    pub text: Box<str>,
    pub json: Box<str>,
    pub json_s: Box<str>,
    pub json_n: Box<str>,
    pub json_b: Box<str>,
}

impl Name {
    fn new(text: &str) -> Self {
        let json = format!("{}:", serde_json::to_string(text).unwrap_or_default());
        Self {
            text: text.into(),
            json_s: format!(r#"{json}{{"S":""#).into(),
            json_n: format!(r#"{json}{{"N":""#).into(),
            json_b: format!(r#"{json}{{"B":""#).into(),
            json: json.into(),
        }
    }
}

type Chunk = Box<[OnceLock<Name>]>;

static CHUNK_TABLE: [OnceLock<Chunk>; CHUNKS] = [const { OnceLock::new() }; CHUNKS];
static IDS: Mutex<Option<HashMap<Box<str>, u32>>> = Mutex::new(None);

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
    let map = guard.get_or_insert_with(HashMap::new);
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
        assert_eq!(&*b.json, r#""names \"test\" b":"#);
        assert_eq!(&*b.json_n, r#""names \"test\" b":{"N":""#);
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
