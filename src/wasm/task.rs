//! The `Task` class: an agent loop driven by the user's model stream, tools, `say` and
//! `ask`. Construction validates the options; `start` runs the loop and resolves with its
//! outcome; `abort` ends it from anywhere.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::driver::Driver;
use super::error::{type_error, Code};
use super::task_convert::{images_from_js, message_to_js, outcome_to_js, usage_to_js};
use super::task_options;
use crate::core::agent::{merge_snapshot, SnapshotError, SnapshotErrorKind, Task as Machine, TaskState};
use crate::core::conversation;

/// A snapshot (or saved task) as JSON text: a string as it is, anything else through
/// `JSON.stringify` (guarded); `what` names it in the error.
#[inline(never)]
fn snapshot_text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if let Some(text) = value.as_string() {
        return Ok(text);
    }
    if !value.is_object() {
        return Err(type_error(Code::InvalidSnapshot, &format!("the {what} must be an object or its JSON text")));
    }
    super::json_js::text_from_js(value)
        .map_err(|why| type_error(Code::InvalidSnapshot, &format!("the {what} cannot be read: it {why}")))
}

/// A snapshot that cannot be read or merged, as a `TypeError` with the code of its kind.
#[inline(never)]
fn snapshot_error(error: SnapshotError) -> JsValue {
    let code = match error.kind {
        SnapshotErrorKind::Invalid => Code::InvalidSnapshot,
        SnapshotErrorKind::Version => Code::SnapshotVersion,
        SnapshotErrorKind::ToolMissing => Code::SnapshotToolMissing,
    };
    type_error(code, &error.message)
}

#[wasm_bindgen(module = "/js/boundary/calls.js")]
extern "C" {
    /// A new promise and its resolve function: `[promise, resolve]`.
    fn clew_deferred() -> Array;
}

/// A promise the task resolves with its outcome (`Driver::resolve`), made without a closure
/// of the wasm's (measured in BENCHMARKS.md: the first token).
fn outcome_promise(driver: &Driver) -> Promise {
    let pair = clew_deferred();
    if let Ok(mut resolve) = driver.resolve.try_borrow_mut() {
        *resolve = Some(pair.get(1).unchecked_into());
    }
    pair.get(0).unchecked_into()
}

thread_local! {
    static NEXT_TASK: Cell<u64> = const { Cell::new(0) };
}

/// An agent task: the reference loop's rounds, tools, approvals, retries and limits.
///
/// ```js
/// const task = new Task({ model: { format: "anthropic", id: "claude-sonnet-4-5", apiKey }, tools, say, ask });
/// const { status, result } = await task.start("Fix the typo in README.md");
/// ```
#[wasm_bindgen]
pub struct Task {
    driver: Rc<Driver>,
}

impl Task {
    /// The machine, for a getter; `None` while it is busy: a tool's `describe` runs inside it,
    /// and a getter it calls reads nothing rather than trapping.
    fn machine(&self) -> Option<std::cell::Ref<'_, Machine>> {
        self.driver.machine.try_borrow().ok()
    }
}

#[wasm_bindgen]
impl Task {
    /// A task set up with `options` (see `TaskOptions`).
    ///
    /// @throws TypeError (code `CLEW_INVALID_OPTIONS`) naming the option that cannot work.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "TaskOptions")] options: JsValue) -> Result<Self, JsValue> {
        let options = task_options::read(&options)?;
        let machine = options
            .machine()
            .map_err(|e| type_error(Code::InvalidOptions, &format!("options.{}: {}", e.field, e.message)))?;
        Ok(Self::with_driver(machine, options.callbacks, options.model))
    }

    /// Runs the task with the user's text (and images as data URLs). Resolves with the
    /// outcome; never rejects for model, tool or user outcomes. Rejects with a `TypeError`
    /// (code `CLEW_TASK_STARTED`) when the task already started, or (code
    /// `CLEW_INVALID_ARGUMENT`) when `text` is not a string.
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskOutcome>")]
    pub fn start(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        images: Option<super::types::StringArrayJs>,
    ) -> Promise {
        let Some(text) = text.as_string() else {
            return Promise::reject(&type_error(Code::InvalidArgument, "task.start(text) needs a string"));
        };
        // NOTE: the machine is busy only while the task runs (a tool's `describe`).
        let idle = match self.machine() {
            Some(machine) if machine.messages().is_empty() => match machine.outcome() {
                // A task aborted before it started ends `aborted`, with no callback.
                Some(outcome) => return Promise::resolve(&outcome_to_js(outcome)),
                None => machine.task_state() == TaskState::Idle,
            },
            _ => false,
        };
        if !idle {
            return Promise::reject(&type_error(Code::TaskStarted, "this task was already started; create a new Task"));
        }
        let images = images.map(|a| images_from_js(&a)).unwrap_or_default();
        let promise = outcome_promise(&self.driver);
        self.driver.handle(|m, now| m.start(now, &text, images));
        promise
    }

    /// Aborts the task: the request, pending asks, running tools and timers are cancelled
    /// and `start` resolves with `status: "aborted"`. Safe to call from inside a callback,
    /// and more than once; once it returns, no callback of the task is called again. Before
    /// `start`, `start` then resolves `aborted` at once.
    pub fn abort(&self, #[wasm_bindgen(unchecked_optional_param_type = "string")] reason: Option<JsValue>) {
        // NOTE: any reason is accepted (abort must not throw); a non-string is shown as JSON.
        let reason = match reason {
            None => "aborted".into(),
            Some(value) => value.as_string().unwrap_or_else(|| {
                js_sys::JSON::stringify(&value).ok().and_then(|s| s.as_string()).unwrap_or_else(|| "aborted".into())
            }),
        };
        self.driver.abort(&reason);
    }

    /// Condenses the conversation now, whatever its size: answers the ask the task waits on
    /// (a follow-up question, a completion, `resume_task`, `resume_completed_task` or
    /// `mistake_limit_reached`) with a request for a summary, and the model summarizes the task
    /// (`instructions`: what the summary should focus on). The summary is then asked about
    /// (`ask: "condense"`, its text the summary): yes goes on from it, a message is the
    /// model's answer instead. The `ask` callback's own answer to the ask condensed, when it
    /// comes, is ignored. Safe from inside a callback.
    ///
    /// @throws TypeError with `code`: `CLEW_INVALID_STATE` when the task waits on anything
    /// else (a tool's approval, a stream, or it has not started or has ended), or
    /// `CLEW_INVALID_ARGUMENT` when `options.instructions` is not a string.
    pub fn condense(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{ instructions?: string }")] options: Option<JsValue>,
    ) -> Result<(), JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let instructions = match options.is_undefined() || options.is_null() {
            true => JsValue::UNDEFINED,
            false if options.is_object() => super::task_convert::get(&options, "instructions"),
            false => return Err(type_error(Code::InvalidArgument, "condense(options) takes an object")),
        };
        let instructions = match instructions.is_undefined() {
            true => None,
            false => Some(super::args::text(&instructions, "options.instructions")?),
        };
        self.driver.condense(instructions.as_deref()).map_err(|why| type_error(Code::InvalidState, &why))
    }

    /// Ends the task `failed` with your `code` and `message` (a watchdog, a test harness):
    /// the same steps as `abort`, and `start` resolves `{ status: "failed", error: { code,
    /// message } }`. Safe from inside a callback; ignored once the task has ended.
    pub fn fail(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] code: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] message: JsValue,
    ) {
        let text = |v: JsValue, default: &str| v.as_string().unwrap_or_else(|| default.to_owned());
        self.driver.fail(&text(code, "CLEW_FAILED"), &text(message, "failed"));
    }

    /// The task's whole state as a plain JSON-safe object (`{ version, tools, history,
    /// messages, state }`), at any moment: what `Task.restore` continues from. Callbacks,
    /// tools' code and the model's settings are not in it. `undefined` only from inside a
    /// tool's `describe`.
    #[wasm_bindgen(unchecked_return_type = "TaskSnapshot")]
    pub fn snapshot(&self) -> JsValue {
        match self.driver.machine.try_borrow_mut() {
            Ok(mut machine) => js_sys::JSON::parse(&machine.snapshot()).unwrap_or(JsValue::NULL),
            Err(_) => JsValue::UNDEFINED,
        }
    }

    /// A task continued from `snapshot` (the object `snapshot()` or `options.persist`
    /// assembled gave, or its JSON text), set up with `options` as for `new Task`. Call
    /// `resume()` to go on.
    ///
    /// @throws TypeError with `code`: `CLEW_INVALID_SNAPSHOT` (not a snapshot; the message
    /// names the place), `CLEW_SNAPSHOT_VERSION` (another format version),
    /// `CLEW_SNAPSHOT_TOOL_MISSING` (the task had a tool `options` lacks), or
    /// `CLEW_INVALID_OPTIONS`.
    pub fn restore(
        #[wasm_bindgen(unchecked_param_type = "TaskSnapshot | string")] snapshot: JsValue,
        #[wasm_bindgen(unchecked_param_type = "TaskOptions")] options: JsValue,
    ) -> Result<Self, JsValue> {
        let text = snapshot_text(&snapshot, "snapshot")?;
        Self::rebuilt(&options, |config, _| Machine::restore(&text, config))
    }

    /// The whole snapshot from what an application stored: `stored` (a snapshot, or
    /// `undefined` before the first persist) with `changes` (what `options.persist` got)
    /// applied. Each may be an object or its JSON text. Returns a new object; neither
    /// argument is changed.
    ///
    /// @throws TypeError (code `CLEW_INVALID_SNAPSHOT`) naming what cannot be merged, such as
    /// changes that start past the stored entries (an earlier persist's changes were lost).
    #[wasm_bindgen(js_name = mergeSnapshot, unchecked_return_type = "TaskSnapshot")]
    pub fn merge_snapshot(
        #[wasm_bindgen(unchecked_param_type = "TaskSnapshot | string | undefined")] stored: JsValue,
        #[wasm_bindgen(unchecked_param_type = "TaskSnapshotChanges | string")] changes: JsValue,
    ) -> Result<JsValue, JsValue> {
        let stored = match stored.is_undefined() || stored.is_null() {
            true => None,
            false => Some(snapshot_text(&stored, "stored snapshot")?),
        };
        let merged = merge_snapshot(stored.as_deref(), &snapshot_text(&changes, "changes")?);
        // NOTE: the core wrote it: it is JSON.
        Ok(js_sys::JSON::parse(&merged.map_err(snapshot_error)?).unwrap_or(JsValue::NULL))
    }

    /// A task rebuilt from its conversation alone: `history` (as `task.history` gives it)
    /// and `messages` (as `task.messages` gives it; Cline's `ui_messages.json` works too).
    /// `resume()` asks `resume_task` (or `resume_completed_task` when the task had offered its
    /// result) and then goes on with a resumption notice.
    ///
    /// @throws TypeError (code `CLEW_INVALID_SNAPSHOT` naming what cannot be read, or
    /// `CLEW_INVALID_OPTIONS`).
    #[wasm_bindgen(js_name = fromHistory)]
    pub fn from_history(
        #[wasm_bindgen(unchecked_param_type = "{ history: HistoryMessage[]; messages?: TaskMessage[] }")]
        saved: JsValue,
        #[wasm_bindgen(unchecked_param_type = "TaskOptions")] options: JsValue,
    ) -> Result<Self, JsValue> {
        let text = snapshot_text(&saved, "saved task")?;
        Self::rebuilt(&options, |config, now| Machine::from_history(&text, config, now))
    }

    fn rebuilt(
        options: &JsValue,
        build: impl FnOnce(Rc<crate::core::agent::TaskConfig>, u64) -> Result<Machine, SnapshotError>,
    ) -> Result<Self, JsValue> {
        let options = task_options::read(options)?;
        let now = super::driver::task_time(options.callbacks.clock.as_ref().map(|(now, _)| &**now));
        let machine = build(options.config(), now).map_err(snapshot_error)?;
        Ok(Self::with_driver(machine, options.callbacks, options.model))
    }

    fn with_driver(
        machine: Machine,
        callbacks: task_options::Callbacks,
        model: crate::core::request::ModelSettings,
    ) -> Self {
        // NOTE: `try_with`: see `js_call::swallow`.
        let id = NEXT_TASK
            .try_with(|n| {
                n.set(n.get() + 1);
                n.get()
            })
            .unwrap_or_default();
        let driver = Driver::new(machine, callbacks, model, format!("task-{id}"));
        driver.install_describer();
        Self { driver }
    }

    /// Continues a task made by `Task.restore` or `Task.fromHistory`; resolves with the
    /// outcome exactly like `start` (at once for a task that had finished). What it waited
    /// for is asked again: the same ask, the tool (when `readOnly` or `idempotent`; any
    /// other gets an error result saying its outcome is unknown), the hook or checkpoint, the
    /// rest of a retry delay; an open stream fails as interrupted (what streamed is kept) and
    /// is retried. Rejects with a `TypeError` (code `CLEW_NOT_RESTORED`) on any other task,
    /// or when called twice.
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskOutcome>")]
    pub fn resume(&self) -> Promise {
        if !self.machine().is_some_and(|m| m.is_restored()) {
            let message = "resume() continues a task made by Task.restore or Task.fromHistory, once";
            return Promise::reject(&type_error(Code::NotRestored, message));
        }
        let promise = outcome_promise(&self.driver);
        self.driver.handle(|m, now| m.resume(now));
        promise
    }

    /// The transcript: every say and ask message, partial ones in their latest state.
    #[wasm_bindgen(getter, unchecked_return_type = "TaskMessage[]")]
    pub fn messages(&self) -> Array {
        let out = Array::new();
        if let Some(machine) = self.machine() {
            for message in machine.messages() {
                out.push(&message_to_js(message));
            }
        }
        out
    }

    /// The model-facing conversation (Anthropic-shaped content blocks).
    #[wasm_bindgen(
        getter,
        unchecked_return_type = "{ role: \"user\" | \"assistant\"; content: string | ContentBlock[] }[]"
    )]
    pub fn history(&self) -> JsValue {
        self.machine()
            .map_or(JsValue::UNDEFINED, |m| super::json_js::to_js(&conversation::Message::list_to_json(m.history())))
    }

    /// Tokens, cost (US dollars) and requests so far.
    #[wasm_bindgen(getter, unchecked_return_type = "TaskUsage")]
    pub fn usage(&self) -> JsValue {
        self.machine().map_or(JsValue::UNDEFINED, |m| usage_to_js(m.usage()))
    }

    /// What the task waits for: `"idle"` (not started), `"stream"`, `"answer"`, `"tool"`,
    /// `"hook"`, `"checkpoint"`, `"retryDelay"`, `"presenting"`, `"finished"` or `"listing"`
    /// (its MCP servers are listed before the round's request).
    #[wasm_bindgen(getter, unchecked_return_type = "TaskState")]
    pub fn state(&self) -> String {
        self.machine().map_or_else(String::new, |m| m.state().to_owned())
    }

    /// The outcome once the task ended, else `undefined`.
    #[wasm_bindgen(getter, unchecked_return_type = "TaskOutcome | undefined")]
    pub fn outcome(&self) -> JsValue {
        self.machine().and_then(|m| m.outcome().map(outcome_to_js)).unwrap_or(JsValue::UNDEFINED)
    }
}
