//! What a design holds, as a designer reads it before any pattern runs: per table and per index
//! the item count, item sizes, item collections and projection, and for each sparse index which
//! kinds of item it holds and why the others are left out. Measured once on the planned engine
//! (its items, index entries and sizes), so a design without access patterns still gets a report.

use dynalab_engine::{Engine, StoredRef, TableShape};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Kinds of item listed per table; the rest are counted together.
const MAX_KINDS: usize = 8;
/// Characters that end the kind prefix of a key (`ORDER#2026…` is an `ORDER#` item).
pub(crate) const SEPARATORS: [char; 4] = ['#', '|', ':', '/'];

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Inventory {
    pub tables: Vec<TableInventory>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TableInventory {
    pub name: String,
    pub partition_key: String,
    pub sort_key: Option<String>,
    pub items: usize,
    pub sizes: Option<Sizes>,
    pub collections: Collections,
    /// Items by kind: the prefix of their sort key (or partition key, without a sort key).
    pub kinds: Vec<Kind>,
    pub indexes: Vec<IndexInventory>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IndexInventory {
    pub name: String,
    /// `GSI` or `LSI`.
    pub kind: &'static str,
    pub partition_key: Vec<String>,
    pub sort_key: Vec<String>,
    /// `ALL`, `KEYS_ONLY`, or `INCLUDE (a, b)`.
    pub projection: String,
    pub items: usize,
    pub sizes: Option<Sizes>,
    pub collections: Collections,
    /// Set when the index holds fewer items than its table: which kinds it holds, and why not the rest.
    pub sparse: Option<Sparse>,
}

/// Item sizes in bytes, as DynamoDB counts them.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Sizes {
    pub min: usize,
    pub average: usize,
    pub max: usize,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Collections {
    pub count: usize,
    /// The largest by bytes: its partition key value, items and bytes.
    pub largest_key: String,
    pub largest_items: usize,
    pub largest_bytes: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Kind {
    /// `ORDER#`, `PROFILE`, or `other`.
    pub label: String,
    pub items: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Sparse {
    pub held: usize,
    pub of: usize,
    pub kinds: Vec<KindHeld>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct KindHeld {
    pub label: String,
    pub held: usize,
    pub of: usize,
    /// Index key attributes the left-out items of this kind lack.
    pub missing: Vec<String>,
}

/// The kind of an item from its key value: the text up to and including the first separator
/// when it is a word (`ORDER#`, `user:`), a whole value without digits (`PROFILE`), else `other`
/// — a timestamp's (`2026-11-02T10:`) or a phone number's first characters are not a kind.
pub fn kind_of(key: &str) -> String {
    if let Some(end) = key.find(SEPARATORS) {
        let prefix = &key[..end];
        let word = prefix.starts_with(|c: char| c.is_ascii_alphabetic())
            && prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && prefix.chars().filter(char::is_ascii_alphabetic).count()
                >= prefix.chars().filter(char::is_ascii_digit).count();
        if end > 0 && word {
            return key[..=end].to_string();
        }
    }
    if !key.is_empty() && key.len() <= 32 && !key.chars().any(|c| c.is_ascii_digit()) {
        return key.to_string();
    }
    "other".into()
}

/// The projection as a designer reads it, from the CreateTable request the plan ran.
fn projection(create: Option<&Value>, index: &str, kind: &str) -> String {
    let definition = create.and_then(|c| {
        ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
            .iter()
            .filter_map(|m| c.get(*m).and_then(Value::as_array))
            .flatten()
            .find(|i| i.get("IndexName").and_then(Value::as_str) == Some(index))
    });
    let attributes: Vec<&str> = definition
        .and_then(|d| d.pointer("/Projection/NonKeyAttributes"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if kind == "INCLUDE" {
        format!("INCLUDE ({})", attributes.join(", "))
    } else {
        kind.to_string()
    }
}

/// A collection's partition key as a designer reads it, from its first item: `USER#1`, or
/// `globex / grace` for a multi-attribute key (in the key's own order).
pub(crate) fn collection_key(hash: &[&str], first: &StoredRef<'_>) -> String {
    hash.iter().filter_map(|name| first.text(name)).collect::<Vec<_>>().join(" / ")
}

/// Sizes and item collections of a table or an index, measured in one pass.
#[derive(Default)]
struct Measured {
    items: usize,
    min: usize,
    max: usize,
    bytes: usize,
    collections: Collections,
}

impl Measured {
    fn collection(&mut self, hash: &[&str], items: &[StoredRef<'_>]) {
        let mut bytes = 0;
        for item in items {
            let size = item.size();
            self.min = if self.items == 0 { size } else { self.min.min(size) };
            self.max = self.max.max(size);
            self.items += 1;
            bytes += size;
        }
        self.bytes += bytes;
        self.collections.count += 1;
        if bytes > self.collections.largest_bytes || self.collections.largest_key.is_empty() {
            self.collections.largest_bytes = bytes;
            self.collections.largest_items = items.len();
            self.collections.largest_key = items.first().map(|first| collection_key(hash, first)).unwrap_or_default();
        }
    }

    fn sizes(&self) -> Option<Sizes> {
        (self.items > 0).then(|| Sizes { min: self.min, average: self.bytes / self.items, max: self.max })
    }
}

/// One index's membership by kind of item: held, of, and the key attributes the others lack.
struct Membership {
    key_attributes: Vec<String>,
    by_kind: BTreeMap<String, KindHeld>,
}

impl Membership {
    fn count(&mut self, label: &str, item: &StoredRef<'_>) {
        if !self.by_kind.contains_key(label) {
            let held = KindHeld { label: label.to_string(), held: 0, of: 0, missing: Vec::new() };
            self.by_kind.insert(label.to_string(), held);
        }
        let Some(entry) = self.by_kind.get_mut(label) else { return };
        entry.of += 1;
        // An item is in the index when it has every key attribute of it (a wrong type is refused
        // when written).
        let mut held = true;
        for attribute in &self.key_attributes {
            if !item.has(attribute) {
                held = false;
                if !entry.missing.contains(attribute) {
                    entry.missing.push(attribute.clone());
                }
            }
        }
        if held {
            entry.held += 1;
        }
    }

    /// Kinds merged as the table lists them (the rest as `other`).
    fn merged(self, kinds: &[Kind]) -> Vec<KindHeld> {
        let mut merged: BTreeMap<String, KindHeld> = BTreeMap::new();
        for (label, held) in self.by_kind {
            let label = kinds_label(kinds, label);
            let entry =
                merged.entry(label.clone()).or_insert_with(|| KindHeld { label, held: 0, of: 0, missing: Vec::new() });
            entry.held += held.held;
            entry.of += held.of;
            for attribute in held.missing {
                if !entry.missing.contains(&attribute) {
                    entry.missing.push(attribute);
                }
            }
        }
        merged.into_values().collect()
    }
}

/// Measures every table of `engine` (its shapes in `shapes`, its CreateTable requests in
/// `creates`): items read where they are stored, one collection at a time, so a million items
/// are measured without a copy.
pub fn measure(engine: &Engine, shapes: &[TableShape], creates: &[Value]) -> Inventory {
    let tables = shapes
        .iter()
        .filter_map(|shape| {
            let create = creates.iter().find(|c| c.get("TableName").and_then(Value::as_str) == Some(&shape.name));
            let kind_key = shape.sort_key.clone().unwrap_or_else(|| shape.partition_key.clone());
            let mut measured = Measured::default();
            let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
            let mut memberships: Vec<Membership> = shape
                .indexes
                .iter()
                .map(|index| Membership {
                    key_attributes: index.partition_key.iter().chain(&index.sort_key).cloned().collect(),
                    by_kind: BTreeMap::new(),
                })
                .collect();
            engine
                .visit_collections(&shape.name, None, |hash, items| {
                    measured.collection(hash, items);
                    for item in items {
                        let label = item.text(&kind_key).map_or_else(|| "other".into(), |k| kind_of(&k));
                        *kinds.entry(label.clone()).or_default() += 1;
                        for membership in &mut memberships {
                            membership.count(&label, item);
                        }
                    }
                })
                .ok()?;
            let kinds = capped(kinds);
            let indexes = shape
                .indexes
                .iter()
                .zip(memberships)
                .filter_map(|(index, membership)| {
                    let mut entries = Measured::default();
                    engine
                        .visit_collections(&shape.name, Some(&index.name), |hash, items| {
                            entries.collection(hash, items)
                        })
                        .ok()?;
                    let sparse = (entries.items < measured.items).then(|| Sparse {
                        held: entries.items,
                        of: measured.items,
                        kinds: membership.merged(&kinds),
                    });
                    Some(IndexInventory {
                        name: index.name.clone(),
                        kind: if index.global { "GSI" } else { "LSI" },
                        partition_key: index.partition_key.clone(),
                        sort_key: index.sort_key.clone(),
                        projection: projection(create, &index.name, index.projection),
                        items: entries.items,
                        sizes: entries.sizes(),
                        collections: entries.collections,
                        sparse,
                    })
                })
                .collect();
            Some(TableInventory {
                name: shape.name.clone(),
                partition_key: shape.partition_key.clone(),
                sort_key: shape.sort_key.clone(),
                items: measured.items,
                sizes: measured.sizes(),
                collections: measured.collections,
                kinds,
                indexes,
            })
        })
        .collect();
    Inventory { tables }
}

/// The largest kinds by count, the rest as `other`.
fn capped(kinds: BTreeMap<String, usize>) -> Vec<Kind> {
    let mut sorted: Vec<Kind> = kinds.into_iter().map(|(label, items)| Kind { label, items }).collect();
    sorted.sort_by(|a, b| b.items.cmp(&a.items).then_with(|| a.label.cmp(&b.label)));
    if sorted.len() > MAX_KINDS {
        let rest: usize = sorted.drain(MAX_KINDS - 1..).map(|k| k.items).sum();
        match sorted.iter_mut().find(|k| k.label == "other") {
            Some(other) => other.items += rest,
            None => sorted.push(Kind { label: "other".into(), items: rest }),
        }
    }
    sorted
}

/// `label` if it is one of the kinds listed, else `other`.
fn kinds_label(kinds: &[Kind], label: String) -> String {
    if kinds.iter().any(|k| k.label == label) {
        label
    } else {
        "other".into()
    }
}

impl KindHeld {
    /// `Order 2 of 2`, or `PROFILE 0 of 2 (no GSI1PK)`.
    pub fn describe(&self) -> String {
        let mut text = format!("`{}` {} of {}", self.label, self.held, self.of);
        if self.held < self.of {
            if self.missing.is_empty() {
                text.push_str(" (key attributes of another type)");
            } else {
                let names: Vec<String> = self.missing.iter().map(|m| format!("`{m}`")).collect();
                text = format!("{text} (no {})", names.join(" or "));
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynalab_engine::FixedClock;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn kinds_come_from_key_prefixes() {
        assert_eq!(kind_of("ORDER#2026-11-02#1"), "ORDER#");
        assert_eq!(kind_of("PROFILE"), "PROFILE");
        assert_eq!(kind_of("u1234"), "other");
        assert_eq!(kind_of("2026-11-02"), "other", "a date has no kind");
        assert_eq!(kind_of("2026-11-02T10:15:00Z"), "other", "nor a timestamp");
        assert_eq!(kind_of("+1/555/0100"), "other", "nor a phone number");
        assert_eq!(kind_of("user:42"), "user:");
    }

    #[test]
    fn a_sparse_index_says_which_items_it_holds_and_why() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        let create = json!({"TableName": "Shop", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                {"AttributeName": "G", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}}]});
        engine.run("CreateTable", &create.to_string()).response.expect("created");
        let items = [
            json!({"PK": {"S": "c#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Ana"}}),
            json!({"PK": {"S": "c#1"}, "SK": {"S": "ORDER#1"}, "G": {"S": "open"}, "total": {"N": "12"}}),
            json!({"PK": {"S": "c#1"}, "SK": {"S": "ORDER#2"}, "total": {"N": "7"}}),
            json!({"PK": {"S": "c#2"}, "SK": {"S": "PROFILE"}}),
        ];
        for item in items {
            engine.run("PutItem", &json!({"TableName": "Shop", "Item": item}).to_string()).response.expect("put");
        }
        let shape = engine.shape("Shop").expect("shape");
        let inventory = measure(&engine, &[shape], &[create]);
        let table = &inventory.tables[0];
        assert_eq!((table.items, table.collections.count, table.collections.largest_items), (4, 2, 3));
        assert_eq!(table.collections.largest_key, "c#1");
        let sizes = table.sizes.expect("sizes");
        assert!(sizes.min <= sizes.average && sizes.average <= sizes.max, "{sizes:?}");
        assert_eq!(
            table.kinds,
            [Kind { label: "ORDER#".into(), items: 2 }, Kind { label: "PROFILE".into(), items: 2 }]
        );
        let index = &table.indexes[0];
        assert_eq!((index.kind, index.projection.as_str(), index.items), ("GSI", "INCLUDE (total)", 1));
        let sparse = index.sparse.as_ref().expect("sparse");
        let described: Vec<String> = sparse.kinds.iter().map(KindHeld::describe).collect();
        assert_eq!(described, ["`ORDER#` 1 of 2 (no `G`)", "`PROFILE` 0 of 2 (no `G`)"]);
    }
}
