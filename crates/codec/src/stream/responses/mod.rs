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
//! message's end carries its `phase`. A `compaction` item (CONTEXT §6.3) is a
//! [`Chunk::Compaction`] with its `id` and `encrypted_content` as `output_item.done` has them
//! (the `.added` form may be shorter), in output order. Items clew does not interpret (hosted
//! tool calls, programs…) are kept whole as item chunks, in order. `response.completed` and
//! `response.incomplete` give the usage (as reported: a compaction pass's tokens are inside
//! it) and the stop; `response.failed` and `error` events are the provider's errors.
//!
//! Members may come in any order (the Copilot endpoint sorts keys, so `type` comes last).
//! Every event is read in one pass for the few members the frequent delta events need; the
//! rare events (items added and done, final arguments, terminal events, errors) are parsed
//! again into a [`Json`] tree and walked, which keeps the decoder small in the wasm.

mod slots;

use super::chunk::{Chunk, Usage};
use super::error::{ErrorBody, StreamError};
use super::preview;
use super::sse::SseEvent;
use crate::json::{write_u64, Json, Reader};
use slots::{append, count, emit, owned, pick, slot_at, string, take, texts, Slot};

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

/// The event types the decoder reads, the frequent ones first: an event's code is its
/// place here (`EVENTS.len()` for the others, ignored: created, in_progress, the `.done`
/// and part events, later additions). The deltas come first, up to [`REFUSAL`].
const EVENTS: [&str; 12] = [
    "response.output_text.delta",
    "response.reasoning_summary_text.delta",
    "response.function_call_arguments.delta",
    "response.reasoning_text.delta",
    "response.refusal.delta",
    "response.function_call_arguments.done",
    "response.output_item.added",
    "response.output_item.done",
    "response.completed",
    "response.incomplete",
    "response.failed",
    "error",
];
const TEXT: usize = 0;
const SUMMARY: usize = 1;
const ARGUMENTS: usize = 2;
const REFUSAL: usize = 4;
const ARGUMENTS_DONE: usize = 5;
const ITEM_DONE: usize = 7;
const COMPLETED: usize = 8;
const INCOMPLETE: usize = 9;
const FAILED: usize = 10;
const ERROR: usize = 11;

/// The kind of an output item: its place in [`ITEMS`] (`ITEMS.len()` for an item kept
/// whole when it is done).
pub(super) type Kind = usize;
/// The item types the decoder interprets.
const ITEMS: [&str; 3] = ["message", "reasoning", "function_call"];
const MESSAGE: Kind = 0;
const REASONING: Kind = 1;
const CALL: Kind = 2;
const OTHER: Kind = 3;

impl ResponsesDecoder {
    /// Decodes one event: its chunks go to `out`, a provider error is returned.
    pub(crate) fn on_event(&mut self, event: SseEvent<'_>, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let data = event.data.trim();
        if self.ended || data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        // The members the delta events need, in one pass.
        let (mut kind, mut delta) = (None, None);
        let (mut output_index, mut summary_index, mut content_index) = (None, None, None);
        let mut r = Reader::new(data);
        let read = r.object(|r, key| match &*key {
            "type" => r.string().map(|v| kind = v),
            "delta" => r.string_owned().map(|v| delta = v),
            "output_index" => r.u64().map(|v| output_index = v),
            "summary_index" => r.u64().map(|v| summary_index = v),
            "content_index" => r.u64().map(|v| content_index = v),
            _ => r.skip(),
        });
        if let Err(error) = read.and_then(|()| r.end()) {
            // NOTE: `error.to_string()`, written without `fmt`, which costs more in the wasm.
            let mut reason = owned(error.reason);
            append(&mut reason, " at byte ");
            write_u64(&mut reason, error.at as u64);
            return Err(StreamError::MalformedJson { line: preview(data.as_bytes()), reason });
        }
        // The JSON's `type` decides; an `event:` line only stands in for a missing one.
        let code = pick(&EVENTS, kind.as_deref().unwrap_or(event.event));
        let index = output_index.unwrap_or_else(|| self.slots.last().map_or(0, |slot| slot.index));
        if code > REFUSAL {
            return if code < EVENTS.len() {
                self.rare(code, index, Json::parse(data).unwrap_or_default(), out)
            } else {
                Ok(())
            };
        }
        let mut delta = delta.unwrap_or_default();
        let kind = match code {
            TEXT | REFUSAL => MESSAGE,
            ARGUMENTS => CALL,
            _ => REASONING,
        };
        // NOTE: an empty arguments delta still opens its call's slot.
        if delta.is_empty() && kind != CALL {
            return Ok(());
        }
        self.refused |= code == REFUSAL;
        let Some(slot) = slot_at(&mut self.slots, index, kind) else { return Ok(()) };
        let same = slot.kind == kind;
        match kind {
            MESSAGE => {
                if same {
                    append(&mut slot.delivered, &delta);
                }
                emit(out, Chunk::Text { text: delta });
            }
            REASONING => {
                let part = Some(if code == SUMMARY {
                    (true, summary_index.unwrap_or(0))
                } else {
                    (false, content_index.unwrap_or(0))
                });
                if same {
                    if slot.part.is_some_and(|latest| Some(latest) != part) {
                        delta.insert_str(0, "\n\n");
                    }
                    slot.part = part;
                }
                emit(out, Chunk::reasoning(delta));
            }
            _ => {
                // NOTE: without `.added` the call has no id yet: its `.done` delivers it whole.
                if same && slot.announced && !slot.settled && !delta.is_empty() {
                    emit(out, Chunk::tool_call(&slot.id, Some(&slot.name), Some(&delta)));
                    append(&mut slot.delivered, &delta);
                }
            }
        }
        Ok(())
    }

    /// The rare events, parsed again into a tree: the final arguments, an item added or
    /// done, a terminal event.
    #[inline(never)]
    fn rare(&mut self, code: usize, index: u64, mut tree: Json, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        if code >= COMPLETED {
            return self.end(code, tree, out);
        }
        let item = take(&mut tree, "item");
        let kind = match code {
            ARGUMENTS_DONE => CALL,
            _ if item.is_object() => pick(&ITEMS, string(&item, "type").unwrap_or_default()),
            _ => return Ok(()),
        };
        let done = code == ITEM_DONE;
        self.saw_call |= code != ARGUMENTS_DONE && kind == CALL;
        let Some(slot) = slot_at(&mut self.slots, index, kind) else { return Ok(()) };
        if code == ARGUMENTS_DONE {
            let arguments = string(&tree, "arguments").unwrap_or_default();
            if slot.kind == CALL && slot.announced {
                slot.settle(arguments, out);
            } else if slot.kind == CALL {
                slot.kept = Some(owned(arguments));
            }
            return Ok(());
        }
        if done && slot.closed {
            return Ok(());
        }
        if slot.kind != kind {
            *slot = Slot { index, kind, closed: slot.closed, ..Slot::default() };
        }
        slot.closed |= done;
        // A message's `phase`, a reasoning item's `encrypted_content`.
        let own = string(&item, if kind == MESSAGE { "phase" } else { "encrypted_content" });
        let own = own.filter(|own| !own.is_empty()).map(owned);
        if kind == CALL {
            let arguments = string(&item, "arguments");
            if !slot.announced {
                slot.id = match string(&item, "call_id").or_else(|| string(&item, "id")) {
                    Some(id) => owned(id),
                    None => {
                        let mut id = owned("call_");
                        write_u64(&mut id, index);
                        id
                    }
                };
                slot.name = owned(string(&item, "name").unwrap_or_default());
                slot.announced = true;
                let first = arguments.filter(|a| !done && !a.is_empty());
                emit(out, Chunk::tool_call(&slot.id, Some(&slot.name), first));
                append(&mut slot.delivered, first.unwrap_or_default());
            }
            // `.done`'s arguments, else final arguments that came before the call.
            let kept = slot.kept.take();
            if let Some(last) = arguments.filter(|_| done).or(kept.as_deref()) {
                slot.settle(last, out);
            }
        } else if kind == OTHER {
            if done && string(&item, "type") == Some("compaction") {
                let own = |key: &str| string(&item, key).map(owned);
                emit(
                    out,
                    Chunk::Compaction { content: None, encrypted_content: own("encrypted_content"), id: own("id") },
                );
            } else if done {
                emit(out, Chunk::Item { item });
            }
        } else if !done {
            slot.kept = own;
        } else {
            let message = kind == MESSAGE;
            // A message's text and refusal parts; a reasoning item's summary parts, else (with
            // no summary) its raw reasoning parts, joined by blank lines.
            let (list, kinds, untyped, separator): (_, &[&str], _, _) = if message {
                ("content", &["output_text", "refusal"], false, "")
            } else {
                ("summary", &["summary_text"], true, "\n\n")
            };
            let (mut text, summary, refusal) = texts(item.get(list), kinds, untyped, separator);
            if summary.is_empty() && !message {
                text = texts(item.get("content"), &["reasoning_text"], false, separator).0;
            }
            self.refused |= refusal;
            let own = own.or_else(|| slot.kept.take());
            // Some endpoints send only the done form: what no delta delivered is delivered.
            let rest = text.strip_prefix(slot.delivered.as_str()).filter(|rest| !rest.is_empty());
            if let Some(rest) = rest.filter(|_| message || slot.part.is_none()).map(owned) {
                emit(out, if message { Chunk::Text { text: rest } } else { Chunk::reasoning(rest) });
            }
            if !message {
                emit(
                    out,
                    Chunk::Reasoning {
                        reasoning: String::new(),
                        signature: None,
                        redacted_data: None,
                        encrypted_content: own,
                        summary: Some(summary),
                    },
                );
            } else if let Some(phase) = own {
                emit(out, Chunk::TextEnd { signature: None, phase: Some(phase) });
            }
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

    /// A terminal event: its usage, then the stop, or the provider's error.
    #[inline(never)]
    fn end(&mut self, code: usize, mut tree: Json, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        self.ended = true;
        let mut response = if code == ERROR { Json::Null } else { take(&mut tree, "response") };
        if let Some(usage) = response.get("usage").filter(|usage| usage.is_object()) {
            let read = count(usage, "input_tokens_details", "cached_tokens");
            let write = count(usage, "input_tokens_details", "cache_write_tokens");
            let cached = read.unwrap_or(0).saturating_add(write.unwrap_or(0));
            emit(
                out,
                Chunk::Usage(Usage {
                    input_tokens: count(usage, "", "input_tokens").unwrap_or(0).saturating_sub(cached),
                    output_tokens: count(usage, "", "output_tokens").unwrap_or(0),
                    cache_write_tokens: write,
                    cache_read_tokens: read,
                    total_cost: usage.get("cost").and_then(Json::as_f64),
                    reasoning_tokens: count(usage, "output_tokens_details", "reasoning_tokens"),
                    ..Usage::default()
                }),
            );
        }
        if code < FAILED {
            // The stop, in clew's words, and the provider's reason when they differ.
            let raw = response.get("incomplete_details").and_then(|details| string(details, "reason"));
            let raw = raw.filter(|_| code == INCOMPLETE);
            let reason = match raw {
                _ if code == COMPLETED && self.refused => "refusal",
                _ if code == COMPLETED && self.saw_call => "tool_use",
                _ if code == COMPLETED => "end_turn",
                Some("max_output_tokens") => "max_tokens",
                Some(reason) => reason,
                None => "incomplete",
            };
            emit(out, Chunk::Stop { reason: owned(reason), raw: raw.map(owned) });
            return Ok(());
        }
        let failed = code == FAILED;
        let error = take(if failed { &mut response } else { &mut tree }, "error");
        let error = if error.is_null() && !failed {
            // No error object: the event's own `code` and `message`.
            tree.set("type", Json::Null);
            tree
        } else {
            error
        };
        let body = ErrorBody::from_value(error);
        Err(StreamError::Provider {
            kind: body.kind.unwrap_or_else(|| owned(if failed { "response_failed" } else { "error" })),
            message: body.message.unwrap_or_else(|| owned(if failed { "the response failed" } else { "" })),
        })
    }
}
