//! UpdateContinuousBackups: point-in-time recovery turned on or off, with its recovery period
//! (1–35 days, 35 when not given). The lab keeps no history to restore from —
//! RestoreTableToPointInTime stays a cloud-only operation — but the setting and its window are
//! kept and described as DynamoDB describes them, so tools that turn PITR on (every CDK and
//! Terraform module does) run unchanged.

use super::describe_continuous_backups::{description, Description};
use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::validate::Violations;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateContinuousBackupsInput {
    pub table_name: Option<String>,
    pub point_in_time_recovery_specification: Option<Specification>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Specification {
    pub point_in_time_recovery_enabled: Option<bool>,
    pub recovery_period_in_days: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateContinuousBackupsOutput {
    pub continuous_backups_description: Description,
}

/// The recovery period when none is given.
const DEFAULT_DAYS: u32 = 35;

pub fn run(engine: &mut Engine, input: UpdateContinuousBackupsInput) -> Result<UpdateContinuousBackupsOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.required("pointInTimeRecoverySpecification", input.point_in_time_recovery_specification.as_ref());
    if let Some(spec) = &input.point_in_time_recovery_specification {
        v.required(
            "pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled",
            spec.point_in_time_recovery_enabled.as_ref(),
        );
        v.at_least("pointInTimeRecoverySpecification.recoveryPeriodInDays", spec.recovery_period_in_days, 1);
        v.at_most("pointInTimeRecoverySpecification.recoveryPeriodInDays", spec.recovery_period_in_days, 35);
    }
    v.finish()?;
    let name = input.table_name.unwrap_or_default();
    let now = engine.now_millis();
    let Some(table) = engine.tables.get_mut(&name).map(std::sync::Arc::make_mut) else {
        return Err(DynamoError::new(ErrorKind::TableNotFound, format!("Table not found: {name}")));
    };
    let spec = input
        .point_in_time_recovery_specification
        .unwrap_or(Specification { point_in_time_recovery_enabled: None, recovery_period_in_days: None });
    table.changes += 1;
    table.definition.point_in_time_recovery = if spec.point_in_time_recovery_enabled == Some(true) {
        let days = spec.recovery_period_in_days.map_or(DEFAULT_DAYS, |d| d as u32);
        // Turning it on again keeps the window it already has.
        let since = table.definition.point_in_time_recovery.map_or(now, |(since, _)| since);
        Some((since, days))
    } else {
        None
    };
    Ok(UpdateContinuousBackupsOutput { continuous_backups_description: description(&table.definition, now) })
}
