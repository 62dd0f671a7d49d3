//! Google Gemini streaming (`streamGenerateContent?alt=sse`, Gemini API and Vertex AI) to
//! chunks.
//!
//! Each `data:` event is a whole `GenerateContentResponse`; only candidate 0 counts. Its
//! parts come in order: text (a `thoughtSignature` on a text part ends that part: a
//! [`Chunk::TextEnd`], even for an empty text, since Gemini wants each signature back where
//! it came), thoughts (reasoning, signed), function calls, and any other part kept whole as
//! an [`Chunk::Item`]. A call without an `id` gets `clew-call-N` (N counts the reply's calls
//! from 0), which the request builder never sends back. A whole call is one chunk. A call
//! whose arguments stream in `partialArgs` ([`args`]) opens with its name and
//! `willContinue` (a chunk without arguments, so that a UI shows the call at once), and its
//! arguments, assembled from the pieces, come whole in its last chunk when it closes: with a
//! `functionCall` that neither names a call nor carries pieces, with one that no longer says
//! `willContinue`, with the next part or call, with the finish reason, or with the end of the
//! body.
//!
//! `finishReason` gives the one stop chunk, in clew's words with the provider's as `raw`
//! (`STOP` is `end_turn`, or `tool_use` after a call, and has no `raw`). `usageMetadata` is
//! cumulative: each event's counts are emitted as what they add to those already emitted,
//! and when one of them is smaller than what was emitted (a missing count is 0) the event's
//! counts are emitted whole (`Usage::whole`), replacing the earlier ones: the provider's last
//! word wins.
//! A prompt blocked before any candidate (`promptFeedback.blockReason`) and an `error`
//! object are the provider's errors.
//!
//! The code is shaped for a small wasm (the codec is built at opt-level 3 for speed, where
//! every inlined copy of a helper costs its size again): one reader closure for every object
//! of an event ([`wire`]), the rare members kept as [`Json`] and looked into with `get`, and
//! the helpers and rare paths kept out of line (`#[inline(never)]`), which measured smaller
//! than letting them be inlined; the path of a text part is left to the compiler (inlined,
//! it decodes about 4% faster for under 100 bytes).

mod args;
mod wire;

use super::chunk::{Chunk, ToolCall, ToolCallFunction, Usage};
use super::error::{ErrorBody, StreamError};
use super::json::read_data;
use super::sse::SseEvent;
use crate::json::Json;

use wire::{Event, Part};

/// State of one Gemini stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct GeminiDecoder {
    /// The call whose last chunk is still to come.
    open: Option<OpenCall>,
    /// Calls in the reply so far.
    calls: u64,
    stopped: bool,
    /// Usage counts the emitted usage chunks add up to (input, output, cache read,
    /// reasoning), to turn cumulative counts into increments.
    reported: [u64; 4],
    /// Whether a usage chunk was emitted yet.
    reported_any: bool,
    /// Text came since the last text end: a signature on an empty part must not end it.
    text_open: bool,
}

/// A call whose last chunk is still to come: a streamed call whose arguments are still
/// arriving, or (for as long as it is being read) a whole one.
#[derive(Clone, Debug)]
struct OpenCall {
    id: String,
    name: String,
    /// The arguments as far as their pieces have come.
    args: Json,
    /// The `thoughtSignature` that came with the call and is not emitted yet: it goes with
    /// its next chunk.
    signature: Option<String>,
}

impl GeminiDecoder {
    /// Decodes one event: a whole `GenerateContentResponse`.
    pub(crate) fn on_event(&mut self, event: SseEvent<'_>, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let mut event = Event::default();
        read_data(data, |r| event.read(r))?;
        let Event { parts, finish, has_candidates, counts, members, .. } = event;
        let response = Json::Object(members);
        if let Some(error) = response.get("error").filter(|error| !error.is_null()) {
            return Err(provider_error(error));
        }
        for part in parts {
            self.part(part, out);
        }
        if let Some(reason) = finish.filter(|r| !r.is_empty()) {
            self.close_call(out);
            if !self.stopped {
                self.stopped = true;
                emit(out, stop(reason, self.calls > 0));
            }
        }
        self.usage(counts, out);
        match response.get("promptFeedback") {
            Some(feedback) if !has_candidates => blocked(feedback),
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

    /// One part of candidate 0. Its kind is decided by its data member whatever the order
    /// of the members: `functionCall`, then `text`, then any other member; a part that
    /// carries only a `thoughtSignature` is an empty text part, an empty part is nothing.
    fn part(&mut self, (text, members): Part, out: &mut Vec<Chunk>) {
        let (mut thought, mut signature, mut call, mut other) = (false, None, None, false);
        for (key, value) in &members {
            match key.as_str() {
                "thought" => thought = matches!(value, Json::Bool(true)),
                "thoughtSignature" => signature = value.as_str().filter(|s| !s.is_empty()),
                "functionCall" => call = Some(value).filter(|call| call.is_object()),
                _ => other = true,
            }
        }
        let signature = signature.map(own);
        if let Some(call) = call {
            return self.call(call, signature, out);
        }
        if text.is_none() && !other && signature.is_none() {
            return;
        }
        self.close_call(out);
        let Some(text) = text.or_else(|| (!other).then(String::new)) else {
            return emit(out, Chunk::Item { item: Json::Object(members) });
        };
        if thought {
            if !text.is_empty() || signature.is_some() {
                emit(
                    out,
                    Chunk::Reasoning {
                        reasoning: text,
                        signature,
                        redacted_data: None,
                        encrypted_content: None,
                        summary: None,
                    },
                );
            }
            return;
        }
        if signature.is_some() && text.is_empty() && self.text_open {
            // NOTE: the signature came on an empty part of its own: the text before it ends
            // unsigned, so that the signed empty part goes back as a part of its own.
            emit(out, Chunk::TextEnd { signature: None, phase: None });
        }
        if !text.is_empty() {
            emit(out, Chunk::Text { text });
            self.text_open = true;
        }
        if signature.is_some() {
            emit(out, Chunk::TextEnd { signature, phase: None });
            self.text_open = false;
        }
    }

    /// A `functionCall` (an object): a whole call (one chunk), or the opening or a piece of a
    /// streamed one.
    #[inline(never)]
    fn call(&mut self, call: &Json, mut signature: Option<String>, out: &mut Vec<Chunk>) {
        let pieces = call.get("partialArgs").and_then(Json::as_array).unwrap_or_default();
        let more = pieces.iter().chain([call]).any(|c| matches!(c.get("willContinue"), Some(Json::Bool(true))));
        let streamed = more || !pieces.is_empty();
        if let Some(name) = text_of(call, "name") {
            self.close_call(out);
            let id = text_of(call, "id").map_or_else(|| format!("clew-call-{}", self.calls), own);
            self.calls += 1;
            // NOTE: streamed arguments start from `args` only when it is an object.
            let args = match call.get("args") {
                Some(args) if !args.is_null() && (!streamed || args.is_object()) => cloned(args),
                _ => Json::object(),
            };
            let open = self.open.insert(OpenCall { id, name: own(name), args, signature: signature.take() });
            if streamed {
                piece(open, None, out);
            }
        }
        // A piece with no call open has nothing to continue: it is dropped.
        let Some(open) = self.open.as_mut() else { return };
        if signature.is_some() {
            open.signature = signature;
        }
        for piece in pieces {
            args::place(&mut open.args, piece);
        }
        if !more {
            self.close_call(out);
        }
    }

    /// Closes the open call, if one is: its last chunk, with its arguments.
    fn close_call(&mut self, out: &mut Vec<Chunk>) {
        if let Some(mut open) = self.open.take() {
            let mut text = String::new();
            open.args.write(&mut text);
            piece(&mut open, Some(text), out);
        }
    }

    /// Emits what the cumulative counts (prompt, candidates, thoughts, cached content,
    /// tool-use prompt) add to those already emitted, or, when one of them went down, the
    /// counts whole.
    fn usage(&mut self, counts: [Option<u64>; 6], out: &mut Vec<Chunk>) {
        let [prompt, candidates, thoughts, cached, tool_use_prompt, _] = counts;
        if prompt.or(candidates).or(thoughts).or(cached).or(tool_use_prompt).is_none() {
            return;
        }
        let n = |count: Option<u64>| count.unwrap_or(0);
        let input = n(prompt).saturating_add(n(tool_use_prompt)).saturating_sub(n(cached));
        let totals = [input, n(candidates).saturating_add(n(thoughts)), n(cached), n(thoughts)];
        let whole = totals.iter().zip(&self.reported).any(|(total, reported)| total < reported);
        // The first usage chunk is emitted even when it is all zeros.
        let mut any = !self.reported_any || whole;
        let mut new = totals;
        if !whole {
            for (count, reported) in new.iter_mut().zip(&self.reported) {
                *count = count.saturating_sub(*reported);
                any |= *count > 0;
            }
        }
        if !any {
            return;
        }
        self.reported = totals;
        self.reported_any = true;
        let [input, output, cache_read, reasoning] = new;
        emit(
            out,
            Chunk::Usage(Usage {
                input_tokens: input,
                output_tokens: output,
                cache_write_tokens: None,
                cache_read_tokens: cached.map(|_| cache_read),
                total_cost: None,
                reasoning_tokens: thoughts.map(|_| reasoning),
                whole,
                ..Usage::default()
            }),
        );
    }
}

/// `value` cloned: one copy of the code for all the decoder's clones.
#[inline(never)]
fn cloned(value: &Json) -> Json {
    value.clone()
}

/// Pushes `chunk`.
fn emit(out: &mut Vec<Chunk>, chunk: Chunk) {
    out.push(chunk);
}

/// `text` owned: one copy of the code for all the decoder's copies.
#[inline(never)]
fn own(text: &str) -> String {
    text.to_owned()
}

/// The string member `key` of `value`, when it is a string that is not empty.
#[inline(never)]
fn text_of<'j>(value: &'j Json, key: &str) -> Option<&'j str> {
    value.get(key).and_then(Json::as_str).filter(|s| !s.is_empty())
}

/// Emits a chunk of the call `open` (with the signature not emitted yet).
#[inline(never)]
fn piece(open: &mut OpenCall, arguments: Option<String>, out: &mut Vec<Chunk>) {
    let function = ToolCallFunction { id: Some(own(&open.id)), name: Some(own(&open.name)), arguments };
    let call_id = Some(own(&open.id));
    emit(
        out,
        Chunk::ToolCalls { tool_call: ToolCall { call_id, function, signature: open.signature.take(), whole: false } },
    );
}

/// The stop chunk for a `finishReason`: `STOP` is `end_turn` (or `tool_use` after a call)
/// without `raw`; a filter's reason (safety, recitation, block lists, prohibited content,
/// personal data, Model Armor: any reason that names one) is `content_filter`,
/// `MALFORMED_FUNCTION_CALL` is `malformed_tool_call`, and any other reason (`MAX_TOKENS`…)
/// is its lower case.
#[inline(never)]
fn stop(raw: String, called: bool) -> Chunk {
    let filtered = ["SAFETY", "RECITATION", "BLOCK", "PROHIBITED", "SPII", "MODEL_ARMOR"]
        .iter()
        .any(|word| crate::text::contains(&raw, word));
    let reason = match raw.as_str() {
        "STOP" if called => "tool_use",
        "STOP" => "end_turn",
        "MALFORMED_FUNCTION_CALL" => "malformed_tool_call",
        _ if filtered => "content_filter",
        _ => "",
    };
    let mut reason = own(if reason.is_empty() { &raw } else { reason });
    reason.make_ascii_lowercase();
    Chunk::Stop { reason, raw: Some(raw).filter(|raw| raw != "STOP") }
}

/// The error for a prompt blocked before any candidate, if `feedback` says it was.
#[inline(never)]
fn blocked(feedback: &Json) -> Result<(), StreamError> {
    let Some(reason) = feedback.get("blockReason").and_then(Json::as_str) else { return Ok(()) };
    let detail = text_of(feedback, "blockReasonMessage").unwrap_or_default();
    let colon = if detail.is_empty() { "" } else { ": " };
    let message = format!("the prompt was blocked ({reason}){colon}{detail}");
    Err(StreamError::Provider { kind: own("prompt_blocked"), message })
}

/// The error for an `error` object in the stream: its `status` (`RESOURCE_EXHAUSTED`…) or
/// else its `code` is the kind.
#[inline(never)]
fn provider_error(error: &Json) -> StreamError {
    let status = text_of(error, "status").map(own);
    let ErrorBody { kind, message } = ErrorBody::from_value(cloned(error));
    StreamError::Provider {
        kind: status.or(kind).unwrap_or_else(|| own("error")),
        message: message.unwrap_or_default(),
    }
}
