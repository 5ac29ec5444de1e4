//! Dynalab's engine for JavaScript (the npm package in `packages/dynalab`): an engine to run any
//! operation on, the wire exchange the AWS SDK request handler uses, snapshots, the lab clock, and
//! the design check. Requests and responses cross as DynamoDB JSON text; errors cross as objects
//! carrying DynamoDB's name, message and wire body, which the package turns into typed errors.

mod clock;
#[cfg(feature = "codec-bench")]
mod codec_bench;

use dynalab_lab::exchange;

use clock::LabClock;
use dynalab_engine::explain::Step;
use dynalab_engine::{DynamoError, Engine, Operation};
use dynalab_lab::workbook::check::{check_text, CheckedDesign, NotChecked};
use dynalab_lab::workbook::{compare as comparison, report};
use dynalab_lab::workspace::Workspace;
use serde_json::{json, Value};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// One engine: its tables, items, streams and clock. Independent of every other engine.
#[wasm_bindgen(js_name = RawEngine)]
pub struct JsEngine {
    engine: Engine,
    clock: Arc<LabClock>,
}

/// The answer to one request over the wire: what the SDK handler turns into an HTTP response.
#[wasm_bindgen]
pub struct WireAnswer {
    pub status: u16,
    pub crc32: u32,
    body: String,
}

#[wasm_bindgen]
impl WireAnswer {
    #[wasm_bindgen(getter)]
    pub fn body(&self) -> String {
        self.body.clone()
    }
}

#[wasm_bindgen(js_class = RawEngine)]
impl JsEngine {
    /// An empty engine. `start_millis` fixes the clock's start (it then moves only when advanced);
    /// without it the clock is the host's `Date.now()`.
    #[wasm_bindgen(constructor)]
    pub fn new(start_millis: Option<f64>) -> JsEngine {
        let clock = Arc::new(LabClock::new(start_millis.map(millis)));
        JsEngine { engine: Engine::new(clock.clone()), clock }
    }

    /// Runs `operation` (`"PutItem"`) on a request in DynamoDB JSON; the response body, or throws
    /// the error DynamoDB would send.
    pub fn execute(&mut self, operation: &str, request: &str) -> Result<String, JsValue> {
        self.engine.execute(operation, request).map_err(|e| error_object(&e))
    }

    /// Like [`JsEngine::execute`], with the capacity arithmetic: JSON text of
    /// `{"response": …|null, "error": {name, message, …}|null, "capacity": [steps]}` (a failed
    /// conditional write is charged too, so the steps come with errors as well).
    pub fn explain(&mut self, operation: &str, request: &str) -> String {
        let outcome = self.engine.run(operation, request);
        // The response body is JSON already: written in as it is, not parsed again.
        let (response, error) = match &outcome.response {
            Ok(body) if body.is_empty() => ("{}".to_string(), "null".to_string()),
            Ok(body) => (body.clone(), "null".to_string()),
            Err(e) => ("null".to_string(), error_json(e).to_string()),
        };
        let capacity = Value::Array(outcome.steps.iter().map(Step::to_json).collect());
        format!(r#"{{"response":{response},"error":{error},"capacity":{capacity}}}"#)
    }

    /// One request as the JSON 1.0 protocol carries it: the `X-Amz-Target` value and the body.
    pub fn exchange(&mut self, target: &str, body: &str) -> WireAnswer {
        let answer = exchange::exchange(&mut self.engine, target, body);
        WireAnswer { status: answer.status, crc32: answer.crc32, body: answer.body }
    }

    /// Every table, its TTL setting and its items, as a workspace file (`dynalab-workspace/1`, the
    /// playground's export format). Stream records and tags are not part of it.
    pub fn snapshot(&self) -> String {
        Workspace::capture(&self.engine, &[]).to_json()
    }

    /// A new engine holding a snapshot (or a workspace exported from the playground); throws with
    /// the first problem, and then nothing was made.
    pub fn restore(text: &str, start_millis: Option<f64>) -> Result<JsEngine, JsValue> {
        let clock = Arc::new(LabClock::new(start_millis.map(millis)));
        let workspace = Workspace::from_json(text).map_err(|e| plain_error("SnapshotError", &e))?;
        let engine = workspace.restore(clock.clone()).map_err(|e| plain_error("SnapshotError", &e))?;
        Ok(JsEngine { engine, clock })
    }

    /// The lab clock, in milliseconds since the epoch.
    pub fn now(&self) -> f64 {
        use dynalab_engine::Clock;
        self.clock.now_millis() as f64
    }

    /// Moves the lab clock forward, then runs DynamoDB's TTL process: how many expired items it
    /// removed (each with its stream record, as the service writes them).
    #[wasm_bindgen(js_name = advanceClock)]
    pub fn advance_clock(&mut self, by_millis: f64) -> u32 {
        self.clock.advance(millis(by_millis));
        self.expire()
    }

    /// Runs DynamoDB's TTL process now: how many expired items it removed.
    pub fn expire(&mut self) -> u32 {
        self.engine.expire_items().len() as u32
    }
}

/// The name of every operation the engine runs, DynamoDB's and DynamoDB Streams'.
#[wasm_bindgen]
pub fn operations() -> Vec<String> {
    Operation::ALL.iter().map(|op| op.name().to_string()).collect()
}

/// The `X-Amz-Target` header value for an operation name, or `undefined`.
#[wasm_bindgen]
pub fn target(operation: &str) -> Option<String> {
    Operation::from_name(operation).map(Operation::target)
}

/// The package's version (the workspace's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// `dynalab check` on a design's text (a workbook or any format the command line reads): an object
/// `{source, notes, verdict, report, markdown}`. Throws a `DesignError` carrying every problem when
/// nothing could run.
///
/// The report crosses as JavaScript values (serde-wasm-bindgen), not JSON text: it is built as a
/// value here, and handing that over measured 0.85× the time of writing and parsing its text
/// (`benches/npm-api-values.mjs`). Requests and responses stay text: the engine reads and writes
/// text, and values measured 2–4× slower for them.
#[wasm_bindgen]
pub fn check(text: &str, start_millis: Option<f64>) -> Result<JsValue, JsValue> {
    to_js(&check_value(text, start_millis)?)
}

/// What [`check`] answers, as a JSON value.
fn check_value(text: &str, start_millis: Option<f64>) -> Result<Value, JsValue> {
    let design = checked(text, start_millis)?;
    let result = &design.checked.result;
    Ok(json!({
        "source": design.source.describe(),
        "notes": design.notes,
        "verdict": result.verdict,
        "report": result,
        "markdown": report::markdown(result),
    }))
}

/// Two designs checked side by side (`dynalab check A --compare B`): an object `{report, markdown}`
/// (as JavaScript values, as [`check`]'s).
#[wasm_bindgen]
pub fn compare(a: &str, b: &str, start_millis: Option<f64>) -> Result<JsValue, JsValue> {
    let (a, b) = (checked(a, start_millis)?, checked(b, start_millis)?);
    let (a, b) = (&a.checked.result, &b.checked.result);
    to_js(&json!({"report": comparison::value(a, b), "markdown": comparison::markdown(a, b)}))
}

/// A JSON value as the JavaScript value `JSON.parse` would make of its text (maps as plain
/// objects, numbers as numbers).
fn to_js(value: &Value) -> Result<JsValue, JsValue> {
    use serde::Serialize as _;
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(JsValue::from)
}

fn checked(text: &str, start_millis: Option<f64>) -> Result<CheckedDesign, JsValue> {
    let clock = Arc::new(LabClock::new(start_millis.map(millis)));
    check_text(text, clock).map_err(|e| design_error(&e))
}

fn millis(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 {
        value as u64
    } else {
        0
    }
}

/// The facts of a DynamoDB error, as the package's `DynamoDBError` takes them.
fn error_json(error: &DynamoError) -> Value {
    json!({
        "name": error.kind.name(),
        "message": error.message,
        "type": error.kind.wire_type(),
        "statusCode": error.kind.http_status(),
        "body": error.to_json(),
    })
}

fn error_object(error: &DynamoError) -> JsValue {
    js_sys::JSON::parse(&error_json(error).to_string()).unwrap_or_else(|_| JsValue::from_str(&error.to_string()))
}

fn plain_error(name: &str, message: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    error.set_name(name);
    error.into()
}

fn design_error(not_checked: &NotChecked) -> JsValue {
    let error = js_sys::Error::new(&not_checked.problems.join("\n"));
    error.set_name("DesignError");
    let problems: js_sys::Array = not_checked.problems.iter().map(|p| JsValue::from_str(p)).collect();
    let notes: js_sys::Array = not_checked.notes.iter().map(|p| JsValue::from_str(p)).collect();
    let _ = js_sys::Reflect::set(&error, &"problems".into(), &problems);
    let _ = js_sys::Reflect::set(&error, &"notes".into(), &notes);
    error.into()
}
