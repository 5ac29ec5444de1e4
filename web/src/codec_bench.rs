//! How the page and the worker should encode their messages, measured (`benches/worker-messages.mjs`):
//! a message as JSON text (what they send today: one string crosses `postMessage`) against the same
//! message as JavaScript values (`serde-wasm-bindgen`: an object tree crosses, structured-cloned).
//! Each round trip is what a message costs: encode, the structured clone `postMessage` makes,
//! decode.

use crate::worker::protocol::{Answer, Ask, ItemsPage};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn structured_clone(value: &JsValue) -> JsValue {
    js_sys::Reflect::get(&js_sys::global(), &"structuredClone".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call1(&JsValue::NULL, value).ok())
        .unwrap_or(JsValue::NULL)
}

fn as_text<T: Serialize + DeserializeOwned>(message: &T) -> bool {
    let text = JsValue::from_str(&crate::worker::protocol::encode(message));
    let cloned = structured_clone(&text);
    cloned.as_string().and_then(|t| serde_json::from_str::<T>(&t).ok()).is_some()
}

fn as_values<T: Serialize + DeserializeOwned>(message: &T) -> bool {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let Ok(value) = message.serialize(&serializer) else { return false };
    serde_wasm_bindgen::from_value::<T>(structured_clone(&value)).is_ok()
}

/// Microseconds per round trip of `message` `iterations` times, as text and as values.
fn measure<T: Serialize + DeserializeOwned>(message: &T, iterations: u32) -> (f64, f64) {
    let now = crate::worker::now_ms;
    let mut ok = true;
    let start = now();
    for _ in 0..iterations {
        ok &= as_text(message);
    }
    let text = (now() - start) * 1000.0 / f64::from(iterations);
    let start = now();
    for _ in 0..iterations {
        ok &= as_values(message);
    }
    let values = (now() - start) * 1000.0 / f64::from(iterations);
    if !ok {
        return (f64::NAN, f64::NAN);
    }
    (text, values)
}

/// `{"message": [text µs, values µs], …}` for a small ask, a window of 200 items, and a 1,000-item window.
#[wasm_bindgen]
pub fn bench_worker_messages(iterations: u32) -> String {
    let ask = Ask::Run {
        operation: "GetItem".into(),
        request: r#"{"TableName":"orders","Key":{"pk":{"S":"USER#ada"},"sk":{"S":"PROFILE"}}}"#.into(),
        record: true,
    };
    let window = |n: usize| {
        Answer::Items(ItemsPage {
            offset: 0,
            total: 100_000,
            items: (0..n)
                .map(|i| {
                    let item = serde_json::json!({"pk": {"S": format!("USER#{i:05}")}, "sk": {"S": format!("ORDER#2026-11-{:02}#o{i}", i % 28 + 1)},
                        "status": {"S": "OPEN"}, "total": {"N": "42.50"}, "lines": {"L": [{"M": {"sku": {"S": "pen"}, "qty": {"N": "2"}}}]}});
                    (item, 160)
                })
                .collect(),
        })
    };
    let results = [
        ("ask", measure(&ask, iterations * 10)),
        ("items_200", measure(&window(200), iterations)),
        ("items_1000", measure(&window(1000), iterations.div_ceil(5).max(1))),
    ];
    let fields: Vec<String> =
        results.iter().map(|(name, (text, values))| format!("\"{name}\":[{text:.2},{values:.2}]")).collect();
    format!("{{{}}}", fields.join(","))
}
