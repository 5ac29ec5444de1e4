//! Items however many, kept in the engine's worker — a table's items (or an index's entries) in
//! storage order, or the items of a large response: the rows in view are fetched a window at a
//! time and drawn; the rest is empty space of the right height, so a 1,000,000-item table or a
//! 1 MB page scrolls like a short one. Key attributes lead, a new item collection starts with a
//! line, and each row of a table can be opened for editing.

use crate::client;
use crate::components::item_grid::cell;
use crate::worker::protocol::{Answer, Ask};
use leptos::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const ROW_HEIGHT: f64 = 28.0;
const VISIBLE_ROWS: usize = 18;
const OVERSCAN: usize = 10;
/// Rows fetched per question to the worker.
const WINDOW: usize = 200;
const MAX_COLUMN_CHARS: usize = 40;

type Window = Vec<(Value, usize)>;

/// Where the rows are.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A table's items, or its index's entries, with their sizes.
    Table { table: String, index: Option<String> },
    /// The items of a large response (`RemoteRows`); its columns are known in advance.
    Result(u64),
}

#[component]
pub fn ItemList(
    source: Source,
    /// How many rows there are (the table's or the index's item count, the response's).
    total: usize,
    /// The key attributes, shown first (the first, the partition key, marks collections); for a
    /// response, every column.
    keys: Vec<String>,
    /// Opens a row for editing (a table's rows; an index's entries are not edited).
    on_edit: Option<Callback<Value>>,
) -> impl IntoView {
    let windows = RwSignal::new(BTreeMap::<usize, Window>::new());
    // Rows that cannot come (a response no longer kept): said instead of rows left pending.
    let problem = RwSignal::new(None::<String>);
    let asked = StoredValue::new(BTreeSet::<usize>::new());
    let first = RwSignal::new(0_usize);
    let fixed_columns = matches!(source, Source::Result(_));
    let edit_keys = StoredValue::new(match &source {
        Source::Table { table, .. } => crate::state::key_names(table, None),
        Source::Result(_) => Vec::new(),
    });
    let source = StoredValue::new(source);
    // Fetch the windows the rows in view fall in.
    Effect::new(move |_| {
        let start = first.get();
        let end = (start + VISIBLE_ROWS + 2 * OVERSCAN).min(total);
        for window in start / WINDOW..=end.saturating_sub(1) / WINDOW {
            if window * WINDOW >= total || !asked.try_update_value(|a| a.insert(window)).unwrap_or(false) {
                continue;
            }
            let offset = window * WINDOW;
            let ask = match source.get_value() {
                Source::Table { table, index } => Ask::Items { table, index, offset, limit: WINDOW },
                Source::Result(result) => Ask::ResultRows { result, offset, limit: WINDOW },
            };
            leptos::task::spawn_local(async move {
                match client::ask(ask).await {
                    Answer::Items(page) => windows.update(|w| {
                        w.insert(window, page.items);
                    }),
                    Answer::Text(Err(why)) => problem.set(Some(why)),
                    other => problem.set(Some(format!("The engine's worker answered {other:?}"))),
                }
            });
        }
    });
    let on_scroll = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        if let Some(element) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
            let row = (f64::from(element.scroll_top()) / ROW_HEIGHT) as usize;
            first.set(row.saturating_sub(OVERSCAN));
        }
    };
    // Columns: the keys, then every other attribute of the rows fetched so far.
    let partition = keys.first().cloned();
    let columns = Memo::new(move |_| {
        let mut columns = keys.clone();
        if fixed_columns {
            return columns;
        }
        windows.with(|w| {
            for (item, _) in w.values().flatten() {
                if let Some(map) = item.as_object() {
                    for name in map.keys() {
                        if !columns.contains(name) {
                            columns.push(name.clone());
                        }
                    }
                }
            }
        });
        columns
    });
    let widths = Memo::new(move |_| {
        let columns = columns.get();
        windows.with(|w| {
            columns
                .iter()
                .map(|name| {
                    let longest = w
                        .values()
                        .flatten()
                        .filter_map(|(item, _)| {
                            item.get(name).map(|v| {
                                let (kind, text) = cell(v);
                                kind.chars().count() + text.chars().count() + 2
                            })
                        })
                        .max()
                        .unwrap_or(1);
                    longest.max(name.chars().count()).clamp(4, MAX_COLUMN_CHARS) + 2
                })
                .collect::<Vec<_>>()
        })
    });
    let editable = on_edit.is_some();
    let sized = !fixed_columns;
    let row_at = move |i: usize| windows.with(|w| w.get(&(i / WINDOW)).and_then(|rows| rows.get(i % WINDOW).cloned()));
    let body = move || {
        let columns = columns.get();
        let start = first.get().min(total);
        let end = (start + VISIBLE_ROWS + 2 * OVERSCAN).min(total);
        let span = columns.len() + usize::from(sized) + usize::from(editable);
        let before = start as f64 * ROW_HEIGHT;
        let after = (total - end) as f64 * ROW_HEIGHT;
        let drawn = (start..end)
            .map(|i| {
                let Some((item, size)) = row_at(i) else {
                    return view! { <tr class="pending"><td colspan=span>"…"</td></tr> }.into_any();
                };
                // A new item collection starts where the partition key changes.
                let starts = i == 0
                    || partition.as_ref().is_none_or(|p| row_at(i - 1).is_none_or(|(prev, _)| prev.get(p) != item.get(p)));
                let cells = columns
                    .iter()
                    .map(|c| match item.get(c).map(cell) {
                        Some((kind, text)) => {
                            let title = format!("{kind} {text}");
                            view! { <td title=title><span class="type">{kind}</span>" "{text}</td> }.into_any()
                        }
                        None => view! { <td class="absent">"—"</td> }.into_any(),
                    })
                    .collect_view();
                let edit = on_edit.map(|on_edit| {
                    let label = edit_keys.with_value(|keys| {
                        keys.iter()
                            .filter_map(|k| item.get(k).map(|v| format!("{k} = {}", cell(v).1)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    });
                    let item = item.clone();
                    view! {
                        // Shown as "edit" (the key is in the columns beside it); named by the key for
                        // a screen reader and a hover.
                        <td><button class="link" data-test="edit-item" title=format!("edit {label}")
                            on:click=move |_| on_edit.run(item.clone())>"edit"<span class="visually-hidden">{format!(" {label}")}</span></button></td>
                    }
                });
                let size = sized.then(|| view! { <td class="num">{format!("{size} B")}</td> });
                view! {
                    <tr class:collection-start=starts data-test=if sized { "item-row" } else { "row" }>{edit}{size}{cells}</tr>
                }
                .into_any()
            })
            .collect_view();
        view! {
            {(before > 0.0).then(|| view! { <tr class="spacer" style=format!("height: {before}px")><td colspan=span></td></tr> })}
            {drawn}
            {(after > 0.0).then(|| view! { <tr class="spacer" style=format!("height: {after}px")><td colspan=span></td></tr> })}
        }
    };
    let height = (total.min(VISIBLE_ROWS) as f64 + 1.0) * ROW_HEIGHT + 2.0;
    view! {
        {move || problem.get().map(|why| view! { <p class="status bad" role="alert">{why}</p> })}
        // Focusable, so the rows scroll from the keyboard too (before any row with a button arrives).
        <div class="grid-box" style=format!("max-height: {height}px") on:scroll=on_scroll tabindex="0" role="region"
            aria-label=if fixed_columns { "Items returned" } else { "Items" }
            data-test=if fixed_columns { "grid-box" } else { "item-list" }>
            <table class="grid" data-rows=total data-test=fixed_columns.then_some("grid") style=move || {
                let width = widths.get().iter().sum::<usize>() + if sized { 9 } else { 0 } + if editable { 7 } else { 0 };
                format!("width: {width}ch")
            }>
                <colgroup>
                    {editable.then(|| view! { <col style="width: 7ch"/> })}
                    {sized.then(|| view! { <col style="width: 9ch"/> })}
                    {move || widths.get().into_iter().map(|w| view! { <col style=format!("width: {w}ch")/> }).collect_view()}
                </colgroup>
                <thead><tr>
                    {editable.then(|| view! { <th><span class="visually-hidden">"Edit"</span></th> })}
                    {sized.then(|| view! { <th>"size"</th> })}
                    {move || columns.get().into_iter().map(|c| view! { <th title=c.clone()>{c.clone()}</th> }).collect_view()}
                </tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}
