//! DescribeLimits: the default quotas of a region (fact sheet §3; DynamoDB Local answers the same).

use crate::engine::Engine;
use crate::error::Result;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct DescribeLimitsInput {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeLimitsOutput {
    pub account_max_read_capacity_units: u64,
    pub account_max_write_capacity_units: u64,
    pub table_max_read_capacity_units: u64,
    pub table_max_write_capacity_units: u64,
}

pub fn run(_: &mut Engine, _: DescribeLimitsInput) -> Result<DescribeLimitsOutput> {
    Ok(DescribeLimitsOutput {
        account_max_read_capacity_units: 80_000,
        account_max_write_capacity_units: 80_000,
        table_max_read_capacity_units: 40_000,
        table_max_write_capacity_units: 40_000,
    })
}
