//! `options.contextManagement` (CONTEXT §0): which strategy keeps a long task within its
//! model's context, the absolute cap, and each strategy's settings, read and checked once.

use serde::{Deserialize, Serialize};

use crate::core::first::First;
use crate::core::json::fields::{flag, list, object_member, string};
use crate::core::json::Json;
use crate::core::stream::model::ModelInfo;
use crate::core::stream::Format;

/// How the task keeps its requests within the context limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Cline's: remove the oldest half (or three quarters) of the conversation (§3).
    #[default]
    Truncate,
    /// Cline's auto-condense: the model summarizes the task, which goes on from the summary (§4).
    Summarize,
    /// Clear old tool results and thinking, then truncate if that was not enough (§5).
    Edit,
    /// The provider compacts (Anthropic compaction, OpenAI Responses compaction) (§6).
    Native,
    /// Native where the provider has it, else summarize where the model can, else truncate (§7).
    Auto,
}

impl Strategy {
    /// The option's words, in the order of the enum.
    pub const NAMES: [&'static str; 5] = ["truncate", "summarize", "edit", "native", "auto"];
}

/// The edit pre-pass's settings (§5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EditConfig {
    /// The newest tool results kept intact (default 3).
    pub keep_tool_uses: u64,
    /// The newest assistant turns whose reasoning is sent (default 1); `None`: all.
    pub keep_thinking_turns: Option<u64>,
    /// Tools whose results are never cleared.
    pub exclude_tools: Vec<String>,
    /// A cleared result's call is sent with `{}` as its input.
    pub clear_tool_inputs: bool,
    /// A pass that would save fewer tokens (estimated as characters / 4) does nothing.
    pub clear_at_least: u64,
    /// What a cleared result holds; `None`: clew's own notice.
    pub placeholder: Option<String>,
}

impl Default for EditConfig {
    fn default() -> Self {
        Self {
            keep_tool_uses: 3,
            keep_thinking_turns: Some(1),
            exclude_tools: Vec::new(),
            clear_tool_inputs: false,
            clear_at_least: 0,
            placeholder: None,
        }
    }
}

/// The summarize strategy's settings (§4.2).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummarizeConfig {
    /// Summarize with any model, not only the reference's "next-gen" ones.
    pub all_models: bool,
    /// Appended to the summary instruction as a focus hint.
    pub instructions: Option<String>,
    /// The host reads the files a summary names (`readRequiredFiles`).
    pub read_required_files: bool,
}

/// The native strategy's settings (§6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NativeConfig {
    /// Replaces the provider's compaction prompt (Anthropic).
    pub instructions: Option<String>,
    /// Anthropic: the response stops after the compaction block (default true).
    pub pause_after_compaction: bool,
    /// Requests start at the newest compaction (default true).
    pub drop_compacted: bool,
    /// OpenAI Responses: compact through `/responses/compact` instead of inline.
    pub endpoint: bool,
    /// Anthropic: the server clears tool uses and thinking (instead of the edit pre-pass).
    pub server_edits: bool,
}

impl Default for NativeConfig {
    fn default() -> Self {
        Self {
            instructions: None,
            pause_after_compaction: true,
            drop_compacted: true,
            endpoint: false,
            server_edits: false,
        }
    }
}

/// Everything `options.contextManagement` says, with what the model allows resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContextConfig {
    /// The strategy as given.
    pub strategy: Strategy,
    /// The absolute cap on a request's context, in tokens.
    pub max_context_tokens: Option<u64>,
    /// Automatic compactions in a row that leave the context over the limit before the task
    /// fails (default 3, §8).
    pub max_consecutive_compactions: u64,
    /// The edit pre-pass, when configured (always with strategy `edit`).
    pub edit: Option<EditConfig>,
    /// The summarize strategy's settings.
    pub summarize: SummarizeConfig,
    /// The native strategy's settings.
    pub native: NativeConfig,
    /// The format and model compact natively (§6.1).
    pub native_supported: bool,
    /// The model may summarize (a "next-gen" model, or `summarize.models: "all"`).
    pub summarize_eligible: bool,
    /// The model refuses reasoning from before a compaction (its documentation says it is
    /// not carried): with `dropCompacted: false`, none is sent.
    pub refuses_old_thinking: bool,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            strategy: Strategy::Truncate,
            max_context_tokens: None,
            max_consecutive_compactions: 3,
            edit: None,
            summarize: SummarizeConfig::default(),
            native: NativeConfig::default(),
            native_supported: false,
            summarize_eligible: false,
            refuses_old_thinking: false,
        }
    }
}

/// Anthropic refuses a compaction trigger below this many input tokens.
pub(super) const ANTHROPIC_COMPACTION_FLOOR: u64 = 50_000;

impl ContextConfig {
    /// The limit: the smaller of the window's budget and the cap (§1.1).
    pub fn limit(&self, info: &ModelInfo) -> u64 {
        let budget = super::max_allowed_tokens(info.context_window);
        self.max_context_tokens.map_or(budget, |cap| cap.min(budget))
    }

    /// The strategy in force: `auto` resolved (to its fallback once a provider refused the
    /// native request), `summarize` on a model that cannot is `truncate`.
    pub fn effective(&self, fell_back: bool) -> Strategy {
        let fallback = if self.summarize_eligible { Strategy::Summarize } else { Strategy::Truncate };
        match self.strategy {
            Strategy::Auto if self.native_supported && !fell_back => Strategy::Native,
            Strategy::Auto | Strategy::Summarize => fallback,
            other => other,
        }
    }

    /// Reads `options.contextManagement` for a model `model_id` of `format`.
    /// `read_required_files`: the host gave `summarize.readRequiredFiles`.
    ///
    /// # Errors
    /// The first setting that cannot work (`options.contextManagement.strategy must be …`).
    pub fn from_json(
        options: &Json,
        model_id: &str,
        info: &ModelInfo,
        format: Format,
        read_required_files: bool,
    ) -> Result<Self, String> {
        let Some(value) = object_member(options, "options", "contextManagement")? else {
            return Ok(Self::default());
        };
        let mut first = First::default();
        let strategy = match first.take(string(value, AT, "strategy")).as_deref() {
            None | Some("truncate") => Strategy::Truncate,
            Some("summarize") => Strategy::Summarize,
            Some("edit") => Strategy::Edit,
            Some("native") => Strategy::Native,
            Some("auto") => Strategy::Auto,
            Some(_) => {
                first.note(must(AT, "strategy", "\"truncate\", \"summarize\", \"edit\", \"native\" or \"auto\""));
                Strategy::Truncate
            }
        };
        let positive = |field: &str| match whole(value, AT, field) {
            Ok(Some(0)) | Err(_) => Err(must(AT, field, "a positive whole number")),
            other => other,
        };
        let max_context_tokens = first.take(positive("maxContextTokens"));
        let max_consecutive_compactions = first.take(positive("maxConsecutiveCompactions")).unwrap_or(3);
        let edit = match value.get("edit") {
            None | Some(Json::Bool(false) | Json::Null) => None,
            Some(Json::Bool(true)) => Some(EditConfig::default()),
            Some(edit) => first.take(edit_config(edit).map(Some)),
        };
        let edit = if strategy == Strategy::Edit { Some(edit.unwrap_or_default()) } else { edit };
        let empty = Json::object();
        let summarize = first.take(object_member(value, AT, "summarize")).unwrap_or(&empty);
        let all_models = match first.take(string(summarize, SUMMARIZE_AT, "models")).as_deref() {
            None | Some("next-gen") => false,
            Some("all") => true,
            Some(_) => {
                first.note(must(SUMMARIZE_AT, "models", "\"next-gen\" or \"all\""));
                false
            }
        };
        let summarize = SummarizeConfig {
            all_models,
            instructions: first.take(string(summarize, SUMMARIZE_AT, "instructions")),
            read_required_files,
        };
        let native = first.take(object_member(value, AT, "native")).unwrap_or(&empty);
        if !matches!(first.take(string(native, NATIVE_AT, "openai")).as_deref(), None | Some("inline")) {
            // NOTE: compaction through `/responses/compact` (CONTEXT §6.3) is not built yet.
            first.note(must(NATIVE_AT, "openai", "\"inline\" (\"endpoint\" is not supported yet)"));
        }
        let mut flag_or = |field: &str, default: bool| first.take(flag(native, NATIVE_AT, field)).unwrap_or(default);
        let (pause_after_compaction, drop_compacted, server_edits) =
            (flag_or("pauseAfterCompaction", true), flag_or("dropCompacted", true), flag_or("serverEdits", false));
        let native = NativeConfig {
            instructions: first.take(string(native, NATIVE_AT, "instructions")),
            pause_after_compaction,
            drop_compacted,
            endpoint: false,
            server_edits,
        };
        let has = |name: &str| crate::core::text::contains(model_id, name);
        let mut config = Self {
            strategy,
            max_context_tokens,
            max_consecutive_compactions,
            edit,
            summarize,
            native,
            native_supported: false,
            summarize_eligible: all_models || super::models::is_next_gen(model_id),
            refuses_old_thinking: ["fable-5-1", "fable-5.1", "mythos-5-1", "mythos-5.1"].iter().any(|name| has(name)),
        };
        config.native_supported = match format {
            Format::OpenAiResponses => true,
            Format::Anthropic => {
                (info.supports_compaction || super::models::supports_native_compaction(model_id))
                    && config.limit(info) >= ANTHROPIC_COMPACTION_FLOOR
            }
            _ => false,
        };
        if strategy == Strategy::Native && !config.native_supported {
            first.note(
                [
                    AT,
                    ".strategy \"native\" needs OpenAI Responses, or Anthropic with a listed model (or \
                     model.info.supportsCompaction) and a limit of at least 50000 tokens",
                ]
                .concat(),
            );
        }
        first.or(config)
    }
}

/// Where the options are, for errors.
const AT: &str = "options.contextManagement";
const EDIT_AT: &str = "options.contextManagement.edit";
const SUMMARIZE_AT: &str = "options.contextManagement.summarize";
const NATIVE_AT: &str = "options.contextManagement.native";

/// `<at>.<field> must be <what>`.
fn must(at: &str, field: &str, what: &str) -> String {
    [at, ".", field, " must be ", what].concat()
}

/// `value[field]` as a whole number, 0 or more (`count` would take 1.5 as 1).
fn whole(value: &Json, at: &str, field: &str) -> Result<Option<u64>, String> {
    match value.get(field) {
        None => Ok(None),
        Some(n) => n.as_u64().map(Some).ok_or_else(|| must(at, field, "a whole number, 0 or more")),
    }
}

/// Reads `contextManagement.edit` given as an object.
fn edit_config(edit: &Json) -> Result<EditConfig, String> {
    let at = EDIT_AT;
    if !edit.is_object() {
        return Err([at, " must be false, true or an object"].concat());
    }
    let mut first = First::default();
    let keep_thinking_turns = match edit.get("keepThinkingTurns") {
        None => Some(1),
        Some(Json::String(all)) if all == "all" => None,
        Some(_) => match whole(edit, at, "keepThinkingTurns") {
            Ok(Some(turns)) => Some(turns),
            _ => {
                first.note(must(at, "keepThinkingTurns", "a whole number or \"all\""));
                None
            }
        },
    };
    let mut exclude_tools = Vec::new();
    for name in first.take(list(edit, at, "excludeTools")) {
        match name.as_str() {
            Some(name) => exclude_tools.push(name.to_owned()),
            None => first.note(must(at, "excludeTools", "tool names")),
        }
    }
    let config = EditConfig {
        keep_tool_uses: first.take(whole(edit, at, "keepToolUses")).unwrap_or(3),
        keep_thinking_turns,
        exclude_tools,
        clear_tool_inputs: first.take(flag(edit, at, "clearToolInputs")).unwrap_or(false),
        clear_at_least: first.take(whole(edit, at, "clearAtLeast")).unwrap_or(0),
        placeholder: first.take(string(edit, at, "placeholder")),
    };
    first.or(config)
}
