//! A small JSON writer for the snapshot: members go straight into the text, one call each,
//! with no tree built in between (a tree of [`Json`] values, built and dropped per member,
//! was most of the snapshot code's weight in the wasm).

use crate::core::json::{write_string, Json};

/// JSON text being written, and whether the next member or item is the first of its
/// object or array (no comma before it).
pub(super) struct Out {
    pub(super) text: String,
    first: bool,
}

impl Out {
    pub(super) fn new() -> Self {
        Self { text: String::new(), first: true }
    }

    /// The separator before a member or item.
    #[inline(never)]
    pub(super) fn next(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.text.push(',');
        }
    }

    /// `"key":`.
    #[inline(never)]
    pub(super) fn key(&mut self, key: &str) {
        self.next();
        write_string(&mut self.text, key);
        self.text.push(':');
    }

    /// Opens an object or array (`{` or `[`) whose members follow.
    #[inline(never)]
    pub(super) fn open(&mut self, bracket: char) {
        self.text.push(bracket);
        self.first = true;
    }

    /// Closes an object or array.
    #[inline(never)]
    pub(super) fn close(&mut self, bracket: char) {
        self.text.push(bracket);
        self.first = false;
    }

    /// `"key":{` : a member that is an object.
    #[inline(never)]
    pub(super) fn object(&mut self, key: &str) {
        self.key(key);
        self.open('{');
    }

    /// `"key":{"kind":"name"` : a member that is a tagged object.
    #[inline(never)]
    pub(super) fn tagged(&mut self, key: &str, kind: &str) {
        self.object(key);
        self.text_member("kind", kind);
    }

    /// A number member.
    #[inline(never)]
    pub(super) fn number(&mut self, key: &str, value: u64) {
        self.key(key);
        self.text.push_str(&value.to_string());
    }

    /// A number member, or `null`.
    #[inline(never)]
    pub(super) fn optional(&mut self, key: &str, value: Option<u64>) {
        match value {
            Some(value) => self.number(key, value),
            None => {
                self.key(key);
                self.text.push_str("null");
            }
        }
    }

    /// A string member.
    #[inline(never)]
    pub(super) fn text_member(&mut self, key: &str, value: &str) {
        self.key(key);
        write_string(&mut self.text, value);
    }

    /// A string member, or `null`.
    #[inline(never)]
    pub(super) fn optional_text(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(value) => self.text_member(key, value),
            None => {
                self.key(key);
                self.text.push_str("null");
            }
        }
    }

    /// A boolean member.
    #[inline(never)]
    pub(super) fn flag(&mut self, key: &str, value: bool) {
        self.key(key);
        self.text.push_str(if value { "true" } else { "false" });
    }

    /// A member holding a [`Json`] value.
    #[inline(never)]
    pub(super) fn json(&mut self, key: &str, value: &Json) {
        self.key(key);
        value.write(&mut self.text);
    }

    /// An array item holding a [`Json`] value.
    #[inline(never)]
    pub(super) fn json_item(&mut self, value: &Json) {
        self.next();
        value.write(&mut self.text);
    }

    /// An array item that is a string.
    #[inline(never)]
    pub(super) fn text_item(&mut self, value: &str) {
        self.next();
        write_string(&mut self.text, value);
    }

    /// A float as its exact bits (16 hex digits): JSON numbers written by the codec keep 12
    /// decimals, and a resumed task's cost must add up to the uninterrupted one's to the bit.
    #[inline(never)]
    pub(super) fn float_bits(&mut self, key: &str, value: Option<f64>) {
        let hex = value.map(|v| format!("{:016x}", v.to_bits()));
        self.optional_text(key, hex.as_deref());
    }

    /// `[[name, value], …]`: parameters keep their order.
    #[inline(never)]
    pub(super) fn pairs(&mut self, key: &str, pairs: &[(String, String)]) {
        self.key(key);
        self.open('[');
        for (name, value) in pairs {
            self.next();
            self.open('[');
            self.text_item(name);
            self.text_item(value);
            self.close(']');
        }
        self.close(']');
    }
}
