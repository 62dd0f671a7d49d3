//! The Anthropic Messages request.

use super::{declarations, join_url, Headers, HttpRequest, KeepThinking, ModelRequest, NativeContext};
use crate::core::conversation::{Content, ContentBlock, Role};
use crate::core::json::Json;
use crate::core::stream::Format;

fn cache_control() -> Json {
    Json::object().with("type", "ephemeral")
}

/// Builds a streaming Messages request.
///
/// Prompt caching (when the model supports it) puts breakpoints on the system prompt and on
/// the last block of the last two user messages, so each round reuses the previous round's
/// cached prefix. With a reasoning budget, thinking is enabled and temperature left to the
/// API; with tools and no thinking, the model must call a tool (`tool_choice: any`), as the
/// reference loop requires a tool each round. Native context management, when asked for,
/// goes as `context_management.edits` with its betas joined to the host's `anthropic-beta`;
/// a compaction block goes back as received, other formats' are left out.
pub fn build_anthropic(request: &ModelRequest) -> HttpRequest {
    let settings = &request.model;
    let cache = settings.prompt_cache;
    // NOTE: the cache breakpoints go on the last two user messages.
    let mut breakpoints = [usize::MAX; 2];
    let mut found = 0;
    for (i, message) in request.messages.iter().enumerate().rev() {
        if found < 2 && message.role == Role::User {
            if let Some(slot) = breakpoints.get_mut(found) {
                *slot = i;
            }
            found += 1;
        }
    }
    let mut messages = Vec::with_capacity(request.messages.len());
    for (i, message) in request.messages.iter().enumerate() {
        if let Some(json) = message_json(message.role, &message.content, cache && breakpoints.contains(&i)) {
            messages.push(json);
        }
    }

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
    let mut betas = Vec::new();
    if let Some(edits) =
        request.context.as_ref().and_then(|c| edits(c, settings.reasoning_budget().is_some(), &mut betas))
    {
        body.set("context_management", Json::object().with("edits", edits));
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
    if betas.is_empty() {
        return HttpRequest::post(url, headers, &body, &settings.headers);
    }
    // NOTE: the host's own betas stay, ours joined to them.
    let mut extra = settings.headers.clone();
    for beta in betas {
        extra.join("anthropic-beta", beta);
    }
    HttpRequest::post(url, headers, &body, &extra)
}

/// The `context_management.edits` `context` asks for, in the order the API requires
/// (clear thinking, clear tool uses, compact), and the betas they need; none when it asks
/// nothing. Thinking is cleared only when `thinking` is on (the API refuses the edit
/// otherwise).
fn edits(context: &NativeContext, thinking: bool, betas: &mut Vec<&'static str>) -> Option<Vec<Json>> {
    let tokens = |value: u64| Json::object().with("type", "input_tokens").with("value", value);
    let mut edits = Vec::new();
    if let Some(server) = &context.edits {
        if thinking {
            let keep = match server.keep_thinking_turns {
                KeepThinking::Turns(n) => Json::object().with("type", "thinking_turns").with("value", n),
                KeepThinking::All => Json::from("all"),
            };
            edits.push(Json::object().with("type", "clear_thinking_20251015").with("keep", keep));
        }
        let mut clear = Json::object().with("type", "clear_tool_uses_20250919");
        if let Some(limit) = context.compact_threshold {
            clear.set("trigger", tokens(limit));
        }
        clear.set("keep", Json::object().with("type", "tool_uses").with("value", server.keep_tool_uses));
        if server.clear_at_least > 0 {
            clear.set("clear_at_least", tokens(server.clear_at_least));
        }
        if server.clear_tool_inputs {
            clear.set("clear_tool_inputs", true);
        }
        if !server.exclude_tools.is_empty() {
            clear.set("exclude_tools", server.exclude_tools.iter().map(Json::from).collect::<Vec<_>>());
        }
        edits.push(clear);
        betas.push("context-management-2025-06-27");
    }
    if let Some(limit) = context.compact_threshold {
        let mut compact = Json::object().with("type", "compact_20260112").with("trigger", tokens(limit));
        // NOTE: false is the API's default, left out as the recorded requests do.
        if context.pause_after_compaction {
            compact.set("pause_after_compaction", true);
        }
        if let Some(instructions) = context.instructions.as_ref().filter(|i| !i.is_empty()) {
            compact.set("instructions", instructions);
        }
        edits.push(compact);
        betas.push("compact-2026-01-12");
    }
    (!edits.is_empty()).then_some(edits)
}

/// The blocks of `content` that are Anthropic's, as JSON.
fn blocks_json(content: &Content) -> Vec<Json> {
    let mut blocks = Vec::new();
    for block in content.blocks() {
        if let Some(json) = block_json(&block) {
            blocks.push(json);
        }
    }
    blocks
}

/// A message; none when nothing in it is Anthropic's (the API refuses empty content).
fn message_json(role: Role, content: &Content, breakpoint: bool) -> Option<Json> {
    let mut blocks = blocks_json(content);
    if blocks.is_empty() {
        return None;
    }
    if breakpoint {
        if let Some(last) = blocks.last_mut() {
            last.set("cache_control", cache_control());
        }
    }
    let role = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    Some(Json::object().with("role", role).with("content", blocks))
}

fn block_json(block: &ContentBlock) -> Option<Json> {
    let block_of = |kind: &str| Json::object().with("type", kind);
    Some(match block {
        // Unsigned reasoning cannot be sent back; the API would reject it. Another format's
        // reasoning items and output items are not Anthropic's.
        ContentBlock::Thinking { signature: None, .. }
        | ContentBlock::Thinking { encrypted_content: Some(_), .. }
        | ContentBlock::Item { .. } => return None,
        // Replayed as received: a failed compaction's null content too (a server no-op).
        ContentBlock::Compaction { provider: Format::Anthropic, content, encrypted_content, .. } => {
            let block = block_of("compaction").with("content", content.as_ref().filter(|c| !c.is_empty()));
            match encrypted_content {
                Some(encrypted) => block.with("encrypted_content", encrypted),
                None => block,
            }
        }
        ContentBlock::Compaction { .. } => return None,
        ContentBlock::Thinking { thinking, signature: Some(signature), .. } => {
            block_of("thinking").with("thinking", thinking).with("signature", signature)
        }
        // Only Anthropic's own members: another format's signature or phase is not sent.
        ContentBlock::Text { text, .. } => block_of("text").with("text", text),
        ContentBlock::ToolUse { id, name, input, .. } => {
            block_of("tool_use").with("id", id).with("name", name).with("input", input.clone())
        }
        ContentBlock::ToolResult { tool_use_id, content, is_error } => {
            let inner = blocks_json(content);
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
