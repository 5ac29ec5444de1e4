//! A design as the files a team deploys — `dynalab export`, the Design tab's download and the MCP
//! tool alike: `cloudformation.yaml`, `serverless.yml`, a Terraform `main.tf` and a CDK stack in
//! TypeScript, each holding the tables, keys, indexes and projections, billing and declared
//! capacity (with its auto scaling ranges), time to live, streams, deletion protection, class and
//! tags the design holds, and a `README.md` saying what each file is. The files are written from
//! the workbook any design becomes, so every format Dynalab reads exports the same way, and each
//! infrastructure file reads back (`dynalab check`) as the same tables.

mod access;
mod cdk;
mod cloudformation;
mod readme;
mod terraform;
mod yaml;
mod zip;

use crate::workbook::declared::Declared;
use crate::workbook::Workbook;
use serde_json::{Map, Value};

pub use yaml::to_yaml;
pub use zip::zip;

/// The files of an export (name, contents), and what the formats could not carry.
#[derive(Debug, Clone)]
pub struct Exported {
    pub files: Vec<(String, String)>,
    pub notes: Vec<String>,
}

/// One table as every format needs it: its CreateTable request, its time to live, its declared
/// auto scaling, its regions.
pub(crate) struct TableExport<'a> {
    pub create: &'a Map<String, Value>,
    pub name: String,
    pub time_to_live: Option<String>,
    pub declared: Option<&'a Declared>,
    pub regions: u32,
}

impl TableExport<'_> {
    pub fn billing(&self) -> &str {
        self.create.get("BillingMode").and_then(Value::as_str).unwrap_or(
            if self.create.contains_key("ProvisionedThroughput") { "PROVISIONED" } else { "PAY_PER_REQUEST" },
        )
    }

    pub fn key(&self, kind: &str) -> Vec<String> {
        key_names(self.create.get("KeySchema"), kind)
    }

    pub fn attribute_type(&self, name: &str) -> String {
        self.create
            .get("AttributeDefinitions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|d| d["AttributeName"] == name)
            .and_then(|d| d["AttributeType"].as_str())
            .unwrap_or("S")
            .to_string()
    }

    pub fn indexes(&self, member: &str) -> Vec<&Map<String, Value>> {
        self.create.get(member).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object).collect()
    }

    pub fn stream_view(&self) -> Option<&str> {
        let stream = self.create.get("StreamSpecification")?;
        (stream.get("StreamEnabled").and_then(Value::as_bool) != Some(false))
            .then(|| stream.get("StreamViewType")?.as_str())?
    }
}

pub(crate) fn key_names(schema: Option<&Value>, kind: &str) -> Vec<String> {
    schema
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|k| k["KeyType"] == kind)
        .filter_map(|k| k["AttributeName"].as_str().map(String::from))
        .collect()
}

/// `orders-service` → `OrdersService` (CloudFormation logical ids, CDK construct ids).
pub(crate) fn pascal(name: &str) -> String {
    let mut out = String::new();
    for word in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) || out.is_empty() {
        out.insert(0, 'T');
    }
    out
}

/// `orders-service` → `orders_service` (Terraform labels and variables).
pub(crate) fn snake(name: &str) -> String {
    let mut out: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) || out.is_empty() {
        out.insert(0, 't');
    }
    out
}

/// Every file of the export of `workbook`.
pub fn export(workbook: &Workbook) -> Exported {
    let items = fixture_items(workbook);
    if items > MAX_FIXTURE_ITEMS {
        return infrastructure_only(workbook, &too_many_items(items));
    }
    files(workbook, None)
}

/// The access code's tests load the whole fixture: past this many items `fixture.json` would be
/// too large to ship beside them (and to build in a browser tab), so only the infrastructure is written.
pub const MAX_FIXTURE_ITEMS: usize = 50_000;

/// Why a design of `items` items exports no access code.
pub fn too_many_items(items: usize) -> String {
    format!(
        "no access code was written: the design holds {} items, more than the {} its tests' fixture.json carries; export a design with a smaller fixture for the code",
        crate::numbers::thousands(items as u64),
        crate::numbers::thousands(MAX_FIXTURE_ITEMS as u64)
    )
}

fn fixture_items(workbook: &Workbook) -> usize {
    workbook.fixtures.values().map(|items| items.as_array().map_or(0, Vec::len)).sum()
}

/// The infrastructure files of `workbook` and its README, which says why there is no access code.
pub fn infrastructure_only(workbook: &Workbook, why_no_code: &str) -> Exported {
    files(workbook, Some(why_no_code))
}

fn files(workbook: &Workbook, why_no_code: Option<&str>) -> Exported {
    let mut notes = Vec::new();
    let tables: Vec<TableExport<'_>> = workbook
        .tables
        .iter()
        .filter_map(Value::as_object)
        .map(|create| {
            let name = create.get("TableName").and_then(Value::as_str).unwrap_or("table").to_string();
            let time_to_live = workbook
                .setup
                .iter()
                .filter(|c| c.operation.as_deref() == Some("UpdateTimeToLive"))
                .filter_map(|c| c.request.as_ref())
                .find(|r| r["TableName"] == name.as_str())
                .and_then(|r| r["TimeToLiveSpecification"]["AttributeName"].as_str().map(String::from));
            let regions = workbook.replicas.get(&name).copied().unwrap_or(1);
            TableExport { create, declared: workbook.capacity.get(&name), time_to_live, regions, name }
        })
        .collect();
    for table in tables.iter().filter(|t| t.regions > 1) {
        notes.push(format!(
            "table `{}` is replicated in {} regions: each file declares it once, in the region it is deployed to; add the replicas (a GlobalTable, `replica` blocks, `replicationRegions`) for the others",
            table.name, table.regions
        ));
    }
    let template = cloudformation::template(workbook, &tables, &mut notes);
    let mut files = vec![
        ("cloudformation.yaml".to_string(), cloudformation::yaml(workbook, &template)),
        ("serverless.yml".to_string(), cloudformation::serverless(workbook, &template)),
        ("main.tf".to_string(), terraform::main_tf(workbook, &tables, &mut notes)),
    ];
    files.extend(cdk::files(workbook, &tables));
    let code = match why_no_code {
        Some(why) => {
            notes.push(why.to_string());
            Vec::new()
        }
        None => access_code(workbook, &mut notes),
    };
    let has_code = !code.is_empty();
    files.extend(code);
    files.push(("README.md".to_string(), readme::readme(workbook, &tables, has_code, &notes)));
    Exported { files, notes }
}

/// The lab clock's time when the proof behind the access code runs (2026-01-01T00:00:00Z); the
/// generated TypeScript test starts its engine at the same time (`fixture.json`).
const PROOF_TIME: u64 = 1_767_225_600_000;

/// `fixture.json`, `typescript/` and `python/`, from the design's proof: nothing when the design
/// has no pattern or its patterns cannot be planned (said in `notes`).
fn access_code(workbook: &Workbook, notes: &mut Vec<String>) -> Vec<(String, String)> {
    if workbook.patterns.is_empty() {
        notes.push(
            "the design has no access patterns yet: no access code was written (add the patterns, then export again)"
                .into(),
        );
        return Vec::new();
    }
    let clock = std::sync::Arc::new(dynalab_engine::FixedClock::at(PROOF_TIME));
    let checked = match crate::workbook::check::check(workbook, clock) {
        Ok(checked) => checked,
        Err(problems) => {
            notes.push(format!(
                "no access code was written: the patterns could not be proven ({})",
                problems.0.join("; ")
            ));
            return Vec::new();
        }
    };
    let model = access::access(workbook, &checked, notes);
    if model.functions.is_empty() {
        return Vec::new();
    }
    let mut files = vec![("fixture.json".to_string(), access::fixture(&checked, PROOF_TIME))];
    files.extend(access::typescript::files(&model));
    files.extend(access::python::files(&model));
    files
}

#[cfg(test)]
mod tests;
