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

use crate::hash::StrMap;

use super::chunk::{Chunk, Usage};
use super::error::{ErrorBody, StreamError};
use super::json::read_data;
use super::sse::SseEvent;
use crate::json::{Json, JsonError, Reader};

/// State of one OpenAI-compatible stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpenAiDecoder {
    calls: Vec<CallSlot>,
    /// Where each tool-call index (as text: one map type for the whole crate keeps the wasm
    /// small) sits in `calls`, so many calls cost linear time.
    positions: StrMap,
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

/// One `chat.completion.chunk`, as far as the decoder reads it.
#[derive(Default)]
struct ChatChunk {
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
    error: Option<Json>,
    /// Groq's streams before late 2025 put usage only in `x_groq.usage`.
    groq_usage: Option<WireUsage>,
}

#[derive(Default)]
struct Choice {
    index: u64,
    delta: WireDelta,
    finish_reason: Option<String>,
}

#[derive(Default)]
struct WireDelta {
    /// `content` as a string.
    content: Option<String>,
    /// `content` as (Mistral) an array of text and thinking parts, as chunks.
    content_parts: Vec<Chunk>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    /// The texts of `reasoning_details`, joined.
    reasoning_details: Option<String>,
    refusal: Option<String>,
    tool_calls: Vec<WireToolCall>,
}

#[derive(Default)]
struct WireToolCall {
    index: Option<u64>,
    id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Default)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    cached_tokens: Option<u64>,
    /// DeepSeek's name for cached input.
    prompt_cache_hit_tokens: Option<u64>,
    /// OpenRouter's reported cost, in US dollars.
    cost: Option<f64>,
}

fn read_chunk(r: &mut Reader<'_>) -> Result<ChatChunk, JsonError> {
    let mut chunk = ChatChunk::default();
    r.object(|r, key| match &*key {
        "choices" if r.is_array() => r.objects(|r| read_choice(r).map(|choice| chunk.choices.push(choice))),
        "usage" if r.is_object() => read_usage(r).map(|u| chunk.usage = Some(u)),
        "error" => r.value().map(|v| chunk.error = Some(v).filter(|v| !v.is_null())),
        "x_groq" if r.is_object() => r.object(|r, key| match &*key {
            "usage" if r.is_object() => read_usage(r).map(|u| chunk.groq_usage = Some(u)),
            _ => r.skip(),
        }),
        _ => r.skip(),
    })?;
    Ok(chunk)
}

fn read_choice(r: &mut Reader<'_>) -> Result<Choice, JsonError> {
    let mut choice = Choice::default();
    r.object(|r, key| match &*key {
        "index" => r.u64().map(|v| choice.index = v.unwrap_or(0)),
        "delta" if r.is_object() => read_delta(r, &mut choice.delta),
        "finish_reason" => r.string_owned().map(|v| choice.finish_reason = v),
        _ => r.skip(),
    })?;
    Ok(choice)
}

fn read_delta(r: &mut Reader<'_>, delta: &mut WireDelta) -> Result<(), JsonError> {
    r.object(|r, key| match &*key {
        "content" if r.is_array() => read_parts(r, &mut delta.content_parts),
        "content" => r.string_owned().map(|v| delta.content = v),
        "reasoning_content" => r.string_owned().map(|v| delta.reasoning_content = v),
        "reasoning" => r.string_owned().map(|v| delta.reasoning = v),
        "reasoning_details" if r.is_array() => r.objects(|r| {
            r.object(|r, key| match &*key {
                "text" => {
                    if let Some(text) = r.string()? {
                        delta.reasoning_details.get_or_insert_with(String::new).push_str(&text);
                    }
                    Ok(())
                }
                _ => r.skip(),
            })
        }),
        "refusal" => r.string_owned().map(|v| delta.refusal = v),
        "tool_calls" if r.is_array() => r.objects(|r| {
            let mut call = WireToolCall::default();
            r.object(|r, key| match &*key {
                "index" => r.u64().map(|v| call.index = v),
                "id" => r.string_owned().map(|v| call.id = v),
                "function" if r.is_object() => r.object(|r, key| match &*key {
                    "name" => r.string_owned().map(|v| call.name = v),
                    "arguments" => r.string_owned().map(|v| call.arguments = v),
                    _ => r.skip(),
                }),
                _ => r.skip(),
            })?;
            delta.tool_calls.push(call);
            Ok(())
        }),
        _ => r.skip(),
    })
}

/// Mistral's content parts: text parts are text, thinking parts (a string or an array of
/// text parts) reasoning.
fn read_parts(r: &mut Reader<'_>, out: &mut Vec<Chunk>) -> Result<(), JsonError> {
    r.objects(|r| {
        let (mut kind, mut text, mut thinking) = (None, None, String::new());
        r.object(|r, key| match &*key {
            "type" => r.string_owned().map(|v| kind = v),
            "text" => r.string_owned().map(|v| text = v),
            "thinking" if r.is_array() => r.objects(|r| {
                r.object(|r, key| match &*key {
                    "text" => r.string().map(|v| thinking.push_str(v.as_deref().unwrap_or_default())),
                    _ => r.skip(),
                })
            }),
            "thinking" => r.string().map(|v| thinking.push_str(v.as_deref().unwrap_or_default())),
            _ => r.skip(),
        })?;
        if kind.as_deref() == Some("thinking") {
            if !thinking.is_empty() {
                out.push(Chunk::reasoning(thinking));
            }
        } else if let Some(text) = text.filter(|t| !t.is_empty()) {
            out.push(Chunk::Text { text });
        }
        Ok(())
    })
}

fn read_usage(r: &mut Reader<'_>) -> Result<WireUsage, JsonError> {
    let mut usage = WireUsage::default();
    r.object(|r, key| match &*key {
        "prompt_tokens" => r.u64().map(|v| usage.prompt_tokens = v),
        "completion_tokens" => r.u64().map(|v| usage.completion_tokens = v),
        "prompt_tokens_details" if r.is_object() => r.object(|r, key| match &*key {
            "cached_tokens" => r.u64().map(|v| usage.cached_tokens = v),
            _ => r.skip(),
        }),
        "prompt_cache_hit_tokens" => r.u64().map(|v| usage.prompt_cache_hit_tokens = v),
        "cost" => r.number().map(|v| usage.cost = v.map(|n| n.as_f64())),
        _ => r.skip(),
    })?;
    Ok(usage)
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
        let chunk = read_data(data, read_chunk)?;
        if let Some(error) = chunk.error {
            let ErrorBody { kind, message } = ErrorBody::from_value(error);
            return Err(StreamError::Provider {
                kind: kind.unwrap_or_else(|| "error".into()),
                message: message.unwrap_or_default(),
            });
        }
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            self.delta(choice.delta, out);
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                if !self.finished {
                    let reason = if self.refused { "refusal".to_owned() } else { reason };
                    out.push(Chunk::Stop { reason, raw: None });
                }
                self.finished = true;
            }
        }
        if let Some(usage) = chunk.usage.or(chunk.groq_usage) {
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
        // NOTE: providers that send both `reasoning` and `reasoning_details` repeat the same
        // text; the details count only when nothing else carries the reasoning.
        let reasoning = delta.reasoning_content.or(delta.reasoning).or(delta.reasoning_details);
        if let Some(reasoning) = reasoning.filter(|r| !r.is_empty()) {
            out.push(Chunk::reasoning(reasoning));
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            out.push(Chunk::Text { text });
        }
        out.extend(delta.content_parts);
        if let Some(refusal) = delta.refusal.filter(|r| !r.is_empty()) {
            self.refused = true;
            out.push(Chunk::Text { text: refusal });
        }
        for (position, call) in delta.tool_calls.into_iter().enumerate() {
            self.tool_call(call, position as u64, out);
        }
    }

    fn tool_call(&mut self, call: WireToolCall, position: u64, out: &mut Vec<Chunk>) {
        let index = call.index.unwrap_or(position);
        // Most pieces continue the latest call.
        let latest = self.calls.len().checked_sub(1).filter(|&at| self.calls.get(at).is_some_and(|s| s.index == index));
        let at = match latest.or_else(|| self.positions.get(index.to_string().as_bytes())) {
            Some(at) => at,
            None => {
                self.positions.insert(index.to_string().as_bytes(), self.calls.len());
                self.calls.push(CallSlot { index, ..CallSlot::default() });
                self.calls.len() - 1
            }
        };
        let Some(slot) = self.calls.get_mut(at) else { return };
        let (name, arguments) = (call.name, call.arguments);
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
        let cached = usage.cached_tokens.or(usage.prompt_cache_hit_tokens);
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
            reasoning_tokens: None,
            ..Usage::default()
        }));
    }
}
