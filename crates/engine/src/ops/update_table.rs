//! UpdateTable: billing mode, provisioned throughput, and creating or deleting one GSI per call
//! (a new index is filled from the table's items at once).

use super::create_table::{check_throughput, AttributeDefinitionInput, ProvisionedThroughputInput};
use super::index_definitions::{self, IndexInput};
use super::TableDescription;
use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::table::{BillingMode, Index, IndexKind, KeyAttribute, Table};
use crate::validate::Violations;
use crate::value::ScalarType;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTableInput {
    pub table_name: Option<String>,
    pub billing_mode: Option<String>,
    pub provisioned_throughput: Option<ProvisionedThroughputInput>,
    pub global_secondary_index_updates: Option<Vec<GsiUpdate>>,
    pub attribute_definitions: Option<Vec<AttributeDefinitionInput>>,
    pub stream_specification: Option<super::stream_specification::StreamSpecificationInput>,
    pub table_class: Option<String>,
    pub deletion_protection_enabled: Option<bool>,
    #[serde(rename = "SSESpecification")]
    pub sse_specification: Option<super::table_settings::SseSpecificationInput>,
    pub on_demand_throughput: Option<super::table_settings::OnDemandThroughputInput>,
    pub vector_index_updates: Option<Vec<VectorIndexUpdate>>,
    pub warm_throughput: Option<super::table_settings::WarmThroughputInput>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorIndexUpdate {
    pub create: Option<super::vector_index_definitions::VectorIndexInput>,
    pub delete: Option<IndexNameInput>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexNameInput {
    pub index_name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GsiUpdate {
    pub create: Option<IndexInput>,
    pub delete: Option<IndexNameInput>,
    pub update: Option<GsiSettingsUpdate>,
}

/// A GSI `Update` entry: the settings of its own this engine keeps (its provisioned throughput,
/// also allowed here, is not modelled per index).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GsiSettingsUpdate {
    pub index_name: Option<String>,
    pub on_demand_throughput: Option<super::table_settings::OnDemandThroughputInput>,
    pub warm_throughput: Option<super::table_settings::WarmThroughputInput>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTableOutput {
    pub table_description: TableDescription,
}

pub fn run(engine: &mut Engine, input: UpdateTableInput) -> Result<UpdateTableOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.one_of("billingMode", input.billing_mode.as_ref(), &["PROVISIONED", "PAY_PER_REQUEST"]);
    check_throughput(&mut v, "provisionedThroughput", input.provisioned_throughput.as_ref());
    super::stream_specification::check_shape(&mut v, "streamSpecification", input.stream_specification.as_ref());
    for (i, update) in input.global_secondary_index_updates.iter().flatten().enumerate() {
        if let Some(create) = &update.create {
            let field = format!("globalSecondaryIndexUpdates.{}.member.create", i + 1);
            index_definitions::check_shapes_of_one(&mut v, &field, create);
        }
    }
    for (i, update) in input.vector_index_updates.iter().flatten().enumerate() {
        if let Some(create) = &update.create {
            let field = format!("vectorIndexUpdates.{}.member.create", i + 1);
            super::vector_index_definitions::check_shape(&mut v, &field, create);
        }
    }
    v.finish()?;
    super::create_table::check_no_duplicate_definitions(input.attribute_definitions.as_deref().unwrap_or_default())?;
    let now = engine.now_millis();
    let name = input.table_name.unwrap_or_default();
    let table = engine
        .tables
        .get_mut(&name)
        .map(std::sync::Arc::make_mut)
        .ok_or_else(|| DynamoError::named_table_not_found(&name))?;
    // Counted even if refused below: a logged request that fails again on replay is harmless.
    table.changes += 1;
    // Settings that change nothing about the data: applied, and a request of only these is whole.
    if let Some(spec) = &input.sse_specification {
        super::table_settings::apply_sse(&mut table.definition, spec);
    }
    if let Some(caps) = &input.on_demand_throughput {
        super::table_settings::apply_on_demand(&mut table.definition, caps);
    }
    if let Some(warm) = &input.warm_throughput {
        super::table_settings::apply_warm(&mut table.definition, warm);
    }
    let settings =
        input.sse_specification.is_some() || input.on_demand_throughput.is_some() || input.warm_throughput.is_some();
    if let Some(protected) = input.deletion_protection_enabled {
        table.definition.deletion_protection = protected;
    }
    if settings || input.deletion_protection_enabled.is_some() {
        let anything_else = input.billing_mode.is_some()
            || input.provisioned_throughput.is_some()
            || input.global_secondary_index_updates.is_some()
            || input.vector_index_updates.is_some()
            || input.stream_specification.is_some()
            || input.table_class.is_some();
        if !anything_else {
            return Ok(UpdateTableOutput { table_description: TableDescription::of(table, "UPDATING") });
        }
    }
    if let Some(class) = input.table_class.as_deref().map(crate::table::TableClass::parse).transpose()? {
        // A background conversion on DynamoDB (at most two a month, not enforced here: no capture
        // of the refusal); done at once here, like an index backfill.
        table.definition.table_class = Some(class);
        table.definition.table_class_changed_millis = Some(now);
        let anything_else = input.billing_mode.is_some()
            || input.provisioned_throughput.is_some()
            || input.global_secondary_index_updates.is_some()
            || input.vector_index_updates.is_some()
            || input.stream_specification.is_some();
        if !anything_else {
            return Ok(UpdateTableOutput { table_description: TableDescription::of(table, "UPDATING") });
        }
    }
    if let Some(spec) = &input.stream_specification {
        super::stream_specification::update(table, spec, now)?;
        if input.billing_mode.is_none()
            && input.provisioned_throughput.is_none()
            && input.global_secondary_index_updates.is_none()
            && input.vector_index_updates.is_none()
        {
            return Ok(UpdateTableOutput { table_description: TableDescription::of(table, "UPDATING") });
        }
    }
    if let Some(updates) = &input.global_secondary_index_updates {
        update_indexes(table, updates, input.attribute_definitions.as_deref().unwrap_or_default())?;
        if input.billing_mode.is_none()
            && input.provisioned_throughput.is_none()
            && input.vector_index_updates.is_none()
        {
            return Ok(UpdateTableOutput { table_description: TableDescription::of(table, "UPDATING") });
        }
    }
    if let Some(updates) = &input.vector_index_updates {
        update_vector_indexes(table, updates, input.attribute_definitions.as_deref().unwrap_or_default())?;
        if input.billing_mode.is_none() && input.provisioned_throughput.is_none() {
            return Ok(UpdateTableOutput { table_description: TableDescription::of(table, "UPDATING") });
        }
    }
    let current = table.definition.billing;
    let wanted_mode = input.billing_mode.as_deref();
    if !table.vector_indexes.is_empty()
        && (wanted_mode == Some("PROVISIONED") || input.provisioned_throughput.is_some())
    {
        return Err(super::vector_index_definitions::only_on_demand());
    }
    let next = match (wanted_mode, &input.provisioned_throughput, current) {
        (None, None, _) => {
            return Err(DynamoError::validation(
                "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required",
            ))
        }
        (Some("PAY_PER_REQUEST"), None, _) => BillingMode::PayPerRequest,
        (Some("PAY_PER_REQUEST"), Some(_), _) | (None, Some(_), BillingMode::PayPerRequest) => {
            return Err(DynamoError::validation(
                "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
            ))
        }
        (Some(_), None, BillingMode::PayPerRequest) => {
            return Err(DynamoError::validation(
                "One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED",
            ))
        }
        (_, None, provisioned) => provisioned,
        (_, Some(t), _) => BillingMode::Provisioned {
            read: t.read_capacity_units.unwrap_or(1) as u64,
            write: t.write_capacity_units.unwrap_or(1) as u64,
        },
    };
    if let (BillingMode::Provisioned { read: r0, write: w0 }, BillingMode::Provisioned { read, write }) =
        (current, next)
    {
        // PROVISIONED to PROVISIONED at the same throughput is refused too, BillingMode named or not.
        if input.provisioned_throughput.is_some() && r0 == read && w0 == write {
            return Err(DynamoError::validation(format!(
                "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnitsForTable: {r0}. Requested ReadCapacityUnitsForTable: {read}. Current WriteCapacityUnitsForTable: {w0}. Requested WriteCapacityUnitsForTable: {write}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
            )));
        }
        if read > r0 || write > w0 {
            table.definition.last_increase_millis = Some(now);
        }
        if read < r0 || write < w0 {
            table.definition.last_decrease_millis = Some(now);
            table.definition.decreases_today += 1;
        }
    }
    if next == BillingMode::PayPerRequest && current != BillingMode::PayPerRequest {
        table.definition.billing_changed_millis = now;
    }
    table.definition.billing = next;
    Ok(UpdateTableOutput { table_description: TableDescription::of(table, "UPDATING") })
}

/// Creates or deletes one GSI. A new index is filled from every item at once, so it is ACTIVE
/// when the call returns (DynamoDB backfills in the background; a lab has no reason to wait).
fn update_indexes(
    table: &mut Table,
    updates: &[GsiUpdate],
    new_definitions: &[AttributeDefinitionInput],
) -> Result<()> {
    if updates.len() != 1 {
        return Err(DynamoError::new(
            ErrorKind::LimitExceeded,
            "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
        ));
    }
    let update = &updates[0];
    match (&update.create, &update.delete, &update.update) {
        (Some(create), None, None) => {
            // The new index's keys must be defined in this request (the stored definitions do not
            // count), and an attribute already defined keeps its type whatever the request says
            // (eu-west-2, 2026-07: the conformance suite's issue #78, dynoxide's #144).
            let stored = &table.definition.attribute_definitions;
            let requested: Vec<KeyAttribute> = new_definitions
                .iter()
                .filter_map(|d| {
                    let name = d.attribute_name.clone()?;
                    let kind = d.attribute_type.as_deref().and_then(ScalarType::parse)?;
                    let kind = stored.iter().find(|existing| existing.name == name).map_or(kind, |existing| existing.kind);
                    Some(KeyAttribute { name, kind })
                })
                .collect();
            let mut definitions = stored.clone();
            for d in &requested {
                if !definitions.iter().any(|existing| existing.name == d.name) {
                    definitions.push(d.clone());
                }
            }
            let provisioned = match table.definition.billing {
                BillingMode::Provisioned { read, write } => Some((read, write)),
                BillingMode::PayPerRequest => None,
            };
            let mut parsed = index_definitions::parse(
                std::slice::from_ref(create),
                &[],
                &table.definition.key_schema,
                &requested,
                provisioned,
            )?;
            let definition = parsed.pop().ok_or_else(|| DynamoError::validation("Invalid GlobalSecondaryIndexUpdates"))?;
            if table.index(&definition.name).is_some() {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: Index with name {} already exists",
                    definition.name
                )));
            }
            if table.indexes.iter().filter(|i| i.definition.kind == IndexKind::Global).count() >= 20 {
                return Err(DynamoError::validation("GlobalSecondaryIndex count exceeds the per-table limit"));
            }
            let mut index = Index::new(definition);
            let key_names: Vec<String> = table.key_names().into_iter().map(String::from).collect();
            let key_names: Vec<&str> = key_names.iter().map(String::as_str).collect();
            for (key, stored) in table.storage.items() {
                let item = stored.item();
                // An item whose index key is too large stays out of the index, as a backfill's
                // violation does on DynamoDB (writes are refused; existing items cannot be).
                let too_large = index
                    .definition
                    .key_of(&item)
                    .is_some_and(|(hash, range)| crate::table::schema::check_key_sizes(&hash, &range).is_err());
                if too_large {
                    continue;
                }
                // A backfill is not charged, so it is not explained either.
                index.apply(&key, None, Some((&item, stored)), &key_names, None);
            }
            table.definition.attribute_definitions = definitions;
            table.indexes.push(index);
            Ok(())
        }
        (None, Some(delete), None) => {
            let name = delete.index_name.clone().unwrap_or_default();
            let position = table
                .indexes
                .iter()
                .position(|i| i.definition.name == name && i.definition.kind == IndexKind::Global)
                .ok_or_else(|| DynamoError::new(ErrorKind::ResourceNotFound, format!("Requested resource not found: Index: {name}")))?;
            table.indexes.remove(position);
            // Attribute definitions no index or key uses any more go with the index, as on DynamoDB.
            let mut used: Vec<String> = table.key_names().into_iter().map(String::from).collect();
            for index in &table.indexes {
                used.extend(index.definition.key_attributes().map(|a| a.name.clone()));
            }
            table.definition.attribute_definitions.retain(|d| used.contains(&d.name));
            Ok(())
        }
        (None, None, Some(update)) => {
            // A GSI's own on-demand caps and warm throughput change here; what else an Update
            // carries (its provisioned throughput) is taken as before.
            let name = update.index_name.as_deref().unwrap_or_default();
            if let Some(index) =
                table.indexes.iter_mut().find(|i| i.definition.name == name && i.definition.kind == IndexKind::Global)
            {
                if let Some(caps) = &update.on_demand_throughput {
                    index.definition.on_demand_max = super::table_settings::capped(index.definition.on_demand_max, caps);
                }
                if let Some(warm) = &update.warm_throughput {
                    index.definition.warm_throughput = Some(super::table_settings::warmed(index.definition.warm_throughput, warm));
                }
            }
            Ok(())
        }
        _ => Err(DynamoError::validation(
            "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Update or GlobalSecondaryIndexUpdate.Delete must be specified",
        )),
    }
}

/// Creates or deletes one vector index. A new index takes every item's vector at once (DynamoDB
/// backfills in the background); an item whose vector does not fit the index stays out of it.
fn update_vector_indexes(
    table: &mut Table,
    updates: &[VectorIndexUpdate],
    new_definitions: &[AttributeDefinitionInput],
) -> Result<()> {
    use crate::table::vector_index::VectorIndex;
    if updates.len() != 1 {
        return Err(DynamoError::new(
            ErrorKind::LimitExceeded,
            "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
        ));
    }
    match (&updates[0].create, &updates[0].delete) {
        (Some(create), None) => {
            let mut definitions = table.definition.attribute_definitions.clone();
            for d in new_definitions {
                let (Some(name), Some(kind)) =
                    (&d.attribute_name, d.attribute_type.as_deref().and_then(ScalarType::parse))
                else {
                    continue;
                };
                if !definitions.iter().any(|existing| &existing.name == name) {
                    definitions.push(KeyAttribute { name: name.clone(), kind });
                }
            }
            let existing: Vec<_> = table.vector_indexes.iter().map(|i| i.definition.clone()).collect();
            let other_names: Vec<&str> = table.indexes.iter().map(|i| i.definition.name.as_str()).collect();
            let mut parsed = super::vector_index_definitions::parse(
                std::slice::from_ref(create),
                &definitions,
                table.definition.billing == BillingMode::PayPerRequest,
                &existing,
                &other_names,
            )?;
            let mut index =
                VectorIndex::new(parsed.pop().ok_or_else(|| DynamoError::validation("Invalid VectorIndexUpdates"))?);
            let key_names: Vec<String> = table.key_names().into_iter().map(String::from).collect();
            let key_names: Vec<&str> = key_names.iter().map(String::as_str).collect();
            for (key, stored) in table.storage.items() {
                index.apply(&key, None, Some(&stored.item()), &key_names);
            }
            let used = super::vector_index_definitions::defined_names(std::slice::from_ref(&index.definition));
            for name in used {
                if !table.definition.attribute_definitions.iter().any(|d| d.name == name) {
                    if let Some(d) = definitions.iter().find(|d| d.name == name) {
                        table.definition.attribute_definitions.push(d.clone());
                    }
                }
            }
            table.vector_indexes.push(index);
            Ok(())
        }
        (None, Some(delete)) => {
            let name = delete.index_name.clone().unwrap_or_default();
            let position = table.vector_indexes.iter().position(|i| i.definition.name == name).ok_or_else(|| {
                DynamoError::new(ErrorKind::ResourceNotFound, format!("Requested resource not found: Index: {name}"))
            })?;
            table.vector_indexes.remove(position);
            Ok(())
        }
        _ => Err(DynamoError::validation(
            "One or more parameter values were invalid: One of Create or Delete must be given",
        )),
    }
}
