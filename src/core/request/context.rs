//! Native context management (CONTEXT §6): what a request asks its provider to do about a
//! long context. Anthropic's and OpenAI Responses' builders write it into their bodies; Chat
//! Completions and Gemini have no such thing and ignore it.

use serde::{Deserialize, Serialize};

/// The native context management a request asks for: the provider's compaction past a
/// limit, and Anthropic's server-side edits.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeContext {
    /// The limit in input tokens past which the provider compacts (Anthropic's
    /// `compact_20260112` trigger, Responses' `compact_threshold`), and past which Anthropic's
    /// server edits clear; none asks for no compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_threshold: Option<u64>,
    /// Anthropic: the prompt of the compaction's summary, which replaces the provider's own
    /// entirely; none keeps the provider's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Anthropic: end the response after the compaction block (`stop_reason: "compaction"`),
    /// so that the caller adds to the view before the model goes on.
    #[serde(default)]
    pub pause_after_compaction: bool,
    /// Anthropic: server-side clearing of old thinking and tool uses; none asks for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edits: Option<ServerEdits>,
}

/// Anthropic's server-side context edits (`clear_thinking_20251015`, then
/// `clear_tool_uses_20250919`): the history stays whole on the client, the server clears it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ServerEdits {
    /// The newest tool uses kept whole (default 3).
    pub keep_tool_uses: u64,
    /// The thinking kept (default the newest assistant turn's); sent only when the request
    /// enables thinking, which the API requires of this edit.
    pub keep_thinking_turns: KeepThinking,
    /// Tools whose uses are never cleared.
    pub exclude_tools: Vec<String>,
    /// Whether a cleared tool use loses its input too, not only its result.
    pub clear_tool_inputs: bool,
    /// The fewest input tokens a clearing must free (0: no minimum).
    pub clear_at_least: u64,
}

impl Default for ServerEdits {
    fn default() -> Self {
        Self {
            keep_tool_uses: 3,
            keep_thinking_turns: KeepThinking::Turns(1),
            exclude_tools: Vec::new(),
            clear_tool_inputs: false,
            clear_at_least: 0,
        }
    }
}

/// The thinking Anthropic's `clear_thinking` edit keeps: in JSON a count of turns or `"all"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepThinking {
    /// The thinking of the newest this many assistant turns.
    Turns(u64),
    /// All of it: nothing is cleared, and the cached prefix stays whole.
    All,
}

impl Serialize for KeepThinking {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Turns(n) => serializer.serialize_u64(*n),
            Self::All => serializer.serialize_str("all"),
        }
    }
}

impl<'de> Deserialize<'de> for KeepThinking {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Turns(u64),
            Word(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Turns(n) => Ok(Self::Turns(n)),
            Raw::Word(word) if word == "all" => Ok(Self::All),
            Raw::Word(_) => Err(serde::de::Error::custom("keepThinkingTurns must be a number or \"all\"")),
        }
    }
}
