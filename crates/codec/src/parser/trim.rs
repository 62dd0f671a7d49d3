//! JavaScript-compatible trimming over byte spans.
//!
//! The reference trims with `String.prototype.trim`, whose whitespace set differs from Rust's
//! `char::is_whitespace` (it trims U+FEFF and keeps U+0085). Blocks hold byte spans into the
//! message text, so trimming here narrows a span instead of copying a string.
//! [`TrimTracker`] keeps the trimmed span of a region that grows at its end, touching each
//! byte at most twice however the region is fed.

use super::span::Span;

/// Whether `String.prototype.trim` removes `c`.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | ' '
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// `text[start..end]` trimmed as JavaScript would, as a span of `text`.
///
/// `start` and `end` must be char boundaries with `start <= end`; otherwise the span comes
/// back empty at `start` (never a panic).
pub(crate) fn trim_span(text: &str, start: usize, end: usize) -> Span {
    let Some(region) = text.get(start..end) else {
        return Span::empty_at(start);
    };
    let Some(first) = region.find(|c| !is_js_whitespace(c)) else {
        return Span::empty_at(start);
    };
    let last_end =
        region.char_indices().rev().find(|&(_, c)| !is_js_whitespace(c)).map_or(first, |(i, c)| i + c.len_utf8());
    Span::new(start + first, start + last_end)
}

/// The trimmed span of a region `text[start..]` whose end keeps growing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TrimTracker {
    start: usize,
    first: Option<usize>,
    last_end: usize,
    scanned: usize,
}

impl TrimTracker {
    /// Tracks the region starting at `start`.
    pub(crate) fn new(start: usize) -> Self {
        Self { start, first: None, last_end: start, scanned: start }
    }

    /// Where the region starts.
    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// Looks at the bytes added since the last call and returns the trimmed span of
    /// `text[start..]`. `text` must be the same text, possibly extended.
    pub(crate) fn advance(&mut self, text: &str) -> Span {
        let end = text.len();
        if end > self.scanned {
            let fresh = text.get(self.scanned..).unwrap_or("");
            if self.first.is_none() {
                self.first = fresh.find(|c| !is_js_whitespace(c)).map(|i| self.scanned + i);
            }
            if let Some((i, c)) = fresh.char_indices().rev().find(|&(_, c)| !is_js_whitespace(c)) {
                self.last_end = self.scanned + i + c.len_utf8();
            }
            self.scanned = end;
        }
        match self.first {
            Some(first) => Span::new(first, self.last_end),
            None => Span::empty_at(self.start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_the_javascript_whitespace_set() {
        let text = "\u{FEFF}\u{3000} a b\u{2028}\u{A0}\t";
        let span = trim_span(text, 0, text.len());
        assert_eq!(span.slice(text), "a b");
    }

    #[test]
    fn keeps_next_line_and_zero_width_space() {
        let text = "\u{85}x\u{200B}";
        assert_eq!(trim_span(text, 0, text.len()).slice(text), text);
    }

    #[test]
    fn whitespace_only_region_is_empty() {
        assert!(trim_span(" \n\t ", 0, 4).is_empty());
    }

    #[test]
    fn tracker_matches_trim_span_at_every_growth_step() {
        let full = "  \u{3000}ab \u{A0} c\u{2029}  d \n";
        let mut tracker = TrimTracker::new(0);
        for (end, _) in full.char_indices().skip(1).chain([(full.len(), ' ')]) {
            let text = &full[..end];
            assert_eq!(tracker.advance(text), trim_span(text, 0, end), "prefix {text:?}");
        }
    }
}
