//! A call's arguments streamed as `partialArgs` (Gemini 3 with `streamFunctionCallArguments`).
//!
//! Each piece sets one value at a JSON path (`$.location`, `$.recipe.steps[1]`); containers
//! on the way are made as the next segment asks (an index makes an array, a key an object).
//! A `stringValue` at a path that already holds a string is the next piece of that string
//! (the model splits long strings, the last piece often empty); any other value replaces
//! what the path held.
//!
//! The arguments are assembled as the pieces come and given whole when the call closes: the
//! call's first chunk shows it at once, and streaming the arguments' text piece by piece as
//! well would cost more code than it is worth.

use super::own;
use crate::json::Json;

/// Most `null`s an index may skip over past the end of its array (a piece further out is
/// dropped rather than filling memory).
const MAX_GAP: usize = 1 << 16;

/// Places one `partialArgs` piece in `args`: its value (`stringValue`, `numberValue`,
/// `boolValue`, `nullValue`, `structValue` or `listValue`) at its `jsonPath`. A piece
/// without both, or whose path is not a path into the object, is dropped.
#[inline(never)]
pub(super) fn place(args: &mut Json, piece: &Json) {
    let mut value = None;
    for (key, v) in piece.as_object().unwrap_or_default() {
        // NOTE: a protobuf `Value`: `nullValue` (whose value says nothing), `stringValue`,
        // `numberValue`, `boolValue`, `structValue` or `listValue`.
        if key == "nullValue" {
            value = Some((&Json::Null, false));
        } else if key.ends_with("Value") {
            value = Some((v, key == "stringValue"));
        }
    }
    let path = piece.get("jsonPath").and_then(Json::as_str).unwrap_or_default();
    // NOTE: the path is walked once without changing anything, so that a path that turns out
    // wrong halfway leaves nothing behind.
    let Some((value, text)) = value.filter(|_| walk(path, None).is_some()) else { return };
    let Some(Some(node)) = walk(path, Some(args)) else { return };
    match (node, value) {
        (Json::String(held), Json::String(more)) if text => held.push_str(more),
        (node, value) => *node = super::cloned(value),
    }
}

/// Walks the JSON path `path` from `node` (from nothing, only reading the path, when `node`
/// is `None`), making the members and items on the way that are missing (as `null`s, in
/// objects and arrays made as the steps ask). The path is `$` then `.key`, `[index]`,
/// `['key']` or `["key"]` (a path without the `$` is read as if it started with `$.`);
/// `None` for anything else, for a path that does not start with a key (the arguments are an
/// object), and for an index too far past the end of its array.
#[inline(never)]
fn walk<'j>(path: &str, mut node: Option<&'j mut Json>) -> Option<Option<&'j mut Json>> {
    let bytes = path.as_bytes();
    // The start of the next step, after the `$` when there is one.
    let mut at = usize::from(bytes.first() == Some(&b'$'));
    let mut steps = 0;
    while at < bytes.len() || steps == 0 {
        let step = if at == 0 { b'.' } else { *bytes.get(at)? };
        let start = at + usize::from(at > 0);
        let mut end = start;
        let mut index = 0usize;
        let key = match (step, bytes.get(start)) {
            (b'.', _) => {
                while bytes.get(end).is_some_and(|b| !matches!(b, b'.' | b'[')) {
                    end += 1;
                }
                at = end;
                Some(path.get(start..end).filter(|key| !key.is_empty())?)
            }
            (b'[', Some(&quote @ (b'\'' | b'"'))) => {
                end += 1;
                while *bytes.get(end)? != quote {
                    end += 1;
                }
                at = end + 2;
                (bytes.get(end + 1) == Some(&b']')).then_some(())?;
                Some(path.get(start + 1..end)?)
            }
            (b'[', _) if steps > 0 => {
                while *bytes.get(end)? != b']' {
                    let digit = bytes.get(end).map(|b| b.wrapping_sub(b'0')).filter(|d| *d < 10)?;
                    index = index.checked_mul(10)?.checked_add(usize::from(digit))?;
                    end += 1;
                }
                at = end + 1;
                (end > start).then_some(())?;
                None
            }
            _ => return None,
        };
        steps += 1;
        let Some(parent) = node else { continue };
        // A step into a value of another kind makes it a container of the kind it asks.
        if !matches!((key, &*parent), (Some(_), Json::Object(_)) | (None, Json::Array(_))) {
            *parent = if key.is_some() { Json::object() } else { Json::Array(Vec::new()) };
        }
        node = Some(match (key, parent) {
            (Some(key), Json::Object(members)) => {
                let at = match members.iter().rposition(|(k, _)| k == key) {
                    Some(at) => at,
                    None => {
                        members.push((own(key), Json::Null));
                        members.len() - 1
                    }
                };
                &mut members.get_mut(at)?.1
            }
            (None, Json::Array(items)) if index.saturating_sub(items.len()) <= MAX_GAP => {
                while items.len() <= index {
                    items.push(Json::Null);
                }
                items.get_mut(index)?
            }
            _ => return None,
        });
    }
    Some(node)
}
