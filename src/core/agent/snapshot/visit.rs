//! One description of the snapshot's state serves both directions: `state.rs` walks each
//! part through a [`Visit`], which [`Writer`](super::writer::Writer) turns into JSON text and [`Reader`](super::reader::Reader) fills from
//! a parsed snapshot (`writer.rs`, `reader.rs`). Writing and reading each field from one
//! place keeps the two in step.

use super::super::tags::Tagged;
use crate::core::conversation::ContentBlock;

/// A direction of the walk. Every method takes a member's key and the field: a writer
/// writes the field, a reader sets it from the member (a missing or mistyped member keeps
/// the field's default and records the first error).
pub(super) trait Visit {
    /// Whether fields are being set (reading) rather than written.
    fn reading(&self) -> bool;
    /// The format version being written or read (a reader of an earlier format walks that
    /// format's members).
    fn version(&self) -> u64;
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
    /// Which variant a tagged object is, by name: a writer writes `name`; a reader returns the
    /// position in `names` of the one it read (recording an error, and returning a position
    /// past the end, for any other).
    fn tag(&mut self, key: &str, names: &[&str], name: &str) -> usize;
    /// Enters the member `key`, an object: the next visits are its members, until
    /// [`end`](Self::end).
    fn begin(&mut self, key: &str);
    /// Enters the member `key` as a tuple: an array whose items are the next visits'
    /// members in the walk's order, without keys (their keys name them in errors), down to
    /// [`end`](Self::end); objects inside it are tuples too. Smaller and quicker to parse
    /// than an object, for what is written at every persist.
    fn begin_tuple(&mut self, key: &str);
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

/// Visits which variant `value` is, by the name its table gives it ([`Tagged`]): a reader sets
/// `value` to the named variant with default fields, which the next visits fill.
pub(super) fn variant<T: Tagged>(v: &mut dyn Visit, key: &str, value: &mut T) {
    let at = v.tag(key, T::NAMES, value.tag());
    if v.reading() {
        value.set_tag(at);
    }
}
