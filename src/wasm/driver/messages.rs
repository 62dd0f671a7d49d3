//! The messages handed to `say` and `ask`, made in JS from their fields (no JSON to write and
//! parse: measured in BENCHMARKS.md, the first token). A partial message is updated many
//! times while it streams, each time with its whole text so far; its text is kept on both
//! sides, and a version whose text only grew crosses as what was added. A long reply's
//! partial updates then cost what they add instead of the text so far (measured in
//! BENCHMARKS.md: the reliability probe's 10 MB reply).

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::Driver;
use crate::core::agent::{Message, MessageKind};

#[wasm_bindgen(module = "/js/boundary/messages.js")]
extern "C" {
    /// `{ ts, type, say | ask, text, images?, partial? }` (`ask`: whether it is an ask; `name`:
    /// its kind; `partial`: 0 for none, 1 for `true`, 2 for `false`), its text kept in
    /// `kept`; when `grown`, `text` is what was added to the kept text.
    #[allow(clippy::too_many_arguments)]
    fn clew_message(
        ts: f64,
        ask: bool,
        name: &str,
        text: &str,
        grown: bool,
        partial: u8,
        images: Option<Array>,
        kept: &Object,
    ) -> JsValue;
}

/// The partial message last handed out: its time stamp and its text, also kept in JS.
#[derive(Default)]
pub(super) struct Said {
    last: Option<(u64, String)>,
    kept: Object,
}

/// `message` as the object `say` and `ask` get; `added`, when its text is the kept one
/// followed by it.
fn message_to_js(message: &Message, kept: &Object, added: Option<&str>) -> JsValue {
    let images = (!message.images.is_empty()).then(|| {
        let images = Array::new();
        for image in &message.images {
            images.push(&JsValue::from(image.to_url_text()));
        }
        images
    });
    let partial = match message.partial {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    };
    let ask = matches!(message.kind, MessageKind::Ask(_));
    let (text, grown) = added.map_or((message.text.as_str(), false), |added| (added, true));
    clew_message(message.ts as f64, ask, message.kind_name(), text, grown, partial, images, kept)
}

impl Driver {
    /// `message` as the object `say` and `ask` get.
    pub(super) fn message_js(&self, message: Message) -> JsValue {
        // NOTE: never borrowed twice (nothing here calls the user's code); were it, the
        // message crosses whole.
        let Ok(mut said) = self.said.try_borrow_mut() else {
            return message_to_js(&message, &Object::new(), None);
        };
        let grown = said
            .last
            .as_ref()
            .filter(|(ts, text)| *ts == message.ts && message.text.starts_with(text.as_str()))
            .and_then(|(_, text)| message.text.get(text.len()..));
        let value = message_to_js(&message, &said.kept, grown);
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
