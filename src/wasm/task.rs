//! The `Task` class: an agent loop driven by the user's model stream, tools, `say` and
//! `ask`. Construction validates the options; `start` runs the loop and resolves with its
//! outcome; `abort` ends it from anywhere.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::driver::Driver;
use super::error::{type_error, Code};
use super::task_convert::{images_from_js, message_to_js, outcome_to_js, usage_to_js};
use super::task_options;
use crate::core::agent::Task as Machine;
use crate::core::conversation;

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
        let machine = Machine::new(options.config)
            .map_err(|e| type_error(Code::InvalidOptions, &format!("options.{}: {}", e.field, e.message)))?;
        let id = NEXT_TASK.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        let driver = Driver::new(machine, options.callbacks, options.model, format!("task-{id}"));
        driver.install_describer();
        Ok(Self { driver })
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
                None => machine.state() == "idle",
            },
            _ => false,
        };
        if !idle {
            return Promise::reject(&type_error(Code::TaskStarted, "this task was already started; create a new Task"));
        }
        let images = images.map(|a| images_from_js(&a)).unwrap_or_default();
        let driver = Rc::clone(&self.driver);
        let promise = Promise::new(&mut |resolve, _reject| {
            *driver.resolve.borrow_mut() = Some(resolve);
        });
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

    /// The transcript: every say and ask message, partial ones in their latest state.
    #[wasm_bindgen(getter, unchecked_return_type = "TaskMessage[]")]
    pub fn messages(&self) -> Array {
        self.machine().map(|m| m.messages().iter().map(message_to_js).collect()).unwrap_or_default()
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

    /// What the task waits for: `"idle"`, `"stream"`, `"answer"`, `"tool"`, `"hook"`,
    /// `"checkpoint"`, `"retryDelay"`, `"presenting"` or `"finished"`.
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
