//! Hot keys: the partition key each pattern loads most, per table and index, at its peak rate,
//! against DynamoDB's per-partition ceilings. Reads only the runs' capacity steps.

use crate::workbook::runner::CallRun;
use crate::workbook::{Pattern, PatternKind};
use dynalab_engine::explain::StepKind;
use serde::Serialize;
use std::collections::BTreeMap;

/// DynamoDB's ceilings per partition (per second).
pub const PARTITION_READ_UNITS: f64 = 3000.0;
pub const PARTITION_WRITE_UNITS: f64 = 1000.0;
/// Headroom kept when suggesting a shard count.
pub const SHARD_HEADROOM: f64 = 1.25;
/// What a step names when the target did not say which partition it charged (an endpoint).
pub const UNKNOWN_PARTITION: &str = "(partition not reported)";

#[derive(Debug, Clone, Serialize)]
pub struct KeyLoad {
    pub target: String,
    pub kind: PatternKind,
    /// The partition key value, as the engine names it.
    pub partition: String,
    /// How many partition keys one execution touches on this target.
    pub keys_touched: usize,
    pub units_per_second: f64,
    pub ceiling: f64,
}

/// Per target and kind, the partition key that takes the most units in one execution, at peak:
/// a batch or transaction spreads its units over the keys it touches.
pub fn busiest_keys(pattern: &Pattern, calls: &[CallRun]) -> Vec<KeyLoad> {
    let mut per_key: BTreeMap<(String, bool), BTreeMap<String, f64>> = BTreeMap::new();
    for call in calls {
        for step in &call.steps {
            // A Scan charges no one partition: it is failed on its own.
            let Some(partition) = &step.partition else { continue };
            // Vector indexes bill bytes, not the partition's units.
            if step.kind.is_vector() {
                continue;
            }
            let write = step.kind == StepKind::Write;
            *per_key.entry((CallRun::target_of(step), write)).or_default().entry(partition.clone()).or_default() +=
                step.units;
        }
    }
    per_key
        .into_iter()
        .filter_map(|((target, write), keys)| {
            let keys_touched = keys.len();
            let (partition, units) = keys.into_iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
            let kind = if write { PatternKind::Write } else { PatternKind::Read };
            let ceiling = if write { PARTITION_WRITE_UNITS } else { PARTITION_READ_UNITS };
            let share = pattern.busiest_key_share.on(&target);
            (units > 0.0).then_some(KeyLoad {
                units_per_second: units * pattern.peak_rps * share,
                target,
                kind,
                partition,
                keys_touched,
                ceiling,
            })
        })
        .collect()
}
