//! The whole check in one call, for front ends that run it on the lab's engine: plan (every
//! problem, or what runs), run, analyse.

use super::analysis::{analyse, DesignResult};
use super::import::{import, Source};
use super::plan::{Plan, Problems};
use super::runner::{run, EngineTarget, PatternRun};
use super::Workbook;
use dynalab_engine::{Clock, Engine};
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

/// Plans, runs and analyses `workbook` on `engine`, which already holds its tables and items (a
/// workspace's): every pattern runs on a copy that shares them, so neither the proof's memory nor
/// its time grows with the items, and the workspace never sees a pattern's writes.
pub fn check_on(workbook: &Workbook, engine: Engine) -> Result<Checked, Problems> {
    let (plan, loaded) = Plan::build_on(workbook.clone(), engine)?;
    let runs = run(&plan, &mut EngineTarget::loaded(loaded));
    let result = analyse(&plan, &runs);
    Ok(Checked { plan, runs, result })
}

/// A design checked from its text in any shape [`import`] reads, with what the import said.
#[derive(Debug, Clone)]
pub struct CheckedDesign {
    pub source: Source,
    /// What the import could not carry over, and why.
    pub notes: Vec<String>,
    pub checked: Checked,
}

/// Why a design text was not checked: it could not be read, had nothing to check, or its plan
/// found problems (each listed). Nothing ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotChecked {
    pub problems: Vec<String>,
    /// What the import noted, when it got that far.
    pub notes: Vec<String>,
}

/// Reads `text` (a workbook or any design [`import`] reads), plans, runs and analyses it: what the
/// command line's `dynalab check`, the JavaScript package and the MCP server all return.
pub fn check_text(text: &str, clock: Arc<dyn Clock>) -> Result<CheckedDesign, NotChecked> {
    let imported = import(text).map_err(|e| NotChecked { problems: vec![e], notes: Vec::new() })?;
    let notes = imported.notes.clone();
    let imported = imported.checkable().map_err(|e| NotChecked { problems: vec![e], notes: notes.clone() })?;
    let source = imported.source;
    let mut checked = check(&imported.workbook, clock).map_err(|p| NotChecked {
        problems: p.0.iter().map(|problem| super::import::in_file_terms(source, problem)).collect(),
        notes: notes.clone(),
    })?;
    checked.result.notes.clone_from(&notes);
    Ok(CheckedDesign { source: imported.source, notes, checked })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbook::analysis::Verdict;
    use dynalab_engine::FixedClock;

    fn clock() -> Arc<dyn Clock> {
        Arc::new(FixedClock::at(1_700_000_000_000))
    }

    #[test]
    fn checks_a_workbook_from_its_text() {
        let text = include_str!("../../../../examples/orders-service.workbook.json");
        let design = check_text(text, clock()).expect("the example plans");
        assert_eq!(design.source, Source::Workbook);
        assert!(design.notes.is_empty());
        assert_eq!(design.checked.result.verdict, Verdict::Pass);
        assert_eq!(design.checked.runs.len(), design.checked.result.patterns.len());
    }

    #[test]
    fn says_why_nothing_was_checked() {
        let unreadable = check_text("{\"format\": 3", clock()).expect_err("not JSON");
        assert!(unreadable.problems[0].starts_with("not JSON"), "{unreadable:?}");
        let empty = check_text(r#"{"format":"dynalab-workbook/1","name":"x","tables":[],"patterns":[]}"#, clock())
            .expect_err("nothing to check");
        assert!(empty.problems[0].contains("has no DynamoDB tables: nothing to check"), "{empty:?}");
        let broken = r#"{"format":"dynalab-workbook/1","name":"x","tables":[],"patterns":[
            {"id":"p","description":"d","requests":[{"operation":"GetItem","request":{"TableName":"missing","Key":{"pk":{"S":"a"}}}}]}]}"#;
        let planned = check_text(broken, clock()).expect_err("the plan refuses it");
        assert!(!planned.problems.is_empty());
    }
}
