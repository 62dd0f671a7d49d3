//! What the loop does after a failed request (AGENT-LOOP §13.3, §13.4, §14.2): one decision
//! for every failure path. A [`Failure`] says what failed; [`Ctx::next_try`] says what comes
//! next ([`NextTry`]): truncate and send again at once, wait and send again, ask the user, or
//! give up. The first chunk's failure, a failure mid-stream, an empty reply, the first-byte
//! and idle timeouts and a context-window overflow all go through it; only where the retry
//! lands (the same round, or the next) differs between them. Failures that would repeat
//! (a 400, an oversized line, a context window the history cannot be truncated to fit) end
//! the task at once; a server's `retry-after` longer than the policy's longest delay goes to
//! the user at once.

use super::effect::{codes, Outcome};
use super::failure::Failure;
use super::message::{AskKind, SayKind};
use super::round_state::Retry;
use super::task::Ctx;
use crate::core::json::Json;

/// What comes after a failed request.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NextTry {
    /// The context window overflowed: the history was truncated; send again at once, with
    /// no say (the reference's silent first retry of a round).
    Truncated,
    /// Send again when the retry says: automatically at a time (an `error_retry` say went
    /// out), or once the user approves (the `api_req_failed` ask went out).
    Retry(Retry),
    /// The task ends with this outcome (an `error` say went out): no one can be asked (YOLO),
    /// or the request cannot succeed as it is (a bad request, an oversized line, a context
    /// window the history can no longer be truncated to fit).
    GiveUp(Outcome),
}

impl Ctx {
    /// Decides what follows `failure`. `context_retry` is the round's "context-window
    /// truncation already retried" flag, for failures that can be retried within the round
    /// (`None` between rounds).
    pub(crate) fn next_try(&mut self, failure: &Failure, context_retry: Option<&mut bool>) -> NextTry {
        if failure.native_refused && self.fall_back_from_native(&failure.message) {
            return NextTry::Truncated;
        }
        if failure.deterministic {
            return self.give_up(failure.end_code(), failure.message.clone());
        }
        if failure.context_window {
            // NOTE: every retry after a context-window error sends a smaller request: the
            // first at once and in silence (the reference's), the later ones after the
            // policy's delay, each truncated further.
            if let Err(why) = self.reactive_truncation() {
                let message = format!("{} ({why})", failure.message);
                return self.give_up(codes::CONTEXT_WINDOW_EXCEEDED, message);
            }
            if let Some(used) = context_retry {
                if !std::mem::replace(used, true) {
                    return NextTry::Truncated;
                }
            }
        }
        let policy = self.config.retry;
        let too_long = failure.retry_after_ms.filter(|ms| *ms > policy.max_delay_ms);
        if let Some(ms) = too_long {
            // NOTE: a server that asks for a longer wait than the policy allows is not slept on
            // in silence: a person decides (in YOLO, the task fails).
            let message =
                format!("{} (the server asked to wait {} s before a retry)", failure.message, ms.div_ceil(1000));
            return self.ask_or_give_up(message);
        }
        if failure.auto_retry && self.retry_attempts < policy.max_retries {
            self.retry_attempts += 1;
            let delay = policy.delay_ms(self.retry_attempts).max(failure.retry_after_ms.unwrap_or(0));
            self.say_retry(failure, self.retry_attempts, delay.div_ceil(1000), false);
            return NextTry::Retry(Retry::Delay { until: self.now.saturating_add(delay) });
        }
        if failure.auto_retry && policy.max_retries > 0 {
            self.say_retry(failure, policy.max_retries, 0, true);
        }
        self.ask_or_give_up(failure.message.clone())
    }

    /// Asks the user whether to retry, or in YOLO, where no one is asked, gives up.
    fn ask_or_give_up(&mut self, message: String) -> NextTry {
        if self.config.yolo {
            return self.give_up(codes::RETRIES_EXHAUSTED, message);
        }
        NextTry::Retry(Retry::Ask { ts: self.ask(AskKind::ApiReqFailed, message) })
    }

    /// Ends the task: the request cannot succeed as it is (`code` says why).
    fn give_up(&mut self, code: &str, message: String) -> NextTry {
        self.say(SayKind::Error, message.clone());
        NextTry::GiveUp(Outcome::failed(code, message))
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
