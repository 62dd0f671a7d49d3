//! The pull reader: the caller walks objects and arrays and takes the members it wants.

use std::borrow::Cow;
use std::fmt;

use super::number::{digits_u64, scan, Number};
use super::value::Json;

/// Deepest nesting of arrays and objects accepted (as serde_json's default).
pub const MAX_DEPTH: u32 = 128;

/// Why a text is not JSON, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset of the problem.
    pub at: usize,
    /// What was expected or found.
    pub reason: &'static str,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.at)
    }
}

impl std::error::Error for JsonError {}

type Result<T> = std::result::Result<T, JsonError>;

/// Reads one JSON text by pulling values from it.
///
/// Each method reads one value at the cursor. The typed ones ([`Reader::string`],
/// [`Reader::u64`], [`Reader::bool`]) give `None` for `null` or a value of another type,
/// which they skip (still checking that it is well formed).
///
/// ```
/// use clew_base::json::Reader;
/// let mut reader = Reader::new(r#"{"n": 2, "s": "a\u00e9", "other": [1, {"x": null}]}"#);
/// let (mut n, mut s) = (None, None);
/// reader.object(|r, key| match &*key {
///     "n" => r.u64().map(|v| n = v),
///     "s" => r.string().map(|v| s = v.map(|s| s.into_owned())),
///     _ => r.skip(),
/// }).unwrap();
/// reader.end().unwrap();
/// assert_eq!((n, s.as_deref()), (Some(2), Some("aé")));
/// ```
#[derive(Debug)]
pub struct Reader<'a> {
    text: &'a str,
    pos: usize,
    depth: u32,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Self { text, pos: 0, depth: 0 }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    pub(super) fn fail<T>(&self, reason: &'static str) -> Result<T> {
        Err(JsonError { at: self.pos, reason })
    }

    /// The next byte after white space, not consumed.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes().get(self.pos) {
            self.pos += 1;
        }
        self.bytes().get(self.pos).copied()
    }

    /// Consumes the byte [`Reader::peek`] saw.
    #[inline]
    pub(super) fn bump(&mut self) {
        self.pos += 1;
    }

    /// Checks that only white space is left.
    #[inline]
    pub fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => self.fail("unexpected text after the value"),
        }
    }

    /// Whether the next value is an object (not consumed).
    pub fn is_object(&mut self) -> bool {
        self.peek() == Some(b'{')
    }

    /// Whether the next value is an array (not consumed).
    pub fn is_array(&mut self) -> bool {
        self.peek() == Some(b'[')
    }

    /// Whether the next value is a string (not consumed).
    pub fn is_string(&mut self) -> bool {
        self.peek() == Some(b'"')
    }

    /// Whether the next value is `null` (not consumed).
    pub fn is_null(&mut self) -> bool {
        self.peek() == Some(b'n')
    }

    /// Reads an object, calling `member` with each key; `member` must read the value.
    pub fn object(&mut self, mut member: impl FnMut(&mut Self, Cow<'a, str>) -> Result<()>) -> Result<()> {
        self.object_dyn(&mut member)
    }

    // NOTE: one copy of the loop for every caller (the callers' closures are called through
    // a pointer), which keeps the wasm small.
    fn object_dyn(&mut self, member: &mut dyn FnMut(&mut Self, Cow<'a, str>) -> Result<()>) -> Result<()> {
        if self.peek() != Some(b'{') {
            return self.fail("expected an object");
        }
        self.enter()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return self.fail("expected a key");
            }
            let key = self.string_body()?;
            if self.peek() != Some(b':') {
                return self.fail("expected `:`");
            }
            self.pos += 1;
            member(self, key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                _ => return self.fail("expected `,` or `}`"),
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    /// Reads an array, calling `item` for each element; `item` must read it.
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.array_dyn(&mut item)
    }

    fn array_dyn(&mut self, item: &mut dyn FnMut(&mut Self) -> Result<()>) -> Result<()> {
        if self.peek() != Some(b'[') {
            return self.fail("expected an array");
        }
        self.enter()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            item(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => break,
                _ => return self.fail("expected `,` or `]`"),
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    /// Reads an array of objects: `item` is called at each object (and must read it); items
    /// of other types are skipped, as a lenient reader of provider JSON wants.
    pub fn objects(&mut self, mut item: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.array(|r| if r.is_object() { item(r) } else { r.skip() })
    }

    fn enter(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return self.fail("nested too deeply");
        }
        self.depth += 1;
        self.pos += 1;
        Ok(())
    }

    /// A string value; `None` for null or another type (skipped).
    pub fn string(&mut self) -> Result<Option<Cow<'a, str>>> {
        if self.peek() == Some(b'"') {
            self.string_body().map(Some)
        } else {
            self.skip().map(|()| None)
        }
    }

    /// [`Reader::string`], owned.
    pub fn string_owned(&mut self) -> Result<Option<String>> {
        Ok(self.string()?.map(Cow::into_owned))
    }

    /// A number's text; `None` for null or another type (skipped).
    pub fn number(&mut self) -> Result<Option<Number>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.number_text().map(|text| Some(Number::from_valid(text))),
            _ => self.skip().map(|()| None),
        }
    }

    /// A whole number 0 or more (see [`Number::as_u64`]); `None` for anything else.
    pub fn u64(&mut self) -> Result<Option<u64>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let text = self.number_text()?;
                // Plain digits (the usual case) are read without building a `Number`.
                Ok(digits_u64(text).or_else(|| Number::from_valid(text).as_u64()))
            }
            _ => self.skip().map(|()| None),
        }
    }

    /// A boolean; `None` for null or another type (skipped).
    pub fn bool(&mut self) -> Result<Option<bool>> {
        match self.peek() {
            Some(b't') => self.literal("true").map(|()| Some(true)),
            Some(b'f') => self.literal("false").map(|()| Some(false)),
            _ => self.skip().map(|()| None),
        }
    }

    /// Reads past one value of any type, checking it.
    pub fn skip(&mut self) -> Result<()> {
        match self.peek() {
            Some(b'{') => self.object(|r, _| r.skip()),
            Some(b'[') => self.array(Self::skip),
            Some(b'"') => self.string_body().map(drop),
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number_text().map(drop),
            _ => self.fail("expected a value"),
        }
    }

    /// Reads one value of any type as a [`Json`].
    pub fn value(&mut self) -> Result<Json> {
        Ok(match self.peek() {
            Some(b'{') => {
                let mut members = Vec::new();
                self.object(|r, key| {
                    members.push((key.into_owned(), r.value()?));
                    Ok(())
                })?;
                Json::Object(members)
            }
            Some(b'[') => {
                let mut items = Vec::new();
                self.array(|r| {
                    items.push(r.value()?);
                    Ok(())
                })?;
                Json::Array(items)
            }
            Some(b'"') => Json::String(self.string_body()?.into_owned()),
            Some(b't') => self.literal("true").map(|()| Json::Bool(true))?,
            Some(b'f') => self.literal("false").map(|()| Json::Bool(false))?,
            Some(b'n') => self.literal("null").map(|()| Json::Null)?,
            Some(b'-' | b'0'..=b'9') => Json::Number(Number::from_valid(self.number_text()?)),
            _ => return self.fail("expected a value"),
        })
    }

    /// The text of the value at the cursor, checked, without building it.
    pub fn raw_value(&mut self) -> Result<&'a str> {
        self.peek();
        let start = self.pos;
        self.skip()?;
        Ok(self.text.get(start..self.pos).unwrap_or_default())
    }

    pub(super) fn literal(&mut self, word: &'static str) -> Result<()> {
        if self.bytes().get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            self.fail("expected a value")
        }
    }

    pub(super) fn number_text(&mut self) -> Result<&'a str> {
        let rest = self.bytes().get(self.pos..).unwrap_or_default();
        let Some(len) = scan(rest) else { return self.fail("invalid number") };
        let text = self.text.get(self.pos..self.pos + len).unwrap_or_default();
        self.pos += len;
        Ok(text)
    }

    /// Reads a string at the cursor (which is at its `"`).
    pub(super) fn string_body(&mut self) -> Result<Cow<'a, str>> {
        self.pos += 1;
        let start = self.pos;
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            let Some(stop) = special_at(self.bytes(), self.pos) else {
                self.pos = self.text.len();
                return self.fail("unterminated string");
            };
            if self.bytes().get(stop).is_some_and(|b| *b < 0x20) {
                self.pos = stop;
                return self.fail("control character in string");
            }
            self.pos = stop + 1;
            if self.bytes().get(stop) == Some(&b'"') {
                let tail = self.text.get(run..stop).unwrap_or_default();
                return Ok(match owned {
                    None => Cow::Borrowed(tail),
                    Some(mut text) => {
                        text.push_str(tail);
                        Cow::Owned(text)
                    }
                });
            }
            let text = owned.get_or_insert_with(String::new);
            text.push_str(self.text.get(run..stop).unwrap_or_default());
            let escaped = self.escape()?;
            text.push(escaped);
            run = self.pos;
        }
    }

    /// Decodes the escape after a backslash.
    fn escape(&mut self) -> Result<char> {
        let Some(&b) = self.bytes().get(self.pos) else { return self.fail("unterminated string") };
        self.pos += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                if (0xD800..0xDC00).contains(&unit) && self.bytes().get(self.pos..self.pos + 2) == Some(b"\\u") {
                    let save = self.pos;
                    self.pos += 2;
                    let low = self.hex4()?;
                    if (0xDC00..0xE000).contains(&low) {
                        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    self.pos = save;
                }
                char::from_u32(unit).unwrap_or('\u{FFFD}')
            }
            _ => {
                self.pos -= 1;
                return self.fail("invalid escape");
            }
        })
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut unit = 0;
        for _ in 0..4 {
            let digit = self.bytes().get(self.pos).and_then(|b| char::from(*b).to_digit(16));
            let Some(digit) = digit else { return self.fail("invalid \\u escape") };
            unit = unit * 16 + digit;
            self.pos += 1;
        }
        Ok(unit)
    }
}

/// Parses `text` as one JSON value.
pub(super) fn parse(text: &str) -> Result<Json> {
    let mut reader = Reader::new(text);
    let value = reader.value()?;
    reader.end()?;
    Ok(value)
}

/// The first byte at or after `from` that ends a run of plain string bytes: a `"`, a `\\`
/// or a control character. One pass, eight bytes at a time (a string's bytes are read once
/// for every event, and most are a few dozen bytes long).
#[inline]
fn special_at(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut at = from;
    while let Some(word) = bytes.get(at..at + 8) {
        let Ok(eight) = <[u8; 8]>::try_from(word) else { break };
        let w = u64::from_le_bytes(eight);
        let quote = w ^ (ONES * u64::from(b'"'));
        let slash = w ^ (ONES * u64::from(b'\\'));
        // NOTE: a zero byte of `quote` or `slash`, or a byte under 0x20, sets its high bit
        // here (and may set higher ones after it, never an earlier one).
        let found =
            (quote.wrapping_sub(ONES) & !quote | slash.wrapping_sub(ONES) & !slash | w.wrapping_sub(ONES * 0x20) & !w)
                & HIGH;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes.get(at..)?.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map(|i| at + i)
}

#[cfg(test)]
mod special_tests {
    use super::special_at;

    #[test]
    fn the_eight_byte_scan_finds_the_first_quote_backslash_or_control_character() {
        let plain = "ab\u{e9}\u{1F980}cdefghijklmnopqrstuvwxyz0123456789";
        for special in ["\"", "\\", "\n", "\u{0}", "\u{1f}"] {
            for cut in 0..=plain.len() {
                let Some((head, tail)) = plain.split_at_checked(cut) else { continue };
                let text = format!("{head}{special}{tail}\"");
                for from in 0..=cut {
                    let naive = text.bytes().skip(from).position(|b| b == b'"' || b == b'\\' || b < 0x20);
                    assert_eq!(special_at(text.as_bytes(), from), naive.map(|i| from + i), "{text:?} from {from}");
                }
            }
        }
        assert_eq!(special_at(b"no end here, none at all", 0), None);
        assert_eq!(special_at(b"\x7f\x80\xff ok", 0), None);
    }
}
