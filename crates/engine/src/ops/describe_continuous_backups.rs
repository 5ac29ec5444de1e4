//! DescribeContinuousBackups. Point-in-time recovery exists only in the AWS cloud, so every table
//! describes it as off (what a new table reports); continuous backups themselves show ENABLED,
//! as on DynamoDB. A missing table is DynamoDB's TableNotFoundException (moto's recording:
//! "Table not found: NAME"), not the ResourceNotFoundException of other operations.

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::validate::Violations;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeContinuousBackupsInput {
    pub table_name: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeContinuousBackupsOutput {
    pub continuous_backups_description: Description,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Description {
    pub continuous_backups_status: &'static str,
    pub point_in_time_recovery_description: PointInTimeRecovery,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PointInTimeRecovery {
    pub point_in_time_recovery_status: &'static str,
}

pub fn run(engine: &mut Engine, input: DescribeContinuousBackupsInput) -> Result<DescribeContinuousBackupsOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.finish()?;
    let name = input.table_name.unwrap_or_default();
    if !engine.tables.contains_key(&name) {
        return Err(DynamoError::new(ErrorKind::TableNotFound, format!("Table not found: {name}")));
    }
    Ok(DescribeContinuousBackupsOutput {
        continuous_backups_description: Description {
            continuous_backups_status: "ENABLED",
            point_in_time_recovery_description: PointInTimeRecovery { point_in_time_recovery_status: "DISABLED" },
        },
    })
}
