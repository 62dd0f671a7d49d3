//! What a restored task does first: its clock is rebased when the new machine's clock is
//! behind the old one, and whatever it waited for is asked for again.

use std::rc::Rc;

use super::super::effect::{CheckpointKind, Effect, HookKind, ToolOutput};
use super::super::message::MessageKind;
use super::super::round_state::{Item, Received, Round, StreamPhase, Wait};
use super::super::task::{Ctx, Phase, Task};
use super::super::texts;
use super::super::tool_job;
use crate::core::stream::{StreamDecoder, StreamError, Usage};

impl Ctx {
    /// Sends again the request of a stream that had delivered no content when the task was
    /// snapshotted (it may not even have gone out: a persist comes before it): the same
    /// stream id and request, a fresh decoder, nothing counted twice.
    fn reopen_stream(&mut self, round: &mut Round) {
        round.reset_stream();
        round.usage = Usage::default();
        round.decoder = Some(StreamDecoder::new(self.config.format));
        round.stream = StreamPhase::Open {
            deadline: self.config.timeouts.first_byte_ms.map(|ms| self.now.saturating_add(ms)),
            received: Received::Nothing,
        };
        self.push_open_stream(round.stream_id);
    }
}

impl Task {
    /// Whether the task was restored and waits for [`resume`](Self::resume).
    pub fn is_restored(&self) -> bool {
        self.ctx.resume_pending
    }

    /// Continues a task made by [`restore`](Self::restore) or
    /// [`from_history`](Self::from_history) at time `now`: the pending ask is asked again
    /// (same `ts`, same text), a tool that was running runs again when it is read-only or
    /// idempotent and otherwise gets an error result saying its outcome is unknown, a hook
    /// or checkpoint runs again, a retry delay or timeout waits only for what is left, and a
    /// stream that had delivered content fails as an interrupted stream (what streamed is
    /// kept) and is retried by the retry policy; one that had delivered none is sent again.
    /// Ignored on any other task, and after the first call.
    pub fn resume(&mut self, now: u64) {
        if !std::mem::take(&mut self.ctx.resume_pending) {
            return;
        }
        self.rebase_clock(now);
        self.ctx.tick(now);
        self.ctx.wake = None;
        if let Some(id) = self.ctx.initial_checkpoint {
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Initial });
        }
        match &mut self.phase {
            Phase::AwaitingStartHook { id, .. } => self.ctx.hook(*id, HookKind::TaskStart, None, Vec::new(), None),
            Phase::AwaitingRetryAnswer { ask_ts, .. }
            | Phase::AwaitingMistakeAnswer { ask_ts, .. }
            | Phase::AwaitingResumeAnswer { ask_ts, .. } => self.ctx.reissue_ask(*ask_ts),
            Phase::AwaitingCheckpoint { id, .. } => {
                self.ctx.effects.push_back(Effect::SaveCheckpoint { id: *id, kind: CheckpointKind::Round });
            }
            Phase::InRound(round) => {
                if let StreamPhase::RetryAsk { ask_ts } = round.stream {
                    self.ctx.reissue_ask(ask_ts);
                }
                let rerun = match &round.wait {
                    Wait::Tool { id, job, .. } => {
                        let spec = self.ctx.config.tools.iter().find(|t| t.name == job.name);
                        let again = spec.is_some_and(|t| t.idempotent)
                            || tool_job::reads_only(&self.ctx.config, &job.name, &job.params);
                        Some((*id, again))
                    }
                    _ => None,
                };
                match rerun {
                    Some((id, false)) => {
                        self.ctx.tool_done(round, id, ToolOutput::error(texts::TOOL_INTERRUPTED));
                    }
                    _ => self.ctx.reissue_wait(round),
                }
            }
            // NOTE: a finished task tells its driver again, which resolves at once.
            Phase::Finished(outcome) => self.ctx.effects.push_back(Effect::Finished(outcome.clone())),
            Phase::NotStarted | Phase::AwaitingRoundStart { .. } => {}
        }
        if let Phase::InRound(round) = &mut self.phase {
            match round.stream {
                StreamPhase::Open { received: Received::Content, .. } => {
                    let error = StreamError::Incomplete { expected: "the end of the reply (the task was restored)" };
                    self.stream_failed(&error);
                }
                StreamPhase::Open { .. } => self.ctx.reopen_stream(round),
                _ => {}
            }
        }
        self.advance();
    }

    /// A snapshot taken on a machine whose clock was ahead of this one's: every time the
    /// task holds moves back by the difference, so that what was left of a delay or a
    /// timeout is what is left now (the transcript's `ts` still rises: it keeps its own
    /// last value).
    fn rebase_clock(&mut self, now: u64) {
        let back = self.ctx.now.saturating_sub(now);
        if back == 0 {
            return;
        }
        let shift = |t: &mut u64| *t = t.saturating_sub(back);
        self.ctx.now = now;
        match &mut self.phase {
            Phase::AwaitingRoundStart { until: Some(until), .. } => shift(until),
            Phase::InRound(round) => {
                match &mut round.stream {
                    StreamPhase::Open { deadline: Some(t), .. } | StreamPhase::RetryDelay { until: t } => shift(t),
                    _ => {}
                }
                if let Wait::Tool { deadline: Some(t), .. } = &mut round.wait {
                    shift(t);
                }
                if let Some((_, due)) = &mut round.paced {
                    shift(due);
                }
            }
            _ => {}
        }
    }

    /// Checks what a restored state refers to, so that nothing later reads past an end:
    /// pending asks are asks of the transcript, blocks exist in the rebuilt parser, the
    /// deleted range lies in the history.
    pub(super) fn check_restored(&mut self) -> Result<(), String> {
        let transcript = &self.ctx.transcript;
        let is_ask = |ts: u64| transcript.get(ts).is_some_and(|m| matches!(m.kind, MessageKind::Ask(_)));
        if self.ctx.deleted.is_some_and(|range| range.end >= self.ctx.history.len() || range.start < 1) {
            return Err("snapshot.state.deleted lies outside the history".into());
        }
        let (ask, round_fits) = match &mut self.phase {
            Phase::AwaitingRetryAnswer { ask_ts, .. }
            | Phase::AwaitingMistakeAnswer { ask_ts, .. }
            | Phase::AwaitingResumeAnswer { ask_ts, .. } => (Some(*ask_ts), true),
            Phase::InRound(round) => {
                round.restore(Rc::clone(&self.ctx.tools));
                let ask = match (&round.stream, &round.wait) {
                    (StreamPhase::RetryAsk { ask_ts }, _)
                    | (_, Wait::Approval { ask_ts, .. } | Wait::Followup { ask_ts, .. })
                    | (_, Wait::CompletionAnswer { ask_ts, .. }) => Some(*ask_ts),
                    _ => None,
                };
                let (parsed, natives) = (round.parser.len(), round.natives.calls().len());
                let fits = |item: &Item| match *item {
                    Item::Parsed(n) => n < parsed,
                    Item::Native(n) => n < natives,
                };
                let fits = round.items.iter().all(fits)
                    && round.parsed_known <= parsed
                    && round.index <= round.items.len()
                    && round.natives_from.map_or(true, |n| n <= round.items.len())
                    && transcript.get(round.api_req_ts).is_some();
                (ask, fits)
            }
            _ => (None, true),
        };
        if let Some(ts) = ask.filter(|ts| !is_ask(*ts)) {
            return Err(format!("snapshot.state refers to the ask {ts}, which the transcript lacks"));
        }
        if !round_fits {
            return Err("snapshot.state.phase.round does not match its reply or transcript".into());
        }
        Ok(())
    }
}
