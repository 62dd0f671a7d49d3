//! Arbitrary JSON held in memory: tool inputs, schemas, error bodies.

use super::number::Number;
use super::read::{parse, JsonError};
use super::write::write_value;

/// A JSON value. Objects keep their members in order (and any repeated key).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Json {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its text.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Self>),
    /// An object's members, in order.
    Object(Vec<(String, Self)>),
}

impl Json {
    /// Parses `text` as one JSON value (white space around it allowed).
    ///
    /// ```
    /// use clew_base::json::Json;
    /// let value = Json::parse(r#"{"a": [1, "x"], "a": true}"#).unwrap();
    /// assert_eq!(value.get("a"), Some(&Json::Bool(true)));
    /// assert_eq!(value.to_string(), r#"{"a":[1,"x"],"a":true}"#);
    /// ```
    pub fn parse(text: &str) -> Result<Self, JsonError> {
        parse(text)
    }

    /// An empty object.
    pub fn object() -> Self {
        Self::Object(Vec::new())
    }

    /// An object with these members.
    pub fn from_members<K: Into<String>>(members: impl IntoIterator<Item = (K, Self)>) -> Self {
        Self::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The value of `key` in an object (the last one when repeated).
    pub fn get(&self, key: &str) -> Option<&Self> {
        match self {
            Self::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key` in an object, replacing an earlier value; does nothing to other values.
    pub fn set(&mut self, key: &str, value: impl Into<Self>) {
        self.set_value(key, value.into());
    }

    // NOTE: one copy of the body for every type `set` takes.
    #[inline(never)]
    fn set_value(&mut self, key: &str, value: Self) {
        if let Self::Object(members) = self {
            match members.iter_mut().rev().find(|(k, _)| k == key) {
                Some((_, slot)) => *slot = value,
                None => members.push((key.to_owned(), value)),
            }
        }
    }

    /// Builder form of [`Json::set`].
    pub fn with(mut self, key: &str, value: impl Into<Self>) -> Self {
        self.set_value(key, value.into());
        self
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    /// The whole number 0 or more, if this is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Self::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The number as a float, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Number(n) => Some(n.as_f64()),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Self]> {
        match self {
            Self::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&[(String, Self)]> {
        match self {
            Self::Object(members) => Some(members),
            _ => None,
        }
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Self::Object(_))
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }

    /// Appends this value's compact JSON text to `out`.
    pub fn write(&self, out: &mut String) {
        write_value(self, out);
    }

    /// This value's compact JSON text, as `JSON.stringify` writes it. NOTE: a method, not
    /// `Display`: through `ToString` each text was written twice and went through the
    /// formatting machinery (one copy of it in the wasm for each caller's crate).
    #[allow(clippy::inherent_to_string)]
    pub fn to_string(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

impl From<&str> for Json {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

impl From<String> for Json {
    fn from(value: String) -> Self {
        Self::String(value)
    }
}

impl From<&String> for Json {
    fn from(value: &String) -> Self {
        Self::String(value.clone())
    }
}

impl From<bool> for Json {
    fn from(value: bool) -> Self {
        Self::Bool(value)
    }
}

impl From<u64> for Json {
    fn from(value: u64) -> Self {
        Self::Number(Number::from(value))
    }
}

impl From<u32> for Json {
    fn from(value: u32) -> Self {
        Self::Number(Number::from(u64::from(value)))
    }
}

/// A float as JSON (see [`Number::from_f64`]); NaN and infinities become `null`.
impl From<f64> for Json {
    fn from(value: f64) -> Self {
        Number::from_f64(value).map_or(Self::Null, Self::Number)
    }
}

impl From<Vec<Self>> for Json {
    fn from(value: Vec<Self>) -> Self {
        Self::Array(value)
    }
}

impl<T: Into<Self>> From<Option<T>> for Json {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
    }
}
