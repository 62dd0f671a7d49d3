//! `buildRequest` and `modelCost`: request building and pricing for JavaScript. Options
//! cross as JSON (`JSON.stringify` then the core's reader), which keeps the binding small.

use wasm_bindgen::prelude::*;

use super::error::{type_error, Code};
use super::json_js;
use crate::core::json::Json;
use crate::core::request::{build_request as build, model_info_from_json, usage_from_json, ModelRequest};

/// Reads plain data `value` with `read`, or throws a `TypeError` naming `what`.
fn read_js<T>(value: &JsValue, what: &str, read: impl FnOnce(&Json, &str) -> Result<T, String>) -> Result<T, JsValue> {
    let json =
        json_js::from_js(value).map_err(|error| type_error(Code::InvalidArgument, &format!("{what} {error}")))?;
    read(&json, what).map_err(|error| type_error(Code::InvalidArgument, &error))
}

/// Builds the fetch request (`{url, method, headers, body}`) for a model call in
/// `"anthropic"` or `"openai"` format: streaming, with usage reporting on.
///
/// @throws TypeError (code `CLEW_INVALID_ARGUMENT` or `CLEW_UNKNOWN_FORMAT`).
#[wasm_bindgen(js_name = buildRequest, unchecked_return_type = "HttpRequest")]
pub fn build_request(
    #[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ModelRequest")] request: JsValue,
) -> Result<JsValue, JsValue> {
    let format = super::args::format(&format)?;
    let request = read_js(&request, "request", |json, _| ModelRequest::from_json(json))?;
    Ok(json_js::to_js(&build(format, &request).to_json()))
}

/// The cost of `usage` in US dollars: its reported `totalCost`, else its counts times the
/// model's prices (per million tokens).
///
/// @throws TypeError (code `CLEW_INVALID_ARGUMENT`).
#[wasm_bindgen(js_name = modelCost)]
pub fn model_cost(
    #[wasm_bindgen(unchecked_param_type = "ModelInfo")] info: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Usage")] usage: JsValue,
) -> Result<f64, JsValue> {
    let info = read_js(&info, "info", model_info_from_json)?;
    let usage = read_js(&usage, "usage", usage_from_json)?;
    Ok(info.cost(&usage))
}
