//! Anthropic Messages streaming events to chunks.
//!
//! Event by event: `message_start` (usage), `content_block_start/delta/stop` for text,
//! thinking (with signature deltas), redacted thinking and tool use (streamed input JSON),
//! `message_delta` (stop reason, usage), `message_stop` (the terminal event), `ping`, and
//! `error`. Usage in `message_delta` is cumulative; the decoder emits only what is new, so
//! the usage chunks of a reply add up to its true totals. With context compaction the usage
//! lists `iterations`: the billed totals are the sums over the steps on the requested model
//! (compaction and message, not an advisor on another model).

use serde::Deserialize;

use super::chunk::{Chunk, Usage};
use super::error::{ErrorBody, StreamError};
use super::json::parse_data;
use super::sse::SseEvent;

/// State of one Anthropic stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct AnthropicDecoder {
    /// The tool-use block being streamed: (index, id, name).
    tool: Option<(u64, String, String)>,
    reported: Reported,
    stopped: bool,
}

/// Usage counts already emitted, to turn cumulative counts into increments.
#[derive(Clone, Copy, Debug, Default)]
struct Reported {
    input: u64,
    output: u64,
    cache_write: u64,
    cache_read: u64,
}

#[derive(Deserialize)]
struct TypeOnly<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
}

#[derive(Deserialize)]
struct MessageStart {
    message: StartMessage,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    /// With context compaction: the usage of each step of the request.
    iterations: Option<Vec<WireIteration>>,
}

/// One step of a compacted request: `compaction` and `message` run on the requested model
/// and are billed as its usage; an `advisor` step runs on another model.
#[derive(Deserialize)]
struct WireIteration {
    #[serde(rename = "type")]
    kind: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    /// The billed totals: the sums over the steps on the requested model when the usage has
    /// steps, else the top-level counts.
    fn billed(self) -> Self {
        let Some(steps) = self.iterations.as_ref().filter(|steps| !steps.is_empty()) else { return self };
        let own: Vec<&WireIteration> =
            steps.iter().filter(|s| matches!(s.kind.as_deref(), Some("compaction" | "message"))).collect();
        let sum = |field: fn(&WireIteration) -> Option<u64>| {
            let values: Vec<u64> = own.iter().filter_map(|s| field(s)).collect();
            (!values.is_empty()).then(|| values.iter().fold(0u64, |a, b| a.saturating_add(*b)))
        };
        Self {
            input_tokens: sum(|s| s.input_tokens),
            output_tokens: sum(|s| s.output_tokens),
            cache_creation_input_tokens: sum(|s| s.cache_creation_input_tokens),
            cache_read_input_tokens: sum(|s| s.cache_read_input_tokens),
            iterations: None,
        }
    }
}

#[derive(Deserialize)]
struct BlockStart {
    index: u64,
    content_block: ContentBlock,
}

#[derive(Deserialize)]
struct ContentBlock {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
    data: Option<String>,
    id: Option<String>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct BlockDelta {
    index: u64,
    delta: Delta,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
    partial_json: Option<String>,
}

#[derive(Deserialize)]
struct BlockStop {
    index: u64,
}

#[derive(Deserialize)]
struct MessageDelta {
    #[serde(default)]
    delta: Option<MessageDeltaBody>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct MessageDeltaBody {
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct ErrorEvent {
    error: serde_json::Value,
}

impl AnthropicDecoder {
    pub(crate) fn on_event(&mut self, event: SseEvent<'_>, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let data = event.data;
        // Proxies sometimes drop `event:` lines; the JSON's own `type` says the same.
        let kind = if event.event.is_empty() { parse_data::<TypeOnly<'_>>(data)?.kind } else { event.event };
        match kind {
            "message_start" => {
                let start: MessageStart = parse_data(data)?;
                self.usage(start.message.usage.unwrap_or_default(), out);
            }
            "content_block_start" => {
                let start: BlockStart = parse_data(data)?;
                self.block_start(start, out);
            }
            "content_block_delta" => {
                let delta: BlockDelta = parse_data(data)?;
                self.block_delta(delta, out);
            }
            "content_block_stop" => {
                let stop: BlockStop = parse_data(data)?;
                if self.tool.as_ref().is_some_and(|(index, ..)| *index == stop.index) {
                    self.tool = None;
                }
            }
            "message_delta" => {
                let delta: MessageDelta = parse_data(data)?;
                if let Some(usage) = delta.usage {
                    self.usage(usage, out);
                }
                if let Some(reason) = delta.delta.and_then(|d| d.stop_reason) {
                    out.push(Chunk::Stop { reason });
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let event: ErrorEvent = parse_data(data)?;
                let ErrorBody { kind, message } = ErrorBody::from_value(event.error);
                return Err(StreamError::Provider {
                    kind: kind.unwrap_or_else(|| "error".into()),
                    message: message.unwrap_or_default(),
                });
            }
            _ => {} // ping, and events added to the API later
        }
        Ok(())
    }

    pub(crate) fn finish(&mut self) -> Result<(), StreamError> {
        if self.stopped {
            Ok(())
        } else {
            Err(StreamError::Incomplete { expected: "message_stop" })
        }
    }

    fn block_start(&mut self, start: BlockStart, out: &mut Vec<Chunk>) {
        let block = start.content_block;
        match block.kind.as_str() {
            "text" => {
                // NOTE: as the reference does, a text block after another block starts on a
                // new line, so the reply's text reads the same once concatenated.
                if start.index > 0 {
                    out.push(Chunk::text("\n"));
                }
                if let Some(text) = block.text.filter(|t| !t.is_empty()) {
                    out.push(Chunk::Text { text });
                }
            }
            "thinking" => {
                let reasoning = block.thinking.unwrap_or_default();
                let signature = block.signature.filter(|s| !s.is_empty());
                if !reasoning.is_empty() || signature.is_some() {
                    out.push(Chunk::Reasoning { reasoning, signature, redacted_data: None });
                }
            }
            "redacted_thinking" => out.push(Chunk::Reasoning {
                reasoning: "[Redacted thinking block]".into(),
                signature: None,
                redacted_data: block.data,
            }),
            // NOTE: unlike the reference, the call is announced as soon as it starts (name
            // and id, no arguments yet), so a UI can show it before its input streams.
            // Server tools (`server_tool_use`) run at the provider and are not announced.
            "tool_use" => {
                let (id, name) = (block.id.unwrap_or_default(), block.name.unwrap_or_default());
                out.push(Chunk::tool_call(&id, Some(&name), None));
                self.tool = Some((start.index, id, name));
            }
            _ => {}
        }
    }

    fn block_delta(&mut self, delta: BlockDelta, out: &mut Vec<Chunk>) {
        let body = delta.delta;
        match body.kind.as_str() {
            "text_delta" => {
                if let Some(text) = body.text.filter(|t| !t.is_empty()) {
                    out.push(Chunk::Text { text });
                }
            }
            "thinking_delta" => {
                if let Some(thinking) = body.thinking.filter(|t| !t.is_empty()) {
                    out.push(Chunk::reasoning(thinking));
                }
            }
            "signature_delta" => {
                if let Some(signature) = body.signature.filter(|s| !s.is_empty()) {
                    out.push(Chunk::Reasoning {
                        reasoning: String::new(),
                        signature: Some(signature),
                        redacted_data: None,
                    });
                }
            }
            "input_json_delta" => {
                let json = body.partial_json.filter(|j| !j.is_empty());
                if let (Some((index, id, name)), Some(json)) = (&self.tool, json) {
                    if *index == delta.index {
                        out.push(Chunk::tool_call(id, Some(name), Some(&json)));
                    }
                }
            }
            _ => {}
        }
    }

    /// Emits the part of cumulative counts not reported yet.
    fn usage(&mut self, usage: WireUsage, out: &mut Vec<Chunk>) {
        let usage = usage.billed();
        let r = &mut self.reported;
        let step = |total: Option<u64>, reported: &mut u64| {
            let total = total.unwrap_or(*reported).max(*reported);
            let new = total - *reported;
            *reported = total;
            new
        };
        let input = step(usage.input_tokens, &mut r.input);
        let output = step(usage.output_tokens, &mut r.output);
        let cache_write = step(usage.cache_creation_input_tokens, &mut r.cache_write);
        let cache_read = step(usage.cache_read_input_tokens, &mut r.cache_read);
        let cached = |count: u64, given: Option<u64>| given.map(|_| count);
        out.push(Chunk::Usage(Usage {
            input_tokens: input,
            output_tokens: output,
            cache_write_tokens: cached(cache_write, usage.cache_creation_input_tokens),
            cache_read_tokens: cached(cache_read, usage.cache_read_input_tokens),
            total_cost: None,
        }));
    }
}
