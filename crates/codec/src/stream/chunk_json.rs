//! The chunks' JSON shape, both ways: written for JavaScript users and for the snapshot,
//! read back by the "chunks" format (custom backends sending clew's own chunk lines).

use super::chunk::{Chunk, ToolCall, Usage};
use crate::json::{write_string, Json, JsonError, Reader};

/// Reads one chunk in its JSON shape (the "chunks" format): the fields of every kind are
/// read in one pass, then checked against the kind.
pub(crate) fn read_chunk(r: &mut Reader<'_>) -> Result<Chunk, JsonError> {
    let (mut kind, mut text, mut reasoning, mut signature, mut redacted_data, mut reason) =
        (None, None, None, None, None, None);
    let (mut encrypted_content, mut summary, mut phase, mut raw, mut item) = (None, None, None, None, None);
    let (mut content, mut id) = (None, None);
    let mut tool_call = None;
    let mut usage = Usage::default();
    let mut input = None;
    let mut output = None;
    r.object(|r, key| match &*key {
        "type" => r.string_owned().map(|v| kind = v),
        "text" => r.string_owned().map(|v| text = v),
        "reasoning" => r.string_owned().map(|v| reasoning = v),
        "signature" => r.string_owned().map(|v| signature = v),
        "redacted_data" => r.string_owned().map(|v| redacted_data = v),
        "encrypted_content" => r.string_owned().map(|v| encrypted_content = v),
        "content" => r.string_owned().map(|v| content = v),
        "id" => r.string_owned().map(|v| id = v),
        "summary" if r.is_array() => {
            let mut parts = Vec::new();
            r.array(|r| r.string_owned().map(|v| parts.push(v.unwrap_or_default())))?;
            summary = Some(parts);
            Ok(())
        }
        "phase" => r.string_owned().map(|v| phase = v),
        "raw" => r.string_owned().map(|v| raw = v),
        "item" => r.value().map(|v| item = Some(v)),
        "reason" => r.string_owned().map(|v| reason = v),
        "tool_call" if r.is_object() => read_tool_call(r).map(|call| tool_call = Some(call)),
        "inputTokens" => r.u64().map(|v| input = v),
        "outputTokens" => r.u64().map(|v| output = v),
        "cacheWriteTokens" => r.u64().map(|v| usage.cache_write_tokens = v),
        "cacheReadTokens" => r.u64().map(|v| usage.cache_read_tokens = v),
        "reasoningTokens" => r.u64().map(|v| usage.reasoning_tokens = v),
        "totalCost" => r.number().map(|v| usage.total_cost = v.map(|n| n.as_f64())),
        "contextTokens" => r.u64().map(|v| usage.context_tokens = v),
        "compactionTokens" => r.u64().map(|v| usage.compaction_tokens = v),
        "appliedEdits" => r.value().map(|v| usage.applied_edits = Some(v).filter(|v| !v.is_null())),
        "whole" => r.bool().map(|v| usage.whole = v.unwrap_or(false)),
        _ => r.skip(),
    })?;
    let missing = |reason: &'static str| JsonError { at: 0, reason };
    Ok(match kind.as_deref() {
        Some("text") => Chunk::Text { text: text.ok_or_else(|| missing("a text chunk needs `text`"))? },
        Some("reasoning") => Chunk::Reasoning {
            reasoning: reasoning.unwrap_or_default(),
            signature,
            redacted_data,
            encrypted_content,
            summary,
        },
        Some("text_end") => Chunk::TextEnd { signature, phase },
        Some("compaction") => Chunk::Compaction { content, encrypted_content, id },
        Some("item") => Chunk::Item { item: item.ok_or_else(|| missing("an item chunk needs `item`"))? },
        Some("tool_calls") => {
            Chunk::ToolCalls { tool_call: tool_call.ok_or_else(|| missing("a tool_calls chunk needs `tool_call`"))? }
        }
        Some("usage") => {
            usage.input_tokens = input.unwrap_or(0);
            usage.output_tokens = output.unwrap_or(0);
            Chunk::Usage(usage)
        }
        Some("stop") => Chunk::Stop { reason: reason.ok_or_else(|| missing("a stop chunk needs `reason`"))?, raw },
        Some(_) => return Err(missing("unknown chunk type")),
        None => return Err(missing("a chunk needs `type`")),
    })
}

fn read_tool_call(r: &mut Reader<'_>) -> Result<ToolCall, JsonError> {
    let mut call = ToolCall::default();
    let mut function = false;
    r.object(|r, key| match &*key {
        "call_id" => r.string_owned().map(|v| call.call_id = v),
        "signature" => r.string_owned().map(|v| call.signature = v),
        "whole" => r.bool().map(|v| call.whole = v.unwrap_or(false)),
        "function" if r.is_object() => {
            function = true;
            r.object(|r, key| {
                let slot = match &*key {
                    "id" => &mut call.function.id,
                    "name" => &mut call.function.name,
                    "arguments" => &mut call.function.arguments,
                    _ => return r.skip(),
                };
                *slot = r.string_owned()?;
                Ok(())
            })
        }
        _ => r.skip(),
    })?;
    if function {
        Ok(call)
    } else {
        Err(JsonError { at: 0, reason: "a tool call needs `function`" })
    }
}

/// Writes `key` and a string value as an object member (after the first).
fn member(out: &mut String, key: &str, value: &str) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":");
    write_string(out, value);
}

fn optional(out: &mut String, key: &str, value: Option<&String>) {
    if let Some(value) = value {
        member(out, key, value);
    }
}

fn count(out: &mut String, key: &str, value: Option<u64>) {
    if let Some(value) = value {
        out.push_str(",\"");
        out.push_str(key);
        out.push_str("\":");
        out.push_str(&value.to_string());
    }
}

impl Chunk {
    /// The chunk's JSON text (the shape JavaScript users get).
    pub fn to_json_text(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// Appends the chunk's JSON (the shape JavaScript users get) to `out`.
    pub fn write_json(&self, out: &mut String) {
        match self {
            Self::Text { text } => {
                out.push_str("{\"type\":\"text\"");
                member(out, "text", text);
            }
            Self::Reasoning { reasoning, signature, redacted_data, encrypted_content, summary } => {
                out.push_str("{\"type\":\"reasoning\"");
                member(out, "reasoning", reasoning);
                optional(out, "signature", signature.as_ref());
                optional(out, "redacted_data", redacted_data.as_ref());
                optional(out, "encrypted_content", encrypted_content.as_ref());
                if let Some(parts) = summary {
                    out.push_str(",\"summary\":[");
                    for (i, part) in parts.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write_string(out, part);
                    }
                    out.push(']');
                }
            }
            Self::TextEnd { signature, phase } => {
                out.push_str("{\"type\":\"text_end\"");
                optional(out, "signature", signature.as_ref());
                optional(out, "phase", phase.as_ref());
            }
            Self::Compaction { content, encrypted_content, id } => {
                out.push_str("{\"type\":\"compaction\"");
                optional(out, "content", content.as_ref());
                optional(out, "encrypted_content", encrypted_content.as_ref());
                optional(out, "id", id.as_ref());
            }
            Self::Item { item } => {
                out.push_str("{\"type\":\"item\",\"item\":");
                out.push_str(&item.to_string());
            }
            Self::ToolCalls { tool_call } => {
                out.push_str("{\"type\":\"tool_calls\",\"tool_call\":{");
                if let Some(id) = &tool_call.call_id {
                    out.push_str("\"call_id\":");
                    write_string(out, id);
                    out.push(',');
                }
                out.push_str("\"function\":{");
                let f = &tool_call.function;
                let fields = [("id", &f.id), ("name", &f.name), ("arguments", &f.arguments)];
                let mut first = true;
                for (key, value) in fields {
                    if let Some(value) = value {
                        if !first {
                            out.push(',');
                        }
                        first = false;
                        write_string(out, key);
                        out.push(':');
                        write_string(out, value);
                    }
                }
                out.push('}');
                optional(out, "signature", tool_call.signature.as_ref());
                if tool_call.whole {
                    out.push_str(",\"whole\":true");
                }
                out.push('}');
            }
            Self::Usage(usage) => {
                out.push_str("{\"type\":\"usage\"");
                count(out, "inputTokens", Some(usage.input_tokens));
                count(out, "outputTokens", Some(usage.output_tokens));
                count(out, "cacheWriteTokens", usage.cache_write_tokens);
                count(out, "cacheReadTokens", usage.cache_read_tokens);
                count(out, "reasoningTokens", usage.reasoning_tokens);
                if let Some(Json::Number(cost)) = usage.total_cost.map(Json::from) {
                    out.push_str(",\"totalCost\":");
                    out.push_str(cost.as_str());
                }
                count(out, "contextTokens", usage.context_tokens);
                count(out, "compactionTokens", usage.compaction_tokens);
                if let Some(edits) = &usage.applied_edits {
                    out.push_str(",\"appliedEdits\":");
                    out.push_str(&edits.to_string());
                }
                if usage.whole {
                    out.push_str(",\"whole\":true");
                }
            }
            Self::Stop { reason, raw } => {
                out.push_str("{\"type\":\"stop\"");
                member(out, "reason", reason);
                optional(out, "raw", raw.as_ref());
            }
        }
        out.push('}');
    }
}
