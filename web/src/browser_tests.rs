//! In-browser unit tests (wasm-bindgen-test in headless Chromium): the worker's lab, run here on
//! the test page's thread, and components rendered into a real document.

use crate::components::result_view::ResultView;
use crate::state::Outcome;
use crate::worker::lab::{self, with_lab};
use leptos::prelude::*;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn create_orders() {
    if !with_lab(|lab| lab.engine.table_names()).iter().any(|t| t == "orders") {
        for (operation, request) in dynalab_lab::examples::example("orders").expect("example").setup {
            lab::run(operation, &request.to_string(), false);
        }
    }
}

/// A request run on the lab, as the console receives it.
fn run(operation: &str, request: &str, record: bool) -> Outcome {
    lab::run(operation, request, record).0.into()
}

#[wasm_bindgen_test]
fn running_a_request_records_history_and_explains_its_capacity() {
    create_orders();
    let before = with_lab(|lab| lab.history.len());
    let outcome = run(
        "GetItem",
        r#"{"TableName":"orders","Key":{"pk":{"S":"SKU#pen"},"sk":{"S":"STOCK"}},"ConsistentRead":true}"#,
        true,
    );
    assert!(outcome.response.is_ok());
    assert_eq!(outcome.steps.len(), 1);
    assert_eq!(outcome.steps[0].units, 1.0);
    assert_eq!(with_lab(|lab| lab.history.len()), before + 1);
    let failed = run("GetItem", r#"{"TableName":"nope","Key":{}}"#, false);
    assert_eq!(failed.response.expect_err("no table").name, "ResourceNotFoundException");
}

#[wasm_bindgen_test]
fn a_vector_index_is_searched_in_the_page_from_the_consoles_template() {
    let create = json!({"TableName": "page_vectors", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "VectorIndexes": [{"IndexName": "vector_index", "VectorAttribute": {"AttributeName": "v"}, "Dimensions": 3,
            "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "KEYS_ONLY"}}]});
    assert!(run("CreateTable", &create.to_string(), false).response.is_ok());
    for (pk, v) in [("near", ["0.1", "0.2", "0.3"]), ("far", ["5", "5", "5"])] {
        let put = json!({"TableName": "page_vectors", "Item": {"pk": {"S": pk}, "v": {"L": v.iter().map(|n| json!({"N": n})).collect::<Vec<_>>()}}});
        assert!(run("PutItem", &put.to_string(), false).response.is_ok());
    }
    let request = crate::pages::console::template("SearchVectors", Some("page_vectors".into()));
    let outcome = run("SearchVectors", &request, true);
    let response = outcome.response.expect("searched");
    assert_eq!(response["SearchResults"][0]["Item"], json!({"pk": {"S": "near"}}), "{request}");
    assert_eq!(response["SearchResults"][0]["Score"], json!(0.0));
    assert!(response["ConsumedCapacity"]["VectorSearchRequestBytes"].as_u64().is_some_and(|b| b >= 1024));
    // The capacity explanation has the search's bytes as a step of its own, not units.
    let search = outcome.steps.iter().find(|s| s.kind == dynalab_engine::explain::StepKind::VectorSearch);
    let search = search.expect("a vector search step");
    assert_eq!((search.index.as_deref(), search.units), (Some("vector_index"), 0.0));
    assert!(search.arithmetic().contains("VectorSearchRequestBytes"), "{}", search.arithmetic());
    // The grid shows each result with its score leading.
    let rows = crate::worker::results::result_items(&response);
    assert_eq!(rows[0], json!({"(score)": {"N": "0.0"}, "pk": {"S": "near"}}));
    // A long vector is shown shortened in a cell.
    let long = json!({"L": (0..1536).map(|i| json!({"N": format!("0.{i}")})).collect::<Vec<_>>()});
    let (kind, text) = crate::components::item_grid::cell(&long);
    assert_eq!((kind.as_str(), text.as_str()), ("L", "[0.0, 0.1, 0.2, … 1,536 numbers]"));
}

#[wasm_bindgen_test]
fn a_workspace_captured_and_replaced_is_the_same_workspace() {
    create_orders();
    // The design beside the tables goes with them.
    lab::with_lab(|lab| lab.studio.current.name = "Orders".into());
    let captured = lab::capture();
    let engine = captured.restore(lab::clock()).expect("restores");
    let copy = dynalab_lab::workspace::Workspace::from_json(&captured.to_json()).expect("a copy");
    lab::replace(engine, lab::Beside::of(copy));
    assert_eq!(lab::capture().to_json(), captured.to_json());
    assert!(captured.to_json().contains("\"name\":\"Orders\""), "the design is in the workspace");
}

fn mount(view: impl FnOnce() -> AnyView + 'static) -> web_sys::HtmlElement {
    let document = web_sys::window().and_then(|w| w.document()).expect("document");
    let host: web_sys::HtmlElement = document.create_element("div").expect("div").dyn_into().expect("element");
    document.body().expect("body").append_child(&host).expect("attached");
    std::mem::forget(leptos::mount::mount_to(host.clone(), view));
    host
}

#[wasm_bindgen_test]
fn a_cancelled_transaction_renders_its_reasons_in_order() {
    create_orders();
    // AP7 of the orders example: a sign-up with an email already taken.
    let example = dynalab_lab::examples::example("orders").expect("example");
    let request = example.requests.iter().find(|r| r.title.starts_with("AP7 ")).expect("AP7").request.to_string();
    let outcome = run("TransactWriteItems", &request, false);
    let host = mount(move || view! { <ResultView outcome on_next_page=|_| ()/> }.into_any());
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("TransactionCanceledException"), "{text}");
    let codes = host.query_selector_all("[data-test=reason-code]").expect("codes");
    let codes: Vec<String> = (0..codes.length()).filter_map(|i| codes.item(i)?.text_content()).collect();
    assert_eq!(codes, ["None", "ConditionalCheckFailed"]);
}

#[wasm_bindgen_test]
fn a_query_result_shows_counts_paging_and_the_arithmetic() {
    create_orders();
    let request = json!({"TableName": "orders", "KeyConditionExpression": "pk = :u",
        "ExpressionAttributeValues": {":u": {"S": "USER#ada"}}, "FilterExpression": "#s = :o",
        "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": {":u": {"S": "USER#ada"}, ":o": {"S": "OPEN"}},
        "Limit": 3});
    let outcome = run("Query", &request.to_string(), false);
    let host = mount(move || view! { <ResultView outcome on_next_page=|_| ()/> }.into_any());
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("ScannedCount 3"), "{text}");
    assert!(text.contains("the filter threw away"), "{text}");
    assert!(text.contains("Next page"), "{text}");
    assert!(text.contains("× 4 KB → ×½ eventually consistent = 0.5 RCU"), "{text}");
}

#[wasm_bindgen_test]
fn a_page_cut_at_1_mb_says_so() {
    let create = json!({"TableName": "big_items", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]});
    run("CreateTable", &create.to_string(), false);
    for i in 0..11 {
        let item = json!({"TableName": "big_items", "Item": {"id": {"S": format!("i{i}")}, "pad": {"S": "x".repeat(100_000)}}});
        run("PutItem", &item.to_string(), false);
    }
    let outcome = run("Scan", r#"{"TableName":"big_items"}"#, false);
    let host = mount(move || view! { <ResultView outcome on_next_page=|_| ()/> }.into_any());
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("The page ended because it read 1 MB ("), "{text}");
}

#[wasm_bindgen_test]
fn a_large_response_stays_in_the_worker_and_comes_back_a_window_at_a_time() {
    use crate::worker::protocol::Shown;
    use crate::worker::results;
    let items: Vec<serde_json::Value> = (0..3000)
        .map(|i| json!({"pk": {"S": format!("k{i}")}, "pad": {"S": "x".repeat(30)}, "n": {"N": i.to_string()}}))
        .collect();
    let text = json!({"Items": items, "Count": 3000, "ScannedCount": 3000}).to_string();
    let Shown::Large { head, rows } = results::shown(text.clone(), || vec!["pk".to_string()]) else {
        panic!("a {} B response is large", text.len());
    };
    let head: serde_json::Value = serde_json::from_str(&head).expect("head");
    assert_eq!(head, json!({"Count": 3000, "ScannedCount": 3000}), "everything but the items");
    assert_eq!((rows.count, rows.columns.clone()), (3000, vec!["pk".to_string(), "n".into(), "pad".into()]));
    let (window, total) = results::rows(rows.result, 2990, 50).expect("kept");
    assert_eq!((window.len(), total), (10, 3000));
    assert_eq!(window[0]["pk"]["S"], "k2990");
    let whole: serde_json::Value = serde_json::from_str(&results::text(rows.result).expect("kept")).expect("JSON");
    assert_eq!(whole["Items"].as_array().map(Vec::len), Some(3000));
    // A small response goes whole.
    assert_eq!(results::shown("{}".into(), Vec::new), Shown::Whole("{}".into()));
    // Only the last few are kept.
    for _ in 0..4 {
        results::shown(text.clone(), Vec::new);
    }
    assert!(results::rows(rows.result, 0, 1).is_none(), "an old response is let go");
}

#[wasm_bindgen_test]
fn messages_between_page_and_worker_read_back_as_sent() {
    use crate::worker::protocol::{encode, Ask, FromWorker, Load, ToWorker};
    let asks = [
        ToWorker::Ask {
            id: 7,
            ask: Ask::Run { operation: "Scan".into(), request: "{\"TableName\":\"t\"}".into(), record: true },
        },
        ToWorker::Ask { id: 8, ask: Ask::Load(Load::Orders { users: 3, orders_per_user: 2, skew: 1.5, seed: 9 }) },
        ToWorker::Ask {
            id: 9,
            ask: Ask::Items { table: "t".into(), index: Some("g".into()), offset: 400, limit: 200 },
        },
        ToWorker::Cancel,
    ];
    for ask in asks {
        let text = encode(&ask);
        let back: ToWorker = serde_json::from_str(&text).expect("reads back");
        assert_eq!(encode(&back), text);
    }
    let (mut outcome, _) = lab::run("ListTables", "{}", false);
    // A time in ms reads back within a unit in the last place (serde_json's float parsing).
    outcome.millis = 1.5;
    let text = encode(&FromWorker::Answer { id: 1, answer: crate::worker::protocol::Answer::Ran(outcome.clone()) });
    let FromWorker::Answer { answer: crate::worker::protocol::Answer::Ran(back), .. } =
        serde_json::from_str(&text).expect("reads")
    else {
        panic!("an answer");
    };
    assert_eq!(back, outcome);
}

/// A proof keeps the items it ran on: a write in between (a console trial) leaves its verdicts,
/// says the items changed, and the proved items come back whole.
#[wasm_bindgen_test]
fn a_proof_keeps_its_items_while_a_trial_writes_and_gives_them_back() {
    use crate::worker::studio;
    use dynalab_lab::design::{markdown, workspace};
    let (design, _) = markdown::read(include_str!("../../examples/orders-service.design.md")).expect("reads");
    let (engine, _) = workspace::engine_for(&design, lab::clock()).expect("workspace");
    let mut beside = lab::Beside::current();
    beside.studio = dynalab_lab::workspace::Studio { current: design, alternatives: Vec::new(), challenge: None };
    lab::replace(engine, beside);
    let proved = studio::prove(None).expect("proves");
    assert!(!proved.items_changed);
    assert!(proved.patterns.iter().any(|p| p.items > 0), "proved on the workspace's items");
    let mark = with_lab(|lab| lab.engine.change_mark());
    let table = with_lab(|lab| lab.engine.table_names())[0].clone();
    // A trial in the console: an item written.
    let key = with_lab(|lab| lab.engine.outline(&table).map(|s| (s.partition_key, s.sort_key)).expect("shape"));
    let mut item = serde_json::Map::new();
    item.insert(key.0, json!({"S": "TRIAL#1"}));
    if let Some(sort) = key.1 {
        item.insert(sort, json!({"S": "TRIAL"}));
    }
    lab::run("PutItem", &json!({"TableName": table, "Item": item}).to_string(), false);
    assert_ne!(with_lab(|lab| lab.engine.change_mark()), mark);
    let again = studio::prove(None).expect("proves");
    assert!(again.items_changed, "the page is told the items changed");
    assert_eq!(again.patterns, proved.patterns, "the verdicts stay those of the proved items");
    studio::restore_proved().expect("restores");
    let back = studio::prove(None).expect("proves");
    assert!(!back.items_changed);
    assert_eq!(back.patterns, proved.patterns);
    let trial_item = with_lab(|lab| {
        lab.engine.execute_value(
            "Scan",
            &json!({"TableName": table, "FilterExpression": "begins_with(#k, :t)",
            "ExpressionAttributeNames": {"#k": lab.engine.outline(&table).expect("shape").partition_key},
            "ExpressionAttributeValues": {":t": {"S": "TRIAL#"}}}),
        )
    });
    assert_eq!(trial_item.expect("scans")["Count"], json!(0), "the trial's item is gone with the restore");
}

/// A worker that failed answers what waits, and every later ask, with its failure: nothing stays
/// "Proving…".
#[wasm_bindgen_test]
async fn a_failed_worker_answers_every_ask_with_its_failure() {
    crate::client::stopped_for_test("The engine's worker failed: a test.".into());
    let answer = crate::client::ask(crate::worker::protocol::Ask::Memory).await;
    crate::client::stopped_for_test(String::new());
    assert!(
        matches!(&answer, crate::worker::protocol::Answer::Done(Err(said)) if said.contains("a test")),
        "{answer:?}"
    );
}
