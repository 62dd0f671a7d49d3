//! The members of a `GenerateContentResponse` the decoder reads, in one pass over each event.
//!
//! One recursive reader reads every object of the event it needs (what kind of object it is
//! in picks the members it keeps, so that one closure serves all of them). A part's text is
//! read as it is and the usage counts as numbers; the other members the decoder looks into
//! (a part's other members, `promptFeedback`, `error`) are kept as [`Json`], which costs
//! nothing on the frequent events.

use crate::json::{Json, JsonError, Reader};

/// The objects of an event that have members the decoder reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum In {
    /// The `GenerateContentResponse`.
    Response,
    /// An item of `candidates`.
    Candidate,
    /// A candidate's `content`.
    Content,
    /// An item of `content.parts`.
    Part,
    /// `usageMetadata`.
    Usage,
}

/// What the reader does with a member.
#[derive(Clone, Copy)]
enum Act {
    /// Skips it.
    Skip,
    /// Reads the objects of the array, of this kind (others are skipped, as is anything but
    /// an array).
    Array(In),
    /// Reads the object, of this kind (anything else is skipped).
    Object(In),
    /// Reads the string: a part's `text`, a candidate's `finishReason`.
    Text,
    /// Reads the count into this slot of [`Event::counts`].
    Count(usize),
    /// Keeps the value: a part's members but `text`, `promptFeedback`, `error`.
    Value,
}

/// One event (one `GenerateContentResponse`), as far as the decoder reads it.
#[derive(Default)]
pub(super) struct Event {
    /// The parts of candidate 0 (a candidate without `index` is candidate 0); the other
    /// candidates' are not kept.
    pub(super) parts: Vec<Part>,
    /// Candidate 0's `finishReason`.
    pub(super) finish: Option<String>,
    /// Whether `candidates` listed any candidate at all.
    pub(super) has_candidates: bool,
    /// The counts of `usageMetadata`: prompt, candidates, thoughts, cached content and
    /// tool-use prompt tokens (cumulative over the stream); then the `index` of the
    /// candidate being read.
    pub(super) counts: [Option<u64>; 6],
    /// `promptFeedback` and `error`.
    pub(super) members: Vec<(String, Json)>,
    /// Whether candidate 0 was read already.
    chosen: bool,
    /// The `finishReason` of the candidate being read.
    reason: Option<String>,
}

/// One part of a candidate's content: its `text`, and its other members in order
/// (`thought`, `thoughtSignature`, `functionCall`, and the data of a part of another kind:
/// `executableCode`, `inlineData`…).
pub(super) type Part = (Option<String>, Vec<(String, Json)>);

impl Event {
    /// Reads one event.
    pub(super) fn read(&mut self, r: &mut Reader<'_>) -> Result<(), JsonError> {
        self.object(r, In::Response)
    }

    /// Reads an object of the kind `at`.
    fn object(&mut self, r: &mut Reader<'_>, at: In) -> Result<(), JsonError> {
        let start = self.parts.len();
        match at {
            In::Candidate => {
                self.has_candidates = true;
                (self.counts[5], self.reason) = (None, None);
            }
            In::Part => self.parts.push(Part::default()),
            _ => {}
        }
        r.object(|r, key| {
            let act = match (at, &*key) {
                (In::Response, "candidates") => Act::Array(In::Candidate),
                (In::Content, "parts") => Act::Array(In::Part),
                (In::Response, "usageMetadata") => Act::Object(In::Usage),
                (In::Candidate, "content") => Act::Object(In::Content),
                (In::Part, "text") | (In::Candidate, "finishReason") => Act::Text,
                (In::Usage, "promptTokenCount") => Act::Count(0),
                (In::Usage, "candidatesTokenCount") => Act::Count(1),
                (In::Usage, "thoughtsTokenCount") => Act::Count(2),
                (In::Usage, "cachedContentTokenCount") => Act::Count(3),
                (In::Usage, "toolUsePromptTokenCount") => Act::Count(4),
                (In::Candidate, "index") => Act::Count(5),
                (In::Part, _) | (In::Response, "promptFeedback" | "error") => Act::Value,
                _ => Act::Skip,
            };
            match act {
                Act::Array(next) if r.is_array() => r.objects(|r| self.object(r, next)),
                Act::Object(next) if r.is_object() => self.object(r, next),
                Act::Text => {
                    let slot = match self.parts.last_mut() {
                        Some(part) if at == In::Part => &mut part.0,
                        _ => &mut self.reason,
                    };
                    r.string_owned().map(|text| *slot = text)
                }
                Act::Count(slot) => r.u64().map(|count| {
                    if let Some(slot) = self.counts.get_mut(slot) {
                        *slot = count;
                    }
                }),
                Act::Value => r.value().map(|value| {
                    let members = match self.parts.last_mut() {
                        Some(part) if at == In::Part => &mut part.1,
                        _ => &mut self.members,
                    };
                    members.push((key.into_owned(), value));
                }),
                _ => r.skip(),
            }
        })?;
        match at {
            In::Candidate if self.counts[5].unwrap_or(0) == 0 && !self.chosen => {
                self.chosen = true;
                self.finish = self.reason.take();
            }
            In::Candidate => self.parts.truncate(start),
            _ => {}
        }
        Ok(())
    }
}
