//! The OpenAI Chat Completions request (and compatible servers).

use super::{declarations, join_url, Headers, HttpRequest, ModelRequest};
use crate::core::conversation::{Content, ContentBlock, ImageSource, Message, Role};
use crate::core::json::Json;

/// Builds a streaming Chat Completions request that asks for usage in the stream.
///
/// History conversion: tool results become `tool` messages placed right after the assistant
/// message that called them, images become `image_url` parts, tool calls become
/// `tool_calls`, and reasoning, compaction and other formats' items are not sent back (an
/// assistant turn of nothing else is left out). Reasoning models (`o1`, `o3`, `o4`,
/// `gpt-5`…) get a `developer` message, `max_completion_tokens` and no temperature.
pub fn build_openai(request: &ModelRequest) -> HttpRequest {
    let settings = &request.model;
    let reasoning_model = is_reasoning_model(&settings.id);
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        let role = if reasoning_model { "developer" } else { "system" };
        messages.push(Json::object().with("role", role).with("content", &request.system));
    }
    for message in &request.messages {
        push_message(message, &mut messages);
    }

    let mut body = Json::object()
        .with("model", &settings.id)
        .with("messages", messages)
        .with("stream", true)
        .with("stream_options", Json::object().with("include_usage", true));
    if reasoning_model {
        body.set("max_completion_tokens", settings.max_tokens());
    } else {
        body.set("max_tokens", settings.max_tokens());
        body.set("temperature", settings.temperature.unwrap_or(0.0));
    }
    if let Some(effort) = &settings.reasoning_effort {
        body.set("reasoning_effort", effort);
    }
    if !request.tools.is_empty() {
        let mut tools = Vec::with_capacity(request.tools.len());
        for function in declarations(&request.tools, "parameters") {
            tools.push(Json::object().with("type", "function").with("function", function));
        }
        body.set("tools", tools);
        body.set("tool_choice", "auto");
        body.set("parallel_tool_calls", false);
    }

    let mut headers = Headers::new();
    if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.insert("authorization", format!("Bearer {key}"));
    }
    let url = join_url(settings.base_url.as_deref(), "https://api.openai.com/v1", "/chat/completions");
    HttpRequest::post(url, headers, &body, &settings.headers)
}

pub(super) fn is_reasoning_model(id: &str) -> bool {
    let id = id.rsplit('/').next().unwrap_or(id);
    ["o1", "o3", "o4", "gpt-5"].iter().any(|prefix| id.starts_with(prefix)) && !crate::core::text::contains(id, "chat")
}

fn push_message(message: &Message, out: &mut Vec<Json>) {
    let blocks = match &message.content {
        Content::Text(text) => {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            out.push(Json::object().with("role", role).with("content", text));
            return;
        }
        Content::Blocks(blocks) => blocks,
    };
    match message.role {
        Role::Assistant => {
            let (mut text, mut texts, mut calls) = (String::new(), 0, Vec::new());
            for block in blocks {
                match block {
                    ContentBlock::Text { text: part, .. } => {
                        text.push_str(part);
                        texts += 1;
                    }
                    ContentBlock::ToolUse { id, name, input, .. } => {
                        let function = Json::object().with("name", name).with("arguments", input.to_string());
                        calls.push(Json::object().with("id", id).with("type", "function").with("function", function));
                    }
                    _ => {}
                }
            }
            // NOTE: a turn with nothing Chat Completions knows (only reasoning, a provider's
            // compaction or items) is left out rather than sent empty.
            if texts == 0 && calls.is_empty() {
                return;
            }
            let mut assistant = Json::object().with("role", "assistant").with("content", text);
            if !calls.is_empty() {
                assistant.set("tool_calls", calls);
            }
            out.push(assistant);
        }
        Role::User => {
            // Tool results must directly follow the assistant's calls.
            for block in blocks {
                if let ContentBlock::ToolResult { tool_use_id, content, .. } = block {
                    out.push(
                        Json::object()
                            .with("role", "tool")
                            .with("tool_call_id", tool_use_id)
                            .with("content", text_of(content)),
                    );
                }
            }
            let mut parts = Vec::new();
            for block in blocks {
                if let Some(part) = part_json(block) {
                    parts.push(part);
                }
            }
            match parts.as_slice() {
                [] => {}
                [only] if only.get("type").and_then(Json::as_str) == Some("text") => {
                    let text = only.get("text").cloned().unwrap_or_default();
                    out.push(Json::object().with("role", "user").with("content", text));
                }
                _ => out.push(Json::object().with("role", "user").with("content", parts)),
            }
        }
    }
}

fn part_json(block: &ContentBlock) -> Option<Json> {
    match block {
        ContentBlock::Text { text, .. } => Some(Json::object().with("type", "text").with("text", text)),
        ContentBlock::Image { source } => Some(
            Json::object().with("type", "image_url").with("image_url", Json::object().with("url", image_url(source))),
        ),
        _ => None,
    }
}

pub(super) fn image_url(source: &ImageSource) -> String {
    source.to_url_text()
}

/// The text of a tool result (images in results are described, not sent).
pub(super) fn text_of(content: &Content) -> String {
    let mut text = String::new();
    for (i, block) in content.blocks().iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        match block {
            ContentBlock::Text { text: part, .. } => text.push_str(part),
            ContentBlock::Image { .. } => text.push_str("[image]"),
            _ => {}
        }
    }
    text
}
