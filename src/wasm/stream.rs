//! Model streams in JavaScript: `StreamDecoder` (synchronous, bytes in, chunks out),
//! `sseDecoder(format)` (a `TransformStream`), and `readModelStream(response, format)` (a
//! fetch `Response` to a stream of chunks, HTTP errors included).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStream, ReadableWritablePair, Response, TransformStream, TransformStreamDefaultController};

use super::error::{stream_error, type_error, Code};
use crate::core::stream::{Chunk, Format, StreamDecoder as CoreDecoder, StreamError};

/// The format named `name`, or a `TypeError`.
pub(super) fn parse_format(name: &str) -> Result<Format, JsValue> {
    name.parse()
        .map_err(|error: crate::core::stream::UnknownFormat| type_error(Code::UnknownFormat, &error.to_string()))
}

/// One chunk as a JS object.
fn chunk_to_js(chunk: &Chunk) -> JsValue {
    let mut json = String::new();
    chunk.write_json(&mut json);
    // NOTE: the core writes valid JSON, so parsing cannot fail.
    js_sys::JSON::parse(&json).unwrap_or(JsValue::UNDEFINED)
}

/// Many chunks as a JS array. They cross as one JSON text parsed by the engine, which
/// bench/wasm-streams.mjs measured about a fifth cheaper than building each object
/// through the boundary.
fn chunks_to_js(chunks: &[Chunk]) -> Array {
    if chunks.is_empty() {
        return Array::new();
    }
    let mut json = String::from("[");
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        chunk.write_json(&mut json);
    }
    json.push(']');
    js_sys::JSON::parse(&json).map_or_else(|_| Array::new(), JsCast::unchecked_into)
}

/// Decodes a provider's response body, pushed in byte chunks, into chunk objects.
///
/// Chunk objects have the reference loop's shape: `{type:"text", text}`,
/// `{type:"reasoning", reasoning, signature?, redacted_data?}`, `{type:"tool_calls",
/// tool_call:{call_id, function:{id, name?, arguments?}}}`, `{type:"usage", inputTokens,
/// outputTokens, cacheWriteTokens?, cacheReadTokens?, totalCost?}` and `{type:"stop", reason}`.
#[wasm_bindgen]
pub struct StreamDecoder {
    inner: CoreDecoder,
    out: Vec<Chunk>,
}

#[wasm_bindgen]
impl StreamDecoder {
    /// A decoder for `"anthropic"`, `"openai"` or `"chunks"`.
    ///
    /// @throws TypeError (code `CLEW_UNKNOWN_FORMAT`) for another name.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: &str) -> Result<Self, JsValue> {
        Ok(Self { inner: CoreDecoder::new(parse_format(format)?), out: Vec::new() })
    }

    /// Decodes the next bytes; returns the chunks they completed.
    ///
    /// @throws ClewStreamError for a malformed stream or an error sent in it.
    #[wasm_bindgen(unchecked_return_type = "Chunk[]")]
    pub fn push(&mut self, bytes: &[u8]) -> Result<Array, JsValue> {
        let result = self.inner.push(bytes, &mut self.out);
        self.take(result)
    }

    /// Ends the body; returns the last chunks.
    ///
    /// @throws ClewStreamError when the stream ended early or was not a stream.
    #[wasm_bindgen(unchecked_return_type = "Chunk[]")]
    pub fn finish(&mut self) -> Result<Array, JsValue> {
        let result = self.inner.finish(&mut self.out);
        self.take(result)
    }

    fn take(&mut self, result: Result<(), StreamError>) -> Result<Array, JsValue> {
        let chunks = chunks_to_js(&self.out);
        self.out.clear();
        match result {
            Ok(()) => Ok(chunks),
            Err(error) => {
                let js = stream_error(&error);
                // The chunks decoded before the error travel with it: nothing is lost.
                let _ = Reflect::set(&js, &JsValue::from_str("chunks"), &chunks);
                Err(js)
            }
        }
    }
}

/// Bytes of a stream chunk: a `Uint8Array`, an `ArrayBuffer` or a string.
pub(super) fn bytes_of(value: &JsValue, buffer: &mut Vec<u8>) -> Result<(), JsValue> {
    buffer.clear();
    if let Some(text) = value.as_string() {
        buffer.extend_from_slice(text.as_bytes());
    } else if value.is_instance_of::<Uint8Array>() || value.is_instance_of::<js_sys::ArrayBuffer>() {
        let view;
        let array = match value.dyn_ref::<Uint8Array>() {
            Some(array) => array,
            None => {
                view = Uint8Array::new(value);
                &view
            }
        };
        buffer.resize(array.length() as usize, 0);
        array.copy_to(buffer);
    } else {
        return Err(type_error(Code::InvalidArgument, "sseDecoder takes Uint8Array, ArrayBuffer or string chunks"));
    }
    Ok(())
}

/// A `TransformStream` from a provider's response bytes to chunk objects. A malformed
/// stream, or an error the provider sent in it, errors the stream with a `ClewStreamError`.
///
/// @throws TypeError (code `CLEW_UNKNOWN_FORMAT`) for an unknown format.
#[wasm_bindgen(js_name = sseDecoder, unchecked_return_type = "TransformStream<Uint8Array | ArrayBuffer | string, Chunk>")]
pub fn sse_decoder(
    #[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: &str,
) -> Result<TransformStream, JsValue> {
    let decoder = Rc::new(RefCell::new((CoreDecoder::new(parse_format(format)?), Vec::new(), Vec::new())));
    let emit =
        |controller: &TransformStreamDefaultController, chunks: &mut Vec<Chunk>, result: Result<(), StreamError>| {
            for chunk in chunks.drain(..) {
                controller.enqueue_with_chunk(&chunk_to_js(&chunk))?;
            }
            result.map_err(|error| stream_error(&error))
        };
    let state = Rc::clone(&decoder);
    let transform = Closure::<dyn FnMut(JsValue, TransformStreamDefaultController) -> Result<(), JsValue>>::new(
        move |piece: JsValue, controller: TransformStreamDefaultController| {
            let mut guard = state.borrow_mut();
            let (decoder, chunks, buffer) = &mut *guard;
            bytes_of(&piece, buffer)?;
            let result = decoder.push(buffer, chunks);
            emit(&controller, chunks, result)
        },
    );
    let flush = Closure::<dyn FnMut(TransformStreamDefaultController) -> Result<(), JsValue>>::new(
        move |controller: TransformStreamDefaultController| {
            let mut guard = decoder.borrow_mut();
            let (decoder, chunks, _) = &mut *guard;
            let result = decoder.finish(chunks);
            emit(&controller, chunks, result)
        },
    );
    let transformer = Object::new();
    Reflect::set(&transformer, &"transform".into(), &transform.into_js_value())?;
    Reflect::set(&transformer, &"flush".into(), &flush.into_js_value())?;
    TransformStream::new_with_transformer(&transformer)
}

/// Reads a fetch `Response` from a model provider as a stream of chunk objects.
///
/// A response with an error status rejects with a `ClewStreamError` (code
/// `CLEW_HTTP_ERROR`) carrying `status`, the provider's message and `kind`, `retryAfterMs`
/// from `retry-after`, and `retryable`.
#[wasm_bindgen(js_name = readModelStream, unchecked_return_type = "ReadableStream<Chunk>")]
pub async fn read_model_stream(
    response: Response,
    #[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: String,
) -> Result<ReadableStream, JsValue> {
    let transform = sse_decoder(&format)?;
    if !response.ok() {
        let retry_after = response.headers().get("retry-after").ok().flatten();
        let body = match response.text() {
            Ok(promise) => JsFuture::from(promise).await.ok().and_then(|text| text.as_string()).unwrap_or_default(),
            Err(_) => String::new(),
        };
        let error = StreamError::from_http(response.status(), retry_after.as_deref(), &body, Some(js_sys::Date::now()));
        return Err(stream_error(&error));
    }
    let Some(body) = response.body() else {
        return Err(stream_error(&StreamError::Incomplete { expected: "a response body" }));
    };
    Ok(body.pipe_through(transform.unchecked_ref::<ReadableWritablePair>()))
}
