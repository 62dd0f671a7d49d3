//! What the loop does after a failed request (AGENT-LOOP §13.3, §13.4, §14.2): one decision
//! for every failure path. A [`Failure`] says what failed; [`Ctx::next_try`] says what comes
//! next ([`NextTry`]): truncate and send again at once, wait and send again, ask the user, or
//! give up. The first chunk's failure, a failure mid-stream, an empty reply, the first-byte
//! and idle timeouts and a context-window overflow all go through it; only where the retry
//! lands (the same round, or the next) differs between them.

use super::effect::{codes, Outcome};
use super::failure::Failure;
use super::history::{self, Truncation};
use super::message::{AskKind, SayKind};
use super::task::Ctx;
use crate::core::json::Json;

/// What comes after a failed request.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NextTry {
    /// The context window overflowed: the history was truncated; send again at once, with
    /// no say (the reference's silent first retry of a round).
    Truncated,
    /// Send again automatically at this time; an `error_retry` say went out.
    At(u64),
    /// The user is asked whether to retry: the `api_req_failed` ask with this ts went out.
    Ask(u64),
    /// No one can be asked (YOLO): the task ends with this outcome; an `error` say went out.
    GiveUp(Outcome),
}

impl Ctx {
    /// Decides what follows `failure`. `context_retry` is the round's "context-window
    /// truncation already retried" flag, for failures that can be retried within the round
    /// (`None` between rounds).
    pub(crate) fn next_try(&mut self, failure: &Failure, context_retry: Option<&mut bool>) -> NextTry {
        if let (true, Some(used)) = (failure.context_window, context_retry) {
            if !*used {
                *used = true;
                self.deleted = history::next_truncation(&self.history, self.deleted, Truncation::Quarter);
                return NextTry::Truncated;
            }
            // NOTE: as in the reference, the retry after this one truncates again.
            *used = false;
        }
        let policy = self.config.retry;
        if failure.auto_retry && self.retry_attempts < policy.max_retries {
            self.retry_attempts += 1;
            let delay = policy.delay_ms(self.retry_attempts).max(failure.retry_after_ms.unwrap_or(0));
            self.say_retry(failure, self.retry_attempts, delay.div_ceil(1000), false);
            return NextTry::At(self.now.saturating_add(delay));
        }
        if failure.auto_retry && policy.max_retries > 0 {
            self.say_retry(failure, policy.max_retries, 0, true);
        }
        if self.config.yolo {
            self.say(SayKind::Error, failure.message.clone());
            return NextTry::GiveUp(Outcome::failed(codes::RETRIES_EXHAUSTED, failure.message.clone()));
        }
        NextTry::Ask(self.ask(AskKind::ApiReqFailed, failure.message.clone()))
    }

    /// The user answered "yes" to `api_req_failed`: automatic retries start over.
    pub(crate) fn retry_approved(&mut self) {
        self.retry_attempts = 0;
        self.say(SayKind::ApiReqRetried, String::new());
    }

    /// The `error_retry` say: attempt `attempt` of the policy's, after `delay_seconds`, or the
    /// last one (`failed`) before the user is asked.
    fn say_retry(&mut self, failure: &Failure, attempt: u32, delay_seconds: u64, failed: bool) {
        let mut text = Json::object()
            .with("attempt", attempt)
            .with("maxAttempts", self.config.retry.max_retries)
            .with("delaySeconds", delay_seconds);
        if failed {
            text.set("failed", true);
        }
        let text = text.with("errorMessage", &failure.message).with("code", &failure.code);
        self.say(SayKind::ErrorRetry, text.to_string());
    }
}
