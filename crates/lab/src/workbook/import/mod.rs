//! Designs people already have, turned into workbooks: the AWS DynamoDB MCP server's
//! `dynamodb_data_model.json`, the amazon-dynamodb design skill's cost model ([`cost_model`]),
//! NoSQL Workbench models, CloudFormation and SAM templates (JSON, and YAML with the `yaml`
//! feature), Serverless Framework services, Terraform files (the `hcl` feature), OneTable schemas,
//! and design documents in Markdown. Each import says what it could not carry over and why.

mod cfn_conditions;
mod cloudformation;
mod cost_model;
mod mcp;
mod onetable;
mod serverless;
mod tables;
#[cfg(feature = "hcl")]
mod terraform;
mod workbench;

use super::{Workbook, FORMAT};
use crate::plain_json;
use cloudformation::cloudformation;
use mcp::mcp;
use serde_json::Value;
use workbench::workbench;

/// Which shape a file was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Workbook,
    McpDataModel,
    DesignCostModel,
    NoSqlWorkbench,
    CloudFormation,
    Serverless,
    Terraform,
    OneTable,
    DesignDocument,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Workbook => "a Dynalab workbook",
            Self::McpDataModel => "a DynamoDB MCP server data model (dynamodb_data_model.json)",
            Self::DesignCostModel => "a DynamoDB design skill cost model (dynamodb_data_model.json with entities)",
            Self::NoSqlWorkbench => "a NoSQL Workbench model",
            Self::CloudFormation => "a CloudFormation template",
            Self::Serverless => "a Serverless Framework service (serverless.yml)",
            Self::Terraform => "a Terraform configuration (aws_dynamodb_table)",
            Self::OneTable => "a OneTable schema",
            Self::DesignDocument => "a design document (the modelling method's Markdown)",
        }
    }
}

/// A workbook read from any supported shape, with notes on what was left out.
#[derive(Debug)]
pub struct Imported {
    pub source: Source,
    pub workbook: Workbook,
    pub notes: Vec<String>,
}

/// What a reader may be told beyond the file: values for a template's parameters, as
/// `aws cloudformation deploy --parameter-overrides NAME=VALUE` takes them.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub parameters: std::collections::BTreeMap<String, String>,
}

/// Reads `text` in whichever supported shape it is.
pub fn import(text: &str) -> Result<Imported, String> {
    import_with(text, &Options::default())
}

/// [`import`], with `options` (parameter values for a template).
pub fn import_with(text: &str, options: &Options) -> Result<Imported, String> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') && !trimmed.starts_with('[') {
        if let Some(why) = source_code(text) {
            return Err(why);
        }
        if looks_like_terraform(text) {
            return terraform_file(text, options);
        }
        if crate::design::markdown::looks_like_markdown(text) {
            return design_document(text);
        }
        return yaml_template(text, options);
    }
    let json = plain_json::parse_lenient(text).map_err(|e| format!("not JSON: {e}"))?;
    let value = json.to_value();
    let Some(object) = value.as_object() else { return Err("expected a JSON object".into()) };
    if object.get("format").and_then(Value::as_str) == Some(FORMAT) {
        return Ok(Imported { source: Source::Workbook, workbook: Workbook::read(text)?, notes: Vec::new() });
    }
    if cost_model::is_cost_model(object) {
        return cost_model::import(object);
    }
    if object.contains_key("access_patterns") && object.contains_key("tables") {
        return mcp(object, &json);
    }
    if object.contains_key("ModelName") && object.contains_key("DataModel") {
        return workbench(object);
    }
    if object.get("Resources").is_some_and(Value::is_object) {
        return cloudformation(object, options);
    }
    if serverless::is_serverless(object) {
        return serverless::serverless(object, options);
    }
    if onetable::is_onetable(object) {
        return onetable::onetable(object);
    }
    Err(format!(
        "not a format Dynalab reads: {}",
        crate::design::markdown::NO_DESIGN.trim_start_matches("no design in this text: ")
    ))
}

/// Program source that builds tables (a CDK app, a OneTable schema in JavaScript): what to run
/// to get a file Dynalab reads.
fn source_code(text: &str) -> Option<String> {
    let cdk = [
        "aws-cdk-lib",
        "@aws-cdk/",
        "from aws_cdk",
        "import aws_cdk",
        "new dynamodb.Table",
        "new dynamodb.TableV2",
        "dynamodb.Table(",
        "TableV2(",
    ];
    if cdk.iter().any(|marker| text.contains(marker)) {
        return Some("a CDK app's source, not a template: run `cdk synth` and check the template it writes (`dynalab check cdk.out/STACK.template.json`); a synthesized template is read like any CloudFormation template".into());
    }
    let javascript =
        text.contains("export default") || text.contains("module.exports") || text.contains("export const");
    if javascript && text.contains("models") && text.contains("indexes") {
        return Some(
            "a OneTable schema in JavaScript: Dynalab reads it as JSON (`JSON.stringify(Schema)` in Node writes it)"
                .into(),
        );
    }
    None
}

#[cfg(feature = "hcl")]
fn looks_like_terraform(text: &str) -> bool {
    terraform::looks_like_terraform(text)
}

#[cfg(not(feature = "hcl"))]
fn looks_like_terraform(text: &str) -> bool {
    text.lines().any(|line| line.trim_start().starts_with("resource \"aws_dynamodb_table\""))
}

#[cfg(feature = "hcl")]
fn terraform_file(text: &str, options: &Options) -> Result<Imported, String> {
    terraform::terraform(text, options)
}

#[cfg(not(feature = "hcl"))]
fn terraform_file(_: &str, _: &Options) -> Result<Imported, String> {
    Err("a Terraform file: read by `dynalab check` and the Python package, not here".into())
}

/// A plan's problem said in the terms of the file the user gave, not of the workbook it became:
/// `tables[0] (orders): …` → ``table `orders`: …``, `patterns[2].requests[0] (AP3): …` →
/// `pattern AP3: …`, `fixtures.orders[4]: …` → ``item 5 of table `orders`: …``. A workbook's
/// problems are already in its own terms.
pub fn in_file_terms(source: Source, problem: &str) -> String {
    if source == Source::Workbook {
        return problem.to_string();
    }
    let Some((path, message)) = problem.split_once(": ") else { return problem.to_string() };
    let named = |path: &str| path.split_once(" (").map(|(_, rest)| rest.trim_end_matches(')').to_string());
    let head = path.split(" (").next().unwrap_or(path);
    let index = |text: &str| text.split(['[', ']']).nth(1).and_then(|n| n.parse::<usize>().ok());
    let said = if head.starts_with("tables[") {
        named(path).map(|name| format!("table `{name}`"))
    } else if head.starts_with("patterns[") {
        named(path).map(|id| {
            let call =
                head.split(".requests").nth(1).and_then(index).map_or(String::new(), |n| format!(", call {}", n + 1));
            format!("pattern {id}{call}")
        })
    } else if let Some(rest) = head.strip_prefix("fixtures.") {
        let table = rest.split('[').next().unwrap_or(rest);
        Some(
            index(rest).map_or_else(
                || format!("the items of table `{table}`"),
                |n| format!("item {} of table `{table}`", n + 1),
            ),
        )
    } else {
        None
    };
    said.map_or_else(|| problem.to_string(), |said| format!("{said}: {message}"))
}

/// A design document: read, then made a workbook (what it read past and the defaults it took, noted).
fn design_document(text: &str) -> Result<Imported, String> {
    let (design, mut notes) = crate::design::markdown::read(text)?;
    notes.extend(design.unread.iter().map(|u| format!("not read: {u}")));
    let converted = design.to_workbook()?;
    notes.extend(converted.notes);
    Ok(Imported { source: Source::DesignDocument, workbook: converted.workbook, notes })
}

/// The imported workbook. Its values are judged with everything else when it is planned (a
/// design without patterns is still a workbook to start from: `--format workbook` writes it;
/// `check` says there is nothing to check).
fn finish(source: Source, workbook: Value, notes: Vec<String>) -> Result<Imported, String> {
    let workbook: Workbook = serde_json::from_value(workbook).map_err(|e| format!("imported workbook: {e}"))?;
    Ok(Imported { source, workbook, notes })
}

impl Imported {
    /// The workbook, if it has tables to check; else why not, with what the import noted. A design
    /// without access patterns is checked: it gets proposals and a report that proves nothing.
    pub fn checkable(self) -> Result<Self, String> {
        // With patterns, the plan lists every problem at once (no tables among them).
        if self.workbook.tables.is_empty() && self.workbook.patterns.is_empty() {
            return Err(format!("{} has no DynamoDB tables: nothing to check", self.source.describe()));
        }
        Ok(self)
    }
}

/// A CloudFormation template or a Serverless service in YAML (only built with the `yaml` feature,
/// as the command line is); text that is not a YAML mapping is read as a design document.
#[cfg(feature = "yaml")]
fn yaml_template(text: &str, options: &Options) -> Result<Imported, String> {
    let Ok(yaml) = serde_yaml::from_str::<serde_yaml::Value>(text) else { return design_document(text) };
    let value = yaml_to_json(yaml);
    match value.as_object() {
        Some(object) if object.get("Resources").is_some_and(Value::is_object) => cloudformation(object, options),
        Some(object) if serverless::is_serverless(object) => serverless::serverless(object, options),
        Some(object) => Err(format!(
            "a YAML file with neither `Resources` (a CloudFormation or SAM template) nor `service` and `resources` (a Serverless Framework service); its top-level keys: {}",
            object.keys().take(12).cloned().collect::<Vec<_>>().join(", ")
        )),
        None => design_document(text),
    }
}

#[cfg(not(feature = "yaml"))]
fn yaml_template(text: &str, _: &Options) -> Result<Imported, String> {
    let yaml_keys = ["Resources:", "AWSTemplateFormatVersion", "service:", "resources:"];
    if text.lines().any(|line| yaml_keys.iter().any(|k| line.starts_with(k))) {
        return Err("not JSON: YAML templates and Serverless services are read by `dynalab check`, not here".into());
    }
    design_document(text)
}

/// YAML as JSON; CloudFormation's short-form tags become their long forms (`!Ref x` → `{"Ref": x}`,
/// `!Sub s` → `{"Fn::Sub": s}`).
#[cfg(feature = "yaml")]
fn yaml_to_json(yaml: serde_yaml::Value) -> Value {
    use serde_yaml::Value as Y;
    match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => serde_json::from_str(&n.to_string()).unwrap_or(Value::Null),
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k.as_str().map_or_else(|| format!("{k:?}"), String::from), yaml_to_json(v)))
                .collect(),
        ),
        Y::Tagged(tagged) => {
            let name = tagged.tag.to_string().trim_start_matches('!').to_string();
            let key = if name == "Ref" || name == "Condition" { name } else { format!("Fn::{name}") };
            serde_json::json!({key: yaml_to_json(tagged.value)})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbook::PatternKind;
    use serde_json::json;

    /// A data model as the MCP server's generation guide describes it (Python-style `True` included).
    const MCP: &str = include_str!("../../../../../tests/imports/dynamodb_data_model.json");

    #[test]
    fn an_mcp_data_model_imports_with_notes_and_runs() {
        let imported = import(MCP).expect("imports");
        assert_eq!(imported.source, Source::McpDataModel);
        let ids: Vec<&str> = imported.workbook.patterns.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["AP1", "AP2-3", "AP2-3-2"]);
        assert_eq!(imported.workbook.patterns[2].kind, PatternKind::Write);
        assert_eq!(imported.workbook.fixtures["Shop"][0]["vip"], json!({"BOOL": true}), "Python-style True");
        assert_eq!(imported.workbook.fixtures["Shop"][0]["credit"], json!({"N": "10.50"}));
        assert!(
            imported.notes.iter().any(|n| n == "items.Shop[2]: not a PutRequest with an Item, skipped"),
            "{:?}",
            imported.notes
        );
        assert!(imported
            .notes
            .iter()
            .any(|n| n
                .contains("pattern 4 (Search products by text) not imported: Full-text search belongs in OpenSearch")));
        let clock: std::sync::Arc<dyn dynalab_engine::Clock> = std::sync::Arc::new(dynalab_engine::FixedClock::at(0));
        let result = super::super::check::check(&imported.workbook, clock).expect("plans").result;
        let verdicts: Vec<_> = result.patterns.iter().map(|p| (p.id.as_str(), p.verdict.label(), p.items)).collect();
        assert_eq!(verdicts, [("AP1", "pass", 1), ("AP2-3", "pass", 1), ("AP2-3-2", "pass", 0)]);
    }

    fn file(name: &str) -> String {
        std::fs::read_to_string(format!("{}/../../tests/imports/{name}", env!("CARGO_MANIFEST_DIR"))).expect(name)
    }

    fn plan(imported: &Imported) -> crate::workbook::plan::Plan {
        let clock = std::sync::Arc::new(dynalab_engine::FixedClock::at(0));
        crate::workbook::plan::Plan::build(imported.workbook.clone(), clock).expect("plans")
    }

    #[test]
    fn a_plans_problems_are_said_in_the_files_terms() {
        let source = Source::DesignDocument;
        assert_eq!(
            in_file_terms(source, "tables[0] (library): ValidationException: x"),
            "table `library`: ValidationException: x"
        );
        assert_eq!(in_file_terms(source, "patterns[2].requests[0] (AP3): no index"), "pattern AP3, call 1: no index");
        assert_eq!(
            in_file_terms(source, "fixtures.library[4]: Missing the key SK"),
            "item 5 of table `library`: Missing the key SK"
        );
        assert_eq!(in_file_terms(Source::Workbook, "tables[0] (t): x"), "tables[0] (t): x");
    }

    #[test]
    fn designs_without_patterns_still_become_workbooks() {
        let imported = import(&file("nosql-workbench-model.json")).expect("imports");
        assert!(imported.notes.iter().any(|n| n.contains("facet `Post` describes a view")), "{:?}", imported.notes);
        assert!(imported.checkable().is_ok(), "a design without patterns is checked");
        let imported = import(&file("cloudformation-template.json")).expect("imports");
        assert_eq!(
            imported.workbook.setup[0].operation.as_deref(),
            Some("UpdateTimeToLive"),
            "TTL kept as a setup call"
        );
        assert!(
            imported.notes.iter().any(|n| n == "left out: 1 AWS::S3::Bucket resource (not a DynamoDB table)"),
            "{:?}",
            imported.notes
        );
        plan(&imported);
        assert!(import("[1]").expect_err("array").contains("expected a JSON object"));
        assert!(import(r#"{"hello": 1}"#).expect_err("unknown").starts_with("not a format Dynalab reads"));
    }

    #[test]
    fn workbench_v3_keeps_provisioned_billing_and_facet_items() {
        let imported = import(&file("workbench-v3-provisioned.json")).expect("imports");
        let table = &imported.workbook.tables[0];
        assert_eq!(table["BillingMode"], "PROVISIONED");
        assert_eq!(table["ProvisionedThroughput"], json!({"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}));
        assert_eq!(imported.workbook.fixtures["Shipments"].as_array().map(Vec::len), Some(3), "items from both facets");
        let shape = &plan(&imported).shapes[0];
        assert_eq!(shape.provisioned, Some((5, 5)));
        assert_eq!(shape.indexes[0].provisioned, Some((5, 5)));
        assert_eq!(shape.indexes[0].totals.items, 3);
    }

    #[cfg(feature = "yaml")]
    #[test]
    fn cloudformation_resolves_parameters_loops_and_global_tables() {
        let imported = import(&file("cloudformation-global-foreach.yaml")).expect("imports");
        let names: Vec<&str> = imported.workbook.tables.iter().filter_map(|t| t["TableName"].as_str()).collect();
        assert_eq!(names, ["counters-free-prod", "counters-paid-prod", "sessions-prod"]);
        assert_eq!(
            imported.workbook.tables[0]["ProvisionedThroughput"]["ReadCapacityUnits"],
            json!(25),
            "Ref to a parameter's Default"
        );
        assert_eq!(imported.workbook.replicas.get("sessions-prod"), Some(&2));
        assert_eq!(imported.workbook.tables[2]["StreamSpecification"]["StreamEnabled"], json!(true));
        assert!(
            imported.notes.iter().any(|n| n == "left out: 1 AWS::Serverless::Function resource (not a DynamoDB table)"),
            "{:?}",
            imported.notes
        );
        assert!(imported
            .workbook
            .setup
            .iter()
            .any(|c| c.request.as_ref().is_some_and(|r| r["TableName"] == "sessions-prod")));
        plan(&imported);
    }

    /// As aws-cloudformation-templates' DynamoDB samples write them: a Number parameter's default
    /// as text, integer properties as text.
    #[test]
    fn numbers_written_as_text_in_a_template_are_numbers() {
        let template = json!({"Parameters": {"Reads": {"Type": "Number", "Default": "5"}, "Sizes": {"Type": "List<Number>", "Default": "1, 2"}},
            "Resources": {"Books": {"Type": "AWS::DynamoDB::Table", "Properties": {
                "AttributeDefinitions": [{"AttributeName": "Title", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "Title", "KeyType": "HASH"}],
                "ProvisionedThroughput": {"ReadCapacityUnits": {"Ref": "Reads"}, "WriteCapacityUnits": "10"},
                "Tags": [{"Key": "sizes", "Value": {"Fn::Join": ["/", {"Ref": "Sizes"}]}}]}}}});
        let imported = import(&template.to_string()).expect("imports");
        assert_eq!(
            imported.workbook.tables[0]["ProvisionedThroughput"],
            json!({"ReadCapacityUnits": 5, "WriteCapacityUnits": 10})
        );
        assert_eq!(imported.workbook.tables[0]["Tags"][0]["Value"], json!("1/2"));
        assert_eq!(plan(&imported).shapes[0].provisioned, Some((5, 10)));
    }

    /// A tag DynamoDB would refuse does not stop the table from being made: it is left out, and
    /// the note says which and why.
    #[test]
    fn tags_a_table_could_not_carry_are_left_out_and_named() {
        let template = json!({"Resources": {"Books": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "AttributeDefinitions": [{"AttributeName": "Title", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "Title", "KeyType": "HASH"}],
            "Tags": [{"Key": "team", "Value": "core"}, {"Key": "sizes", "Value": "1,2"}, {"Key": "aws:owner", "Value": "x"}]}}}});
        let imported = import(&template.to_string()).expect("imports");
        assert_eq!(imported.workbook.tables[0]["Tags"], json!([{"Key": "team", "Value": "core"}]));
        let notes = imported.notes.join("\n");
        assert!(notes.contains("Resources.Books.Properties.Tags[1]: left out (One or more parameter values were invalid: Tag value may contain only"), "{notes}");
        assert!(
            notes.contains("Tags[2]: left out (One or more parameter values were invalid: Tag keys starting with aws:"),
            "{notes}"
        );
        plan(&imported);
    }

    #[test]
    fn the_design_skills_nested_model_is_read_first() {
        let imported = import(&file("skill-model-nested.json")).expect("imports");
        assert_eq!(imported.source, Source::DesignCostModel);
        let ids: Vec<&str> = imported.workbook.patterns.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["AP1", "AP2", "AP3"]);
        assert_eq!(imported.workbook.patterns[2].retention_days, Some(365.0));
        assert_eq!(imported.workbook.patterns[0].avg_rps, Some(40.0));
        let clock = std::sync::Arc::new(dynalab_engine::FixedClock::at(0));
        let checked = super::super::check::check(&imported.workbook, clock).expect("plans");
        assert_eq!(
            checked.result.cost.storage.iter().find(|s| s.table == "Orders").map(|s| s.basis.as_str()),
            Some("retention")
        );
        assert!(checked.result.cost.expected.is_some());
    }

    /// Each broken variant: the message it must give (a design problem is never dropped).
    #[test]
    fn broken_designs_are_refused_naming_the_field() {
        let mcp = file("dynamodb_data_model.json");
        let skill = file("skill-model-nested.json");
        let cases: Vec<(String, &str)> = vec![
            (mcp.replacen("--key '", "--key ''", 1), "access_patterns[0].implementation: "),
            (
                skill.replacen("\"operation\": \"GetItem\"", "\"operation\": \"Select\"", 1),
                "access_patterns[0].operation: `Select` is not a DynamoDB operation",
            ),
            (
                skill.replacen("\"peak_rps\": 300", "\"peak_rps\": \"200\"", 1),
                "access_patterns[0].peak_rps: \"200\" is not a number",
            ),
            (
                skill.replacen("\"peak_rps\": 300", "\"peak_rps\": -2.5", 1),
                "access_patterns[0].peak_rps: -2.5 is not a rate",
            ),
            (
                skill.replacen("\"index\": null", "\"index\": \"GSI9\"", 1),
                "access_patterns[0].index: table `Orders` has no index `GSI9` (it has GSI1)",
            ),
        ];
        for (text, expected) in cases {
            let error = import(&text).expect_err(expected);
            assert!(error.starts_with(expected), "{error}\nexpected: {expected}");
        }
    }
}
