//! CONTEXT §2.1's turn invariant (§10, item 5), as a property of whole tasks: a scripted model
//! plays random replies (reasoning with or without encrypted content or signatures, text,
//! parallel calls, opaque items, provider compactions, empty replies, context-window errors,
//! failed streams, denials) in each of the four wire formats, under every strategy, with a
//! context small enough that truncation, edits, summaries and compactions all happen. Every
//! request body the task builds is checked:
//! - I1: a reasoning item that is sent is followed by the item that followed it;
//! - I2, I3: every call has exactly one result, after it, in the next message; no result
//!   without its call;
//! - I4 (Gemini): a signature only on the part it came with; a turn's calls all or none;
//! - I5: a compaction is sent as it came;
//! - and the repair net (R3) never fires.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;

use crate::harness::*;
use clew::agent::{
    AskAnswer, AskResponse, ContextConfig, EditConfig, Message, Strategy as ContextStrategy, SummarizeConfig,
    TaskConfig, ToolCalling,
};
use clew::request::build_request;
use clew::stream::{Format, StreamError};
use proptest::prelude::*;
use serde_json::{json, Value};

/// One piece of a scripted reply, in the order it streams.
#[derive(Clone, Debug)]
enum Piece {
    /// Reasoning `k`: with encrypted content / a signature, or without.
    Reasoning {
        k: usize,
        kept: bool,
    },
    Text,
    Call {
        k: usize,
        name: &'static str,
    },
    /// An output item clew does not interpret.
    Opaque,
    /// A provider compaction (`null`: Anthropic's failed one).
    Compaction {
        null: bool,
    },
}

#[derive(Clone, Debug)]
enum Kind {
    Normal,
    Empty,
    ContextError,
    FailMidway,
}

#[derive(Clone, Debug)]
struct Turn {
    pieces: Vec<Piece>,
    kind: Kind,
    /// The usage as a share of the limit, in percent.
    usage_percent: u64,
}

fn turn(summarize: bool) -> impl Strategy<Value = Turn> {
    let names: &'static [&'static str] =
        if summarize { &["read", "write", "summarize_task"] } else { &["read", "write"] };
    (
        0..3usize,
        any::<bool>(),
        any::<bool>(),
        0..4usize,
        any::<bool>(),
        prop::option::weighted(0.15, any::<bool>()),
        prop::sample::select(vec![0u8, 0, 0, 0, 0, 0, 0, 1, 2, 3]),
        10..260u64,
        prop::collection::vec(0..names.len(), 3),
        any::<bool>(),
    )
        .prop_map(move |(reasoning, kept, text, calls, opaque, compaction, kind, usage_percent, picks, late)| {
            let mut pieces = Vec::new();
            if let Some(null) = compaction {
                pieces.push(Piece::Compaction { null });
            }
            for k in 0..reasoning {
                pieces.push(Piece::Reasoning { k, kept: kept || k == 1 });
            }
            if text || calls == 0 {
                pieces.push(Piece::Text);
            }
            if late && reasoning > 0 && calls > 0 {
                pieces.push(Piece::Reasoning { k: reasoning, kept: true });
            }
            for k in 0..calls {
                pieces.push(Piece::Call { k, name: names[picks[k % picks.len()]] });
            }
            if opaque {
                pieces.push(Piece::Opaque);
            }
            let kind = match kind {
                1 => Kind::Empty,
                2 => Kind::ContextError,
                3 => Kind::FailMidway,
                _ => Kind::Normal,
            };
            Turn { pieces, kind, usage_percent }
        })
}

fn data(value: Value) -> Vec<u8> {
    format!("data: {value}\n\n").into_bytes()
}

fn marker(n: usize, piece: &Piece) -> String {
    match piece {
        Piece::Reasoning { k, .. } => format!("r{n}-{k}"),
        Piece::Text => format!("t{n}"),
        Piece::Call { k, .. } => format!("c{n}-{k}"),
        Piece::Opaque => format!("o{n}"),
        Piece::Compaction { .. } => format!("s{n}"),
    }
}

fn args(n: usize, piece: &Piece) -> Value {
    match piece {
        Piece::Call { name: "summarize_task", .. } => {
            json!({"context": format!("Summary of turn {n}.\n9. Required files\n- a.md"), "path": marker(n, piece)})
        }
        Piece::Call { name: "write", .. } => json!({"path": marker(n, piece), "content": "x"}),
        _ => json!({"path": marker(n, piece)}),
    }
}

/// The reply's events in `format`; `n` numbers the reply, `input` its input tokens.
fn events(format: Format, n: usize, turn: &Turn, input: u64) -> Vec<Vec<u8>> {
    let pieces: Vec<&Piece> = match turn.kind {
        Kind::Empty => Vec::new(),
        _ => turn.pieces.iter().collect(),
    };
    let calls = pieces.iter().any(|p| matches!(p, Piece::Call { .. }));
    match format {
        Format::Anthropic => {
            let start = json!({"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":input,"output_tokens":1}}});
            let mut out = vec![sse("message_start", start)];
            for (index, piece) in pieces.iter().enumerate() {
                let m = marker(n, piece);
                let (block, deltas) = match piece {
                    Piece::Reasoning { kept: true, .. } => (
                        json!({"type":"thinking","thinking":""}),
                        vec![
                            json!({"type":"thinking_delta","thinking":m}),
                            json!({"type":"signature_delta","signature":format!("sig-{m}")}),
                        ],
                    ),
                    Piece::Reasoning { kept: false, .. } => {
                        (json!({"type":"redacted_thinking","data":format!("red-{m}")}), Vec::new())
                    }
                    Piece::Text => (json!({"type":"text","text":""}), vec![json!({"type":"text_delta","text":m})]),
                    Piece::Call { name, .. } => (
                        json!({"type":"tool_use","id":format!("call_{m}"),"name":name,"input":{}}),
                        vec![json!({"type":"input_json_delta","partial_json":args(n, piece).to_string()})],
                    ),
                    Piece::Opaque => continue,
                    Piece::Compaction { null } => (
                        json!({"type":"compaction","content":null}),
                        if *null { Vec::new() } else { vec![json!({"type":"compaction_delta","content":m})] },
                    ),
                };
                out.push(sse(
                    "content_block_start",
                    json!({"type":"content_block_start","index":index,"content_block":block}),
                ));
                for delta in deltas {
                    out.push(sse(
                        "content_block_delta",
                        json!({"type":"content_block_delta","index":index,"delta":delta}),
                    ));
                }
                out.push(sse("content_block_stop", json!({"type":"content_block_stop","index":index})));
            }
            let stop = if calls { "tool_use" } else { "end_turn" };
            out.push(sse(
                "message_delta",
                json!({"type":"message_delta","delta":{"stop_reason":stop},"usage":{"output_tokens":10}}),
            ));
            out.push(sse("message_stop", json!({"type":"message_stop"})));
            out
        }
        Format::OpenAiResponses => {
            let mut out = vec![data(json!({"type":"response.created","response":{"id":format!("resp_{n}")}}))];
            for (index, piece) in pieces.iter().enumerate() {
                let m = marker(n, piece);
                let item = match piece {
                    Piece::Reasoning { kept, .. } => {
                        let mut item = json!({"type":"reasoning","id":format!("rs_{m}"),"summary":[{"type":"summary_text","text":m}]});
                        if *kept {
                            item["encrypted_content"] = json!(format!("enc-{m}"));
                        }
                        item
                    }
                    Piece::Text => {
                        json!({"type":"message","id":format!("msg_{m}"),"role":"assistant","content":[{"type":"output_text","text":m}]})
                    }
                    Piece::Call { name, .. } => {
                        json!({"type":"function_call","id":format!("fc_{m}"),"call_id":format!("call_{m}"),"name":name,"arguments":args(n, piece).to_string()})
                    }
                    Piece::Opaque => {
                        json!({"type":"web_search_call","id":format!("ws_{m}"),"status":"completed","action":{"type":"search","query":m}})
                    }
                    Piece::Compaction { .. } => {
                        json!({"type":"compaction","id":format!("cmp_{m}"),"encrypted_content":format!("cenc-{m}")})
                    }
                };
                let added = json!({"type":"response.output_item.added","output_index":index,"item":item});
                out.push(data(added));
                out.push(data(json!({"type":"response.output_item.done","output_index":index,"item":item})));
            }
            let usage = json!({"input_tokens":input,"output_tokens":10});
            out.push(data(json!({"type":"response.completed","response":{"status":"completed","usage":usage}})));
            out
        }
        Format::Gemini => {
            let mut parts = Vec::new();
            let mut first_call = true;
            for piece in &pieces {
                let m = marker(n, piece);
                parts.push(match piece {
                    // NOTE: unsigned thought parts are pieces of the next signed one (the
                    // decoder joins them), so each scripted thought is signed.
                    Piece::Reasoning { .. } => json!({"text":m,"thought":true,"thoughtSignature":format!("sig-{m}")}),
                    Piece::Text => json!({"text":m}),
                    Piece::Call { name, .. } => {
                        let mut part = json!({"functionCall":{"name":name,"args":args(n, piece)}});
                        if std::mem::take(&mut first_call) {
                            part["thoughtSignature"] = json!(format!("sig-{m}"));
                        }
                        part
                    }
                    Piece::Opaque => json!({"executableCode":{"language":"PYTHON","code":m}}),
                    Piece::Compaction { .. } => continue,
                });
            }
            let mut out: Vec<Vec<u8>> = parts
                .into_iter()
                .map(|part| data(json!({"candidates":[{"content":{"role":"model","parts":[part]}}]})))
                .collect();
            let usage = json!({"promptTokenCount":input,"candidatesTokenCount":10});
            out.push(data(json!({"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"STOP"}],"usageMetadata":usage})));
            out
        }
        _ => {
            // OpenAI Chat Completions.
            let chunk = |delta: Value| data(json!({"choices":[{"index":0,"delta":delta}]}));
            let mut out = Vec::new();
            let mut k = 0;
            for piece in &pieces {
                let m = marker(n, piece);
                match piece {
                    Piece::Text => out.push(chunk(json!({"content":m}))),
                    Piece::Call { name, .. } => {
                        out.push(chunk(json!({"tool_calls":[{"index":k,"id":format!("call_{m}"),"type":"function","function":{"name":name,"arguments":args(n, piece).to_string()}}]})));
                        k += 1;
                    }
                    _ => {}
                }
            }
            let finish = if calls { "tool_calls" } else { "stop" };
            out.push(data(json!({"choices":[{"index":0,"delta":{},"finish_reason":finish}]})));
            out.push(data(json!({"choices":[],"usage":{"prompt_tokens":input,"completion_tokens":10}})));
            out.push(b"data: [DONE]\n\n".to_vec());
            out
        }
    }
}

/// The model's replies for `turns`, then a completion.
fn script(format: Format, turns: &[Turn], limit: u64) -> Vec<Reply> {
    let mut replies: Vec<Reply> = turns
        .iter()
        .enumerate()
        .map(|(i, turn)| {
            let n = i + 1;
            let input = limit * turn.usage_percent / 100;
            match turn.kind {
                Kind::ContextError => fail(http(400, "prompt is too long: 210000 tokens > 200000 maximum")),
                Kind::FailMidway => {
                    let mut events = events(format, n, turn, input);
                    events.truncate(events.len() / 2);
                    Reply::FailAfter(events, StreamError::Network { message: "connection reset".into() })
                }
                _ => Reply::Bytes(events(format, n, turn, input)),
            }
        })
        .collect();
    let done =
        Turn { pieces: vec![Piece::Call { k: 0, name: "attempt_completion" }], kind: Kind::Normal, usage_percent: 10 };
    let mut last = events(format, turns.len() + 1, &done, limit / 10);
    // The completion's arguments: `result`, not `path`.
    for event in &mut last {
        let text = String::from_utf8(event.clone()).unwrap();
        *event = text.replace("\\\"path\\\"", "\\\"result\\\"").replace("\"path\"", "\"result\"").into_bytes();
    }
    replies.push(Reply::Bytes(last));
    replies
}

/// One entry of a request body, normalised across formats.
#[derive(Clone, Debug, PartialEq)]
enum Entry {
    Reasoning(String),
    Text(String),
    Call(String),
    Result(String),
    Compaction(String),
    Opaque(String),
    /// A Gemini part's signature, with the marker of the part it is on.
    Signed {
        on: String,
        signature: String,
    },
}

/// The body's messages as (role, entries).
fn entries(format: Format, body: &Value) -> Vec<(String, Vec<Entry>)> {
    let text_marker = |t: &str| {
        let mut out = Vec::new();
        if t.contains("no longer available") {
            out.push(Entry::Text("REPAIR".into()));
        }
        let t = t.trim();
        if t.len() < 12 && t.starts_with('t') {
            out.push(Entry::Text(t.to_owned()));
        }
        out
    };
    let strip = |s: &str, prefix: &str| s.strip_prefix(prefix).unwrap_or(s).to_owned();
    let mut out = Vec::new();
    match format {
        Format::Anthropic => {
            for m in body["messages"].as_array().unwrap() {
                let role = m["role"].as_str().unwrap().to_owned();
                let mut list = Vec::new();
                let blocks = match &m["content"] {
                    Value::String(s) => vec![json!({"type":"text","text":s})],
                    Value::Array(a) => a.clone(),
                    _ => Vec::new(),
                };
                for b in blocks {
                    match b["type"].as_str().unwrap() {
                        "thinking" => list.push(Entry::Reasoning(b["thinking"].as_str().unwrap().to_owned())),
                        "redacted_thinking" => list.push(Entry::Reasoning(strip(b["data"].as_str().unwrap(), "red-"))),
                        "text" => list.extend(text_marker(b["text"].as_str().unwrap())),
                        "tool_use" => list.push(Entry::Call(b["id"].as_str().unwrap().to_owned())),
                        "tool_result" => {
                            list.push(Entry::Result(b["tool_use_id"].as_str().unwrap().to_owned()));
                            list.extend(text_marker(&b["content"].to_string()));
                        }
                        "compaction" => {
                            list.push(Entry::Compaction(b["content"].as_str().unwrap_or("null").to_owned()))
                        }
                        _ => {}
                    }
                }
                out.push((role, list));
            }
        }
        Format::OpenAiResponses => {
            // Each item is a "message" of its own; the checks read them as one flat list.
            let mut list = Vec::new();
            for item in body["input"].as_array().unwrap() {
                match item["type"].as_str().unwrap_or("message") {
                    "reasoning" => list
                        .push(Entry::Reasoning(strip(item["encrypted_content"].as_str().unwrap_or("NOENC"), "enc-"))),
                    "function_call" => list.push(Entry::Call(item["call_id"].as_str().unwrap().to_owned())),
                    "function_call_output" => {
                        list.push(Entry::Result(item["call_id"].as_str().unwrap().to_owned()));
                        list.extend(text_marker(&item["output"].to_string()));
                    }
                    "compaction" => list
                        .push(Entry::Compaction(strip(item["encrypted_content"].as_str().unwrap_or("NOENC"), "cenc-"))),
                    "web_search_call" => list.push(Entry::Opaque(item["action"]["query"].as_str().unwrap().to_owned())),
                    _ => {
                        let content = &item["content"];
                        match content {
                            Value::String(s) => list.extend(text_marker(s)),
                            Value::Array(parts) => {
                                for p in parts {
                                    list.extend(text_marker(p["text"].as_str().unwrap_or_default()));
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            out.push(("input".to_owned(), list));
        }
        Format::Gemini => {
            for c in body["contents"].as_array().unwrap() {
                let role = c["role"].as_str().unwrap().to_owned();
                let mut list = Vec::new();
                for p in c["parts"].as_array().unwrap() {
                    let at = list.len();
                    let on = if p.get("functionCall").is_some() {
                        let call = Entry::Call(p["functionCall"]["args"]["path"].as_str().unwrap_or("?").to_owned());
                        list.push(call);
                        p["functionCall"]["args"]["path"].as_str().unwrap_or("?").to_owned()
                    } else if p.get("functionResponse").is_some() {
                        list.push(Entry::Result(p["functionResponse"]["name"].as_str().unwrap().to_owned()));
                        list.extend(text_marker(&p["functionResponse"].to_string()));
                        String::new()
                    } else if p["thought"] == json!(true) {
                        let m = p["text"].as_str().unwrap().to_owned();
                        list.push(Entry::Reasoning(m.clone()));
                        m
                    } else if let Some(t) = p["text"].as_str() {
                        list.extend(text_marker(t));
                        t.to_owned()
                    } else if p.get("executableCode").is_some() {
                        let m = p["executableCode"]["code"].as_str().unwrap().to_owned();
                        list.push(Entry::Opaque(m.clone()));
                        m
                    } else {
                        String::new()
                    };
                    if let Some(signature) = p["thoughtSignature"].as_str() {
                        // Before the part's entry: the entry after a reasoning part is the next
                        // part's.
                        list.insert(at, Entry::Signed { on, signature: signature.to_owned() });
                    }
                }
                out.push((role, list));
            }
        }
        _ => {
            for m in body["messages"].as_array().unwrap() {
                let role = m["role"].as_str().unwrap().to_owned();
                let mut list = Vec::new();
                if let Some(calls) = m["tool_calls"].as_array() {
                    list.extend(calls.iter().map(|c| Entry::Call(c["id"].as_str().unwrap().to_owned())));
                }
                if role == "tool" {
                    list.push(Entry::Result(m["tool_call_id"].as_str().unwrap().to_owned()));
                }
                list.extend(text_marker(&m["content"].to_string()));
                out.push((role, list));
            }
        }
    }
    out
}

/// Checks one body against I1–I5 and the repair net; `order` is each reply's markers in the
/// order they streamed; `compactions` the compactions' content by marker.
fn check(format: Format, body: &Value, order: &HashMap<usize, Vec<String>>, cut: &[usize]) -> Result<(), String> {
    let messages = entries(format, body);
    let flat: Vec<&Entry> = messages.iter().flat_map(|(_, list)| list.iter()).collect();
    if flat.iter().any(|e| matches!(e, Entry::Text(t) if t == "REPAIR")) {
        return Err("the repair net fired".into());
    }
    let turn_of = |m: &str| m.get(1..)?.split('-').next()?.parse::<usize>().ok();
    // I1: reasoning is followed by what followed it.
    for (_, list) in &messages {
        for (i, entry) in list.iter().enumerate() {
            let Entry::Reasoning(m) = entry else { continue };
            let Some(n) = turn_of(m) else { return Err(format!("reasoning {m} sent")) };
            if cut.contains(&n) {
                // A reply cut by a failure: what followed never arrived.
                continue;
            }
            let sequence = &order[&n];
            let at = sequence.iter().position(|s| s == m).ok_or(format!("unknown reasoning {m}"))?;
            let Some(successor) = sequence.get(at + 1) else {
                return Err(format!("reasoning {m} ended its reply and was sent"));
            };
            let next = list.get(i + 1).map(|e| match e {
                Entry::Reasoning(x) | Entry::Text(x) | Entry::Opaque(x) => x.clone(),
                Entry::Call(x) if format == Format::Gemini => x.clone(),
                Entry::Call(x) => x.trim_start_matches("call_").to_owned(),
                Entry::Signed { on, .. } => on.clone(),
                other => format!("{other:?}"),
            });
            if next.as_deref() != Some(successor.as_str()) {
                return Err(format!("reasoning {m} followed by {next:?}, not {successor}"));
            }
        }
    }
    // I4: Gemini signatures on their own parts; a turn's calls all or none.
    if format == Format::Gemini {
        for entry in &flat {
            if let Entry::Signed { on, signature } = entry {
                if signature != &format!("sig-{on}") {
                    return Err(format!("signature {signature} on {on}"));
                }
            }
        }
        for (n, sequence) in order.iter().filter(|(n, _)| !cut.contains(n)) {
            let want = sequence.iter().filter(|m| m.starts_with('c')).count();
            let got = flat
                .iter()
                .filter(|e| matches!(e, Entry::Call(x) if turn_of(x) == Some(*n) && x.starts_with('c')))
                .count();
            if got != 0 && got != want {
                return Err(format!("{got} of turn {n}'s {want} calls"));
            }
        }
        // Results: each model content's calls answered in the next content, as many.
        for (i, (role, list)) in messages.iter().enumerate() {
            let calls = list.iter().filter(|e| matches!(e, Entry::Call(_))).count();
            let results = |j: usize| {
                messages.get(j).map_or(0, |(_, l)| l.iter().filter(|e| matches!(e, Entry::Result(_))).count())
            };
            if role == "model" && calls != results(i + 1) {
                return Err(format!("content {i}: {calls} calls, {} results", results(i + 1)));
            }
            if role == "user"
                && results(i) > 0
                && (i == 0 || messages[i - 1].1.iter().filter(|e| matches!(e, Entry::Call(_))).count() != results(i))
            {
                return Err(format!("content {i}: results without their calls"));
            }
        }
    } else {
        // I2, I3 by id: one call, one result, the result after the call (in the next message
        // where messages alternate).
        let mut seen: HashMap<String, (usize, usize)> = HashMap::new();
        for (position, entry) in flat.iter().enumerate() {
            match entry {
                Entry::Call(id) if seen.insert(id.clone(), (position, usize::MAX)).is_some() => {
                    return Err(format!("call {id} twice"));
                }
                Entry::Result(id) => match seen.get_mut(id) {
                    Some((_, result)) if *result == usize::MAX => *result = position,
                    Some(_) => return Err(format!("result of {id} twice")),
                    None => return Err(format!("result of {id} without its call before it")),
                },
                _ => {}
            }
        }
        if let Some((id, _)) = seen.iter().find(|(_, (_, result))| *result == usize::MAX) {
            return Err(format!("call {id} without a result"));
        }
        if format != Format::OpenAiResponses {
            for (i, (role, list)) in messages.iter().enumerate() {
                for entry in list {
                    if let Entry::Result(id) = entry {
                        let previous = i.checked_sub(1).map(|j| &messages[j]);
                        let in_previous = previous.is_some_and(|(_, l)| l.contains(&Entry::Call(id.clone())));
                        // Chat: tool messages follow their assistant message one after another.
                        let chat = role == "tool"
                            && messages[..i]
                                .iter()
                                .rev()
                                .find(|(r, _)| r != "tool")
                                .is_some_and(|(_, l)| l.contains(&Entry::Call(id.clone())));
                        if !in_previous && !chat {
                            return Err(format!("result of {id} not right after its call"));
                        }
                    }
                }
            }
        }
    }
    // I5: compactions as they came.
    for entry in &flat {
        if let Entry::Compaction(m) = entry {
            if m != "null" && turn_of(m).is_none() {
                return Err(format!("compaction {m} changed"));
            }
        }
    }
    Ok(())
}

fn strategy_config(format: Format, pick: u8, cap: bool) -> (TaskConfig, u64) {
    let mut config = TaskConfig { format, tool_calling: ToolCalling::Native, ..config() };
    // NOTE: a restored task runs an interrupted `write` again only when it is idempotent (else
    // its result says the outcome is unknown, and the requests differ from the whole run's).
    config.tools[1].idempotent = true;
    let native = matches!(format, Format::Anthropic | Format::OpenAiResponses) && pick == 3;
    config.info.context_window = Some(if native && format == Format::Anthropic { 200_000 } else { 64_000 });
    let strategy = match pick {
        0 => ContextStrategy::Truncate,
        1 => ContextStrategy::Edit,
        2 => ContextStrategy::Summarize,
        _ if native => ContextStrategy::Native,
        _ => ContextStrategy::Truncate,
    };
    let edit = (pick == 1 || cap).then(|| EditConfig { keep_tool_uses: 2, ..EditConfig::default() });
    config.context = ContextConfig {
        strategy,
        max_context_tokens: (cap && !native).then_some(20_000),
        edit,
        summarize: SummarizeConfig { all_models: true, ..SummarizeConfig::default() },
        native_supported: native,
        summarize_eligible: true,
        ..ContextConfig::default()
    };
    let limit = config.context.limit(&config.info);
    (config, limit)
}

/// Denies the approval of a call whose turn is in `denied` (by content, so that a restored
/// task asked again answers the same).
fn asker(denied: Vec<usize>) -> Box<dyn FnMut(&Message) -> Option<AskAnswer>> {
    Box::new(move |m: &Message| {
        if m.is_partial() {
            return None;
        }
        let deny = denied.iter().any(|n| m.text.contains(&format!("\"c{n}-")));
        Some(AskAnswer::button(if deny { AskResponse::No } else { AskResponse::Yes }))
    })
}

/// Runs the task, and again restored from a snapshot at waiting point `restore_at`; checks
/// every body of both, and that the restored run sends what the whole run sent.
fn run(
    format: Format,
    pick: u8,
    cap: bool,
    turns: &[Turn],
    denied: &[usize],
    parallel: bool,
    restore_at: Option<usize>,
) -> Result<usize, String> {
    let (mut config, limit) = strategy_config(format, pick, cap);
    config.parallel_tool_calling = parallel;
    let mut h = Harness::new(config.clone(), script(format, turns, limit));
    h.ask = asker(denied.to_vec());
    h.start("Fix the README.");
    let mut order = HashMap::new();
    for (i, turn) in turns.iter().enumerate() {
        let markers: Vec<String> = turn
            .pieces
            .iter()
            .filter(|p| {
                // What the format cannot carry never streams.
                !matches!(
                    (format, p),
                    (Format::Anthropic, Piece::Opaque)
                        | (Format::Gemini, Piece::Compaction { .. })
                        | (Format::OpenAi, Piece::Reasoning { .. } | Piece::Opaque | Piece::Compaction { .. })
                )
            })
            .map(|p| marker(i + 1, p))
            .collect();
        order.insert(i + 1, markers);
    }
    let cut: Vec<usize> =
        turns.iter().enumerate().filter(|(_, t)| matches!(t.kind, Kind::FailMidway)).map(|(i, _)| i + 1).collect();
    let bodies = |requests: &[clew::request::ModelRequest]| -> Vec<Value> {
        requests.iter().map(|r| serde_json::from_str(&build_request(format, r).body).unwrap()).collect()
    };
    let whole = bodies(&h.requests);
    for (i, body) in whole.iter().enumerate() {
        check(format, body, &order, &cut).map_err(|e| format!("request {i}: {e}\n{body:#}"))?;
    }
    if let Some(stop_at) = restore_at {
        let mut first = Harness::new(config.clone(), script(format, turns, limit));
        first.ask = asker(denied.to_vec());
        first.pause = Some(at_waiting_point(stop_at));
        first.start("Fix the README.");
        if first.outcome().is_none() {
            let mut task = clew::agent::Task::restore(&first.task.snapshot(), config.clone())
                .map_err(|e| format!("restore at {stop_at}: {e}"))?;
            task.resume(first.now);
            let mut rest = Harness::new(config, Vec::new());
            rest.task = task;
            rest.now = first.now;
            rest.ask = asker(denied.to_vec());
            rest.model = script(format, turns, limit).into_iter().skip(first.requests.len()).collect();
            rest.run();
            let mut requests = first.requests.clone();
            requests.extend(rest.requests.iter().cloned());
            if bodies(&requests) != whole {
                return Err(format!("restored at waiting point {stop_at}, the task sent other requests"));
            }
        }
    }
    Ok(h.requests.len())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_request_breaks_a_turn_under_any_strategy_in_any_format(
        format in prop::sample::select(vec![Format::Anthropic, Format::OpenAiResponses, Format::Gemini, Format::OpenAi]),
        pick in 0u8..4,
        cap in any::<bool>(),
        turns in prop::collection::vec(turn(true), 2..14),
        denied in prop::collection::vec(1..14usize, 0..3),
        parallel in any::<bool>(),
        restore_at in prop::option::of(1..10usize),
    ) {
        let turns: Vec<Turn> = if pick == 2 {
            turns
        } else {
            // summarize_task only where the task may summarize.
            turns.into_iter().map(|mut t| {
                for p in &mut t.pieces {
                    if let Piece::Call { name, .. } = p {
                        if *name == "summarize_task" { *name = "read"; }
                    }
                }
                t
            }).collect()
        };
        let result = run(format, pick, cap, &turns, &denied, parallel, restore_at);
        prop_assert!(result.is_ok(), "{:?} strategy {} cap {}: {}", format, pick, cap, result.unwrap_err());
    }
}

#[test]
fn the_property_reaches_every_compaction_kind() {
    // The generator is only worth its cases if the strategies act: a long task with big usage
    // truncates, edits, summarizes and compacts natively.
    let busy = |percent: u64| Turn {
        pieces: vec![
            Piece::Reasoning { k: 0, kept: true },
            Piece::Text,
            Piece::Call { k: 0, name: "read" },
            Piece::Call { k: 1, name: "read" },
        ],
        kind: Kind::Normal,
        usage_percent: percent,
    };
    let turns: Vec<Turn> = (0..10).map(|i| busy(if i % 2 == 0 { 150 } else { 60 })).collect();
    let summarizing: Vec<Turn> = turns
        .iter()
        .cloned()
        .map(|mut t| {
            // First: in serial mode only a reply's first call runs.
            t.pieces[2] = Piece::Call { k: 0, name: "summarize_task" };
            t.pieces[3] = Piece::Call { k: 1, name: "read" };
            t
        })
        .collect();
    let compacting: Vec<Turn> = turns
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, mut t)| {
            if i % 3 == 2 {
                t.pieces.push(Piece::Compaction { null: false });
            }
            t
        })
        .collect();
    for (format, pick, kind, turns) in [
        (Format::OpenAiResponses, 0, "truncate", &turns),
        (Format::Gemini, 1, "edit", &turns),
        (Format::Anthropic, 0, "truncate", &turns),
        (Format::OpenAi, 2, "summary", &summarizing),
        (Format::OpenAiResponses, 3, "native", &compacting),
    ] {
        let (config, limit) = strategy_config(format, pick, false);
        let mut h = Harness::new(config, script(format, turns, limit));
        h.start("Fix the README.");
        let kinds: Vec<String> = h
            .says_of("compaction")
            .iter()
            .map(|m| serde_json::from_str::<Value>(&m.text).unwrap()["kind"].as_str().unwrap().to_owned())
            .collect();
        assert!(kinds.iter().any(|k| k == kind), "{format:?}: {kinds:?}");
        let checked = run(format, pick, false, turns, &[], false, Some(3));
        assert!(checked.is_ok(), "{checked:?}");
    }
}
