//! `parseAssistantMessage` and the `AssistantMessageParser` class.

use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::args;
use super::blocks_js::{block_to_js, blocks_to_js};
use super::error::{type_error, Code};
use super::types::ToolSetSpecJs;
use crate::core::json::Json;
use crate::core::parser::{parse_raw, BlockRef, IncrementalParser, ToolSet};

thread_local! {
    /// The reference set, shared by every parser that uses it.
    static REFERENCE_TOOLS: Rc<ToolSet> = Rc::new(ToolSet::reference());
}

/// The shared reference set (`try_with`: see `js_call::swallow`).
fn reference_tools() -> Rc<ToolSet> {
    REFERENCE_TOOLS.try_with(Rc::clone).unwrap_or_else(|_| Rc::new(ToolSet::reference()))
}

const TOOL_SET_SHAPE: &str = "tools must be { tools: string[], params: string[] }";

/// The tool set named by an optional `ToolSetSpec` argument, read through JSON (no getter
/// of the user's object runs inside wasm).
fn tool_set(spec: Option<ToolSetSpecJs>) -> Result<Rc<ToolSet>, JsValue> {
    let Some(spec) = spec.map(JsValue::from).filter(|value| !value.is_undefined() && !value.is_null()) else {
        return Ok(reference_tools());
    };
    let bad = |why: &str| type_error(Code::InvalidArgument, &format!("{TOOL_SET_SHAPE}: {why}"));
    let json = super::json_js::from_js(&spec).map_err(|e| bad(&e))?;
    let list = |field: &str| -> Result<Vec<String>, JsValue> {
        let items =
            json.get(field).and_then(Json::as_array).ok_or_else(|| bad(&format!("`{field}` is not an array")))?;
        let mut names = Vec::with_capacity(items.len());
        for item in items {
            names.push(item.as_str().ok_or_else(|| bad(&format!("`{field}` holds a non-string")))?.to_owned());
        }
        Ok(names)
    };
    let (tools, params) = (list("tools")?, list("params")?);
    ToolSet::from_names(&tools, &params)
        .map(Rc::new)
        .map_err(|error| type_error(Code::InvalidToolSet, &error.to_string()))
}

/// Parses a whole assistant message into blocks, exactly as the reference loop's
/// `parseAssistantMessageV2` (without the random `call_id`).
///
/// @param text - the model's text.
/// @param tools - which tags exist; the reference tool set when omitted.
/// @throws TypeError (code `CLEW_INVALID_ARGUMENT` or `CLEW_INVALID_TOOL_SET`) for a bad `tools`.
#[wasm_bindgen(js_name = parseAssistantMessage, unchecked_return_type = "Block[]")]
pub fn parse_assistant_message(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    tools: Option<ToolSetSpecJs>,
) -> Result<Array, JsValue> {
    let text = args::text(&text, "text")?;
    let parse = |tools: &ToolSet| {
        let raw = parse_raw(&text, tools);
        blocks_to_js(raw.iter().map(|block| BlockRef::new(block, &text, tools)))
    };
    match tools {
        None => Ok(parse(&reference_tools())),
        spec => Ok(parse(&*tool_set(spec)?)),
    }
}

/// Parses an assistant message as it streams in.
///
/// After every `push`, `blocks()` equals `parseAssistantMessage` of all the text pushed so
/// far, whatever the chunk boundaries. Each push costs time proportional to its chunk, not
/// to the message.
///
/// The package's entry modules export a subclass (js/parser.js) whose `push` also rejoins a
/// surrogate pair split between two chunks, which a string crossing into wasm cannot carry.
#[wasm_bindgen]
pub struct AssistantMessageParser {
    inner: IncrementalParser,
}

#[wasm_bindgen]
impl AssistantMessageParser {
    /// A parser of the given tool set (the reference tool set when omitted).
    ///
    /// @throws TypeError (code `CLEW_INVALID_ARGUMENT` or `CLEW_INVALID_TOOL_SET`) for a bad `tools`.
    #[wasm_bindgen(constructor)]
    pub fn new(tools: Option<ToolSetSpecJs>) -> Result<Self, JsValue> {
        Ok(Self { inner: IncrementalParser::new(tool_set(tools)?) })
    }

    /// Appends a chunk of the model's text and parses it. Returns the index of the first
    /// block that changed, or the block count when none changed: blocks before it are as
    /// they were.
    ///
    /// NOTE: takes `&str` for speed (no value handle per push); the exported subclass
    /// (js/parser.js) checks that `chunk` is a string before it gets here.
    pub fn push(&mut self, chunk: &str) -> usize {
        self.inner.push(chunk)
    }

    /// Every block.
    #[wasm_bindgen(unchecked_return_type = "Block[]")]
    pub fn blocks(&self) -> Array {
        blocks_to_js(self.inner.blocks())
    }

    /// Block `index`, or `undefined` past the end.
    ///
    /// @throws TypeError (code `CLEW_INVALID_ARGUMENT`) when `index` is not a whole number.
    #[wasm_bindgen(unchecked_return_type = "Block | undefined")]
    pub fn block(&self, #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue) -> Result<JsValue, JsValue> {
        Ok(self.inner.block(args::index(&index, "index")?).map_or(JsValue::UNDEFINED, block_to_js))
    }

    /// The number of blocks.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.len()
    }

    /// All the text pushed so far.
    pub fn text(&self) -> String {
        self.inner.text().to_owned()
    }
}
