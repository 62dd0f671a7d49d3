//! The Google Gemini request (`models/{id}:streamGenerateContent?alt=sse`).

use super::openai::text_of;
use super::{declarations, join_url, Headers, HttpRequest, ModelRequest};
use crate::core::conversation::{Content, ContentBlock, ImageSource, Role};
use crate::core::json::Json;
use crate::core::stream::Format;

/// The prefix of the ids the decoder makes up for calls Gemini sent without one: they are
/// clew's own and never sent.
pub const MADE_UP_CALL_ID: &str = "clew-call-";

/// What Gemini accepts in place of a signature on a call it did not sign (a history from
/// another model or format): its documented value for skipping the check.
const NO_SIGNATURE: &str = "skip_thought_signature_validator";

/// Builds a streaming `streamGenerateContent` request (`alt=sse`).
///
/// Every part goes back where it came from with its `thoughtSignature`: signed thought parts
/// (unsigned reasoning is not sent), text parts (an empty signed part included), and
/// function calls. A model turn with calls but no signature on any (a history from another
/// format) gets Gemini's documented stand-in on its first call, which Gemini 3 requires.
/// Tool results become `functionResponse` parts with the function's name (found from the
/// call) and the call's id when Gemini gave one. Other formats' compactions and items are
/// left out, and a turn left with no parts is not sent. The API key goes in the
/// `x-goog-api-key` header, never in the URL.
pub fn build_gemini(request: &ModelRequest) -> HttpRequest {
    let settings = &request.model;
    // Each call's function name by its id, for the results (a handful per request).
    let mut names: Vec<(&str, &str)> = Vec::new();
    let mut turns: Vec<(&str, Vec<Json>)> = Vec::new();
    for message in &request.messages {
        let (role, parts) = match message.role {
            Role::User => ("user", user_parts(&message.content, &names)),
            Role::Assistant => ("model", model_parts(&message.content, &mut names)),
        };
        if parts.is_empty() {
            continue;
        }
        // NOTE: turns alternate: parts of two messages of one role in a row join one turn.
        match turns.last_mut() {
            Some((last, earlier)) if *last == role => earlier.extend(parts),
            _ => turns.push((role, parts)),
        }
    }
    let mut contents = Vec::with_capacity(turns.len());
    for (role, parts) in turns {
        contents.push(Json::object().with("role", role).with("parts", parts));
    }

    let mut body = Json::object().with("contents", contents);
    if !request.system.is_empty() {
        let part = Json::object().with("text", &request.system);
        body.set("systemInstruction", Json::object().with("parts", vec![part]));
    }
    if !request.tools.is_empty() {
        let declarations = declarations(&request.tools, "parametersJsonSchema");
        body.set("tools", vec![Json::object().with("functionDeclarations", declarations)]);
    }
    let mut config = Json::object().with("maxOutputTokens", settings.max_tokens());
    let thinking = match (settings.reasoning_budget(), &settings.reasoning_effort) {
        (Some(budget), _) => Some(Json::object().with("thinkingBudget", budget)),
        (None, Some(effort)) => Some(Json::object().with("thinkingLevel", effort)),
        (None, None) => None,
    };
    match thinking {
        Some(thinking) => config.set("thinkingConfig", thinking.with("includeThoughts", true)),
        None => config.set("temperature", settings.temperature.unwrap_or(0.0)),
    }
    body.set("generationConfig", config);

    let mut headers = Headers::new();
    if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.insert("x-goog-api-key", key);
    }
    let model = settings.id.strip_prefix("models/").unwrap_or(&settings.id);
    let path = format!("/models/{model}:streamGenerateContent?alt=sse");
    let url = join_url(settings.base_url.as_deref(), "https://generativelanguage.googleapis.com/v1beta", &path);
    HttpRequest::post(url, headers, &body, &settings.headers)
}

fn signed(part: Json, signature: Option<&String>) -> Json {
    match signature {
        Some(signature) => part.with("thoughtSignature", signature),
        None => part,
    }
}

/// The blocks of `content` (a string is handled apart, as one text part).
fn blocks_of(content: &Content) -> &[ContentBlock] {
    match content {
        Content::Text(_) => &[],
        Content::Blocks(blocks) => blocks,
    }
}

/// A model turn's parts, in order; notes each call's function name by its id.
fn model_parts<'a>(content: &'a Content, names: &mut Vec<(&'a str, &'a str)>) -> Vec<Json> {
    let mut parts = Vec::new();
    if let Content::Text(text) = content {
        parts.push(Json::object().with("text", text));
    }
    let mut unsigned_call = None;
    let mut any_signed_call = false;
    for block in blocks_of(content) {
        match block {
            ContentBlock::Thinking { thinking, signature: Some(signature), encrypted_content: None, .. } => {
                let part = Json::object().with("text", thinking).with("thought", true);
                parts.push(signed(part, Some(signature)));
            }
            ContentBlock::Text { text, signature, .. } => {
                parts.push(signed(Json::object().with("text", text), signature.as_ref()));
            }
            ContentBlock::ToolUse { id, name, input, signature } => {
                let mut call = Json::object().with("name", name).with("args", input.clone());
                if !id.starts_with(MADE_UP_CALL_ID) {
                    call.set("id", id);
                }
                names.push((id, name));
                any_signed_call |= signature.is_some();
                if signature.is_none() && unsigned_call.is_none() {
                    unsigned_call = Some(parts.len());
                }
                parts.push(signed(Json::object().with("functionCall", call), signature.as_ref()));
            }
            ContentBlock::Item { format: Format::Gemini, item } => parts.push(item.clone()),
            _ => {}
        }
    }
    if let (false, Some(at)) = (any_signed_call, unsigned_call) {
        if let Some(part) = parts.get_mut(at) {
            part.set("thoughtSignature", NO_SIGNATURE);
        }
    }
    parts
}

/// A user turn's parts: tool results first (as `functionResponse`), then text and images.
fn user_parts(content: &Content, names: &[(&str, &str)]) -> Vec<Json> {
    let blocks = blocks_of(content);
    let mut parts = Vec::new();
    if let Content::Text(text) = content {
        parts.push(Json::object().with("text", text));
    }
    for block in blocks {
        if let ContentBlock::ToolResult { tool_use_id, content, is_error } = block {
            let key = if *is_error { "error" } else { "output" };
            let name = names.iter().rev().find(|(id, _)| *id == tool_use_id).map_or("", |(_, name)| *name);
            let mut response = Json::object().with("name", name);
            if !tool_use_id.starts_with(MADE_UP_CALL_ID) {
                response.set("id", tool_use_id);
            }
            response.set("response", Json::object().with(key, text_of(content)));
            parts.push(Json::object().with("functionResponse", response));
            for block in blocks_of(content) {
                if let ContentBlock::Image { source } = block {
                    parts.push(image_part(source));
                }
            }
        }
    }
    for block in blocks {
        match block {
            ContentBlock::Text { text, .. } => parts.push(Json::object().with("text", text)),
            ContentBlock::Image { source } => parts.push(image_part(source)),
            _ => {}
        }
    }
    parts
}

fn image_part(source: &ImageSource) -> Json {
    match source {
        ImageSource::Base64 { media_type, data } => {
            Json::object().with("inlineData", Json::object().with("mimeType", media_type).with("data", data))
        }
        ImageSource::Url { url } => Json::object().with("fileData", Json::object().with("fileUri", url)),
    }
}
