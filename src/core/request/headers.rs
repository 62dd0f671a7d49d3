//! HTTP headers: names compared without case, in the order they were first set.

use serde::{Deserialize, Serialize};

/// A small ordered header map (a request has a handful of headers).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    /// No headers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name` (stored lower-case) to `value`, replacing an earlier value.
    pub fn insert(&mut self, name: &str, value: impl Into<String>) {
        let name = name.to_ascii_lowercase();
        let value = value.into();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, slot)) => *slot = value,
            None => self.0.push((name, value)),
        }
    }

    /// Adds `value` to the comma-separated list `name` holds (`anthropic-beta`), unless it
    /// is in it already; sets it when there is none.
    pub fn join(&mut self, name: &str, value: &str) {
        let joined = match self.get(name).map(str::trim).filter(|old| !old.is_empty()) {
            Some(old) if old.split(',').any(|v| v.trim() == value) => return,
            Some(old) => [old, value].join(","),
            None => value.to_owned(),
        };
        self.insert(name, joined);
    }

    /// The value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether `name` is set.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The headers as (lower-case name, value) pairs.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
