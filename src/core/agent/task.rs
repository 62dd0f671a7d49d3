//! [`Task`]: the machine's state, its outputs (`poll_*`), its getters and [`Task::start`].
//! The other inputs (`handle_*`, `abort`) are in `inputs.rs`, the transitions between rounds
//! in `round_loop.rs`, presentation in `present.rs`, tool calls in `tool_steps.rs`.

use std::rc::Rc;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::config::{ConfigError, DescribeFn, Describer, TaskConfig};
use super::context::ContextState;
use super::effect::{Effect, HookKind, Outcome};
use super::mcp::McpCatalog;
use super::message::{AskAnswer, AskResponse, Message, MessageKind, SayKind, Transcript};
use super::repeats::Repeats;
use super::round_state::{Retry, Round, StreamPhase, Wait};
use super::tags::{PersistReason, TaskState};
use crate::core::conversation::{self, ContentBlock, ImageSource};
use crate::core::parser::ToolSet;

/// Token counts, cost and requests of a whole task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskUsage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// US dollars: the provider's reported cost, else tokens times the model's prices.
    pub total_cost: f64,
    /// Model requests opened (retries included).
    pub requests: u64,
}

/// Where the task is between rounds, named after what it waits for.
#[derive(Clone, Debug, Default)]
pub(crate) enum Phase {
    /// `start` was not called yet.
    #[default]
    NotStarted,
    /// The TaskStart hook runs before the first round.
    AwaitingStartHook { id: u64, content: Vec<ContentBlock> },
    /// The next round, which sends `content`, starts: at once, or when its retry says (a
    /// round that failed mid-stream or with an empty reply).
    AwaitingRoundStart { content: Vec<ContentBlock>, retry: Option<Retry> },
    /// The user is asked how to go on after too many mistakes.
    AwaitingMistakeAnswer { ask_ts: u64, content: Vec<ContentBlock> },
    /// A task restored from its history asks whether to resume (`resume_task` or
    /// `resume_completed_task`); `content` is the trailing user content to send with the
    /// resumption notice, `since` when the task was last active.
    AwaitingResumeAnswer { ask_ts: u64, content: Vec<ContentBlock>, since: u64 },
    /// A round is streaming or presenting.
    InRound(Box<Round>),
    /// The round's checkpoint is being saved.
    AwaitingCheckpoint { id: u64, content: Vec<ContentBlock> },
    /// The task ended.
    Finished(Outcome),
}

impl Phase {
    /// The retry the task waits for, in its round or between rounds.
    pub(crate) fn retry(&self) -> Option<Retry> {
        match self {
            Self::AwaitingRoundStart { retry, .. } => *retry,
            Self::InRound(round) => match round.stream {
                StreamPhase::Retry(retry) => Some(retry),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Everything of a task but its phase, so that the phase can be borrowed beside it.
#[derive(Clone, Debug)]
pub(crate) struct Ctx {
    pub(crate) config: Rc<TaskConfig>,
    /// The chunks of one read, kept from read to read so that a read allocates no list.
    pub(crate) chunks: Vec<crate::core::stream::Chunk>,
    pub(crate) tools: Rc<ToolSet>,
    pub(crate) describer: Describer,
    pub(crate) now: u64,
    pub(crate) transcript: Transcript,
    pub(crate) history: Vec<conversation::Message>,
    /// Context management's state: the deleted range, the figure, the breaker's count…
    pub(crate) context: ContextState,
    pub(crate) usage: TaskUsage,
    pub(crate) mistakes: u32,
    pub(crate) retry_attempts: u32,
    pub(crate) identical: Repeats,
    pub(crate) next_id: u64,
    /// The initial checkpoint still being saved.
    pub(crate) initial_checkpoint: Option<u64>,
    pub(crate) rounds: u64,
    pub(crate) wake: Option<u64>,
    pub(crate) effects: VecDeque<Effect>,
    /// How many history messages [`Task::snapshot_changes`] already gave: where its next
    /// `history` starts.
    pub(crate) history_given: usize,
    /// Restored and not yet resumed: [`Task::resume`] reissues what it waits for.
    pub(crate) resume_pending: bool,
    /// An input came since the last [`Effect::Persist`].
    pub(crate) persist_due: bool,
    /// The history's length at the last [`Effect::Persist`]: a longer one is a reason to
    /// persist again.
    pub(crate) history_at_persist: usize,
    /// What the task knows of the connected MCP servers (their last listing).
    pub(crate) catalog: McpCatalog,
    /// The MCP servers whose listing did not end in time: left out for the rest of the task
    /// (what their listing gives later is not read; a restored task lists them again).
    pub(crate) mcp_left_out: Vec<String>,
    /// While a round waits in [`StreamPhase::Listing`](super::round_state::StreamPhase::Listing),
    /// the servers being listed: those the host's last answer named, or, until it answers,
    /// every server not left out.
    pub(crate) mcp_listed: Vec<String>,
}

/// The agent loop as a state machine: events in, effects out, no IO and no clock.
///
/// The driver calls [`start`](Self::start) once, then hands in what happens
/// (`handle_*`, [`abort`](Self::abort)), each with the current time in milliseconds, and after
/// every call performs what [`poll_effect`](Self::poll_effect) returns until it returns
/// `None`. Events that do not match what the task waits for (an old stream's bytes, an answer
/// to an ask that is no longer pending) are ignored, so a slow callback cannot corrupt it.
///
/// ```
/// use clew::agent::{Effect, Task, TaskConfig};
/// use clew::stream::Format;
/// let mut task = Task::new(TaskConfig { format: Format::Chunks, ..TaskConfig::default() }).unwrap();
/// task.start(0, "Say hello", Vec::new());
/// let mut stream = None;
/// while let Some(effect) = task.poll_effect() {
///     if let Effect::OpenStream { stream: id, .. } = effect { stream = Some(id) }
/// }
/// let id = stream.unwrap();
/// task.handle_stream_bytes(1, id, b"{\"type\":\"text\",\"text\":\"Hello!\"}\n");
/// task.handle_stream_end(2, id);
/// assert!(task.messages().iter().any(|m| m.text == "Hello!"));
/// ```
#[derive(Clone, Debug)]
pub struct Task {
    pub(crate) ctx: Ctx,
    pub(crate) phase: Phase,
}

impl Task {
    /// A task set up with `config`, not started. The config may be shared (an
    /// `Rc<TaskConfig>`): it never changes, so every task made from it can read the same one.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first setting that cannot work.
    pub fn new(config: impl Into<Rc<TaskConfig>>) -> Result<Self, ConfigError> {
        let config = config.into();
        let tools = Rc::new(config.validate()?);
        Ok(Self::checked(config, tools))
    }

    /// A task set up with a config already checked, not started: `tools` is what
    /// `config.validate()` gave, shared by every task made from the same config.
    pub fn checked(config: Rc<TaskConfig>, tools: Rc<ToolSet>) -> Self {
        // NOTE: every field written out: `..Ctx::default()` would build a default config and
        // the reference tool set only to drop them (half of `new Task`'s time).
        let ctx = Ctx {
            config,
            chunks: Vec::new(),
            tools,
            describer: Describer::default(),
            now: 0,
            transcript: Transcript::default(),
            history: Vec::new(),
            context: ContextState::default(),
            usage: TaskUsage::default(),
            mistakes: 0,
            retry_attempts: 0,
            identical: Repeats::default(),
            next_id: 0,
            initial_checkpoint: None,
            rounds: 0,
            wake: None,
            effects: VecDeque::new(),
            history_given: 0,
            resume_pending: false,
            persist_due: false,
            history_at_persist: 0,
            catalog: McpCatalog::default(),
            mcp_left_out: Vec::new(),
            mcp_listed: Vec::new(),
        };
        let mut task = Self { ctx, phase: Phase::NotStarted };
        let context = &task.ctx.config.context;
        if context.strategy == super::context::Strategy::Summarize
            || (context.strategy == super::context::Strategy::Auto && context.summarize_eligible)
        {
            task.ctx.know_summarize_tool();
        }
        task
    }

    /// Sets the host function that names the subject of result headers for tools with
    /// [`ToolSpec::describe`](super::ToolSpec::describe) set.
    pub fn set_describer(&mut self, describe: Rc<DescribeFn>) {
        self.ctx.describer = Describer(Some(describe));
    }

    /// The next effect to perform, oldest first. With [`TaskConfig::persist`], an
    /// [`Effect::Persist`] comes first whenever the next effect starts a wait and something
    /// happened since the last one. Without [`TaskConfig::asks`], a complete ask is answered
    /// "no" here instead of going out.
    pub fn poll_effect(&mut self) -> Option<Effect> {
        loop {
            if self.ctx.config.persist && self.ctx.persist_due {
                if let Some(reason) = self.ctx.effects.front().and_then(|e| self.persist_reason(e)) {
                    self.ctx.persist_due = false;
                    self.ctx.history_at_persist = self.ctx.history.len();
                    let wake = self.ctx.wake;
                    let changes = self.snapshot_changes();
                    return Some(Effect::Persist { reason, changes, wake });
                }
            }
            match self.ctx.effects.pop_front() {
                Some(Effect::Ask(message)) if !self.ctx.config.asks && !message.is_partial() => {
                    let now = self.ctx.now;
                    self.handle_ask_answer(now, message.ts, AskAnswer::button(AskResponse::No));
                }
                effect => return effect,
            }
        }
    }

    /// Why the task must be stored before `effect` goes out, if it must: the effect starts a
    /// wait, or a message entered the history (a round began, or its reply ended). In the
    /// latter case the reason is that of the wait the queued effects start, if one does (a
    /// reply that ended and is followed by its ask persists once, as `"ask"`).
    fn persist_reason(&self, effect: &Effect) -> Option<PersistReason> {
        if let Some(reason) = self.wait_reason(effect) {
            return Some(reason);
        }
        if self.ctx.history.len() == self.ctx.history_at_persist {
            return None;
        }
        if matches!(self.phase, Phase::Finished(_)) {
            return Some(PersistReason::Finished);
        }
        Some(self.ctx.effects.iter().find_map(|e| self.wait_reason(e)).unwrap_or(PersistReason::Round))
    }

    /// The reason of a persist before `effect`, when it starts a wait.
    fn wait_reason(&self, effect: &Effect) -> Option<PersistReason> {
        Some(match effect {
            Effect::Ask(message) if !message.is_partial() => PersistReason::Ask,
            Effect::RunTool { .. } => PersistReason::Tool,
            Effect::RunHook { kind, .. } if *kind != HookKind::TaskCancel => PersistReason::Hook,
            Effect::SaveCheckpoint { .. } => PersistReason::Checkpoint,
            Effect::WakeAt(Some(_)) if self.task_state() == TaskState::RetryDelay => PersistReason::RetryDelay,
            Effect::Finished(_) => PersistReason::Finished,
            _ => return None,
        })
    }

    /// When the task next needs [`handle_timeout`](Self::handle_timeout) (at the latest), if
    /// ever: the wake-up last asked for with [`Effect::WakeAt`].
    pub fn poll_timeout(&self) -> Option<u64> {
        self.ctx.wake
    }

    /// The transcript.
    pub fn messages(&self) -> &[Message] {
        self.ctx.transcript.messages()
    }

    /// The model-facing conversation.
    pub fn history(&self) -> &[conversation::Message] {
        &self.ctx.history
    }

    /// Usage, cost and requests so far.
    pub fn usage(&self) -> &TaskUsage {
        &self.ctx.usage
    }

    /// The settings.
    pub fn config(&self) -> &TaskConfig {
        &self.ctx.config
    }

    /// How the task ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Finished(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// Consecutive mistakes so far.
    pub fn mistakes(&self) -> u32 {
        self.ctx.mistakes
    }

    /// What the task waits for, in a word: `"idle"` (not started), `"hook"`, `"stream"`,
    /// `"retryDelay"`, `"answer"`, `"tool"`, `"checkpoint"`, `"presenting"`, `"finished"` or
    /// `"listing"` ([`TaskState`]).
    pub fn state(&self) -> &'static str {
        self.task_state().as_str()
    }

    /// What the task waits for.
    pub fn task_state(&self) -> TaskState {
        match &self.phase {
            Phase::NotStarted => TaskState::Idle,
            Phase::AwaitingStartHook { .. } => TaskState::Hook,
            Phase::AwaitingRoundStart { retry, .. } => retry.map_or(TaskState::RetryDelay, Retry::state),
            Phase::AwaitingMistakeAnswer { .. } | Phase::AwaitingResumeAnswer { .. } => TaskState::Answer,
            Phase::AwaitingCheckpoint { .. } => TaskState::Checkpoint,
            Phase::Finished(_) => TaskState::Finished,
            Phase::InRound(round) => match (&round.wait, &round.stream) {
                (Wait::Approval { .. } | Wait::Followup { .. } | Wait::CompletionAnswer { .. }, _) => TaskState::Answer,
                (Wait::Tool { .. }, _) => TaskState::Tool,
                (Wait::Checkpoint(_), _) => TaskState::Checkpoint,
                (Wait::PreHook { .. } | Wait::PostHook { .. } | Wait::CompletionHook { .. }, _) => TaskState::Hook,
                (_, StreamPhase::Open { .. }) => TaskState::Stream,
                (_, StreamPhase::Listing { .. }) => TaskState::Listing,
                (_, StreamPhase::Retry(retry)) => retry.state(),
                _ => TaskState::Presenting,
            },
        }
    }

    /// Whether a model stream is open.
    pub fn is_streaming(&self) -> bool {
        matches!(&self.phase, Phase::InRound(round) if matches!(round.stream, StreamPhase::Open { .. }))
    }

    /// Starts the task with the user's text and images. Ignored after the first call.
    pub fn start(&mut self, now: u64, text: &str, images: Vec<ImageSource>) {
        if !matches!(self.phase, Phase::NotStarted) {
            return;
        }
        self.ctx.tick(now);
        let ts =
            self.ctx.transcript.append(now, MessageKind::Say(SayKind::Task), text.to_owned(), images.clone(), None);
        self.ctx.emit_message(ts);
        let mut content = vec![ContentBlock::text(format!("<task>\n{text}\n</task>"))];
        content.extend(images.into_iter().map(|source| ContentBlock::Image { source }));
        self.phase = if self.ctx.config.hooks.task_start {
            let id = self.ctx.new_id();
            self.ctx.hook(id, HookKind::TaskStart, None, Vec::new(), None);
            Phase::AwaitingStartHook { id, content }
        } else {
            Phase::AwaitingRoundStart { content, retry: None }
        };
        self.advance();
    }
}
