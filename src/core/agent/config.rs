//! What a task is set up with: tools, approval, retries, timeouts, limits, prompt parts.
//!
//! Plain data, validated once by [`TaskConfig::validate`]; the callbacks that perform tools,
//! asks and hooks live with the driver, which tells the core only which of them exist.

use serde::{Deserialize, Serialize};

pub(crate) use super::tool_spec::Describer;
pub use super::tool_spec::{DescribeFn, McpServerSettings, ParamSpec, ToolSource, ToolSpec};

use crate::core::json::Json;
use crate::core::parser::{ToolSet, ToolSetError};
use crate::core::stream::model::ModelInfo;
use crate::core::stream::Format;

/// The built-in tool that offers the task's result to the user.
pub const ATTEMPT_COMPLETION: &str = "attempt_completion";
/// The built-in tool that asks the user a question.
pub const ASK_FOLLOWUP_QUESTION: &str = "ask_followup_question";

/// Which tool calls run without asking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoApprove {
    /// Read-only tools run without asking.
    #[serde(default)]
    pub read_only: bool,
    /// Every tool runs without asking.
    #[serde(default)]
    pub all: bool,
}

/// How the model is asked to call tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolCalling {
    /// Tool calls written as XML tags in the reply text (the reference's default).
    #[default]
    Xml,
    /// Tool definitions sent with each request; the provider streams structured calls.
    Native,
}

/// The one retry policy of a task (AGENT-LOOP §13: the reference's two layers collapsed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// Automatic retries after the first failure, before the user is asked.
    pub max_retries: u32,
    /// The first delay; each later one doubles.
    pub base_delay_ms: u64,
    /// The longest computed delay (a server's `retry-after` may ask for more).
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { max_retries: 3, base_delay_ms: 2_000, max_delay_ms: 60_000 }
    }
}

impl RetryPolicy {
    /// The delay before automatic retry number `attempt` (1-based).
    pub fn delay_ms(&self, attempt: u32) -> u64 {
        let doublings = attempt.saturating_sub(1).min(40);
        self.base_delay_ms.saturating_mul(1u64 << doublings).min(self.max_delay_ms)
    }
}

/// How long a model stream may stay silent before it counts as a retryable failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeouts {
    /// From opening the request to its first byte; `None` waits forever.
    pub first_byte_ms: Option<u64>,
    /// Between two reads of the body; `None` waits forever.
    pub idle_ms: Option<u64>,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self { first_byte_ms: Some(120_000), idle_ms: Some(120_000) }
    }
}

/// Limits a user sets per task; reaching one ends the task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Most model requests (retries included).
    pub max_requests: Option<u64>,
    /// Most spending, in US dollars.
    pub max_cost: Option<f64>,
}

/// Which hooks the driver has callbacks for. The core asks only for those.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookSet {
    /// Before the first request.
    pub task_start: bool,
    /// When the task is aborted.
    pub task_cancel: bool,
    /// When a result is offered with attempt_completion.
    pub task_complete: bool,
    /// Before a tool call is approved and run.
    pub pre_tool_use: bool,
    /// After a tool call ran.
    pub post_tool_use: bool,
}

/// Everything a [`Task`](super::Task) is set up with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskConfig {
    /// The format of the model stream's bytes.
    pub format: Format,
    /// The model's context window and prices (cost, proactive context management).
    pub info: ModelInfo,
    /// The user's tools (the two built-ins are added by the task).
    pub tools: Vec<ToolSpec>,
    /// Which calls run without asking.
    pub auto_approve: AutoApprove,
    /// Approve everything, answer follow-up questions with a notice, and fail the task at
    /// the mistake limit instead of asking.
    pub yolo: bool,
    /// Consecutive mistakes before the user is asked (default 3).
    pub max_consecutive_mistakes: u32,
    /// Whether several tools of one reply may run; off, only the first one does.
    pub parallel_tool_calling: bool,
    /// XML tags in the text or native tool calls.
    pub tool_calling: ToolCalling,
    /// Retry policy for failed requests.
    pub retry: RetryPolicy,
    /// Stream silence limits.
    pub timeouts: Timeouts,
    /// Per-task limits.
    pub limits: Limits,
    /// Least time between two partial updates of one message (default 40 ms; 0: none).
    /// Whatever it is, once a message's text is 1 KiB long its next partial update also
    /// waits until the text has grown by an eighth since the last one sent.
    pub presentation_interval_ms: u64,
    /// Replaces the default system prompt's introduction.
    pub system_prompt: Option<String>,
    /// The user's rules, appended to the system prompt.
    pub rules: Option<String>,
    /// A description of the environment, appended to the system prompt.
    pub environment: Option<String>,
    /// Whether checkpoints are saved (the driver has a `save` callback).
    pub checkpoints: bool,
    /// Whether the task's state is stored at every waiting point ([`Effect::Persist`](super::Effect::Persist)).
    pub persist: bool,
    /// Which hooks exist.
    pub hooks: HookSet,
    /// Whether someone answers asks (the driver has an `ask` callback). Without, every
    /// complete ask is declined as it goes out: no one can approve a tool, answer a question
    /// or agree to retry.
    pub asks: bool,
    /// The MCP servers of the options (the host lists and calls them: before each request
    /// the task asks for their listing, [`Effect::ListMcpServers`](super::Effect::ListMcpServers)).
    #[serde(skip)]
    pub mcp_servers: Vec<McpServerSettings>,
    /// How long the task waits for its MCP servers' listing before each request
    /// (`options.timeouts.mcpListingMs`, default 10 s); the servers still being listed then
    /// are reported and left out. `None` waits for them.
    #[serde(skip)]
    pub mcp_listing_ms: Option<u64>,
    /// Context management (`options.contextManagement`).
    #[serde(default)]
    pub context: super::context::ContextConfig,
}

/// Consecutive mistakes before the user is asked how to go on (the reference's default).
pub(crate) const DEFAULT_MAX_CONSECUTIVE_MISTAKES: u32 = 3;
/// Milliseconds between two partial updates of one message (the reference's local default).
pub(crate) const DEFAULT_PRESENTATION_INTERVAL_MS: u64 = 40;

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            format: Format::Anthropic,
            info: ModelInfo::default(),
            tools: Vec::new(),
            auto_approve: AutoApprove::default(),
            yolo: false,
            max_consecutive_mistakes: DEFAULT_MAX_CONSECUTIVE_MISTAKES,
            parallel_tool_calling: false,
            tool_calling: ToolCalling::Xml,
            retry: RetryPolicy::default(),
            timeouts: Timeouts::default(),
            limits: Limits::default(),
            presentation_interval_ms: DEFAULT_PRESENTATION_INTERVAL_MS,
            system_prompt: None,
            rules: None,
            environment: None,
            checkpoints: false,
            persist: false,
            hooks: HookSet::default(),
            asks: true,
            mcp_servers: Vec::new(),
            mcp_listing_ms: Some(super::mcp::DEFAULT_MCP_LISTING_MS),
            context: super::context::ContextConfig::default(),
        }
    }
}

/// A setting that cannot work, naming the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The option's path, as a JavaScript user writes it (`tools[2].name`).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

impl TaskConfig {
    /// Checks the settings and builds the parser's tool set: the user's tools and
    /// parameters plus the two built-ins.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first field that cannot work.
    pub fn validate(&self) -> Result<ToolSet, ConfigError> {
        let error = |field: String, message: &str| ConfigError { field, message: message.to_owned() };
        if self.max_consecutive_mistakes == 0 {
            return Err(error("maxConsecutiveMistakes".into(), "must be at least 1"));
        }
        if self.limits.max_cost.is_some_and(|cost| !cost.is_finite() || cost < 0.0) {
            return Err(error("limits.maxCost".into(), "must be a finite number of dollars, 0 or more"));
        }
        let mut set = ToolSet::empty();
        let named = |e: ToolSetError| e.to_string();
        for builtin in [ATTEMPT_COMPLETION, ASK_FOLLOWUP_QUESTION] {
            set.add_tool(builtin).map_err(|e| error("tools".into(), &named(e)))?;
        }
        for param in ["result", "question", "options"] {
            set.add_param(param).map_err(|e| error("tools".into(), &named(e)))?;
        }
        for (i, tool) in self.tools.iter().enumerate() {
            if set.tool_id(&tool.name).is_some() {
                return Err(error(format!("tools[{i}].name"), "names a tool that already exists"));
            }
            set.add_tool(&tool.name).map_err(|e| error(format!("tools[{i}].name"), &named(e)))?;
            for (j, param) in tool.parameters.iter().enumerate() {
                if set.param_id(&param.name).is_none() {
                    set.add_param(&param.name)
                        .map_err(|e| error(format!("tools[{i}].parameters[{j}].name"), &named(e)))?;
                }
            }
            if let Some(schema) = &tool.input_schema {
                if Json::parse(schema).map_or(true, |v| !v.is_object()) {
                    return Err(error(format!("tools[{i}].inputSchema"), "must be a JSON Schema object"));
                }
            }
        }
        Ok(set)
    }

    /// The user's tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|tool| tool.name == name)
    }
}
