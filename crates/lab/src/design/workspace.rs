//! The design a workspace is: its tables, indexes and items are the engine's; its inventory,
//! entity layouts and calls are the design's ([`crate::workspace::Studio`]). Proving runs the
//! calls on a copy of the workspace's engine that shares its tables until a pattern writes one
//! ([`crate::workbook::check::check_on`]), so the workspace never changes and a million items
//! are never copied; a document written from it names the workspace's keys and indexes.

use super::fixture::Layout;
use super::to_workbook::Bound;
use super::{Converted, Design, IndexDesign, KeyAttribute, Projection, TableDesign, VectorIndexDesign};
use dynalab_engine::Engine;
use serde_json::{Map, Value};

/// A table as a CreateTable request describes it, with `design`'s layout and calls for it.
pub fn table_from_create(create: &Value, design: Option<&TableDesign>) -> Option<TableDesign> {
    let name = create.get("TableName")?.as_str()?.to_string();
    let types: Vec<(&str, &str)> = create
        .get("AttributeDefinitions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|d| Some((d.get("AttributeName")?.as_str()?, d.get("AttributeType")?.as_str()?)))
        .collect();
    let attribute = |name: &str| KeyAttribute {
        name: name.to_string(),
        kind: types.iter().find(|(n, _)| *n == name).map_or("S", |(_, t)| t).to_string(),
    };
    let keys = |schema: &Value, role: &str| -> Option<String> {
        schema
            .as_array()?
            .iter()
            .find(|k| k.get("KeyType").and_then(Value::as_str) == Some(role))
            .and_then(|k| k.get("AttributeName")?.as_str().map(String::from))
    };
    let schema = create.get("KeySchema")?;
    let partition_key = attribute(&keys(schema, "HASH")?);
    let sort_key = keys(schema, "RANGE").map(|k| attribute(&k));
    let mut indexes = Vec::new();
    for (field, local) in [("GlobalSecondaryIndexes", false), ("LocalSecondaryIndexes", true)] {
        for index in create.get(field).and_then(Value::as_array).into_iter().flatten() {
            let Some(index_name) = index.get("IndexName").and_then(Value::as_str) else { continue };
            let Some(index_schema) = index.get("KeySchema") else { continue };
            let Some(partition) = keys(index_schema, "HASH") else { continue };
            let projection = projection_of(index.get("Projection"));
            indexes.push(IndexDesign {
                name: index_name.to_string(),
                local,
                partition_key: attribute(&partition),
                sort_key: keys(index_schema, "RANGE").map(|k| attribute(&k)),
                projection,
            });
        }
    }
    let vector_indexes = create
        .get("VectorIndexes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|index| vector_index_from_create(index, &attribute))
        .collect();
    let settings = match create.get("BillingMode").and_then(Value::as_str) {
        Some("PAY_PER_REQUEST") => "on-demand".to_string(),
        _ => {
            let units = create.get("ProvisionedThroughput");
            let unit = |field: &str| units.and_then(|u| u.get(field)).and_then(Value::as_u64).unwrap_or(5);
            format!("provisioned {} RCU / {} WCU", unit("ReadCapacityUnits"), unit("WriteCapacityUnits"))
        }
    };
    Some(TableDesign {
        name,
        settings,
        partition_key,
        sort_key,
        indexes,
        entities: design.map(|d| d.entities.clone()).unwrap_or_default(),
        calls: design.map(|d| d.calls.clone()).unwrap_or_default(),
        items: Vec::new(),
        vector_indexes,
    })
}

/// A `VectorIndexes` member of a CreateTable request; `attribute` types a search-schema attribute.
fn vector_index_from_create(index: &Value, attribute: &dyn Fn(&str) -> KeyAttribute) -> Option<VectorIndexDesign> {
    let schema = index.get("SearchSchema").and_then(Value::as_array);
    let with_role = |role: &str| -> Vec<KeyAttribute> {
        schema
            .into_iter()
            .flatten()
            .filter(|e| e.get("SearchSchemaElementType").and_then(Value::as_str) == Some(role))
            .filter_map(|e| e.get("AttributeName").and_then(Value::as_str).map(attribute))
            .collect()
    };
    Some(VectorIndexDesign {
        name: index.get("IndexName")?.as_str()?.to_string(),
        attribute: index.get("VectorAttribute")?.get("AttributeName")?.as_str()?.to_string(),
        dimensions: u32::try_from(index.get("Dimensions")?.as_u64()?).ok()?,
        distance: index.get("DistanceFunction").and_then(Value::as_str).unwrap_or("COSINE").to_string(),
        hash_filter: with_role("HASH").into_iter().next(),
        inline_filters: with_role("INLINE_FILTER"),
        projection: projection_of(index.get("Projection")),
    })
}

/// An index's `Projection` as a CreateTable request gives it.
fn projection_of(projection: Option<&Value>) -> Projection {
    match projection.and_then(|p| p.get("ProjectionType")).and_then(Value::as_str) {
        Some("KEYS_ONLY") => Projection::KeysOnly,
        Some("INCLUDE") => Projection::Include(
            projection
                .and_then(|p| p.get("NonKeyAttributes"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|n| n.as_str().map(String::from))
                .collect(),
        ),
        _ => Projection::All,
    }
}

/// The workspace's tables with the design's layouts and calls; a table the design names that the
/// workspace does not hold is listed in the second value.
pub fn tables(engine: &Engine, design: &Design) -> (Vec<(TableDesign, Value)>, Vec<String>) {
    let mut tables = Vec::new();
    for snapshot in engine.snapshot_definitions() {
        let name = snapshot.create.get("TableName").and_then(Value::as_str).unwrap_or_default().to_string();
        if let Some(table) = table_from_create(&snapshot.create, design.table(&name)) {
            tables.push((table, snapshot.create));
        }
    }
    let missing = design
        .tables
        .iter()
        .filter(|t| !tables.iter().any(|(w, _)| w.name == t.name))
        .filter(|t| !(t.calls.is_empty() && t.entities.is_empty()))
        .map(|t| t.name.clone())
        .collect();
    (tables, missing)
}

/// The design as it stands on the workspace: its tables' keys and indexes, its layouts and calls.
pub fn current(engine: &Engine, design: &Design) -> Design {
    let (tables, _) = tables(engine, design);
    Design { tables: tables.into_iter().map(|(t, _)| t).collect(), ..design.clone() }
}

/// How many of a workspace table's items the calls are bound on (the busiest collection among
/// them, an existing item's key): the first in scan order, so whole collections of random
/// partitions. The calls then run on every item.
pub const BINDING_SAMPLE: usize = 20_000;

/// The workbook that proves `design` on the workspace: its tables, and its calls bound on the
/// workspace's items, with no fixture — [`crate::workbook::check::check_on`] runs it on a copy of
/// the workspace's engine (nothing the workbook runs touches the workspace).
pub fn prove_on(engine: &Engine, design: &Design) -> Result<Converted, String> {
    prove_sampling(engine, design, BINDING_SAMPLE)
}

fn prove_sampling(engine: &Engine, design: &Design, sample: usize) -> Result<Converted, String> {
    let (tables, missing) = tables(engine, design);
    let designs: Vec<TableDesign> = tables.iter().map(|(t, _)| t.clone()).collect();
    let (scale, scaled) = super::fixture::scale(&designs);
    let mut creates = Vec::new();
    let mut bound = Vec::new();
    let mut sampled = Vec::new();
    for (table, create) in tables {
        let items = items_of(engine, &table.name, sample)?;
        let held = engine.outline(&table.name).map(|shape| shape.totals.items).unwrap_or(0);
        if held > items.len() {
            sampled.push(format!("{} of {held} items of `{}`", items.len(), table.name));
        }
        let layout = Layout::new(&table, scale)?;
        creates.push(create);
        bound.push(Bound { design: table, layout, items });
    }
    let mut converted = design.prove_with(creates, &bound);
    converted.workbook.scale = scale as f64;
    converted.notes.extend(scaled);
    if !sampled.is_empty() {
        converted.notes.push(format!(
            "the calls' keys were chosen among the first {} (scan order); the calls ran on every item",
            sampled.join(", ")
        ));
    }
    for name in missing {
        converted.notes.push(format!("the design names table `{name}`, which the workspace does not hold"));
    }
    converted.notes.extend(design.unread.iter().map(|u| format!("not read from the document: {u}")));
    Ok(converted)
}

/// The workbook `design` is, with every item of the workspace as its fixture (a file to keep or
/// to check elsewhere; a proof in place needs no copy: [`prove_on`]).
pub fn workbook_with_items(engine: &Engine, design: &Design) -> Result<Converted, String> {
    // Every item goes into the file anyway: the calls are bound on all of them.
    let mut converted = prove_sampling(engine, design, usize::MAX)?;
    for create in &converted.workbook.tables {
        let name = create.get("TableName").and_then(Value::as_str).unwrap_or_default();
        let items: Vec<Value> =
            items_of(engine, name, usize::MAX)?.into_iter().map(|(_, item)| Value::Object(item)).collect();
        if !items.is_empty() {
            converted.workbook.fixtures.insert(name.to_string(), Value::Array(items));
        }
    }
    Ok(converted)
}

/// The first `limit` items of `table` in scan order, in DynamoDB JSON.
fn items_of(engine: &Engine, table: &str, limit: usize) -> Result<Vec<(usize, Map<String, Value>)>, String> {
    let (items, _) = engine.snapshot_items(table, None, limit).map_err(|e| e.message)?;
    Ok(items
        .iter()
        .filter_map(|raw| serde_json::from_str::<Map<String, Value>>(raw.get()).ok())
        .map(|item| (usize::MAX, item))
        .collect())
}

/// Items generated from `table`'s entity layout, for the workspace to hold.
pub fn generate(engine: &Engine, design: &Design, table: &str) -> Result<Vec<Map<String, Value>>, String> {
    let (tables, _) = tables(engine, design);
    let designs: Vec<TableDesign> = tables.into_iter().map(|(t, _)| t).collect();
    // The scale is the whole design's: every table keeps the same share of production.
    let (scale, _) = super::fixture::scale(&designs);
    let table =
        designs.into_iter().find(|t| t.name == table).ok_or_else(|| format!("no table `{table}` in the workspace"))?;
    if table.entities.is_empty() {
        return Err(format!("table `{}` has no entity layout to generate items from", table.name));
    }
    Ok(Layout::new(&table, scale)?.items()?.into_iter().map(|(_, item)| item).collect())
}

/// A workspace made from a design document: its tables created and its fixture generated. The
/// design goes beside it.
pub fn engine_for(
    design: &Design,
    clock: std::sync::Arc<dyn dynalab_engine::Clock>,
) -> Result<(Engine, Vec<String>), String> {
    let converted = design.to_workbook()?;
    let mut engine = Engine::new(clock);
    for create in &converted.workbook.tables {
        let name = create.get("TableName").and_then(Value::as_str).unwrap_or("?");
        engine.execute_value("CreateTable", create).map_err(|e| format!("table `{name}`: {}", e.message))?;
    }
    for (table, items) in &converted.workbook.fixtures {
        for item in items.as_array().into_iter().flatten() {
            let request = serde_json::json!({"TableName": table, "Item": item});
            engine.execute_value("PutItem", &request).map_err(|e| format!("table `{table}`: {}", e.message))?;
        }
    }
    Ok((engine, converted.notes))
}

/// A workspace made from a workbook (or any format the importers read): its tables, fixture and
/// setup loaded as the check loads them; the design beside it has the workbook's inventory, each
/// pattern's first call written in the shorthand. What could not be carried over, said.
pub fn from_workbook(
    workbook: &crate::workbook::Workbook,
    clock: std::sync::Arc<dyn dynalab_engine::Clock>,
) -> Result<(Engine, Design, Vec<String>), String> {
    use crate::workbook::plan::Plan;
    use crate::workbook::runner::{load_calls, EngineTarget};
    let plan = Plan::build(workbook.clone(), clock.clone()).map_err(|problems| problems.0.join("\n"))?;
    let mut target = EngineTarget::new(clock);
    load_calls(&plan, &mut target)?;
    let engine = target.into_engine();
    let mut notes = Vec::new();
    let mut design =
        Design { name: workbook.name.clone(), description: workbook.description.clone(), ..Design::default() };
    for (pattern, calls) in plan.patterns() {
        if pattern.proposed {
            continue;
        }
        design.inventory.push(super::InventoryRow {
            id: pattern.id.clone(),
            pattern: pattern.description.clone(),
            kind: pattern.kind,
            key_inputs: String::new(),
            sort_filter: String::new(),
            peak_rps: Some(pattern.peak_rps),
            avg_rps: pattern.avg_rps,
            consistency: Some(pattern.consistency),
        });
        if calls.len() > 1 {
            notes.push(format!("pattern {}: {} calls; the first is its call here", pattern.id, calls.len()));
        }
        if pattern.busiest_key_share != crate::workbook::KeyShare::default() || pattern.retention_days.is_some() {
            notes
                .push(format!("pattern {}: its busiest_key_share and retention_days are not carried over", pattern.id));
        }
        if let Some(error) = &pattern.expect.error {
            notes.push(format!(
                "pattern {} expects {error}: a design here states no expected error, so the refusal shows as its failure",
                pattern.id
            ));
        }
        if calls.first().is_some_and(|c| c.request.get("Item").is_some() || c.request.to_string().contains("\"Put\"")) {
            notes.push(format!(
                "pattern {}: a Put writes its key only (an entity layout gives its other attributes)",
                pattern.id
            ));
        }
        let Some(call) = calls.first() else { continue };
        match super::calls::from_request(call.operation.name(), &call.request) {
            Ok((table, mut row)) => {
                row.id = pattern.id.clone();
                let (tables, _) = tables(&engine, &design);
                let entry = match design.tables.iter().position(|t| t.name == table) {
                    Some(at) => at,
                    None => {
                        let Some((shape, _)) = tables.into_iter().find(|(t, _)| t.name == table) else {
                            notes.push(format!("pattern {}: its table `{table}` is not in the workbook", pattern.id));
                            continue;
                        };
                        design.tables.push(shape);
                        design.tables.len() - 1
                    }
                };
                design.tables[entry].calls.push(row);
            }
            Err(e) => notes.push(format!("pattern {}: its call is not carried over ({e})", pattern.id)),
        }
    }
    Ok((engine, design, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::markdown::read;
    use crate::workbook::analysis::Verdict;
    use crate::workbook::check::{check, check_on};
    use dynalab_engine::{Clock, FixedClock};
    use std::sync::Arc;

    fn clock() -> Arc<dyn Clock> {
        Arc::new(FixedClock::at(1_700_000_000_000))
    }

    #[test]
    fn a_workspace_made_from_a_document_proves_the_same_and_is_never_changed() {
        let (design, _) = read(include_str!("../../../../examples/orders-service.design.md")).expect("reads");
        let (engine, _) = engine_for(&design, clock()).expect("workspace");
        let before =
            (engine.snapshot_items("orders-service", None, usize::MAX).expect("items").0, engine.change_mark());
        let on_workspace = prove_on(&engine, &design).expect("proves");
        assert!(on_workspace.workbook.fixtures.is_empty(), "a proof in place copies no item");
        let from_document = design.to_workbook().expect("workbook");
        let verdicts = |checked: crate::workbook::check::Checked| {
            checked
                .result
                .patterns
                .iter()
                .map(|p| (p.id.clone(), p.verdict, p.items, p.read_units, p.write_units))
                .collect::<Vec<_>>()
        };
        let proven = verdicts(check_on(&on_workspace.workbook, engine.clone()).expect("checks"));
        assert_eq!(proven, verdicts(check(&from_document.workbook, clock()).expect("checks")));
        assert!(proven.iter().all(|p| p.1 == Verdict::Pass), "{proven:?}");
        // The file written from the workspace carries its items and proves the same anywhere.
        let file = workbook_with_items(&engine, &design).expect("workbook");
        assert_eq!(file.workbook.fixtures["orders-service"].as_array().map(Vec::len), Some(before.0.len()));
        assert_eq!(proven, verdicts(check(&file.workbook, clock()).expect("checks")));
        let after = (engine.snapshot_items("orders-service", None, usize::MAX).expect("items").0, engine.change_mark());
        assert_eq!(
            before.0.iter().map(|raw| raw.get()).collect::<Vec<_>>(),
            after.0.iter().map(|raw| raw.get()).collect::<Vec<_>>(),
            "the transaction ran on a copy"
        );
        assert_eq!(before.1, after.1);
        // The document written from the workspace reads back as the design it holds.
        let written = crate::design::markdown::write(&current(&engine, &design));
        let (again, _) = read(&written).expect("reads back");
        assert_eq!(again.inventory, design.inventory);
        assert_eq!(again.tables[0].indexes, current(&engine, &design).tables[0].indexes);
    }

    #[test]
    fn a_workbook_opens_as_a_workspace_whose_design_proves_the_same() {
        let text = include_str!("../../../../examples/orders-service.workbook.json");
        let workbook = crate::workbook::Workbook::parse(text).expect("workbook");
        let (engine, design, notes) = from_workbook(&workbook, clock()).expect("opens");
        assert_eq!(design.inventory.len(), workbook.patterns.len());
        let proven = check_on(&prove_on(&engine, &design).expect("proves").workbook, engine.clone()).expect("checks");
        let original = check(&workbook, clock()).expect("checks");
        let summary = |r: &crate::workbook::analysis::DesignResult| {
            r.patterns
                .iter()
                .map(|p| (p.id.clone(), p.verdict, p.operation.clone(), p.items, p.read_units))
                .collect::<Vec<_>>()
        };
        let (proven, original) = (summary(&proven.result), summary(&original.result));
        // The reads and the update are the workbook's own calls, on its own items.
        for id in ["AP1", "AP2", "AP3", "AP4", "AP8"] {
            assert_eq!(proven.iter().find(|p| p.0 == id), original.iter().find(|p| p.0 == id), "{id}");
        }
        // The transactions run too; what differs is said.
        for id in ["AP5", "AP6", "AP7"] {
            assert_eq!(proven.iter().find(|p| p.0 == id).map(|p| p.2.as_str()), Some("TransactWriteItems"), "{id}");
            assert!(
                notes.iter().any(|n| n.starts_with(&format!("pattern {id}: a Put writes its key only"))),
                "{notes:?}"
            );
        }
        assert!(notes.iter().any(|n| n.starts_with("pattern AP7 expects TransactionCanceledException")), "{notes:?}");
    }

    /// A vector search is a pattern of the studio: its call names the vector index, filters by
    /// the search schema, and proves on the workspace as the workbook's own request does.
    #[test]
    fn a_vector_search_pattern_proves_in_the_workspace_as_in_its_workbook() {
        let text = include_str!("../../../../examples/semantic-search.workbook.json");
        let workbook = crate::workbook::Workbook::parse(text).expect("workbook");
        let (engine, design, _) = from_workbook(&workbook, clock()).expect("opens");
        let table = &design.tables[0];
        let vectors = &table.vector_indexes[0];
        assert_eq!(
            (vectors.name.as_str(), vectors.attribute.as_str(), vectors.dimensions),
            ("by_meaning", "embedding", 8)
        );
        assert_eq!(vectors.hash_filter.as_ref().map(|h| h.name.as_str()), Some("tenant"));
        let search = table.calls.iter().find(|c| c.id == "AP2").expect("AP2's call");
        assert_eq!(
            (search.operation.as_str(), search.key_condition.as_str(), search.index.as_deref()),
            ("SearchVectors", "tenant='acme', category='billing', TopK=5", Some("by_meaning"))
        );
        let proven = check_on(&prove_on(&engine, &design).expect("proves").workbook, engine.clone()).expect("checks");
        let found: Vec<(&str, &str, u64, Verdict)> =
            proven.result.patterns.iter().map(|p| (p.id.as_str(), p.operation.as_str(), p.items, p.verdict)).collect();
        assert_eq!(found[0], ("AP1", "SearchVectors", 3, Verdict::Pass));
        assert_eq!(found[1], ("AP2", "SearchVectors", 2, Verdict::Pass));
        assert_eq!(proven.result.patterns[0].vector_bytes.get("help_articles/by_meaning"), Some(&1024));
        // The method's Markdown carries the vector index, and the call still names it.
        let text = crate::design::markdown::write(&design);
        assert!(
            text.contains(
                "| by_meaning | embedding | 8 | COSINE | tenant (S, HASH), category (S) | INCLUDE title, category |"
            ),
            "{text}"
        );
        let (read_back, _) = read(&text).expect("reads back");
        assert!(read_back.unread.is_empty(), "{:?}", read_back.unread);
        assert_eq!(read_back.tables[0].vector_indexes, design.tables[0].vector_indexes);
        assert!(read_back.tables[0].indexes.is_empty(), "no GSI invented for the vector index");
        // A search without the schema's HASH attribute is refused before it runs, saying why.
        let mut missing = design.clone();
        missing.tables[0].calls.iter_mut().find(|c| c.id == "AP1").expect("AP1").key_condition = "TopK=3".into();
        let refused = prove_on(&engine, &missing).map(|c| c.workbook.patterns[0].no_call.clone());
        assert!(
            format!("{refused:?}").contains("needs `tenant=value`: its search schema's HASH attribute"),
            "{refused:?}"
        );
    }

    /// Every format the importers read opens as a workspace: a Terraform file, a Serverless
    /// service, a OneTable schema (the Design tab's "Open a design").
    #[cfg(all(feature = "yaml", feature = "hcl"))]
    #[test]
    fn every_format_opens_as_a_workspace() {
        for name in
            ["terraform-sessions.tf", "serverless-orders.yml", "onetable-crm.json", "cfn-conditions-stages.yaml"]
        {
            let text = std::fs::read_to_string(format!("{}/../../tests/designs/{name}", env!("CARGO_MANIFEST_DIR")))
                .expect(name);
            let imported = crate::workbook::import::import(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let (mut engine, _, _) =
                from_workbook(&imported.workbook, clock()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let tables = engine.execute_value("ListTables", &serde_json::json!({})).expect("lists");
            assert!(tables["TableNames"].as_array().is_some_and(|t| !t.is_empty()), "{name}: {tables}");
        }
    }

    /// A workspace larger than the binding sample proves on all its items: the calls' keys come
    /// from the first items, the Query counts every item of the collection it reads, and the note
    /// says how many items the keys were chosen among.
    #[test]
    fn a_large_workspace_binds_its_calls_on_a_sample_and_runs_them_on_every_item() {
        let (design, _) = read(include_str!("../../../../examples/orders-service.design.md")).expect("reads");
        let (engine, _) = engine_for(&design, clock()).expect("workspace");
        let held = engine.outline("orders-service").expect("table").totals.items;
        let whole = check_on(&prove_on(&engine, &design).expect("proves").workbook, engine.clone()).expect("checks");
        let sampled = prove_sampling(&engine, &design, held / 3).expect("proves");
        assert!(
            sampled.notes.iter().any(|n| n.contains(&format!("{} of {held} items of `orders-service`", held / 3))),
            "{:?}",
            sampled.notes
        );
        let checked = check_on(&sampled.workbook, engine.clone()).expect("checks");
        for (a, b) in whole.result.patterns.iter().zip(&checked.result.patterns) {
            assert_eq!(a.verdict, b.verdict, "{}", a.id);
            assert_eq!(a.operation, b.operation, "{}", a.id);
        }
    }

    /// Before its items are generated, a workspace's patterns say to generate them, never to add
    /// an entity the layout already has.
    #[test]
    fn a_workspace_before_its_items_are_generated_says_to_generate_them() {
        let (design, _) = read(include_str!("../../../../examples/orders-service.design.md")).expect("reads");
        let mut engine = Engine::new(clock());
        for create in &design.to_workbook().expect("workbook").workbook.tables {
            engine.execute_value("CreateTable", create).expect("created");
        }
        let proved = prove_on(&engine, &design).expect("proves");
        let said: Vec<&String> = proved.notes.iter().filter(|n| n.contains("holds no items yet")).collect();
        assert!(!said.is_empty(), "{:?}", proved.notes);
        assert!(said.iter().all(|n| n.contains("generate them from its entity layout (Generate items)")), "{said:?}");
        assert!(!proved.notes.iter().any(|n| n.contains("add the entity to the layout")), "{:?}", proved.notes);
    }
}
