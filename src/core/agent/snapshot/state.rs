//! The snapshot's `state`: the task's counters, clocks and waiting point, walked once for
//! both directions ([`Visit`]). For reading, each enum is first set to the variant its tag
//! names (with default fields), then its fields are visited.

use super::super::context::{ContextState, DeletedRange};
use super::super::effect::Outcome;
use super::super::failure::Failure;
use super::super::repeats::Repeats;
use super::super::round_state::{Received, Retry, Round, Skip, StreamPhase, Wait};
use super::super::tags::tags;
use super::super::task::{Ctx, Phase, TaskUsage};
use super::super::tool_job::ToolJob;
use super::super::turn;
use super::reply;
use super::visit::{index, small, variant, Visit};

// The name of each variant in the snapshot, declared once (`tags.rs`). Format 2's names: a
// new name is a new format's, and an old one is never reused for another variant.

tags!(Outcome {
    "completed" => Outcome::Completed { .. } = Outcome::Completed { result: String::new() },
    "ended" => Outcome::Ended { .. } = Outcome::Ended { code: String::new(), message: String::new() },
    "aborted" => Outcome::Aborted { .. } = Outcome::Aborted { reason: String::new() },
    "failed" => Outcome::Failed { .. } = Outcome::Failed { code: String::new(), message: String::new() },
});

tags!(Wait {
    "idle" => Wait::Nothing = Wait::Nothing,
    "checkpoint" => Wait::Checkpoint(_) = Wait::Checkpoint(ToolJob::default()),
    "preHook" => Wait::PreHook { .. } = Wait::PreHook { id: 0, job: ToolJob::default() },
    "approval" => Wait::Approval { .. } = Wait::Approval { ask_ts: 0, job: ToolJob::default() },
    "tool" => Wait::Tool { .. } = Wait::Tool { id: 0, job: ToolJob::default(), deadline: None },
    "postHook" => Wait::PostHook { .. } =
        Wait::PostHook { id: 0, job: ToolJob::default(), text: String::new(), result: Vec::new() },
    "followup" => Wait::Followup { .. } = Wait::Followup { ask_ts: 0, job: ToolJob::default() },
    "completionHook" => Wait::CompletionHook { .. } = Wait::CompletionHook { id: 0, job: ToolJob::default() },
    "completionAnswer" => Wait::CompletionAnswer { .. } =
        Wait::CompletionAnswer { ask_ts: 0, job: ToolJob::default() },
    "streamEnd" => Wait::StreamEnd { .. } = Wait::StreamEnd { outcome: Outcome::Completed { result: String::new() } },
});

tags!(StreamPhase {
    // NOTE: a round waiting for the MCP servers' listing is written as a stream that
    // received nothing: restored, it lists them again before it sends the request.
    "open" => StreamPhase::Open { .. } | StreamPhase::Listing { .. } =
        StreamPhase::Open { deadline: None, received: Received::Nothing },
    "retryDelay" => StreamPhase::Retry(Retry::Delay { .. }) = StreamPhase::Retry(Retry::Delay { until: 0 }),
    "retryAsk" => StreamPhase::Retry(Retry::Ask { .. }) = StreamPhase::Retry(Retry::Ask { ts: 0 }),
    "ended" => StreamPhase::Ended = StreamPhase::Ended,
    "failedMidStream" => StreamPhase::FailedMidStream { .. } =
        StreamPhase::FailedMidStream { failure: Failure::default() },
});

tags!(Received {
    "nothing" => Received::Nothing = Received::Nothing,
    "bytes" => Received::Bytes = Received::Bytes,
    "content" => Received::Content = Received::Content,
});

tags!(Skip {
    "nothing" => Skip::Nothing = Skip::Nothing,
    "afterToolUse" => Skip::AfterToolUse = Skip::AfterToolUse,
    "afterRejection" => Skip::AfterRejection = Skip::AfterRejection,
});

tags!(Phase {
    "notStarted" => Phase::NotStarted = Phase::NotStarted,
    "startHook" => Phase::AwaitingStartHook { .. } = Phase::AwaitingStartHook { id: 0, content: Vec::new() },
    "retryAnswer" => Phase::AwaitingRoundStart { retry: Some(Retry::Ask { .. }), .. } =
        Phase::AwaitingRoundStart { content: Vec::new(), retry: Some(Retry::Ask { ts: 0 }) },
    // NOTE: a round start waits for its retry's delay when it has a time (`until`).
    "roundStart" => Phase::AwaitingRoundStart { .. } = Phase::AwaitingRoundStart { content: Vec::new(), retry: None },
    "mistakeAnswer" => Phase::AwaitingMistakeAnswer { .. } =
        Phase::AwaitingMistakeAnswer { ask_ts: 0, content: Vec::new() },
    "resumeAnswer" => Phase::AwaitingResumeAnswer { .. } =
        Phase::AwaitingResumeAnswer { ask_ts: 0, content: Vec::new(), since: 0 },
    "round" => Phase::InRound(_) = Phase::InRound(Box::default()),
    "checkpoint" => Phase::AwaitingCheckpoint { .. } =
        Phase::AwaitingCheckpoint { id: 0, content: Vec::new() },
    "finished" => Phase::Finished(_) = Phase::Finished(Outcome::Completed { result: String::new() }),
});

/// Checks every table of the state (`tags::check`).
#[cfg(test)]
fn check_tags() -> Result<(), String> {
    use super::super::tags::check;
    use super::super::turn::Part;
    check(Outcome::Aborted { reason: String::new() })?;
    check(Wait::default())?;
    check(StreamPhase::default())?;
    check(Received::default())?;
    check(Skip::default())?;
    check(Part::Call(0))?;
    check(Phase::default())
}

fn outcome(v: &mut dyn Visit, key: &str, outcome: &mut Outcome) {
    v.begin(key);
    variant(v, "status", outcome);
    match outcome {
        Outcome::Completed { result } => v.text("result", result),
        Outcome::Aborted { reason } => v.text("reason", reason),
        Outcome::Ended { code, message } | Outcome::Failed { code, message } => {
            v.text("code", code);
            v.text("message", message);
        }
    }
    v.end();
}

fn job(v: &mut dyn Visit, job: &mut ToolJob) {
    v.begin("job");
    v.text("name", &mut job.name);
    v.pairs("params", &mut job.params);
    v.optional_text("callId", &mut job.call_id);
    v.text("description", &mut job.description);
    v.end();
}

fn wait(v: &mut dyn Visit, wait: &mut Wait) {
    v.begin("wait");
    variant(v, "kind", wait);
    match wait {
        Wait::Nothing => {}
        Wait::Checkpoint(j) => job(v, j),
        Wait::PreHook { id, job: j } | Wait::CompletionHook { id, job: j } => {
            v.number("id", id);
            job(v, j);
        }
        Wait::Approval { ask_ts, job: j }
        | Wait::Followup { ask_ts, job: j }
        | Wait::CompletionAnswer { ask_ts, job: j } => {
            v.number("askTs", ask_ts);
            job(v, j);
        }
        Wait::Tool { id, job: j, deadline } => {
            v.number("id", id);
            job(v, j);
            v.optional("deadline", deadline);
        }
        Wait::PostHook { id, job: j, text, result } => {
            v.number("id", id);
            job(v, j);
            v.text("text", text);
            v.blocks("result", result);
        }
        Wait::StreamEnd { outcome: o } => outcome(v, "outcome", o),
    }
    v.end();
}

fn stream(v: &mut dyn Visit, stream: &mut StreamPhase) {
    v.begin("stream");
    variant(v, "kind", stream);
    match stream {
        StreamPhase::Open { received, .. } => {
            // NOTE: its deadline is not kept: a restored stream is sent again or failed.
            variant(v, "received", received);
        }
        StreamPhase::Listing { .. } => variant(v, "received", &mut Received::Nothing),
        StreamPhase::Retry(Retry::Delay { until }) => v.number("until", until),
        StreamPhase::Retry(Retry::Ask { ts }) => v.number("askTs", ts),
        StreamPhase::Ended => {}
        StreamPhase::FailedMidStream { failure } => {
            v.begin("failure");
            v.text("code", &mut failure.code);
            v.text("message", &mut failure.message);
            v.flag("autoRetry", &mut failure.auto_retry);
            v.flag("contextWindow", &mut failure.context_window);
            v.optional("retryAfterMs", &mut failure.retry_after_ms);
            v.flag("deterministic", &mut failure.deterministic);
            v.end();
        }
    }
    v.end();
}

fn round(v: &mut dyn Visit, round: &mut Round) {
    v.begin("round");
    v.blocks("userContent", &mut round.user_content);
    v.number("apiReqTs", &mut round.api_req_ts);
    v.number("streamId", &mut round.stream_id);
    stream(v, &mut round.stream);
    let mut text = if v.reading() { String::new() } else { round.parser.text().to_owned() };
    v.text("text", &mut text);
    if v.reading() {
        round.saved_text = text;
    }
    reply::natives(v, round);
    v.text("reasoning", &mut round.reasoning);
    if v.version() >= 3 {
        reply::parts(v, &mut round.parts);
    } else {
        let (mut signature, mut redacted) = (None, Vec::new());
        v.optional_text("signature", &mut signature);
        v.strings("redacted", &mut redacted);
        round.parts = turn::from_format_2(&round.reasoning, signature, redacted, round.saved_natives.len());
    }
    v.optional("reasoningTs", &mut round.reasoning_ts);
    reply::items(v, round);
    index(v, "parsedKnown", &mut round.parsed_known);
    let mut natives_from = round.natives_from.map(|n| n as u64);
    v.optional("nativesFrom", &mut natives_from);
    round.natives_from = natives_from.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    index(v, "index", &mut round.index);
    v.optional("indexTs", &mut round.index_ts);
    wait(v, &mut round.wait);
    variant(v, "skip", &mut round.skip);
    v.flag("contextRetryUsed", &mut round.context_retry_used);
    let usage = &mut round.usage;
    v.begin("usage");
    v.number("inputTokens", &mut usage.input_tokens);
    v.number("outputTokens", &mut usage.output_tokens);
    v.optional("cacheWriteTokens", &mut usage.cache_write_tokens);
    v.optional("cacheReadTokens", &mut usage.cache_read_tokens);
    v.cost("totalCostBits", &mut usage.total_cost);
    if v.version() >= 3 {
        v.optional("reasoningTokens", &mut usage.reasoning_tokens);
    }
    v.end();
    if v.version() >= 3 {
        v.optional_text("stopReason", &mut round.stop_reason);
    }
    // NOTE: pacing (a held-back partial update, the last one's time) is not kept: it
    // matters only while a reply streams, and a restored stream does not go on.
    v.end();
}

fn phase(v: &mut dyn Visit, phase: &mut Phase) {
    v.begin("phase");
    variant(v, "kind", phase);
    match phase {
        Phase::NotStarted => {}
        Phase::AwaitingStartHook { id, content } | Phase::AwaitingCheckpoint { id, content } => {
            v.number("id", id);
            v.blocks("content", content);
        }
        Phase::AwaitingRoundStart { content, retry: Some(Retry::Ask { ts: ask_ts }) }
        | Phase::AwaitingMistakeAnswer { ask_ts, content } => {
            v.number("askTs", ask_ts);
            v.blocks("content", content);
        }
        Phase::AwaitingRoundStart { content, retry } => {
            v.blocks("content", content);
            let mut until = None;
            if let Some(Retry::Delay { until: at }) = retry {
                until = Some(*at);
            }
            v.optional("until", &mut until);
            if let Some(until) = until {
                *retry = Some(Retry::Delay { until });
            }
        }
        Phase::AwaitingResumeAnswer { ask_ts, content, since } => {
            v.number("askTs", ask_ts);
            v.blocks("content", content);
            v.number("since", since);
        }
        Phase::InRound(r) => round(v, r),
        Phase::Finished(o) => outcome(v, "outcome", o),
    }
    v.end();
}

/// `"context": […]` (format 4), a tuple: context management's state but the range (CONTEXT
/// §9.3).
fn context(v: &mut dyn Visit, c: &mut ContextState) {
    v.begin_tuple("context");
    v.optional("figure", &mut c.figure);
    v.number("consecutive", &mut c.consecutive);
    v.flag("fellBack", &mut c.fell_back);
    v.flag("summarizing", &mut c.summarizing);
    v.flag("taskReplaced", &mut c.task_replaced);
    v.flag("reminder", &mut c.reminder);
    v.flag("manual", &mut c.manual);
    v.optional("summaryBefore", &mut c.summary_before);
    v.optional_text("condense", &mut c.condense);
    v.flag("unmeasured", &mut c.unmeasured);
    v.strings("cleared", &mut c.edits.cleared);
    index(v, "thinkingBefore", &mut c.edits.thinking_before);
    v.end();
}

/// `"state": […]`, a tuple: the counters and clocks, and the phase. `last_ts` is the transcript's
/// clock (written from it, read into it by the caller).
pub(super) fn state(v: &mut dyn Visit, ctx: &mut Ctx, task_phase: &mut Phase, last_ts: &mut u64) {
    v.begin_tuple("state");
    v.number("now", &mut ctx.now);
    v.number("lastTs", last_ts);
    let mut start = ctx.context.range.map(|range| range.start as u64);
    let mut end = ctx.context.range.map(|range| range.end as u64);
    v.optional("deletedStart", &mut start);
    v.optional("deletedEnd", &mut end);
    let fit = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    ctx.context.range = start.zip(end).map(|(start, end)| DeletedRange { start: fit(start), end: fit(end) });
    let usage: &mut TaskUsage = &mut ctx.usage;
    v.begin("usage");
    v.number("inputTokens", &mut usage.input_tokens);
    v.number("outputTokens", &mut usage.output_tokens);
    v.number("cacheWriteTokens", &mut usage.cache_write_tokens);
    v.number("cacheReadTokens", &mut usage.cache_read_tokens);
    let mut cost = Some(usage.total_cost);
    v.cost("totalCostBits", &mut cost);
    usage.total_cost = cost.unwrap_or(0.0);
    v.number("requests", &mut usage.requests);
    v.end();
    if v.version() >= 4 {
        context(v, &mut ctx.context);
    } else {
        // NOTE: formats 2 and 3 kept the billed tokens of the last request, read as the
        // figure (at worst one early truncation).
        let mut tokens = ctx.context.figure.unwrap_or(0);
        v.number("lastRequestTokens", &mut tokens);
        ctx.context.figure = Some(tokens);
    }
    small(v, "mistakes", &mut ctx.mistakes);
    small(v, "retryAttempts", &mut ctx.retry_attempts);
    let (name, params, count) = ctx.identical.parts();
    let (mut name, mut params, mut count) = (name.to_owned(), params, count);
    v.begin("repeats");
    v.text("name", &mut name);
    v.pairs("params", &mut params);
    small(v, "count", &mut count);
    v.end();
    if v.reading() {
        ctx.identical = Repeats::from_parts(&name, &params, count);
    }
    v.number("nextId", &mut ctx.next_id);
    v.optional("initialCheckpoint", &mut ctx.initial_checkpoint);
    v.number("rounds", &mut ctx.rounds);
    phase(v, task_phase);
    v.end();
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_states_tags_map_back_to_themselves() {
        super::check_tags().unwrap();
    }
}
