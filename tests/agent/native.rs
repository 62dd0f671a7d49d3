//! Native tool calls: definitions sent in native mode, calls run through the same gates,
//! results paired with the provider's call ids.

use crate::harness::*;
use clew::agent::{AskAnswer, AskKind, AskResponse, MessageKind, Outcome, TaskConfig, ToolCalling};
use clew::conversation::{Content, ContentBlock};
use clew::stream::Format;

fn event(name: &str, data: serde_json::Value) -> Vec<u8> {
    format!("event: {name}\ndata: {data}\n\n").into_bytes()
}

/// An Anthropic reply: some text, then a tool_use streamed in two JSON pieces.
fn anthropic_tool_reply(id: &str, tool: &str, json_pieces: &[&str]) -> Reply {
    use serde_json::json;
    let mut pieces = vec![
        event(
            "message_start",
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":10,"output_tokens":1}}}),
        ),
        event(
            "content_block_start",
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
        ),
        event(
            "content_block_delta",
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Reading."}}),
        ),
        event("content_block_stop", json!({"type":"content_block_stop","index":0})),
        event(
            "content_block_start",
            json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":id,"name":tool,"input":{}}}),
        ),
    ];
    for piece in json_pieces {
        pieces.push(event(
            "content_block_delta",
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":piece}}),
        ));
    }
    pieces.push(event("content_block_stop", json!({"type":"content_block_stop","index":1})));
    pieces.push(event(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}),
    ));
    pieces.push(event("message_stop", json!({"type":"message_stop"})));
    Reply::Bytes(pieces)
}

fn native_config() -> TaskConfig {
    TaskConfig { format: Format::Anthropic, tool_calling: ToolCalling::Native, ..config() }
}

#[test]
fn native_mode_sends_tool_definitions_with_each_request() {
    let mut h = Harness::new(
        native_config(),
        vec![anthropic_tool_reply("toolu_9", "attempt_completion", &["{\"result\":\"ok\"}"])],
    );
    h.start("t");
    let names: Vec<_> = h.requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["read", "write", "ask_followup_question", "attempt_completion"]);
    assert_eq!(
        h.requests[0].tools[0].input_schema.get("required"),
        Some(&clew::json::Json::Array(vec!["path".into()]))
    );
    assert!(!h.requests[0].system.contains("Usage:\n<read>"), "no XML syntax in native mode");
}

#[test]
fn a_native_call_runs_through_the_gates_and_its_result_carries_the_call_id() {
    let reply = anthropic_tool_reply("toolu_1", "read", &["{\"path\": \"a", ".md\"}"]);
    let mut h = Harness::new(
        native_config(),
        vec![reply, anthropic_tool_reply("toolu_2", "attempt_completion", &["{\"result\":\"ok\"}"])],
    );
    h.start("t");
    assert_eq!(h.tool_calls[0], ("read".to_owned(), vec![("path".to_owned(), "a.md".to_owned())]));
    let assistant = h.task.history()[1].content.blocks();
    assert!(
        matches!(&assistant[1], ContentBlock::ToolUse { id, name, input, .. } if id == "toolu_1" && name == "read" && input.get("path").and_then(clew::json::Json::as_str) == Some("a.md"))
    );
    let user = h.task.history()[2].content.blocks();
    match &user[0] {
        ContentBlock::ToolResult { tool_use_id, content: Content::Text(text), .. } => {
            assert_eq!(tool_use_id, "toolu_1");
            assert!(text.starts_with("[read for 'a.md'] Result:"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
    assert_eq!(h.first_text(), "Reading.");
}

#[test]
fn native_calls_in_xml_mode_also_run_and_pair_their_results() {
    let config = TaskConfig { format: Format::Anthropic, ..config() };
    let reply = anthropic_tool_reply("toolu_1", "read", &["{\"path\":\"a\"}"]);
    let mut h = Harness::new(config, vec![reply, completion_anthropic()]);
    h.start("t");
    assert_eq!(h.tool_calls.len(), 1);
    assert!(
        matches!(&h.task.history()[2].content.blocks()[0], ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == "toolu_1")
    );
}

fn completion_anthropic() -> Reply {
    anthropic_tool_reply("toolu_end", "attempt_completion", &["{\"result\":\"done\"}"])
}

#[test]
fn a_native_call_to_an_unknown_tool_is_an_error_result_and_a_mistake() {
    let reply = anthropic_tool_reply("toolu_1", "rm_rf", &["{}"]);
    let mut h = Harness::new(native_config(), vec![reply, completion_anthropic()]);
    h.start("t");
    assert!(h.tool_calls.is_empty());
    match &h.task.history()[2].content.blocks()[0] {
        ContentBlock::ToolResult { tool_use_id, is_error, content } => {
            assert_eq!(tool_use_id, "toolu_1");
            assert!(is_error);
            assert!(matches!(content, Content::Text(t) if t.contains("no tool named 'rm_rf'")));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_denied_native_call_answers_its_id_with_the_denial() {
    let reply = anthropic_tool_reply("toolu_1", "write", &["{\"path\":\"a\",\"content\":\"x\"}"]);
    let mut h = Harness::new(native_config(), vec![reply, completion_anthropic()]);
    h.ask = Box::new(|m| match m.kind {
        MessageKind::Ask(AskKind::Tool) => Some(AskAnswer::button(AskResponse::No)),
        _ => (!m.is_partial()).then(|| AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    assert!(
        matches!(&h.task.history()[2].content.blocks()[0], ContentBlock::ToolResult { tool_use_id, is_error: true, .. } if tool_use_id == "toolu_1")
    );
}

#[test]
fn an_empty_native_reply_takes_the_no_tools_path() {
    let empty = Reply::Bytes(vec![
        event(
            "message_start",
            serde_json::json!({"type":"message_start","message":{"id":"m","usage":{"input_tokens":1,"output_tokens":0}}}),
        ),
        event("message_stop", serde_json::json!({"type":"message_stop"})),
    ]);
    let mut h = Harness::new(native_config(), vec![empty, completion_anthropic()]);
    h.start("t");
    assert!(h.says_of("error").is_empty());
    assert!(h.history_texts(1)[0].starts_with("[ERROR]"));
}

fn is_stream_end(e: &clew::agent::Effect) -> bool {
    matches!(e, clew::agent::Effect::Say(m) if matches!(m.kind, MessageKind::Say(k) if k.as_str() == "api_req_started") && !m.is_partial())
}

#[test]
fn a_native_call_waits_for_the_end_of_the_stream_before_it_is_asked() {
    let followup =
        Part::Tool { id: "toolu_1", name: "ask_followup_question", json: &["{\"question\":", "\"Which?\"}"] };
    let reply = anthropic_reply(&[Part::Text("Let me ask."), followup], 40);
    let mut h = Harness::new(native_config(), vec![reply, completion_anthropic()]);
    h.ask = Box::new(|m| match m.kind {
        _ if m.is_partial() => None,
        MessageKind::Ask(AskKind::Followup) => Some(AskAnswer::message("the blue one")),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    let asked = h
        .position(|e| matches!(e, clew::agent::Effect::Ask(m) if m.kind == MessageKind::Ask(AskKind::Followup) && !m.is_partial()))
        .expect("the question is asked");
    let ended = h.position(is_stream_end).expect("the round's figures are final");
    assert!(ended < asked, "the stream ended (at {ended}) before the question (at {asked})");
    assert_eq!(h.api_reqs()[0]["tokensOut"], 40);
}

#[test]
fn a_native_call_still_shows_partially_while_it_streams() {
    let write = Part::Tool { id: "toolu_1", name: "write", json: &["{\"path\":\"a.md\",", "\"content\":\"x\"}"] };
    let mut h = Harness::new(native_config(), vec![anthropic_reply(&[write], 5), completion_anthropic()]);
    h.start("t");
    let partial = h.position(
        |e| matches!(e, clew::agent::Effect::Ask(m) if m.kind == MessageKind::Ask(AskKind::Tool) && m.is_partial()),
    );
    let ended = h.position(is_stream_end).unwrap();
    assert!(partial.is_some_and(|p| p < ended), "a partial tool ask shows before the stream ends");
    assert_eq!(h.tool_calls.len(), 1);
}

#[test]
fn abort_at_a_native_followup_saves_the_turn_unmarked_with_its_usage() {
    let followup = Part::Tool { id: "toolu_1", name: "ask_followup_question", json: &["{\"question\":\"Which?\"}"] };
    let mut h = Harness::new(native_config(), vec![anthropic_reply(&[Part::Text("Hm."), followup], 33)]);
    h.ask = Box::new(|_| None);
    h.pause = Some(Box::new(|task| task.state() == "answer"));
    h.start("t");
    assert_eq!(h.task.state(), "answer");
    h.task.abort(h.now, "user");
    h.drain();
    let turn = block_texts(&h.task.history()[1].content.blocks()).join("\n");
    assert!(!turn.contains(clew::agent::INTERRUPTED_BY_USER.trim()), "{turn}");
    assert_eq!(h.task.usage().output_tokens, 33);
    assert_eq!(h.api_reqs()[0]["tokensOut"], 33);
}

#[test]
fn an_accepted_native_completion_leaves_no_partial_message() {
    let done = Part::Tool { id: "toolu_9", name: "attempt_completion", json: &["{\"result\":\"ok\"}"] };
    let mut h = Harness::new(native_config(), vec![anthropic_reply(&[Part::Thinking("Let me think."), done], 12)]);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
    let partial: Vec<_> = h.task.messages().iter().filter(|m| m.is_partial()).collect();
    assert!(partial.is_empty(), "{partial:?}");
    assert_eq!(h.task.usage().output_tokens, 12);
}

/// Every tool_use of `messages` is answered by exactly one tool_result in the next message
/// (but in the last message: the task's accepted completion), and every tool_result answers
/// a tool_use of the message before it.
fn calls_pair_with_results(messages: &[clew::conversation::Message]) -> Result<(), String> {
    let ids = |m: Option<&clew::conversation::Message>, results: bool| -> Vec<String> {
        m.map(|m| m.content.blocks())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, .. } if !results => Some(id),
                ContentBlock::ToolResult { tool_use_id, .. } if results => Some(tool_use_id),
                _ => None,
            })
            .collect()
    };
    for (i, message) in messages.iter().enumerate() {
        let calls = if i + 1 == messages.len() { Vec::new() } else { ids(Some(message), false) };
        let answers = ids(messages.get(i + 1), true);
        for id in &calls {
            if answers.iter().filter(|a| *a == id).count() != 1 {
                return Err(format!("message {i}: the call {id} has {answers:?} as results"));
            }
        }
        let asked = if i == 0 { Vec::new() } else { ids(messages.get(i - 1), false) };
        if let Some(stray) = ids(Some(message), true).iter().find(|id| !asked.contains(id)) {
            return Err(format!("message {i}: the result {stray} answers no call"));
        }
    }
    Ok(())
}

/// The same request as OpenAI Chat Completions would get it: every `tool_calls` entry of an
/// assistant message is answered by exactly one `tool` message right after it.
fn openai_calls_pair_with_results(request: &clew::request::ModelRequest) -> Result<(), String> {
    let http = clew::request::build_request(Format::OpenAi, request);
    let body: serde_json::Value = serde_json::from_str(&http.body).map_err(|e| e.to_string())?;
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    for (i, message) in messages.iter().enumerate() {
        let Some(calls) = message["tool_calls"].as_array() else { continue };
        let answers: Vec<&str> = messages[i + 1..]
            .iter()
            .take_while(|m| m["role"] == "tool")
            .filter_map(|m| m["tool_call_id"].as_str())
            .collect();
        for call in calls {
            let id = call["id"].as_str().unwrap_or_default();
            if answers.iter().filter(|a| **a == id).count() != 1 {
                return Err(format!("message {i}: the call {id} has {answers:?} as results"));
            }
        }
    }
    Ok(())
}

#[test]
fn a_native_call_cut_by_a_failure_at_any_point_still_gets_exactly_one_result() {
    let script = || {
        vec![
            anthropic_tool_reply("toolu_1", "read", &["{\"pa", "th\":\"a\"}"]),
            anthropic_tool_reply("toolu_2", "write", &["{\"path\":\"b\",", "\"content\":\"x\"}"]),
            anthropic_tool_reply("toolu_3", "attempt_completion", &["{\"result\":\"ok\"}"]),
        ]
    };
    let mut cases = 0;
    for round in 0..3 {
        let Reply::Bytes(pieces) = &script()[round] else { unreachable!() };
        for cut in 1..pieces.len() {
            let mut replies = script();
            let error = clew::stream::StreamError::Network { message: "connection reset".into() };
            replies[round] = Reply::FailAfter(pieces[..cut].to_vec(), error);
            // The rest of the script answers the retry.
            replies.insert(round + 1, script()[round].clone());
            let mut h = Harness::new(native_config(), replies);
            h.start("t");
            let at = format!("round {round}, cut after {cut} of {} reads", pieces.len());
            assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{at}: {:?}", h.outcome());
            calls_pair_with_results(h.task.history()).unwrap_or_else(|e| panic!("{at}: the history: {e}"));
            for (n, request) in h.requests.iter().enumerate() {
                calls_pair_with_results(&request.messages).unwrap_or_else(|e| panic!("{at}: request {n}: {e}"));
                openai_calls_pair_with_results(request).unwrap_or_else(|e| panic!("{at}: request {n} (OpenAI): {e}"));
            }
            cases += 1;
        }
    }
    assert!(cases >= 20, "{cases}");
}
