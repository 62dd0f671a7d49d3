//! Typed members of a JSON object, read with errors that name the member
//! (`options.retry.maxRetries must be a whole number, 0 or more`). `at` is where the object
//! sits; a missing member and `null` read as absent.

use super::value::Json;

/// `{at}.{field}{what}` (`{at}{what}` without a field): a member's path, and what is wrong
/// with it. NOTE: one function instead of a `format!` at each error, which the speed settings
/// this crate is built with inline into every reader.
#[cold]
#[inline(never)]
fn said(at: &str, field: &str, what: &str) -> String {
    let mut out = String::with_capacity(at.len() + field.len() + what.len() + 1);
    out.push_str(at);
    if !field.is_empty() {
        out.push('.');
        out.push_str(field);
    }
    out.push_str(what);
    out
}

fn member<'a>(value: &'a Json, field: &str) -> Option<&'a Json> {
    value.get(field).filter(|v| !v.is_null())
}

/// `value` itself, which must be an object.
pub fn object<'a>(value: &'a Json, at: &str) -> Result<&'a Json, String> {
    if value.is_object() {
        Ok(value)
    } else {
        Err(said(at, "", " must be an object"))
    }
}

/// An optional object member.
pub fn object_member<'a>(value: &'a Json, at: &str, field: &str) -> Result<Option<&'a Json>, String> {
    member(value, field).map(|v| object(v, &said(at, field, ""))).transpose()
}

/// An optional string member.
pub fn string(value: &Json, at: &str, field: &str) -> Result<Option<String>, String> {
    match member(value, field) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(said(at, field, " must be a string")),
    }
}

/// A string member that must be there.
pub fn required(value: &Json, at: &str, field: &str) -> Result<String, String> {
    string(value, at, field)?.ok_or_else(|| said(at, field, " is required"))
}

/// An optional count: a number 0 or more (a fraction is dropped).
pub fn count(value: &Json, at: &str, field: &str) -> Result<Option<u64>, String> {
    match member(value, field) {
        None => Ok(None),
        Some(n) => match (n.as_u64(), n.as_f64()) {
            (Some(whole), _) => Ok(Some(whole)),
            (None, Some(x)) if x.is_finite() && x >= 0.0 => Ok(Some(x as u64)),
            _ => Err(said(at, field, " must be a number, 0 or more")),
        },
    }
}

/// An optional finite number.
pub fn number(value: &Json, at: &str, field: &str) -> Result<Option<f64>, String> {
    match member(value, field) {
        None => Ok(None),
        Some(n) => n.as_f64().filter(|n| n.is_finite()).map(Some).ok_or_else(|| said(at, field, " must be a number")),
    }
}

/// An optional amount (a price, a cost): a finite number, 0 or more.
pub fn amount(value: &Json, at: &str, field: &str) -> Result<Option<f64>, String> {
    match number(value, at, field)? {
        Some(n) if n < 0.0 => Err(said(at, field, " must be 0 or more")),
        n => Ok(n),
    }
}

/// An optional boolean.
pub fn flag(value: &Json, at: &str, field: &str) -> Result<Option<bool>, String> {
    match member(value, field) {
        None => Ok(None),
        Some(b) => b.as_bool().map(Some).ok_or_else(|| said(at, field, " must be a boolean")),
    }
}

/// An optional array member (absent reads as empty).
pub fn list<'a>(value: &'a Json, at: &str, field: &str) -> Result<&'a [Json], String> {
    match member(value, field) {
        None => Ok(&[]),
        Some(items) => items.as_array().ok_or_else(|| said(at, field, " must be an array")),
    }
}
