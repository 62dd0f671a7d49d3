//! Unit tests of native context management in the request builders (CONTEXT §6, §10 items
//! 11, 12, 16): compaction blocks sent back to their own format only, the edits and betas
//! asked for, and follow-up requests shaped as the recorded ones (synthetic texts and ids,
//! the recordings' structure).

use serde_json::{json, Value};

use super::tests::j;
use super::{build_request, Headers, KeepThinking, ModelRequest, ModelSettings, NativeContext, ServerEdits};
use crate::core::conversation::{Content, ContentBlock, Message, Role};
use crate::core::json::Json;
use crate::core::stream::Format;

fn user(text: &str) -> Message {
    Message { role: Role::User, content: Content::Text(text.into()) }
}

fn user_blocks(texts: &[&str]) -> Message {
    let blocks = texts.iter().map(|text| ContentBlock::text((*text).into())).collect();
    Message { role: Role::User, content: Content::Blocks(blocks) }
}

fn assistant(blocks: Vec<ContentBlock>) -> Message {
    Message { role: Role::Assistant, content: Content::Blocks(blocks) }
}

/// An Anthropic compaction block as the decoder gives it.
fn summary(content: Option<&str>, encrypted: Option<&str>) -> ContentBlock {
    ContentBlock::Compaction {
        provider: Format::Anthropic,
        content: content.map(Into::into),
        encrypted_content: encrypted.map(Into::into),
        id: None,
    }
}

/// An OpenAI Responses compaction item as the decoder gives it.
fn item(id: &str, encrypted: &str) -> ContentBlock {
    ContentBlock::Compaction {
        provider: Format::OpenAiResponses,
        content: None,
        encrypted_content: Some(encrypted.into()),
        id: Some(id.into()),
    }
}

fn request(model: &str, system: &str, messages: Vec<Message>) -> ModelRequest {
    let model = ModelSettings { id: model.into(), max_tokens: Some(4096), ..ModelSettings::default() };
    ModelRequest { system: system.into(), messages, tools: Vec::new(), model, context: None }
}

fn compact_at(limit: u64) -> Option<Box<NativeContext>> {
    Some(Box::new(NativeContext { compact_threshold: Some(limit), ..NativeContext::default() }))
}

fn body(format: Format, request: &ModelRequest) -> Value {
    serde_json::from_str(&build_request(format, request).body).unwrap()
}

#[test]
fn anthropic_sends_its_compaction_back_as_received_and_no_other_format_s() {
    let history = vec![
        user("<task>t</task>"),
        assistant(vec![summary(Some("S1"), Some("E1")), ContentBlock::text("one".into())]),
        user("more"),
        // A failed compaction (null content): replayed as received.
        assistant(vec![summary(None, None)]),
        user("again"),
        // Another format's compaction, alone in its turn: nothing of it is sent.
        assistant(vec![item("cmp_1", "X")]),
        user("last"),
    ];
    let body = body(Format::Anthropic, &request("claude-sonnet-4-6", "", history));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages[1]["content"],
        json!([{"type": "compaction", "content": "S1", "encrypted_content": "E1"}, {"type": "text", "text": "one"}])
    );
    assert_eq!(messages[3], json!({"role": "assistant", "content": [{"type": "compaction", "content": null}]}));
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user", "user"]);
    assert!(!body.to_string().contains("cmp_1"));
}

#[test]
fn responses_sends_its_compaction_item_whole_with_its_id_in_place() {
    let reasoning = ContentBlock::Thinking {
        thinking: String::new(),
        signature: None,
        encrypted_content: Some("R".into()),
        summary: None,
    };
    let opaque = ContentBlock::Item {
        format: Format::OpenAiResponses,
        item: j(json!({"type": "web_search_call", "id": "ws_1", "status": "completed"})),
    };
    let history = vec![
        user("<task>t</task>"),
        assistant(vec![reasoning, ContentBlock::text("answer".into()), item("cmp_A", "E-A"), opaque]),
        user("next"),
        assistant(vec![item("cmp_B", "E-B")]),
        assistant(vec![summary(Some("not ours"), None)]),
        user("last"),
    ];
    let body = body(Format::OpenAiResponses, &request("gpt-5", "", history));
    let input = body["input"].as_array().unwrap();
    assert_eq!(input[1], json!({"type": "reasoning", "summary": [], "encrypted_content": "R"}));
    assert_eq!(input[2]["content"][0]["text"], "answer");
    // With store false, the compaction item keeps its id; the other item does not.
    assert_eq!(input[3], json!({"type": "compaction", "id": "cmp_A", "encrypted_content": "E-A"}));
    assert_eq!(input[4], json!({"type": "web_search_call", "status": "completed"}));
    assert_eq!(input[6], json!({"type": "compaction", "id": "cmp_B", "encrypted_content": "E-B"}));
    assert_eq!(input[7], json!({"role": "user", "content": "last"}));
    assert_eq!(input.len(), 8);
    assert!(!body.to_string().contains("not ours"));
}

#[test]
fn chat_and_gemini_leave_compactions_out_and_send_no_empty_turn() {
    let history = vec![
        user("<task>t</task>"),
        assistant(vec![summary(Some("S"), Some("E")), ContentBlock::text("kept".into())]),
        user("next"),
        assistant(vec![summary(Some("S2"), None)]),
        assistant(vec![item("cmp_1", "X")]),
        user("last"),
    ];
    let mut request = request("gpt-4.1", "sys", history);
    request.context = compact_at(50_000);
    let chat = body(Format::OpenAi, &request);
    assert_eq!(
        chat["messages"],
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "<task>t</task>"},
            {"role": "assistant", "content": "kept"},
            {"role": "user", "content": "next"},
            {"role": "user", "content": "last"},
        ])
    );
    request.model.id = "gemini-3-pro".into();
    let gemini = body(Format::Gemini, &request);
    assert_eq!(
        gemini["contents"],
        json!([
            {"role": "user", "parts": [{"text": "<task>t</task>"}]},
            {"role": "model", "parts": [{"text": "kept"}]},
            {"role": "user", "parts": [{"text": "next"}, {"text": "last"}]},
        ])
    );
    for body in [chat, gemini] {
        let text = body.to_string();
        assert!(!text.contains("compact") && !text.contains("\"S\"") && !text.contains("cmp_1"), "{text}");
    }
}

#[test]
fn anthropic_asks_for_edits_in_order_with_their_betas_joined_to_the_host_s() {
    let mut request = request("claude-opus-4-6", "", vec![user("hi")]);
    request.model.reasoning_budget = Some(2048);
    request.model.headers.insert("anthropic-beta", "fine-grained-tool-streaming-2025-05-14");
    request.context = Some(Box::new(NativeContext {
        compact_threshold: Some(80_000),
        instructions: Some("Keep the file names.".into()),
        pause_after_compaction: true,
        edits: Some(ServerEdits {
            keep_tool_uses: 4,
            keep_thinking_turns: KeepThinking::Turns(2),
            exclude_tools: vec!["ask_followup_question".into()],
            clear_tool_inputs: true,
            clear_at_least: 5_000,
        }),
    }));
    let built = build_request(Format::Anthropic, &request);
    assert_eq!(
        built.headers.get("anthropic-beta"),
        Some("fine-grained-tool-streaming-2025-05-14,context-management-2025-06-27,compact-2026-01-12")
    );
    let body: Value = serde_json::from_str(&built.body).unwrap();
    let tokens = |value: u64| json!({"type": "input_tokens", "value": value});
    assert_eq!(
        body["context_management"],
        json!({"edits": [
            {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 2}},
            {
                "type": "clear_tool_uses_20250919",
                "trigger": tokens(80_000),
                "keep": {"type": "tool_uses", "value": 4},
                "clear_at_least": tokens(5_000),
                "clear_tool_inputs": true,
                "exclude_tools": ["ask_followup_question"],
            },
            {
                "type": "compact_20260112",
                "trigger": tokens(80_000),
                "pause_after_compaction": true,
                "instructions": "Keep the file names.",
            },
        ]})
    );

    // No thinking: no thinking edit (the API refuses it); defaults leave out what is off.
    request.model.reasoning_budget = None;
    request.model.headers = Headers::new();
    if let Some(context) = &mut request.context {
        context.compact_threshold = None;
        context.edits = Some(ServerEdits { keep_thinking_turns: KeepThinking::All, ..ServerEdits::default() });
    }
    let built = build_request(Format::Anthropic, &request);
    assert_eq!(built.headers.get("anthropic-beta"), Some("context-management-2025-06-27"));
    let body: Value = serde_json::from_str(&built.body).unwrap();
    assert_eq!(
        body["context_management"],
        json!({"edits": [{"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 3}}]})
    );

    // Thinking kept whole; a beta the host already sends is not repeated.
    request.model.reasoning_budget = Some(2048);
    request.model.headers.insert("Anthropic-Beta", "context-management-2025-06-27");
    let built = build_request(Format::Anthropic, &request);
    assert_eq!(built.headers.get("anthropic-beta"), Some("context-management-2025-06-27"));
    let body: Value = serde_json::from_str(&built.body).unwrap();
    assert_eq!(body["context_management"]["edits"][0], json!({"type": "clear_thinking_20251015", "keep": "all"}));

    // Nothing asked: no member, no beta.
    request.context = Some(Box::default());
    request.model.headers = Headers::new();
    let built = build_request(Format::Anthropic, &request);
    assert!(!built.headers.contains_key("anthropic-beta") && !built.body.contains("context_management"));
}

#[test]
fn responses_asks_for_compaction_at_the_threshold_and_the_other_formats_ignore_it() {
    let mut request = request("gpt-5", "", vec![user("hi")]);
    request.context = Some(Box::new(NativeContext {
        edits: Some(ServerEdits::default()),
        pause_after_compaction: true,
        ..NativeContext::default()
    }));
    assert!(!build_request(Format::OpenAiResponses, &request).body.contains("context_management"));
    request.context = compact_at(120_000);
    let body = body(Format::OpenAiResponses, &request);
    assert_eq!(body["context_management"], json!([{"type": "compaction", "compact_threshold": 120_000}]));
    for format in [Format::OpenAi, Format::Gemini] {
        let built = build_request(format, &request);
        assert!(!built.body.contains("compact") && !built.headers.contains_key("anthropic-beta"));
    }
}

#[test]
fn context_and_compaction_blocks_survive_the_request_s_json() {
    let mut request = request(
        "claude-sonnet-4-6",
        "",
        vec![user("t"), assistant(vec![summary(None, Some("E")), item("cmp_1", "X")]), user("u")],
    );
    request.context = Some(Box::new(NativeContext {
        compact_threshold: Some(60_000),
        instructions: Some("i".into()),
        pause_after_compaction: true,
        edits: Some(ServerEdits {
            keep_thinking_turns: KeepThinking::All,
            exclude_tools: vec!["a".into()],
            ..ServerEdits::default()
        }),
    }));
    // The JS path: the request as JSON (each message as its history JSON), read back.
    let read = ModelRequest::from_json(&request.to_json()).unwrap();
    assert_eq!(read, request);
    for format in [Format::Anthropic, Format::OpenAiResponses] {
        assert_eq!(build_request(format, &read), build_request(format, &request));
    }
    let serde_text = serde_json::to_string(&request).unwrap();
    assert!(serde_text.contains(r#""keepThinkingTurns":"all""#), "{serde_text}");
    assert_eq!(serde_json::from_str::<ModelRequest>(&serde_text).unwrap(), request);

    let edits = |edits: &str| {
        let text = format!(r#"{{"model":{{"id":"m"}},"context":{{"compactThreshold":50000,"edits":{edits}}}}}"#);
        ModelRequest::from_json(&Json::parse(&text).unwrap()).map(|r| r.context.and_then(|c| c.edits))
    };
    assert_eq!(edits("{}").unwrap(), Some(ServerEdits::default()));
    assert_eq!(edits(r#"{"keepThinkingTurns":3}"#).unwrap().unwrap().keep_thinking_turns, KeepThinking::Turns(3));
    let error = edits(r#"{"keepThinkingTurns":"some"}"#).unwrap_err();
    assert_eq!(error, "request.context.edits.keepThinkingTurns must be a number or \"all\"");
    let error = edits(r#"{"excludeTools":[1]}"#).unwrap_err();
    assert_eq!(error, "request.context.edits.excludeTools must be an array of strings");
    assert!(edits("[]").unwrap_err().contains("request.context.edits must be an object"));
}

// The follow-up requests of the recordings, rebuilt from a history holding the compaction
// blocks as the decoder gives them. Texts and ids are made up; the members each recording
// sent are compared whole. Where clew's own conventions differ from the recording's client
// (system as blocks, `stream: true`, `temperature`, `store`, an assistant text as an output
// message), the members are not compared or the difference is named.

/// `anthropic-compaction-end-to-end-1`: the turn after a compaction re-sends the first user
/// message, the carrier `[compaction, text]` as received, and the new user message.
#[test]
fn anthropic_follow_up_after_a_compaction_has_the_recorded_shape() {
    let history = vec![
        user_blocks(&["Remember this: a long text."]),
        assistant(vec![
            summary(Some("The user gave a long text to remember."), None),
            ContentBlock::text("Hi!".into()),
        ]),
        user_blocks(&["What did I ask?"]),
    ];
    let mut request = request("claude-sonnet-4-6", "Be brief.", history);
    request.context = compact_at(50_000);
    let built = build_request(Format::Anthropic, &request);
    let body: Value = serde_json::from_str(&built.body).unwrap();
    assert_eq!(
        body["context_management"],
        json!({"edits": [{"trigger": {"type": "input_tokens", "value": 50_000}, "type": "compact_20260112"}]})
    );
    assert_eq!(
        body["messages"],
        json!([
            {"content": [{"text": "Remember this: a long text.", "type": "text"}], "role": "user"},
            {
                "content": [
                    {"content": "The user gave a long text to remember.", "type": "compaction"},
                    {"text": "Hi!", "type": "text"},
                ],
                "role": "assistant",
            },
            {"content": [{"text": "What did I ask?", "type": "text"}], "role": "user"},
        ])
    );
    assert_eq!((&body["model"], &body["max_tokens"]), (&json!("claude-sonnet-4-6"), &json!(4096)));
    assert_eq!(built.headers.get("anthropic-beta"), Some("compact-2026-01-12"));
}

/// `anthropic-compaction-round-trip-0`: a client-written compaction block ahead of the text
/// of its turn, and a last user message of two text blocks. (The recording declares the
/// compact edit without a trigger; clew always sends its limit.)
#[test]
fn anthropic_client_written_compaction_has_the_recorded_shape() {
    let history = vec![
        user_blocks(&["Hi there."]),
        assistant(vec![summary(Some("Summary: a greeting."), None), ContentBlock::text("Hello, what now?".into())]),
        user_blocks(&["And before?", "And before?"]),
    ];
    let body = body(Format::Anthropic, &request("claude-sonnet-4-6", "Short answers.", history));
    assert_eq!(
        body["messages"],
        json!([
            {"content": [{"text": "Hi there.", "type": "text"}], "role": "user"},
            {
                "content": [
                    {"content": "Summary: a greeting.", "type": "compaction"},
                    {"text": "Hello, what now?", "type": "text"},
                ],
                "role": "assistant",
            },
            {"content": [{"text": "And before?", "type": "text"}, {"text": "And before?", "type": "text"}], "role": "user"},
        ])
    );
}

/// `openai-responses-compaction-threshold-stream-3`: the whole earlier history, the turn whose
/// output crossed the threshold (its message, then the compaction item), the new question.
#[test]
fn responses_follow_up_after_an_inline_compaction_has_the_recorded_shape() {
    let history = vec![
        user("Story one, please."),
        Message { role: Role::Assistant, content: Content::Text("Once, a fox.".into()) },
        user("Story two, please."),
        Message { role: Role::Assistant, content: Content::Text("Once, a rabbit.".into()) },
        user("Story three, please."),
        assistant(vec![ContentBlock::text("Once, a bear.".into()), item("cmp_0a1b", "gAAAA-synthetic")]),
        user("What is 3+3?"),
    ];
    let mut request = request("gpt-4.1", "", history);
    request.context = compact_at(1_000);
    let body = body(Format::OpenAiResponses, &request);
    assert_eq!(body["context_management"], json!([{"compact_threshold": 1_000, "type": "compaction"}]));
    // The recording's client sent the bear story as `{content, role}`; clew sends an
    // assistant's text block as an output message (the same turn to the API).
    let bear = json!({
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Once, a bear."}],
    });
    assert_eq!(
        body["input"],
        json!([
            {"content": "Story one, please.", "role": "user"},
            {"content": "Once, a fox.", "role": "assistant"},
            {"content": "Story two, please.", "role": "user"},
            {"content": "Once, a rabbit.", "role": "assistant"},
            {"content": "Story three, please.", "role": "user"},
            bear,
            {"encrypted_content": "gAAAA-synthetic", "id": "cmp_0a1b", "type": "compaction"},
            {"content": "What is 3+3?", "role": "user"},
        ])
    );
    assert_eq!(body["model"], "gpt-4.1");
}

/// `openai-responses-compact-endpoint-3`: a view that starts at the compaction item, then the
/// new user message.
#[test]
fn responses_view_starting_at_the_compaction_item_has_the_recorded_shape() {
    let history = vec![assistant(vec![item("cmp_9z", "gAAAA-other")]), user("And 4+4?")];
    let body = body(Format::OpenAiResponses, &request("gpt-4o-mini", "You do sums.", history));
    assert_eq!(
        body["input"],
        json!([
            {"encrypted_content": "gAAAA-other", "id": "cmp_9z", "type": "compaction"},
            {"content": "And 4+4?", "role": "user"},
        ])
    );
    assert_eq!((&body["instructions"], &body["model"]), (&json!("You do sums."), &json!("gpt-4o-mini")));
}

#[test]
fn headers_join_a_list_once() {
    let mut headers = Headers::new();
    headers.join("anthropic-beta", "a");
    headers.join("Anthropic-Beta", "b");
    headers.join("anthropic-beta", "a");
    assert_eq!(headers.get("anthropic-beta"), Some("a,b"));
    headers.insert("x", " ");
    headers.join("x", "c");
    assert_eq!(headers.get("x"), Some("c"));
}
