//! Snapshots: a task's whole state as JSON at any moment, and a task continued from one.
//! What was pending is asked for again through effects when the restored task
//! [resumes](Task::resume); a stream that was open resumes as a failed stream.
//!
//! A snapshot is `{ version, tools, history, messages, state }`: `history` and `messages`
//! in the shapes of `task.history` and `task.messages`, `tools` the names of the tools the
//! task had, `state` the counters, clocks and waiting point. It is written through the
//! codec's JSON (no serde). [`Task::snapshot_changes`] gives the same object with only the
//! history and transcript entries that changed since its last call, and where they start
//! (`historyFrom`, `messagesFrom`), so that persisting at every waiting point is not
//! quadratic; an application assembles the whole from the parts it stored.

mod from_history;
mod out;
mod read;
mod resume;
mod write;

pub(crate) use from_history::resumed_content;

use crate::core::json::Json;

use super::config::TaskConfig;
use super::message::Transcript;
use super::task::Task;
use out::Out;
use read::{Errors, Obj};

/// The snapshot format this version writes and reads.
pub const SNAPSHOT_VERSION: u64 = 1;

/// Why a snapshot cannot become a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotErrorKind {
    /// Not a snapshot: bad JSON, a missing or mistyped field, an impossible value.
    Invalid,
    /// A snapshot of a format version this one does not read.
    Version,
    /// The snapshot's task had a tool the new options lack.
    ToolMissing,
}

/// A snapshot that cannot be restored: which kind of problem, and what exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    /// The kind of problem.
    pub kind: SnapshotErrorKind,
    /// What is wrong, naming the place (`state.phase.kind`).
    pub message: String,
}

impl SnapshotError {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self { kind: SnapshotErrorKind::Invalid, message: message.into() }
    }
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SnapshotError {}

impl Task {
    /// Writes the snapshot: `history` and `messages` from the given indexes on, and where
    /// they start when `changes` is set.
    fn write_snapshot(&self, history_from: usize, messages_from: usize, changes: bool) -> String {
        let mut out = Out::new();
        out.open('{');
        out.number("version", SNAPSHOT_VERSION);
        out.key("tools");
        out.open('[');
        for tool in &self.ctx.config.tools {
            out.text_item(&tool.name);
        }
        out.close(']');
        if changes {
            out.number("historyFrom", history_from as u64);
            out.number("messagesFrom", messages_from as u64);
        }
        write::history(&mut out, self.ctx.history.get(history_from..).unwrap_or_default());
        write::messages(&mut out, self.ctx.transcript.messages().get(messages_from..).unwrap_or_default());
        write::state(&mut out, &self.ctx, &self.phase);
        out.close('}');
        out.text
    }

    /// The task as JSON text: everything needed to continue it with
    /// [`restore`](Self::restore), at any moment. Callbacks, tools' code and the model's
    /// settings are not in it; the options given to `restore` supply them.
    pub fn snapshot(&self) -> String {
        self.write_snapshot(0, 0, false)
    }

    /// The snapshot with only what changed since this method's last call (the first call
    /// gives everything): `history` holds the entries from `historyFrom` on (the history
    /// only grows), `messages` those from `messagesFrom` on (the transcript's earlier
    /// entries did not change). Replacing the stored entries from those indexes with these
    /// gives the whole snapshot.
    pub fn snapshot_changes(&mut self) -> String {
        let history_from = self.ctx.persisted_history.min(self.ctx.history.len());
        let messages_from = self.ctx.transcript.take_changes();
        self.ctx.persisted_history = self.ctx.history.len();
        self.write_snapshot(history_from, messages_from, true)
    }

    /// A task continued from a [`snapshot`](Self::snapshot) (JSON text), set up with
    /// `config` (its tools must include every tool the snapshot's task had). Nothing happens
    /// until [`resume`](Self::resume).
    ///
    /// # Errors
    /// A [`SnapshotError`]: not a snapshot, another format version, a missing tool, or
    /// settings in `config` that cannot work.
    pub fn restore(json: &str, config: TaskConfig) -> Result<Self, SnapshotError> {
        let value = Json::parse(json).map_err(|e| SnapshotError::invalid(format!("the snapshot is not JSON: {e}")))?;
        let errors = Errors::default();
        let root = Obj::new(&value, "snapshot".into(), &errors);
        match root.optional("version") {
            Some(SNAPSHOT_VERSION) => {}
            Some(version) => {
                return Err(SnapshotError {
                    kind: SnapshotErrorKind::Version,
                    message: format!(
                        "snapshot.version is {version}; this version of clew reads version {SNAPSHOT_VERSION}"
                    ),
                })
            }
            None => return Err(SnapshotError::invalid("snapshot.version is missing or not a whole number")),
        }
        let (tools, _) = root.list("tools");
        for name in tools {
            let name = name.as_str().unwrap_or_default();
            if !config.tools.iter().any(|t| t.name == name) {
                return Err(SnapshotError {
                    kind: SnapshotErrorKind::ToolMissing,
                    message: format!("the snapshot's task has the tool \"{name}\", which the options lack"),
                });
            }
        }
        let mut task =
            Self::new(config).map_err(|e| SnapshotError::invalid(format!("options.{}: {}", e.field, e.message)))?;
        let (history, at) = root.list("history");
        task.ctx.history = read::history(history, &at, &errors);
        let (messages, at) = root.list("messages");
        let messages = read::messages(messages, &at, &errors);
        let (phase, last_ts) = read::state(&root, &mut task.ctx);
        task.ctx.transcript = Transcript::from_parts(messages, last_ts);
        task.phase = phase;
        if let Some(error) = errors.take() {
            return Err(SnapshotError::invalid(error));
        }
        task.check_restored().map_err(SnapshotError::invalid)?;
        task.ctx.resume_pending = true;
        Ok(task)
    }
}
