//! Core errors as JavaScript `Error` objects with a stable `code`.

use wasm_bindgen::prelude::*;

use crate::core::stream::StreamError;

/// Error codes shared with the TypeScript types.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "without-task", allow(dead_code))]
pub(crate) enum Code {
    /// An argument had the wrong shape (a `TypeError`).
    InvalidArgument,
    /// A tool or parameter name cannot be a tag (a `TypeError`).
    InvalidToolSet,
    /// A stream format name that does not exist (a `TypeError`).
    UnknownFormat,
    /// An option of `new Task` has the wrong shape (a `TypeError`).
    InvalidOptions,
    /// `start` was called on a task that already started (a `TypeError`).
    TaskStarted,
    /// `resume` was called on a task that was not restored, or twice (a `TypeError`).
    NotRestored,
    /// `Task.restore` or `Task.fromHistory` got something that is not a snapshot or a saved
    /// task (a `TypeError`).
    InvalidSnapshot,
    /// A snapshot of a format version this build does not read (a `TypeError`).
    SnapshotVersion,
    /// A snapshot whose task had a tool the options lack (a `TypeError`).
    SnapshotToolMissing,
    /// A method the task cannot take where it stands, such as `condense` while a tool waits
    /// for its approval (a `TypeError`).
    InvalidState,
}

impl Code {
    fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArgument => "CLEW_INVALID_ARGUMENT",
            Self::InvalidToolSet => "CLEW_INVALID_TOOL_SET",
            Self::UnknownFormat => "CLEW_UNKNOWN_FORMAT",
            Self::InvalidOptions => "CLEW_INVALID_OPTIONS",
            Self::TaskStarted => "CLEW_TASK_STARTED",
            Self::NotRestored => "CLEW_NOT_RESTORED",
            Self::InvalidSnapshot => "CLEW_INVALID_SNAPSHOT",
            Self::SnapshotVersion => "CLEW_SNAPSHOT_VERSION",
            Self::SnapshotToolMissing => "CLEW_SNAPSHOT_TOOL_MISSING",
            Self::InvalidState => "CLEW_INVALID_STATE",
        }
    }
}

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    /// `ClewStreamError` of js/errors.js.
    type ClewStreamError;
    #[wasm_bindgen(constructor, js_class = "ClewStreamError")]
    fn new(message: &str, code: &str) -> ClewStreamError;

    /// `ClewTaskError` of js/errors.js.
    type ClewTaskError;
    #[wasm_bindgen(constructor, js_class = "ClewTaskError")]
    fn new(message: &str, code: &str) -> ClewTaskError;
}

/// A `ClewTaskError` (an `Error` with `code`), as in a task's outcome.
#[cfg_attr(feature = "without-task", allow(dead_code))]
pub(crate) fn task_error(code: &str, message: &str) -> JsValue {
    ClewTaskError::new(message, code).into()
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    // NOTE: setting a property on a fresh Error object cannot fail; ignoring the result keeps
    // this path free of panics.
    let _ = js_sys::Reflect::set(target, &JsValue::from_str(key), value);
}

/// A `TypeError` carrying `code`.
pub(crate) fn type_error(code: Code, message: &str) -> JsValue {
    let error = js_sys::TypeError::new(message);
    set(&error, "code", &JsValue::from_str(code.as_str()));
    error.into()
}

/// A stream error as a `ClewStreamError` (an `Error` subclass) with `code`, `retryable` and
/// the variant's details (`status`, `kind`, `retryAfterMs`, `body`, `line`, `limit`).
pub(crate) fn stream_error(error: &StreamError) -> JsValue {
    let js: JsValue = ClewStreamError::new(&error.to_string(), error.code()).into();
    set(&js, "retryable", &JsValue::from_bool(error.is_retryable()));
    let text = |s: &str| JsValue::from_str(s);
    match error {
        StreamError::Http { status, message, kind, retry_after_ms } => {
            set(&js, "status", &JsValue::from(*status));
            set(&js, "providerMessage", &text(message));
            if let Some(kind) = kind {
                set(&js, "kind", &text(kind));
            }
            if let Some(ms) = retry_after_ms {
                set(&js, "retryAfterMs", &JsValue::from_f64(*ms as f64));
            }
        }
        StreamError::Provider { kind, message } => {
            set(&js, "kind", &text(kind));
            set(&js, "providerMessage", &text(message));
        }
        StreamError::NotSse { body } => set(&js, "body", &text(body)),
        StreamError::MalformedJson { line, .. } | StreamError::InvalidUtf8 { line } => set(&js, "line", &text(line)),
        StreamError::LineTooLong { limit } | StreamError::EventTooLarge { limit } => {
            set(&js, "limit", &JsValue::from_f64(*limit as f64));
        }
        _ => {}
    }
    js
}
