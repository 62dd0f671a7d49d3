//! Blocks as plain JavaScript objects, with the reference parser's field names.
//!
//! Each string is copied once, straight from the parser's text into a JS string; `params`
//! is a plain object, not a `Map`.

use crate::core::parser::{BlockRef, RawBlock};
use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use wasm_bindgen::JsValue;

use super::SERIALIZER;

struct JsBlock<'a>(BlockRef<'a>);
struct JsParams<'a>(BlockRef<'a>);

impl Serialize for JsBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let block = &self.0;
        match block.raw() {
            RawBlock::Text { partial, .. } => {
                let mut out = serializer.serialize_struct("TextBlock", 3)?;
                out.serialize_field("type", "text")?;
                out.serialize_field("content", block.text_content().unwrap_or_default())?;
                out.serialize_field("partial", partial)?;
                out.end()
            }
            RawBlock::ToolUse(tool) => {
                let mut out = serializer.serialize_struct("ToolUseBlock", 5)?;
                out.serialize_field("type", "tool_use")?;
                out.serialize_field("name", block.tool_name().unwrap_or_default())?;
                out.serialize_field("params", &JsParams(*block))?;
                out.serialize_field("partial", &tool.partial)?;
                out.serialize_field("isNativeToolCall", &false)?;
                out.end()
            }
        }
    }
}

impl Serialize for JsParams<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (name, value) in self.0.params() {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// One block as a JS object.
pub(crate) fn block_to_js(block: BlockRef<'_>) -> JsValue {
    // NOTE: serializing strings, booleans and objects to JS cannot fail; `undefined` would
    // only stand for an impossible error, never a panic.
    JsBlock(block).serialize(&SERIALIZER).unwrap_or(JsValue::UNDEFINED)
}

/// Blocks as a JS array.
pub(crate) fn blocks_to_js<'a>(blocks: impl Iterator<Item = BlockRef<'a>>) -> js_sys::Array {
    blocks.map(block_to_js).collect()
}
