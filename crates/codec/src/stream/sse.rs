//! Server-sent events framing: lines to events, as the HTML standard defines it, with two
//! changes for finite provider streams: a final event not followed by a blank line is still
//! dispatched at the end, and a body whose first line is not SSE is reported instead of
//! being silently ignored.

use super::error::StreamError;
use super::lines::{LineSplitter, LineTooLong};
use super::preview;

/// One dispatched event. Fields borrow the decoder's buffers until the next call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event:` field, `""` when none was given.
    pub event: &'a str,
    /// The `data:` lines joined with `\n`.
    pub data: &'a str,
    /// The last `id:` seen in the stream so far.
    pub id: &'a str,
}

/// Limits that bound the decoder's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseLimits {
    /// Longest line, in bytes.
    pub max_line: usize,
    /// Largest event data, in bytes.
    pub max_event: usize,
}

impl Default for SseLimits {
    fn default() -> Self {
        Self { max_line: 8 << 20, max_event: 8 << 20 }
    }
}

/// Decodes SSE bytes into events.
#[derive(Clone, Debug)]
pub struct SseDecoder {
    lines: LineSplitter,
    fields: FieldState,
}

#[derive(Clone, Debug)]
struct FieldState {
    event: String,
    data: String,
    has_data: bool,
    id: String,
    /// The reconnection time a `retry:` field asked for, in milliseconds.
    retry: Option<u64>,
    /// Whether a non-empty line was seen yet (the first one decides whether this is SSE).
    seen_line: bool,
    max_event: usize,
}

impl From<LineTooLong> for StreamError {
    fn from(error: LineTooLong) -> Self {
        Self::LineTooLong { limit: error.limit }
    }
}

impl SseDecoder {
    /// A decoder with the given limits.
    pub fn new(limits: SseLimits) -> Self {
        Self {
            lines: LineSplitter::new(limits.max_line),
            fields: FieldState {
                event: String::new(),
                data: String::new(),
                has_data: false,
                id: String::new(),
                retry: None,
                seen_line: false,
                max_event: limits.max_event,
            },
        }
    }

    /// Whether a non-blank line has been read (the body has shown it is SSE).
    pub fn has_seen_a_line(&self) -> bool {
        self.fields.seen_line
    }

    /// The reconnection time the stream asked for with `retry:`, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.fields.retry
    }

    /// Feeds bytes; calls `on_event` for every event they complete.
    ///
    /// # Errors
    /// [`StreamError::LineTooLong`], [`StreamError::EventTooLarge`], [`StreamError::InvalidUtf8`],
    /// [`StreamError::NotSse`] for a first line that is not an SSE field, or the first error
    /// of `on_event`.
    pub fn push(
        &mut self,
        bytes: &[u8],
        on_event: &mut dyn FnMut(SseEvent<'_>) -> Result<(), StreamError>,
    ) -> Result<(), StreamError> {
        let fields = &mut self.fields;
        self.lines.push(bytes, &mut |line: &[u8]| fields.on_line(line, on_event))
    }

    /// Ends the stream, dispatching a final event that had no blank line after it.
    ///
    /// # Errors
    /// As [`push`](Self::push).
    pub fn finish(
        &mut self,
        on_event: &mut dyn FnMut(SseEvent<'_>) -> Result<(), StreamError>,
    ) -> Result<(), StreamError> {
        let fields = &mut self.fields;
        self.lines.finish(&mut |line: &[u8]| fields.on_line(line, on_event))?;
        fields.dispatch(on_event)
    }
}

impl FieldState {
    fn on_line(
        &mut self,
        line: &[u8],
        on_event: &mut dyn FnMut(SseEvent<'_>) -> Result<(), StreamError>,
    ) -> Result<(), StreamError> {
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        // NOTE: byte tests rather than `str` patterns, which this crate's size-optimised build
        // leaves as calls (a char pattern is encoded at every call): this runs for every line.
        if line.first() == Some(&b':') {
            self.seen_line = true;
            return Ok(()); // a comment (keep-alive)
        }
        let line = std::str::from_utf8(line).map_err(|_| StreamError::InvalidUtf8 { line: preview(line) })?;
        let (field, value) = match crate::text::split_once_byte(line, b':') {
            Some((field, value)) if value.as_bytes().first() == Some(&b' ') => (field, value.get(1..).unwrap_or(value)),
            Some((field, value)) => (field, value),
            None => (line, ""),
        };
        if !self.seen_line && !matches!(field, "data" | "event" | "id" | "retry") {
            return Err(StreamError::NotSse { body: preview(line.as_bytes()) });
        }
        self.seen_line = true;
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > self.max_event {
                    return Err(StreamError::EventTooLarge { limit: self.max_event });
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => {
                self.event.clear();
                self.event.push_str(value);
            }
            "id" if crate::text::find_byte(value, 0).is_none() => {
                self.id.clear();
                self.id.push_str(value);
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = clew_base::text::digits(value);
            }
            _ => {}
        }
        Ok(())
    }

    #[inline]
    fn dispatch(
        &mut self,
        on_event: &mut dyn FnMut(SseEvent<'_>) -> Result<(), StreamError>,
    ) -> Result<(), StreamError> {
        let result = if self.has_data {
            on_event(SseEvent { event: &self.event, data: &self.data, id: &self.id })
        } else {
            Ok(())
        };
        self.event.clear();
        self.data.clear();
        self.has_data = false;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Owned = (String, String, String);

    fn decode(chunks: &[&[u8]]) -> Result<Vec<Owned>, StreamError> {
        let mut decoder = SseDecoder::new(SseLimits::default());
        let mut events = Vec::new();
        let mut collect = |e: SseEvent<'_>| -> Result<(), StreamError> {
            events.push((e.event.to_owned(), e.data.to_owned(), e.id.to_owned()));
            Ok(())
        };
        for chunk in chunks {
            decoder.push(chunk, &mut collect)?;
        }
        decoder.finish(&mut collect)?;
        Ok(events)
    }

    fn owned(event: &str, data: &str, id: &str) -> Owned {
        (event.into(), data.into(), id.into())
    }

    #[test]
    fn fields_comments_and_multi_line_data_at_every_split() {
        let body = "\u{FEFF}: keep-alive\r\nevent: a\r\ndata: one\r\ndata:two\r\nid: 7\r\n\r\n\
                    retry: 3000\ndata: ünï 🦀\n\ndata\n\nevent: only-event\n\ndata: last";
        let expected =
            vec![owned("a", "one\ntwo", "7"), owned("", "ünï 🦀", "7"), owned("", "", "7"), owned("", "last", "7")];
        let bytes = body.as_bytes();
        for cut in 0..=bytes.len() {
            let (x, y) = bytes.split_at(cut);
            assert_eq!(decode(&[x, y]).unwrap(), expected, "cut at {cut}");
        }
    }

    #[test]
    fn final_event_without_blank_line_is_dispatched() {
        assert_eq!(decode(&[b"data: {}"]).unwrap(), [owned("", "{}", "")]);
    }

    #[test]
    fn retry_field_is_kept() {
        let mut decoder = SseDecoder::new(SseLimits::default());
        decoder.push(b"retry: 1500\nretry: x\n\n", &mut |_| Ok(())).unwrap();
        assert_eq!(decoder.retry_ms(), Some(1500));
    }

    #[test]
    fn body_that_is_not_sse_is_reported() {
        let error = decode(&[b"{\"error\":{\"message\":\"bad key\"}}"]).unwrap_err();
        assert!(matches!(error, StreamError::NotSse { ref body } if body.contains("bad key")), "{error:?}");
        assert!(matches!(decode(&[b"<html>"]), Err(StreamError::NotSse { .. })));
    }

    #[test]
    fn oversized_event_and_invalid_utf8_are_errors() {
        let mut decoder = SseDecoder::new(SseLimits { max_line: 100, max_event: 10 });
        let error = decoder.push(b"data: 123456\ndata: 7890\n", &mut |_| Ok(())).unwrap_err();
        assert_eq!(error, StreamError::EventTooLarge { limit: 10 });
        assert!(matches!(decode(&[b"data: \xFF\n\n"]), Err(StreamError::InvalidUtf8 { .. })));
    }
}
