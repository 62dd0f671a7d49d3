//! OpenAI Chat Completions streaming (and compatible servers: OpenRouter, DeepSeek,
//! llama.cpp, vLLM…) to chunks.
//!
//! Each `data:` line is a `chat.completion.chunk`: `delta.content` is text,
//! `delta.reasoning_content` / `delta.reasoning` is reasoning, `delta.tool_calls` are pieces
//! of calls keyed by `index`, `usage` arrives in the last chunk, `finish_reason` says why
//! the model stopped, and `data: [DONE]` ends the stream. An `error` object inside the
//! stream is the provider's error. Argument pieces that arrive before the call's id and name
//! are held back, not dropped. Variants: Mistral's `content` may be an array of text and
//! thinking parts; Groq's usage may come only in `x_groq.usage`; reasoning may come only as
//! `reasoning_details[].text`; a `refusal` is shown as text and the stop says `refusal`; a
//! repeated `finish_reason` gives one stop chunk.

use serde::Deserialize;

use super::chunk::{Chunk, Usage};
use super::error::{ErrorBody, StreamError};
use super::json::parse_data;
use super::sse::SseEvent;

/// State of one OpenAI-compatible stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpenAiDecoder {
    calls: Vec<CallSlot>,
    reported: (u64, u64, u64),
    finished: bool,
    done: bool,
    refused: bool,
}

#[derive(Clone, Debug, Default)]
struct CallSlot {
    index: u64,
    id: Option<String>,
    name: Option<String>,
    announced: bool,
    held_arguments: String,
}

#[derive(Deserialize)]
struct ChatChunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
    error: Option<serde_json::Value>,
    /// Groq's streams before late 2025 put usage only here.
    x_groq: Option<GroqExtra>,
}

#[derive(Deserialize)]
struct GroqExtra {
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    index: Option<u64>,
    delta: Option<WireDelta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireDelta {
    content: Option<WireContent>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    reasoning_details: Option<Vec<WireReasoningDetail>>,
    refusal: Option<String>,
    tool_calls: Option<Vec<WireToolCall>>,
}

/// `delta.content`: a string, or (Mistral) an array of parts.
enum WireContent {
    Text(String),
    Parts(Vec<WirePart>),
}

/// A Mistral content part: `{type: "text", text}` or `{type: "thinking", thinking: [...]}`.
#[derive(Deserialize)]
struct WirePart {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
    thinking: Option<WireThinking>,
}

/// A thinking part's `thinking`: a string or an array of text parts.
type WireThinking = WireContent;

// NOTE: read by hand (a string or an array) rather than with `#[serde(untagged)]`, which
// buffers every value first and costs far more code in the wasm.
impl<'de> Deserialize<'de> for WireContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> serde::de::Visitor<'de> for Either {
            type Value = WireContent;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of content parts")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<WireContent, E> {
                Ok(WireContent::Text(text.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<WireContent, E> {
                Ok(WireContent::Text(text))
            }

            fn visit_unit<E: serde::de::Error>(self) -> Result<WireContent, E> {
                Ok(WireContent::Text(String::new()))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<WireContent, A::Error> {
                let mut parts = Vec::new();
                while let Some(part) = seq.next_element()? {
                    parts.push(part);
                }
                Ok(WireContent::Parts(parts))
            }
        }
        deserializer.deserialize_any(Either)
    }
}

#[derive(Deserialize)]
struct WireReasoningDetail {
    text: Option<String>,
}

#[derive(Deserialize)]
struct WireToolCall {
    index: Option<u64>,
    id: Option<String>,
    function: Option<WireFunction>,
}

#[derive(Deserialize)]
struct WireFunction {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's name for cached input.
    prompt_cache_hit_tokens: Option<u64>,
    /// OpenRouter's reported cost, in US dollars.
    cost: Option<f64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

impl OpenAiDecoder {
    pub(crate) fn on_event(&mut self, event: SseEvent<'_>, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if self.done || data.is_empty() {
            return Ok(());
        }
        let chunk: ChatChunk = parse_data(data)?;
        if let Some(error) = chunk.error {
            let ErrorBody { kind, message } = ErrorBody::from_value(error);
            return Err(StreamError::Provider {
                kind: kind.unwrap_or_else(|| "error".into()),
                message: message.unwrap_or_default(),
            });
        }
        for choice in chunk.choices.into_iter().filter(|c| c.index.unwrap_or(0) == 0) {
            if let Some(delta) = choice.delta {
                self.delta(delta, out);
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                if !self.finished {
                    let reason = if self.refused { "refusal".to_owned() } else { reason };
                    out.push(Chunk::Stop { reason });
                }
                self.finished = true;
            }
        }
        if let Some(usage) = chunk.usage.or_else(|| chunk.x_groq.and_then(|x| x.usage)) {
            self.usage(usage, out);
        }
        Ok(())
    }

    pub(crate) fn finish(&mut self) -> Result<(), StreamError> {
        if self.done || self.finished {
            Ok(())
        } else {
            Err(StreamError::Incomplete { expected: "[DONE]" })
        }
    }

    fn delta(&mut self, delta: WireDelta, out: &mut Vec<Chunk>) {
        let details = || {
            let texts: Vec<String> = delta.reasoning_details.iter().flatten().filter_map(|d| d.text.clone()).collect();
            (!texts.is_empty()).then(|| texts.concat())
        };
        // NOTE: providers that send both `reasoning` and `reasoning_details` repeat the same
        // text; the details count only when nothing else carries the reasoning.
        let reasoning = delta.reasoning_content.clone().or_else(|| delta.reasoning.clone()).or_else(details);
        if let Some(reasoning) = reasoning.filter(|r| !r.is_empty()) {
            out.push(Chunk::reasoning(reasoning));
        }
        match delta.content {
            Some(WireContent::Text(text)) if !text.is_empty() => out.push(Chunk::Text { text }),
            Some(WireContent::Parts(parts)) => push_parts(parts, out),
            _ => {}
        }
        if let Some(refusal) = delta.refusal.filter(|r| !r.is_empty()) {
            self.refused = true;
            out.push(Chunk::Text { text: refusal });
        }
        for (position, call) in delta.tool_calls.unwrap_or_default().into_iter().enumerate() {
            self.tool_call(call, position as u64, out);
        }
    }

    fn tool_call(&mut self, call: WireToolCall, position: u64, out: &mut Vec<Chunk>) {
        let index = call.index.unwrap_or(position);
        let at = match self.calls.iter().position(|slot| slot.index == index) {
            Some(at) => at,
            None => {
                self.calls.push(CallSlot { index, ..CallSlot::default() });
                self.calls.len() - 1
            }
        };
        let Some(slot) = self.calls.get_mut(at) else { return };
        let (name, arguments) = call.function.map_or((None, None), |f| (f.name, f.arguments));
        if let Some(id) = call.id.filter(|id| !id.is_empty()) {
            slot.id.get_or_insert(id);
        }
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            slot.name.get_or_insert(name);
            // Some local servers send no id at all: give the call a stable one.
            slot.id.get_or_insert_with(|| format!("call_{index}"));
        }
        let arguments = arguments.unwrap_or_default();
        match (&slot.id, &slot.name) {
            (Some(id), Some(name)) if !slot.announced => {
                slot.held_arguments.push_str(&arguments);
                let held = std::mem::take(&mut slot.held_arguments);
                out.push(Chunk::tool_call(id, Some(name), (!held.is_empty()).then_some(held.as_str())));
                slot.announced = true;
            }
            (Some(id), Some(name)) => {
                if !arguments.is_empty() {
                    out.push(Chunk::tool_call(id, Some(name), Some(&arguments)));
                }
            }
            _ => slot.held_arguments.push_str(&arguments),
        }
    }

    /// Emits the part of the (cumulative) usage not reported yet.
    fn usage(&mut self, usage: WireUsage, out: &mut Vec<Chunk>) {
        let cached = usage.prompt_tokens_details.and_then(|d| d.cached_tokens).or(usage.prompt_cache_hit_tokens);
        let read = cached.unwrap_or(0);
        let input = usage.prompt_tokens.unwrap_or(0).saturating_sub(read);
        let output = usage.completion_tokens.unwrap_or(0);
        let (r_input, r_output, r_read) = self.reported;
        self.reported = (input.max(r_input), output.max(r_output), read.max(r_read));
        out.push(Chunk::Usage(Usage {
            input_tokens: input.saturating_sub(r_input),
            output_tokens: output.saturating_sub(r_output),
            cache_write_tokens: None,
            cache_read_tokens: cached.map(|_| read.saturating_sub(r_read)),
            total_cost: usage.cost,
        }));
    }
}

/// Mistral's content parts: text parts are text, thinking parts reasoning.
fn push_parts(parts: Vec<WirePart>, out: &mut Vec<Chunk>) {
    for part in parts {
        match part.kind.as_deref() {
            Some("thinking") => {
                let text = match part.thinking {
                    Some(WireThinking::Text(text)) => text,
                    Some(WireThinking::Parts(inner)) => inner.into_iter().filter_map(|p| p.text).collect(),
                    None => String::new(),
                };
                if !text.is_empty() {
                    out.push(Chunk::reasoning(text));
                }
            }
            _ => {
                if let Some(text) = part.text.filter(|t| !t.is_empty()) {
                    out.push(Chunk::Text { text });
                }
            }
        }
    }
}
