//! The amazon-dynamodb design skill's cost model (also named `dynamodb_data_model.json`): `tables`
//! with `key_schema`, `entities` with an estimated item size and count, `gsis`, and
//! `access_patterns` with rates, items per request and consistency. It carries no items, so a
//! fixture is generated to the declared sizes and counts: item collections at their production
//! size, fewer of them, and the workbook's `scale` multiplies storage back up.
//!
//! No public specification of this file was found; what is read, under which spellings, is the
//! "Importing" section of `docs/workbook.md`. Anything else is reported as left out.

mod generate;
mod read;

use super::{finish, Imported, Source};
use crate::numbers::thousands;
use crate::workbook::{Consistency, FORMAT};
use generate::{create_table, generate, to_pattern};
use read::{read_entities, read_patterns, read_tables, read_top_level_indexes, size_collections, text};
use serde_json::{json, Map, Value};

/// The generated fixture holds about this many items and bytes at most; production counts are
/// divided by the scale factor that gets it there.
const FIXTURE_ITEMS: f64 = 5_000.0;
const FIXTURE_BYTES: f64 = 32.0 * 1024.0 * 1024.0;
/// Beyond these a fixture is refused rather than generated (many entities each keep at least one
/// whole collection).
const FIXTURE_ITEMS_REFUSED: u64 = 50_000;
const FIXTURE_BYTES_REFUSED: u64 = 128 * 1024 * 1024;
/// One generated item collection holds at most this many items and bytes.
const MAX_COLLECTION: u64 = 10_000;
const MAX_COLLECTION_BYTES: u64 = 16 * 1024 * 1024;
const ITEM_LIMIT: u64 = 400 * 1024;
/// The attribute that brings a generated item up to its declared size.
const FILLER: &str = "filler";

/// A cost model has entities with sizes and counts (at the top level, or inside each table as the
/// design skill writes them); an MCP data model has items and CLI strings.
pub(super) fn is_cost_model(object: &Map<String, Value>) -> bool {
    let nested = object
        .get("tables")
        .and_then(Value::as_array)
        .is_some_and(|tables| tables.iter().any(|t| t.get("entities").is_some()));
    (object.contains_key("entities") || nested) && object.contains_key("access_patterns")
}

#[derive(Clone)]
struct KeyAttribute {
    name: String,
    /// S, N or B.
    kind: String,
}

struct Index {
    name: String,
    partition: KeyAttribute,
    sort: Option<KeyAttribute>,
    projection: Value,
}

struct Table {
    name: String,
    partition: KeyAttribute,
    sort: Option<KeyAttribute>,
    indexes: Vec<Index>,
}

struct Entity {
    name: String,
    table: usize,
    size: u64,
    count: u64,
    /// Listed attributes: name, type, example.
    attributes: Vec<(String, String, Option<Value>)>,
    /// Items per partition key value in production (and in the fixture).
    per_partition: u64,
    fixture_count: u64,
    /// Indexes the entity's items appear in, with how many items share one index partition key.
    indexes: Vec<(usize, u64)>,
}

/// A pattern as read, before it becomes a request.
struct Declared {
    label: String,
    description: String,
    table: Option<usize>,
    index: Option<usize>,
    entity: Option<usize>,
    operation: String,
    items: u64,
    peak: f64,
    average: Option<f64>,
    consistency: Option<Consistency>,
    busiest_key_share: f64,
    retention_days: Option<f64>,
}

pub(super) fn import(model: &Map<String, Value>) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let mut tables = read_tables(model)?;
    read_top_level_indexes(model, &mut tables)?;
    let mut entities = read_entities(model, &tables)?;
    let mut errors = Vec::new();
    let declared = read_patterns(model, &tables, &entities, &mut notes, &mut errors);
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let replicas = read_replicas(model, &tables, &mut notes);
    size_collections(&mut entities, &tables, &declared);
    for entity in &mut entities {
        let fits = (MAX_COLLECTION_BYTES / entity.size.max(1)).max(1);
        if entity.per_partition > fits {
            notes.push(format!(
                "{}: generated item collections hold {fits} items (16 MB), not {}",
                entity.name, entity.per_partition
            ));
            entity.per_partition = fits;
        }
    }
    let total = entities.iter().fold(0_u64, |sum, e| sum.saturating_add(e.count));
    let total_bytes = entities.iter().map(|e| e.count as f64 * e.size as f64).sum::<f64>();
    let scale = (total as f64 / FIXTURE_ITEMS).max(total_bytes / FIXTURE_BYTES).ceil().max(1.0);
    let (mut generated, mut generated_bytes) = (0_u64, 0_u64);
    for entity in &mut entities {
        let partitions = entity.count.div_ceil(entity.per_partition);
        let kept = ((partitions as f64 / scale).round() as u64).max(1);
        entity.fixture_count = entity.count.min(kept.saturating_mul(entity.per_partition)).max(1);
        generated = generated.saturating_add(entity.fixture_count);
        generated_bytes = generated_bytes.saturating_add(entity.fixture_count.saturating_mul(entity.size));
    }
    if generated > FIXTURE_ITEMS_REFUSED || generated_bytes > FIXTURE_BYTES_REFUSED {
        return Err(format!(
            "entities: the generated fixture would hold {} items and {} MB (each entity keeps at least one whole item collection); the lab generates at most {} items and {} MB",
            thousands(generated),
            generated_bytes / (1024 * 1024),
            thousands(FIXTURE_ITEMS_REFUSED),
            FIXTURE_BYTES_REFUSED / (1024 * 1024)
        ));
    }
    let mut fixtures = Map::new();
    for (e, entity) in entities.iter().enumerate() {
        let table = &tables[entity.table];
        let items = fixtures.entry(table.name.clone()).or_insert_with(|| json!([]));
        let Some(items) = items.as_array_mut() else { continue };
        let mut key_bytes = 0;
        for serial in 0..entity.fixture_count {
            let position = (serial / entity.per_partition, serial % entity.per_partition);
            let (item, keys_only) = generate(entity, e, table, position, serial)?;
            key_bytes = key_bytes.max(keys_only);
            items.push(item);
        }
        if key_bytes > entity.size {
            notes.push(format!(
                "{}: its generated keys and attributes take {key_bytes} B, more than the declared {} B",
                entity.name, entity.size
            ));
        }
        notes.push(format!(
            "{}: {} items of {} B in production → {} in the fixture, {} per partition key",
            entity.name,
            thousands(entity.count),
            entity.size,
            thousands(entity.fixture_count),
            entity.per_partition
        ));
    }
    notes.insert(
        0,
        format!(
            "a cost model carries no items: the fixture is generated ({} items in production, about 1/{scale} of them here; storage is costed ×{scale}, item collections are generated at their production size)",
            thousands(total)
        ),
    );
    notes.push("the hot-key check puts each pattern's whole peak on one partition key unless the pattern gives busiest_key_share".into());
    let mut patterns: Vec<Value> = Vec::new();
    for pattern in &declared {
        match to_pattern(pattern, &tables, &entities) {
            Ok(mut p) => {
                let mut n = 2;
                let base = p.id.clone();
                while patterns.iter().any(|q| q["id"] == p.id.as_str()) {
                    p.id = format!("{base}-{n}");
                    n += 1;
                }
                patterns.push(serde_json::to_value(p).unwrap_or_default());
            }
            Err(reason) => return Err(format!("pattern {}: {reason}", pattern.label)),
        }
    }
    let mut creates: Vec<Value> = tables.iter().map(create_table).collect();
    read_classes(model, &mut creates)?;
    let name = text(model, &["name", "application", "title"]).unwrap_or("Imported design skill cost model");
    let mut workbook = json!({"format": FORMAT, "name": name, "scale": scale, "collection_scale": 1.0,
        "tables": creates, "fixtures": fixtures, "patterns": patterns});
    if let Some(region) = text(model, &["region"]) {
        workbook["region"] = json!(region);
    }
    if !replicas.is_empty() {
        workbook["replicas"] = json!(replicas);
    }
    finish(Source::DesignCostModel, workbook, notes)
}

/// `global_tables` per table (true, a region count, or a list of replica regions) and
/// `table_class`, which Dynalab prices as Standard and says so.
fn read_replicas(model: &Map<String, Value>, tables: &[Table], notes: &mut Vec<String>) -> Map<String, Value> {
    let mut replicas = Map::new();
    for (i, table) in model.get("tables").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let name = &tables[i].name;
        let regions = match table.get("global_tables").or_else(|| table.get("replicas")) {
            Some(Value::Bool(true)) => {
                notes.push(format!("tables[{i}].global_tables: true without regions; priced for 2 regions"));
                Some(2)
            }
            Some(Value::Number(n)) => n.as_u64().filter(|n| *n >= 1),
            Some(Value::Array(regions)) => Some(regions.len() as u64 + 1),
            _ => None,
        };
        if let Some(regions) = regions.filter(|r| *r > 1) {
            replicas.insert(name.clone(), json!(regions));
        }
    }
    replicas
}

/// `table_class` per table, as CreateTable's `TableClass` (which the cost prices).
fn read_classes(model: &Map<String, Value>, creates: &mut [Value]) -> Result<(), String> {
    for (i, table) in model.get("tables").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let Some(class) = table.get("table_class") else { continue };
        match class.as_str().and_then(|c| crate::workbook::prices::TableClass::parse(c).ok()) {
            Some(_) => creates[i]["TableClass"] = class.clone(),
            None => {
                return Err(format!("tables[{i}].table_class: {class} is not STANDARD or STANDARD_INFREQUENT_ACCESS"))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{import, Source};
    use crate::workbook::check::check;
    use dynalab_engine::value::{item_size, Item};
    use serde_json::{json, Value};

    /// A cost model as the issue describes the design skill's output (no public specification found).
    const MODEL: &str = include_str!("../../../../../../tests/imports/design-cost-model.json");

    fn clock() -> std::sync::Arc<dyn dynalab_engine::Clock> {
        std::sync::Arc::new(dynalab_engine::FixedClock::at(0))
    }

    fn size(item: &Value) -> usize {
        item_size(&serde_json::from_value::<Item>(item.clone()).expect("an item"))
    }

    #[test]
    fn a_cost_model_becomes_a_scaled_fixture_at_the_declared_sizes() {
        let imported = import(MODEL).expect("imports");
        assert_eq!(imported.source, Source::DesignCostModel);
        let workbook = &imported.workbook;
        assert_eq!(workbook.scale, 8500.0, "42.5 million items down to about 5,000");
        assert_eq!(workbook.collection_scale, Some(1.0));
        assert!(
            imported
                .notes
                .iter()
                .any(|n| n
                    == "Order: 40,000,000 items of 1536 B in production → 4,700 in the fixture, 20 per partition key"),
            "{:?}",
            imported.notes
        );
        assert!(
            imported
                .notes
                .iter()
                .any(|n| n == "pattern AP7 (Search products by text) not imported: served by opensearch (`OpenSearch query`), not DynamoDB"),
            "{:?}",
            imported.notes
        );
        let app = workbook.fixtures["AppTable"].as_array().expect("items");
        assert_eq!(app.len(), 235 + 4_700);
        let customers: Vec<&Value> = app.iter().filter(|i| i["SK"] == json!({"S": "PROFILE"})).collect();
        assert_eq!(customers.len(), 235);
        assert!(
            customers.iter().all(|c| size(c) == 800 && c.get("GSI1PK").is_none()),
            "customers stay out of the sparse GSI1"
        );
        let orders: Vec<&Value> =
            app.iter().filter(|i| i["SK"]["S"].as_str().is_some_and(|s| s.starts_with("ORDER#"))).collect();
        assert_eq!(orders.len(), 4_700);
        assert!(orders
            .iter()
            .all(|o| size(o) == 1536 && o["PK"]["S"].as_str().is_some_and(|s| s.starts_with("CUSTOMER#"))));
        let first_customer = orders.iter().filter(|o| o["PK"] == customers[0]["PK"]).count();
        assert_eq!(first_customer, 20, "an order collection at its production size, shared with the profile");
        let sessions = workbook.fixtures["Sessions"].as_array().expect("items");
        assert_eq!(sessions.len(), 59);
        assert!(sessions.iter().all(|s| size(s) == 300));

        let result = check(workbook, clock()).expect("plans").result;
        let rows: Vec<(&str, &str, u64)> =
            result.patterns.iter().map(|p| (p.id.as_str(), p.verdict.label(), p.items)).collect();
        assert_eq!(
            rows,
            [
                ("AP1", "pass", 1),
                ("AP2", "pass", 20),
                ("AP3", "pass", 50),
                ("AP4", "fail", 0),
                ("AP5", "pass", 0),
                ("AP6", "warn", 1)
            ]
        );
        let units: Vec<f64> = result.patterns.iter().map(|p| p.read_units + p.write_units).collect();
        // 800 B eventually consistent: ½ RCU; 20 × 1,536 B read as one 30 KB page: 8 units, ½ each;
        // 3 transactional puts of 2 WCU, doubled, plus their GSI1 entries; a strong 300 B read.
        assert_eq!(units, [0.5, 4.0, 9.5, 18.0, 2.0, 1.0]);
    }

    #[test]
    fn a_strong_read_on_an_index_fails_and_bad_fields_are_named() {
        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["access_patterns"][2]["consistency"] = json!("strongly consistent");
        let mut imported = import(&model.to_string()).expect("imports");
        imported.workbook.patterns.retain(|p| p.id == "AP3");
        let result = check(&imported.workbook, clock()).expect("plans").result;
        assert_eq!(result.patterns[0].verdict.label(), "fail", "{:?}", result.patterns[0].reasons);

        let broken = |path: &[&str], value: Value| {
            let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
            let mut at = &mut model;
            for step in &path[..path.len() - 1] {
                at = match step.parse::<usize>() {
                    Ok(i) => &mut at[i],
                    Err(_) => &mut at[*step],
                };
            }
            at[path[path.len() - 1]] = value;
            import(&model.to_string()).expect_err("refused")
        };
        assert_eq!(broken(&["entities", "1", "item_count"], Value::Null), "entities[1].item_count: missing");
        assert_eq!(
            broken(&["entities", "0", "item_size_bytes"], json!("500 KB")),
            "entities[0].item_size_bytes: 512000 B is over DynamoDB's 400 KB item limit"
        );
        assert_eq!(broken(&["entities", "2", "table"], json!("Nope")), "entities[2].table: no table `Nope`");
        assert_eq!(
            broken(&["tables", "1", "key_schema"], json!({"sort_key": "x"})),
            "tables[1].key_schema.partition_key: missing"
        );
        assert_eq!(broken(&["entities"], json!("many")), "entities: expected a list");

        // Hostile sizes and counts give a bounded fixture or a refusal, never gigabytes.
        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["entities"][1]["item_size_bytes"] = json!(400 * 1024);
        model["entities"][1]["item_count"] = json!(u64::MAX);
        model["entities"][1]["items_per_partition"] = json!(1_000_000);
        let imported = import(&model.to_string()).expect("a bounded fixture");
        let orders = imported.workbook.fixtures["AppTable"].as_array().expect("items").len();
        assert!(orders <= 100, "{orders} items");
        assert!(
            imported.notes.iter().any(|n| n == "Order: generated item collections hold 40 items (16 MB), not 10000"),
            "{:?}",
            imported.notes
        );
        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        let many: Vec<Value> = (0..2_000)
            .map(|n| json!({"name": format!("E{n}"), "table": "AppTable", "item_size_bytes": 100, "item_count": 1_000_000, "items_per_partition": 100}))
            .collect();
        model["entities"] = json!(many);
        model["access_patterns"] = json!([]);
        let error = import(&model.to_string()).expect_err("too many collections");
        assert!(error.starts_with("entities: the generated fixture would hold 200,000 items"), "{error}");

        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["access_patterns"][3]["items_per_request"] = json!(u64::MAX);
        let mut imported = import(&model.to_string()).expect("imports");
        let actions = imported.workbook.patterns[3].requests[0]
            .request
            .as_ref()
            .map(|r| r["TransactItems"].as_array().map(Vec::len));
        assert_eq!(actions, Some(Some(101)), "one past the limit, for DynamoDB's own error");
        imported.workbook.patterns.retain(|p| p.id == "AP4");
        let runs = check(&imported.workbook, clock()).expect("plans").runs;
        let error = runs[0].calls[0].error.clone().expect("refused");
        assert_eq!(error.0, "ValidationException", "{error:?}");

        // A model whose collections are smaller than what a Query is said to read fails that pattern.
        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["entities"][1]["items_per_partition"] = json!(5);
        let mut imported = import(&model.to_string()).expect("imports");
        imported.workbook.patterns.retain(|p| p.id == "AP2");
        let result = check(&imported.workbook, clock()).expect("plans").result;
        assert_eq!((result.patterns[0].verdict.label(), result.patterns[0].items), ("fail", 5));

        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["access_patterns"][2]["index"] = json!("GSI9");
        let error = import(&model.to_string()).expect_err("an unknown index is an error, not a dropped pattern");
        assert_eq!(error, "access_patterns[2].index: table `AppTable` has no index `GSI9` (it has GSI1)");
    }
}
