//! What happens to a task, as one enum: the driver's other way in beside the `handle_*`
//! methods ([`Task::handle`]).

use super::effect::{HookResult, ToolOutput};
use super::message::AskAnswer;
use super::task::Task;
use crate::core::conversation::ImageSource;
use crate::core::stream::StreamError;

/// An event for a task. Each names the effect it answers by its id (`stream`, `ts`, `id`).
#[derive(Clone, Debug)]
pub enum Event<'a> {
    /// The user's task ([`Task::start`]).
    Start {
        /// The task's text.
        text: &'a str,
        /// Images attached to it.
        images: Vec<ImageSource>,
    },
    /// Bytes of a model stream, as read.
    StreamBytes {
        /// The stream's id.
        stream: u64,
        /// The bytes.
        bytes: &'a [u8],
    },
    /// The model stream ended.
    StreamEnded {
        /// The stream's id.
        stream: u64,
    },
    /// The model stream could not be opened or read.
    StreamFailed {
        /// The stream's id.
        stream: u64,
        /// What went wrong.
        error: StreamError,
    },
    /// The answer to an ask.
    AskAnswered {
        /// The ask's ts.
        ts: u64,
        /// The answer.
        answer: AskAnswer,
    },
    /// A tool call finished.
    ToolDone {
        /// The call's id.
        id: u64,
        /// Its result.
        output: ToolOutput,
    },
    /// An MCP call finished: the server's result object (JSON text).
    McpResult {
        /// The call's id.
        id: u64,
        /// The result as the server sent it.
        result: &'a str,
    },
    /// A checkpoint was saved (or failed to be).
    CheckpointSaved {
        /// The request's id.
        id: u64,
        /// Whether it was saved.
        ok: bool,
    },
    /// A hook finished.
    HookDone {
        /// The request's id.
        id: u64,
        /// What it answered.
        result: HookResult,
    },
    /// The MCP servers were listed.
    McpServersListed {
        /// The listing's id.
        id: u64,
        /// The servers' raw listing (JSON text), or empty when nothing changed.
        catalog: &'a str,
    },
    /// The files a summary named were read (`ReadRequiredFiles`).
    RequiredFilesRead {
        /// The read's id.
        id: u64,
        /// Each file read: its path and content.
        files: Vec<(String, String)>,
    },
    /// A wake-up asked for with `WakeAt`.
    Timer,
    /// Abort the task.
    Abort {
        /// Why.
        reason: &'a str,
    },
}

impl Task {
    /// Hands `event` to the task at time `now` (milliseconds): the same as the matching
    /// `handle_*` method (or [`start`](Self::start), [`abort`](Self::abort)).
    pub fn handle(&mut self, now: u64, event: Event<'_>) {
        match event {
            Event::Start { text, images } => self.start(now, text, images),
            Event::StreamBytes { stream, bytes } => self.handle_stream_bytes(now, stream, bytes),
            Event::StreamEnded { stream } => self.handle_stream_end(now, stream),
            Event::McpServersListed { id, catalog } => self.handle_mcp_servers(now, id, catalog),
            Event::StreamFailed { stream, error } => self.handle_stream_failed(now, stream, &error),
            Event::AskAnswered { ts, answer } => self.handle_ask_answer(now, ts, answer),
            Event::ToolDone { id, output } => self.handle_tool_done(now, id, output),
            Event::McpResult { id, result } => self.handle_mcp_result(now, id, result),
            Event::CheckpointSaved { id, ok } => self.handle_checkpoint_saved(now, id, ok),
            Event::HookDone { id, result } => self.handle_hook_done(now, id, result),
            Event::RequiredFilesRead { id, files } => self.handle_required_files(now, id, files),
            Event::Timer => self.handle_timeout(now),
            Event::Abort { reason } => self.abort(now, reason),
        }
    }
}
