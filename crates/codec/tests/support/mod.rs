//! What the decoder tests share: decoding a body in pieces, decoding it every way it can
//! arrive, and the calls its chunks assemble to.

#![allow(dead_code, clippy::unwrap_used)]

use clew_codec::stream::{Chunk, Format, StreamDecoder, StreamError, ToolCallAssembler};
use serde_json::Value;

/// The chunks of `pieces` fed in order, and the first error (of a push or of the finish).
pub(crate) fn decode(format: Format, pieces: &[&[u8]]) -> (Vec<Chunk>, Option<StreamError>) {
    let mut decoder = StreamDecoder::new(format);
    let mut chunks = Vec::new();
    for piece in pieces {
        if let Err(error) = decoder.push(piece, &mut chunks) {
            return (chunks, Some(error));
        }
    }
    let error = decoder.finish(&mut chunks).err();
    (chunks, error)
}

/// Decodes `body` whole, split at every byte and one byte at a time (all must agree), and
/// checks that every chunk's JSON, as clew writes it, is the JSON serde gives it.
pub(crate) fn decode_every_way(format: Format, body: &str) -> (Vec<Chunk>, Option<StreamError>) {
    let bytes = body.as_bytes();
    let whole = decode(format, &[bytes]);
    for at in 0..=bytes.len() {
        let (a, b) = bytes.split_at(at);
        assert_eq!(decode(format, &[a, b]), whole, "split at byte {at}");
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode(format, &singles), whole, "one byte at a time");
    for chunk in &whole.0 {
        let mut text = String::new();
        chunk.write_json(&mut text);
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), serde_json::to_value(chunk).unwrap());
    }
    whole
}

/// Each call the chunks make, as (id, name, arguments text, signature), put together as the
/// loop does.
pub(crate) fn calls(chunks: &[Chunk]) -> Vec<(String, String, String, Option<String>)> {
    let mut assembler = ToolCallAssembler::new();
    for chunk in chunks {
        if let Chunk::ToolCalls { tool_call } = chunk {
            assembler.push(tool_call);
        }
    }
    assembler
        .calls()
        .iter()
        .map(|c| (c.id.clone(), c.name.clone(), c.arguments.raw().to_owned(), c.signature.clone()))
        .collect()
}
