//! `cloudformation.yaml` and `serverless.yml`: each table an `AWS::DynamoDB::Table` with the
//! properties of its CreateTable request (CloudFormation takes them by the same names), its time
//! to live, and for every declared auto scaling range a ScalableTarget with a target-tracking
//! policy at 70% (the AWS console's default). Serverless deploys the same resources.

use super::{pascal, to_yaml, TableExport};
use crate::workbook::declared::Range;
use crate::workbook::Workbook;
use serde_json::{json, Map, Value};

/// The template as a value (written as YAML by [`yaml`], wrapped by [`serverless`]).
pub(super) fn template(workbook: &Workbook, tables: &[TableExport<'_>], notes: &mut Vec<String>) -> Value {
    let mut resources = Map::new();
    for table in tables {
        let logical = format!("{}Table", pascal(&table.name));
        let mut properties = table.create.clone();
        if let Some(Value::Object(stream)) = properties.get_mut("StreamSpecification") {
            // CloudFormation's StreamSpecification has only the view type.
            stream.remove("StreamEnabled");
        }
        if let Some(Value::Object(sse)) = properties.get_mut("SSESpecification") {
            // The API's `Enabled` is CloudFormation's `SSEEnabled`.
            if let Some(enabled) = sse.remove("Enabled") {
                sse.insert("SSEEnabled".into(), enabled);
            }
        }
        if let Some(attribute) = &table.time_to_live {
            properties.insert("TimeToLiveSpecification".into(), json!({"AttributeName": attribute, "Enabled": true}));
        }
        resources.insert(logical.clone(), json!({"Type": "AWS::DynamoDB::Table", "Properties": properties}));
        let Some(declared) = table.declared else { continue };
        let mut scaled = |suffix: String, resource_id: Value, dimension: &str, range: Range, metric: &str| {
            let target = format!("{logical}{suffix}Scaling");
            resources.insert(
                target.clone(),
                json!({"Type": "AWS::ApplicationAutoScaling::ScalableTarget", "Properties": {
                    "ServiceNamespace": "dynamodb", "ResourceId": resource_id, "ScalableDimension": dimension,
                    "MinCapacity": range.min, "MaxCapacity": range.max}}),
            );
            resources.insert(
                format!("{logical}{suffix}Policy"),
                json!({"Type": "AWS::ApplicationAutoScaling::ScalingPolicy", "Properties": {
                    "PolicyName": format!("{}-{}", table.name, suffix.to_ascii_lowercase()), "PolicyType": "TargetTrackingScaling",
                    "ScalingTargetId": {"Ref": target},
                    "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 70.0,
                        "PredefinedMetricSpecification": {"PredefinedMetricType": metric}}}}),
            );
        };
        let table_id = json!({"Fn::Sub": format!("table/${{{logical}}}")});
        if let Some(range) = declared.read_scaling {
            scaled(
                "Read".into(),
                table_id.clone(),
                "dynamodb:table:ReadCapacityUnits",
                range,
                "DynamoDBReadCapacityUtilization",
            );
        }
        if let Some(range) = declared.write_scaling {
            scaled(
                "Write".into(),
                table_id,
                "dynamodb:table:WriteCapacityUnits",
                range,
                "DynamoDBWriteCapacityUtilization",
            );
        }
        for (index, own) in &declared.indexes {
            let index_id = json!({"Fn::Sub": format!("table/${{{logical}}}/index/{index}")});
            if let Some(range) = own.read_scaling {
                scaled(
                    format!("{}Read", pascal(index)),
                    index_id.clone(),
                    "dynamodb:index:ReadCapacityUnits",
                    range,
                    "DynamoDBReadCapacityUtilization",
                );
            }
            if let Some(range) = own.write_scaling {
                scaled(
                    format!("{}Write", pascal(index)),
                    index_id,
                    "dynamodb:index:WriteCapacityUnits",
                    range,
                    "DynamoDBWriteCapacityUtilization",
                );
            }
        }
    }
    if resources.keys().any(|k| k.ends_with("Scaling")) {
        notes.push("the auto scaling targets use the Application Auto Scaling service-linked role (no RoleARN); name one if your account needs it".into());
    }
    let mut template = Map::new();
    template.insert("AWSTemplateFormatVersion".into(), json!("2010-09-09"));
    template
        .insert("Description".into(), json!(format!("{} — exported by dynalab from the proven design", workbook.name)));
    template.insert("Resources".into(), Value::Object(resources));
    Value::Object(template)
}

pub(super) fn yaml(workbook: &Workbook, template: &Value) -> String {
    format!(
        "# CloudFormation for the design `{}`, exported by dynalab: every table, key, index and\n# projection, the billing and declared capacity the proof priced, time to live and streams.\n# Deploy: aws cloudformation deploy --template-file cloudformation.yaml --stack-name {}\n{}",
        workbook.name,
        super::snake(&workbook.name).replace('_', "-"),
        to_yaml(template)
    )
}

/// The same resources as a Serverless Framework service.
pub(super) fn serverless(workbook: &Workbook, template: &Value) -> String {
    let service = super::snake(&workbook.name).replace('_', "-");
    let document = json!({
        "service": service,
        "frameworkVersion": "3",
        "provider": {"name": "aws", "region": workbook.region},
        "resources": {"Resources": template["Resources"]},
    });
    format!(
        "# The design `{}`'s tables as a Serverless Framework service (its resources are the\n# CloudFormation of cloudformation.yaml). Deploy: serverless deploy\n{}",
        workbook.name,
        to_yaml(&document)
    )
}
