//! A stream decoder as two JavaScript functions, `push` and `finish`, fed through an inbox
//! (inbox.rs): what `sseDecoder` and `readModelStream` read with (stream.rs, js/boundary/
//! chunks.js).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::args;
use super::error::stream_error;
use super::inbox::{room_of, INBOX_BYTES};
use super::stream::chunks_into;
use crate::core::stream::{Chunk, Format, StreamDecoder as CoreDecoder};

/// A decoder's state between the pieces its JS functions push.
struct Decoding {
    decoder: CoreDecoder,
    chunks: Vec<Chunk>,
    /// Where JS writes a piece that fits before pushing its length.
    inbox: Vec<u8>,
    /// A piece that did not fit, or was not bytes, copied here; it becomes the inbox when it
    /// is the larger.
    spill: Vec<u8>,
}

/// The decoder as two JS functions and where its inbox is first (`room_of`):
/// `push(length, value, out)` takes a piece (`length` bytes already written at the inbox, or
/// with `length` -1 the piece itself) and appends the chunks it completed to `out`; it
/// answers where the inbox now is, or the error that ends the stream. `finish(out)` appends
/// the last chunks and answers the error, if any. NOTE: one crossing per piece, its bytes
/// copied by one `set` on a view of the wasm's memory, and no result object (js/boundary/
/// chunks.js `feeder`; about 0.9x an `sseDecoder`'s events, benches/wasm/compare.mjs).
pub(super) fn decoder_functions(format: Format) -> (JsValue, JsValue, f64) {
    let inbox = vec![0; INBOX_BYTES];
    let first = room_of(&inbox);
    let state = Rc::new(RefCell::new(Decoding {
        decoder: CoreDecoder::new(format),
        chunks: Vec::new(),
        inbox,
        spill: Vec::new(),
    }));
    let pushing = Rc::clone(&state);
    let push =
        Closure::<dyn FnMut(i32, JsValue, Array) -> JsValue>::new(move |length: i32, piece: JsValue, out: Array| {
            let mut guard = pushing.borrow_mut();
            let Decoding { decoder, chunks, inbox, spill } = &mut *guard;
            let bytes = match usize::try_from(length) {
                Ok(length) => inbox.get(..length).unwrap_or_default(),
                Err(_) => match args::bytes_or_text(&piece, "a chunk", spill) {
                    Ok(()) => spill.as_slice(),
                    Err(error) => return error,
                },
            };
            let outcome = decoder.push(bytes, chunks);
            chunks_into(chunks, &out);
            chunks.clear();
            if let Err(error) = outcome {
                return stream_error(&error);
            }
            if spill.len() > inbox.len() {
                std::mem::swap(inbox, spill);
            }
            JsValue::from(room_of(inbox))
        });
    let finish = Closure::<dyn FnMut(Array) -> JsValue>::new(move |out: Array| {
        let mut guard = state.borrow_mut();
        let Decoding { decoder, chunks, .. } = &mut *guard;
        let outcome = decoder.finish(chunks);
        chunks_into(chunks, &out);
        chunks.clear();
        outcome.err().map_or(JsValue::UNDEFINED, |error| stream_error(&error))
    });
    (push.into_js_value(), finish.into_js_value(), first)
}
