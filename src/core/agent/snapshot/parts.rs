//! The parts of a stored snapshot: the two lists a persist gives from an index on
//! (`history` and `messages`) and the head, every other member. The rule "the head is
//! everything but the two lists" lives here, so an application stores a task entry by entry
//! without naming any member of the head ([`snapshot_parts`] and its inverse
//! [`join_snapshot`], `Task.snapshotParts` and `Task.joinSnapshot` in JavaScript), and
//! [`merge_snapshot`](super::merge_snapshot) reads the same table.

use crate::core::json::Json;

use super::SnapshotError;

/// The snapshot's two lists, in the order the parts give them: the member that holds the
/// entries, and the member of a persist's changes that says at which index they begin.
/// (js/snapshot-parts.js, the same rule for `Task.snapshotParts`, reads its own copy.)
pub const SNAPSHOT_LISTS: [(&str, &str); 2] = [("history", "historyFrom"), ("messages", "messagesFrom")];

/// Where a member of a snapshot (or of a persist's changes) belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotMember {
    /// Part of the head: stored whole at every persist.
    Head,
    /// The entries of the list [`SNAPSHOT_LISTS`] holds at this index.
    Entries(usize),
    /// The index the entries of that list begin at.
    From(usize),
}

/// Where the member `key` belongs.
pub fn snapshot_member(key: &str) -> SnapshotMember {
    let mut member = SnapshotMember::Head;
    for (i, (entries, from)) in SNAPSHOT_LISTS.iter().enumerate() {
        if key == *entries {
            member = SnapshotMember::Entries(i);
        } else if key == *from {
            member = SnapshotMember::From(i);
        }
    }
    member
}

/// A snapshot or a persist's changes (JSON text of an object) cut into its parts, as JSON
/// text: `{ "head": {…}, "history": { "from", "entries" }, "messages": { "from", "entries" } }`.
/// `head` holds every member but the lists and their indexes, in their order; a list that is
/// absent has no entries, an index that is absent is 0. [`join_snapshot`] puts them back.
///
/// # Errors
/// [`SnapshotErrorKind::Invalid`](super::SnapshotErrorKind::Invalid) when the text is not a
/// JSON object, a list is not an array, or an index is not a whole number.
pub fn snapshot_parts(changes: &str) -> Result<String, SnapshotError> {
    let Some(Json::Object(members)) = object(changes) else {
        return Err(SnapshotError::invalid("the changes are not a JSON object"));
    };
    let mut head = Vec::new();
    let mut lists = SNAPSHOT_LISTS.map(|_| [Json::Null, Json::Null]);
    for (key, value) in members {
        let (list, slot) = match snapshot_member(&key) {
            SnapshotMember::Head => {
                head.push((key, value));
                continue;
            }
            SnapshotMember::From(list) => (list, 0),
            SnapshotMember::Entries(list) => (list, 1),
        };
        if let Some(slot) = lists.get_mut(list).and_then(|l| l.get_mut(slot)) {
            *slot = value;
        }
    }
    let mut parts = Json::from_members([("head", Json::Object(head))]);
    for (&(list, _), [from, entries]) in SNAPSHOT_LISTS.iter().zip(lists) {
        let part = Json::from_members([("from", from), ("entries", entries)]);
        parts.set(list, checked(part, "the changes", list)?);
    }
    Ok(parts.to_string())
}

/// The snapshot (or persist's changes) whose parts `parts` holds, as JSON text: the head's
/// members, then each list's entries, with the index they begin at when it is not 0 (with
/// both at 0 it is a whole snapshot, which `Task.restore` takes). The inverse of
/// [`snapshot_parts`].
///
/// # Errors
/// [`SnapshotErrorKind::Invalid`](super::SnapshotErrorKind::Invalid) when `parts` is not a
/// JSON object, its `head` is not an object or holds a list or an index, a list's `entries`
/// is not an array or its `from` not a whole number.
pub fn join_snapshot(parts: &str) -> Result<String, SnapshotError> {
    let parts = object(parts).ok_or_else(|| SnapshotError::invalid("the parts are not a JSON object"))?;
    let Some(Json::Object(head)) = parts.get("head") else {
        return Err(SnapshotError::invalid("the parts' head must be an object"));
    };
    if let Some((key, _)) = head.iter().find(|(key, _)| snapshot_member(key) != SnapshotMember::Head) {
        let why = "\", which is not part of the head: give the entries in history and messages";
        return Err(SnapshotError::invalid(["the parts' head holds \"", key, why].concat()));
    }
    let mut snapshot = Json::Object(head.clone());
    for &(list, from_key) in &SNAPSHOT_LISTS {
        let part = parts.get(list).cloned().unwrap_or(Json::Null);
        let part = match part {
            Json::Null => Json::object(),
            part => part,
        };
        let part = checked(part, "the parts", list)?;
        if let Some(from) = part.get("from").filter(|from| from.as_u64() != Some(0)) {
            snapshot.set(from_key, from.clone());
        }
        snapshot.set(list, part.get("entries").cloned().unwrap_or_default());
    }
    Ok(snapshot.to_string())
}

/// `part` (`{ from, entries }`) with an absent index made 0 and absent entries empty, or the
/// error of a list that cannot be read in `whose` document.
fn checked(mut part: Json, whose: &str, list: &str) -> Result<Json, SnapshotError> {
    if matches!(part.get("from"), None | Some(Json::Null)) {
        part.set("from", 0u64);
    }
    if matches!(part.get("entries"), None | Some(Json::Null)) {
        part.set("entries", Json::Array(Vec::new()));
    }
    let from = part.get("from").and_then(Json::as_u64);
    if from.is_none() || part.get("entries").and_then(Json::as_array).is_none() {
        let why = " must hold an array of entries and the index they begin at, a whole number";
        return Err(SnapshotError::invalid([whose, "' ", list, why].concat()));
    }
    Ok(part)
}

/// `text` read as a JSON object.
pub(super) fn object(text: &str) -> Option<Json> {
    Json::parse(text).ok().filter(Json::is_object)
}

/// The entries of `document`'s `list` (none when it is absent).
pub(super) fn items<'a>(document: &'a Json, list: &str) -> Option<&'a [Json]> {
    match document.get(list) {
        None | Some(Json::Null) => Some(&[]),
        Some(value) => value.as_array(),
    }
}

/// The index `document`'s `from` holds (0 when it is absent).
pub(super) fn index(document: &Json, from: &str) -> Option<usize> {
    match document.get(from) {
        None | Some(Json::Null) => Some(0),
        Some(value) => value.as_u64().and_then(|n| usize::try_from(n).ok()),
    }
}
