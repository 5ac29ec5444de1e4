//! `dynalab check`: every shipped example against its golden Markdown and JSON reports (set
//! UPDATE_GOLDEN=1 to rewrite them after an intended change), exit codes, and invalid input.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn check(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_dynalab")).arg("check").args(args).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn every_example_matches_its_golden_reports() {
    let mut workbooks: Vec<PathBuf> = std::fs::read_dir(examples())
        .expect("examples/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".workbook.json"))
        .collect();
    workbooks.sort();
    assert!(workbooks.len() >= 4, "{workbooks:?}");
    let mut mismatches = Vec::new();
    for workbook in &workbooks {
        let stem = workbook.to_string_lossy().trim_end_matches(".workbook.json").to_string();
        for (format, extension) in [("md", "report.md"), ("json", "report.json")] {
            let (code, report, stderr) = check(&[&workbook.to_string_lossy(), "--format", format]);
            assert!(code == 0 || code == 1, "{}: exit {code}: {stderr}", workbook.display());
            let golden = PathBuf::from(format!("{stem}.{extension}"));
            if std::env::var_os("UPDATE_GOLDEN").is_some() {
                std::fs::write(&golden, &report).expect("golden written");
            } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(report.as_str()) {
                mismatches.push(golden.display().to_string());
            }
        }
    }
    assert!(mismatches.is_empty(), "reports differ from their goldens (UPDATE_GOLDEN=1 rewrites them): {mismatches:?}");
}

#[test]
fn the_exit_code_is_the_verdict() {
    let (code, _, _) = check(&[&examples().join("orders-service.workbook.json").to_string_lossy()]);
    assert_eq!(code, 0);
    let (code, report, stderr) = check(&[&examples().join("hot-counter.workbook.json").to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(report.contains("shard the key 7 ways"), "{report}");
    assert!(stderr.contains("dynalab: 1 failed: C1"), "{stderr}");
    let (code, _, _) = check(&[&examples().join("hot-counter-sharded.workbook.json").to_string_lossy()]);
    assert_eq!(code, 0, "the same design, write-sharded, passes");
}

#[test]
fn an_invalid_workbook_exits_2_naming_the_field() {
    let dir = std::env::temp_dir().join(format!("dynalab-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.workbook.json");
    let mut workbook: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(examples().join("hot-counter.workbook.json")).expect("read"))
            .expect("json");
    workbook["patterns"][1]["consistency"] = serde_json::json!("linearizable");
    std::fs::write(&bad, workbook.to_string()).expect("write");
    let (code, _, stderr) = check(&[&bad.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`linearizable` is not one of eventual, strong, transactional"), "{stderr}");
    let (code, _, stderr) = check(&[&dir.join("missing.json").to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("invalid design, nothing was checked"), "{stderr}");
    let out = dir.join("report.md");
    let (code, stdout, _) =
        check(&[&examples().join("orders-service.workbook.json").to_string_lossy(), "--out", &out.to_string_lossy()]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    let note = std::fs::read_to_string(&out).expect("report");
    assert!(note.starts_with("# Design check: Orders service"));
    for picture in ["report.keys.svg", "report.cost.svg"] {
        assert!(note.contains(&format!("]({picture})")), "the note links {picture}");
        let svg = std::fs::read_to_string(dir.join(picture)).expect("the picture is written beside the note");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }
    assert!(!dir.join("report.collections.svg").exists(), "no LSI, no collection picture");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_example_is_valid_against_the_published_schema() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/workbook.schema.json");
    let script = "import json, sys, jsonschema\nschema = json.load(open(sys.argv[1]))\njsonschema.Draft202012Validator.check_schema(schema)\nfor path in sys.argv[2:]:\n    jsonschema.validate(json.load(open(path)), schema, cls=jsonschema.Draft202012Validator)\n    print('valid', path)\n";
    let mut workbooks: Vec<String> = std::fs::read_dir(examples())
        .expect("examples/")
        .flatten()
        .map(|e| e.path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".workbook.json"))
        .collect();
    workbooks.sort();
    // What the importers make of a design is a workbook too.
    let dir = std::env::temp_dir().join(format!("dynalab-converted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for design in ["dynamodb_data_model.json", "design-cost-model.json"] {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/imports").join(design);
        let converted = dir.join(design);
        let (code, _, stderr) =
            check(&[&source.to_string_lossy(), "--format", "workbook", "--out", &converted.to_string_lossy()]);
        assert_eq!(code, 0, "{stderr}");
        let (code, _, _) = check(&[&converted.to_string_lossy(), "--format", "json"]);
        assert_eq!(code, i32::from(design.starts_with("design")), "the converted workbook checks as its source does");
        workbooks.push(converted.to_string_lossy().into_owned());
    }
    // And the draft inventories of designs without patterns: proposals, facets, declared capacity.
    for design in ["workbench-fleet-autoscaled.json", "cfn-global-provisioned.json", "cfn-scalable-targets.yaml"] {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/designs/patternless").join(design);
        let converted = dir.join(format!("{design}.workbook.json"));
        let (code, _, stderr) =
            check(&[&source.to_string_lossy(), "--format", "workbook", "--out", &converted.to_string_lossy()]);
        assert_eq!(code, 0, "{stderr}");
        workbooks.push(converted.to_string_lossy().into_owned());
    }
    let output = Command::new("python3").args(["-c", script]).arg(&schema).args(&workbooks).output().expect("python3");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), workbooks.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Verdicts per pattern from a JSON report.
fn verdicts(report: &str) -> Vec<(String, String)> {
    let report: serde_json::Value = serde_json::from_str(report).expect("JSON report");
    report["patterns"]
        .as_array()
        .expect("patterns")
        .iter()
        .map(|p| {
            (p["id"].as_str().unwrap_or_default().to_string(), p["verdict"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn the_examples_get_the_same_verdicts_from_dynamodb_local_over_sigv4() {
    let local = dynalab_tests::dynamodb_local::DynamoDbLocal::start().expect("DynamoDB Local");
    let endpoint = format!("http://127.0.0.1:{}", local.port);
    let designs = [
        "orders-service.workbook.json",
        "task-board.workbook.json",
        "hot-counter.workbook.json",
        "hot-counter-sharded.workbook.json",
        "orders-service.design.md",
    ];
    for example in designs {
        let workbook = examples().join(example);
        let (_, in_lab, _) = check(&[&workbook.to_string_lossy(), "--format", "json"]);
        let output = Command::new(env!("CARGO_BIN_EXE_dynalab"))
            .args(["check", &workbook.to_string_lossy(), "--format", "json", "--endpoint", &endpoint])
            .env("AWS_ACCESS_KEY_ID", "dynalabcheck")
            .env("AWS_SECRET_ACCESS_KEY", "lab")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(matches!(output.status.code(), Some(0 | 1)), "{example}: {stderr}");
        assert_eq!(verdicts(&String::from_utf8_lossy(&output.stdout)), verdicts(&in_lab), "{example}: {stderr}");
    }
    // The tables it made are gone, and a table that was already there is never touched.
    let listed = dynalab_tests::http::call(local.port, "dynalabcheck", "ListTables", "{}").expect("list");
    assert_eq!(listed.body, serde_json::json!({"TableNames": []}));
    let create = r#"{"TableName":"counters","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    dynalab_tests::http::call(local.port, "dynalabcheck", "CreateTable", create).expect("create");
    let output = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["check", &examples().join("hot-counter.workbook.json").to_string_lossy(), "--endpoint", &endpoint])
        .env("AWS_ACCESS_KEY_ID", "dynalabcheck")
        .env("AWS_SECRET_ACCESS_KEY", "lab")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("table `counters` already exists"));
}

#[test]
fn an_mcp_data_model_is_checked_as_is_and_its_validation_record_written() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/imports/dynamodb_data_model.json");
    let (code, report, stderr) = check(&[&model.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("as a DynamoDB MCP server data model"), "{stderr}");
    assert!(
        stderr.contains("pattern 4 (Search products by text) not imported: Full-text search belongs in OpenSearch"),
        "{stderr}"
    );
    assert!(report.contains("| AP2-3 | Customer orders | Query |"), "{report}");
    let (code, record, _) = check(&[&model.to_string_lossy(), "--format", "validation"]);
    assert_eq!(code, 0);
    let record: serde_json::Value = serde_json::from_str(&record).expect("JSON");
    // The AWS DynamoDB MCP server's dynamodb_model_validation.json shape.
    let first = &record["validation_response"][0];
    assert_eq!(first["pattern_id"], "AP1");
    assert_eq!(first["dynamodb_operation"], "GetItem");
    assert!(first["command"].as_str().is_some_and(|c| c.starts_with("aws dynamodb get-item")), "{first}");
    assert_eq!(first["response"]["Item"]["pk"], serde_json::json!({"S": "CUST#1"}));
    assert!(first["response"].get("ConsumedCapacity").is_none(), "only what the command asked for");
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/imports/cloudformation-template.json");
    let (code, report, stderr) = check(&[&template.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(report.lines().next().is_some_and(|l| l.ends_with("— nothing proven")), "{report}");
}

#[test]
fn a_yaml_cloudformation_template_is_read_with_its_short_form_tags() {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/imports/cloudformation-template.yaml");
    let (code, report, stderr) = check(&[&template.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(report.starts_with("# Design check: CloudFormation template — nothing proven"), "{report}");
    assert!(stderr.contains("Resources.OrdersTable.Properties.PointInTimeRecoverySpecification: left out"), "{stderr}");
    assert!(stderr.contains("left out: 1 AWS::SQS::Queue resource"), "{stderr}");
    // The workbook to start from: the Stage parameter's default names the table.
    let (code, workbook, stderr) = check(&[&template.to_string_lossy(), "--format", "workbook"]);
    assert_eq!(code, 0, "{stderr}");
    let workbook: serde_json::Value = serde_json::from_str(&workbook).expect("JSON");
    assert_eq!(workbook["tables"][0]["TableName"], "orders-dev");
    // The draft inventory: proposals on the table's keys, to confirm.
    let patterns = workbook["patterns"].as_array().expect("patterns");
    assert!(!patterns.is_empty() && patterns.iter().all(|p| p["proposed"] == true), "{patterns:?}");
    assert_eq!(patterns[0]["requests"][0]["operation"], "GetItem");
}

#[test]
fn a_template_with_a_global_table_and_a_loop_becomes_its_tables() {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/imports/cloudformation-global-foreach.yaml");
    let (code, workbook, stderr) = check(&[&template.to_string_lossy(), "--format", "workbook"]);
    assert_eq!(code, 0, "{stderr}");
    let workbook: serde_json::Value = serde_json::from_str(&workbook).expect("JSON");
    let names: Vec<&str> =
        workbook["tables"].as_array().expect("tables").iter().filter_map(|t| t["TableName"].as_str()).collect();
    assert_eq!(names, ["counters-free-prod", "counters-paid-prod", "sessions-prod"]);
    assert_eq!(workbook["tables"][0]["ProvisionedThroughput"]["ReadCapacityUnits"], 25);
    assert_eq!(workbook["replicas"], serde_json::json!({"sessions-prod": 2}));
    assert_eq!(workbook["setup"][0]["operation"], "UpdateTimeToLive");
    assert!(stderr.contains("left out: 1 AWS::Serverless::Function resource"), "{stderr}");
    let (code, report, stderr) = check(&[&template.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(report.contains("**Nothing proven: the design carries no access patterns.**"), "{report}");
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dynalab-check-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// Nothing dropped: every problem of a broken design listed once, exit 2, nothing run.
#[test]
fn a_broken_design_lists_every_problem_once_and_exits_2() {
    let mut workbook: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(examples().join("orders-service.workbook.json")).expect("read"))
            .expect("json");
    let patterns = workbook["patterns"].as_array().expect("patterns").len();
    // A GSI on an attribute the table does not define: one problem, not one per pattern.
    workbook["tables"][0]["GlobalSecondaryIndexes"][0]["KeySchema"][0]["AttributeName"] = serde_json::json!("nowhere");
    let path = temp_file("gsi.workbook.json", &workbook.to_string());
    let (code, stdout, stderr) = check(&[&path.to_string_lossy()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stdout.starts_with("# Design check: ") && stdout.contains("could not be checked"),
        "the note says why: {stdout}"
    );
    assert_eq!(stderr.matches("ValidationException").count(), 1, "{stderr}");
    assert!(stderr.contains("tables[0] (orders): ValidationException"), "{stderr}");
    assert!(patterns > 1);

    let mut workbook: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(examples().join("hot-counter.workbook.json")).expect("read"))
            .expect("json");
    let peak = workbook["patterns"][0]["peak_rps"].clone();
    workbook["patterns"][0]["peak_rps"] = serde_json::json!(-2.5);
    workbook["patterns"][1]["requests"] =
        serde_json::json!([{"cli": "aws dynamodb get-item --table-name counters --key '{\"pk\""}]);
    workbook["fixtures"]["counters"] = serde_json::json!([{"pk": {"S": "c"}, "n": {"N": 1200}}]);
    let path = temp_file("many.workbook.json", &workbook.to_string());
    let (code, _, stderr) = check(&[&path.to_string_lossy()]);
    assert_eq!(code, 2, "{stderr}");
    // All three at once, each once: a value, an item, a command.
    let listed: Vec<&str> = stderr.lines().filter(|l| !l.ends_with("invalid design, nothing was checked")).collect();
    assert_eq!(listed.len(), 3, "{stderr}");
    assert!(listed[0].ends_with("patterns[0].peak_rps: must be a number ≥ 0"), "{stderr}");
    assert!(
        listed[1].ends_with(
            "fixtures.counters[0].n.N: a number is written as a string in DynamoDB JSON ({\"N\": \"1200\"}), not 1200"
        ),
        "{stderr}"
    );
    assert!(listed[2].ends_with("patterns[1].requests[0] (C2): Unclosed single quote"), "{stderr}");

    workbook["patterns"][0]["peak_rps"] = peak;
    workbook["fixtures"]["counters"] = serde_json::json!([]);
    workbook["patterns"][1]["requests"] =
        serde_json::json!([{"operation": "Select", "request": {"TableName": "counters"}}]);
    let path = temp_file("ops.workbook.json", &workbook.to_string());
    let (code, _, stderr) = check(&[&path.to_string_lossy()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("patterns[1].requests[0] (C2): `Select` is not a DynamoDB operation"), "{stderr}");
}

#[test]
fn two_designs_are_compared_side_by_side() {
    let hot = examples().join("hot-counter.workbook.json");
    let sharded = examples().join("hot-counter-sharded.workbook.json");
    let (code, report, stderr) = check(&[&hot.to_string_lossy(), "--compare", &sharded.to_string_lossy()]);
    assert_eq!(code, 1, "the first design fails: {stderr}");
    assert!(report.starts_with("# Design comparison: "), "{report}");
    assert!(report.contains("| Verdict | fail | pass | |"), "{report}");
    assert!(report.contains("| C1 |"), "{report}");
    let (_, json, _) = check(&[&hot.to_string_lossy(), "--compare", &sharded.to_string_lossy(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(json["patterns"][0]["a"]["verdict"], "fail");
    assert_eq!(json["patterns"][0]["b"]["verdict"], "pass");
}

#[test]
fn a_design_skill_cost_model_is_checked_on_a_generated_fixture() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/imports/design-cost-model.json");
    let (code, report, stderr) = check(&[&model.to_string_lossy(), "--format", "json"]);
    assert_eq!(code, 1, "AP4 puts all its writes on one customer: {stderr}");
    assert!(stderr.contains("as a DynamoDB design skill cost model"), "{stderr}");
    assert!(stderr.contains("Order: 40,000,000 items of 1536 B in production → 4,700 in the fixture"), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&report).expect("JSON");
    assert_eq!(report["scale"], 8500.0);
    assert_eq!(report["patterns"][1]["items"], 20);
    assert_eq!(report["patterns"][3]["verdict"], "fail");
}

/// The modelling method's Markdown is a design file like any other: checked as it is, and the
/// workbook it becomes (`--format workbook`) gets the same verdicts.
#[test]
fn a_design_document_in_the_methods_markdown_is_checked() {
    let file = examples().join("orders-service.design.md");
    let (code, report, stderr) = check(&[&file.to_string_lossy(), "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("as a design document (the modelling method's Markdown)"), "{stderr}");
    let expected: Vec<(String, String)> = (1..=5).map(|i| (i.to_string(), "pass".to_string())).collect();
    assert_eq!(verdicts(&report), expected);
    let (code, workbook, stderr) = check(&[&file.to_string_lossy(), "--format", "workbook"]);
    assert_eq!(code, 0, "{stderr}");
    let converted = temp_file("orders-service.workbook.json", &workbook);
    let (code, again, stderr) = check(&[&converted.to_string_lossy(), "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(verdicts(&again), expected);
    // A cell that cannot be read is named with its line, row and column; its pattern is not
    // proven (exit 1) and the rest of the design is.
    let broken = std::fs::read_to_string(&file).expect("example").replace("| 300 |", "| lots |");
    let broken = temp_file("broken.design.md", &broken);
    let (code, report, stderr) = check(&[&broken.to_string_lossy()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "not read: line 12: inventory row \"2 List a user's orders, newest first\", column \"Rate (peak/s)\": `lots` is not a number"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("dynalab: 1 failed: 2"), "{stderr}");
    assert!(report.contains("## Not read from the file"), "{report}");
}
