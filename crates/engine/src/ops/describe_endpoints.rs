//! DescribeEndpoints: where to send requests. The engine answers with the regional address, as
//! DynamoDB does; `dynalab serve` replaces it with its own address, so an SDK that uses endpoint
//! discovery keeps talking to the lab.

use crate::engine::Engine;
use crate::error::Result;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct DescribeEndpointsInput {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Endpoint {
    pub address: String,
    pub cache_period_in_minutes: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeEndpointsOutput {
    pub endpoints: Vec<Endpoint>,
}

pub fn run(_: &mut Engine, _: DescribeEndpointsInput) -> Result<DescribeEndpointsOutput> {
    Ok(DescribeEndpointsOutput {
        endpoints: vec![Endpoint {
            address: format!("dynamodb.{}.amazonaws.com", crate::REGION),
            cache_period_in_minutes: 1440,
        }],
    })
}
