//! The page's end of the engine's worker: starts it, sends [`Ask`]s and awaits their
//! [`Answer`]s, and applies what it tells ([`Event`]) — the facts views draw from, the history,
//! a load's progress, notices, and localStorage copies where IndexedDB refused.

use crate::state::{LoadProgress, Ui};
use crate::worker::protocol::{encode, Answer, Ask, Event, Facts, FromWorker, HistoryChange, ToWorker};
use dynalab_lab::workspace::{HistoryEntry, MAX_HISTORY};
use leptos::prelude::{GetUntracked, Set, Update};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    static WORKER: RefCell<Option<web_sys::Worker>> = const { RefCell::new(None) };
    /// Messages sent before the worker said it listens.
    static HELD: RefCell<Option<Vec<String>>> = const { RefCell::new(Some(Vec::new())) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
    /// Who waits for which answer, and answers not yet taken.
    static WAITING: RefCell<HashMap<u64, js_sys::Function>> = RefCell::new(HashMap::new());
    static ANSWERS: RefCell<HashMap<u64, Answer>> = RefCell::new(HashMap::new());
    static FACTS: RefCell<Facts> = RefCell::new(Facts::default());
    /// Why the worker stopped, once it has (an uncaught error): every ask is answered with it.
    static STOPPED: RefCell<Option<String>> = const { RefCell::new(None) };
    static HISTORY: RefCell<Vec<HistoryEntry>> = const { RefCell::new(Vec::new()) };
}

/// Reads the facts views draw from.
pub fn with_facts<T>(f: impl FnOnce(&Facts) -> T) -> T {
    FACTS.with(|facts| f(&facts.borrow()))
}

pub fn history() -> Vec<HistoryEntry> {
    HISTORY.with(|h| h.borrow().clone())
}

/// The URL of a `<link>` the site build wrote into the page (the module's JavaScript, its WebAssembly).
fn linked(selector: &str) -> Option<String> {
    let element = web_sys::window()?.document()?.query_selector(selector).ok()??;
    Some(element.dyn_into::<web_sys::HtmlLinkElement>().ok()?.href())
}

/// Starts the worker: the page's own module, run by `worker.js` beside the page.
pub fn start(ui: Ui, progress: LoadProgress) -> Result<(), String> {
    let glue = linked("link[rel=modulepreload]").ok_or("the page names no module to start the engine from")?;
    let wasm = linked("link[rel=preload][as=fetch]").ok_or("the page names no WebAssembly to start the engine from")?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    options.set_name(&format!("{glue}\n{wasm}"));
    let worker = web_sys::Worker::new_with_options("worker.js", &options)
        .map_err(|e| format!("the browser would not start the engine's worker: {e:?}"))?;
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        if let Some(text) = event.data().as_string() {
            receive(ui, progress, &text);
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
        let said = format!("The engine's worker failed: {}. Reload the page; your last save is kept.", event.message());
        ui.tell(false, said.clone());
        stopped(said);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    WORKER.with(|w| *w.borrow_mut() = Some(worker));
    Ok(())
}

fn send(text: String) {
    let held = HELD.with(|held| held.borrow_mut().as_mut().map(|h| h.push(text.clone())).is_some());
    if !held {
        WORKER.with(|w| {
            if let Some(worker) = w.borrow().as_ref() {
                let _ = worker.post_message(&JsValue::from_str(&text));
            }
        });
    }
}

/// The worker failed: what waits for an answer gets the failure (nothing stays "Proving…"), and
/// so does every later ask (a worker whose WebAssembly trapped cannot be trusted to answer).
fn stopped(said: String) {
    STOPPED.with(|s| *s.borrow_mut() = Some(said.clone()));
    let waiting: Vec<(u64, js_sys::Function)> = WAITING.with(|w| w.borrow_mut().drain().collect());
    for (id, resolve) in waiting {
        ANSWERS.with(|a| a.borrow_mut().insert(id, Answer::Done(Err(said.clone()))));
        let _ = resolve.call0(&JsValue::NULL);
    }
}

/// Marks the worker failed with `said` (empty: working again), as its error event does.
#[cfg(test)]
pub fn stopped_for_test(said: String) {
    if said.is_empty() {
        STOPPED.with(|s| *s.borrow_mut() = None);
    } else {
        stopped(said);
    }
}

/// Asks the worker and waits for its answer.
pub async fn ask(ask: Ask) -> Answer {
    if let Some(said) = STOPPED.with(|s| s.borrow().clone()) {
        return Answer::Done(Err(said));
    }
    let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        WAITING.with(|w| w.borrow_mut().insert(id, resolve));
    });
    send(encode(&ToWorker::Ask { id, ask }));
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    ANSWERS
        .with(|a| a.borrow_mut().remove(&id))
        .unwrap_or(Answer::Done(Err("The engine's worker gave no answer.".into())))
}

/// Stops the running load (it undoes what it wrote).
pub fn cancel() {
    send(encode(&ToWorker::Cancel));
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// localStorage's copy under `key` (only the page can read it).
pub fn local(key: &str) -> Option<String> {
    local_storage()?.get_item(key).ok().flatten()
}

fn receive(ui: Ui, progress: LoadProgress, text: &str) {
    let message = match serde_json::from_str::<FromWorker>(text) {
        Ok(message) => message,
        Err(e) => return ui.tell(false, format!("A message from the engine's worker could not be read: {e}")),
    };
    match message {
        FromWorker::Answer { id, answer } => {
            ANSWERS.with(|a| a.borrow_mut().insert(id, answer));
            if let Some(resolve) = WAITING.with(|w| w.borrow_mut().remove(&id)) {
                let _ = resolve.call0(&JsValue::NULL);
            }
        }
        FromWorker::Event(Event::Ready) => {
            let held = HELD.with(|h| h.borrow_mut().take()).unwrap_or_default();
            for text in held {
                send(text);
            }
        }
        FromWorker::Event(Event::Facts(facts)) => {
            let replaced = with_facts(|old| old.epoch != facts.epoch);
            FACTS.with(|f| *f.borrow_mut() = facts);
            // A table that went away is no longer the selected one.
            let names = crate::state::table_names();
            let selected = ui.selected_table.get_untracked();
            if replaced || selected.as_ref().is_none_or(|s| !names.contains(s)) {
                ui.selected_table.set(names.first().cloned());
            }
            ui.version.update(|v| *v += 1);
        }
        FromWorker::Event(Event::History(change)) => {
            HISTORY.with(|h| {
                let mut history = h.borrow_mut();
                match change {
                    HistoryChange::Added(entry) => history.push(entry),
                    HistoryChange::All(all) => *history = all,
                }
                let excess = history.len().saturating_sub(MAX_HISTORY);
                history.drain(..excess);
            });
            ui.version.update(|v| *v += 1);
        }
        FromWorker::Event(Event::Progress(state)) => progress.show(state),
        FromWorker::Event(Event::Notice { ok, text }) => ui.tell(ok, text),
        FromWorker::Event(Event::KeepLocal { key, text }) => {
            let Some(storage) = local_storage() else {
                if text.is_some() {
                    ui.tell(false, "The workspace could not be saved: IndexedDB refused and there is no local storage. Export it to a file to keep it.");
                }
                return;
            };
            match text {
                None => {
                    let _ = storage.remove_item(&key);
                }
                Some(text) => {
                    if storage.set_item(&key, &text).is_err() {
                        ui.tell(
                            false,
                            format!(
                                "The workspace ({:.1} MB compressed) could not be saved: IndexedDB refused and local storage is full. Export it to a file to keep it.",
                                text.len() as f64 / 1_048_576.0
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// Bytes of WebAssembly memory the engine's worker holds, for `benches/playground.mjs`
/// (`await wasmBindings.engine_memory_bytes()`).
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn engine_memory_bytes() -> f64 {
    match ask(Ask::Memory).await {
        Answer::Number(bytes) => bytes,
        _ => 0.0,
    }
}

/// Parts the saves wrote since this was last asked, and parts the last save found already
/// saved, as `written skipped` (for the browser tests: a small change must write few parts).
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn last_save_parts() -> String {
    match ask(Ask::LastSave).await {
        Answer::Text(Ok(text)) => text,
        _ => String::new(),
    }
}
