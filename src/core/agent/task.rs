//! [`Task`]: the machine's state, its inputs (`handle_*`) and outputs (`poll_*`), and the
//! transitions between rounds. Presentation and tool calls live in `present.rs` and
//! `tools.rs`; this file owns rounds, streams, retries, limits, abort and snapshots.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::config::{ConfigError, TaskConfig, ToolCalling};
use super::effect::{codes, CheckpointKind, Effect, HookKind, HookResult, Outcome, ToolOutput};
use super::failure::Failure;
use super::history::{self, DeletedRange, Truncation};
use super::message::{AskAnswer, AskKind, AskResponse, Message, MessageKind, SayKind, Transcript};
use super::round::{Round, StreamPhase, Wait};
use super::texts;
use crate::core::parser::ToolSet;
use crate::core::stream::request::{Content, ContentBlock, ImageSource, Message as HistoryMessage, ModelRequest, Role};
use crate::core::stream::{Chunk, StreamDecoder, StreamError, Usage};

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
    pub(crate) tools: ToolSet,
    pub(crate) now: u64,
    pub(crate) transcript: Transcript,
    pub(crate) history: Vec<HistoryMessage>,
    pub(crate) deleted: Option<DeletedRange>,
    pub(crate) usage: TaskUsage,
    /// Tokens of the last finished request (input, output and cache), for context checks.
    pub(crate) last_request_tokens: u64,
    pub(crate) mistakes: u32,
    pub(crate) retry_attempts: u32,
    pub(crate) identical: (String, String, u32),
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

#[derive(Serialize, Deserialize)]
struct Snapshot {
    version: u32,
    ctx: Ctx,
    phase: Phase,
}

impl Task {
    /// A task set up with `config`, not started.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first setting that cannot work.
    pub fn new(config: TaskConfig) -> Result<Self, ConfigError> {
        let tools = config.validate()?;
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
        if self.ctx.wake.is_some_and(|armed| armed <= now) {
            self.ctx.wake = None;
        }
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

    /// The task as JSON: everything needed to continue it with [`restore`](Self::restore).
    pub fn snapshot(&self) -> String {
        let mut phase = self.phase.clone();
        if let Phase::InRound(round) = &mut phase {
            round.prepare_snapshot();
        }
        let snapshot = Snapshot { version: 1, ctx: self.ctx.clone(), phase };
        // NOTE: every field is plain data with string keys, which always serializes.
        serde_json::to_string(&snapshot).unwrap_or_default()
    }

    /// A task continued from a [`snapshot`](Self::snapshot) at time `now`. What it waited for
    /// is asked again through effects (the pending ask, tool call, hook or checkpoint; the
    /// wake-up); a stream that was open resumes as a failed stream and is retried.
    ///
    /// # Errors
    /// A [`ConfigError`] when the JSON is not a snapshot of this version or its settings
    /// cannot work.
    pub fn restore(json: &str, now: u64) -> Result<Self, ConfigError> {
        let snapshot: Snapshot =
            serde_json::from_str(json).map_err(|e| ConfigError { field: "snapshot".into(), message: e.to_string() })?;
        if snapshot.version != 1 {
            return Err(ConfigError { field: "snapshot".into(), message: "unknown snapshot version".into() });
        }
        let mut task = Self { ctx: snapshot.ctx, phase: snapshot.phase };
        task.ctx.tools = task.ctx.config.validate()?;
        task.ctx.tick(now);
        task.ctx.wake = None;
        task.reissue_pending();
        task.advance();
        Ok(task)
    }

    fn reissue_pending(&mut self) {
        if let Some(id) = self.ctx.initial_checkpoint {
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Initial });
        }
        match &mut self.phase {
            Phase::AwaitingStartHook { id, .. } => self.ctx.hook(*id, HookKind::TaskStart, None, Vec::new(), None),
            Phase::AwaitingRetryAnswer { ask_ts, .. } | Phase::AwaitingMistakeAnswer { ask_ts, .. } => {
                self.ctx.reissue_ask(*ask_ts);
            }
            Phase::AwaitingCheckpoint { id, .. } => {
                self.ctx.effects.push_back(Effect::SaveCheckpoint { id: *id, kind: CheckpointKind::Round });
            }
            Phase::InRound(round) => {
                round.restore(self.ctx.tools.clone());
                if let StreamPhase::RetryAsk { ask_ts } = round.stream {
                    self.ctx.reissue_ask(ask_ts);
                }
                self.ctx.reissue_wait(round);
                if matches!(round.stream, StreamPhase::Open { .. }) {
                    let error = StreamError::Incomplete { expected: "the end of the reply (the task was restored)" };
                    self.stream_failed(&error);
                }
            }
            _ => {}
        }
    }

    /// Decoded chunks in, then the decoder's verdict; `end` when the body ended.
    fn take_chunks(&mut self, chunks: Vec<Chunk>, result: Result<(), StreamError>, end: bool) {
        let Phase::InRound(round) = &mut self.phase else { return };
        let mut interrupted = false;
        for chunk in chunks {
            if self.ctx.take_chunk(round, chunk) {
                interrupted = true;
                break;
            }
        }
        if interrupted {
            self.ctx.effects.push_back(Effect::CancelStream { stream: round.stream_id });
            self.end_of_stream();
        } else if let Err(error) = result {
            self.stream_failed(&error);
        } else if end {
            self.end_of_stream();
        } else if !round.presentation_scheduled {
            round.presentation_scheduled = true;
            self.ctx.effects.push_back(Effect::SchedulePresentation);
        }
        self.advance();
    }

    /// The reply is complete: every block becomes final, the assistant turn is recorded and
    /// the rest is presented at once.
    fn end_of_stream(&mut self) {
        let Phase::InRound(round) = &mut self.phase else { return };
        round.stream = StreamPhase::Ended;
        round.decoder = None;
        round.finalized = true;
        self.ctx.finish_reasoning(round);
        if round.has_content() {
            self.ctx.record_reply(round, None);
        }
        self.ctx.finish_api_req(round, None);
        self.ctx.present(round);
    }

    /// The stream failed: before any content it is retried in the same round; after content,
    /// what streamed is kept and the round ends once the complete blocks are handled.
    fn stream_failed(&mut self, error: &StreamError) {
        let Phase::InRound(round) = &mut self.phase else { return };
        round.decoder = None;
        let failure = Failure::from_error(error);
        if round.got_content {
            // Show what arrived (the pass may not have run yet), then make it final.
            self.ctx.present(round);
            self.ctx.finish_partial_message(round);
            self.ctx.finish_reasoning(round);
            self.ctx.record_reply(round, Some(texts::INTERRUPTED_BY_API_ERROR));
            self.ctx.finish_api_req(round, Some(("streaming_failed", failure.message.as_str())));
            round.stream = StreamPhase::FailedMidStream { failure };
            self.ctx.present(round);
            return;
        }
        round.reset_stream();
        if failure.context_window && !round.context_retry_used {
            round.context_retry_used = true;
            self.ctx.deleted = history::next_truncation(&self.ctx.history, self.ctx.deleted, Truncation::Quarter);
            let mut taken = std::mem::take(round);
            self.open_stream(&mut taken);
            self.put_round(taken);
            return;
        }
        if failure.context_window {
            round.context_retry_used = false;
        }
        let yolo = self.ctx.config.yolo;
        match self.ctx.schedule_retry(&failure) {
            Some(until) => round.stream = StreamPhase::RetryDelay { until },
            None if yolo => {
                let message = failure.message.clone();
                self.ctx.say(SayKind::Error, message.clone());
                self.finish(Outcome::failed(codes::RETRIES_EXHAUSTED, message));
            }
            None => {
                let ask_ts = self.ctx.ask(AskKind::ApiReqFailed, failure.message.clone());
                round.stream = StreamPhase::RetryAsk { ask_ts };
            }
        }
    }

    fn mistake_answer(&mut self, answer: AskAnswer, mut content: Vec<ContentBlock>) {
        if answer.response == AskResponse::No {
            self.finish(Outcome::ended(codes::MISTAKE_LIMIT, "the user chose to stop after repeated mistakes"));
            return;
        }
        if answer.response == AskResponse::Message && answer.has_feedback() {
            self.ctx.say_with_images(SayKind::UserFeedback, answer.text.clone(), answer.images.clone());
            content = vec![ContentBlock::Text { text: texts::too_many_mistakes(&answer.text) }];
            content.extend(answer.images.into_iter().map(|source| ContentBlock::Image { source }));
        }
        self.ctx.mistakes = 0;
        self.ctx.retry_attempts = 0;
        self.ctx.identical = (String::new(), String::new(), 0);
        self.begin_round(content);
    }

    /// Moves through every transition that needs no new event.
    pub(crate) fn advance(&mut self) {
        loop {
            match std::mem::take(&mut self.phase) {
                Phase::AwaitingRoundStart { content, until } if until.map_or(true, |t| t <= self.ctx.now) => {
                    self.start_round(content);
                }
                Phase::InRound(round) if round.presenter_done() => self.end_round(*round),
                other => {
                    self.phase = other;
                    break;
                }
            }
        }
        self.ctx.update_wake(&self.phase);
    }

    /// A round's first steps: the mistake limit, then the request.
    fn start_round(&mut self, content: Vec<ContentBlock>) {
        if self.ctx.mistakes >= self.ctx.config.max_consecutive_mistakes {
            if self.ctx.config.yolo {
                let message = texts::yolo_mistake_limit(self.ctx.mistakes);
                self.ctx.say(SayKind::Error, message.clone());
                self.finish(Outcome::failed(codes::MISTAKE_LIMIT, message));
            } else {
                let ask_ts = self.ctx.ask(AskKind::MistakeLimitReached, texts::mistake_limit_guidance().to_owned());
                self.phase = Phase::AwaitingMistakeAnswer { ask_ts, content };
            }
            return;
        }
        self.begin_round(content);
    }

    fn begin_round(&mut self, content: Vec<ContentBlock>) {
        self.ctx.rounds += 1;
        if self.ctx.rounds == 1 && self.ctx.config.checkpoints {
            let id = self.ctx.new_id();
            self.ctx.initial_checkpoint = Some(id);
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Initial });
        }
        let request = serde_json::json!({ "request": summarize(&content) }).to_string();
        let api_req_ts = self.ctx.transcript.append(
            self.ctx.now,
            MessageKind::Say(SayKind::ApiReqStarted),
            request,
            Vec::new(),
            Some(true),
        );
        self.ctx.emit_message(api_req_ts);
        self.ctx.history.push(HistoryMessage { role: Role::User, content: Content::Blocks(content.clone()) });
        let mut round = Box::new(Round::new(content, self.ctx.tools.clone()));
        round.api_req_ts = api_req_ts;
        self.open_stream(&mut round);
        self.put_round(round);
    }

    /// Makes `round` the phase, unless the task ended meanwhile (a limit).
    fn put_round(&mut self, round: Box<Round>) {
        if !matches!(self.phase, Phase::Finished(_)) {
            self.phase = Phase::InRound(round);
        }
    }

    /// Opens the round's stream, unless a limit was reached.
    fn open_stream(&mut self, round: &mut Round) {
        let limits = self.ctx.config.limits;
        if limits.max_requests.is_some_and(|max| self.ctx.usage.requests >= max) {
            self.finish(Outcome::ended(codes::REQUEST_LIMIT, "the task reached its limit of model requests"));
            return;
        }
        if limits.max_cost.is_some_and(|max| self.ctx.usage.total_cost >= max) {
            self.finish(Outcome::ended(codes::COST_LIMIT, "the task reached its cost limit"));
            return;
        }
        self.ctx.proactive_truncation();
        self.ctx.usage.requests += 1;
        round.stream_id = self.ctx.new_id();
        round.decoder = Some(StreamDecoder::new(self.ctx.config.format));
        round.stream = StreamPhase::Open {
            deadline: self.ctx.config.timeouts.first_byte_ms.map(|ms| self.ctx.now.saturating_add(ms)),
            got_bytes: false,
        };
        let request = self.ctx.model_request();
        self.ctx.effects.push_back(Effect::OpenStream { stream: round.stream_id, request });
    }

    /// A round whose blocks are all handled: the next user content, the empty-reply path, or
    /// the retry after a failure mid-stream.
    fn end_round(&mut self, round: Round) {
        let (has_content, has_tool_use) = (round.has_content(), round.has_tool_use());
        let Round { mut user_content, stream, .. } = round;
        if let StreamPhase::FailedMidStream { failure } = stream {
            user_content.push(ContentBlock::Text { text: texts::resume_after_error().to_owned() });
            self.retry_between_rounds(&failure, user_content);
            return;
        }
        let native = self.ctx.config.tool_calling == ToolCalling::Native;
        if !has_content && !native {
            self.ctx.say(SayKind::Error, texts::empty_reply_error());
            self.ctx.history.push(HistoryMessage {
                role: Role::Assistant,
                content: Content::Blocks(vec![ContentBlock::Text { text: texts::EMPTY_REPLY.to_owned() }]),
            });
            let failure = Failure {
                code: "CLEW_EMPTY_REPLY".into(),
                message: texts::empty_reply_error(),
                auto_retry: true,
                context_window: false,
                retry_after_ms: None,
            };
            self.ctx.mistakes += 1;
            let content = vec![ContentBlock::Text { text: texts::no_tools_used(native) }];
            self.retry_between_rounds(&failure, content);
            return;
        }
        if !has_tool_use {
            user_content.push(ContentBlock::Text { text: texts::no_tools_used(native) });
            self.ctx.mistakes += 1;
        }
        self.ctx.retry_attempts = 0;
        self.phase = if self.ctx.config.checkpoints {
            let id = self.ctx.new_id();
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Round });
            Phase::AwaitingCheckpoint { id, content: user_content }
        } else {
            Phase::AwaitingRoundStart { content: user_content, until: None }
        };
    }

    fn retry_between_rounds(&mut self, failure: &Failure, content: Vec<ContentBlock>) {
        match self.ctx.schedule_retry(failure) {
            Some(until) => self.phase = Phase::AwaitingRoundStart { content, until: Some(until) },
            None if self.ctx.config.yolo => {
                self.finish(Outcome::failed(codes::RETRIES_EXHAUSTED, failure.message.clone()));
            }
            None => {
                let ask_ts = self.ctx.ask(AskKind::ApiReqFailed, failure.message.clone());
                self.phase = Phase::AwaitingRetryAnswer { ask_ts, content };
            }
        }
    }

    /// Ends the task with `outcome`; pending wake-ups are dropped.
    pub(crate) fn finish(&mut self, outcome: Outcome) {
        if matches!(self.phase, Phase::Finished(_)) {
            return;
        }
        if let Phase::InRound(round) = &mut self.phase {
            let id = round.stream_id;
            let cancelled =
                self.ctx.effects.iter().any(|e| matches!(e, Effect::CancelStream { stream } if *stream == id));
            if matches!(round.stream, StreamPhase::Open { .. }) && !cancelled {
                self.ctx.effects.push_back(Effect::CancelStream { stream: id });
            }
            // NOTE: a task can end while its reply still streams (a completion accepted
            // before the stream's end): what streamed is kept, as the history's last turn.
            if !matches!(outcome, Outcome::Aborted { .. }) {
                if round.has_content() && !round.recorded {
                    self.ctx.record_reply(round, None);
                }
                if !round.finalized_api_req {
                    self.ctx.finish_api_req(round, None);
                }
            }
        }
        self.ctx.wake = None;
        self.ctx.effects.push_back(Effect::WakeAt(None));
        self.ctx.effects.push_back(Effect::Finished(outcome.clone()));
        self.phase = Phase::Finished(outcome);
    }
}

/// `<hook_context source="…">` text.
pub(crate) fn hook_context(source: &str, context: &str) -> String {
    format!("<hook_context source=\"{source}\">\n{context}\n</hook_context>")
}

/// A short text form of user content, for the `api_req_started` message.
fn summarize(content: &[ContentBlock]) -> String {
    let parts: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { .. } => "[image]".to_owned(),
            ContentBlock::ToolResult { content, .. } => content
                .blocks()
                .into_iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
        .collect();
    parts.join("\n\n")
}

impl Ctx {
    pub(crate) fn tick(&mut self, now: u64) {
        self.now = self.now.max(now);
    }

    pub(crate) fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Emits the message `ts` as a say or ask effect.
    pub(crate) fn emit_message(&mut self, ts: u64) {
        if let Some(message) = self.transcript.get(ts) {
            let effect = match message.kind {
                MessageKind::Say(_) => Effect::Say(message.clone()),
                MessageKind::Ask(_) => Effect::Ask(message.clone()),
            };
            self.effects.push_back(effect);
        }
    }

    /// Appends and emits a say.
    pub(crate) fn say(&mut self, kind: SayKind, text: String) -> u64 {
        self.say_with_images(kind, text, Vec::new())
    }

    /// Appends and emits a say with images.
    pub(crate) fn say_with_images(&mut self, kind: SayKind, text: String, images: Vec<ImageSource>) -> u64 {
        let ts = self.transcript.append(self.now, MessageKind::Say(kind), text, images, None);
        self.emit_message(ts);
        ts
    }

    /// Appends and emits a complete ask; returns its ts.
    pub(crate) fn ask(&mut self, kind: AskKind, text: String) -> u64 {
        let ts = self.transcript.append(self.now, MessageKind::Ask(kind), text, Vec::new(), None);
        self.emit_message(ts);
        ts
    }

    fn reissue_ask(&mut self, ts: u64) {
        self.emit_message(ts);
    }

    pub(crate) fn hook(
        &mut self,
        id: u64,
        kind: HookKind,
        tool: Option<String>,
        params: Vec<(String, String)>,
        result: Option<String>,
    ) {
        self.effects.push_back(Effect::RunHook { id, kind, tool, params, result });
    }

    /// Schedules an automatic retry if the policy allows one (saying `error_retry`), and
    /// returns when; `None` when the user must be asked (after saying the final
    /// `error_retry` for retryable failures).
    pub(crate) fn schedule_retry(&mut self, failure: &Failure) -> Option<u64> {
        let policy = self.config.retry;
        if failure.auto_retry && self.retry_attempts < policy.max_retries {
            self.retry_attempts += 1;
            let delay = policy.delay_ms(self.retry_attempts).max(failure.retry_after_ms.unwrap_or(0));
            let text = serde_json::json!({
                "attempt": self.retry_attempts,
                "maxAttempts": policy.max_retries,
                "delaySeconds": delay.div_ceil(1000),
                "errorMessage": failure.message,
                "code": failure.code,
            });
            self.say(SayKind::ErrorRetry, text.to_string());
            return Some(self.now.saturating_add(delay));
        }
        if failure.auto_retry && policy.max_retries > 0 {
            let text = serde_json::json!({
                "attempt": policy.max_retries,
                "maxAttempts": policy.max_retries,
                "delaySeconds": 0,
                "failed": true,
                "errorMessage": failure.message,
                "code": failure.code,
            });
            self.say(SayKind::ErrorRetry, text.to_string());
        }
        None
    }

    /// The request for the next stream.
    pub(crate) fn model_request(&self) -> ModelRequest {
        let tools = if self.config.tool_calling == ToolCalling::Native {
            super::tools::definitions(&self.config)
        } else {
            Vec::new()
        };
        ModelRequest {
            system: texts::system_prompt(&self.config),
            messages: history::request_messages(&self.history, self.deleted),
            tools,
            model: Default::default(),
        }
    }

    /// Truncates the history before a request when the previous one came near the context
    /// window (AGENT-LOOP §13.5).
    fn proactive_truncation(&mut self) {
        let total = self.last_request_tokens;
        let max = history::max_allowed_tokens(self.config.info.context_window);
        if total >= max {
            let how = if total / 2 > max { Truncation::Quarter } else { Truncation::Half };
            self.deleted = history::next_truncation(&self.history, self.deleted, how);
            self.last_request_tokens = 0;
        }
    }

    /// Adds the assistant turn of `round` to the history, with `marker` appended to its text.
    pub(crate) fn record_reply(&mut self, round: &mut Round, marker: Option<&str>) {
        if round.recorded {
            return;
        }
        round.recorded = true;
        let mut blocks = Vec::new();
        for data in &round.redacted {
            blocks.push(ContentBlock::RedactedThinking { data: data.clone() });
        }
        if !round.reasoning.is_empty() {
            blocks
                .push(ContentBlock::Thinking { thinking: round.reasoning.clone(), signature: round.signature.clone() });
        }
        let text = round.parser.text();
        let has_text = !text.trim().is_empty() || marker.is_some();
        if has_text {
            blocks.push(ContentBlock::Text { text: format!("{text}{}", marker.unwrap_or_default()) });
        }
        for call in round.natives.calls() {
            let input = serde_json::from_str::<serde_json::Value>(call.arguments.raw())
                .ok()
                .filter(serde_json::Value::is_object)
                .unwrap_or_else(|| super::tools::params_object(call));
            blocks.push(ContentBlock::ToolUse { id: call.id.clone(), name: call.name.clone(), input });
        }
        if !blocks.is_empty() {
            self.history.push(HistoryMessage { role: Role::Assistant, content: Content::Blocks(blocks) });
        }
    }

    /// Marks the round's `api_req_started` message cancelled by the user, without a say.
    fn cancel_api_req(&mut self, ts: u64) {
        let Some(message) = self.transcript.get_mut(ts) else { return };
        if let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str::<serde_json::Value>(&message.text) {
            map.insert("cancelReason".into(), "user_cancelled".into());
            message.text = serde_json::Value::Object(map).to_string();
        }
    }

    /// Finalises the round's `api_req_started` message with its tokens and cost.
    pub(crate) fn finish_api_req(&mut self, round: &mut Round, cancel: Option<(&str, &str)>) {
        round.finalized_api_req = true;
        let usage = &round.usage;
        let cost = self.config.info.cost(usage);
        self.last_request_tokens = usage.input_tokens
            + usage.output_tokens
            + usage.cache_write_tokens.unwrap_or(0)
            + usage.cache_read_tokens.unwrap_or(0);
        let Some(message) = self.transcript.get_mut(round.api_req_ts) else { return };
        let mut info: serde_json::Value = serde_json::from_str(&message.text).unwrap_or_else(|_| serde_json::json!({}));
        if let serde_json::Value::Object(map) = &mut info {
            map.insert("tokensIn".into(), usage.input_tokens.into());
            map.insert("tokensOut".into(), usage.output_tokens.into());
            map.insert("cacheWrites".into(), usage.cache_write_tokens.unwrap_or(0).into());
            map.insert("cacheReads".into(), usage.cache_read_tokens.unwrap_or(0).into());
            map.insert("cost".into(), cost.into());
            if let Some((reason, text)) = cancel {
                map.insert("cancelReason".into(), reason.into());
                map.insert("streamingFailedMessage".into(), text.into());
            }
        }
        message.text = info.to_string();
        message.partial = Some(false);
        self.emit_message(round.api_req_ts);
    }

    /// Adds a usage chunk to the round and the task.
    pub(crate) fn add_usage(&mut self, round: &mut Round, usage: &Usage) {
        round.usage.add(usage);
        let task = &mut self.usage;
        task.input_tokens = task.input_tokens.saturating_add(usage.input_tokens);
        task.output_tokens = task.output_tokens.saturating_add(usage.output_tokens);
        task.cache_write_tokens = task.cache_write_tokens.saturating_add(usage.cache_write_tokens.unwrap_or(0));
        task.cache_read_tokens = task.cache_read_tokens.saturating_add(usage.cache_read_tokens.unwrap_or(0));
        let cost = self.config.info.cost(usage);
        if cost.is_finite() {
            task.total_cost += cost;
        }
    }

    /// Recomputes the earliest deadline and emits `WakeAt` when it changed.
    /// Asks for a wake-up when the earliest deadline is earlier than the one already asked
    /// for. A deadline that moved later (the idle timeout, at every read) keeps the armed
    /// wake-up: it fires early, finds nothing due and asks again, which is far cheaper than
    /// re-arming a timer per read.
    fn update_wake(&mut self, phase: &Phase) {
        let mut wake: Option<u64> = None;
        let mut add = |t: u64| wake = Some(wake.map_or(t, |w: u64| w.min(t)));
        match phase {
            Phase::AwaitingRoundStart { until: Some(until), .. } => add(*until),
            Phase::InRound(round) => {
                match round.stream {
                    StreamPhase::Open { deadline: Some(t), .. } | StreamPhase::RetryDelay { until: t } => add(t),
                    _ => {}
                }
                if let Wait::Tool { deadline: Some(t), .. } = round.wait {
                    add(t);
                }
                if let Some((_, due)) = round.paced {
                    add(due);
                }
            }
            _ => {}
        }
        let earlier = match (wake, self.wake) {
            (Some(want), Some(armed)) => want < armed,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if earlier && !matches!(phase, Phase::Finished(_)) {
            self.wake = wake;
            self.effects.push_back(Effect::WakeAt(wake));
        }
    }
}
