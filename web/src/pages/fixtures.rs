//! Examples and fixtures: the gallery, loading items from a file (BatchWriteItem shape, a JSON
//! array, export JSON lines), and generated orders with a chosen skew. Large loads run in chunks
//! that give the browser back its thread between them, with a progress bar; a load that fails part
//! way is undone, so a fixture goes in whole or not at all.

use crate::state::{self, with_lab, Ui};
use dynalab_lab::examples::{self, ORDERS_TABLE};
use dynalab_lab::fixtures::{parse_fixture, requests, Write};
use dynalab_lab::generate::OrdersFixture;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Why a load stopped before the end.
enum Stopped {
    /// A write failed: where and why.
    Refused(String),
    /// The user cancelled after this many writes.
    Cancelled(usize),
    /// Another workspace replaced this one (an import, a link) after this many writes.
    Replaced(usize),
}

/// Requests run between two yields to the browser.
const CHUNK: usize = 2_000;

#[derive(Clone, Copy)]
pub struct Progress {
    done: RwSignal<usize>,
    total: RwSignal<usize>,
    busy: RwSignal<bool>,
    /// Asked to stop: the load undoes what it wrote, as when a write fails.
    cancel: RwSignal<bool>,
}

impl Progress {
    /// Made once by the app (`provide_context`), not by the page: a load goes on when another tab
    /// is shown, and its progress and Cancel button are there again on coming back.
    pub fn new() -> Self {
        Self {
            done: RwSignal::new(0),
            total: RwSignal::new(0),
            busy: RwSignal::new(false),
            cancel: RwSignal::new(false),
        }
    }
}

#[component]
pub fn FixturesPage() -> impl IntoView {
    let progress = expect_context::<Progress>();
    view! {
        <div class="fixtures-page">
            <Gallery/>
            <FromFile progress/>
            <Generate progress/>
            {move || progress.busy.get().then(|| view! {
                <div class="progress">
                    <div role="progressbar" aria-label="Items written" aria-valuemin="0"
                        aria-valuemax=move || progress.total.get().to_string() aria-valuenow=move || progress.done.get().to_string()>
                        <progress max=move || progress.total.get() value=move || progress.done.get()></progress>
                        <span>{move || format!(" {} of {} written", progress.done.get(), progress.total.get())}</span>
                    </div>
                    <button on:click=move |_| progress.cancel.set(true) disabled=move || progress.cancel.get()
                        data-test="cancel-load">"Cancel"</button>
                </div>
            })}
        </div>
    }
}

#[component]
fn Gallery() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let cards = examples::gallery()
        .into_iter()
        .map(|example| {
            let id = example.id;
            let load = move |_| load_example(ui, id);
            view! {
                <article class="card example">
                    <h3>{example.title}</h3>
                    <p>{example.description}</p>
                    <p class="muted">{format!("{} setup requests, {} access patterns", example.setup.len(), example.requests.len())}</p>
                    <button class="primary" on:click=load data-test=format!("load-example-{id}")>"Load"</button>
                </article>
            }
        })
        .collect_view();
    view! {
        <section>
            <h2>"Examples"</h2>
            <div class="gallery">{cards}</div>
        </section>
    }
}

#[component]
fn FromFile(progress: Progress) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let target = RwSignal::new(String::new());
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        leptos::task::spawn_local(async move {
            let text = match crate::storage::read_file(file).await {
                Ok(text) => text,
                Err(e) => return ui.tell(false, e),
            };
            let (shape, writes) = match parse_fixture(&text) {
                Ok(parsed) => parsed,
                Err(e) => return ui.tell(false, format!("Fixture refused: {e}. Nothing was loaded.")),
            };
            let table = target.get_untracked();
            let table = if table.is_empty() { ui.selected_table.get_untracked() } else { Some(table) };
            let requests = match requests(&writes, table.as_deref()) {
                Ok(requests) => requests,
                Err(e) => return ui.tell(false, format!("Fixture refused: {e}.")),
            };
            let puts = writes.iter().filter(|w| matches!(w, Write::Put { .. })).count();
            let label = format!("{} ({puts} puts, {} deletes)", shape.describe(), writes.len() - puts);
            let total = requests.len();
            load(ui, progress, total, requests.into_iter().map(|(op, r)| (op, r.to_string())), label).await;
        });
    };
    let options = move || {
        ui.version.track();
        state::table_names().into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()
    };
    view! {
        <section class="card">
            <h2>"Load items from a file"</h2>
            <p class="muted">"A BatchWriteItem request, a JSON array of items (DynamoDB JSON or plain JSON), or DynamoDB export JSON lines."</p>
            <label>"Into table (when the file names none) "
                <select prop:value=move || target.get() on:change=move |ev| target.set(event_target_value(&ev))>
                    <option value="">"the selected table"</option>
                    {options}
                </select>
            </label>
            <label class="button">"Choose a file…"
                <input type="file" class="hidden-file" data-test="fixture-file" accept=".json,.jsonl,.txt,application/json" on:change=on_file
                    disabled=move || progress.busy.get()/>
            </label>
        </section>
    }
}

#[component]
fn Generate(progress: Progress) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let users = RwSignal::new("1000".to_string());
    let orders = RwSignal::new("10".to_string());
    let skew = RwSignal::new("1.0".to_string());
    let seed = RwSignal::new("1".to_string());
    let generate = move |_| {
        let parse = |s: RwSignal<String>| s.get_untracked().trim().parse::<f64>().ok().filter(|v| *v >= 0.0);
        let (Some(u), Some(o), Some(k), Some(s)) = (parse(users), parse(orders), parse(skew), parse(seed)) else {
            return ui.tell(false, "Users, orders per user, skew and seed must be non-negative numbers.");
        };
        let fixture = OrdersFixture { users: u as usize, orders_per_user: o as usize, skew: k, seed: s as u64 };
        if fixture.item_count() > 2_000_000 {
            return ui.tell(false, "That is more than 2,000,000 items: too many for a browser tab.");
        }
        if !state::table_names().iter().any(|t| t == ORDERS_TABLE) {
            let outcome = state::run("CreateTable", &examples::orders_table().to_string(), false);
            if let Err(e) = outcome.response {
                return ui.tell(false, format!("{}: {}", e.name, e.message));
            }
            ui.selected_table.set(Some(ORDERS_TABLE.to_string()));
        }
        leptos::task::spawn_local(async move {
            let label = format!("{} users × {} orders (skew {})", fixture.users, fixture.orders_per_user, fixture.skew);
            load(ui, progress, fixture.item_count(), fixture.requests(), label).await;
        });
    };
    let field = |signal: RwSignal<String>, label: &'static str, test: &'static str| {
        view! {
            <label>{label}" "<input inputmode="decimal" size="8" data-test=test prop:value=move || signal.get()
                on:input=move |ev| signal.set(event_target_value(&ev))/></label>
        }
    };
    view! {
        <section class="card">
            <h2>"Generate orders"</h2>
            <p class="muted">"Into the orders table (created if missing): a profile per user, an order and a line item per order, one order in ten open. Skew 0 spreads orders evenly; 1 and above piles them on the first users — a hot partition key."</p>
            <div class="row">
                {field(users, "Users", "gen-users")}
                {field(orders, "Orders per user", "gen-orders")}
                {field(skew, "Skew", "gen-skew")}
                {field(seed, "Seed", "gen-seed")}
            </div>
            <p data-test="gen-preview">{move || {
                // Said before anything is made: how many items the numbers above come to.
                let parse = |s: RwSignal<String>| s.get().trim().parse::<f64>().ok().filter(|v| *v >= 0.0);
                match (parse(users), parse(orders)) {
                    (Some(u), Some(o)) => {
                        let fixture = OrdersFixture { users: u as usize, orders_per_user: o as usize, skew: 0.0, seed: 0 };
                        let count = fixture.item_count();
                        let over = if count > 2_000_000 { " — more than the 2,000,000 a browser tab takes" } else { "" };
                        format!("This makes {} items.{over}", dynalab_lab::numbers::thousands(count as u64))
                    }
                    _ => "Users and orders per user must be non-negative numbers.".to_string(),
                }
            }}</p>
            <button class="primary" on:click=generate disabled=move || progress.busy.get() data-test="generate">"Generate"</button>
        </section>
    }
}

/// Runs the writes in chunks; on the first failure, undoes what this load wrote and says why.
async fn load(
    ui: Ui,
    progress: Progress,
    total: usize,
    requests: impl Iterator<Item = (&'static str, String)>,
    label: String,
) {
    progress.total.set(total);
    progress.done.set(0);
    progress.cancel.set(false);
    progress.busy.set(true);
    let start = state::now_ms();
    // What to put back if the load fails or is cancelled: the engine as it was. Clones share the
    // items' buffers, so this costs the maps' nodes (nothing for an empty workspace), not the
    // items; nothing else writes meanwhile (`state::loading`), so putting it back loses nothing.
    let before = with_lab(|lab| lab.engine.clone());
    let epoch = state::workspace_epoch();
    state::set_loading(true);
    let mut failure = None;
    let mut requests = requests.peekable();
    let mut done = 0;
    while requests.peek().is_some() {
        let result = with_lab(|lab| {
            for (operation, request) in requests.by_ref().take(CHUNK) {
                done += 1;
                if let Err(e) = lab.engine.execute(operation, &request) {
                    return Err(format!("write {done} of {total}: {}: {}", e.kind.name(), e.message));
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            failure = Some(Stopped::Refused(e));
            break;
        }
        progress.done.set(done);
        state::yield_to_browser().await;
        if state::workspace_epoch() != epoch {
            failure = Some(Stopped::Replaced(done));
            break;
        }
        if progress.cancel.get_untracked() && requests.peek().is_some() {
            failure = Some(Stopped::Cancelled(done));
            break;
        }
    }
    state::set_loading(false);
    let millis = state::now_ms() - start;
    match failure {
        // Another workspace took this one's place: there is nothing of this load to undo in it.
        Some(Stopped::Replaced(done)) => {
            ui.tell(false, format!("The load stopped after {done} of {total} writes: the workspace was replaced."));
        }
        Some(error) => {
            with_lab(|lab| lab.engine = before);
            ui.tell(
                false,
                match error {
                    Stopped::Refused(at) => format!(
                        "The fixture was refused at {at}. The {} earlier write(s) were undone: nothing changed.",
                        done.saturating_sub(1)
                    ),
                    Stopped::Cancelled(done) | Stopped::Replaced(done) => format!(
                        "Cancelled after {done} of {total} writes. The {done} write(s) made were undone: nothing changed."
                    ),
                },
            );
        }
        None => ui.tell(true, format!("Loaded {label} in {millis:.0} ms: {total} writes.")),
    }
    progress.busy.set(false);
    ui.changed();
}

/// Loads the gallery example `id` into the workspace (refused when one of its tables exists), then
/// shows the Console with its access patterns.
pub fn load_example(ui: Ui, id: &str) {
    let Some(example) = examples::example(id) else { return };
    let tables = state::table_names();
    for (op, request) in &example.setup {
        if *op == "CreateTable" {
            let name = request["TableName"].as_str().unwrap_or_default();
            if tables.iter().any(|t| t == name) {
                ui.tell(
                    false,
                    format!("A table named `{name}` already exists: delete it first (Tables) to load this example."),
                );
                return;
            }
        }
    }
    for (op, request) in &example.setup {
        let outcome = state::run(op, &request.to_string(), false);
        if let Err(e) = outcome.response {
            ui.tell(false, format!("The example failed to load at {op}: {}: {}", e.name, e.message));
            ui.changed();
            return;
        }
    }
    ui.selected_table.set(example.setup.first().and_then(|(_, r)| r["TableName"].as_str().map(String::from)));
    ui.changed();
    ui.tell(true, format!("Loaded the {} example: its access patterns are in the Console.", example.title));
    ui.tab.set(crate::state::Tab::Console);
}
