//! Examples and fixtures: the gallery, loading items from a file (BatchWriteItem shape, a JSON
//! array, export JSON lines), and generated orders with a chosen skew. Large loads run in chunks
//! that give the browser back its thread between them, with a progress bar; a load that fails part
//! way is undone, so a fixture goes in whole or not at all.

use crate::state::{self, LoadProgress, Ui};
use crate::worker::protocol::{Ask, Load, Task};
use dynalab_lab::examples;
use dynalab_lab::generate::OrdersFixture;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub fn FixturesPage() -> impl IntoView {
    let progress = expect_context::<LoadProgress>();
    view! {
        <div class="fixtures-page">
            <Gallery/>
            <FromFile progress/>
            <Generate progress/>
            {move || progress.now.get().filter(|p| p.task == Task::Load).map(|p| view! {
                <div class="progress">
                    <div role="progressbar" aria-label="Items written" aria-valuemin="0"
                        aria-valuemax=p.total.to_string() aria-valuenow=p.done.to_string()>
                        <progress max=p.total value=p.done></progress>
                        <span>{format!(" {} of {} written", p.done, p.total)}</span>
                    </div>
                    <button on:click=move |_| progress.cancel() disabled=move || progress.cancelling.get()
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
fn FromFile(progress: LoadProgress) -> impl IntoView {
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
            let table = target.get_untracked();
            let table = if table.is_empty() { ui.selected_table.get_untracked() } else { Some(table) };
            ui.say(&state::done(Ask::Load(Load::Fixture { text, table })).await);
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
                    disabled=move || progress.loading()/>
            </label>
        </section>
    }
}

#[component]
fn Generate(progress: LoadProgress) -> impl IntoView {
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
        let load = Load::Orders { users: u as usize, orders_per_user: o as usize, skew: k, seed: s as u64 };
        leptos::task::spawn_local(async move {
            let said = state::done(Ask::Load(load)).await;
            if said.is_ok() {
                ui.selected_table.set(Some(examples::ORDERS_TABLE.to_string()));
            }
            ui.say(&said);
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
            <button class="primary" on:click=generate disabled=move || progress.loading() data-test="generate">"Generate"</button>
        </section>
    }
}

/// Loads the gallery example `id` into the workspace (refused when one of its tables exists), then
/// shows the Console with its access patterns.
pub fn load_example(ui: Ui, id: &'static str) {
    let first_table = examples::example(id)
        .and_then(|e| e.setup.first().and_then(|(_, r)| r["TableName"].as_str().map(String::from)));
    leptos::task::spawn_local(async move {
        let said = state::done(Ask::Example { id: id.to_string() }).await;
        if said.is_ok() {
            ui.selected_table.set(first_table);
            ui.tab.set(crate::state::Tab::Console);
            state::focus_when_drawn("[data-test=\"operation\"]");
        }
        ui.say(&said);
    });
}
