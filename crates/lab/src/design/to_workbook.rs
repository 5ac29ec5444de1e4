//! A design made a workbook to prove: CreateTable requests from its keys and indexes, the fixture
//! from its layouts, one pattern per inventory row with the call its design note names. Every
//! fact the document lacked (a rate, a consistency, an item count) gets a stated default, and
//! every row that could not be made a call is said — that pattern then fails, it never passes.

use super::calls::{build, Fixture};
use super::fixture::Layout;
use super::{CallRow, Design, InventoryRow, Projection, TableDesign};
use crate::workbook::{Call, Consistency, Expect, KeyShare, Pattern, PatternKind, Workbook, FORMAT};
use serde_json::{json, Map, Value};

/// Units a provisioned table gets when its heading names none.
const DEFAULT_PROVISIONED: u64 = 5;

#[derive(Debug, Clone)]
pub struct Converted {
    pub workbook: Workbook,
    /// Defaults taken and rows left without a call.
    pub notes: Vec<String>,
}

/// One table ready for the calls: its design (keys, indexes, layout, note), how new items are
/// made, and the items the calls are bound against.
pub struct Bound {
    pub design: TableDesign,
    pub layout: Layout,
    pub items: Vec<(usize, Map<String, Value>)>,
}

impl Design {
    /// The workbook this document is: tables from its keys and indexes, the fixture generated
    /// from its layouts.
    pub fn to_workbook(&self) -> Result<Converted, String> {
        let mut notes = Vec::new();
        let mut creates = Vec::new();
        let mut bound = Vec::new();
        let (scale, scaled) = super::fixture::scale(&self.tables);
        notes.extend(scaled);
        for table in &self.tables {
            let layout = Layout::new(table, scale)?;
            let items = if table.items.is_empty() {
                layout.items()?
            } else {
                // The document's own items; the layout still shapes the new items a write makes.
                table.items.iter().map(|item| (usize::MAX, item.clone())).collect()
            };
            if !layout.defaults.is_empty() {
                notes.push(format!(
                    "table `{}`: item counts not given, defaults used: {}",
                    table.name,
                    layout.defaults.join("; ")
                ));
            }
            let create = create_table(table, &mut notes);
            let items = admitted(&create, table, items, &mut notes);
            creates.push(create);
            bound.push(Bound { design: table.clone(), layout, items });
        }
        let mut converted = self.prove_with(creates, &bound);
        for table in &bound {
            if !table.items.is_empty() {
                converted.workbook.fixtures.insert(
                    table.design.name.clone(),
                    Value::Array(table.items.iter().map(|(_, item)| Value::Object(item.clone())).collect()),
                );
            }
        }
        converted.workbook.scale = scale as f64;
        notes.append(&mut converted.notes);
        converted.notes = notes;
        Ok(converted)
    }

    /// The workbook of this design's inventory with its calls bound on `tables`' items (a
    /// document's generated fixture, or a workspace's own items), without a fixture: the caller
    /// adds one, or runs it where the items already are.
    pub fn prove_with(&self, creates: Vec<Value>, tables: &[Bound]) -> Converted {
        let mut notes = Vec::new();
        let layouts = tables;
        let designs: Vec<&TableDesign> = tables.iter().map(|t| &t.design).collect();
        let mut patterns = Vec::new();
        let mut missing_rates = Vec::new();
        let mut missing_consistency = Vec::new();
        for row in &self.inventory {
            let noted = call_from_notes(&designs, &row.id);
            let call = designs
                .iter()
                .enumerate()
                .find_map(|(t, table)| table.calls.iter().find(|c| c.id == row.id).map(|c| (t, c)))
                .or_else(|| {
                    let (t, call, entity) = noted.as_ref()?;
                    notes.push(format!(
                        "pattern {} has no row in a design note: its call is taken from the layout's notes on {entity}: {} {}",
                        row.id, call.operation, call.key_condition
                    ));
                    Some((*t, call))
                });
            if row.peak_rps.is_none() {
                missing_rates.push(row.id.clone());
            }
            if row.consistency.is_none() {
                missing_consistency.push(row.id.clone());
            }
            let made = match call {
                Some((t, call)) => {
                    self.request(t, call, Some(row), &layouts).map_err(|e| format!("its call could not be made: {e}"))
                }
                None => Err("it has no row in a design note".to_string()),
            };
            if let Err(why) = &made {
                notes.push(format!("pattern {} ({}): {why}; it fails", row.id, row.pattern));
            }
            let shown = call.map(|(_, c)| format!("{} {}", c.operation, c.key_condition));
            patterns.push(self.unproven(pattern(row, made), shown));
        }
        for (t, table) in designs.iter().enumerate() {
            for call in table.calls.iter().filter(|c| !self.inventory.iter().any(|r| r.id == c.id)) {
                let row = InventoryRow {
                    id: call.id.clone(),
                    pattern: call.pattern.clone(),
                    kind: if call.operation.contains("Get") || call.operation == "Query" || call.operation == "Scan" {
                        PatternKind::Read
                    } else {
                        PatternKind::Write
                    },
                    key_inputs: String::new(),
                    sort_filter: String::new(),
                    peak_rps: None,
                    avg_rps: None,
                    consistency: None,
                };
                if !self.inventory.is_empty() {
                    notes.push(format!(
                        "pattern {} is in the design note of `{}` but not in the inventory",
                        call.id, table.name
                    ));
                }
                missing_rates.push(row.id.clone());
                let made =
                    self.request(t, call, None, &layouts).map_err(|e| format!("its call could not be made: {e}"));
                if let Err(why) = &made {
                    notes.push(format!("pattern {}: {why}; it fails", row.id));
                }
                let shown = Some(format!("{} {}", call.operation, call.key_condition));
                patterns.push(self.unproven(pattern(&row, made), shown));
            }
        }
        if !missing_rates.is_empty() {
            notes.push(format!("no peak rate for pattern {}: 1 request/s assumed", missing_rates.join(", ")));
        }
        if !missing_consistency.is_empty() {
            notes.push(format!("no consistency for pattern {}: eventual assumed", missing_consistency.join(", ")));
        }
        let workbook = Workbook {
            format: FORMAT.into(),
            name: self.name.clone(),
            description: self.description.clone(),
            region: "us-east-1".into(),
            scale: 1.0,
            // Item collections are generated at their production size; only their number scales.
            collection_scale: Some(1.0),
            max_fan_out: None,
            replicas: Default::default(),
            tables: creates,
            fixtures: Map::new(),
            setup: Vec::new(),
            patterns,
            facets: Vec::new(),
            capacity: Default::default(),
        };
        Converted { workbook, notes }
    }

    /// `pattern`, not proven when a cell it depends on could not be read: the call made anyway (the
    /// one proposed instead) runs and is reported, and the pattern fails saying why.
    fn unproven(&self, mut pattern: Pattern, shown: Option<String>) -> Pattern {
        let why: Vec<String> = self
            .unread
            .iter()
            .filter(|u| u.patterns.contains(&pattern.id))
            .map(|u| format!("{}: {}", u.at, u.problem))
            .collect();
        if why.is_empty() {
            return pattern;
        }
        let why = format!("not proven: {}", why.join("; "));
        match (&pattern.no_call, pattern.requests.is_empty()) {
            (Some(no_call), _) => {
                pattern.no_call = Some(format!("{why}; no call could be proposed instead ({no_call})"))
            }
            (None, true) => pattern.no_call = Some(format!("{why}; no call was proposed instead")),
            (None, false) => {
                let call = shown.filter(|c| !c.trim().is_empty()).unwrap_or_else(|| "the call made".into());
                pattern.unproven = Some(format!("{why}; the call proposed instead, run and reported: {}", call.trim()));
            }
        }
        pattern
    }

    fn request(
        &self,
        table: usize,
        call: &CallRow,
        row: Option<&InventoryRow>,
        layouts: &[Bound],
    ) -> Result<Call, String> {
        let bound = &layouts[table];
        let fixture = Fixture { table: &bound.design, layout: &bound.layout, items: &bound.items };
        let strong = row.is_some_and(|r| r.consistency == Some(Consistency::Strong));
        let defaults = if call.operation == "Query" { row.map(sort_options).unwrap_or_default() } else { Vec::new() };
        let built = build(&fixture, &call.operation, &call.key_condition, call.index.as_deref(), strong, &defaults)?;
        Ok(Call { operation: Some(built.operation), request: Some(built.request), cli: None })
    }
}

/// The generated items DynamoDB would take: each is put into a scratch table made as the design
/// makes it, and an entity whose items it refuses (a key the layout leaves out, a number key of
/// text) is left out of the fixture, said with DynamoDB's reason. A document that generates
/// items its own table refuses is still read; the patterns on them then fail, saying why.
fn admitted(
    create: &Value,
    table: &TableDesign,
    items: Vec<(usize, Map<String, Value>)>,
    notes: &mut Vec<String>,
) -> Vec<(usize, Map<String, Value>)> {
    let mut engine = dynalab_engine::Engine::new(std::sync::Arc::new(dynalab_engine::FixedClock::at(0)));
    if engine.execute_value("CreateTable", create).is_err() {
        // The plan refuses the table itself, naming why.
        return items;
    }
    let name = &table.name;
    let mut refused: Vec<(usize, usize, String)> = Vec::new();
    let mut kept = Vec::with_capacity(items.len());
    for (entity, item) in items {
        if refused.iter().any(|(e, _, _)| *e == entity) {
            refused.iter_mut().filter(|(e, _, _)| *e == entity).for_each(|r| r.1 += 1);
            continue;
        }
        match engine.execute_value("PutItem", &json!({"TableName": name, "Item": item})) {
            Ok(_) => kept.push((entity, item)),
            Err(error) => refused.push((entity, 1, format!("{}: {}", error.kind.name(), error.message))),
        }
    }
    kept.retain(|(entity, _)| !refused.iter().any(|(e, _, _)| e == entity));
    for (entity, _, why) in refused {
        let entity_name = table.entities.get(entity).map_or("?", |e| e.name.as_str());
        notes.push(format!("table `{name}`: the items of entity `{entity_name}` are left out of the fixture: DynamoDB refuses them ({why})"));
    }
    kept
}

/// A call an entity's Notes name (`pattern 1 via GetItem`, `pattern 2 via Query, begins_with
/// ORDER#`): a GetItem of that entity's key, or a Query of its item collection. With the table
/// and the entity it came from.
fn call_from_notes(tables: &[&TableDesign], id: &str) -> Option<(usize, CallRow, String)> {
    for (t, table) in tables.iter().enumerate() {
        let mentions = |notes: &str| {
            let lower = notes.to_ascii_lowercase();
            lower
                .match_indices(&format!("pattern {id}"))
                .any(|(at, found)| !lower[at + found.len()..].starts_with(|c: char| c.is_ascii_digit()))
        };
        let named: Vec<&super::Entity> = table.entities.iter().filter(|e| mentions(&e.notes)).collect();
        let Some(first) = named.first() else { continue };
        let partition = first.template(&table.partition_key.name)?;
        let lower = first.notes.to_ascii_lowercase();
        let sort = table.sort_key.as_ref().and_then(|k| first.template(&k.name).map(|t| (k, t)));
        let key_condition = if lower.contains("getitem") {
            let mut key = format!("{}={partition}", table.partition_key.name);
            if let Some((attribute, template)) = sort {
                key.push_str(&format!(", {}={template}", attribute.name));
            }
            (key, "GetItem")
        } else if lower.contains("query") || named.len() > 1 {
            // Several entities of one collection named for one pattern: the Query of it.
            let mut key = format!("{}={partition}", table.partition_key.name);
            let prefix = first.notes.split("begins_with").nth(1).and_then(|rest| rest.split_whitespace().next());
            if let (Some(prefix), Some((attribute, _))) = (prefix, sort) {
                let prefix = prefix.trim_matches(|c: char| c == ',' || c == '\'' || c == '`' || c == '(' || c == ')');
                key.push_str(&format!(" AND begins_with({}, '{prefix}')", attribute.name));
            }
            (key, "Query")
        } else {
            continue;
        };
        let call = CallRow {
            id: id.to_string(),
            pattern: String::new(),
            operation: key_condition.1.to_string(),
            key_condition: key_condition.0,
            index: None,
        };
        return Some((t, call, first.name.clone()));
    }
    None
}

/// The inventory's Sort/filter as options: `createdAt desc, page 20` → newest first, 20 a page.
fn sort_options(row: &InventoryRow) -> Vec<(String, String)> {
    let mut options = Vec::new();
    let words: Vec<String> =
        row.sort_filter.split([',', ' ']).filter(|w| !w.is_empty()).map(str::to_ascii_lowercase).collect();
    if words.iter().any(|w| w == "desc" || w == "newest" || w == "descending") {
        options.push(("ScanIndexForward".into(), "false".into()));
    }
    for pair in words.windows(2) {
        if matches!(pair[0].as_str(), "page" | "limit" | "top" | "first")
            && pair[1].parse::<u64>().is_ok_and(|n| n >= 1)
        {
            options.push(("Limit".into(), pair[1].clone()));
        }
    }
    options
}

fn pattern(row: &InventoryRow, call: Result<Call, String>) -> Pattern {
    let (requests, no_call) = match call {
        Ok(call) => (vec![call], None),
        Err(why) => (Vec::new(), Some(why)),
    };
    Pattern {
        id: row.id.clone(),
        description: row.pattern.clone(),
        kind: row.kind,
        peak_rps: row.peak_rps.unwrap_or(1.0),
        avg_rps: row.avg_rps.filter(|a| *a <= row.peak_rps.unwrap_or(1.0)),
        consistency: row.consistency.unwrap_or(Consistency::Eventual),
        scope: None,
        busiest_key_share: KeyShare::default(),
        retention_days: None,
        requests,
        parameters: Map::new(),
        expect: Expect::default(),
        proposed: false,
        no_call,
        unproven: None,
    }
}

fn create_table(table: &TableDesign, notes: &mut Vec<String>) -> Value {
    let definitions: Vec<Value> =
        table.key_attributes().into_iter().map(|k| json!({"AttributeName": k.name, "AttributeType": k.kind})).collect();
    let schema = |partition: &str, sort: Option<&str>| {
        let mut schema = vec![json!({"AttributeName": partition, "KeyType": "HASH"})];
        if let Some(sort) = sort {
            schema.push(json!({"AttributeName": sort, "KeyType": "RANGE"}));
        }
        Value::Array(schema)
    };
    let mut request = json!({
        "TableName": table.name,
        "AttributeDefinitions": definitions,
        "KeySchema": schema(&table.partition_key.name, table.sort_key.as_ref().map(|k| k.name.as_str())),
    });
    let throughput = if table.on_demand() {
        request["BillingMode"] = json!("PAY_PER_REQUEST");
        None
    } else {
        let (read, write) = provisioned_units(&table.settings);
        if read.is_none() || write.is_none() {
            notes.push(format!(
                "table `{}` is provisioned without RCU and WCU in its heading: {DEFAULT_PROVISIONED} each assumed",
                table.name
            ));
        }
        let units = json!({"ReadCapacityUnits": read.unwrap_or(DEFAULT_PROVISIONED), "WriteCapacityUnits": write.unwrap_or(DEFAULT_PROVISIONED)});
        request["BillingMode"] = json!("PROVISIONED");
        request["ProvisionedThroughput"] = units.clone();
        Some(units)
    };
    let projection = |p: &Projection| match p {
        Projection::All => json!({"ProjectionType": "ALL"}),
        Projection::KeysOnly => json!({"ProjectionType": "KEYS_ONLY"}),
        Projection::Include(names) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": names}),
    };
    let (mut global, mut local) = (Vec::new(), Vec::new());
    for index in &table.indexes {
        let mut entry = json!({
            "IndexName": index.name,
            "KeySchema": schema(&index.partition_key.name, index.sort_key.as_ref().map(|k| k.name.as_str())),
            "Projection": projection(&index.projection),
        });
        if index.local {
            local.push(entry);
        } else {
            if let Some(units) = &throughput {
                entry["ProvisionedThroughput"] = units.clone();
            }
            global.push(entry);
        }
    }
    if !global.is_empty() {
        request["GlobalSecondaryIndexes"] = Value::Array(global);
    }
    if !local.is_empty() {
        request["LocalSecondaryIndexes"] = Value::Array(local);
    }
    if !table.vector_indexes.is_empty() {
        let mut definitions = request["AttributeDefinitions"].as_array().cloned().unwrap_or_default();
        let mut vector_indexes = Vec::new();
        for index in &table.vector_indexes {
            let mut schema = Vec::new();
            for (filter, role) in index
                .hash_filter
                .iter()
                .map(|f| (f, "HASH"))
                .chain(index.inline_filters.iter().map(|f| (f, "INLINE_FILTER")))
            {
                if !definitions.iter().any(|d| d["AttributeName"] == filter.name.as_str()) {
                    definitions.push(json!({"AttributeName": filter.name, "AttributeType": filter.kind}));
                }
                schema.push(json!({"AttributeName": filter.name, "SearchSchemaElementType": role}));
            }
            let mut entry = json!({
                "IndexName": index.name,
                "VectorAttribute": {"AttributeName": index.attribute},
                "Dimensions": index.dimensions,
                "DistanceFunction": index.distance,
                "Projection": projection(&index.projection),
            });
            if !schema.is_empty() {
                entry["SearchSchema"] = Value::Array(schema);
            }
            vector_indexes.push(entry);
        }
        request["AttributeDefinitions"] = Value::Array(definitions);
        request["VectorIndexes"] = Value::Array(vector_indexes);
    }
    request
}

/// `provisioned 100 RCU / 50 WCU` → (100, 50).
fn provisioned_units(settings: &str) -> (Option<u64>, Option<u64>) {
    let words: Vec<&str> = settings.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let before = |unit: &str| {
        words
            .windows(2)
            .find(|w| w[1].eq_ignore_ascii_case(unit))
            .and_then(|w| w[0].parse::<u64>().ok())
            .filter(|n| *n >= 1)
    };
    (before("RCU"), before("WCU"))
}
