//! The Task's driver: performs the machine's effects with the user's callbacks and feeds
//! the results back as events. It holds no loop logic.
//!
//! Every callback call is guarded: a throw or a rejection becomes an event (a failed tool,
//! a failed stream, a declined ask), never a crash. The machine is borrowed only for one
//! call at a time, never across an `.await` or a user callback, so a callback may call
//! `abort()` (or read the task's getters) safely.

mod context;
mod messages;
mod model_stream;
mod persist;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

use super::js_call::{
    abort_controller, call, call_with, clew_abort, clew_context, clew_time, error_message, now, settle, spawn, swallow,
    NO_ABORT_CONTROLLER,
};
use super::task_convert::{answer_from_js, hook_from_js, outcome_to_js, params_to_js, tool_output_from_js};
use super::task_options::{Callbacks, ClockTimers};
use crate::core::agent::{
    texts, AskAnswer, AskResponse, CheckpointKind, Effect, HookKind, Task as Machine, ToolOutput, ACCESS_MCP_RESOURCE,
    USE_MCP_TOOL,
};
use crate::core::json::Json;
use crate::core::request::ModelSettings;
use model_stream::clew_forget;

/// One task's machine, callbacks and in-flight work.
pub(super) struct Driver {
    pub(super) machine: RefCell<Machine>,
    pub(super) callbacks: RefCell<Option<Callbacks>>,
    pub(super) model: ModelSettings,
    pub(super) task_id: String,
    stream: RefCell<Option<(u64, AbortController)>>,
    tools: RefCell<Vec<(u64, AbortController)>>,
    timer: RefCell<Option<Timer>>,
    pub(super) resolve: RefCell<Option<Function>>,
    pumping: Cell<bool>,
    /// The request cache: each history message as a JS object once it crossed, written only
    /// by js/boundary/request.js (model_stream.rs, persist.rs).
    request_cache: js_sys::Array,
    /// Whether a request was made with `model.request` (model_stream.rs).
    requested: Cell<bool>,
    /// Snapshots handed to `options.persist` (persist.rs).
    persist: persist::PersistState,
    /// The partial message last handed to `say` or `ask` (messages.rs).
    said: RefCell<messages::Said>,
}

impl Driver {
    pub(super) fn new(machine: Machine, callbacks: Callbacks, model: ModelSettings, task_id: String) -> Rc<Self> {
        Rc::new(Self {
            machine: RefCell::new(machine),
            callbacks: RefCell::new(Some(callbacks)),
            model,
            task_id,
            stream: RefCell::new(None),
            tools: RefCell::new(Vec::new()),
            timer: RefCell::new(None),
            resolve: RefCell::new(None),
            pumping: Cell::new(false),
            request_cache: js_sys::Array::new(),
            requested: Cell::new(false),
            persist: persist::PersistState::default(),
            said: RefCell::default(),
        })
    }

    /// Lets the machine ask the tools' `describe(params)` for the subject of their result
    /// headers. The machine calls it synchronously; a throw or a value that is not a string
    /// leaves the default header.
    pub(super) fn install_describer(self: &Rc<Self>) {
        let driver = Rc::downgrade(self);
        let describe = move |name: &str, params: &[(String, String)]| -> Option<String> {
            let driver = driver.upgrade()?;
            let describe =
                driver.callback(|c| c.tools.iter().find(|(n, ..)| n == name).and_then(|(.., d)| d.clone()))?;
            call(&describe, &params_to_js(params)).ok()?.as_string()
        };
        if let Ok(mut machine) = self.machine.try_borrow_mut() {
            machine.set_describer(Rc::new(describe));
        }
    }

    /// The task's time (see [`task_time`]).
    // NOTE: not inlined into each of `handle`'s many instances.
    #[inline(never)]
    pub(super) fn now(&self) -> u64 {
        let clock = self.callbacks.borrow().as_ref().and_then(|c| c.clock.as_ref().map(|(now, _)| Rc::clone(now)));
        task_time(clock.as_deref())
    }

    /// Runs `event` on the machine, then performs the effects it produced.
    pub(super) fn handle(self: &Rc<Self>, event: impl FnOnce(&mut Machine, u64)) {
        self.handle_at(self.now(), event);
    }

    /// [`handle`](Self::handle) at a time already read.
    pub(super) fn handle_at(self: &Rc<Self>, now: u64, event: impl FnOnce(&mut Machine, u64)) {
        if let Ok(mut machine) = self.machine.try_borrow_mut() {
            event(&mut machine, now);
        }
        self.drive();
    }

    /// Aborts the task and performs everything the abort produces (the final versions of
    /// partial messages, the cancel hook, cancelling the stream and tools, the outcome) before
    /// it returns, even from inside a callback: the machine dropped every effect queued
    /// before, so the loop that called that callback finds nothing left, and no callback of
    /// the task runs after `abort()` returns.
    pub(super) fn abort(self: &Rc<Self>, reason: &str) {
        self.stop(|machine, now| machine.abort(now, reason));
    }

    /// Ends the task `failed` with the host's `code` and `message`: the same steps as
    /// [`abort`](Self::abort).
    pub(super) fn fail(self: &Rc<Self>, code: &str, message: &str) {
        self.stop(|machine, now| machine.fail(now, code, message));
    }

    fn stop(self: &Rc<Self>, end: impl FnOnce(&mut Machine, u64)) {
        let now = self.now();
        if let Ok(mut machine) = self.machine.try_borrow_mut() {
            end(&mut machine, now);
        }
        self.persist.interrupt();
        let outer = self.pumping.replace(false);
        self.drive();
        self.pumping.set(outer);
        self.persist.interrupted();
    }

    /// Performs pending effects until there are none. Re-entrant calls (a callback that
    /// hands in an event) leave the work to the outer loop.
    pub(super) fn drive(self: &Rc<Self>) {
        if self.pumping.replace(true) {
            return;
        }
        loop {
            if self.persist.is_waiting() {
                break;
            }
            let effect = match self.machine.try_borrow_mut() {
                Ok(mut machine) => machine.poll_effect(),
                Err(_) => None,
            };
            let Some(effect) = effect else { break };
            self.perform(effect);
        }
        self.pumping.set(false);
    }

    fn callback(&self, pick: impl FnOnce(&Callbacks) -> Option<Function>) -> Option<Function> {
        self.callbacks.borrow().as_ref().and_then(pick)
    }

    fn perform(self: &Rc<Self>, effect: Effect) {
        match effect {
            Effect::Persist { reason, changes, wake } => {
                self.persist(reason.as_str(), &changes, wake);
            }
            Effect::OpenStream { stream, request, format, unchanged } => {
                self.open_stream(stream, request, format, &unchanged)
            }
            Effect::CancelStream { stream } => {
                let current = self.stream.borrow_mut().take_if(|(id, _)| *id == stream);
                if let Some((_, controller)) = current {
                    clew_abort(&controller);
                }
            }
            Effect::Say(message) => {
                if let Some(say) = self.callback(|c| c.say.clone()) {
                    let _ = call(&say, &self.message_js(message)).map(|v| swallow(&v));
                }
            }
            Effect::Ask(message) => self.ask(message),
            Effect::ListMcpServers { id } => {
                // NOTE: the glue's `list(id)` gives the listing so far, or "" when nothing
                // changed; asked again with the same id, it answers once a server's listing ends.
                let list = self.callback(|c| c.mcp_list.clone());
                let result = list.map_or(Ok(JsValue::UNDEFINED), |list| call(&list, &JsValue::from(id as f64)));
                self.when_settled(
                    result,
                    Box::new(move |me, value| {
                        let catalog = value.ok().and_then(|v| v.as_string()).unwrap_or_default();
                        me.handle(|m, now| m.handle_mcp_servers(now, id, &catalog));
                    }),
                );
            }
            Effect::RunTool { id, name, params } => self.run_tool(id, name, params),
            Effect::ReadRequiredFiles { id, paths } => self.read_required_files(id, paths),
            Effect::CancelTool { id } => {
                // NOTE: no borrow is held while `abort()` runs the signal's listeners (user code).
                let removed = {
                    let mut tools = self.tools.borrow_mut();
                    tools.iter().position(|(t, _)| *t == id).map(|at| tools.swap_remove(at))
                };
                if let Some((_, controller)) = removed {
                    controller.abort();
                }
            }
            Effect::SaveCheckpoint { id, kind } => self.save_checkpoint(id, kind),
            Effect::RunHook { id, kind, tool, params, result } => self.run_hook(id, kind, tool, params, result),
            Effect::WakeAt(at) => {
                let timer = at.and_then(|at| self.timer_at(at));
                if let Some(old) = self.timer.replace(timer) {
                    old.cancel();
                }
            }
            Effect::Finished(outcome) => {
                // NOTE: each cell is emptied before `abort()` runs the signals' listeners.
                let stream = self.stream.borrow_mut().take();
                if let Some((_, controller)) = stream {
                    clew_abort(&controller);
                }
                let tools = std::mem::take(&mut *self.tools.borrow_mut());
                for (_, controller) in tools {
                    controller.abort();
                }
                let timer = self.timer.borrow_mut().take();
                if let Some(timer) = timer {
                    timer.cancel();
                }
                // NOTE: a finished task keeps no user callback alive, nor the requests' messages.
                self.callbacks.borrow_mut().take();
                clew_forget(&self.request_cache);
                self.forget_said();
                let resolve = self.resolve.borrow_mut().take();
                if let Some(resolve) = resolve {
                    let _ = call(&resolve, &outcome_to_js(&outcome));
                }
            }
        }
    }

    /// A timer that hands the machine its timeout at `at`: `options.clock`'s when it has
    /// timers, else the host's (js/boundary/alarm.js: one the tasks share where it can be).
    fn timer_at(self: &Rc<Self>, at: u64) -> Option<Timer> {
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

    fn ask(self: &Rc<Self>, message: crate::core::agent::Message) {
        // NOTE: without an ask callback the core declines every ask itself (`TaskConfig::asks`).
        let Some(ask) = self.callback(|c| c.ask.clone()) else { return };
        let (partial, ts) = (message.is_partial(), message.ts);
        let result = call(&ask, &self.message_js(message));
        if partial {
            if let Ok(value) = &result {
                swallow(value);
            }
            return;
        }
        self.when_settled(
            result,
            Box::new(move |me, value| {
                let answer = match value {
                    Ok(value) => answer_from_js(&value),
                    Err(_) => AskAnswer::button(AskResponse::No),
                };
                me.handle(|m, now| m.handle_ask_answer(now, ts, answer));
            }),
        );
    }

    fn run_tool(self: &Rc<Self>, id: u64, name: String, params: Vec<(String, String)>) {
        let execute = self.callback(|c| c.tools.iter().find(|(n, ..)| *n == name).map(|(_, f, _)| f.clone()));
        let Some(execute) = execute else {
            let output = ToolOutput::error(format!("no execute function for {name}"));
            self.handle(|m, now| m.handle_tool_done(now, id, output));
            return;
        };
        let Some(controller) = abort_controller() else {
            let output = ToolOutput::error(NO_ABORT_CONTROLLER.to_owned());
            return self.handle(|m, now| m.handle_tool_done(now, id, output));
        };
        // NOTE: the MCP servers' glue answers the two MCP tools with the server's result as
        // JSON text, which the core reads (`Some(resource)`: whether it is a resource read).
        let glue = self.callbacks.borrow().as_ref().is_some_and(|c| c.mcp_list.is_some());
        let raw = (glue && (name == USE_MCP_TOOL || name == ACCESS_MCP_RESOURCE)).then(|| name == ACCESS_MCP_RESOURCE);
        let context = clew_context(&controller, Some(&self.task_id));
        self.tools.borrow_mut().push((id, controller));
        let result = call_with(&execute, &JsValue::UNDEFINED, &params_to_js(&params), &context);
        self.when_settled(
            result,
            Box::new(move |me, value| {
                let output = match (value, raw) {
                    (Ok(value), Some(resource)) => {
                        let result = Json::parse(&value.as_string().unwrap_or_default()).unwrap_or_default();
                        texts::mcp_result(&result, resource)
                    }
                    (Ok(value), None) => tool_output_from_js(&value),
                    (Err(error), _) => ToolOutput::error(error_message(&error)),
                };
                me.tools.borrow_mut().retain(|(t, _)| *t != id);
                me.handle(|m, now| m.handle_tool_done(now, id, output));
            }),
        );
    }

    fn save_checkpoint(self: &Rc<Self>, id: u64, kind: CheckpointKind) {
        let save = self.callback(|c| match kind {
            CheckpointKind::Initial => c.checkpoint_initial.clone().or_else(|| c.checkpoint_save.clone()),
            CheckpointKind::Round => c.checkpoint_save.clone(),
        });
        let result = match save {
            Some(save) => call_with(&save, &JsValue::UNDEFINED, &JsValue::UNDEFINED, &JsValue::UNDEFINED),
            None => Ok(JsValue::UNDEFINED),
        };
        let answer = move |me: &Rc<Self>, value: Result<JsValue, JsValue>| {
            me.handle(|m, now| m.handle_checkpoint_saved(now, id, value.is_ok()));
        };
        self.when_settled(result, Box::new(answer));
    }

    fn run_hook(
        self: &Rc<Self>,
        id: u64,
        kind: HookKind,
        tool: Option<String>,
        params: Vec<(String, String)>,
        result: Option<String>,
    ) {
        let hook = self.callback(|c| c.hooks.get(kind as usize).cloned().flatten());
        let input = Object::new();
        let _ = Reflect::set(&input, &"taskId".into(), &JsValue::from_str(&self.task_id));
        if let Some(tool) = tool {
            let _ = Reflect::set(&input, &"tool".into(), &tool.into());
            let _ = Reflect::set(&input, &"params".into(), &params_to_js(&params));
        }
        if let Some(result) = result {
            let _ = Reflect::set(&input, &"result".into(), &result.into());
        }
        let called = match hook {
            Some(hook) => call(&hook, &input),
            None => Ok(JsValue::UNDEFINED),
        };
        if kind == HookKind::TaskCancel {
            if let Ok(value) = &called {
                swallow(value);
            }
            return;
        }
        self.when_settled(
            called,
            Box::new(move |me, value| {
                let result = value.map(|v| hook_from_js(&v)).unwrap_or_default();
                me.handle(|m, now| m.handle_hook_done(now, id, result));
            }),
        );
    }

    /// Once `result` (a callback's return value, or its throw) settles, hands it to `answer`,
    /// which reads it (user getters may run: the machine is not borrowed yet) and gives it to
    /// the machine. One future for every callback the machine waits for.
    fn when_settled(self: &Rc<Self>, result: Result<JsValue, JsValue>, answer: Answer) {
        let me = Rc::clone(self);
        spawn(Box::pin(async move { answer(&me, settle(result).await) }));
    }
}

/// The time from `options.clock.now()` when there is one (a throw or a value that is not a
/// finite number reads as the host's clock), else the host's.
pub(super) fn task_time(clock: Option<&Function>) -> u64 {
    clock.map(clew_time).filter(|t| t.is_finite()).map_or_else(now, |t| t.max(0.0) as u64)
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
struct Timer {
    handle: Option<JsValue>,
    clear: Function,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    fn cancel(self) {
        if let Some(handle) = self.handle {
            let _ = call(&self.clear, &handle).map(|v| swallow(&v));
        }
    }
}

/// What a settled callback result becomes: an input of the machine.
type Answer = Box<dyn FnOnce(&Rc<Driver>, Result<JsValue, JsValue>)>;
