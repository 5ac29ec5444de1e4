//! Applies a projection: a new item holding only the named paths, nested structure kept.
//!
//! Paths are gathered into one tree first, so two paths under one list element (`l[0].x, l[0].y`)
//! land in one element, as DynamoDB answers; distinct elements are then compacted in index order
//! (`l[2].a, l[0].a` → a two-element list, element 0 first), whatever order the request named
//! them in.

use super::ast::{DocPath, Step};
use crate::value::{AttributeValue, Item};
use std::collections::BTreeMap;

/// The part of `item` that `paths` name.
pub fn project(item: &Item, paths: &[DocPath]) -> Item {
    let mut tree: BTreeMap<&str, Piece<'_>> = BTreeMap::new();
    for path in paths {
        let Some((Step::Attr(name), rest)) = path.split_first() else {
            continue;
        };
        let Some(value) = item.get(name) else {
            continue;
        };
        if resolves(value, rest) {
            tree.entry(name.as_str()).or_insert(Piece::Empty).add(value, rest);
        }
    }
    let mut out = Item::new();
    for (name, piece) in tree {
        out.insert(name.to_string(), piece.value());
    }
    out
}

/// What a projection keeps of one value: all of it, or some of a map's keys or a list's elements.
enum Piece<'a> {
    Empty,
    Whole(&'a AttributeValue),
    Map(BTreeMap<&'a str, Piece<'a>>),
    List(BTreeMap<usize, Piece<'a>>),
}

impl<'a> Piece<'a> {
    /// Adds the part of `value` at `path` (which resolves).
    fn add(&mut self, value: &'a AttributeValue, path: &[Step]) {
        if matches!(self, Piece::Whole(_)) {
            return;
        }
        let Some((step, rest)) = path.split_first() else {
            *self = Piece::Whole(value);
            return;
        };
        match (step, value) {
            (Step::Attr(key), AttributeValue::M(map)) => {
                if !matches!(self, Piece::Map(_)) {
                    *self = Piece::Map(BTreeMap::new());
                }
                if let (Piece::Map(children), Some((key, child))) = (self, map.get_key_value(key)) {
                    children.entry(key.as_str()).or_insert(Piece::Empty).add(child, rest);
                }
            }
            (Step::Index(i), AttributeValue::L(list)) => {
                if !matches!(self, Piece::List(_)) {
                    *self = Piece::List(BTreeMap::new());
                }
                if let (Piece::List(children), Some(child)) = (self, list.get(*i)) {
                    children.entry(*i).or_insert(Piece::Empty).add(child, rest);
                }
            }
            _ => {}
        }
    }

    fn value(self) -> AttributeValue {
        match self {
            Piece::Whole(value) => value.clone(),
            Piece::Map(children) => {
                AttributeValue::M(children.into_iter().map(|(key, piece)| (key.to_string(), piece.value())).collect())
            }
            // Compacted in index order.
            Piece::List(children) => AttributeValue::L(children.into_values().map(Piece::value).collect()),
            Piece::Empty => AttributeValue::M(Item::new()),
        }
    }
}

/// Whether `path` names something inside `value`.
fn resolves(value: &AttributeValue, path: &[Step]) -> bool {
    let Some((step, rest)) = path.split_first() else { return true };
    match (step, value) {
        (Step::Attr(key), AttributeValue::M(map)) => map.get(key).is_some_and(|v| resolves(v, rest)),
        (Step::Index(i), AttributeValue::L(list)) => list.get(*i).is_some_and(|v| resolves(v, rest)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expression::Placeholders;

    fn projected(item: &str, projection: &str) -> String {
        let item: Item = serde_json::from_str(item).expect("item");
        let mut placeholders = Placeholders::new(None, None);
        let paths = placeholders.projection(projection).expect("projection");
        serde_json::to_string(&project(&item, &paths)).expect("json")
    }

    #[test]
    fn paths_under_one_list_element_are_one_element() {
        let item = r#"{"l":{"L":[{"M":{"x":{"N":"1"},"y":{"N":"2"},"z":{"N":"3"}}},{"M":{"x":{"N":"4"}}},{"M":{"a":{"S":"c"}}}]},"k":{"S":"v"}}"#;
        assert_eq!(projected(item, "l[0].x, l[0].y"), r#"{"l":{"L":[{"M":{"x":{"N":"1"},"y":{"N":"2"}}}]}}"#);
        assert_eq!(projected(item, "l[0].y, l[0].x"), projected(item, "l[0].x, l[0].y"), "any request order");
        assert_eq!(
            projected(item, "l[2].a, l[0].x"),
            r#"{"l":{"L":[{"M":{"x":{"N":"1"}}},{"M":{"a":{"S":"c"}}}]}}"#,
            "distinct elements compacted in index order"
        );
        assert_eq!(projected(item, "l[7].x, k"), r#"{"k":{"S":"v"}}"#, "a path that names nothing adds nothing");
    }

    #[test]
    fn nested_maps_and_lists_merge_under_one_index() {
        let item = r#"{"m":{"M":{"l":{"L":[{"L":[{"N":"1"},{"N":"2"}]},{"N":"9"}]},"n":{"M":{"a":{"N":"1"},"b":{"N":"2"}}}}}}"#;
        assert_eq!(projected(item, "m.l[0][1], m.l[0][0]"), r#"{"m":{"M":{"l":{"L":[{"L":[{"N":"1"},{"N":"2"}]}]}}}}"#);
        assert_eq!(projected(item, "m.n.b, m.n.a"), r#"{"m":{"M":{"n":{"M":{"a":{"N":"1"},"b":{"N":"2"}}}}}}"#);
    }
}
