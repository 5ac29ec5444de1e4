//! The monthly bill, as the design skill's cost report reads: a peak-sustained headline (every
//! pattern at its peak all month), an expected one at average rates when any are given, the same
//! traffic on provisioned capacity sized for the peak, and storage — sized by the fixture times
//! the scale, or by what write patterns keep for their `retention_days`. Replicated (global)
//! tables pay writes and storage in each region; a Standard-IA table pays its class's prices.
//! Request and storage cost only: what is left out is listed in [`EXCLUDED`].

use super::PatternResult;
use crate::workbook::plan::Plan;
use crate::workbook::prices::{self, Prices, TableClass};
use crate::workbook::runner::{CallRun, PatternRun};
use crate::workbook::{Pattern, PatternKind, Workbook};
use dynalab_engine::explain::StepKind;
use serde::Serialize;
use std::collections::BTreeMap;

/// DynamoDB bills 100 bytes of overhead per stored item (and index entry).
const STORAGE_OVERHEAD_BYTES: f64 = 100.0;
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// What no figure here includes.
pub const EXCLUDED: &str = "Streams reads, point-in-time recovery, backups, DAX, data transfer, the free tier, reserved capacity and auto scaling are not included";

/// Reads, writes and storage for one month.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Bill {
    pub reads: f64,
    pub writes: f64,
    pub storage: f64,
}

impl Bill {
    pub fn total(&self) -> f64 {
        self.reads + self.writes + self.storage
    }
}

/// Where a table's stored size comes from.
#[derive(Debug, Clone, Serialize)]
pub struct Storage {
    pub table: String,
    pub gb: f64,
    /// `fixture × scale` or `retention`.
    pub basis: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cost {
    pub prices: Prices,
    /// False when the workbook's region has no price table of its own.
    pub priced_for_region: bool,
    /// On demand, every pattern at its peak rate all month: the headline.
    pub at_peak: Bill,
    /// On demand at the average rates, when any pattern gives `avg_rps`.
    pub expected: Option<Bill>,
    /// Provisioned capacity sized for the summed peak of each table and index (no auto scaling).
    pub provisioned: Bill,
    pub storage_gb: f64,
    pub storage: Vec<Storage>,
    /// What the patterns bill vector indexes, when they use any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<VectorBytes>,
    pub excluded: &'static str,
}

/// Vector indexes bill bytes searched and written, not capacity units.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct VectorBytes {
    /// GB a month with every pattern at its peak rate.
    pub gb_month_at_peak: f64,
    /// Whether they are in the bills (the price table has vector prices).
    pub priced: bool,
}

/// Prices per table: its class, and the regions its writes and storage are paid in.
pub struct Pricing<'a> {
    pub base: &'a Prices,
    workbook: &'a Workbook,
    classes: &'a BTreeMap<String, TableClass>,
}

impl<'a> Pricing<'a> {
    pub fn new(base: &'a Prices, plan: &'a Plan) -> Self {
        Self { base, workbook: &plan.workbook, classes: &plan.classes }
    }

    fn table(target: &str) -> &str {
        target.split_once('/').map_or(target, |(t, _)| t)
    }

    /// The prices of the table `target` (`table` or `table/index`) belongs to.
    fn of(&self, target: &str) -> Prices {
        self.base.for_class(self.classes.get(Self::table(target)).copied().unwrap_or_default())
    }

    /// Regions a table's writes and storage are paid in.
    fn regions(&self, target: &str) -> f64 {
        f64::from(self.workbook.replicas.get(Self::table(target)).copied().unwrap_or(1))
    }

    /// Dollars per second for `units` of one execution at one request per second.
    fn per_second(&self, units: &BTreeMap<String, (f64, f64)>) -> (f64, f64) {
        units.iter().fold((0.0, 0.0), |(reads, writes), (target, (read, write))| {
            let prices = self.of(target);
            (
                reads + read * prices.read_request_per_million / 1e6,
                writes + write * self.regions(target) * prices.write_request_per_million / 1e6,
            )
        })
    }
}

/// Fills in a pattern's monthly costs.
pub fn price_pattern(pattern: &Pattern, result: &mut PatternResult, pricing: &Pricing<'_>) {
    let (reads, writes) = pricing.per_second(&result.units_by_target);
    let per_second = reads + writes + vector_per_second(pricing.base, result);
    let month = prices::SECONDS_PER_MONTH;
    result.monthly_at_peak = pattern.peak_rps * month * per_second;
    result.monthly_expected = pattern.avg_rps.unwrap_or(pattern.peak_rps) * month * per_second;
}

/// Dollars per second for one execution a second of what a pattern bills vector indexes: search
/// bytes (a SearchVectors call) and write bytes (writes into an index), when priced.
fn vector_per_second(prices: &Prices, result: &PatternResult) -> f64 {
    let bytes: u64 = result.vector_bytes.values().sum();
    let price = match result.kind {
        PatternKind::Read => prices.vector_search_per_gb,
        PatternKind::Write => prices.vector_write_per_gb,
    };
    price.map_or(0.0, |per_gb| bytes as f64 / 1e9 * per_gb)
}

pub fn cost(plan: &Plan, patterns: &[PatternResult], runs: &[PatternRun], prices: Prices, own_region: bool) -> Cost {
    let pricing = Pricing::new(&prices, plan);
    let storage = storage(plan, patterns, runs, &pricing);
    let storage_gb: f64 = storage.iter().map(|s| s.gb).sum::<f64>() + 0.0;
    let storage_cost: f64 = storage.iter().map(|s| s.gb * pricing.of(&s.table).storage_gb_month).sum::<f64>() + 0.0;
    let split = |rate: &dyn Fn(&PatternResult) -> f64| {
        let mut bill = Bill { storage: storage_cost, ..Bill::default() };
        for p in patterns {
            let (reads, writes) = pricing.per_second(&p.units_by_target);
            bill.reads += rate(p) * prices::SECONDS_PER_MONTH * reads;
            bill.writes += rate(p) * prices::SECONDS_PER_MONTH * writes;
            let vector = rate(p) * prices::SECONDS_PER_MONTH * vector_per_second(&prices, p);
            match p.kind {
                PatternKind::Read => bill.reads += vector,
                PatternKind::Write => bill.writes += vector,
            }
        }
        bill
    };
    let at_peak = split(&|p| p.peak_rps);
    let expected = plan.workbook.patterns.iter().any(|p| p.avg_rps.is_some()).then(|| split(&|p| p.avg_rps));
    // Provisioned for the summed peak of each target (a replica region provisions its own writes).
    let peak = super::capacity::demand_at_peak(patterns);
    let hours = prices::HOURS_PER_MONTH;
    let provisioned = Bill {
        reads: peak.iter().map(|(t, u)| u.0.ceil() * pricing.of(t).rcu_hour * hours).sum::<f64>() + 0.0,
        writes: peak
            .iter()
            .map(|(t, u)| (u.1 * pricing.regions(t)).ceil() * pricing.of(t).wcu_hour * hours)
            .sum::<f64>()
            + 0.0,
        storage: storage_cost,
    };
    let vector_gb: f64 = patterns.iter().map(|p| p.vector_gb_month_at_peak).sum();
    let vector = (vector_gb > 0.0).then(|| VectorBytes {
        gb_month_at_peak: vector_gb,
        priced: prices.vector_search_per_gb.is_some() && prices.vector_write_per_gb.is_some(),
    });
    Cost {
        prices,
        priced_for_region: own_region,
        at_peak,
        expected,
        provisioned,
        storage_gb,
        storage,
        vector,
        excluded: EXCLUDED,
    }
}

/// Each table's stored size: what write patterns with `retention_days` keep (their average rate ×
/// the days × the bytes one execution stores on the table and its indexes), else the fixture ×
/// the scale; 100 B per item and index entry; times the table's regions.
fn storage(plan: &Plan, patterns: &[PatternResult], runs: &[PatternRun], pricing: &Pricing<'_>) -> Vec<Storage> {
    let workbook = &plan.workbook;
    let mut kept: BTreeMap<String, f64> = BTreeMap::new();
    for ((pattern, result), run) in workbook.patterns.iter().zip(patterns).zip(runs) {
        let Some(days) = pattern.retention_days.filter(|_| pattern.kind == PatternKind::Write) else { continue };
        for (table, bytes) in stored_bytes(&run.calls) {
            *kept.entry(table).or_default() += result.avg_rps * 86_400.0 * days * bytes;
        }
    }
    plan.shapes
        .iter()
        .map(|shape| {
            let regions = pricing.regions(&shape.name);
            if let Some(bytes) = kept.get(&shape.name) {
                return Storage { table: shape.name.clone(), gb: bytes * regions / GIB, basis: "retention".into() };
            }
            let entries = |items: usize, bytes: usize| bytes as f64 + items as f64 * STORAGE_OVERHEAD_BYTES;
            let indexes: f64 = shape.indexes.iter().map(|i| entries(i.totals.items, i.totals.bytes)).sum();
            let bytes = (entries(shape.totals.items, shape.totals.bytes) + indexes) * workbook.scale;
            Storage { table: shape.name.clone(), gb: bytes * regions / GIB, basis: "fixture × scale".into() }
        })
        .collect()
}

/// Bytes one execution writes, per table (its items and index entries, each with its overhead).
fn stored_bytes(calls: &[CallRun]) -> BTreeMap<String, f64> {
    let mut out: BTreeMap<String, f64> = BTreeMap::new();
    for step in calls.iter().flat_map(|c| &c.steps) {
        // Zero-byte steps are a transaction's doubling, not a stored entry.
        if step.kind == StepKind::Write && step.bytes > 0 {
            *out.entry(step.table.clone()).or_default() += step.bytes as f64 + STORAGE_OVERHEAD_BYTES;
        }
    }
    out
}
