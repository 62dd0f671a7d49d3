//! Native context management through whole tasks (CONTEXT §6, §7, §9; §10 items 11 to 13, 15,
//! 16 and 18): the provider's compaction carried back verbatim (Anthropic's block, the
//! Responses item), the view starting at the carrier, the pause and its re-insertion, the task
//! reminder, the request fields, `auto` and its sticky fallback, server-side edits, the
//! compaction say, the bill of a compacted request, and the snapshot. Every stream here is
//! synthetic, shaped after the recordings.

use crate::harness::*;
use clew::agent::{
    codes, CheckpointKind, ContextConfig, Effect, MessageKind, Outcome, Strategy, SummarizeConfig, Task, TaskConfig,
    TaskOptions, ToolCalling,
};
use clew::conversation::{ContentBlock, Role};
use clew::json::Json;
use clew::request::{build_request, HttpRequest, ModelRequest};
use clew::stream::model::ModelInfo;
use clew::stream::Format;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// Options.

/// `new Task(options)`'s reader over a model of `format` and `id` with `info` and
/// `contextManagement`.
fn read_options(format: Format, id: &str, info: Value, management: Value) -> TaskOptions {
    let options = json!({"model": {"format": format.name(), "id": id, "info": info}, "contextManagement": management});
    TaskOptions::from_json(&Json::parse(&options.to_string()).unwrap(), 0)
        .unwrap_or_else(|e| panic!("{format} {id} {management}: {e}"))
}

/// Native tool calling in `format` for model `id` with `info` and `management`, the harness's
/// two tools.
fn config_with(format: Format, id: &str, info: Value, management: Value) -> TaskConfig {
    let read = read_options(format, id, info, management);
    TaskConfig {
        format,
        tool_calling: ToolCalling::Native,
        parallel_tool_calling: true,
        info: read.config.info,
        context: read.config.context,
        ..config()
    }
}

/// [`config_with`] and a 200,000-token window.
fn native_config(format: Format, id: &str, management: Value) -> TaskConfig {
    config_with(format, id, json!({"contextWindow": 200_000}), management)
}

/// Claude Sonnet 4.6 (a listed model) over Anthropic with `management`.
fn sonnet(management: Value) -> TaskConfig {
    native_config(Format::Anthropic, "claude-sonnet-4-6", management)
}

const TASK: &str = "Fix the README.";

fn run(config: TaskConfig, script: Vec<Reply>) -> Harness {
    let mut h = Harness::new(config, script);
    h.start(TASK);
    h
}

fn completed(h: &Harness) {
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}\n{:#?}", h.outcome(), h.transcript());
}

fn failure_code(h: &Harness) -> String {
    match h.outcome() {
        Some(Outcome::Failed { code, .. }) => code.clone(),
        other => panic!("the task did not fail: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Anthropic replies.

/// One content block of a scripted Anthropic reply.
enum Block<'a> {
    /// A compaction block: its `content` and `encrypted_content` in one `compaction_delta`
    /// (none of either: no delta, a failed compaction).
    Compaction(Option<&'a str>, Option<&'a str>),
    /// A signed thinking block.
    Thinking(&'a str),
    Text(&'a str),
    /// A `tool_use` block: id, name, input.
    Call(&'a str, &'a str, Value),
}

/// An Anthropic reply: `message_start` with `start_usage`, the blocks, then a `message_delta`
/// stopping with `stop` and holding the members of `end` (its `usage`, its
/// `context_management`).
fn anthropic(blocks: &[Block<'_>], stop: &str, start_usage: Value, end: Value) -> Reply {
    let mut events = vec![sse(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg","type":"message","role":"assistant","content":[],"model":"m","usage":start_usage}}),
    )];
    for (index, block) in blocks.iter().enumerate() {
        let (start, deltas) = match block {
            Block::Compaction(content, encrypted) => {
                let mut delta = json!({"type":"compaction_delta"});
                if let Some(content) = content {
                    delta["content"] = json!(content);
                }
                if let Some(encrypted) = encrypted {
                    delta["encrypted_content"] = json!(encrypted);
                }
                let deltas = if content.is_some() || encrypted.is_some() { vec![delta] } else { Vec::new() };
                (json!({"type":"compaction","content":null}), deltas)
            }
            Block::Thinking(thinking) => (
                json!({"type":"thinking","thinking":""}),
                vec![
                    json!({"type":"thinking_delta","thinking":thinking}),
                    json!({"type":"signature_delta","signature":format!("sig-{thinking}")}),
                ],
            ),
            Block::Text(text) => (json!({"type":"text","text":""}), vec![json!({"type":"text_delta","text":text})]),
            Block::Call(id, name, input) => (
                json!({"type":"tool_use","id":id,"name":name,"input":{}}),
                vec![json!({"type":"input_json_delta","partial_json":input.to_string()})],
            ),
        };
        events.push(sse(
            "content_block_start",
            json!({"type":"content_block_start","index":index,"content_block":start}),
        ));
        events.push(sse("ping", json!({"type":"ping"})));
        for delta in deltas {
            events.push(sse("content_block_delta", json!({"type":"content_block_delta","index":index,"delta":delta})));
        }
        events.push(sse("content_block_stop", json!({"type":"content_block_stop","index":index})));
    }
    let mut delta = json!({"type":"message_delta","delta":{"stop_reason":stop}});
    for (key, value) in end.as_object().unwrap() {
        delta[key] = value.clone();
    }
    events.push(sse("message_delta", delta));
    events.push(sse("message_stop", json!({"type":"message_stop"})));
    Reply::Bytes(events)
}

/// A reply with `input` input tokens and 10 output tokens (its figure: `input` + 10),
/// stopping on its calls (`tool_use`) or at its end.
fn turn(blocks: &[Block<'_>], input: u64) -> Reply {
    let stop = if blocks.iter().any(|b| matches!(b, Block::Call(..))) { "tool_use" } else { "end_turn" };
    anthropic(blocks, stop, json!({"input_tokens":input,"output_tokens":1}), json!({"usage":{"output_tokens":10}}))
}

fn read_call<'a>(id: &'a str, path: &str) -> Block<'a> {
    Block::Call(id, "read", json!({ "path": path }))
}

/// A reply that reads `path` (call `toolu_{path}`) with `input` input tokens.
fn reads(path: &str, input: u64) -> Reply {
    let id = format!("toolu_{path}");
    turn(&[Block::Text("Reading."), read_call(&id, path)], input)
}

/// A reply that completes the task.
fn done() -> Reply {
    turn(&[Block::Call("toolu_done", "attempt_completion", json!({"result": "done"}))], 100)
}

/// The usage of `anthropic-compaction-cache`: the message starts with the compaction pass's
/// counts; the final usage lists both passes (compaction: input 100, cache read 55,096,
/// output 83; message: input 181, output 8). `message: false`: the compaction pass alone (a
/// paused compaction).
fn compaction_usage(message: bool) -> (Value, Value) {
    let start =
        json!({"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":55_096,"output_tokens":7});
    let compaction = json!({"type":"compaction","input_tokens":100,"output_tokens":83,"cache_read_input_tokens":55_096,"cache_creation_input_tokens":0});
    let end = if message {
        let pass = json!({"type":"message","input_tokens":181,"output_tokens":8,"cache_read_input_tokens":0,"cache_creation_input_tokens":0});
        json!({"usage":{"input_tokens":181,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":8,"iterations":[compaction, pass]}})
    } else {
        json!({"usage":{"input_tokens":100,"cache_read_input_tokens":55_096,"output_tokens":83,"iterations":[compaction]}})
    };
    (start, end)
}

const SUMMARY: &str = "The user asked to fix the README; a.md was read. Next step: read b.md.";

/// The compaction block as the API takes it back.
fn sent_block() -> Value {
    json!({"type":"compaction","content":SUMMARY,"encrypted_content":"enc-1"})
}

// ---------------------------------------------------------------------------------------
// OpenAI Responses replies.

fn data(value: Value) -> Vec<u8> {
    format!("data: {value}\n\n").into_bytes()
}

fn message_item(id: &str, text: &str) -> Value {
    json!({"type":"message","id":id,"role":"assistant","content":[{"type":"output_text","text":text}]})
}

fn call_item(call_id: &str, name: &str, args: Value) -> Value {
    json!({"type":"function_call","id":format!("fc_{call_id}"),"call_id":call_id,"name":name,"arguments":args.to_string()})
}

fn compaction_item(id: &str, encrypted: &str) -> Value {
    json!({"type":"compaction","id":id,"encrypted_content":encrypted})
}

/// A Responses reply: each item added then done (a compaction item's `added` form holds only
/// part of its encrypted content, as recorded; `done` is authoritative), and `input` input
/// tokens.
fn responses(items: &[Value], input: u64) -> Reply {
    let mut events = vec![data(json!({"type":"response.created","response":{"id":"resp"}}))];
    for (index, item) in items.iter().enumerate() {
        let mut added = item.clone();
        match item["type"].as_str().unwrap() {
            "compaction" => added["encrypted_content"] = json!("partial"),
            "message" => added["content"] = json!([]),
            "function_call" => added["arguments"] = json!(""),
            _ => {}
        }
        events.push(data(json!({"type":"response.output_item.added","output_index":index,"item":added})));
        if item["type"] == "message" {
            let text = &item["content"][0]["text"];
            events.push(data(
                json!({"type":"response.output_text.delta","output_index":index,"item_id":item["id"],"delta":text}),
            ));
        }
        events.push(data(json!({"type":"response.output_item.done","output_index":index,"item":item})));
    }
    let usage = json!({"input_tokens":input,"output_tokens":10});
    events.push(data(json!({"type":"response.completed","response":{"status":"completed","usage":usage}})));
    Reply::Bytes(events)
}

fn responses_done() -> Reply {
    responses(&[call_item("call_done", "attempt_completion", json!({"result":"done"}))], 100)
}

// ---------------------------------------------------------------------------------------
// Bodies, says and the transcript.

fn http_of(format: Format, request: &ModelRequest) -> HttpRequest {
    build_request(format, request)
}

fn body(format: Format, request: &ModelRequest) -> Value {
    serde_json::from_str(&http_of(format, request).body).unwrap()
}

/// The `messages` (Anthropic) or `input` (Responses) of each request's body.
fn sent(h: &Harness) -> Vec<Vec<Value>> {
    let format = h.task.config().format;
    let list = if format == Format::OpenAiResponses { "input" } else { "messages" };
    h.requests.iter().map(|r| body(format, r)[list].as_array().unwrap().clone()).collect()
}

/// The compaction says, parsed.
fn compactions(h: &Harness) -> Vec<Value> {
    h.task
        .messages()
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::Say(k) if k.as_str() == "compaction"))
        .map(|m| serde_json::from_str(&m.text).unwrap())
        .collect()
}

/// For each `api_req_started`, the compaction says after it and before the next one.
fn compactions_after_request(h: &Harness) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    for m in h.task.messages() {
        match m.kind {
            MessageKind::Say(k) if k.as_str() == "api_req_started" => out.push(Vec::new()),
            MessageKind::Say(k) if k.as_str() == "compaction" => out
                .last_mut()
                .expect("a compaction say before any request")
                .push(serde_json::from_str(&m.text).unwrap()),
            _ => {}
        }
    }
    out
}

/// The keys of a JSON object, sorted.
fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

/// The `type`s of an Anthropic message's blocks.
fn types(message: &Value) -> Vec<String> {
    message["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap().to_owned()).collect()
}

/// The reminder of the task opening a user message (§6.2).
fn is_reminder(block: &ContentBlock, task: &str) -> bool {
    matches!(block, ContentBlock::Text { text, .. } if text.starts_with("[Context compacted]") && text.contains(task))
}

/// Message 0's first text: the task as the model reads it.
fn task_text(h: &Harness) -> String {
    block_texts(&h.task.history()[0].content.blocks())[0].clone()
}

/// Indices in `effects` of each `OpenStream`.
fn opened(h: &Harness) -> Vec<usize> {
    (0..h.effects.len()).filter(|&i| matches!(h.effects[i], Effect::OpenStream { .. })).collect()
}

// ---------------------------------------------------------------------------------------
// §10 item 11: Anthropic carry-back.

/// Reads a.md, then a reply whose compaction block (content and encrypted content) is
/// followed by text and a read of b.md, then a completion.
fn carried_script() -> Vec<Reply> {
    vec![
        reads("a", 1_000),
        turn(
            &[Block::Compaction(Some(SUMMARY), Some("enc-1")), Block::Text("Going on."), read_call("toolu_b", "b")],
            1_000,
        ),
        done(),
    ]
}

#[test]
fn with_drop_compacted_off_the_compaction_block_goes_back_verbatim_first_in_its_message_with_the_whole_history() {
    let config = sonnet(json!({"strategy": "native", "native": {"dropCompacted": false}}));
    let h = run(config, carried_script());
    completed(&h);
    assert_eq!(h.requests.len(), 3);
    let sent = sent(&h);
    assert_eq!(sent[2].len(), 5, "the whole history: {:#}", json!(sent[2]));
    assert_eq!(sent[2][..3], sent[1][..3], "what went before is sent as it was");
    let carrier = &sent[2][3];
    assert_eq!(carrier["role"], "assistant");
    assert_eq!(carrier["content"][0], sent_block(), "verbatim, first in its message");
    assert_eq!(types(carrier), ["compaction", "text", "tool_use"]);
    assert_eq!(carrier["content"][1]["text"], "Going on.", "the text does not hold the summary");
    // The history holds the block as it came.
    let stored = h.task.history()[3].content.blocks();
    assert!(
        matches!(&stored[0], ContentBlock::Compaction { provider: Format::Anthropic, content: Some(c), encrypted_content: Some(e), .. } if c == SUMMARY && e == "enc-1"),
        "{:?}",
        stored[0]
    );
}

#[test]
fn with_drop_compacted_the_request_starts_at_the_carrier() {
    let h = run(sonnet(json!({"strategy": "native"})), carried_script());
    completed(&h);
    let sent = sent(&h);
    assert_eq!(sent[2].len(), 2, "[carrier, its results]: {:#}", json!(sent[2]));
    assert_eq!(sent[2][0]["role"], "assistant", "a request may start with an assistant message");
    assert_eq!(sent[2][0]["content"][0], sent_block());
    assert_eq!(types(&sent[2][0]), ["compaction", "text", "tool_use"]);
    assert_eq!(sent[2][1]["role"], "user");
    assert!(types(&sent[2][1]).contains(&"tool_result".to_owned()), "the carrier's call keeps its result");
    // The history is never shortened.
    assert_eq!(h.task.history().len(), 6);
}

/// Reads a.md; a reply holding a compaction block that never got content (`content: null`,
/// no delta), then text and a read of b.md, with `end` as its final usage; `then` after it.
fn null_compaction_script(end: Value, then: Vec<Reply>) -> Vec<Reply> {
    let mut script = vec![
        reads("a", 1_000),
        anthropic(
            &[Block::Compaction(None, None), Block::Text("Going on."), read_call("toolu_b", "b")],
            "tool_use",
            json!({"input_tokens":1_000,"output_tokens":1}),
            end,
        ),
    ];
    script.extend(then);
    script
}

#[test]
fn a_compaction_without_content_drops_nothing_is_replayed_with_null_content_and_is_said_as_failed() {
    let end = json!({"usage":{"output_tokens":10}});
    let h = run(sonnet(json!({"strategy": "native"})), null_compaction_script(end, vec![done()]));
    completed(&h);
    assert_eq!(h.requests.len(), 3);
    let sent = sent(&h);
    assert_eq!(sent[2].len(), 5, "no boundary: nothing dropped: {:#}", json!(sent[2]));
    assert_eq!(sent[2][0], sent[1][0], "the task goes first");
    assert_eq!(sent[2][3]["content"][0], json!({"type":"compaction","content":null}), "replayed as received");
    assert_eq!(types(&sent[2][3]), ["compaction", "text", "tool_use"]);
    let says = compactions(&h);
    assert_eq!(says.len(), 1, "{says:?}");
    let say = &says[0];
    assert_eq!(
        (&say["kind"], &say["provider"], &say["status"]),
        (&json!("native"), &json!("anthropic"), &json!("failed"))
    );
    assert!(say["reason"].as_str().is_some_and(|r| !r.is_empty()), "{say}");
    assert!(say.get("summary").is_none(), "{say}");
    assert_eq!(compactions_after_request(&h).iter().map(Vec::len).collect::<Vec<_>>(), [0, 1, 0]);
}

#[test]
fn a_compaction_without_content_counts_for_the_loop_breaker() {
    let management = json!({"strategy": "native", "maxContextTokens": 50_000, "maxConsecutiveCompactions": 1});
    // No message pass reported: the context is unknown right after the compaction, which
    // needs one; the count is at its maximum, so no third request goes.
    let end = json!({"usage":{"output_tokens":10}});
    let h = run(sonnet(management.clone()), null_compaction_script(end, vec![done()]));
    assert_eq!(failure_code(&h), codes::CONTEXT_WINDOW_EXCEEDED);
    assert_eq!(h.requests.len(), 2);
    // The message pass measured (1,010, under the limit): the next request goes; its reply
    // reports 60,010, over the limit, and the request after it would need a compaction.
    let end =
        json!({"usage":{"output_tokens":10,"iterations":[{"type":"message","input_tokens":1_000,"output_tokens":10}]}});
    let h = run(sonnet(management), null_compaction_script(end, vec![reads("c", 60_000), done()]));
    assert_eq!(h.api_reqs()[1]["contextTokens"], 1_010);
    assert_eq!(h.requests.len(), 3, "{:#?}", h.transcript());
    assert_eq!(sent(&h)[2][3]["content"][0], json!({"type":"compaction","content":null}));
    assert_eq!(failure_code(&h), codes::CONTEXT_WINDOW_EXCEEDED);
}

#[test]
fn a_failed_compaction_after_a_successful_one_leaves_the_successful_one_as_the_head() {
    let script = vec![
        reads("a", 1_000),
        turn(
            &[Block::Compaction(Some(SUMMARY), Some("enc-1")), Block::Text("Going on."), read_call("toolu_b", "b")],
            1_000,
        ),
        reads("c", 1_000),
        turn(&[Block::Compaction(None, None), Block::Text("Still going."), read_call("toolu_d", "d")], 1_000),
        done(),
    ];
    let h = run(sonnet(json!({"strategy": "native"})), script);
    completed(&h);
    let sent = sent(&h);
    assert_eq!(sent[4][0]["content"][0], sent_block(), "the view still starts at the first carrier");
    assert_eq!(sent[4].len(), 6, "{:#}", json!(sent[4]));
    assert_eq!(sent[4][4]["content"][0], json!({"type":"compaction","content":null}));
    let says: Vec<Value> = compactions(&h).iter().map(|c| c["status"].clone()).collect();
    assert_eq!(says, [json!("completed"), json!("failed")]);
}

#[test]
fn a_compaction_block_with_empty_content_is_no_boundary_since_it_is_sent_as_a_failed_one() {
    // A delta whose content is "" gives a block the builder sends with `content: null` (an
    // empty string is never sent): the server reads a failed compaction, so the view must
    // not drop what came before it.
    let script = vec![
        reads("a", 1_000),
        turn(&[Block::Compaction(Some(""), None), Block::Text("Going on."), read_call("toolu_b", "b")], 1_000),
        done(),
    ];
    let h = run(sonnet(json!({"strategy": "native"})), script);
    completed(&h);
    let sent = sent(&h);
    let carrier = sent[2].iter().find(|m| m["content"][0]["type"] == "compaction").unwrap();
    assert_eq!(carrier["content"][0], json!({"type":"compaction","content":null}));
    assert_eq!(sent[2].len(), 5, "the history before a failed compaction is sent: {:#}", json!(sent[2]));
    assert_eq!(compactions(&h)[0]["status"], "failed");
}

// ---------------------------------------------------------------------------------------
// §10 item 12: Responses carry-back.

fn gpt5(management: Value) -> TaskConfig {
    native_config(Format::OpenAiResponses, "gpt-5", management)
}

/// A read of a, then a reply [message, compaction item] (no call), then a completion.
fn responses_script() -> Vec<Reply> {
    vec![
        responses(&[message_item("msg_1", "Reading a."), call_item("call_1", "read", json!({"path":"a"}))], 1_000),
        responses(&[message_item("msg_2", "Compacting."), compaction_item("cmp_2", "cenc-2")], 1_000),
        responses_done(),
    ]
}

#[test]
fn a_responses_compaction_item_goes_back_whole_with_its_id() {
    let h = run(gpt5(json!({"strategy": "native", "native": {"dropCompacted": false}})), responses_script());
    completed(&h);
    assert_eq!(h.requests.len(), 3);
    let sent = sent(&h);
    let at = sent[2].iter().position(|i| i["type"] == "compaction").expect("the compaction item is sent");
    assert_eq!(sent[2][at], compaction_item("cmp_2", "cenc-2"), "the done form, with its id");
    assert_eq!(sent[2][..at - 1], sent[1][..], "what went before is sent as it was");
    assert_eq!(sent[2][at - 1]["content"][0]["text"], "Compacting.", "the message before it, in output order");
    assert!(sent[2][at + 1..].iter().all(|i| i["role"] == "user"), "{:#}", json!(sent[2]));
    // The say: no summary (opaque), the input before the compaction, nothing measured after.
    let says = compactions(&h);
    assert_eq!(says.len(), 1, "{says:?}");
    assert_eq!(keys(&says[0]), ["id", "kind", "provider", "status", "tokensBefore"]);
    assert_eq!(
        (&says[0]["kind"], &says[0]["provider"], &says[0]["status"], &says[0]["tokensBefore"]),
        (&json!("native"), &json!("openai-responses"), &json!("completed"), &json!(1_000))
    );
    let reqs = h.api_reqs();
    assert_eq!(reqs[1]["compactionPass"], "native");
    assert!(reqs[1].get("contextTokens").is_none(), "usage measured before the pruning: no figure: {}", reqs[1]);
    assert!(reqs[0].get("compactionPass").is_none() && reqs[2].get("compactionPass").is_none());
}

#[test]
fn with_drop_compacted_the_responses_input_starts_at_the_compaction_item() {
    let h = run(gpt5(json!({"strategy": "native"})), responses_script());
    completed(&h);
    let sent = sent(&h);
    assert_eq!(sent[2][0], compaction_item("cmp_2", "cenc-2"), "{:#}", json!(sent[2]));
    assert!(sent[2].len() >= 2);
    assert!(sent[2][1..].iter().all(|i| i["role"] == "user"), "[compaction, user…]: {:#}", json!(sent[2]));
    let text = json!(sent[2]).to_string();
    assert!(!text.contains("call_1") && !text.contains("Compacting."), "{text}");
}

#[test]
fn a_call_before_the_compaction_item_keeps_its_output_and_the_input_starts_at_its_turn() {
    let script = vec![
        responses(&[message_item("msg_1", "Reading a."), call_item("call_1", "read", json!({"path":"a"}))], 1_000),
        responses(
            &[
                message_item("msg_2", "Reading b."),
                call_item("call_2", "read", json!({"path":"b"})),
                compaction_item("cmp_2", "cenc-2"),
            ],
            1_000,
        ),
        responses_done(),
    ];
    let h = run(gpt5(json!({"strategy": "native"})), script);
    completed(&h);
    let sent = sent(&h);
    let input = &sent[2];
    assert_eq!(input[0]["type"], "message", "the carrier's first item: {:#}", json!(input));
    assert_eq!(input[0]["content"][0]["text"], "Reading b.");
    let kinds: Vec<&str> = input.iter().map(|i| i["type"].as_str().unwrap_or("message")).collect();
    assert_eq!(kinds[..4], ["message", "function_call", "compaction", "function_call_output"], "{kinds:?}");
    assert_eq!(input[1]["call_id"], "call_2");
    assert_eq!(input[2], compaction_item("cmp_2", "cenc-2"));
    assert_eq!(input[3]["call_id"], "call_2", "the call keeps its output");
    assert!(!json!(input).to_string().contains("call_1"));
}

// ---------------------------------------------------------------------------------------
// §10 item 13: the pause, the re-insertion and the reminder.

/// Reads a.md; a paused compaction (the response holds only the block and stops with
/// `compaction`); reads b.md; completes.
fn paused_script() -> Vec<Reply> {
    let (start, end) = compaction_usage(false);
    vec![
        reads("a", 1_000),
        anthropic(&[Block::Compaction(Some(SUMMARY), Some("enc-1"))], "compaction", start, end),
        reads("b", 1_000),
        done(),
    ]
}

#[test]
fn a_paused_compaction_goes_on_in_the_same_round_from_the_carrier_and_the_reinsertion() {
    let config = TaskConfig { checkpoints: true, ..sonnet(json!({"strategy": "native"})) };
    let h = run(config, paused_script());
    completed(&h);
    assert_eq!(h.requests.len(), 4);
    // No tool, no mistake, no empty reply for the paused response.
    let paths: Vec<&str> = h.tool_calls.iter().map(|(_, p)| p[0].1.as_str()).collect();
    assert_eq!(paths, ["a", "b"]);
    assert!(h.kinds().iter().all(|k| k != "say error"), "{:#?}", h.transcript());
    let no_tools = clew::agent::texts::no_tools_used(true);
    assert!(h.task.history().iter().all(|m| !block_texts(&m.content.blocks()).contains(&no_tools)));
    // The same round: no round checkpoint between the paused response and the next request,
    // which has its own api_req_started.
    let streams = opened(&h);
    let round_checkpoint =
        |i: &usize| matches!(h.effects[*i], Effect::SaveCheckpoint { kind: CheckpointKind::Round, .. });
    assert!(!(streams[1]..streams[2]).any(|i| round_checkpoint(&i)), "a checkpoint between the two requests");
    assert!((streams[0]..streams[1]).any(|i| round_checkpoint(&i)), "the first round ends with one");
    let reqs = h.api_reqs();
    assert_eq!(reqs.len(), 4);
    assert_eq!(reqs[1]["compactionPass"], "native");
    assert!(reqs[2].get("compactionPass").is_none());
    // The request after it: [carrier, re-insertion].
    let view = &h.requests[2].messages;
    assert_eq!(view.len(), 2, "{view:#?}");
    assert_eq!(view[0].role, Role::Assistant);
    assert!(matches!(view[0].content.blocks()[..], [ContentBlock::Compaction { .. }]), "{:?}", view[0]);
    assert_eq!(view[1].role, Role::User);
    let reinsertion = view[1].content.blocks();
    assert!(is_reminder(&reinsertion[0], &task_text(&h)), "{:?}", reinsertion[0]);
    assert!(
        reinsertion[1..].iter().all(|b| matches!(b, ContentBlock::Text { .. })),
        "results as text: {reinsertion:?}"
    );
    let previous = h.requests[1].messages.last().unwrap().content.blocks();
    assert!(previous.iter().any(|b| matches!(b, ContentBlock::ToolResult { .. })));
    assert_eq!(block_texts(&reinsertion[1..]), block_texts(&previous), "the previous request's user content");
    let sent = sent(&h);
    assert_eq!(sent[2][0], json!({"role":"assistant","content":[sent_block()]}));
    // The compaction pass measured: its input; nothing after it.
    let says = compactions(&h);
    assert_eq!(says.len(), 1);
    assert_eq!(keys(&says[0]), ["id", "kind", "provider", "status", "summary", "tokensBefore"]);
    assert_eq!(says[0]["tokensBefore"], 55_196);
    assert_eq!(says[0]["summary"], SUMMARY);
    assert_eq!(compactions_after_request(&h).iter().map(Vec::len).collect::<Vec<_>>(), [0, 1, 0, 0]);
    // The reminder is not sent again.
    assert_eq!(h.task.history().iter().filter(|m| m.content.blocks().iter().any(|b| is_reminder(b, TASK))).count(), 1);
}

#[test]
fn with_drop_compacted_off_a_paused_compaction_sends_the_whole_history_then_the_reinsertion() {
    let h = run(sonnet(json!({"strategy": "native", "native": {"dropCompacted": false}})), paused_script());
    completed(&h);
    let view = &h.requests[2].messages;
    assert_eq!(view.len(), 5);
    assert_eq!(view[..3], h.requests[1].messages[..]);
    assert!(is_reminder(&view[4].content.blocks()[0], TASK));
}

#[test]
fn the_request_asks_for_the_pause_only_when_configured() {
    let compact = |management: Value| {
        let mut h = Harness::new(sonnet(management), Vec::new());
        h.task.start(h.now, TASK, Vec::new());
        h.drain();
        body(Format::Anthropic, &h.requests[0])["context_management"]["edits"][0].clone()
    };
    assert_eq!(compact(json!({"strategy": "native"}))["pause_after_compaction"], true);
    let off = compact(json!({"strategy": "native", "native": {"pauseAfterCompaction": false}}));
    assert!(off.get("pause_after_compaction").is_none(), "{off}");
}

#[test]
fn without_the_pause_the_next_round_starts_with_the_task_reminder_once() {
    let config = sonnet(json!({"strategy": "native", "native": {"pauseAfterCompaction": false}}));
    let script = vec![
        reads("a", 1_000),
        turn(
            &[Block::Compaction(Some(SUMMARY), Some("enc-1")), Block::Text("Going on."), read_call("toolu_b", "b")],
            1_000,
        ),
        reads("c", 1_000),
        done(),
    ];
    let h = run(config, script);
    completed(&h);
    assert_eq!(h.requests.len(), 4, "no extra request without the pause");
    let last_user = |n: usize| h.requests[n].messages.last().unwrap().content.blocks();
    let after = last_user(2);
    assert!(is_reminder(&after[0], &task_text(&h)), "{:?}", after[0]);
    assert!(matches!(&after[1], ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == "toolu_b"), "{after:?}");
    for n in [1, 3] {
        assert!(!last_user(n).iter().any(|b| is_reminder(b, TASK)), "request {n}: {:?}", last_user(n));
    }
    assert_eq!(h.api_reqs()[1]["compactionPass"], "native");
    assert_eq!(compactions(&h).len(), 1);
}

#[test]
fn fable_5_1_with_drop_compacted_off_sends_no_thinking_from_before_the_carrier() {
    let script = || {
        vec![
            turn(&[Block::Thinking("Plan 1."), Block::Text("Reading a."), read_call("toolu_a", "a")], 1_000),
            turn(
                &[
                    Block::Compaction(Some(SUMMARY), Some("enc-1")),
                    Block::Thinking("Plan 2."),
                    Block::Text("Reading b."),
                    read_call("toolu_b", "b"),
                ],
                1_000,
            ),
            turn(&[Block::Thinking("Plan 3."), Block::Text("Reading c."), read_call("toolu_c", "c")], 1_000),
            done(),
        ]
    };
    let management = json!({"strategy": "native", "native": {"dropCompacted": false, "pauseAfterCompaction": false}});
    let thinking = |h: &Harness, n: usize| -> Vec<Vec<String>> {
        sent(h)[n]
            .iter()
            .filter(|m| m["role"] == "assistant")
            .map(|m| {
                m["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|b| b["type"] == "thinking")
                    .map(|b| b["thinking"].as_str().unwrap().to_owned())
                    .collect()
            })
            .collect()
    };
    let fable = run(native_config(Format::Anthropic, "claude-fable-5-1", management.clone()), script());
    completed(&fable);
    assert_eq!(thinking(&fable, 1), [vec!["Plan 1.".to_owned()]], "before any compaction, thinking goes");
    assert_eq!(thinking(&fable, 2), [vec![], vec!["Plan 2.".to_owned()]]);
    assert_eq!(thinking(&fable, 3), [vec![], vec!["Plan 2.".to_owned()], vec!["Plan 3.".to_owned()]]);
    assert_eq!(sent(&fable)[3].len(), 7, "the whole history otherwise");
    // A model that takes earlier thinking gets it.
    let other = run(sonnet(management), script());
    assert_eq!(
        thinking(&other, 3),
        [vec!["Plan 1.".to_owned()], vec!["Plan 2.".to_owned()], vec!["Plan 3.".to_owned()]]
    );
}

#[test]
fn a_second_pause_in_a_row_reinserts_the_reminder_once() {
    let paused = |summary: &'static str| {
        let (start, end) = compaction_usage(false);
        anthropic(&[Block::Compaction(Some(summary), Some("enc"))], "compaction", start, end)
    };
    let script =
        vec![reads("a", 1_000), paused("First summary."), paused("Second summary."), reads("b", 1_000), done()];
    let h = run(sonnet(json!({"strategy": "native"})), script);
    completed(&h);
    assert_eq!(h.requests.len(), 5);
    let view = &h.requests[3].messages;
    assert_eq!(view.len(), 2, "[the newest carrier, its re-insertion]: {view:#?}");
    let blocks = view[1].content.blocks();
    let reminders = blocks.iter().filter(|b| is_reminder(b, TASK)).count();
    assert_eq!(reminders, 1, "{blocks:?}");
    assert!(is_reminder(&blocks[0], TASK));
    let results = block_texts(&blocks[1..]);
    assert!(results.iter().any(|t| t.contains("path=a")), "the round's content still: {results:?}");
    assert_eq!(compactions(&h).len(), 2);
}

// ---------------------------------------------------------------------------------------
// Request fields (§6.2, §6.3).

/// The first request of a task with `config` (nothing else happens).
fn first_request(config: TaskConfig) -> ModelRequest {
    let mut h = Harness::new(config, Vec::new());
    h.task.start(h.now, TASK, Vec::new());
    h.drain();
    h.requests.remove(0)
}

fn betas(http: &HttpRequest) -> Vec<String> {
    http.headers.get("anthropic-beta").unwrap_or_default().split(',').map(|b| b.trim().to_owned()).collect()
}

#[test]
fn native_on_anthropic_sends_the_compact_edit_with_the_limit_as_its_trigger_and_its_beta() {
    let cases = [
        ("claude-sonnet-4-6", json!({"contextWindow": 200_000}), json!({}), 160_000),
        ("claude-sonnet-4-6", json!({"contextWindow": 200_000}), json!({"maxContextTokens": 60_000}), 60_000),
        ("claude-opus-4-6", json!({"contextWindow": 1_000_000}), json!({"maxContextTokens": 100_000}), 100_000),
        ("claude-opus-4-6", json!({"contextWindow": 1_000_000}), json!({}), 960_000),
        ("claude-3-haiku", json!({"contextWindow": 200_000, "supportsCompaction": true}), json!({}), 160_000),
        ("claude-sonnet-4-6", json!({"contextWindow": 200_000}), json!({"maxContextTokens": 50_000}), 50_000),
    ];
    for (id, info, extra, limit) in cases {
        let mut management = json!({"strategy": "native"});
        for (key, value) in extra.as_object().unwrap() {
            management[key] = value.clone();
        }
        let config = config_with(Format::Anthropic, id, info, management.clone());
        let http = http_of(Format::Anthropic, &first_request(config));
        let body: Value = serde_json::from_str(&http.body).unwrap();
        let expected = json!({"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": limit}, "pause_after_compaction": true}]});
        assert_eq!(body["context_management"], expected, "{id} {management}");
        assert_eq!(betas(&http), ["compact-2026-01-12"], "{id} {management}");
    }
    // Without native, neither.
    let http = http_of(Format::Anthropic, &first_request(sonnet(json!({"strategy": "truncate"}))));
    assert!(!http.body.contains("context_management") && http.headers.get("anthropic-beta").is_none());
}

#[test]
fn the_instructions_go_only_when_given() {
    let config = sonnet(json!({"strategy": "native", "native": {"instructions": "Keep the file names."}}));
    let body = body(Format::Anthropic, &first_request(config));
    assert_eq!(body["context_management"]["edits"][0]["instructions"], "Keep the file names.");
}

#[test]
fn native_on_responses_sends_the_compact_threshold() {
    for (info, management, limit) in [
        (json!({"contextWindow": 400_000}), json!({"strategy": "native"}), 360_000),
        (json!({"contextWindow": 400_000}), json!({"strategy": "native", "maxContextTokens": 100_000}), 100_000),
        (json!({}), json!({"strategy": "native"}), 98_000),
    ] {
        let config = config_with(Format::OpenAiResponses, "gpt-5", info, management.clone());
        let body = body(Format::OpenAiResponses, &first_request(config));
        assert_eq!(
            body["context_management"],
            json!([{"type": "compaction", "compact_threshold": limit}]),
            "{management}"
        );
    }
}

#[test]
fn server_edits_clear_thinking_then_tool_uses_then_compact_with_both_betas() {
    let config = sonnet(json!({"strategy": "native", "maxContextTokens": 100_000, "native": {"serverEdits": true}}));
    let request = first_request(config);
    let edit_types = |http: &HttpRequest| -> Vec<String> {
        let body: Value = serde_json::from_str(&http.body).unwrap();
        body["context_management"]["edits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .collect()
    };
    // Thinking on: the three edits, in the order the API requires.
    let mut thinking = request.clone();
    thinking.model.reasoning_budget = Some(2_048);
    let http = http_of(Format::Anthropic, &thinking);
    assert_eq!(edit_types(&http), ["clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112"]);
    let mut sent = betas(&http);
    sent.sort();
    assert_eq!(sent, ["compact-2026-01-12", "context-management-2025-06-27"]);
    let body: Value = serde_json::from_str(&http.body).unwrap();
    let edits = &body["context_management"]["edits"];
    assert_eq!(edits[0]["keep"], json!({"type": "thinking_turns", "value": 1}));
    assert_eq!(edits[1]["trigger"], json!({"type": "input_tokens", "value": 100_000}));
    assert_eq!(edits[1]["keep"], json!({"type": "tool_uses", "value": 3}));
    assert_eq!(edits[2]["trigger"], json!({"type": "input_tokens", "value": 100_000}));
    // Thinking off: no clear_thinking (the API refuses it).
    let http = http_of(Format::Anthropic, &request);
    assert_eq!(edit_types(&http), ["clear_tool_uses_20250919", "compact_20260112"]);
    assert!(betas(&http).contains(&"context-management-2025-06-27".to_owned()));
}

// ---------------------------------------------------------------------------------------
// §10 item 15: auto.

#[test]
fn auto_resolves_to_native_summarize_or_truncate_by_format_and_model() {
    let cases = [
        (Format::Anthropic, "claude-sonnet-4-6", Strategy::Native),
        (Format::Anthropic, "claude-opus-4-6", Strategy::Native),
        (Format::Anthropic, "claude-sonnet-4-5", Strategy::Summarize),
        (Format::Anthropic, "claude-3-haiku-20240307", Strategy::Truncate),
        (Format::Gemini, "gemini-2.5-pro", Strategy::Summarize),
        (Format::Gemini, "gemini-1.5-pro", Strategy::Truncate),
        (Format::OpenAi, "gpt-5", Strategy::Summarize),
        (Format::OpenAi, "gpt-4o", Strategy::Truncate),
    ];
    for (format, id, strategy) in cases {
        let config = native_config(format, id, json!({"strategy": "auto"}));
        assert_eq!(config.context.effective(false), strategy, "{format} {id}");
        let request = first_request(config);
        assert_eq!(request.context.is_some(), strategy == Strategy::Native, "{format} {id}: {:?}", request.context);
        let summarizes = request.tools.iter().any(|t| t.name == "summarize_task");
        assert_eq!(summarizes, strategy == Strategy::Summarize, "{format} {id}");
        let text = http_of(format, &request).body;
        assert_eq!(text.contains("compact_20260112"), strategy == Strategy::Native, "{format} {id}");
    }
}

/// Reads a.md; the provider refuses the next request with a 400 naming `refused`; the
/// request goes again; reads b.md; completes.
fn refused_script(refused: &str) -> Vec<Reply> {
    let body = json!({"type": "error", "error": {"type": "invalid_request_error", "message": refused}}).to_string();
    vec![reads("a", 1_000), fail(http(400, &body)), reads("b", 1_000), done()]
}

const REFUSALS: [&str; 2] = [
    "edits.0.type: Input tag 'compact_20260112' found using 'type' does not match any of the expected tags",
    "context_management: Extra inputs are not permitted",
];

/// Whether a request carries anything of native context management.
fn has_native_fields(format: Format, request: &ModelRequest) -> bool {
    let http = http_of(format, request);
    request.context.is_some()
        || http.body.contains("context_management")
        || http.headers.get("anthropic-beta").is_some_and(|b| b.contains("compact"))
}

#[test]
fn under_auto_a_refused_native_request_goes_again_at_once_without_the_native_fields() {
    for refused in REFUSALS {
        let h = run(sonnet(json!({"strategy": "auto"})), refused_script(refused));
        completed(&h);
        assert_eq!(h.requests.len(), 4, "{refused}: one re-send");
        let native: Vec<bool> = h.requests.iter().map(|r| has_native_fields(Format::Anthropic, r)).collect();
        assert_eq!(native, [true, true, false, false], "{refused}");
        assert_eq!(h.requests[2].messages, h.requests[1].messages, "the same view, again");
        // At once: no retry say, no delay.
        assert!(h.says_of("error_retry").is_empty(), "{refused}: {:?}", h.says_of("error_retry"));
        let streams = opened(&h);
        assert!(!(streams[1]..streams[2]).any(|i| matches!(h.effects[i], Effect::WakeAt(Some(_)))), "{refused}");
        assert!(h.now < 1_000 + 500, "{refused}: the clock moved to {}", h.now);
        // Reported once, with the provider's message.
        let says = compactions(&h);
        assert_eq!(says.len(), 1, "{refused}: {says:?}");
        assert_eq!((&says[0]["kind"], &says[0]["status"]), (&json!("native"), &json!("failed")));
        assert!(says[0]["reason"].as_str().unwrap().contains(refused), "{refused}: {}", says[0]);
        assert_eq!(h.task.config().context.effective(true), Strategy::Summarize, "the fallback");
    }
}

#[test]
fn the_fallback_from_native_survives_a_restore() {
    let config = TaskConfig { checkpoints: true, ..sonnet(json!({"strategy": "auto"})) };
    let whole = run(config.clone(), refused_script(REFUSALS[0]));
    completed(&whole);
    let mut points = 0;
    for stop_at in 1.. {
        let mut h = Harness::new(config.clone(), refused_script(REFUSALS[0]));
        h.pause = Some(at_waiting_point(stop_at));
        h.start(TASK);
        if h.outcome().is_some() {
            break;
        }
        if h.requests.len() < 3 {
            continue;
        }
        let mut task = Task::restore(&h.task.snapshot(), config.clone()).expect("restore");
        task.resume(h.now);
        let mut rest =
            Harness::new(config.clone(), refused_script(REFUSALS[0]).into_iter().skip(h.requests.len()).collect());
        rest.task = task;
        rest.now = h.now;
        rest.run();
        completed(&rest);
        for (n, request) in rest.requests.iter().enumerate() {
            assert!(
                !has_native_fields(Format::Anthropic, request),
                "waiting point {stop_at}, request {n} after the restore"
            );
        }
        assert_eq!(compactions(&rest).len(), 1, "waiting point {stop_at}: still reported once");
        let mut requests = h.requests.clone();
        requests.extend(rest.requests.iter().cloned());
        assert_eq!(requests, whole.requests, "waiting point {stop_at}");
        if !rest.requests.is_empty() {
            points += 1;
        }
    }
    assert!(points >= 2, "{points} waiting points after the fallback with a request after them");
}

#[test]
fn under_an_explicit_native_a_refused_request_ends_the_task_as_a_bad_request() {
    for refused in REFUSALS {
        let h = run(sonnet(json!({"strategy": "native"})), refused_script(refused));
        assert_eq!(failure_code(&h), codes::BAD_REQUEST, "{refused}");
        assert_eq!(h.requests.len(), 2, "{refused}");
        assert!(compactions(&h).is_empty(), "{refused}");
    }
}

#[test]
fn under_auto_a_refused_responses_request_goes_again_without_context_management() {
    let body = json!({"error": {"type": "invalid_request_error", "message": "Unknown parameter: 'context_management'.", "param": "context_management"}}).to_string();
    let script = vec![
        responses(&[message_item("msg_1", "Reading a."), call_item("call_1", "read", json!({"path":"a"}))], 1_000),
        fail(http(400, &body)),
        responses_done(),
    ];
    let h = run(gpt5(json!({"strategy": "auto"})), script);
    completed(&h);
    let native: Vec<bool> = h.requests.iter().map(|r| has_native_fields(Format::OpenAiResponses, r)).collect();
    assert_eq!(native, [true, true, false]);
    assert!(h.says_of("error_retry").is_empty());
    let says = compactions(&h);
    assert_eq!(says.len(), 1, "{says:?}");
    assert_eq!((&says[0]["provider"], &says[0]["status"]), (&json!("openai-responses"), &json!("failed")));
}

// ---------------------------------------------------------------------------------------
// §10 item 16: server-side edits.

/// A read of `path` with `input` input tokens whose final `message_delta` lists
/// `applied_edits`.
fn edited_read(id: &str, path: &str, input: u64, applied: Value) -> Reply {
    anthropic(
        &[Block::Text("Reading."), read_call(id, path)],
        "tool_use",
        json!({"input_tokens":input,"output_tokens":1}),
        json!({"usage":{"output_tokens":10},"context_management":{"applied_edits":applied}}),
    )
}

#[test]
fn applied_edits_give_one_edit_say_when_they_list_anything() {
    let config = sonnet(json!({"strategy": "native", "native": {"serverEdits": true}}));
    let cleared = json!([{"type":"clear_tool_uses_20250919","cleared_tool_uses":2,"cleared_input_tokens":5_000}]);
    let script =
        vec![edited_read("toolu_a", "a", 1_000, json!([])), edited_read("toolu_b", "b", 30_000, cleared), done()];
    let h = run(config, script);
    completed(&h);
    let per_request = compactions_after_request(&h);
    assert_eq!(per_request.iter().map(Vec::len).collect::<Vec<_>>(), [0, 1, 0], "an empty list says nothing");
    let say = &per_request[1][0];
    assert_eq!(keys(say), ["id", "kind", "status", "tokensBefore"]);
    assert_eq!((&say["kind"], &say["status"]), (&json!("edit"), &json!("completed")));
    let figure = h.api_reqs()[1]["contextTokens"].as_u64().unwrap();
    assert_eq!(figure, 30_010);
    assert_eq!(say["tokensBefore"], figure + 5_000);
    // The history stays unedited: the server cleared, not clew.
    let results: Vec<String> = block_texts(&h.requests[2].messages[2].content.blocks());
    assert!(results.iter().any(|t| t.contains("path=a")), "{results:?}");
}

#[test]
fn server_edits_take_the_edit_settings_and_the_client_pre_pass_stays_off() {
    let edit = json!({"keepToolUses": 5, "keepThinkingTurns": "all", "excludeTools": ["write"], "clearToolInputs": true, "clearAtLeast": 1_000});
    let management =
        json!({"strategy": "native", "maxContextTokens": 60_000, "edit": edit, "native": {"serverEdits": true}});
    let config = sonnet(management);
    let mut request = first_request(config.clone());
    request.model.reasoning_budget = Some(2_048);
    let body = body(Format::Anthropic, &request);
    let edits = body["context_management"]["edits"].as_array().unwrap().clone();
    assert_eq!(edits[0], json!({"type": "clear_thinking_20251015", "keep": "all"}));
    assert_eq!(
        edits[1],
        json!({"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 60_000},
            "keep": {"type": "tool_uses", "value": 5}, "clear_at_least": {"type": "input_tokens", "value": 1_000},
            "clear_tool_inputs": true, "exclude_tools": ["write"]})
    );
    assert_eq!(edits[2]["type"], "compact_20260112");
    // Figures over the limit: the server clears, the client does not.
    let script = vec![reads("a", 1_000), reads("b", 70_000), reads("c", 70_000), reads("d", 70_000), done()];
    let h = run(config, script);
    completed(&h);
    assert!(compactions(&h).is_empty(), "{:?}", compactions(&h));
    let texts: Vec<String> = h.requests.iter().map(|r| build_request(Format::Anthropic, r).body).collect();
    assert!(texts.iter().all(|t| !t.contains(clew::agent::texts::tool_result_cleared())));
    assert_eq!(h.requests[4].messages.len(), 9, "nothing removed");
}

// ---------------------------------------------------------------------------------------
// §10 item 18: the say, the bill, the snapshot.

#[test]
fn a_compacted_anthropic_response_bills_both_passes_and_says_what_each_measured() {
    let (start, end) = compaction_usage(true);
    let reply = anthropic(
        &[
            Block::Compaction(Some(SUMMARY), Some("enc-1")),
            Block::Text("Hello!"),
            Block::Call("toolu_done", "attempt_completion", json!({"result": "done"})),
        ],
        "tool_use",
        start,
        end,
    );
    let h = run(sonnet(json!({"strategy": "native"})), vec![reply]);
    completed(&h);
    let usage = h.task.usage();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.requests),
        (281, 91, 55_096, 0, 1)
    );
    let request = &h.api_reqs()[0];
    assert_eq!(
        (&request["tokensIn"], &request["tokensOut"], &request["cacheReads"]),
        (&json!(281), &json!(91), &json!(55_096))
    );
    assert_eq!(request["contextTokens"], 189, "the message pass, not the billed 55,468");
    assert_eq!(request["compactionPass"], "native");
    let says = compactions(&h);
    assert_eq!(says.len(), 1);
    assert_eq!(keys(&says[0]), ["id", "kind", "provider", "status", "summary", "tokensAfter", "tokensBefore"]);
    assert_eq!(
        (&says[0]["kind"], &says[0]["provider"], &says[0]["status"]),
        (&json!("native"), &json!("anthropic"), &json!("completed"))
    );
    assert_eq!(says[0]["tokensBefore"], 55_196, "the compaction pass's input and cache reads");
    assert_eq!(says[0]["tokensAfter"], 189);
    assert_eq!(says[0]["summary"], SUMMARY);
    // The say comes after its response's text, at the response's end.
    let kinds = h.kinds();
    let say_at = kinds.iter().position(|k| k == "say compaction").unwrap();
    assert!(kinds[..say_at].contains(&"say text".to_owned()), "{kinds:?}");
}

#[test]
fn a_cap_of_fifty_thousand_does_not_truncate_after_a_compaction_that_left_189_tokens() {
    let (start, end) = compaction_usage(true);
    let compacted = anthropic(
        &[Block::Compaction(Some(SUMMARY), Some("enc-1")), Block::Text("Hello!"), read_call("toolu_a", "a")],
        "tool_use",
        start,
        end,
    );
    let management = json!({"strategy": "truncate", "maxContextTokens": 50_000, "native": {"dropCompacted": false}});
    let script = vec![reads("x", 100), reads("y", 100), reads("z", 100), compacted, reads("b", 100), done()];
    let h = run(sonnet(management), script);
    completed(&h);
    assert_eq!(h.api_reqs()[3]["contextTokens"], 189);
    assert!(h.api_reqs().iter().all(|r| r.get("contextTruncated").is_none()), "{:?}", h.api_reqs());
    assert!(compactions(&h).iter().all(|c| c["kind"] == "native"));
    assert_eq!(h.requests[4].messages.len(), 9, "nothing removed");
}

#[test]
fn a_compaction_in_a_response_that_fails_midway_is_said_and_counted() {
    // The block arrived whole, then the stream broke: the block is kept (it heads the next
    // view), so the compaction happened and has its say.
    let cut = match turn(
        &[Block::Compaction(Some(SUMMARY), Some("enc-1")), Block::Text("Going on."), read_call("toolu_b", "b")],
        1_000,
    ) {
        Reply::Bytes(events) => {
            let stop = events.iter().position(|e| String::from_utf8_lossy(e).contains("text_delta")).unwrap();
            Reply::FailAfter(events[..=stop].to_vec(), clew::stream::StreamError::Network { message: "reset".into() })
        }
        _ => unreachable!(),
    };
    let h = run(sonnet(json!({"strategy": "native"})), vec![reads("a", 1_000), cut, reads("c", 1_000), done()]);
    completed(&h);
    assert!(
        h.task.history().iter().any(|m| m
            .content
            .blocks()
            .iter()
            .any(|b| matches!(b, ContentBlock::Compaction { .. }))),
        "the block is kept"
    );
    assert_eq!(h.api_reqs()[1]["compactionPass"], "native");
    let says = compactions(&h);
    assert_eq!(says.len(), 1, "one say per compaction: {says:?}");
    assert_eq!(says[0]["summary"], SUMMARY);
    // The view now starts at the carrier: the next round reminds the model of the task.
    let next = sent(&h)[2].clone();
    assert_eq!(next[0]["content"][0], sent_block(), "{:#}", json!(next));
    let user = h.requests[2].messages.last().unwrap().content.blocks();
    assert!(is_reminder(&user[0], TASK), "{user:?}");
}

/// The settings of the format-3 reference scenario "responses" (as
/// `reference_snapshots.rs` has them).
fn reference_responses_config() -> TaskConfig {
    let mut config = config();
    config.format = Format::OpenAiResponses;
    config.tool_calling = ToolCalling::Native;
    config.tools[1].idempotent = true;
    config.auto_approve.read_only = true;
    config.checkpoints = true;
    config.info = ModelInfo { input_price: Some(3.0), output_price: Some(15.0), ..ModelInfo::default() };
    config
}

fn reference_replies(scenario: &Value) -> Vec<Reply> {
    scenario["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|reply| {
            let pieces: Vec<Vec<u8>> =
                reply["pieces"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().as_bytes().to_vec()).collect();
            match reply.get("failStatus").and_then(Value::as_u64) {
                Some(status) => Reply::FailAfter(pieces, http(status as u16, reply["failBody"].as_str().unwrap())),
                None => Reply::Bytes(pieces),
            }
        })
        .collect()
}

/// Restores `snapshot` and runs it to its end with the scenario's remaining replies (a
/// follow-up question answered "no", everything else approved).
fn resume_reference(snapshot: &str, scenario: &Value, now: u64, used: usize) -> Harness {
    let config = reference_responses_config();
    let mut task = Task::restore(snapshot, config.clone()).expect("restore");
    task.resume(now);
    let mut h = Harness::new(config, reference_replies(scenario).into_iter().skip(used).collect());
    h.ask = Box::new(|m: &clew::agent::Message| match m.kind {
        _ if m.is_partial() => None,
        MessageKind::Ask(clew::agent::AskKind::Followup) => Some(clew::agent::AskAnswer::message("no")),
        _ => Some(clew::agent::AskAnswer::button(clew::agent::AskResponse::Yes)),
    });
    h.task = task;
    h.now = now;
    h.run();
    h
}

#[test]
fn a_format_3_compaction_item_restores_as_a_block_and_sends_the_same_request() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshots/v3/responses.json");
    let scenario: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // The point where the task waits on the follow-up question's answer: the history holds
    // [task, reply 1, results, reply 2 (a write), results, reply 3 (the question)].
    let point = scenario["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["at"] == "answer" && p["snapshot"]["history"].as_array().unwrap().len() == 6)
        .expect("the follow-up point")
        .clone();
    assert_eq!(point["snapshot"]["version"], 3);
    let (now, used) = (point["now"].as_u64().unwrap(), point["repliesUsed"].as_u64().unwrap() as usize);
    // Reply 2 gets a compaction item after its call, as format 3 kept one: an opaque item.
    let with = |block: Value| {
        let mut snapshot = point["snapshot"].clone();
        snapshot["history"][3]["content"].as_array_mut().unwrap().push(block);
        snapshot.to_string()
    };
    let item = compaction_item("cmp_9", "Y21wYWN0ZWQ=");
    let opaque = with(json!({"type": "item", "format": "openai-responses", "item": item}));
    let restored = Task::restore(&opaque, reference_responses_config()).expect("restore");
    let blocks = restored.history()[3].content.blocks();
    assert!(
        matches!(blocks.last(), Some(ContentBlock::Compaction { provider: Format::OpenAiResponses, content: None, encrypted_content: Some(e), id: Some(id) }) if e == "Y21wYWN0ZWQ=" && id == "cmp_9"),
        "{:?}",
        blocks.last()
    );
    let from_item = resume_reference(&opaque, &scenario, now, used);
    completed(&from_item);
    // The same task holding the block (format 4's form of it) sends the same requests.
    let block = json!({"type": "compaction", "provider": "openai-responses", "encrypted_content": "Y21wYWN0ZWQ=", "id": "cmp_9"});
    let from_block = resume_reference(&with(block), &scenario, now, used);
    let bodies = |h: &Harness| -> Vec<String> {
        h.requests.iter().map(|r| build_request(Format::OpenAiResponses, r).body).collect()
    };
    assert!(!from_item.requests.is_empty());
    assert_eq!(bodies(&from_item), bodies(&from_block));
    let first: Value = serde_json::from_str(&bodies(&from_item)[0]).unwrap();
    let input = first["input"].as_array().unwrap();
    assert_eq!(input.iter().filter(|i| **i == item).count(), 1, "the item whole, with its id: {:#}", first["input"]);
    // Written again in format 4, it restores to the same requests.
    let mut again = Task::restore(&opaque, reference_responses_config()).expect("restore");
    let v4 = again.snapshot();
    assert_eq!(serde_json::from_str::<Value>(&v4).unwrap()["version"], 4);
    let from_v4 = resume_reference(&v4, &scenario, now, used);
    assert_eq!(bodies(&from_v4), bodies(&from_item));
}

/// Native tool calling in chunk lines, a 64k window (a limit of 37,000), strategy summarize on
/// any model, the host reading required files.
fn summarizing() -> TaskConfig {
    let mut config = TaskConfig { tool_calling: ToolCalling::Native, ..config() };
    config.info.context_window = Some(64_000);
    config.context = ContextConfig {
        strategy: Strategy::Summarize,
        summarize: SummarizeConfig { all_models: true, read_required_files: true, ..SummarizeConfig::default() },
        summarize_eligible: true,
        ..ContextConfig::default()
    };
    config
}

fn chunk_reply(id: &str, name: &str, args: Value, input: u64) -> Reply {
    let call = json!({"type":"tool_calls","tool_call":{"call_id":id,"function":{"id":id,"name":name,"arguments":args.to_string()}}});
    Reply::Bytes(vec![
        text_line("Working."),
        line(call),
        line(json!({"type":"usage","inputTokens":input,"outputTokens":10})),
    ])
}

/// Three reads, the third over the limit; the summarize round's `summarize_task` naming two
/// required files; a completion.
fn summary_script() -> Vec<Reply> {
    let summary = "1. Intent: fix the README.\n9. Required files\n- src/a.rs\n- src/b.rs\n10. Next: fix it.";
    vec![
        chunk_reply("c1", "read", json!({"path": "c1.md"}), 1_000),
        chunk_reply("c2", "read", json!({"path": "c2.md"}), 1_000),
        chunk_reply("c3", "read", json!({"path": "c3.md"}), 40_000),
        chunk_reply("s", "summarize_task", json!({"context": summary}), 2_000),
        chunk_reply("done", "attempt_completion", json!({"result": "ok"}), 100),
    ]
}

#[test]
fn a_task_waiting_on_required_files_asks_for_them_again_after_a_restore() {
    let whole = run(summarizing(), summary_script());
    completed(&whole);
    let paths = vec![vec!["src/a.rs".to_owned(), "src/b.rs".to_owned()]];
    assert_eq!(whole.file_reads, paths);
    // The host never answers the read: the task waits on it.
    let mut h = Harness::new(summarizing(), summary_script());
    h.files = Box::new(|_| None);
    h.start(TASK);
    assert!(h.outcome().is_none());
    assert_eq!(h.file_reads, paths);
    assert_eq!(h.requests.len(), 4);
    let mut task = Task::restore(&h.task.snapshot(), summarizing()).expect("restore");
    task.resume(h.now);
    let mut rest = Harness::new(summarizing(), summary_script().into_iter().skip(4).collect());
    rest.task = task;
    rest.now = h.now;
    rest.run();
    assert_eq!(rest.file_reads, paths, "asked again, for the same paths");
    completed(&rest);
    let mut requests = h.requests.clone();
    requests.extend(rest.requests.iter().cloned());
    assert_eq!(requests, whole.requests, "the same requests as the task that was not restored");
    assert_eq!(compactions(&rest).len(), 1, "the summary said once, after the files");
}

#[test]
fn summarize_requests_count_toward_max_requests() {
    let mut config = summarizing();
    config.limits.max_requests = Some(4);
    let h = run(config, summary_script());
    assert_eq!(h.requests.len(), 4);
    assert_eq!(h.api_reqs()[3]["compactionPass"], "summary", "the fourth request is the summarize request");
    assert!(
        matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::REQUEST_LIMIT),
        "{:?}",
        h.outcome()
    );
    assert_eq!(h.task.usage().requests, 4);
}

#[test]
fn the_api_req_started_costs_sum_to_the_tasks_cost_with_compaction_passes() {
    let priced = |mut config: TaskConfig| {
        config.info.input_price = Some(3.0);
        config.info.output_price = Some(15.0);
        config.info.cache_read_price = Some(0.3);
        config.info.cache_write_price = Some(3.75);
        config
    };
    let (start, end) = compaction_usage(true);
    let compacted = anthropic(
        &[Block::Compaction(Some(SUMMARY), Some("enc-2")), Block::Text("Going on."), read_call("toolu_c", "c")],
        "tool_use",
        start,
        end,
    );
    let mut native_script = paused_script();
    native_script.insert(3, compacted);
    let native = run(priced(sonnet(json!({"strategy": "native"}))), native_script);
    let summary = run(priced(summarizing()), summary_script());
    for (name, h, passes) in [("native", native, 2), ("summarize", summary, 1)] {
        completed(&h);
        let reqs = h.api_reqs();
        assert_eq!(reqs.iter().filter(|r| r.get("compactionPass").is_some()).count(), passes, "{name}: {reqs:?}");
        let sum: f64 = reqs.iter().map(|r| r["cost"].as_f64().unwrap()).sum();
        let total = h.task.usage().total_cost;
        assert!(total > 0.0 && (sum - total).abs() < 1e-9, "{name}: {sum} against {total}");
        assert!(compactions(&h).iter().all(|c| c.get("cost").is_none()), "{name}: the say carries no cost");
        let passes_cost: f64 =
            reqs.iter().filter(|r| r.get("compactionPass").is_some()).map(|r| r["cost"].as_f64().unwrap()).sum();
        assert!(passes_cost > 0.0, "{name}: the compaction passes cost something");
    }
}

// ---------------------------------------------------------------------------------------
// §9.3: the snapshot keeps what native compaction left pending (the reminder, the count,
// the carrier as the view's head).

/// Runs `script` whole, then again restored from its snapshot at each waiting point; the
/// restored runs must send the whole run's requests and end as it did. Returns how many
/// waiting points there were.
fn same_requests_after_every_restore(config: TaskConfig, script: impl Fn() -> Vec<Reply>) -> usize {
    let whole = run(config.clone(), script());
    let mut points = 0;
    for stop_at in 1.. {
        let mut h = Harness::new(config.clone(), script());
        h.pause = Some(at_waiting_point(stop_at));
        h.start(TASK);
        if h.outcome().is_some() {
            break;
        }
        let mut task = Task::restore(&h.task.snapshot(), config.clone()).expect("restore");
        task.resume(h.now);
        let mut rest = Harness::new(config.clone(), script().into_iter().skip(h.requests.len()).collect());
        rest.task = task;
        rest.now = h.now;
        rest.run();
        let mut requests = h.requests.clone();
        requests.extend(rest.requests.iter().cloned());
        assert_eq!(requests.len(), whole.requests.len(), "restored at waiting point {stop_at}");
        for (n, (a, b)) in requests.iter().zip(&whole.requests).enumerate() {
            assert_eq!(a, b, "restored at waiting point {stop_at}: request {n} differs");
        }
        assert_eq!(rest.outcome(), whole.outcome(), "restored at waiting point {stop_at}");
        points += 1;
    }
    points
}

#[test]
fn a_task_restored_after_a_compaction_sends_the_same_requests() {
    let checkpoints = |config: TaskConfig| TaskConfig { checkpoints: true, ..config };
    // Without the pause: the reminder is pending while the compacting round's tool runs.
    let no_pause = || {
        vec![
            reads("a", 1_000),
            turn(
                &[Block::Compaction(Some(SUMMARY), Some("enc-1")), Block::Text("Going on."), read_call("toolu_b", "b")],
                1_000,
            ),
            reads("c", 1_000),
            done(),
        ]
    };
    let config = checkpoints(sonnet(json!({"strategy": "native", "native": {"pauseAfterCompaction": false}})));
    assert!(same_requests_after_every_restore(config, no_pause) >= 4);
    // The pause, with and without dropCompacted.
    for drop in [true, false] {
        let config = checkpoints(sonnet(json!({"strategy": "native", "native": {"dropCompacted": drop}})));
        assert!(same_requests_after_every_restore(config, paused_script) >= 4, "dropCompacted {drop}");
    }
    // Responses: the item as the view's head.
    let config = checkpoints(gpt5(json!({"strategy": "native"})));
    let responses_reads = || {
        vec![
            responses(&[message_item("msg_1", "Reading a."), call_item("call_1", "read", json!({"path":"a"}))], 1_000),
            responses(
                &[
                    message_item("msg_2", "Reading b."),
                    call_item("call_2", "read", json!({"path":"b"})),
                    compaction_item("cmp_2", "cenc-2"),
                ],
                1_000,
            ),
            responses(&[message_item("msg_3", "Reading c."), call_item("call_3", "read", json!({"path":"c"}))], 1_000),
            responses_done(),
        ]
    };
    assert!(same_requests_after_every_restore(config, responses_reads) >= 4);
}

#[test]
fn the_loop_breakers_count_of_a_failed_compaction_survives_a_restore() {
    // maxConsecutiveCompactions 1: the null compaction counts; the next reply is over the
    // limit, so the task ends before a fourth request, restored or not.
    let management = json!({"strategy": "native", "maxContextTokens": 50_000, "maxConsecutiveCompactions": 1});
    let config = TaskConfig { checkpoints: true, ..sonnet(management) };
    let end = || json!({"usage":{"output_tokens":10,"iterations":[{"type":"message","input_tokens":1_000,"output_tokens":10}]}});
    let script = || null_compaction_script(end(), vec![reads("c", 60_000), done()]);
    let whole = run(config.clone(), script());
    assert_eq!(failure_code(&whole), codes::CONTEXT_WINDOW_EXCEEDED);
    assert!(same_requests_after_every_restore(config, script) >= 2);
}

#[test]
fn a_task_restored_while_the_reinsertion_request_streams_sends_it_again() {
    let config = sonnet(json!({"strategy": "native"}));
    let whole = run(config.clone(), paused_script());
    completed(&whole);
    let mut h = Harness::new(config.clone(), paused_script());
    h.pause = Some(Box::new(|t: &Task| t.usage().requests == 3 && t.is_streaming()));
    h.start(TASK);
    assert!(h.outcome().is_none());
    assert_eq!(h.requests.len(), 3);
    let mut task = Task::restore(&h.task.snapshot(), config.clone()).expect("restore");
    task.resume(h.now);
    // The third reply never arrived: the restored task gets it.
    let mut rest = Harness::new(config, paused_script().into_iter().skip(2).collect());
    rest.task = task;
    rest.now = h.now;
    rest.run();
    completed(&rest);
    assert_eq!(rest.requests[0], whole.requests[2], "[carrier, re-insertion] again");
    assert_eq!(rest.requests.last(), whole.requests.last());
}
