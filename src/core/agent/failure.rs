//! How the loop reads a failed request (AGENT-LOOP §13.3): whether it is worth an automatic
//! retry, how long to wait, and whether the context window overflowed.

use serde::{Deserialize, Serialize};

use super::effect::codes;
use crate::core::stream::StreamError;
use crate::core::text::contains;

/// A failed request, kept as plain data (it may sit in a snapshot while a retry waits).
#[derive(Default, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The stream error's stable code.
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
    /// Whether an automatic retry is allowed (not for auth, permission or quota errors).
    pub auto_retry: bool,
    /// Whether the request was too large for the model's context window.
    pub context_window: bool,
    /// How long the server asked to wait, in milliseconds.
    pub retry_after_ms: Option<u64>,
    /// The same request would fail the same way (a 400 that is not about the context window,
    /// a line or event over the size limit): it is never retried, and the task ends
    /// ([`Failure::end_code`]).
    #[serde(default)]
    pub deterministic: bool,
    /// A 4xx that names `context_management` or `compaction`: the provider (or a proxy before
    /// it) refused native context management (CONTEXT §7).
    #[serde(default)]
    pub native_refused: bool,
}

const CONTEXT_PATTERNS: [&str; 9] = [
    "context length",
    "context_length",
    "context window",
    "too many tokens",
    "prompt is too long",
    "maximum context",
    "input is too long",
    "too long for the context",
    "reduce the length",
];

const AUTH_PATTERNS: [&str; 7] = [
    "invalid api key",
    "invalid x-api-key",
    "invalid key",
    "invalid token",
    "authentication",
    "unauthorized",
    "permission",
];

const QUOTA_PATTERNS: [&str; 4] = ["quota", "spend limit", "insufficient_balance", "billing"];

impl Failure {
    /// A reply with no content at all (AGENT-LOOP §14.2): retried like a failed request.
    pub fn empty_reply() -> Self {
        Self {
            code: "CLEW_EMPTY_REPLY".into(),
            message: super::texts::empty_reply_error(),
            auto_retry: true,
            context_window: false,
            retry_after_ms: None,
            deterministic: false,
            native_refused: false,
        }
    }

    /// The code a deterministic failure ends the task with: `CLEW_BAD_REQUEST` for a 400,
    /// else the stream error's own.
    pub fn end_code(&self) -> &str {
        if self.code == "CLEW_HTTP_ERROR" {
            codes::BAD_REQUEST
        } else {
            &self.code
        }
    }

    /// Reads a stream error.
    pub fn from_error(error: &StreamError) -> Self {
        let message = error.to_string();
        let lower = message.to_ascii_lowercase();
        let (status, kind) = match error {
            StreamError::Http { status, kind, .. } => (Some(*status), kind.as_deref()),
            StreamError::Provider { kind, .. } => (None, Some(kind.as_str())),
            _ => (None, None),
        };
        let kind = kind.unwrap_or_default().to_ascii_lowercase();
        let has = |patterns: &[&str]| patterns.iter().any(|p| contains(&lower, p) || contains(&kind, p));
        let sized = matches!(status, None | Some(400) | Some(413));
        let provider_or_http = matches!(error, StreamError::Http { .. } | StreamError::Provider { .. });
        let context_window = provider_or_http && sized && has(&CONTEXT_PATTERNS);
        let auth_status = status.is_some_and(|s| (401..=428).contains(&s)) && !context_window;
        let auth = auth_status || (provider_or_http && has(&AUTH_PATTERNS) && !context_window);
        let quota = provider_or_http && has(&QUOTA_PATTERNS) && !contains(&lower, "rate limit");
        let retry_after_ms = match error {
            StreamError::Http { retry_after_ms, .. } => *retry_after_ms,
            _ => None,
        };
        let deterministic = matches!(error, StreamError::LineTooLong { .. } | StreamError::EventTooLarge { .. })
            || (status == Some(400) && !context_window);
        Self {
            code: error.code().to_owned(),
            message,
            // NOTE: an error the provider sent inside the stream says what it is: retried only
            // when its code says a retry can help (a blocked prompt, an invalid request are
            // asked about, not sent again on their own).
            auto_retry: !auth && !quota && (!matches!(error, StreamError::Provider { .. }) || error.is_retryable()),
            context_window,
            retry_after_ms,
            deterministic,
            native_refused: status.is_some_and(|s| (400..500).contains(&s))
                && (has(&["context_management", "compaction", "compact_2"])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, body: &str) -> Failure {
        Failure::from_error(&StreamError::from_http(status, None, body, None))
    }

    #[test]
    fn auth_class_statuses_are_never_retried_automatically() {
        for status in [401, 403, 404, 408, 413, 422, 428] {
            assert!(!http(status, "nope").auto_retry, "{status}");
        }
        for status in [429, 500, 502, 503, 529] {
            assert!(http(status, "busy").auto_retry && !http(status, "busy").deterministic, "{status}");
        }
    }

    #[test]
    fn a_bad_request_and_an_oversized_line_are_deterministic_but_a_context_overflow_is_not() {
        assert_eq!(
            Some(http(400, r#"{"error":{"message":"tools.0.name: bad"}}"#))
                .filter(|f| f.deterministic)
                .map(|f| f.end_code().to_owned())
                .as_deref(),
            Some(codes::BAD_REQUEST)
        );
        assert!(!http(400, r#"{"error":{"message":"prompt is too long"}}"#).deterministic);
        let line = Failure::from_error(&StreamError::LineTooLong { limit: 8 });
        assert!(line.deterministic);
        assert_eq!(line.end_code(), "CLEW_LINE_TOO_LONG");
    }

    #[test]
    fn invalid_key_messages_are_auth_errors() {
        let body = r#"{"error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        assert!(!http(400, body).auto_retry);
    }

    #[test]
    fn context_window_errors_are_recognised() {
        let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
        let failure = http(400, body);
        assert!(failure.context_window && failure.auto_retry);
        let openai = r#"{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 128000 tokens."}}"#;
        assert!(http(400, openai).context_window);
        assert!(!http(500, "internal").context_window);
    }

    #[test]
    fn quota_errors_are_not_retried_but_rate_limits_are() {
        assert!(
            !http(429, r#"{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}"#)
                .auto_retry
        );
        assert!(http(429, r#"{"error":{"type":"rate_limit_error","message":"rate limit"}}"#).auto_retry);
    }
}
