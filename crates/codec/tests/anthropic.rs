//! The Anthropic decoder's context management (CONTEXT §6.2, §1.2): compaction blocks, usage
//! `iterations` and the context figure, applied context edits. The bodies are synthetic,
//! shaped as recorded streams; every one decodes the same whole, split once at every byte and
//! fed one byte at a time.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod support;

use clew_codec::stream::{Chunk, Format, Usage};
use serde_json::{json, Value};

/// A body of `event:`/`data:` pairs, each event named by its `type`, ending with
/// `message_stop`.
fn sse(events: &[Value]) -> String {
    let mut body = String::new();
    for event in events.iter().chain([&json!({"type": "message_stop"})]) {
        body.push_str(&format!("event: {}\ndata: {event}\n\n", event["type"].as_str().unwrap()));
    }
    body
}

/// The chunks of a body that must decode without an error, every way it can arrive.
fn chunks(events: &[Value]) -> Vec<Chunk> {
    let (chunks, error) = support::decode_every_way(Format::Anthropic, &sse(events));
    assert_eq!(error, None, "{chunks:?}");
    chunks
}

fn message_start(input: u64, cache_read: u64, output: u64) -> Value {
    json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
           "content": [], "stop_reason": null, "usage": {"input_tokens": input, "cache_creation_input_tokens": 0,
           "cache_read_input_tokens": cache_read, "output_tokens": output}}})
}

fn compaction_start(index: u64) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": {"type": "compaction", "content": null}})
}

fn compaction_delta(index: u64, delta: Value) -> Value {
    let mut delta = delta;
    delta["type"] = json!("compaction_delta");
    json!({"type": "content_block_delta", "index": index, "delta": delta})
}

fn stop_block(index: u64) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

fn text_block(index: u64, pieces: &[&str]) -> Vec<Value> {
    let mut events =
        vec![json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})];
    for piece in pieces {
        events.push(json!({"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": piece}}));
    }
    events.push(stop_block(index));
    events
}

fn ping() -> Value {
    json!({"type": "ping"})
}

fn step(kind: &str, input: u64, cache_read: u64, output: u64) -> Value {
    json!({"type": kind, "input_tokens": input, "output_tokens": output, "cache_read_input_tokens": cache_read,
           "cache_creation_input_tokens": 0})
}

/// A `message_delta` with its stop reason, the top-level usage of the last step, the steps,
/// and `context_management` when given.
fn message_delta(reason: &str, steps: &[Value], context_management: Option<Value>) -> Value {
    let last = steps.last().cloned().unwrap_or_else(|| json!({}));
    let mut usage = json!({"input_tokens": last["input_tokens"], "cache_creation_input_tokens": 0,
                           "cache_read_input_tokens": last["cache_read_input_tokens"],
                           "output_tokens": last["output_tokens"]});
    if !steps.is_empty() {
        usage["iterations"] = json!(steps);
    }
    let mut event = json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
                           "usage": usage});
    if let Some(context_management) = context_management {
        event["context_management"] = context_management;
    }
    event
}

/// The usage chunks put together: counts added, the last context figure and edits kept.
fn usage(chunks: &[Chunk]) -> Usage {
    let mut total = Usage::default();
    for chunk in chunks {
        if let Chunk::Usage(usage) = chunk {
            total.add(usage);
            total.context_tokens = usage.context_tokens.or(total.context_tokens);
            total.applied_edits = usage.applied_edits.clone().or(total.applied_edits.take());
        }
    }
    total
}

fn text(chunks: &[Chunk]) -> String {
    chunks.iter().filter_map(|c| if let Chunk::Text { text } = c { Some(text.as_str()) } else { None }).collect()
}

fn compactions(chunks: &[Chunk]) -> Vec<&Chunk> {
    chunks.iter().filter(|c| matches!(c, Chunk::Compaction { .. })).collect()
}

fn stops(chunks: &[Chunk]) -> Vec<&Chunk> {
    chunks.iter().filter(|c| matches!(c, Chunk::Stop { .. })).collect()
}

fn summary(content: Option<&str>, encrypted: Option<&str>) -> Chunk {
    Chunk::Compaction { content: content.map(Into::into), encrypted_content: encrypted.map(Into::into), id: None }
}

#[test]
fn compaction_block_is_one_chunk_with_its_deltas_joined_and_the_message_pass_is_the_figure() {
    // The counts of CONTEXT §1.2's example: a compaction pass then a message pass.
    let mut events = vec![message_start(100, 55_096, 7), compaction_start(0), ping()];
    events.push(compaction_delta(0, json!({"content": "The user asked for a greeting. "})));
    events.push(ping());
    events.push(compaction_delta(0, json!({"content": "Next: greet them.", "encrypted_content": "ZW5j"})));
    events.push(stop_block(0));
    events.extend(text_block(1, &["Hello", " there!"]));
    events.push(message_delta(
        "end_turn",
        &[step("compaction", 100, 55_096, 83), step("message", 181, 0, 8)],
        Some(json!({"applied_edits": []})),
    ));
    let chunks = chunks(&events);

    assert_eq!(
        compactions(&chunks),
        [&summary(Some("The user asked for a greeting. Next: greet them."), Some("ZW5j"))]
    );
    // The compaction comes first, its own chunk; the text after it does not start on a new line.
    assert!(matches!(chunks.iter().find(|c| !matches!(c, Chunk::Usage(_))), Some(Chunk::Compaction { .. })));
    assert_eq!(text(&chunks), "Hello there!");
    assert!(!chunks.iter().any(|c| matches!(c, Chunk::ToolCalls { .. } | Chunk::Reasoning { .. })));
    let total = usage(&chunks);
    assert_eq!((total.input_tokens, total.output_tokens), (281, 91));
    assert_eq!((total.cache_write_tokens, total.cache_read_tokens), (Some(0), Some(55_096)));
    assert_eq!(total.context_tokens, Some(189));
    assert_eq!(serde_json::to_value(&total.applied_edits).unwrap(), json!([]));
    assert_eq!(stops(&chunks), [&Chunk::stop("end_turn")]);
    // The figure and the edits ride on the usage chunk of the message_delta.
    let last = chunks.iter().rev().find_map(|c| if let Chunk::Usage(u) = c { Some(u) } else { None }).unwrap();
    assert_eq!((last.input_tokens, last.output_tokens, last.context_tokens), (181, 84, Some(189)));
}

#[test]
fn the_figure_counts_every_part_of_the_last_message_pass() {
    let steps = [
        step("message", 5, 0, 5),
        step("compaction", 60_000, 0, 500),
        step("advisor", 900, 0, 90),
        json!({"type": "message", "input_tokens": 600, "output_tokens": 2_800, "cache_read_input_tokens": 30,
               "cache_creation_input_tokens": 4}),
    ];
    let mut events = vec![message_start(60_000, 0, 1), compaction_start(0)];
    events.push(compaction_delta(0, json!({"content": "Summary."})));
    events.push(stop_block(0));
    events.extend(text_block(1, &["Reply."]));
    events.push(message_delta("end_turn", &steps, None));
    let chunks = chunks(&events);
    let total = usage(&chunks);
    assert_eq!(total.context_tokens, Some(600 + 4 + 30 + 2_800));
    // Billed: the message and compaction steps, not the advisor's.
    assert_eq!((total.input_tokens, total.output_tokens), (60_605, 3_305));
    assert_eq!(total.applied_edits, None);
}

#[test]
fn a_fallback_message_pass_is_the_figure_too() {
    let steps = [step("compaction", 100, 0, 10), step("fallback_message", 20, 0, 3)];
    let chunks = chunks(&[message_start(100, 0, 1), message_delta("end_turn", &steps, None)]);
    assert_eq!(usage(&chunks).context_tokens, Some(23));
}

#[test]
fn a_paused_compaction_stops_with_compaction_and_has_no_figure() {
    let mut events = vec![message_start(70_000, 0, 1), compaction_start(0)];
    events.push(compaction_delta(0, json!({"content": "Where we are."})));
    events.push(stop_block(0));
    events.push(message_delta("compaction", &[step("compaction", 70_000, 0, 400)], None));
    let chunks = chunks(&events);
    assert_eq!(compactions(&chunks), [&summary(Some("Where we are."), None)]);
    assert_eq!(text(&chunks), "");
    assert_eq!(stops(&chunks), [&Chunk::stop("compaction")]);
    let total = usage(&chunks);
    assert_eq!((total.input_tokens, total.output_tokens, total.context_tokens), (70_000, 400, None));
}

#[test]
fn a_compaction_without_content_is_a_failed_one_and_still_one_chunk() {
    // No delta at all, then a delta whose content stays null.
    for deltas in [vec![], vec![compaction_delta(0, json!({"content": null}))]] {
        let mut events = vec![message_start(10, 0, 1), compaction_start(0)];
        events.extend(deltas);
        events.push(stop_block(0));
        events.extend(text_block(1, &["Hi"]));
        events.push(message_delta("end_turn", &[], None));
        let chunks = chunks(&events);
        assert_eq!(compactions(&chunks), [&summary(None, None)]);
        assert_eq!(text(&chunks), "Hi");
    }
}

#[test]
fn a_compaction_whose_stop_never_comes_is_emitted_at_the_message_delta() {
    let mut events = vec![message_start(10, 0, 1), compaction_start(0)];
    events.push(compaction_delta(0, json!({"content": "Kept."})));
    events.push(message_delta("compaction", &[], None));
    let chunks = chunks(&events);
    assert_eq!(compactions(&chunks), [&summary(Some("Kept."), None)]);
}

#[test]
fn a_text_block_after_a_compaction_and_another_block_starts_on_a_new_line() {
    let mut events = vec![message_start(10, 0, 1), compaction_start(0), stop_block(0)];
    events.push(json!({"type": "content_block_start", "index": 1,
                       "content_block": {"type": "thinking", "thinking": "", "signature": ""}}));
    events.push(stop_block(1));
    events.extend(text_block(2, &["Hi"]));
    events.push(message_delta("end_turn", &[], None));
    assert_eq!(text(&chunks(&events)), "\nHi");
}

#[test]
fn applied_edits_reach_the_usage_chunk_as_sent() {
    // Without edits applied (the list is empty), and with one.
    let none = chunks(&[message_start(859, 0, 8), message_delta("end_turn", &[], Some(json!({"applied_edits": []})))]);
    let total = usage(&none);
    assert_eq!((total.input_tokens, total.context_tokens), (859, None));
    assert_eq!(serde_json::to_value(&total.applied_edits).unwrap(), json!([]));

    let edit = json!({"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 12_000});
    let applied = chunks(&[
        message_start(40_000, 0, 1),
        message_delta("end_turn", &[], Some(json!({"applied_edits": [edit.clone()]}))),
    ]);
    assert_eq!(serde_json::to_value(&usage(&applied).applied_edits).unwrap(), json!([edit]));
    // Edits with no usage in the event still come, on a usage chunk that adds nothing.
    let event = json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                       "context_management": {"applied_edits": []}});
    let bare = chunks(&[event]);
    let Some(Chunk::Usage(only)) = bare.first() else { panic!("{bare:?}") };
    assert_eq!((only.input_tokens, only.output_tokens), (0, 0));
    assert_eq!(serde_json::to_value(&only.applied_edits).unwrap(), json!([]));
}

/// A text delta reads the same whether it has the exact shape the API writes (which the
/// decoder reads a shorter way) or another one (keys in another order, spaces): escapes,
/// non-ASCII, control characters, an empty text, a text that looks like the event's end.
#[test]
fn a_text_delta_reads_the_same_in_the_api_shape_and_any_other() {
    let start = r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
    let body = |data: &str| {
        format!("event: content_block_start\ndata: {start}\n\nevent: content_block_delta\ndata: {data}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n")
    };
    for text in ["plain", "", "quote \" backslash \\ newline \n tab \t", "ünï 🦀 \u{1}", "}}\"}}"] {
        let quoted = serde_json::to_string(text).unwrap();
        let exact =
            format!(r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":{quoted}}}}}"#);
        let spaced = format!(
            r#"{{"type": "content_block_delta", "index": 0, "delta": {{"type": "text_delta", "text": {quoted}}}}}"#
        );
        let sorted = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}});
        let expected = if text.is_empty() { vec![] } else { vec![Chunk::text(text)] };
        for data in [exact, spaced, sorted.to_string()] {
            let (chunks, error) = support::decode_every_way(Format::Anthropic, &body(&data));
            assert_eq!((chunks, error), (expected.clone(), None), "{data}");
        }
    }
}

/// What is not JSON stays an error, and an event whose SSE name is not a delta is read by its
/// name, even when its data has a text delta's exact shape.
#[test]
fn a_text_delta_shape_that_is_not_json_or_not_a_delta_is_not_read_as_text() {
    let delta = |index: &str, text: &str| {
        format!(r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"text_delta","text":{text}}}}}"#)
    };
    for data in [delta("01", "\"a\""), delta("", "\"a\""), delta("0", "\"a\\q\""), delta("0", "\"a\"x")] {
        let body = format!("event: content_block_delta\ndata: {data}\n\n");
        let (chunks, error) = support::decode_every_way(Format::Anthropic, &body);
        assert!(chunks.is_empty() && error.is_some_and(|e| e.code() == "CLEW_MALFORMED_JSON"), "{data}");
    }
    let body = format!("event: ping\ndata: {}\n\nevent: message_stop\ndata: {{}}\n\n", delta("0", "\"a\""));
    assert_eq!(support::decode_every_way(Format::Anthropic, &body), (vec![], None));
    let (chunks, error) = support::decode_every_way(
        Format::Anthropic,
        &format!("data: {}\n\ndata: {{\"type\":\"message_stop\"}}\n\n", delta("3", "null")),
    );
    assert_eq!((chunks, error), (vec![], None));
}
