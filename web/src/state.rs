//! The page's state: the signals views share, and what they read of the lab. The lab itself (the
//! engine, the history, saving) lives in the engine's worker (`crate::worker`); the page holds the
//! small facts it last told (`crate::client`) and asks for everything else.

use crate::client;
use crate::worker::protocol::{Answer, Ask, Progressing, TableFacts, Task};
use dynalab_engine::explain::Step;
use dynalab_lab::workspace::{HistoryEntry, PackProgress};
use leptos::prelude::*;

pub use crate::worker::protocol::{ErrorShown, RemoteRows};

pub fn table_names() -> Vec<String> {
    client::with_facts(|f| f.tables.iter().map(|t| t.name.clone()).collect())
}

/// What the page knows of `name`: keys, indexes, counts, DescribeTable.
pub fn table(name: &str) -> Option<TableFacts> {
    client::with_facts(|f| f.tables.iter().find(|t| t.name == name).cloned())
}

/// The key attributes of `table` (partition, then sort), or of its `index` followed by the
/// table's: the columns a grid shows first.
pub fn key_names(table: &str, index: Option<&str>) -> Vec<String> {
    self::table(table).map(|t| t.key_names(index)).unwrap_or_default()
}

/// The key attributes of `item`, by `table`'s key schema.
pub fn key_of(table: &str, item: &serde_json::Value) -> serde_json::Value {
    serde_json::Value::Object(
        key_names(table, None).into_iter().filter_map(|n| item.get(&n).map(|v| (n.clone(), v.clone()))).collect(),
    )
}

pub fn history() -> Vec<HistoryEntry> {
    client::history()
}

pub fn progress_of(id: &str) -> PackProgress {
    client::with_facts(|f| f.progress.get(id).cloned().unwrap_or_default())
}

pub fn advanced_ms() -> u64 {
    client::with_facts(|f| f.advanced_ms)
}

/// One request's outcome, as the console shows it (the response parsed, once, here).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub operation: String,
    pub request: String,
    pub response: Result<serde_json::Value, ErrorShown>,
    pub steps: Vec<Step>,
    pub millis: f64,
    pub stream_records: Vec<(String, serde_json::Value)>,
    /// A large response's items, kept in the worker (the response above is without them).
    pub rows: Option<RemoteRows>,
}

impl From<crate::worker::protocol::Outcome> for Outcome {
    fn from(ran: crate::worker::protocol::Outcome) -> Self {
        use crate::worker::protocol::Shown;
        let parse = |text: &str| serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
        let (response, rows) = match ran.response {
            Ok(Shown::Whole(text)) => (Ok(parse(&text)), None),
            Ok(Shown::Large { head, rows }) => (Ok(parse(&head)), Some(rows)),
            Err(e) => (Err(e), None),
        };
        Outcome {
            operation: ran.operation,
            request: ran.request,
            response,
            steps: ran.steps,
            millis: ran.millis,
            stream_records: ran.stream_records,
            rows,
        }
    }
}

/// Runs one request on the engine, explained; `record` adds it to the history.
pub async fn run(operation: &str, request: &str, record: bool) -> Outcome {
    let ask = Ask::Run { operation: operation.to_string(), request: request.to_string(), record };
    match client::ask(ask).await {
        Answer::Ran(ran) => ran.into(),
        other => Outcome {
            operation: operation.to_string(),
            request: request.to_string(),
            response: Err(ErrorShown {
                name: "PlaygroundError".into(),
                message: format!("The engine's worker answered {other:?}"),
                body: serde_json::Value::Null,
            }),
            steps: Vec::new(),
            millis: 0.0,
            stream_records: Vec::new(),
            rows: None,
        },
    }
}

/// Asks for something that is done or refused with a message: the message, or why.
pub async fn done(ask: Ask) -> Result<String, String> {
    match client::ask(ask).await {
        Answer::Done(result) | Answer::Text(result) => result,
        other => Err(format!("The engine's worker answered {other:?}")),
    }
}

/// Signals every view shares.
#[derive(Clone, Copy)]
pub struct Ui {
    /// Bumped when what the views draw from changed (the worker said so).
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
    /// The saved workspace (or a link's) is back in the worker: progress and tables are known.
    pub ready: RwSignal<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Tables,
    Items,
    Console,
    Fixtures,
    Design,
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
            ready: RwSignal::new(false),
        }
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

    /// Says a result: good news, or the refusal.
    pub fn say(self, result: &Result<String, String>) {
        match result {
            Ok(text) if !text.is_empty() => self.tell(true, text.clone()),
            Ok(_) => self.succeeded(),
            Err(e) => self.tell(false, e.clone()),
        }
    }

    /// Something the user did worked: an error shown about an earlier attempt is stale now.
    pub fn succeeded(self) {
        if self.notice.get_untracked().is_some_and(|(ok, _)| !ok) {
            self.notice.set(None);
        }
    }
}

/// How long good news stays on screen.
const NOTICE_SHOWN: std::time::Duration = std::time::Duration::from_secs(6);

/// A long task the worker runs (a load, a restore): how far it is, for the progress bar, which
/// belongs to the app so it stays when another tab is shown.
#[derive(Clone, Copy)]
pub struct LoadProgress {
    pub now: RwSignal<Option<Progressing>>,
    /// Cancel was asked: the button waits for the load to stop.
    pub cancelling: RwSignal<bool>,
}

impl LoadProgress {
    pub fn new() -> Self {
        Self { now: RwSignal::new(None), cancelling: RwSignal::new(false) }
    }

    pub fn show(self, state: Option<Progressing>) {
        if state.is_none() {
            self.cancelling.set(false);
        }
        self.now.set(state);
    }

    /// A load (not a restore) is running.
    pub fn loading(self) -> bool {
        self.now.get().is_some_and(|p| p.task == Task::Load)
    }

    pub fn cancel(self) {
        self.cancelling.set(true);
        client::cancel();
    }
}

/// Puts the keyboard focus on the element `selector` finds once the view now being drawn is there
/// (a start-panel button that switches tabs would otherwise leave it on the page's body).
pub fn focus_when_drawn(selector: &'static str) {
    leptos::task::spawn_local(async move {
        // A few frames: the tab's view, then anything it draws once its data is in.
        for _ in 0..20 {
            gloo_timers::future::TimeoutFuture::new(25).await;
            let element = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.query_selector(selector).ok().flatten())
                .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
            if let Some(element) = element {
                let _ = element.focus();
                return;
            }
        }
    });
}
