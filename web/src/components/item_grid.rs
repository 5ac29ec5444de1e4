//! Items as a grid: the key attributes first, then one column per other attribute name (in
//! first-seen order), each cell the value with its DynamoDB type beside it. Only the rows in view
//! are drawn (a 1 MB page holds thousands of items): the grid scrolls in its own box, rows have one
//! height, and each column keeps the width its longest value needs (up to a cap), so nothing jumps
//! while scrolling.

use leptos::prelude::*;
use serde_json::Value;

/// Row height in pixels (CSS `.grid tr` says the same); rows drawn beyond the visible ones.
const ROW_HEIGHT: f64 = 28.0;
const OVERSCAN: usize = 10;
/// The box's height in rows; a grid with fewer rows is as tall as it needs.
const VISIBLE_ROWS: usize = 18;
/// The widest a column grows, in characters; longer values are cut with an ellipsis (the full
/// value is the cell's title, and the raw JSON shows everything).
const MAX_COLUMN_CHARS: usize = 48;

#[component]
pub fn ItemGrid(
    items: Vec<Value>,
    #[prop(optional)] sizes: Option<Vec<usize>>,
    /// Key attribute names, shown first (those present in the items).
    #[prop(optional)]
    keys: Vec<String>,
) -> impl IntoView {
    let mut columns: Vec<String> = keys.into_iter().filter(|k| items.iter().any(|i| i.get(k).is_some())).collect();
    for item in &items {
        if let Some(map) = item.as_object() {
            for name in map.keys() {
                if !columns.contains(name) {
                    columns.push(name.clone());
                }
            }
        }
    }
    // Every cell's text once, so scrolling only picks rows.
    let rows: Vec<Vec<Option<(String, String)>>> =
        items.iter().map(|item| columns.iter().map(|c| item.get(c).map(cell)).collect()).collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let longest = rows
                .iter()
                .filter_map(|r| r[c].as_ref().map(|(kind, text)| kind.chars().count() + text.chars().count() + 2))
                .max()
                .unwrap_or(1);
            longest.max(name.chars().count()).clamp(4, MAX_COLUMN_CHARS) + 2
        })
        .collect();
    let total = rows.len();
    let rows = std::sync::Arc::new(rows);
    let sizes = std::sync::Arc::new(sizes);
    let first = RwSignal::new(0_usize);
    let on_scroll = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        if let Some(element) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
            let row = (f64::from(element.scroll_top()) / ROW_HEIGHT) as usize;
            first.set(row.saturating_sub(OVERSCAN));
        }
    };
    let has_sizes = sizes.is_some();
    let size_header = has_sizes.then(|| view! { <th>"size"</th> });
    let size_col = has_sizes.then(|| view! { <col style="width: 9ch"/> });
    let cols = widths.iter().map(|w| view! { <col style=format!("width: {w}ch")/> }).collect_view();
    let header = columns.iter().map(|c| view! { <th title=c.clone()>{c.clone()}</th> }).collect_view();
    let span = columns.len() + usize::from(has_sizes);
    let height = (total.min(VISIBLE_ROWS) as f64 + 1.0) * ROW_HEIGHT + 2.0;
    // A fixed table layout needs the table's width: the columns' sum.
    let width = widths.iter().sum::<usize>() + if has_sizes { 9 } else { 0 };
    let body = move || {
        let start = first.get().min(total);
        let end = (start + VISIBLE_ROWS + 2 * OVERSCAN).min(total);
        let before = start as f64 * ROW_HEIGHT;
        let after = (total - end) as f64 * ROW_HEIGHT;
        let drawn = (start..end)
            .map(|i| {
                let cells = rows[i]
                    .iter()
                    .map(|value| match value {
                        Some((kind, text)) => {
                            let title = format!("{kind} {text}");
                            view! { <td title=title><span class="type">{kind.clone()}</span>" "{text.clone()}</td> }
                                .into_any()
                        }
                        None => view! { <td class="absent">"—"</td> }.into_any(),
                    })
                    .collect_view();
                let size = sizes
                    .as_ref()
                    .as_ref()
                    .and_then(|s| s.get(i))
                    .map(|s| view! { <td class="num">{format!("{s} B")}</td> });
                view! { <tr>{size}{cells}</tr> }
            })
            .collect_view();
        view! {
            {(before > 0.0).then(|| view! { <tr class="spacer" style=format!("height: {before}px")><td colspan=span></td></tr> })}
            {drawn}
            {(after > 0.0).then(|| view! { <tr class="spacer" style=format!("height: {after}px")><td colspan=span></td></tr> })}
        }
    };
    view! {
        <div class="grid-box" style=format!("max-height: {height}px") on:scroll=on_scroll tabindex="0" role="region" aria-label="Items returned" data-test="grid-box">
            <table class="grid" data-test="grid" data-rows=total style=format!("width: {width}ch")>
                <colgroup>{size_col}{cols}</colgroup>
                <thead><tr>{size_header}{header}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// A value's type and a short rendering.
pub fn cell(value: &Value) -> (String, String) {
    let Some((kind, inner)) = value.as_object().and_then(|m| m.iter().next()) else {
        return (String::new(), value.to_string());
    };
    let text = match inner {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Array(list) if kind.ends_with('S') => {
            let parts: Vec<String> = list.iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(list) if kind == "L" => numbers_shortened(list).unwrap_or_else(|| inner.to_string()),
        other => other.to_string(),
    };
    (kind.clone(), text)
}

/// A list of numbers longer than a few (an embedding of hundreds of dimensions) as its first
/// three and its length, e.g. `[0.12, -0.5, 0.33, … 1,536 numbers]`; `None` for other lists.
pub fn numbers_shortened(list: &[Value]) -> Option<String> {
    const SHOWN: usize = 3;
    if list.len() <= SHOWN + 1 {
        return None;
    }
    let numbers: Option<Vec<&str>> = list.iter().map(|v| v.get("N").and_then(Value::as_str)).collect();
    let numbers = numbers?;
    Some(format!("[{}, … {} numbers]", numbers[..SHOWN].join(", "), dynalab_lab::numbers::thousands(list.len() as u64)))
}
