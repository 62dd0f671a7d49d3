//! `options.persist(changes, { reason })`: the machine asks for it ([`Effect::Persist`])
//! before each effect that starts a wait; the driver performs nothing else until the
//! application's promise settles, so an answer can never arrive for a state that was not
//! stored. A persist that throws or rejects ends the task `failed` (`CLEW_PERSIST_FAILED`):
//! going on would leave the stored task behind. Inside `abort()` it is called but not
//! awaited (abort returns first).
//!
//! The changes' history entries are the JS objects the driver keeps for requests
//! (`Driver::history_js`), made once for both and frozen: what `persist` keeps is what later
//! requests are cloned from.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::super::js_call::{error_message, now, settle, spawn, swallow, tried};
use super::Driver;
use crate::core::agent::{codes, SnapshotChanges};
use crate::core::conversation::Message;

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// Calls `persist(changes, { reason, wakeAt })` with `changes` parsed from `text` and
    /// `history` (frozen) as its history; gives `clew_try`'s `{ ok, value }`.
    fn clew_persist(persist: &Function, text: &str, history: &Array, reason: &str, wake_at: Option<f64>) -> JsValue;
}

/// Where persisting stands.
#[derive(Default)]
pub(in crate::wasm) struct PersistState {
    /// A persist is in flight: effects wait.
    waiting: Cell<bool>,
    /// Bumped by abort: a persist that settles afterwards is ignored.
    epoch: Cell<u64>,
    /// Inside abort: persists are not awaited.
    aborting: Cell<bool>,
}

impl PersistState {
    /// Whether effects wait for a persist.
    pub(in crate::wasm) fn is_waiting(&self) -> bool {
        self.waiting.get()
    }

    /// Abort began: what it produces goes out now, without waiting for any persist.
    pub(in crate::wasm) fn interrupt(&self) {
        self.epoch.set(self.epoch.get() + 1);
        self.waiting.set(false);
        self.aborting.set(true);
    }

    /// Abort ended.
    pub(in crate::wasm) fn interrupted(&self) {
        self.aborting.set(false);
    }
}

impl Driver {
    /// Hands `changes` to `options.persist` and holds every effect until it settles.
    pub(super) fn persist(self: &Rc<Self>, reason: &str, changes: &SnapshotChanges, wake: Option<u64>) {
        let Some(persist) = self.callback(|c| c.persist.clone()) else { return };
        let history = match self.machine.try_borrow() {
            Ok(machine) => self.history_objects(machine.history(), changes.history_from),
            Err(_) => Array::new(),
        };
        let epoch = self.persist.epoch.get();
        let result = tried(&clew_persist(&persist, &changes.text, &history, reason, wake.map(|at| at as f64)));
        if self.persist.aborting.get() || self.persist.epoch.get() != epoch {
            // NOTE: inside abort nothing is awaited; an abort from inside persist ended the wait.
            if let Ok(value) = &result {
                swallow(value);
            }
            return;
        }
        match &result {
            // NOTE: a persist that stored synchronously (it returned no object, so no promise)
            // is done: the loop goes on without a trip through the microtask queue.
            Ok(value) if !(value.is_object() || value.is_function()) => return,
            Err(error) => return self.persist_failed(error),
            Ok(_) => {}
        }
        self.persist.waiting.set(true);
        let me = Rc::clone(self);
        spawn(Box::pin(async move {
            let settled = settle(result).await;
            if me.persist.epoch.get() != epoch {
                return;
            }
            me.persist.waiting.set(false);
            if let Err(error) = settled {
                me.persist_failed(&error);
            }
            me.drive();
        }));
    }

    /// The JS objects of `history`'s messages from `from` on: those already made for a
    /// request, and the others made now (one `JSON.parse` for all) and kept for requests.
    fn history_objects(&self, history: &[Message], from: usize) -> Array {
        let mut cache = self.history_js.borrow_mut();
        if cache.len() < history.len() {
            cache.resize(history.len(), JsValue::UNDEFINED);
        }
        let missing: Vec<usize> =
            (from..history.len()).filter(|&i| cache.get(i).is_some_and(|o| !o.is_object())).collect();
        if !missing.is_empty() {
            let mut text = String::from("[");
            for (k, message) in missing.iter().filter_map(|&i| history.get(i)).enumerate() {
                if k > 0 {
                    text.push(',');
                }
                message.to_json().write(&mut text);
            }
            text.push(']');
            let made = Array::from(&js_sys::JSON::parse(&text).unwrap_or_else(|_| Array::new().into()));
            for (k, &i) in missing.iter().enumerate() {
                if let Some(slot) = cache.get_mut(i) {
                    *slot = made.get(k as u32);
                }
            }
        }
        cache.get(from..history.len()).unwrap_or_default().iter().collect()
    }

    /// Ends the task `failed`: the application could not store it.
    fn persist_failed(&self, error: &JsValue) {
        let message = format!("options.persist failed, so the task stopped: {}", error_message(error));
        if let Ok(mut machine) = self.machine.try_borrow_mut() {
            machine.fail(now(), codes::PERSIST_FAILED, &message);
        }
    }
}
