//! `options.persist(snapshot, { reason })`: at every waiting point the driver hands the
//! snapshot's changes to the application and waits for it before the effect that starts the
//! wait goes out (the ask, the tool, the hook, the checkpoint, the retry delay's timer, the
//! next request after a round entered the history, the outcome). An answer can therefore
//! never arrive for a state that was not stored. A persist that throws or rejects ends the
//! task `failed` (`CLEW_PERSIST_FAILED`): going on would leave the stored task behind.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use super::super::js_call::{call_with, error_message, now, settle, spawn, swallow};
use super::Driver;
use crate::core::agent::{codes, Effect, HookKind};

/// Where persisting stands.
#[derive(Default)]
pub(in crate::wasm) struct PersistState {
    /// The effect waiting for a persist to settle.
    held: RefCell<Option<Effect>>,
    /// A persist is in flight: effects wait.
    waiting: Cell<bool>,
    /// Events since the last persist (none: the stored snapshot is current).
    dirty: Cell<bool>,
    /// History length at the last persist, to persist after a round entered the history.
    history: Cell<usize>,
    /// Bumped by abort: a persist that settles afterwards is ignored.
    epoch: Cell<u64>,
    /// Inside abort: the outcome's persist is not awaited (abort returns first).
    aborting: Cell<bool>,
}

impl PersistState {
    /// An event reached the machine: the stored snapshot is no longer current.
    pub(in crate::wasm) fn changed(&self) {
        self.dirty.set(true);
    }

    /// Whether effects wait for a persist.
    pub(in crate::wasm) fn is_waiting(&self) -> bool {
        self.waiting.get()
    }

    /// Abort began: the held effect is dropped and what the abort produces goes out now.
    pub(in crate::wasm) fn interrupt(&self) {
        self.aborting.set(true);
        if matches!(*self.held.borrow(), Some(Effect::Finished(_))) {
            // NOTE: the task already ended; its outcome goes out once its persist settles.
            return;
        }
        self.epoch.set(self.epoch.get() + 1);
        self.waiting.set(false);
        self.held.borrow_mut().take();
        self.dirty.set(true);
    }

    /// Abort ended.
    pub(in crate::wasm) fn interrupted(&self) {
        self.aborting.set(false);
    }
}

impl Driver {
    /// Why `effect` starts a wait that must be stored first, if it does.
    fn persist_reason(&self, effect: &Effect) -> Option<&'static str> {
        Some(match effect {
            Effect::Ask(message) if !message.is_partial() => "ask",
            Effect::RunTool { .. } => "tool",
            Effect::RunHook { kind, .. } if *kind != HookKind::TaskCancel => "hook",
            Effect::SaveCheckpoint { .. } => "checkpoint",
            Effect::WakeAt(Some(_)) if self.machine.try_borrow().is_ok_and(|m| m.state() == "retryDelay") => {
                "retryDelay"
            }
            Effect::OpenStream { .. }
                if self.machine.try_borrow().is_ok_and(|m| m.history().len() != self.persist.history.get()) =>
            {
                "round"
            }
            Effect::Finished(_) => "finished",
            _ => return None,
        })
    }

    /// Persists before `effect` when it starts a wait: returns the effect to perform now, or
    /// `None` when it waits for the persist (or was dropped because persisting failed).
    pub(super) fn persist_before(self: &Rc<Self>, effect: Effect) -> Option<Effect> {
        let Some(persist) = self.callback(|c| c.persist.clone()) else { return Some(effect) };
        let Some(reason) = self.persist_reason(&effect) else { return Some(effect) };
        if !self.persist.dirty.get() && !matches!(effect, Effect::Finished(_)) {
            return Some(effect);
        }
        let changes = match self.machine.try_borrow_mut() {
            Ok(mut machine) => {
                self.persist.history.set(machine.history().len());
                machine.snapshot_changes()
            }
            Err(_) => return Some(effect),
        };
        self.persist.dirty.set(false);
        let snapshot = js_sys::JSON::parse(&changes).unwrap_or(JsValue::NULL);
        let info = Object::new();
        let _ = Reflect::set(&info, &"reason".into(), &reason.into());
        let epoch = self.persist.epoch.get();
        let result = call_with(&persist, &JsValue::UNDEFINED, &snapshot, &info);
        if self.persist.aborting.get() || self.persist.epoch.get() != epoch {
            // NOTE: inside abort nothing is awaited; an abort from inside persist dropped the wait.
            if let Ok(value) = &result {
                swallow(value);
            }
            return matches!(effect, Effect::Finished(_)).then_some(effect);
        }
        self.persist.waiting.set(true);
        *self.persist.held.borrow_mut() = Some(effect);
        let me = Rc::clone(self);
        spawn(Box::pin(async move {
            let settled = settle(result).await;
            me.persisted(epoch, settled.map(|_| ()).map_err(|e| error_message(&e)));
        }));
        None
    }

    /// A persist settled: the held effect goes out, or the task fails.
    fn persisted(self: &Rc<Self>, epoch: u64, result: Result<(), String>) {
        if self.persist.epoch.get() != epoch {
            return;
        }
        self.persist.waiting.set(false);
        let Some(effect) = self.persist.held.borrow_mut().take() else { return };
        match (result, effect) {
            (Ok(()), effect) | (Err(_), effect @ Effect::Finished(_)) => {
                let outer = self.pumping.replace(true);
                self.perform(effect);
                self.pumping.set(outer);
            }
            (Err(message), _) => {
                if let Ok(mut machine) = self.machine.try_borrow_mut() {
                    let message = format!("options.persist failed, so the task stopped: {message}");
                    machine.fail(now(), codes::PERSIST_FAILED, &message);
                }
                self.persist.dirty.set(true);
            }
        }
        self.drive();
    }
}
