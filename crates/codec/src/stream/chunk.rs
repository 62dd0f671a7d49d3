//! The loop's model chunks, shaped as the reference loop's stream chunks (AGENT-LOOP §2.2)
//! so that serializing one gives exactly the object a JavaScript user expects.

use serde::{Deserialize, Serialize};

use crate::json::Json;

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
    /// A provider's compaction of the conversation, whole (CONTEXT §6): Anthropic's
    /// `compaction` block (its deltas joined) or an OpenAI Responses `compaction` item (as
    /// `output_item.done` has it). Never reply text, never a tool call.
    Compaction {
        /// Anthropic: the summary; `None` when the server could not compact.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// The provider's encrypted state, to send back whole.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        /// OpenAI Responses: the item's id (`cmp_…`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
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
    /// The context size of the reply's last model pass (its input, cache writes, cache reads
    /// and output), when that differs from the reply's billed sum: with Anthropic's usage
    /// `iterations`, the last `message` step (CONTEXT §1.2). The last chunk that has it wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// With Anthropic's usage `iterations`: the input side (input, cache writes, cache reads)
    /// of the compaction step, the context the server compacted. The last chunk that has it
    /// wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_tokens: Option<u64>,
    /// Anthropic context editing: the `applied_edits` the server reports, as sent (empty is
    /// normal). The last chunk that has them wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_edits: Option<Json>,
    /// The counts are the reply's whole counts so far, replacing what earlier usage chunks of
    /// the reply said rather than adding to it (Gemini's last `usageMetadata` is its last
    /// word, even when smaller than an earlier one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
}

impl Chunk {
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

    /// Takes `other`'s counts (and cost) back out of these (saturating): the inverse of
    /// [`add`](Self::add), for counts a later chunk replaces.
    pub fn take_back(&mut self, other: &Self) {
        let less = |a: Option<u64>, b: Option<u64>| a.map(|a| a.saturating_sub(b.unwrap_or(0)));
        self.input_tokens = self.input_tokens.saturating_sub(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_sub(other.output_tokens);
        self.cache_write_tokens = less(self.cache_write_tokens, other.cache_write_tokens);
        self.cache_read_tokens = less(self.cache_read_tokens, other.cache_read_tokens);
        self.reasoning_tokens = less(self.reasoning_tokens, other.reasoning_tokens);
        self.total_cost = self.total_cost.map(|cost| cost - other.total_cost.unwrap_or(0.0));
    }
}
