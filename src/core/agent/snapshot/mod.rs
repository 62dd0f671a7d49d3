//! Snapshots: a task's whole state as JSON at any moment, and a task continued from one.
//! What was pending is asked for again through effects when the restored task
//! [resumes](Task::resume); a stream that was open resumes as a failed stream.
//!
//! A snapshot is `{ version, tools, history, messages, state }`: `history` and `messages`
//! in the shapes of `task.history` and `task.messages`, `tools` the names of the tools the
//! task had, `state` the counters, clocks and waiting point (a tuple: one array in the
//! walk's order, without keys, since every persist writes it). It is written through the
//! codec's JSON (no serde). [`Task::snapshot_changes`] gives the same object with only the
//! history and transcript entries that changed since its last call, and where they start
//! (`historyFrom`, `messagesFrom`), so that persisting at every waiting point is not
//! quadratic; [`merge_snapshot`] assembles the whole from the parts an application stored,
//! and [`snapshot_parts`] / [`join_snapshot`] cut a snapshot into its head and its two lists
//! and put them back, so that an application stores it entry by entry without naming a
//! member of the head.

mod entries;
mod from_history;
mod merge;
mod parts;
mod reader;
mod reply;
mod resume;
mod state;
mod visit;
mod writer;

pub use entries::transcript_entry;
pub(crate) use from_history::resumed_content;
pub use merge::merge_snapshot;
pub use parts::{join_snapshot, snapshot_member, snapshot_parts, SnapshotMember, SNAPSHOT_LISTS};

use crate::core::json::Json;

use super::config::{TaskConfig, ToolCalling};
use super::mcp::{McpCatalog, USE_MCP_TOOL};
use super::message::Transcript;
use super::task::Task;
use reader::Reader;
use visit::Visit;
use writer::Writer;

/// The snapshot format this version writes.
///
/// The promise: a snapshot written by any released version restores in every later one.
/// Format 2 is the first released format; the reference files of each format are under
/// `tests/fixtures/snapshots/v<N>/` and never change. A new format gets a new number, its own
/// reference files beside the old ones, and a reader for each earlier format (a migration in
/// [`Task::restore`]): a format once released is never refused.
///
/// Format 4 (this one) adds context management's state (CONTEXT §9.3: the figure, the loop
/// breaker's count, the fallback, the summary's and edits' state) and a history block for a
/// provider's compaction.
///
/// Format 3 keeps the reply's parts in the order they came, with what each is sent
/// back with (signatures, encrypted reasoning, a message's phase, opaque items), and the stop
/// reason; format 2 kept one reasoning text, its signature and the redacted blocks, which a
/// format-2 snapshot still restores to (the history it would have written).
pub const SNAPSHOT_VERSION: u64 = 4;

/// Format 3 kept an OpenAI Responses compaction item as an opaque item; format 4 has a block
/// for it (CONTEXT §9.3). The request sends the same item either way.
fn compaction_items_as_blocks(history: &mut [crate::core::conversation::Message]) {
    use crate::core::conversation::{Content, ContentBlock};
    use crate::core::stream::Format;
    for message in history {
        let Content::Blocks(blocks) = &mut message.content else { continue };
        for block in blocks.iter_mut() {
            let ContentBlock::Item { format: Format::OpenAiResponses, item } = block else { continue };
            if item.get("type").and_then(Json::as_str) != Some("compaction") {
                continue;
            }
            let field = |key: &str| item.get(key).and_then(Json::as_str).map(str::to_owned);
            *block = ContentBlock::Compaction {
                provider: Format::OpenAiResponses,
                content: None,
                encrypted_content: field("encrypted_content"),
                id: field("id"),
            };
        }
    }
}

/// The oldest format [`Task::restore`] reads: the first one released. (Format 1 was only
/// written by development builds before durable tasks were released.)
const OLDEST_SNAPSHOT_VERSION: u64 = 2;

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
    fn write_snapshot(&mut self, history_from: usize, messages_from: usize, changes: bool) -> String {
        let mut w = Writer::new();
        w.open('{');
        w.number("version", &mut SNAPSHOT_VERSION.clone());
        let mut tools = Vec::new();
        for tool in &self.ctx.config.tools {
            tools.push(tool.name.clone());
        }
        if self.ctx.catalog.calls_known {
            // NOTE: the parser knew the MCP tools; the restored one must too.
            tools.push(USE_MCP_TOOL.to_owned());
        }
        w.strings("tools", &mut tools);
        if !self.ctx.catalog.listing.is_empty() {
            w.raw("mcp", &self.ctx.catalog.listing);
        }
        if changes {
            w.number("historyFrom", &mut (history_from as u64));
            w.number("messagesFrom", &mut (messages_from as u64));
        }
        entries::write_history(&mut w, self.ctx.history.get(history_from..).unwrap_or_default());
        entries::write_messages(&mut w, self.ctx.transcript.messages().get(messages_from..).unwrap_or_default());
        let mut last_ts = self.ctx.transcript.last_ts();
        state::state(&mut w, &mut self.ctx, &mut self.phase, &mut last_ts);
        w.close('}');
        w.text
    }

    /// The task as JSON text: everything needed to continue it with
    /// [`restore`](Self::restore), at any moment. Callbacks, tools' code and the model's
    /// settings are not in it; the options given to `restore` supply them. (It takes
    /// `&mut self` because one walk over the state both writes and reads snapshots; the
    /// state is left as it was.)
    pub fn snapshot(&mut self) -> String {
        self.write_snapshot(0, 0, false)
    }

    /// The snapshot with only what changed since this method's last call (the first call
    /// gives everything, except on a restored task: its changes start from the snapshot it
    /// was restored from): `history` holds the entries from `historyFrom` on (the history
    /// only grows), `messages` those from `messagesFrom` on (the transcript's earlier
    /// entries did not change). Replacing the stored entries from those indexes with these
    /// gives the whole snapshot.
    pub fn snapshot_changes(&mut self) -> String {
        let history_from = self.ctx.history_given.min(self.ctx.history.len());
        let messages_from = self.ctx.transcript.take_changes();
        self.ctx.history_given = self.ctx.history.len();
        self.write_snapshot(history_from, messages_from, true)
    }

    /// A task continued from a [`snapshot`](Self::snapshot) (JSON text), set up with
    /// `config` (its tools must include every tool the snapshot's task had). Nothing happens
    /// until [`resume`](Self::resume).
    ///
    /// # Errors
    /// A [`SnapshotError`]: not a snapshot, another format version, a missing tool, or
    /// settings in `config` that cannot work.
    pub fn restore(json: &str, config: impl Into<std::rc::Rc<TaskConfig>>) -> Result<Self, SnapshotError> {
        let config = config.into();
        let value = Json::parse(json).map_err(|e| SnapshotError::invalid(format!("the snapshot is not JSON: {e}")))?;
        let mut r = Reader::new(&value, "snapshot");
        let mut version = None;
        r.optional("version", &mut version);
        // NOTE: where a later format's reader goes: each earlier version is read by its own
        // migration into this version's state, never refused.
        match version {
            Some(known @ OLDEST_SNAPSHOT_VERSION..=SNAPSHOT_VERSION) => r.version = known,
            Some(version) => {
                let why = if version > SNAPSHOT_VERSION {
                    "it was written by a later version of clew"
                } else {
                    "that format was only written by development builds, before snapshots were released"
                };
                return Err(SnapshotError {
                    kind: SnapshotErrorKind::Version,
                    message: format!(
                        "snapshot.version is {version}: {why}; this version of clew reads versions {OLDEST_SNAPSHOT_VERSION} to {SNAPSHOT_VERSION}"
                    ),
                });
            }
            None => return Err(SnapshotError::invalid("snapshot.version is missing or not a whole number")),
        }
        let mut tools = Vec::new();
        r.strings("tools", &mut tools);
        // NOTE: the parser knew the MCP tools: it knows them again (the host lists the
        // servers before the next request).
        let mcp_calls = tools.iter().any(|name| name == USE_MCP_TOOL) && !config.mcp_servers.is_empty();
        let known = |name: &String| config.tools.iter().any(|t| &t.name == name) || (name == USE_MCP_TOOL && mcp_calls);
        if let Some(name) = tools.iter().find(|name| !known(name)) {
            return Err(SnapshotError {
                kind: SnapshotErrorKind::ToolMissing,
                message: format!("the snapshot's task has the tool \"{name}\", which the options lack"),
            });
        }
        let mut task =
            Self::new(config).map_err(|e| SnapshotError::invalid(format!("options.{}: {}", e.field, e.message)))?;
        if mcp_calls {
            // NOTE: the servers' last listing, read again with the options' settings (a
            // snapshot of format 3 from before it was kept has none: the catalog stays empty
            // until the servers are listed again, before the next request).
            let native = task.ctx.config.tool_calling == ToolCalling::Native;
            let (catalog, _) = match value.get("mcp") {
                Some(listing) => McpCatalog::read(listing, &task.ctx.config.mcp_servers, native, &[]),
                None => Default::default(),
            };
            task.ctx.set_catalog(McpCatalog { calls_known: true, ..catalog });
        }
        let list = |key: &str| value.get(key).and_then(Json::as_array).unwrap_or_default();
        if value.get("history").is_some_and(|h| h.as_array().is_none()) {
            r.fail("history", "must be an array");
        }
        if value.get("messages").is_some_and(|m| m.as_array().is_none()) {
            r.fail("messages", "must be an array");
        }
        let mut last_ts = 0;
        state::state(&mut r, &mut task.ctx, &mut task.phase, &mut last_ts);
        if let Some(error) = r.error {
            return Err(SnapshotError::invalid(error));
        }
        task.ctx.history =
            entries::read_history(list("history"), "snapshot.history").map_err(SnapshotError::invalid)?;
        if r.version < 4 {
            compaction_items_as_blocks(&mut task.ctx.history);
        }
        let messages =
            entries::read_messages(list("messages"), "snapshot.messages", false).map_err(SnapshotError::invalid)?;
        task.ctx.transcript = Transcript::from_parts(messages, last_ts);
        task.check_restored().map_err(SnapshotError::invalid)?;
        task.ctx.resume_pending = true;
        // NOTE: the application holds this snapshot: changes start from it.
        task.ctx.history_given = task.ctx.history.len();
        task.ctx.history_at_persist = task.ctx.history.len();
        task.ctx.transcript.take_changes();
        Ok(task)
    }
}
