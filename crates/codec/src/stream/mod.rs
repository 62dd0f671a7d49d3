//! Model streams: a provider's response body (bytes) to the loop's chunks.
//!
//! Layers, each usable alone: [`lines`] (bytes to lines), [`sse`] (lines to events), one
//! decoder per provider format behind [`StreamDecoder`] (events to [`Chunk`]s), then
//! [`PartialJsonObject`] and [`ToolCallAssembler`] for native tool calls still streaming.
//! [`model`] prices usage (the `clew` crate adds the request builders). Nothing here does IO:
//! the binding feeds bytes in and sends requests out.

mod anthropic;
mod chunk;
mod chunk_json;
mod chunks_format;
mod decoder;
mod error;
mod gemini;
mod json;
pub mod lines;
pub mod model;
mod openai;
mod partial_json;
mod responses;
pub mod sse;
mod tool_calls;

#[cfg(test)]
mod tests;

pub use chunk::{Chunk, ToolCall, ToolCallFunction, Usage};
pub use decoder::{Format, StreamDecoder, UnknownFormat};
pub use error::StreamError;
pub use partial_json::PartialJsonObject;
pub use sse::SseLimits;
pub use tool_calls::{NativeToolCall, ToolCallAssembler};

/// Longest excerpt of a body or line quoted in an error, in characters.
const PREVIEW_CHARS: usize = 240;

/// `bytes` as text for an error message: decoded lossily and cut to a sane length.
pub(crate) fn preview(bytes: &[u8]) -> String {
    let cut = bytes.get(..PREVIEW_CHARS * 4).unwrap_or(bytes);
    let text = clew_base::utf8::lossy(cut);
    let mut chars = text.chars();
    let mut out: String = chars.by_ref().take(PREVIEW_CHARS).collect();
    if chars.next().is_some() || cut.len() < bytes.len() {
        out.push('…');
    }
    out
}
