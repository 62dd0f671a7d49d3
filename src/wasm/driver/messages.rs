//! The messages handed to `say` and `ask`. A partial message is updated many times while it
//! streams, each time with its whole text so far; its text is kept on both sides, and a
//! version whose text only grew crosses as what was added. A long reply's partial updates
//! then cost what they add instead of the text so far (measured in BENCHMARKS.md: the
//! reliability probe's 10 MB reply).

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::Driver;
use crate::core::agent::{transcript_entry, transcript_entry_with_text, Message};

#[wasm_bindgen(module = "/js/boundary/messages.js")]
extern "C" {
    /// The message parsed from its entry's JSON, its text kept in `kept`; with `added`, the
    /// entry was written with `""` for its text, which is the kept one followed by `added`.
    fn clew_message(json: &str, kept: &Object, added: Option<&str>) -> JsValue;
}

/// The partial message last handed out: its time stamp and its text, also kept in JS.
#[derive(Default)]
pub(super) struct Said {
    last: Option<(u64, String)>,
    kept: Object,
}

impl Driver {
    /// `message` as the object `say` and `ask` get.
    pub(super) fn message_js(&self, message: Message) -> JsValue {
        // NOTE: never borrowed twice (nothing here calls the user's code); were it, the
        // message crosses whole.
        let Ok(mut said) = self.said.try_borrow_mut() else {
            return clew_message(&transcript_entry(&message), &Object::new(), None);
        };
        let grown = said
            .last
            .as_ref()
            .filter(|(ts, text)| *ts == message.ts && message.text.starts_with(text.as_str()))
            .and_then(|(_, text)| message.text.get(text.len()..));
        let json = match grown {
            Some(_) => transcript_entry_with_text(&message, ""),
            None => transcript_entry(&message),
        };
        let value = clew_message(&json, &said.kept, grown);
        said.last = message.is_partial().then_some((message.ts, message.text));
        value
    }

    /// Lets go of the text of the partial message last handed out.
    pub(super) fn forget_said(&self) {
        if let Ok(mut said) = self.said.try_borrow_mut() {
            said.last = None;
        }
    }
}
