//! [`StreamDecoder`]: a provider's response body, in byte chunks, to the loop's chunks.

use std::fmt;
use std::str::FromStr;

use super::anthropic::AnthropicDecoder;
use super::chunk::Chunk;
use super::chunks_format;
use super::error::{error_in_json, ErrorBody, StreamError};
use super::gemini::GeminiDecoder;
use super::lines::LineSplitter;
use super::openai::OpenAiDecoder;
use super::preview;
use super::responses::ResponsesDecoder;
use super::sse::{SseDecoder, SseLimits};
use crate::json::Json;

/// How many bytes of a body that is not a stream are kept to explain it.
const NOT_A_STREAM_KEEP: usize = 64 << 10;

/// A provider stream format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Anthropic Messages SSE (`"anthropic"`).
    #[default]
    Anthropic,
    /// OpenAI Chat Completions SSE and compatible servers (`"openai"`).
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI Responses SSE (`"openai-responses"`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Google Gemini `streamGenerateContent?alt=sse` (`"gemini"`).
    Gemini,
    /// JSON lines already in the chunk shape, for custom backends (`"chunks"`).
    Chunks,
}

impl Format {
    /// Every format, in the order the documentation lists them.
    pub const ALL: [Self; 5] = [Self::Anthropic, Self::OpenAi, Self::OpenAiResponses, Self::Gemini, Self::Chunks];

    /// The format's name: `"anthropic"`, `"openai"`, `"openai-responses"`, `"gemini"` or
    /// `"chunks"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::OpenAiResponses => "openai-responses",
            Self::Gemini => "gemini",
            Self::Chunks => "chunks",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name clew does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown stream format \"{}\": use \"anthropic\", \"openai\", \"openai-responses\", \"gemini\" or \"chunks\"",
            self.0
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Ok(match name {
            "anthropic" => Self::Anthropic,
            "openai" => Self::OpenAi,
            "openai-responses" => Self::OpenAiResponses,
            "gemini" => Self::Gemini,
            "chunks" => Self::Chunks,
            other => return Err(UnknownFormat(other.to_owned())),
        })
    }
}

/// Decodes a response body into chunks, whatever its byte boundaries.
///
/// Feed it with [`push`](Self::push) and end with [`finish`](Self::finish); chunks are
/// appended to the caller's vector. After an error, every later call returns that error
/// again; chunks decoded before it stay in the vector.
///
/// ```
/// use clew_codec::stream::{Chunk, Format, StreamDecoder};
/// let mut decoder = StreamDecoder::new(Format::OpenAi);
/// let mut chunks = Vec::new();
/// decoder.push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\nda", &mut chunks)?;
/// decoder.push(b"ta: [DONE]\n\n", &mut chunks)?;
/// decoder.finish(&mut chunks)?;
/// assert_eq!(chunks, [Chunk::text("Hi")]);
/// # Ok::<(), clew_codec::stream::StreamError>(())
/// ```
#[derive(Clone, Debug)]
pub struct StreamDecoder {
    format: Format,
    framing: Framing,
    provider: Provider,
    /// The body's first bytes, kept until it has shown it is a stream.
    head: Vec<u8>,
    state: State,
}

#[derive(Clone, Debug)]
enum Framing {
    Sse(SseDecoder),
    Lines { lines: LineSplitter, seen_line: bool },
}

#[derive(Clone, Debug)]
enum Provider {
    Anthropic(AnthropicDecoder),
    OpenAi(OpenAiDecoder),
    Responses(ResponsesDecoder),
    Gemini(GeminiDecoder),
    Chunks,
}

#[derive(Clone, Debug, PartialEq)]
enum State {
    /// Not yet past the first line.
    Starting,
    Streaming,
    /// The body is not a stream: its bytes are kept to explain it at the end.
    NotAStream,
    Finished,
    Failed(StreamError),
}

impl StreamDecoder {
    /// A decoder for `format` with the default limits (8 MiB per line and per event).
    pub fn new(format: Format) -> Self {
        Self::with_limits(format, SseLimits::default())
    }

    /// A decoder for `format` with the given limits.
    pub fn with_limits(format: Format, limits: SseLimits) -> Self {
        let (framing, provider) = match format {
            Format::Anthropic => {
                (Framing::Sse(SseDecoder::new(limits)), Provider::Anthropic(AnthropicDecoder::default()))
            }
            Format::OpenAi => (Framing::Sse(SseDecoder::new(limits)), Provider::OpenAi(OpenAiDecoder::default())),
            Format::OpenAiResponses => {
                (Framing::Sse(SseDecoder::new(limits)), Provider::Responses(ResponsesDecoder::default()))
            }
            Format::Gemini => (Framing::Sse(SseDecoder::new(limits)), Provider::Gemini(GeminiDecoder::default())),
            Format::Chunks => {
                (Framing::Lines { lines: LineSplitter::new(limits.max_line), seen_line: false }, Provider::Chunks)
            }
        };
        Self { format, framing, provider, head: Vec::new(), state: State::Starting }
    }

    /// The format being decoded.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Decodes the next bytes of the body.
    ///
    /// # Errors
    /// A [`StreamError`] for a malformed stream or an error the provider sent in it.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        match &self.state {
            State::Failed(error) => return Err(error.clone()),
            State::Finished => return Ok(()),
            State::NotAStream => {
                self.keep_head(bytes);
                return if self.head.len() >= NOT_A_STREAM_KEEP { self.fail(self.not_a_stream()) } else { Ok(()) };
            }
            State::Starting => self.keep_head(bytes),
            State::Streaming => {}
        }
        let result = self.decode(bytes, out);
        self.after(result)
    }

    /// Ends the body: dispatches a final event without a blank line after it, and checks
    /// that the stream ended properly.
    ///
    /// # Errors
    /// [`StreamError::Incomplete`] when the terminal event never came, [`StreamError::NotSse`]
    /// (or the provider's error, when the body was a JSON error) for a body that was not a
    /// stream, or any error of [`push`](Self::push).
    pub fn finish(&mut self, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        match &self.state {
            State::Failed(error) => return Err(error.clone()),
            State::Finished => return Ok(()),
            State::NotAStream => return self.fail(self.not_a_stream()),
            State::Starting | State::Streaming => {}
        }
        let result = self.decode_end(out);
        self.after(result)?;
        if self.state == State::NotAStream {
            return self.fail(self.not_a_stream());
        }
        self.state = State::Finished;
        Ok(())
    }

    fn decode(&mut self, bytes: &[u8], out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let provider = &mut self.provider;
        match &mut self.framing {
            Framing::Sse(sse) => sse.push(bytes, &mut |event| match provider {
                Provider::Anthropic(decoder) => decoder.on_event(event, out),
                Provider::OpenAi(decoder) => decoder.on_event(event, out),
                Provider::Responses(decoder) => decoder.on_event(event, out),
                Provider::Gemini(decoder) => decoder.on_event(event, out),
                Provider::Chunks => Ok(()),
            }),
            Framing::Lines { lines, seen_line } => lines.push(bytes, &mut |line| chunk_line(line, seen_line, out)),
        }
    }

    fn decode_end(&mut self, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
        let provider = &mut self.provider;
        // NOTE: an event or line still open when the body ends, whose JSON is unfinished,
        // was cut: the stream is incomplete (worth a retry), not malformed.
        let cut = || StreamError::Incomplete { expected: "the rest of the last event" };
        match &mut self.framing {
            Framing::Sse(sse) => sse.finish(&mut |event| {
                if unfinished_json(event.data) {
                    return Err(cut());
                }
                match provider {
                    Provider::Anthropic(decoder) => decoder.on_event(event, out),
                    Provider::OpenAi(decoder) => decoder.on_event(event, out),
                    Provider::Responses(decoder) => decoder.on_event(event, out),
                    Provider::Gemini(decoder) => decoder.on_event(event, out),
                    Provider::Chunks => Ok(()),
                }
            })?,
            Framing::Lines { lines, seen_line } => lines.finish(&mut |line| {
                let text = std::str::from_utf8(line).unwrap_or_default().trim();
                let data = text.strip_prefix("data:").unwrap_or(text);
                if data.trim_start().starts_with('{') && unfinished_json(data) {
                    return Err(cut());
                }
                chunk_line(line, seen_line, out)
            })?,
        }
        if matches!(self.state, State::Starting) && self.head.iter().all(u8::is_ascii_whitespace) {
            return Err(StreamError::Incomplete { expected: "any event (the body was empty)" });
        }
        match provider {
            Provider::Anthropic(decoder) => decoder.finish(),
            Provider::OpenAi(decoder) => decoder.finish(),
            Provider::Responses(decoder) => decoder.finish(out),
            Provider::Gemini(decoder) => decoder.finish(out),
            Provider::Chunks => Ok(()),
        }
    }

    /// Moves the state on after decoding: a first line seen, a body that is not a stream,
    /// or a failure to remember.
    fn after(&mut self, result: Result<(), StreamError>) -> Result<(), StreamError> {
        match result {
            Err(StreamError::NotSse { .. }) if matches!(self.state, State::Starting) => {
                self.state = State::NotAStream;
                Ok(())
            }
            Err(error) => self.fail(error),
            Ok(()) => {
                if matches!(self.state, State::Starting) && self.saw_a_line() {
                    self.state = State::Streaming;
                    self.head = Vec::new();
                }
                Ok(())
            }
        }
    }

    fn saw_a_line(&self) -> bool {
        match &self.framing {
            Framing::Sse(sse) => sse.has_seen_a_line(),
            Framing::Lines { seen_line, .. } => *seen_line,
        }
    }

    fn keep_head(&mut self, bytes: &[u8]) {
        let room = NOT_A_STREAM_KEEP.saturating_sub(self.head.len());
        self.head.extend_from_slice(bytes.get(..room.min(bytes.len())).unwrap_or_default());
    }

    fn not_a_stream(&self) -> StreamError {
        let body = clew_base::utf8::lossy(&self.head);
        match error_in_json(&body) {
            Some(ErrorBody { kind, message }) => StreamError::Provider {
                kind: kind.unwrap_or_else(|| "error".into()),
                message: message.unwrap_or_else(|| preview(body.as_bytes())),
            },
            None => StreamError::NotSse { body: preview(body.trim_start().as_bytes()) },
        }
    }

    fn fail(&mut self, error: StreamError) -> Result<(), StreamError> {
        self.state = State::Failed(error.clone());
        self.head = Vec::new();
        Err(error)
    }
}

fn chunk_line(line: &[u8], seen_line: &mut bool, out: &mut Vec<Chunk>) -> Result<(), StreamError> {
    let text = std::str::from_utf8(line).map_err(|_| StreamError::InvalidUtf8 { line: preview(line) })?;
    if !*seen_line && !text.trim().is_empty() {
        if !chunks_format::starts_a_stream(text) {
            return Err(StreamError::NotSse { body: preview(line) });
        }
        *seen_line = true;
    }
    chunks_format::on_line(text, out)
}

/// Whether `data` starts a JSON value that does not end: text cut mid-event.
fn unfinished_json(data: &str) -> bool {
    let data = data.trim();
    !data.is_empty() && data != "[DONE]" && Json::parse(data).is_err_and(|error| error.at >= data.len())
}
