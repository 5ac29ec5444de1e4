//! The page: header with workspace actions, a tab per view, the notice line.

use crate::pages::{
    console::ConsolePage, design::DesignPage, fixtures::FixturesPage, items::ItemsPage, learn::LearnPage,
    patterns::PatternsPage, tables::TablesPage,
};
use crate::state::{LoadProgress, Tab, Ui};
use crate::storage;
use crate::worker::protocol::{Answer, Ask, Task};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub fn App() -> impl IntoView {
    let ui = Ui::new();
    let progress = LoadProgress::new();
    provide_context(ui);
    provide_context(progress);
    provide_context(crate::pages::console::ConsoleState::new());
    provide_context(crate::pages::patterns::PatternsState::new());
    if let Err(e) = crate::client::start(ui, progress) {
        ui.tell(false, format!("The engine could not start: {e}."));
    }
    let embedded = crate::pages::learn::embedded();
    storage::restore_on_start(ui, embedded);
    crate::pages::learn::open_from_url(ui);
    if embedded {
        return view! { <main><crate::pages::learn::Embed/></main> }.into_any();
    }
    // The tabs pattern (WAI-ARIA): one tab in the Tab order, the arrow keys, Home and End move
    // between tabs and select them.
    let tab_button = move |tab: Tab, label: &'static str| {
        view! {
            <button
                role="tab"
                class="tab"
                id=tab_id(tab)
                aria-controls="tab-panel"
                aria-selected=move || (ui.tab.get() == tab).to_string()
                tabindex=move || if ui.tab.get() == tab { "0" } else { "-1" }
                on:click=move |_| ui.tab.set(tab)
                on:keydown=move |ev| {
                    let at = TABS.iter().position(|t| *t == tab).unwrap_or(0);
                    let next = match ev.key().as_str() {
                        "ArrowRight" => TABS[(at + 1) % TABS.len()],
                        "ArrowLeft" => TABS[(at + TABS.len() - 1) % TABS.len()],
                        "Home" => TABS[0],
                        "End" => TABS[TABS.len() - 1],
                        _ => return,
                    };
                    ev.prevent_default();
                    ui.tab.set(next);
                    focus_element(tab_id(next));
                }
            >
                {label}
            </button>
        }
    };
    view! {
        <header>
            <h1>"Dynalab"</h1>
            <span class="tagline">"DynamoDB, exactly, in your browser"</span>
            <LabClock/>
            <WorkspaceMenu/>
        </header>
        <Notice/>
        <Restoring/>
        <nav role="tablist" class="tabs" aria-label="Dynalab">
            {tab_button(Tab::Console, "Console")}
            {tab_button(Tab::Tables, "Tables")}
            {tab_button(Tab::Items, "Items")}
            {tab_button(Tab::Fixtures, "Examples & fixtures")}
            {tab_button(Tab::Design, "Design")}
            {tab_button(Tab::Patterns, "Patterns")}
            {tab_button(Tab::Learn, "Learn")}
        </nav>
        <main id="tab-panel" role="tabpanel" aria-labelledby=move || tab_id(ui.tab.get())>
            {move || match ui.tab.get() {
                Tab::Console => view! { <ConsolePage/> }.into_any(),
                Tab::Tables => view! { <TablesPage/> }.into_any(),
                Tab::Items => view! { <ItemsPage/> }.into_any(),
                Tab::Fixtures => view! { <FixturesPage/> }.into_any(),
                Tab::Design => view! { <DesignPage/> }.into_any(),
                Tab::Patterns => view! { <PatternsPage/> }.into_any(),
                Tab::Learn => view! { <LearnPage/> }.into_any(),
            }}
        </main>
    }
    .into_any()
}

/// The lab's time, and the control that moves it forward so TTL expiry shows without waiting.
/// The sweep also runs every 5 seconds, as `dynalab serve`'s does.
#[component]
fn LabClock() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let ahead = RwSignal::new(0_u64);
    let advance = move |by: Option<u64>| {
        leptos::task::spawn_local(async move {
            let Answer::Count(removed) = crate::client::ask(Ask::AdvanceClock { by_ms: by }).await else { return };
            let hours = crate::state::advanced_ms() / 3_600_000;
            ahead.set(crate::state::advanced_ms());
            ui.tell(
                true,
                format!("Lab time is {hours} h ahead of real time; the TTL sweep removed {removed} expired item(s)."),
            );
        });
    };
    view! {
        <div class="lab-clock" role="group" aria-label="Lab time">
            <span class="muted" data-test="lab-time">{move || {
                let hours = ahead.get() / 3_600_000;
                if hours == 0 { "Lab time: now".to_string() } else { format!("Lab time: now + {hours} h") }
            }}</span>
            <button on:click=move |_| advance(Some(3_600_000)) data-test="advance-hour">"+1 h"</button>
            <button on:click=move |_| advance(Some(86_400_000)) data-test="advance-day">"+1 day"</button>
            <button on:click=move |_| advance(None)>"Now"</button>
        </div>
    }
}

/// A workspace coming back or being opened, in the worker: the page works meanwhile, and says so.
/// Opening a file, a link or the previous workspace can be cancelled (the workspace stays as it
/// was); the saved workspace coming back at start cannot (an empty workspace would be saved over it).
#[component]
fn Restoring() -> impl IntoView {
    let progress = expect_context::<LoadProgress>();
    move || {
        progress.now.get().filter(|p| p.task != Task::Load).map(|p| {
            let what =
                if p.task == Task::Restore { "Restoring your saved workspace: " } else { "Opening the workspace: " };
            view! {
                <div class="notice ok" role="status" data-test="restoring">
                    <label>{what}
                        <progress max=p.total value=p.done></progress>
                        {format!(" {} of {} items", p.done, p.total)}
                    </label>
                    {(p.task == Task::Open).then(|| view! {
                        <button on:click=move |_| progress.cancel() disabled=move || progress.cancelling.get()
                            data-test="cancel-open">"Cancel"</button>
                    })}
                </div>
            }
        })
    }
}

#[component]
fn Notice() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        ui.notice.get().map(|(ok, text)| {
            view! {
                <div class=if ok { "notice ok" } else { "notice bad" } role="status" data-test="notice">
                    <span>{text}</span>
                    <button class="link" on:click=move |_| ui.notice.set(None) aria-label="Dismiss">"×"</button>
                </div>
            }
        })
    }
}

/// Links longer than this are cut by many of the places people paste them (chat apps, mail, proxies
/// commonly stop between 2 KB and 64 KB; browsers themselves take about 2 MB).
const LONG_LINK: usize = 64 * 1024;

fn size_text(characters: usize) -> String {
    if characters < 1024 {
        format!("{characters} characters")
    } else {
        format!("{:.0} KB", characters as f64 / 1024.0)
    }
}

#[component]
fn WorkspaceMenu() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let link = RwSignal::new(None::<String>);
    let on_import = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        leptos::task::spawn_local(async move {
            match storage::read_file(file).await {
                Ok(text) => storage::import(ui, text).await,
                Err(e) => ui.tell(false, format!("Import refused: {e}. Your workspace is unchanged.")),
            }
        });
    };
    view! {
        <div class="workspace-menu">
            <button on:click=move |_| storage::export(ui) data-test="export">"Export"</button>
            <label class="button">
                "Import"
                <input type="file" accept=".json,application/json" class="hidden-file" data-test="import" on:change=on_import/>
            </label>
            <button on:click=move |_| leptos::task::spawn_local(async move {
                match storage::share_link().await {
                    Ok(url) => link.set(Some(url)),
                    Err(e) => ui.tell(false, format!("No share link: {e}")),
                }
            }) data-test="share">"Share link"</button>
            // Offered only when there is a workspace to bring back.
            {move || {
                ui.version.get();
                storage::has_previous().then(|| view! {
                    <button on:click=move |_| storage::restore_previous(ui) data-test="restore-previous">"Restore previous"</button>
                })
            }}
        </div>
        {move || {
            link.get().map(|url| {
                let size = url.len();
                let copied = url.clone();
                let copy = move |_| {
                    let clipboard = web_sys::window().map(|w| w.navigator().clipboard());
                    match clipboard {
                        Some(clipboard) => {
                            let promise = clipboard.write_text(&copied);
                            leptos::task::spawn_local(async move {
                                match wasm_bindgen_futures::JsFuture::from(promise).await {
                                    Ok(_) => ui.tell(true, "Share link copied."),
                                    Err(_) => ui.tell(false, "The browser refused to copy: select the link and copy it yourself."),
                                }
                            });
                        }
                        None => ui.tell(false, "No clipboard here: select the link and copy it yourself."),
                    }
                };
                view! {
                    <div class="share">
                        <label>
                            {format!("Share link ({}) — opens this workspace in any browser: ", size_text(size))}
                            <input readonly value=url data-test="share-url" on:focus=|ev| {
                                if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                    input.select();
                                }
                            }/>
                        </label>
                        <button on:click=copy data-test="share-copy">"Copy"</button>
                        <button class="link" on:click=move |_| link.set(None)>"Close"</button>
                        {(size > LONG_LINK).then(|| view! {
                            <p class="status bad" data-test="share-warning">{format!(
                                "This link is {}: chat apps, mail and some servers cut links far shorter than that. For a workspace this size, Export a file and share the file instead.",
                                size_text(size)
                            )}</p>
                        })}
                    </div>
                }
            })
        }}
    }
}

/// The tabs in the order the tab bar shows them.
const TABS: [Tab; 7] = [Tab::Console, Tab::Tables, Tab::Items, Tab::Fixtures, Tab::Design, Tab::Patterns, Tab::Learn];

/// The element id of a tab's button.
fn tab_id(tab: Tab) -> &'static str {
    match tab {
        Tab::Console => "tab-console",
        Tab::Tables => "tab-tables",
        Tab::Items => "tab-items",
        Tab::Fixtures => "tab-fixtures",
        Tab::Design => "tab-design",
        Tab::Patterns => "tab-patterns",
        Tab::Learn => "tab-learn",
    }
}

/// Moves the keyboard focus to the element with `id`, if it is there.
fn focus_element(id: &str) {
    let element = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id));
    if let Some(element) = element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = element.focus();
    }
}
