//! Plain data across the boundary as JSON text: `JSON.stringify` then the core's reader on
//! the way in, the core's writer then `JSON.parse` on the way out. One call each way, and
//! no serde in the wasm.

use wasm_bindgen::prelude::*;

use crate::core::json::Json;

#[wasm_bindgen(module = "/js/boundary/data.js")]
extern "C" {
    /// `JSON.stringify(value)`, or `{bad: key}` for a NaN or infinite number, or `{error}`
    /// (a cycle, a BigInt, a throwing getter or proxy): no exception reaches wasm.
    fn clew_stringify(value: &JsValue) -> JsValue;
}

/// `value` (plain data) as JSON; `Err` with the reason when it cannot be written as JSON
/// (a `BigInt`, a cycle, a throwing getter), holds a NaN or infinite number (which
/// `JSON.stringify` would quietly turn into `null`), or is `undefined`.
pub(crate) fn from_js(value: &JsValue) -> Result<Json, String> {
    let text = text_from_js(value)?;
    Json::parse(&text).map_err(|error| error.to_string())
}

/// `value` (plain data) as JSON text, with the errors of [`from_js`].
pub(crate) fn text_from_js(value: &JsValue) -> Result<String, String> {
    let result = clew_stringify(value);
    let Some(text) = result.as_string() else {
        let field = |key: &str| js_sys::Reflect::get(&result, &JsValue::from_str(key)).ok().and_then(|v| v.as_string());
        return Err(match field("bad") {
            Some(key) if key.is_empty() => "must be a finite number".to_owned(),
            Some(key) => format!("has a number that is not finite at `{key}`"),
            None => field("error").unwrap_or_else(|| "is not plain data".to_owned()),
        });
    };
    Ok(text)
}

/// `value` as a JS value (objects, arrays, strings, numbers).
pub(crate) fn to_js(value: &Json) -> JsValue {
    // NOTE: the core writes valid JSON, so parsing cannot fail.
    js_sys::JSON::parse(&json_text(value)).unwrap_or(JsValue::NULL)
}

/// `value` as JSON text.
pub(crate) fn json_text(value: &Json) -> String {
    let mut text = String::new();
    value.write(&mut text);
    text
}
