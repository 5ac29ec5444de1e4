//! Round trips: each infrastructure file an export writes reads back (through the readers
//! `dynalab check` uses) as the same tables, keys, indexes, billing and declared capacity.

// Without the yaml and hcl features only the files are checked, not read back.
#![cfg_attr(not(all(feature = "yaml", feature = "hcl")), allow(unused_imports))]
use super::export;
use crate::workbook::import::import;
use crate::workbook::Workbook;
use serde_json::{json, Value};

/// What must survive an export: per table, its definition as DynamoDB sees it. `vectors`: whether
/// the file can hold vector indexes (main.tf cannot; without them, neither the attributes only
/// their search schemas name).
#[cfg(all(feature = "yaml", feature = "hcl"))]
fn shape(workbook: &Workbook, vectors: bool) -> Value {
    let mut tables: Vec<Value> = workbook
        .tables
        .iter()
        .map(|t| {
            let keyed = |name: &Value| {
                ["", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"].iter().any(|member| {
                    let schemas: Vec<&Value> = if member.is_empty() {
                        vec![&t["KeySchema"]]
                    } else {
                        t[*member].as_array().into_iter().flatten().map(|i| &i["KeySchema"]).collect()
                    };
                    schemas.iter().any(|s| s.as_array().into_iter().flatten().any(|k| &k["AttributeName"] == name))
                })
            };
            let mut definitions: Vec<Value> = t["AttributeDefinitions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| vectors || keyed(&d["AttributeName"]))
                .cloned()
                .collect();
            definitions.sort_by_key(ToString::to_string);
            let indexes = |member: &str| {
                let mut list: Vec<Value> = t[member]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|i| json!({"IndexName": i["IndexName"], "KeySchema": i["KeySchema"], "Projection": i["Projection"], "ProvisionedThroughput": i["ProvisionedThroughput"]}))
                    .collect();
                list.sort_by_key(|i| i["IndexName"].to_string());
                list
            };
            let billing = t["BillingMode"].as_str().unwrap_or(if t.get("ProvisionedThroughput").is_some() { "PROVISIONED" } else { "PAY_PER_REQUEST" });
            let ttl = workbook
                .setup
                .iter()
                .filter_map(|c| c.request.as_ref())
                .find(|r| r["TableName"] == t["TableName"] && r.get("TimeToLiveSpecification").is_some())
                .map(|r| r["TimeToLiveSpecification"]["AttributeName"].clone());
            json!({
                "TableName": t["TableName"], "KeySchema": t["KeySchema"], "AttributeDefinitions": definitions,
                "BillingMode": billing, "ProvisionedThroughput": t["ProvisionedThroughput"],
                "GlobalSecondaryIndexes": indexes("GlobalSecondaryIndexes"), "LocalSecondaryIndexes": indexes("LocalSecondaryIndexes"),
                "Stream": t["StreamSpecification"]["StreamViewType"], "TableClass": t["TableClass"],
                "DeletionProtectionEnabled": t["DeletionProtectionEnabled"], "Tags": t["Tags"], "TimeToLive": ttl,
                "VectorIndexes": if vectors { t["VectorIndexes"].clone() } else { Value::Null },
                "Scaling": workbook.capacity.get(t["TableName"].as_str().unwrap_or_default()).map(|d| json!({"read": d.read_scaling, "write": d.write_scaling,
                    "indexes": d.indexes.iter().filter(|(_, v)| v.read_scaling.is_some() || v.write_scaling.is_some())
                        .map(|(k, v)| (k.clone(), json!({"read": v.read_scaling, "write": v.write_scaling}))).collect::<serde_json::Map<_, _>>()}))
                    .filter(|s| s != &json!({"read": null, "write": null, "indexes": {}})),
            })
        })
        .collect();
    tables.sort_by_key(|t| t["TableName"].to_string());
    Value::Array(tables)
}

#[cfg(all(feature = "yaml", feature = "hcl"))]
fn designs() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut files = Vec::new();
    for folder in ["examples", "tests/designs"] {
        for entry in std::fs::read_dir(format!("{root}/{folder}")).expect("folder").filter_map(Result::ok) {
            let path = entry.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let readable = [".workbook.json", ".design.md", ".json", ".yaml", ".yml", ".tf", ".md"]
                .iter()
                .any(|e| name.ends_with(e));
            if path.is_file()
                && readable
                && !name.ends_with(".report.json")
                && !name.ends_with(".report.md")
                && name != "manifest.json"
                && name != "README.md"
            {
                files.push((name, std::fs::read_to_string(&path).expect("read")));
            }
        }
    }
    files.sort();
    files
}

#[cfg(all(feature = "yaml", feature = "hcl"))]
#[test]
fn every_infrastructure_file_reads_back_as_the_design() {
    let mut checked = 0;
    for (name, text) in designs() {
        let Ok(imported) = import(&text) else { continue };
        let exported = export(&imported.workbook);
        for file in ["cloudformation.yaml", "main.tf", "serverless.yml"] {
            let vectors = file != "main.tf";
            let (_, contents) = exported.files.iter().find(|(n, _)| n == file).expect(file);
            let again =
                import(contents).unwrap_or_else(|e| panic!("{name}: {file} does not read back: {e}\n{contents}"));
            assert_eq!(
                shape(&again.workbook, vectors),
                shape(&imported.workbook, vectors),
                "{name}: {file}\n{contents}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} designs exported");
}

#[test]
fn an_export_names_every_file_and_says_what_to_finish() {
    let text = include_str!("../../../../examples/orders-service.workbook.json");
    let imported = import(text).expect("imports");
    let exported = export(&imported.workbook);
    let names: Vec<&str> = exported.files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "cloudformation.yaml",
            "serverless.yml",
            "main.tf",
            "cdk/design-stack.ts",
            "cdk/app.ts",
            "cdk/cdk.json",
            "cdk/package.json",
            "fixture.json",
            "typescript/access.ts",
            "typescript/access.test.ts",
            "typescript/package.json",
            "python/access.py",
            "python/test_access.py",
            "python/requirements.txt",
            "README.md"
        ]
    );
    let stack = &exported.files[3].1;
    assert!(stack.contains("new dynamodb.TableV2(this, "), "{stack}");
    assert!(stack.contains("partitionKey: { name: "), "{stack}");
    let readme = &exported.files[14].1;
    assert!(readme.contains("`cloudformation.yaml`") && readme.contains("dynalab check main.tf"), "{readme}");
    for (name, contents) in &exported.files {
        assert!(!contents.contains("TODO") && !contents.contains("FIXME"), "{name} holds a placeholder");
    }
}

#[test]
fn a_vector_index_is_in_every_file_that_can_hold_it_and_named_where_it_is_not() {
    let text = include_str!("../../../../examples/semantic-search.workbook.json");
    let exported = export(&import(text).expect("imports").workbook);
    let file = |name: &str| &exported.files.iter().find(|(n, _)| n == name).expect(name).1;
    assert!(file("cloudformation.yaml").contains("VectorIndexes:"), "{}", file("cloudformation.yaml"));
    assert!(file("cdk/design-stack.ts").contains("Resource.vectorIndexes = ["), "{}", file("cdk/design-stack.ts"));
    // main.tf holds neither the index nor the attributes only its search schema names.
    let terraform = file("main.tf");
    assert!(!terraform.contains("\"tenant\"") && !terraform.contains("vector"), "{terraform}");
    assert!(
        exported
            .notes
            .iter()
            .any(|n| n.starts_with("main.tf: vector index `by_meaning` of table `help_articles` is not written")),
        "{:?}",
        exported.notes
    );
}
