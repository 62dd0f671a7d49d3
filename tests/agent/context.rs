//! Context management (CONTEXT.md §10), driven through whole tasks: the limit and the
//! options that set it, the figure each request leaves, truncation's view in each wire format
//! (the first reply as the notice alone, parallel calls kept together), the loop breaker, the
//! edit pre-pass and the snapshot's context state. Every input here is synthetic.

use crate::harness::*;
use clew::agent::{codes, Effect, MessageKind, Outcome, Strategy, Task, TaskConfig, TaskOptions, ToolCalling};
use clew::json::Json;
use clew::request::{build_request, ModelRequest};
use clew::stream::Format;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// Helpers: options, scripted replies in each format, bodies and the transcript.

/// `new Task(options)`'s reader over a model of `format`, `id` and `info` with
/// `contextManagement`.
fn read_options(format: &str, id: &str, info: Value, management: Value) -> Result<TaskOptions, String> {
    let options = json!({"model": {"format": format, "id": id, "info": info}, "contextManagement": management});
    TaskOptions::from_json(&Json::parse(&options.to_string()).unwrap(), 0)
}

fn window_info(window: Option<u64>) -> Value {
    window.map_or(json!({}), |w| json!({"contextWindow": w}))
}

/// `config` with the context window and `contextManagement` read by the options reader.
fn managed(mut config: TaskConfig, window: Option<u64>, management: Value) -> TaskConfig {
    let read = read_options(config.format.name(), "test-model", window_info(window), management)
        .unwrap_or_else(|e| panic!("contextManagement: {e}"));
    config.info.context_window = read.config.info.context_window;
    config.context = read.config.context;
    config
}

/// A chunk-format usage line whose billed sum is `figure` (input `figure − 10`, output 10).
fn usage_of(figure: u64) -> Vec<u8> {
    line(json!({"type": "usage", "inputTokens": figure - 10, "outputTokens": 10}))
}

/// An XML `read` of `path`, with a usage line of `figure` (none: the reply reports no usage).
fn read_reply(path: &str, figure: Option<u64>) -> Reply {
    let mut pieces = vec![text_line(&format!("Reading.\n<read><path>{path}</path></read>"))];
    pieces.extend(figure.map(usage_of));
    Reply::Bytes(pieces)
}

/// An XML task: one read per figure, then a completion.
fn xml_script(figures: &[Option<u64>]) -> Vec<Reply> {
    let mut script: Vec<Reply> =
        figures.iter().enumerate().map(|(n, figure)| read_reply(&format!("f{n}"), *figure)).collect();
    script.push(completion("ok"));
    script
}

/// Runs `script` from the task "t".
fn run(config: TaskConfig, script: Vec<Reply>) -> Harness {
    let mut h = Harness::new(config, script);
    h.start("t");
    h
}

/// The compaction says of the transcript, parsed.
fn compactions(h: &Harness) -> Vec<Value> {
    says(h, "compaction").iter().map(|text| serde_json::from_str(text).unwrap()).collect()
}

/// Texts of the final say messages of `kind`.
fn says(h: &Harness, kind: &str) -> Vec<String> {
    h.task
        .messages()
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::Say(k) if k.as_str() == kind))
        .map(|m| m.text.clone())
        .collect()
}

/// For each `api_req_started`, the kinds of the compaction says right before it.
fn compactions_per_request(h: &Harness) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut pending = Vec::new();
    for m in h.task.messages() {
        match m.kind {
            MessageKind::Say(k) if k.as_str() == "compaction" => {
                let say: Value = serde_json::from_str(&m.text).unwrap();
                pending.push(say["kind"].as_str().unwrap().to_owned());
            }
            MessageKind::Say(k) if k.as_str() == "api_req_started" => out.push(std::mem::take(&mut pending)),
            _ => {}
        }
    }
    assert!(pending.is_empty(), "a compaction say with no request after it: {pending:?}");
    out
}

/// The failure's code and message.
fn failure(h: &Harness) -> (String, String) {
    match h.outcome() {
        Some(Outcome::Failed { code, message }) => (code.clone(), message.clone()),
        other => panic!("the task did not fail: {other:?}"),
    }
}

/// Whether `text` holds the whole number `n` (digits not part of a longer number).
fn names_number(text: &str, n: u64) -> bool {
    text.split(|c: char| !c.is_ascii_digit()).any(|word| word == n.to_string())
}

/// Each request's wire body as text.
fn body_texts(format: Format, requests: &[ModelRequest]) -> Vec<String> {
    requests.iter().map(|r| build_request(format, r).body).collect()
}

fn parse(body: &str) -> Value {
    serde_json::from_str(body).unwrap()
}

/// The first byte where `a` and `b` differ.
fn first_difference(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or_else(|| a.len().min(b.len()))
}

/// The truncation notice message 1 becomes (R1).
fn notice() -> &'static str {
    clew::agent::texts::history_truncated()
}

/// What a cleared result holds by default.
fn placeholder() -> &'static str {
    clew::agent::texts::tool_result_cleared()
}

// Native replies: reasoning (signed or encrypted), the text "Looking, round n.", then calls
// `(name, args)`, with the input tokens that set the figure (output: 10).

fn data(value: Value) -> Vec<u8> {
    format!("data: {value}\n\n").into_bytes()
}

/// An Anthropic reply: signed thinking, text, `tool_use` blocks `toolu_{n}_{i}`.
fn anthropic_turn(n: usize, calls: &[(&str, Value)], input: u64) -> Reply {
    let mut blocks = vec![
        (
            json!({"type":"thinking","thinking":""}),
            vec![
                json!({"type":"thinking_delta","thinking":format!("Thinking {n}")}),
                json!({"type":"signature_delta","signature":format!("sig-{n}")}),
            ],
        ),
        (json!({"type":"text","text":""}), vec![json!({"type":"text_delta","text":format!("Looking, round {n}.")})]),
    ];
    for (i, (name, args)) in calls.iter().enumerate() {
        blocks.push((
            json!({"type":"tool_use","id":format!("toolu_{n}_{i}"),"name":name,"input":{}}),
            vec![json!({"type":"input_json_delta","partial_json":args.to_string()})],
        ));
    }
    anthropic_blocks(blocks, input, "tool_use", 10)
}

/// A Gemini reply: a signed thought, text, then the calls in one event, the first one signed
/// (as Gemini signs parallel calls).
fn gemini_turn(n: usize, calls: &[(&str, Value)], input: u64) -> Reply {
    let mut events = vec![data(json!({"candidates":[{"content":{"role":"model","parts":[
        {"text":format!("Thinking {n}"),"thought":true,"thoughtSignature":format!("thought-sig-{n}")}
    ]}}]}))];
    events.push(data(
        json!({"candidates":[{"content":{"role":"model","parts":[{"text":format!("Looking, round {n}.")}]}}]}),
    ));
    let parts: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            let call = json!({"functionCall":{"name":name,"args":args}});
            if i == 0 {
                let mut call = call;
                call["thoughtSignature"] = json!(format!("call-sig-{n}"));
                call
            } else {
                call
            }
        })
        .collect();
    events.push(data(json!({"candidates":[{"content":{"role":"model","parts":parts},"finishReason":"STOP"}],
        "usageMetadata":{"promptTokenCount":input,"candidatesTokenCount":10}})));
    Reply::Bytes(events)
}

/// An OpenAI Responses reply: an encrypted reasoning item, a message, then `function_call`
/// items `call_{n}_{i}`.
fn responses_turn(n: usize, calls: &[(&str, Value)], input: u64) -> Reply {
    let mut events = vec![data(json!({"type":"response.created","response":{"id":format!("resp_{n}")}}))];
    let reasoning = json!({"type":"reasoning","id":format!("rs_{n}"),"summary":[{"type":"summary_text","text":format!("Thinking {n}")}],"encrypted_content":format!("enc-{n}")});
    events.push(data(json!({"type":"response.output_item.added","output_index":0,"item":reasoning})));
    events.push(data(json!({"type":"response.output_item.done","output_index":0,"item":reasoning})));
    let text = format!("Looking, round {n}.");
    let message = json!({"type":"message","id":format!("msg_{n}"),"role":"assistant","content":[]});
    events.push(data(json!({"type":"response.output_item.added","output_index":1,"item":message})));
    events.push(data(
        json!({"type":"response.output_text.delta","output_index":1,"item_id":format!("msg_{n}"),"delta":text}),
    ));
    let message = json!({"type":"message","id":format!("msg_{n}"),"role":"assistant","content":[{"type":"output_text","text":text}]});
    events.push(data(json!({"type":"response.output_item.done","output_index":1,"item":message})));
    for (i, (name, args)) in calls.iter().enumerate() {
        let at = i + 2;
        let call = |arguments: &str| json!({"type":"function_call","id":format!("fc_{n}_{i}"),"call_id":format!("call_{n}_{i}"),"name":name,"arguments":arguments});
        events.push(data(json!({"type":"response.output_item.added","output_index":at,"item":call("")})));
        events.push(data(
            json!({"type":"response.function_call_arguments.delta","output_index":at,"delta":args.to_string()}),
        ));
        events.push(data(json!({"type":"response.output_item.done","output_index":at,"item":call(&args.to_string())})));
    }
    let usage = json!({"input_tokens":input,"output_tokens":10});
    events.push(data(json!({"type":"response.completed","response":{"status":"completed","usage":usage}})));
    Reply::Bytes(events)
}

/// A native reply in `format`.
fn turn(format: Format, n: usize, calls: &[(&str, Value)], input: u64) -> Reply {
    match format {
        Format::Anthropic => anthropic_turn(n, calls, input),
        Format::Gemini => gemini_turn(n, calls, input),
        Format::OpenAiResponses => responses_turn(n, calls, input),
        other => panic!("no native replies scripted for {other}"),
    }
}

fn read_call(path: &str) -> (&'static str, Value) {
    ("read", json!({ "path": path }))
}

fn completion_call() -> (&'static str, Value) {
    ("attempt_completion", json!({"result": "done"}))
}

/// Native tool calling in `format`, every call of a reply run.
fn native(format: Format) -> TaskConfig {
    TaskConfig { format, tool_calling: ToolCalling::Native, parallel_tool_calling: true, ..config() }
}

/// A native task: turn `n` (from 1) reads `p{n}` and reports `inputs[n − 1]` input tokens;
/// then a completion.
fn native_script(format: Format, inputs: &[u64]) -> Vec<Reply> {
    let mut script: Vec<Reply> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| turn(format, i + 1, &[read_call(&format!("p{}", i + 1))], *input))
        .collect();
    script.push(turn(format, inputs.len() + 1, &[completion_call()], 100));
    script
}

// ---------------------------------------------------------------------------------------
// §10 item 2: the limit.

#[test]
fn the_limit_is_the_window_budget_capped_by_max_context_tokens() {
    let budgets = [
        (Some(64_000), 37_000),
        (Some(128_000), 98_000),
        (Some(200_000), 160_000),
        (Some(272_000), 232_000),
        (Some(400_000), 360_000),
        (Some(1_000_000), 960_000),
        (None, 98_000),
    ];
    for (window, budget) in budgets {
        for cap in [None, Some(40_000u64), Some(100_000)] {
            let management = cap.map_or(json!({}), |cap| json!({ "maxContextTokens": cap }));
            let read = read_options("chunks", "m", window_info(window), management).unwrap();
            let expected = cap.map_or(budget, |cap| cap.min(budget));
            assert_eq!(read.config.context.limit(&read.config.info), expected, "window {window:?}, cap {cap:?}");
        }
    }
}

/// The messages of the request after one whose figure is `figure`: four small reads, then
/// the fifth reports `figure`; the sixth request is the one checked (the history then holds
/// 11 messages: `half` sends 7, `quarter` 5).
fn sixth_request_after(window: Option<u64>, management: Value, figure: u64) -> (usize, Harness) {
    let config = managed(config(), window, management);
    let h = run(config, xml_script(&[Some(100), Some(100), Some(100), Some(100), Some(figure)]));
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    assert_eq!(h.requests.len(), 6);
    (h.requests[5].messages.len(), h)
}

#[test]
fn a_figure_below_the_limit_sends_everything_at_the_limit_half_over_twice_the_limit_a_quarter() {
    let cases = [
        (Some(64_000), json!({}), 37_000),
        (Some(200_000), json!({"maxContextTokens": 100_000}), 100_000),
        (None, json!({}), 98_000),
        (Some(1_000_000), json!({"maxContextTokens": 40_000}), 40_000),
    ];
    for (window, management, limit) in cases {
        let at = |figure| sixth_request_after(window, management.clone(), figure).0;
        assert_eq!(at(limit - 1), 11, "{window:?}: limit − 1 sends everything");
        assert_eq!(at(limit), 7, "{window:?}: the limit truncates half");
        assert_eq!(at(2 * limit), 7, "{window:?}: twice the limit still truncates half");
        assert_eq!(at(2 * limit + 2), 5, "{window:?}: over twice the limit truncates a quarter");
        let (_, h) = sixth_request_after(window, management.clone(), limit);
        let view = &h.requests[5].messages;
        let history = h.task.history();
        assert_eq!(view[0], history[0], "message 0 unchanged");
        assert_eq!(block_texts(&view[1].content.blocks()), vec![notice().to_owned()]);
        assert_eq!(view[2..], history[6..11], "[2, 5] left out, the rest as it is");
    }
}

#[test]
fn a_figure_one_token_over_twice_the_limit_truncates_a_quarter() {
    // The reference compares figure / 2 > maxAllowed in floating point: 2·limit + 1 is over.
    let (sent, _) = sixth_request_after(Some(64_000), json!({}), 2 * 37_000 + 1);
    assert_eq!(sent, 5, "quarter: [2, 7] left out");
}

#[test]
fn max_context_tokens_caps_a_million_token_window() {
    let capped = json!({"maxContextTokens": 40_000});
    assert_eq!(sixth_request_after(Some(1_000_000), capped.clone(), 39_999).0, 11);
    assert_eq!(sixth_request_after(Some(1_000_000), capped, 40_000).0, 7, "truncated once the figure reaches 40k");
    assert_eq!(sixth_request_after(Some(1_000_000), json!({}), 40_000).0, 11, "the window alone allows 960k");
}

#[test]
fn context_management_settings_that_cannot_work_are_refused_by_name() {
    let at_200k = json!({"contextWindow": 200_000});
    let cases = [
        ("chunks", "m", json!({}), json!({"maxContextTokens": 0}), "maxContextTokens"),
        ("chunks", "m", json!({}), json!({"maxContextTokens": -40_000}), "maxContextTokens"),
        ("chunks", "m", json!({}), json!({"maxContextTokens": "40000"}), "maxContextTokens"),
        ("chunks", "m", json!({}), json!({"maxConsecutiveCompactions": 0}), "maxConsecutiveCompactions"),
        ("chunks", "m", json!({}), json!({"strategy": "shrink"}), "strategy"),
        ("chunks", "m", json!({}), json!({"strategy": "Truncate"}), "strategy"),
        ("openai", "gpt-5", json!({}), json!({"strategy": "native"}), "native"),
        ("gemini", "gemini-3-pro", json!({}), json!({"strategy": "native"}), "native"),
        (
            "anthropic",
            "claude-opus-4-6",
            at_200k.clone(),
            json!({"strategy": "native", "maxContextTokens": 49_999}),
            "native",
        ),
        ("anthropic", "claude-opus-4-6", json!({"contextWindow": 64_000}), json!({"strategy": "native"}), "native"),
        ("anthropic", "claude-3-haiku", at_200k.clone(), json!({"strategy": "native"}), "native"),
    ];
    for (format, id, info, management, field) in cases {
        let read = read_options(format, id, info, management.clone());
        match read {
            Err(message) => assert!(
                message.contains("contextManagement") && message.contains(field),
                "{format} {management}: {message}"
            ),
            Ok(_) => panic!("{format} {id} {management} was accepted"),
        }
    }
    let accepted = [
        ("anthropic", "claude-opus-4-6", at_200k.clone(), json!({"strategy": "native", "maxContextTokens": 50_000})),
        (
            "anthropic",
            "claude-3-haiku",
            json!({"contextWindow": 200_000, "supportsCompaction": true}),
            json!({"strategy": "native"}),
        ),
        ("openai-responses", "gpt-5", json!({}), json!({"strategy": "native"})),
        ("chunks", "m", json!({}), json!({"strategy": "edit", "maxContextTokens": 1, "maxConsecutiveCompactions": 1})),
    ];
    for (format, id, info, management) in accepted {
        assert!(read_options(format, id, info, management.clone()).is_ok(), "{format} {id} {management}");
    }
}

#[test]
fn a_fractional_cap_or_count_is_refused() {
    for management in [json!({"maxContextTokens": 40_000.5}), json!({"maxConsecutiveCompactions": 2.5})] {
        let read = read_options("chunks", "m", json!({}), management.clone());
        assert!(read.is_err(), "{management} was accepted");
    }
}

#[test]
fn auto_on_anthropic_is_native_from_a_limit_of_fifty_thousand() {
    let effective = |id: &str, info: Value, management: Value| {
        let read = read_options("anthropic", id, info, management).unwrap();
        read.config.context.effective(false)
    };
    let at_200k = json!({"contextWindow": 200_000});
    assert_eq!(effective("claude-opus-4-6", at_200k.clone(), json!({"strategy": "auto"})), Strategy::Native);
    assert_eq!(
        effective("claude-sonnet-4-6", at_200k.clone(), json!({"strategy": "auto", "maxContextTokens": 50_000})),
        Strategy::Native
    );
    assert_ne!(
        effective("claude-opus-4-6", at_200k.clone(), json!({"strategy": "auto", "maxContextTokens": 49_999})),
        Strategy::Native
    );
    assert_ne!(
        effective("claude-opus-4-6", json!({"contextWindow": 64_000}), json!({"strategy": "auto"})),
        Strategy::Native
    );
    assert_ne!(effective("claude-3-haiku", at_200k, json!({"strategy": "auto"})), Strategy::Native, "not listed");
    for format in ["openai", "gemini"] {
        let read = read_options(format, "gpt-5", json!({}), json!({"strategy": "auto"})).unwrap();
        assert_ne!(read.config.context.effective(false), Strategy::Native, "{format}");
    }
}

// ---------------------------------------------------------------------------------------
// §10 item 3: the figure.

#[test]
fn the_figure_is_the_last_passs_context_not_the_billed_sum() {
    // Shaped like a compaction response: billed 281 in, 91 out, 55,096 read from the cache
    // (55,468), while the model now holds 189 tokens.
    let compacted = |context: Option<u64>| {
        let mut usage = json!({"type": "usage", "inputTokens": 281, "outputTokens": 91, "cacheReadTokens": 55_096});
        if let Some(context) = context {
            usage["contextTokens"] = json!(context);
        }
        Reply::Bytes(vec![text_line("Reading.\n<read><path>big</path></read>"), line(usage)])
    };
    let script = |context| {
        let mut script = xml_script(&[Some(100), Some(100), Some(100), Some(100)]);
        script.insert(4, compacted(context));
        script
    };
    let config = || managed(config(), Some(200_000), json!({"maxContextTokens": 50_000}));
    let h = run(config(), script(Some(189)));
    assert_eq!(h.api_reqs()[4]["contextTokens"], 189);
    assert_eq!(h.requests[5].messages.len(), 11, "189 is under the cap: nothing removed");
    assert!(compactions(&h).is_empty());
    // Without the last pass's size, the billed sum is the figure, and it is over the cap.
    let h = run(config(), script(None));
    assert_eq!(h.api_reqs()[4]["contextTokens"], 55_468);
    assert_eq!(h.requests[5].messages.len(), 7);
}

#[test]
fn the_first_request_is_never_compacted() {
    // A cap of one token: every figure is over it, but the first request has none.
    let config = managed(config(), Some(200_000), json!({"maxContextTokens": 1}));
    let mut h = Harness::new(config, xml_script(&[Some(500)]));
    let long = "x".repeat(50_000);
    h.start(&long);
    assert_eq!(h.requests[0].messages.len(), 1);
    assert!(h.api_reqs()[0].get("contextTruncated").is_none());
    assert_eq!(compactions_per_request(&h)[0], Vec::<String>::new());
}

#[test]
fn every_finished_request_says_its_context_tokens_and_a_truncated_one_says_so() {
    let limit = 40_000;
    let figures = [Some(100), Some(200), Some(300), Some(400), Some(limit), Some(600)];
    let h = run(managed(config(), Some(200_000), json!({"maxContextTokens": limit})), xml_script(&figures));
    let reqs = h.api_reqs();
    assert_eq!(reqs.len(), 7);
    for (n, figure) in figures.iter().enumerate() {
        assert_eq!(reqs[n]["contextTokens"], json!(figure.unwrap()), "request {n}");
    }
    for (n, req) in reqs.iter().enumerate() {
        let truncated = req.get("contextTruncated");
        if n == 5 {
            assert_eq!(truncated, Some(&json!(true)), "request {n}: {req}");
        } else {
            assert!(truncated.is_none(), "request {n}: {req}");
        }
    }
}

#[test]
fn one_compaction_say_per_truncation_comes_right_before_its_request() {
    let limit = 40_000;
    let figures = [Some(100), Some(100), Some(100), Some(100), Some(limit), Some(100), Some(100), Some(3 * limit)];
    let h = run(managed(config(), Some(200_000), json!({"maxContextTokens": limit})), xml_script(&figures));
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    let says = compactions(&h);
    assert_eq!(says.len(), 2, "{says:?}");
    for (say, before) in says.iter().zip([limit, 3 * limit]) {
        let mut keys: Vec<&str> = say.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["id", "kind", "status", "tokensBefore"], "{say}");
        assert_eq!(say["kind"], "truncate");
        assert_eq!(say["status"], "completed");
        assert_eq!(say["tokensBefore"], before);
    }
    assert_ne!(says[0]["id"], says[1]["id"]);
    // In the transcript, each comes right before its request's api_req_started.
    let messages = h.task.messages();
    for (at, m) in
        messages.iter().enumerate().filter(|(_, m)| matches!(m.kind, MessageKind::Say(k) if k.as_str() == "compaction"))
    {
        let next = &messages[at + 1];
        assert!(matches!(next.kind, MessageKind::Say(k) if k.as_str() == "api_req_started"), "{m:?} then {next:?}");
        let request: Value = serde_json::from_str(&next.text).unwrap();
        assert_eq!(request["contextTruncated"], true);
    }
    // And as effects: the say goes out before that request's first api_req_started.
    let is_say = |e: &Effect, kind: &str| matches!(e, Effect::Say(m) if matches!(m.kind, MessageKind::Say(k) if k.as_str() == kind));
    let say_at: Vec<usize> = (0..h.effects.len()).filter(|&i| is_say(&h.effects[i], "compaction")).collect();
    let opened: Vec<usize> =
        (0..h.effects.len()).filter(|&i| matches!(h.effects[i], Effect::OpenStream { .. })).collect();
    assert_eq!(compactions_per_request(&h).iter().map(Vec::len).collect::<Vec<_>>(), [0, 0, 0, 0, 0, 1, 0, 0, 1]);
    for (say, request) in say_at.iter().zip([5, 8]) {
        let api = (0..opened[request]).rev().find(|&i| is_say(&h.effects[i], "api_req_started")).unwrap();
        assert!(*say < api && (*say..api).all(|i| !matches!(h.effects[i], Effect::OpenStream { .. })), "{say} {api}");
    }
}

#[test]
fn a_retry_within_a_truncated_round_does_not_truncate_again() {
    let limit = 40_000;
    let mut script = xml_script(&[Some(100), Some(100), Some(100), Some(100), Some(limit), Some(100)]);
    script.insert(5, fail(http(500, "overloaded")));
    let h = run(managed(config(), Some(200_000), json!({"maxContextTokens": limit})), script);
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    assert_eq!(h.requests.len(), 8);
    assert_eq!(h.requests[5].messages.len(), 7, "truncated");
    assert_eq!(h.requests[6].messages, h.requests[5].messages, "the retry sends the same view");
    assert_eq!(compactions(&h).len(), 1);
    assert_eq!(h.requests[7].messages.len(), 9, "the next round adds its turn and removes nothing");
}

#[test]
fn a_request_without_usage_leaves_no_figure_and_does_not_reset_the_loop_breaker() {
    let limit = 40_000;
    let management = json!({"maxContextTokens": limit, "maxConsecutiveCompactions": 1});
    let figures = [Some(100), Some(100), Some(100), Some(100), Some(limit), None, Some(limit)];
    let h = run(managed(config(), Some(200_000), management), xml_script(&figures));
    let reqs = h.api_reqs();
    assert!(reqs[5].get("contextTokens").is_none(), "no usage, no figure (never 0): {}", reqs[5]);
    assert_eq!(reqs[5]["contextTruncated"], true);
    assert_eq!(h.requests[6].messages.len(), h.requests[5].messages.len() + 2, "nothing to act on after it");
    // The compaction count was not reset by the request without usage: the next figure over
    // the limit trips the breaker (maxConsecutiveCompactions 1).
    assert_eq!(h.requests.len(), 7);
    assert_eq!(failure(&h).0, codes::CONTEXT_WINDOW_EXCEEDED);
    assert_eq!(compactions(&h).len(), 1);
}

/// An Anthropic text reply (XML tools) with `input` input tokens and 10 output tokens.
fn anthropic_text(text: &str, input: u64) -> Reply {
    let mut events = vec![anthropic_start(input)];
    events.push(sse(
        "content_block_start",
        json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
    ));
    events.push(sse(
        "content_block_delta",
        json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}}),
    ));
    events.push(sse("content_block_stop", json!({"type":"content_block_stop","index":0})));
    events.push(sse(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":10}}),
    ));
    events.push(sse("message_stop", json!({"type":"message_stop"})));
    Reply::Bytes(events)
}

fn anthropic_start(input: u64) -> Vec<u8> {
    sse(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":input,"output_tokens":1}}}),
    )
}

#[test]
fn a_retried_requests_figure_is_its_own_not_the_sum_of_its_attempts() {
    // The fourth request's first attempt reports its input (30,000) and fails before any
    // content; the retry reports the same context again. The context is 30,010, under the
    // 50,000 cap: the next request removes nothing.
    let read = |n: usize, input| anthropic_text(&format!("Reading.\n<read><path>f{n}</path></read>"), input);
    let script = vec![
        read(1, 100),
        read(2, 100),
        read(3, 100),
        Reply::FailAfter(vec![anthropic_start(30_000)], http(500, "overloaded")),
        read(4, 30_000),
        anthropic_text("<attempt_completion><result>ok</result></attempt_completion>", 100),
    ];
    let config = managed(
        TaskConfig { format: Format::Anthropic, ..config() },
        Some(200_000),
        json!({"maxContextTokens": 50_000}),
    );
    let h = run(config, script);
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    assert_eq!(h.requests.len(), 6);
    assert_eq!(h.api_reqs()[3]["contextTokens"], 30_010, "{}", h.api_reqs()[3]);
    assert_eq!(h.requests[5].messages.len(), 9, "nothing removed");
    assert!(compactions(&h).is_empty());
}

// ---------------------------------------------------------------------------------------
// §10 item 4: today's defect. The first reply holds reasoning, text and two parallel calls;
// truncation removes its results, so it goes as the notice alone.

/// Turn 1 reads `a.md` and `b.md` in parallel; turns 2 to 7 read one file each, turns 5 and
/// 7 reporting a figure at the 40,000 cap; turn 8 completes. Requests 6 and 8 are truncated
/// ([2, 5], then [2, 9]).
fn parallel_first_reply_script(format: Format) -> Vec<Reply> {
    let limit = 40_000;
    let mut script = vec![turn(format, 1, &[read_call("a.md"), read_call("b.md")], 100)];
    for n in 2..=7 {
        let input = if n == 5 || n == 7 { limit } else { 100 };
        script.push(turn(format, n, &[read_call(&format!("c{n}.md"))], input));
    }
    script.push(turn(format, 8, &[completion_call()], 100));
    script
}

fn run_parallel_first_reply(format: Format) -> (Harness, Vec<String>) {
    let config = managed(native(format), Some(200_000), json!({"maxContextTokens": 40_000}));
    let h = run(config, parallel_first_reply_script(format));
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    assert_eq!(h.requests.len(), 8);
    let truncated: Vec<usize> =
        h.api_reqs().iter().enumerate().filter(|(_, r)| r.get("contextTruncated").is_some()).map(|(n, _)| n).collect();
    assert_eq!(truncated, [5, 7]);
    let bodies = body_texts(format, &h.requests);
    (h, bodies)
}

/// The end of the notice's item (or part) in `body`: the bytes up to it and including it.
fn through_notice(body: &str) -> &str {
    let at = body.find(notice()).expect("the notice is sent") + notice().len();
    let close = body[at..].find("}]}").unwrap() + at + 3;
    &body[..close]
}

/// The Responses input's invariants: a reasoning item is followed by the message that
/// followed it when received; every call has exactly one output after it and every output
/// a call before it; the parallel pair of turn 1 goes whole or not at all.
fn responses_invariants(input: &[Value]) -> Result<(), String> {
    let mut calls: Vec<&str> = Vec::new();
    let mut outputs: Vec<&str> = Vec::new();
    for (at, item) in input.iter().enumerate() {
        match item["type"].as_str().unwrap_or("message") {
            "reasoning" => {
                let n = item["encrypted_content"].as_str().unwrap().trim_start_matches("enc-").to_owned();
                let next = input.get(at + 1).ok_or(format!("reasoning {n} ends the input"))?;
                if next["content"][0]["text"] != format!("Looking, round {n}.") {
                    return Err(format!("reasoning {n} is followed by {next}"));
                }
            }
            "function_call" => calls.push(item["call_id"].as_str().unwrap()),
            "function_call_output" => {
                let id = item["call_id"].as_str().unwrap();
                if !calls.contains(&id) {
                    return Err(format!("output {id} without a call before it"));
                }
                outputs.push(id);
            }
            _ => {}
        }
    }
    for id in &calls {
        if outputs.iter().filter(|o| *o == id).count() != 1 {
            return Err(format!("call {id} has {outputs:?} as outputs"));
        }
    }
    if calls.contains(&"call_1_0") != calls.contains(&"call_1_1") {
        return Err(format!("one call of the parallel pair: {calls:?}"));
    }
    Ok(())
}

#[test]
fn over_responses_a_truncated_first_reply_goes_as_the_notice_alone() {
    let (h, bodies) = run_parallel_first_reply(Format::OpenAiResponses);
    let bodies: Vec<Value> = bodies.iter().map(|b| parse(b)).collect();
    let first = bodies[0]["input"].as_array().unwrap();
    for (n, body) in bodies.iter().enumerate() {
        let input = body["input"].as_array().unwrap();
        responses_invariants(input).unwrap_or_else(|e| panic!("request {n}: {e}"));
        assert_eq!(input[0], first[0], "request {n}: message 0 unchanged");
    }
    assert_eq!(h.requests[1].messages.len(), 3, "before truncation, turn 1 goes whole");
    for n in [5, 7] {
        let input = bodies[n]["input"].as_array().unwrap();
        assert_eq!(
            input[1],
            json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":notice()}]}),
            "request {n}: message 1 is one assistant text item"
        );
        // The first kept turn starts with a reasoning item; before it, only user messages
        // (the first kept message, its results as text).
        let kept = input.iter().position(|i| i["type"] == "reasoning").unwrap();
        assert!(kept > 2, "request {n}");
        for item in &input[2..kept] {
            assert_eq!(item["role"], "user", "request {n}: {item}");
            assert!(item.get("type").is_none(), "request {n}: {item}");
        }
        let text = bodies[n].to_string();
        for gone in ["enc-1", "call_1_0", "call_1_1", "Looking, round 1."] {
            assert!(!text.contains(gone), "request {n} sends {gone}");
        }
    }
    let texts = body_texts(Format::OpenAiResponses, &h.requests);
    assert_eq!(
        through_notice(&texts[7]),
        through_notice(&texts[5]),
        "the second truncation keeps the bytes up to the notice"
    );
}

#[test]
fn over_gemini_a_truncated_first_reply_goes_as_one_unsigned_text_part() {
    let (_, texts) = run_parallel_first_reply(Format::Gemini);
    let bodies: Vec<Value> = texts.iter().map(|b| parse(b)).collect();
    let first = &bodies[0]["contents"][0];
    for (n, body) in bodies.iter().enumerate() {
        let contents = body["contents"].as_array().unwrap();
        assert_eq!(&contents[0], first, "request {n}: message 0 unchanged");
        // Every model turn's calls are answered, in order, by the next user turn.
        for (at, content) in contents.iter().enumerate() {
            let parts = content["parts"].as_array().unwrap();
            let calls: Vec<&Value> = parts.iter().filter_map(|p| p.get("functionCall")).collect();
            let answers: Vec<&Value> = contents
                .get(at + 1)
                .map(|next| {
                    next["parts"].as_array().unwrap().iter().filter_map(|p| p.get("functionResponse")).collect()
                })
                .unwrap_or_default();
            if content["role"] == "model" && at + 1 < contents.len() {
                let names = |v: &[&Value]| v.iter().map(|c| c["name"].clone()).collect::<Vec<_>>();
                assert_eq!(names(&calls), names(&answers), "request {n}, content {at}");
            }
            if content["role"] == "user" && at > 0 && parts.iter().any(|p| p.get("functionResponse").is_some()) {
                assert_eq!(contents[at - 1]["role"], "model");
            }
        }
        let text = body.to_string();
        assert_eq!(text.contains("\"a.md\""), text.contains("\"b.md\""), "request {n}: one call of the parallel pair");
    }
    for n in [5, 7] {
        let contents = bodies[n]["contents"].as_array().unwrap();
        assert_eq!(contents[1], json!({"role":"model","parts":[{"text":notice()}]}), "request {n}");
        let text = bodies[n].to_string();
        for gone in ["thought-sig-1", "call-sig-1", "Thinking 1\"", "\"a.md\""] {
            assert!(!text.contains(gone), "request {n} sends {gone}");
        }
        assert_eq!(contents[2]["role"], "user");
        assert!(
            contents[2]["parts"].as_array().unwrap().iter().all(|p| p.get("text").is_some()),
            "the first kept message's results go as text: {}",
            contents[2]
        );
    }
    assert_eq!(
        through_notice(&texts[7]),
        through_notice(&texts[5]),
        "the second truncation keeps the bytes up to the notice"
    );
}

// ---------------------------------------------------------------------------------------
// §10 item 14: the loop breaker.

/// The script of a breaker test: XML reads under `truncate`, native Anthropic reads (one
/// call each, every older result clearable) under `edit`; `over[n]` says whether reply n
/// reports a figure at the limit (else 100).
fn breaker_task(strategy: &str, over: &[bool], extra: Value) -> Harness {
    let limit = 40_000;
    let mut management = json!({"strategy": strategy, "maxContextTokens": limit});
    if strategy == "edit" {
        // NOTE: the newest result kept, so each round has one more to clear; a pass that
        // frees anything brings the estimate under the limit, so edit alone acts.
        management["edit"] = json!({"keepToolUses": 1});
    }
    for (key, value) in extra.as_object().unwrap() {
        management[key] = value.clone();
    }
    let figure = |over: bool| if over { limit } else { 100 };
    let h = if strategy == "edit" {
        let config = managed(native(Format::Anthropic), Some(200_000), management);
        // The Anthropic figure is the input plus 10 output tokens.
        let inputs: Vec<u64> = over.iter().map(|o| figure(*o) - 10).collect();
        run(config, native_script(Format::Anthropic, &inputs))
    } else {
        let figures: Vec<Option<u64>> = over.iter().map(|o| Some(figure(*o))).collect();
        run(managed(config(), Some(200_000), management), xml_script(&figures))
    };
    for (n, request) in h.api_reqs().iter().enumerate() {
        if let Some(tokens) = request.get("contextTokens") {
            assert_eq!(tokens, &json!(figure(over[n])), "request {n}");
        }
    }
    h
}

/// The task ended the breaker's way after `count` compactions in a row.
fn assert_breaker(h: &Harness, count: u64) {
    let (code, message) = failure(h);
    assert_eq!(code, codes::CONTEXT_WINDOW_EXCEEDED);
    assert!(names_number(&message, count), "the count ({count}) in: {message}");
    assert_eq!(says(h, "error").last(), Some(&message), "said as an error");
}

#[test]
fn three_truncations_in_a_row_over_the_limit_end_the_task_before_a_fourth_request_is_made() {
    let h = breaker_task("truncate", &[true; 12], json!({}));
    // Rounds 2 and 3 have nothing to remove; rounds 4, 5 and 6 truncate; round 7 stops.
    assert_eq!(compactions_per_request(&h).iter().map(Vec::len).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 1]);
    assert!(compactions(&h).iter().all(|c| c["kind"] == "truncate"));
    assert_eq!(h.requests.len(), 6, "no request after the third compaction's");
    assert_breaker(&h, 3);
}

#[test]
fn three_edits_in_a_row_over_the_limit_end_the_task_before_a_fourth_request_is_made() {
    let h = breaker_task("edit", &[true; 12], json!({}));
    // Round 2 has nothing to clear; rounds 3, 4 and 5 clear one more result each.
    assert_eq!(compactions_per_request(&h).iter().map(Vec::len).collect::<Vec<_>>(), [0, 0, 1, 1, 1]);
    assert!(compactions(&h).iter().all(|c| c["kind"] == "edit"), "{:?}", compactions(&h));
    assert_eq!(h.requests.len(), 5);
    assert_breaker(&h, 3);
}

#[test]
fn a_figure_under_the_limit_resets_the_count_of_truncations() {
    let mut over = [true; 14];
    over[..3].copy_from_slice(&[false; 3]);
    over[5] = false;
    let h = breaker_task("truncate", &over, json!({}));
    // Rounds 5 and 6 truncate; reply 6 is under the limit; rounds 8, 9 and 10 truncate.
    let per_request: Vec<usize> = compactions_per_request(&h).iter().map(Vec::len).collect();
    assert_eq!(per_request, [0, 0, 0, 0, 1, 1, 0, 1, 1, 1]);
    assert_eq!(h.requests.len(), 10);
    assert_breaker(&h, 3);
}

#[test]
fn a_figure_under_the_limit_resets_the_count_of_edits() {
    let mut over = [true; 14];
    over[3] = false;
    let h = breaker_task("edit", &over, json!({}));
    // Rounds 3 and 4 edit; reply 4 is under the limit; rounds 6, 7 and 8 edit.
    let per_request: Vec<usize> = compactions_per_request(&h).iter().map(Vec::len).collect();
    assert_eq!(per_request, [0, 0, 1, 1, 0, 1, 1, 1]);
    assert_eq!(h.requests.len(), 8);
    assert_breaker(&h, 3);
}

#[test]
fn max_consecutive_compactions_one_stops_after_one() {
    for strategy in ["truncate", "edit"] {
        let h = breaker_task(strategy, &[true; 12], json!({"maxConsecutiveCompactions": 1}));
        assert_eq!(compactions(&h).len(), 1, "{strategy}");
        let first = if strategy == "edit" { 3 } else { 4 };
        assert_eq!(h.requests.len(), first, "{strategy}: no request after the first compaction's");
        assert_breaker(&h, 1);
    }
}

// ---------------------------------------------------------------------------------------
// §10 item 9: the edit pre-pass.

/// Results kept intact by default (`keepToolUses`).
const KEEP: usize = 3;

/// Eight reads (turns 6 and 8 at the 40,000 cap), then a completion, under strategy `edit`
/// with the settings `edit`: rounds 7 and 9 edit.
fn edit_task(format: Format, edit: Value) -> (Harness, Vec<String>) {
    let management = json!({"strategy": "edit", "maxContextTokens": 40_000, "edit": edit});
    let config = managed(native(format), Some(200_000), management);
    let h = run(config, native_script(format, &EDIT_INPUTS));
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    assert_eq!(h.requests.len(), 9);
    assert_eq!(h.api_reqs()[5]["contextTokens"], 40_000);
    let bodies = body_texts(format, &h.requests);
    (h, bodies)
}

const EDIT_INPUTS: [u64; 8] = [90, 90, 90, 90, 90, 39_990, 90, 39_990];

/// Where the JSON object holding byte `at` of `body` starts.
fn object_at(body: &str, at: usize) -> &str {
    &body[body[..at].rfind('{').unwrap()..]
}

/// The first request whose body differs between two runs.
fn same_bodies(a: &[String], b: &[String]) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} requests against {}", a.len(), b.len()));
    }
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(n) => Err(format!("request {n} differs from byte {}", first_difference(&a[n], &b[n]))),
        None => Ok(()),
    }
}

/// Each tool result of an Anthropic body: its call's id and its text.
fn anthropic_results(body: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        for block in message["content"].as_array().unwrap() {
            if block["type"] == "tool_result" {
                let text: Vec<&str> =
                    block["content"].as_array().unwrap().iter().filter_map(|b| b["text"].as_str()).collect();
                out.push((block["tool_use_id"].as_str().unwrap().to_owned(), text.join("\n")));
            }
        }
    }
    out
}

/// Every Anthropic `tool_use` is answered by exactly one `tool_result` in the next message
/// (but in the last message), and every `tool_result` answers a `tool_use` of the message
/// before it.
fn anthropic_pairs(body: &Value) -> Result<(), String> {
    let messages = body["messages"].as_array().unwrap();
    let ids = |m: Option<&Value>, kind: &str, key: &str| -> Vec<String> {
        m.and_then(|m| m["content"].as_array())
            .map(|blocks| {
                blocks.iter().filter(|b| b["type"] == kind).map(|b| b[key].as_str().unwrap().to_owned()).collect()
            })
            .unwrap_or_default()
    };
    for (at, message) in messages.iter().enumerate() {
        let calls = ids(Some(message), "tool_use", "id");
        let answers = ids(messages.get(at + 1), "tool_result", "tool_use_id");
        if message["role"] == "assistant" && at + 1 < messages.len() && calls != answers {
            return Err(format!("message {at}: calls {calls:?}, answered by {answers:?}"));
        }
        let results = ids(Some(message), "tool_result", "tool_use_id");
        let asked = if at == 0 { Vec::new() } else { ids(messages.get(at - 1), "tool_use", "id") };
        if !results.is_empty() && results != asked {
            return Err(format!("message {at}: results {results:?} for calls {asked:?}"));
        }
    }
    Ok(())
}

#[test]
fn edit_clears_old_anthropic_results_in_place_and_keeps_the_newest_results_and_thinking() {
    let (h, texts) = edit_task(Format::Anthropic, json!({}));
    let kinds = compactions_per_request(&h);
    let expected: Vec<Vec<String>> =
        (0..9).map(|n| if n == 6 || n == 8 { vec!["edit".to_owned()] } else { Vec::new() }).collect();
    assert_eq!(kinds, expected, "one edit say per pass that changes something, no truncation");
    for say in compactions(&h) {
        assert_eq!(
            (&say["kind"], &say["status"], &say["tokensBefore"]),
            (&json!("edit"), &json!("completed"), &json!(40_000))
        );
    }
    let bodies: Vec<Value> = texts.iter().map(|t| parse(t)).collect();
    for (n, body) in bodies.iter().enumerate() {
        anthropic_pairs(body).unwrap_or_else(|e| panic!("request {n}: {e}"));
    }
    // Request 7: all but the newest three results cleared, ids unchanged.
    let results = anthropic_results(&bodies[6]);
    let ids: Vec<String> = (1..=6).map(|k| format!("toolu_{k}_0")).collect();
    assert_eq!(results.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(), ids);
    for (k, (_, text)) in results.iter().enumerate().map(|(i, r)| (i + 1, r)) {
        if k <= 6 - KEEP {
            assert_eq!(text, placeholder(), "result {k}");
        } else {
            assert!(text.contains(&format!("path=p{k}")), "result {k}: {text}");
        }
    }
    // Thinking: only on the newest assistant message.
    let messages = bodies[6]["messages"].as_array().unwrap();
    let thinking: Vec<usize> = (0..messages.len())
        .filter(|&i| messages[i]["content"].as_array().unwrap().iter().any(|b| b["type"] == "thinking"))
        .collect();
    assert_eq!(thinking, [11]);
    assert_eq!(messages[11]["content"][0], json!({"type":"thinking","thinking":"Thinking 6","signature":"sig-6"}));
    // Cache prefix: the bytes before the first cleared block (message 1's thinking) are the
    // previous request's.
    let d = first_difference(&texts[5], &texts[6]);
    assert!(object_at(&texts[5], d).starts_with(r#"{"type":"thinking","thinking":"Thinking 1""#), "{}", &texts[5][d..]);
    assert!(
        object_at(&texts[6], d).starts_with(r#"{"type":"text","text":"\nLooking, round 1."}"#),
        "{}",
        &texts[6][d..]
    );
    // Sticky: request 8 sends request 7's messages as they were.
    let eighth = bodies[7]["messages"].as_array().unwrap();
    assert!(eighth[..messages.len()] == messages[..], "request 8 changed what request 7 sent");
    // The second pass: its first change is the oldest result still intact, cleared.
    let d = first_difference(&texts[7], &texts[8]);
    assert!(
        object_at(&texts[8], d).starts_with(&format!(r#"{{"type":"text","text":"{}"#, placeholder())),
        "{}",
        &texts[8][d..]
    );
    let id_at = texts[8][..d].rfind("tool_use_id").unwrap();
    assert!(texts[8][id_at..].starts_with(&format!(r#"tool_use_id":"toolu_{}_0""#, 7 - KEEP)));
    let results = anthropic_results(&bodies[8]);
    let intact: Vec<&str> = results.iter().filter(|(_, t)| t != placeholder()).map(|(id, _)| id.as_str()).collect();
    assert_eq!(intact, ["toolu_6_0", "toolu_7_0", "toolu_8_0"]);
    let messages = bodies[8]["messages"].as_array().unwrap();
    let last = messages.iter().rposition(|m| m["role"] == "assistant").unwrap();
    assert_eq!(messages[last]["content"][0]["type"], "thinking", "the newest assistant message keeps its thinking");
}

/// Each model turn of a Gemini body (but the notice) opens with its signed thought.
fn gemini_thoughts_kept(body: &Value) -> Result<(), String> {
    for content in body["contents"].as_array().unwrap().iter().filter(|c| c["role"] == "model") {
        let parts = content["parts"].as_array().unwrap();
        if parts[..] == [json!({ "text": notice() })] {
            continue;
        }
        let round =
            parts[1]["text"].as_str().unwrap_or_default().trim_start_matches("Looking, round ").trim_end_matches('.');
        let expected = json!({"text": format!("Thinking {round}"), "thought": true, "thoughtSignature": format!("thought-sig-{round}")});
        if parts[0] != expected {
            return Err(format!("model turn {round} opens with {}", parts[0]));
        }
    }
    Ok(())
}

#[test]
fn edit_on_gemini_never_drops_thinking() {
    for edit in [json!({}), json!({"keepThinkingTurns": 0}), json!({"keepToolUses": 0})] {
        let (h, texts) = edit_task(Format::Gemini, edit.clone());
        assert!(compactions(&h).iter().any(|c| c["kind"] == "edit"), "{edit}: the task edits");
        for (n, text) in texts.iter().enumerate() {
            gemini_thoughts_kept(&parse(text)).unwrap_or_else(|e| panic!("{edit}, request {n}: {e}"));
        }
        let models = parse(&texts[6])["contents"].as_array().unwrap().iter().filter(|c| c["role"] == "model").count();
        assert_eq!(models, 6, "{edit}: every model turn sent");
    }
}

/// The `functionResponse` outputs of a Gemini body, in order.
fn gemini_outputs(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for content in body["contents"].as_array().unwrap() {
        for part in content["parts"].as_array().unwrap() {
            if let Some(output) = part["functionResponse"]["response"]["output"].as_str() {
                out.push(output.to_owned());
            }
        }
    }
    out
}

#[test]
fn edit_on_gemini_keeps_the_newest_results_and_clears_the_older_in_place() {
    let (h, texts) = edit_task(Format::Gemini, json!({}));
    assert_eq!(compactions_per_request(&h).iter().map(Vec::len).collect::<Vec<_>>(), [0, 0, 0, 0, 0, 0, 1, 0, 1]);
    assert!(compactions(&h).iter().all(|c| c["kind"] == "edit"));
    let bodies: Vec<Value> = texts.iter().map(|t| parse(t)).collect();
    let seventh = gemini_outputs(&bodies[6]);
    assert_eq!(seventh.len(), 6);
    for (k, output) in seventh.iter().enumerate().map(|(i, o)| (i + 1, o)) {
        if k <= 6 - KEEP {
            assert_eq!(output, placeholder(), "result {k}");
        } else {
            assert!(output.contains(&format!("path=p{k}")), "result {k}: {output}");
        }
    }
    let ninth = gemini_outputs(&bodies[8]);
    assert!(ninth[..8 - KEEP].iter().all(|o| o == placeholder()), "{ninth:?}");
    assert!(ninth[8 - KEEP..].iter().all(|o| o != placeholder()), "{ninth:?}");
    // Calls stay paired with their results, by name.
    for (n, body) in bodies.iter().enumerate() {
        let contents = body["contents"].as_array().unwrap();
        for (at, content) in contents.iter().enumerate().filter(|(_, c)| c["role"] == "model") {
            let calls: Vec<&Value> =
                content["parts"].as_array().unwrap().iter().filter_map(|p| p.get("functionCall")).collect();
            let Some(next) = contents.get(at + 1) else { continue };
            let answers: Vec<&Value> =
                next["parts"].as_array().unwrap().iter().filter_map(|p| p.get("functionResponse")).collect();
            assert_eq!(calls.len(), answers.len(), "request {n}, content {at}");
        }
    }
    for (before, after) in [(5, 6), (7, 8)] {
        let d = first_difference(&texts[before], &texts[after]);
        assert!(
            object_at(&texts[after], d).starts_with(&format!(r#"{{"output":"{}"#, placeholder())),
            "request {after}'s first change is a cleared result: {}",
            &texts[after][d..]
        );
    }
}

#[test]
fn the_edit_settings_are_read_from_the_edit_object() {
    let edit = json!({"keepToolUses": 1, "keepThinkingTurns": "all", "excludeTools": ["write"],
        "clearToolInputs": true, "clearAtLeast": 500, "placeholder": "gone"});
    let read = read_options("chunks", "m", json!({}), json!({"strategy": "truncate", "edit": edit})).unwrap();
    let expected = clew::agent::EditConfig {
        keep_tool_uses: 1,
        keep_thinking_turns: None,
        exclude_tools: vec!["write".into()],
        clear_tool_inputs: true,
        clear_at_least: 500,
        placeholder: Some("gone".into()),
    };
    assert_eq!(read.config.context.edit, Some(expected));
    let read = read_options("chunks", "m", json!({}), json!({"edit": {"keepToolUses": -1}}));
    assert!(read.is_err(), "a bad edit setting is refused");
}

#[test]
fn an_edit_that_would_free_less_than_clear_at_least_does_nothing() {
    // The pass does nothing: strategy `edit` then truncates exactly as `truncate` does.
    let (edited, edited_texts) = edit_task(Format::Anthropic, json!({"clearAtLeast": 1_000_000}));
    let config = managed(native(Format::Anthropic), Some(200_000), json!({"maxContextTokens": 40_000}));
    let plain = run(config, native_script(Format::Anthropic, &EDIT_INPUTS));
    same_bodies(&edited_texts, &body_texts(Format::Anthropic, &plain.requests)).unwrap();
    let kinds = compactions_per_request(&edited);
    assert_eq!(kinds, compactions_per_request(&plain));
    assert!(kinds.iter().flatten().all(|k| k == "truncate") && kinds.iter().flatten().count() == 2, "{kinds:?}");
    assert!(!edited_texts.iter().any(|t| t.contains(placeholder())));
}

#[test]
fn the_same_edited_task_sends_the_same_bytes_when_run_again() {
    for format in [Format::Anthropic, Format::Gemini] {
        let (_, first) = edit_task(format, json!({"keepThinkingTurns": 2}));
        let (_, second) = edit_task(format, json!({"keepThinkingTurns": 2}));
        assert!(first.iter().any(|t| t.contains(placeholder())), "{format}: the task edits");
        same_bodies(&first, &second).unwrap_or_else(|e| panic!("{format}: {e}"));
    }
}

// ---------------------------------------------------------------------------------------
// §10 item 18 (part): format 4 keeps the context state (range, figure, count, edits).

/// Under `edit` with `maxConsecutiveCompactions` 2: round 5 edits and truncates (figure
/// 120,000), reply 5 resets the count, round 7 edits, round 8 edits and truncates, and
/// round 9 trips the breaker.
fn snapshot_script() -> Vec<Reply> {
    let limit = 40_000;
    let inputs = [90, 90, 90, 3 * limit - 10, 90, limit - 10, 3 * limit - 10, 3 * limit - 10];
    native_script(Format::Anthropic, &inputs)
}

fn snapshot_config() -> TaskConfig {
    let management = json!({"strategy": "edit", "maxContextTokens": 40_000, "maxConsecutiveCompactions": 2});
    TaskConfig { checkpoints: true, ..managed(native(Format::Anthropic), Some(200_000), management) }
}

#[test]
fn a_task_restored_at_every_waiting_point_keeps_its_context_state() {
    let whole = run(snapshot_config(), snapshot_script());
    assert_breaker(&whole, 2);
    let kinds = compactions_per_request(&whole);
    let expected: [&[&str]; 8] = [&[], &[], &[], &[], &["edit", "truncate"], &[], &["edit"], &["edit", "truncate"]];
    assert_eq!(kinds, expected.map(|k| k.iter().map(|s| s.to_string()).collect::<Vec<_>>()));
    let expected_bodies = body_texts(Format::Anthropic, &whole.requests);
    let (mut points, mut after_both) = (0, 0);
    for stop_at in 1.. {
        let mut h = Harness::new(snapshot_config(), snapshot_script());
        h.pause = Some(at_waiting_point(stop_at));
        h.start("t");
        if h.outcome().is_some() {
            break;
        }
        let said: Vec<String> = compactions(&h).iter().map(|c| c["kind"].as_str().unwrap().to_owned()).collect();
        if said.contains(&"edit".to_owned()) && said.contains(&"truncate".to_owned()) {
            after_both += 1;
        }
        let mut task = Task::restore(&h.task.snapshot(), snapshot_config()).expect("restore");
        task.resume(h.now);
        let mut rest = Harness::new(snapshot_config(), snapshot_script().into_iter().skip(h.requests.len()).collect());
        rest.task = task;
        rest.now = h.now;
        rest.run();
        let mut requests = h.requests.clone();
        requests.extend(rest.requests.iter().cloned());
        same_bodies(&body_texts(Format::Anthropic, &requests), &expected_bodies)
            .unwrap_or_else(|e| panic!("restored at waiting point {stop_at}: {e}"));
        assert_eq!(rest.outcome(), whole.outcome(), "restored at waiting point {stop_at}");
        assert_eq!(compactions(&rest), compactions(&whole), "restored at waiting point {stop_at}");
        points += 1;
    }
    assert!(points >= 8 && after_both >= 2, "{points} waiting points, {after_both} after an edit and a truncation");
}

// ---------------------------------------------------------------------------------------
// §10 item 9, as a property: random loop-made histories under `edit`.

#[cfg(not(target_arch = "wasm32"))]
mod random {
    use super::*;
    use clew::agent::ToolOutput;
    use proptest::prelude::*;

    /// One reply: the sizes of its calls' results (one call each), and its figure: under
    /// the limit, at it, or three times it.
    type Step = (Vec<usize>, u8);

    fn steps() -> impl proptest::strategy::Strategy<Value = Vec<Step>> {
        prop::collection::vec((prop::collection::vec(0..400usize, 1..=3), 0..3u8), 3..12)
    }

    /// `keepThinkingTurns`: 0 to 2, or "all".
    fn thinking(n: u8) -> Value {
        if n == 3 {
            json!("all")
        } else {
            json!(n)
        }
    }

    /// Runs the random task in `format`.
    fn random_task(format: Format, steps: &[Step], keep: u8, keep_thinking: u8) -> (Harness, Vec<String>) {
        let limit = 40_000;
        let management = json!({"strategy": "edit", "maxContextTokens": limit, "maxConsecutiveCompactions": 100,
            "edit": {"keepToolUses": keep, "keepThinkingTurns": thinking(keep_thinking)}});
        let config = managed(native(format), Some(200_000), management);
        let mut script: Vec<Reply> = steps
            .iter()
            .enumerate()
            .map(|(i, (sizes, figure))| {
                let n = i + 1;
                let paths: Vec<String> = sizes.iter().enumerate().map(|(c, size)| format!("p{n}_{c}_{size}")).collect();
                let calls: Vec<(&str, Value)> = paths.iter().map(|p| read_call(p)).collect();
                let input = [100, limit, 3 * limit][usize::from(*figure)] - 10;
                turn(format, n, &calls, input)
            })
            .collect();
        script.push(turn(format, steps.len() + 1, &[completion_call()], 100));
        let mut h = Harness::new(config, script);
        h.tool = Box::new(|name: &str, params: &[(String, String)]| {
            let path = params.iter().find(|(k, _)| k == "path").map(|(_, v)| v.clone()).unwrap_or_default();
            let size: usize = path.rsplit('_').next().and_then(|s| s.parse().ok()).unwrap_or(0);
            Some(ToolOutput::text(format!("{name} {path}: {}", "x".repeat(size))))
        });
        h.start("t");
        let bodies = body_texts(format, &h.requests);
        (h, bodies)
    }

    /// The blocks (Anthropic) or parts (Gemini) of each message of a body.
    fn messages(format: Format, body: &Value) -> Vec<(String, Vec<Value>)> {
        let (list, blocks) = if format == Format::Gemini { ("contents", "parts") } else { ("messages", "content") };
        body[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["role"].as_str().unwrap().to_owned(), m[blocks].as_array().unwrap().clone()))
            .collect()
    }

    fn is_thinking(format: Format, block: &Value) -> bool {
        match format {
            Format::Gemini => block["thought"] == true,
            _ => block["type"] == "thinking",
        }
    }

    /// A result's id (Anthropic) or name (Gemini), and its text.
    fn result(format: Format, block: &Value) -> Option<(String, String)> {
        match format {
            Format::Gemini => {
                let response = block.get("functionResponse")?;
                Some((response["name"].as_str()?.to_owned(), response["response"]["output"].as_str()?.to_owned()))
            }
            _ => {
                if block["type"] != "tool_result" {
                    return None;
                }
                let texts: Vec<&str> = block["content"].as_array()?.iter().filter_map(|b| b["text"].as_str()).collect();
                Some((block["tool_use_id"].as_str()?.to_owned(), texts.join("\n")))
            }
        }
    }

    fn calls(format: Format, blocks: &[Value]) -> Vec<String> {
        blocks
            .iter()
            .filter_map(|b| match format {
                Format::Gemini => b.get("functionCall").map(|c| c["name"].as_str().unwrap().to_owned()),
                _ => (b["type"] == "tool_use").then(|| b["id"].as_str().unwrap().to_owned()),
            })
            .collect()
    }

    fn is_notice(blocks: &[Value]) -> bool {
        blocks.len() == 1 && blocks[0]["text"] == notice()
    }

    /// `next` is `prev` with edits only: thinking left out, results holding the placeholder.
    fn edited_only(format: Format, prev: &[Value], next: &[Value]) -> bool {
        let keep_thinking = next.iter().any(|b| is_thinking(format, b));
        let prev: Vec<&Value> = prev.iter().filter(|b| keep_thinking || !is_thinking(format, b)).collect();
        prev.len() == next.len()
            && prev.iter().zip(next).all(|(p, n)| {
                *p == n
                    || matches!((result(format, p), result(format, n)), (Some((a, _)), Some((b, text))) if a == b && text == placeholder())
            })
    }

    /// Checks every request of a random task against the edit pre-pass's invariants.
    fn check(format: Format, h: &Harness, texts: &[String]) -> Result<(), String> {
        if !matches!(h.outcome(), Some(Outcome::Completed { .. })) {
            return Err(format!("the task ended {:?}", h.outcome()));
        }
        let edit = h.task.config().context.edit.clone().unwrap();
        let keep = edit.keep_tool_uses as usize;
        let kinds = compactions_per_request(h);
        let bodies: Vec<Vec<(String, Vec<Value>)>> = texts.iter().map(|t| messages(format, &parse(t))).collect();
        for (n, body) in bodies.iter().enumerate() {
            if texts[n].contains("is no longer available") {
                return Err(format!("request {n}: the repair net fired"));
            }
            let mut results = Vec::new();
            for (at, (role, blocks)) in body.iter().enumerate() {
                results.extend(blocks.iter().filter_map(|b| result(format, b)));
                // Every call answered in the next message, by its id (by name on Gemini).
                if role != "user" && at + 1 < body.len() {
                    let answers: Vec<String> =
                        body[at + 1].1.iter().filter_map(|b| result(format, b)).map(|r| r.0).collect();
                    let asked = calls(format, blocks);
                    if asked != answers {
                        return Err(format!("request {n}, message {at}: calls {asked:?}, results {answers:?}"));
                    }
                }
            }
            // The newest `keepToolUses` results intact.
            let newest = &results[results.len().saturating_sub(keep)..];
            if let Some((id, _)) = newest.iter().find(|(_, text)| text == placeholder()) {
                return Err(format!("request {n}: result {id} is among the newest {keep} and cleared"));
            }
            // Thinking: never dropped on Gemini; the newest turn's kept elsewhere.
            let turns: Vec<&Vec<Value>> =
                body.iter().filter(|(role, blocks)| role != "user" && !is_notice(blocks)).map(|(_, b)| b).collect();
            let kept = match (format, edit.keep_thinking_turns) {
                (Format::Gemini, _) | (_, None) => turns.len(),
                (_, Some(k)) => (k as usize).max(1).min(turns.len()),
            };
            if let Some(turn) = turns[turns.len() - kept..].iter().find(|blocks| !is_thinking(format, &blocks[0])) {
                return Err(format!("request {n}: a turn without its thinking: {:?}", turn[0]));
            }
            // Cache prefix: with no compaction the previous request's messages go as they
            // were; with an edit alone, changed only by the edit, the first change a cleared
            // block.
            if n == 0 || kinds[n].iter().any(|k| k != "edit") {
                continue;
            }
            let prev = &bodies[n - 1];
            for (at, (p, next)) in prev.iter().zip(body).enumerate() {
                let same = p == next;
                if !same && (kinds[n].is_empty() || !edited_only(format, &p.1, &next.1)) {
                    return Err(format!("request {n}, message {at}: {:?} became {:?}", p.1, next.1));
                }
            }
            if !kinds[n].is_empty() {
                let d = first_difference(&texts[n - 1], &texts[n]);
                let cleared = match format {
                    Format::Gemini => format!(r#"{{"output":"{}"#, placeholder()),
                    _ => format!(r#"{{"type":"text","text":"{}"#, placeholder()),
                };
                let first_change_cleared = object_at(&texts[n], d).starts_with(&cleared)
                    || object_at(&texts[n - 1], d).starts_with(r#"{"type":"thinking""#)
                    || texts[n - 1][d..].starts_with(']');
                if !first_change_cleared {
                    return Err(format!(
                        "request {n}: the first change is not a cleared block: {}",
                        &texts[n][d..d + 80]
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_twice(format: Format, steps: &[Step], keep: u8, keep_thinking: u8) -> Result<(), String> {
        let (h, texts) = random_task(format, steps, keep, keep_thinking);
        check(format, &h, &texts)?;
        let (_, again) = random_task(format, steps, keep, keep_thinking);
        same_bodies(&texts, &again).map_err(|e| format!("run again: {e}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn edits_keep_turns_whole_the_newest_intact_and_the_cached_prefix_over_random_anthropic_tasks(
            steps in steps(), keep in 0..4u8, keep_thinking in 0..4u8,
        ) {
            check_twice(Format::Anthropic, &steps, keep, keep_thinking).map_err(TestCaseError::fail)?;
        }

        #[test]
        fn edits_keep_turns_whole_the_newest_intact_and_the_cached_prefix_over_random_gemini_tasks(
            steps in steps(), keep in 0..4u8, keep_thinking in 0..4u8,
        ) {
            check_twice(Format::Gemini, &steps, keep, keep_thinking).map_err(TestCaseError::fail)?;
        }
    }
}
