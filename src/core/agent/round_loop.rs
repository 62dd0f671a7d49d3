//! The loop between rounds: chunks into the round, the end or failure of a stream, retries,
//! the mistake limit, limits, the start and end of each round, and the task's end. One loop
//! with explicit exits ([`Task::advance`]) stands for the reference's recursion.

use std::rc::Rc;

use super::config::ToolCalling;
use super::effect::{codes, CheckpointKind, Effect, Outcome};
use super::failure::Failure;
use super::history;
use super::message::{AskAnswer, AskKind, AskResponse, MessageKind, SayKind};
use super::repeats::Repeats;
use super::retry::NextTry;
use super::round_state::{Retry, Round, StreamPhase, Wait};
use super::task::{Phase, Task};
use super::texts;
use crate::core::conversation::{self, Content, ContentBlock, Role};
use crate::core::json::Json;
use crate::core::stream::{Chunk, StreamDecoder, StreamError};

/// The stop reason of a reply the provider ended on a call it could not read (the Gemini
/// decoder's word for `MALFORMED_FUNCTION_CALL`).
const MALFORMED_TOOL_CALL: &str = "malformed_tool_call";

impl Task {
    /// Decoded chunks in, then the decoder's verdict; `end` when the body ended.
    pub(super) fn take_chunks(&mut self, chunks: &mut Vec<Chunk>, result: Result<(), StreamError>, end: bool) {
        let Phase::InRound(round) = &mut self.phase else { return };
        let mut interrupted = false;
        for chunk in chunks.drain(..) {
            if self.ctx.take_chunk(round, chunk) {
                interrupted = true;
                break;
            }
        }
        if interrupted {
            self.ctx.effects.push_back(Effect::CancelStream { stream: round.stream_id });
            self.end_of_stream();
        } else if let Err(error) = result {
            // NOTE: the body may still be open (a malformed event mid-stream): stop reading it.
            if !end {
                self.ctx.effects.push_back(Effect::CancelStream { stream: round.stream_id });
            }
            self.stream_failed(&error);
        } else if end {
            self.end_of_stream();
        } else {
            // NOTE: one pass per read, in the same call: every chunk of the read is in by now,
            // and a pass that finds nothing new is cheap. Scheduling it on the microtask queue
            // instead cost a second entry into the wasm per read (measured in BENCHMARKS.md).
            self.ctx.present(round);
        }
        self.advance();
    }

    /// The reply is complete: every block becomes final, the assistant turn is recorded, the
    /// round's figures are final and the rest is presented at once.
    pub(super) fn end_of_stream(&mut self) {
        let Phase::InRound(round) = &mut self.phase else { return };
        round.stream = StreamPhase::Ended;
        round.decoder = None;
        self.ctx.finish_reasoning(round);
        if round.has_content() || round.compaction {
            self.ctx.record_reply(round, None);
        }
        self.ctx.finish_api_req(round, None);
        self.ctx.server_edited(round);
        if round.compaction {
            round.paused = self.ctx.provider_compacted(round);
        }
        self.ctx.present(round);
    }

    /// The stream failed: before any content it is retried in the same round; after content,
    /// what streamed is kept and the round ends once the complete blocks are handled.
    pub(super) fn stream_failed(&mut self, error: &StreamError) {
        let Phase::InRound(round) = &mut self.phase else { return };
        round.decoder = None;
        let failure = Failure::from_error(error);
        if round.got_content() {
            // Show what arrived (the pass may not have run yet), then make it final.
            self.ctx.present(round);
            self.ctx.finish_partial_message(round);
            self.ctx.finish_reasoning(round);
            self.ctx.record_reply(round, Some(texts::INTERRUPTED_BY_API_ERROR));
            self.ctx.finish_api_req(round, Some(("streaming_failed", failure.message.as_str())));
            if round.compaction {
                self.ctx.provider_compacted(round);
            }
            round.stream = StreamPhase::FailedMidStream { failure };
            self.ctx.present(round);
            return;
        }
        round.reset_stream();
        match self.ctx.next_try(&failure, Some(&mut round.context_retry_used)) {
            NextTry::Truncated => {
                if self.ctx.context.compacted {
                    self.ctx.mark_api_req(round.api_req_ts, "contextTruncated");
                }
                let mut taken = std::mem::take(round);
                self.open_stream(&mut taken);
                self.put_round(taken);
            }
            NextTry::Retry(retry) => round.stream = StreamPhase::Retry(retry),
            NextTry::GiveUp(outcome) => self.finish(outcome),
        }
    }

    pub(super) fn mistake_answer(&mut self, answer: AskAnswer, mut content: Vec<ContentBlock>) {
        if answer.response == AskResponse::No {
            self.finish(Outcome::ended(codes::MISTAKE_LIMIT, "the user chose to stop after repeated mistakes"));
            return;
        }
        if answer.response == AskResponse::Message && answer.has_feedback() {
            self.ctx.say_with_images(SayKind::UserFeedback, answer.text.clone(), answer.images.clone());
            content = vec![ContentBlock::text(texts::too_many_mistakes(&answer.text))];
            content.extend(answer.images.into_iter().map(|source| ContentBlock::Image { source }));
        }
        self.ctx.mistakes = 0;
        self.ctx.retry_attempts = 0;
        self.ctx.identical = Repeats::default();
        self.begin_round(content);
    }

    /// The answer to a resume ask: decline ends the task; anything else sends the trailing
    /// user content with the resumption notice (and what the user typed or attached).
    pub(super) fn resume_answer(&mut self, ask_ts: u64, answer: AskAnswer, content: Vec<ContentBlock>, since: u64) {
        if answer.response == AskResponse::No {
            self.finish(Outcome::ended(codes::RESUME_DECLINED, "the user chose not to resume the task"));
            return;
        }
        let completed =
            self.ctx.transcript.get(ask_ts).is_some_and(|m| m.kind == MessageKind::Ask(AskKind::ResumeCompletedTask));
        if answer.has_feedback() {
            self.ctx.say_with_images(SayKind::UserFeedback, answer.text.clone(), answer.images.clone());
        }
        let elapsed = self.ctx.now.saturating_sub(since);
        let content = super::snapshot::resumed_content(content, elapsed, completed, &answer);
        self.phase = Phase::AwaitingRoundStart { content, retry: None };
    }

    /// Moves through every transition that needs no new event.
    pub(crate) fn advance(&mut self) {
        loop {
            // NOTE: a retry delay that has run out sends again, in the round or in the next one.
            let due = matches!(self.phase.retry(), Some(Retry::Delay { until }) if until <= self.ctx.now);
            match std::mem::take(&mut self.phase) {
                Phase::AwaitingRoundStart { content, retry } if due || retry.is_none() => self.start_round(content),
                Phase::InRound(mut round) if due => {
                    self.open_stream(&mut round);
                    self.put_round(round);
                }
                Phase::InRound(round) if round.presenter_done() => self.end_round(*round),
                Phase::InRound(mut round) if round.stream_done() && matches!(round.wait, Wait::StreamEnd { .. }) => {
                    let wait = std::mem::take(&mut round.wait);
                    self.phase = Phase::InRound(round);
                    if let Wait::StreamEnd { outcome } = wait {
                        self.finish(outcome);
                    }
                }
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

    fn begin_round(&mut self, mut content: Vec<ContentBlock>) {
        if std::mem::take(&mut self.ctx.context.reminder) {
            content.insert(0, ContentBlock::text(self.ctx.task_reminder()));
        }
        self.begin_request(content, true);
    }

    /// Sends `content` as the next user message under a new `api_req_started`: a round's
    /// first request (`new_round`), or the request that goes on after a paused compaction.
    fn begin_request(&mut self, content: Vec<ContentBlock>, new_round: bool) {
        if let Some(outcome) = self.limit_reached() {
            self.finish(outcome);
            return;
        }
        if new_round {
            self.ctx.rounds += 1;
        }
        if self.ctx.rounds == 1 && self.ctx.config.checkpoints {
            let id = self.ctx.new_id();
            self.ctx.initial_checkpoint = Some(id);
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Initial });
        }
        let mut request = Json::object().with("request", summarize(&content));
        self.ctx.history.push(conversation::Message { role: Role::User, content: Content::Blocks(content) });
        if let Some(outcome) = self.ctx.check_context() {
            self.finish(outcome);
            return;
        }
        if self.ctx.context.compacted && !self.ctx.context.summarizing {
            request.set("contextTruncated", true);
        }
        if self.ctx.context.summarizing {
            request.set("compactionPass", "summary");
        }
        let request = request.to_string();
        let api_req_ts = self.ctx.transcript.append(
            self.ctx.now,
            MessageKind::Say(SayKind::ApiReqStarted),
            request,
            Vec::new(),
            Some(true),
        );
        self.ctx.emit_message(api_req_ts);
        let mut round = Box::new(Round::new(Rc::clone(&self.ctx.tools)));
        round.api_req_ts = api_req_ts;
        self.open_stream(&mut round);
        self.put_round(round);
    }

    /// Makes `round` the phase, unless the task ended meanwhile (a limit).
    pub(super) fn put_round(&mut self, round: Box<Round>) {
        if !matches!(self.phase, Phase::Finished(_)) {
            self.phase = Phase::InRound(round);
        }
    }

    /// The limit the next request would pass, as the task's outcome.
    fn limit_reached(&self) -> Option<Outcome> {
        let limits = self.ctx.config.limits;
        if limits.max_requests.is_some_and(|max| self.ctx.usage.requests >= max) {
            return Some(Outcome::ended(codes::REQUEST_LIMIT, "the task reached its limit of model requests"));
        }
        if limits.max_cost.is_some_and(|max| self.ctx.usage.total_cost >= max) {
            return Some(Outcome::ended(codes::COST_LIMIT, "the task reached its cost limit"));
        }
        None
    }

    /// Opens the round's stream, unless a limit was reached (a retry within the round: its
    /// `api_req_started` then gets its final figures, and the task ends).
    pub(super) fn open_stream(&mut self, round: &mut Round) {
        if let Some(outcome) = self.limit_reached() {
            self.ctx.finish_api_req(round, None);
            self.finish(outcome);
            return;
        }
        self.ctx.usage.requests += 1;
        round.stream_id = self.ctx.new_id();
        round.decoder = Some(StreamDecoder::new(self.ctx.config.format));
        self.ctx.open_stream(round);
    }

    /// A round whose blocks are all handled: the next user content, the empty-reply path, or
    /// the retry after a failure mid-stream.
    fn end_round(&mut self, round: Round) {
        if round.paused {
            // NOTE: the response held only the compaction (§6.2 pause): no tool, no mistake;
            // the task goes on in the same round from the carrier and the re-insertion.
            let content = self.ctx.reinsertion();
            // NOTE: the request that goes on after the pause is no new compaction (§8).
            self.ctx.context.unmeasured = false;
            self.begin_request(content, false);
            return;
        }
        let (has_content, has_tool_use) = (round.has_content(), round.has_tool_use());
        let round_compacted = round.compaction;
        let Round { mut user_content, stream, stop_reason, .. } = round;
        if let StreamPhase::FailedMidStream { failure } = stream {
            history::answer_cut_off_calls(self.ctx.history.last(), &mut user_content);
            user_content.push(ContentBlock::text(texts::resume_after_error().to_owned()));
            self.retry_between_rounds(&failure, user_content);
            return;
        }
        let native = self.ctx.config.tool_calling == ToolCalling::Native;
        if !has_tool_use && stop_reason.as_deref() == Some(MALFORMED_TOOL_CALL) {
            // NOTE: the provider ended the reply on a call it could not read: a mistake, with
            // the reason, rather than a reply without a call.
            if !has_content {
                self.ctx.history.push(conversation::Message {
                    role: Role::Assistant,
                    content: Content::Blocks(vec![ContentBlock::text(texts::EMPTY_REPLY.to_owned())]),
                });
            }
            user_content.push(ContentBlock::text(texts::malformed_tool_call().to_owned()));
            self.ctx.mistakes += 1;
        } else if !has_content && !native {
            self.ctx.say(SayKind::Error, texts::empty_reply_error());
            if !round_compacted {
                self.ctx.history.push(conversation::Message {
                    role: Role::Assistant,
                    content: Content::Blocks(vec![ContentBlock::text(texts::EMPTY_REPLY.to_owned())]),
                });
            }
            self.ctx.mistakes += 1;
            let content = vec![ContentBlock::text(texts::no_tools_used(native))];
            self.retry_between_rounds(&Failure::empty_reply(), content);
            return;
        } else if !has_tool_use {
            user_content.push(ContentBlock::text(texts::no_tools_used(native)));
            self.ctx.mistakes += 1;
        }
        self.ctx.retry_attempts = 0;
        self.phase = if self.ctx.config.checkpoints {
            let id = self.ctx.new_id();
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Round });
            Phase::AwaitingCheckpoint { id, content: user_content }
        } else {
            Phase::AwaitingRoundStart { content: user_content, retry: None }
        };
    }

    /// A failure that ended its round (mid-stream, or an empty reply): the next round sends
    /// `content`, when [`Ctx::next_try`] says.
    fn retry_between_rounds(&mut self, failure: &Failure, content: Vec<ContentBlock>) {
        match self.ctx.next_try(failure, None) {
            NextTry::Truncated => self.phase = Phase::AwaitingRoundStart { content, retry: None },
            NextTry::Retry(retry) => self.phase = Phase::AwaitingRoundStart { content, retry: Some(retry) },
            NextTry::GiveUp(outcome) => self.finish(outcome),
        }
    }

    /// Ends the task with `outcome` once the round's reply has been read to its end, so that
    /// its usage counts in full (a completion accepted while the reply still streams).
    pub(crate) fn finish_after_stream(&mut self, outcome: Outcome) {
        match &mut self.phase {
            Phase::InRound(round) if matches!(round.stream, StreamPhase::Open { .. }) => {
                round.wait = Wait::StreamEnd { outcome };
            }
            _ => self.finish(outcome),
        }
    }

    /// Ends the task with `outcome`; pending wake-ups are dropped.
    pub(crate) fn finish(&mut self, outcome: Outcome) {
        if matches!(self.phase, Phase::Finished(_)) {
            return;
        }
        let aborted = matches!(outcome, Outcome::Aborted { .. });
        if let Phase::InRound(round) = &mut self.phase {
            if matches!(round.stream, StreamPhase::Open { .. }) {
                self.ctx.effects.push_back(Effect::CancelStream { stream: round.stream_id });
                // NOTE: what streamed is kept as the history's last turn, with the notice when
                // the user cut it (other outcomes wait for the stream's end: finish_after_stream).
                if round.got_content() {
                    self.ctx.record_reply(round, aborted.then_some(texts::INTERRUPTED_BY_USER));
                }
            }
            if !round.stream_done() && !aborted {
                self.ctx.finish_api_req(round, None);
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
    let mut out = String::new();
    for (i, block) in content.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        match block {
            ContentBlock::Text { text, .. } => out.push_str(text),
            ContentBlock::Image { .. } => out.push_str("[image]"),
            ContentBlock::ToolResult { content, .. } => {
                let mut first = true;
                for block in content.blocks() {
                    if let ContentBlock::Text { text, .. } = block {
                        if !first {
                            out.push('\n');
                        }
                        first = false;
                        out.push_str(&text);
                    }
                }
            }
            _ => {}
        }
    }
    out
}
