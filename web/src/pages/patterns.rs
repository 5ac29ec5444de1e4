//! Patterns: a design's access-pattern inventory — a design document in the modelling method's
//! Markdown, or a workbook's JSON — run pattern by pattern on fresh
//! engines in the engine's worker (`worker::designs`); the verdict table, a cost bar per pattern, any pattern opened in the console, and the
//! design note and reports to download; and a second design checked beside it, compared.

use crate::client;
use crate::state::Ui;
use crate::worker::protocol::{Answer, Ask, ComparisonView, DesignView};
use dynalab_lab::workbook::{gallery, import};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    /// The workbook being edited survives tab switches (it is part of neither the engine nor the history).
    static DRAFT: std::cell::RefCell<String> = std::cell::RefCell::new(gallery::WORKBOOKS[0].1.to_string());
}

/// The workbook in the editor.
pub fn draft() -> String {
    DRAFT.with(|d| d.borrow().clone())
}

/// Puts `text` in the editor (a workbook opened by `?workbook=URL`).
pub fn set_draft(text: String) {
    DRAFT.with(|d| *d.borrow_mut() = text);
}

/// What the Patterns view shows — the last check, the design compared, what an import left out —
/// kept by the app, so another tab and back finds it as it was (the editor's text is [`draft`]).
#[derive(Clone, Copy)]
pub struct PatternsState {
    result: RwSignal<Option<Result<DesignView, Vec<String>>>>,
    other: RwSignal<String>,
    comparison: RwSignal<Option<Result<ComparisonView, Vec<String>>>>,
    imported_notes: RwSignal<Vec<String>>,
}

impl PatternsState {
    pub fn new() -> Self {
        Self {
            result: RwSignal::new(None),
            other: RwSignal::new(String::new()),
            comparison: RwSignal::new(None),
            imported_notes: RwSignal::new(Vec::new()),
        }
    }
}

#[component]
pub fn PatternsPage() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let PatternsState { result, other, comparison, imported_notes } = expect_context::<PatternsState>();
    let text = RwSignal::new(DRAFT.with(|d| d.borrow().clone()));
    Effect::new(move |_| {
        let current = text.get();
        DRAFT.with(|d| *d.borrow_mut() = current);
    });
    // A check runs in the engine's worker (a design's fixture can be large): said while it runs.
    let running = RwSignal::new(false);
    // Another design format (an MCP data model, a cost model, a NoSQL Workbench model, a
    // CloudFormation template) is converted into the workbook it becomes, which is then edited here.
    let adopt = move |content: String| {
        result.set(None);
        match import::import(&content) {
            Ok(imported) if imported.source == import::Source::DesignDocument => {
                // A design document stays as written: it is what the designer edits, and it is checked as it is.
                let mut notes = vec![format!("Read as {}.", imported.source.describe())];
                notes.extend(imported.notes);
                imported_notes.set(notes);
                text.set(content);
            }
            Ok(imported) if imported.source != import::Source::Workbook => {
                // A generated fixture can run to megabytes: indented, it would only get longer.
                let compact = serde_json::to_string(&imported.workbook).unwrap_or_default();
                let workbook = if compact.len() < 256 * 1024 {
                    serde_json::to_string_pretty(&imported.workbook).unwrap_or(compact)
                } else {
                    compact
                };
                let mut notes = vec![format!("Read as {}; converted to a workbook.", imported.source.describe())];
                notes.extend(imported.notes);
                imported_notes.set(notes);
                text.set(workbook);
            }
            _ => {
                imported_notes.set(Vec::new());
                text.set(content);
            }
        }
    };
    let run_all = move |_| {
        let current = text.get_untracked();
        if !current.contains(dynalab_lab::workbook::FORMAT) {
            adopt(current);
        }
        let current = text.get_untracked();
        // The last verdict goes: what shows next is this run's.
        result.set(None);
        running.set(true);
        leptos::task::spawn_local(async move {
            let answer = client::ask(Ask::CheckDesign { text: current }).await;
            running.try_set(false);
            result.try_set(Some(match answer {
                Answer::Design(design) => design,
                other => Err(vec![format!("The engine's worker answered {other:?}")]),
            }));
        });
    };
    let compare_designs = move |_| {
        let (a, b) = (text.get_untracked(), other.get_untracked());
        comparison.set(None);
        running.set(true);
        leptos::task::spawn_local(async move {
            let answer = client::ask(Ask::CompareDesigns { a, b }).await;
            running.try_set(false);
            comparison.try_set(Some(match answer {
                Answer::Comparison(compared) => compared,
                other => Err(vec![format!("The engine's worker answered {other:?}")]),
            }));
        });
    };
    let load_example = move |ev: leptos::ev::Event| {
        let name = event_target_value(&ev);
        if let Some((_, workbook)) = gallery::WORKBOOKS.iter().find(|(n, _)| *n == name) {
            text.set((*workbook).to_string());
            imported_notes.set(Vec::new());
            result.set(None);
        }
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        leptos::task::spawn_local(async move {
            match crate::storage::read_file(file).await {
                Ok(content) => adopt(content),
                Err(e) => ui.tell(false, e),
            }
        });
    };
    let examples =
        gallery::WORKBOOKS.iter().map(|(name, _)| view! { <option value=*name>{*name}</option> }).collect_view();
    view! {
        <div class="patterns-page">
            <section class="card">
                <h2>"Workbook"</h2>
                <p class="muted">"A design document in the modelling method's Markdown (the inventory, an entity layout and a design note per table: docs/design-markdown.md), a workbook (format dynalab-workbook/1, docs/workbook.md), or a DynamoDB MCP data model, a design skill cost model, a NoSQL Workbench model or a CloudFormation template (JSON), converted when opened or run. Every pattern runs on a fresh engine loaded with the fixture; your workspace is not touched — unless you open the design in it, where the Design tab edits it."</p>
                <div class="row">
                    <label>"Example "
                        <select on:change=load_example data-test="workbook-example">{examples}</select>
                    </label>
                    <label class="button">"Open a design…"
                        <input type="file" class="hidden-file" accept=".json,.md,.markdown,.txt,.yaml,.yml,application/json,text/markdown,text/plain" on:change=on_file/>
                    </label>
                </div>
                {move || {
                    let notes = imported_notes.get();
                    (!notes.is_empty()).then(|| view! {
                        <ul class="muted" data-test="import-notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                    })
                }}
                <textarea class="code" rows="14" spellcheck="false" aria-label="Design (Markdown or workbook JSON)" data-test="workbook"
                    prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                <button class="primary" on:click=run_all data-test="run-all" aria-busy=move || running.get().to_string()>"Run all patterns"</button>
                <button data-test="open-in-workspace" title="Its tables and items become the workspace; its inventory the Design tab's" on:click=move |_| {
                    let design = text.get_untracked();
                    let replacing = !crate::state::table_names().is_empty();
                    if replacing && !web_sys::window().and_then(|w| w.confirm_with_message("Opening this design replaces the workspace's tables, items and design (the current workspace is kept: Restore previous brings it back). Open it?").ok()).unwrap_or(false) {
                        return;
                    }
                    leptos::task::spawn_local(async move {
                        let said = crate::state::done(Ask::OpenDesign { text: design }).await;
                        let opened = said.is_ok();
                        ui.say(&said);
                        if opened {
                            ui.tab.set(crate::state::Tab::Design);
                        }
                    });
                }>"Open in the workspace"</button>
                {move || running.get().then(|| view! { <span class="muted" role="status">" Running in the engine's worker…"</span> })}
            </section>
            {move || result.get().map(|outcome| match outcome {
                Err(problems) => view! { <Problems problems test="workbook-error"/> }.into_any(),
                Ok(design) => view! { <Verdicts design/> }.into_any(),
            })}
            <section class="card" aria-label="Compare with another design">
                <h2>"Compare with another design"</h2>
                <p class="muted">"Paste a second design in any format the check reads; both run, and each pattern (matched by id) is shown side by side with its units, monthly cost and verdict."</p>
                <textarea class="code" rows="6" spellcheck="false" aria-label="Second design" data-test="compare-workbook"
                    prop:value=move || other.get() on:input=move |ev| other.set(event_target_value(&ev))></textarea>
                <button on:click=compare_designs data-test="compare">"Compare"</button>
                {move || comparison.get().map(|outcome| match outcome {
                    Err(problems) => view! { <Problems problems test="compare-error"/> }.into_any(),
                    Ok(compared) => view! { <Comparison compared/> }.into_any(),
                })}
            </section>
        </div>
    }
}

#[component]
fn Problems(problems: Vec<String>, test: &'static str) -> impl IntoView {
    view! {
        <div class="field-error" role="alert" data-test=test>
            <p>{format!("Invalid design ({} problem{}): nothing was run.", problems.len(), if problems.len() == 1 { "" } else { "s" })}</p>
            <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
        </div>
    }
}

#[component]
fn Comparison(compared: ComparisonView) -> impl IntoView {
    let ComparisonView { names: (a, b), rows, totals, markdown } = compared;
    let rows = rows
        .into_iter()
        .map(|(id, first, second)| view! { <tr data-test="compare-row"><td>{id}</td><td>{first}</td><td>{second}</td></tr> })
        .collect_view();
    view! {
        <div data-test="comparison">
            <p data-test="compare-totals"><strong>{totals}</strong></p>
            <div class="grid-wrap">
                <table class="verdicts">
                    <thead><tr><th>"#"</th><th>{format!("A: {a}")}</th><th>{format!("B: {b}")}</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <button on:click=move |_| { crate::storage::download("design-comparison.md", "text/markdown", &markdown); }>"Download the comparison (.md)"</button>
        </div>
    }
}

#[component]
fn Verdicts(design: DesignView) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let DesignView { verdict, patterns, cost_headline, capacity, pictures, prices, console, markdown, json, .. } =
        design;
    let most = patterns.iter().map(|p| p.monthly_at_peak).fold(0.0_f64, f64::max).max(0.01);
    let bars = patterns
        .iter()
        .map(|p| {
            let width = format!("width: {:.1}%", 100.0 * p.monthly_at_peak / most);
            view! {
                <div class="bar-row">
                    <span class="bar-label">{p.id.clone()}</span>
                    <span class="bar" style=width></span>
                    <span class="num">{p.money.clone()}</span>
                </div>
            }
        })
        .collect_view();
    let rows = patterns
        .into_iter()
        .map(|p| {
            view! {
                <tr class=p.class data-test="verdict-row">
                    <td data-label="#">{p.id}</td>
                    <td data-label="Pattern">{p.description}</td>
                    <td data-label="Operation">{p.operation}</td>
                    <td data-label="Index">{p.index.unwrap_or_else(|| "—".into())}</td>
                    <td class="num" data-label="Items">{p.items}</td>
                    <td class="num" data-label="Units">{p.units}</td>
                    <td class="num" data-label="At peak">{p.at_peak}</td>
                    <td data-label="Verdict"><strong>{p.verdict}</strong>": "{p.reasons.first().cloned().unwrap_or_default()}</td>
                </tr>
            }
        })
        .collect_view();
    let open_buttons = console
        .into_iter()
        .map(|(id, operation, body)| {
            let label = format!("{id} in the console");
            view! {
                <button class="link" on:click=move |_| {
                    ui.console_request.set(Some((operation.clone(), body.clone())));
                    ui.tab.set(crate::state::Tab::Console);
                }>{label}</button>" "
            }
        })
        .collect_view();
    view! {
        <section class="card" aria-label="Verdicts">
            <h2 data-test="design-verdict">{format!("Design verdict: {}", verdict.to_uppercase())}</h2>
            <div class="grid-wrap">
                <table class="verdicts">
                    <thead><tr><th>"#"</th><th>"Pattern"</th><th>"Operation"</th><th>"Index"</th><th>"Items"</th><th>"Units"</th><th>"At peak"</th><th>"Verdict"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <h3 data-test="cost-headline">{cost_headline}</h3>
            {(!capacity.is_empty()).then(|| view! {
                <ul data-test="capacity">{capacity.into_iter().map(|f| view! { <li>{f}</li> }).collect_view()}</ul>
            })}
            <crate::components::pictures::Pictures drawn=pictures/>
            <div class="bars" data-test="cost-chart" aria-label="On-demand cost per pattern">{bars}</div>
            <p class="muted">{prices}</p>
            <p>{open_buttons}</p>
            <div class="row">
                <button on:click=move |_| { crate::storage::download("design-note.md", "text/markdown", &markdown); } data-test="download-note">"Download the design note (.md)"</button>
                <button on:click=move |_| { crate::storage::download("design-report.json", "application/json", &json); }>"Download the JSON report"</button>
            </div>
        </section>
    }
}
