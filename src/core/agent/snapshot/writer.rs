//! [`Writer`]: the snapshot's walk writing JSON text. Outside a tuple, a member at its
//! default (`null`, `false`, an empty list) is left out, which the
//! [`Reader`](super::reader::Reader) reads as that default. Inside one
//! ([`Visit::begin_tuple`]: the state, which a persist writes at every wait), each member is
//! an item in the walk's order, with no key, and is written even when at rest.

use std::mem::take;

use crate::core::conversation::ContentBlock;
use crate::core::json::{write_key, write_string, write_u64, Json};

use super::visit::Visit;

/// Writes JSON text.
pub(super) struct Writer {
    pub(super) text: String,
    first: bool,
    /// What closes what was entered: its bracket, and whether the outer level is a tuple.
    closers: Vec<(char, bool)>,
    /// Inside a tuple: members are written as items, without their keys.
    tuple: bool,
}

impl Writer {
    pub(super) fn new() -> Self {
        // NOTE: most snapshots a persist writes are a few KB; this spares the first regrowths.
        Self::with_capacity(4096)
    }

    /// A writer whose text has room for `bytes`.
    pub(super) fn with_capacity(bytes: usize) -> Self {
        Self { text: String::with_capacity(bytes), first: true, closers: Vec::new(), tuple: false }
    }

    /// The separator before a member or item.
    pub(super) fn next(&mut self) {
        if !take(&mut self.first) {
            self.text.push(',');
        }
    }

    /// `"key":` (inside a tuple, only the separator). Keys are the snapshot's own names,
    /// which need no escapes.
    pub(super) fn key(&mut self, key: &str) {
        if self.tuple {
            self.next();
        } else {
            write_key(&mut self.text, !take(&mut self.first), key);
        }
    }

    /// `null` for an absent member inside a tuple (outside one, it is left out).
    fn absent(&mut self, key: &str) {
        if self.tuple {
            self.raw(key, "null");
        }
    }

    /// Enters an object or array, or inside a tuple (or when `tuple`) an array of members.
    fn enter(&mut self, object: char, tuple: bool) {
        let inner = self.tuple || tuple;
        let (open, close) = if inner || object == '[' { ('[', ']') } else { ('{', '}') };
        self.open(open);
        self.closers.push((close, self.tuple));
        self.tuple = inner;
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
    fn version(&self) -> u64 {
        super::SNAPSHOT_VERSION
    }

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
            None => self.absent(key),
        }
    }

    fn text(&mut self, key: &str, value: &mut String) {
        self.string(key, value);
    }

    fn optional_text(&mut self, key: &str, value: &mut Option<String>) {
        match value {
            Some(value) => self.text(key, value),
            None => self.absent(key),
        }
    }

    fn flag(&mut self, key: &str, value: &mut bool) {
        if *value {
            self.raw(key, "true");
        } else if self.tuple {
            self.raw(key, "false");
        }
    }

    fn strings(&mut self, key: &str, value: &mut Vec<String>) {
        if value.is_empty() && !self.tuple {
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
        if value.is_empty() && !self.tuple {
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
        if value.is_empty() && !self.tuple {
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
        match value {
            Some(cost) => {
                self.key(key);
                self.text.push('"');
                self.digits(cost.to_bits());
                self.text.push('"');
            }
            None => self.absent(key),
        }
    }

    fn tag(&mut self, key: &str, _: &[&str], name: &str) -> usize {
        self.string(key, name);
        0
    }

    fn begin(&mut self, key: &str) {
        self.key(key);
        self.enter('{', false);
    }

    fn begin_tuple(&mut self, key: &str) {
        self.key(key);
        self.enter('[', true);
    }

    fn begin_list(&mut self, key: &str, _: &mut usize) {
        self.key(key);
        self.enter('[', false);
    }

    fn item(&mut self, _: usize) {
        self.next();
        self.enter('{', false);
    }

    fn end(&mut self) {
        let (bracket, tuple) = self.closers.pop().unwrap_or(('}', false));
        self.close(bracket);
        self.tuple = tuple;
    }
}
