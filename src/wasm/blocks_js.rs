//! Blocks as plain JavaScript objects, with the reference parser's field names.
//!
//! Each string is copied once, straight from the parser's text into a JS string (a JSON
//! round trip would copy and scan a long `content` three times); `params` is a plain object
//! whose parameters are defined, not assigned, so one named `__proto__` is an own property,
//! as `JSON.parse` makes it.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

use crate::core::parser::{BlockRef, RawBlock};

#[wasm_bindgen::prelude::wasm_bindgen(module = "/js/boundary/data.js")]
extern "C" {
    /// `Object.defineProperty(object, key, {value, enumerable, writable, configurable})`.
    fn clew_define(object: &Object, key: &str, value: &JsValue);
}

fn set(object: &Object, key: &str, value: &JsValue) {
    // NOTE: setting a property of a fresh plain object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// One block as a JS object.
pub(crate) fn block_to_js(block: BlockRef<'_>) -> JsValue {
    let out = Object::new();
    match block.raw() {
        RawBlock::Text { partial, .. } => {
            set(&out, "type", &JsValue::from_str("text"));
            set(&out, "content", &JsValue::from_str(block.text_content().unwrap_or_default()));
            set(&out, "partial", &JsValue::from_bool(*partial));
        }
        RawBlock::ToolUse(tool) => {
            let params = Object::new();
            for (name, value) in block.params() {
                clew_define(&params, name, &JsValue::from_str(value));
            }
            set(&out, "type", &JsValue::from_str("tool_use"));
            set(&out, "name", &JsValue::from_str(block.tool_name().unwrap_or_default()));
            set(&out, "params", &params);
            set(&out, "partial", &JsValue::from_bool(tool.partial));
            set(&out, "isNativeToolCall", &JsValue::FALSE);
        }
    }
    out.into()
}

/// Blocks as a JS array.
pub(crate) fn blocks_to_js<'a>(blocks: impl Iterator<Item = BlockRef<'a>>) -> Array {
    blocks.map(block_to_js).collect()
}
