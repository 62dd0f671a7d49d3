//! Byte spans into the message text: how blocks refer to their strings without copying them.

/// A half-open byte range `start..end` of the message text, on char boundaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// The empty span at `at`.
    pub const fn empty_at(at: usize) -> Self {
        Self { start: at, end: at }
    }

    /// Whether the span holds no bytes.
    pub const fn is_empty(self) -> bool {
        self.end <= self.start
    }

    /// Length in bytes.
    pub const fn len(self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// The spanned part of `text`; `""` if the span does not fit `text`.
    pub fn slice(self, text: &str) -> &str {
        text.get(self.start..self.end).unwrap_or("")
    }
}
