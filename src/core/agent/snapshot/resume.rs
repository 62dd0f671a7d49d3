//! What a restored task does first: its clock is rebased when the new machine's clock is
//! behind the old one, and whatever it waited for is asked for again.

use std::rc::Rc;

use super::super::effect::{CheckpointKind, Effect, HookKind, ToolOutput};
use super::super::message::MessageKind;
use super::super::round_state::{Item, Received, Retry, Round, StreamPhase, Wait};
use super::super::task::{Ctx, Phase, Task};
use super::super::texts;
use crate::core::parser::IncrementalParser;
use crate::core::stream::{StreamDecoder, StreamError, ToolCallAssembler, Usage};

impl Ctx {
    /// Sends again the request of a stream that had delivered no content when the task was
    /// snapshotted (it may not even have gone out: a persist comes before it): the same
    /// stream id and request, a fresh decoder, nothing counted twice.
    fn reopen_stream(&mut self, round: &mut Round) {
        round.reset_stream();
        // NOTE: what the first reads counted (an Anthropic `message_start`'s input tokens)
        // comes again with the new reply: it is taken back out, so nothing counts twice.
        self.count_usage(&round.usage, true);
        round.usage = Usage::default();
        round.decoder = Some(StreamDecoder::new(self.config.format));
        self.open_stream(round);
    }

    /// A task restored while its reply still streamed, at a complete tool block (a tool,
    /// hook or checkpoint of a call that ran at once, a call waiting for the reply's end, or,
    /// in snapshots written before issue 28, a person asked while the reply streamed): the
    /// reference stops reading after a tool call anyway, so the reply is cut just after that
    /// block, and then ends as a whole reply does, with no notice and no retry (what of the
    /// round's usage may never have arrived is said so: `usageComplete: false`). Returns false,
    /// changing nothing, when the current block is not a complete tool block of the text.
    fn cut_reply_at_block(&mut self, round: &mut Round) -> bool {
        let Some(Item::Parsed(n)) = round.items.get(round.index).copied() else { return false };
        let earlier_native =
            round.items.get(..round.index).unwrap_or_default().iter().any(|i| matches!(i, Item::Native(_)));
        let name = round.parsed(n).filter(|b| !b.is_partial()).and_then(|b| b.tool_name()).map(str::to_owned);
        if earlier_native || name.is_none() {
            return false;
        }
        // NOTE: the text again, a character at a time (linear: a push costs its own length),
        // until the block is complete: the parser then holds the reply cut just after it.
        let mut parser = IncrementalParser::new(Rc::clone(round.parser.tool_set()));
        let text = round.parser.text();
        let mut pieces = text.char_indices();
        while !parser.block(n).is_some_and(|b| !b.is_partial()) {
            let Some(piece) = pieces.next().and_then(|(at, c)| text.get(at..at + c.len_utf8())) else { return false };
            parser.push(piece);
        }
        if parser.len() != n + 1 || parser.block(n).and_then(|b| b.tool_name()) != name.as_deref() {
            return false;
        }
        round.parser = parser;
        round.natives = ToolCallAssembler::new();
        round.items.truncate(round.index + 1);
        round.parsed_known = n + 1;
        round.natives_from = None;
        round.usage_incomplete = true;
        true
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
        // NOTE: the reply is cut before the wait is taken up (a tool whose outcome is unknown
        // completes its block at once), and ends once it has been (below).
        let cut = match &mut self.phase {
            Phase::InRound(round) if matches!(round.stream, StreamPhase::Open { received: Received::Content, .. }) => {
                self.ctx.cut_reply_at_block(round)
            }
            _ => false,
        };
        if let Some(id) = self.ctx.initial_checkpoint {
            self.ctx.effects.push_back(Effect::SaveCheckpoint { id, kind: CheckpointKind::Initial });
        }
        if let Some(Retry::Ask { ts }) = self.phase.retry() {
            self.ctx.reissue_ask(ts);
        }
        match &mut self.phase {
            Phase::AwaitingStartHook { id, .. } => self.ctx.hook(*id, HookKind::TaskStart, None, Vec::new(), None),
            Phase::AwaitingMistakeAnswer { ask_ts, .. } | Phase::AwaitingResumeAnswer { ask_ts, .. } => {
                self.ctx.reissue_ask(*ask_ts)
            }
            Phase::AwaitingCheckpoint { id, .. } => {
                self.ctx.effects.push_back(Effect::SaveCheckpoint { id: *id, kind: CheckpointKind::Round });
            }
            Phase::InRound(round) => {
                let rerun = match &round.wait {
                    Wait::Tool { id, job, .. } => {
                        let spec = self.ctx.config.tools.iter().find(|t| t.name == job.name);
                        // NOTE: reading the files a summary names only reads: asked again.
                        let again = spec.is_some_and(|t| t.idempotent)
                            || self.ctx.reads_only(&job.name, &job.params)
                            || job.name == super::super::context::texts::SUMMARIZE_TASK;
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
                    if cut {
                        self.end_of_stream();
                    } else {
                        let error =
                            StreamError::Incomplete { expected: "the end of the reply (the task was restored)" };
                        self.stream_failed(&error);
                    }
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
            Phase::AwaitingRoundStart { retry: Some(Retry::Delay { until }), .. } => shift(until),
            Phase::InRound(round) => {
                match &mut round.stream {
                    StreamPhase::Open { deadline: Some(t), .. } | StreamPhase::Retry(Retry::Delay { until: t }) => {
                        shift(t)
                    }
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
        if self.ctx.context.summarizing {
            // NOTE: a summarize round (a manual condense too) parses `summarize_task`.
            self.ctx.know_summarize_tool();
        }
        let transcript = &self.ctx.transcript;
        let is_ask = |ts: u64| transcript.get(ts).is_some_and(|m| matches!(m.kind, MessageKind::Ask(_)));
        // NOTE: a summary taken while its reply streams (XML) ends the range at the reply, which
        // joins the history when it ends: one past the history's end while a round runs.
        let past = usize::from(matches!(self.phase, Phase::InRound(_)));
        if self.ctx.context.range.is_some_and(|range| range.end >= self.ctx.history.len() + past || range.start < 1) {
            return Err("snapshot.state.deleted lies outside the history".into());
        }
        let retry_ask = match self.phase.retry() {
            Some(Retry::Ask { ts }) => Some(ts),
            _ => None,
        };
        let (ask, round_fits) = match &mut self.phase {
            Phase::AwaitingMistakeAnswer { ask_ts, .. } | Phase::AwaitingResumeAnswer { ask_ts, .. } => {
                (Some(*ask_ts), true)
            }
            Phase::InRound(round) => {
                round.restore(Rc::clone(&self.ctx.tools));
                let ask = match &round.wait {
                    Wait::Approval { ask_ts, .. }
                    | Wait::Followup { ask_ts, .. }
                    | Wait::CompletionAnswer { ask_ts, .. } => Some(*ask_ts),
                    _ => retry_ask,
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
            _ => (retry_ask, true),
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
