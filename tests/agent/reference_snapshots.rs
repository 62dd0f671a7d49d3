//! The snapshot format is a promise (issue 28): snapshots written by a released format are
//! checked in under `tests/fixtures/snapshots/v<version>/` and never change. Every later
//! build must restore each of them and, resumed with the rest of the recorded script, end
//! exactly where the uninterrupted run ended when the file was written (history, transcript,
//! usage and outcome).
//!
//! Each file is one scenario: the model's replies (the raw bytes of each read, or a failure),
//! the MCP catalog the host lists, and one point per place the task waited, each with its
//! snapshot, the time it was taken, how many replies the task had used, and the recorded
//! end. The scenarios' settings ([`scenario_config`]) and the answers and tools of the
//! driver ([`drive`]) are frozen with the files: change them and the files no longer say
//! what they said.
//!
//! A point whose snapshot holds an open stream that had delivered content (a tool that ran
//! while the reply streamed, or, in files written before issue 28, a person's wait asked
//! while the reply streamed) resumes with the reply ended at its complete block: the round's
//! usage that never arrived is missing, so for those points usage and the round's
//! `api_req_started` text may differ from the recorded end, and that message must say
//! `usageComplete: false`.

use std::path::{Path, PathBuf};

use crate::harness::*;
use clew::agent::{
    AskAnswer, AskKind, AskResponse, Effect, HookSet, McpServerSettings, Message, MessageKind, Task, TaskConfig,
    ToolCalling,
};
use clew::stream::model::ModelInfo;
use clew::stream::Format;
use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshots")
}

/// The settings of each scenario. Frozen: the files were written with these.
fn scenario_config(name: &str) -> TaskConfig {
    let mut config = config();
    config.format = Format::Anthropic;
    config.tools[1].idempotent = true;
    config.auto_approve.read_only = true;
    config.checkpoints = true;
    config.info = ModelInfo { input_price: Some(3.0), output_price: Some(15.0), ..ModelInfo::default() };
    match name {
        "xml" => {
            config.hooks = HookSet {
                task_start: true,
                task_cancel: true,
                task_complete: true,
                pre_tool_use: true,
                post_tool_use: true,
            };
        }
        "native" => config.tool_calling = ToolCalling::Native,
        "responses" => {
            config.format = Format::OpenAiResponses;
            config.tool_calling = ToolCalling::Native;
        }
        "gemini" => {
            config.format = Format::Gemini;
            config.tool_calling = ToolCalling::Native;
        }
        "mcp" => config.mcp_servers = vec![McpServerSettings { name: "notes".into(), ..McpServerSettings::default() }],
        _ => {}
    }
    config
}

/// The driver's answers: a follow-up question gets "no", every other ask "yes".
fn answers(m: &Message) -> Option<AskAnswer> {
    match m.kind {
        _ if m.is_partial() => None,
        MessageKind::Ask(AskKind::Followup) => Some(AskAnswer::message("no")),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    }
}

/// The recorded script's replies as the harness plays them.
fn replies(scenario: &Value) -> Vec<Reply> {
    let list = scenario["replies"].as_array().cloned().unwrap_or_default();
    list.iter()
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

/// The servers' listing a host gives today for a scenario's catalog, which the reference
/// files hold in the shape hosts wrote before the task read raw listings (`servers[].tools[]`
/// as `{ name, required, readOnly }`, `resources` as a flag).
fn listing_of(catalog: &str) -> String {
    let catalog: Value = serde_json::from_str(catalog).unwrap();
    let servers: Vec<Value> = catalog["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|server| {
            let tools: Vec<Value> = server["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|tool| {
                    json!({
                        "name": tool["name"],
                        "inputSchema": {"type": "object", "required": tool["required"]},
                        "annotations": {"readOnlyHint": tool["readOnly"].as_bool().unwrap_or(false)},
                    })
                })
                .collect();
            let resources =
                if catalog["resources"] == json!(true) { vec![json!({"uri": "notes://all"})] } else { vec![] };
            json!({"name": server["name"], "tools": tools, "resources": resources, "templates": []})
        })
        .collect();
    json!({"servers": servers, "errors": []}).to_string()
}

/// A harness for `scenario` with its frozen settings, answers and catalog.
fn drive(scenario: &Value, task: Option<Task>, now: u64, skip: usize) -> Harness {
    let config = scenario_config(scenario["name"].as_str().unwrap());
    let mut h = Harness::new(config, replies(scenario).into_iter().skip(skip).collect());
    h.ask = Box::new(answers);
    h.mcp_catalog = scenario["catalog"].as_str().map(listing_of);
    h.now = now;
    if let Some(task) = task {
        h.task = task;
    }
    h
}

/// What a run ended with, as JSON.
fn end_of(h: &Harness) -> Value {
    json!({
        "history": serde_json::to_value(h.task.history()).unwrap(),
        "messages": serde_json::to_value(h.task.messages()).unwrap(),
        "usage": serde_json::to_value(h.task.usage()).unwrap(),
        "outcome": serde_json::to_value(h.outcome()).unwrap(),
    })
}

// ---------------------------------------------------------------------------------------------
// Writing a new format's files (run once per format, never again for it).

fn sse_text(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// An Anthropic reply's events, each one read: text parts, thinking, native tool calls.
fn anthropic(parts: &[(&str, Value)], output_tokens: u64) -> Value {
    let mut events = vec![sse_text(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":100,"output_tokens":1}}}),
    )];
    for (index, (kind, part)) in parts.iter().enumerate() {
        let (start, deltas) = match *kind {
            "text" => (json!({"type":"text","text":""}), vec![json!({"type":"text_delta","text":part})]),
            "thinking" => (
                json!({"type":"thinking","thinking":""}),
                vec![
                    json!({"type":"thinking_delta","thinking":part}),
                    json!({"type":"signature_delta","signature":"c2lnbmF0dXJl"}),
                ],
            ),
            _ => (
                json!({"type":"tool_use","id":part["id"],"name":part["name"],"input":{}}),
                vec![json!({"type":"input_json_delta","partial_json":part["json"]})],
            ),
        };
        events.push(sse_text(
            "content_block_start",
            json!({"type":"content_block_start","index":index,"content_block":start}),
        ));
        for delta in deltas {
            events.push(sse_text(
                "content_block_delta",
                json!({"type":"content_block_delta","index":index,"delta":delta}),
            ));
        }
        events.push(sse_text("content_block_stop", json!({"type":"content_block_stop","index":index})));
    }
    events.push(sse_text(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":output_tokens}}),
    ));
    events.push(sse_text("message_stop", json!({"type":"message_stop"})));
    json!({ "pieces": events })
}

fn data_text(data: Value) -> String {
    format!("data: {data}\n\n")
}

/// An OpenAI Responses reply (format 3 on): a reasoning item with its encrypted content, a
/// commentary message, and a native call.
fn responses(round: u64, text: &str, name: &str, args: Value) -> Value {
    let reasoning = json!({"type":"reasoning","id":format!("rs_{round}"),"summary":[{"type":"summary_text","text":format!("Plan {round}.")}],"encrypted_content":format!("ZW5j{round}")});
    let message = json!({"type":"message","id":format!("msg_{round}"),"role":"assistant","phase":"commentary","content":[{"type":"output_text","text":text}]});
    let call = json!({"type":"function_call","id":format!("fc_{round}"),"call_id":format!("call_{round}"),"name":name,"arguments":args.to_string()});
    let usage = json!({"input_tokens":100 + round,"input_tokens_details":{"cached_tokens":20},"output_tokens":30 + round,"output_tokens_details":{"reasoning_tokens":10}});
    let events = vec![
        data_text(
            json!({"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":format!("rs_{round}"),"summary":[]}}),
        ),
        data_text(
            json!({"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":format!("Plan {round}.")}),
        ),
        data_text(json!({"type":"response.output_item.done","output_index":0,"item":reasoning})),
        data_text(
            json!({"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":format!("msg_{round}"),"role":"assistant","content":[]}}),
        ),
        data_text(json!({"type":"response.output_text.delta","output_index":1,"delta":text})),
        data_text(json!({"type":"response.output_item.done","output_index":1,"item":message})),
        data_text(
            json!({"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","id":format!("fc_{round}"),"call_id":format!("call_{round}"),"name":name,"arguments":""}}),
        ),
        data_text(json!({"type":"response.function_call_arguments.delta","output_index":2,"delta":args.to_string()})),
        data_text(json!({"type":"response.output_item.done","output_index":2,"item":call})),
        data_text(json!({"type":"response.completed","response":{"status":"completed","usage":usage}})),
    ];
    json!({ "pieces": events })
}

/// A Gemini reply (format 3 on): a signed thought, text, and a signed call without an id.
fn gemini(round: u64, text: &str, name: &str, args: Value) -> Value {
    let part = |part: Value| json!({"candidates":[{"content":{"role":"model","parts":[part]}}]});
    let usage = json!({"promptTokenCount":100 + round,"candidatesTokenCount":30 + round,"thoughtsTokenCount":10});
    let events = vec![
        data_text(part(
            json!({"text":format!("Plan {round}."),"thought":true,"thoughtSignature":format!("dGhvdWdodA{round}")}),
        )),
        data_text(part(json!({"text":text}))),
        data_text(
            json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":name,"args":args},"thoughtSignature":format!("Y2FsbA{round}")}]},"finishReason":"STOP"}],"usageMetadata":usage}),
        ),
    ];
    json!({ "pieces": events })
}

fn text_part(text: &str) -> (&'static str, Value) {
    ("text", json!(text))
}

fn call_part(id: &str, name: &str, input: Value) -> (&'static str, Value) {
    ("tool", json!({"id": id, "name": name, "json": input.to_string()}))
}

fn failure() -> Value {
    json!({ "pieces": [], "failStatus": 500, "failBody": "{\"error\":{\"type\":\"api_error\",\"message\":\"flaky\"}}" })
}

fn scenarios() -> Vec<Value> {
    let completion = "Done.\n<attempt_completion><result>all done</result></attempt_completion>";
    let mcp_catalog = json!({
        "prompt": "\n# MCP servers\n\n## notes\n\n### Tools\n- lookup: Look a key up\n- write_note: Write a note\n",
        "resources": true,
        "definitions": [],
        "servers": [{
            "name": "notes",
            "tools": [
                {"name": "lookup", "required": ["key"], "readOnly": true},
                {"name": "write_note", "required": ["text"]}
            ]
        }],
        "errors": []
    })
    .to_string();
    vec![
        json!({
            "name": "xml",
            "replies": [
                anthropic(&[text_part("Let me look.\n<read><path>a</path></read>")], 21),
                anthropic(&[("thinking", json!("B needs the new text.")), text_part("<write><path>b</path><content>new</content></write>")], 22),
                anthropic(&[text_part("<ask_followup_question><question>More?</question><options>[\"yes\",\"no\"]</options></ask_followup_question>")], 23),
                failure(),
                anthropic(&[text_part(completion)], 24),
            ],
        }),
        json!({
            "name": "native",
            "replies": [
                anthropic(&[text_part("Let me look."), call_part("toolu_1", "read", json!({"path": "a"}))], 31),
                anthropic(&[("thinking", json!("B needs the new text.")), call_part("toolu_2", "write", json!({"path": "b", "content": "new"}))], 32),
                anthropic(&[call_part("toolu_3", "ask_followup_question", json!({"question": "More?"}))], 33),
                failure(),
                anthropic(&[text_part("Done."), call_part("toolu_4", "attempt_completion", json!({"result": "all done"}))], 34),
            ],
        }),
        json!({
            "name": "mcp",
            "catalog": mcp_catalog,
            "replies": [
                anthropic(&[text_part("<use_mcp_tool>\n<server_name>notes</server_name>\n<tool_name>lookup</tool_name>\n<arguments>{\"key\":\"a\"}</arguments>\n</use_mcp_tool>")], 41),
                anthropic(&[text_part("<use_mcp_tool>\n<server_name>notes</server_name>\n<tool_name>write_note</tool_name>\n<arguments>{\"text\":\"b\"}</arguments>\n</use_mcp_tool>")], 42),
                anthropic(&[text_part("<access_mcp_resource>\n<server_name>notes</server_name>\n<uri>notes://all</uri>\n</access_mcp_resource>")], 43),
                failure(),
                anthropic(&[text_part(completion)], 44),
            ],
        }),
        json!({
            "name": "responses",
            "replies": [
                responses(1, "Let me look.", "read", json!({"path": "a"})),
                responses(2, "Writing b.", "write", json!({"path": "b", "content": "new"})),
                responses(3, "One question.", "ask_followup_question", json!({"question": "More?"})),
                failure(),
                responses(4, "Done.", "attempt_completion", json!({"result": "all done"})),
            ],
        }),
        json!({
            "name": "gemini",
            "replies": [
                gemini(1, "Let me look.", "read", json!({"path": "a"})),
                gemini(2, "Writing b.", "write", json!({"path": "b", "content": "new"})),
                gemini(3, "One question.", "ask_followup_question", json!({"question": "More?"})),
                failure(),
                gemini(4, "Done.", "attempt_completion", json!({"result": "all done"})),
            ],
        }),
    ]
}

/// Where the task waits, from its snapshot: `None` while a reply streams with content and
/// no wait (cut in the middle: it resumes as a failure, which no uninterrupted run shows).
fn waiting_point(task: &mut Task) -> Option<String> {
    let state = task.state();
    let snapshot: Value = serde_json::from_str(&task.snapshot()).unwrap();
    let text = snapshot["state"].to_string();
    let open_with_content = text.contains("[\"open\",\"content\"]");
    if state == "stream" && open_with_content {
        return None;
    }
    Some(if open_with_content { format!("{state} (reply streaming)") } else { state.to_owned() })
}

/// Writes the files of this build's format that do not exist yet, when
/// `CLEW_WRITE_REFERENCE_SNAPSHOTS` is set (`cargo test --test agent write_reference_snapshots -- --ignored`).
#[test]
#[ignore = "writes the reference snapshots of a new format once"]
fn write_reference_snapshots() {
    if std::env::var_os("CLEW_WRITE_REFERENCE_SNAPSHOTS").is_none() {
        return;
    }
    let dir = fixtures().join(format!("v{}", clew::agent::SNAPSHOT_VERSION));
    std::fs::create_dir_all(&dir).unwrap();
    for mut scenario in scenarios() {
        let name = scenario["name"].as_str().unwrap().to_owned();
        let path = dir.join(format!("{name}.json"));
        if path.exists() {
            // NOTE: reference snapshots never change: a scenario added to a format later gets
            // its file, the others stay as they were written.
            continue;
        }
        let mut whole = drive(&scenario, None, 1_000, 0);
        whole.start("Update b from a");
        let end = end_of(&whole);
        assert!(whole.outcome().is_some_and(|o| matches!(o, clew::agent::Outcome::Completed { .. })), "{name}");

        let mut points = Vec::new();
        let mut h = drive(&scenario, None, 1_000, 0);
        h.task.start(h.now, "Update b from a", Vec::new());
        let mut last = String::new();
        loop {
            h.drain();
            let snapshot = h.task.snapshot();
            if let Some(point) = waiting_point(&mut h.task).filter(|_| snapshot != last) {
                // NOTE: a request that had no reply yet is sent again on resume: its reply is
                // not used up.
                let sent = h
                    .effects
                    .iter()
                    .rev()
                    .find(|e| matches!(e, Effect::OpenStream { .. } | Effect::ListMcpServers { .. }));
                let reopens = point == "stream" && matches!(sent, Some(Effect::OpenStream { .. }));
                points.push(json!({
                    "at": point,
                    "now": h.now,
                    "repliesUsed": h.requests.len() - usize::from(reopens),
                    "snapshot": serde_json::from_str::<Value>(&snapshot).unwrap(),
                }));
            }
            last = snapshot;
            if h.outcome().is_some() || !h.next_event() {
                break;
            }
        }
        assert_eq!(end_of(&h), end, "{name}: the stepped run equals the whole run");
        scenario["points"] = Value::Array(points);
        scenario["end"] = end;
        scenario["startText"] = json!("Update b from a");
        std::fs::write(&path, serde_json::to_string(&scenario).unwrap() + "\n").unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Checking every file of every format.

fn api_req_texts_apart(end: &Value) -> (Value, Vec<Value>) {
    let mut end = end.clone();
    let mut texts = Vec::new();
    for m in end["messages"].as_array_mut().unwrap() {
        if m["say"] == "api_req_started" || m["kind"]["say"] == "api_req_started" {
            texts.push(m["text"].take());
        }
    }
    end["usage"] = Value::Null;
    (end, texts)
}

#[test]
fn every_reference_snapshot_restores_and_resumes_to_its_recorded_end() {
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures()).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    assert!(!dirs.is_empty());
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let scenario: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let name = scenario["name"].as_str().unwrap();
            for (i, point) in scenario["points"].as_array().unwrap().iter().enumerate() {
                let at = format!("{}: point {i} ({})", file.display(), point["at"]);
                let config = scenario_config(name);
                let mut task =
                    Task::restore(&point["snapshot"].to_string(), config).unwrap_or_else(|e| panic!("{at}: {e}"));
                let now = point["now"].as_u64().unwrap();
                task.resume(now);
                let mut h = drive(&scenario, Some(task), now, point["repliesUsed"].as_u64().unwrap() as usize);
                h.run();
                let (mut end, mut want) = (end_of(&h), scenario["end"].clone());
                // NOTE: since issue 28 a call that asks a person shows partially until the reply
                // ends, so its final message says `partial: false` where one that was never
                // shown partially has no `partial`: both are final.
                finals_without_partial(&mut end);
                finals_without_partial(&mut want);
                if dir.ends_with("v2") || dir.ends_with("v3") {
                    // NOTE: format 4 adds the context figure to each finished request's
                    // `api_req_started` (CONTEXT §9.2), which earlier builds did not write.
                    without_context_tokens(&mut end);
                }
                // NOTE: `ts` compare by rank: the harness's clock moves one step per event, so
                // a build that orders its effects differently (issue 28 asks after the reply's
                // end) or a request sent again gives other values in the same order. The
                // messages the snapshot holds keep their exact `ts`, checked apart.
                ts_as_ranks(&mut end);
                ts_as_ranks(&mut want);
                if let Some(lost) = lost_message(&point["snapshot"], &h) {
                    failures.push(format!("{at}: {lost}"));
                }
                let mcp_call = name == "mcp" && point["at"].as_str().unwrap().starts_with("tool");
                if mcp_call && end["history"] != want["history"] {
                    // NOTE: format 2 does not hold the servers' listing, so a restored task does
                    // not know that a server's tool only reads: an interrupted MCP call gets the
                    // "outcome unknown" result (the README's promise) instead of running again.
                    let unknown = |v: &Value| v.to_string().contains("what it changed, is unknown");
                    let history = |v: &Value| v["history"].as_array().unwrap().clone();
                    let (got, recorded) = (history(&end), history(&want));
                    let differing: Vec<usize> = (0..got.len()).filter(|&i| got.get(i) != recorded.get(i)).collect();
                    let as_promised = got.len() == recorded.len()
                        && end["outcome"] == want["outcome"]
                        && differing.len() == 1
                        && differing.iter().all(|&i| unknown(&got[i]));
                    // (A resource read runs again: its point resumes to the recorded end.)
                    if !as_promised {
                        failures.push(format!("{at}: the interrupted MCP call: {differing:?}"));
                    }
                } else if point["at"].as_str().unwrap().ends_with("(reply streaming)") {
                    // What never arrived is missing, nothing else: the input counted once, no
                    // more output than the whole reply's (all of it when the reply's last usage
                    // had come before the snapshot: a snapshot does not say whether it had, so
                    // the round says `usageComplete: false` either way).
                    let tokens = |v: &Value, key: &str| v["usage"][key].as_u64().unwrap();
                    let short = tokens(&end, "input_tokens") == tokens(&want, "input_tokens")
                        && tokens(&end, "output_tokens") <= tokens(&want, "output_tokens");
                    if !short {
                        failures.push(format!("{at}: usage {} against {}", end["usage"], want["usage"]));
                    }
                    let (got, got_texts) = api_req_texts_apart(&end);
                    let (want, want_texts) = api_req_texts_apart(&want);
                    let incomplete =
                        got_texts.iter().filter(|t| t.as_str().unwrap().contains("\"usageComplete\":false")).count();
                    if got != want || got_texts.len() != want_texts.len() || incomplete != 1 {
                        failures
                            .push(format!("{at}: {} ({incomplete} incomplete)", first_difference(&got, &want, "end")));
                    }
                } else {
                    if end != want {
                        failures.push(format!("{at}: {}", first_difference(&end, &want, "end")));
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} did not resume to their end: {failures:#?}", failures.len());
    assert!(checked >= 90, "only {checked} reference snapshots");
}

/// The first path where `a` and `b` differ, with both values.
fn first_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                if y.get(k) != Some(v) {
                    return first_difference(v, y.get(k).unwrap_or(&Value::Null), &format!("{path}.{k}"));
                }
            }
            format!("{path}: keys differ")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if v != w {
                    return first_difference(v, w, &format!("{path}[{i}]"));
                }
            }
            path.to_owned()
        }
        _ => format!("{path}: {a} against {b}"),
    }
}

/// Each message's `ts` replaced by its place in the transcript.
fn without_context_tokens(end: &mut Value) {
    for m in end["messages"].as_array_mut().unwrap() {
        if let Some(text) = m["text"].as_str().filter(|t| t.contains("\"contextTokens\":")) {
            let at = text.find(",\"contextTokens\":").unwrap();
            let rest = &text[at + 1..];
            let len = rest.find([',', '}']).unwrap();
            m["text"] = Value::String(format!("{}{}", &text[..at], &rest[len..]));
        }
    }
}

fn ts_as_ranks(end: &mut Value) {
    for (i, m) in end["messages"].as_array_mut().unwrap().iter_mut().enumerate() {
        m["ts"] = json!(i);
    }
}

/// `partial: false` left out of each message (a final message, either way).
fn finals_without_partial(end: &mut Value) {
    for m in end["messages"].as_array_mut().unwrap() {
        if m["partial"] == json!(false) {
            m.as_object_mut().unwrap().remove("partial");
        }
    }
}

/// A message of the snapshot's transcript that the end lacks, with its `ts` and kind.
fn lost_message(snapshot: &Value, h: &Harness) -> Option<String> {
    let messages: Vec<Message> = serde_json::from_value(snapshot["messages"].clone()).ok()?;
    let end = h.task.messages();
    messages
        .iter()
        .find(|m| !end.iter().any(|e| e.ts == m.ts && e.kind == m.kind))
        .map(|m| format!("the message {} ({:?}) of the snapshot is not in the end", m.ts, m.kind))
}

#[test]
fn a_restored_snapshot_of_this_format_is_written_back_byte_for_byte() {
    let dir = fixtures().join(format!("v{}", clew::agent::SNAPSHOT_VERSION));
    let mut checked = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let file = file.unwrap().path();
        let scenario: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let name = scenario["name"].as_str().unwrap();
        for (i, point) in scenario["points"].as_array().unwrap().iter().enumerate() {
            let text = point["snapshot"].to_string();
            let mut task = Task::restore(&text, scenario_config(name)).unwrap();
            let written: Value = serde_json::from_str(&task.snapshot()).unwrap();
            assert_eq!(written, point["snapshot"], "{}: point {i} ({})", file.display(), point["at"]);
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}
