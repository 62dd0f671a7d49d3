//! The OpenAI Chat Completions request (and compatible servers).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{join_url, put, Content, ContentBlock, HttpRequest, ImageSource, Message, ModelRequest, Role};

/// Builds a streaming Chat Completions request that asks for usage in the stream.
///
/// History conversion: tool results become `tool` messages placed right after the assistant
/// message that called them, images become `image_url` parts, tool calls become
/// `tool_calls`, and reasoning is not sent back. Reasoning models (`o1`, `o3`, `o4`,
/// `gpt-5`…) get a `developer` message, `max_completion_tokens` and no temperature.
pub fn build_openai(request: &ModelRequest) -> HttpRequest {
    let settings = &request.model;
    let reasoning_model = is_reasoning_model(&settings.id);
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        let role = if reasoning_model { "developer" } else { "system" };
        messages.push(json!({ "role": role, "content": request.system }));
    }
    for message in &request.messages {
        push_message(message, &mut messages);
    }

    let mut body = json!({
        "model": settings.id,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
    });
    if reasoning_model {
        put(&mut body, "max_completion_tokens", json!(settings.max_tokens()));
    } else {
        put(&mut body, "max_tokens", json!(settings.max_tokens()));
        put(&mut body, "temperature", json!(settings.temperature.unwrap_or(0.0)));
    }
    if let Some(effort) = &settings.reasoning_effort {
        put(&mut body, "reasoning_effort", json!(effort));
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.input_schema } })
            })
            .collect();
        put(&mut body, "tools", json!(tools));
        put(&mut body, "tool_choice", json!("auto"));
        put(&mut body, "parallel_tool_calls", json!(false));
    }

    let mut headers = BTreeMap::new();
    if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.insert("authorization".to_owned(), format!("Bearer {key}"));
    }
    let url = join_url(settings.base_url.as_deref(), "https://api.openai.com/v1", "/chat/completions");
    HttpRequest::post(url, headers, &body, &settings.headers)
}

fn is_reasoning_model(id: &str) -> bool {
    let id = id.rsplit('/').next().unwrap_or(id);
    ["o1", "o3", "o4", "gpt-5"].iter().any(|prefix| id.starts_with(prefix)) && !id.contains("chat")
}

fn push_message(message: &Message, out: &mut Vec<Value>) {
    let blocks = match &message.content {
        Content::Text(text) => {
            out.push(json!({ "role": message.role, "content": text }));
            return;
        }
        Content::Blocks(blocks) => blocks,
    };
    match message.role {
        Role::Assistant => {
            let text: Vec<&str> = blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            let calls: Vec<Value> = blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolUse { id, name, input } => Some(json!({
                        "id": id, "type": "function", "function": { "name": name, "arguments": input.to_string() }
                    })),
                    _ => None,
                })
                .collect();
            let mut assistant = json!({ "role": "assistant", "content": text.join("") });
            if !calls.is_empty() {
                put(&mut assistant, "tool_calls", json!(calls));
            }
            out.push(assistant);
        }
        Role::User => {
            // Tool results must directly follow the assistant's calls.
            for block in blocks {
                if let ContentBlock::ToolResult { tool_use_id, content, .. } = block {
                    out.push(json!({ "role": "tool", "tool_call_id": tool_use_id, "content": text_of(content) }));
                }
            }
            let parts: Vec<Value> = blocks.iter().filter_map(part_json).collect();
            match parts.as_slice() {
                [] => {}
                [only] if only["type"] == "text" => out.push(json!({ "role": "user", "content": only["text"] })),
                _ => out.push(json!({ "role": "user", "content": parts })),
            }
        }
    }
}

fn part_json(block: &ContentBlock) -> Option<Value> {
    match block {
        ContentBlock::Text { text } => Some(json!({ "type": "text", "text": text })),
        ContentBlock::Image { source } => {
            Some(json!({ "type": "image_url", "image_url": { "url": image_url(source) } }))
        }
        _ => None,
    }
}

fn image_url(source: &ImageSource) -> String {
    match source {
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
        ImageSource::Url { url } => url.clone(),
    }
}

/// The text of a tool result (images in results are described, not sent).
fn text_of(content: &Content) -> String {
    content
        .blocks()
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { .. } => "[image]".to_owned(),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
