//! Item shapes, interned once per process: an item's attribute names and value kinds, in order, and
//! which of them are the table's keys. Most items of a table share a few shapes, so an item of a
//! known shape stores only its values (`item_text`): no name and no kind per attribute, and a read
//! writes the JSON around each value from the shape, without looking anything up.
//!
//! Like names (`names.rs`), ids are never reused and never leave memory. The set is bounded: beyond
//! [`MAX_SHAPES`] shapes, for an item of more than [`MAX_ATTRIBUTES`] attributes, or one with a name
//! that is not interned, the item keeps names and kinds itself. At most 4,096 shapes of 64
//! attributes take about 9 MB, once per process. Reading a shape is two atomic loads, no lock.

use super::item_text;
use super::names::{self, Name};
use rustc_hash::FxHashMap;
use std::sync::{Mutex, OnceLock};

const CHUNK: usize = 256;
const CHUNKS: usize = 16;
/// How many shapes are interned at most.
pub const MAX_SHAPES: usize = CHUNK * CHUNKS;
/// The most attributes a shape has; a larger item keeps its names and kinds.
pub const MAX_ATTRIBUTES: usize = 64;

/// What an item of this shape holds, and the JSON a read writes around its values.
pub struct Shape {
    pub attributes: Box<[ShapeAttribute]>,
    /// Which attributes are the table's partition key and sort key (indexes into `attributes`).
    pub keys: [Option<u8>; 2],
}

pub struct ShapeAttribute {
    pub name: &'static Name,
    /// `S`, `E`, `N`, `B` or `J`, as `item_text` writes them.
    pub kind: u8,
    /// What a read writes before this value: the end of the previous one, the name, and the
    /// opening of this kind of value (`"},"name":{"S":"`).
    pub before: &'static str,
}

impl Shape {
    fn new(attributes: &[(&'static Name, u8)], keys: [Option<u8>; 2]) -> Self {
        let mut previous = None;
        let attributes = attributes
            .iter()
            .map(|&(name, kind)| {
                let before = item_text::before(previous);
                previous = Some(kind);
                ShapeAttribute { name, kind, before: name.fragment(before, item_text::opening(kind)) }
            })
            .collect();
        Self { attributes, keys }
    }

    /// What a read writes after the first `written` values (all of them, unless the form was cut).
    pub fn closing(&self, written: usize) -> &'static str {
        item_text::closing(written.checked_sub(1).and_then(|last| self.attributes.get(last)).map(|a| a.kind))
    }
}

type Chunk = Box<[OnceLock<Shape>]>;

static CHUNK_TABLE: [OnceLock<Chunk>; CHUNKS] = [const { OnceLock::new() }; CHUNKS];
static IDS: Mutex<Option<FxHashMap<Box<[u32]>, u32>>> = Mutex::new(None);

/// The shape with this id (`None` only for an id never given out).
#[inline]
pub fn get(id: u32) -> Option<&'static Shape> {
    let id = id as usize;
    CHUNK_TABLE.get(id / CHUNK)?.get()?.get(id % CHUNK)?.get()
}

/// The id of the shape of these attributes (interned names and kinds, in the item's order) whose
/// keys are at `keys`; `None` when the item keeps its names and kinds itself.
pub fn intern(attributes: &[(u32, u8)], keys: [Option<usize>; 2]) -> Option<u32> {
    if attributes.len() > MAX_ATTRIBUTES {
        return None;
    }
    let keys = keys.map(|k| k.and_then(|k| u8::try_from(k).ok()));
    // One number per attribute (name id and kind), then the two key places.
    // Made on the stack: the lookup runs on every write, the copy only for a new shape.
    let mut code = [0u32; MAX_ATTRIBUTES + 2];
    let numbers = attributes
        .iter()
        .map(|&(id, kind)| id.saturating_mul(256).saturating_add(u32::from(kind)))
        .chain(keys.map(|k| k.map_or(u32::MAX, u32::from)));
    for (slot, number) in code.iter_mut().zip(numbers) {
        *slot = number;
    }
    let code = &code[..attributes.len() + 2];
    // A poisoned lock only means another thread panicked while holding it; the map is still whole.
    let mut guard = IDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let map = guard.get_or_insert_with(FxHashMap::default);
    if let Some(id) = map.get(code) {
        return Some(*id);
    }
    let next = map.len();
    let chunk = CHUNK_TABLE.get(next / CHUNK)?;
    let named: Vec<(&'static Name, u8)> =
        attributes.iter().map(|&(id, kind)| Some((names::get(id)?, kind))).collect::<Option<_>>()?;
    let chunk = chunk.get_or_init(|| (0..CHUNK).map(|_| OnceLock::new()).collect());
    chunk.get(next % CHUNK)?.set(Shape::new(&named, keys)).ok()?;
    let id = u32::try_from(next).ok()?;
    map.insert(code.into(), id);
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(texts: &[&str]) -> Vec<u32> {
        let mut ids = Vec::new();
        names::intern(texts.iter().copied(), &mut ids);
        ids.into_iter().map(|id| id.expect("interned")).collect()
    }

    #[test]
    fn a_shape_keeps_its_id_and_writes_the_json_around_each_value() {
        let [a, b, c] = ids(&["shapes-test-a", "shapes-test-b", "shapes-test-c"])[..] else { panic!("three ids") };
        let attributes = [(a, b'S'), (b, b'J'), (c, b'N')];
        let id = intern(&attributes, [Some(0), None]).expect("interned");
        assert_eq!(intern(&attributes, [Some(0), None]), Some(id), "the same shape, the same id");
        assert_ne!(intern(&attributes, [Some(2), None]), Some(id), "other key places, another shape");
        assert_ne!(intern(&[(a, b'E'), (b, b'J'), (c, b'N')], [Some(0), None]), Some(id), "another kind");
        let binary = intern(&[(a, b'S'), (b, b'B'), (c, b'N')], [Some(0), None]);
        assert_ne!(binary, Some(id), "every kind its own shape (B and J once shared a code)");
        let shape = get(id).expect("known");
        let before: Vec<&str> = shape.attributes.iter().map(|a| a.before).collect();
        assert_eq!(before, [r#"{"shapes-test-a":{"S":""#, r#""},"shapes-test-b":"#, r#","shapes-test-c":{"N":""#]);
        assert_eq!(shape.keys, [Some(0), None]);
        assert_eq!((shape.closing(3), shape.closing(2), shape.closing(0)), (r#""}}"#, "}", "{}"));
        assert!(get(u32::MAX).is_none());
    }

    #[test]
    fn an_item_with_too_many_attributes_or_an_unknown_name_has_no_shape() {
        let names: Vec<String> = (0..=MAX_ATTRIBUTES).map(|i| format!("shapes-wide-{i}")).collect();
        let many: Vec<(u32, u8)> =
            ids(&names.iter().map(String::as_str).collect::<Vec<_>>()).into_iter().map(|id| (id, b'S')).collect();
        assert_eq!(intern(&many, [None, None]), None);
        assert!(intern(&many[..MAX_ATTRIBUTES], [None, None]).is_some());
        assert_eq!(intern(&[(u32::MAX - 1, b'S')], [None, None]), None, "a name id never given out");
    }
}
