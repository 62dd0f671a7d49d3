//! Native parser benchmarks (run by scripts/bench; prints a markdown table).
//!
//! For each workload, side by side in one run: the incremental parser fed chunk by chunk,
//! the reference's strategy (a full reparse of the accumulated text after every chunk), one
//! full parse of the whole text, and two floors no parser can beat on the same text: a plain
//! byte loop and memchr counting '<'. Times are the minimum over repeated runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs)]

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{mbps, min_time};

use clew::parser::{parse_raw, IncrementalParser, ToolSet};

fn chunks(path: &str) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["chunks"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned()).collect()
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let tools = ToolSet::reference();
    let root = env!("CARGO_MANIFEST_DIR");
    println!("| workload | incremental, chunk by chunk | reparse on every chunk | ratio | one full parse | byte-loop floor | memchr('<') floor |");
    println!("|---|---|---|---|---|---|---|");
    for name in ["stream-50k", "stream-200k"] {
        let chunks = chunks(&format!("{root}/tests/fixtures/{name}.json"));
        let text: String = chunks.concat();
        let bytes = text.len();

        let incremental = min_time(50, || {
            let mut parser = IncrementalParser::new(tools.clone());
            for chunk in &chunks {
                black_box(parser.push(chunk));
            }
            black_box(parser.len());
        });
        let reparse = min_time(if bytes > 100_000 { 2 } else { 5 }, || {
            let mut accumulated = String::new();
            for chunk in &chunks {
                accumulated.push_str(chunk);
                black_box(parse_raw(&accumulated, &tools));
            }
        });
        let full = min_time(200, || {
            black_box(parse_raw(black_box(&text), &tools));
        });
        let byte_loop = min_time(200, || {
            let mut sum = 0u64;
            for &b in black_box(text.as_bytes()) {
                sum = sum.wrapping_add(u64::from(b));
            }
            black_box(sum);
        });
        let lt_count = memchr::memchr_iter(b'<', text.as_bytes()).count();
        let memchr_lt = min_time(200, || {
            black_box(memchr::memchr_iter(b'<', black_box(text.as_bytes())).count());
        });
        println!(
            "| {name} ({bytes} B, {} chunks, {lt_count} '<') | {} | {} | {:.0}x | {} ({}) | {} | {} |",
            chunks.len(),
            ms(incremental),
            ms(reparse),
            reparse.as_secs_f64() / incremental.as_secs_f64(),
            ms(full),
            mbps(bytes, full),
            mbps(bytes, byte_loop),
            mbps(bytes, memchr_lt),
        );
    }
}
