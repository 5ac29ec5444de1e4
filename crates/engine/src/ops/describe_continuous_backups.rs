//! DescribeContinuousBackups: point-in-time recovery as UpdateContinuousBackups set it (off for a
//! new table), its window when on; continuous backups themselves show ENABLED, as on DynamoDB. A
//! missing table is DynamoDB's TableNotFoundException (moto's recording: "Table not found: NAME"),
//! not the ResourceNotFoundException of other operations.

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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_period_in_days: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest_restorable_date_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_restorable_date_time: Option<f64>,
}

/// What a table's continuous backups look like at `now_millis`: when recovery is on, restorable
/// from when it was turned on (or the start of its period) to five minutes ago, as DynamoDB lags.
pub fn description(definition: &crate::table::TableDefinition, now_millis: u64) -> Description {
    let seconds = |millis: u64| millis as f64 / 1000.0;
    let recovery = match definition.point_in_time_recovery {
        Some((since, days)) => {
            let period_start = now_millis.saturating_sub(u64::from(days) * 86_400_000);
            let latest = now_millis.saturating_sub(300_000).max(since);
            PointInTimeRecovery {
                point_in_time_recovery_status: "ENABLED",
                recovery_period_in_days: Some(days),
                earliest_restorable_date_time: Some(seconds(since.max(period_start))),
                latest_restorable_date_time: Some(seconds(latest)),
            }
        }
        None => PointInTimeRecovery {
            point_in_time_recovery_status: "DISABLED",
            recovery_period_in_days: None,
            earliest_restorable_date_time: None,
            latest_restorable_date_time: None,
        },
    };
    Description { continuous_backups_status: "ENABLED", point_in_time_recovery_description: recovery }
}

pub fn run(engine: &mut Engine, input: DescribeContinuousBackupsInput) -> Result<DescribeContinuousBackupsOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.finish()?;
    let name = input.table_name.unwrap_or_default();
    let now = engine.now_millis();
    let Some(table) = engine.tables.get(&name) else {
        return Err(DynamoError::new(ErrorKind::TableNotFound, format!("Table not found: {name}")));
    };
    Ok(DescribeContinuousBackupsOutput { continuous_backups_description: description(&table.definition, now) })
}
