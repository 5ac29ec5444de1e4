//! ListTables, paged by name.

use crate::engine::Engine;
use crate::error::Result;
use crate::validate::Violations;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTablesInput {
    pub exclusive_start_table_name: Option<String>,
    /// An Integer on the wire (32 bits): a larger number is a SerializationException, as on DynamoDB.
    pub limit: Option<i32>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTablesOutput {
    pub table_names: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_table_name: Option<String>,
}

const DEFAULT_LIMIT: usize = 100;

pub fn run(engine: &Engine, input: &ListTablesInput) -> Result<ListTablesOutput> {
    let mut v = Violations::new();
    if let Some(start) = &input.exclusive_start_table_name {
        v.name_rules("exclusiveStartTableName", start, 3);
    }
    v.at_least("limit", input.limit, 1);
    v.at_most("limit", input.limit, 100);
    v.finish()?;
    let limit = input.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
    let names: Vec<&String> = engine
        .tables
        .keys()
        .filter(|name| input.exclusive_start_table_name.as_ref().is_none_or(|start| *name > start))
        .collect();
    let page: Vec<String> = names.iter().take(limit).map(|n| (*n).clone()).collect();
    // The last name only when more tables follow (as DynamoDB Local does).
    let last = (names.len() > limit).then(|| page[limit - 1].clone());
    Ok(ListTablesOutput { table_names: page, last_evaluated_table_name: last })
}
