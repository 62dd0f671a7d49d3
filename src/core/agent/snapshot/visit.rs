//! One description of the snapshot's state serves both directions: `state.rs` walks each
//! part through a [`Visit`], which [`Writer`] turns into JSON text and [`Reader`] fills from
//! a parsed snapshot. Writing and reading each field from one place keeps the two in step,
//! and is half the code of a writer and a reader side by side (in the wasm, where every
//! byte is downloaded).

use std::mem::take;

use crate::core::conversation::ContentBlock;
use crate::core::json::{write_string, Json};

/// A direction of the walk. Every method takes a member's key and the field: a writer
/// writes the field, a reader sets it from the member (a missing or mistyped member keeps
/// the field's default and records the first error).
pub(super) trait Visit {
    /// Whether fields are being set (reading) rather than written.
    fn reading(&self) -> bool;
    /// A whole number.
    fn number(&mut self, key: &str, value: &mut u64);
    /// A whole number or `null`.
    fn optional(&mut self, key: &str, value: &mut Option<u64>);
    /// A string.
    fn text(&mut self, key: &str, value: &mut String);
    /// A string or `null`.
    fn optional_text(&mut self, key: &str, value: &mut Option<String>);
    /// A boolean.
    fn flag(&mut self, key: &str, value: &mut bool);
    /// An array of strings.
    fn strings(&mut self, key: &str, value: &mut Vec<String>);
    /// `[[name, value], …]`.
    fn pairs(&mut self, key: &str, value: &mut Vec<(String, String)>);
    /// Content blocks in the history's shape.
    fn blocks(&mut self, key: &str, value: &mut Vec<ContentBlock>);
    /// A cost as its exact bits (decimal text: a JSON number cannot hold 64 bits), or
    /// `null`: JSON numbers written by the codec keep 12 decimals, and a resumed task's cost
    /// must add up to the bit.
    fn cost(&mut self, key: &str, value: &mut Option<f64>);
    /// Which of `names` a tagged object is: a writer writes `names[index]`; a reader returns
    /// the index it read.
    fn tag(&mut self, key: &str, names: &[&str], index: usize) -> usize;
    /// Enters the member `key`, an object: the next visits are its members, until
    /// [`end`](Self::end).
    fn begin(&mut self, key: &str);
    /// Enters the member `key`, an array of `count` objects (a reader sets `count`):
    /// [`item`](Self::item) enters each in turn, [`end`](Self::end) leaves each and then the
    /// array.
    fn begin_list(&mut self, key: &str, count: &mut usize);
    /// Enters the array's object `index`.
    fn item(&mut self, index: usize);
    /// Leaves the object or array entered last.
    fn end(&mut self);
}

/// Visits a `usize` field as a number (a reader's value past `usize` becomes `usize::MAX`,
/// which the restored state's checks reject).
pub(super) fn index(v: &mut dyn Visit, key: &str, value: &mut usize) {
    let mut number = *value as u64;
    v.number(key, &mut number);
    *value = usize::try_from(number).unwrap_or(usize::MAX);
}

/// Visits a `u32` counter.
pub(super) fn small(v: &mut dyn Visit, key: &str, value: &mut u32) {
    let mut number = u64::from(*value);
    v.number(key, &mut number);
    *value = u32::try_from(number).unwrap_or(u32::MAX);
}

/// Writes JSON text.
pub(super) struct Writer {
    pub(super) text: String,
    first: bool,
    /// The brackets that close what was entered.
    closers: Vec<char>,
}

impl Writer {
    pub(super) fn new() -> Self {
        Self { text: String::new(), first: true, closers: Vec::new() }
    }

    /// The separator before a member or item.
    pub(super) fn next(&mut self) {
        if !take(&mut self.first) {
            self.text.push(',');
        }
    }

    /// `"key":`.
    pub(super) fn key(&mut self, key: &str) {
        self.next();
        write_string(&mut self.text, key);
        self.text.push(':');
    }

    /// Opens an object or array (`{` or `[`).
    pub(super) fn open(&mut self, bracket: char) {
        self.text.push(bracket);
        self.first = true;
    }

    /// Closes an object or array.
    pub(super) fn close(&mut self, bracket: char) {
        self.text.push(bracket);
        self.first = false;
    }

    fn raw(&mut self, key: &str, text: &str) {
        self.key(key);
        self.text.push_str(text);
    }

    /// The decimal digits of `value`, written without the formatting machinery (a snapshot
    /// writes some fifty numbers at every persist).
    fn digits(&mut self, mut value: u64) {
        let mut buffer = [0u8; 20];
        let mut at = buffer.len();
        loop {
            at -= 1;
            if let Some(slot) = buffer.get_mut(at) {
                *slot = b'0' + (value % 10) as u8;
            }
            value /= 10;
            if value == 0 || at == 0 {
                break;
            }
        }
        for &digit in buffer.get(at..).unwrap_or_default() {
            self.text.push(char::from(digit));
        }
    }

    /// A string member (without the copy [`Visit::text`] would need).
    pub(super) fn string(&mut self, key: &str, value: &str) {
        self.key(key);
        write_string(&mut self.text, value);
    }

    /// An array item that is a string.
    pub(super) fn string_item(&mut self, value: &str) {
        self.next();
        write_string(&mut self.text, value);
    }

    /// An array item holding a JSON value.
    pub(super) fn json_item(&mut self, value: &Json) {
        self.next();
        value.write(&mut self.text);
    }
}

impl Visit for Writer {
    fn reading(&self) -> bool {
        false
    }

    fn number(&mut self, key: &str, value: &mut u64) {
        self.key(key);
        self.digits(*value);
    }

    fn optional(&mut self, key: &str, value: &mut Option<u64>) {
        match value {
            Some(value) => self.number(key, value),
            None => self.raw(key, "null"),
        }
    }

    fn text(&mut self, key: &str, value: &mut String) {
        self.string(key, value);
    }

    fn optional_text(&mut self, key: &str, value: &mut Option<String>) {
        match value {
            Some(value) => self.text(key, value),
            None => self.raw(key, "null"),
        }
    }

    fn flag(&mut self, key: &str, value: &mut bool) {
        self.raw(key, if *value { "true" } else { "false" });
    }

    fn strings(&mut self, key: &str, value: &mut Vec<String>) {
        self.key(key);
        self.open('[');
        for item in value.iter() {
            self.string_item(item);
        }
        self.close(']');
    }

    fn pairs(&mut self, key: &str, value: &mut Vec<(String, String)>) {
        self.key(key);
        self.open('[');
        for (name, text) in value.iter() {
            self.next();
            self.open('[');
            self.string_item(name);
            self.string_item(text);
            self.close(']');
        }
        self.close(']');
    }

    fn blocks(&mut self, key: &str, value: &mut Vec<ContentBlock>) {
        self.key(key);
        self.open('[');
        for block in value.iter() {
            self.json_item(&block.to_json());
        }
        self.close(']');
    }

    fn cost(&mut self, key: &str, value: &mut Option<f64>) {
        match value {
            Some(cost) => {
                self.key(key);
                self.text.push('"');
                self.digits(cost.to_bits());
                self.text.push('"');
            }
            None => self.raw(key, "null"),
        }
    }

    fn tag(&mut self, key: &str, names: &[&str], index: usize) -> usize {
        self.string(key, names.get(index).copied().unwrap_or_default());
        index
    }

    fn begin(&mut self, key: &str) {
        self.key(key);
        self.open('{');
        self.closers.push('}');
    }

    fn begin_list(&mut self, key: &str, _: &mut usize) {
        self.key(key);
        self.open('[');
        self.closers.push(']');
    }

    fn item(&mut self, _: usize) {
        self.next();
        self.open('{');
        self.closers.push('}');
    }

    fn end(&mut self) {
        let bracket = self.closers.pop().unwrap_or('}');
        self.close(bracket);
    }
}

static NULL: Json = Json::Null;

/// Reads a parsed snapshot. NOTE: nothing returns early: a bad or missing member keeps the
/// field's default and the first error is kept, checked once at the end.
pub(super) struct Reader<'a> {
    at: &'a Json,
    path: String,
    /// What was entered: the outer object and path to go back to, and for an array its items.
    outer: Vec<(&'a Json, String, &'a [Json])>,
    /// The first error.
    pub(super) error: Option<String>,
}

impl<'a> Reader<'a> {
    /// A reader of the object `value`, named `path` in errors.
    pub(super) fn new(value: &'a Json, path: &str) -> Self {
        let mut reader = Self { at: value, path: path.to_owned(), outer: Vec::new(), error: None };
        if !value.is_object() {
            reader.fail("", "must be an object");
        }
        reader
    }

    /// Records an error about `key` (the current object itself when empty).
    pub(super) fn fail(&mut self, key: &str, what: &str) {
        if self.error.is_none() {
            let dot = if key.is_empty() { "" } else { "." };
            self.error = Some(format!("{}{dot}{key} {what}", self.path));
        }
    }

    fn member(&self, key: &str) -> Option<&'a Json> {
        self.at.get(key).filter(|v| !v.is_null())
    }

    /// The member `key`, or an error when it is missing or not `Some` of `pick`.
    fn read<T>(&mut self, key: &str, what: &str, pick: impl FnOnce(&'a Json) -> Option<T>) -> Option<T> {
        let value = self.member(key).and_then(pick);
        if value.is_none() {
            self.fail(key, what);
        }
        value
    }

    fn array(&mut self, key: &str) -> &'a [Json] {
        match self.member(key) {
            None => &[],
            Some(value) => self.read(key, "must be an array", |_| value.as_array()).unwrap_or_default(),
        }
    }

    fn item_path(&self, key: &str, i: usize) -> String {
        format!("{}.{key}[{i}]", self.path)
    }

    /// Makes `value` (at `path`) the current object, keeping the current one to go back to.
    fn enter(&mut self, value: &'a Json, path: String, items: &'a [Json]) {
        let outer = std::mem::replace(&mut self.path, path);
        self.outer.push((self.at, outer, items));
        self.at = if value.is_object() { value } else { &NULL };
        if !value.is_object() {
            self.fail("", "must be an object");
        }
    }
}

fn whole(value: &Json) -> Option<u64> {
    matches!(value, Json::Number(_)).then(|| value.as_u64()).flatten()
}

impl Visit for Reader<'_> {
    fn reading(&self) -> bool {
        true
    }

    fn number(&mut self, key: &str, value: &mut u64) {
        *value = self.read(key, "must be a whole number, 0 or more", whole).unwrap_or(0);
    }

    fn optional(&mut self, key: &str, value: &mut Option<u64>) {
        *value = match self.member(key) {
            None => None,
            Some(_) => self.read(key, "must be a whole number, 0 or more", whole),
        };
    }

    fn text(&mut self, key: &str, value: &mut String) {
        *value = self.read(key, "must be a string", |v| v.as_str().map(str::to_owned)).unwrap_or_default();
    }

    fn optional_text(&mut self, key: &str, value: &mut Option<String>) {
        *value = match self.member(key) {
            None => None,
            Some(_) => self.read(key, "must be a string", |v| v.as_str().map(str::to_owned)),
        };
    }

    fn flag(&mut self, key: &str, value: &mut bool) {
        *value = self.read(key, "must be a boolean", Json::as_bool).unwrap_or(false);
    }

    fn strings(&mut self, key: &str, value: &mut Vec<String>) {
        value.clear();
        for item in self.array(key) {
            match item.as_str() {
                Some(text) => value.push(text.to_owned()),
                None => self.fail(key, "must hold strings only"),
            }
        }
    }

    fn pairs(&mut self, key: &str, value: &mut Vec<(String, String)>) {
        value.clear();
        for item in self.array(key) {
            match item.as_array() {
                Some([Json::String(name), Json::String(text)]) => value.push((name.clone(), text.clone())),
                _ => self.fail(key, "must hold [name, value] pairs of strings"),
            }
        }
    }

    fn blocks(&mut self, key: &str, value: &mut Vec<ContentBlock>) {
        value.clear();
        for (i, item) in self.array(key).iter().enumerate() {
            match ContentBlock::from_json(item, &self.item_path(key, i)) {
                Ok(block) => value.push(block),
                Err(error) => self.fail("", &error),
            }
        }
    }

    fn cost(&mut self, key: &str, value: &mut Option<f64>) {
        let mut bits = None;
        self.optional_text(key, &mut bits);
        *value = bits.and_then(|bits| {
            let cost = bits.parse::<u64>().ok().map(f64::from_bits).filter(|c| c.is_finite() && *c >= 0.0);
            if cost.is_none() {
                self.fail(key, "must be the bits of a cost, as decimal text");
            }
            cost
        });
    }

    fn tag(&mut self, key: &str, names: &[&str], _: usize) -> usize {
        let mut name = String::new();
        self.text(key, &mut name);
        names.iter().position(|n| *n == name).unwrap_or_else(|| {
            self.fail(key, "is not one this version knows");
            0
        })
    }

    fn begin(&mut self, key: &str) {
        let value = self.member(key).unwrap_or(&NULL);
        let path = format!("{}.{key}", self.path);
        self.enter(value, path, &[]);
    }

    fn begin_list(&mut self, key: &str, count: &mut usize) {
        let items = self.array(key);
        *count = items.len();
        let path = format!("{}.{key}", self.path);
        let outer = std::mem::replace(&mut self.path, path);
        self.outer.push((self.at, outer, items));
    }

    fn item(&mut self, index: usize) {
        let items = self.outer.last().map_or(&[][..], |(.., items)| *items);
        let path = format!("{}[{index}]", self.path);
        self.enter(items.get(index).unwrap_or(&NULL), path, &[]);
    }

    fn end(&mut self) {
        if let Some((at, path, _)) = self.outer.pop() {
            self.at = at;
            self.path = path;
        }
    }
}
