//! The members of a JSON object that is still arriving: a native tool call's arguments.
//!
//! [`PartialJsonObject`] reads the argument text piece by piece and knows, after each
//! piece, every member completed so far plus the string value being streamed (decoded up to
//! where it has arrived), so a UI can show a tool call as it is written. Each byte is read
//! once: a long `content` argument costs the same streamed as whole.
//!
//! Values keep the reference's shape: strings as they are, anything else as compact JSON
//! text. Members whose non-string value is unfinished are not shown until it is.

use crate::hash::StrMap;
use crate::json::Reader;
use crate::text::trim_end_by;

use memchr::memchr2;

fn is_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// An object read from JSON text that may end anywhere.
#[derive(Clone, Debug, Default)]
pub struct PartialJsonObject {
    raw: String,
    pos: usize,
    state: State,
    members: Vec<(String, String)>,
    /// Where each key sits in `members`, so a long object costs linear time.
    positions: StrMap,
    key: String,
    value: String,
    /// Where a non-string value began in `raw`.
    value_start: usize,
    /// Nesting depth and string state while skipping over a non-string value.
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// An escape being decoded inside a string.
    escape: Escape,
    /// A `\uD800-\uDBFF` escape waiting for its low half.
    pending_high: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Start,
    BeforeKey,
    /// After a comma: a key must follow (no trailing comma in JSON).
    NextKey,
    Key,
    AfterKey,
    BeforeValue,
    StringValue,
    OtherValue,
    AfterValue,
    Done,
    Invalid,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Escape {
    #[default]
    None,
    /// After a backslash.
    Started,
    /// Inside `\uXXXX`: the digits read so far and their value.
    Unicode(u8, u32),
}

impl PartialJsonObject {
    /// An empty reader.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next piece of the JSON text. Anything but white space after the closing
    /// brace makes the text invalid, as `JSON.parse` would find it.
    pub fn push(&mut self, piece: &str) {
        self.raw.push_str(piece);
        while self.pos < self.raw.len() && !matches!(self.state, State::Done | State::Invalid) {
            self.step();
        }
        if self.state == State::Done {
            let rest = self.raw.get(self.pos..).unwrap_or_default();
            if !rest.chars().all(is_json_space) {
                self.state = State::Invalid;
            }
            self.pos = self.raw.len();
        }
    }

    /// All the text read so far.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Whether the object's closing brace has been read.
    pub fn is_complete(&self) -> bool {
        self.state == State::Done
    }

    /// Whether the text can no longer be a JSON object.
    pub fn is_invalid(&self) -> bool {
        self.state == State::Invalid
    }

    /// The members known so far, in first-seen order, with the string value being streamed
    /// last (as much of it as has arrived).
    pub fn members(&self) -> impl Iterator<Item = (&str, &str)> {
        let streaming = (self.state == State::StringValue).then_some((self.key.as_str(), self.value.as_str()));
        let overwritten = streaming.map(|(key, _)| key);
        self.members
            .iter()
            .map(move |(k, v)| match overwritten {
                Some(key) if key == k => (k.as_str(), streaming.map_or(v.as_str(), |(_, v)| v)),
                _ => (k.as_str(), v.as_str()),
            })
            .chain(streaming.filter(|(key, _)| !self.positions.contains_key(key.as_bytes())))
    }

    fn step(&mut self) {
        let rest = self.raw.get(self.pos..).unwrap_or_default();
        let Some(c) = rest.chars().next() else { return };
        match self.state {
            State::Key | State::StringValue
                if self.escape == Escape::None && self.pending_high.is_none() && c != '"' && c != '\\' =>
            {
                // Copy the plain run up to the next quote or backslash in one go; a control
                // character in a string is not JSON.
                let run = memchr2(b'"', b'\\', rest.as_bytes()).unwrap_or(rest.len());
                let plain = rest.get(..run).unwrap_or_default();
                if plain.bytes().any(|b| b < 0x20) {
                    self.state = State::Invalid;
                    return;
                }
                if self.state == State::Key {
                    self.key.push_str(plain)
                } else {
                    self.value.push_str(plain)
                }
                self.pos += run;
                return;
            }
            _ => {}
        }
        self.pos += c.len_utf8();
        match self.state {
            State::Start => match c {
                '{' => self.state = State::BeforeKey,
                c if is_json_space(c) => {}
                _ => self.state = State::Invalid,
            },
            State::BeforeKey | State::NextKey => match c {
                '"' => {
                    self.key.clear();
                    self.state = State::Key;
                }
                '}' if self.state == State::BeforeKey => self.state = State::Done,
                c if is_json_space(c) => {}
                _ => self.state = State::Invalid,
            },
            State::Key => self.string_char(c, State::AfterKey),
            State::AfterKey => match c {
                ':' => self.state = State::BeforeValue,
                c if is_json_space(c) => {}
                _ => self.state = State::Invalid,
            },
            State::BeforeValue => match c {
                '"' => {
                    self.value.clear();
                    self.state = State::StringValue;
                }
                c if is_json_space(c) => {}
                _ => {
                    self.value_start = self.pos - c.len_utf8();
                    (self.depth, self.in_string, self.escaped) = (0, false, false);
                    self.state = State::OtherValue;
                    self.other_char(c);
                }
            },
            State::StringValue => self.string_char(c, State::AfterValue),
            State::OtherValue => self.other_char(c),
            State::AfterValue => match c {
                ',' => self.state = State::NextKey,
                '}' => self.state = State::Done,
                c if is_json_space(c) => {}
                _ => self.state = State::Invalid,
            },
            State::Done | State::Invalid => {}
        }
    }

    /// The string being decoded: the key or the value.
    fn target(&mut self) -> &mut String {
        if self.state == State::Key {
            &mut self.key
        } else {
            &mut self.value
        }
    }

    /// A high surrogate not followed by its low half becomes U+FFFD, as `JSON.parse` keeps
    /// a lone surrogate and UTF-8 cannot.
    fn flush_high(&mut self) {
        if self.pending_high.take().is_some() {
            self.target().push(char::REPLACEMENT_CHARACTER);
        }
    }

    /// One character of a key or string value; `next` is the state after its closing quote.
    fn string_char(&mut self, c: char, next: State) {
        match (self.escape, c) {
            (Escape::None, '"') => {
                self.flush_high();
                if next == State::AfterValue {
                    let value = std::mem::take(&mut self.value);
                    self.set_member(value);
                }
                self.state = next;
            }
            (Escape::None, '\\') => self.escape = Escape::Started,
            // A control character is not JSON inside a string, escaped or not.
            (Escape::None | Escape::Started, c) if c < '\u{20}' => self.state = State::Invalid,
            (Escape::None, c) => {
                self.flush_high();
                self.target().push(c);
            }
            (Escape::Started, 'u') => self.escape = Escape::Unicode(0, 0),
            (Escape::Started, c) => {
                self.escape = Escape::None;
                self.flush_high();
                let decoded = match c {
                    '"' | '\\' | '/' => c,
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    _ => {
                        self.state = State::Invalid;
                        return;
                    }
                };
                self.target().push(decoded);
            }
            (Escape::Unicode(count, value), c) => match c.to_digit(16) {
                Some(digit) if count == 3 => {
                    self.escape = Escape::None;
                    self.unicode_unit(value * 16 + digit);
                }
                Some(digit) => self.escape = Escape::Unicode(count + 1, value * 16 + digit),
                None => self.state = State::Invalid,
            },
        }
    }

    /// A `\uXXXX` code unit: joins surrogate pairs, replaces lone halves.
    fn unicode_unit(&mut self, unit: u32) {
        match (self.pending_high.take(), unit) {
            (Some(high), 0xDC00..=0xDFFF) => {
                let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00));
                self.target().push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            (pending, 0xD800..=0xDBFF) => {
                if pending.is_some() {
                    self.target().push(char::REPLACEMENT_CHARACTER);
                }
                self.pending_high = Some(unit);
            }
            (pending, unit) => {
                if pending.is_some() {
                    self.target().push(char::REPLACEMENT_CHARACTER);
                }
                self.target().push(char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }

    /// One character of a number, literal, array or object value.
    fn other_char(&mut self, c: char) {
        if self.in_string {
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => self.in_string = false,
                _ => {}
            }
            return;
        }
        match c {
            '"' => self.in_string = true,
            '{' | '[' => self.depth += 1,
            '}' | ']' if self.depth > 0 => self.depth -= 1,
            ',' | '}' if self.depth == 0 => {
                let end = self.pos - 1;
                let text =
                    trim_end_by(self.raw.get(self.value_start..end).unwrap_or_default(), is_json_space).to_owned();
                let mut reader = Reader::new(&text);
                let mut compact = String::with_capacity(text.len());
                match reader.compact_value(&mut compact).and_then(|()| reader.end()) {
                    Ok(()) => {
                        self.set_member(compact);
                        self.state = if c == ',' { State::NextKey } else { State::Done };
                    }
                    Err(_) => self.state = State::Invalid,
                }
            }
            _ => {}
        }
    }

    fn set_member(&mut self, value: String) {
        match self.positions.get(self.key.as_bytes()).and_then(|at| self.members.get_mut(at)) {
            Some((_, old)) => *old = value,
            None => {
                self.positions.insert(self.key.as_bytes(), self.members.len());
                self.members.push((std::mem::take(&mut self.key), value));
            }
        }
    }
}
