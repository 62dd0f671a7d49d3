//! The OpenAI Responses decoder, one test per rule of the format. Every body decodes the
//! same whole, split once at every byte and fed one byte at a time (`decode_all_splits`).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod support;

use clew_codec::json::Json;
use clew_codec::stream::{Chunk, Format, StreamError, ToolCall, ToolCallFunction, Usage};
use serde_json::{json, Value};

// ---- bodies -------------------------------------------------------------------------------

/// A body as api.openai.com frames it: `event: <type>` then `data: <json>` per event.
fn sse(events: &[Value]) -> String {
    let mut body = String::new();
    for event in events {
        body.push_str(&format!("event: {}\ndata: {event}\n\n", event["type"].as_str().unwrap()));
    }
    body
}

/// A body as OpenRouter frames it: `data:` lines only, a comment, and `data: [DONE]`.
fn data_only(events: &[Value]) -> String {
    let mut body = String::from(": OPENROUTER PROCESSING\n\n");
    for event in events {
        body.push_str(&format!("data: {event}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body
}

fn created() -> Value {
    json!({"type": "response.created", "sequence_number": 0,
           "response": {"id": "resp_1", "status": "in_progress", "output": [], "usage": null}})
}

fn in_progress() -> Value {
    json!({"type": "response.in_progress", "sequence_number": 1,
           "response": {"id": "resp_1", "status": "in_progress", "output": [], "usage": null}})
}

fn usage(input: u64, cached: u64, output: u64, reasoning: u64) -> Value {
    json!({"input_tokens": input, "input_tokens_details": {"cached_tokens": cached},
           "output_tokens": output, "output_tokens_details": {"reasoning_tokens": reasoning},
           "total_tokens": input + output})
}

fn completed(usage: Value) -> Value {
    json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": usage}})
}

fn added(index: u64, item: Value) -> Value {
    json!({"type": "response.output_item.added", "output_index": index, "item": item})
}

fn done(index: u64, item: Value) -> Value {
    json!({"type": "response.output_item.done", "output_index": index, "item": item})
}

fn text_delta(index: u64, delta: &str) -> Value {
    json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": index, "content_index": 0,
           "delta": delta, "logprobs": [], "obfuscation": "x1"})
}

fn message(id: &str, text: Option<&str>, phase: Option<&str>) -> Value {
    let content = match text {
        Some(text) => json!([{"type": "output_text", "text": text, "annotations": []}]),
        None => json!([]),
    };
    let mut item = json!({"id": id, "type": "message", "status": "completed", "role": "assistant", "content": content});
    if let Some(phase) = phase {
        item["phase"] = json!(phase);
    }
    item
}

fn function_call(id: &str, call_id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function_call", "status": "in_progress", "arguments": arguments,
           "call_id": call_id, "name": name})
}

fn args_delta(index: u64, delta: &str) -> Value {
    json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": index,
           "delta": delta, "obfuscation": "abc"})
}

fn args_done(index: u64, arguments: &str) -> Value {
    json!({"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": index,
           "arguments": arguments})
}

fn summary_delta(index: u64, part: u64, delta: &str) -> Value {
    json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": index,
           "summary_index": part, "delta": delta})
}

fn reasoning_item(encrypted: Option<&str>, summary: &[&str]) -> Value {
    let summary: Vec<Value> = summary.iter().map(|text| json!({"type": "summary_text", "text": text})).collect();
    json!({"id": "rs_1", "type": "reasoning", "encrypted_content": encrypted, "summary": summary})
}

// ---- decoding -----------------------------------------------------------------------------

/// Decodes `body` every way it can arrive (support::decode_every_way); the chunks, or the error.
fn decode_all_splits(body: &str) -> Result<Vec<Chunk>, StreamError> {
    match support::decode_every_way(Format::OpenAiResponses, body) {
        (chunks, None) => Ok(chunks),
        (_, Some(error)) => Err(error),
    }
}

fn call_piece(id: &str, name: &str, arguments: Option<&str>, whole: bool) -> Chunk {
    Chunk::ToolCalls {
        tool_call: ToolCall {
            call_id: Some(id.into()),
            function: ToolCallFunction {
                id: Some(id.into()),
                name: Some(name.into()),
                arguments: arguments.map(Into::into),
            },
            signature: None,
            whole,
        },
    }
}

/// The calls the chunks assemble to: (id, name, arguments text).
fn assembled(chunks: &[Chunk]) -> Vec<(String, String, String)> {
    support::calls(chunks).into_iter().map(|(id, name, arguments, _)| (id, name, arguments)).collect()
}

fn plain_usage(input: u64, output: u64) -> Chunk {
    Chunk::Usage(Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: Some(0),
        reasoning_tokens: Some(0),
        ..Usage::default()
    })
}

fn closing(encrypted_content: Option<&str>, summary: &[&str]) -> Chunk {
    Chunk::Reasoning {
        reasoning: String::new(),
        signature: None,
        redacted_data: None,
        encrypted_content: encrypted_content.map(Into::into),
        summary: Some(summary.iter().map(|s| (*s).to_owned()).collect()),
    }
}

// ---- tests --------------------------------------------------------------------------------

#[test]
fn lifecycle_and_unknown_events_give_no_chunks() {
    let body = sse(&[
        created(),
        json!({"type": "response.queued", "response": {"id": "resp_1", "status": "queued", "usage": null}}),
        in_progress(),
        json!({"type": "response.something_new", "output_index": 0, "delta": "not text"}),
        json!({"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "SELECT"}),
        completed(usage(5, 0, 1, 0)),
    ]);
    assert_eq!(decode_all_splits(&body).unwrap(), [plain_usage(5, 1), Chunk::stop("end_turn")]);
}

#[test]
fn text_deltas_are_text_and_the_reply_stops_with_end_turn() {
    let body = sse(&[
        created(),
        added(0, message("msg_1", None, None)),
        json!({"type": "response.content_part.added", "item_id": "msg_1", "output_index": 0, "content_index": 0,
               "part": {"type": "output_text", "text": "", "annotations": []}}),
        text_delta(0, "Hel"),
        text_delta(0, ""),
        text_delta(0, "lo \u{e9}\u{1f980}"),
        json!({"type": "response.output_text.done", "output_index": 0, "content_index": 0, "text": "Hello \u{e9}\u{1f980}"}),
        done(0, message("msg_1", Some("Hello \u{e9}\u{1f980}"), None)),
        completed(usage(11, 0, 5, 0)),
    ]);
    assert_eq!(
        decode_all_splits(&body).unwrap(),
        [Chunk::text("Hel"), Chunk::text("lo \u{e9}\u{1f980}"), plain_usage(11, 5), Chunk::stop("end_turn")]
    );
}

#[test]
fn items_are_keyed_by_output_index_when_item_id_rotates() {
    // Like GitHub Copilot's endpoint: every event names the item with a new id.
    let mut events = vec![created()];
    events.push(added(0, function_call("id-1", "call_A", "lookup", "")));
    for (n, piece) in ["{\"q\":", "\"x\"", "}"].iter().enumerate() {
        let mut delta = args_delta(0, piece);
        delta["item_id"] = json!(format!("id-{}", n + 2));
        events.push(delta);
    }
    events.push(done(0, function_call("id-9", "call_A", "lookup", "{\"q\":\"x\"}")));
    events.push(added(1, message("id-10", None, None)));
    for (n, piece) in ["One", " item"].iter().enumerate() {
        let mut delta = text_delta(1, piece);
        delta["item_id"] = json!(format!("id-{}", n + 11));
        events.push(delta);
    }
    events.push(done(1, message("id-20", Some("One item"), None)));
    events.push(completed(usage(3, 0, 4, 0)));
    let chunks = decode_all_splits(&sse(&events)).unwrap();
    assert_eq!(assembled(&chunks), [("call_A".into(), "lookup".into(), "{\"q\":\"x\"}".into())]);
    let text: String =
        chunks.iter().filter_map(|c| if let Chunk::Text { text } = c { Some(text.as_str()) } else { None }).collect();
    assert_eq!(text, "One item");
    assert_eq!(chunks.last(), Some(&Chunk::stop("tool_use")));
}

#[test]
fn function_call_is_announced_when_added_and_its_deltas_are_pieces() {
    let body = sse(&[
        created(),
        added(0, function_call("fc_1", "call_1", "weather", "")),
        args_delta(0, "{\"city\":"),
        args_delta(0, "\"Paris\"}"),
        args_done(0, "{\"city\":\"Paris\"}"),
        done(0, function_call("fc_1", "call_1", "weather", "{\"city\":\"Paris\"}")),
        completed(usage(45, 0, 24, 0)),
    ]);
    assert_eq!(
        decode_all_splits(&body).unwrap(),
        [
            call_piece("call_1", "weather", None, false),
            call_piece("call_1", "weather", Some("{\"city\":"), false),
            call_piece("call_1", "weather", Some("\"Paris\"}"), false),
            plain_usage(45, 24),
            Chunk::stop("tool_use"),
        ]
    );
}

#[test]
fn function_call_added_with_arguments_announces_them() {
    let body = sse(&[
        added(0, function_call("fc_1", "call_1", "now", "{}")),
        done(0, function_call("fc_1", "call_1", "now", "{}")),
        completed(usage(1, 0, 1, 0)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(chunks[0], call_piece("call_1", "now", Some("{}"), false));
    assert_eq!(assembled(&chunks), [("call_1".into(), "now".into(), "{}".into())]);
}

#[test]
fn function_call_done_arguments_win_over_deltas() {
    let body = sse(&[
        added(0, function_call("fc_1", "call_1", "pick", "")),
        args_delta(0, "{\"n\":1"),
        args_done(0, "{\"n\":2}"),
        done(0, function_call("fc_1", "call_1", "pick", "{\"n\":2}")),
        completed(usage(1, 0, 1, 0)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(chunks[2], call_piece("call_1", "pick", Some("{\"n\":2}"), true));
    assert_eq!(chunks.iter().filter(|c| matches!(c, Chunk::ToolCalls { .. })).count(), 3, "the whole arguments once");
    assert_eq!(assembled(&chunks), [("call_1".into(), "pick".into(), "{\"n\":2}".into())]);
}

#[test]
fn function_call_done_arguments_that_extend_the_deltas_deliver_the_rest_once() {
    // The `.done` of the arguments and the item's `.done` both come: one piece, not two.
    let body = sse(&[
        added(0, function_call("fc_1", "call_1", "pick", "")),
        args_delta(0, "{\"n\":"),
        args_done(0, "{\"n\":7}"),
        done(0, function_call("fc_1", "call_1", "pick", "{\"n\":7}")),
        completed(usage(1, 0, 1, 0)),
    ]);
    assert_eq!(
        decode_all_splits(&body).unwrap()[..3],
        [
            call_piece("call_1", "pick", None, false),
            call_piece("call_1", "pick", Some("{\"n\":"), false),
            call_piece("call_1", "pick", Some("7}"), false),
        ]
    );
}

#[test]
fn function_call_without_deltas_gets_its_arguments_from_done() {
    let body = sse(&[
        added(0, function_call("fc_1", "call_1", "pick", "")),
        done(0, function_call("fc_1", "call_1", "pick", "{\"n\":3}")),
        completed(usage(1, 0, 1, 0)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(chunks[1], call_piece("call_1", "pick", Some("{\"n\":3}"), false));
    assert_eq!(assembled(&chunks), [("call_1".into(), "pick".into(), "{\"n\":3}".into())]);
}

#[test]
fn function_call_seen_only_when_done_is_announced_then() {
    let body = sse(&[
        args_delta(0, "{\"lost\":"),
        done(0, function_call("fc_1", "call_9", "pick", "{\"n\":4}")),
        completed(usage(1, 0, 1, 0)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(assembled(&chunks), [("call_9".into(), "pick".into(), "{\"n\":4}".into())]);
    assert_eq!(chunks.last(), Some(&Chunk::stop("tool_use")));
}

#[test]
fn refusal_is_text_and_the_stop_says_refusal() {
    let body = sse(&[
        added(0, message("msg_1", None, None)),
        json!({"type": "response.refusal.delta", "output_index": 0, "content_index": 0, "delta": "I can't help"}),
        json!({"type": "response.refusal.done", "output_index": 0, "content_index": 0, "refusal": "I can't help"}),
        done(
            0,
            json!({"id": "msg_1", "type": "message", "role": "assistant",
                       "content": [{"type": "refusal", "refusal": "I can't help"}]}),
        ),
        completed(usage(1, 0, 3, 0)),
    ]);
    assert_eq!(
        decode_all_splits(&body).unwrap(),
        [Chunk::text("I can't help"), plain_usage(1, 3), Chunk::stop("refusal")]
    );
}

#[test]
fn reasoning_summary_parts_are_separated_by_a_blank_line_and_done_forms_are_ignored() {
    let body = sse(&[
        added(0, reasoning_item(Some("enc-added"), &[])),
        json!({"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 0,
               "part": {"type": "summary_text", "text": ""}}),
        summary_delta(0, 0, "**Plan**"),
        summary_delta(0, 0, " first"),
        json!({"type": "response.reasoning_summary_text.done", "output_index": 0, "summary_index": 0,
               "text": "**Plan** first"}),
        json!({"type": "response.reasoning_summary_part.done", "output_index": 0, "summary_index": 0,
               "part": {"type": "summary_text", "text": "**Plan** first"}}),
        summary_delta(0, 1, "Then"),
        summary_delta(0, 1, " act"),
        done(0, reasoning_item(Some("enc-done"), &["**Plan** first", "Then act"])),
        completed(usage(1, 0, 9, 7)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(
        chunks[..5],
        [
            Chunk::reasoning("**Plan**"),
            Chunk::reasoning(" first"),
            Chunk::reasoning("\n\nThen"),
            Chunk::reasoning(" act"),
            closing(Some("enc-done"), &["**Plan** first", "Then act"]),
        ]
    );
    assert_eq!(chunks.len(), 7);
}

#[test]
fn raw_reasoning_text_deltas_are_reasoning() {
    let body = data_only(&[
        added(0, json!({"type": "reasoning", "id": "rs_tmp", "summary": []})),
        json!({"type": "response.reasoning_text.delta", "output_index": 0, "content_index": 0, "delta": "The user"}),
        json!({"type": "response.reasoning_text.delta", "output_index": 0, "content_index": 0, "delta": " asks"}),
        json!({"type": "response.reasoning_text.done", "output_index": 0, "content_index": 0, "text": "The user asks"}),
        done(
            0,
            json!({"type": "reasoning", "id": "rs_tmp", "summary": [],
                       "content": [{"type": "reasoning_text", "text": "The user asks"}]}),
        ),
        completed(usage(1, 0, 2, 2)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(chunks[..3], [Chunk::reasoning("The user"), Chunk::reasoning(" asks"), closing(None, &[])]);
}

#[test]
fn reasoning_item_closes_with_encrypted_content_of_done_else_of_added() {
    let body = sse(&[
        added(0, reasoning_item(Some("enc-0"), &[])),
        done(0, reasoning_item(None, &[])),
        added(1, reasoning_item(Some("enc-1"), &[])),
        done(1, reasoning_item(Some("enc-1-final"), &[])),
        completed(usage(1, 0, 1, 1)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(chunks[..2], [closing(Some("enc-0"), &[]), closing(Some("enc-1-final"), &[])]);
}

#[test]
fn reasoning_done_without_deltas_delivers_its_summary_first() {
    let body = sse(&[
        added(0, reasoning_item(None, &[])),
        done(0, reasoning_item(Some("enc"), &["One.", "Two."])),
        added(1, json!({"type": "reasoning", "id": "rs_2", "summary": []})),
        done(
            1,
            json!({"type": "reasoning", "id": "rs_2", "summary": [],
                       "content": [{"type": "reasoning_text", "text": "Raw."}]}),
        ),
        completed(usage(1, 0, 1, 1)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(
        chunks[..4],
        [
            Chunk::reasoning("One.\n\nTwo."),
            closing(Some("enc"), &["One.", "Two."]),
            Chunk::reasoning("Raw."),
            closing(None, &[]),
        ]
    );
}

#[test]
fn message_phase_ends_its_text_part() {
    let body = sse(&[
        added(0, message("msg_1", None, Some("commentary"))),
        text_delta(0, "Checking."),
        done(0, message("msg_1", Some("Checking."), Some("commentary"))),
        added(1, message("msg_2", None, Some("final_answer"))),
        text_delta(1, "Done."),
        done(1, message("msg_2", Some("Done."), Some("final_answer"))),
        added(2, message("msg_3", None, None)),
        text_delta(2, "No phase."),
        done(2, message("msg_3", Some("No phase."), None)),
        completed(usage(1, 0, 1, 0)),
    ]);
    let end = |phase: &str| Chunk::TextEnd { signature: None, phase: Some(phase.into()) };
    assert_eq!(
        decode_all_splits(&body).unwrap()[..5],
        [
            Chunk::text("Checking."),
            end("commentary"),
            Chunk::text("Done."),
            end("final_answer"),
            Chunk::text("No phase.")
        ]
    );
}

#[test]
fn message_done_without_deltas_delivers_its_text() {
    let body = sse(&[
        added(0, message("msg_1", None, None)),
        done(
            0,
            json!({"id": "msg_1", "type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Only the ", "annotations": []},
            {"type": "output_text", "text": "done form.", "annotations": []}]}),
        ),
        completed(usage(1, 0, 1, 0)),
    ]);
    assert_eq!(decode_all_splits(&body).unwrap()[0], Chunk::text("Only the done form."));
}

#[test]
fn message_done_text_longer_than_the_deltas_delivers_the_rest() {
    let body = sse(&[
        added(0, message("msg_1", None, Some("final_answer"))),
        text_delta(0, "Got"),
        done(0, message("msg_1", Some("Got it all."), Some("final_answer"))),
        completed(usage(1, 0, 1, 0)),
    ]);
    assert_eq!(
        decode_all_splits(&body).unwrap()[..3],
        [
            Chunk::text("Got"),
            Chunk::text(" it all."),
            Chunk::TextEnd { signature: None, phase: Some("final_answer".into()) }
        ]
    );
}

#[test]
fn opaque_items_are_kept_whole_in_order() {
    let search = json!({"id": "fs_1", "type": "file_search_call", "status": "completed", "queries": ["q"],
                        "results": null});
    let program = json!({"id": "cm_1", "type": "program", "call_id": "call_p", "code": "text(1)\n",
                         "fingerprint": "f=="});
    let body = sse(&[
        added(0, json!({"id": "fs_1", "type": "file_search_call", "status": "in_progress"})),
        json!({"type": "response.file_search_call.searching", "output_index": 0, "item_id": "fs_1"}),
        done(0, search.clone()),
        added(1, message("msg_1", None, None)),
        text_delta(1, "Found."),
        done(1, message("msg_1", Some("Found."), None)),
        added(2, json!({"id": "cm_1", "type": "program", "call_id": "call_p", "code": ""})),
        done(2, program.clone()),
        completed(usage(1, 0, 1, 0)),
    ]);
    let item = |value: &Value| Chunk::Item { item: Json::parse(&value.to_string()).unwrap() };
    assert_eq!(
        decode_all_splits(&body).unwrap(),
        [item(&search), Chunk::text("Found."), item(&program), plain_usage(1, 1), Chunk::stop("end_turn")]
    );
}

fn compaction(id: &str, encrypted: &str) -> Value {
    json!({"id": id, "type": "compaction", "encrypted_content": encrypted})
}

fn compaction_chunk(id: &str, encrypted: &str) -> Chunk {
    Chunk::Compaction { content: None, encrypted_content: Some(encrypted.into()), id: Some(id.into()) }
}

#[test]
fn compaction_item_is_a_compaction_chunk_from_done_after_the_message() {
    // As recorded: the message, then the compaction item, whose `.done` form is longer.
    let body = sse(&[
        created(),
        added(0, message("msg_1", None, None)),
        text_delta(0, "Once "),
        text_delta(0, "upon a time."),
        done(0, message("msg_1", Some("Once upon a time."), None)),
        added(1, compaction("cmp_1", "c2hvcnQ=")),
        done(1, compaction("cmp_1", "c2hvcnQsIHRoZW4gdGhlIHdob2xlIHN0YXRl")),
        completed(usage(40, 0, 300, 0)),
    ]);
    let chunks = decode_all_splits(&body).unwrap();
    assert_eq!(
        chunks,
        [
            Chunk::text("Once "),
            Chunk::text("upon a time."),
            compaction_chunk("cmp_1", "c2hvcnQsIHRoZW4gdGhlIHdob2xlIHN0YXRl"),
            plain_usage(40, 300),
            Chunk::stop("end_turn"),
        ]
    );
    // Never an item, never text: one compaction chunk.
    assert_eq!(chunks.iter().filter(|c| matches!(c, Chunk::Compaction { .. } | Chunk::Item { .. })).count(), 1);
}

#[test]
fn compaction_item_keeps_its_place_in_output_order_and_a_repeated_done_is_ignored() {
    let body = data_only(&[
        added(0, compaction("cmp_2", "YQ==")),
        done(0, compaction("cmp_2", "YWI=")),
        done(0, compaction("cmp_2", "YWJj")),
        added(1, message("msg_1", None, None)),
        text_delta(1, "Next."),
        done(1, message("msg_1", Some("Next."), None)),
        completed(usage(3, 0, 2, 0)),
    ]);
    assert_eq!(
        decode_all_splits(&body).unwrap(),
        [compaction_chunk("cmp_2", "YWI="), Chunk::text("Next."), plain_usage(3, 2), Chunk::stop("end_turn")]
    );
}

#[test]
fn compaction_item_seen_only_added_gives_nothing() {
    let body = sse(&[added(0, compaction("cmp_3", "YQ==")), completed(usage(3, 0, 2, 0))]);
    assert_eq!(decode_all_splits(&body).unwrap(), [plain_usage(3, 2), Chunk::stop("end_turn")]);
}

#[test]
fn incomplete_response_stops_with_clews_reason_and_the_raw_one() {
    for (raw, reason) in [
        ("max_output_tokens", "max_tokens"),
        ("content_filter", "content_filter"),
        ("something_else", "something_else"),
    ] {
        let body = sse(&[
            added(0, message("msg_1", None, None)),
            text_delta(0, "Hello,"),
            done(0, message("msg_1", Some("Hello,"), None)),
            json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete",
                   "incomplete_details": {"reason": raw}, "usage": usage(4, 0, 2, 0)}}),
        ]);
        assert_eq!(
            decode_all_splits(&body).unwrap(),
            [Chunk::text("Hello,"), plain_usage(4, 2), Chunk::Stop { reason: reason.into(), raw: Some(raw.into()) }]
        );
    }
}

#[test]
fn failed_response_is_a_provider_error_with_chunks_before_it_kept() {
    let body = sse(&[
        created(),
        added(0, message("msg_1", None, None)),
        text_delta(0, "Partial"),
        json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed",
               "error": {"code": "server_error", "message": "The server had an error."}, "usage": usage(8, 0, 1, 0)}}),
        text_delta(0, " never seen"),
    ]);
    let (chunks, error) = support::decode_every_way(Format::OpenAiResponses, &body);
    assert_eq!(chunks, [Chunk::text("Partial"), plain_usage(8, 1)]);
    let error = error.unwrap();
    assert_eq!(
        error,
        StreamError::Provider { kind: "server_error".into(), message: "The server had an error.".into() }
    );
    assert!(error.is_retryable());
}

#[test]
fn failed_response_without_an_error_code_is_response_failed() {
    let body =
        sse(&[json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": null}})]);
    let error = decode_all_splits(&body).unwrap_err();
    assert!(matches!(&error, StreamError::Provider { kind, .. } if kind == "response_failed"), "{error:?}");
    assert!(!error.is_retryable());
}

#[test]
fn error_event_is_a_provider_error_with_the_providers_code() {
    let quota = "You exceeded your current quota.";
    let nested = sse(&[
        created(),
        json!({"type": "error", "sequence_number": 2, "error": {"type": "insufficient_quota",
               "code": "insufficient_quota", "message": quota, "param": null}}),
        json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "other", "message": "x"}}}),
    ]);
    let error = decode_all_splits(&nested).unwrap_err();
    assert_eq!(error, StreamError::Provider { kind: "insufficient_quota".into(), message: quota.into() });
    assert!(!error.is_retryable(), "an exhausted quota does not come back by retrying");

    let flat = sse(&[json!({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": null})]);
    let error = decode_all_splits(&flat).unwrap_err();
    assert_eq!(error, StreamError::Provider { kind: "rate_limit_exceeded".into(), message: "Slow down".into() });
    assert!(error.is_retryable());

    let bare = sse(&[json!({"type": "error", "code": null, "message": "Something broke"})]);
    let error = decode_all_splits(&bare).unwrap_err();
    assert_eq!(error, StreamError::Provider { kind: "error".into(), message: "Something broke".into() });
}

#[test]
fn events_after_the_terminal_event_are_ignored() {
    let body = sse(&[
        added(0, message("msg_1", None, None)),
        text_delta(0, "Hi"),
        completed(usage(1, 0, 1, 0)),
        text_delta(0, " again"),
        completed(usage(9, 0, 9, 0)),
        json!({"type": "error", "code": "server_error", "message": "late"}),
    ]);
    assert_eq!(decode_all_splits(&body).unwrap(), [Chunk::text("Hi"), plain_usage(1, 1), Chunk::stop("end_turn")]);
}

#[test]
fn end_of_body_without_terminal_event_is_incomplete() {
    let body = sse(&[created(), added(0, message("msg_1", None, None)), text_delta(0, "Cut")]);
    let (chunks, error) = support::decode_every_way(Format::OpenAiResponses, &body);
    assert_eq!(chunks, [Chunk::text("Cut")]);
    let error = error.unwrap();
    assert_eq!(error, StreamError::Incomplete { expected: "response.completed" });
    assert!(error.is_retryable());
}

#[test]
fn usage_counts_cached_input_apart_once() {
    // The numbers of a real file-search reply.
    let body = sse(&[
        created(),
        json!({"type": "response.in_progress", "response": {"status": "in_progress", "usage": usage(1, 0, 1, 0)}}),
        completed(usage(3737, 2304, 621, 512)),
    ]);
    assert_eq!(
        decode_all_splits(&body).unwrap(),
        [
            Chunk::Usage(Usage {
                input_tokens: 1433,
                cache_read_tokens: Some(2304),
                output_tokens: 621,
                reasoning_tokens: Some(512),
                ..Usage::default()
            }),
            Chunk::stop("end_turn"),
        ]
    );
}

#[test]
fn reasoning_tokens_are_reported_inside_output_not_added() {
    let body = sse(&[completed(usage(13, 0, 1680, 1408))]);
    let chunks = decode_all_splits(&body).unwrap();
    let Chunk::Usage(usage) = &chunks[0] else { panic!("{chunks:?}") };
    assert_eq!((usage.output_tokens, usage.reasoning_tokens), (1680, Some(1408)));
}

#[test]
fn usage_without_details_and_with_cache_writes_or_a_cost() {
    let body = sse(&[completed(json!({"input_tokens": 10, "output_tokens": 2}))]);
    assert_eq!(
        decode_all_splits(&body).unwrap()[0],
        Chunk::Usage(Usage { input_tokens: 10, output_tokens: 2, ..Usage::default() })
    );
    let body = data_only(&[completed(json!({"input_tokens": 100, "output_tokens": 5, "cost": 0.25,
        "input_tokens_details": {"cached_tokens": 60, "cache_write_tokens": 30}}))]);
    assert_eq!(
        decode_all_splits(&body).unwrap()[0],
        Chunk::Usage(Usage {
            input_tokens: 10,
            output_tokens: 5,
            cache_read_tokens: Some(60),
            cache_write_tokens: Some(30),
            total_cost: Some(0.25),
            ..Usage::default()
        })
    );
}

#[test]
fn event_lines_and_done_marker_are_optional() {
    let events = [
        created(),
        added(0, function_call("fc_1", "call_1", "f", "")),
        args_delta(0, "{}"),
        done(0, function_call("fc_1", "call_1", "f", "{}")),
        completed(usage(2, 0, 2, 0)),
    ];
    let framed = decode_all_splits(&sse(&events)).unwrap();
    assert_eq!(decode_all_splits(&data_only(&events)).unwrap(), framed);
    // The JSON's `type` decides, whatever an `event:` line says; CRLF framing too.
    let mut lying = String::new();
    for event in &events {
        lying.push_str(&format!("event: message\r\ndata: {event}\r\n\r\n"));
    }
    assert_eq!(decode_all_splits(&lying).unwrap(), framed);
    assert_eq!(framed.last(), Some(&Chunk::stop("tool_use")));
}

#[test]
fn members_may_come_in_any_order() {
    // Keys sorted, as the Copilot endpoint sends them: `type` comes last.
    let body = concat!(
        "data: {\"item\":{\"arguments\":\"\",\"call_id\":\"call_s\",\"id\":\"x\",\"name\":\"g\",\"type\":\"function_call\"},",
        "\"output_index\":0,\"type\":\"response.output_item.added\"}\n\n",
        "data: {\"delta\":\"{\\\"a\\\":1}\",\"item_id\":\"y\",\"output_index\":0,",
        "\"type\":\"response.function_call_arguments.delta\"}\n\n",
        "data: {\"response\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1}},\"type\":\"response.completed\"}\n\n",
    );
    let chunks = decode_all_splits(body).unwrap();
    assert_eq!(assembled(&chunks), [("call_s".into(), "g".into(), "{\"a\":1}".into())]);
    assert_eq!(chunks.last(), Some(&Chunk::stop("tool_use")));
}

#[test]
fn malformed_event_json_is_reported() {
    let body = "data: {\"type\":\"response.output_text.delta\",\"delta\":}\n\n";
    assert!(matches!(decode_all_splits(body), Err(StreamError::MalformedJson { .. })));
}
