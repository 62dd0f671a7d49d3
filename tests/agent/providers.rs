//! OpenAI Responses and Gemini (issue 29): what a reply carries into the next request
//! (reasoning items with their encrypted content, signatures where they came, a message's
//! phase, opaque items), a malformed call as a mistake, and a task restored at every waiting
//! point sending the same requests as the uninterrupted one.

use crate::harness::*;
use clew::agent::{AskAnswer, AskKind, AskResponse, Message, MessageKind, Outcome, Task, TaskConfig, ToolCalling};
use clew::request::{build_request, ModelRequest};
use clew::stream::Format;
use serde_json::{json, Value};

fn data(value: Value) -> Vec<u8> {
    format!("data: {value}\n\n").into_bytes()
}

/// A Responses reply: a reasoning item (summary and encrypted content), a commentary
/// message, then one call of `name` with `args` (streamed in two pieces), or a final message.
fn responses_reply(round: u32, call: Option<(&str, &str)>) -> Reply {
    let mut events = vec![data(json!({"type":"response.created","response":{"id":format!("resp_{round}")}}))];
    let rs = json!({"type":"reasoning","id":format!("rs_{round}"),"summary":[],"encrypted_content":"partial"});
    events.push(data(json!({"type":"response.output_item.added","output_index":0,"item":rs})));
    events.push(data(json!({"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":format!("Thinking {round}")})));
    let done = json!({"type":"reasoning","id":format!("rs_{round}"),"summary":[{"type":"summary_text","text":format!("Thinking {round}")}],"encrypted_content":format!("enc-{round}")});
    events.push(data(json!({"type":"response.output_item.done","output_index":0,"item":done})));
    let msg = json!({"type":"message","id":format!("msg_{round}"),"role":"assistant","content":[]});
    events.push(data(json!({"type":"response.output_item.added","output_index":1,"item":msg})));
    let text = if call.is_some() { format!("Looking, round {round}.") } else { "All done.".to_owned() };
    // NOTE: the item id rotates on every event, as one real endpoint does.
    events.push(data(json!({"type":"response.output_text.delta","output_index":1,"item_id":"x1","delta":text})));
    let done = json!({"type":"message","id":"x2","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":text}]});
    events.push(data(json!({"type":"response.output_item.done","output_index":1,"item":done})));
    if let Some((name, args)) = call {
        let id = format!("call_{round}");
        let fc = json!({"type":"function_call","id":format!("fc_{round}"),"call_id":id,"name":name,"arguments":""});
        events.push(data(json!({"type":"response.output_item.added","output_index":2,"item":fc})));
        let (a, b) = args.split_at(args.len() / 2);
        for piece in [a, b] {
            events.push(data(json!({"type":"response.function_call_arguments.delta","output_index":2,"delta":piece})));
        }
        let fc = json!({"type":"function_call","id":format!("fc_{round}"),"call_id":id,"name":name,"arguments":args});
        events.push(data(json!({"type":"response.output_item.done","output_index":2,"item":fc})));
    }
    let usage = json!({"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":20}});
    events.push(data(json!({"type":"response.completed","response":{"status":"completed","usage":usage}})));
    Reply::Bytes(events)
}

/// A Gemini reply: a signed thought, text, then a signed call (no id) or text ending in a
/// signed empty part.
fn gemini_reply(round: u32, call: Option<(&str, Value)>) -> Reply {
    let mut events = vec![data(json!({"candidates":[{"content":{"role":"model","parts":[
        {"text":format!("Thinking {round}"),"thought":true,"thoughtSignature":format!("thought-sig-{round}")}
    ]}}]}))];
    match call {
        Some((name, args)) => {
            events.push(data(json!({"candidates":[{"content":{"role":"model","parts":[{"text":format!("Looking, round {round}.")}]}}]})));
            events.push(data(json!({"candidates":[{"content":{"role":"model","parts":[
                {"functionCall":{"name":name,"args":args},"thoughtSignature":format!("call-sig-{round}")}
            ]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":20}})));
        }
        None => {
            events.push(data(json!({"candidates":[{"content":{"role":"model","parts":[{"text":"All done."}]}}]})));
            events.push(data(json!({"candidates":[{"content":{"role":"model","parts":[
                {"text":"","thoughtSignature":format!("end-sig-{round}")}
            ]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":20}})));
        }
    }
    Reply::Bytes(events)
}

/// Native tool calling in `format`; `write` is idempotent, so a run restored while it runs
/// equals the whole run.
fn native(format: Format) -> TaskConfig {
    let mut config = TaskConfig { format, tool_calling: ToolCalling::Native, ..config() };
    config.tools[1].idempotent = true;
    config
}

fn responses_script() -> Vec<Reply> {
    vec![
        responses_reply(1, Some(("read", r#"{"path":"a.md"}"#))),
        responses_reply(2, Some(("write", r#"{"path":"b.md","content":"new"}"#))),
        responses_reply(3, Some(("attempt_completion", r#"{"result":"done"}"#))),
    ]
}

fn gemini_script() -> Vec<Reply> {
    vec![
        gemini_reply(1, Some(("read", json!({"path":"a.md"})))),
        gemini_reply(2, Some(("write", json!({"path":"b.md","content":"new"})))),
        gemini_reply(3, Some(("attempt_completion", json!({"result":"done"})))),
    ]
}

/// The wire body of each request the task made, as the format's builder writes it.
fn bodies(format: Format, requests: &[ModelRequest]) -> Vec<Value> {
    requests.iter().map(|r| serde_json::from_str(&build_request(format, r).body).unwrap()).collect()
}

#[test]
fn responses_reasoning_items_travel_back_with_their_encrypted_content_and_the_item_after_them() {
    let mut h = Harness::new(native(Format::OpenAiResponses), responses_script());
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    let bodies = bodies(Format::OpenAiResponses, &h.requests);
    assert_eq!(bodies.len(), 3);
    let input = bodies[1]["input"].as_array().unwrap();
    let kinds: Vec<&str> = input.iter().map(|i| i["type"].as_str().unwrap_or("user")).collect();
    assert_eq!(kinds, ["user", "reasoning", "message", "function_call", "function_call_output"]);
    assert_eq!(
        input[1],
        json!({"type":"reasoning","summary":[{"type":"summary_text","text":"Thinking 1"}],"encrypted_content":"enc-1"})
    );
    assert_eq!(input[2]["phase"], "commentary");
    assert_eq!(
        input[3],
        json!({"type":"function_call","call_id":"call_1","name":"read","arguments":"{\"path\":\"a.md\"}"})
    );
    assert_eq!(input[4]["call_id"], "call_1");
    for body in &bodies {
        assert_eq!(body["store"], false);
        let text = body.to_string();
        for server_id in ["rs_", "msg_", "fc_", "\"id\""] {
            assert!(!text.contains(server_id), "{server_id} sent with store false: {text}");
        }
    }
    // Usage: cached input apart, reasoning inside the output and not added again.
    let usage = h.task.usage();
    assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.output_tokens), (180, 120, 90));
}

#[test]
fn gemini_signatures_go_back_on_the_parts_they_came_with_and_results_by_function_name() {
    let mut script = gemini_script();
    script.insert(2, gemini_reply(9, None));
    let mut h = Harness::new(native(Format::Gemini), script);
    h.start("t");
    let bodies = bodies(Format::Gemini, &h.requests);
    let contents = bodies[1]["contents"].as_array().unwrap();
    assert_eq!(
        contents[1],
        json!({"role":"model","parts":[
            {"text":"Thinking 1","thought":true,"thoughtSignature":"thought-sig-1"},
            {"text":"Looking, round 1."},
            {"functionCall":{"name":"read","args":{"path":"a.md"}},"thoughtSignature":"call-sig-1"}
        ]})
    );
    let response = &contents[2]["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "read");
    assert!(response.get("id").is_none(), "Gemini gave no id: none is made up on the wire");
    assert!(response["response"]["output"].as_str().unwrap().contains("read ran with path=a.md"));
    // A reply without a call (round 9): its signature came on an empty text part after the text.
    let contents = bodies[3]["contents"].as_array().unwrap();
    let model_turns: Vec<&Value> = contents.iter().filter(|c| c["role"] == "model").collect();
    assert_eq!(
        model_turns[2]["parts"],
        json!([
            {"text":"Thinking 9","thought":true,"thoughtSignature":"thought-sig-9"},
            {"text":"All done."},
            {"text":"","thoughtSignature":"end-sig-9"}
        ])
    );
    let usage = h.task.usage();
    assert_eq!((usage.input_tokens, usage.output_tokens), (400, 120), "thoughts count as output");
}

#[test]
fn a_gemini_malformed_call_counts_as_a_mistake_with_its_own_notice() {
    let malformed = Reply::Bytes(vec![data(
        json!({"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL"}]}),
    )]);
    let mut script = vec![malformed];
    script.extend(gemini_script().into_iter().skip(2));
    let mut h = Harness::new(native(Format::Gemini), script);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    let next = &h.requests[1].messages;
    let notice = block_texts(&next.last().unwrap().content.blocks()).join("\n");
    assert!(notice.contains("tool call was malformed"), "{notice}");
}

fn answers(m: &Message) -> Option<AskAnswer> {
    (!m.is_partial()).then(|| AskAnswer::button(AskResponse::Yes))
}

/// Runs `script` whole, then restored from its snapshot at each waiting point in turn: every
/// restored run must make the same requests (as wire bodies) and end with the same history.
fn restored_everywhere_sends_the_same_requests(format: Format, script: fn() -> Vec<Reply>) {
    let config = || TaskConfig { checkpoints: true, ..native(format) };
    let mut whole = Harness::new(config(), script());
    whole.ask = Box::new(answers);
    whole.start("t");
    let expected_bodies = bodies(format, &whole.requests);
    let expected_history = serde_json::to_string(whole.task.history()).unwrap();
    let mut points = 0;
    for stop_at in 1.. {
        let mut h = Harness::new(config(), script());
        h.ask = Box::new(answers);
        h.pause = Some(at_waiting_point(stop_at));
        h.start("t");
        if h.outcome().is_some() {
            break;
        }
        let mut task = Task::restore(&h.task.snapshot(), config()).expect("restore");
        task.resume(h.now);
        let mut rest = Harness::new(config(), Vec::new());
        rest.task = task;
        rest.now = h.now;
        rest.ask = Box::new(answers);
        rest.model = script().into_iter().skip(h.requests.len()).collect();
        rest.run();
        let mut requests = h.requests.clone();
        requests.extend(rest.requests.iter().cloned());
        assert_eq!(bodies(format, &requests), expected_bodies, "{format} restored at waiting point {stop_at}");
        assert_eq!(serde_json::to_string(rest.task.history()).unwrap(), expected_history);
        points += 1;
    }
    assert!(points >= 4, "only {points} waiting points were tried");
}

#[test]
fn a_responses_task_restored_at_every_waiting_point_sends_the_same_requests() {
    restored_everywhere_sends_the_same_requests(Format::OpenAiResponses, responses_script);
}

#[test]
fn a_gemini_task_restored_at_every_waiting_point_sends_the_same_requests() {
    restored_everywhere_sends_the_same_requests(Format::Gemini, gemini_script);
}

#[test]
fn a_blocked_gemini_prompt_is_asked_about_and_never_retried_on_its_own() {
    let blocked = Reply::Bytes(vec![data(json!({"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}))]);
    let mut h = Harness::new(native(Format::Gemini), vec![blocked]);
    h.ask = Box::new(|m: &Message| {
        (!m.is_partial()).then(|| {
            AskAnswer::button(if m.kind == MessageKind::Ask(AskKind::ApiReqFailed) {
                AskResponse::No
            } else {
                AskResponse::Yes
            })
        })
    });
    h.start("t");
    assert_eq!(h.requests.len(), 1, "never sent again on its own");
    assert!(h.kinds().contains(&"ask api_req_failed".to_owned()), "{:?}", h.kinds());
    assert!(h.says_of("error_retry").is_empty());
    assert!(!matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_gemini_calls_signature_survives_a_snapshot_taken_while_the_reply_streams() {
    // The signed call comes first, the end of the reply in a later event.
    let call = data(json!({"candidates":[{"content":{"role":"model","parts":[
        {"functionCall":{"name":"read","args":{"path":"a.md"}},"thoughtSignature":"c2lnbmVk"}
    ]}}]}));
    let end = data(json!({"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}]}));
    let script = || {
        vec![
            Reply::Bytes(vec![call.clone(), end.clone()]),
            gemini_reply(2, Some(("attempt_completion", json!({"result":"done"})))),
        ]
    };
    let mut h = Harness::new(native(Format::Gemini), script());
    h.pause = Some(Box::new(|task: &Task| {
        task.is_streaming() && task.messages().iter().any(|m| m.is_partial() && m.text.contains("a.md"))
    }));
    h.start("t");
    assert!(h.outcome().is_none(), "paused while the reply streams");
    let snapshot = h.task.snapshot();
    assert!(snapshot.contains("c2lnbmVk"), "the call's signature is in the snapshot");
    let mut task = Task::restore(&snapshot, native(Format::Gemini)).expect("restore");
    task.resume(h.now);
    let mut rest = Harness::new(native(Format::Gemini), script().into_iter().skip(1).collect());
    rest.task = task;
    rest.now = h.now;
    rest.run();
    let body: Value = serde_json::from_str(&build_request(Format::Gemini, &rest.requests[0]).body).unwrap();
    let call_part =
        body["contents"][1]["parts"].as_array().unwrap().iter().find(|p| p.get("functionCall").is_some()).cloned();
    assert_eq!(call_part.unwrap()["thoughtSignature"], "c2lnbmVk");
}
