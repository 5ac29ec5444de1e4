//! SearchVectors: the TopK items of a vector index nearest a query vector, with their scores,
//! optionally narrowed by equalities on the index's search schema. DynamoDB serves it from its own
//! front end, which reads the body with a strict deserialiser (a null member is a
//! SerializationException quoting it, a missing one a ValidationException) and words its checks
//! without Coral's envelope. Messages as captured from DynamoDB in 2026 (docs/fidelity.md).

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::expression::ast::{CmpOp, Condition, Operand, Step};
use crate::expression::projection::project;
use crate::expression::resolve::{ExprKind, Placeholders};
use crate::table::vector_index::{as_f32, norm, SearchRole, VectorEntry, VectorIndex};
use crate::table::PrimaryKey;
use crate::value::{AttributeValue, Item, KeyValue, Number};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchVectorsInput {
    pub table_name: String,
    pub index_name: String,
    pub search_vector: Vec<serde_json::Value>,
    #[serde(rename = "TopK")]
    pub top_k: i32,
    #[serde(default)]
    pub search_condition_expression: Option<String>,
    #[serde(default)]
    pub expression_attribute_names: Option<HashMap<String, String>>,
    #[serde(default)]
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    #[serde(default)]
    pub projection_expression: Option<String>,
    #[serde(default)]
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchVectorsOutput {
    pub search_results: Vec<SearchResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<SearchCapacity>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchResult {
    pub item: Item,
    pub score: f64,
}

/// SearchVectors' capacity: bytes processed, with no units and no table name.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchCapacity {
    pub vector_search_request_bytes: u64,
}

const MAX_TOP_K: i32 = 100;

/// What the strict deserialiser says about a body it cannot read.
pub fn unreadable(error: &serde_json::Error) -> DynamoError {
    let message = error.to_string();
    if message.starts_with("missing field") {
        DynamoError::validation(message)
    } else {
        DynamoError::new(ErrorKind::Serialization, message)
    }
}

pub fn run(engine: &Engine, input: &SearchVectorsInput) -> Result<SearchVectorsOutput> {
    if !(1..=MAX_TOP_K).contains(&input.top_k) {
        return Err(DynamoError::validation(format!(
            "Provided TopK value '{}' is out of valid range. The value must be between 1 and 100 inclusive",
            input.top_k
        )));
    }
    let report = match input.return_consumed_capacity.as_deref() {
        None | Some("NONE") => false,
        Some("TOTAL" | "INDEXES") => true,
        Some(other) => {
            return Err(DynamoError::validation(format!(
                "Value '{other}' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
            )))
        }
    };
    let table = engine.table(&input.table_name)?;
    let index = table.vector_indexes.iter().find(|i| i.definition.name == input.index_name).ok_or_else(|| {
        DynamoError::validation(format!("The table does not have the specified index: {}", input.index_name))
    })?;
    let query = query_vector(&input.search_vector)?;
    if query.len() != index.definition.dimensions {
        return Err(DynamoError::validation(format!(
            "Input search vector dimension {} does not match vector index dimension {}",
            query.len(),
            index.definition.dimensions
        )));
    }
    let mut placeholders =
        Placeholders::new(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    let equalities = match &input.search_condition_expression {
        Some(text) => {
            let condition = placeholders.condition(ExprKind::SearchCondition, text)?;
            let mut equalities = Vec::new();
            collect_equalities(&condition, &mut equalities)?;
            equalities
        }
        None => Vec::new(),
    };
    let filters = schema_filters(index, equalities)?;
    let projection = match &input.projection_expression {
        Some(text) => Some(placeholders.projection(text)?),
        None => None,
    };
    placeholders.check_unused()?;

    let top_k = usize::try_from(input.top_k).unwrap_or(0);
    let scored = nearest(index, &query, &filters, top_k);
    let key_names = table.key_names();
    let search_results = scored
        .iter()
        .filter_map(|(score, key, vector)| {
            let item = table.storage.get(key)?.item();
            let item = result_item(index, &item, vector, projection.as_deref(), &key_names);
            Some(SearchResult { item, score: f64::from(*score) })
        })
        .collect::<Vec<_>>();
    let dimensions = index.definition.dimensions;
    let bytes = search_bytes(dimensions, search_results.len());
    if crate::explain::recording() {
        let results = search_results.len();
        crate::explain::vector(
            &input.table_name,
            &index.definition.name,
            crate::explain::StepKind::VectorSearch,
            &[],
            bytes,
            format!(
                "the query vector and {results} result vectors, {dimensions} dimensions × 4 B each (at least 1,024 B)"
            ),
        );
    }
    let consumed_capacity = report.then_some(SearchCapacity { vector_search_request_bytes: bytes });
    Ok(SearchVectorsOutput { search_results, consumed_capacity })
}

type Scored<'i> = (f32, &'i PrimaryKey, &'i [f32]);

/// The `top_k` entries nearest `query` among those the filters keep, nearest first; equal scores
/// in key order, so an answer never depends on the map's order. A search naming the HASH value
/// compares only that value's entries; the rest are kept to the best `top_k` as they come.
fn nearest<'i>(
    index: &'i VectorIndex,
    query: &[f32],
    filters: &[(usize, AttributeValue)],
    top_k: usize,
) -> Vec<Scored<'i>> {
    let distance = index.definition.distance;
    let query_norm = norm(query);
    let ranks = |a: &Scored<'_>, b: &Scored<'_>| distance.closer(a.0, b.0).then_with(|| a.1.cmp(b.1));
    let hash_keys = index
        .hash_position()
        .and_then(|at| filters.iter().find(|(i, _)| *i == at))
        .map(|(_, value)| KeyValue::from_attribute(value).and_then(|v| index.by_hash.get(&v)));
    let candidates: Box<dyn Iterator<Item = (&PrimaryKey, &VectorEntry)>> = match hash_keys {
        Some(Some(keys)) => Box::new(keys.iter().filter_map(|key| index.entries.get_key_value(key))),
        Some(None) => Box::new(std::iter::empty()),
        None => Box::new(index.entries.iter()),
    };
    let mut best: Vec<Scored<'i>> = Vec::with_capacity(2 * top_k);
    for (key, entry) in candidates {
        if !filters.iter().all(|(i, value)| entry.filters.get(*i).and_then(Option::as_ref) == Some(value)) {
            continue;
        }
        best.push((distance.score_with_norms(query, query_norm, &entry.vector, entry.norm), key, &entry.vector));
        if best.len() == 2 * top_k {
            best.select_nth_unstable_by(top_k - 1, ranks);
            best.truncate(top_k);
        }
    }
    best.sort_by(ranks);
    best.truncate(top_k);
    best
}

/// The query vector: every element `{"N": …}` that a 32-bit float holds.
fn query_vector(elements: &[serde_json::Value]) -> Result<Vec<f32>> {
    let invalid = || {
        DynamoError::validation(
            "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute",
        )
    };
    elements
        .iter()
        .map(|element| {
            let text = element.as_object().filter(|o| o.len() == 1).and_then(|o| o.get("N")).and_then(|n| n.as_str());
            let number = text.and_then(|t| Number::parse(t).ok()).ok_or_else(invalid)?;
            as_f32(&AttributeValue::N(number)).ok_or_else(invalid)
        })
        .collect()
}

/// The `attribute = :value` terms of a search condition, joined by AND; any other comparison or
/// form is refused as DynamoDB refuses it.
fn collect_equalities(condition: &Condition, out: &mut Vec<(String, AttributeValue)>) -> Result<()> {
    let comparator = || {
        DynamoError::validation(
            "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
        )
    };
    match condition {
        Condition::And(a, b) => {
            collect_equalities(a, out)?;
            collect_equalities(b, out)
        }
        Condition::Compare(CmpOp::Eq, Operand::Path(path), Operand::Value(value))
        | Condition::Compare(CmpOp::Eq, Operand::Value(value), Operand::Path(path)) => match path.as_slice() {
            [Step::Attr(name)] => {
                out.push((name.clone(), value.clone()));
                Ok(())
            }
            _ => Err(comparator()),
        },
        _ => Err(comparator()),
    }
}

/// Each equality as (search-schema position, value); a HASH attribute must have one.
fn schema_filters(
    index: &VectorIndex,
    equalities: Vec<(String, AttributeValue)>,
) -> Result<Vec<(usize, AttributeValue)>> {
    let schema = &index.definition.search_schema;
    let mut filters = Vec::new();
    for (name, value) in equalities {
        let Some(position) = schema.iter().position(|(a, _)| a.name == name) else {
            return Err(DynamoError::validation(format!(
                "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: {name}"
            )));
        };
        filters.push((position, value));
    }
    let hash_given = schema
        .iter()
        .enumerate()
        .filter(|(_, (_, role))| *role == SearchRole::Hash)
        .all(|(i, _)| filters.iter().any(|(at, _)| *at == i));
    if !hash_given {
        return Err(DynamoError::validation(
            "SearchConditionExpression must be provided when SearchSchema has a HASH key",
        ));
    }
    Ok(filters)
}

/// A result's item: what the index projects, without the vector unless the ProjectionExpression
/// names it, in which case the index's 32-bit copy is what comes back.
fn result_item(
    index: &VectorIndex,
    item: &Item,
    vector: &[f32],
    projection: Option<&[crate::expression::ast::DocPath]>,
    key_names: &[&str],
) -> Item {
    let d = &index.definition;
    let mut entry: Item =
        item.iter().filter(|(name, _)| d.projects(name, key_names)).map(|(k, v)| (k.clone(), v.clone())).collect();
    let Some(paths) = projection else {
        entry.remove(&d.attribute);
        return entry;
    };
    let copy = vector.iter().filter_map(|x| Number::parse(&x.to_string()).ok().map(AttributeValue::N)).collect();
    entry.insert(d.attribute.clone(), AttributeValue::L(copy));
    project(&entry, paths)
}

/// `VectorSearchRequestBytes`. DynamoDB's figure varies from one identical search to the next
/// (five 512-dimension searches reported 14,214, 13,903, 14,214, 14,214 and 14,518); Dynalab
/// counts the query vector and each result's vector at 4 bytes a dimension, at least 1,024, a
/// deterministic figure of the same order (docs/fidelity.md).
pub fn search_bytes(dimensions: usize, results: usize) -> u64 {
    (4 * dimensions * (1 + results)).max(1024) as u64
}
