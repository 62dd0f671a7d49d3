//! `options.persist(changes, { reason })`: the machine asks for it ([`Effect::Persist`])
//! before each effect that starts a wait; the driver performs nothing else until the
//! application's promise settles, so an answer can never arrive for a state that was not
//! stored. A persist that throws or rejects ends the task `failed` (`CLEW_PERSIST_FAILED`):
//! going on would leave the stored task behind. Inside `abort()` it is called but not
//! awaited (abort returns first).
//!
//! The machine leaves out of the changes what the driver already made JS objects of
//! ([`TaskConfig::host_keeps_entries`](crate::core::agent::TaskConfig::host_keeps_entries)):
//! the history entries (the objects later requests are cloned from) and each message the
//! driver was handed in its current version (the objects given to `say` and `ask`, or
//! parsed by an earlier persist), which it names by its ts. The driver puts those objects
//! in (js/boundary.js `clew_persist`), frozen: nothing is converted twice, and what
//! `persist` keeps cannot change under it.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::super::js_call::{error_message, now, settle, spawn, swallow, tried};
use super::super::task_convert::message_to_js;
use super::Driver;
use crate::core::agent::{codes, Message};
use crate::core::conversation;

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// An empty store of messages by ts.
    pub(super) fn clew_kept() -> JsValue;
    /// Freezes `message` and keeps it in `kept`.
    fn clew_keep(kept: &JsValue, message: &JsValue);
    /// Calls `persist(changes, { reason, wakeAt })` with `changes` parsed from `text`, its
    /// history `history` and its messages from `kept` where it names them; gives
    /// `clew_try`'s `{ ok, value }`.
    fn clew_persist(
        persist: Option<js_sys::Function>,
        text: &str,
        history: Array,
        kept: &JsValue,
        reason: &str,
        wake_at: Option<f64>,
    ) -> JsValue;
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
    /// Hands `changes` (with the history entries from `history_from` on put in) to
    /// `options.persist` and holds every effect until it settles.
    pub(super) fn persist(self: &Rc<Self>, reason: &str, changes: &str, history_from: usize, wake: Option<u64>) {
        let history = match self.machine.try_borrow() {
            Ok(machine) => self.history_objects(machine.history(), history_from),
            Err(_) => Array::new(),
        };
        let persist = self.callback(|c| c.persist.clone());
        let called = persist.is_some();
        let epoch = self.persist.epoch.get();
        let result = tried(&clew_persist(persist, changes, history, &self.kept, reason, wake.map(|at| at as f64)));
        if !called {
            return;
        }
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

    /// The JS objects of `history`'s messages from `from` on.
    fn history_objects(&self, history: &[conversation::Message], from: usize) -> Array {
        let objects = Array::new();
        for (at, message) in history.iter().enumerate().skip(from) {
            objects.push(&self.history_object(at, message));
        }
        objects
    }

    /// The JS object of `message` for `say` and `ask`; with `persist`, frozen and kept: a
    /// later persist hands the same object on.
    pub(super) fn message_object(&self, message: &Message) -> JsValue {
        let object = message_to_js(message);
        if self.keeps_entries {
            clew_keep(&self.kept, &object);
        }
        object
    }

    /// Ends the task `failed`: the application could not store it.
    fn persist_failed(&self, error: &JsValue) {
        let message = format!("options.persist failed, so the task stopped: {}", error_message(error));
        if let Ok(mut machine) = self.machine.try_borrow_mut() {
            machine.fail(now(), codes::PERSIST_FAILED, &message);
        }
    }
}
