//! DeleteTable. The description it answers is the table's as it goes, without its global
//! secondary indexes: DynamoDB leaves them out (dynalite's suite, checked against DynamoDB, asserts
//! that the key is absent); local secondary indexes stay.

use super::TableDescription;
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::validate::Violations;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeleteTableInput {
    pub table_name: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeleteTableOutput {
    pub table_description: TableDescription,
}

pub fn run(engine: &mut Engine, input: DeleteTableInput) -> Result<DeleteTableOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.finish()?;
    let name = input.table_name.unwrap_or_default();
    let protected = engine
        .tables
        .get(&name)
        .ok_or_else(|| DynamoError::named_table_not_found(&name))?
        .definition
        .deletion_protection;
    if protected {
        // DynamoDB's wording (a ValidationException, as the 2026 conformance suite records it).
        return Err(DynamoError::validation(
            "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.",
        ));
    }
    let table = engine.remove_table(&name).ok_or_else(|| DynamoError::named_table_not_found(&name))?;
    let mut table_description = TableDescription::of(&table, "DELETING");
    table_description.global_secondary_indexes = None;
    Ok(DeleteTableOutput { table_description })
}
