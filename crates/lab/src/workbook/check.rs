//! The whole check in one call, for front ends that run it on the lab's engine.

use super::analysis::{analyse, DesignResult};
use super::runner::{run, EngineTarget, PatternRun};
use super::Workbook;
use dynalab_engine::Clock;
use std::sync::Arc;

/// Runs and analyses `workbook` on fresh engines.
pub fn check(workbook: &Workbook, clock: Arc<dyn Clock>) -> (Vec<PatternRun>, DesignResult) {
    let runs = run(workbook, &mut EngineTarget::new(clock.clone()));
    let result = analyse(workbook, &runs, clock);
    (runs, result)
}
