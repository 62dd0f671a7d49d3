//! The members of a `GenerateContentResponse` the decoder reads, in one pass over each event.

use crate::json::{Json, JsonError, Reader};

/// One `GenerateContentResponse` (one `data:` event), as far as the decoder reads it.
#[derive(Default)]
pub(super) struct Response {
    /// Candidate 0 (a candidate without `index` is candidate 0); the others are not kept.
    pub(super) candidate: Option<Candidate>,
    /// Whether `candidates` listed any candidate at all.
    pub(super) has_candidates: bool,
    /// `usageMetadata`.
    pub(super) usage: Option<WireUsage>,
    /// `promptFeedback.blockReason`.
    pub(super) block_reason: Option<String>,
    /// `promptFeedback.blockReasonMessage`.
    pub(super) block_message: Option<String>,
    /// An `error` object sent inside the stream.
    pub(super) error: Option<Json>,
}

/// A candidate's parts and finish reason.
#[derive(Default)]
pub(super) struct Candidate {
    /// `content.parts`, the empty ones left out.
    pub(super) parts: Vec<Part>,
    /// `finishReason`.
    pub(super) finish_reason: Option<String>,
}

/// One part of a candidate's content.
pub(super) enum Part {
    /// A `text` part: reply text, or reasoning when `thought` is true. A part that carries
    /// only a `thoughtSignature` is an empty text part.
    Text { text: String, thought: bool, signature: Option<String> },
    /// A `functionCall` part.
    Call { call: WireCall, signature: Option<String> },
    /// Any other part (`executableCode`, `inlineData`…), whole.
    Other(Json),
}

/// A `functionCall`: whole (`args`), or a piece of one streamed in `partialArgs`.
#[derive(Default)]
pub(super) struct WireCall {
    pub(super) id: Option<String>,
    pub(super) name: Option<String>,
    /// `args` as compact JSON text; `None` when absent or null.
    pub(super) args: Option<String>,
    pub(super) partial_args: Vec<PartialArg>,
    /// Whether the call or one of its pieces says more of it follows.
    pub(super) will_continue: bool,
}

/// One `partialArgs` piece: a value at a JSON path.
pub(super) struct PartialArg {
    /// The `jsonPath` (`$.location`, `$.steps[1]`).
    pub(super) path: String,
    pub(super) value: ArgValue,
}

/// A piece's value.
pub(super) enum ArgValue {
    /// `stringValue`: a string, or the next piece of the string already at the path.
    Text(String),
    /// `numberValue`, `boolValue`, `nullValue`, `structValue` or `listValue`.
    Value(Json),
}

/// The token counts of `usageMetadata` (cumulative over the stream).
#[derive(Default)]
pub(super) struct WireUsage {
    pub(super) prompt: Option<u64>,
    pub(super) candidates: Option<u64>,
    pub(super) thoughts: Option<u64>,
    pub(super) cached: Option<u64>,
    pub(super) tool_use_prompt: Option<u64>,
}

impl WireUsage {
    /// Whether no count was given (`usageMetadata` with only `trafficType`, say).
    pub(super) fn is_empty(&self) -> bool {
        [self.prompt, self.candidates, self.thoughts, self.cached, self.tool_use_prompt].iter().all(Option::is_none)
    }
}

/// Reads one event's response.
pub(super) fn read_response(r: &mut Reader<'_>) -> Result<Response, JsonError> {
    let mut response = Response::default();
    r.object(|r, key| match &*key {
        "candidates" if r.is_array() => r.objects(|r| {
            response.has_candidates = true;
            let (index, candidate) = read_candidate(r)?;
            if index == 0 && response.candidate.is_none() {
                response.candidate = Some(candidate);
            }
            Ok(())
        }),
        "usageMetadata" if r.is_object() => read_usage(r).map(|u| response.usage = Some(u)),
        "promptFeedback" if r.is_object() => r.object(|r, key| match &*key {
            "blockReason" => r.string_owned().map(|v| response.block_reason = v),
            "blockReasonMessage" => r.string_owned().map(|v| response.block_message = v),
            _ => r.skip(),
        }),
        "error" => r.value().map(|v| response.error = Some(v).filter(|v| !v.is_null())),
        _ => r.skip(),
    })?;
    Ok(response)
}

/// A candidate and its `index`.
fn read_candidate(r: &mut Reader<'_>) -> Result<(u64, Candidate), JsonError> {
    let mut index = 0;
    let mut candidate = Candidate::default();
    r.object(|r, key| match &*key {
        "index" => r.u64().map(|v| index = v.unwrap_or(0)),
        "content" if r.is_object() => r.object(|r, key| match &*key {
            "parts" if r.is_array() => r.objects(|r| read_part(r).map(|part| candidate.parts.extend(part))),
            _ => r.skip(),
        }),
        "finishReason" => r.string_owned().map(|v| candidate.finish_reason = v),
        _ => r.skip(),
    })?;
    Ok((index, candidate))
}

/// A part, or `None` for an empty one. The kind is decided by its data member whatever the
/// order of the members: `functionCall`, then `text`, then any other member.
fn read_part(r: &mut Reader<'_>) -> Result<Option<Part>, JsonError> {
    let (mut text, mut thought, mut signature, mut call) = (None, false, None, None);
    // Every member but `text` and `functionCall`, in order: another kind of part is kept
    // whole. `others` counts the members that are not `thought` or `thoughtSignature`.
    let mut members: Vec<(String, Json)> = Vec::new();
    let mut others = 0;
    r.object(|r, key| match &*key {
        "text" => r.string_owned().map(|v| text = v),
        "functionCall" if r.is_object() => read_call(r).map(|c| call = Some(c)),
        "functionCall" => r.skip(),
        "thoughtSignature" => {
            let value = r.value()?;
            signature = value.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
            members.push((key.into_owned(), value));
            Ok(())
        }
        "thought" => {
            thought = r.bool()?.unwrap_or(false);
            members.push((key.into_owned(), Json::Bool(thought)));
            Ok(())
        }
        _ => {
            others += 1;
            r.value().map(|v| members.push((key.into_owned(), v)))
        }
    })?;
    Ok(if let Some(call) = call {
        Some(Part::Call { call, signature })
    } else if let Some(text) = text {
        Some(Part::Text { text, thought, signature })
    } else if others > 0 {
        Some(Part::Other(Json::Object(members)))
    } else if signature.is_some() {
        Some(Part::Text { text: String::new(), thought, signature })
    } else {
        None
    })
}

/// A `functionCall` object.
fn read_call(r: &mut Reader<'_>) -> Result<WireCall, JsonError> {
    let mut call = WireCall::default();
    r.object(|r, key| match &*key {
        "id" => r.string_owned().map(|v| call.id = v.filter(|id| !id.is_empty())),
        "name" => r.string_owned().map(|v| call.name = v.filter(|name| !name.is_empty())),
        "args" if r.is_null() => r.skip(),
        "args" => {
            let mut args = String::new();
            r.compact_value(&mut args)?;
            call.args = Some(args);
            Ok(())
        }
        "partialArgs" if r.is_array() => r.objects(|r| {
            let (piece, more) = read_partial_arg(r)?;
            call.will_continue |= more;
            call.partial_args.extend(piece);
            Ok(())
        }),
        "willContinue" => r.bool().map(|v| call.will_continue |= v.unwrap_or(false)),
        _ => r.skip(),
    })?;
    Ok(call)
}

/// A piece (`None` without a path or a value) and whether it says more follows.
fn read_partial_arg(r: &mut Reader<'_>) -> Result<(Option<PartialArg>, bool), JsonError> {
    let (mut path, mut value, mut more) = (None, None, false);
    r.object(|r, key| {
        let read = match &*key {
            "jsonPath" => return r.string_owned().map(|v| path = v),
            "willContinue" => return r.bool().map(|v| more = v.unwrap_or(false)),
            "stringValue" => r.string_owned()?.map(ArgValue::Text),
            "numberValue" => r.number()?.map(|n| ArgValue::Value(Json::Number(n))),
            "boolValue" => r.bool()?.map(|b| ArgValue::Value(Json::Bool(b))),
            "nullValue" => r.skip().map(|()| Some(ArgValue::Value(Json::Null)))?,
            "structValue" | "listValue" => Some(ArgValue::Value(r.value()?)),
            _ => return r.skip(),
        };
        if read.is_some() {
            value = read;
        }
        Ok(())
    })?;
    Ok((path.zip(value).map(|(path, value)| PartialArg { path, value }), more))
}

/// The counts of `usageMetadata` (its other members, per-modality details and
/// `trafficType`, are skipped).
fn read_usage(r: &mut Reader<'_>) -> Result<WireUsage, JsonError> {
    let mut usage = WireUsage::default();
    r.object(|r, key| {
        let slot = match &*key {
            "promptTokenCount" => &mut usage.prompt,
            "candidatesTokenCount" => &mut usage.candidates,
            "thoughtsTokenCount" => &mut usage.thoughts,
            "cachedContentTokenCount" => &mut usage.cached,
            "toolUsePromptTokenCount" => &mut usage.tool_use_prompt,
            _ => return r.skip(),
        };
        *slot = r.u64()?;
        Ok(())
    })?;
    Ok(usage)
}
