//! Loads in the worker: a fixture file's writes, generated orders, a gallery example. Writes run
//! in slices of about [`SLICE_MS`], between which the worker reports progress and hears a Cancel;
//! a load that fails or is cancelled puts back the engine as it was, so it goes in whole or not at
//! all. Nothing else writes while a load runs (`lab::loading`), so putting it back loses nothing.

use super::lab::{self, with_lab};
use super::protocol::{Event, FromWorker, Load, Progressing, Task};
use dynalab_lab::examples::{self, ORDERS_TABLE};
use dynalab_lab::fixtures::{parse_fixture, requests, Write};
use dynalab_lab::generate::OrdersFixture;
use std::cell::Cell;

/// Work done between two looks at the message queue (a Cancel, other questions).
const SLICE_MS: f64 = 40.0;

thread_local! {
    static CANCEL: Cell<bool> = const { Cell::new(false) };
}

/// Asks the running load (or the workspace being opened) to stop; what it did is undone.
pub fn cancel() {
    CANCEL.with(|c| c.set(true));
}

/// Whether a cancel was asked since `reset_cancel`.
pub fn cancelled() -> bool {
    CANCEL.with(Cell::get)
}

pub fn reset_cancel() {
    CANCEL.with(|c| c.set(false));
}

/// Why a load stopped before the end.
enum Stopped {
    Refused(String),
    Cancelled(usize),
    Replaced(usize),
}

/// Runs `load`: what to tell the user, or why nothing changed.
pub async fn run(load: Load) -> Result<String, String> {
    if lab::loading() {
        return Err(lab::BUSY.to_string());
    }
    match load {
        Load::Fixture { text, table } => {
            let (shape, writes) =
                parse_fixture(&text).map_err(|e| format!("Fixture refused: {e}. Nothing was loaded."))?;
            let requests = requests(&writes, table.as_deref()).map_err(|e| format!("Fixture refused: {e}."))?;
            let puts = writes.iter().filter(|w| matches!(w, Write::Put { .. })).count();
            let label = format!("{} ({puts} puts, {} deletes)", shape.describe(), writes.len() - puts);
            let total = requests.len();
            write_all(total, requests.into_iter().map(|(op, r)| (op, r.to_string())), label).await
        }
        Load::Orders { users, orders_per_user, skew, seed } => {
            let fixture = OrdersFixture { users, orders_per_user, skew, seed };
            if fixture.item_count() > 2_000_000 {
                return Err("That is more than 2,000,000 items: too many for a browser tab.".into());
            }
            if !with_lab(|lab| lab.engine.table_names().iter().any(|t| t == ORDERS_TABLE)) {
                let (outcome, _) = lab::run("CreateTable", &examples::orders_table().to_string(), false);
                if let Err(e) = outcome.response {
                    return Err(format!("{}: {}", e.name, e.message));
                }
            }
            let label = format!("{} users × {} orders (skew {})", fixture.users, fixture.orders_per_user, fixture.skew);
            write_all(fixture.item_count(), fixture.requests(), label).await
        }
    }
}

fn progress(done: usize, total: usize) {
    super::host::post(&FromWorker::Event(Event::Progress(Some(Progressing { task: Task::Load, done, total }))));
}

/// Runs the writes in slices; on the first failure (or a cancel), puts back the engine as it was.
async fn write_all(
    total: usize,
    requests: impl Iterator<Item = (&'static str, String)>,
    label: String,
) -> Result<String, String> {
    let start = super::now_ms();
    // Clones share the items' buffers: this costs the maps' nodes, not the items.
    let before = with_lab(|lab| lab.engine.clone());
    let epoch = lab::epoch();
    reset_cancel();
    lab::set_loading(true);
    super::host::send_facts();
    progress(0, total);
    let mut stopped = None;
    let mut requests = requests.peekable();
    let mut done = 0;
    while requests.peek().is_some() {
        let slice_start = super::now_ms();
        let result = with_lab(|lab| {
            for (operation, request) in requests.by_ref() {
                done += 1;
                if let Err(e) = lab.engine.execute(operation, &request) {
                    return Err(format!("write {done} of {total}: {}: {}", e.kind.name(), e.message));
                }
                if done % 256 == 0 && super::now_ms() - slice_start > SLICE_MS {
                    break;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            stopped = Some(Stopped::Refused(e));
            break;
        }
        progress(done, total);
        super::yield_now().await;
        if lab::epoch() != epoch {
            stopped = Some(Stopped::Replaced(done));
            break;
        }
        if CANCEL.with(Cell::get) && requests.peek().is_some() {
            stopped = Some(Stopped::Cancelled(done));
            break;
        }
    }
    lab::set_loading(false);
    super::host::post(&FromWorker::Event(Event::Progress(None)));
    let millis = super::now_ms() - start;
    match stopped {
        // Another workspace took this one's place: there is nothing of this load to undo in it.
        Some(Stopped::Replaced(done)) => {
            Err(format!("The load stopped after {done} of {total} writes: the workspace was replaced."))
        }
        Some(Stopped::Refused(at)) => {
            with_lab(|lab| lab.engine = before);
            Err(format!(
                "The fixture was refused at {at}. The {} earlier write(s) were undone: nothing changed.",
                done.saturating_sub(1)
            ))
        }
        Some(Stopped::Cancelled(done)) => {
            with_lab(|lab| lab.engine = before);
            Err(format!(
                "Cancelled after {done} of {total} writes. The {done} write(s) made were undone: nothing changed."
            ))
        }
        None => Ok(format!("Loaded {label} in {millis:.0} ms: {total} writes.")),
    }
}

/// Loads the gallery example `id` (refused when one of its tables exists).
pub fn example(id: &str) -> Result<String, String> {
    if lab::loading() {
        return Err(lab::BUSY.to_string());
    }
    let example = examples::example(id).ok_or_else(|| format!("There is no example `{id}`."))?;
    let tables = with_lab(|lab| lab.engine.table_names());
    for (op, request) in &example.setup {
        if *op == "CreateTable" {
            let name = request["TableName"].as_str().unwrap_or_default();
            if tables.iter().any(|t| t == name) {
                return Err(format!(
                    "A table named `{name}` already exists: delete it first (Tables) to load this example."
                ));
            }
        }
    }
    for (op, request) in &example.setup {
        let (outcome, _) = lab::run(op, &request.to_string(), false);
        if let Err(e) = outcome.response {
            return Err(format!("The example failed to load at {op}: {}: {}", e.name, e.message));
        }
    }
    Ok(format!("Loaded the {} example: its access patterns are in the Console.", example.title))
}
