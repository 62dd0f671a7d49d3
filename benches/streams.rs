//! Native stream-decoding benchmarks (run by scripts/bench; prints a markdown table).
//!
//! Each body is fed in 4 KiB pieces (a typical network read) through the full decoder
//! (SSE framing, typed JSON parsing, chunk building). Beside it, in the same run: the floor
//! of framing alone (line splitting), and serde_json parsing each data line into an untyped
//! value (what a generic decoder would do). Times are the minimum over repeated runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs)]

mod common;

use std::hint::black_box;

use common::{mbps, min_time};

use clew::stream::lines::{LineSplitter, LineTooLong};
use clew::stream::{Format, StreamDecoder};

const PIECE: usize = 4096;

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    println!("| body | bytes | chunks out | clew decoder | per chunk | lines only (floor) | lines + serde_json::Value per data line |");
    println!("|---|---|---|---|---|---|---|");
    let bodies = [
        ("sse-anthropic-5000", Format::Anthropic),
        ("sse-openai-5000", Format::OpenAi),
        ("sse-responses-5000", Format::OpenAiResponses),
        ("sse-gemini-5000", Format::Gemini),
    ];
    for (name, format) in bodies {
        let body = std::fs::read(format!("{root}/benches/fixtures/{name}.txt")).unwrap();
        let mut count = 0;
        let decode = min_time(30, || {
            let mut decoder = StreamDecoder::new(format);
            let mut out = Vec::with_capacity(64);
            count = 0;
            for piece in body.chunks(PIECE) {
                decoder.push(piece, &mut out).unwrap();
                count += out.len();
                black_box(&out);
                out.clear();
            }
            decoder.finish(&mut out).unwrap();
            count += out.len();
        });
        let lines = min_time(30, || {
            let mut splitter = LineSplitter::new(1 << 20);
            let mut n = 0usize;
            let mut on_line = |line: &[u8]| -> Result<(), LineTooLong> {
                n += line.len();
                Ok(())
            };
            for piece in body.chunks(PIECE) {
                splitter.push(piece, &mut on_line).unwrap();
            }
            splitter.finish(&mut on_line).unwrap();
            black_box(n);
        });
        let untyped = min_time(30, || {
            let mut splitter = LineSplitter::new(1 << 20);
            let mut on_line = |line: &[u8]| -> Result<(), LineTooLong> {
                if let Some(data) = line.strip_prefix(b"data: ") {
                    black_box(serde_json::from_slice::<serde_json::Value>(data).ok());
                }
                Ok(())
            };
            for piece in body.chunks(PIECE) {
                splitter.push(piece, &mut on_line).unwrap();
            }
            splitter.finish(&mut on_line).unwrap();
        });
        println!(
            "| {name} | {} | {count} | {} ({:.3} ms) | {:.0} ns | {} | {} |",
            body.len(),
            mbps(body.len(), decode),
            decode.as_secs_f64() * 1e3,
            decode.as_secs_f64() * 1e9 / count as f64,
            mbps(body.len(), lines),
            mbps(body.len(), untyped),
        );
    }
}
