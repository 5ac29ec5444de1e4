//! Capacity: the demand of every pattern at its peak, per table and index, held against the
//! capacity a provisioned design declares.

use super::calls::{PatternResult, Verdict};
use crate::numbers::decimal;
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
