//! Table settings CreateTable and UpdateTable both take and every description shows: encryption
//! at rest (`SSESpecification` → `SSEDescription`) and on-demand throughput caps
//! (`OnDemandThroughput`). Encryption is a setting here, not a cipher: the engine keeps items in
//! memory either way, and says what DynamoDB would.

use crate::table::TableDefinition;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct SseSpecificationInput {
    #[serde(rename = "Enabled")]
    pub enabled: Option<bool>,
    #[serde(rename = "SSEType")]
    pub sse_type: Option<String>,
    #[serde(rename = "KMSMasterKeyId")]
    pub kms_master_key_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct OnDemandThroughputInput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_read_request_units: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_write_request_units: Option<i64>,
}

/// `SSEDescription` of a table encrypted with a KMS key.
#[derive(Debug, Serialize)]
pub struct SseDescription {
    #[serde(rename = "Status")]
    pub status: &'static str,
    #[serde(rename = "SSEType")]
    pub sse_type: &'static str,
    #[serde(rename = "KMSMasterKeyArn")]
    pub kms_master_key_arn: String,
}

/// The AWS-managed key (`aws/dynamodb`) of the lab's account and region.
const AWS_MANAGED_KEY: &str = "arn:aws:kms:us-east-1:000000000000:key/00000000-0000-4000-8000-00000000d1a8";

/// Applies an `SSESpecification`: enabled (or of type KMS) is a KMS key — the one named, else the
/// AWS-managed key; disabled is the AWS-owned key.
pub fn apply_sse(definition: &mut TableDefinition, spec: &SseSpecificationInput) {
    let kms = spec.enabled == Some(true) || spec.sse_type.as_deref() == Some("KMS");
    definition.kms_key_arn = kms.then(|| match spec.kms_master_key_id.as_deref() {
        Some(arn) if arn.starts_with("arn:") => arn.to_string(),
        Some(id) => format!("arn:aws:kms:us-east-1:000000000000:key/{id}"),
        None => AWS_MANAGED_KEY.to_string(),
    });
}

/// Applies `OnDemandThroughput`: each cap given is set (`-1` removes it), one not given stays.
pub fn apply_on_demand(definition: &mut TableDefinition, caps: &OnDemandThroughputInput) {
    let set = |current: Option<i64>, given: Option<i64>| match given {
        Some(-1) => None,
        Some(units) => Some(units),
        None => current,
    };
    let (read, write) = definition.on_demand_max;
    definition.on_demand_max = (set(read, caps.max_read_request_units), set(write, caps.max_write_request_units));
}

pub fn sse_description(definition: &TableDefinition) -> Option<SseDescription> {
    definition.kms_key_arn.as_ref().map(|arn| SseDescription {
        status: "ENABLED",
        sse_type: "KMS",
        kms_master_key_arn: arn.clone(),
    })
}

pub fn on_demand_description(definition: &TableDefinition) -> Option<OnDemandThroughputInput> {
    let (read, write) = definition.on_demand_max;
    (read.is_some() || write.is_some())
        .then_some(OnDemandThroughputInput { max_read_request_units: read, max_write_request_units: write })
}
