//! `VectorIndexes` as CreateTable and UpdateTable receive them: Coral's shape checks, then
//! DynamoDB's rules (captured in 2026: only on PAY_PER_REQUEST tables, at most 5, 1 to 4,096
//! dimensions, one dimension count per vector attribute, a search schema of defined attributes).

use super::index_definitions::ProjectionInput;
use crate::error::{DynamoError, Result};
use crate::table::vector_index::{Distance, SearchRole, VectorIndexDefinition};
use crate::table::KeyAttribute;
use crate::validate::Violations;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorAttributeInput {
    pub attribute_name: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchSchemaElementInput {
    pub attribute_name: Option<String>,
    pub search_schema_element_type: Option<String>,
}

/// One vector index as sent.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorIndexInput {
    pub index_name: Option<String>,
    pub vector_attribute: Option<VectorAttributeInput>,
    pub dimensions: Option<i64>,
    pub distance_function: Option<String>,
    pub projection: Option<ProjectionInput>,
    pub search_schema: Option<Vec<SearchSchemaElementInput>>,
}

const MAX_VECTOR_INDEXES: usize = 5;
const MAX_DIMENSIONS: i64 = 4096;

/// Coral's checks of one vector index at `member` (`vectorIndexes.1.member`).
pub fn check_shape(v: &mut Violations, member: &str, index: &VectorIndexInput) {
    match &index.index_name {
        Some(name) => v.name_rules(&format!("{member}.indexName"), name, 3),
        None => v.required::<String>(&format!("{member}.indexName"), None),
    }
    v.required(&format!("{member}.vectorAttribute"), index.vector_attribute.as_ref());
    if let Some(attribute) = &index.vector_attribute {
        v.required(&format!("{member}.vectorAttribute.attributeName"), attribute.attribute_name.as_ref());
    }
    v.required(&format!("{member}.dimensions"), index.dimensions.as_ref());
    v.required(&format!("{member}.distanceFunction"), index.distance_function.as_ref());
    v.one_of(&format!("{member}.distanceFunction"), index.distance_function.as_ref(), &Distance::NAMES);
    v.required(&format!("{member}.projection"), index.projection.as_ref());
    if let Some(projection) = &index.projection {
        v.one_of(
            &format!("{member}.projection.projectionType"),
            projection.projection_type.as_ref(),
            &["ALL", "KEYS_ONLY", "INCLUDE"],
        );
        v.projected_names(&format!("{member}.projection.nonKeyAttributes"), projection.non_key_attributes.as_ref());
    }
    for (i, element) in index.search_schema.iter().flatten().enumerate() {
        let at = format!("{member}.searchSchema.{}.member", i + 1);
        v.required(&format!("{at}.attributeName"), element.attribute_name.as_ref());
        v.required(&format!("{at}.searchSchemaElementType"), element.search_schema_element_type.as_ref());
        v.one_of(
            &format!("{at}.searchSchemaElementType"),
            element.search_schema_element_type.as_ref(),
            &["HASH", "INLINE_FILTER"],
        );
    }
}

/// The indexes a table will have, checked against its billing, its attribute definitions and the
/// names its other indexes (and vector indexes) already take.
pub fn parse(
    inputs: &[VectorIndexInput],
    definitions: &[KeyAttribute],
    pay_per_request: bool,
    existing: &[VectorIndexDefinition],
    other_index_names: &[&str],
) -> Result<Vec<VectorIndexDefinition>> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    if !pay_per_request {
        return Err(only_on_demand());
    }
    if inputs.len() + existing.len() > MAX_VECTOR_INDEXES {
        return Err(DynamoError::validation(
            "One or more parameter values were invalid: VectorIndex count exceeds the per-table limit of 5",
        ));
    }
    let mut parsed: Vec<VectorIndexDefinition> = Vec::new();
    for input in inputs {
        let name = input.index_name.clone().unwrap_or_default();
        let dimensions = input.dimensions.unwrap_or_default();
        if !(1..=MAX_DIMENSIONS).contains(&dimensions) {
            return Err(DynamoError::validation(
                "One or more parameter values were invalid: Number of dimensions must be between 1 and 4096 inclusive.",
            ));
        }
        let projection = super::index_definitions::projection(input.projection.as_ref())?;
        let mut search_schema = Vec::new();
        for element in input.search_schema.iter().flatten() {
            let attribute_name = element.attribute_name.clone().unwrap_or_default();
            let attribute = definitions.iter().find(|d| d.name == attribute_name).cloned().ok_or_else(|| {
                DynamoError::validation(
                    "One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions",
                )
            })?;
            let role = match element.search_schema_element_type.as_deref() {
                Some("HASH") => SearchRole::Hash,
                _ => SearchRole::InlineFilter,
            };
            search_schema.push((attribute, role));
        }
        let taken =
            other_index_names.contains(&name.as_str()) || existing.iter().chain(&parsed).any(|d| d.name == name);
        if taken {
            return Err(DynamoError::validation(format!(
                "One or more parameter values were invalid: Duplicate index name: {name}"
            )));
        }
        let attribute = input.vector_attribute.as_ref().and_then(|a| a.attribute_name.clone()).unwrap_or_default();
        let dimensions = usize::try_from(dimensions).unwrap_or_default();
        if existing.iter().chain(&parsed).any(|d| d.attribute == attribute && d.dimensions != dimensions) {
            return Err(DynamoError::validation(format!(
                "One or more parameter values were invalid: Conflicting attribute definition for '{attribute}'. All VectorIndexes on the same vector attribute must use the same dimensions."
            )));
        }
        let distance = input.distance_function.as_deref().and_then(Distance::parse).unwrap_or(Distance::Cosine);
        parsed.push(VectorIndexDefinition { name, attribute, dimensions, distance, projection, search_schema });
    }
    Ok(parsed)
}

pub fn only_on_demand() -> DynamoError {
    DynamoError::validation(
        "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables",
    )
}

/// The names a table's vector indexes read, which its AttributeDefinitions may define.
pub fn defined_names(indexes: &[VectorIndexDefinition]) -> Vec<&str> {
    indexes.iter().flat_map(|d| d.search_schema.iter().map(|(a, _)| a.name.as_str())).collect()
}
