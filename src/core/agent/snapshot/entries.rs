//! The snapshot's `history` and `messages`, in the shapes of `task.history` and
//! `task.messages`: written as they are given to JavaScript, read back with errors that
//! name the entry.

use crate::core::conversation::{self, ImageSource};
use crate::core::json::Json;

use super::super::message::{AskKind, Message, MessageKind, SayKind};
use super::reader::Reader;
use super::visit::Visit;
use super::writer::Writer;

/// `"history": […]`.
pub(super) fn write_history(w: &mut Writer, messages: &[conversation::Message]) {
    w.key("history");
    w.open('[');
    for message in messages {
        w.json_item(&message.to_json());
    }
    w.close(']');
}

/// `"messages": […]`: `{ ts, type, say | ask, text, images?, partial? }` each.
pub(super) fn write_messages(w: &mut Writer, messages: &[Message]) {
    w.key("messages");
    w.open('[');
    for message in messages {
        w.next();
        write_message(w, message);
    }
    w.close(']');
}

/// A transcript entry as JSON text, the object `say`, `ask`, `task.messages` and the
/// snapshot all give: the one writer of its shape.
pub fn transcript_entry(message: &Message) -> String {
    let mut w = Writer::with_capacity(message.text.len() + 64);
    write_message(&mut w, message);
    w.text
}

/// `{ ts, type, say | ask, text, images?, partial? }`.
fn write_message(w: &mut Writer, message: &Message) {
    w.open('{');
    let kind = match message.kind {
        MessageKind::Say(_) => "say",
        MessageKind::Ask(_) => "ask",
    };
    let (mut ts, partial) = (message.ts, message.partial);
    w.number("ts", &mut ts);
    w.string("type", kind);
    w.string(kind, message.kind_name());
    w.string("text", &message.text);
    if !message.images.is_empty() {
        let mut images = Vec::new();
        for image in &message.images {
            images.push(image.to_url_text());
        }
        w.strings("images", &mut images);
    }
    if let Some(partial) = partial {
        // NOTE: `false` too (the writer leaves a `false` flag out): a message that was
        // partial says so.
        w.raw("partial", if partial { "true" } else { "false" });
    }
    w.close('}');
}

/// History messages; the first error, if any, names the entry.
pub(super) fn read_history(items: &[Json], at: &str) -> Result<Vec<conversation::Message>, String> {
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(conversation::Message::from_json(item, &format!("{at}[{i}]"))?);
    }
    Ok(out)
}

/// Transcript messages, whose `ts` must rise strictly; with `restamp` (a transcript saved
/// elsewhere: Cline's can hold two messages of one millisecond) a `ts` that does not rise
/// becomes one more than the one before. Kinds clew does not know are kept as `Other` with
/// their name.
pub(super) fn read_messages(items: &[Json], at: &str, restamp: bool) -> Result<Vec<Message>, String> {
    let mut out: Vec<Message> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut r = Reader::new(item, &format!("{at}[{i}]"));
        let is_say = r.tag("type", &["say", "ask"], "say") == 0;
        let mut name = String::new();
        r.text(if is_say { "say" } else { "ask" }, &mut name);
        let (kind, other_kind) = match (is_say, SayKind::parse(&name), AskKind::parse(&name)) {
            (true, Some(kind), _) if kind != SayKind::Other => (MessageKind::Say(kind), None),
            (false, _, Some(kind)) if kind != AskKind::Other => (MessageKind::Ask(kind), None),
            (true, ..) => (MessageKind::Say(SayKind::Other), Some(name)),
            (false, ..) => (MessageKind::Ask(AskKind::Other), Some(name)),
        };
        let (mut ts, mut text, mut images, mut partial) = (0, None, Vec::new(), None);
        r.number("ts", &mut ts);
        r.optional_text("text", &mut text);
        r.strings("images", &mut images);
        if item.get("partial").is_some_and(|p| !p.is_null()) {
            let mut flag = false;
            r.flag("partial", &mut flag);
            partial = Some(flag);
        }
        if let Some(last) = out.last().map(|m| m.ts).filter(|&last| last >= ts) {
            if restamp {
                ts = last.saturating_add(1);
            } else {
                r.fail("ts", "must be greater than the one before");
            }
        }
        if let Some(error) = r.error {
            return Err(error);
        }
        let mut sources = Vec::new();
        for url in &images {
            sources.push(ImageSource::from_url_text(url));
        }
        out.push(Message { ts, kind, text: text.unwrap_or_default(), images: sources, partial, other_kind });
    }
    Ok(out)
}
