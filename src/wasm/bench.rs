//! Baselines for scripts/bench (feature `bench` only, never in the published package): the
//! floors the parser's JS-facing costs are compared with.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::core::parser::{parse_raw, RawBlock, ToolSet};

/// Takes a chunk across the boundary and does nothing with it: the floor of one push.
#[wasm_bindgen(js_name = benchNoop)]
pub fn bench_noop(chunk: &str) -> usize {
    chunk.len()
}

/// The byte spans of every string a full parse returns (content, names, values), flat.
#[wasm_bindgen(js_name = benchStringSpans)]
pub fn bench_string_spans(text: &str) -> Vec<u32> {
    let tools = ToolSet::reference();
    let mut spans = Vec::new();
    let mut add = |start: usize, end: usize| spans.extend([start as u32, end as u32]);
    for block in parse_raw(text, &tools) {
        match block {
            RawBlock::Text { content, .. } => add(content.start, content.end),
            RawBlock::ToolUse(tool) => tool.params.iter().for_each(|p| add(p.value.start, p.value.end)),
        }
    }
    spans
}

/// Moves `text` into wasm and the given spans of it back out as JS strings, without
/// parsing: the floor of one `parseAssistantMessage`.
#[wasm_bindgen(js_name = benchCopyInOut)]
pub fn bench_copy_in_out(text: &str, spans: &[u32]) -> Array {
    spans
        .chunks_exact(2)
        .map(|pair| match pair {
            [start, end] => JsValue::from_str(text.get(*start as usize..*end as usize).unwrap_or_default()),
            _ => JsValue::UNDEFINED,
        })
        .collect()
}

/// Decodes a whole body in 4 KiB pieces without converting chunks to JS: the core's own
/// cost in wasm, to tell it apart from the boundary's.
#[wasm_bindgen(js_name = benchDecodeOnly)]
pub fn bench_decode_only(format: &str, body: &[u8]) -> usize {
    let Ok(format) = format.parse() else { return 0 };
    let mut decoder = crate::core::stream::StreamDecoder::new(format);
    let mut out = Vec::new();
    let mut count = 0;
    for piece in body.chunks(4096) {
        let _ = decoder.push(piece, &mut out);
        count += out.len();
        out.clear();
    }
    let _ = decoder.finish(&mut out);
    count + out.len()
}
