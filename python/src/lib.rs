//! Dynalab's engine for Python (the `dynalab` package in `python/dynalab`): an engine that answers
//! DynamoDB's wire protocol in process — what the package's botocore handler passes each request
//! to, so boto3 gets the bytes `dynalab serve` would send — plus snapshots, the lab clock, fixture
//! loading, stream records and the design check. Requests and responses cross as JSON text: the
//! body is JSON on the wire already, and Python's `json` module reads it faster than building the
//! objects one by one from Rust.

use dynalab_engine::explain::{Step, StepKind};
use dynalab_engine::{Clock, Engine};
use dynalab_lab::exchange::exchange;
use dynalab_lab::fixtures::{parse_fixture, requests};
use dynalab_lab::workbook::check::check_text;
use dynalab_lab::workbook::report;
use dynalab_lab::workspace::Workspace;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

/// The wall clock (or a fixed start) plus however far a test moved it forward.
struct LabClock {
    start: Option<u64>,
    ahead: AtomicU64,
}

impl Clock for LabClock {
    fn now_millis(&self) -> u64 {
        let base = self
            .start
            .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64));
        base.saturating_add(self.ahead.load(Ordering::Relaxed))
    }
}

struct State {
    engine: Engine,
    clock: Arc<LabClock>,
    /// The capacity steps of the last request.
    last_steps: Vec<Step>,
    /// Where each stream stood when its records were last read.
    marks: Vec<(String, u64)>,
}

/// One engine: tables, items, streams and a clock, independent of every other. Safe to share
/// between threads (each call holds it alone).
#[pyclass(module = "dynalab._dynalab", name = "RawEngine")]
struct RawEngine {
    state: Mutex<State>,
}

impl RawEngine {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic cannot happen inside (the engine never panics); a poisoned lock is still whole.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn new_state(start_millis: Option<u64>) -> State {
    let clock = Arc::new(LabClock { start: start_millis, ahead: AtomicU64::new(0) });
    State { engine: Engine::new(clock.clone()), clock, last_steps: Vec::new(), marks: Vec::new() }
}

#[pymethods]
impl RawEngine {
    /// An empty engine; `start_millis` fixes the clock's start (it then moves only when advanced).
    #[new]
    #[pyo3(signature = (start_millis=None))]
    fn new(start_millis: Option<u64>) -> Self {
        Self { state: Mutex::new(new_state(start_millis)) }
    }

    /// One request as the JSON 1.0 protocol carries it: `(status, body, crc32)`, as `dynalab serve`
    /// answers it.
    fn exchange(&self, py: Python<'_>, target: &str, body: &str) -> (u16, String, u32) {
        py.detach(|| {
            let mut state = self.state();
            let answer = exchange(&mut state.engine, target, body);
            state.last_steps = answer.steps;
            (answer.status, answer.body, answer.crc32)
        })
    }

    /// The capacity the last request consumed, as JSON: total, read and write units, per table and
    /// per index, and each step with its arithmetic.
    fn last_capacity(&self) -> String {
        capacity_json(&self.state().last_steps).to_string()
    }

    /// Every table, its TTL setting and its items, as a workspace file (`dynalab-workspace/1`).
    fn snapshot(&self) -> String {
        Workspace::capture(&self.state().engine, &[]).to_json()
    }

    /// Replaces everything with a snapshot (or a workspace exported from the playground); on a
    /// problem nothing changes.
    fn restore(&self, text: &str) -> PyResult<()> {
        let mut state = self.state();
        let workspace = Workspace::from_json(text).map_err(PyValueError::new_err)?;
        let engine = workspace.restore(state.clock.clone()).map_err(PyValueError::new_err)?;
        state.engine = engine;
        state.marks.clear();
        Ok(())
    }

    /// Writes a fixture — a JSON array of items (DynamoDB JSON or plain), a BatchWriteItem request,
    /// or export JSON lines — all or nothing: how many writes it made.
    #[pyo3(signature = (text, table=None))]
    fn load(&self, text: &str, table: Option<&str>) -> PyResult<usize> {
        let (_, writes) = parse_fixture(text).map_err(PyValueError::new_err)?;
        let calls = requests(&writes, table).map_err(PyValueError::new_err)?;
        let mut state = self.state();
        let mut engine = state.engine.clone();
        for (i, (operation, request)) in calls.iter().enumerate() {
            if let Err(e) = engine.execute(operation, &request.to_string()) {
                return Err(PyValueError::new_err(format!(
                    "item {}: {}: {} (nothing was loaded)",
                    i + 1,
                    e.kind.name(),
                    e.message
                )));
            }
        }
        state.engine = engine;
        Ok(calls.len())
    }

    /// The lab clock, in milliseconds since the epoch.
    fn now(&self) -> u64 {
        self.state().clock.now_millis()
    }

    /// Moves the clock forward, then runs DynamoDB's TTL process: how many items it removed.
    fn advance_clock(&self, millis: u64) -> usize {
        let mut state = self.state();
        state.clock.ahead.fetch_add(millis, Ordering::Relaxed);
        state.engine.expire_items().len()
    }

    /// The stream records written since the last call (or since the start), as JSON: a list of
    /// `{"table", "record"}`, each record as GetRecords shows it.
    fn stream_records(&self) -> String {
        let mut state = self.state();
        let records = state.engine.stream_records_since(&state.marks);
        state.marks = state.engine.stream_marks();
        let list: Vec<Value> =
            records.into_iter().map(|(table, record)| json!({"table": table, "record": record})).collect();
        Value::Array(list).to_string()
    }
}

/// Total, read and write units, per table and per index, and the steps.
fn capacity_json(steps: &[Step]) -> Value {
    let mut read = 0.0;
    let mut write = 0.0;
    let mut tables: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let mut indexes: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let mut vector_bytes: BTreeMap<String, usize> = BTreeMap::new();
    for step in steps {
        let slot = match &step.index {
            Some(index) => indexes.entry(format!("{}/{index}", step.table)).or_default(),
            None => tables.entry(step.table.clone()).or_default(),
        };
        match step.kind {
            StepKind::Read { .. } => {
                read += step.units;
                slot.0 += step.units;
            }
            StepKind::Write => {
                write += step.units;
                slot.1 += step.units;
            }
            // Bytes, not units: reported apart.
            StepKind::VectorSearch | StepKind::VectorWrite => {
                *vector_bytes
                    .entry(format!("{}/{}", step.table, step.index.as_deref().unwrap_or_default()))
                    .or_default() += step.bytes;
            }
        }
    }
    let units = |map: BTreeMap<String, (f64, f64)>| -> Map<String, Value> {
        map.into_iter().map(|(k, (r, w))| (k, json!({"read": r, "write": w, "total": r + w}))).collect()
    };
    json!({"total": read + write, "read": read, "write": write, "tables": units(tables), "indexes": units(indexes),
        "vector_bytes": vector_bytes,
        "steps": steps.iter().map(Step::to_json).collect::<Vec<_>>()})
}

/// `dynalab check` on a design's text: JSON of `{"source", "notes", "verdict", "proven",
/// "report", "markdown"}`; a design that cannot be checked raises `ValueError` with every
/// problem, one a line.
#[pyfunction]
#[pyo3(signature = (text, start_millis=None))]
fn check(py: Python<'_>, text: &str, start_millis: Option<u64>) -> PyResult<String> {
    py.detach(|| {
        let clock = Arc::new(LabClock { start: start_millis, ahead: AtomicU64::new(0) });
        match check_text(text, clock) {
            Ok(design) => {
                let result = &design.checked.result;
                Ok(json!({"source": design.source.describe(), "notes": design.notes, "verdict": result.verdict,
                    "proven": result.proven, "report": result, "markdown": report::markdown(result)})
                .to_string())
            }
            Err(not_checked) => {
                let mut lines = not_checked.problems;
                lines.extend(not_checked.notes.into_iter().map(|n| format!("note: {n}")));
                Err(PyValueError::new_err(lines.join("\n")))
            }
        }
    })
}

/// The name of every operation the engine runs, DynamoDB's and DynamoDB Streams'.
#[pyfunction]
fn operations() -> Vec<String> {
    dynalab_engine::Operation::ALL.iter().map(|op| op.name().to_string()).collect()
}

#[pymodule]
fn _dynalab(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<RawEngine>()?;
    module.add_function(wrap_pyfunction!(check, module)?)?;
    module.add_function(wrap_pyfunction!(operations, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
