//! `TableDescription`, shared by CreateTable, DescribeTable, UpdateTable and DeleteTable.

use crate::table::{BillingMode, Index, IndexKind, Projection, Table};
use serde::Serialize;

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeDefinition {
    pub attribute_name: String,
    pub attribute_type: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeySchemaElement {
    pub attribute_name: String,
    pub key_type: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProvisionedThroughputDescription {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_increase_date_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_decrease_date_time: Option<f64>,
    pub number_of_decreases_today: u64,
    pub read_capacity_units: u64,
    pub write_capacity_units: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BillingModeSummary {
    pub billing_mode: &'static str,
    pub last_update_to_pay_per_request_date_time: f64,
}

/// What DescribeTable shows of a table.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableDescription {
    pub attribute_definitions: Vec<AttributeDefinition>,
    pub table_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    pub table_status: &'static str,
    pub creation_date_time: f64,
    pub provisioned_throughput: ProvisionedThroughputDescription,
    pub table_size_bytes: u64,
    pub item_count: u64,
    pub table_arn: String,
    pub table_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billing_mode_summary: Option<BillingModeSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_secondary_indexes: Option<Vec<IndexDescription>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<Vec<IndexDescription>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_specification: Option<StreamSpecificationDescription>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_stream_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_stream_arn: Option<String>,
    pub deletion_protection_enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_class_summary: Option<TableClassSummary>,
    #[serde(rename = "SSEDescription", skip_serializing_if = "Option::is_none")]
    pub sse_description: Option<super::table_settings::SseDescription>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput: Option<super::table_settings::OnDemandThroughputInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_indexes: Option<Vec<VectorIndexDescription>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<super::table_settings::WarmThroughputDescription>,
}

/// One vector index as DescribeTable shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorIndexDescription {
    pub index_name: String,
    pub vector_attribute: VectorAttributeDescription,
    pub dimensions: usize,
    pub distance_function: &'static str,
    pub projection: ProjectionDescription,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub search_schema: Vec<SearchSchemaElementDescription>,
    pub index_status: &'static str,
    pub index_arn: String,
    pub item_count: u64,
    pub index_size_bytes: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorAttributeDescription {
    pub attribute_name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchSchemaElementDescription {
    pub attribute_name: String,
    pub search_schema_element_type: &'static str,
}

fn vector_indexes(table: &Table) -> Option<Vec<VectorIndexDescription>> {
    let arn = table.definition.arn();
    let list: Vec<VectorIndexDescription> = table
        .vector_indexes
        .iter()
        .map(|index| {
            let d = &index.definition;
            VectorIndexDescription {
                index_name: d.name.clone(),
                vector_attribute: VectorAttributeDescription { attribute_name: d.attribute.clone() },
                dimensions: d.dimensions,
                distance_function: d.distance.name(),
                projection: projection_of(&d.projection),
                search_schema: d
                    .search_schema
                    .iter()
                    .map(|(a, role)| SearchSchemaElementDescription {
                        attribute_name: a.name.clone(),
                        search_schema_element_type: role.name(),
                    })
                    .collect(),
                index_status: "ACTIVE",
                index_arn: format!("{arn}/index/{}", d.name),
                item_count: index.entries.len() as u64,
                index_size_bytes: index.size_bytes() as u64,
            }
        })
        .collect();
    (!list.is_empty()).then_some(list)
}

fn projection_of(projection: &Projection) -> ProjectionDescription {
    ProjectionDescription {
        projection_type: projection.type_name(),
        non_key_attributes: match projection {
            Projection::Include(names) => Some(names.clone()),
            _ => None,
        },
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableClassSummary {
    pub table_class: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_update_date_time: Option<f64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSpecificationDescription {
    pub stream_enabled: bool,
    pub stream_view_type: &'static str,
}

/// The table's key schema as DescribeTable and DescribeStream show it.
pub fn key_schema_of(table: &Table) -> Vec<KeySchemaElement> {
    let d = &table.definition;
    let mut key_schema = vec![KeySchemaElement { attribute_name: d.key_schema.hash.name.clone(), key_type: "HASH" }];
    if let Some(range) = &d.key_schema.range {
        key_schema.push(KeySchemaElement { attribute_name: range.name.clone(), key_type: "RANGE" });
    }
    key_schema
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProjectionDescription {
    pub projection_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_key_attributes: Option<Vec<String>>,
}

/// One index as DescribeTable shows it; LSIs have no status or throughput.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexDescription {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    pub projection: ProjectionDescription,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<ProvisionedThroughputDescription>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput: Option<super::table_settings::OnDemandThroughputInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<super::table_settings::WarmThroughputDescription>,
    pub index_size_bytes: u64,
    pub item_count: u64,
    pub index_arn: String,
}

fn describe_index(index: &Index, table_arn: &str) -> IndexDescription {
    let d = &index.definition;
    let key_schema = d
        .hash
        .iter()
        .map(|a| KeySchemaElement { attribute_name: a.name.clone(), key_type: "HASH" })
        .chain(d.range.iter().map(|a| KeySchemaElement { attribute_name: a.name.clone(), key_type: "RANGE" }))
        .collect();
    let global = d.kind == IndexKind::Global;
    IndexDescription {
        index_name: d.name.clone(),
        key_schema,
        projection: projection_of(&d.projection),
        index_status: global.then_some("ACTIVE"),
        // On-demand tables' GSIs carry no throughput (as DynamoDB Local shows them).
        provisioned_throughput: d.throughput.filter(|_| global).map(|(read, write)| ProvisionedThroughputDescription {
            last_increase_date_time: None,
            last_decrease_date_time: None,
            number_of_decreases_today: 0,
            read_capacity_units: read,
            write_capacity_units: write,
        }),
        on_demand_throughput: super::table_settings::caps_description(d.on_demand_max),
        warm_throughput: super::table_settings::warmth_description(d.warm_throughput),
        index_size_bytes: index.total_bytes() as u64,
        item_count: index.item_count() as u64,
        index_arn: format!("{table_arn}/index/{}", d.name),
    }
}

fn indexes(table: &Table, kind: IndexKind) -> Option<Vec<IndexDescription>> {
    let arn = table.definition.arn();
    let list: Vec<IndexDescription> =
        table.indexes.iter().filter(|i| i.definition.kind == kind).map(|i| describe_index(i, &arn)).collect();
    (!list.is_empty()).then_some(list)
}

/// Epoch seconds with milliseconds, as DynamoDB's JSON carries timestamps.
pub fn seconds(millis: u64) -> f64 {
    millis as f64 / 1000.0
}

impl TableDescription {
    pub fn of(table: &Table, status: &'static str) -> Self {
        let d = &table.definition;
        let key_schema = key_schema_of(table);
        let latest = table.streams.last();
        let (read, write, summary) = match d.billing {
            BillingMode::Provisioned { read, write } => (read, write, None),
            BillingMode::PayPerRequest => (
                0,
                0,
                Some(BillingModeSummary {
                    billing_mode: "PAY_PER_REQUEST",
                    last_update_to_pay_per_request_date_time: seconds(d.billing_changed_millis),
                }),
            ),
        };
        Self {
            attribute_definitions: d
                .attribute_definitions
                .iter()
                .map(|a| AttributeDefinition { attribute_name: a.name.clone(), attribute_type: a.kind.name() })
                .collect(),
            table_name: d.name.clone(),
            key_schema,
            table_status: status,
            creation_date_time: seconds(d.created_millis),
            provisioned_throughput: ProvisionedThroughputDescription {
                last_increase_date_time: d.last_increase_millis.map(seconds),
                last_decrease_date_time: d.last_decrease_millis.map(seconds),
                number_of_decreases_today: d.decreases_today,
                read_capacity_units: read,
                write_capacity_units: write,
            },
            table_size_bytes: table.storage.total_bytes() as u64,
            item_count: table.storage.item_count() as u64,
            table_arn: d.arn(),
            table_id: d.table_id.clone(),
            billing_mode_summary: summary,
            local_secondary_indexes: indexes(table, IndexKind::Local),
            global_secondary_indexes: indexes(table, IndexKind::Global),
            stream_specification: latest
                .filter(|s| s.enabled)
                .map(|s| StreamSpecificationDescription { stream_enabled: true, stream_view_type: s.view_type.name() }),
            latest_stream_label: latest.map(|s| s.label.clone()),
            latest_stream_arn: latest.map(crate::stream::Stream::arn),
            deletion_protection_enabled: d.deletion_protection,
            sse_description: super::table_settings::sse_description(d),
            on_demand_throughput: super::table_settings::on_demand_description(d),
            vector_indexes: vector_indexes(table),
            warm_throughput: super::table_settings::warm_description(d),
            table_class_summary: d.table_class.map(|class| TableClassSummary {
                table_class: class.name(),
                last_update_date_time: d.table_class_changed_millis.map(seconds),
            }),
        }
    }
}
