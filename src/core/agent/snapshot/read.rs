//! A snapshot's JSON read back into the task's state. Every value is checked: a snapshot
//! is input (it went through a user's storage), so anything wrong is an error naming where
//! it is (`state.phase.round.wait.job.name`), never a panic.

use crate::core::conversation::{self, ContentBlock, ImageSource};
use crate::core::json::fields;
use crate::core::json::Json;
use crate::core::stream::{ToolCall, ToolCallFunction, Usage};

use super::super::effect::Outcome;
use super::super::failure::Failure;
use super::super::history::DeletedRange;
use super::super::message::{AskKind, Message, MessageKind, SayKind};
use super::super::repeats::Repeats;
use super::super::round_state::{Item, Paced, Received, Round, Skip, StreamPhase, ToolJob, Wait};
use super::super::task::{Ctx, Phase, TaskUsage};

/// Why a part of a snapshot cannot be read: where, and what is wrong.
pub(super) type Error = String;

/// An object of the snapshot and where it sits, with typed members.
#[derive(Clone, Copy)]
pub(super) struct Obj<'a> {
    value: &'a Json,
    at: &'a str,
}

impl<'a> Obj<'a> {
    pub(super) fn new(value: &'a Json, at: &'a str) -> Result<Self, Error> {
        Ok(Self { value: fields::object(value, at)?, at })
    }

    fn get(&self, field: &str) -> Option<&'a Json> {
        self.value.get(field).filter(|v| !v.is_null())
    }

    pub(super) fn opt_u64(&self, field: &str) -> Result<Option<u64>, Error> {
        match self.get(field) {
            None => Ok(None),
            Some(n) => n.as_u64().map(Some).ok_or_else(|| format!("{}.{field} must be a whole number", self.at)),
        }
    }

    pub(super) fn u64(&self, field: &str) -> Result<u64, Error> {
        self.opt_u64(field)?.ok_or_else(|| format!("{}.{field} is required", self.at))
    }

    fn u32(&self, field: &str) -> Result<u32, Error> {
        u32::try_from(self.u64(field)?).map_err(|_| format!("{}.{field} is too large", self.at))
    }

    fn usize(&self, field: &str) -> Result<usize, Error> {
        usize::try_from(self.u64(field)?).map_err(|_| format!("{}.{field} is too large", self.at))
    }

    pub(super) fn text(&self, field: &str) -> Result<String, Error> {
        fields::required(self.value, self.at, field)
    }

    fn opt_text(&self, field: &str) -> Result<Option<String>, Error> {
        fields::string(self.value, self.at, field)
    }

    fn flag(&self, field: &str) -> Result<bool, Error> {
        Ok(fields::flag(self.value, self.at, field)?.unwrap_or(false))
    }

    pub(super) fn list(&self, field: &str) -> Result<&'a [Json], Error> {
        fields::list(self.value, self.at, field)
    }

    /// A required member, with its path.
    pub(super) fn member(&self, field: &str) -> Result<(&'a Json, String), Error> {
        let value = self.get(field).ok_or_else(|| format!("{}.{field} is required", self.at))?;
        Ok((value, format!("{}.{field}", self.at)))
    }

    fn kind(&self) -> Result<String, Error> {
        self.text("kind")
    }

    fn unknown(&self, what: &str) -> Error {
        format!("{}.{what} is not one this version knows", self.at)
    }

    fn float_bits(&self, field: &str) -> Result<Option<f64>, Error> {
        match self.opt_text(field)? {
            None => Ok(None),
            Some(hex) => u64::from_str_radix(&hex, 16)
                .ok()
                .filter(|_| hex.len() == 16)
                .map(f64::from_bits)
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(Some)
                .ok_or_else(|| format!("{}.{field} must be 16 hex digits of a cost", self.at)),
        }
    }
}

/// Calls `read` on a required member that must be an object.
fn with<T>(parent: &Obj<'_>, field: &str, read: impl FnOnce(Obj<'_>) -> Result<T, Error>) -> Result<T, Error> {
    let (value, at) = parent.member(field)?;
    read(Obj::new(value, &at)?)
}

fn blocks(parent: &Obj<'_>, field: &str) -> Result<Vec<ContentBlock>, Error> {
    let at = format!("{}.{field}", parent.at);
    parent.list(field)?.iter().enumerate().map(|(i, b)| ContentBlock::from_json(b, &format!("{at}[{i}]"))).collect()
}

fn strings(parent: &Obj<'_>, field: &str) -> Result<Vec<String>, Error> {
    let at = format!("{}.{field}", parent.at);
    parent
        .list(field)?
        .iter()
        .enumerate()
        .map(|(i, s)| s.as_str().map(str::to_owned).ok_or_else(|| format!("{at}[{i}] must be a string")))
        .collect()
}

/// `[[name, value], …]`.
pub(super) fn pairs(parent: &Obj<'_>, field: &str) -> Result<Vec<(String, String)>, Error> {
    let at = format!("{}.{field}", parent.at);
    parent
        .list(field)?
        .iter()
        .enumerate()
        .map(|(i, pair)| match pair.as_array() {
            Some([Json::String(k), Json::String(v)]) => Ok((k.clone(), v.clone())),
            _ => Err(format!("{at}[{i}] must be a [name, value] pair of strings")),
        })
        .collect()
}

/// History messages (the shape of `task.history`).
pub(super) fn history(items: &[Json], at: &str) -> Result<Vec<conversation::Message>, Error> {
    items.iter().enumerate().map(|(i, m)| conversation::Message::from_json(m, &format!("{at}[{i}]"))).collect()
}

/// One transcript message in its JS shape. Kinds clew does not know are kept as `Other`
/// only when `lenient` (a transcript given to `from_history`, which may come from Cline).
pub(super) fn message(value: &Json, at: &str, lenient: bool) -> Result<Message, Error> {
    let o = Obj::new(value, at)?;
    let kind_of = |key: &str| o.text(key);
    let (kind, name) = match o.text("type")?.as_str() {
        "say" => {
            let name = kind_of("say")?;
            (SayKind::parse(&name).map(MessageKind::Say), name)
        }
        "ask" => {
            let name = kind_of("ask")?;
            (AskKind::parse(&name).map(MessageKind::Ask), name)
        }
        _ => return Err(format!("{at}.type must be \"say\" or \"ask\"")),
    };
    let is_say = o.text("type")? == "say";
    let (kind, other_kind) = match kind {
        Some(MessageKind::Say(SayKind::Other) | MessageKind::Ask(AskKind::Other)) | None if lenient => {
            (if is_say { MessageKind::Say(SayKind::Other) } else { MessageKind::Ask(AskKind::Other) }, Some(name))
        }
        Some(kind) if !matches!(kind, MessageKind::Say(SayKind::Other) | MessageKind::Ask(AskKind::Other)) => {
            (kind, None)
        }
        _ => return Err(format!("{at}: \"{name}\" is not a message kind this version knows")),
    };
    let images = strings(&o, "images")?.iter().map(|text| ImageSource::from_url_text(text)).collect();
    let partial = fields::flag(value, at, "partial")?;
    Ok(Message { ts: o.u64("ts")?, kind, text: o.opt_text("text")?.unwrap_or_default(), images, partial, other_kind })
}

/// Transcript messages, whose `ts` must rise strictly.
pub(super) fn messages(items: &[Json], at: &str, lenient: bool) -> Result<Vec<Message>, Error> {
    let mut out: Vec<Message> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let message = message(item, &format!("{at}[{i}]"), lenient)?;
        if out.last().is_some_and(|last| last.ts >= message.ts) {
            return Err(format!("{at}[{i}].ts must be greater than the one before"));
        }
        out.push(message);
    }
    Ok(out)
}

fn task_usage(o: Obj<'_>) -> Result<TaskUsage, Error> {
    let total_cost = match o.float_bits("totalCostBits")? {
        Some(cost) => cost,
        None => fields::amount(o.value, o.at, "totalCost")?.unwrap_or(0.0),
    };
    Ok(TaskUsage {
        input_tokens: o.u64("inputTokens")?,
        output_tokens: o.u64("outputTokens")?,
        cache_write_tokens: o.u64("cacheWriteTokens")?,
        cache_read_tokens: o.u64("cacheReadTokens")?,
        total_cost,
        requests: o.u64("requests")?,
    })
}

fn round_usage(o: Obj<'_>) -> Result<Usage, Error> {
    Ok(Usage {
        input_tokens: o.u64("inputTokens")?,
        output_tokens: o.u64("outputTokens")?,
        cache_write_tokens: o.opt_u64("cacheWriteTokens")?,
        cache_read_tokens: o.opt_u64("cacheReadTokens")?,
        total_cost: o.float_bits("totalCostBits")?,
    })
}

pub(super) fn outcome(o: Obj<'_>) -> Result<Outcome, Error> {
    Ok(match o.text("status")?.as_str() {
        "completed" => Outcome::Completed { result: o.text("result")? },
        "ended" => Outcome::Ended { code: o.text("code")?, message: o.text("message")? },
        "aborted" => Outcome::Aborted { reason: o.text("reason")? },
        "failed" => Outcome::Failed { code: o.text("code")?, message: o.text("message")? },
        _ => return Err(o.unknown("status")),
    })
}

fn failure(o: Obj<'_>) -> Result<Failure, Error> {
    Ok(Failure {
        code: o.text("code")?,
        message: o.text("message")?,
        auto_retry: o.flag("autoRetry")?,
        context_window: o.flag("contextWindow")?,
        retry_after_ms: o.opt_u64("retryAfterMs")?,
        deterministic: o.flag("deterministic")?,
    })
}

fn job(o: Obj<'_>) -> Result<ToolJob, Error> {
    Ok(ToolJob {
        name: o.text("name")?,
        params: pairs(&o, "params")?,
        call_id: o.opt_text("callId")?,
        description: o.text("description")?,
    })
}

fn wait(o: Obj<'_>) -> Result<Wait, Error> {
    let job = || with(&o, "job", job);
    Ok(match o.kind()?.as_str() {
        "idle" => Wait::Idle,
        "checkpoint" => Wait::Checkpoint(job()?),
        "preHook" => Wait::PreHook { id: o.u64("id")?, job: job()? },
        "approval" => Wait::Approval { ask_ts: o.u64("askTs")?, job: job()? },
        "tool" => Wait::Tool { id: o.u64("id")?, job: job()?, deadline: o.opt_u64("deadline")? },
        "postHook" => {
            Wait::PostHook { id: o.u64("id")?, job: job()?, text: o.text("text")?, result: blocks(&o, "result")? }
        }
        "followup" => Wait::Followup { ask_ts: o.u64("askTs")?, job: job()? },
        "completionHook" => Wait::CompletionHook { id: o.u64("id")?, job: job()? },
        "completionAnswer" => Wait::CompletionAnswer { ask_ts: o.u64("askTs")?, job: job()? },
        "streamEnd" => Wait::StreamEnd { outcome: with(&o, "outcome", outcome)? },
        _ => return Err(o.unknown("kind")),
    })
}

fn stream(o: Obj<'_>) -> Result<StreamPhase, Error> {
    Ok(match o.kind()?.as_str() {
        "open" => {
            let received = match o.text("received")?.as_str() {
                "nothing" => Received::Nothing,
                "bytes" => Received::Bytes,
                "content" => Received::Content,
                _ => return Err(o.unknown("received")),
            };
            StreamPhase::Open { deadline: o.opt_u64("deadline")?, received }
        }
        "retryDelay" => StreamPhase::RetryDelay { until: o.u64("until")? },
        "retryAsk" => StreamPhase::RetryAsk { ask_ts: o.u64("askTs")? },
        "ended" => StreamPhase::Ended,
        "failedMidStream" => StreamPhase::FailedMidStream { failure: with(&o, "failure", failure)? },
        _ => return Err(o.unknown("kind")),
    })
}

fn items(o: &Obj<'_>) -> Result<Vec<Item>, Error> {
    strings(o, "items")?
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let number = |rest: &str| rest.parse::<usize>().ok();
            match (text.get(..1), text.get(1..).and_then(number)) {
                (Some("p"), Some(n)) => Ok(Item::Parsed(n)),
                (Some("n"), Some(n)) => Ok(Item::Native(n)),
                _ => Err(format!("{}.items[{i}] must be \"p<n>\" or \"n<n>\"", o.at)),
            }
        })
        .collect()
}

fn natives(o: &Obj<'_>) -> Result<Vec<ToolCall>, Error> {
    let at = format!("{}.natives", o.at);
    o.list("natives")?
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let at = format!("{at}[{i}]");
            let call = Obj::new(call, &at)?;
            let id = call.opt_text("id")?;
            Ok(ToolCall {
                call_id: id.clone(),
                function: ToolCallFunction { id, name: call.opt_text("name")?, arguments: call.opt_text("arguments")? },
            })
        })
        .collect()
}

fn round(o: Obj<'_>) -> Result<Round, Error> {
    let skip = match o.text("skip")?.as_str() {
        "nothing" => Skip::Nothing,
        "afterToolUse" => Skip::AfterToolUse,
        "afterRejection" => Skip::AfterRejection,
        _ => return Err(o.unknown("skip")),
    };
    let paced = match o.get("paced") {
        None => None,
        Some(_) => Some(with(&o, "paced", |p| {
            let what = match p.text("what")?.as_str() {
                "block" => Paced::Block,
                "reasoning" => Paced::Reasoning,
                _ => return Err(p.unknown("what")),
            };
            Ok((what, p.u64("due")?))
        })?),
    };
    let last_partial = match o.get("lastPartial") {
        None => None,
        Some(_) => Some(with(&o, "lastPartial", |p| Ok((p.u64("ts")?, p.u64("at")?)))?),
    };
    let natives_from = o.opt_u64("nativesFrom")?.map(usize::try_from).transpose().map_err(|_| o.unknown("nativesFrom"))?;
    Ok(Round {
        user_content: blocks(&o, "userContent")?,
        api_req_ts: o.u64("apiReqTs")?,
        stream_id: o.u64("streamId")?,
        stream: with(&o, "stream", stream)?,
        saved_text: o.opt_text("text")?.unwrap_or_default(),
        saved_natives: natives(&o)?,
        reasoning: o.opt_text("reasoning")?.unwrap_or_default(),
        signature: o.opt_text("signature")?,
        redacted: strings(&o, "redacted")?,
        reasoning_ts: o.opt_u64("reasoningTs")?,
        items: items(&o)?,
        parsed_known: o.usize("parsedKnown")?,
        natives_from,
        index: o.usize("index")?,
        index_ts: o.opt_u64("indexTs")?,
        wait: with(&o, "wait", wait)?,
        skip,
        context_retry_used: o.flag("contextRetryUsed")?,
        usage: with(&o, "usage", round_usage)?,
        paced,
        last_partial,
        ..Round::default()
    })
}

pub(super) fn phase(o: Obj<'_>) -> Result<Phase, Error> {
    let content = || blocks(&o, "content");
    Ok(match o.kind()?.as_str() {
        "notStarted" => Phase::NotStarted,
        "startHook" => Phase::AwaitingStartHook { id: o.u64("id")?, content: content()? },
        "roundStart" => Phase::AwaitingRoundStart { content: content()?, until: o.opt_u64("until")? },
        "retryAnswer" => Phase::AwaitingRetryAnswer { ask_ts: o.u64("askTs")?, content: content()? },
        "mistakeAnswer" => Phase::AwaitingMistakeAnswer { ask_ts: o.u64("askTs")?, content: content()? },
        "resumeAnswer" => {
            Phase::AwaitingResumeAnswer { ask_ts: o.u64("askTs")?, content: content()?, since: o.u64("since")? }
        }
        "round" => Phase::InRound(Box::new(with(&o, "round", round)?)),
        "checkpoint" => Phase::AwaitingCheckpoint { id: o.u64("id")?, content: content()? },
        "finished" => Phase::Finished(with(&o, "outcome", outcome)?),
        _ => return Err(o.unknown("kind")),
    })
}

/// The counters and clocks (`state`), into `ctx`, and the phase.
pub(super) fn state(o: Obj<'_>, ctx: &mut Ctx) -> Result<(Phase, u64), Error> {
    ctx.now = o.u64("now")?;
    ctx.deleted = match o.get("deleted").map(Json::as_array) {
        None => None,
        Some(Some([start, end])) => match (start.as_u64(), end.as_u64()) {
            (Some(start), Some(end)) if start <= end => Some(DeletedRange {
                start: usize::try_from(start).map_err(|_| o.unknown("deleted"))?,
                end: usize::try_from(end).map_err(|_| o.unknown("deleted"))?,
            }),
            _ => return Err(format!("{}.deleted must be [start, end]", o.at)),
        },
        Some(_) => return Err(format!("{}.deleted must be [start, end]", o.at)),
    };
    ctx.usage = with(&o, "usage", task_usage)?;
    ctx.last_request_tokens = o.u64("lastRequestTokens")?;
    ctx.mistakes = o.u32("mistakes")?;
    ctx.retry_attempts = o.u32("retryAttempts")?;
    ctx.identical = with(&o, "repeats", |r| {
        let count = r.u32("count")?;
        Ok(Repeats::from_parts(&r.opt_text("name")?.unwrap_or_default(), &pairs(&r, "params")?, count))
    })?;
    ctx.next_id = o.u64("nextId")?;
    ctx.initial_checkpoint = o.opt_u64("initialCheckpoint")?;
    ctx.rounds = o.u64("rounds")?;
    ctx.wake = o.opt_u64("wake")?;
    Ok((with(&o, "phase", phase)?, o.u64("lastTs")?))
}
