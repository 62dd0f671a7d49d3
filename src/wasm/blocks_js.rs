//! Blocks as plain JavaScript objects, with the reference parser's field names.
//!
//! Blocks cross as JSON text parsed by the engine: each string is copied once, `params` is
//! a plain object (a param named `__proto__` is an own property, as `JSON.parse` makes it).

use crate::core::json::write_string;
use crate::core::parser::{BlockRef, RawBlock};
use wasm_bindgen::{JsCast, JsValue};

fn write_block(block: BlockRef<'_>, out: &mut String) {
    match block.raw() {
        RawBlock::Text { partial, .. } => {
            out.push_str("{\"type\":\"text\",\"content\":");
            write_string(out, block.text_content().unwrap_or_default());
            out.push_str(if *partial { ",\"partial\":true}" } else { ",\"partial\":false}" });
        }
        RawBlock::ToolUse(tool) => {
            out.push_str("{\"type\":\"tool_use\",\"name\":");
            write_string(out, block.tool_name().unwrap_or_default());
            out.push_str(",\"params\":{");
            for (i, (name, value)) in block.params().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, name);
                out.push(':');
                write_string(out, value);
            }
            out.push_str(if tool.partial { "},\"partial\":true" } else { "},\"partial\":false" });
            out.push_str(",\"isNativeToolCall\":false}");
        }
    }
}

/// One block as a JS object.
pub(crate) fn block_to_js(block: BlockRef<'_>) -> JsValue {
    let mut json = String::new();
    write_block(block, &mut json);
    // NOTE: the text written above is always valid JSON; `undefined` would only stand for
    // an impossible error, never a panic.
    js_sys::JSON::parse(&json).unwrap_or(JsValue::UNDEFINED)
}

/// Blocks as a JS array.
pub(crate) fn blocks_to_js<'a>(blocks: impl Iterator<Item = BlockRef<'a>>) -> js_sys::Array {
    let mut json = String::from("[");
    for (i, block) in blocks.enumerate() {
        if i > 0 {
            json.push(',');
        }
        write_block(block, &mut json);
    }
    json.push(']');
    js_sys::JSON::parse(&json).map_or_else(|_| js_sys::Array::new(), JsCast::unchecked_into)
}
