//! Applies a projection: a new item holding only the named paths, nested structure kept.

use super::ast::{DocPath, Step};
use crate::value::{AttributeValue, Item};

/// The part of `item` that `paths` name. List elements keep their relative order, compacted.
pub fn project(item: &Item, paths: &[DocPath]) -> Item {
    let mut out = Item::new();
    // In path order, so `a[2], a[0]` yields the elements in list order.
    let mut sorted: Vec<&DocPath> = paths.iter().collect();
    sorted.sort();
    for path in sorted {
        let Some((Step::Attr(name), rest)) = path.split_first() else {
            continue;
        };
        let Some(value) = item.get(name) else {
            continue;
        };
        if rest.is_empty() {
            out.insert(name.clone(), value.clone());
            continue;
        }
        if let Some(piece) = extract(value, rest) {
            match out.get_mut(name) {
                Some(existing) => merge(existing, piece),
                None => {
                    out.insert(name.clone(), piece);
                }
            }
        }
    }
    out
}

/// The value at `path` inside `value`, wrapped in the containers that lead to it.
fn extract(value: &AttributeValue, path: &[Step]) -> Option<AttributeValue> {
    let Some((step, rest)) = path.split_first() else {
        return Some(value.clone());
    };
    match (step, value) {
        (Step::Attr(key), AttributeValue::M(map)) => {
            let inner = extract(map.get(key)?, rest)?;
            Some(AttributeValue::M(Item::from([(key.clone(), inner)])))
        }
        (Step::Index(i), AttributeValue::L(list)) => {
            let inner = extract(list.get(*i)?, rest)?;
            Some(AttributeValue::L(vec![inner]))
        }
        _ => None,
    }
}

fn merge(into: &mut AttributeValue, piece: AttributeValue) {
    match (into, piece) {
        (AttributeValue::M(existing), AttributeValue::M(more)) => {
            for (key, value) in more {
                match existing.get_mut(&key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        existing.insert(key, value);
                    }
                }
            }
        }
        (AttributeValue::L(existing), AttributeValue::L(more)) => existing.extend(more),
        _ => {}
    }
}
