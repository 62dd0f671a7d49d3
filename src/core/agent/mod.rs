//! The agent loop: the reference's `Task` as a sans-IO state machine.
//!
//! The loop never awaits, reads a clock or calls out. A driver hands it events, each with
//! the current time (the user's text, the model stream's bytes, its end or failure, an
//! answer, a tool's result, a hook or checkpoint done, a wake-up, abort) and performs the
//! [`Effect`]s it returns (open a stream, say, ask, run a tool, save a checkpoint, run a
//! hook, wake me at t, finished). Native tests are such drivers: a scripted model as bytes,
//! scripted answers and a fake clock make whole tasks deterministic.
//!
//! Why races cannot happen: the machine has one owner and changes only inside a `&mut self`
//! call that runs to completion, one event at a time. Where the reference guards the
//! presenter with a lock and a pending flag and polls flags from concurrent promises, here
//! "what are we waiting for" is one enum value ([`Task::state`]): an event that does not
//! match it (a stale stream's bytes, an answer to an ask that is no longer pending, a tool
//! result after abort) is ignored, and a presentation pass runs inside the event that brought
//! something to present. Between events the whole state is plain data, which is also why it
//! serializes ([`Task::snapshot`]).
//!
//! The three nested loops of the reference are one loop with explicit exits: a round is a
//! value in the task's phase; its end computes the next user content and the next phase.

mod calls;
mod condense;
mod config;
mod context;
mod ctx;
mod display;
mod effect;
mod event;
mod failure;
mod history;
mod inputs;
mod listing;
mod mcp;
mod message;
mod options;
mod present;
mod repeats;
mod retry;
mod round_loop;
mod round_state;
mod snapshot;
mod tags;
mod task;
pub mod texts;
mod tool_job;
mod tool_spec;
mod tool_steps;
mod turn;

pub use config::{
    AutoApprove, ConfigError, DescribeFn, HookSet, Limits, McpServerSettings, ParamSpec, RetryPolicy, TaskConfig,
    Timeouts, ToolCalling, ToolSource, ToolSpec, ASK_FOLLOWUP_QUESTION, ATTEMPT_COMPLETION,
};
pub use context::{
    edit_pass, max_allowed_tokens, next_truncation, next_truncation_after, view, ContextConfig, ContextState,
    DeletedRange, EditConfig, EditState, Keep, NativeConfig, Strategy, SummarizeConfig, ViewPlan,
};
pub use display::{display_text, without_closing_tag};
pub use effect::{codes, CheckpointKind, Effect, HookKind, HookResult, Outcome, ToolOutput};
pub use event::Event;
pub use failure::Failure;
pub use mcp::{McpCatalog, ACCESS_MCP_RESOURCE, DEFAULT_MCP_LISTING_MS, DEFAULT_MCP_TIMEOUT_MS, USE_MCP_TOOL};
pub use message::{AskAnswer, AskKind, AskResponse, Message, MessageKind, SayKind, Transcript};
pub use options::{CallbackSlots, ClockSlots, Slot, TaskOptions, ToolSlots, HOOK_NAMES};
pub use snapshot::{
    join_snapshot, merge_snapshot, snapshot_member, snapshot_parts, transcript_entry, SnapshotError, SnapshotErrorKind,
    SnapshotMember, SNAPSHOT_LISTS, SNAPSHOT_VERSION,
};
pub use tags::{PersistReason, TaskState};
pub use task::{Task, TaskUsage};
pub use texts::{EMPTY_REPLY, INTERRUPTED_BY_API_ERROR, INTERRUPTED_BY_USER, TOOL_DENIED};
