//! Core errors as JavaScript `Error` objects with a stable `code`.

use wasm_bindgen::JsValue;

/// Error codes shared with the TypeScript types.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Code {
    /// An argument had the wrong shape (a `TypeError`).
    InvalidArgument,
    /// A tool or parameter name cannot be a tag (a `TypeError`).
    InvalidToolSet,
}

impl Code {
    fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArgument => "CLEW_INVALID_ARGUMENT",
            Self::InvalidToolSet => "CLEW_INVALID_TOOL_SET",
        }
    }
}

/// A `TypeError` carrying `code`.
pub(crate) fn type_error(code: Code, message: &str) -> JsValue {
    let error = js_sys::TypeError::new(message);
    // NOTE: setting a property on a fresh Error object cannot fail; ignoring the result keeps
    // this path free of panics.
    let _ = js_sys::Reflect::set(&error, &JsValue::from_str("code"), &JsValue::from_str(code.as_str()));
    error.into()
}
