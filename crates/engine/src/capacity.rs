//! Capacity units, counted in integer half-units so 0.5 RCU is exact (fact sheet §2).

use serde::Serialize;
use std::collections::BTreeMap;

/// A number of capacity units, held as a count of half-units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Units(pub u64);

impl Units {
    /// Read units for `bytes` read at once: 4 KB units, at least one, halved when eventually consistent.
    pub fn read(bytes: usize, consistent: bool) -> Self {
        let blocks = bytes.div_ceil(4096).max(1) as u64;
        Self(if consistent { blocks * 2 } else { blocks })
    }

    /// Write units for an item of `bytes`: 1 KB units, at least one.
    pub fn write(bytes: usize) -> Self {
        Self(bytes.div_ceil(1024).max(1) as u64 * 2)
    }

    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 2.0
    }
}

impl std::ops::Add for Units {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self(self.0 + other.0)
    }
}

/// What a request asked for in `ReturnConsumedCapacity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    None,
    Total,
    Indexes,
}

impl Report {
    pub fn parse(value: Option<&str>) -> Self {
        match value {
            Some("TOTAL") => Self::Total,
            Some("INDEXES") => Self::Indexes,
            _ => Self::None,
        }
    }
}

/// `{"CapacityUnits": x}` as nested in `ConsumedCapacity`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct Capacity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_capacity_units: Option<f64>,
    pub capacity_units: f64,
}

impl Capacity {
    pub fn of(units: Units) -> Self {
        Self { read_capacity_units: None, write_capacity_units: None, capacity_units: units.as_f64() }
    }
}

/// The `ConsumedCapacity` object of a response.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct ConsumedCapacity {
    pub table_name: String,
    pub capacity_units: f64,
    /// Filled by real DynamoDB on transactional operations only (fact sheet §2.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<Capacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_secondary_indexes: Option<BTreeMap<String, Capacity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<BTreeMap<String, Capacity>>,
    /// Under INDEXES only, for a write that changed what a vector index holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_indexes: Option<BTreeMap<String, VectorWrite>>,
}

/// `{"VectorWriteRequestBytes": n}`, one vector index's part of a write.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct VectorWrite {
    pub vector_write_request_bytes: u64,
}

impl ConsumedCapacity {
    /// Copies the total into `ReadCapacityUnits` or `WriteCapacityUnits`, as real DynamoDB does for
    /// transactions, at the top and on the table.
    pub fn set_figure(&mut self, figure: &str) {
        let read = figure == "ReadCapacityUnits";
        let slot = |units: f64| if read { (Some(units), None) } else { (None, Some(units)) };
        (self.read_capacity_units, self.write_capacity_units) = slot(self.capacity_units);
        if let Some(table) = &mut self.table {
            (table.read_capacity_units, table.write_capacity_units) = slot(table.capacity_units);
        }
    }
}

/// Units one request consumed on a table and each of its indexes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Consumption {
    pub table: Units,
    pub global_indexes: BTreeMap<String, Units>,
    pub local_indexes: BTreeMap<String, Units>,
    /// Bytes written to each vector index (`VectorWriteRequestBytes`), which are not units.
    pub vector_indexes: BTreeMap<String, u64>,
}

impl Consumption {
    pub fn table_only(units: Units) -> Self {
        Self { table: units, ..Self::default() }
    }

    /// Adds another request's units, table and index by index.
    pub fn add(&mut self, other: &Self) {
        self.table = self.table + other.table;
        for (name, units) in &other.global_indexes {
            let slot = self.global_indexes.entry(name.clone()).or_default();
            *slot = *slot + *units;
        }
        for (name, units) in &other.local_indexes {
            let slot = self.local_indexes.entry(name.clone()).or_default();
            *slot = *slot + *units;
        }
        for (name, bytes) in &other.vector_indexes {
            *self.vector_indexes.entry(name.clone()).or_default() += bytes;
        }
    }

    pub fn total(&self) -> Units {
        self.global_indexes.values().chain(self.local_indexes.values()).fold(self.table, |sum, u| sum + *u)
    }

    /// The response's `ConsumedCapacity`, shaped by what was asked for.
    pub fn report(&self, report: Report, table_name: &str) -> Option<ConsumedCapacity> {
        let indexes = |map: &BTreeMap<String, Units>| {
            (!map.is_empty()).then(|| map.iter().map(|(name, u)| (name.clone(), Capacity::of(*u))).collect())
        };
        match report {
            Report::None => None,
            Report::Total => Some(ConsumedCapacity {
                table_name: table_name.to_string(),
                capacity_units: self.total().as_f64(),
                read_capacity_units: None,
                write_capacity_units: None,
                table: None,
                local_secondary_indexes: None,
                global_secondary_indexes: None,
                vector_indexes: None,
            }),
            Report::Indexes => Some(ConsumedCapacity {
                table_name: table_name.to_string(),
                capacity_units: self.total().as_f64(),
                read_capacity_units: None,
                write_capacity_units: None,
                table: Some(Capacity::of(self.table)),
                local_secondary_indexes: indexes(&self.local_indexes),
                global_secondary_indexes: indexes(&self.global_indexes),
                vector_indexes: (!self.vector_indexes.is_empty()).then(|| {
                    self.vector_indexes
                        .iter()
                        .map(|(name, bytes)| (name.clone(), VectorWrite { vector_write_request_bytes: *bytes }))
                        .collect()
                }),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_as_the_fact_sheet_measures() {
        for (bytes, strong, eventual) in
            [(6, 1.0, 0.5), (4096, 1.0, 0.5), (4097, 2.0, 1.0), (10240, 3.0, 1.5), (0, 1.0, 0.5)]
        {
            assert_eq!(Units::read(bytes, true).as_f64(), strong, "{bytes}");
            assert_eq!(Units::read(bytes, false).as_f64(), eventual, "{bytes}");
        }
        for (bytes, units) in
            [(1, 1.0), (1024, 1.0), (1025, 2.0), (4096, 4.0), (4097, 5.0), (10240, 10.0), (409_600, 400.0)]
        {
            assert_eq!(Units::write(bytes).as_f64(), units, "{bytes}");
        }
    }
}
