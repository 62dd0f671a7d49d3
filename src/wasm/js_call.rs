//! Calling into user JavaScript from the driver without crossing exceptions into wasm: the
//! read loop, guarded calls, promise settling, and error messages.

use std::future::Future;
use std::pin::Pin;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::AbortController;

use super::task_convert::get;

#[wasm_bindgen(module = "/js/boundary/pump.js")]
extern "C" {
    /// Reads `stream` to its end, handing each read to `push` synchronously (see [`Push`]):
    /// the bytes written into `push`'s inbox in `memory` (first at `inbox`, then where `push`
    /// answers) when they fit, else the value itself, with the task's time (`clock`, a
    /// function, or undefined for the host's).
    /// Stops (and cancels the stream) when `push` answers -1. Cancels the stream the moment
    /// `controller` aborts through [`clew_abort`].
    #[wasm_bindgen(catch)]
    pub(super) async fn clew_pump(
        stream: &JsValue,
        push: &Closure<Push>,
        controller: &AbortController,
        memory: &JsValue,
        clock: &JsValue,
        inbox: f64,
    ) -> Result<JsValue, JsValue>;

    /// Aborts a stream's `controller`, then cancels the read loop reading with it.
    pub(super) fn clew_abort(controller: &AbortController);
}

#[wasm_bindgen(module = "/js/boundary/calls.js")]
extern "C" {
    /// Calls `f` with `self` and two arguments: whether it returned rather than threw.
    fn clew_try(f: &Function, this: &JsValue, a: &JsValue, b: &JsValue) -> bool;

    /// What the last [`clew_try`] returned or threw.
    pub(super) fn clew_tried() -> JsValue;

    /// `{ signal, taskId? }` for a user's function, `signal` (`controller`'s) made only when
    /// read.
    pub(super) fn clew_context(controller: &AbortController, task_id: Option<&str>) -> js_sys::Object;

    /// `now()` when it returns a number; NaN when it returns anything else or throws (one
    /// crossing: the driver reads the task's clock for every input it handles).
    pub(super) fn clew_time(now: &Function) -> f64;

    /// What `value` is: [`THENABLE`], [`STREAM`], or 0 for anything else.
    pub(super) fn clew_kind(value: &JsValue) -> u8;
}

/// [`clew_kind`] of a promise or another thenable.
pub(super) const THENABLE: u8 = 1;
/// [`clew_kind`] of an object with a `getReader` method.
pub(super) const STREAM: u8 = 2;

/// The read loop's callback: `(length, value, now)`, where `length` bytes were written at the
/// inbox it last answered with (or, at -1, `value` is the read itself) and `now` is the
/// task's time (NaN: the host's). It answers -1 to stop reading, else its inbox: `room *
/// 2^32 + address`.
pub(super) type Push = dyn FnMut(i32, JsValue, f64) -> f64;

/// Runs `future` on the JS microtask queue. Boxed, so that one copy of the task machinery
/// serves every caller (each future type would otherwise get its own).
pub(super) fn spawn(future: Pin<Box<dyn Future<Output = ()>>>) {
    spawn_local(future);
}

/// The current time in milliseconds.
pub(super) fn now() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}

/// A time the JS side read (NaN when the task's clock gave none): the host's instead.
pub(super) fn time_or_now(time: f64) -> u64 {
    if time.is_finite() {
        time.max(0.0) as u64
    } else {
        now()
    }
}

/// Calls a user's function. A throw comes back as `Err`.
///
/// NOTE: the exception is caught in JS (`clew_try`) rather than by a `catch` import: every
/// exception that crosses into wasm costs a slot of the externref table (measured: about one
/// slot leaked per throwing tool call).
pub(super) fn call_with(function: &Function, this: &JsValue, a: &JsValue, b: &JsValue) -> Result<JsValue, JsValue> {
    let returned = clew_try(function, this, a, b);
    let value = clew_tried();
    if returned {
        Ok(value)
    } else {
        Err(value)
    }
}

/// Calls a user's function with one argument. A throw comes back as `Err`.
pub(super) fn call(function: &Function, arg: &JsValue) -> Result<JsValue, JsValue> {
    call_with(function, &JsValue::UNDEFINED, arg, &JsValue::UNDEFINED)
}

/// Awaits `value` if it is a promise (or thenable); returns it as it is otherwise.
pub(super) async fn settle(value: Result<JsValue, JsValue>) -> Result<JsValue, JsValue> {
    let value = value?;
    if clew_kind(&value) == THENABLE {
        JsFuture::from(Promise::resolve(&value)).await
    } else {
        Ok(value)
    }
}

/// The message of a thrown value.
pub(super) fn error_message(error: &JsValue) -> String {
    get(error, "message").as_string().or_else(|| error.as_string()).unwrap_or_else(|| "unknown error".into())
}

/// Why a stream or a tool fails in a runtime without `AbortController` (the task cannot
/// cancel them): it fails at once instead of waiting forever.
pub(super) const NO_ABORT_CONTROLLER: &str = "this JavaScript runtime has no AbortController";

/// A new `AbortController` (none only where the runtime has none).
pub(super) fn abort_controller() -> Option<AbortController> {
    AbortController::new().ok()
}

/// Attaches a no-op rejection handler to a promise whose result is ignored, so that its
/// failure is not an unhandled rejection.
pub(super) fn swallow(value: &JsValue) {
    thread_local! {
        // NOTE: one handler for the whole instance, created on first use and never freed.
        static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
    }
    if let Some(promise) = value.dyn_ref::<Promise>() {
        // NOTE: `try_with`, here and for the other thread-locals: `with` brings the panic
        // message of a thread-local read during its destruction (which a wasm instance,
        // having one thread that never ends, cannot reach), about 300 B of formatting code.
        let _ = IGNORE.try_with(|ignore| {
            let _ = promise.catch(ignore);
        });
    }
}
