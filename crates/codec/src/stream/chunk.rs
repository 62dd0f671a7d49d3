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
        /// OpenAI Responses: the reasoning item's encrypted content, to send back in the
        /// history (`store: false` keeps nothing on the server).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        /// OpenAI Responses: the reasoning item's summary parts, as the provider finished them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<Vec<String>>,
    },
    /// The end of a part of the reply text: the text since the previous end is one part,
    /// sent back with these fields. With no text since the previous end it is a part of its
    /// own with empty text (Gemini may sign an empty text part).
    TextEnd {
        /// Gemini: the part's `thoughtSignature`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// OpenAI Responses: the message item's `phase` (`"commentary"`, `"final_answer"`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    /// An output item clew does not interpret (an OpenAI Responses `file_search_call`, a
    /// Gemini `executableCode` part…), kept whole and in order in the history.
    Item {
        /// The item as the provider sent it.
        item: Json,
    },
    /// A piece of a native tool call.
    ToolCalls {
        /// The call.
        tool_call: ToolCall,
    },
    /// Token counts. Chunks of one reply add up to its totals.
    Usage(Usage),
    /// Why the model stopped (`"end_turn"`, `"tool_use"`, `"stop"`, `"length"`,
    /// `"max_tokens"`, `"content_filter"`, `"malformed_tool_call"`…).
    Stop {
        /// The stop reason: as the provider sent it (Anthropic, OpenAI Chat), or in clew's
        /// words for the formats whose reasons differ by case or live elsewhere (OpenAI
        /// Responses, Gemini).
        reason: String,
        /// The provider's own reason when `reason` is clew's word for it (Gemini's
        /// `"SAFETY"`, `"RECITATION"`…).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        raw: Option<String>,
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
    /// Gemini: the call's `thoughtSignature`, to send back on the same call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The piece's `arguments` are the call's whole arguments, replacing every piece before
    /// (OpenAI Responses: the `.done` arguments win over the deltas when they differ).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
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
    /// How many of `output_tokens` were reasoning (already inside `output_tokens`: never
    /// add them again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

/// Reads one chunk in its JSON shape (the "chunks" format): the fields of every kind are
/// read in one pass, then checked against the kind.
pub(crate) fn read_chunk(r: &mut Reader<'_>) -> Result<Chunk, JsonError> {
    let (mut kind, mut text, mut reasoning, mut signature, mut redacted_data, mut reason) =
        (None, None, None, None, None, None);
    let (mut encrypted_content, mut summary, mut phase, mut raw, mut item) = (None, None, None, None, None);
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
            }
            Self::Stop { reason, raw } => {
                out.push_str("{\"type\":\"stop\"");
                member(out, "reason", reason);
                optional(out, "raw", raw.as_ref());
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
        Self::Reasoning {
            reasoning: reasoning.into(),
            signature: None,
            redacted_data: None,
            encrypted_content: None,
            summary: None,
        }
    }

    /// A stop chunk with the provider's reason as sent.
    pub fn stop(reason: impl Into<String>) -> Self {
        Self::Stop { reason: reason.into(), raw: None }
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
                signature: None,
                whole: false,
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
        self.reasoning_tokens = sum(self.reasoning_tokens, other.reasoning_tokens);
        self.total_cost = match (self.total_cost, other.total_cost) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }
}
