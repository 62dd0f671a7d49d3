//! The driver's model streams: opening one (the user's `request`, the user's `fetch` or the
//! global one), reading the response, and handing its bytes, end or failure to the machine.

use std::rc::Rc;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

use super::super::inbox::{room_of, INBOX_BYTES};
use super::super::js_call::{
    abort_controller, call_with, clew_abort, clew_context, clew_kind, clew_pump, error_message, settle, spawn,
    time_or_now, Push, NO_ABORT_CONTROLLER, STREAM,
};
use super::super::json_js::{json_text, to_js};
use super::super::stream::{open_response, Opened, USED};
use super::Driver;
use crate::core::request::{build_request, ModelRequest};
use crate::core::stream::{Format, StreamError};

#[wasm_bindgen(module = "/js/boundary/request.js")]
extern "C" {
    /// `request` (with no messages) with `messages` as its messages, each of them whose index
    /// `shared` lists replaced by a structured clone.
    fn clew_request(request: &JsValue, messages: &Array, shared: &Array) -> JsValue;

    /// A history message new to a request, parsed from its JSON `text` twice: one kept in the
    /// request cache at `at`, the other returned for the request.
    fn clew_fresh(cache: &Array, at: u32, text: &str) -> JsValue;

    /// Empties the request cache of a finished task.
    pub(super) fn clew_forget(cache: &Array);
}

impl Driver {
    pub(super) fn open_stream(
        self: &Rc<Self>,
        stream: u64,
        mut request: ModelRequest,
        format: Format,
        unchanged: &[Option<usize>],
    ) {
        let Some(controller) = abort_controller() else {
            let message = NO_ABORT_CONTROLLER.to_owned();
            return self.stream_failed(stream, StreamError::Network { message });
        };
        if let Some((_, old)) = self.stream.replace(Some((stream, controller.clone()))) {
            clew_abort(&old);
        }
        request.model = self.model.clone();
        let (custom, fetch) = (self.callback(|c| c.request.clone()), self.callback(|c| c.fetch.clone()));
        let me = Rc::clone(self);
        let unchanged = unchanged.to_vec();
        spawn(Box::pin(async move {
            let init = clew_context(&controller, None);
            let opened = match custom {
                Some(custom) => {
                    let req = me.request_to_js(request, &unchanged);
                    call_with(&custom, &JsValue::UNDEFINED, &req, &init)
                }
                None => {
                    let http = build_request(format, &request);
                    let headers = Object::new();
                    for (name, value) in http.headers.iter() {
                        let _ = Reflect::set(&headers, &JsValue::from_str(name), &JsValue::from_str(value));
                    }
                    let _ = Reflect::set(&init, &"method".into(), &http.method.into());
                    let _ = Reflect::set(&init, &"headers".into(), &headers);
                    let _ = Reflect::set(&init, &"body".into(), &http.body.into());
                    let fetch =
                        fetch.or_else(|| Reflect::get(&js_sys::global(), &"fetch".into()).ok()?.dyn_into().ok());
                    match fetch {
                        Some(fetch) => call_with(&fetch, &JsValue::UNDEFINED, &http.url.into(), &init),
                        None => Err(JsValue::from_str("no fetch function in this runtime")),
                    }
                }
            };
            me.read_response(stream, settle(opened).await, &controller).await;
        }));
    }

    async fn read_response(
        self: &Rc<Self>,
        stream: u64,
        opened: Result<JsValue, JsValue>,
        controller: &AbortController,
    ) {
        let response = match opened {
            Ok(response) => response,
            Err(error) => return self.stream_failed(stream, StreamError::Network { message: error_message(&error) }),
        };
        if !response.is_object() {
            let message = "model.request returned neither a Response nor a ReadableStream".to_owned();
            return self.stream_failed(stream, StreamError::Network { message });
        }
        // NOTE: `model.request` may return the body stream itself.
        let body = if clew_kind(&response) == STREAM {
            response
        } else {
            match open_response(&response).await {
                Opened::Body(body) => body,
                Opened::Failed(error) => return self.stream_failed(stream, error),
                Opened::NotAResponse => {
                    let message = "model.request returned neither a Response nor a ReadableStream".to_owned();
                    return self.stream_failed(stream, StreamError::Network { message });
                }
                Opened::Used => return self.stream_failed(stream, StreamError::Network { message: USED.to_owned() }),
            }
        };
        let me = Rc::clone(self);
        // NOTE: the read loop writes each read into `inbox` itself when it fits: one crossing
        // per read (measured in BENCHMARKS.md). A read that does not fit (or is text) is
        // copied into `spill`, which becomes the inbox when it is the larger.
        let mut inbox = vec![0; INBOX_BYTES];
        let mut spill = Vec::new();
        let first = room_of(&inbox);
        // A chunk that is neither bytes nor text fails the stream with a message saying so.
        let push = Closure::<Push>::new(move |length: i32, value: JsValue, time: f64| {
            let bytes = match usize::try_from(length) {
                Ok(length) => inbox.get(..length).unwrap_or_default(),
                Err(_) => match super::super::args::bytes_or_text(&value, "a model stream chunk", &mut spill) {
                    Ok(()) => &spill,
                    Err(error) => {
                        let message = error_message(&error);
                        me.stream_failed(stream, StreamError::Network { message });
                        return -1.0;
                    }
                },
            };
            me.handle_at(time_or_now(time), |m, now| m.handle_stream_bytes(now, stream, bytes));
            if spill.len() > inbox.len() {
                std::mem::swap(&mut inbox, &mut spill);
            }
            if me.is_current(stream) {
                room_of(&inbox)
            } else {
                -1.0
            }
        });
        let clock =
            self.callbacks.borrow().as_ref().and_then(|c| c.clock.as_ref().map(|(now, _)| JsValue::from(&**now)));
        let clock = clock.unwrap_or(JsValue::UNDEFINED);
        let result = clew_pump(&body, &push, controller, &wasm_bindgen::memory(), &clock, first).await;
        if !self.is_current(stream) {
            return;
        }
        match result {
            Ok(_) => {
                self.stream.borrow_mut().take();
                self.handle(|m, now| m.handle_stream_end(now, stream));
            }
            Err(error) => self.stream_failed(stream, StreamError::Network { message: error_message(&error) }),
        }
    }

    /// The request as a JS object for `model.request`. Each history message is converted
    /// once, the object kept for the next requests (`unchanged` says which message is which
    /// history message); a request gets a structured clone of the kept objects it sends, so
    /// that a `model.request` that changes its request cannot change the next one, and a
    /// message new to it parsed twice from its JSON, once for it and once to keep (a request
    /// with nothing kept clones nothing: a structured clone's fixed cost is most of its way
    /// out). The task's first request, with nothing kept (a persist keeps what it sent),
    /// keeps nothing: it crosses as one JSON text, and the next request keeps its messages
    /// (measured in BENCHMARKS.md: the first token). Measured in BENCHMARKS.md: a round's
    /// cost grows with the history more slowly than a `JSON.stringify` of the request.
    fn request_to_js(&self, mut request: ModelRequest, unchanged: &[Option<usize>]) -> JsValue {
        if !self.requested.replace(true) && self.request_cache.length() == 0 {
            return to_js(&request.to_json());
        }
        let messages = std::mem::take(&mut request.messages);
        let objects = Array::new_with_length(messages.len() as u32);
        let shared = Array::new();
        let cache = &self.request_cache;
        for (i, message) in messages.iter().enumerate() {
            let at = unchanged.get(i).copied().flatten().and_then(|at| u32::try_from(at).ok());
            let kept = at.map(|at| cache.get(at)).filter(JsValue::is_object);
            let object = match (kept, at) {
                (Some(object), _) => {
                    shared.push(&JsValue::from(i as u32));
                    object
                }
                (None, Some(at)) => clew_fresh(cache, at, &json_text(&message.to_json())),
                (None, None) => to_js(&message.to_json()),
            };
            objects.set(i as u32, object);
        }
        clew_request(&to_js(&request.to_json()), &objects, &shared)
    }

    fn is_current(&self, stream: u64) -> bool {
        self.stream.borrow().as_ref().is_some_and(|(id, _)| *id == stream)
    }

    fn stream_failed(self: &Rc<Self>, stream: u64, error: StreamError) {
        if self.is_current(stream) {
            self.stream.borrow_mut().take();
        }
        self.handle(|m, now| m.handle_stream_failed(now, stream, &error));
    }
}
