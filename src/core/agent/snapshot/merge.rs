//! [`merge_snapshot`]: a stored snapshot with a persist's changes applied (what
//! `Task.mergeSnapshot` does). Which members are lists is [`SNAPSHOT_LISTS`]' table.

use crate::core::json::{write_string, Json};

use super::parts::{index, items, object, SNAPSHOT_LISTS};
use super::SnapshotError;

/// The whole snapshot from `stored` (`None` before the first persist) and `changes` (what
/// `options.persist` got, as JSON text; a whole snapshot works too): the stored `history`
/// and `messages` up to `historyFrom` and `messagesFrom`, then the changes' own; every other
/// member is the changes'. Nothing is lost silently: changes that start past the stored
/// entries (an earlier persist's changes were never stored) are an error, not a gap.
///
/// # Errors
/// [`SnapshotErrorKind::Invalid`](super::SnapshotErrorKind::Invalid) saying what cannot be
/// merged: text that is not a JSON object, a list that is not an array or an index that is
/// not a whole number, or changes that start past the stored entries.
pub fn merge_snapshot(stored: Option<&str>, changes: &str) -> Result<String, SnapshotError> {
    let changes = object(changes).ok_or_else(|| SnapshotError::invalid("the changes are not a JSON object"))?;
    let stored = match stored {
        Some(text) => object(text).ok_or_else(|| SnapshotError::invalid("the stored snapshot is not a JSON object"))?,
        None => Json::Null,
    };
    let mut out = String::with_capacity(4096);
    out.push('{');
    for (key, value) in changes.as_object().unwrap_or_default() {
        let part = SNAPSHOT_LISTS.iter().find(|(list, from)| key == list || key == from);
        if part.is_some_and(|(_, from)| key == from) {
            continue;
        }
        if out.len() > 1 {
            out.push(',');
        }
        write_string(&mut out, key);
        out.push(':');
        let Some(&(list, from)) = part else {
            value.write(&mut out);
            continue;
        };
        let (Some(at), Some(kept), Some(new)) = (index(&changes, from), items(&stored, list), items(&changes, list))
        else {
            let why = "of the stored snapshot and the changes must be arrays, and their historyFrom and messagesFrom";
            return Err(SnapshotError::invalid(["the history and messages ", why, " whole numbers"].concat()));
        };
        let Some(kept) = kept.get(..at) else {
            let why = ": the changes of an earlier persist were not stored";
            return Err(SnapshotError::invalid(
                ["the changes' ", list, " begins past the end of the stored ", list, why].concat(),
            ));
        };
        out.push('[');
        for (i, item) in kept.iter().chain(new).enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write(&mut out);
        }
        out.push(']');
    }
    out.push('}');
    Ok(out)
}
