//! TODO(issue 29): the Responses decoder is being written.

use super::chunk::Chunk;
use super::error::StreamError;
use super::sse::SseEvent;

/// State of one stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct ResponsesDecoder {}

impl ResponsesDecoder {
    pub(crate) fn on_event(&mut self, _event: SseEvent<'_>, _out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        Ok(())
    }

    pub(crate) fn finish(&mut self, _out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        Ok(())
    }
}
