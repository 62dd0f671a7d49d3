//! Typed parsing of one data line, with the error the user needs when it fails.

use serde::Deserialize;

use super::error::StreamError;
use super::preview;

/// Parses `data` as `T`, or reports the line as malformed JSON.
pub(crate) fn parse_data<'a, T: Deserialize<'a>>(data: &'a str) -> Result<T, StreamError> {
    serde_json::from_str(data)
        .map_err(|error| StreamError::MalformedJson { line: preview(data.as_bytes()), reason: error.to_string() })
}
