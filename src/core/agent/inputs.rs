//! The task's inputs after [`Task::start`]: a stream's bytes, end or failure, the MCP
//! servers' listing, an answer, a tool's, checkpoint's or hook's result, a wake-up, and abort
//! (the summary's required files are condense.rs's). Each is ignored when it does not match
//! what the task waits for.

use super::effect::{codes, Effect, HookKind, HookResult, Outcome, ToolOutput};
use super::mcp::{self, ACCESS_MCP_RESOURCE};
use super::message::{AskAnswer, AskKind, AskResponse, MessageKind, SayKind};
use super::round_loop::hook_context;
use super::round_state::{Received, Retry, StreamPhase, Wait};
use super::task::{Phase, Task};
use super::texts;
use crate::core::conversation::ContentBlock;
use crate::core::json::Json;
use crate::core::stream::StreamError;

impl Task {
    /// The bytes of stream `stream`, as read.
    pub fn handle_stream_bytes(&mut self, now: u64, stream: u64, bytes: &[u8]) {
        self.ctx.tick(now);
        let Phase::InRound(round) = &mut self.phase else { return };
        if round.stream_id != stream || !matches!(round.stream, StreamPhase::Open { .. }) {
            return;
        }
        let idle = self.ctx.config.timeouts.idle_ms.map(|ms| now.saturating_add(ms));
        if let StreamPhase::Open { deadline, received } = &mut round.stream {
            *deadline = idle;
            *received = (*received).max(Received::Bytes);
        }
        let mut chunks = std::mem::take(&mut self.ctx.chunks);
        let result = match round.decoder.as_mut() {
            Some(decoder) => decoder.push(bytes, &mut chunks),
            None => Ok(()),
        };
        self.take_chunks(&mut chunks, result, false);
        chunks.clear();
        self.ctx.chunks = chunks;
    }

    /// Stream `stream` ended normally.
    pub fn handle_stream_end(&mut self, now: u64, stream: u64) {
        self.ctx.tick(now);
        let Phase::InRound(round) = &mut self.phase else { return };
        if round.stream_id != stream || !matches!(round.stream, StreamPhase::Open { .. }) {
            return;
        }
        let mut chunks = std::mem::take(&mut self.ctx.chunks);
        let result = match round.decoder.as_mut() {
            Some(decoder) => decoder.finish(&mut chunks),
            None => Ok(()),
        };
        self.take_chunks(&mut chunks, result, true);
        chunks.clear();
        self.ctx.chunks = chunks;
    }

    /// The answer to [`Effect::ListMcpServers`] `id`: the host's raw listing of the MCP
    /// servers (JSON text, read by `McpCatalog::read`: `{ servers: [{ name, tools,
    /// resources, templates }], errors: [{ server, message }], listing? }`), or an empty text
    /// when nothing changed since the last one. The next requests describe the connected
    /// servers and, in native mode, offer their tools; the parser knows `use_mcp_tool` and
    /// `access_mcp_resource` while one is connected; each failed server is reported (an
    /// `error` say naming it) and left out. When `listing` names servers still being listed,
    /// the task takes this listing as it is so far and asks again (the same effect and `id`:
    /// the host answers once one of them ends); otherwise, or at the listing's deadline
    /// (`options.timeouts.mcpListingMs`, through [`handle_timeout`](Self::handle_timeout),
    /// which reports and leaves out those still listed), the request that waited goes out. A
    /// listing that is not JSON changes nothing.
    pub fn handle_mcp_servers(&mut self, now: u64, id: u64, listing: &str) {
        self.ctx.tick(now);
        let Phase::InRound(round) = &mut self.phase else { return };
        if round.stream_id != id || !matches!(round.stream, StreamPhase::Listing { .. }) {
            return;
        }
        self.ctx.mcp_listed.clear();
        if let Ok(listing) = Json::parse(listing) {
            for name in mcp::items(&listing, "listing") {
                match name.as_str() {
                    Some(name) if !mcp::named(&self.ctx.mcp_left_out, name) => {
                        self.ctx.mcp_listed.push(name.to_owned())
                    }
                    _ => {}
                }
            }
            self.ctx.read_listing(&listing, true);
        }
        if self.ctx.mcp_listed.is_empty() {
            self.ctx.end_listing(round);
        } else {
            self.ctx.effects.push_back(Effect::ListMcpServers { id });
        }
        // NOTE: the request that went out waits for its first byte: its deadline's wake-up.
        self.advance();
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

    /// The answer to the ask `ts`.
    pub fn handle_ask_answer(&mut self, now: u64, ts: u64, answer: AskAnswer) {
        self.ctx.tick(now);
        if self.phase.retry() == Some(Retry::Ask { ts }) {
            self.retry_answer(answer);
            self.advance();
            return;
        }
        match std::mem::take(&mut self.phase) {
            Phase::AwaitingMistakeAnswer { ask_ts, content } if ask_ts == ts => self.mistake_answer(answer, content),
            Phase::AwaitingResumeAnswer { ask_ts, content, since } if ask_ts == ts => {
                self.resume_answer(ask_ts, answer, content, since);
            }
            Phase::InRound(mut round) => {
                let finished = self.ctx.answer(&mut round, ts, answer);
                self.phase = Phase::InRound(round);
                if let Some(outcome) = finished {
                    self.finish_after_stream(outcome);
                }
            }
            other => self.phase = other,
        }
        self.advance();
    }

    /// The answer to the ask of a retry: "yes" sends the request again, in its round or in
    /// the next one (automatic retries start over); anything else ends the task.
    fn retry_answer(&mut self, answer: AskAnswer) {
        if answer.response != AskResponse::Yes {
            self.finish(Outcome::ended(codes::API_REQ_FAILED, "the user chose not to retry the failed request"));
            return;
        }
        self.ctx.retry_approved();
        match std::mem::take(&mut self.phase) {
            Phase::AwaitingRoundStart { content, .. } => {
                self.phase = Phase::AwaitingRoundStart { content, retry: None }
            }
            Phase::InRound(mut round) => {
                round.context_retry_used = false;
                self.open_stream(&mut round);
                self.put_round(round);
            }
            other => self.phase = other,
        }
    }

    /// Tool call `id` finished.
    pub fn handle_tool_done(&mut self, now: u64, id: u64, output: ToolOutput) {
        self.ctx.tick(now);
        if let Phase::InRound(round) = &mut self.phase {
            self.ctx.tool_done(round, id, output);
        }
        self.advance();
    }

    /// MCP call `id` (a [`RunTool`](Effect::RunTool) of `use_mcp_tool` or
    /// `access_mcp_resource`) answered: `result` is the server's result object as JSON text,
    /// as it sent it. The task makes what the model reads of it ([`texts::mcp_result`]), then
    /// goes on as [`handle_tool_done`](Self::handle_tool_done) does. Text that is not JSON
    /// reads as an empty result.
    pub fn handle_mcp_result(&mut self, now: u64, id: u64, result: &str) {
        let resource = matches!(&self.phase, Phase::InRound(round)
            if matches!(&round.wait, Wait::Tool { job, .. } if job.name == ACCESS_MCP_RESOURCE));
        let output = texts::mcp_result(&Json::parse(result).unwrap_or_default(), resource);
        self.handle_tool_done(now, id, output);
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
                self.phase = Phase::AwaitingRoundStart { content, retry: None };
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
                    content.push(ContentBlock::text(hook_context("TaskStart", &context)));
                }
                self.phase = Phase::AwaitingRoundStart { content, retry: None };
            }
            Phase::InRound(round) => {
                let cancelled = self.ctx.hook_done(round, id, result);
                if cancelled {
                    let outcome = Outcome::ended(codes::HOOK_CANCELLED, "a PostToolUse hook cancelled the task");
                    self.finish_after_stream(outcome);
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
                StreamPhase::Listing { deadline: Some(deadline), .. } if deadline <= now => {
                    self.ctx.listing_timed_out(round);
                }
                StreamPhase::Open { deadline: Some(deadline), received } if deadline <= now => {
                    let (waiting_for, ms) = if received > Received::Nothing {
                        ("more data", self.ctx.config.timeouts.idle_ms)
                    } else {
                        ("the first byte", self.ctx.config.timeouts.first_byte_ms)
                    };
                    let error = StreamError::Timeout { waiting_for: waiting_for.to_owned(), ms: ms.unwrap_or(0) };
                    self.ctx.effects.push_back(Effect::CancelStream { stream: round.stream_id });
                    self.stream_failed(&error);
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

    /// Aborts the task: drops every effect still queued that would call the host (they were
    /// decided before the abort), cancels the stream, running tools and timers, sends the final
    /// version of each partial say (so the transcript shows what the history keeps) and the
    /// round's `api_req_started` with its figures, saves what streamed with the interruption
    /// notice, runs the TaskCancel hook, and ends the task `aborted`. A driver that performs
    /// these effects before `abort` returns calls no callback after it. Before
    /// [`start`](Self::start), the task simply ends `aborted`. Ignored once the task has ended.
    pub fn abort(&mut self, now: u64, reason: &str) {
        self.stop(now, Outcome::Aborted { reason: reason.to_owned() });
    }

    /// Ends the task `failed` with `code` because its host cannot go on (it could not store a
    /// snapshot): the same steps as [`abort`](Self::abort), with that outcome. Ignored once
    /// the task has ended (the persist of its end failed: its outcome stands).
    pub fn fail(&mut self, now: u64, code: &str, message: &str) {
        self.stop(now, Outcome::failed(code, message));
    }

    fn stop(&mut self, now: u64, outcome: Outcome) {
        // NOTE: an ended task asks for no new persist: the one of its end, failing, would
        // fail again, and again, forever.
        if matches!(self.phase, Phase::Finished(_)) {
            return;
        }
        self.ctx.tick(now);
        // NOTE: a cancel among them is not lost: `Finished` makes the driver cancel every
        // stream and tool it still runs.
        self.ctx.effects = std::collections::VecDeque::new();
        if matches!(self.phase, Phase::NotStarted) {
            self.finish(outcome);
            return;
        }
        let idle_at_completion = matches!(
            self.ctx.transcript.last().map(|m| m.kind),
            Some(MessageKind::Ask(AskKind::CompletionResult | AskKind::ResumeTask | AskKind::ResumeCompletedTask))
        );
        if let Phase::InRound(round) = &mut self.phase {
            if let Wait::StreamEnd { outcome } = &round.wait {
                // NOTE: the outcome was decided before; abort only stops reading the usage.
                let outcome = outcome.clone();
                self.finish(outcome);
                return;
            }
            // NOTE: a PostToolUse hook that runs is not cancelled (a hook has no signal);
            // its late answer is ignored like any other.
            if let Wait::Tool { id, .. } = round.wait {
                self.ctx.effects.push_back(Effect::CancelTool { id });
            }
            if !round.stream_done() {
                self.ctx.finish_partial_message(round);
                self.ctx.finish_reasoning(round);
                self.ctx.finish_api_req(round, Some(("user_cancelled", "")));
            }
        }
        for ts in self.ctx.transcript.finish_all_partial() {
            self.ctx.emit_final(ts);
        }
        if self.ctx.config.hooks.task_cancel && !idle_at_completion {
            let id = self.ctx.new_id();
            self.ctx.hook(id, HookKind::TaskCancel, None, Vec::new(), None);
        }
        self.finish(outcome);
    }
}
