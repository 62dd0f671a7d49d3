//! The OpenAI Responses request (`POST /v1/responses`).

use super::openai::{image_url, is_reasoning_model, text_of};
use super::{declarations, join_url, Headers, HttpRequest, ModelRequest};
use crate::core::conversation::{Content, ContentBlock, Message, Role};
use crate::core::json::Json;
use crate::core::stream::Format;

/// Builds a streaming Responses request.
///
/// `store: false` unless the settings ask for `store: true`: a Worker or a page keeps no
/// server state, so nothing refers to items by their ids and every assistant turn is sent
/// back whole. With reasoning asked for (a reasoning effort, or a reasoning model's id) the
/// request includes `reasoning.encrypted_content`, which is how reasoning survives between
/// rounds without the server.
///
/// History conversion, in each assistant turn's order: a reasoning item only with its
/// encrypted content and only with the item that followed it; text as an assistant message
/// (with its `phase`); native calls as `function_call` items by `call_id`; opaque items of
/// this format whole; a compaction item of this format whole and with its `id`, the one item
/// that keeps it (no other server `id` is sent with `store: false`). Tool results become
/// `function_call_output` items right after the turn that made the calls (the history the
/// loop sends pairs every call with one result). A compaction threshold asked for goes as
/// `context_management`.
pub fn build_responses(request: &ModelRequest) -> HttpRequest {
    let settings = &request.model;
    let store = settings.store.unwrap_or(false);
    let reasoning = settings.reasoning_effort.is_some() || is_reasoning_model(&settings.id);
    let mut input = Vec::new();
    for message in &request.messages {
        push_message(message, store, &mut input);
    }

    let mut body = Json::object().with("model", &settings.id);
    if !request.system.is_empty() {
        body.set("instructions", &request.system);
    }
    body.set("input", input);
    if let Some(limit) = request.context.as_ref().and_then(|c| c.compact_threshold) {
        let compaction = Json::object().with("type", "compaction").with("compact_threshold", limit);
        body.set("context_management", vec![compaction]);
    }
    body.set("stream", true);
    body.set("store", store);
    body.set("max_output_tokens", settings.max_tokens());
    if reasoning {
        let mut config = Json::object().with("summary", "auto");
        if let Some(effort) = &settings.reasoning_effort {
            config.set("effort", effort);
        }
        body.set("reasoning", config);
        if !store {
            body.set("include", vec![Json::from("reasoning.encrypted_content")]);
        }
    } else {
        body.set("temperature", settings.temperature.unwrap_or(0.0));
    }
    if !request.tools.is_empty() {
        let mut tools = declarations(&request.tools, "parameters");
        for tool in &mut tools {
            tool.set("type", "function");
            tool.set("strict", false);
        }
        body.set("tools", tools);
        body.set("tool_choice", "auto");
        body.set("parallel_tool_calls", false);
    }

    let mut headers = Headers::new();
    if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.insert("authorization", format!("Bearer {key}"));
    }
    let url = join_url(settings.base_url.as_deref(), "https://api.openai.com/v1", "/responses");
    HttpRequest::post(url, headers, &body, &settings.headers)
}

fn push_message(message: &Message, store: bool, out: &mut Vec<Json>) {
    let blocks = match &message.content {
        Content::Text(text) => {
            let role = if message.role == Role::User { "user" } else { "assistant" };
            out.push(Json::object().with("role", role).with("content", text));
            return;
        }
        Content::Blocks(blocks) => blocks,
    };
    match message.role {
        Role::Assistant => push_assistant(blocks, store, out),
        Role::User => {
            for block in blocks {
                if let ContentBlock::ToolResult { tool_use_id, content, .. } = block {
                    out.push(
                        Json::object()
                            .with("type", "function_call_output")
                            .with("call_id", tool_use_id)
                            .with("output", text_of(content)),
                    );
                }
            }
            let mut parts = Vec::new();
            for block in blocks {
                match block {
                    ContentBlock::Text { text, .. } => {
                        parts.push(Json::object().with("type", "input_text").with("text", text));
                    }
                    ContentBlock::Image { source } => {
                        parts.push(Json::object().with("type", "input_image").with("image_url", image_url(source)));
                    }
                    _ => {}
                }
            }
            if !parts.is_empty() {
                out.push(Json::object().with("role", "user").with("content", parts));
            }
        }
    }
}

/// The items of one assistant turn, in order.
fn push_assistant(blocks: &[ContentBlock], store: bool, out: &mut Vec<Json>) {
    let mut items = Vec::with_capacity(blocks.len());
    for block in blocks {
        items.extend(item_of(block, store));
    }
    // NOTE: a reasoning item must travel with the item that followed it; those that ended
    // their turn (a reply cut after its reasoning) have none, and are left out.
    let is_reasoning = |item: &Json| item.get("type").and_then(Json::as_str) == Some("reasoning");
    let end = items.iter().rposition(|item| !is_reasoning(item)).map_or(0, |last| last + 1);
    out.extend(items.into_iter().take(end));
}

fn item_of(block: &ContentBlock, store: bool) -> Option<Json> {
    Some(match block {
        ContentBlock::Thinking { encrypted_content: Some(encrypted), summary, thinking, .. } => {
            let mut parts = Vec::new();
            let mut part = |text: &String| parts.push(Json::object().with("type", "summary_text").with("text", text));
            match summary {
                Some(texts) => texts.iter().for_each(&mut part),
                None if thinking.is_empty() => {}
                None => part(thinking),
            }
            Json::object().with("type", "reasoning").with("summary", parts).with("encrypted_content", encrypted)
        }
        ContentBlock::Text { text, phase, .. } => {
            let part = Json::object().with("type", "output_text").with("text", text);
            let mut message =
                Json::object().with("type", "message").with("role", "assistant").with("content", vec![part]);
            if let Some(phase) = phase {
                message.set("phase", phase);
            }
            message
        }
        ContentBlock::ToolUse { id, name, input, .. } => Json::object()
            .with("type", "function_call")
            .with("call_id", id)
            .with("name", name)
            .with("arguments", input.to_string()),
        // NOTE: sent with its id whatever `store` says, as both recorded follow-ups do; one
        // without encrypted content has nothing to send back and is left out.
        ContentBlock::Compaction {
            provider: Format::OpenAiResponses, id, encrypted_content: Some(encrypted), ..
        } => {
            let mut item = Json::object().with("type", "compaction");
            if let Some(id) = id {
                item.set("id", id);
            }
            item.with("encrypted_content", encrypted)
        }
        ContentBlock::Item { format: Format::OpenAiResponses, item } => {
            let mut item = item.clone();
            if !store {
                if let Json::Object(members) = &mut item {
                    members.retain(|(key, _)| key != "id");
                }
            }
            item
        }
        _ => return None,
    })
}
