//! The task's state as JSON text, written member by member through [`Out`]. The shape is
//! read back by `read.rs`; each part is named after the field it holds.

use crate::core::conversation::{self, ContentBlock};
use crate::core::json::Json;

use super::super::effect::Outcome;
use super::super::message::{Message, MessageKind};
use super::super::round_state::{Item, Paced, Received, Round, Skip, StreamPhase, ToolJob, Wait};
use super::super::task::{Ctx, Phase};
use super::out::Out;

fn blocks(out: &mut Out, key: &str, content: &[ContentBlock]) {
    out.key(key);
    out.open('[');
    for block in content {
        out.json_item(&block.to_json());
    }
    out.close(']');
}

/// One transcript message in its JS shape: `{ ts, type, say | ask, text, images?, partial? }`.
fn message(out: &mut Out, message: &Message) {
    out.next();
    out.open('{');
    let kind = match message.kind {
        MessageKind::Say(_) => "say",
        MessageKind::Ask(_) => "ask",
    };
    out.number("ts", message.ts);
    out.text_member("type", kind);
    out.text_member(kind, message.kind_name());
    out.text_member("text", &message.text);
    if !message.images.is_empty() {
        out.key("images");
        out.open('[');
        for image in &message.images {
            out.text_item(&image.to_url_text());
        }
        out.close(']');
    }
    if let Some(partial) = message.partial {
        out.flag("partial", partial);
    }
    out.close('}');
}

/// `"history":[…]`: history messages in the shape of `task.history`.
pub(super) fn history(out: &mut Out, messages: &[conversation::Message]) {
    out.key("history");
    out.open('[');
    for item in messages {
        out.json_item(&item.to_json());
    }
    out.close(']');
}

/// `"messages":[…]`: transcript messages in the shape of `task.messages`.
pub(super) fn messages(out: &mut Out, messages: &[Message]) {
    out.key("messages");
    out.open('[');
    for item in messages {
        message(out, item);
    }
    out.close(']');
}

/// `{ status, result? | code, message | reason }`.
fn outcome(out: &mut Out, key: &str, outcome: &Outcome) {
    out.object(key);
    let (status, first, second) = match outcome {
        Outcome::Completed { result } => ("completed", ("result", result), None),
        Outcome::Ended { code, message } => ("ended", ("code", code), Some(message)),
        Outcome::Aborted { reason } => ("aborted", ("reason", reason), None),
        Outcome::Failed { code, message } => ("failed", ("code", code), Some(message)),
    };
    out.text_member("status", status);
    out.text_member(first.0, first.1);
    if let Some(message) = second {
        out.text_member("message", message);
    }
    out.close('}');
}

fn job(out: &mut Out, job: &ToolJob) {
    out.object("job");
    out.text_member("name", &job.name);
    out.pairs("params", &job.params);
    out.optional_text("callId", job.call_id.as_deref());
    out.text_member("description", &job.description);
    out.close('}');
}

fn wait(out: &mut Out, wait: &Wait) {
    let (kind, id, ask_ts, tool) = match wait {
        Wait::Idle => ("idle", None, None, None),
        Wait::Checkpoint(j) => ("checkpoint", None, None, Some(j)),
        Wait::PreHook { id, job } => ("preHook", Some(id), None, Some(job)),
        Wait::Approval { ask_ts, job } => ("approval", None, Some(ask_ts), Some(job)),
        Wait::Tool { id, job, .. } => ("tool", Some(id), None, Some(job)),
        Wait::PostHook { id, job, .. } => ("postHook", Some(id), None, Some(job)),
        Wait::Followup { ask_ts, job } => ("followup", None, Some(ask_ts), Some(job)),
        Wait::CompletionHook { id, job } => ("completionHook", Some(id), None, Some(job)),
        Wait::CompletionAnswer { ask_ts, job } => ("completionAnswer", None, Some(ask_ts), Some(job)),
        Wait::StreamEnd { .. } => ("streamEnd", None, None, None),
    };
    out.tagged("wait", kind);
    if let Some(id) = id {
        out.number("id", *id);
    }
    if let Some(ts) = ask_ts {
        out.number("askTs", *ts);
    }
    if let Some(tool) = tool {
        job(out, tool);
    }
    match wait {
        Wait::Tool { deadline, .. } => out.optional("deadline", *deadline),
        Wait::PostHook { text, result, .. } => {
            out.text_member("text", text);
            blocks(out, "result", result);
        }
        Wait::StreamEnd { outcome: o } => outcome(out, "outcome", o),
        _ => {}
    }
    out.close('}');
}

fn stream(out: &mut Out, stream: &StreamPhase) {
    match stream {
        StreamPhase::Open { deadline, received } => {
            out.tagged("stream", "open");
            out.optional("deadline", *deadline);
            let received = match received {
                Received::Nothing => "nothing",
                Received::Bytes => "bytes",
                Received::Content => "content",
            };
            out.text_member("received", received);
        }
        StreamPhase::RetryDelay { until } => {
            out.tagged("stream", "retryDelay");
            out.number("until", *until);
        }
        StreamPhase::RetryAsk { ask_ts } => {
            out.tagged("stream", "retryAsk");
            out.number("askTs", *ask_ts);
        }
        StreamPhase::Ended => out.tagged("stream", "ended"),
        StreamPhase::FailedMidStream { failure } => {
            out.tagged("stream", "failedMidStream");
            out.object("failure");
            out.text_member("code", &failure.code);
            out.text_member("message", &failure.message);
            out.flag("autoRetry", failure.auto_retry);
            out.flag("contextWindow", failure.context_window);
            out.optional("retryAfterMs", failure.retry_after_ms);
            out.flag("deterministic", failure.deterministic);
            out.close('}');
        }
    }
    out.close('}');
}

/// A round: the reply's text and native calls stand for the parser and assembler, which
/// are rebuilt from them.
fn round(out: &mut Out, round: &Round) {
    out.object("round");
    blocks(out, "userContent", &round.user_content);
    out.number("apiReqTs", round.api_req_ts);
    out.number("streamId", round.stream_id);
    stream(out, &round.stream);
    out.text_member("text", round.parser.text());
    out.key("natives");
    out.open('[');
    for call in round.natives.calls() {
        out.next();
        out.open('{');
        out.text_member("id", &call.id);
        out.text_member("name", &call.name);
        out.text_member("arguments", call.arguments.raw());
        out.close('}');
    }
    out.close(']');
    out.text_member("reasoning", &round.reasoning);
    out.optional_text("signature", round.signature.as_deref());
    out.key("redacted");
    out.open('[');
    for data in &round.redacted {
        out.text_item(data);
    }
    out.close(']');
    out.optional("reasoningTs", round.reasoning_ts);
    out.key("items");
    out.open('[');
    for item in &round.items {
        let text = match item {
            Item::Parsed(n) => format!("p{n}"),
            Item::Native(n) => format!("n{n}"),
        };
        out.text_item(&text);
    }
    out.close(']');
    out.number("parsedKnown", round.parsed_known as u64);
    out.optional("nativesFrom", round.natives_from.map(|n| n as u64));
    out.number("index", round.index as u64);
    out.optional("indexTs", round.index_ts);
    wait(out, &round.wait);
    let skip = match round.skip {
        Skip::Nothing => "nothing",
        Skip::AfterToolUse => "afterToolUse",
        Skip::AfterRejection => "afterRejection",
    };
    out.text_member("skip", skip);
    out.flag("contextRetryUsed", round.context_retry_used);
    let usage = &round.usage;
    out.object("usage");
    out.number("inputTokens", usage.input_tokens);
    out.number("outputTokens", usage.output_tokens);
    out.optional("cacheWriteTokens", usage.cache_write_tokens);
    out.optional("cacheReadTokens", usage.cache_read_tokens);
    out.float_bits("totalCostBits", usage.total_cost);
    out.close('}');
    let paced = round.paced.map(|(what, due)| (matches!(what, Paced::Reasoning), due));
    out.optional("pacedDue", paced.map(|(_, due)| due));
    out.flag("pacedReasoning", paced.is_some_and(|(reasoning, _)| reasoning));
    out.optional("lastPartialTs", round.last_partial.map(|(ts, _)| ts));
    out.optional("lastPartialAt", round.last_partial.map(|(_, at)| at));
    out.close('}');
}

/// What the task waits for, with the content it will send next.
fn phase(out: &mut Out, phase: &Phase) {
    let (kind, id, ask_ts, content) = match phase {
        Phase::NotStarted => ("notStarted", None, None, None),
        Phase::AwaitingStartHook { id, content } => ("startHook", Some(id), None, Some(content)),
        Phase::AwaitingRoundStart { content, .. } => ("roundStart", None, None, Some(content)),
        Phase::AwaitingRetryAnswer { ask_ts, content } => ("retryAnswer", None, Some(ask_ts), Some(content)),
        Phase::AwaitingMistakeAnswer { ask_ts, content } => ("mistakeAnswer", None, Some(ask_ts), Some(content)),
        Phase::AwaitingResumeAnswer { ask_ts, content, .. } => ("resumeAnswer", None, Some(ask_ts), Some(content)),
        Phase::InRound(_) => ("round", None, None, None),
        Phase::AwaitingCheckpoint { id, content } => ("checkpoint", Some(id), None, Some(content)),
        Phase::Finished(_) => ("finished", None, None, None),
    };
    out.tagged("phase", kind);
    if let Some(id) = id {
        out.number("id", *id);
    }
    if let Some(ts) = ask_ts {
        out.number("askTs", *ts);
    }
    if let Some(content) = content {
        blocks(out, "content", content);
    }
    match phase {
        Phase::AwaitingRoundStart { until, .. } => out.optional("until", *until),
        Phase::AwaitingResumeAnswer { since, .. } => out.number("since", *since),
        Phase::InRound(r) => round(out, r),
        Phase::Finished(o) => outcome(out, "outcome", o),
        _ => {}
    }
    out.close('}');
}

/// `"state":{…}`: the counters and clocks of the task, and its phase.
pub(super) fn state(out: &mut Out, ctx: &Ctx, task_phase: &Phase) {
    out.object("state");
    out.number("now", ctx.now);
    out.number("lastTs", ctx.transcript.last_ts());
    out.optional("deletedStart", ctx.deleted.map(|range| range.start as u64));
    out.optional("deletedEnd", ctx.deleted.map(|range| range.end as u64));
    let usage = &ctx.usage;
    out.object("usage");
    out.number("inputTokens", usage.input_tokens);
    out.number("outputTokens", usage.output_tokens);
    out.number("cacheWriteTokens", usage.cache_write_tokens);
    out.number("cacheReadTokens", usage.cache_read_tokens);
    out.json("totalCost", &Json::from(usage.total_cost));
    out.float_bits("totalCostBits", Some(usage.total_cost));
    out.number("requests", usage.requests);
    out.close('}');
    out.number("lastRequestTokens", ctx.last_request_tokens);
    out.number("mistakes", u64::from(ctx.mistakes));
    out.number("retryAttempts", u64::from(ctx.retry_attempts));
    let (name, params, repeated) = ctx.identical.parts();
    out.object("repeats");
    out.text_member("name", name);
    out.pairs("params", &params);
    out.number("count", u64::from(repeated));
    out.close('}');
    out.number("nextId", ctx.next_id);
    out.optional("initialCheckpoint", ctx.initial_checkpoint);
    out.number("rounds", ctx.rounds);
    out.optional("wake", ctx.wake);
    phase(out, task_phase);
    out.close('}');
}
