//! GlobalSecondaryIndexes / LocalSecondaryIndexes as CreateTable and UpdateTable receive them:
//! parsed, checked against the table, turned into index definitions.

use super::create_table::{KeySchemaElementInput, ProvisionedThroughputInput};
use crate::error::{DynamoError, Result};
use crate::table::{IndexDefinition, IndexKind, KeyAttribute, KeySchema, Projection};
use crate::validate::Violations;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProjectionInput {
    pub projection_type: Option<String>,
    pub non_key_attributes: Option<Vec<String>>,
}

/// A GSI or LSI as sent (an LSI has no throughput).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexInput {
    pub index_name: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElementInput>>,
    pub projection: Option<ProjectionInput>,
    pub provisioned_throughput: Option<ProvisionedThroughputInput>,
    /// A GSI's own on-demand caps and warm throughput (an LSI shares its table's).
    pub on_demand_throughput: Option<super::table_settings::OnDemandThroughputInput>,
    pub warm_throughput: Option<super::table_settings::WarmThroughputInput>,
}

const MAX_GSI: usize = 20;
const MAX_LSI: usize = 5;
const MAX_GSI_KEYS_PER_KIND: usize = 4;
const MAX_PROJECTED: usize = 100;

/// Coral's shape checks of an index list, with AWS's field paths.
pub fn check_shapes(v: &mut Violations, field: &str, indexes: &[IndexInput]) {
    for (i, index) in indexes.iter().enumerate() {
        check_shapes_of_one(v, &format!("{field}.{}.member", i + 1), index);
    }
}

/// Coral's shape checks of one index at `member` (`globalSecondaryIndexUpdates.1.member.create`).
pub fn check_shapes_of_one(v: &mut Violations, member: &str, index: &IndexInput) {
    match &index.index_name {
        Some(name) => v.name_rules(&format!("{member}.indexName"), name, 3),
        None => v.required::<String>(&format!("{member}.indexName"), None),
    }
    v.required(&format!("{member}.keySchema"), index.key_schema.as_ref());
    v.required(&format!("{member}.projection"), index.projection.as_ref());
    if let Some(projection) = &index.projection {
        v.one_of(
            &format!("{member}.projection.projectionType"),
            projection.projection_type.as_ref(),
            &["ALL", "KEYS_ONLY", "INCLUDE"],
        );
        v.projected_names(&format!("{member}.projection.nonKeyAttributes"), projection.non_key_attributes.as_ref());
    }
    for (j, element) in index.key_schema.iter().flatten().enumerate() {
        let at = format!("{member}.keySchema.{}.member", j + 1);
        v.required(&format!("{at}.attributeName"), element.attribute_name.as_ref());
        v.key_attribute_name(&format!("{at}.attributeName"), element.attribute_name.as_ref());
        v.one_of(&format!("{at}.keyType"), element.key_type.as_ref(), &["HASH", "RANGE"]);
    }
}

/// Index definitions from the request, checked against the table's key and attribute definitions.
pub fn parse(
    globals: &[IndexInput],
    locals: &[IndexInput],
    table_key: &KeySchema,
    definitions: &[KeyAttribute],
    provisioned: Option<(u64, u64)>,
) -> Result<Vec<IndexDefinition>> {
    if !locals.is_empty() && table_key.range.is_none() {
        return Err(DynamoError::validation(
            "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
        ));
    }
    if locals.len() > MAX_LSI {
        return Err(DynamoError::validation("Cannot have more than 5 local secondary indexes per table"));
    }
    if globals.len() > MAX_GSI {
        return Err(DynamoError::validation("GlobalSecondaryIndex count exceeds the per-table limit"));
    }
    let mut out: Vec<IndexDefinition> = Vec::new();
    for (kind, input) in
        globals.iter().map(|g| (IndexKind::Global, g)).chain(locals.iter().map(|l| (IndexKind::Local, l)))
    {
        let definition = one(kind, input, table_key, definitions, provisioned)?;
        if out.iter().any(|d| d.name == definition.name) {
            return Err(DynamoError::validation(format!(
                "One or more parameter values were invalid: Duplicate index name: {}",
                definition.name
            )));
        }
        out.push(definition);
    }
    let projected: usize =
        out.iter().map(|d| if let Projection::Include(n) = &d.projection { n.len() } else { 0 }).sum();
    if projected > MAX_PROJECTED {
        // The limit DynamoDB enforces is 100 across all indexes; its message still says 20 (fact sheet §5 #68).
        return Err(DynamoError::validation(
            "No more than 20 attributes per table can be projected into Local Secondary Indices",
        ));
    }
    Ok(out)
}

fn one(
    kind: IndexKind,
    input: &IndexInput,
    table_key: &KeySchema,
    definitions: &[KeyAttribute],
    provisioned: Option<(u64, u64)>,
) -> Result<IndexDefinition> {
    let name = input.index_name.clone().unwrap_or_default();
    let elements = input.key_schema.clone().unwrap_or_default();
    let key_type = |e: &KeySchemaElementInput| e.key_type.clone().unwrap_or_default();
    let attribute_name = |e: &KeySchemaElementInput| e.attribute_name.clone().unwrap_or_default();
    let hash_names: Vec<String> = elements.iter().filter(|e| key_type(e) == "HASH").map(attribute_name).collect();
    let range_names: Vec<String> = elements.iter().filter(|e| key_type(e) == "RANGE").map(attribute_name).collect();
    if elements.first().is_none_or(|e| key_type(e) != "HASH") {
        return Err(DynamoError::validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type"));
    }
    // Multi-attribute keys list every HASH element before any RANGE one. No capture of the
    // service's words for this or for a repeated name was found (docs/fidelity.md).
    if elements.windows(2).any(|pair| key_type(&pair[0]) == "RANGE" && key_type(&pair[1]) == "HASH") {
        return Err(DynamoError::validation(
            "Invalid KeySchema: A HASH KeySchemaElement follows a RANGE KeySchemaElement; every HASH key attribute must come first",
        ));
    }
    match kind {
        IndexKind::Global => {
            if hash_names.len() > MAX_GSI_KEYS_PER_KIND {
                return Err(DynamoError::validation("Too many partition keys. GSI can have at most 4 partition keys"));
            }
            if range_names.len() > MAX_GSI_KEYS_PER_KIND {
                return Err(DynamoError::validation("Too many sort keys. GSI can have at most 4 sort keys"));
            }
        }
        IndexKind::Local => {
            if elements.len() == 1 {
                // DynamoDB Local's words (no capture of the service's).
                return Err(DynamoError::validation("Local secondary indices must have a range key"));
            }
            if hash_names.len() != 1 || range_names.len() != 1 || elements.len() != 2 {
                return Err(DynamoError::validation(
                    "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table",
                ));
            }
            if hash_names[0] != table_key.hash.name {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: {name}. index hash key: {}, table hash key: {}",
                    hash_names[0], table_key.hash.name
                )));
            }
            if table_key.range.as_ref().is_some_and(|r| r.name == range_names[0]) {
                // dynoxide's capture of the real service; Local accepts such an index.
                return Err(DynamoError::validation(
                    "One or more parameter values were invalid: Index KeySchema: The index KeySchema must not be the same as the table KeySchema",
                ));
            }
        }
    }
    let mut seen: Vec<&String> = Vec::new();
    for n in hash_names.iter().chain(range_names.iter()) {
        if seen.contains(&n) {
            return Err(DynamoError::validation(format!(
                "Invalid KeySchema: Duplicate key attribute in the KeySchema of index {name}; attribute name: {n}"
            )));
        }
        seen.push(n);
    }
    let lookup = |n: &String| definitions.iter().find(|d| &d.name == n).cloned();
    let missing: Vec<&String> = hash_names.iter().chain(range_names.iter()).filter(|n| lookup(n).is_none()).collect();
    if !missing.is_empty() {
        let defined: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
        return Err(DynamoError::validation(format!(
            "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [{}], AttributeDefinitions: [{}]",
            missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
            defined.join(", ")
        )));
    }
    let projection = projection(input.projection.as_ref())?;
    let throughput = match (kind, &input.provisioned_throughput, provisioned) {
        (IndexKind::Local, _, _) | (IndexKind::Global, None, None) => None,
        (IndexKind::Global, Some(t), _) => {
            Some((t.read_capacity_units.unwrap_or(1).max(1) as u64, t.write_capacity_units.unwrap_or(1).max(1) as u64))
        }
        (IndexKind::Global, None, Some(_)) => {
            return Err(DynamoError::validation(format!(
                "One or more parameter values were invalid: ProvisionedThroughput is not specified for index: {name}"
            )))
        }
    };
    Ok(IndexDefinition {
        name,
        kind,
        hash: hash_names.iter().filter_map(lookup).collect(),
        range: range_names.iter().filter_map(lookup).collect(),
        projection,
        throughput,
        on_demand_max: input
            .on_demand_throughput
            .as_ref()
            .filter(|_| kind == IndexKind::Global)
            .map_or((None, None), |caps| super::table_settings::capped((None, None), caps)),
        warm_throughput: input
            .warm_throughput
            .as_ref()
            .filter(|_| kind == IndexKind::Global)
            .map(|warm| super::table_settings::warmed(None, warm)),
    })
}

/// Every attribute definition must be a key of the table or of an index.
pub fn check_definitions_used(
    definitions: &[KeyAttribute],
    table_key: &KeySchema,
    indexes: &[IndexDefinition],
    search_schema: &[&str],
) -> Result<()> {
    let mut used: Vec<&str> = vec![table_key.hash.name.as_str()];
    used.extend(table_key.range.as_ref().map(|r| r.name.as_str()));
    for name in search_schema {
        if !used.contains(name) {
            used.push(name);
        }
    }
    for index in indexes {
        for attribute in index.key_attributes() {
            if !used.contains(&attribute.name.as_str()) {
                used.push(&attribute.name);
            }
        }
    }
    if definitions.len() == used.len() {
        return Ok(());
    }
    if indexes.is_empty() {
        return Err(DynamoError::validation(
            "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions",
        ));
    }
    let defined: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
    Err(DynamoError::validation(format!(
        "One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [{}], keys used: [{}]",
        defined.join(", "),
        used.join(", ")
    )))
}

/// An index's `Projection` (a GSI's, an LSI's or a vector index's): ALL when none is given.
pub fn projection(input: Option<&ProjectionInput>) -> Result<Projection> {
    let Some(input) = input else { return Ok(Projection::All) };
    match (input.projection_type.as_deref(), &input.non_key_attributes) {
        (Some("INCLUDE"), Some(names)) if !names.is_empty() => Ok(Projection::Include(names.clone())),
        (Some("INCLUDE"), _) => Err(DynamoError::validation(
            "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified",
        )),
        (Some(other), Some(_)) => Err(DynamoError::validation(format!(
            "One or more parameter values were invalid: ProjectionType is {other}, but NonKeyAttributes is specified"
        ))),
        (Some("KEYS_ONLY"), None) => Ok(Projection::KeysOnly),
        _ => Ok(Projection::All),
    }
}
