//! The playground's one state: the engine, the request history and which table is selected. It
//! lives in the page's only thread; views read it when `version` changes, and every change goes
//! through [`Lab::run`] or [`replace`], which bump the version and schedule an auto-save.

use dynalab_engine::explain::Step;
use dynalab_engine::{Clock, Engine};
use dynalab_lab::pack::workshop::Ran;
use dynalab_lab::workspace::{HistoryEntry, Progress, Workspace, MAX_HISTORY};
use leptos::prelude::*;
use std::cell::RefCell;
use std::sync::Arc;

/// Time from the browser (`Date.now`), moved forward by the "advance time" control so expiry
/// (TTL) can be watched without waiting.
pub struct BrowserClock;

static ADVANCED_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Clock for BrowserClock {
    fn now_millis(&self) -> u64 {
        js_sys::Date::now() as u64 + ADVANCED_MS.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// How far the lab's clock runs ahead of the browser's.
pub fn advanced_ms() -> u64 {
    ADVANCED_MS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Moves the lab's clock forward (or back to real time with `None`), then runs the TTL sweep:
/// how many expired items it removed.
pub fn advance_clock(by_ms: Option<u64>) -> usize {
    match by_ms {
        Some(ms) => ADVANCED_MS.fetch_add(ms, std::sync::atomic::Ordering::Relaxed),
        None => ADVANCED_MS.swap(0, std::sync::atomic::Ordering::Relaxed),
    };
    sweep()
}

/// DynamoDB's TTL process, run now: removes expired items from tables with TTL enabled. It waits
/// while a load runs (the load keeps the engine as it was, to put back if it is cancelled).
pub fn sweep() -> usize {
    if loading() {
        return 0;
    }
    with_lab(|lab| lab.engine.expire_items().len())
}

thread_local! {
    /// A fixture load or generation is writing: nothing else may change the engine meanwhile.
    static LOADING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Bumped when the whole workspace is replaced (an import, a link, a restore).
    static WORKSPACE_EPOCH: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

pub fn loading() -> bool {
    LOADING.with(std::cell::Cell::get)
}

pub fn set_loading(on: bool) {
    LOADING.with(|l| l.set(on));
}

pub fn workspace_epoch() -> u64 {
    WORKSPACE_EPOCH.with(std::cell::Cell::get)
}

pub fn clock() -> Arc<dyn Clock> {
    Arc::new(BrowserClock)
}

/// The state behind the views.
pub struct Lab {
    pub engine: Engine,
    pub history: Vec<HistoryEntry>,
    /// Workshop and challenge progress, saved and shared with the workspace.
    pub progress: Progress,
    /// What the last request the console or a workshop ran did, for a workshop's checks.
    pub last_ran: Option<Ran>,
}

impl Lab {
    /// The key attributes of `item`, by `table`'s key schema (none when there is no such table).
    pub fn key_of(&mut self, table: &str, item: &serde_json::Value) -> serde_json::Value {
        let names = self.key_names(table, None);
        serde_json::Value::Object(
            names.into_iter().filter_map(|n| item.get(&n).map(|v| (n.clone(), v.clone()))).collect(),
        )
    }

    /// The key attributes of `table` (partition, then sort), or of its `index` followed by the
    /// table's: the columns a grid shows first.
    pub fn key_names(&self, table: &str, index: Option<&str>) -> Vec<String> {
        let Ok(shape) = self.engine.outline(table) else { return Vec::new() };
        let mut names = Vec::new();
        if let Some(index) = index.and_then(|name| shape.indexes.iter().find(|i| i.name == name)) {
            names.extend(index.partition_key.iter().chain(&index.sort_key).cloned());
        }
        for name in std::iter::once(&shape.partition_key).chain(shape.sort_key.as_ref()) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }
}

thread_local! {
    static LAB: RefCell<Lab> = RefCell::new(Lab { engine: Engine::new(clock()), history: Vec::new(), progress: Progress::new(), last_ran: None });
}

/// Reads or changes the lab. Never call it from inside itself.
pub fn with_lab<T>(f: impl FnOnce(&mut Lab) -> T) -> T {
    LAB.with(|lab| f(&mut lab.borrow_mut()))
}

/// One request's outcome, as the console shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub operation: String,
    pub request: String,
    pub response: Result<serde_json::Value, ErrorShown>,
    pub steps: Vec<Step>,
    pub millis: f64,
    /// Stream records the request produced, with their table.
    pub stream_records: Vec<(String, serde_json::Value)>,
}

/// An error as DynamoDB names it, with what it carries.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorShown {
    pub name: String,
    pub message: String,
    pub body: serde_json::Value,
}

/// Signals every view shares.
#[derive(Clone, Copy)]
pub struct Ui {
    /// Bumped on every change to the lab.
    pub version: RwSignal<u64>,
    pub selected_table: RwSignal<Option<String>>,
    pub tab: RwSignal<Tab>,
    /// A message for the whole page (saved, imported, refused...).
    pub notice: RwSignal<Option<(bool, String)>>,
    /// What the console should load next (from history, a gallery pattern, a template).
    pub console_request: RwSignal<Option<(String, String)>>,
    /// The pack open on the Learn tab.
    pub learn_pack: RwSignal<Option<String>>,
    /// The URL of a workbook opened with `?workbook=`, once it is in the editor.
    pub workbook_opened: RwSignal<Option<String>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Tables,
    Items,
    Console,
    Fixtures,
    Patterns,
    Learn,
}

impl Ui {
    pub fn new() -> Self {
        Self {
            version: RwSignal::new(0),
            selected_table: RwSignal::new(None),
            tab: RwSignal::new(Tab::Console),
            notice: RwSignal::new(None),
            console_request: RwSignal::new(None),
            learn_pack: RwSignal::new(None),
            workbook_opened: RwSignal::new(None),
        }
    }

    /// Something changed: views refresh, and the workspace is saved.
    pub fn changed(self) {
        self.version.update(|v| *v += 1);
        crate::storage::schedule_save();
    }

    /// A notice for the whole page. Good news clears itself after a few seconds; a refusal or an
    /// error stays until dismissed or replaced.
    pub fn tell(self, ok: bool, message: impl Into<String>) {
        let message = message.into();
        self.notice.set(Some((ok, message.clone())));
        if ok {
            let notice = self.notice;
            leptos::prelude::set_timeout(
                move || {
                    if notice.get_untracked().is_some_and(|(_, shown)| shown == message) {
                        notice.set(None);
                    }
                },
                NOTICE_SHOWN,
            );
        }
    }
}

/// Gives the browser its thread back for a moment (paint, input), then continues.
pub async fn yield_to_browser() {
    sleep(0).await;
}

/// Continues after `ms` milliseconds, the page running meanwhile.
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// How long good news stays on screen.
const NOTICE_SHOWN: std::time::Duration = std::time::Duration::from_secs(6);

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Runs one request on the engine, explained; `record` adds it to the history.
pub fn run(operation: &str, request: &str, record: bool) -> Outcome {
    if loading() {
        let message = "A load is writing to the workspace: wait for it to finish or cancel it, then run this again.";
        return Outcome {
            operation: operation.to_string(),
            request: request.to_string(),
            response: Err(ErrorShown {
                name: "PlaygroundBusy".to_string(),
                message: message.to_string(),
                body: serde_json::json!({"__type": "PlaygroundBusy", "message": message}),
            }),
            steps: Vec::new(),
            millis: 0.0,
            stream_records: Vec::new(),
        };
    }
    let start = now_ms();
    let (result, steps, stream_records) = with_lab(|lab| {
        let marks = lab.engine.stream_marks();
        let outcome = lab.engine.run(operation, request);
        let records = lab.engine.stream_records_since(&marks);
        let (shown, steps) = (outcome.response.clone(), outcome.steps.clone());
        // A workshop's checks read the same outcome, kept as text until a check asks: no
        // second parse of every response.
        lab.last_ran = Some(Ran::new(request.to_string(), outcome));
        let outcome = shown;
        if record {
            lab.history.push(HistoryEntry { operation: operation.to_string(), request: request.to_string() });
            let excess = lab.history.len().saturating_sub(MAX_HISTORY);
            lab.history.drain(..excess);
        }
        (outcome, steps, records)
    });
    let millis = now_ms() - start;
    let response = match result {
        Ok(body) => Ok(serde_json::from_str(&body).unwrap_or(serde_json::Value::Null)),
        Err(error) => Err(ErrorShown {
            name: error.kind.name().to_string(),
            message: error.message.clone(),
            body: error.to_json(),
        }),
    };
    Outcome { operation: operation.to_string(), request: request.to_string(), response, steps, millis, stream_records }
}

/// Replaces the whole lab with a restored workspace (already checked by `Workspace::restore`).
pub fn replace(engine: Engine, history: Vec<HistoryEntry>, progress: Progress) {
    WORKSPACE_EPOCH.with(|e| e.set(e.get() + 1));
    with_lab(|lab| {
        lab.engine = engine;
        lab.history = history;
        lab.progress = progress;
        lab.last_ran = None;
    });
}

/// The current workspace.
pub fn capture() -> Workspace {
    with_lab(|lab| {
        let mut workspace = Workspace::capture(&lab.engine, &lab.history);
        workspace.progress = lab.progress.clone();
        workspace
    })
}

pub fn table_names() -> Vec<String> {
    with_lab(|lab| lab.engine.table_names())
}
