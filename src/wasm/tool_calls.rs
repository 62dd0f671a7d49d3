//! `ToolCallAssembler`: native tool calls put back together from `tool_calls` chunks, with
//! the parameters known so far while their JSON still streams.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::error::{type_error, Code};
use crate::core::json::Json;
use crate::core::stream::{NativeToolCall, ToolCall, ToolCallAssembler as CoreAssembler, ToolCallFunction};

fn text_field(object: &JsValue, key: &str) -> Option<String> {
    Reflect::get(object, &JsValue::from_str(key)).ok().and_then(|value| value.as_string())
}

/// Reads `{tool_call: {call_id?, function: {id?, name?, arguments?}}}` or the bare `tool_call`.
fn piece_from_js(chunk: &JsValue) -> Result<ToolCall, JsValue> {
    let bad = || type_error(Code::InvalidArgument, "push takes a tool_calls chunk or its tool_call object");
    if !chunk.is_object() {
        return Err(bad());
    }
    let inner =
        Reflect::get(chunk, &"tool_call".into()).ok().filter(JsValue::is_object).unwrap_or_else(|| chunk.clone());
    let function = Reflect::get(&inner, &"function".into()).ok().filter(JsValue::is_object).ok_or_else(bad)?;
    Ok(ToolCall {
        call_id: text_field(&inner, "call_id"),
        function: ToolCallFunction {
            id: text_field(&function, "id"),
            name: text_field(&function, "name"),
            arguments: text_field(&function, "arguments"),
        },
        signature: text_field(&inner, "signature"),
        whole: Reflect::get(&inner, &"whole".into()).ok().and_then(|v| v.as_bool()).unwrap_or(false),
    })
}

/// A call as `{id, name, params, complete, invalid}`, through JSON: a parameter named
/// `__proto__` is an own property, as `JSON.parse` makes it.
fn call_to_js(call: &NativeToolCall) -> JsValue {
    let mut members = Vec::new();
    for (name, value) in call.arguments.members() {
        members.push((name.to_owned(), Json::from(value)));
    }
    let params = Json::Object(members);
    let object = Json::object()
        .with("id", &call.id)
        .with("name", &call.name)
        .with("params", params)
        .with("complete", call.arguments.is_complete())
        .with("invalid", call.arguments.is_invalid());
    super::json_js::to_js(&object)
}

/// Puts native tool calls back together from their streamed `tool_calls` chunks.
///
/// Each call reads as `{id, name, params, complete, invalid}`: `params` holds every argument
/// known so far (strings as they are, other values as JSON text), including the string
/// being streamed, so a UI can show the call as it is written. Reading a call copies its
/// params; read only the call a push changed.
#[wasm_bindgen]
pub struct ToolCallAssembler {
    inner: CoreAssembler,
}

impl Default for ToolCallAssembler {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl ToolCallAssembler {
    /// An empty assembler, for one reply.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        Self { inner: CoreAssembler::new() }
    }

    /// Adds a `tool_calls` chunk (or its `tool_call`); returns the index of its call.
    ///
    /// @throws TypeError (code `CLEW_INVALID_ARGUMENT`) for anything else.
    pub fn push(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Chunk | { call_id?: string; function: { id?: string; name?: string; arguments?: string } }"
        )]
        chunk: &JsValue,
    ) -> Result<usize, JsValue> {
        Ok(self.inner.push(&piece_from_js(chunk)?))
    }

    /// Call `index`, or `undefined` past the end.
    #[wasm_bindgen(unchecked_return_type = "NativeToolCall | undefined")]
    pub fn call(&self, #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue) -> Result<JsValue, JsValue> {
        let index = super::args::index(&index, "index")?;
        Ok(self.inner.calls().get(index).map_or(JsValue::UNDEFINED, call_to_js))
    }

    /// Every call, in order of first piece.
    #[wasm_bindgen(unchecked_return_type = "NativeToolCall[]")]
    pub fn calls(&self) -> Array {
        let out = Array::new();
        for call in self.inner.calls() {
            out.push(&call_to_js(call));
        }
        out
    }

    /// The number of calls.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.calls().len()
    }
}
