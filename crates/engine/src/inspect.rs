//! A look inside, for the playground's item views: a table's or an index's item collections in
//! storage order, each item with the size DynamoDB charges for. Not part of DynamoDB's API.

use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::table::index::PartitionsFrom;
use crate::table::StoredItem;
use crate::value::item_to_json;
use serde::Serialize;
use std::ops::ControlFlow;

/// One partition key's items (for an index: one index partition key's entries), in sort order.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CollectionView {
    /// The partition key attribute(s), in DynamoDB JSON.
    pub partition: serde_json::Value,
    pub items: Vec<ItemView>,
}

/// An item (for an index: its projected entry) and its size in bytes.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ItemView {
    pub item: serde_json::Value,
    pub size: usize,
}

/// An item (or an index entry) as stored, read where it is: its size and single attributes, so a
/// measurement of a million items copies none of them.
pub struct StoredRef<'a>(&'a StoredItem);

impl StoredRef<'_> {
    /// Its size by DynamoDB's rules.
    pub fn size(&self) -> usize {
        self.0.size()
    }

    /// The text of a string or number attribute (`USER#1`, `42`); `None` when it is absent or of
    /// another type.
    pub fn text(&self, name: &str) -> Option<String> {
        match self.0.get(name)? {
            crate::value::AttributeValue::S(text) => Some(text),
            crate::value::AttributeValue::N(number) => Some(number.to_string()),
            _ => None,
        }
    }

    /// Whether it has the top-level attribute `name`.
    pub fn has(&self, name: &str) -> bool {
        self.0.has(name)
    }

    /// The attributes `names` it has, in DynamoDB JSON (only they are decoded).
    pub fn json(&self, names: &[&str]) -> serde_json::Value {
        item_to_json(&self.0.only(names))
    }
}

/// Totals of a table or an index, which a view may show beside a truncated listing.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Totals {
    pub items: usize,
    pub bytes: usize,
}

impl Engine {
    /// The names of all tables, in `ListTables` order.
    pub fn table_names(&self) -> Vec<String> {
        self.tables.keys().cloned().collect()
    }

    /// Item collections of `table`, or of its index `index`, in storage (scan) order: at most
    /// `max_items` items in all, so a view of a large table stays cheap.
    pub fn collections(&self, table: &str, index: Option<&str>, max_items: usize) -> Result<Vec<CollectionView>> {
        let mut views = Vec::new();
        let mut budget = max_items;
        self.each_collection(table, index, |hash, items| {
            if budget == 0 {
                return ControlFlow::Break(());
            }
            views.push(view(hash, items.into_iter(), &mut budget));
            ControlFlow::Continue(())
        })?;
        Ok(views)
    }

    /// Each item collection of `table` (or of its index `index`) in turn, with the names of its
    /// partition key attributes: items read where they are stored, one collection at a time.
    pub fn visit_collections(
        &self,
        table: &str,
        index: Option<&str>,
        mut visit: impl FnMut(&[&str], &[StoredRef<'_>]),
    ) -> Result<()> {
        self.each_collection(table, index, |hash, items| {
            let items: Vec<StoredRef<'_>> = items.into_iter().map(StoredRef).collect();
            visit(hash, &items);
            ControlFlow::Continue(())
        })
    }

    /// The walk both views share: each collection's stored items, in scan order, until `visit`
    /// breaks.
    fn each_collection<'s>(
        &'s self,
        table: &str,
        index: Option<&str>,
        mut visit: impl FnMut(&[&str], Vec<&'s StoredItem>) -> ControlFlow<()>,
    ) -> Result<()> {
        let table = self.table(table)?;
        match index {
            None => {
                let hash = [table.definition.key_schema.hash.name.as_str()];
                for (_, items) in table.storage.collections() {
                    if visit(&hash, items).is_break() {
                        break;
                    }
                }
            }
            Some(name) => {
                let index = table.index(name).ok_or_else(|| no_such_index(name))?;
                let hash: Vec<&str> = index.definition.hash.iter().map(|a| a.name.as_str()).collect();
                for partition in index.partitions_from(PartitionsFrom::First) {
                    if visit(&hash, partition.collection.values().collect()).is_break() {
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// A window of `table`'s items (or its index `index`'s entries) in storage (scan) order:
    /// `limit` of them from position `offset`, and how many there are in all. Whole item
    /// collections before the window are skipped by their length, not read.
    pub fn items_window(
        &self,
        table: &str,
        index: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<ItemView>, usize)> {
        // Each collection with its length, so one before the window is skipped unread.
        type Entries<'a> = Box<dyn Iterator<Item = &'a StoredItem> + 'a>;
        let table = self.table(table)?;
        let (collections, total): (Box<dyn Iterator<Item = (usize, Entries<'_>)> + '_>, usize) = match index {
            // The table's items are one ordered set: the window is found by walking it, reading
            // no item before the window.
            None => (
                Box::new(std::iter::once((
                    table.storage.item_count(),
                    Box::new(table.storage.stored_items()) as Entries<'_>,
                ))),
                table.storage.item_count(),
            ),
            Some(name) => {
                let index = table.index(name).ok_or_else(|| no_such_index(name))?;
                (
                    Box::new(
                        index
                            .partitions_from(PartitionsFrom::First)
                            .map(|p| (p.collection.len(), Box::new(p.collection.values()) as Entries<'_>)),
                    ),
                    index.item_count(),
                )
            }
        };
        let mut skip = offset;
        let mut items = Vec::new();
        for (length, entries) in collections {
            if items.len() >= limit {
                break;
            }
            if length <= skip {
                skip -= length;
                continue;
            }
            for stored in entries.skip(skip).take(limit - items.len()) {
                items.push(ItemView { item: item_to_json(&stored.item()), size: stored.size() });
            }
            skip = 0;
        }
        Ok((items, total))
    }

    /// Where each enabled stream stands: `(stream ARN, next sequence number)`.
    pub fn stream_marks(&self) -> Vec<(String, u64)> {
        self.tables
            .values()
            .filter_map(|t| t.streams.last().filter(|s| s.enabled))
            .map(|s| (s.arn(), s.next_sequence))
            .collect()
    }

    /// The records appended since `marks` (from [`Engine::stream_marks`]), as GetRecords shows
    /// them, with their table: what a consumer of the stream would see for the writes in between.
    pub fn stream_records_since(&self, marks: &[(String, u64)]) -> Vec<(String, serde_json::Value)> {
        let mut out = Vec::new();
        for table in self.tables.values() {
            let Some(stream) = table.streams.last().filter(|s| s.enabled) else { continue };
            let arn = stream.arn();
            let from = marks.iter().find(|(a, _)| *a == arn).map_or(1, |(_, next)| *next);
            for record in stream.records.iter().filter(|r| r.sequence >= from) {
                out.push((stream.table.clone(), stream.record_json(record)));
            }
        }
        out
    }

    /// Item count and bytes of `table`, or of its index `index`.
    pub fn totals(&self, table: &str, index: Option<&str>) -> Result<Totals> {
        let table = self.table(table)?;
        match index {
            None => Ok(Totals { items: table.storage.item_count(), bytes: table.storage.total_bytes() }),
            Some(name) => table
                .index(name)
                .map(|i| Totals { items: i.item_count(), bytes: i.total_bytes() })
                .ok_or_else(|| no_such_index(name)),
        }
    }
}

/// A table's shape and size, as a checker reads it: keys, capacity mode, indexes, and what the
/// items add up to.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TableShape {
    pub name: String,
    pub partition_key: String,
    pub sort_key: Option<String>,
    /// The key attributes' types: `S`, `N` or `B`, partition then sort (for forms; not reported).
    #[serde(skip)]
    pub key_types: (&'static str, Option<&'static str>),
    /// The ARN of its latest stream (DescribeTable's `LatestStreamArn`; for forms, not reported).
    #[serde(skip)]
    pub latest_stream_arn: Option<String>,
    /// The attribute time to live reads, when it is enabled (not reported).
    #[serde(skip)]
    pub time_to_live: Option<String>,
    /// Whether its stream is enabled now (not reported).
    #[serde(skip)]
    pub stream_enabled: bool,
    /// Provisioned read and write units; `None` on demand.
    pub provisioned: Option<(u64, u64)>,
    /// The class CreateTable or UpdateTable named; Standard when none was (for the bill).
    #[serde(skip)]
    pub table_class: crate::table::TableClass,
    pub indexes: Vec<IndexShape>,
    /// Its vector indexes: name, vector attribute and dimensions (for forms; not reported).
    #[serde(skip)]
    pub vector_indexes: Vec<(String, String, usize)>,
    /// Its vector indexes' search schemas: index, attribute, and whether it is the HASH one (for
    /// forms; not reported).
    #[serde(skip)]
    pub vector_filters: Vec<(String, String, bool)>,
    pub totals: Totals,
    /// The largest item, and the largest item collection (its items and their LSI entries), in
    /// bytes: measured by [`Engine::shape`] (it reads every item), `None` from [`Engine::outline`].
    pub largest_item: Option<usize>,
    pub largest_collection: Option<usize>,
    /// Every item collection's size in bytes, largest first: measured by [`Engine::shape`] (for
    /// the picture of sizes against the 10 GB LSI limit; not reported).
    #[serde(skip)]
    pub collection_sizes: Vec<usize>,
}

/// One secondary index's shape and size.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IndexShape {
    pub name: String,
    pub global: bool,
    /// The key attributes (up to four each for a multi-attribute GSI key).
    pub partition_key: Vec<String>,
    pub sort_key: Vec<String>,
    /// A GSI's own provisioned read and write units; an LSI uses its table's.
    pub provisioned: Option<(u64, u64)>,
    pub totals: Totals,
    /// `ALL`, `KEYS_ONLY` or `INCLUDE` (for checks and forms; not reported).
    #[serde(skip)]
    pub projection: &'static str,
}

impl Engine {
    /// The shape of `table` and the size of its data now, the largest item and collection
    /// measured (which reads every item: [`Engine::outline`] does not).
    pub fn shape(&self, table: &str) -> Result<TableShape> {
        let mut shape = self.outline(table)?;
        let stored = self.table(table)?;
        let mut largest_item = 0;
        let mut largest_collection = 0;
        for (slot, items) in stored.storage.collections() {
            largest_item = largest_item.max(items.iter().map(|s| s.size()).max().unwrap_or(0));
            let bytes = usize::try_from(stored.collection_bytes(&slot.key)).unwrap_or(usize::MAX);
            largest_collection = largest_collection.max(bytes);
            shape.collection_sizes.push(bytes);
        }
        shape.collection_sizes.sort_unstable_by(|a, b| b.cmp(a));
        shape.largest_item = Some(largest_item);
        shape.largest_collection = Some(largest_collection);
        Ok(shape)
    }

    /// The shape of `table` without measuring its items: keys, capacity, indexes, totals. Cheap
    /// enough for a view to ask on every change.
    pub fn outline(&self, table: &str) -> Result<TableShape> {
        let table = self.table(table)?;
        let schema = &table.definition.key_schema;
        let provisioned = match table.definition.billing {
            crate::table::BillingMode::Provisioned { read, write } => Some((read, write)),
            crate::table::BillingMode::PayPerRequest => None,
        };
        let indexes = table
            .indexes
            .iter()
            .map(|index| IndexShape {
                name: index.definition.name.clone(),
                global: index.definition.kind == crate::table::IndexKind::Global,
                partition_key: index.definition.hash.iter().map(|a| a.name.clone()).collect(),
                sort_key: index.definition.range.iter().map(|a| a.name.clone()).collect(),
                provisioned: index.definition.throughput,
                totals: Totals { items: index.item_count(), bytes: index.total_bytes() },
                projection: index.definition.projection.type_name(),
            })
            .collect();
        Ok(TableShape {
            name: table.definition.name.clone(),
            partition_key: schema.hash.name.clone(),
            sort_key: schema.range.as_ref().map(|r| r.name.clone()),
            key_types: (schema.hash.kind.name(), schema.range.as_ref().map(|r| r.kind.name())),
            latest_stream_arn: table.streams.last().map(crate::stream::Stream::arn),
            time_to_live: table.time_to_live.clone(),
            stream_enabled: table.streams.last().is_some_and(|s| s.enabled),
            provisioned,
            table_class: table.definition.table_class.unwrap_or_default(),
            indexes,
            vector_indexes: table
                .vector_indexes
                .iter()
                .map(|v| (v.definition.name.clone(), v.definition.attribute.clone(), v.definition.dimensions))
                .collect(),
            vector_filters: table
                .vector_indexes
                .iter()
                .flat_map(|v| {
                    v.definition.search_schema.iter().map(|(attribute, role)| {
                        (
                            v.definition.name.clone(),
                            attribute.name.clone(),
                            *role == crate::table::vector_index::SearchRole::Hash,
                        )
                    })
                })
                .collect(),
            totals: Totals { items: table.storage.item_count(), bytes: table.storage.total_bytes() },
            largest_item: None,
            largest_collection: None,
            collection_sizes: Vec::new(),
        })
    }
}

/// One collection, taking at most `budget` items and counting them off it.
fn view<'s>(hash: &[&str], entries: impl Iterator<Item = &'s StoredItem>, budget: &mut usize) -> CollectionView {
    let items: Vec<ItemView> = entries
        .take(*budget)
        .map(|stored| ItemView { item: item_to_json(&stored.item()), size: stored.size() })
        .collect();
    *budget -= items.len();
    let partition = items.first().map_or(serde_json::Value::Null, |first| {
        hash.iter().filter_map(|n| first.item.get(*n).map(|v| ((*n).to_string(), v.clone()))).collect()
    });
    CollectionView { partition, items }
}

fn no_such_index(name: &str) -> DynamoError {
    DynamoError::validation(format!("The table does not have the specified index: {name}"))
}

#[cfg(test)]
mod tests {
    use crate::{Engine, FixedClock};
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn an_items_window_starts_anywhere_and_counts_everything() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        engine
            .execute_value(
                "CreateTable",
                &json!({"TableName": "ttt", "BillingMode": "PAY_PER_REQUEST",
                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                        {"AttributeName": "g", "AttributeType": "S"}],
                    "GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "KEYS_ONLY"}}]}),
            )
            .unwrap();
        for p in 0..3 {
            for s in 0..4 {
                let mut item = json!({"pk": {"S": format!("p{p}")}, "sk": {"N": s.to_string()}});
                if s % 2 == 0 {
                    item["g"] = json!({"S": "x"});
                }
                engine.execute_value("PutItem", &json!({"TableName": "ttt", "Item": item})).unwrap();
            }
        }
        let every: Vec<_> =
            engine.collections("ttt", None, usize::MAX).unwrap().into_iter().flat_map(|c| c.items).collect();
        for offset in 0..=12 {
            for limit in [0, 1, 3, 5, 20] {
                let (items, total) = engine.items_window("ttt", None, offset, limit).unwrap();
                assert_eq!(total, 12);
                let expected: Vec<_> = every.iter().skip(offset).take(limit).cloned().collect();
                assert_eq!(items, expected, "offset {offset}, limit {limit}");
            }
        }
        let (entries, total) = engine.items_window("ttt", Some("by_g"), 2, 10).unwrap();
        assert_eq!((entries.len(), total), (4, 6));
        assert!(entries.iter().all(|e| e.item.get("g").is_some()));
        assert!(engine.items_window("ttt", Some("nope"), 0, 1).is_err());
    }

    #[test]
    fn collections_group_by_partition_in_sort_order_and_indexes_are_sparse() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        engine
            .execute_value(
                "CreateTable",
                &json!({"TableName": "lab", "BillingMode": "PAY_PER_REQUEST",
                    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                        {"AttributeName": "open", "AttributeType": "S"}],
                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                    "GlobalSecondaryIndexes": [{"IndexName": "byOpen", "KeySchema": [{"AttributeName": "open", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "KEYS_ONLY"}}]}),
            )
            .expect("table");
        for (pk, sk, open) in [("a", 3, true), ("a", 1, false), ("b", 2, true), ("a", 2, false)] {
            let mut item = json!({"pk": {"S": pk}, "sk": {"N": sk.to_string()}, "note": {"S": "x"}});
            if open {
                item["open"] = json!({"S": "yes"});
            }
            engine.execute_value("PutItem", &json!({"TableName": "lab", "Item": item})).expect("put");
        }
        let table = engine.collections("lab", None, 100).expect("view");
        let a = table.iter().find(|c| c.partition == json!({"pk": {"S": "a"}})).expect("a");
        let sorts: Vec<_> = a.items.iter().map(|i| i.item["sk"]["N"].as_str().unwrap_or_default()).collect();
        assert_eq!(sorts, ["1", "2", "3"]);
        assert_eq!(a.items[0].size, 2 + 1 + 2 + 2 + 4 + 1, "pk a + sk 1 + note x");
        let index = engine.collections("lab", Some("byOpen"), 100).expect("index view");
        assert_eq!(index.len(), 1);
        assert_eq!(index[0].items.len(), 2, "only items with `open` are in the sparse index");
        assert!(index[0].items.iter().all(|i| i.item.get("note").is_none()), "KEYS_ONLY projects no other attribute");
        assert_eq!(engine.totals("lab", Some("byOpen")).expect("totals").items, 2);
        assert_eq!(engine.collections("lab", None, 2).expect("view").iter().map(|c| c.items.len()).sum::<usize>(), 2);
    }
}
