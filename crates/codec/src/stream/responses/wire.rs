//! The JSON of Responses events, read in one pass each: only the members the decoder uses.
//!
//! Members may come in any order (the GitHub Copilot endpoint sorts keys, so `type` comes
//! last): an event is read whole into [`Event`] before its type is looked at, and its `item`
//! is kept as JSON text, read into an [`Item`] (or a [`Json`] for an opaque item) once the
//! event's type says which.

use std::borrow::Cow;

use super::super::chunk::{Chunk, Usage};
use super::super::error::ErrorBody;
use crate::json::{Json, JsonError, Reader};

/// Every member of an event the decoder reads.
#[derive(Default)]
pub(super) struct Event<'a> {
    /// `type`.
    pub(super) kind: Option<Cow<'a, str>>,
    /// `output_index`: the only stable key of an output item.
    pub(super) output_index: Option<u64>,
    /// `summary_index` of reasoning summary events.
    pub(super) summary_index: Option<u64>,
    /// `content_index` of content events.
    pub(super) content_index: Option<u64>,
    /// `delta` of delta events.
    pub(super) delta: Option<Cow<'a, str>>,
    /// `arguments` of `response.function_call_arguments.done`.
    pub(super) arguments: Option<Cow<'a, str>>,
    /// `item` of `response.output_item.added` / `.done`, as JSON text.
    pub(super) item: Option<&'a str>,
    /// `response` of the lifecycle events.
    pub(super) response: Option<WireResponse<'a>>,
    /// `error` of an `error` event (not `null`), as JSON text.
    pub(super) error: Option<&'a str>,
    /// `code` of an `error` event that has its members at the top level, as JSON text.
    pub(super) code: Option<&'a str>,
    /// `message` of such an `error` event, as JSON text.
    pub(super) message: Option<&'a str>,
}

/// The members of a `response` object the terminal events need.
#[derive(Default)]
pub(super) struct WireResponse<'a> {
    pub(super) usage: Option<WireUsage>,
    /// `incomplete_details.reason`.
    pub(super) incomplete_reason: Option<String>,
    /// `error` (not `null`), as JSON text.
    pub(super) error: Option<&'a str>,
}

/// A response's `usage`.
#[derive(Default)]
pub(super) struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    /// `input_tokens_details.cached_tokens`: read from the cache, inside `input_tokens`.
    cached_tokens: Option<u64>,
    /// `input_tokens_details.cache_write_tokens`: written to the cache, inside `input_tokens`.
    cache_write_tokens: Option<u64>,
    /// `output_tokens_details.reasoning_tokens`: inside `output_tokens`.
    reasoning_tokens: Option<u64>,
    /// OpenRouter's reported cost, in US dollars.
    cost: Option<f64>,
}

/// An output item, as far as the decoder reads it.
#[derive(Default)]
pub(super) struct Item {
    /// `type`: `message`, `reasoning`, `function_call`, or another kind kept whole.
    pub(super) kind: String,
    pub(super) id: Option<String>,
    pub(super) call_id: Option<String>,
    pub(super) name: Option<String>,
    pub(super) arguments: Option<String>,
    pub(super) encrypted_content: Option<String>,
    /// A message's `phase` (`commentary`, `final_answer`).
    pub(super) phase: Option<String>,
    /// The texts of a reasoning item's `summary_text` parts, in order.
    pub(super) summary: Vec<String>,
    /// The texts of a reasoning item's `reasoning_text` content parts, in order.
    pub(super) reasoning_text: Vec<String>,
    /// A message's `output_text` and `refusal` parts, joined.
    pub(super) text: String,
    /// Whether a message has a `refusal` part.
    pub(super) refusal: bool,
}

pub(super) fn read_event<'a>(r: &mut Reader<'a>) -> Result<Event<'a>, JsonError> {
    let mut event = Event::default();
    r.object(|r, key| match &*key {
        "type" => r.string().map(|v| event.kind = v),
        "output_index" => r.u64().map(|v| event.output_index = v),
        "summary_index" => r.u64().map(|v| event.summary_index = v),
        "content_index" => r.u64().map(|v| event.content_index = v),
        "delta" => r.string().map(|v| event.delta = v),
        "arguments" => r.string().map(|v| event.arguments = v),
        "item" if r.is_object() => r.raw_value().map(|v| event.item = Some(v)),
        "response" if r.is_object() => read_response(r).map(|v| event.response = Some(v)),
        "error" if !r.is_null() => r.raw_value().map(|v| event.error = Some(v)),
        "code" => r.raw_value().map(|v| event.code = Some(v)),
        "message" => r.raw_value().map(|v| event.message = Some(v)),
        _ => r.skip(),
    })?;
    Ok(event)
}

fn read_response<'a>(r: &mut Reader<'a>) -> Result<WireResponse<'a>, JsonError> {
    let mut response = WireResponse::default();
    r.object(|r, key| match &*key {
        "usage" if r.is_object() => read_usage(r).map(|u| response.usage = Some(u)),
        "incomplete_details" if r.is_object() => r.object(|r, key| match &*key {
            "reason" => r.string_owned().map(|v| response.incomplete_reason = v),
            _ => r.skip(),
        }),
        "error" if !r.is_null() => r.raw_value().map(|v| response.error = Some(v)),
        _ => r.skip(),
    })?;
    Ok(response)
}

fn read_usage(r: &mut Reader<'_>) -> Result<WireUsage, JsonError> {
    let mut usage = WireUsage::default();
    r.object(|r, key| match &*key {
        "input_tokens" => r.u64().map(|v| usage.input_tokens = v),
        "output_tokens" => r.u64().map(|v| usage.output_tokens = v),
        "input_tokens_details" if r.is_object() => r.object(|r, key| match &*key {
            "cached_tokens" => r.u64().map(|v| usage.cached_tokens = v),
            "cache_write_tokens" => r.u64().map(|v| usage.cache_write_tokens = v),
            _ => r.skip(),
        }),
        "output_tokens_details" if r.is_object() => r.object(|r, key| match &*key {
            "reasoning_tokens" => r.u64().map(|v| usage.reasoning_tokens = v),
            _ => r.skip(),
        }),
        "cost" => r.number().map(|v| usage.cost = v.map(|n| n.as_f64())),
        _ => r.skip(),
    })?;
    Ok(usage)
}

impl WireUsage {
    /// The usage chunk: input without the cached tokens (read or written), which are
    /// counted apart; output as reported, reasoning already inside it.
    pub(super) fn chunk(self) -> Chunk {
        let (read, write) = (self.cached_tokens.unwrap_or(0), self.cache_write_tokens.unwrap_or(0));
        Chunk::Usage(Usage {
            input_tokens: self.input_tokens.unwrap_or(0).saturating_sub(read.saturating_add(write)),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_write_tokens: self.cache_write_tokens,
            cache_read_tokens: self.cached_tokens,
            total_cost: self.cost,
            reasoning_tokens: self.reasoning_tokens,
        })
    }
}

pub(super) fn read_item(r: &mut Reader<'_>) -> Result<Item, JsonError> {
    let mut item = Item::default();
    r.object(|r, key| match &*key {
        "type" => r.string_owned().map(|v| item.kind = v.unwrap_or_default()),
        "id" => r.string_owned().map(|v| item.id = v),
        "call_id" => r.string_owned().map(|v| item.call_id = v),
        "name" => r.string_owned().map(|v| item.name = v),
        "arguments" => r.string_owned().map(|v| item.arguments = v),
        "encrypted_content" => r.string_owned().map(|v| item.encrypted_content = v.filter(|e| !e.is_empty())),
        "phase" => r.string_owned().map(|v| item.phase = v.filter(|p| !p.is_empty())),
        "summary" if r.is_array() => r.objects(|r| {
            let (kind, text) = read_part(r)?;
            if matches!(kind.as_deref(), None | Some("summary_text")) {
                item.summary.push(text.map(Cow::into_owned).unwrap_or_default());
            }
            Ok(())
        }),
        "content" if r.is_array() => r.objects(|r| {
            let (kind, text) = read_part(r)?;
            match kind.as_deref() {
                Some("reasoning_text") => item.reasoning_text.push(text.map(Cow::into_owned).unwrap_or_default()),
                Some("output_text") => item.text.push_str(text.as_deref().unwrap_or_default()),
                Some("refusal") => {
                    item.refusal = true;
                    item.text.push_str(text.as_deref().unwrap_or_default());
                }
                _ => {}
            }
            Ok(())
        }),
        _ => r.skip(),
    })?;
    Ok(item)
}

/// A member that may be missing, borrowed from the event's text when it has no escapes.
type Text<'a> = Option<Cow<'a, str>>;

/// A content or summary part: its `type` and its text (`text`, or a refusal's `refusal`).
fn read_part<'a>(r: &mut Reader<'a>) -> Result<(Text<'a>, Text<'a>), JsonError> {
    let (mut kind, mut text) = (None, None);
    r.object(|r, key| match &*key {
        "type" => r.string().map(|v| kind = v),
        "text" | "refusal" => r.string().map(|v| text = text.take().or(v)),
        _ => r.skip(),
    })?;
    Ok((kind, text))
}

/// The provider's error (kind, message) in the JSON text of an error object, or of the
/// top-level `code` and `message` of an `error` event.
pub(super) fn error_body(error: Option<&str>, code: Option<&str>, message: Option<&str>) -> ErrorBody {
    let parse = |text: Option<&str>| text.and_then(|text| Json::parse(text).ok()).unwrap_or(Json::Null);
    let error = parse(error);
    if error.is_null() {
        ErrorBody::from_value(Json::from_members([("code", parse(code)), ("message", parse(message))]))
    } else {
        ErrorBody::from_value(error)
    }
}
