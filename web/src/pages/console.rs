//! The console: any operation as DynamoDB JSON (a template per operation) or a pasted AWS CLI
//! command, its result, "next page", the example's saved patterns, and the request history.

use crate::components::result_view::ResultView;
use crate::state::{self, Outcome, Ui};
use dynalab_engine::Operation;
use dynalab_lab::aws_cli;
use leptos::prelude::*;
use serde_json::{json, Value};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Input {
    Json,
    Cli,
}

/// What the console holds — the editor, the pasted command, the last result — kept by the app, so
/// leaving the Console for another tab and coming back finds it as it was.
#[derive(Clone, Copy)]
pub struct ConsoleState {
    operation: RwSignal<String>,
    request: RwSignal<String>,
    cli: RwSignal<String>,
    input: RwSignal<Input>,
    outcome: RwSignal<Option<std::sync::Arc<Outcome>>>,
    problem: RwSignal<Option<String>>,
    /// The last template filled in: a request still equal to it holds nothing of the user's.
    last_template: RwSignal<String>,
    /// The editor was filled once: coming back does not fill it again.
    started: RwSignal<bool>,
}

impl ConsoleState {
    pub fn new() -> Self {
        Self {
            operation: RwSignal::new(String::new()),
            request: RwSignal::new(String::new()),
            cli: RwSignal::new(String::new()),
            input: RwSignal::new(Input::Json),
            outcome: RwSignal::new(None),
            problem: RwSignal::new(None),
            last_template: RwSignal::new(String::new()),
            started: RwSignal::new(false),
        }
    }
}

#[component]
pub fn ConsolePage() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let kept = expect_context::<ConsoleState>();
    let ConsoleState { operation, request, cli, input, outcome, problem, last_template, started } = kept;
    if !started.get_untracked() {
        // An empty workspace starts with what it needs first: a table.
        let first = if state::table_names().is_empty() { "CreateTable" } else { "Query" };
        operation.set(first.to_string());
    }

    let fill_template = move || {
        let table = ui.selected_table.get_untracked().or_else(|| state::table_names().into_iter().next());
        let text = template(&operation.get_untracked(), table);
        last_template.set(text.clone());
        request.set(text);
    };
    // Changing the operation offers its template, without throwing away what the user wrote.
    let change_operation = move |op: String| {
        operation.set(op.clone());
        let current = request.get_untracked();
        let untouched = current.trim().is_empty() || current == last_template.get_untracked();
        if untouched || confirm(&format!("Replace the request in the editor with a {op} template?")) {
            fill_template();
        }
    };
    if ui.console_request.get_untracked().is_none() && !started.get_untracked() {
        fill_template();
    }
    started.set(true);
    // A request sent here from elsewhere (a saved pattern, the items view) replaces the editor's.
    Effect::new(move |_| {
        if let Some((op, body)) = ui.console_request.get() {
            input.set(Input::Json);
            operation.set(op);
            request.set(body);
            ui.console_request.set(None);
        }
    });

    let running = RwSignal::new(false);
    let execute = move |op: String, body: String| {
        problem.set(None);
        running.set(true);
        leptos::task::spawn_local(async move {
            let result = state::run(&op, &body, true).await;
            running.try_set(false);
            if result.response.is_ok() {
                ui.succeeded();
            }
            outcome.try_set(Some(std::sync::Arc::new(result)));
            bring_result_into_view();
        });
    };
    let run_now = move || match input.get_untracked() {
        Input::Json => execute(operation.get_untracked(), request.get_untracked()),
        Input::Cli => match aws_cli::translate(&cli.get_untracked()) {
            Ok(translated) => {
                let body = serde_json::to_string_pretty(&translated.request).unwrap_or_default();
                operation.set(translated.operation.clone());
                request.set(body.clone());
                execute(translated.operation, body);
            }
            Err(e) => {
                problem.set(Some(e));
                outcome.set(None);
            }
        },
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            run_now();
        }
    };
    let next_page = Callback::new(move |key: Value| {
        let op = outcome.get_untracked().map_or_else(|| operation.get_untracked(), |o| o.operation.clone());
        let previous = outcome.get_untracked().map_or_else(|| request.get_untracked(), |o| o.request.clone());
        let mut body: Value = serde_json::from_str(&previous).unwrap_or_else(|_| json!({}));
        body["ExclusiveStartKey"] = key;
        let text = serde_json::to_string_pretty(&body).unwrap_or_default();
        input.set(Input::Json);
        operation.set(op.clone());
        request.set(text.clone());
        execute(op, text);
    });

    let options = Operation::ALL
        .iter()
        .filter(|op| **op != Operation::DescribeEndpoints)
        .map(|op| view! { <option value=op.name()>{op.name()}</option> })
        .collect_view();
    view! {
        {move || {
            ui.version.get();
            // Not over a workspace still coming back (a large one takes seconds).
            let coming_back = expect_context::<state::LoadProgress>().now.get().is_some_and(|p| p.task != crate::worker::protocol::Task::Load);
            (ui.ready.get() && !coming_back && state::table_names().is_empty()).then(|| view! { <StartPanel/> })
        }}
        <div class="console">
            <section class="editor" aria-label="Request">
                <div class="view-switch" role="group" aria-label="Request as">
                    <button aria-pressed=move || (input.get() == Input::Json).to_string() on:click=move |_| input.set(Input::Json)>"DynamoDB JSON"</button>
                    <button aria-pressed=move || (input.get() == Input::Cli).to_string() on:click=move |_| input.set(Input::Cli) data-test="cli-mode">"AWS CLI command"</button>
                </div>
                {move || match input.get() {
                    Input::Json => view! {
                        <div class="row">
                            <label>"Operation "
                                <select data-test="operation" prop:value=move || operation.get()
                                    on:change=move |ev| change_operation(event_target_value(&ev))>
                                    {options.clone()}
                                </select>
                            </label>
                            <button on:click=move |_| fill_template()>"Template"</button>
                        </div>
                        <textarea class="code" rows="16" spellcheck="false" aria-label="Request JSON" data-test="request"
                            prop:value=move || request.get()
                            on:input=move |ev| request.set(event_target_value(&ev))
                            on:keydown=on_keydown></textarea>
                    }.into_any(),
                    Input::Cli => view! {
                        <textarea class="code" rows="10" spellcheck="false" data-test="cli"
                            aria-label="AWS CLI command"
                            placeholder="aws dynamodb query --table-name orders --key-condition-expression \"pk = :u\" --expression-attribute-values '{\":u\":{\"S\":\"USER#ada\"}}'"
                            prop:value=move || cli.get()
                            on:input=move |ev| cli.set(event_target_value(&ev))
                            on:keydown=on_keydown></textarea>
                        <p class="muted">"Values as JSON or the CLI's shorthand. The CLI follows pages by itself; here one run is one request, with a next-page button."</p>
                    }.into_any(),
                }}
                <div class="row">
                    <button class="primary" on:click=move |_| run_now() data-test="run" aria-busy=move || running.get().to_string()>"Run"</button>
                    <span class="muted">"Ctrl+Enter"</span>
                    <button data-test="save-as-pattern" title="Adds this request to the Design tab's inventory, its values as the pattern's inputs"
                        on:click=move |_| {
                            let (op, body) = (operation.get_untracked(), request.get_untracked());
                            leptos::task::spawn_local(async move { ui.say(&crate::pages::design::save_as_pattern(&op, &body).await); });
                        }>"Save as a pattern"</button>
                </div>
                {move || problem.get().map(|p| view! { <p class="status bad" data-test="cli-error">{p}</p> })}
                <SavedPatterns/>
                <History operation request input/>
            </section>
            <section class="output" id="console-result" aria-label="Result" aria-live="polite">
                {move || match outcome.get() {
                    Some(o) => view! { <ResultView outcome=o on_next_page=next_page/> }.into_any(),
                    None => view! { <p class="muted">"Run a request to see its items, its capacity and why."</p> }.into_any(),
                }}
            </section>
        </div>
    }
}

/// Asks the user (a browser dialog); no window means no.
fn confirm(question: &str) -> bool {
    web_sys::window().and_then(|w| w.confirm_with_message(question).ok()).unwrap_or(false)
}

/// On a narrow screen the result sits below the editor, the patterns and the history: scroll to it.
fn bring_result_into_view() {
    let Some(window) = web_sys::window() else { return };
    let narrow = window.inner_width().ok().and_then(|w| w.as_f64()).is_some_and(|w| w < 1000.0);
    if !narrow {
        return;
    }
    // After the view has rendered the new result.
    leptos::prelude::request_animation_frame(move || {
        if let Some(element) = window.document().and_then(|d| d.get_element_by_id("console-result")) {
            element.scroll_into_view();
        }
    });
}

/// The gallery's access patterns, ready to load into the console.
#[component]
fn SavedPatterns() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        ui.version.track();
        let tables = state::table_names();
        let patterns: Vec<_> = dynalab_lab::examples::gallery()
            .into_iter()
            .filter(|e| {
                e.setup.iter().any(|(op, r)| *op == "CreateTable" && tables.iter().any(|t| r["TableName"] == *t))
            })
            .flat_map(|e| e.requests)
            .collect();
        (!patterns.is_empty()).then(|| {
            let buttons = patterns
                .into_iter()
                .map(|p| {
                    let body = serde_json::to_string_pretty(&p.request).unwrap_or_default();
                    let op = p.operation.to_string();
                    view! {
                        <li><button class="link" data-test="pattern" on:click=move |_| {
                            ui.console_request.set(Some((op.clone(), body.clone())));
                        }>{p.title}</button></li>
                    }
                })
                .collect_view();
            view! {
                <details open class="patterns">
                    <summary>"Access patterns of the loaded example"</summary>
                    <ul>{buttons}</ul>
                </details>
            }
        })
    }
}

#[component]
fn History(operation: RwSignal<String>, request: RwSignal<String>, input: RwSignal<Input>) -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        ui.version.track();
        let history = state::history();
        let entries = history
            .into_iter()
            .rev()
            .take(50)
            .map(|entry| {
                let label = format!("{} {}", entry.operation, summary(&entry.request));
                let (op, body) = (entry.operation.clone(), entry.request.clone());
                let (save_op, save_body) = (op.clone(), body.clone());
                view! {
                    <li><button class="link" title="Load into the editor" on:click=move |_| {
                        input.set(Input::Json);
                        operation.set(op.clone());
                        request.set(body.clone());
                    }>{label}</button>
                    " "
                    <button class="link" data-test="history-save-as-pattern" title="Add it to the Design tab's inventory" on:click=move |_| {
                        let (op, body) = (save_op.clone(), save_body.clone());
                        leptos::task::spawn_local(async move { ui.say(&crate::pages::design::save_as_pattern(&op, &body).await); });
                    }>"Save as a pattern"</button></li>
                }
            })
            .collect_view();
        view! {
            <details class="history">
                <summary>"History"</summary>
                <ol data-test="history">{entries}</ol>
            </details>
        }
    }
}

fn summary(request: &str) -> String {
    let value: Value = serde_json::from_str(request).unwrap_or(Value::Null);
    let table = value.get("TableName").and_then(Value::as_str).unwrap_or("");
    let expression = value.get("KeyConditionExpression").and_then(Value::as_str).unwrap_or("");
    format!("{table} {expression}").trim().to_string()
}

/// A starting request for `operation` on `table`, with its real key names where the table exists.
pub fn template(operation: &str, table: Option<String>) -> String {
    // With no table yet, every template names the table CreateTable's template makes.
    let table = table.unwrap_or_else(|| "new_table".into());
    let shape = state::table(&table);
    let key_names: Vec<(String, String)> = shape
        .as_ref()
        .map(|s| {
            let sort = s.sort_key.clone().zip(s.key_types.1.clone());
            std::iter::once((s.partition_key.clone(), s.key_types.0.clone())).chain(sort).collect()
        })
        .unwrap_or_default();
    let (hash, hash_type) = key_names.first().cloned().unwrap_or(("pk".into(), "S".into()));
    let mut key = serde_json::Map::new();
    for (name, kind) in &key_names {
        key.insert(name.clone(), json!({kind.clone(): if kind == "N" { "1" } else { "value" }}));
    }
    if key.is_empty() {
        key.insert("pk".into(), json!({"S": "value"}));
    }
    let key = Value::Object(key);
    let sample = if hash_type == "N" { "1" } else { "value" };
    let value = json!({hash_type: sample});
    let arn = format!("arn:aws:dynamodb:{}:{}:table/{table}", dynalab_engine::REGION, dynalab_engine::ACCOUNT_ID);
    let body = match operation {
        "GetItem" => json!({"TableName": table, "Key": key, "ReturnConsumedCapacity": "TOTAL"}),
        "PutItem" => {
            let mut item = key.clone();
            item["note"] = json!({"S": "hello"});
            json!({"TableName": table, "Item": item, "ReturnConsumedCapacity": "INDEXES"})
        }
        "UpdateItem" => json!({"TableName": table, "Key": key, "UpdateExpression": "SET #n = :n",
            "ExpressionAttributeNames": {"#n": "note"}, "ExpressionAttributeValues": {":n": {"S": "updated"}},
            "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "INDEXES"}),
        "DeleteItem" => {
            json!({"TableName": table, "Key": key, "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "INDEXES"})
        }
        "Query" => json!({"TableName": table, "KeyConditionExpression": format!("{hash} = :pk"),
            "ExpressionAttributeValues": {":pk": value}, "ReturnConsumedCapacity": "INDEXES"}),
        "Scan" => json!({"TableName": table, "Limit": 25, "ReturnConsumedCapacity": "INDEXES"}),
        "SearchVectors" => {
            // The table's first vector index, with a query vector of its size (0.1, 0.2, …).
            let (index, dimensions) = shape
                .as_ref()
                .and_then(|s| s.vector_indexes.first())
                .map_or(("vector_index".to_string(), 3), |(name, _, dimensions)| (name.clone(), *dimensions));
            let vector: Vec<Value> =
                (1..=dimensions).map(|i| json!({"N": format!("{:.1}", (i % 10) as f64 / 10.0)})).collect();
            json!({"TableName": table, "IndexName": index, "SearchVector": vector, "TopK": 5, "ReturnConsumedCapacity": "TOTAL"})
        }
        "BatchGetItem" => json!({"RequestItems": {table.clone(): {"Keys": [key]}}, "ReturnConsumedCapacity": "TOTAL"}),
        "BatchWriteItem" => {
            json!({"RequestItems": {table.clone(): [{"PutRequest": {"Item": key}}]}, "ReturnConsumedCapacity": "INDEXES"})
        }
        "TransactWriteItems" => json!({"TransactItems": [
            {"Put": {"TableName": table, "Item": key, "ConditionExpression": format!("attribute_not_exists({hash})")}}
        ], "ReturnConsumedCapacity": "INDEXES"}),
        "TransactGetItems" => {
            json!({"TransactItems": [{"Get": {"TableName": table, "Key": key}}], "ReturnConsumedCapacity": "TOTAL"})
        }
        "CreateTable" => json!({"TableName": "new_table", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}),
        "UpdateTable" => json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST"}),
        "ListTables" | "DescribeLimits" => json!({}),
        "ExecuteStatement" => {
            json!({"Statement": format!("SELECT * FROM \"{table}\" WHERE \"{hash}\" = ?"), "Parameters": [value]})
        }
        "BatchExecuteStatement" => {
            json!({"Statements": [{"Statement": format!("SELECT * FROM \"{table}\" WHERE \"{hash}\" = ?"), "Parameters": [value]}]})
        }
        "ExecuteTransaction" => {
            json!({"TransactStatements": [{"Statement": format!("SELECT * FROM \"{table}\" WHERE \"{hash}\" = ?"), "Parameters": [value]}]})
        }
        "UpdateTimeToLive" => {
            json!({"TableName": table, "TimeToLiveSpecification": {"AttributeName": "expires_at", "Enabled": true}})
        }
        "UpdateContinuousBackups" => {
            json!({"TableName": table, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}})
        }
        "TagResource" => json!({"ResourceArn": arn, "Tags": [{"Key": "team", "Value": "lab"}]}),
        "UntagResource" => json!({"ResourceArn": arn, "TagKeys": ["team"]}),
        "ListTagsOfResource" => json!({"ResourceArn": arn}),
        "DescribeStream" | "GetShardIterator" | "GetRecords" => {
            let stream = shape.as_ref().and_then(|s| s.latest_stream_arn.clone());
            let stream =
                stream.unwrap_or_else(|| format!("{arn}/stream/LABEL (enable a stream with UpdateTable first)"));
            match operation {
                "DescribeStream" => json!({"StreamArn": stream}),
                "GetShardIterator" => {
                    json!({"StreamArn": stream, "ShardId": "from DescribeStream", "ShardIteratorType": "TRIM_HORIZON"})
                }
                _ => json!({"ShardIterator": "from GetShardIterator", "Limit": 100}),
            }
        }
        _ => json!({"TableName": table}),
    };
    serde_json::to_string_pretty(&body).unwrap_or_default()
}

/// What an empty workspace opens on: what Dynalab is, and three ways in.
#[component]
fn StartPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    view! {
        <section class="start-panel card" data-test="start-panel" aria-label="Start here">
            <h2>"Start here"</h2>
            <p>"Dynalab is DynamoDB with its exact behaviour — items, keys, indexes, paging, transactions, capacity units and its error messages — running in this page, with nothing to install and nothing sent anywhere. Design a table from its access patterns, run every pattern, and see what each one costs and why."</p>
            <div class="row">
                <button class="primary" data-test="start-workshop" on:click=move |_| {
                    ui.learn_pack.set(Some("intro".into()));
                    ui.tab.set(crate::state::Tab::Learn);
                    state::focus_when_drawn("#tab-learn");
                }>"Start the introductory workshop"</button>
                <button data-test="start-example" on:click=move |_| crate::pages::fixtures::load_example(ui, "orders")>"Load the orders example"</button>
                <button data-test="start-empty" on:click=move |_| {
                    ui.tab.set(crate::state::Tab::Tables);
                    state::focus_when_drawn("[data-test=\"table-name\"]");
                }>"Start empty: create a table"</button>
                <button data-test="start-import" on:click=move |_| {
                    ui.tab.set(crate::state::Tab::Patterns);
                    state::focus_when_drawn("[data-test=\"workbook\"]");
                }>"Import a design"</button>
            </div>
            <p class="muted">"Import a design: a Dynalab workbook, the DynamoDB MCP server's data model, a design-skill cost model, a NoSQL Workbench model or a CloudFormation template — the formats "<code>"dynalab check"</code>" reads ("<a href="docs/workbook.md">"workbook format"</a>")."</p>
        </section>
    }
}
