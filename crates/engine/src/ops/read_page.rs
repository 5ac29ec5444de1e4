//! One page of a Query or Scan: items are read in order until `Limit` items were evaluated or
//! 1 MB was read (measured before the filter; the item that crosses 1 MB is included).

use crate::capacity::Units;
use crate::expression::eval::evaluate;
use crate::expression::projection::project;
use crate::expression::{Condition, DocPath};
use crate::table::{ItemJson, StoredItem};
use crate::value::Item;

const PAGE_BYTES: usize = 1024 * 1024;

/// One item a page reads: the table item or index entry, and on an LSI read that needs
/// attributes the index does not hold, the table item fetched for it.
#[derive(Clone, Copy)]
pub struct Candidate<'s> {
    pub entry: &'s StoredItem,
    pub fetched: Option<&'s StoredItem>,
}

/// How to read a page.
pub struct PageSpec<'a> {
    pub limit: Option<usize>,
    pub filter: Option<&'a Condition>,
    pub projection: Option<&'a [DocPath]>,
    pub count_only: bool,
    pub consistent: bool,
    /// The attributes LastEvaluatedKey carries: the table key, plus the index key on an index.
    pub last_key_names: Vec<&'a str>,
}

/// What a page returned.
pub struct Page<'s> {
    pub items: Vec<ItemJson<'s>>,
    pub count: usize,
    pub scanned_count: usize,
    pub last_evaluated_key: Option<Item>,
    /// Units read from what was scanned (the table, or the index).
    pub units: Units,
    /// Units of table items fetched for an LSI read, if any were.
    pub fetched_units: Option<Units>,
    /// Bytes scanned, summed before rounding (for the capacity explanation).
    pub bytes: usize,
    /// Sizes of the table items fetched for an LSI read (for the capacity explanation).
    pub fetched_sizes: Vec<usize>,
}

/// Reads one page from `candidates`, which come in result order.
pub fn read_page<'s>(candidates: impl Iterator<Item = Candidate<'s>>, spec: &PageSpec<'_>) -> Page<'s> {
    let mut page = Page {
        // Room for a typical page at once (growing 4 → 8 → 16 → 32 cost a 20-item Query ~1,000
        // instructions); a Limit smaller than that is all a page can hold.
        items: Vec::with_capacity(if spec.count_only { 0 } else { spec.limit.unwrap_or(32).min(32) }),
        count: 0,
        scanned_count: 0,
        last_evaluated_key: None,
        units: Units(0),
        fetched_units: None,
        bytes: 0,
        fetched_sizes: Vec::new(),
    };
    let mut bytes = 0usize;
    let mut fetched_units: Option<Units> = None;
    for candidate in candidates {
        page.scanned_count += 1;
        bytes += candidate.entry.size();
        if let Some(fetched) = candidate.fetched {
            // Each item fetched from the table is its own read, rounded on its own (measured on
            // DynamoDB Local: three small fetches cost 1.5 eventually consistent).
            let units = fetched_units.get_or_insert(Units(0));
            *units = *units + Units::read(fetched.size(), spec.consistent);
            page.fetched_sizes.push(fetched.size());
        }
        let shown = candidate.fetched.unwrap_or(candidate.entry);
        // Decoded only when a filter or a projection needs the values; otherwise the stored JSON
        // goes out as it is.
        let decoded = (spec.filter.is_some() || spec.projection.is_some()).then(|| shown.item());
        if spec.filter.is_none_or(|f| decoded.as_ref().is_some_and(|item| evaluate(f, item))) {
            page.count += 1;
            if !spec.count_only {
                page.items.push(match (spec.projection, decoded) {
                    (Some(paths), Some(item)) => ItemJson::Item(project(&item, paths)),
                    _ => shown.to_json(),
                });
            }
        }
        let limit_hit = spec.limit.is_some_and(|l| page.scanned_count >= l);
        if limit_hit || bytes >= PAGE_BYTES {
            page.last_evaluated_key = Some(candidate.entry.only(&spec.last_key_names));
            break;
        }
    }
    // All items read are summed, then rounded once.
    page.units = Units::read(bytes, spec.consistent);
    page.fetched_units = fetched_units;
    page.bytes = bytes;
    page
}
