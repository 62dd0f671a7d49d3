//! What the machine asks its driver to do, and how a task ends.

use super::tags::PersistReason;
use serde::{Deserialize, Serialize};

use super::message::Message;
use crate::core::conversation::ImageSource;
use crate::core::request::ModelRequest;
use crate::core::stream::Format;

/// A hook the driver may run. Its position (`kind as usize`) is its slot among the options'
/// hooks ([`HOOK_NAMES`](super::HOOK_NAMES), [`CallbackSlots::hooks`](super::CallbackSlots)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HookKind {
    /// Before the first request; may cancel the task or add context.
    TaskStart,
    /// When the task is aborted; not awaited.
    TaskCancel,
    /// When attempt_completion offers a result, before the user is asked.
    TaskComplete,
    /// Before a tool call is approved; may block it or add context.
    PreToolUse,
    /// After a tool call ran; may cancel the task or add context.
    PostToolUse,
}

/// Which checkpoint to save.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckpointKind {
    /// Before the first round's tools change anything; tools that write wait for it.
    Initial,
    /// After a round's tools ran.
    Round,
}

/// One thing for the driver to do. Take them with [`Task::poll_effect`](super::Task::poll_effect)
/// and perform them in order.
// NOTE: `OpenStream` carries the request by value: it is built once per request and moved
// into the driver, where a box would add an allocation per request (clippy's line is 200
// bytes of difference between variants; the request's native context brought it to 201).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Open a model stream with `request` (its `model` is left for the driver to fill), and
    /// feed its bytes back tagged `stream`.
    OpenStream {
        /// The stream's id, for the events of its bytes, end or failure.
        stream: u64,
        /// System prompt, history and (native mode) tool definitions.
        request: ModelRequest,
        /// The provider's wire format: how the request is written and how the stream's bytes
        /// are read (the task's `model.format`).
        format: Format,
        /// For each of `request.messages`, the index of the history message it is, unchanged
        /// (`None` for a message this request changed: the truncation notice, a tool call
        /// turned into text). A driver may reuse what it made of that message for an earlier
        /// request instead of converting the whole history every round.
        unchanged: Vec<Option<usize>>,
    },
    /// List the MCP servers (options with servers, before each request: the stream opens
    /// after) and answer with [`Task::handle_mcp_servers`](super::Task::handle_mcp_servers):
    /// the servers' raw listing, or an empty text when nothing changed since the last one.
    ListMcpServers {
        /// The listing's id (the id of the stream that waits), for the answer.
        id: u64,
    },
    /// Stop reading stream `stream` and cancel its request.
    CancelStream {
        /// The stream's id.
        stream: u64,
    },
    /// Show a say message, or update the one with the same `ts`.
    Say(Message),
    /// Show an ask. A complete ask waits for
    /// [`Task::handle_ask_answer`](super::Task::handle_ask_answer) with its `ts`; a partial
    /// one is never answered.
    Ask(Message),
    /// Run a tool and answer with [`Task::handle_tool_done`](super::Task::handle_tool_done).
    RunTool {
        /// The call's id, for the answer.
        id: u64,
        /// The tool's name.
        name: String,
        /// Its parameters, in the order the model wrote them; values are strings (native
        /// non-string values as JSON text).
        params: Vec<(String, String)>,
    },
    /// Read the files a summary names (`contextManagement.summarize.readRequiredFiles`) and
    /// answer with [`Task::handle_required_files`](super::Task::handle_required_files).
    ReadRequiredFiles {
        /// The read's id, for the answer.
        id: u64,
        /// The paths, at most 10.
        paths: Vec<String>,
    },
    /// Cancel a running tool call (abort or timeout); its late answer is ignored.
    CancelTool {
        /// The call's id.
        id: u64,
    },
    /// Save a checkpoint and answer with
    /// [`Task::handle_checkpoint_saved`](super::Task::handle_checkpoint_saved).
    SaveCheckpoint {
        /// The request's id, for the answer.
        id: u64,
        /// Which checkpoint.
        kind: CheckpointKind,
    },
    /// Run a hook and answer with [`Task::handle_hook_done`](super::Task::handle_hook_done),
    /// except for [`HookKind::TaskCancel`], which is not awaited.
    RunHook {
        /// The request's id, for the answer.
        id: u64,
        /// Which hook.
        kind: HookKind,
        /// The tool's name, for tool hooks.
        tool: Option<String>,
        /// The tool's parameters, for tool hooks.
        params: Vec<(String, String)>,
        /// The tool's result text, for `PostToolUse`.
        result: Option<String>,
    },
    /// Call [`Task::handle_timeout`](super::Task::handle_timeout) at this time (ms); replaces
    /// any earlier wake-up. `None`: no wake-up is needed. A wake-up may come early (nothing
    /// is due then, and the task asks again).
    WakeAt(Option<u64>),
    /// Store the task before the next effect, which starts a wait (only with
    /// [`TaskConfig::persist`](super::TaskConfig::persist)); wait until it is stored before
    /// performing anything else. Storing failed: [`Task::fail`](super::Task::fail).
    Persist {
        /// Why: before an ask, a tool, a hook, a checkpoint or a retry delay, a message that
        /// entered the history (`Round`), or the end.
        reason: PersistReason,
        /// What changed since the last one ([`Task::snapshot_changes`](super::Task::snapshot_changes)).
        changes: String,
        /// When the task next needs a wake-up (a retry delay's end, a timeout), if ever: a
        /// host that may be stopped meanwhile (a Durable Object) sets its own alarm for it.
        wake: Option<u64>,
    },
    /// The task ended; nothing follows.
    Finished(Outcome),
}

/// How a task ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum Outcome {
    /// The user accepted an attempt_completion result.
    Completed {
        /// The result the model offered.
        result: String,
    },
    /// The user declined to go on, or a configured limit was reached.
    Ended {
        /// Why, as a stable code.
        code: String,
        /// Why, for people.
        message: String,
    },
    /// [`Task::abort`](super::Task::abort) was called.
    Aborted {
        /// The reason given to abort.
        reason: String,
    },
    /// The loop could not go on and no one could be asked.
    Failed {
        /// Why, as a stable code.
        code: String,
        /// Why, for people.
        message: String,
    },
}

impl Outcome {
    pub(crate) fn ended(code: &str, message: impl Into<String>) -> Self {
        Self::Ended { code: code.to_owned(), message: message.into() }
    }

    pub(crate) fn failed(code: &str, message: impl Into<String>) -> Self {
        Self::Failed { code: code.to_owned(), message: message.into() }
    }
}

/// What a tool call returned.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// The result text.
    pub text: String,
    /// Images the tool returned.
    #[serde(default)]
    pub images: Vec<ImageSource>,
    /// Whether the tool failed (threw or rejected): the text is its error message.
    #[serde(default)]
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: text.into(), images: Vec::new(), is_error: false }
    }

    /// A failure with its message.
    pub fn error(message: impl Into<String>) -> Self {
        Self { text: message.into(), images: Vec::new(), is_error: true }
    }
}

/// What a hook answered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookResult {
    /// Cancel the task (`TaskStart`, `PostToolUse`) or block the call (`PreToolUse`).
    #[serde(default)]
    pub cancel: bool,
    /// Text to add to the model's context.
    #[serde(default)]
    pub context: Option<String>,
}

/// Stable codes of outcomes.
pub mod codes {
    /// The user declined to retry a failed request.
    pub const API_REQ_FAILED: &str = "CLEW_API_REQ_FAILED";
    /// Automatic retries ran out with no one to ask (YOLO).
    pub const RETRIES_EXHAUSTED: &str = "CLEW_RETRIES_EXHAUSTED";
    /// The mistake limit was reached (declined, or YOLO).
    pub const MISTAKE_LIMIT: &str = "CLEW_MISTAKE_LIMIT";
    /// The request limit was reached.
    pub const REQUEST_LIMIT: &str = "CLEW_REQUEST_LIMIT";
    /// The cost limit was reached.
    pub const COST_LIMIT: &str = "CLEW_COST_LIMIT";
    /// The user declined the completion without feedback.
    pub const COMPLETION_DECLINED: &str = "CLEW_COMPLETION_DECLINED";
    /// The user declined to resume a task restored from its history.
    pub const RESUME_DECLINED: &str = "CLEW_RESUME_DECLINED";
    /// The host could not store the task's snapshot (`options.persist` threw or rejected).
    pub const PERSIST_FAILED: &str = "CLEW_PERSIST_FAILED";
    /// A hook cancelled the task.
    pub const HOOK_CANCELLED: &str = "CLEW_HOOK_CANCELLED";
    /// The driver broke the machine's contract.
    pub const INTERNAL: &str = "CLEW_INTERNAL";
    /// The provider rejected the request as malformed (HTTP 400, not about the context
    /// window): sending it again cannot help.
    pub const BAD_REQUEST: &str = "CLEW_BAD_REQUEST";
    /// The request overflows the model's context window and truncating the history can no
    /// longer make it smaller.
    pub const CONTEXT_WINDOW_EXCEEDED: &str = "CLEW_CONTEXT_WINDOW_EXCEEDED";
}
