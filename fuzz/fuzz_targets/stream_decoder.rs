//! The stream decoder for each format over random bytes and splits: no panic, and the
//! outcome (chunks and error) does not depend on where the body was split.
#![no_main]

use clew::stream::{Chunk, Format, StreamDecoder, StreamError};
use libfuzzer_sys::fuzz_target;

fn decode(format: Format, pieces: &[&[u8]]) -> (Vec<Chunk>, Option<StreamError>) {
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

fuzz_target!(|data: &[u8]| {
    let Some((&control, body)) = data.split_first() else { return };
    let format = [Format::Anthropic, Format::OpenAi, Format::Chunks][usize::from(control % 3)];
    let whole = decode(format, &[body]);
    let cut = usize::from(control / 3) * body.len() / 86;
    let (a, b) = body.split_at(cut.min(body.len()));
    assert_eq!(decode(format, &[a, b]), whole, "cut at {cut}");
    let bytes: Vec<&[u8]> = body.chunks(7).collect();
    assert_eq!(decode(format, &bytes), whole, "7-byte pieces");
});
