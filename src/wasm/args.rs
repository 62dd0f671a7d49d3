//! Arguments read from JavaScript values: the wrong type is a `TypeError` with a code
//! naming the argument, never a trap. Exported functions take `JsValue` (typed for
//! TypeScript with `unchecked_param_type`) and read it here, because the generated glue
//! would hand a number or an object straight to code that expects a string or bytes.

use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use super::error::{type_error, Code};
use crate::core::stream::Format;

#[wasm_bindgen]
extern "C" {
    /// `array`'s bytes written over `slice` (`Uint8Array.prototype.set` on a view of it):
    /// js-sys's `copy_to` without its length assertion, whose panic message brings about
    /// 500 B of formatting code. The slice is made as long as the array first.
    #[wasm_bindgen(js_namespace = Uint8Array, js_name = "prototype.set.call")]
    fn copy_into(slice: &mut [u8], array: &Uint8Array);
}

/// What a value is, for an error message (`typeof`, which no value can make throw).
fn kind(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}

/// `value` as a string, or a `TypeError` saying which argument (`what`) it is.
pub(crate) fn text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| type_error(Code::InvalidArgument, &format!("{what} must be a string, not {}", kind(value))))
}

/// Bytes from a `Uint8Array` or an `ArrayBuffer` (a detached one holds none), copied into
/// `buffer`.
pub(crate) fn bytes(value: &JsValue, what: &str, buffer: &mut Vec<u8>) -> Result<(), JsValue> {
    let view;
    let array = if let Some(array) = value.dyn_ref::<Uint8Array>() {
        array
    } else if let Some(data) = value.dyn_ref::<ArrayBuffer>() {
        // NOTE: a detached ArrayBuffer has no bytes, and a view on it cannot be made.
        if data.byte_length() == 0 {
            buffer.clear();
            return Ok(());
        }
        view = Uint8Array::new(data);
        &view
    } else {
        buffer.clear();
        let message = format!("{what} must be a Uint8Array or an ArrayBuffer, not {}", kind(value));
        return Err(type_error(Code::InvalidArgument, &message));
    };
    // NOTE: the buffer is reused from call to call, so only the bytes past its old length
    // are zeroed (at opt-level "z" that runs byte by byte); `copy_to` overwrites them all.
    buffer.resize(array.length() as usize, 0);
    copy_into(buffer, array);
    Ok(())
}

/// Bytes as [`bytes`] reads them, or a string's UTF-8.
pub(crate) fn bytes_or_text(value: &JsValue, what: &str, buffer: &mut Vec<u8>) -> Result<(), JsValue> {
    match value.as_string() {
        Some(text) => {
            buffer.clear();
            buffer.extend_from_slice(text.as_bytes());
            Ok(())
        }
        None => bytes(value, what, buffer).map_err(|_| {
            let message = format!("{what} must be a Uint8Array, an ArrayBuffer or a string, not {}", kind(value));
            type_error(Code::InvalidArgument, &message)
        }),
    }
}

/// An index (a whole number 0 or more); one past `usize` reads as past the end.
pub(crate) fn index(value: &JsValue, what: &str) -> Result<usize, JsValue> {
    match value.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(usize::try_from(n as u64).unwrap_or(usize::MAX)),
        _ => Err(type_error(Code::InvalidArgument, &format!("{what} must be a whole number, 0 or more"))),
    }
}

/// A stream format name.
pub(crate) fn format(value: &JsValue) -> Result<Format, JsValue> {
    let Some(name) = value.as_string() else {
        let message = format!(
            "format must be \"anthropic\", \"openai\", \"openai-responses\", \"gemini\" or \"chunks\", not {}",
            kind(value)
        );
        return Err(type_error(Code::UnknownFormat, &message));
    };
    name.parse()
        .map_err(|error: crate::core::stream::UnknownFormat| type_error(Code::UnknownFormat, &error.to_string()))
}
