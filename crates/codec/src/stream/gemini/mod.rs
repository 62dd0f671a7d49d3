//! Google Gemini streaming (`streamGenerateContent?alt=sse`, Gemini API and Vertex AI) to
//! chunks.
//!
//! Each `data:` event is a whole `GenerateContentResponse`; only candidate 0 counts. Its
//! parts come in order: text (a `thoughtSignature` on a text part ends that part: a
//! [`Chunk::TextEnd`], even for an empty text, since Gemini wants each signature back where
//! it came), thoughts (reasoning, signed), function calls, and any other part kept whole as
//! an [`Chunk::Item`]. A call without an `id` gets `clew-call-N` (N counts the reply's calls
//! from 0), which the request builder never sends back. A call whose arguments stream in
//! `partialArgs` ([`args`]) opens with its name and `willContinue`, streams its arguments'
//! text, and closes with a `functionCall` that neither names a call nor carries pieces, with
//! one that no longer says `willContinue`, with the next part or call, with the finish
//! reason, or with the end of the body.
//!
//! `finishReason` gives the one stop chunk, in clew's words with the provider's as `raw`
//! (`STOP` is `end_turn`, or `tool_use` after a call, and has no `raw`). `usageMetadata` is
//! cumulative: each event's counts are emitted as what they add to those already emitted.
//! A prompt blocked before any candidate (`promptFeedback.blockReason`) and an `error`
//! object are the provider's errors.

mod args;
mod wire;

use super::chunk::{Chunk, ToolCall, ToolCallFunction, Usage};
use super::error::{ErrorBody, StreamError};
use super::json::read_data;
use super::sse::SseEvent;
use crate::json::Json;

use args::{Closing, StreamedArgs};
use wire::{Part, WireCall, WireUsage};

/// State of one Gemini stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct GeminiDecoder {
    /// The call whose arguments are still streaming.
    open: Option<OpenCall>,
    /// Calls in the reply so far.
    calls: u64,
    stopped: bool,
    reported: Reported,
    /// Text came since the last text end: a signature on an empty part must not end it.
    text_open: bool,
}

/// A call announced, whose arguments are still streaming.
#[derive(Clone, Debug)]
struct OpenCall {
    id: String,
    name: String,
    args: StreamedArgs,
    /// A signature that came on a later piece, for the next chunk of the call.
    signature: Option<String>,
}

/// Usage counts already emitted, to turn cumulative counts into increments.
#[derive(Clone, Copy, Debug, Default)]
struct Reported {
    input: u64,
    output: u64,
    cache_read: u64,
    reasoning: u64,
    /// Whether a usage chunk was emitted yet.
    any: bool,
}

impl GeminiDecoder {
    /// Decodes one event: a whole `GenerateContentResponse`.
    pub(crate) fn on_event(&mut self, event: SseEvent<'_>, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let response = read_data(data, wire::read_response)?;
        if let Some(error) = response.error {
            return Err(provider_error(error));
        }
        if let Some(candidate) = response.candidate {
            for part in candidate.parts {
                self.part(part, out);
            }
            if let Some(reason) = candidate.finish_reason.filter(|r| !r.is_empty()) {
                self.close_call(out);
                if !self.stopped {
                    self.stopped = true;
                    out.push(stop(reason, self.calls > 0));
                }
            }
        }
        if let Some(usage) = response.usage {
            self.usage(&usage, out);
        }
        match response.block_reason {
            Some(reason) if !response.has_candidates => {
                let mut message = format!("the prompt was blocked ({reason})");
                if let Some(detail) = response.block_message.filter(|m| !m.is_empty()) {
                    message.push_str(": ");
                    message.push_str(&detail);
                }
                Err(StreamError::Provider { kind: "prompt_blocked".into(), message })
            }
            _ => Ok(()),
        }
    }

    /// Ends the body: closes a call still streaming, and checks that a finish reason came.
    pub(crate) fn finish(&mut self, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        self.close_call(out);
        if self.stopped {
            Ok(())
        } else {
            Err(StreamError::Incomplete { expected: "a finishReason" })
        }
    }

    /// One part of candidate 0.
    fn part(&mut self, part: Part, out: &mut Vec<Chunk>) {
        let (text, thought, signature) = match part {
            Part::Call { call, signature } => return self.call(call, signature, out),
            Part::Other(item) => {
                self.close_call(out);
                return out.push(Chunk::Item { item });
            }
            Part::Text { text, thought, signature } => (text, thought, signature),
        };
        self.close_call(out);
        if thought {
            if !text.is_empty() || signature.is_some() {
                out.push(Chunk::Reasoning {
                    reasoning: text,
                    signature,
                    redacted_data: None,
                    encrypted_content: None,
                    summary: None,
                });
            }
            return;
        }
        if signature.is_some() && text.is_empty() && self.text_open {
            // NOTE: the signature came on an empty part of its own: the text before it ends
            // unsigned, so that the signed empty part goes back as a part of its own.
            out.push(Chunk::TextEnd { signature: None, phase: None });
        }
        if !text.is_empty() {
            out.push(Chunk::Text { text });
            self.text_open = true;
        }
        if signature.is_some() {
            out.push(Chunk::TextEnd { signature, phase: None });
            self.text_open = false;
        }
    }

    /// A `functionCall` part: a whole call, or the opening or a piece of a streamed one.
    fn call(&mut self, call: WireCall, mut signature: Option<String>, out: &mut Vec<Chunk>) {
        let WireCall { id, name, args, partial_args, will_continue } = call;
        if let Some(name) = name {
            self.close_call(out);
            let id = id.unwrap_or_else(|| format!("clew-call-{}", self.calls));
            self.calls += 1;
            if !will_continue && partial_args.is_empty() {
                let args = args.unwrap_or_else(|| "{}".into());
                return out.push(piece(&id, &name, Some(args), signature, false));
            }
            out.push(piece(&id, &name, None, signature.take(), false));
            let args = StreamedArgs::new(args.as_deref());
            self.open = Some(OpenCall { id, name, args, signature: None });
        }
        // A piece with no call open has nothing to continue: it is dropped.
        let Some(open) = self.open.as_mut() else { return };
        if signature.is_some() {
            open.signature = signature;
        }
        for arg in partial_args {
            if let Some(delta) = open.args.push(&arg.path, arg.value) {
                out.push(piece(&open.id, &open.name, Some(delta), open.signature.take(), false));
            }
        }
        if !will_continue {
            self.close_call(out);
        }
    }

    /// Closes the call still streaming, if one is: its last piece.
    fn close_call(&mut self, out: &mut Vec<Chunk>) {
        let Some(OpenCall { id, name, args, signature }) = self.open.take() else { return };
        match args.close() {
            Closing::Rest(rest) => out.push(piece(&id, &name, Some(rest), signature, false)),
            Closing::Whole(whole) => out.push(piece(&id, &name, Some(whole), signature, true)),
        }
    }

    /// Emits what cumulative counts add to those already emitted (never less than nothing).
    fn usage(&mut self, usage: &WireUsage, out: &mut Vec<Chunk>) {
        if usage.is_empty() {
            return;
        }
        let counted = |count: Option<u64>| count.unwrap_or(0);
        let input =
            counted(usage.prompt).saturating_add(counted(usage.tool_use_prompt)).saturating_sub(counted(usage.cached));
        let output = counted(usage.candidates).saturating_add(counted(usage.thoughts));
        let r = &mut self.reported;
        let step = |total: u64, reported: &mut u64| {
            let new = total.saturating_sub(*reported);
            *reported = total.max(*reported);
            new
        };
        let input = step(input, &mut r.input);
        let output = step(output, &mut r.output);
        let cache_read = step(counted(usage.cached), &mut r.cache_read);
        let reasoning = step(counted(usage.thoughts), &mut r.reasoning);
        if r.any && input == 0 && output == 0 && cache_read == 0 && reasoning == 0 {
            return;
        }
        r.any = true;
        out.push(Chunk::Usage(Usage {
            input_tokens: input,
            output_tokens: output,
            cache_write_tokens: None,
            cache_read_tokens: usage.cached.map(|_| cache_read),
            total_cost: None,
            reasoning_tokens: usage.thoughts.map(|_| reasoning),
        }));
    }
}

/// A chunk of the call `id`.
fn piece(id: &str, name: &str, arguments: Option<String>, signature: Option<String>, whole: bool) -> Chunk {
    Chunk::ToolCalls {
        tool_call: ToolCall {
            call_id: Some(id.to_owned()),
            function: ToolCallFunction { id: Some(id.to_owned()), name: Some(name.to_owned()), arguments },
            signature,
            whole,
        },
    }
}

/// The stop chunk for a `finishReason`.
fn stop(raw: String, called: bool) -> Chunk {
    let reason = match raw.as_str() {
        "STOP" => return Chunk::Stop { reason: if called { "tool_use" } else { "end_turn" }.into(), raw: None },
        "MAX_TOKENS" => "max_tokens".into(),
        "MALFORMED_FUNCTION_CALL" => "malformed_tool_call".into(),
        reason if is_filtered(reason) => "content_filter".into(),
        reason => reason.to_ascii_lowercase(),
    };
    Chunk::Stop { reason, raw: Some(raw) }
}

/// Whether a finish reason says a filter stopped the reply (safety, recitation, block
/// lists, prohibited content, personal data, Model Armor).
fn is_filtered(reason: &str) -> bool {
    matches!(
        reason,
        "SAFETY"
            | "RECITATION"
            | "BLOCKLIST"
            | "PROHIBITED_CONTENT"
            | "SPII"
            | "IMAGE_SAFETY"
            | "IMAGE_PROHIBITED_CONTENT"
            | "IMAGE_RECITATION"
            | "MODEL_ARMOR"
    ) || reason.ends_with("_SAFETY")
        || crate::text::contains(reason, "PROHIBITED")
        || crate::text::contains(reason, "BLOCK")
}

/// The error for an `error` object in the stream: its `status` (`RESOURCE_EXHAUSTED`…) or
/// else its `code` is the kind.
fn provider_error(error: Json) -> StreamError {
    let status = error.get("status").and_then(Json::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let ErrorBody { kind, message } = ErrorBody::from_value(error);
    StreamError::Provider {
        kind: status.or(kind).unwrap_or_else(|| "error".into()),
        message: message.unwrap_or_default(),
    }
}
