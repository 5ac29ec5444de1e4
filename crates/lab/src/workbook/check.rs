//! The whole check in one call, for front ends that run it on the lab's engine: plan (every
//! problem, or what runs), run, analyse.

use super::analysis::{analyse, DesignResult};
use super::plan::{Plan, Problems};
use super::runner::{run, EngineTarget, PatternRun};
use super::Workbook;
use dynalab_engine::Clock;
use std::sync::Arc;

/// A checked design: the plan it ran, each pattern's run, and the verdicts.
#[derive(Debug, Clone)]
pub struct Checked {
    pub plan: Plan,
    pub runs: Vec<PatternRun>,
    pub result: DesignResult,
}

/// Plans, runs and analyses `workbook` on fresh engines.
pub fn check(workbook: &Workbook, clock: Arc<dyn Clock>) -> Result<Checked, Problems> {
    let plan = Plan::build(workbook.clone(), clock.clone())?;
    let runs = run(&plan, &mut EngineTarget::new(clock));
    let result = analyse(&plan, &runs);
    Ok(Checked { plan, runs, result })
}
