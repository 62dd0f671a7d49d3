//! The Anthropic Messages request.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{join_url, put, Content, ContentBlock, HttpRequest, ModelRequest, Role};

const CACHE: &str = r#"{"type":"ephemeral"}"#;

fn cache_control() -> Value {
    serde_json::from_str(CACHE).unwrap_or(Value::Null)
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
    let messages: Vec<Value> = request
        .messages
        .iter()
        .enumerate()
        .map(|(i, message)| message_json(message.role, &message.content, cache && last_users.contains(&i)))
        .collect();

    let mut body = json!({
        "model": settings.id,
        "max_tokens": settings.max_tokens(),
        "messages": messages,
        "stream": true,
    });
    if !request.system.is_empty() {
        let mut system = json!({ "type": "text", "text": request.system });
        if cache {
            put(&mut system, "cache_control", cache_control());
        }
        put(&mut body, "system", json!([system]));
    }
    match settings.reasoning_budget() {
        Some(budget) => put(&mut body, "thinking", json!({ "type": "enabled", "budget_tokens": budget })),
        None => put(&mut body, "temperature", json!(settings.temperature.unwrap_or(0.0))),
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.input_schema }))
            .collect();
        put(&mut body, "tools", json!(tools));
        let choice = if settings.reasoning_budget().is_some() { "auto" } else { "any" };
        put(&mut body, "tool_choice", json!({ "type": choice }));
    }

    let mut headers = BTreeMap::new();
    headers.insert("anthropic-version".to_owned(), "2023-06-01".to_owned());
    if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.insert("x-api-key".to_owned(), key.to_owned());
    }
    if settings.browser {
        headers.insert("anthropic-dangerous-direct-browser-access".to_owned(), "true".to_owned());
    }
    let url = join_url(settings.base_url.as_deref(), "https://api.anthropic.com", "/v1/messages");
    HttpRequest::post(url, headers, &body, &settings.headers)
}

fn message_json(role: Role, content: &Content, breakpoint: bool) -> Value {
    let mut blocks: Vec<Value> = content.blocks().iter().filter_map(block_json).collect();
    if breakpoint {
        if let Some(last) = blocks.last_mut() {
            put(last, "cache_control", cache_control());
        }
    }
    json!({ "role": role, "content": blocks })
}

fn block_json(block: &ContentBlock) -> Option<Value> {
    Some(match block {
        // Unsigned reasoning cannot be sent back; the API would reject it.
        ContentBlock::Thinking { signature: None, .. } => return None,
        ContentBlock::ToolResult { tool_use_id, content, is_error } => {
            let inner: Vec<Value> = content.blocks().iter().filter_map(block_json).collect();
            let mut result = json!({ "type": "tool_result", "tool_use_id": tool_use_id, "content": inner });
            if *is_error {
                put(&mut result, "is_error", json!(true));
            }
            result
        }
        other => serde_json::to_value(other).ok()?,
    })
}
