//! Large responses stay in the worker. A 1 MB page of items is megabytes of JSON: parsing it, and
//! building a grid of every item, on the page's thread froze it for a frame or more. The worker
//! sends the page the response without its item lists, and the items a window at a time as the
//! grid scrolls; the whole text only when the user asks for the raw JSON.

use super::protocol::{RemoteRows, Shown};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

/// Responses longer than this go to the page in parts.
const LARGE: usize = 64 * 1024;
/// Large responses kept (the console shows one at a time; a workshop's and the console's may both
/// be on screen).
const KEPT: usize = 3;

struct Kept {
    id: u64,
    text: String,
    items: Vec<Value>,
}

thread_local! {
    static KEPT_RESULTS: RefCell<VecDeque<Kept>> = const { RefCell::new(VecDeque::new()) };
    static NEXT: Cell<u64> = const { Cell::new(1) };
}

/// Items of any read response: Items, Item, Attributes, Responses of both batch and transaction reads.
pub fn result_items(body: &Value) -> Vec<Value> {
    if let Some(items) = body.get("Items").and_then(Value::as_array) {
        return items.clone();
    }
    for single in ["Item", "Attributes"] {
        if let Some(item) = body.get(single) {
            return vec![item.clone()];
        }
    }
    if let Some(results) = body.get("SearchResults").and_then(Value::as_array) {
        return results.iter().map(scored_item).collect();
    }
    match body.get("Responses") {
        Some(Value::Object(tables)) => tables.values().filter_map(Value::as_array).flatten().cloned().collect(),
        Some(Value::Array(list)) => list.iter().filter_map(|r| r.get("Item").cloned()).collect(),
        _ => Vec::new(),
    }
}

/// A SearchVectors result as a grid row: its item with its score leading, under a name no
/// attribute can clash with in the grid's eyes (`(score)`, in parentheses).
fn scored_item(result: &Value) -> Value {
    let mut row = serde_json::Map::new();
    if let Some(score) = result.get("Score") {
        row.insert(SCORE_COLUMN.into(), serde_json::json!({ "N": score.to_string() }));
    }
    if let Some(item) = result.get("Item").and_then(Value::as_object) {
        row.extend(item.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Value::Object(row)
}

/// The grid column a vector search's scores are shown in.
pub const SCORE_COLUMN: &str = "(score)";

/// The response as the page gets it: whole when small; else without its item lists, which are
/// kept here. `keys` gives the key attributes to lead the columns (asked only then).
pub fn shown(text: String, keys: impl FnOnce() -> Vec<String>) -> Shown {
    if text.len() <= LARGE {
        return Shown::Whole(text);
    }
    let Ok(mut body) = serde_json::from_str::<Value>(&text) else { return Shown::Whole(text) };
    let items = result_items(&body);
    if items.len() <= 1 {
        return Shown::Whole(text);
    }
    let keys = keys();
    let mut columns: Vec<String> =
        keys.iter().filter(|k| items.iter().any(|i| i.get(k.as_str()).is_some())).cloned().collect();
    let mut seen: std::collections::BTreeSet<String> = columns.iter().cloned().collect();
    for item in &items {
        if let Some(map) = item.as_object() {
            for name in map.keys() {
                if seen.insert(name.clone()) {
                    columns.push(name.clone());
                }
            }
        }
    }
    if let Some(map) = body.as_object_mut() {
        map.remove("Items");
        map.remove("Responses");
        map.remove("SearchResults");
    }
    let id = NEXT.with(|n| n.replace(n.get() + 1));
    let rows = RemoteRows { result: id, count: items.len(), columns };
    KEPT_RESULTS.with(|kept| {
        let mut kept = kept.borrow_mut();
        kept.push_back(Kept { id, text, items });
        while kept.len() > KEPT {
            kept.pop_front();
        }
    });
    Shown::Large { head: body.to_string(), rows }
}

/// Items `offset..offset + limit` of a kept response, and how many it has (`None`: no longer kept).
pub fn rows(result: u64, offset: usize, limit: usize) -> Option<(Vec<Value>, usize)> {
    KEPT_RESULTS.with(|kept| {
        let kept = kept.borrow();
        let found = kept.iter().find(|k| k.id == result)?;
        Some((found.items.iter().skip(offset).take(limit).cloned().collect(), found.items.len()))
    })
}

/// A kept response's whole JSON, pretty-printed.
pub fn text(result: u64) -> Option<String> {
    KEPT_RESULTS.with(|kept| {
        let kept = kept.borrow();
        let found = kept.iter().find(|k| k.id == result)?;
        Some(
            serde_json::from_str::<Value>(&found.text)
                .and_then(|v| serde_json::to_string_pretty(&v))
                .unwrap_or_else(|_| found.text.clone()),
        )
    })
}
