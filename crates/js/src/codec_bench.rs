//! The npm API's values crossing as JavaScript values (`serde-wasm-bindgen`) instead of JSON text,
//! for `benches/npm-api-values.mjs` only (built with `--features codec-bench`, never shipped): the
//! same operations as [`JsEngine::execute`] and [`crate::check`], measured side by side.

use super::{checked, error_object, JsEngine};
use serde::Serialize;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

fn to_js(value: &Value) -> Result<JsValue, JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(JsValue::from)
}

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

/// [`crate::check`] answering a JavaScript object.
#[wasm_bindgen(js_name = checkValues)]
pub fn check_values(text: &str, start_millis: Option<f64>) -> Result<JsValue, JsValue> {
    let design = checked(text, start_millis)?;
    let result = &design.checked.result;
    to_js(&json!({
        "source": design.source.describe(),
        "notes": design.notes,
        "verdict": result.verdict,
        "report": result,
        "markdown": dynalab_lab::workbook::report::markdown(result),
    }))
}
