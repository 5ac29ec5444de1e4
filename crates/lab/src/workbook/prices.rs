//! One price table, with its date and source. Costs are estimates for comparing designs, not a bill.

use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Prices {
    pub region: &'static str,
    /// When these prices were taken from the source.
    pub as_of: &'static str,
    pub source: &'static str,
    /// On-demand, Standard table class: USD per million read / write request units.
    pub read_request_per_million: f64,
    pub write_request_per_million: f64,
    /// Provisioned, Standard table class: USD per RCU-hour / WCU-hour.
    pub rcu_hour: f64,
    pub wcu_hour: f64,
    /// USD per GB-month of table and index storage (before the free tier).
    pub storage_gb_month: f64,
    /// USD per GB a vector index bills (`VectorSearchRequestBytes` of searches and
    /// `VectorWriteRequestBytes` of writes), when a price was published where these prices were
    /// read. `None`: the bytes are reported, not priced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_search_per_gb: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_write_per_gb: Option<f64>,
}

/// US East (N. Virginia), Standard table class, after the 2024-11-01 on-demand price reduction.
pub const US_EAST_1: Prices = Prices {
    region: "us-east-1",
    as_of: "2024-11-01",
    source: "https://aws.amazon.com/dynamodb/pricing/on-demand/ and /provisioned/",
    read_request_per_million: 0.125,
    write_request_per_million: 0.625,
    rcu_hour: 0.000_13,
    wcu_hour: 0.000_65,
    storage_gb_month: 0.25,
    // Vector search (2026) meters bytes, and no per-byte price was in the evidence these prices
    // were read from (the AWS pricing pages as of 2024-11-01, the developer guide's "Monitoring
    // vector index capacity"): a report gives the vector bytes a month and leaves them unpriced.
    vector_search_per_gb: None,
    vector_write_per_gb: None,
};

/// A table's class (the engine's: CreateTable and UpdateTable name it): Standard-IA trades
/// cheaper storage for dearer requests.
pub use dynalab_engine::TableClass;

/// Standard-IA requests cost 25% more than Standard ones (the ratio of every published pair, e.g.
/// the China regions' provisioned prices, 0.0725 / 0.058) and storage $0.10 per GB-month in
/// us-east-1 (60% less, as AWS's Standard-IA announcement states).
const INFREQUENT_ACCESS_REQUESTS: f64 = 1.25;
const INFREQUENT_ACCESS_STORAGE_GB_MONTH: f64 = 0.10;

impl Prices {
    /// These prices for a table of `class`.
    #[must_use]
    pub fn for_class(&self, class: TableClass) -> Self {
        match class {
            TableClass::Standard => self.clone(),
            TableClass::InfrequentAccess => Self {
                read_request_per_million: self.read_request_per_million * INFREQUENT_ACCESS_REQUESTS,
                write_request_per_million: self.write_request_per_million * INFREQUENT_ACCESS_REQUESTS,
                rcu_hour: self.rcu_hour * INFREQUENT_ACCESS_REQUESTS,
                wcu_hour: self.wcu_hour * INFREQUENT_ACCESS_REQUESTS,
                storage_gb_month: INFREQUENT_ACCESS_STORAGE_GB_MONTH,
                ..self.clone()
            },
        }
    }
}

/// The table for `region`, and whether it is that region's own (only us-east-1 is shipped; other
/// regions are priced as us-east-1 and the report says so).
pub fn for_region(region: &str) -> (Prices, bool) {
    (US_EAST_1, region == US_EAST_1.region)
}

/// Hours and seconds in the month the costs are for (365 × 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;
pub const SECONDS_PER_MONTH: f64 = HOURS_PER_MONTH * 3600.0;
