//! Reading one data line with the JSON reader, with the error the user needs when it fails.

use super::error::StreamError;
use super::preview;
use crate::json::{JsonError, Reader};

/// Reads `data` with `read` (which must consume one value), or reports the line as
/// malformed JSON. Inlined: it runs for every data line.
#[inline]
pub(crate) fn read_data<'a, T>(
    data: &'a str,
    read: impl FnOnce(&mut Reader<'a>) -> Result<T, JsonError>,
) -> Result<T, StreamError> {
    let mut reader = Reader::new(data);
    read(&mut reader)
        .and_then(|value| reader.end().map(|()| value))
        .map_err(|error| StreamError::MalformedJson { line: preview(data.as_bytes()), reason: error.to_string() })
}
