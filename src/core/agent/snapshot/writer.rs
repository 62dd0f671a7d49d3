//! [`Writer`]: the snapshot's walk writing JSON text. A member at its default (`null`,
//! `false`, an empty list) is left out, which the [`Reader`](super::reader::Reader) reads as
//! that default: a persist writes the state at every wait, and most of it is at rest.

use std::mem::take;

use crate::core::conversation::ContentBlock;
use crate::core::json::{write_key, write_string, write_u64, Json};

use super::visit::Visit;

/// Writes JSON text.
pub(super) struct Writer {
    pub(super) text: String,
    first: bool,
    /// The brackets that close what was entered.
    closers: Vec<char>,
}

impl Writer {
    pub(super) fn new() -> Self {
        // NOTE: most snapshots a persist writes are a few KB; this spares the first regrowths.
        Self { text: String::with_capacity(4096), first: true, closers: Vec::new() }
    }

    /// The separator before a member or item.
    pub(super) fn next(&mut self) {
        if !take(&mut self.first) {
            self.text.push(',');
        }
    }

    /// `"key":`. Keys are the snapshot's own names, which need no escapes.
    pub(super) fn key(&mut self, key: &str) {
        write_key(&mut self.text, !take(&mut self.first), key);
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

    /// `"key":` and `text` as it is.
    pub(super) fn raw(&mut self, key: &str, text: &str) {
        self.key(key);
        self.text.push_str(text);
    }

    /// The decimal digits of `value`.
    fn digits(&mut self, value: u64) {
        write_u64(&mut self.text, value);
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
        if let Some(value) = value {
            self.number(key, value);
        }
    }

    fn text(&mut self, key: &str, value: &mut String) {
        self.string(key, value);
    }

    fn optional_text(&mut self, key: &str, value: &mut Option<String>) {
        if let Some(value) = value {
            self.text(key, value);
        }
    }

    fn flag(&mut self, key: &str, value: &mut bool) {
        if *value {
            self.raw(key, "true");
        }
    }

    fn strings(&mut self, key: &str, value: &mut Vec<String>) {
        if value.is_empty() {
            return;
        }
        self.key(key);
        self.open('[');
        for item in value.iter() {
            self.string_item(item);
        }
        self.close(']');
    }

    fn pairs(&mut self, key: &str, value: &mut Vec<(String, String)>) {
        if value.is_empty() {
            return;
        }
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
        if value.is_empty() {
            return;
        }
        self.key(key);
        self.open('[');
        for block in value.iter() {
            self.json_item(&block.to_json());
        }
        self.close(']');
    }

    fn cost(&mut self, key: &str, value: &mut Option<f64>) {
        if let Some(cost) = value {
            self.key(key);
            self.text.push('"');
            self.digits(cost.to_bits());
            self.text.push('"');
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
