//! Designs that carry no access patterns, in every format `dynalab check` reads, written for these
//! tests from each format's documentation (`tests/designs/patternless/`): each is reported, not
//! refused — what it holds, its declared capacity priced, proposed patterns — in every output
//! format, and proves nothing (exit 0). Also: parameter values for templates, mixed billing modes
//! side by side, plain JSON inside a Workbench `M`, and refusals that still write JSON.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn file(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/designs/patternless")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn check(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_dynalab")).arg("check").args(args).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = check(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"))
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.005
}

const FILES: [&str; 7] = [
    "skill-model-no-patterns.json",
    "workbench-fleet-autoscaled.json",
    "cfn-scalable-targets.yaml",
    "cfn-global-provisioned.json",
    "sam-simple-provisioned.yaml",
    "mcp-no-patterns.json",
    "workbook-no-patterns.json",
];

#[test]
fn every_format_without_patterns_is_reported_in_every_output_and_proves_nothing() {
    for name in FILES {
        let path = file(name);
        let (code, note, err) = check(&[&path]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(note.lines().next().is_some_and(|l| l.ends_with("— nothing proven")), "{name}: {note}");
        assert!(note.contains("## What the design holds") && note.contains("## Declared capacity"), "{name}: {note}");
        let report = json_of(&[&path, "--format", "json"]);
        assert_eq!(report["proven"], false, "{name}");
        assert!(
            report["summary"].as_str().is_some_and(|s| s.starts_with("nothing proven")),
            "{name}: {}",
            report["summary"]
        );
        let patterns = report["patterns"].as_array().expect("patterns");
        assert!(!patterns.is_empty(), "{name}: proposals for every design with a key");
        assert!(patterns.iter().all(|p| p["proposed"] == true && p["verdict"] == "pass"), "{name}: {patterns:?}");
        assert!(!report["inventory"]["tables"].as_array().expect("tables").is_empty(), "{name}");
        let validation = json_of(&[&path, "--format", "validation"]);
        assert_eq!(validation["proven"], false, "{name}");
        assert_eq!(validation["validation_response"].as_array().map(Vec::len), Some(patterns.len()), "{name}");
        assert_eq!(validation["inventory"], report["inventory"], "{name}");
        // The draft inventory to edit: the proposals, written into the workbook, read back the same.
        let workbook = json_of(&[&path, "--format", "workbook"]);
        assert_eq!(workbook["patterns"].as_array().map(Vec::len), Some(patterns.len()), "{name}");
        let dir = std::env::temp_dir().join(format!("dynalab-patternless-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let again = dir.join(format!("{name}.workbook.json"));
        std::fs::write(&again, workbook.to_string()).expect("write");
        let rechecked = json_of(&[&again.to_string_lossy(), "--format", "json"]);
        assert_eq!(rechecked["proven"], false, "{name}: proposals still prove nothing");
        assert_eq!(rechecked["declared"], report["declared"], "{name}: the declared capacity survives the workbook");
    }
}

#[test]
fn declared_capacity_is_priced_with_its_ranges_regions_and_assumptions() {
    // Workbench: quoted 1/1, auto scaled 1–50 / 1–20, the index takes the table's (said).
    // What the file declares (the table) is the figure; the index's assumed capacity is apart.
    let fleet = json_of(&[&file("workbench-fleet-autoscaled.json"), "--format", "json"])["declared"].clone();
    assert!(near(fleet["monthly"].as_f64().expect("monthly"), (0.00013 + 0.00065) * 730.0), "{fleet}");
    assert!(near(fleet["assumed_monthly"].as_f64().expect("assumed"), (0.00013 + 0.00065) * 730.0), "{fleet}");
    assert!(near(fleet["monthly_max"].as_f64().expect("max"), (50.0 * 0.00013 + 20.0 * 0.00065) * 730.0), "{fleet}");
    assert!(
        fleet["assumptions"]
            .as_array()
            .expect("list")
            .iter()
            .any(|a| a.as_str().is_some_and(|a| a.contains("Fleet/OpenTrips: declares no capacity of its own"))),
        "{fleet}"
    );
    // CloudFormation: no BillingMode (PROVISIONED, said), Application Auto Scaling targets on the table and its index.
    let orders = json_of(&[&file("cfn-scalable-targets.yaml"), "--format", "json"])["declared"].clone();
    let targets = orders["tables"][0]["targets"].as_array().expect("targets");
    assert_eq!(targets[0]["read_scaling"], json!({"min": 10, "max": 200}));
    assert_eq!(targets[0]["write_scaling"], json!({"min": 5, "max": 50}), "quoted capacities read");
    assert_eq!(targets[1]["target"], "OrdersTable/by-state");
    assert_eq!(targets[1]["read_scaling"], json!({"min": 10, "max": 100}));
    assert!(
        orders["tables"][0]["billing_assumed"].as_str().is_some_and(|b| b.contains("CloudFormation's default")),
        "{orders}"
    );
    // A global table: each replica by region with its own reads; writes alike in each.
    let sessions = json_of(&[&file("cfn-global-provisioned.json"), "--format", "json"])["declared"].clone();
    assert_eq!(sessions["tables"][0]["regions"], json!(["us-east-1", "eu-central-1"]));
    let replicas: Vec<(&str, u64, Value)> = sessions["tables"][0]["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|t| (t["region"].as_str().unwrap_or(""), t["read_units"].as_u64().unwrap_or(0), t["read_scaling"].clone()))
        .collect();
    assert_eq!(replicas, [("us-east-1", 40, Value::Null), ("eu-central-1", 80, json!({"min": 10, "max": 80}))]);
    // SAM: 20/10 provisioned; the other on demand, said.
    let sam = json_of(&[&file("sam-simple-provisioned.yaml"), "--format", "json"])["declared"].clone();
    assert!(near(sam["monthly"].as_f64().expect("monthly"), (20.0 * 0.00013 + 10.0 * 0.00065) * 730.0), "{sam}");
    let events =
        sam["tables"].as_array().expect("tables").iter().find(|t| t["table"] == "events").cloned().expect("events");
    assert_eq!(events["billing"], "on demand");
    assert!(events["billing_assumed"].as_str().is_some_and(|b| b.contains("as SAM deploys it")), "{events}");
    let note = check(&[&file("workbook-no-patterns.json")]).1;
    assert!(note.contains("**Declared capacity: $2.85 a month**"), "5 RCU / 5 WCU: {note}");
    assert!(note.contains("- Assumed: the free tier is not applied."), "{note}");
}

#[test]
fn a_compare_shows_each_designs_billing_mode_and_declared_cost() {
    let (code, table, err) = check(&[&file("workbook-no-patterns.json"), "--compare", &file("mcp-no-patterns.json")]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("| Billing mode | provisioned | on demand | |"), "{table}");
    assert!(
        table.contains("| Declared capacity per month (provisioned as declared) | $2.85 | — (on demand) | −$2.85 |"),
        "{table}"
    );
    assert!(table.contains("| Verdict | nothing proven (pass) | nothing proven (pass) | |"), "{table}");
    let (_, mixed, _) = check(&[&file("sam-simple-provisioned.yaml"), "--compare", &file("workbook-no-patterns.json")]);
    assert!(mixed.contains("| Billing mode | provisioned: counters; on demand: events | provisioned | |"), "{mixed}");
}

#[test]
fn plain_json_inside_a_workbench_map_is_read_and_every_bad_member_listed() {
    let (code, workbook, err) = check(&[&file("workbench-fleet-autoscaled.json"), "--format", "workbook"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("specs.M: plain JSON inside `M` (as NoSQL Workbench writes it), read as plain JSON"), "{err}");
    let workbook: Value = serde_json::from_str(&workbook).expect("JSON");
    let vehicle = workbook["fixtures"]["Fleet"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["sk"] == json!({"S": "META"}))
        .cloned()
        .expect("vehicle");
    assert_eq!(
        vehicle["specs"],
        json!({"M": {"make": {"S": "Volvo"}, "seats": {"N": "52"}, "electric": {"BOOL": true}, "tyres": {"NULL": true}}})
    );
    let text = std::fs::read_to_string(file("workbench-fleet-autoscaled.json")).expect("read");
    let broken = text.replacen(r#""stops": {"#, r#""stops": {"Q": 1, "#, 1).replacen(
        r#""status": {"#,
        r#""status": {"SX": "x", "#,
        1,
    );
    let path = temp("broken-workbench.json", &broken);
    let (code, _, err) = check(&[&path]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(".status: expected one type such as {\"S\": \"text\"}, found 2 members (`S`, `SX`)"), "{err}");
    assert!(err.contains(".stops: expected one type such as {\"S\": \"text\"}, found 2 members (`L`, `Q`)"), "{err}");
}

#[test]
fn template_parameters_take_values_and_are_fatal_only_where_they_shape_a_table() {
    let path = file("cfn-scalable-targets.yaml");
    let unnamed = json_of(&[&path, "--format", "json"]);
    assert_eq!(unnamed["inventory"]["tables"][0]["name"], "OrdersTable", "Stage has no value: the logical name");
    let named = json_of(&[&path, "--format", "json", "--parameter", "Stage=prod", "--parameter", "Reads=25"]);
    assert_eq!(named["inventory"]["tables"][0]["name"], "orders-prod");
    assert_eq!(named["declared"]["tables"][0]["targets"][0]["read_units"], 25, "a value before the Default");
    let (code, out, err) = check(&[&path, "--format", "json", "--parameter", "Colour=red"]);
    assert_eq!(code, 2, "{err}");
    let refused: Value = serde_json::from_str(&out).expect("a refusal still writes JSON");
    assert_eq!(refused["valid"], false);
    assert!(
        refused["problems"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("--parameter Colour: the template has no parameter")),
        "{refused}"
    );
    let text = std::fs::read_to_string(&path).expect("read");
    let shaping = temp("no-reads.yaml", &text.replacen("    Default: \"10\"\n", "", 1));
    let (code, out, err) = check(&[&shaping, "--format", "validation"]);
    assert_eq!(code, 2);
    assert!(err.contains("Properties.ProvisionedThroughput.ReadCapacityUnits: parameter `Reads` has no Default and no value given (--parameter Reads=VALUE)"), "{err}");
    let refused: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        refused["problems"][0]["path"],
        "Resources.OrdersTable.Properties.ProvisionedThroughput.ReadCapacityUnits"
    );
    let (code, _, err) = check(&[&shaping, "--parameter", "Reads=7"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_refused_design_still_writes_its_problems_in_every_json_format() {
    let path = temp(
        "bad.json",
        r#"{"format": "dynalab-workbook/1", "name": "x", "tables": [{"TableName": "t"}], "patterns": []}"#,
    );
    for format in ["json", "validation", "workbook"] {
        let (code, out, _) = check(&[&path, "--format", format]);
        assert_eq!(code, 2, "{format}");
        let refused: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{format}: {e}: {out}"));
        assert_eq!(refused["valid"], false, "{format}");
        assert!(
            refused["problems"][0]["path"].as_str().is_some_and(|p| p.starts_with("tables[0]")),
            "{format}: {refused}"
        );
    }
    let (code, out, _) = check(&[&path]);
    assert_eq!(code, 2);
    assert!(
        out.contains("— not checked") && out.contains("- tables[0] (t): ValidationException"),
        "the Markdown note says why: {out}"
    );
}

fn temp(name: &str, text: &str) -> String {
    let dir: PathBuf = std::env::temp_dir().join(format!("dynalab-patternless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.to_string_lossy().into_owned()
}
