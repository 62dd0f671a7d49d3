//! The task's state as JSON, through the codec's [`Json`] (no serde in the wasm). The
//! shape is read back by `read.rs`; each part is named after the field it holds.

use crate::core::conversation::{self, ContentBlock};
use crate::core::json::Json;
use crate::core::stream::Usage;

use super::super::effect::Outcome;
use super::super::failure::Failure;
use super::super::message::{Message, MessageKind};
use super::super::round_state::{Item, Paced, Received, Round, Skip, StreamPhase, ToolJob, Wait};
use super::super::task::{Ctx, Phase, TaskUsage};

/// A float as its exact bits (hex text): JSON numbers written here keep 12 decimals, and a
/// resumed task's cost must add up to the uninterrupted one's to the last bit.
pub(super) fn float_bits(value: f64) -> Json {
    Json::from(format!("{:016x}", value.to_bits()))
}

fn opt(value: Option<u64>) -> Json {
    value.map_or(Json::Null, Json::from)
}

fn count(value: usize) -> Json {
    Json::from(value as u64)
}

fn blocks(content: &[ContentBlock]) -> Json {
    Json::Array(content.iter().map(ContentBlock::to_json).collect())
}

/// One transcript message in its JS shape: `{ ts, type, say | ask, text, images?, partial? }`.
pub(crate) fn message(message: &Message) -> Json {
    let (kind, key) = match message.kind {
        MessageKind::Say(_) => ("say", "say"),
        MessageKind::Ask(_) => ("ask", "ask"),
    };
    let mut out =
        Json::object().with("ts", message.ts).with("type", kind).with(key, message.kind_name()).with("text", &message.text);
    if !message.images.is_empty() {
        out.set("images", Json::Array(message.images.iter().map(|i| Json::from(i.to_url_text())).collect()));
    }
    if let Some(partial) = message.partial {
        out.set("partial", partial);
    }
    out
}

/// History messages as their JSON (the shape of `task.history`).
pub(super) fn history(messages: &[conversation::Message]) -> Json {
    Json::Array(messages.iter().map(conversation::Message::to_json).collect())
}

/// Transcript messages as their JSON.
pub(super) fn messages(messages: &[Message]) -> Json {
    Json::Array(messages.iter().map(message).collect())
}

fn task_usage(usage: &TaskUsage) -> Json {
    Json::object()
        .with("inputTokens", usage.input_tokens)
        .with("outputTokens", usage.output_tokens)
        .with("cacheWriteTokens", usage.cache_write_tokens)
        .with("cacheReadTokens", usage.cache_read_tokens)
        .with("totalCost", usage.total_cost)
        .with("totalCostBits", float_bits(usage.total_cost))
        .with("requests", usage.requests)
}

fn round_usage(usage: &Usage) -> Json {
    Json::object()
        .with("inputTokens", usage.input_tokens)
        .with("outputTokens", usage.output_tokens)
        .with("cacheWriteTokens", opt(usage.cache_write_tokens))
        .with("cacheReadTokens", opt(usage.cache_read_tokens))
        .with("totalCostBits", usage.total_cost.map_or(Json::Null, float_bits))
}

/// `{ status, result? | code, message | reason }`.
pub(super) fn outcome(outcome: &Outcome) -> Json {
    match outcome {
        Outcome::Completed { result } => Json::object().with("status", "completed").with("result", result),
        Outcome::Ended { code, message } => {
            Json::object().with("status", "ended").with("code", code).with("message", message)
        }
        Outcome::Aborted { reason } => Json::object().with("status", "aborted").with("reason", reason),
        Outcome::Failed { code, message } => {
            Json::object().with("status", "failed").with("code", code).with("message", message)
        }
    }
}

fn failure(failure: &Failure) -> Json {
    Json::object()
        .with("code", &failure.code)
        .with("message", &failure.message)
        .with("autoRetry", failure.auto_retry)
        .with("contextWindow", failure.context_window)
        .with("retryAfterMs", opt(failure.retry_after_ms))
        .with("deterministic", failure.deterministic)
}

/// `[[name, value], …]`: parameters keep their order.
pub(super) fn pairs(params: &[(String, String)]) -> Json {
    Json::Array(params.iter().map(|(k, v)| Json::Array(vec![Json::from(k), Json::from(v)])).collect())
}

fn job(job: &ToolJob) -> Json {
    Json::object()
        .with("name", &job.name)
        .with("params", pairs(&job.params))
        .with("callId", job.call_id.as_deref().map_or(Json::Null, Json::from))
        .with("description", &job.description)
}

fn wait(wait: &Wait) -> Json {
    let kind = |name: &str| Json::object().with("kind", name);
    match wait {
        Wait::Idle => kind("idle"),
        Wait::Checkpoint(j) => kind("checkpoint").with("job", job(j)),
        Wait::PreHook { id, job: j } => kind("preHook").with("id", *id).with("job", job(j)),
        Wait::Approval { ask_ts, job: j } => kind("approval").with("askTs", *ask_ts).with("job", job(j)),
        Wait::Tool { id, job: j, deadline } => {
            kind("tool").with("id", *id).with("job", job(j)).with("deadline", opt(*deadline))
        }
        Wait::PostHook { id, job: j, text, result } => {
            kind("postHook").with("id", *id).with("job", job(j)).with("text", text).with("result", blocks(result))
        }
        Wait::Followup { ask_ts, job: j } => kind("followup").with("askTs", *ask_ts).with("job", job(j)),
        Wait::CompletionHook { id, job: j } => kind("completionHook").with("id", *id).with("job", job(j)),
        Wait::CompletionAnswer { ask_ts, job: j } => {
            kind("completionAnswer").with("askTs", *ask_ts).with("job", job(j))
        }
        Wait::StreamEnd { outcome: o } => kind("streamEnd").with("outcome", outcome(o)),
    }
}

fn stream(stream: &StreamPhase) -> Json {
    let kind = |name: &str| Json::object().with("kind", name);
    match stream {
        StreamPhase::Open { deadline, received } => {
            let received = match received {
                Received::Nothing => "nothing",
                Received::Bytes => "bytes",
                Received::Content => "content",
            };
            kind("open").with("deadline", opt(*deadline)).with("received", received)
        }
        StreamPhase::RetryDelay { until } => kind("retryDelay").with("until", *until),
        StreamPhase::RetryAsk { ask_ts } => kind("retryAsk").with("askTs", *ask_ts),
        StreamPhase::Ended => kind("ended"),
        StreamPhase::FailedMidStream { failure: f } => kind("failedMidStream").with("failure", failure(f)),
    }
}

fn item(item: &Item) -> Json {
    match item {
        Item::Parsed(n) => Json::from(format!("p{n}")),
        Item::Native(n) => Json::from(format!("n{n}")),
    }
}

/// A round: the reply's text and native calls stand for the parser and assembler, which
/// are rebuilt from them.
fn round(round: &Round) -> Json {
    let natives = round.natives.calls().iter().map(|call| {
        Json::object().with("id", &call.id).with("name", &call.name).with("arguments", call.arguments.raw())
    });
    let skip = match round.skip {
        Skip::Nothing => "nothing",
        Skip::AfterToolUse => "afterToolUse",
        Skip::AfterRejection => "afterRejection",
    };
    let paced = round.paced.map_or(Json::Null, |(what, due)| {
        let what = match what {
            Paced::Block => "block",
            Paced::Reasoning => "reasoning",
        };
        Json::object().with("what", what).with("due", due)
    });
    let last_partial = round.last_partial.map_or(Json::Null, |(ts, at)| Json::object().with("ts", ts).with("at", at));
    Json::object()
        .with("userContent", blocks(&round.user_content))
        .with("apiReqTs", round.api_req_ts)
        .with("streamId", round.stream_id)
        .with("stream", stream(&round.stream))
        .with("text", round.parser.text())
        .with("natives", Json::Array(natives.collect()))
        .with("reasoning", &round.reasoning)
        .with("signature", round.signature.as_deref().map_or(Json::Null, Json::from))
        .with("redacted", Json::Array(round.redacted.iter().map(Json::from).collect()))
        .with("reasoningTs", opt(round.reasoning_ts))
        .with("items", Json::Array(round.items.iter().map(item).collect()))
        .with("parsedKnown", count(round.parsed_known))
        .with("nativesFrom", opt(round.natives_from.map(|n| n as u64)))
        .with("index", count(round.index))
        .with("indexTs", opt(round.index_ts))
        .with("wait", wait(&round.wait))
        .with("skip", skip)
        .with("contextRetryUsed", round.context_retry_used)
        .with("usage", round_usage(&round.usage))
        .with("paced", paced)
        .with("lastPartial", last_partial)
}

/// What the task waits for, with the content it will send next.
pub(super) fn phase(phase: &Phase) -> Json {
    let kind = |name: &str| Json::object().with("kind", name);
    match phase {
        Phase::NotStarted => kind("notStarted"),
        Phase::AwaitingStartHook { id, content } => kind("startHook").with("id", *id).with("content", blocks(content)),
        Phase::AwaitingRoundStart { content, until } => {
            kind("roundStart").with("content", blocks(content)).with("until", opt(*until))
        }
        Phase::AwaitingRetryAnswer { ask_ts, content } => {
            kind("retryAnswer").with("askTs", *ask_ts).with("content", blocks(content))
        }
        Phase::AwaitingMistakeAnswer { ask_ts, content } => {
            kind("mistakeAnswer").with("askTs", *ask_ts).with("content", blocks(content))
        }
        Phase::AwaitingResumeAnswer { ask_ts, content, since } => {
            kind("resumeAnswer").with("askTs", *ask_ts).with("content", blocks(content)).with("since", *since)
        }
        Phase::InRound(r) => kind("round").with("round", round(r)),
        Phase::AwaitingCheckpoint { id, content } => {
            kind("checkpoint").with("id", *id).with("content", blocks(content))
        }
        Phase::Finished(o) => kind("finished").with("outcome", outcome(o)),
    }
}

/// The counters and clocks of the task, and its phase: the snapshot's `state`.
pub(super) fn state(ctx: &Ctx, phase_json: Json) -> Json {
    let deleted =
        ctx.deleted.map_or(Json::Null, |range| Json::Array(vec![count(range.start), count(range.end)]));
    let (name, params, repeated) = ctx.identical.parts();
    Json::object()
        .with("now", ctx.now)
        .with("lastTs", ctx.transcript.last_ts())
        .with("deleted", deleted)
        .with("usage", task_usage(&ctx.usage))
        .with("lastRequestTokens", ctx.last_request_tokens)
        .with("mistakes", ctx.mistakes)
        .with("retryAttempts", ctx.retry_attempts)
        .with("repeats", Json::object().with("name", name).with("params", pairs(&params)).with("count", repeated))
        .with("nextId", ctx.next_id)
        .with("initialCheckpoint", opt(ctx.initial_checkpoint))
        .with("rounds", ctx.rounds)
        .with("wake", opt(ctx.wake))
        .with("phase", phase_json)
}
