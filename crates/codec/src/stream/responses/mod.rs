//! OpenAI Responses streaming (`POST /v1/responses` with `stream: true`, and the endpoints
//! that follow it: Azure, OpenRouter, GitHub Copilot, the ChatGPT backend) to chunks.
//!
//! Events are told apart by their JSON `type` (`event:` lines are optional; OpenRouter's
//! `data: [DONE]` is ignored). Every output item is keyed by its `output_index`, never by
//! its id (Copilot changes `item_id` on every event). Text and refusal deltas are text;
//! reasoning summary and raw reasoning deltas are reasoning, a blank line between summary
//! parts, and a reasoning item ends with one empty reasoning chunk carrying its encrypted
//! content and summary. A `function_call` item is announced as soon as it is added, its
//! argument deltas are pieces, and its final (`.done`) arguments win over the deltas. A
//! message's end carries its `phase`. Items clew does not interpret (hosted tool calls,
//! programs, compaction…) are kept whole as item chunks, in order. `response.completed` and
//! `response.incomplete` give the usage and the stop; `response.failed` and `error` events
//! are the provider's errors.

mod items;
mod wire;

use std::borrow::Cow;

use super::chunk::Chunk;
use super::error::{ErrorBody, StreamError};
use super::json::read_data;
use super::sse::SseEvent;
use crate::json::Json;
use items::{call_id, slot_at, Slot, SlotState};
use wire::{error_body, read_event, read_item, Item, WireResponse};

/// State of one Responses stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct ResponsesDecoder {
    /// The output items seen, sorted by `output_index`.
    slots: Vec<Slot>,
    /// A `function_call` item was seen: the stop is `tool_use`.
    saw_call: bool,
    /// The model refused: the stop is `refusal`.
    refused: bool,
    /// The terminal event came: whatever follows is ignored.
    ended: bool,
}

impl ResponsesDecoder {
    /// Decodes one event: its chunks go to `out`, a provider error is returned.
    pub(crate) fn on_event(&mut self, event: SseEvent<'_>, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let data = event.data.trim();
        if self.ended || data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let mut data = read_data(data, read_event)?;
        let kind = data.kind.take();
        // The JSON's `type` decides; an `event:` line only stands in for a missing one.
        let kind = kind.as_deref().unwrap_or(event.event);
        let index = data.output_index.unwrap_or_else(|| self.slots.last().map_or(0, |slot| slot.index));
        let delta = data.delta.take().unwrap_or_default();
        match kind {
            "response.output_text.delta" => self.text(index, delta, false, out),
            "response.refusal.delta" => self.text(index, delta, true, out),
            "response.reasoning_summary_text.delta" => {
                self.reasoning(index, (true, data.summary_index.unwrap_or(0)), delta, out);
            }
            "response.reasoning_text.delta" => {
                self.reasoning(index, (false, data.content_index.unwrap_or(0)), delta, out);
            }
            "response.function_call_arguments.delta" => self.arguments(index, &delta, None, out),
            "response.function_call_arguments.done" => {
                let arguments = data.arguments.take().unwrap_or_default();
                self.arguments(index, "", Some(&arguments), out);
            }
            "response.output_item.added" | "response.output_item.done" => {
                let Some(raw) = data.item else { return Ok(()) };
                let item = read_data(raw, read_item)?;
                if kind == "response.output_item.added" {
                    self.added(index, item, out);
                } else {
                    self.done(index, item, raw, out)?;
                }
            }
            "response.completed" => {
                let reason = if self.refused {
                    "refusal"
                } else if self.saw_call {
                    "tool_use"
                } else {
                    "end_turn"
                };
                self.end(data.response, reason.to_owned(), None, out);
            }
            "response.incomplete" => {
                let mut response = data.response.unwrap_or_default();
                let raw = response.incomplete_reason.take();
                let reason = match raw.as_deref() {
                    Some("max_output_tokens") => "max_tokens",
                    Some(reason) => reason,
                    None => "incomplete",
                };
                self.end(Some(response), reason.to_owned(), raw, out);
            }
            "response.failed" => {
                let mut response = data.response.unwrap_or_default();
                self.ended = true;
                if let Some(usage) = response.usage.take() {
                    out.push(usage.chunk());
                }
                let ErrorBody { kind, message } = error_body(response.error, None, None);
                return Err(StreamError::Provider {
                    kind: kind.unwrap_or_else(|| "response_failed".into()),
                    message: message.unwrap_or_else(|| "the response failed".into()),
                });
            }
            "error" => {
                self.ended = true;
                let ErrorBody { kind, message } = error_body(data.error, data.code, data.message);
                return Err(StreamError::Provider {
                    kind: kind.unwrap_or_else(|| "error".into()),
                    message: message.unwrap_or_default(),
                });
            }
            _ => {} // created, in_progress, queued, the `.done` and part events, later additions
        }
        Ok(())
    }

    /// Checks, at the end of the body, that the terminal event came.
    pub(crate) fn finish(&mut self, _out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        if self.ended {
            Ok(())
        } else {
            Err(StreamError::Incomplete { expected: "response.completed" })
        }
    }

    /// A text or refusal delta of the message at `index`.
    fn text(&mut self, index: u64, delta: Cow<'_, str>, refusal: bool, out: &mut Vec<Chunk>) {
        if delta.is_empty() {
            return;
        }
        self.refused |= refusal;
        let new = || SlotState::new("message");
        if let Some(Slot { state: SlotState::Message { delivered, .. }, .. }) = slot_at(&mut self.slots, index, new) {
            delivered.push_str(&delta);
        }
        out.push(Chunk::Text { text: delta.into_owned() });
    }

    /// A reasoning delta of the item at `index`, of the summary or content part `part`.
    fn reasoning(&mut self, index: u64, part: (bool, u64), delta: Cow<'_, str>, out: &mut Vec<Chunk>) {
        if delta.is_empty() {
            return;
        }
        let mut separate = false;
        let new = || SlotState::new("reasoning");
        if let Some(Slot { state: SlotState::Reasoning { part: latest, .. }, .. }) =
            slot_at(&mut self.slots, index, new)
        {
            separate = latest.is_some_and(|latest| latest != part);
            *latest = Some(part);
        }
        let text = if separate {
            let mut text = String::with_capacity(delta.len() + 2);
            text.push_str("\n\n");
            text.push_str(&delta);
            text
        } else {
            delta.into_owned()
        };
        out.push(Chunk::reasoning(text));
    }

    /// An arguments delta of the call at `index`, or its final arguments.
    fn arguments(&mut self, index: u64, delta: &str, last: Option<&str>, out: &mut Vec<Chunk>) {
        let Some(Slot { state: SlotState::Call(call), .. }) =
            slot_at(&mut self.slots, index, || SlotState::new("function_call"))
        else {
            return;
        };
        match (&call.announced, last) {
            (Some((id, name)), None) if !delta.is_empty() && !call.settled => {
                out.push(Chunk::tool_call(id, Some(name), Some(delta)));
                call.delivered.push_str(delta);
            }
            (Some(_), Some(last)) => call.settle(last, out),
            (None, Some(last)) => call.final_arguments = Some(last.to_owned()),
            // NOTE: without `.added` the call has no id yet: its `.done` delivers it whole.
            _ => {}
        }
    }

    /// `response.output_item.added`: opens the item; a call is announced at once.
    fn added(&mut self, index: u64, mut item: Item, out: &mut Vec<Chunk>) {
        self.saw_call |= item.kind == "function_call";
        let Some(slot) = slot_at(&mut self.slots, index, || SlotState::new(&item.kind)) else { return };
        if !slot.state.is(&item.kind) {
            slot.state = SlotState::new(&item.kind);
        }
        match &mut slot.state {
            SlotState::Message { phase, .. } => *phase = item.phase,
            SlotState::Reasoning { encrypted_content, .. } => *encrypted_content = item.encrypted_content,
            SlotState::Call(call) if call.announced.is_none() => {
                let name = item.name.take().unwrap_or_default();
                call.announce(call_id(&mut item, index), name, item.arguments.as_deref(), out);
                if let Some(last) = call.final_arguments.take() {
                    call.settle(&last, out);
                }
            }
            SlotState::Call(_) | SlotState::Other => {}
        }
    }

    /// `response.output_item.done`: the item's final form.
    fn done(&mut self, index: u64, mut item: Item, raw: &str, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        self.saw_call |= item.kind == "function_call";
        let Some(slot) = slot_at(&mut self.slots, index, || SlotState::new(&item.kind)) else { return Ok(()) };
        if slot.closed {
            return Ok(());
        }
        slot.closed = true;
        if !slot.state.is(&item.kind) {
            slot.state = SlotState::new(&item.kind);
        }
        match &mut slot.state {
            SlotState::Message { phase, delivered } => {
                // Some endpoints send only the done form; deltas cut short are completed.
                if let Some(rest) = item.text.strip_prefix(delivered.as_str()).filter(|rest| !rest.is_empty()) {
                    out.push(Chunk::text(rest));
                }
                self.refused |= item.refusal;
                if let Some(phase) = item.phase.or_else(|| phase.take()) {
                    out.push(Chunk::TextEnd { signature: None, phase: Some(phase) });
                }
            }
            SlotState::Reasoning { encrypted_content, part } => {
                if part.is_none() {
                    let parts = if item.summary.is_empty() { &item.reasoning_text } else { &item.summary };
                    let text = parts.join("\n\n");
                    if !text.is_empty() {
                        out.push(Chunk::reasoning(text));
                    }
                }
                out.push(Chunk::Reasoning {
                    reasoning: String::new(),
                    signature: None,
                    redacted_data: None,
                    encrypted_content: item.encrypted_content.or_else(|| encrypted_content.take()),
                    summary: Some(item.summary),
                });
            }
            SlotState::Call(call) => {
                if call.announced.is_none() {
                    let name = item.name.take().unwrap_or_default();
                    call.announce(call_id(&mut item, index), name, None, out);
                }
                if let Some(last) = item.arguments.or_else(|| call.final_arguments.take()) {
                    call.settle(&last, out);
                }
            }
            SlotState::Other => {
                let item = Json::parse(raw).map_err(|error| StreamError::MalformedJson {
                    line: super::preview(raw.as_bytes()),
                    reason: error.to_string(),
                })?;
                out.push(Chunk::Item { item });
            }
        }
        Ok(())
    }

    /// A terminal event that ends the reply: its usage, then the stop (`raw`: the
    /// provider's reason when `reason` is clew's word for it).
    fn end(&mut self, response: Option<WireResponse<'_>>, reason: String, raw: Option<String>, out: &mut Vec<Chunk>) {
        self.ended = true;
        if let Some(usage) = response.and_then(|response| response.usage) {
            out.push(usage.chunk());
        }
        out.push(Chunk::Stop { reason, raw });
    }
}
