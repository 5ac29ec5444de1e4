//! Items as a grid: the key attributes first, then one column per other attribute name (in
//! first-seen order), each cell the value with its DynamoDB type beside it.

use leptos::prelude::*;
use serde_json::Value;

/// The most rows a grid draws; the raw JSON shows everything.
const MAX_ROWS: usize = 500;

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
    let hidden = items.len().saturating_sub(MAX_ROWS);
    let header = columns.iter().map(|c| view! { <th>{c.clone()}</th> }).collect_view();
    let rows = items
        .iter()
        .take(MAX_ROWS)
        .enumerate()
        .map(|(i, item)| {
            let cells = columns
                .iter()
                .map(|c| match item.get(c) {
                    Some(value) => {
                        let (kind, text) = cell(value);
                        view! { <td><span class="type">{kind}</span>" "{text}</td> }.into_any()
                    }
                    None => view! { <td class="absent">"—"</td> }.into_any(),
                })
                .collect_view();
            let size = sizes.as_ref().and_then(|s| s.get(i)).map(|s| view! { <td class="num">{format!("{s} B")}</td> });
            view! { <tr>{size}{cells}</tr> }
        })
        .collect_view();
    let size_header = sizes.is_some().then(|| view! { <th>"size"</th> });
    view! {
        <div class="grid-wrap">
            <table class="grid" data-test="grid">
                <thead><tr>{size_header}{header}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
            {(hidden > 0).then(|| view! { <p class="muted">{format!("{hidden} more not drawn; see the raw JSON")}</p> })}
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
        other => other.to_string(),
    };
    (kind.clone(), text)
}
