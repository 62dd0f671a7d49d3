//! [`Reader`]: the snapshot's walk setting fields from a parsed snapshot.

use crate::core::conversation::ContentBlock;
use crate::core::json::{fields, Json};

use super::visit::Visit;

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
        let read = fields::list(self.at, &self.path, key);
        self.keep(read).unwrap_or_default()
    }

    /// The value of a typed read of the codec's `fields`, or `None` with its error kept.
    fn keep<T>(&mut self, read: Result<T, String>) -> Option<T> {
        read.map_err(|error| {
            if self.error.is_none() {
                self.error = Some(error);
            }
        })
        .ok()
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
        let read = fields::required(self.at, &self.path, key);
        *value = self.keep(read).unwrap_or_default();
    }

    fn optional_text(&mut self, key: &str, value: &mut Option<String>) {
        let read = fields::string(self.at, &self.path, key);
        *value = self.keep(read).flatten();
    }

    fn flag(&mut self, key: &str, value: &mut bool) {
        let read = fields::flag(self.at, &self.path, key);
        *value = self.keep(read).flatten().unwrap_or(false);
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
