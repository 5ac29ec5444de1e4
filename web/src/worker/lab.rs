//! The lab the worker keeps: the engine, the request history, pack progress and the last request
//! a workshop judges. Only the worker's thread touches it.

use super::protocol::{ErrorShown, Facts, Outcome, TableFacts};
use dynalab_engine::{Clock, Engine};
use dynalab_lab::pack::workshop::Ran;
use dynalab_lab::workspace::{HistoryEntry, Progress, Studio, Workspace, MAX_HISTORY};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Time from the browser (`Date.now`), moved forward by the "advance time" control so expiry
/// (TTL) can be watched without waiting.
pub struct BrowserClock;

static ADVANCED_MS: AtomicU64 = AtomicU64::new(0);

impl Clock for BrowserClock {
    fn now_millis(&self) -> u64 {
        js_sys::Date::now() as u64 + ADVANCED_MS.load(Ordering::Relaxed)
    }
}

pub fn clock() -> Arc<dyn Clock> {
    Arc::new(BrowserClock)
}

/// The state behind the views.
pub struct Lab {
    pub engine: Engine,
    pub history: Vec<HistoryEntry>,
    pub progress: Progress,
    /// The design the workspace is: inventory, entity layouts, calls, alternatives.
    pub studio: Studio,
    /// What the last request the console or a workshop ran did, for a workshop's checks.
    pub last_ran: Option<Ran>,
    /// The last proof of the design, and the workspace it ran on (see [`super::studio::Proof`]).
    pub proof: Option<super::studio::Proof>,
}

thread_local! {
    static LAB: RefCell<Lab> = RefCell::new(Lab { engine: Engine::new(clock()), history: Vec::new(), progress: Progress::new(), studio: Studio::default(), last_ran: None, proof: None });
    /// A load is writing: nothing else may change the engine meanwhile (a cancel puts back the
    /// engine as it was before the load, which would lose any other write).
    static LOADING: Cell<bool> = const { Cell::new(false) };
    /// Bumped when the whole workspace is replaced (an import, a link, a restore, a step).
    static EPOCH: Cell<u64> = const { Cell::new(0) };
}

/// Reads or changes the lab. Never call it from inside itself, nor across an `.await`.
pub fn with_lab<T>(f: impl FnOnce(&mut Lab) -> T) -> T {
    LAB.with(|lab| f(&mut lab.borrow_mut()))
}

pub fn loading() -> bool {
    LOADING.with(Cell::get)
}

pub fn set_loading(on: bool) {
    LOADING.with(|l| l.set(on));
}

pub fn epoch() -> u64 {
    EPOCH.with(Cell::get)
}

/// What a workspace holds beside its tables and items.
pub struct Beside {
    pub history: Vec<HistoryEntry>,
    pub progress: Progress,
    pub studio: Studio,
}

impl Beside {
    pub fn of(workspace: Workspace) -> Self {
        Self { history: workspace.history, progress: workspace.progress, studio: workspace.design }
    }

    /// The lab's own, to keep when only the tables change.
    pub fn current() -> Self {
        with_lab(|lab| Self {
            history: lab.history.clone(),
            progress: lab.progress.clone(),
            studio: lab.studio.clone(),
        })
    }
}

/// Replaces the whole lab with a restored workspace (already checked by `Workspace::restore`).
pub fn replace(engine: Engine, beside: Beside) {
    EPOCH.with(|e| e.set(e.get() + 1));
    with_lab(|lab| {
        lab.engine = engine;
        lab.history = beside.history;
        lab.progress = beside.progress;
        lab.studio = beside.studio;
        lab.last_ran = None;
        lab.proof = None;
    });
}

/// The current workspace, whole (for a file or a link).
pub fn capture() -> Workspace {
    with_lab(|lab| {
        let mut workspace = Workspace::capture(&lab.engine, &lab.history);
        workspace.progress = lab.progress.clone();
        workspace.design = lab.studio.clone();
        workspace
    })
}

/// How far the lab's clock runs ahead of the browser's.
pub fn advanced_ms() -> u64 {
    ADVANCED_MS.load(Ordering::Relaxed)
}

/// Moves the lab's clock forward (or back to real time with `None`), then runs the TTL sweep:
/// how many expired items it removed.
pub fn advance_clock(by_ms: Option<u64>) -> usize {
    match by_ms {
        Some(ms) => ADVANCED_MS.fetch_add(ms, Ordering::Relaxed),
        None => ADVANCED_MS.swap(0, Ordering::Relaxed),
    };
    sweep()
}

/// DynamoDB's TTL process, run now. It waits while a load runs.
pub fn sweep() -> usize {
    if loading() {
        return 0;
    }
    with_lab(|lab| lab.engine.expire_items().len())
}

/// What the views draw from, now.
pub fn facts() -> Facts {
    with_lab(|lab| {
        let tables = lab
            .engine
            .table_names()
            .iter()
            .filter_map(|name| {
                let shape = lab.engine.outline(name).ok()?;
                let description = lab
                    .engine
                    .execute_value("DescribeTable", &serde_json::json!({"TableName": name}))
                    .ok()
                    .map(|d| serde_json::to_string_pretty(&d["Table"]).unwrap_or_default())
                    .unwrap_or_default();
                Some(TableFacts::new(&shape, description))
            })
            .collect();
        Facts {
            tables,
            progress: lab.progress.clone(),
            studio: lab.studio.clone(),
            advanced_ms: advanced_ms(),
            loading: loading(),
            epoch: epoch(),
            previous: super::save::has_previous(),
        }
    })
}

pub const BUSY: &str = "A load is writing to the workspace: wait for it to finish or cancel it, then run this again.";

/// Runs one request on the engine, explained; `record` adds it to the history (returned too,
/// for the page's copy).
pub fn run(operation: &str, request: &str, record: bool) -> (Outcome, Option<HistoryEntry>) {
    if loading() {
        let outcome = Outcome {
            operation: operation.to_string(),
            request: request.to_string(),
            response: Err(ErrorShown {
                name: "PlaygroundBusy".to_string(),
                message: BUSY.to_string(),
                body: serde_json::json!({"__type": "PlaygroundBusy", "message": BUSY}),
            }),
            steps: Vec::new(),
            millis: 0.0,
            stream_records: Vec::new(),
        };
        return (outcome, None);
    }
    let start = super::now_ms();
    let (result, steps, stream_records, added) = with_lab(|lab| {
        let marks = lab.engine.stream_marks();
        let outcome = lab.engine.run(operation, request);
        let records = lab.engine.stream_records_since(&marks);
        let (shown, steps) = (outcome.response.clone(), outcome.steps.clone());
        // A workshop's checks read the same outcome, kept as text until a check asks.
        lab.last_ran = Some(Ran::new(request.to_string(), outcome));
        let added = record.then(|| {
            let entry = HistoryEntry { operation: operation.to_string(), request: request.to_string() };
            lab.history.push(entry.clone());
            let excess = lab.history.len().saturating_sub(MAX_HISTORY);
            lab.history.drain(..excess);
            entry
        });
        (shown, steps, records, added)
    });
    let millis = super::now_ms() - start;
    let keys = || -> Vec<String> {
        let parsed: serde_json::Value = serde_json::from_str(request).unwrap_or_default();
        let Some(table) = parsed.get("TableName").and_then(serde_json::Value::as_str) else { return Vec::new() };
        let index = parsed.get("IndexName").and_then(serde_json::Value::as_str);
        let facts = with_lab(|lab| lab.engine.outline(table).ok().map(|shape| TableFacts::new(&shape, String::new())));
        facts.map(|f| f.key_names(index)).unwrap_or_default()
    };
    let response = result.map(|text| super::results::shown(text, keys)).map_err(|error| ErrorShown {
        name: error.kind.name().to_string(),
        message: error.message.clone(),
        body: error.to_json(),
    });
    let outcome = Outcome {
        operation: operation.to_string(),
        request: request.to_string(),
        response,
        steps,
        millis,
        stream_records,
    };
    (outcome, added)
}
