//! Everything that can go wrong between a fetch and the loop's chunks, as one typed error.
//!
//! Each variant carries what a user needs to act (status, the provider's message, the
//! offending line cut to a sane length), a stable code for JavaScript, and whether retrying
//! the same request may succeed.

use std::fmt;

use crate::json::Json;

use super::preview;

/// An error of a model stream: its HTTP response, its framing, or its content.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StreamError {
    /// The response had an error status.
    Http {
        /// The HTTP status.
        status: u16,
        /// The provider's error message when the body had one, else the body, cut.
        message: String,
        /// The provider's error type (`"rate_limit_error"`, …) when the body named one.
        kind: Option<String>,
        /// How long the server asked to wait (`retry-after`), in milliseconds.
        retry_after_ms: Option<u64>,
    },
    /// The body is not a stream of the expected format (an HTML page, a JSON document…).
    NotSse {
        /// The start of the body.
        body: String,
    },
    /// The stream ended before its terminal event (`message_stop`, `[DONE]`…).
    Incomplete {
        /// What was still missing.
        expected: &'static str,
    },
    /// The provider reported an error inside the stream.
    Provider {
        /// The provider's error type or code (`"overloaded_error"`, `"rate_limit_exceeded"`…).
        kind: String,
        /// The provider's message.
        message: String,
    },
    /// A data line is not the JSON the format requires.
    MalformedJson {
        /// The offending line, cut.
        line: String,
        /// What the JSON parser said.
        reason: String,
    },
    /// A line longer than the decoder's limit.
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// An event whose data is larger than the decoder's limit.
    EventTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A line that is not UTF-8.
    InvalidUtf8 {
        /// The offending line, cut and decoded lossily.
        line: String,
    },
    /// The request never got a response, or the body could not be read (a network error,
    /// a `fetch` or `request` callback that threw).
    Network {
        /// What the runtime said.
        message: String,
    },
    /// The stream stayed silent longer than the task allows.
    Timeout {
        /// `"the first byte"` or `"more data"`.
        waiting_for: String,
        /// The limit, in milliseconds.
        ms: u64,
    },
}

impl StreamError {
    /// A stable identifier, for JavaScript's `error.code`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Http { .. } => "CLEW_HTTP_ERROR",
            Self::NotSse { .. } => "CLEW_NOT_SSE",
            Self::Incomplete { .. } => "CLEW_STREAM_INCOMPLETE",
            Self::Provider { .. } => "CLEW_PROVIDER_ERROR",
            Self::MalformedJson { .. } => "CLEW_MALFORMED_JSON",
            Self::LineTooLong { .. } => "CLEW_LINE_TOO_LONG",
            Self::EventTooLarge { .. } => "CLEW_EVENT_TOO_LARGE",
            Self::InvalidUtf8 { .. } => "CLEW_INVALID_UTF8",
            Self::Network { .. } => "CLEW_NETWORK_ERROR",
            Self::Timeout { .. } => "CLEW_TIMEOUT",
        }
    }

    /// Whether sending the same request again may succeed: rate limits, overload, server
    /// errors, timeouts and cut streams; not bad requests, keys, permissions or sizes.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, kind, .. } => {
                let out_of_quota = kind.as_deref().is_some_and(|kind| crate::text::contains(kind, "quota"));
                !out_of_quota && (matches!(status, 408 | 409 | 425 | 429) || *status >= 500)
            }
            Self::Incomplete { .. } | Self::Network { .. } | Self::Timeout { .. } => true,
            Self::Provider { kind, .. } => {
                let kind = kind.to_ascii_lowercase();
                [
                    "overloaded",
                    "rate_limit",
                    "server_error",
                    "api_error",
                    "timeout",
                    "unavailable",
                    // Gemini's statuses: a rate limit, a server error, a deadline.
                    "resource_exhausted",
                    "internal",
                    "deadline_exceeded",
                    "429",
                    "500",
                    "502",
                    "503",
                    "504",
                    "529",
                ]
                .iter()
                .any(|needle| crate::text::contains(&kind, needle))
            }
            _ => false,
        }
    }

    /// The error for an HTTP response with a non-success `status`, from its `retry-after`
    /// header (seconds or an HTTP date; `now_ms` is the current Unix time for the latter)
    /// and its body text.
    pub fn from_http(status: u16, retry_after: Option<&str>, body: &str, now_ms: Option<f64>) -> Self {
        let (kind, message) = match error_in_json(body) {
            Some(ErrorBody { kind, message }) => (kind, message.unwrap_or_else(|| preview(body.as_bytes()))),
            None => (None, preview(body.trim().as_bytes())),
        };
        let message = if message.is_empty() { format!("HTTP {}", u64::from(status)) } else { message };
        let retry_after_ms = retry_after.and_then(|value| parse_retry_after(value, now_ms));
        Self::Http { status, message, kind, retry_after_ms }
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Http { status, message, .. } => write!(f, "HTTP {}: {message}", u64::from(*status)),
            Self::NotSse { body } => write!(f, "the response is not an event stream; it starts with: {body}"),
            Self::Incomplete { expected } => write!(f, "the stream ended before {expected}"),
            Self::Provider { kind, message } => write!(f, "the provider reported {kind}: {message}"),
            Self::MalformedJson { line, reason } => write!(f, "malformed JSON in the stream ({reason}): {line}"),
            Self::LineTooLong { limit } => write!(f, "a stream line is longer than {limit} bytes"),
            Self::EventTooLarge { limit } => write!(f, "a stream event is larger than {limit} bytes"),
            Self::InvalidUtf8 { line } => write!(f, "a stream line is not UTF-8: {line}"),
            Self::Network { message } => write!(f, "the request failed: {message}"),
            Self::Timeout { waiting_for, ms } => {
                write!(f, "no answer from the model: waited {ms} ms for {waiting_for}")
            }
        }
    }
}

impl std::error::Error for StreamError {}

/// A provider error object: `{"error": {"type"|"code", "message"}}` or `{"type", "message"}`.
#[derive(Debug, PartialEq)]
pub(crate) struct ErrorBody {
    pub(crate) kind: Option<String>,
    pub(crate) message: Option<String>,
}

/// A member as error text: a string as is, another value as its JSON, `null` as nothing.
fn text_of(value: Option<&Json>) -> Option<String> {
    match value? {
        Json::String(s) => Some(s.clone()),
        Json::Null => None,
        other => Some(other.to_string()),
    }
}

impl ErrorBody {
    /// Reads the error object of a provider (the `error` member of `value`).
    pub(crate) fn from_value(error: Json) -> Self {
        match error {
            Json::String(message) => Self { kind: None, message: Some(message) },
            fields @ Json::Object(_) => Self {
                kind: text_of(fields.get("code")).or_else(|| text_of(fields.get("type"))),
                message: text_of(fields.get("message")),
            },
            _ => Self { kind: None, message: None },
        }
    }
}

/// The error object of a JSON body, if it is one.
pub(crate) fn error_in_json(body: &str) -> Option<ErrorBody> {
    let envelope = Json::parse(body.trim()).ok()?;
    let error = envelope.get("error")?;
    (!error.is_null()).then(|| ErrorBody::from_value(error.clone()))
}

/// `retry-after` as milliseconds: delta-seconds, or an IMF-fixdate against `now_ms`.
fn parse_retry_after(value: &str, now_ms: Option<f64>) -> Option<u64> {
    let value = value.trim();
    // delta-seconds is a non-negative integer (RFC 9110 §10.2.3).
    if let Some(seconds) = clew_base::text::digits(value) {
        return Some(seconds.saturating_mul(1000));
    }
    let at_ms = http_date_ms(value)?;
    let now = now_ms?;
    Some((at_ms - now).max(0.0).round() as u64)
}

/// A date part's number: ASCII digits only.
fn number(text: &str) -> Option<i64> {
    clew_base::text::digits(text).and_then(|n| i64::try_from(n).ok())
}

/// Parses `Sun, 06 Nov 1994 08:49:37 GMT` into Unix milliseconds (years 1970 to 9999).
fn http_date_ms(value: &str) -> Option<f64> {
    let mut parts = value.split_whitespace().skip(1);
    let day = number(parts.next()?).filter(|d| (1..=31).contains(d))?;
    let month_name = parts.next()?;
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|m| *m == month_name)? as i64
        + 1;
    let year = number(parts.next()?).filter(|y| (1970..=9999).contains(y))?;
    // NOTE: a closure, not the char ':': the char searcher costs about 1 KB of wasm.
    #[allow(clippy::manual_pattern_char_comparison)]
    let mut clock = parts.next()?.split(|c: char| c == ':').map(|p| number(p).filter(|n| (0..=60).contains(n)));
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    // Days from the civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + m * 60 + s) * 1000) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_carry_the_provider_message_and_retryability() {
        let body = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}"#;
        let error = StreamError::from_http(429, Some("7"), body, None);
        assert_eq!(
            error,
            StreamError::Http {
                status: 429,
                message: "Slow down".into(),
                kind: Some("rate_limit_error".into()),
                retry_after_ms: Some(7000)
            }
        );
        assert!(error.is_retryable());
        for (status, retryable) in
            [(401, false), (403, false), (404, false), (413, false), (500, true), (503, true), (529, true)]
        {
            assert_eq!(StreamError::from_http(status, None, "", None).is_retryable(), retryable, "{status}");
        }
    }

    #[test]
    fn retry_after_as_an_http_date() {
        let now = http_date_ms("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(now, 1_445_412_480_000.0);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", Some(now)), Some(30_000));
        assert_eq!(parse_retry_after("soon", Some(now)), None);
    }

    #[test]
    fn plain_text_body_is_the_message_and_openai_codes_are_kinds() {
        let error = StreamError::from_http(502, None, "  Bad gateway\n", None);
        assert!(matches!(error, StreamError::Http { ref message, kind: None, .. } if message == "Bad gateway"));
        let body = r#"{"error":{"message":"Quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        let error = StreamError::from_http(429, None, body, None);
        assert!(matches!(error, StreamError::Http { ref kind, .. } if kind.as_deref() == Some("insufficient_quota")));
        assert!(!error.is_retryable(), "an exhausted quota does not come back by retrying");
    }
}
