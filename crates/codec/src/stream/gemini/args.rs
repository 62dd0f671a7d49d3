//! A call's arguments streamed as `partialArgs` (Gemini 3 with `streamFunctionCallArguments`).
//!
//! Each piece sets one value at a JSON path (`$.location`, `$.recipe.steps[1]`); containers
//! on the way are made as the next segment asks (an index makes an array, a key an object).
//! A `stringValue` at a path that already holds a string is the next piece of that string
//! (the model splits long strings, the last piece often empty); any other value replaces
//! what the path held.
//!
//! The object's JSON text is streamed alongside, piece by piece, for as long as the pieces
//! only ever add to its end (new members after the last, the last string growing): a string
//! is left open until something else comes, containers are closed when a piece leaves them.
//! A piece that changes what was already written (a member set again, a container left and
//! come back to) stops the streaming; the call's close then gives the whole arguments
//! instead of the rest of the text. The close checks that the text sent is where the
//! finished object's text begins, so the pieces always add up to the assembled arguments.

use super::wire::ArgValue;
use crate::json::{write_string, Json};

/// Most `null`s an index may skip over past the end of its array (a piece further out is
/// dropped rather than filling memory).
const MAX_GAP: usize = 1 << 16;

/// A call's arguments as far as their pieces have come.
#[derive(Clone, Debug)]
pub(super) struct StreamedArgs {
    /// The arguments so far (an object).
    value: Json,
    /// The JSON text streamed so far.
    sent: String,
    /// The containers open at the end of `sent`, the root object first.
    open: Vec<Level>,
    /// The key or index of the string left open at the end of `sent` (in the innermost
    /// open container), if one is.
    open_string: Option<Segment>,
    /// Whether `sent` is still the start of the arguments' text.
    following: bool,
}

/// A container open in the streamed text.
#[derive(Clone, Debug)]
struct Level {
    /// Its key or index in its parent (unused for the root).
    segment: Segment,
    /// Whether it is an array (else an object).
    array: bool,
    /// How many members or items were written in it.
    written: usize,
}

/// A step of a JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// A member of an object.
    Key(String),
    /// An item of an array.
    Index(usize),
}

/// What placing a piece did to the arguments.
enum Placed {
    /// Made a new value; `depth` is the first step of the path that did not exist before.
    New { depth: usize },
    /// Added to the end of the string already at the path.
    Appended,
    /// Changed something that was there already.
    Replaced,
}

/// How a call's arguments end: the rest of the text after the streamed pieces, or the
/// whole text replacing them.
pub(super) enum Closing {
    /// The end of the text, after the pieces streamed.
    Rest(String),
    /// The whole text, to replace the pieces streamed.
    Whole(String),
}

impl StreamedArgs {
    /// Arguments that start from `args` (compact JSON text, when the opening piece had some;
    /// they are then not streamed but given whole at the close).
    pub(super) fn new(args: Option<&str>) -> Self {
        let start = args.and_then(|text| Json::parse(text).ok()).filter(Json::is_object);
        Self {
            following: start.is_none(),
            value: start.unwrap_or_else(Json::object),
            sent: String::new(),
            open: Vec::new(),
            open_string: None,
        }
    }

    /// Places one piece; returns the text to stream for it, if any. A piece whose path is
    /// not a path into the object is dropped.
    pub(super) fn push(&mut self, path: &str, value: ArgValue) -> Option<String> {
        let path = parse_path(path)?;
        // The piece's text is made before the value moves into the object.
        let text = self.following.then(|| PieceText::of(&value));
        let placed = place(&mut self.value, &path, value);
        let text = text?;
        let delta = match placed {
            Some(Placed::Appended) if self.is_open_string(&path) => Some(text.text),
            Some(Placed::New { depth }) => self.navigate(&path, depth, text),
            _ => None,
        };
        match delta {
            Some(delta) => {
                self.sent.push_str(&delta);
                Some(delta).filter(|d| !d.is_empty())
            }
            None => {
                self.following = false;
                None
            }
        }
    }

    /// Ends the arguments: the text still to send after what was streamed, or the whole.
    pub(super) fn close(self) -> Closing {
        let mut text = String::with_capacity(self.sent.len() + self.open.len() + 1);
        self.value.write(&mut text);
        match text.get(self.sent.len()..) {
            Some(rest) if self.following && text.starts_with(&self.sent) => Closing::Rest(rest.to_owned()),
            _ => Closing::Whole(text),
        }
    }

    /// Whether `path` is the string left open at the end of the text.
    fn is_open_string(&self, path: &[Segment]) -> bool {
        let Some((leaf, containers)) = path.split_last() else { return false };
        self.open_string.as_ref() == Some(leaf)
            && containers.len() + 1 == self.open.len()
            && self.open.iter().skip(1).zip(containers).all(|(level, segment)| level.segment == *segment)
    }

    /// The text that goes from the end of `sent` to a new value at `path` (whose steps from
    /// `depth` on are new), or `None` when the text cannot get there by adding to its end.
    fn navigate(&mut self, path: &[Segment], depth: usize, value: PieceText) -> Option<String> {
        let (_, containers) = path.split_last()?;
        let mut out = String::new();
        if self.open.is_empty() {
            out.push('{');
            self.open.push(Level { segment: Segment::Index(0), array: false, written: 0 });
        }
        let common =
            self.open.iter().skip(1).zip(containers).take_while(|(level, segment)| level.segment == **segment).count();
        // The first new step must be in a container still open: anything else rewrites.
        if depth != common {
            return None;
        }
        if self.open_string.take().is_some() {
            out.push('"');
        }
        while self.open.len() > common + 1 {
            let level = self.open.pop()?;
            out.push(if level.array { ']' } else { '}' });
        }
        for (at, segment) in path.iter().enumerate().skip(common) {
            let parent = self.open.last_mut()?;
            match segment {
                Segment::Key(key) => {
                    if parent.written > 0 {
                        out.push(',');
                    }
                    write_string(&mut out, key);
                    out.push(':');
                    parent.written += 1;
                }
                Segment::Index(index) => {
                    // The items skipped over are nulls, as in the object.
                    while parent.written < *index {
                        out.push_str(if parent.written > 0 { ",null" } else { "null" });
                        parent.written += 1;
                    }
                    if parent.written > 0 {
                        out.push(',');
                    }
                    parent.written += 1;
                }
            }
            match path.get(at + 1) {
                Some(next) => {
                    let array = matches!(next, Segment::Index(_));
                    out.push(if array { '[' } else { '{' });
                    self.open.push(Level { segment: segment.clone(), array, written: 0 });
                }
                None if value.string => {
                    // NOTE: a string is left open: its next piece may follow.
                    out.push('"');
                    out.push_str(&value.text);
                    self.open_string = Some(segment.clone());
                }
                None => out.push_str(&value.text),
            }
        }
        Some(out)
    }
}

/// A piece's value as JSON text; a string's without its quotes.
struct PieceText {
    /// Whether the value is a string.
    string: bool,
    text: String,
}

impl PieceText {
    /// The text of `value`.
    fn of(value: &ArgValue) -> Self {
        let mut text = String::new();
        match value {
            ArgValue::Text(string) => {
                write_string(&mut text, string);
                text = text.get(1..text.len().saturating_sub(1)).unwrap_or_default().to_owned();
            }
            ArgValue::Value(value) => value.write(&mut text),
        }
        Self { string: matches!(value, ArgValue::Text(_)), text }
    }
}

/// Places `value` at `path` in `root`, making the containers on the way; `None` (nothing
/// placed) for an index too far past the end of its array.
fn place(root: &mut Json, path: &[Segment], value: ArgValue) -> Option<Placed> {
    let mut node = root;
    // The first step that made a new member or item, and whether a value that was there
    // (not one just made) was turned into a container.
    let (mut fresh, mut replaced) = (None, false);
    for (depth, segment) in path.iter().enumerate() {
        let fits =
            matches!((segment, &*node), (Segment::Key(_), Json::Object(_)) | (Segment::Index(_), Json::Array(_)));
        if !fits {
            replaced |= fresh.is_none();
            *node = if matches!(segment, Segment::Key(_)) { Json::object() } else { Json::Array(Vec::new()) };
        }
        let (child, existed) = match (segment, node) {
            (Segment::Key(key), Json::Object(members)) => match members.iter().rposition(|(k, _)| k == key) {
                Some(at) => (members.get_mut(at).map(|(_, v)| v)?, true),
                None => {
                    members.push((key.clone(), Json::Null));
                    (members.last_mut().map(|(_, v)| v)?, false)
                }
            },
            (Segment::Index(index), Json::Array(items)) => {
                let existed = *index < items.len();
                if !existed {
                    if *index - items.len() > MAX_GAP {
                        return None;
                    }
                    items.resize(index + 1, Json::Null);
                }
                (items.get_mut(*index)?, existed)
            }
            _ => return None,
        };
        if !existed && fresh.is_none() {
            fresh = Some(depth);
        }
        node = child;
    }
    Some(match (value, node) {
        (ArgValue::Text(more), Json::String(held)) => {
            held.push_str(&more);
            Placed::Appended
        }
        (value, slot) => {
            *slot = match value {
                ArgValue::Text(text) => Json::String(text),
                ArgValue::Value(value) => value,
            };
            match fresh {
                Some(depth) if !replaced => Placed::New { depth },
                _ => Placed::Replaced,
            }
        }
    })
}

/// The steps of a JSON path: `$` then `.key`, `[index]`, `['key']` or `["key"]` (a path
/// without the `$.` is read as if it had it). `None` for anything else, and for a path that
/// does not start with a key (the arguments are an object).
fn parse_path(path: &str) -> Option<Vec<Segment>> {
    let mut rest = match path.strip_prefix('$') {
        Some(rest) => rest,
        None if !path.is_empty() && !path.starts_with(['.', '[']) => return parse_path(&format!("$.{path}")),
        None => return None,
    };
    let mut segments = Vec::new();
    while let Some(&first) = rest.as_bytes().first() {
        let body = rest.get(1..)?;
        match first {
            b'.' => {
                let end = body.bytes().position(|b| b == b'.' || b == b'[').unwrap_or(body.len());
                let key = body.get(..end).filter(|k| !k.is_empty())?;
                segments.push(Segment::Key(key.to_owned()));
                rest = body.get(end..)?;
            }
            b'[' => match body.as_bytes().first() {
                Some(&quote @ (b'\'' | b'"')) => {
                    let inner = body.get(1..)?;
                    let end = inner.bytes().position(|b| b == quote)?;
                    segments.push(Segment::Key(inner.get(..end)?.to_owned()));
                    rest = inner.get(end + 1..)?.strip_prefix(']')?;
                }
                _ => {
                    let end = body.bytes().position(|b| b == b']')?;
                    let digits = body.get(..end).filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?;
                    segments.push(Segment::Index(digits.parse().ok()?));
                    rest = body.get(end + 1..)?;
                }
            },
            _ => return None,
        }
    }
    matches!(segments.first(), Some(Segment::Key(_))).then_some(segments)
}
