//! Surrogate pairs split across JS string chunks.
//!
//! A stream of JS strings can cut a character outside the Basic Multilingual Plane between
//! its two UTF-16 halves. Converting each half alone would turn both into U+FFFD, so the
//! high half at the end of a chunk waits here for the low half at the start of the next.

use js_sys::JsString;

const HIGH: std::ops::RangeInclusive<u32> = 0xD800..=0xDBFF;
const LOW: std::ops::RangeInclusive<u32> = 0xDC00..=0xDFFF;

/// Converts JS string chunks to UTF-8, rejoining surrogate pairs split between chunks.
#[derive(Debug, Default)]
pub(crate) struct SurrogateJoiner {
    pending_high: Option<u32>,
}

fn code_unit(text: &JsString, index: u32) -> Option<u32> {
    let unit = text.char_code_at(index);
    // NOTE: NaN (out of range) fails the range checks of the callers.
    (unit.is_finite()).then_some(unit as u32)
}

impl SurrogateJoiner {
    /// The UTF-8 text of `chunk`, with a held high surrogate joined to a leading low one.
    /// Lone surrogates elsewhere become U+FFFD, as every JS-to-UTF-8 conversion does.
    pub(crate) fn convert(&mut self, chunk: &JsString) -> String {
        let mut text = String::from(chunk);
        if let Some(high) = self.pending_high.take() {
            let low = code_unit(chunk, 0).filter(|unit| LOW.contains(unit));
            let joined = low.and_then(|low| char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)));
            match joined {
                // The lone low half came through as U+FFFD: put the whole pair in its place.
                Some(c) if text.starts_with(char::REPLACEMENT_CHARACTER) => {
                    text.replace_range(..char::REPLACEMENT_CHARACTER.len_utf8(), c.encode_utf8(&mut [0; 4]));
                }
                _ => text.insert(0, char::REPLACEMENT_CHARACTER),
            }
        }
        if text.ends_with(char::REPLACEMENT_CHARACTER) {
            let last = code_unit(chunk, chunk.length().saturating_sub(1));
            if let Some(high) = last.filter(|unit| HIGH.contains(unit)) {
                text.truncate(text.len() - char::REPLACEMENT_CHARACTER.len_utf8());
                self.pending_high = Some(high);
            }
        }
        text
    }

    /// Ends the stream: a held high surrogate becomes U+FFFD.
    pub(crate) fn finish(&mut self) -> Option<char> {
        self.pending_high.take().map(|_| char::REPLACEMENT_CHARACTER)
    }
}
