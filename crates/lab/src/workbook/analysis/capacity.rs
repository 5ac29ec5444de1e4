//! Capacity: the demand of every pattern at its peak, per table and index, held against the
//! capacity a provisioned design declares.

use super::calls::{PatternResult, Verdict};
use crate::numbers::decimal;
use crate::workbook::declared::{Range, Replica};
use crate::workbook::plan::Plan;
use crate::workbook::prices::{self, Prices, TableClass};
use dynalab_engine::TableShape;
use serde::Serialize;
use std::collections::BTreeMap;

/// Provisioned capacity used above this share at peak warns.
const PROVISIONED_WARN: f64 = 0.8;

/// A design-level finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub verdict: Verdict,
    pub text: String,
}

/// Read and write units per second per target (`table` or `table/index`) with every pattern at
/// its peak at once.
pub fn demand_at_peak(patterns: &[PatternResult]) -> BTreeMap<String, (f64, f64)> {
    let mut demand: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for pattern in patterns {
        for (target, (read, write)) in &pattern.units_by_target {
            let slot = demand.entry(target.clone()).or_default();
            slot.0 += read * pattern.peak_rps;
            slot.1 += write * pattern.peak_rps;
        }
    }
    demand
}

/// Provisioned tables and GSIs: the demand of every pattern at its peak against what is
/// provisioned (an LSI draws on its table's capacity).
pub fn capacity_findings(shapes: &[TableShape], patterns: &[PatternResult]) -> Vec<Finding> {
    let demand = demand_at_peak(patterns);
    let mut findings = Vec::new();
    for shape in shapes {
        let mut budgets: Vec<(String, Vec<String>, (u64, u64))> = Vec::new();
        if let Some(provisioned) = shape.provisioned {
            let mut drawing = vec![shape.name.clone()];
            drawing.extend(shape.indexes.iter().filter(|i| !i.global).map(|i| format!("{}/{}", shape.name, i.name)));
            budgets.push((format!("table {}", shape.name), drawing, provisioned));
        }
        for index in shape.indexes.iter().filter(|i| i.global) {
            if let Some(provisioned) = index.provisioned {
                let target = format!("{}/{}", shape.name, index.name);
                budgets.push((format!("GSI {target}"), vec![target], provisioned));
            }
        }
        for (label, drawing, (read, write)) in budgets {
            let used = drawing.iter().filter_map(|t| demand.get(t)).fold((0.0, 0.0), |a, d| (a.0 + d.0, a.1 + d.1));
            for (kind, need, have) in [("RCU", used.0, read), ("WCU", used.1, write)] {
                let have = have as f64;
                let verdict = if need > have {
                    Verdict::Fail
                } else if need > have * PROVISIONED_WARN {
                    Verdict::Warn
                } else {
                    Verdict::Pass
                };
                let text = format!(
                    "{label}: {} {kind}/s at peak against {} provisioned ({:.0}%)",
                    decimal(need),
                    decimal(have),
                    if have > 0.0 { 100.0 * need / have } else { 100.0 }
                );
                findings.push(Finding { verdict, text });
            }
        }
    }
    findings
}

/// The capacity a design declares, priced: each provisioned table and GSI in each region it is
/// replicated to, at its declared units and across its auto scaling range, beside what the
/// patterns need at peak. Free tier not applied.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DeclaredCapacity {
    pub tables: Vec<DeclaredTable>,
    /// All tables and regions, per month: at the declared units, and at the ends of the auto
    /// scaling ranges (the declared units where none is set).
    pub monthly: f64,
    pub monthly_min: f64,
    pub monthly_max: f64,
    /// What the targets the file declares nothing for (a GSI given its table's units) would cost
    /// a month: said on its own line, never in the declared figures.
    pub assumed_monthly: f64,
    /// What the figures assume, each said once.
    pub assumptions: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeclaredTable {
    pub table: String,
    /// `provisioned` or `on demand`.
    pub billing: &'static str,
    /// Set when the file named no billing mode.
    pub billing_assumed: Option<String>,
    /// The regions holding it (one unless it is a global table).
    pub regions: Vec<String>,
    pub targets: Vec<DeclaredTarget>,
}

/// One provisioned table or GSI in one region.
#[derive(Debug, Clone, Serialize)]
pub struct DeclaredTarget {
    /// `table` or `table/index`.
    pub target: String,
    pub region: String,
    pub read_units: u64,
    pub write_units: u64,
    pub read_scaling: Option<Range>,
    pub write_scaling: Option<Range>,
    /// Set when this index declared no capacity of its own.
    pub assumed: Option<String>,
    pub monthly: f64,
    pub monthly_min: f64,
    pub monthly_max: f64,
    /// Units per second the patterns need here at peak (an LSI's with its table's).
    pub needed_read: f64,
    pub needed_write: f64,
}

/// Prices what `plan` declares, with the demand of `patterns` at peak beside it.
pub fn declared_capacity(
    plan: &Plan,
    patterns: &[PatternResult],
    prices: &Prices,
    own_region: bool,
) -> DeclaredCapacity {
    let workbook = &plan.workbook;
    let demand = demand_at_peak(patterns);
    let mut out = DeclaredCapacity::default();
    let assume = |text: String, out: &mut Vec<String>| {
        if !out.contains(&text) {
            out.push(text);
        }
    };
    for shape in &plan.shapes {
        let declared = workbook.capacity.get(&shape.name).cloned().unwrap_or_default();
        let mut table = DeclaredTable {
            table: shape.name.clone(),
            billing: if shape.provisioned.is_some() { "provisioned" } else { "on demand" },
            billing_assumed: declared.billing_assumed.clone(),
            regions: Vec::new(),
            targets: Vec::new(),
        };
        if let Some(text) = &declared.billing_assumed {
            assume(format!("{}: {text}", shape.name), &mut out.assumptions);
        }
        let regions: Vec<Replica> = if declared.replicas.is_empty() {
            vec![Replica { region: workbook.region.clone(), ..Replica::default() }]
        } else {
            declared.replicas.clone()
        };
        table.regions = regions.iter().map(|r| r.region.clone()).collect();
        let need = |targets: &[String]| {
            targets.iter().filter_map(|t| demand.get(t)).fold((0.0, 0.0), |a, d| (a.0 + d.0, a.1 + d.1))
        };
        for replica in &regions {
            let class = replica
                .table_class
                .as_deref()
                .and_then(|c| TableClass::parse(c).ok())
                .unwrap_or_else(|| plan.classes.get(&shape.name).copied().unwrap_or_default());
            let prices = prices.for_class(class);
            if replica.region != prices.region {
                let why = if own_region { "" } else { " (no price table of its own)" };
                assume(format!("{}{why}: priced at {} prices", replica.region, prices.region), &mut out.assumptions);
            }
            if let Some((read, write)) = shape.provisioned {
                let mut drawing = vec![shape.name.clone()];
                drawing
                    .extend(shape.indexes.iter().filter(|i| !i.global).map(|i| format!("{}/{}", shape.name, i.name)));
                let (needed_read, needed_write) = need(&drawing);
                table.targets.push(priced(
                    &prices,
                    DeclaredTarget {
                        target: shape.name.clone(),
                        region: replica.region.clone(),
                        // A replica that only auto scales its reads is checked at its maximum.
                        read_units: replica.read_units.or(replica.read_scaling.map(|r| r.max)).unwrap_or(read),
                        write_units: write,
                        read_scaling: replica.read_scaling.or(declared.read_scaling),
                        write_scaling: declared.write_scaling,
                        assumed: None,
                        monthly: 0.0,
                        monthly_min: 0.0,
                        monthly_max: 0.0,
                        needed_read,
                        needed_write,
                    },
                ));
            }
            for index in shape.indexes.iter().filter(|i| i.global) {
                let Some((read, write)) = index.provisioned else { continue };
                let target = format!("{}/{}", shape.name, index.name);
                let own = declared.indexes.get(&index.name).cloned().unwrap_or_default();
                if let Some(text) = &own.assumed {
                    assume(format!("{target}: {text}"), &mut out.assumptions);
                }
                let (needed_read, needed_write) = need(std::slice::from_ref(&target));
                table.targets.push(priced(
                    &prices,
                    DeclaredTarget {
                        target,
                        region: replica.region.clone(),
                        read_units: read,
                        write_units: write,
                        read_scaling: own.read_scaling,
                        write_scaling: own.write_scaling,
                        assumed: own.assumed.clone(),
                        monthly: 0.0,
                        monthly_min: 0.0,
                        monthly_max: 0.0,
                        needed_read,
                        needed_write,
                    },
                ));
            }
        }
        if regions.len() > 1 && shape.provisioned.is_some() {
            assume(
                format!("{}: writes provisioned alike in each of its {} regions, each region's at that region's WCU-hour price", shape.name, regions.len()),
                &mut out.assumptions,
            );
        }
        out.tables.push(table);
    }
    for target in out.tables.iter().flat_map(|t| &t.targets) {
        if target.assumed.is_some() {
            out.assumed_monthly += target.monthly;
            continue;
        }
        out.monthly += target.monthly;
        out.monthly_min += target.monthly_min;
        out.monthly_max += target.monthly_max;
    }
    if out.tables.iter().any(|t| !t.targets.is_empty()) {
        assume("the free tier is not applied".into(), &mut out.assumptions);
    }
    out
}

/// `target` with its monthly figures: the declared units, and the ends of its scaling ranges.
fn priced(prices: &Prices, mut target: DeclaredTarget) -> DeclaredTarget {
    let month = |read: u64, write: u64| {
        (read as f64 * prices.rcu_hour + write as f64 * prices.wcu_hour) * prices::HOURS_PER_MONTH
    };
    let low = |units: u64, range: Option<Range>| range.map_or(units, |r| r.min);
    let high = |units: u64, range: Option<Range>| range.map_or(units, |r| r.max);
    target.monthly = month(target.read_units, target.write_units);
    target.monthly_min =
        month(low(target.read_units, target.read_scaling), low(target.write_units, target.write_scaling));
    target.monthly_max =
        month(high(target.read_units, target.read_scaling), high(target.write_units, target.write_scaling));
    target
}
