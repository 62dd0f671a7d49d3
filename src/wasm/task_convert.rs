//! The Task's values across the boundary: messages, outcomes, answers, tool results, images.

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use crate::core::agent::{
    transcript_entry, AskAnswer, AskResponse, HookResult, Message, Outcome, TaskUsage, ToolOutput,
};
use crate::core::conversation::ImageSource;
use crate::core::json::Json;

fn set(target: &Object, key: &str, value: &JsValue) {
    // NOTE: setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

/// `object[key]`, or `undefined` for a primitive or a throwing getter.
///
/// NOTE: primitives are checked here, not left to `Reflect.get` to throw: every exception
/// that crosses into wasm costs a slot of the externref table (seen as a leak of about one
/// slot per sync tool call before this check).
pub(super) fn get(object: &JsValue, key: &str) -> JsValue {
    if !(object.is_object() || object.is_function()) {
        return JsValue::UNDEFINED;
    }
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// Images given as data URLs or web addresses; anything else is skipped.
///
/// Read through JSON, so no getter of the user's array runs inside wasm; anything but an
/// array of strings gives no images.
pub(super) fn images_from_js(value: &JsValue) -> Vec<ImageSource> {
    if value.is_undefined() || value.is_null() {
        return Vec::new();
    }
    let Ok(Json::Array(items)) = super::json_js::from_js(value) else { return Vec::new() };
    items
        .into_iter()
        .filter_map(|item| match item {
            Json::String(text) => Some(ImageSource::from_url_text(&text)),
            _ => None,
        })
        .collect()
}

/// A transcript entry's object, parsed from the core's one writer of its shape.
pub(super) fn message_to_js(message: &Message) -> JsValue {
    js_sys::JSON::parse(&transcript_entry(message)).unwrap_or(JsValue::NULL)
}

/// `{ status, result?, error?: ClewTaskError }`.
pub(super) fn outcome_to_js(outcome: &Outcome) -> JsValue {
    let out = Object::new();
    let error = |code: &str, message: &str| super::error::task_error(code, message);
    match outcome {
        Outcome::Completed { result } => {
            set(&out, "status", &"completed".into());
            set(&out, "result", &JsValue::from_str(result));
        }
        Outcome::Ended { code, message } => {
            set(&out, "status", &"ended".into());
            set(&out, "error", &error(code, message));
        }
        Outcome::Aborted { reason } => {
            set(&out, "status", &"aborted".into());
            set(&out, "error", &error("CLEW_ABORTED", reason));
        }
        Outcome::Failed { code, message } => {
            set(&out, "status", &"failed".into());
            set(&out, "error", &error(code, message));
        }
    }
    out.into()
}

/// Tool parameters as a plain object.
pub(super) fn params_to_js(params: &[(String, String)]) -> JsValue {
    let out = Object::new();
    for (name, value) in params {
        set(&out, name, &JsValue::from_str(value));
    }
    out.into()
}

/// An ask's answer; anything unreadable declines.
pub(super) fn answer_from_js(value: &JsValue) -> AskAnswer {
    let response = match get(value, "response").as_string().as_deref() {
        Some("yesButtonClicked") => AskResponse::Yes,
        Some("messageResponse") => AskResponse::Message,
        _ => AskResponse::No,
    };
    AskAnswer {
        response,
        text: get(value, "text").as_string().unwrap_or_default(),
        images: images_from_js(&get(value, "images")),
    }
}

/// A tool's return value: a string or `{ text, images? }`; anything else becomes text.
pub(super) fn tool_output_from_js(value: &JsValue) -> ToolOutput {
    if let Some(text) = value.as_string() {
        return ToolOutput::text(text);
    }
    if value.is_undefined() || value.is_null() {
        return ToolOutput::text("");
    }
    let text = get(value, "text");
    if let Some(text) = text.as_string() {
        let is_error = get(value, "isError").is_truthy();
        return ToolOutput { text, images: images_from_js(&get(value, "images")), is_error };
    }
    let json = js_sys::JSON::stringify(value).ok().and_then(|s| s.as_string()).unwrap_or_default();
    ToolOutput::text(json)
}

/// A hook's return value: `{ cancel?, context? }` (anything else: go on).
pub(super) fn hook_from_js(value: &JsValue) -> HookResult {
    if !value.is_object() {
        return HookResult::default();
    }
    HookResult { cancel: get(value, "cancel").as_bool().unwrap_or(false), context: get(value, "context").as_string() }
}

/// `{ inputTokens, outputTokens, cacheWriteTokens, cacheReadTokens, totalCost, requests }`.
pub(super) fn usage_to_js(usage: &TaskUsage) -> JsValue {
    let out = Object::new();
    set(&out, "inputTokens", &JsValue::from_f64(usage.input_tokens as f64));
    set(&out, "outputTokens", &JsValue::from_f64(usage.output_tokens as f64));
    set(&out, "cacheWriteTokens", &JsValue::from_f64(usage.cache_write_tokens as f64));
    set(&out, "cacheReadTokens", &JsValue::from_f64(usage.cache_read_tokens as f64));
    set(&out, "totalCost", &JsValue::from_f64(usage.total_cost));
    set(&out, "requests", &JsValue::from_f64(usage.requests as f64));
    out.into()
}
