//! [`Reader`]: the snapshot's walk setting fields from a parsed snapshot. Outside a tuple a
//! member is found by its key; inside one ([`Visit::begin_tuple`]) each visit takes the next
//! item. Either way a missing member (or `null`) reads as absent, and errors name the member
//! by its key (`snapshot.state.phase.wait.kind`).

use crate::core::conversation::ContentBlock;
use crate::core::json::Json;

use super::visit::Visit;

static NULL: Json = Json::Null;

/// Where the walk is: the object or tuple being read, its name in errors, and for a tuple
/// the next item's index.
#[derive(Clone)]
struct Level<'a> {
    at: &'a Json,
    path: String,
    tuple: bool,
    next: usize,
}

/// Reads a parsed snapshot. NOTE: nothing returns early: a bad or missing member keeps the
/// field's default and the first error is kept, checked once at the end.
pub(super) struct Reader<'a> {
    level: Level<'a>,
    /// What was entered: the level to go back to, and for a list its items.
    outer: Vec<(Level<'a>, &'a [Json])>,
    /// The first error.
    pub(super) error: Option<String>,
    /// The format version being read.
    pub(super) version: u64,
}

impl<'a> Reader<'a> {
    /// A reader of the object `value`, named `path` in errors.
    pub(super) fn new(value: &'a Json, path: &str) -> Self {
        let level = Level { at: value, path: path.to_owned(), tuple: false, next: 0 };
        let mut reader = Self { level, outer: Vec::new(), error: None, version: super::SNAPSHOT_VERSION };
        if !value.is_object() {
            reader.fail("", "must be an object");
        }
        reader
    }

    /// Records an error about `key` (the current object itself when empty).
    pub(super) fn fail(&mut self, key: &str, what: &str) {
        if self.error.is_none() {
            let dot = if key.is_empty() { "" } else { "." };
            self.error = Some(format!("{}{dot}{key} {what}", self.level.path));
        }
    }

    /// The member `key` (inside a tuple, the next item), unless it is missing or `null`.
    /// Every visit takes exactly one, so that a tuple's items stay in step with the walk.
    fn take(&mut self, key: &str) -> Option<&'a Json> {
        let level = &mut self.level;
        let value = if level.tuple {
            level.next += 1;
            level.at.as_array().and_then(|items| items.get(level.next - 1))
        } else {
            level.at.get(key)
        };
        value.filter(|v| !v.is_null())
    }

    /// The member `key`, or an error when it is missing or not `Some` of `pick`.
    fn read<T>(&mut self, key: &str, what: &str, pick: impl FnOnce(&'a Json) -> Option<T>) -> Option<T> {
        let value = self.take(key).and_then(pick);
        if value.is_none() {
            self.fail(key, what);
        }
        value
    }

    /// The array `key` (none when missing).
    fn array(&mut self, key: &str) -> &'a [Json] {
        match self.take(key) {
            None => &[],
            Some(value) => value.as_array().unwrap_or_else(|| {
                self.fail(key, "must be an array");
                &[]
            }),
        }
    }

    /// The string `key`, if there is one.
    fn string(&mut self, key: &str) -> Option<String> {
        match self.take(key) {
            None => None,
            Some(Json::String(text)) => Some(text.clone()),
            Some(_) => {
                self.fail(key, "must be a string");
                None
            }
        }
    }

    fn item_path(&self, key: &str, i: usize) -> String {
        format!("{}.{key}[{i}]", self.level.path)
    }

    /// Makes `value` (at `path`) the current object (or tuple), keeping the current one to
    /// go back to.
    fn enter(&mut self, value: &'a Json, path: String, tuple: bool, items: &'a [Json]) {
        let inner = Level { at: value, path, tuple: self.level.tuple || tuple, next: 0 };
        let fits = if inner.tuple { value.as_array().is_some() } else { value.is_object() };
        let what = if inner.tuple { "must be an array" } else { "must be an object" };
        let outer = std::mem::replace(&mut self.level, inner);
        self.outer.push((outer, items));
        if !fits {
            self.level.at = &NULL;
            self.fail("", what);
        }
    }
}

fn whole(value: &Json) -> Option<u64> {
    matches!(value, Json::Number(_)).then(|| value.as_u64()).flatten()
}

impl Visit for Reader<'_> {
    fn version(&self) -> u64 {
        self.version
    }

    fn reading(&self) -> bool {
        true
    }

    fn number(&mut self, key: &str, value: &mut u64) {
        *value = self.read(key, "must be a whole number, 0 or more", whole).unwrap_or(0);
    }

    fn optional(&mut self, key: &str, value: &mut Option<u64>) {
        *value = self.take(key).and_then(|member| {
            let number = whole(member);
            if number.is_none() {
                self.fail(key, "must be a whole number, 0 or more");
            }
            number
        });
    }

    fn text(&mut self, key: &str, value: &mut String) {
        let read = self.read(key, "must be a string", |member| member.as_str().map(str::to_owned));
        *value = read.unwrap_or_default();
    }

    fn optional_text(&mut self, key: &str, value: &mut Option<String>) {
        *value = self.string(key);
    }

    fn flag(&mut self, key: &str, value: &mut bool) {
        *value = match self.take(key) {
            None => false,
            Some(member) => member.as_bool().unwrap_or_else(|| {
                self.fail(key, "must be a boolean");
                false
            }),
        };
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
        *value = self.string(key).and_then(|bits| {
            let cost = crate::core::text::digits(&bits).map(f64::from_bits).filter(|c| c.is_finite() && *c >= 0.0);
            if cost.is_none() {
                self.fail(key, "must be the bits of a cost, as decimal text");
            }
            cost
        });
    }

    fn tag(&mut self, key: &str, names: &[&str], _: &str) -> usize {
        let mut read = String::new();
        self.text(key, &mut read);
        names.iter().position(|n| *n == read).unwrap_or_else(|| {
            self.fail(key, "is not one this version knows");
            names.len()
        })
    }

    fn begin(&mut self, key: &str) {
        let value = self.take(key).unwrap_or(&NULL);
        let path = format!("{}.{key}", self.level.path);
        self.enter(value, path, false, &[]);
    }

    fn begin_tuple(&mut self, key: &str) {
        let value = self.take(key).unwrap_or(&NULL);
        let path = format!("{}.{key}", self.level.path);
        self.enter(value, path, true, &[]);
    }

    fn begin_list(&mut self, key: &str, count: &mut usize) {
        let items = self.array(key);
        *count = items.len();
        let path = format!("{}.{key}", self.level.path);
        // NOTE: the list keeps its outer level's object and place (only the path changes);
        // `item` enters each of its items.
        let mut outer = self.level.clone();
        outer.path = std::mem::replace(&mut self.level.path, path);
        self.outer.push((outer, items));
    }

    fn item(&mut self, index: usize) {
        let items = self.outer.last().map_or(&[][..], |(_, items)| *items);
        let path = format!("{}[{index}]", self.level.path);
        self.enter(items.get(index).unwrap_or(&NULL), path, false, &[]);
    }

    fn end(&mut self) {
        if let Some((level, _)) = self.outer.pop() {
            self.level = level;
        }
    }
}
