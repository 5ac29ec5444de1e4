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

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct WarmThroughputInput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_units_per_second: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_units_per_second: Option<i64>,
}

/// `WarmThroughput` as DescribeTable shows it: ready at once here (DynamoDB says UPDATING while it
/// prepares the partitions).
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct WarmThroughputDescription {
    pub read_units_per_second: i64,
    pub write_units_per_second: i64,
    pub status: &'static str,
}

/// What a new table is ready for before anyone raises it: 12,000 reads and 4,000 writes a second
/// (the AWS developer guide's warm-throughput scenarios).
const DEFAULT_WARM: (i64, i64) = (12_000, 4_000);

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

/// Applies `OnDemandThroughput` to a table.
pub fn apply_on_demand(definition: &mut TableDefinition, caps: &OnDemandThroughputInput) {
    definition.on_demand_max = capped(definition.on_demand_max, caps);
}

/// On-demand caps after `caps` (a table's or a GSI's): each cap given is set (`-1` removes it),
/// one not given stays.
pub fn capped(current: (Option<i64>, Option<i64>), caps: &OnDemandThroughputInput) -> (Option<i64>, Option<i64>) {
    let set = |current: Option<i64>, given: Option<i64>| match given {
        Some(-1) => None,
        Some(units) => Some(units),
        None => current,
    };
    (set(current.0, caps.max_read_request_units), set(current.1, caps.max_write_request_units))
}

pub fn sse_description(definition: &TableDefinition) -> Option<SseDescription> {
    definition.kms_key_arn.as_ref().map(|arn| SseDescription {
        status: "ENABLED",
        sse_type: "KMS",
        kms_master_key_arn: arn.clone(),
    })
}

pub fn on_demand_description(definition: &TableDefinition) -> Option<OnDemandThroughputInput> {
    caps_description(definition.on_demand_max)
}

/// On-demand caps as a description shows them (a table's or a GSI's), when there are any.
pub fn caps_description((read, write): (Option<i64>, Option<i64>)) -> Option<OnDemandThroughputInput> {
    (read.is_some() || write.is_some())
        .then_some(OnDemandThroughputInput { max_read_request_units: read, max_write_request_units: write })
}

/// Applies `WarmThroughput` to a table.
pub fn apply_warm(definition: &mut TableDefinition, warm: &WarmThroughputInput) {
    definition.warm_throughput = Some(warmed(definition.warm_throughput, warm));
}

/// Warm throughput after `warm` (a table's or a GSI's): each figure given is set, one not given
/// stays (the default when there was none).
pub fn warmed(current: Option<(i64, i64)>, warm: &WarmThroughputInput) -> (i64, i64) {
    let (read, write) = current.unwrap_or(DEFAULT_WARM);
    (warm.read_units_per_second.unwrap_or(read), warm.write_units_per_second.unwrap_or(write))
}

/// Shown once a request set it; a table that never did shows none (DynamoDB Local shows none, and
/// the corpus compares descriptions with it).
pub fn warm_description(definition: &TableDefinition) -> Option<WarmThroughputDescription> {
    warmth_description(definition.warm_throughput)
}

/// Warm throughput as a description shows it (a table's or a GSI's), once a request set it.
pub fn warmth_description(warm: Option<(i64, i64)>) -> Option<WarmThroughputDescription> {
    warm.map(|(read, write)| WarmThroughputDescription {
        read_units_per_second: read,
        write_units_per_second: write,
        status: "ACTIVE",
    })
}

#[cfg(test)]
mod tests {
    use crate::{Engine, FixedClock};
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn warm_throughput_is_set_shown_raised_alone_and_kept() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        let create = json!({"TableName": "warm", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "WarmThroughput": {"ReadUnitsPerSecond": 15000}});
        let created = engine.execute_value("CreateTable", &create).expect("created");
        assert_eq!(
            created["TableDescription"]["WarmThroughput"],
            json!({"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"})
        );
        let update = json!({"TableName": "warm", "WarmThroughput": {"WriteUnitsPerSecond": 9000}});
        let updated = engine.execute_value("UpdateTable", &update).expect("a WarmThroughput alone is an update");
        assert_eq!(updated["TableDescription"]["WarmThroughput"]["WriteUnitsPerSecond"], json!(9000));
        let mut rebuilt = Engine::new(Arc::new(FixedClock::at(0)));
        for request in engine.recreate_requests() {
            rebuilt.execute(request.operation.name(), &request.body).expect("replays");
        }
        let described = rebuilt.execute_value("DescribeTable", &json!({"TableName": "warm"})).expect("described");
        assert_eq!(
            described["Table"]["WarmThroughput"],
            json!({"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 9000, "Status": "ACTIVE"})
        );
        let plain = json!({"TableName": "plain", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]});
        let plain = engine.execute_value("CreateTable", &plain).expect("created");
        assert!(plain["TableDescription"].get("WarmThroughput").is_none(), "shown once set");
    }

    #[test]
    fn a_global_index_keeps_its_own_caps_and_warm_throughput() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        let create = json!({"TableName": "capped", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "OnDemandThroughput": {"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 20},
                "WarmThroughput": {"ReadUnitsPerSecond": 15000}}]});
        let created = engine.execute_value("CreateTable", &create).expect("created");
        let index = &created["TableDescription"]["GlobalSecondaryIndexes"][0];
        assert_eq!(index["OnDemandThroughput"], json!({"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 20}));
        assert_eq!(
            index["WarmThroughput"],
            json!({"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"})
        );
        assert!(created["TableDescription"].get("OnDemandThroughput").is_none(), "the table's own caps are its own");
        let update = json!({"TableName": "capped", "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "by_g",
            "OnDemandThroughput": {"MaxReadRequestUnits": 30, "MaxWriteRequestUnits": -1},
            "WarmThroughput": {"WriteUnitsPerSecond": 6000}}}]});
        engine.execute_value("UpdateTable", &update).expect("updated");
        // What a restart replays keeps them.
        let mut rebuilt = Engine::new(Arc::new(FixedClock::at(0)));
        for request in engine.recreate_requests() {
            rebuilt.execute(request.operation.name(), &request.body).expect("replays");
        }
        let described = rebuilt.execute_value("DescribeTable", &json!({"TableName": "capped"})).expect("described");
        let index = &described["Table"]["GlobalSecondaryIndexes"][0];
        assert_eq!(index["OnDemandThroughput"], json!({"MaxReadRequestUnits": 30}), "-1 removes a cap");
        assert_eq!(
            index["WarmThroughput"],
            json!({"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 6000, "Status": "ACTIVE"})
        );
    }
}
