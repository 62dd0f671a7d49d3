//! Unit tests of the request builders: both providers' bodies and headers, and reading a
//! `ModelRequest` from JSON.

use serde_json::{json, Value};

use super::{build_request, ModelRequest, ModelSettings, ToolDefinition};
use crate::core::conversation::{Content, ContentBlock, ImageSource, Message, Role};
use crate::core::stream::Format;

fn sample_request(tools: bool) -> ModelRequest {
    ModelRequest {
        system: "You are clew.".into(),
        messages: vec![
            Message { role: Role::User, content: Content::Text("<task>\nfix it\n</task>".into()) },
            Message {
                role: Role::Assistant,
                content: Content::Blocks(vec![
                    ContentBlock::Thinking {
                        thinking: "hm".into(),
                        signature: Some("sig".into()),
                        encrypted_content: None,
                        summary: None,
                    },
                    ContentBlock::Thinking {
                        thinking: "unsigned".into(),
                        signature: None,
                        encrypted_content: None,
                        summary: None,
                    },
                    ContentBlock::text("Reading.".into()),
                    ContentBlock::ToolUse {
                        id: "toolu_1".into(),
                        name: "read_file".into(),
                        input: j(json!({"path": "a.md"})),
                        signature: None,
                    },
                ]),
            },
            Message {
                role: Role::User,
                content: Content::Blocks(vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "toolu_1".into(),
                        content: Content::Text("1 | Helo".into()),
                        is_error: false,
                    },
                    ContentBlock::Image {
                        source: ImageSource::Base64 { media_type: "image/png".into(), data: "iVBOR".into() },
                    },
                    ContentBlock::text("<environment_details>…</environment_details>".into()),
                ]),
            },
        ],
        tools: if tools {
            vec![ToolDefinition {
                name: "read_file".into(),
                description: "Reads a file".into(),
                input_schema: j(
                    json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
                ),
            }]
        } else {
            Vec::new()
        },
        model: ModelSettings {
            id: "claude-sonnet-4-5".into(),
            prompt_cache: true,
            browser: true,
            api_key: Some("sk-ant-test".into()),
            ..ModelSettings::default()
        },
        context: None,
    }
}

#[test]
fn anthropic_request_streams_with_cache_breakpoints_and_browser_header() {
    let request = build_request(Format::Anthropic, &sample_request(true));
    assert_eq!(request.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(request.method, "POST");
    assert_eq!(request.headers.get("x-api-key"), Some("sk-ant-test"));
    assert_eq!(request.headers.get("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.headers.get("anthropic-dangerous-direct-browser-access"), Some("true"));
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["max_tokens"], 8192);
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    let messages = body["messages"].as_array().unwrap();
    // Both user messages are among the last two: their last blocks carry a breakpoint.
    assert_eq!(messages[0]["content"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(messages[2]["content"][2]["cache_control"]["type"], "ephemeral");
    assert!(messages[2]["content"][0].get("cache_control").is_none());
    // Unsigned reasoning is not sent back; signed reasoning is.
    let assistant = messages[1]["content"].as_array().unwrap();
    assert_eq!(assistant.len(), 3);
    assert_eq!(assistant[0], json!({"type": "thinking", "thinking": "hm", "signature": "sig"}));
    assert_eq!(messages[2]["content"][0]["content"][0], json!({"type": "text", "text": "1 | Helo"}));
    assert_eq!(body["tools"][0]["input_schema"]["required"][0], "path");
    assert_eq!(body["tool_choice"]["type"], "any");
}

#[test]
fn anthropic_request_with_reasoning_budget_has_no_temperature_and_no_key_when_omitted() {
    let mut request = sample_request(true);
    request.model.reasoning_budget = Some(4000);
    request.model.api_key = None;
    request.model.prompt_cache = false;
    request.model.base_url = Some("https://proxy.example/anthropic/".into());
    request.model.headers.insert("X-Trace", "1");
    let built = build_request(Format::Anthropic, &request);
    assert_eq!(built.url, "https://proxy.example/anthropic/v1/messages");
    assert!(!built.headers.contains_key("x-api-key"));
    assert_eq!(built.headers.get("x-trace"), Some("1"));
    let body: Value = serde_json::from_str(&built.body).unwrap();
    assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": 4000}));
    assert!(body.get("temperature").is_none());
    assert_eq!(body["tool_choice"]["type"], "auto");
    assert!(!built.body.contains("cache_control"));
}

#[test]
fn openai_request_converts_history_and_asks_for_usage() {
    let mut request = sample_request(true);
    request.model.id = "gpt-4.1".into();
    request.model.api_key = Some("sk-test".into());
    let built = build_request(Format::OpenAi, &request);
    assert_eq!(built.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(built.headers.get("authorization"), Some("Bearer sk-test"));
    let body: Value = serde_json::from_str(&built.body).unwrap();
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["max_tokens"], 8192);
    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
    assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], r#"{"path":"a.md"}"#);
    assert_eq!(messages[2]["content"], "Reading.");
    assert_eq!(messages[3], json!({"role": "tool", "tool_call_id": "toolu_1", "content": "1 | Helo"}));
    assert_eq!(messages[4]["content"][0]["image_url"]["url"], "data:image/png;base64,iVBOR");
    assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
    assert_eq!(body["parallel_tool_calls"], false);
}

#[test]
fn openai_reasoning_models_get_a_developer_message_and_no_temperature() {
    let mut request = sample_request(false);
    request.model.id = "openai/o3-mini".into();
    request.model.reasoning_effort = Some("high".into());
    let body: Value = serde_json::from_str(&build_request(Format::OpenAi, &request).body).unwrap();
    assert_eq!(body["messages"][0]["role"], "developer");
    assert_eq!(body["max_completion_tokens"], 8192);
    assert!(body.get("temperature").is_none() && body.get("tools").is_none());
    assert_eq!(body["reasoning_effort"], "high");
}

#[test]
fn model_request_reads_string_and_block_content_and_names_what_is_wrong() {
    let read = |text: &str| ModelRequest::from_json(&crate::core::json::Json::parse(text).unwrap());
    let request: ModelRequest = read(
        r#"{"model":{"id":"m"},"messages":[
            {"role":"user","content":"plain"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{"a":[1]}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}],"is_error":true},
                                      {"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]}"#,
    )
    .unwrap();
    assert_eq!(request.messages[0].content, Content::Text("plain".into()));
    assert_eq!(
        request.messages[1].content,
        Content::Blocks(vec![ContentBlock::ToolUse {
            id: "t".into(),
            name: "n".into(),
            input: j(json!({"a": [1]})),
            signature: None
        }])
    );
    let Content::Blocks(blocks) = &request.messages[2].content else { panic!("blocks") };
    assert!(matches!(&blocks[0], ContentBlock::ToolResult { is_error: true, .. }));
    assert_eq!(blocks[1], ContentBlock::Image { source: ImageSource::Url { url: "https://x/y.png".into() } });

    for (bad, says) in [
        (r#"{"type":"video"}"#, "request.messages[0].content[0].type \"video\" is not a content block type"),
        (r#"{"type":"text"}"#, "request.messages[0].content[0].text is required"),
        (r#"{"type":"image","source":{"type":"base64","data":"x"}}"#, "content[0].source.media_type is required"),
        (r#"{"type":"text","text":1}"#, "content[0].text must be a string"),
    ] {
        let json = format!(r#"{{"model":{{"id":"m"}},"messages":[{{"role":"user","content":[{bad}]}}]}}"#);
        let error = read(&json).unwrap_err();
        assert!(error.contains(says), "{bad}: {error}");
    }
}

/// A serde_json value as the core's JSON.
pub(super) fn j(value: Value) -> crate::core::json::Json {
    crate::core::json::Json::parse(&value.to_string()).unwrap()
}
