//! The loop's model chunks, shaped as the reference loop's stream chunks (AGENT-LOOP §2.2)
//! so that serializing one gives exactly the object a JavaScript user expects.

use serde::{Deserialize, Serialize};

use crate::json::{write_string, Json, JsonError, Reader};

/// One piece of a model's reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Chunk {
    /// Reply text.
    Text {
        /// The text piece.
        text: String,
    },
    /// Reasoning ("thinking") text, with what the provider needs to accept it back.
    Reasoning {
        /// The reasoning piece (may be empty when only a signature arrives).
        reasoning: String,
        /// The provider's signature of the reasoning block, to send back in the history.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// Encrypted reasoning the provider returned instead of text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redacted_data: Option<String>,
    },
    /// A piece of a native tool call.
    ToolCalls {
        /// The call.
        tool_call: ToolCall,
    },
    /// Token counts. Chunks of one reply add up to its totals.
    Usage(Usage),
    /// Why the model stopped (`"end_turn"`, `"tool_use"`, `"stop"`, `"length"`…).
    Stop {
        /// The provider's stop reason, as sent.
        reason: String,
    },
}

/// A piece of a native tool call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id of the call (also in `function.id`), to pair the result with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The function being called.
    pub function: ToolCallFunction,
}

/// The function part of a [`ToolCall`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallFunction {
    /// The provider's id of the call; the pieces of one call share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The next piece of the arguments' JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// Token counts (and a cost, when the provider reports one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    /// Input tokens not read from or written to the prompt cache.
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    /// Input tokens read from the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_tokens: Option<u64>,
    /// The cost the provider reported, in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<f64>,
}

/// Reads one chunk in its JSON shape (the "chunks" format): the fields of every kind are
/// read in one pass, then checked against the kind.
pub(crate) fn read_chunk(r: &mut Reader<'_>) -> Result<Chunk, JsonError> {
    let (mut kind, mut text, mut reasoning, mut signature, mut redacted_data, mut reason) =
        (None, None, None, None, None, None);
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
        "reason" => r.string_owned().map(|v| reason = v),
        "tool_call" if r.is_object() => read_tool_call(r).map(|call| tool_call = Some(call)),
        "inputTokens" => r.u64().map(|v| input = v),
        "outputTokens" => r.u64().map(|v| output = v),
        "cacheWriteTokens" => r.u64().map(|v| usage.cache_write_tokens = v),
        "cacheReadTokens" => r.u64().map(|v| usage.cache_read_tokens = v),
        "totalCost" => r.number().map(|v| usage.total_cost = v.map(|n| n.as_f64())),
        _ => r.skip(),
    })?;
    let missing = |reason: &'static str| JsonError { at: 0, reason };
    Ok(match kind.as_deref() {
        Some("text") => Chunk::Text { text: text.ok_or_else(|| missing("a text chunk needs `text`"))? },
        Some("reasoning") => Chunk::Reasoning { reasoning: reasoning.unwrap_or_default(), signature, redacted_data },
        Some("tool_calls") => {
            Chunk::ToolCalls { tool_call: tool_call.ok_or_else(|| missing("a tool_calls chunk needs `tool_call`"))? }
        }
        Some("usage") => {
            usage.input_tokens = input.unwrap_or(0);
            usage.output_tokens = output.unwrap_or(0);
            Chunk::Usage(usage)
        }
        Some("stop") => Chunk::Stop { reason: reason.ok_or_else(|| missing("a stop chunk needs `reason`"))? },
        Some(_) => return Err(missing("unknown chunk type")),
        None => return Err(missing("a chunk needs `type`")),
    })
}

fn read_tool_call(r: &mut Reader<'_>) -> Result<ToolCall, JsonError> {
    let mut call = ToolCall::default();
    let mut function = false;
    r.object(|r, key| match &*key {
        "call_id" => r.string_owned().map(|v| call.call_id = v),
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
    /// Appends the chunk's JSON (the shape JavaScript users get) to `out`.
    pub fn write_json(&self, out: &mut String) {
        match self {
            Self::Text { text } => {
                out.push_str("{\"type\":\"text\"");
                member(out, "text", text);
            }
            Self::Reasoning { reasoning, signature, redacted_data } => {
                out.push_str("{\"type\":\"reasoning\"");
                member(out, "reasoning", reasoning);
                optional(out, "signature", signature.as_ref());
                optional(out, "redacted_data", redacted_data.as_ref());
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
                out.push_str("}}");
            }
            Self::Usage(usage) => {
                out.push_str("{\"type\":\"usage\"");
                count(out, "inputTokens", Some(usage.input_tokens));
                count(out, "outputTokens", Some(usage.output_tokens));
                count(out, "cacheWriteTokens", usage.cache_write_tokens);
                count(out, "cacheReadTokens", usage.cache_read_tokens);
                if let Some(Json::Number(cost)) = usage.total_cost.map(Json::from) {
                    out.push_str(",\"totalCost\":");
                    out.push_str(cost.as_str());
                }
            }
            Self::Stop { reason } => {
                out.push_str("{\"type\":\"stop\"");
                member(out, "reason", reason);
            }
        }
        out.push('}');
    }

    /// A text chunk.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// A reasoning chunk with no signature.
    pub fn reasoning(reasoning: impl Into<String>) -> Self {
        Self::Reasoning { reasoning: reasoning.into(), signature: None, redacted_data: None }
    }

    /// A piece of the tool call `id`.
    pub fn tool_call(id: &str, name: Option<&str>, arguments: Option<&str>) -> Self {
        Self::ToolCalls {
            tool_call: ToolCall {
                call_id: Some(id.to_owned()),
                function: ToolCallFunction {
                    id: Some(id.to_owned()),
                    name: name.map(str::to_owned),
                    arguments: arguments.map(str::to_owned),
                },
            },
        }
    }
}

impl Usage {
    /// Adds `other` to these counts (saturating); a reported cost adds up too.
    pub fn add(&mut self, other: &Self) {
        fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
            match (a, b) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
            }
        }
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_write_tokens = sum(self.cache_write_tokens, other.cache_write_tokens);
        self.cache_read_tokens = sum(self.cache_read_tokens, other.cache_read_tokens);
        self.total_cost = match (self.total_cost, other.total_cost) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }
}
