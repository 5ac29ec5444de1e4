//! DescribeTimeToLive.

use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::validate::Violations;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeTimeToLiveInput {
    pub table_name: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeTimeToLiveOutput {
    pub time_to_live_description: Description,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Description {
    pub time_to_live_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_name: Option<String>,
}

pub fn run(engine: &mut Engine, input: DescribeTimeToLiveInput) -> Result<DescribeTimeToLiveOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.finish()?;
    let name = input.table_name.unwrap_or_default();
    let table = engine.tables.get(&name).ok_or_else(|| DynamoError::named_table_not_found(&name))?;
    let description = match &table.time_to_live {
        Some(attribute) => Description { time_to_live_status: "ENABLED", attribute_name: Some(attribute.clone()) },
        None => Description { time_to_live_status: "DISABLED", attribute_name: None },
    };
    Ok(DescribeTimeToLiveOutput { time_to_live_description: description })
}
