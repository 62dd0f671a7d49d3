//! The loop's model chunks, shaped as the reference loop's stream chunks (AGENT-LOOP §2.2)
//! so that serializing one gives exactly the object a JavaScript user expects.

use serde::{Deserialize, Serialize};

/// One piece of a model's reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "WireChunk")]
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

/// Any chunk's fields, flat: what JSON input is read into before it becomes a [`Chunk`].
///
/// NOTE: a derived `#[serde(tag = "type")]` reader buffers every value first; reading
/// this flat struct instead keeps the wasm build much smaller.
#[derive(Deserialize)]
struct WireChunk {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    reasoning: Option<String>,
    signature: Option<String>,
    redacted_data: Option<String>,
    tool_call: Option<ToolCall>,
    #[serde(rename = "inputTokens")]
    input_tokens: Option<u64>,
    #[serde(rename = "outputTokens")]
    output_tokens: Option<u64>,
    #[serde(rename = "cacheWriteTokens")]
    cache_write_tokens: Option<u64>,
    #[serde(rename = "cacheReadTokens")]
    cache_read_tokens: Option<u64>,
    #[serde(rename = "totalCost")]
    total_cost: Option<f64>,
    reason: Option<String>,
}

impl TryFrom<WireChunk> for Chunk {
    type Error = String;

    fn try_from(wire: WireChunk) -> Result<Self, String> {
        let missing = |field: &str| format!("a {} chunk needs `{field}`", wire.kind);
        Ok(match wire.kind.as_str() {
            "text" => Self::Text { text: wire.text.ok_or_else(|| missing("text"))? },
            "reasoning" => Self::Reasoning {
                reasoning: wire.reasoning.unwrap_or_default(),
                signature: wire.signature,
                redacted_data: wire.redacted_data,
            },
            "tool_calls" => Self::ToolCalls { tool_call: wire.tool_call.ok_or_else(|| missing("tool_call"))? },
            "usage" => Self::Usage(Usage {
                input_tokens: wire.input_tokens.unwrap_or(0),
                output_tokens: wire.output_tokens.unwrap_or(0),
                cache_write_tokens: wire.cache_write_tokens,
                cache_read_tokens: wire.cache_read_tokens,
                total_cost: wire.total_cost,
            }),
            "stop" => Self::Stop { reason: wire.reason.ok_or_else(|| missing("reason"))? },
            other => return Err(format!("unknown chunk type \"{other}\"")),
        })
    }
}

impl Chunk {
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
