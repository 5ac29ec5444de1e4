//! One page of a Query or Scan: items are read in order until `Limit` items were evaluated or
//! 1 MB was read (measured before the filter; the item that crosses 1 MB is included).

use crate::capacity::Units;
use crate::expression::eval::evaluate;
use crate::expression::projection::project;
use crate::expression::{Condition, DocPath};
use crate::table::{ItemJson, KeySchema, StoredItem};
use crate::value::Item;

const PAGE_BYTES: usize = 1024 * 1024;

/// How to read a page.
pub struct PageSpec<'a> {
    pub limit: Option<usize>,
    pub filter: Option<&'a Condition>,
    pub projection: Option<&'a [DocPath]>,
    pub count_only: bool,
    pub consistent: bool,
    pub key_schema: &'a KeySchema,
}

/// What a page returned.
pub struct Page<'s> {
    pub items: Vec<ItemJson<'s>>,
    pub count: usize,
    pub scanned_count: usize,
    pub last_evaluated_key: Option<Item>,
    pub units: Units,
}

/// Reads one page from `items`, which yields candidates in result order.
pub fn read_page<'s>(items: impl Iterator<Item = &'s StoredItem>, spec: &PageSpec<'_>) -> Page<'s> {
    let mut page = Page { items: Vec::new(), count: 0, scanned_count: 0, last_evaluated_key: None, units: Units(0) };
    let mut bytes = 0usize;
    for stored in items {
        page.scanned_count += 1;
        bytes += stored.size;
        if spec.filter.is_none_or(|f| evaluate(f, &stored.item)) {
            page.count += 1;
            if !spec.count_only {
                page.items.push(match spec.projection {
                    Some(paths) => ItemJson::Item(project(&stored.item, paths)),
                    None => stored.to_json(),
                });
            }
        }
        let limit_hit = spec.limit.is_some_and(|l| page.scanned_count >= l);
        if limit_hit || bytes >= PAGE_BYTES {
            page.last_evaluated_key = Some(spec.key_schema.key_item(&stored.item));
            break;
        }
    }
    // All items read are summed, then rounded once.
    page.units = Units::read(bytes, spec.consistent);
    page
}
