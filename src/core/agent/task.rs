//! [`Task`]: the machine's state, its inputs (`handle_*`) and outputs (`poll_*`), and the
//! transitions between rounds. Presentation and tool calls live in `present.rs` and
//! `tools.rs`; this file owns rounds, streams, retries, limits, abort and snapshots.

use std::rc::Rc;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::config::{ConfigError, TaskConfig};
use super::effect::{codes, Effect, HookKind, HookResult, Outcome, ToolOutput};
use super::history::DeletedRange;
use super::message::{AskAnswer, AskKind, AskResponse, Message, MessageKind, SayKind, Transcript};
use super::repeats::Repeats;
use super::round::{Round, StreamPhase, Wait};
use super::rounds::hook_context;
use super::texts;
use crate::core::parser::ToolSet;
use crate::core::stream::request::{ContentBlock, ImageSource, Message as HistoryMessage};
use crate::core::stream::StreamError;

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
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) enum Phase {
    /// `start` was not called yet.
    #[default]
    NotStarted,
    /// The TaskStart hook runs before the first round.
    AwaitingStartHook { id: u64, content: Vec<ContentBlock> },
    /// The next round starts at `until` (a retry delay) or at once.
    AwaitingRoundStart { content: Vec<ContentBlock>, until: Option<u64> },
    /// The user is asked whether to retry a failed round.
    AwaitingRetryAnswer { ask_ts: u64, content: Vec<ContentBlock> },
    /// The user is asked how to go on after too many mistakes.
    AwaitingMistakeAnswer { ask_ts: u64, content: Vec<ContentBlock> },
    /// A round is streaming or presenting.
    InRound(Box<Round>),
    /// The round's checkpoint is being saved.
    AwaitingCheckpoint { id: u64, content: Vec<ContentBlock> },
    /// The task ended.
    Finished(Outcome),
}

/// Everything of a task but its phase, so that the phase can be borrowed beside it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Ctx {
    pub(crate) config: TaskConfig,
    #[serde(skip)]
    pub(crate) tools: Rc<ToolSet>,
    pub(crate) now: u64,
    pub(crate) transcript: Transcript,
    pub(crate) history: Vec<HistoryMessage>,
    pub(crate) deleted: Option<DeletedRange>,
    pub(crate) usage: TaskUsage,
    /// Tokens of the last finished request (input, output and cache), for context checks.
    pub(crate) last_request_tokens: u64,
    pub(crate) mistakes: u32,
    pub(crate) retry_attempts: u32,
    pub(crate) identical: Repeats,
    pub(crate) next_id: u64,
    /// The initial checkpoint still being saved.
    pub(crate) initial_checkpoint: Option<u64>,
    pub(crate) rounds: u64,
    pub(crate) wake: Option<u64>,
    #[serde(skip)]
    pub(crate) effects: VecDeque<Effect>,
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
    /// A task set up with `config`, not started.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first setting that cannot work.
    pub fn new(config: TaskConfig) -> Result<Self, ConfigError> {
        let tools = Rc::new(config.validate()?);
        Ok(Self { ctx: Ctx { config, tools, ..Ctx::default() }, phase: Phase::NotStarted })
    }

    /// The next effect to perform, oldest first.
    pub fn poll_effect(&mut self) -> Option<Effect> {
        self.ctx.effects.pop_front()
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
    pub fn history(&self) -> &[HistoryMessage] {
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

    /// What the task waits for, in a word: `"idle"`, `"hook"`, `"stream"`, `"retryDelay"`,
    /// `"answer"`, `"tool"`, `"checkpoint"`, `"presenting"` or `"finished"`.
    pub fn state(&self) -> &'static str {
        match &self.phase {
            Phase::NotStarted => "idle",
            Phase::AwaitingStartHook { .. } => "hook",
            Phase::AwaitingRoundStart { .. } => "retryDelay",
            Phase::AwaitingRetryAnswer { .. } | Phase::AwaitingMistakeAnswer { .. } => "answer",
            Phase::AwaitingCheckpoint { .. } => "checkpoint",
            Phase::Finished(_) => "finished",
            Phase::InRound(round) => match (&round.wait, &round.stream) {
                (Wait::Approval { .. } | Wait::Followup { .. } | Wait::CompletionAnswer { .. }, _) => "answer",
                (Wait::Tool { .. }, _) => "tool",
                (Wait::Checkpoint(_), _) => "checkpoint",
                (Wait::PreHook { .. } | Wait::PostHook { .. } | Wait::CompletionHook { .. }, _) => "hook",
                (_, StreamPhase::Open { .. }) => "stream",
                (_, StreamPhase::RetryDelay { .. }) => "retryDelay",
                (_, StreamPhase::RetryAsk { .. }) => "answer",
                _ => "presenting",
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
        let mut content = vec![ContentBlock::Text { text: format!("<task>\n{text}\n</task>") }];
        content.extend(images.into_iter().map(|source| ContentBlock::Image { source }));
        self.phase = if self.ctx.config.hooks.task_start {
            let id = self.ctx.new_id();
            self.ctx.hook(id, HookKind::TaskStart, None, Vec::new(), None);
            Phase::AwaitingStartHook { id, content }
        } else {
            Phase::AwaitingRoundStart { content, until: None }
        };
        self.advance();
    }

    /// The bytes of stream `stream`, as read.
    pub fn handle_stream_bytes(&mut self, now: u64, stream: u64, bytes: &[u8]) {
        self.ctx.tick(now);
        let Phase::InRound(round) = &mut self.phase else { return };
        if round.stream_id != stream || !matches!(round.stream, StreamPhase::Open { .. }) {
            return;
        }
        let idle = self.ctx.config.timeouts.idle_ms.map(|ms| now.saturating_add(ms));
        round.stream = StreamPhase::Open { deadline: idle, got_bytes: true };
        let mut chunks = Vec::new();
        let result = match round.decoder.as_mut() {
            Some(decoder) => decoder.push(bytes, &mut chunks),
            None => Ok(()),
        };
        self.take_chunks(chunks, result, false);
    }

    /// Stream `stream` ended normally.
    pub fn handle_stream_end(&mut self, now: u64, stream: u64) {
        self.ctx.tick(now);
        let Phase::InRound(round) = &mut self.phase else { return };
        if round.stream_id != stream || !matches!(round.stream, StreamPhase::Open { .. }) {
            return;
        }
        let mut chunks = Vec::new();
        let result = match round.decoder.as_mut() {
            Some(decoder) => decoder.finish(&mut chunks),
            None => Ok(()),
        };
        self.take_chunks(chunks, result, true);
    }

    /// Stream `stream` could not be opened or read (HTTP error, network error).
    pub fn handle_stream_failed(&mut self, now: u64, stream: u64, error: &StreamError) {
        self.ctx.tick(now);
        let Phase::InRound(round) = &mut self.phase else { return };
        if round.stream_id != stream || !matches!(round.stream, StreamPhase::Open { .. }) {
            return;
        }
        self.stream_failed(error);
        self.advance();
    }

    /// A presentation pass requested with [`Effect::SchedulePresentation`].
    pub fn handle_present(&mut self, now: u64) {
        self.ctx.tick(now);
        if let Phase::InRound(round) = &mut self.phase {
            round.presentation_scheduled = false;
            self.ctx.present(round);
        }
        self.advance();
    }

    /// The answer to the ask `ts`.
    pub fn handle_ask_answer(&mut self, now: u64, ts: u64, answer: AskAnswer) {
        self.ctx.tick(now);
        match std::mem::take(&mut self.phase) {
            Phase::AwaitingMistakeAnswer { ask_ts, content } if ask_ts == ts => self.mistake_answer(answer, content),
            Phase::AwaitingRetryAnswer { ask_ts, content } if ask_ts == ts => {
                if answer.response == AskResponse::Yes {
                    self.ctx.retry_attempts = 0;
                    self.ctx.say(SayKind::ApiReqRetried, String::new());
                    self.phase = Phase::AwaitingRoundStart { content, until: None };
                } else {
                    self.finish(Outcome::ended(
                        codes::API_REQ_FAILED,
                        "the user chose not to retry the failed request",
                    ));
                }
            }
            Phase::InRound(mut round) => {
                if let StreamPhase::RetryAsk { ask_ts } = round.stream {
                    if ask_ts == ts {
                        if answer.response != AskResponse::Yes {
                            self.phase = Phase::InRound(round);
                            self.finish(Outcome::ended(
                                codes::API_REQ_FAILED,
                                "the user chose not to retry the failed request",
                            ));
                            return;
                        }
                        self.ctx.retry_attempts = 0;
                        round.context_retry_used = false;
                        self.ctx.say(SayKind::ApiReqRetried, String::new());
                        self.open_stream(&mut round);
                        self.put_round(round);
                        self.advance();
                        return;
                    }
                }
                let finished = self.ctx.answer(&mut round, ts, answer);
                self.phase = Phase::InRound(round);
                if let Some(outcome) = finished {
                    self.finish(outcome);
                }
            }
            other => self.phase = other,
        }
        self.advance();
    }

    /// Tool call `id` finished.
    pub fn handle_tool_done(&mut self, now: u64, id: u64, output: ToolOutput) {
        self.ctx.tick(now);
        if let Phase::InRound(round) = &mut self.phase {
            self.ctx.tool_done(round, id, output);
        }
        self.advance();
    }

    /// Checkpoint `id` was saved (or failed to be: `ok` false, which is reported and
    /// otherwise ignored).
    pub fn handle_checkpoint_saved(&mut self, now: u64, id: u64, ok: bool) {
        self.ctx.tick(now);
        if self.ctx.initial_checkpoint == Some(id) {
            self.ctx.initial_checkpoint = None;
            if ok {
                self.ctx.say(SayKind::CheckpointCreated, String::new());
            }
            if let Phase::InRound(round) = &mut self.phase {
                self.ctx.checkpoint_ready(round);
            }
        }
        if !ok {
            self.ctx.say(SayKind::Error, "The checkpoint could not be saved.".to_owned());
        }
        if let Phase::AwaitingCheckpoint { id: waiting, content } = &mut self.phase {
            if *waiting == id {
                let content = std::mem::take(content);
                self.phase = Phase::AwaitingRoundStart { content, until: None };
            }
        }
        self.advance();
    }

    /// Hook `id` finished.
    pub fn handle_hook_done(&mut self, now: u64, id: u64, result: HookResult) {
        self.ctx.tick(now);
        match &mut self.phase {
            Phase::AwaitingStartHook { id: waiting, content } if *waiting == id => {
                if result.cancel {
                    self.finish(Outcome::ended(codes::HOOK_CANCELLED, "the TaskStart hook cancelled the task"));
                    return;
                }
                let mut content = std::mem::take(content);
                if let Some(context) = result.context.filter(|c| !c.is_empty()) {
                    content.push(ContentBlock::Text { text: hook_context("TaskStart", &context) });
                }
                self.phase = Phase::AwaitingRoundStart { content, until: None };
            }
            Phase::InRound(round) => {
                let cancelled = self.ctx.hook_done(round, id, result);
                if cancelled {
                    self.finish(Outcome::ended(codes::HOOK_CANCELLED, "a PostToolUse hook cancelled the task"));
                    return;
                }
            }
            _ => {}
        }
        self.advance();
    }

    /// The time asked for with [`Effect::WakeAt`] (or any later time) has come.
    pub fn handle_timeout(&mut self, now: u64) {
        self.ctx.tick(now);
        // NOTE: the wake-up that called this is spent, even when it came a little early (a
        // timer may fire before the wall clock reaches its time): forget it, so that what is
        // not yet due asks for a new one.
        self.ctx.wake = None;
        if let Phase::InRound(round) = &mut self.phase {
            match round.stream {
                StreamPhase::Open { deadline: Some(deadline), got_bytes } if deadline <= now => {
                    let (waiting_for, ms) = if got_bytes {
                        ("more data", self.ctx.config.timeouts.idle_ms)
                    } else {
                        ("the first byte", self.ctx.config.timeouts.first_byte_ms)
                    };
                    let error = StreamError::Timeout { waiting_for: waiting_for.to_owned(), ms: ms.unwrap_or(0) };
                    self.ctx.effects.push_back(Effect::CancelStream { stream: round.stream_id });
                    self.stream_failed(&error);
                }
                StreamPhase::RetryDelay { until } if until <= now => {
                    if let Phase::InRound(round) = &mut self.phase {
                        let mut taken = std::mem::take(round);
                        self.open_stream(&mut taken);
                        self.put_round(taken);
                    }
                }
                _ => {}
            }
        }
        if let Phase::InRound(round) = &mut self.phase {
            self.ctx.tool_timeouts(round);
            self.ctx.flush_paced(round, false);
        }
        self.advance();
    }

    /// Aborts the task: cancels the stream, pending asks, running tools and timers, saves
    /// what streamed with the interruption notice, runs the TaskCancel hook, and ends the task
    /// `aborted`. No effect but those follows. Ignored once the task has ended.
    pub fn abort(&mut self, now: u64, reason: &str) {
        self.ctx.tick(now);
        if matches!(self.phase, Phase::Finished(_)) {
            return;
        }
        let idle_at_completion =
            matches!(self.ctx.transcript.last().map(|m| m.kind), Some(MessageKind::Ask(AskKind::CompletionResult)));
        if let Phase::InRound(round) = &mut self.phase {
            if matches!(round.stream, StreamPhase::Open { .. }) {
                self.ctx.effects.push_back(Effect::CancelStream { stream: round.stream_id });
                if round.got_content && !round.recorded {
                    self.ctx.record_reply(round, Some(texts::INTERRUPTED_BY_USER));
                }
            }
            if let Wait::Tool { id, .. } | Wait::PostHook { id, .. } = round.wait {
                self.ctx.effects.push_back(Effect::CancelTool { id });
            }
        }
        // NOTE: partial messages are finalised in the transcript without a say: after abort
        // no callback but the TaskCancel hook runs.
        if let Phase::InRound(round) = &self.phase {
            if !round.finalized_api_req {
                self.ctx.cancel_api_req(round.api_req_ts);
            }
        }
        self.ctx.transcript.finish_all_partial();
        if self.ctx.config.hooks.task_cancel && !idle_at_completion {
            let id = self.ctx.new_id();
            self.ctx.hook(id, HookKind::TaskCancel, None, Vec::new(), None);
        }
        self.finish(Outcome::Aborted { reason: reason.to_owned() });
    }
}
