//! The conversation: the model-facing history a task keeps and sends, as the reference loop
//! stores it. Messages hold Anthropic-shaped content blocks (text, image, tool_use,
//! tool_result, thinking, redacted_thinking, and `item` for another format's output items);
//! each request builder ([`crate::core::request`])
//! converts them to its provider's shape.

mod json;

#[cfg(target_arch = "wasm32")]
pub(crate) use json::strings_json;

use serde::{Deserialize, Serialize};

use crate::core::json::Json;
use crate::core::stream::Format;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (tool results travel as user content).
    User,
    /// The model.
    Assistant,
}

/// One history message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its content: a string, or content blocks.
    pub content: Content,
}

/// Message content: a plain string or a list of blocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Content blocks.
    Blocks(Vec<ContentBlock>),
}

impl Content {
    /// The content as blocks (a string becomes one text block).
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match self {
            Self::Text(text) => vec![ContentBlock::text(text.clone())],
            Self::Blocks(blocks) => blocks.clone(),
        }
    }
}

/// One block of message content, in Anthropic's shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Gemini: the `thoughtSignature` the text part came with, sent back on it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// OpenAI Responses: the message item's `phase` (`"commentary"`, `"final_answer"`),
        /// sent back on it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    /// An image.
    Image {
        /// Where the image is.
        source: ImageSource,
    },
    /// A native tool call the model made.
    ToolUse {
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments object.
        input: Json,
        /// Gemini: the `thoughtSignature` the call came with, sent back on it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// The result of a native tool call.
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// The result: a string or text/image blocks.
        content: Content,
        /// Whether the tool failed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    /// Reasoning the model did, sent back so the provider can continue it.
    Thinking {
        /// The reasoning text.
        thinking: String,
        /// The provider's signature (Anthropic's, or a Gemini thought part's
        /// `thoughtSignature`); unsigned reasoning is not sent back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// OpenAI Responses: the reasoning item's encrypted content. An item is sent back
        /// only with it (the provider keeps nothing with `store: false`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        /// OpenAI Responses: the reasoning item's summary parts (`thinking` shows them joined).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<Vec<String>>,
    },
    /// Encrypted reasoning, sent back as it came.
    RedactedThinking {
        /// The encrypted data.
        data: String,
    },
    /// A provider's compaction of the conversation before it (Anthropic's `compaction`
    /// block, an OpenAI Responses `compaction` item), sent back verbatim and in place to its
    /// own format only (CONTEXT §6). Fields in the history's (Anthropic's) snake case.
    Compaction {
        /// The format that compacted.
        provider: Format,
        /// Anthropic: the summary; `None` when the compaction failed (a server no-op, replayed
        /// as received).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// The provider's encrypted state of the compaction, sent back whole.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        /// OpenAI Responses: the item's id (`cmp_…`), the one item sent back with its id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// An output item clew does not interpret (an OpenAI Responses `file_search_call`, a
    /// Gemini `executableCode` part…), sent back whole and in place to its own format only.
    Item {
        /// The format it came from.
        format: Format,
        /// The item as the provider sent it.
        item: Json,
    },
}

impl ContentBlock {
    /// A plain text block.
    pub fn text(text: String) -> Self {
        Self::Text { text, signature: None, phase: None }
    }
}

/// An image's bytes or address.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    /// Base64 bytes.
    Base64 {
        /// `image/png`, `image/jpeg`…
        media_type: String,
        /// The bytes, base64.
        data: String,
    },
    /// An image on the web.
    Url {
        /// Its address.
        url: String,
    },
}
