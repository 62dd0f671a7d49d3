//! Plain data across the boundary as JSON text: `JSON.stringify` then the core's reader on
//! the way in, the core's writer then `JSON.parse` on the way out. One call each way, and
//! no serde in the wasm.

use wasm_bindgen::JsValue;

use crate::core::json::Json;

/// `value` (plain data) as JSON; `Err` with the reason when it cannot be written as JSON
/// (a `BigInt`, a cycle, a throwing getter) or is `undefined`.
pub(crate) fn from_js(value: &JsValue) -> Result<Json, String> {
    let text = js_sys::JSON::stringify(value)
        .map_err(|_| "cannot be written as JSON (a BigInt, a cycle or a throwing getter)".to_owned())?;
    let text = text.as_string().ok_or_else(|| "is not plain data".to_owned())?;
    Json::parse(&text).map_err(|error| error.to_string())
}

/// `value` as a JS value (objects, arrays, strings, numbers).
pub(crate) fn to_js(value: &Json) -> JsValue {
    let mut text = String::new();
    value.write(&mut text);
    // NOTE: the core writes valid JSON, so parsing cannot fail.
    js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL)
}
