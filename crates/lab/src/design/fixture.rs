//! A table's fixture generated from its entity layout. Each placeholder has a role: an entity
//! whose partition key is `X#<p>` and whose sort key is constant *owns* `p` (one item per value);
//! another entity naming `p` in a sort key makes one item per owned value (a view, such as the
//! order under its user), naming it only in a partition key makes `per collection` items per value
//! (line items of an order). Placeholders nobody owns are fresh per item, or shared by `per
//! collection` items where they form a partition key (a warehouse of several orders). So the items
//! of one design agree with each other, and every key the design note names exists.

use super::template::{Bindings, Template};
use super::{Entity, TableDesign};
use dynalab_engine::value::{item_size, Item};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Items an entity gets when the layout gives no count (and owns or has any placeholder).
pub const DEFAULT_ITEMS: u64 = 50;
pub const DEFAULT_PER_COLLECTION: u64 = 5;
/// A layout's counts are production's. Up to this many items and bytes (all tables together) the
/// fixture holds them all; beyond, it holds 1/`scale` of the item collections, each at its full
/// size, and storage and whole-table Scans are costed ×`scale`.
pub const FIXTURE_ITEMS: u64 = 20_000;
pub const FIXTURE_BYTES: u64 = 64 << 20;
/// Items one table may be generated with even so (a collection kept whole can be large).
pub const MAX_ITEMS: usize = 100_000;
/// Bytes of items one table may be generated with (as a fixture file may hold).
pub const MAX_BYTES: u64 = crate::fixtures::MAX_FIXTURE_BYTES as u64;
/// The largest production count an entity may state (a trillion items).
pub const MAX_PRODUCTION_ITEMS: u64 = 1_000_000_000_000;
/// The attribute that brings an item to its declared size.
pub const FILLER: &str = "filler";

/// How many times larger production is than the fixture the layouts of `tables` make: 1 while
/// their production counts fit [`FIXTURE_ITEMS`] and [`FIXTURE_BYTES`], and a note when it is more.
pub fn scale(tables: &[TableDesign]) -> (u64, Option<String>) {
    let (items, bytes) = tables
        .iter()
        .map(|t| Layout::counted(t, 1).size())
        .fold((0_u64, 0_u64), |(i, b), (ti, tb)| (i.saturating_add(ti), b.saturating_add(tb)));
    let scale = items.div_ceil(FIXTURE_ITEMS).max(bytes.div_ceil(FIXTURE_BYTES)).max(1);
    let note = (scale > 1).then(|| {
        format!(
            "the entity layouts make {} items ({} MB) in production: the fixture holds about 1/{} of the item collections, each at its full size; storage and whole-table Scans are costed ×{}",
            crate::numbers::thousands(items),
            crate::numbers::thousands(bytes >> 20),
            crate::numbers::thousands(scale),
            crate::numbers::thousands(scale)
        )
    });
    (scale, note)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Own,
    /// Owned elsewhere, named in a sort key: one item per owned value.
    Driver,
    /// Owned elsewhere, named only in a partition key: `per collection` items per value.
    Parent,
    /// Nobody's, in a partition key: shared by `per collection` items.
    Grouped,
    Fresh,
}

/// How a table's items are made: counts and placeholder roles, worked out once.
#[derive(Debug, Clone)]
pub struct Layout {
    table: TableDesign,
    counts: Vec<u64>,
    pools: BTreeMap<String, u64>,
    roles: Vec<BTreeMap<String, Role>>,
    /// Which counts were defaults, for the report.
    pub defaults: Vec<String>,
}

impl Layout {
    /// The layout of `table` with production's counts divided by `scale` (see [`scale`]).
    pub fn new(table: &TableDesign, scale: u64) -> Result<Self, String> {
        let layout = Self::counted(table, scale);
        let (total, bytes) = layout.size();
        if bytes > MAX_BYTES {
            return Err(format!(
                "table `{}`: the layout makes about {} MB of items, more than the {} MB a fixture may hold; lower Items, Per collection or Size",
                table.name,
                bytes >> 20,
                MAX_BYTES >> 20
            ));
        }
        if total > MAX_ITEMS as u64 {
            return Err(format!(
                "table `{}`: the layout makes {total} items, more than the {MAX_ITEMS} a fixture may hold; lower Items or Per collection",
                table.name
            ));
        }
        Ok(layout)
    }

    /// Items and bytes (as the layout sizes them, before any item is made) this layout makes.
    pub fn size(&self) -> (u64, u64) {
        let bytes = self
            .table
            .entities
            .iter()
            .zip(&self.counts)
            .map(|(entity, count)| {
                let attributes: u64 = entity.attributes.iter().filter_map(|a| a.size).sum();
                count.saturating_mul(entity.size.unwrap_or(0).max(attributes + 100))
            })
            .fold(0, u64::saturating_add);
        (self.counts.iter().fold(0, |a, b| a.saturating_add(*b)), bytes)
    }

    fn counted(table: &TableDesign, scale: u64) -> Self {
        let scaled = |n: u64| n.div_ceil(scale.max(1));
        let partition_attributes: Vec<&str> = std::iter::once(table.partition_key.name.as_str())
            .chain(table.indexes.iter().map(|i| i.partition_key.name.as_str()))
            .collect();
        let sort_key = table.sort_key.as_ref().map(|k| k.name.as_str());
        let mut owners: BTreeMap<String, usize> = BTreeMap::new();
        for (e, entity) in table.entities.iter().enumerate() {
            let Some(partition) = entity.template(&table.partition_key.name) else { continue };
            let mut placeholders = partition.placeholders();
            let (Some(only), None) = (placeholders.next(), placeholders.next()) else { continue };
            let sort_constant = sort_key.and_then(|s| entity.template(s)).is_none_or(Template::is_constant);
            if sort_constant {
                owners.entry(only.to_string()).or_insert(e);
            }
        }
        let mut counts = vec![0; table.entities.len()];
        let mut defaults = Vec::new();
        let mut pools: BTreeMap<String, u64> = BTreeMap::new();
        // Owners first: their counts size the pools the others draw from.
        for (name, &e) in &owners {
            let entity = &table.entities[e];
            counts[e] = scaled(entity.items.unwrap_or(DEFAULT_ITEMS));
            pools.insert(name.clone(), counts[e]);
        }
        let mut roles = Vec::new();
        for (e, entity) in table.entities.iter().enumerate() {
            let mut entity_roles = BTreeMap::new();
            for (attribute, template, _) in &entity.keys {
                let in_partition = partition_attributes.contains(&attribute.as_str());
                for name in template.placeholders() {
                    let role = match owners.get(name) {
                        Some(&owner) if owner == e => Role::Own,
                        Some(_) if !in_partition => Role::Driver,
                        Some(_) => Role::Parent,
                        None if in_partition => Role::Grouped,
                        None => Role::Fresh,
                    };
                    // A placeholder in a sort key and a partition key drives (the stronger role).
                    let slot = entity_roles.entry(name.to_string()).or_insert(role);
                    if role == Role::Driver || role == Role::Own {
                        *slot = role;
                    }
                }
            }
            for attribute in &entity.attributes {
                if let Some(example) = attribute.example.as_deref().and_then(|e| Template::parse(e).ok()) {
                    for name in example.placeholders() {
                        entity_roles.entry(name.to_string()).or_insert(if owners.contains_key(name) {
                            Role::Parent
                        } else {
                            Role::Fresh
                        });
                    }
                }
            }
            if owners.values().all(|&o| o != e) {
                let per = entity.per_collection.unwrap_or(DEFAULT_PER_COLLECTION);
                let driver = entity_roles.iter().find(|(_, r)| **r == Role::Driver).map(|(n, _)| n.clone());
                let parent = entity_roles.iter().find(|(_, r)| **r == Role::Parent).map(|(n, _)| n.clone());
                counts[e] = match (entity.items, driver, parent) {
                    (Some(n), _, _) => scaled(n),
                    (None, Some(driver), _) => {
                        defaults.push(format!("{}: one item per {driver}", entity.name));
                        pools[&driver]
                    }
                    (None, None, Some(parent)) => {
                        defaults.push(format!("{}: {per} per {parent}", entity.name));
                        pools[&parent].saturating_mul(per)
                    }
                    (None, None, None) if entity_roles.is_empty() => 1,
                    (None, None, None) => {
                        defaults.push(format!("{}: {DEFAULT_ITEMS} items", entity.name));
                        scaled(DEFAULT_ITEMS)
                    }
                };
            } else if entity.items.is_none() {
                defaults.push(format!("{}: {DEFAULT_ITEMS} items", entity.name));
            }
            roles.push(entity_roles);
        }
        Self { table: table.clone(), counts, pools, roles, defaults }
    }

    pub fn count(&self, entity: usize) -> u64 {
        self.counts[entity]
    }

    /// Every item of the table, entity by entity, each with its entity's position.
    pub fn items(&self) -> Result<Vec<(usize, Map<String, Value>)>, String> {
        let mut items = Vec::new();
        for (e, &count) in self.counts.iter().enumerate() {
            for i in 0..count {
                items.push((e, self.item(e, i, &Bindings::new())?));
            }
        }
        Ok(items)
    }

    /// The placeholder values of item `i` of `entity`; `given` ones kept.
    pub fn bindings(&self, entity: usize, i: u64, given: &Bindings) -> Bindings {
        let per = self.table.entities[entity].per_collection.unwrap_or(DEFAULT_PER_COLLECTION).max(1);
        // With a skew, the first share of the items all go to the first collection; the rest spread.
        let hot =
            self.table.entities[entity].skew.map_or(0, |share| (share * self.counts[entity] as f64).round() as u64);
        // The collection item `i` joins among `pool` values (0 is the hot one when there is a skew).
        let collection = |i: u64, pool: u64| match (hot, i < hot) {
            (0, _) => (i / per) % pool,
            (_, true) => 0,
            _ => 1 + ((i - hot) / per) % pool.saturating_sub(1).max(1),
        };
        let mut values = given.clone();
        for (name, role) in &self.roles[entity] {
            if values.contains_key(name) {
                continue;
            }
            let pool = self.pools.get(name).copied().unwrap_or(1).max(1);
            let n = match role {
                Role::Own | Role::Fresh => i,
                Role::Driver => i % pool,
                Role::Parent => collection(i, pool),
                Role::Grouped => collection(i, u64::MAX),
            };
            values.insert(name.clone(), slot_value(name, n));
        }
        values
    }

    /// Item `i` of `entity`, placeholders `given` taking those values.
    pub fn item(&self, entity: usize, i: u64, given: &Bindings) -> Result<Map<String, Value>, String> {
        let design = &self.table.entities[entity];
        let values = self.bindings(entity, i, given);
        let mut item = Map::new();
        for (attribute, template, share) in &design.keys {
            if *share < 1.0 && !present(i, *share) {
                continue;
            }
            let text = template.fill(&values).ok_or_else(|| format!("{}: `{template}` left unfilled", design.name))?;
            item.insert(attribute.clone(), self.typed(attribute, text).map_err(|e| format!("{}: {e}", design.name))?);
        }
        for (name, value) in &values {
            if !item.contains_key(name) && self.roles[entity].contains_key(name) {
                item.insert(name.clone(), json!({"S": value}));
            }
        }
        item.entry("entityType").or_insert_with(|| json!({"S": design.name}));
        for attribute in &design.attributes {
            let value = match (&attribute.example, attribute.size) {
                (_, Some(size)) => json!({"S": "x".repeat(size as usize)}),
                (Some(example), None) => {
                    let text =
                        Template::parse(example).ok().and_then(|t| t.fill(&values)).unwrap_or_else(|| example.clone());
                    plain(&text)
                }
                (None, None) => json!({"S": format!("{}-{}", attribute.name, i + 1)}),
            };
            item.insert(attribute.name.clone(), value);
        }
        if let Some(size) = design.size {
            pad(&mut item, size, design)?;
        }
        Ok(item)
    }

    /// A key attribute's value in its declared type.
    fn typed(&self, attribute: &str, text: String) -> Result<Value, String> {
        let kind =
            self.table.key_attributes().into_iter().find(|k| k.name == attribute).map_or("S", |k| k.kind.as_str());
        Ok(match kind {
            "N" => {
                if text.parse::<f64>().is_err() {
                    return Err(format!("`{attribute}` is a number key, and `{text}` is not a number"));
                }
                json!({"N": text})
            }
            "B" => {
                use base64::Engine as _;
                json!({"B": base64::engine::general_purpose::STANDARD.encode(text)})
            }
            _ => json!({"S": text}),
        })
    }

    /// The entity an item key of these templates belongs to (same shape of partition and sort key).
    pub fn entity_for(&self, partition: &Template, sort: Option<&Template>) -> Option<usize> {
        self.table.entities.iter().position(|e| {
            let same = |attribute: Option<&str>, template: Option<&Template>| match (
                attribute.and_then(|a| e.template(a)),
                template,
            ) {
                (Some(mine), Some(theirs)) => mine.same_shape(theirs),
                (None, None) => true,
                _ => false,
            };
            same(Some(&self.table.partition_key.name), Some(partition))
                && same(self.table.sort_key.as_ref().map(|k| k.name.as_str()), sort)
        })
    }

    pub fn entity(&self, index: usize) -> &Entity {
        &self.table.entities[index]
    }
}

/// Whether item `i` has an attribute only `share` of the items have, spread evenly.
fn present(i: u64, share: f64) -> bool {
    (((i * 61 + 17) % 100) as f64) < share * 100.0
}

/// An example as a value: a number stays a number, `true`/`false` a boolean.
fn plain(text: &str) -> Value {
    if text.parse::<f64>().is_ok_and(f64::is_finite) && !text.starts_with('+') && !text.starts_with('.') {
        json!({"N": text})
    } else if text == "true" || text == "false" {
        json!({"BOOL": text == "true"})
    } else {
        json!({"S": text})
    }
}

fn pad(item: &mut Map<String, Value>, size: u64, entity: &Entity) -> Result<(), String> {
    let parsed: Item = serde_json::from_value(Value::Object(item.clone()))
        .map_err(|e| format!("{}: generated item: {e}", entity.name))?;
    let now = item_size(&parsed) as u64;
    let room = size.saturating_sub(now);
    if room > FILLER.len() as u64 {
        item.insert(FILLER.into(), json!({"S": "x".repeat((room - FILLER.len() as u64) as usize)}));
    }
    Ok(())
}

/// Names of the time that ends what another time starts (`dueDate` after `loanDate`).
const LATER_TIMES: [&str; 9] = ["due", "end", "expir", "until", "return", "close", "finish", "deadline", "ttl"];

/// How far a later time (see [`LATER_TIMES`]) follows the item's other times: 14 days.
const LATER_BY_MINUTES: u64 = 14 * 24 * 60;

/// Value `n` of a placeholder, in an order that sorts as it counts: times for names of times
/// (`createdAt`, `orderDate`), zero-padded numbers for counters (`lineNo`), else `user-0001`
/// for `userId`. Times of one item are equal, except one named as an end (`dueDate`,
/// `expiresAt`), which is 14 days later: a generated loan is due after it was made.
pub fn slot_value(name: &str, n: u64) -> String {
    let lower = name.to_ascii_lowercase();
    if name.ends_with("At") || lower.contains("date") || lower.contains("time") || lower == "ts" || lower == "at" {
        let later = LATER_TIMES.iter().any(|word| lower.contains(word));
        return timestamp(n * 37 + if later { LATER_BY_MINUTES } else { 0 });
    }
    if ["no", "number", "num", "seq", "index", "line", "position"].iter().any(|s| lower.ends_with(s)) {
        return format!("{:04}", n + 1);
    }
    let stem = name
        .strip_suffix("Id")
        .or_else(|| name.strip_suffix("ID"))
        .or_else(|| name.strip_suffix("_id"))
        .unwrap_or(name);
    let stem = if stem.is_empty() { name } else { stem };
    format!("{}-{:04}", stem.to_ascii_lowercase(), n + 1)
}

/// 2026-01-01T00:00:00Z plus `minutes`, as ISO-8601.
fn timestamp(minutes: u64) -> String {
    let days = minutes / (24 * 60);
    let (hour, minute) = ((minutes / 60) % 24, minutes % 60);
    let (year, month, day) = civil(20_454 + days as i64);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:00Z")
}

/// Days since 1970-01-01 to a calendar date (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::markdown::read;

    const LAYOUT: &str = "## Table: shop\n| Entity | PK | SK | GSI1PK | Items | Per collection | Attributes | Size |\n|---|---|---|---|---|---|---|---|\n| User | USER#<userId> | PROFILE | | 4 | | email=<userId>@example.com | |\n| Order | ORDER#<orderId> | META | WH#<warehouseId> (50%) | 10 | 5 | total=42.5 | 1 KB |\n| Order (user view) | USER#<userId> | ORDER#<createdAt>#<orderId> | | | 3 | | |\n| Line | ORDER#<orderId> | LINE#<lineNo> | | | 2 | | |\n";

    #[test]
    fn items_agree_across_entities() {
        let (design, _) = read(LAYOUT).expect("reads");
        let layout = Layout::new(&design.tables[0], 1).expect("layout");
        assert_eq!(layout.counts, [4, 10, 10, 20], "users, orders, one view per order, 2 lines per order");
        let items = layout.items().expect("items");
        let s = |item: &Map<String, Value>, a: &str| item[a]["S"].as_str().unwrap_or_default().to_string();
        let user = &items[0].1;
        assert_eq!(s(user, "PK"), "USER#user-0001");
        assert_eq!(s(user, "email"), "user-0001@example.com");
        let order_keys: Vec<String> = items.iter().filter(|(e, _)| *e == 1).map(|(_, i)| s(i, "PK")).collect();
        for (_, view) in items.iter().filter(|(e, _)| *e == 2) {
            let order_id = s(view, "orderId");
            assert!(order_keys.contains(&format!("ORDER#{order_id}")), "every view names a real order");
            assert!(s(view, "PK").starts_with("USER#user-000"), "and a real user");
        }
        let sparse = items.iter().filter(|(e, i)| *e == 1 && i.contains_key("GSI1PK")).count();
        assert!(sparse > 0 && sparse < 10, "half the orders are in the sparse index: {sparse}");
        let order: Item = serde_json::from_value(Value::Object(items[4].1.clone())).expect("item");
        assert!((1020..=1024).contains(&item_size(&order)), "brought to 1 KB: {}", item_size(&order));
        assert_eq!(items[4].1["total"], json!({"N": "42.5"}));
    }

    #[test]
    fn a_skew_puts_its_share_of_the_items_in_one_collection() {
        let layout = "## Table: t\n| Entity | PK | SK | Items | Per collection | Skew |\n|---|---|---|---|---|---|\n| User | USER#<userId> | PROFILE | 10 | | |\n| Order | USER#<userId> | ORDER#<orderId> | 100 | 5 | 40% |\n";
        let (design, _) = read(layout).expect("reads");
        assert_eq!(design.tables[0].entities[1].skew, Some(0.4));
        let items = Layout::new(&design.tables[0], 1).expect("layout").items().expect("items");
        let busiest = items.iter().filter(|(e, i)| *e == 1 && i["PK"]["S"] == "USER#user-0001").count();
        assert_eq!(busiest, 40, "40% of 100 orders under one user");
        for user in 2..=10 {
            let key = format!("USER#user-{user:04}");
            let orders = items.iter().filter(|(e, i)| *e == 1 && i["PK"]["S"] == key.as_str()).count();
            assert!(
                (5..=10).contains(&orders),
                "the other 60 spread over the other 9 users, 5 a collection: {key} {orders}"
            );
        }
        let (unskewed, _) = read(&layout.replace("40%", "140%")).expect("read, the cell named");
        assert!(unskewed.unread.iter().any(|u| u.to_string().contains("column \"Skew\": `140%` is not a share")));
    }

    #[test]
    fn placeholder_values_sort_as_they_count() {
        assert_eq!(slot_value("createdAt", 0), "2026-01-01T00:00:00Z");
        assert_eq!(slot_value("createdAt", 40), "2026-01-02T00:40:00Z");
        // An end follows the start it ends.
        assert_eq!(slot_value("loanDate", 40), "2026-01-02T00:40:00Z");
        assert_eq!(slot_value("dueDate", 40), "2026-01-16T00:40:00Z");
        assert_eq!(slot_value("expiresAt", 0), "2026-01-15T00:00:00Z");
        assert_eq!(slot_value("lineNo", 8), "0009");
        assert_eq!(slot_value("warehouseId", 2), "warehouse-0003");
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_454), (2026, 1, 1));
    }
}
