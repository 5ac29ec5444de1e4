//! One request's outcome: items as a grid or the raw JSON, Count vs ScannedCount, where the page
//! ended, the capacity with its arithmetic, and an error with its DynamoDB name, message,
//! CancellationReasons or returned item.

use crate::components::item_grid::ItemGrid;
use crate::components::item_list::{ItemList, Source};
use crate::state::Outcome;
use crate::worker::results::result_items;
use dynalab_engine::explain::{Step, StepKind};
use leptos::prelude::*;
use serde_json::Value;
use std::sync::Arc;

#[component]
pub fn ResultView(#[prop(into)] outcome: Arc<Outcome>, #[prop(into)] on_next_page: Callback<Value>) -> impl IntoView {
    let raw = RwSignal::new(false);
    // Shared, not copied: a 1 MB page's JSON tree is cloned only into the grid's rows.
    let Outcome { operation, request, response, steps, millis, stream_records, .. } = &*outcome;
    let (operation, request, steps, millis, stream_records) =
        (operation.clone(), request.clone(), steps.clone(), *millis, stream_records.clone());
    match response {
        Err(error) => {
            let error = error.clone();
            let reasons = error.body.get("CancellationReasons").and_then(Value::as_array).cloned();
            let item = error.body.get("Item").cloned();
            view! {
                <section class="result error" data-test="result">
                    <p class="status bad">
                        <strong data-test="error-name">{error.name}</strong>
                        ": "
                        <span data-test="error-message">{error.message}</span>
                    </p>
                    {reasons.map(|reasons| view! { <Reasons reasons/> })}
                    {item.map(|item| view! {
                        <h3>"The item as it was (ReturnValuesOnConditionCheckFailure)"</h3>
                        <ItemGrid items=vec![item]/>
                    })}
                    <details>
                        <summary>"Response body"</summary>
                        <pre>{serde_json::to_string_pretty(&error.body).unwrap_or_default()}</pre>
                    </details>
                </section>
            }
            .into_any()
        }
        Ok(body) => {
            // A large response's items stay in the worker: the grid fetches the rows in view.
            let remote = outcome.rows.clone();
            let items = if remote.is_some() { Vec::new() } else { result_items(body) };
            let count = body.get("Count").and_then(Value::as_u64);
            let scanned = body.get("ScannedCount").and_then(Value::as_u64);
            let last_key = body.get("LastEvaluatedKey").cloned();
            let limit =
                serde_json::from_str::<Value>(&request).ok().and_then(|r| r.get("Limit").and_then(Value::as_u64));
            let page_bytes = steps.iter().find(|s| matches!(s.kind, StepKind::Read { .. })).map(|s| s.bytes);
            let why_stopped = match (limit, scanned) {
                (Some(limit), Some(scanned)) if scanned >= limit => {
                    format!("it evaluated its Limit of {limit} item(s)")
                }
                _ => format!("it read 1 MB ({} B, the last item included)", page_bytes.unwrap_or(0)),
            };
            // The raw JSON of a 1 MB page is drawn only when asked for (a large one is fetched).
            let shared = outcome.clone();
            let fetched = RwSignal::new(None::<String>);
            // Asked for once, however often the view is drawn before the answer comes.
            let requested = StoredValue::new(false);
            let pretty = move || match (&shared.rows, &shared.response) {
                (Some(rows), _) => {
                    if fetched.get().is_none() && !requested.get_value() {
                        requested.set_value(true);
                        let result = rows.result;
                        leptos::task::spawn_local(async move {
                            let text =
                                match crate::client::ask(crate::worker::protocol::Ask::ResultText { result }).await {
                                    crate::worker::protocol::Answer::Text(Ok(text)) => text,
                                    crate::worker::protocol::Answer::Text(Err(e)) => e,
                                    _ => String::new(),
                                };
                            fetched.set(Some(text));
                        });
                    }
                    fetched.get().unwrap_or_else(|| "…".to_string())
                }
                (None, Ok(body)) => serde_json::to_string_pretty(body).unwrap_or_default(),
                (None, Err(_)) => String::new(),
            };
            let reported = match body.get("ConsumedCapacity") {
                Some(Value::Array(list)) => list.clone(),
                Some(one) => vec![one.clone()],
                None => Vec::new(),
            };
            let has_items = remote.as_ref().map_or(!items.is_empty(), |r| r.count > 0);
            // The table's (or index's) key attributes lead the grid.
            let keys = serde_json::from_str::<Value>(&request)
                .ok()
                .and_then(|r| {
                    let table = r.get("TableName")?.as_str()?.to_string();
                    let index = r.get("IndexName").and_then(Value::as_str).map(String::from);
                    Some(crate::state::key_names(&table, index.as_deref()))
                })
                .unwrap_or_default();
            view! {
                <section class="result ok" data-test="result">
                    <p class="status ok">
                        <strong>{format!("{operation} succeeded")}</strong>
                        <span class="muted">{format!(" in {millis:.2} ms")}</span>
                    </p>
                    {count.map(|count| {
                        let scanned = scanned.unwrap_or(count);
                        let filtered = scanned - count.min(scanned);
                        view! {
                            <p data-test="counts">
                                {format!("Count {count} of ScannedCount {scanned}")}
                                {(filtered > 0).then(|| format!(" — the filter threw away {filtered} item(s) that were still read and paid for"))}
                            </p>
                        }
                    })}
                    <Paging last_key why_stopped on_next_page/>
                    <Capacity reported steps/>
                    <StreamRecords records=stream_records/>
                    // Without items there is no grid: the raw JSON is what shows, and says so.
                    <div class="view-switch" role="group" aria-label="Show as">
                        <button aria-pressed=move || (has_items && !raw.get()).to_string() disabled=!has_items
                            on:click=move |_| raw.set(false) data-test="show-grid">"Grid"</button>
                        <button aria-pressed=move || (raw.get() || !has_items).to_string() on:click=move |_| raw.set(true) data-test="show-raw">"Raw JSON"</button>
                    </div>
                    {move || if raw.get() || !has_items {
                        let pretty = pretty.clone();
                        view! { <pre data-test="raw">{pretty}</pre> }.into_any()
                    } else if let Some(rows) = remote.clone() {
                        view! { <ItemList source=Source::Result(rows.result) total=rows.count keys=rows.columns on_edit=None/> }.into_any()
                    } else {
                        view! { <ItemGrid items=items.clone() keys=keys.clone()/> }.into_any()
                    }}
                </section>
            }
            .into_any()
        }
    }
}

#[component]
fn Paging(last_key: Option<Value>, why_stopped: String, on_next_page: Callback<Value>) -> impl IntoView {
    last_key.map(|key| {
        let shown = key.to_string();
        view! {
            <p class="paging" data-test="paging">
                {format!("The page ended because {why_stopped}. LastEvaluatedKey: ")}
                <code>{shown}</code>
                " "
                <button on:click=move |_| on_next_page.run(key.clone()) data-test="next-page">"Next page →"</button>
            </p>
        }
    })
}

#[component]
fn Capacity(reported: Vec<Value>, steps: Vec<Step>) -> impl IntoView {
    if steps.is_empty() && reported.is_empty() {
        return None;
    }
    let total: f64 = steps.iter().map(|s| s.units).sum();
    let unit = if steps.iter().any(|s| matches!(s.kind, StepKind::Write)) { "WCU" } else { "RCU" };
    // Vector indexes bill bytes, apart from the units.
    let vector_bytes: usize = steps.iter().filter(|s| s.kind.is_vector()).map(|s| s.bytes).sum();
    let title = match (steps.iter().all(|s| s.kind.is_vector()), vector_bytes) {
        (_, 0) => format!("Capacity: {total} {unit} in all"),
        (true, bytes) => format!("Capacity: {bytes} B of vector index (bytes, not units)"),
        (false, bytes) => format!("Capacity: {total} {unit} in all, and {bytes} B of vector index (bytes, not units)"),
    };
    let rows = steps
        .into_iter()
        .map(|step| {
            let target = match &step.index {
                Some(index) => format!("{} · index {index}", step.table),
                None => step.table.clone(),
            };
            let kind = match step.kind {
                StepKind::Read { consistent: true } => "strongly consistent read",
                StepKind::Read { consistent: false } => "eventually consistent read",
                StepKind::Write => "write",
                StepKind::VectorSearch => "vector search",
                StepKind::VectorWrite => "vector index write",
            };
            view! {
                <tr>
                    <td>{target}</td>
                    <td>{kind}</td>
                    <td class="num">{step.arithmetic()}</td>
                    <td>{step.why}</td>
                </tr>
            }
        })
        .collect_view();
    Some(view! {
        <div class="capacity grid-wrap" data-test="capacity">
            <h3>{title}</h3>
            <table>
                <thead><tr><th>"Charged to"</th><th>"As"</th><th>"Arithmetic"</th><th>"Why"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            {(!reported.is_empty()).then(|| view! {
                <details>
                    <summary>"ConsumedCapacity as the response reports it"</summary>
                    <pre>{serde_json::to_string_pretty(&reported).unwrap_or_default()}</pre>
                </details>
            })}
        </div>
    })
}

/// What a stream consumer would receive for this request's writes.
#[component]
fn StreamRecords(records: Vec<(String, Value)>) -> impl IntoView {
    (!records.is_empty()).then(|| {
        let rows = records
            .into_iter()
            .map(|(table, record)| {
                let d = &record["dynamodb"];
                let images = ["OldImage", "NewImage"]
                    .iter()
                    .filter_map(|k| d.get(*k).map(|i| format!("{k} {i}")))
                    .collect::<Vec<_>>()
                    .join("  ");
                view! {
                    <tr data-test="stream-record">
                        <td>{table}</td>
                        <td>{record["eventName"].as_str().unwrap_or_default().to_string()}</td>
                        <td><code>{d["Keys"].to_string()}</code></td>
                        <td class="num">{d["SequenceNumber"].as_str().unwrap_or_default().to_string()}</td>
                        <td class="num">{format!("{} B", d["SizeBytes"])}</td>
                        <td><code>{images}</code></td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div class="stream grid-wrap" data-test="stream">
                <h3>"Stream records this request produced"</h3>
                <table>
                    <thead><tr><th>"Table"</th><th>"Event"</th><th>"Keys"</th><th>"Sequence"</th><th>"Size"</th><th>"Images"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    })
}

#[component]
fn Reasons(reasons: Vec<Value>) -> impl IntoView {
    let rows = reasons
        .into_iter()
        .enumerate()
        .map(|(i, reason)| {
            let code = reason.get("Code").and_then(Value::as_str).unwrap_or("").to_string();
            let message = reason.get("Message").and_then(Value::as_str).unwrap_or("").to_string();
            // ReturnValuesOnConditionCheckFailure puts the item as it was inside its reason.
            let item = reason.get("Item").map(|item| {
                let text = dynalab_lab::plain_json::to_plain(item).unwrap_or_else(|_| item.to_string());
                view! { <code data-test="reason-item">{text}</code> }
            });
            let class = if code == "None" { "" } else { "bad" };
            view! {
                <tr class=class>
                    <td>{format!("#{}", i + 1)}</td>
                    <td data-test="reason-code">{code}</td>
                    <td>{message}</td>
                    <td>{item}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"CancellationReasons (one per action, in order)"</h3>
        <div class="grid-wrap"><table class="reasons" data-test="reasons">
            <thead><tr><th>"Action"</th><th>"Code"</th><th>"Message"</th><th>"Item as it was"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
    }
}
