//! `options.persist(changes, { reason })`: the machine asks for it ([`Effect::Persist`])
//! before each effect that starts a wait; the driver performs nothing else until the
//! application's promise settles, so an answer can never arrive for a state that was not
//! stored. A persist that throws or rejects ends the task `failed` (`CLEW_PERSIST_FAILED`):
//! going on would leave the stored task behind. Inside `abort()` it is called but not
//! awaited (abort returns first).

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::super::js_call::{clew_tried, error_message, settle, spawn, swallow};
use super::Driver;
use crate::core::agent::codes;

#[wasm_bindgen(module = "/js/boundary/calls.js")]
extern "C" {
    /// Calls `persist(changes, { reason, wakeAt? })` as `clew_try` does (what it returned
    /// or threw comes through `clew_tried`): `changes` parsed, and its history entries frozen
    /// and kept in the request `cache` (by history index, through js/boundary/request.js).
    fn clew_persist(persist: &Function, changes: &str, cache: &Array, reason: &str, wake_at: Option<f64>) -> bool;
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
    /// Hands `changes` (the machine's JSON text, whole) to `options.persist` and holds every
    /// effect until it settles. The history entries are kept for the requests to come
    /// (model_stream.rs), so that each crosses into JavaScript once.
    pub(super) fn persist(self: &Rc<Self>, reason: &str, changes: &str, wake: Option<u64>) {
        let Some(persist) = self.callback(|c| c.persist.clone()) else { return };
        let epoch = self.persist.epoch.get();
        let returned = clew_persist(&persist, changes, &self.request_cache, reason, wake.map(|at| at as f64));
        let value = clew_tried();
        let result = if returned { Ok(value) } else { Err(value) };
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

    /// Ends the task `failed`: the application could not store it.
    fn persist_failed(&self, error: &JsValue) {
        let message = format!("options.persist failed, so the task stopped: {}", error_message(error));
        let now = self.now();
        if let Ok(mut machine) = self.machine.try_borrow_mut() {
            machine.fail(now, codes::PERSIST_FAILED, &message);
        }
    }
}
