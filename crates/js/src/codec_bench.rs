//! The npm API's requests and responses crossing as JavaScript values (`serde-wasm-bindgen`)
//! against JSON text, and the check report as JSON text against values (what the package sends),
//! for `benches/npm-api-values.mjs` only (built with `--features codec-bench`, never shipped).

use super::{check_value, error_object, to_js, JsEngine};
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_class = RawEngine)]
impl JsEngine {
    /// [`JsEngine::execute`] taking the request as a JavaScript object and answering one.
    #[wasm_bindgen(js_name = executeValues)]
    pub fn execute_values(&mut self, operation: &str, request: JsValue) -> Result<JsValue, JsValue> {
        let request: Value = serde_wasm_bindgen::from_value(request)?;
        let response = self.engine.execute_value(operation, &request).map_err(|e| error_object(&e))?;
        to_js(&response)
    }
}

/// [`crate::check`] answering JSON text, as the package did before.
#[wasm_bindgen(js_name = checkText)]
pub fn check_text(text: &str, start_millis: Option<f64>) -> Result<String, JsValue> {
    Ok(check_value(text, start_millis)?.to_string())
}
