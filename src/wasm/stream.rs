//! Model streams in JavaScript: `StreamDecoder` (synchronous, bytes in, chunks out),
//! `sseDecoder(format)` (a `TransformStream`), and `readModelStream(response, format)` (a
//! fetch `Response` to a stream of chunks, HTTP errors included).

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ReadableStream, TransformStream};

use super::args;
use super::decoding::decoder_functions;
use super::error::{stream_error, type_error, Code};
use crate::core::conversation::strings_json;
use crate::core::stream::{Chunk, Format, StreamDecoder as CoreDecoder, StreamError};

/// The kinds of chunk `clew_chunk` (js/boundary/chunks.js) builds, each with the fields it
/// takes as `a` to `e` (`None` leaves a member out). The JS side names the same numbers
/// (tests/seam.rs holds the two tables equal).
#[derive(Clone, Copy)]
#[repr(u32)]
enum ChunkKind {
    /// `a` the text.
    Text = 0,
    /// `a` the reasoning, `b` its signature, `c` redacted data, `d` encrypted content, `e` the
    /// summary as JSON.
    Reasoning = 1,
    /// A tool call's piece: `a` call id, `b` id, `c` name, `d` arguments, `e` signature.
    ToolCall = 2,
    /// `a` the reason, `b` the provider's own.
    Stop = 3,
    /// `a` the signature, `b` the phase.
    TextEnd = 4,
    /// `a` the item as JSON.
    Item = 5,
    /// A tool call with whole arguments: the fields of [`ChunkKind::ToolCall`].
    WholeToolCall = 6,
    /// `a` the whole chunk as JSON (the rare ones).
    JsonText = 7,
}

/// Chunks as a JS array (see [`chunks_into`]).
fn chunks_to_js(chunks: &[Chunk]) -> Array {
    let out = Array::new();
    chunks_into(chunks, &out);
    out
}

/// Appends chunk objects to `out`: one call into JS per chunk, which builds the object from
/// its fields (js/boundary/chunks.js `clew_chunk`). One `JSON.parse` of all the chunks as text
/// costs more when a push completes one event (a read loop that gets one event per read),
/// and no less for 4 KiB pieces (benches/wasm/wasm-streams.mjs).
pub(super) fn chunks_into(chunks: &[Chunk], out: &Array) {
    for chunk in chunks {
        let json;
        let (kind, a, b, c, d, e) = match chunk {
            Chunk::Text { text } => (ChunkKind::Text, Some(text.as_str()), None, None, None, None),
            Chunk::Reasoning { reasoning, signature, redacted_data, encrypted_content, summary } => {
                json = summary.as_deref().map(|parts| strings_json(parts).to_string());
                let (b, c, d) = (signature.as_deref(), redacted_data.as_deref(), encrypted_content.as_deref());
                (ChunkKind::Reasoning, Some(reasoning.as_str()), b, c, d, json.as_deref())
            }
            Chunk::ToolCalls { tool_call } => {
                let f = &tool_call.function;
                let kind = if tool_call.whole { ChunkKind::WholeToolCall } else { ChunkKind::ToolCall };
                let (a, b) = (tool_call.call_id.as_deref(), f.id.as_deref());
                (kind, a, b, f.name.as_deref(), f.arguments.as_deref(), tool_call.signature.as_deref())
            }
            Chunk::Stop { reason, raw } => (ChunkKind::Stop, Some(reason.as_str()), raw.as_deref(), None, None, None),
            Chunk::TextEnd { signature, phase } => {
                (ChunkKind::TextEnd, signature.as_deref(), phase.as_deref(), None, None, None)
            }
            Chunk::Item { item } => {
                json = Some(item.to_string());
                (ChunkKind::Item, json.as_deref(), None, None, None, None)
            }
            // NOTE: the rare chunks go as their JSON text: a compaction, and usage with a
            // context figure, applied edits or whole counts.
            Chunk::Compaction { .. } => {
                json = Some(chunk.to_json_text());
                (ChunkKind::JsonText, json.as_deref(), None, None, None, None)
            }
            Chunk::Usage(usage)
                if usage.context_tokens.is_some()
                    || usage.compaction_tokens.is_some()
                    || usage.applied_edits.is_some()
                    || usage.whole =>
            {
                json = Some(chunk.to_json_text());
                (ChunkKind::JsonText, json.as_deref(), None, None, None, None)
            }
            Chunk::Usage(usage) => {
                clew_usage(
                    out,
                    usage.input_tokens as f64,
                    usage.output_tokens as f64,
                    usage.cache_write_tokens.map(|n| n as f64),
                    usage.cache_read_tokens.map(|n| n as f64),
                    usage.reasoning_tokens.map(|n| n as f64),
                    // NOTE: as in the JSON the chunk is written as, a cost that is not finite is left out.
                    usage.total_cost.filter(|cost| cost.is_finite()),
                );
                continue;
            }
        };
        clew_chunk(out, kind as u32, a, b, c, d, e);
    }
}

/// Decodes a provider's response body, pushed in byte chunks, into chunk objects.
///
/// Chunk objects have the reference loop's shape: `{type:"text", text}`,
/// `{type:"reasoning", reasoning, signature?, redacted_data?, encrypted_content?, summary?}`,
/// `{type:"tool_calls", tool_call:{call_id, function:{id, name?, arguments?}, signature?,
/// whole?}}`, `{type:"usage", inputTokens, outputTokens, cacheWriteTokens?, cacheReadTokens?,
/// reasoningTokens?, totalCost?}`, `{type:"stop", reason, raw?}`, and for the formats that
/// need them `{type:"text_end", signature?, phase?}` and `{type:"item", item}`.
#[wasm_bindgen]
pub struct StreamDecoder {
    inner: CoreDecoder,
    out: Vec<Chunk>,
    buffer: Vec<u8>,
}

#[wasm_bindgen]
impl StreamDecoder {
    /// A decoder for `"anthropic"`, `"openai"`, `"openai-responses"`, `"gemini"` or `"chunks"`.
    ///
    /// @throws TypeError (code `CLEW_UNKNOWN_FORMAT`) for another name.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: JsValue) -> Result<Self, JsValue> {
        Ok(Self { inner: CoreDecoder::new(args::format(&format)?), out: Vec::new(), buffer: Vec::new() })
    }

    /// Decodes the next bytes; returns the chunks they completed.
    ///
    /// @throws ClewStreamError for a malformed stream or an error sent in it; TypeError
    /// (code `CLEW_INVALID_ARGUMENT`) when `bytes` is not a `Uint8Array` or `ArrayBuffer`.
    #[wasm_bindgen(unchecked_return_type = "Chunk[]")]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer")] bytes: JsValue,
    ) -> Result<Array, JsValue> {
        args::bytes(&bytes, "bytes", &mut self.buffer)?;
        let result = self.inner.push(&self.buffer, &mut self.out);
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

/// A `TransformStream` from a provider's response bytes to chunk objects. A malformed
/// stream, or an error the provider sent in it, errors the stream with a `ClewStreamError`.
///
/// @throws TypeError (code `CLEW_UNKNOWN_FORMAT`) for an unknown format.
#[wasm_bindgen(js_name = sseDecoder, unchecked_return_type = "TransformStream<Uint8Array | ArrayBuffer | string, Chunk>")]
pub fn sse_decoder(
    #[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: JsValue,
) -> Result<TransformStream, JsValue> {
    Ok(decoder_stream(args::format(&format)?))
}

fn decoder_stream(format: Format) -> TransformStream {
    let (push, finish, inbox) = decoder_functions(format);
    clew_transform(&push, &finish, &wasm_bindgen::memory(), inbox)
}

#[wasm_bindgen(module = "/js/boundary/chunks.js")]
extern "C" {
    /// Appends a chunk object of kind `kind` (a [`ChunkKind`]) to `out`, made of the fields
    /// `a` to `e` that kind lists; `None` leaves the member out.
    fn clew_chunk(
        out: &Array,
        kind: u32,
        a: Option<&str>,
        b: Option<&str>,
        c: Option<&str>,
        d: Option<&str>,
        e: Option<&str>,
    );
    /// Appends a usage chunk to `out`.
    fn clew_usage(
        out: &Array,
        input: f64,
        output: f64,
        write: Option<f64>,
        read: Option<f64>,
        reasoning: Option<f64>,
        cost: Option<f64>,
    );
    /// A `TransformStream` over the decoder's `push` and `finish` ([`decoder_functions`],
    /// writing into `memory` at `inbox`): the chunks decoded before an error are read before
    /// the error is.
    fn clew_transform(push: &JsValue, finish: &JsValue, memory: &JsValue, inbox: f64) -> TransformStream;
    /// `body` read into a stream of chunks by `push` and `finish` (as `clew_transform`'s);
    /// `null` when the body is locked or not a stream. A body that fails after its last byte
    /// still gives the chunks of its last event, and fails only if the decoder found the
    /// stream incomplete.
    fn clew_read_body(body: &JsValue, push: &JsValue, finish: &JsValue, memory: &JsValue, inbox: f64) -> JsValue;
}

#[wasm_bindgen(module = "/js/boundary/response.js")]
extern "C" {
    /// `{ok, status, retryAfter, body, used}` of a fetch `Response`, or `null` when the value
    /// is not one (read in JS: no getter can throw into wasm).
    fn clew_response(response: &JsValue) -> JsValue;
    /// The start of an error body as text: at most `limit` bytes, waiting at most
    /// `timeout_ms`; `""` when it cannot be read. NOTE: `catch`, although it never rejects:
    /// without it the binding unwraps the promise's outcome, with a panic message (about
    /// 100 B of formatting code).
    #[wasm_bindgen(catch)]
    async fn clew_error_body(body: &JsValue, limit: u32, timeout_ms: u32) -> Result<JsValue, JsValue>;
}

/// The most of an error response's body read for its message, and how long to wait for it.
const ERROR_BODY_LIMIT: u32 = 64 * 1024;
const ERROR_BODY_TIMEOUT_MS: u32 = 10_000;

/// Why a used `Response` cannot be read.
pub(super) const USED: &str = "the response body was already read or is locked";

/// What a model provider's answer holds, read without any getter running inside wasm.
pub(super) enum Opened {
    /// The body to read (a `ReadableStream`).
    Body(JsValue),
    /// The stream the response stands for failed: an HTTP error status (its body read for
    /// the message, at most 64 KB and 10 seconds) or a missing body.
    Failed(StreamError),
    /// Not a `Response`.
    NotAResponse,
    /// A `Response` whose body was already read or is locked.
    Used,
}

/// Opens a fetch `Response` for reading: its body, or the error its status stands for.
pub(super) async fn open_response(response: &JsValue) -> Opened {
    let response = clew_response(response);
    if response.is_null() {
        return Opened::NotAResponse;
    }
    let field = |key: &str| Reflect::get(&response, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
    if field("used").is_truthy() {
        return Opened::Used;
    }
    let body = field("body");
    if !field("ok").is_truthy() {
        let status = field("status").as_f64().unwrap_or(0.0).clamp(0.0, 999.0) as u16;
        let retry_after = field("retryAfter").as_string();
        let text = clew_error_body(&body, ERROR_BODY_LIMIT, ERROR_BODY_TIMEOUT_MS)
            .await
            .ok()
            .and_then(|t| t.as_string())
            .unwrap_or_default();
        return Opened::Failed(StreamError::from_http(
            status,
            retry_after.as_deref(),
            &text,
            Some(js_sys::Date::now()),
        ));
    }
    if body.is_null() || body.is_undefined() {
        return Opened::Failed(StreamError::Incomplete { expected: "a response body" });
    }
    Opened::Body(body)
}

/// Reads a fetch `Response` from a model provider as a stream of chunk objects.
///
/// A response with an error status rejects with a `ClewStreamError` (code
/// `CLEW_HTTP_ERROR`) carrying `status`, the provider's message and `kind`, `retryAfterMs`
/// from `retry-after`, and `retryable`; its body is read for the message up to 64 KB and
/// 10 seconds. Anything but an unread `Response` rejects with a `TypeError` (code
/// `CLEW_INVALID_ARGUMENT`).
#[wasm_bindgen(js_name = readModelStream, unchecked_return_type = "ReadableStream<Chunk>")]
pub async fn read_model_stream(
    #[wasm_bindgen(unchecked_param_type = "Response")] response: JsValue,
    #[wasm_bindgen(unchecked_param_type = "StreamFormat")] format: JsValue,
) -> Result<ReadableStream, JsValue> {
    let format = args::format(&format)?;
    let body = match open_response(&response).await {
        Opened::Body(body) => body,
        Opened::Failed(error) => return Err(stream_error(&error)),
        Opened::NotAResponse => {
            return Err(type_error(Code::InvalidArgument, "readModelStream(response, format) needs a fetch Response"))
        }
        Opened::Used => return Err(type_error(Code::InvalidArgument, USED)),
    };
    let (push, finish, inbox) = decoder_functions(format);
    let piped = clew_read_body(&body, &push, &finish, &wasm_bindgen::memory(), inbox);
    if piped.is_null() {
        return Err(type_error(Code::InvalidArgument, "the response body is not a readable stream"));
    }
    Ok(piped.unchecked_into())
}
