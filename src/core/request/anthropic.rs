//! The Anthropic Messages request.

use super::{declarations, join_url, Headers, HttpRequest, ModelRequest};
use crate::core::conversation::{Content, ContentBlock, Role};
use crate::core::json::Json;

fn cache_control() -> Json {
    Json::object().with("type", "ephemeral")
}

/// Builds a streaming Messages request.
///
/// Prompt caching (when the model supports it) puts breakpoints on the system prompt and on
/// the last block of the last two user messages, so each round reuses the previous round's
/// cached prefix. With a reasoning budget, thinking is enabled and temperature left to the
/// API; with tools and no thinking, the model must call a tool (`tool_choice: any`), as the
/// reference loop requires a tool each round.
pub fn build_anthropic(request: &ModelRequest) -> HttpRequest {
    let settings = &request.model;
    let cache = settings.prompt_cache;
    let last_users: Vec<usize> = request
        .messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User)
        .map(|(i, _)| i)
        .rev()
        .take(2)
        .collect();
    let messages: Vec<Json> = request
        .messages
        .iter()
        .enumerate()
        .map(|(i, message)| message_json(message.role, &message.content, cache && last_users.contains(&i)))
        .collect();

    let mut body = Json::object()
        .with("model", &settings.id)
        .with("max_tokens", settings.max_tokens())
        .with("messages", messages)
        .with("stream", true);
    if !request.system.is_empty() {
        let mut system = Json::object().with("type", "text").with("text", &request.system);
        if cache {
            system.set("cache_control", cache_control());
        }
        body.set("system", vec![system]);
    }
    match settings.reasoning_budget() {
        Some(budget) => body.set("thinking", Json::object().with("type", "enabled").with("budget_tokens", budget)),
        None => body.set("temperature", settings.temperature.unwrap_or(0.0)),
    }
    if !request.tools.is_empty() {
        body.set("tools", declarations(&request.tools, "input_schema"));
        let choice = if settings.reasoning_budget().is_some() { "auto" } else { "any" };
        body.set("tool_choice", Json::object().with("type", choice));
    }

    let mut headers = Headers::new();
    headers.insert("anthropic-version", "2023-06-01");
    if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.insert("x-api-key", key);
    }
    if settings.browser {
        headers.insert("anthropic-dangerous-direct-browser-access", "true");
    }
    let url = join_url(settings.base_url.as_deref(), "https://api.anthropic.com", "/v1/messages");
    HttpRequest::post(url, headers, &body, &settings.headers)
}

fn message_json(role: Role, content: &Content, breakpoint: bool) -> Json {
    let mut blocks: Vec<Json> = content.blocks().iter().filter_map(block_json).collect();
    if breakpoint {
        if let Some(last) = blocks.last_mut() {
            last.set("cache_control", cache_control());
        }
    }
    let role = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    Json::object().with("role", role).with("content", blocks)
}

fn block_json(block: &ContentBlock) -> Option<Json> {
    let block_of = |kind: &str| Json::object().with("type", kind);
    Some(match block {
        // Unsigned reasoning cannot be sent back; the API would reject it. Another format's
        // reasoning items and output items are not Anthropic's.
        ContentBlock::Thinking { signature: None, .. }
        | ContentBlock::Thinking { encrypted_content: Some(_), .. }
        | ContentBlock::Item { .. } => return None,
        ContentBlock::Thinking { thinking, signature: Some(signature), .. } => {
            block_of("thinking").with("thinking", thinking).with("signature", signature)
        }
        // Only Anthropic's own members: another format's signature or phase is not sent.
        ContentBlock::Text { text, .. } => block_of("text").with("text", text),
        ContentBlock::ToolUse { id, name, input, .. } => {
            block_of("tool_use").with("id", id).with("name", name).with("input", input.clone())
        }
        ContentBlock::ToolResult { tool_use_id, content, is_error } => {
            let inner: Vec<Json> = content.blocks().iter().filter_map(block_json).collect();
            let result =
                Json::object().with("type", "tool_result").with("tool_use_id", tool_use_id).with("content", inner);
            if *is_error {
                result.with("is_error", true)
            } else {
                result
            }
        }
        other => other.to_json(),
    })
}
