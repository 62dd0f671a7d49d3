//! Provider fixtures: each body decodes to its expected chunks (in the JS shape) and error,
//! whole, split once at every byte, and fed one byte at a time; arbitrary bytes never panic.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod support;

use std::fs;
use std::path::Path;

use clew_codec::stream::{Chunk, Format, StreamDecoder, StreamError};
use proptest::prelude::*;
use serde_json::Value;

fn format_of(name: &str) -> Format {
    match name {
        n if n.starts_with("anthropic") || n == "not-a-stream-json-error" => Format::Anthropic,
        n if n.starts_with("chunks") => Format::Chunks,
        _ => Format::OpenAi,
    }
}

fn fixtures() -> Vec<(String, Vec<u8>, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/streams");
    let mut all: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "sse" || e == "jsonl"))
        .map(|path| {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let expected = fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap();
            (name, fs::read(&path).unwrap(), serde_json::from_str(&expected).unwrap())
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(all.len() >= 17, "fixtures missing");
    all
}

fn decode(format: Format, pieces: &[&[u8]]) -> (Vec<Chunk>, Option<StreamError>) {
    support::decode(format, pieces)
}

fn check(name: &str, (chunks, error): (Vec<Chunk>, Option<StreamError>), expected: &Value, how: &str) {
    // Each chunk's JSON as the package writes it for JavaScript, held to serde's.
    let got: Vec<Value> = chunks
        .iter()
        .map(|c| {
            let mut json = String::new();
            c.write_json(&mut json);
            let value: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(value, serde_json::to_value(c).unwrap(), "{name} ({how}): chunk JSON");
            value
        })
        .collect();
    assert_eq!(Value::Array(got), expected["chunks"], "{name} ({how}): chunks");
    match (&error, &expected["error"]) {
        (None, Value::Null) => {}
        (Some(error), want) if !want.is_null() => {
            assert_eq!(error.code(), want["code"], "{name} ({how}): {error}");
            assert_eq!(error.is_retryable(), want["retryable"], "{name} ({how}): retryable");
            if let Some(message) = want["message"].as_str() {
                assert_eq!(error.to_string(), message, "{name} ({how})");
            }
        }
        (got, want) => panic!("{name} ({how}): error {got:?}, expected {want}"),
    }
}

#[test]
fn every_fixture_decodes_whole_and_at_every_split() {
    for (name, body, expected) in fixtures() {
        let format = format_of(&name);
        check(&name, decode(format, &[&body]), &expected, "whole");
        for cut in 0..=body.len() {
            let (a, b) = body.split_at(cut);
            check(&name, decode(format, &[a, b]), &expected, &format!("cut at {cut}"));
        }
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        check(&name, decode(format, &bytes), &expected, "byte by byte");
    }
}

#[test]
fn after_an_error_the_decoder_keeps_returning_it() {
    let mut decoder = StreamDecoder::new(Format::OpenAi);
    let mut chunks = Vec::new();
    let first = decoder.push(b"data: {oops}\n\n", &mut chunks).unwrap_err();
    assert_eq!(decoder.push(b"data: [DONE]\n\n", &mut chunks), Err(first.clone()));
    assert_eq!(decoder.finish(&mut chunks), Err(first));
}

#[test]
fn an_empty_body_is_incomplete() {
    for format in [Format::Anthropic, Format::OpenAi] {
        let (_, error) = decode(format, &[b""]);
        assert_eq!(error.map(|e| e.code()), Some("CLEW_STREAM_INCOMPLETE"));
    }
}

#[test]
fn anthropic_usage_chunks_add_up_to_the_true_totals() {
    let (_, body, _) = fixtures().into_iter().find(|f| f.0 == "anthropic-text").unwrap();
    let (chunks, _) = decode(Format::Anthropic, &[&body]);
    let mut total = clew_codec::stream::Usage::default();
    for chunk in &chunks {
        if let Chunk::Usage(usage) = chunk {
            total.add(usage);
        }
    }
    // message_start said 1 output token, then message_delta said 15 and 42 (cumulative).
    assert_eq!((total.input_tokens, total.output_tokens), (25, 42));
    assert_eq!((total.cache_write_tokens, total.cache_read_tokens), (Some(10), Some(100)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400), cut in 0usize..400, format in 0u8..3) {
        let format = [Format::Anthropic, Format::OpenAi, Format::Chunks][usize::from(format)];
        let cut = cut.min(bytes.len());
        let _ = decode(format, &[&bytes[..cut], &bytes[cut..]]);
    }

    #[test]
    fn split_points_never_change_the_outcome(
        lines in prop::collection::vec(prop::sample::select(vec![
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"é🦀\"}}]}",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}",
            "event: content_block_delta",
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}",
            "data: {\"type\":\"text\",\"text\":\"ü\"}",
            "data: [DONE]", "event: message_stop", "data: {}", "data: {", ": c", "", "\r", "id: 1",
        ]), 0..24),
        format in 0u8..3,
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let format = [Format::Anthropic, Format::OpenAi, Format::Chunks][usize::from(format)];
        let body = lines.join("\n");
        let bytes = body.as_bytes();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut pieces = Vec::new();
        let mut at = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            pieces.push(&bytes[at..cut]);
            at = cut;
        }
        prop_assert_eq!(decode(format, &pieces), decode(format, &[bytes]));
    }

    #[test]
    fn any_http_error_response_never_panics(status in any::<u16>(), retry_after in ".{0,40}", body in ".{0,200}", now in any::<f64>()) {
        let error = StreamError::from_http(status, Some(&retry_after), &body, Some(now));
        let _ = (error.to_string(), error.is_retryable(), error.code());
    }

    #[test]
    fn sse_shaped_noise_never_panics(
        lines in prop::collection::vec(prop::sample::select(vec![
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\",\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\"}}]}}]}",
            "event: content_block_delta", "event: message_start", "event: error", "event: content_block_start",
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}",
            "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\"}}",
            "data: {\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"output_tokens\":3}}",
            "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"compaction\",\"content\":null}}",
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"compaction_delta\",\"content\":\"s\"}}",
            "data: {\"type\":\"content_block_stop\",\"index\":0}",
            "data: {\"type\":\"message_delta\",\"usage\":{\"iterations\":[{\"type\":\"message\",\"input_tokens\":18446744073709551615,\"output_tokens\":9}]},\"context_management\":{\"applied_edits\":[]}}",
            "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":18446744073709551615}}}",
            "data: [DONE]", "data: {", "data: null", "data: []", ": c", "", "retry: 9", "id: 1", "\u{FEFF}data: {}",
        ]), 0..30),
        format in 0u8..3,
    ) {
        let format = [Format::Anthropic, Format::OpenAi, Format::Chunks][usize::from(format)];
        let body = lines.join("\n");
        let _ = decode(format, &[body.as_bytes()]);
    }
}

#[test]
fn openai_null_counts_and_indices_are_tolerated() {
    let body = b"data: {\"choices\":[{\"index\":null,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":null,\"completion_tokens\":2,\"prompt_tokens_details\":null}}\n\ndata: [DONE]\n\n";
    let (chunks, error) = decode(Format::OpenAi, &[body]);
    assert_eq!(error, None);
    assert_eq!(
        chunks,
        [
            Chunk::text("a"),
            Chunk::stop("stop"),
            Chunk::Usage(clew_codec::stream::Usage { output_tokens: 2, ..Default::default() })
        ]
    );
}

/// Decodes `events` (each `(name, json)`) as an Anthropic stream ending with message_stop.
fn anthropic(events: &[(&str, &str)]) -> Vec<Chunk> {
    let mut body = String::new();
    for (name, data) in events.iter().chain(&[("message_stop", r#"{"type":"message_stop"}"#)]) {
        body.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    }
    let (chunks, error) = decode(Format::Anthropic, &[body.as_bytes()]);
    assert_eq!(error, None);
    chunks
}

#[test]
fn text_block_after_thinking_starts_with_a_newline() {
    let chunks = anthropic(&[
        ("content_block_start", r#"{"index":0,"content_block":{"type":"thinking","thinking":""}}"#),
        ("content_block_stop", r#"{"index":0}"#),
        ("content_block_start", r#"{"index":1,"content_block":{"type":"text","text":""}}"#),
        ("content_block_delta", r#"{"index":1,"delta":{"type":"text_delta","text":"Hi"}}"#),
    ]);
    assert_eq!(chunks, [Chunk::text("\n"), Chunk::text("Hi")]);
}

#[test]
fn signature_delta_is_reasoning_with_empty_text_and_redacted_thinking_keeps_its_data() {
    let chunks = anthropic(&[
        ("content_block_delta", r#"{"index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#),
        ("content_block_start", r#"{"index":1,"content_block":{"type":"redacted_thinking","data":"opaque"}}"#),
    ]);
    assert_eq!(
        chunks,
        [
            Chunk::Reasoning {
                reasoning: String::new(),
                signature: Some("sig".into()),
                redacted_data: None,
                encrypted_content: None,
                summary: None
            },
            Chunk::Reasoning {
                reasoning: "[Redacted thinking block]".into(),
                signature: None,
                redacted_data: Some("opaque".into()),
                encrypted_content: None,
                summary: None
            },
        ]
    );
}

#[test]
fn ping_and_unknown_events_are_ignored() {
    assert_eq!(anthropic(&[("ping", r#"{"type":"ping"}"#), ("future_event", r#"{"type":"future_event"}"#)]), []);
}

#[test]
fn input_json_of_another_block_index_is_not_attached_to_the_tool() {
    let chunks = anthropic(&[
        ("content_block_start", r#"{"index":1,"content_block":{"type":"tool_use","id":"t1","name":"read_file"}}"#),
        ("content_block_delta", r#"{"index":2,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#),
        ("content_block_stop", r#"{"index":1}"#),
        ("content_block_delta", r#"{"index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#),
    ]);
    assert_eq!(chunks, [Chunk::tool_call("t1", Some("read_file"), None)]);
}

#[test]
fn openai_arguments_before_id_and_name_are_held_not_dropped() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\":1}\"}}]}}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (chunks, error) = decode(Format::OpenAi, &[body.as_bytes()]);
    assert_eq!(error, None);
    assert_eq!(chunks, [Chunk::tool_call("c", Some("f"), Some(r#"{"a":1}"#))]);
}

#[test]
fn openai_tool_call_without_an_id_gets_a_stable_one() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n";
    let (chunks, _) = decode(Format::OpenAi, &[body.as_bytes()]);
    assert_eq!(chunks[0], Chunk::tool_call("call_3", Some("f"), Some("{}")));
}

#[test]
fn chunks_format_rejects_unknown_types_and_missing_fields() {
    for line in [r#"{"type":"bogus"}"#, r#"{"type":"text"}"#, r#"{"type":"stop"}"#, r#"{"text":"no type"}"#] {
        let (_, error) = decode(Format::Chunks, &[line.as_bytes()]);
        assert_eq!(error.as_ref().map(StreamError::code), Some("CLEW_MALFORMED_JSON"), "{line}");
    }
    let (chunks, error) = decode(Format::Chunks, &[br#"{"type":"usage","outputTokens":5}"#]);
    assert_eq!(error, None);
    assert_eq!(chunks, [Chunk::Usage(clew_codec::stream::Usage { output_tokens: 5, ..Default::default() })]);
}

#[test]
fn chunks_format_reads_back_what_write_json_writes() {
    use clew_codec::json::Json;
    use clew_codec::stream::Usage;
    let edits = Json::parse(r#"[{"type":"clear_tool_uses_20250919","cleared_input_tokens":900}]"#).unwrap();
    let written = [
        Chunk::Compaction {
            content: Some("Summary \"so far\".\n".into()),
            encrypted_content: Some("ZW5j".into()),
            id: None,
        },
        Chunk::Compaction { content: None, encrypted_content: Some("b3Bh".into()), id: Some("cmp_1".into()) },
        Chunk::Compaction { content: None, encrypted_content: None, id: None },
        Chunk::Usage(Usage {
            input_tokens: 3,
            output_tokens: 4,
            context_tokens: Some(7),
            applied_edits: Some(edits),
            ..Usage::default()
        }),
        Chunk::Usage(Usage { applied_edits: Some(Json::Array(Vec::new())), ..Usage::default() }),
        Chunk::Usage(Usage {
            input_tokens: 79,
            output_tokens: 12,
            cache_read_tokens: Some(0),
            whole: true,
            ..Usage::default()
        }),
        Chunk::text("after"),
    ];
    let mut body = String::new();
    for chunk in &written {
        chunk.write_json(&mut body);
        body.push('\n');
    }
    let (chunks, error) = decode(Format::Chunks, &[body.as_bytes()]);
    assert_eq!(error, None);
    assert_eq!(chunks, written);
}

#[test]
fn decoder_limits_give_typed_errors() {
    use clew_codec::stream::SseLimits;
    let mut decoder = StreamDecoder::with_limits(Format::OpenAi, SseLimits { max_line: 64, max_event: 1024 });
    let mut chunks = Vec::new();
    let error = decoder.push(&[b'a'; 100], &mut chunks).unwrap_err();
    assert_eq!(error, StreamError::LineTooLong { limit: 64 });
    assert!(!error.is_retryable());

    let mut decoder = StreamDecoder::with_limits(Format::OpenAi, SseLimits { max_line: 64, max_event: 100 });
    let line = format!("data: {}\n", "x".repeat(50));
    let error = decoder.push(line.repeat(3).as_bytes(), &mut chunks).unwrap_err();
    assert_eq!(error, StreamError::EventTooLarge { limit: 100 });
}

#[test]
fn a_stream_cut_mid_event_is_incomplete_and_retryable_not_malformed() {
    let cases: [(Format, &[u8]); 3] = [
        (Format::OpenAi, b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choi"),
        (Format::Anthropic, b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_blo"),
        (Format::Chunks, b"{\"type\":\"text\",\"text\":\"a\"}\n{\"type\":\"te"),
    ];
    for (format, body) in cases {
        let (_, error) = decode(format, &[body]);
        let error = error.unwrap();
        assert_eq!(error.code(), "CLEW_STREAM_INCOMPLETE", "{format:?}: {error}");
        assert!(error.is_retryable());
    }
    // A whole but wrong last line is still malformed.
    let (_, error) = decode(Format::OpenAi, &[b"data: {oops}"]);
    assert_eq!(error.unwrap().code(), "CLEW_MALFORMED_JSON");
}
