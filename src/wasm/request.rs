//! `buildRequest` and `modelCost`: request building and pricing for JavaScript. Options
//! cross as JSON (`JSON.stringify` then serde), which keeps the binding small.

use wasm_bindgen::prelude::*;

use super::error::{type_error, Code};
use super::stream::parse_format;
use crate::core::stream::model::ModelInfo;
use crate::core::stream::request::{build_request as build, ModelRequest};
use crate::core::stream::Usage;

fn from_js<T: serde::de::DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    let json = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .ok_or_else(|| type_error(Code::InvalidArgument, &format!("{what} must be a plain object")))?;
    serde_json::from_str(&json).map_err(|error| type_error(Code::InvalidArgument, &format!("invalid {what}: {error}")))
}

/// Builds the fetch request (`{url, method, headers, body}`) for a model call in
/// `"anthropic"` or `"openai"` format: streaming, with usage reporting on.
///
/// @throws TypeError (code `CLEW_INVALID_ARGUMENT` or `CLEW_UNKNOWN_FORMAT`).
#[wasm_bindgen(js_name = buildRequest, unchecked_return_type = "HttpRequest")]
pub fn build_request(
    #[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: &str,
    #[wasm_bindgen(unchecked_param_type = "ModelRequest")] request: JsValue,
) -> Result<JsValue, JsValue> {
    let format = parse_format(format)?;
    let request: ModelRequest = from_js(&request, "request")?;
    let built = build(format, &request);
    let json = serde_json::to_string(&built).map_err(|error| type_error(Code::InvalidArgument, &error.to_string()))?;
    js_sys::JSON::parse(&json)
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
    let info: ModelInfo = from_js(&info, "model info")?;
    let usage: Usage = from_js(&usage, "usage")?;
    Ok(info.cost(&usage))
}
