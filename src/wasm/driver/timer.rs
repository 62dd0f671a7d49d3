//! A task's one timer (the machine keeps a single wake-up time): `options.clock`'s when it
//! has timers, else the host's through js/boundary/alarm.js, which shares one host timer
//! between the tasks where the host's timers can be unref'd.

use std::rc::Rc;

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::super::js_call::{call, call_with, swallow};
use super::super::task_options::ClockTimers;
use super::Driver;

impl Driver {
    /// A timer that hands the machine its timeout at `at`: `options.clock`'s when it has
    /// timers, else the host's (js/boundary/alarm.js: one the tasks share where it can be).
    pub(super) fn timer_at(self: &Rc<Self>, at: u64) -> Option<Timer> {
        let delay = at.saturating_sub(self.now()).min(u32::MAX as u64) as u32;
        let me = Rc::clone(self);
        let fire = move || me.handle(|m, now| m.handle_timeout(now));
        let clock = self.callbacks.borrow().as_ref().and_then(|c| c.clock.as_ref().and_then(|(_, t)| t.clone()));
        let (set, clear) = clock.or_else(host_timers)?;
        // NOTE: `once`: no second closure shim in the wasm.
        let callback = Closure::once(fire);
        let handle = call_with(&set, &JsValue::UNDEFINED, callback.as_ref(), &JsValue::from(delay)).ok();
        Some(Timer { handle, clear, _callback: callback })
    }
}

#[wasm_bindgen(module = "/js/boundary/alarm.js")]
extern "C" {
    /// The host's timers as the tasks use them: `[set, cancel]`, called as `options.clock`'s
    /// `setTimeout` and `clearTimeout` are.
    fn clew_alarm() -> js_sys::Array;
}

thread_local! {
    /// The host's `set` and `cancel` (js/boundary/alarm.js), read once.
    static HOST_TIMERS: ClockTimers = {
        let timers = clew_alarm();
        (timers.get(0).unchecked_into(), timers.get(1).unchecked_into())
    };
}

/// The host's `set` and `cancel`.
fn host_timers() -> Option<ClockTimers> {
    HOST_TIMERS.try_with(Clone::clone).ok()
}

/// The one timer of a task (the machine keeps a single wake-up time): armed by a
/// `setTimeout` and cancelled by its `clearTimeout`, `options.clock`'s or the host's.
pub(super) struct Timer {
    handle: Option<JsValue>,
    clear: Function,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    /// Cancels the wake-up.
    pub(super) fn cancel(self) {
        if let Some(handle) = self.handle {
            let _ = call(&self.clear, &handle).map(|v| swallow(&v));
        }
    }
}
