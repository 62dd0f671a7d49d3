//! The "chunks" format for custom backends: JSON lines already in clew's chunk shape
//! (`{"type":"text","text":"…"}`, …), one per line, optionally written as SSE `data:` lines.
//! Blank lines, SSE comments and `event:`/`id:` lines are skipped, and so is `[DONE]`.

use super::chunk::Chunk;
use super::chunk_json::read_chunk;
use super::error::{error_in_json, ErrorBody, StreamError};
use super::json::read_data;

/// Handles one line of a chunks stream.
pub(crate) fn on_line(line: &str, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with(':') || line.starts_with("event:") || line.starts_with("id:") {
        return Ok(());
    }
    let json = line.strip_prefix("data:").map_or(line, str::trim_start);
    if json.is_empty() || json == "[DONE]" {
        return Ok(());
    }
    match read_data(json, read_chunk) {
        Ok(chunk) => {
            out.push(chunk);
            Ok(())
        }
        // A backend may report a failure as `{"error": …}` on a line of its own.
        Err(malformed) => match error_in_json(json) {
            Some(ErrorBody { kind, message }) => Err(StreamError::Provider {
                kind: kind.unwrap_or_else(|| "error".into()),
                message: message.unwrap_or_default(),
            }),
            None => Err(malformed),
        },
    }
}

/// Whether `line`, the first non-blank line of a body, can start a chunks stream.
pub(crate) fn starts_a_stream(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with('{')
        || line.starts_with("data:")
        || line.starts_with(':')
        || line.starts_with("event:")
        || line.starts_with("id:")
}
