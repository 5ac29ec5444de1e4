//! UpdateTimeToLive: turns expiry on (naming the epoch-seconds attribute) or off. Expired items are
//! removed by [`Engine::expire_items`](crate::Engine::expire_items), not by this call.

use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::validate::Violations;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTimeToLiveInput {
    pub table_name: Option<String>,
    pub time_to_live_specification: Option<Specification>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Specification {
    pub enabled: Option<bool>,
    pub attribute_name: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTimeToLiveOutput {
    pub time_to_live_specification: Specification,
}

pub fn run(engine: &mut Engine, input: UpdateTimeToLiveInput) -> Result<UpdateTimeToLiveOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.required("timeToLiveSpecification", input.time_to_live_specification.as_ref());
    if let Some(spec) = &input.time_to_live_specification {
        v.required("timeToLiveSpecification.enabled", spec.enabled.as_ref());
        v.required("timeToLiveSpecification.attributeName", spec.attribute_name.as_ref());
        if let Some(name) = &spec.attribute_name {
            let shown = format!("'{name}'");
            v.length("timeToLiveSpecification.attributeName", &shown, name.chars().count(), 1, 255);
        }
    }
    v.finish()?;
    let name = input.table_name.unwrap_or_default();
    let spec = input.time_to_live_specification.unwrap_or(Specification { enabled: None, attribute_name: None });
    let (enabled, attribute) = (spec.enabled.unwrap_or(false), spec.attribute_name.clone().unwrap_or_default());
    let table = engine
        .tables
        .get_mut(&name)
        .map(std::sync::Arc::make_mut)
        .ok_or_else(|| DynamoError::named_table_not_found(&name))?;
    // Counted even if refused below: a logged request that fails again on replay is harmless.
    table.changes += 1;
    // The wording is DynamoDB Local's (fact sheet §7, row 84).
    match (&table.time_to_live, enabled) {
        (Some(current), _) if *current != attribute => {
            return Err(DynamoError::validation("TimeToLive is active on a different AttributeName"))
        }
        (Some(_), true) => return Err(DynamoError::validation("TimeToLive is already enabled")),
        (None, false) => return Err(DynamoError::validation("TimeToLive is already disabled")),
        _ => {}
    }
    table.time_to_live = enabled.then_some(attribute);
    Ok(UpdateTimeToLiveOutput { time_to_live_specification: spec })
}
