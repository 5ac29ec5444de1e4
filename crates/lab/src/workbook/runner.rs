//! Runs each pattern of a [`Plan`] on freshly loaded data (its tables, fixture and setup), and
//! records what each call did as typed facts: the error, the items counted, the page's end, and
//! the capacity steps with the partition each landed on.

use super::plan::{Plan, PlannedCall};
use dynalab_engine::explain::{Step, StepKind};
use dynalab_engine::{Clock, Engine, Operation, Tally};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What one call returned.
#[derive(Debug, Clone, Default)]
pub struct CallOutcome {
    /// The error's name and message, if it failed.
    pub error: Option<(String, String)>,
    pub tally: Tally,
    /// The charges: from the engine, each with its arithmetic and partition; from an endpoint,
    /// what its ConsumedCapacity reported.
    pub steps: Vec<Step>,
    /// The response body, for the validation record.
    pub body: Option<String>,
}

/// Where a call can be sent: the lab's own engine, or an HTTP endpoint (`dynalab check --endpoint`).
pub trait Target {
    /// Starts from nothing: no tables.
    fn reset(&mut self) -> Result<(), String>;
    fn call(&mut self, operation: Operation, request: &Value) -> CallOutcome;
    /// Loads the plan's tables, fixture and setup (after a reset): call by call, unless the target
    /// has a faster way to the same state.
    fn load(&mut self, plan: &Plan) -> Result<(), String> {
        load_calls(plan, self)
    }
}

/// The lab's engine, fresh for every pattern: loaded call by call once, then copied. One target
/// serves one plan.
pub struct EngineTarget {
    clock: Arc<dyn Clock>,
    engine: Engine,
    loaded: Option<Engine>,
}

impl EngineTarget {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self { engine: Engine::new(clock.clone()), clock, loaded: None }
    }

    /// A target whose every pattern starts from `engine` as it is (tables, items, setup done):
    /// each load is a copy that shares the tables until a pattern writes one.
    pub fn loaded(engine: Engine) -> Self {
        Self { clock: engine.clock(), engine: engine.clone(), loaded: Some(engine) }
    }

    /// The engine as the last load or call left it.
    pub fn into_engine(self) -> Engine {
        self.engine
    }
}

impl Target for EngineTarget {
    fn reset(&mut self) -> Result<(), String> {
        self.engine = Engine::new(self.clock.clone());
        Ok(())
    }

    fn load(&mut self, plan: &Plan) -> Result<(), String> {
        if let Some(loaded) = &self.loaded {
            self.engine = loaded.clone();
            return Ok(());
        }
        load_calls(plan, self)?;
        self.loaded = Some(self.engine.clone());
        Ok(())
    }

    fn call(&mut self, operation: Operation, request: &Value) -> CallOutcome {
        let outcome = self.engine.run(operation.name(), &request.to_string());
        let (error, body) = match outcome.response {
            Ok(body) => (None, Some(body)),
            Err(e) => (Some((e.kind.name().to_string(), e.message)), None),
        };
        CallOutcome { error, tally: outcome.tally, steps: outcome.steps, body }
    }
}

/// What one call did.
#[derive(Debug, Clone, Serialize)]
pub struct CallRun {
    #[serde(serialize_with = "operation_name")]
    pub operation: Operation,
    pub request: Value,
    pub table: Option<String>,
    pub index: Option<String>,
    /// The error's name and message, if it failed.
    pub error: Option<(String, String)>,
    #[serde(skip)]
    pub body: Option<String>,
    pub items: u64,
    pub scanned: Option<u64>,
    pub paged: bool,
    /// Bytes the page read, when it was a Query or Scan (for "1 MB hit").
    pub page_bytes: Option<usize>,
    /// Read and write units by `table` or `table/index`.
    pub read_units: BTreeMap<String, f64>,
    pub write_units: BTreeMap<String, f64>,
    /// Bytes a vector index billed (searched, or written by a write), by `table/index`: vector
    /// indexes meter bytes, not capacity units.
    pub vector_bytes: BTreeMap<String, u64>,
    pub steps: Vec<Step>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
fn operation_name<S: serde::Serializer>(operation: &Operation, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(operation.name())
}

impl CallRun {
    /// Where a step's units are charged: `table` or `table/index`.
    pub fn target_of(step: &Step) -> String {
        match &step.index {
            Some(index) => format!("{}/{index}", step.table),
            None => step.table.clone(),
        }
    }
}

/// What one pattern did.
#[derive(Debug, Clone, Serialize)]
pub struct PatternRun {
    pub id: String,
    pub calls: Vec<CallRun>,
    /// A problem running it at all (the data would not load).
    pub problem: Option<String>,
}

/// Loads the plan's tables, fixture and setup into `target` (after a reset), call by call.
pub fn load_calls<T: Target + ?Sized>(plan: &Plan, target: &mut T) -> Result<(), String> {
    target.reset()?;
    for (i, table) in plan.tables.iter().enumerate() {
        if let Some((error, message)) = target.call(Operation::CreateTable, table).error {
            return Err(format!("tables[{i}]: {error}: {message}"));
        }
    }
    for (table, items) in &plan.fixture {
        for (i, item) in items.iter().enumerate() {
            let request = json!({"TableName": table, "Item": item});
            if let Some((error, message)) = target.call(Operation::PutItem, &request).error {
                return Err(format!("fixtures.{table}[{i}]: {error}: {message}"));
            }
        }
    }
    for (i, call) in plan.setup.iter().enumerate() {
        if let Some((error, message)) = target.call(call.operation, &call.request).error {
            return Err(format!("setup[{i}]: {error}: {message}"));
        }
    }
    Ok(())
}

/// Runs every pattern, each on freshly loaded data.
pub fn run(plan: &Plan, target: &mut dyn Target) -> Vec<PatternRun> {
    plan.patterns()
        .map(|(pattern, calls)| {
            if let Err(problem) = target.load(plan) {
                return PatternRun { id: pattern.id.clone(), calls: Vec::new(), problem: Some(problem) };
            }
            let calls = calls.iter().map(|call| run_call(target, call)).collect();
            PatternRun { id: pattern.id.clone(), calls, problem: None }
        })
        .collect()
}

fn run_call(target: &mut dyn Target, call: &PlannedCall) -> CallRun {
    let mut request = call.request.clone();
    if call.operation.reports_capacity() {
        request["ReturnConsumedCapacity"] = json!("INDEXES");
    }
    let outcome = target.call(call.operation, &request);
    let mut run = CallRun {
        operation: call.operation,
        request,
        table: call.table.clone(),
        index: call.index.clone(),
        error: outcome.error,
        body: outcome.body,
        items: outcome.tally.items,
        scanned: outcome.tally.scanned,
        paged: outcome.tally.last_evaluated_key.is_some(),
        page_bytes: None,
        read_units: BTreeMap::new(),
        write_units: BTreeMap::new(),
        vector_bytes: BTreeMap::new(),
        steps: Vec::new(),
    };
    for step in &outcome.steps {
        let target = CallRun::target_of(step);
        match step.kind {
            StepKind::Read { .. } => {
                *run.read_units.entry(target).or_default() += step.units;
                if matches!(call.operation, Operation::Query | Operation::Scan) {
                    run.page_bytes = Some(run.page_bytes.unwrap_or(0).max(step.bytes));
                }
            }
            StepKind::Write => *run.write_units.entry(target).or_default() += step.units,
            StepKind::VectorSearch | StepKind::VectorWrite => {
                *run.vector_bytes.entry(target).or_default() += step.bytes as u64;
            }
        }
    }
    run.read_units.retain(|_, u| *u > 0.0);
    run.write_units.retain(|_, u| *u > 0.0);
    run.steps = outcome.steps;
    run
}
