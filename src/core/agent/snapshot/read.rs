//! A snapshot's JSON read back into the task's state. Every value is checked: a snapshot
//! is input (it went through a user's storage), so anything wrong is an error naming where
//! it is (`snapshot.state.phase.round.wait.job.name`), never a panic.
//!
//! NOTE: reads do not return early. A bad or missing member reads as a default and the first
//! error is kept ([`Errors`]); the caller checks it once at the end. Returning early at every
//! member, dropping what was read so far, made this reader several times larger in the wasm.

use std::cell::RefCell;

use crate::core::conversation::{self, ContentBlock, ImageSource};
use crate::core::json::Json;
use crate::core::stream::{ToolCall, ToolCallFunction, Usage};

use super::super::effect::Outcome;
use super::super::failure::Failure;
use super::super::history::DeletedRange;
use super::super::message::{AskKind, Message, MessageKind, SayKind};
use super::super::repeats::Repeats;
use super::super::round_state::{Item, Paced, Received, Round, Skip, StreamPhase, ToolJob, Wait};
use super::super::task::{Ctx, Phase, TaskUsage};

/// The first error of a reading, which goes on past errors.
#[derive(Default)]
pub(super) struct Errors(RefCell<Option<String>>);

impl Errors {
    #[inline(never)]
    pub(super) fn keep(&self, error: String) {
        let mut first = self.0.borrow_mut();
        if first.is_none() {
            *first = Some(error);
        }
    }

    /// The first error, if any.
    pub(super) fn take(&self) -> Option<String> {
        self.0.borrow_mut().take()
    }
}

static NULL: Json = Json::Null;

/// An object of the snapshot, where it sits, and where its errors go.
pub(super) struct Obj<'a> {
    value: &'a Json,
    at: String,
    errors: &'a Errors,
}

impl<'a> Obj<'a> {
    /// `value` as an object at `at` (an error, and no members, when it is not one).
    #[inline(never)]
    pub(super) fn new(value: &'a Json, at: String, errors: &'a Errors) -> Self {
        if !value.is_object() {
            errors.keep(format!("{at} must be an object"));
        }
        Self { value, at, errors }
    }

    #[inline(never)]
    fn fail(&self, field: &str, what: &str) {
        self.errors.keep(format!("{}.{field} {what}", self.at));
    }

    fn get(&self, field: &str) -> Option<&'a Json> {
        self.value.get(field).filter(|v| !v.is_null())
    }

    /// A member object (an error when missing or not an object).
    #[inline(never)]
    pub(super) fn object(&self, field: &str) -> Obj<'a> {
        Obj::new(self.get(field).unwrap_or(&NULL), format!("{}.{field}", self.at), self.errors)
    }

    #[inline(never)]
    pub(super) fn optional(&self, field: &str) -> Option<u64> {
        let value = self.get(field)?;
        let number = value.as_u64().filter(|_| matches!(value, Json::Number(_)));
        if number.is_none() {
            self.fail(field, "must be a whole number, 0 or more");
        }
        number
    }

    #[inline(never)]
    pub(super) fn number(&self, field: &str) -> u64 {
        if self.get(field).is_none() {
            self.fail(field, "is required");
        }
        self.optional(field).unwrap_or(0)
    }

    #[inline(never)]
    fn small(&self, field: &str) -> u32 {
        u32::try_from(self.number(field)).unwrap_or_else(|_| {
            self.fail(field, "is too large");
            0
        })
    }

    #[inline(never)]
    fn index(&self, field: &str) -> Option<usize> {
        self.optional(field).map(|n| {
            usize::try_from(n).unwrap_or_else(|_| {
                self.fail(field, "is too large");
                0
            })
        })
    }

    #[inline(never)]
    fn optional_text(&self, field: &str) -> Option<String> {
        match self.get(field) {
            None => None,
            Some(Json::String(text)) => Some(text.clone()),
            Some(_) => {
                self.fail(field, "must be a string");
                None
            }
        }
    }

    #[inline(never)]
    pub(super) fn text(&self, field: &str) -> String {
        if self.get(field).is_none() {
            self.fail(field, "is required");
        }
        self.optional_text(field).unwrap_or_default()
    }

    #[inline(never)]
    fn flag(&self, field: &str) -> bool {
        match self.get(field) {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(_) => {
                self.fail(field, "must be a boolean");
                false
            }
        }
    }

    /// An array member (absent reads as empty), with the path of its items.
    #[inline(never)]
    pub(super) fn list(&self, field: &str) -> (&'a [Json], String) {
        let items = match self.get(field) {
            None => &[][..],
            Some(Json::Array(items)) => items,
            Some(_) => {
                self.fail(field, "must be an array");
                &[][..]
            }
        };
        (items, format!("{}.{field}", self.at))
    }

    /// Which of `names` the member is (0 and an error when none).
    #[inline(never)]
    fn choice(&self, field: &str, names: &[&str]) -> usize {
        let text = self.text(field);
        names.iter().position(|name| *name == text).unwrap_or_else(|| {
            self.fail(field, "is not one this version knows");
            0
        })
    }

    #[inline(never)]
    fn float_bits(&self, field: &str) -> Option<f64> {
        let hex = self.optional_text(field)?;
        let value = u64::from_str_radix(&hex, 16)
            .ok()
            .filter(|_| hex.len() == 16)
            .map(f64::from_bits)
            .filter(|f| f.is_finite() && *f >= 0.0);
        if value.is_none() {
            self.fail(field, "must be 16 hex digits of a cost");
        }
        value
    }

    /// Content blocks.
    #[inline(never)]
    fn blocks(&self, field: &str) -> Vec<ContentBlock> {
        let (items, at) = self.list(field);
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match ContentBlock::from_json(item, &format!("{at}[{i}]")) {
                Ok(block) => out.push(block),
                Err(error) => self.errors.keep(error),
            }
        }
        out
    }

    /// Strings.
    #[inline(never)]
    fn strings(&self, field: &str) -> Vec<String> {
        let (items, at) = self.list(field);
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(text) => out.push(text.to_owned()),
                None => self.errors.keep(format!("{at}[{i}] must be a string")),
            }
        }
        out
    }

    /// `[[name, value], …]`.
    #[inline(never)]
    fn pairs(&self, field: &str) -> Vec<(String, String)> {
        let (items, at) = self.list(field);
        let mut out = Vec::with_capacity(items.len());
        for (i, pair) in items.iter().enumerate() {
            match pair.as_array() {
                Some([Json::String(k), Json::String(v)]) => out.push((k.clone(), v.clone())),
                _ => self.errors.keep(format!("{at}[{i}] must be a [name, value] pair of strings")),
            }
        }
        out
    }
}

/// History messages (the shape of `task.history`).
pub(super) fn history(items: &[Json], at: &str, errors: &Errors) -> Vec<conversation::Message> {
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match conversation::Message::from_json(item, &format!("{at}[{i}]")) {
            Ok(message) => out.push(message),
            Err(error) => errors.keep(error),
        }
    }
    out
}

/// One transcript message in its JS shape. Kinds clew does not know are kept as `Other`.
fn message(o: &Obj<'_>) -> Message {
    let is_say = o.choice("type", &["say", "ask"]) == 0;
    let name = o.text(if is_say { "say" } else { "ask" });
    let (kind, other_kind) = match (is_say, SayKind::parse(&name), AskKind::parse(&name)) {
        (true, Some(kind), _) if kind != SayKind::Other => (MessageKind::Say(kind), None),
        (false, _, Some(kind)) if kind != AskKind::Other => (MessageKind::Ask(kind), None),
        (true, ..) => (MessageKind::Say(SayKind::Other), Some(name)),
        (false, ..) => (MessageKind::Ask(AskKind::Other), Some(name)),
    };
    let images = o.strings("images").iter().map(|text| ImageSource::from_url_text(text)).collect();
    let partial = o.get("partial").map(|_| o.flag("partial"));
    Message { ts: o.number("ts"), kind, text: o.optional_text("text").unwrap_or_default(), images, partial, other_kind }
}

/// Transcript messages, whose `ts` must rise strictly.
pub(super) fn messages(items: &[Json], at: &str, errors: &Errors) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let message = message(&Obj::new(item, format!("{at}[{i}]"), errors));
        if out.last().is_some_and(|last| last.ts >= message.ts) {
            errors.keep(format!("{at}[{i}].ts must be greater than the one before"));
        }
        out.push(message);
    }
    out
}

fn outcome(o: &Obj<'_>) -> Outcome {
    match o.choice("status", &["completed", "ended", "aborted", "failed"]) {
        0 => Outcome::Completed { result: o.text("result") },
        1 => Outcome::Ended { code: o.text("code"), message: o.text("message") },
        2 => Outcome::Aborted { reason: o.text("reason") },
        _ => Outcome::Failed { code: o.text("code"), message: o.text("message") },
    }
}

fn job(o: &Obj<'_>) -> ToolJob {
    let o = o.object("job");
    ToolJob {
        name: o.text("name"),
        params: o.pairs("params"),
        call_id: o.optional_text("callId"),
        description: o.text("description"),
    }
}

const WAITS: [&str; 10] = [
    "idle",
    "checkpoint",
    "preHook",
    "approval",
    "tool",
    "postHook",
    "followup",
    "completionHook",
    "completionAnswer",
    "streamEnd",
];

#[inline(never)]
fn wait(o: &Obj<'_>) -> Wait {
    let o = o.object("wait");
    let kind = o.choice("kind", &WAITS);
    let (id, ask_ts) = (|| o.number("id"), || o.number("askTs"));
    match kind {
        0 => Wait::Idle,
        1 => Wait::Checkpoint(job(&o)),
        2 => Wait::PreHook { id: id(), job: job(&o) },
        3 => Wait::Approval { ask_ts: ask_ts(), job: job(&o) },
        4 => Wait::Tool { id: id(), job: job(&o), deadline: o.optional("deadline") },
        5 => Wait::PostHook { id: id(), job: job(&o), text: o.text("text"), result: o.blocks("result") },
        6 => Wait::Followup { ask_ts: ask_ts(), job: job(&o) },
        7 => Wait::CompletionHook { id: id(), job: job(&o) },
        8 => Wait::CompletionAnswer { ask_ts: ask_ts(), job: job(&o) },
        _ => Wait::StreamEnd { outcome: outcome(&o.object("outcome")) },
    }
}

#[inline(never)]
fn stream(o: &Obj<'_>) -> StreamPhase {
    let o = o.object("stream");
    match o.choice("kind", &["open", "retryDelay", "retryAsk", "ended", "failedMidStream"]) {
        0 => {
            let received = match o.choice("received", &["nothing", "bytes", "content"]) {
                0 => Received::Nothing,
                1 => Received::Bytes,
                _ => Received::Content,
            };
            StreamPhase::Open { deadline: o.optional("deadline"), received }
        }
        1 => StreamPhase::RetryDelay { until: o.number("until") },
        2 => StreamPhase::RetryAsk { ask_ts: o.number("askTs") },
        3 => StreamPhase::Ended,
        _ => {
            let f = o.object("failure");
            StreamPhase::FailedMidStream {
                failure: Failure {
                    code: f.text("code"),
                    message: f.text("message"),
                    auto_retry: f.flag("autoRetry"),
                    context_window: f.flag("contextWindow"),
                    retry_after_ms: f.optional("retryAfterMs"),
                    deterministic: f.flag("deterministic"),
                },
            }
        }
    }
}

fn items(o: &Obj<'_>) -> Vec<Item> {
    let mut out = Vec::new();
    for text in o.strings("items") {
        let number = text.get(1..).and_then(|rest| rest.parse::<usize>().ok());
        match (text.get(..1), number) {
            (Some("p"), Some(n)) => out.push(Item::Parsed(n)),
            (Some("n"), Some(n)) => out.push(Item::Native(n)),
            _ => o.fail("items", "must hold \"p<n>\" or \"n<n>\" strings"),
        }
    }
    out
}

fn natives(o: &Obj<'_>) -> Vec<ToolCall> {
    let (items, at) = o.list("natives");
    let mut out = Vec::with_capacity(items.len());
    for (i, call) in items.iter().enumerate() {
        let call = Obj::new(call, format!("{at}[{i}]"), o.errors);
        let id = call.optional_text("id");
        let function = ToolCallFunction {
            id: id.clone(),
            name: call.optional_text("name"),
            arguments: call.optional_text("arguments"),
        };
        out.push(ToolCall { call_id: id, function });
    }
    out
}

#[inline(never)]
fn round(o: &Obj<'_>) -> Round {
    let o = o.object("round");
    let u = o.object("usage");
    let usage = Usage {
        input_tokens: u.number("inputTokens"),
        output_tokens: u.number("outputTokens"),
        cache_write_tokens: u.optional("cacheWriteTokens"),
        cache_read_tokens: u.optional("cacheReadTokens"),
        total_cost: u.float_bits("totalCostBits"),
    };
    let paced =
        o.optional("pacedDue").map(|due| (if o.flag("pacedReasoning") { Paced::Reasoning } else { Paced::Block }, due));
    let last_partial = o.optional("lastPartialTs").zip(o.optional("lastPartialAt"));
    Round {
        user_content: o.blocks("userContent"),
        api_req_ts: o.number("apiReqTs"),
        stream_id: o.number("streamId"),
        stream: stream(&o),
        saved_text: o.optional_text("text").unwrap_or_default(),
        saved_natives: natives(&o),
        reasoning: o.optional_text("reasoning").unwrap_or_default(),
        signature: o.optional_text("signature"),
        redacted: o.strings("redacted"),
        reasoning_ts: o.optional("reasoningTs"),
        items: items(&o),
        parsed_known: o.index("parsedKnown").unwrap_or(0),
        natives_from: o.index("nativesFrom"),
        index: o.index("index").unwrap_or(0),
        index_ts: o.optional("indexTs"),
        wait: wait(&o),
        skip: [Skip::Nothing, Skip::AfterToolUse, Skip::AfterRejection]
            .get(o.choice("skip", &["nothing", "afterToolUse", "afterRejection"]))
            .copied()
            .unwrap_or_default(),
        context_retry_used: o.flag("contextRetryUsed"),
        usage,
        paced,
        last_partial,
        ..Round::default()
    }
}

const PHASES: [&str; 9] = [
    "notStarted",
    "startHook",
    "roundStart",
    "retryAnswer",
    "mistakeAnswer",
    "resumeAnswer",
    "round",
    "checkpoint",
    "finished",
];

#[inline(never)]
fn phase(o: &Obj<'_>) -> Phase {
    let o = o.object("phase");
    let kind = o.choice("kind", &PHASES);
    let (id, ask_ts, content) = (|| o.number("id"), || o.number("askTs"), || o.blocks("content"));
    match kind {
        0 => Phase::NotStarted,
        1 => Phase::AwaitingStartHook { id: id(), content: content() },
        2 => Phase::AwaitingRoundStart { content: content(), until: o.optional("until") },
        3 => Phase::AwaitingRetryAnswer { ask_ts: ask_ts(), content: content() },
        4 => Phase::AwaitingMistakeAnswer { ask_ts: ask_ts(), content: content() },
        5 => Phase::AwaitingResumeAnswer { ask_ts: ask_ts(), content: content(), since: o.number("since") },
        6 => Phase::InRound(Box::new(round(&o))),
        7 => Phase::AwaitingCheckpoint { id: id(), content: content() },
        _ => Phase::Finished(outcome(&o.object("outcome"))),
    }
}

/// The counters and clocks (`state`), into `ctx`; returns the phase and the last `ts`.
#[inline(never)]
pub(super) fn state(o: &Obj<'_>, ctx: &mut Ctx) -> (Phase, u64) {
    let o = o.object("state");
    ctx.now = o.number("now");
    ctx.deleted = match (o.index("deletedStart"), o.index("deletedEnd")) {
        (Some(start), Some(end)) => Some(DeletedRange { start, end }),
        _ => None,
    };
    let u = o.object("usage");
    let total_cost = u.float_bits("totalCostBits").unwrap_or(0.0);
    ctx.usage = TaskUsage {
        input_tokens: u.number("inputTokens"),
        output_tokens: u.number("outputTokens"),
        cache_write_tokens: u.number("cacheWriteTokens"),
        cache_read_tokens: u.number("cacheReadTokens"),
        total_cost,
        requests: u.number("requests"),
    };
    ctx.last_request_tokens = o.number("lastRequestTokens");
    ctx.mistakes = o.small("mistakes");
    ctx.retry_attempts = o.small("retryAttempts");
    let r = o.object("repeats");
    ctx.identical =
        Repeats::from_parts(&r.optional_text("name").unwrap_or_default(), &r.pairs("params"), r.small("count"));
    ctx.next_id = o.number("nextId");
    ctx.initial_checkpoint = o.optional("initialCheckpoint");
    ctx.rounds = o.number("rounds");
    ctx.wake = o.optional("wake");
    (phase(&o), o.number("lastTs"))
}
