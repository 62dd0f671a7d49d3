//! `new Task(options)`: the options read by the core ([`TaskOptions`]) and its callback
//! slots mapped back to the user's functions. A bad field is a `TypeError` naming it.
//!
//! The options cross as JSON made in JS (`clew_options` of js/boundary/options.js), with each
//! function replaced by `{"$fn": n}`, its place in a list of the functions: no getter or
//! proxy of the user's object runs inside wasm, and every decision about an option is the
//! core's. The core's reading of the last options is kept (`LAST_READ`): a task made with the
//! same JSON shares it, checked tool set included, and that JSON is not copied into the wasm
//! again. It holds that JSON (an API key in the options too) until a task is made with other
//! options, as the tasks made from it do.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::{type_error, Code};
use super::task_convert::get;
use crate::core::agent::{
    CallbackSlots, ConfigError, Slot, Task as Machine, TaskConfig, TaskOptions, ACCESS_MCP_RESOURCE, USE_MCP_TOOL,
};
use crate::core::json::Json;
use crate::core::parser::ToolSet;
use crate::core::request::ModelSettings;

#[wasm_bindgen(module = "/js/boundary/options.js")]
extern "C" {
    /// The options as JSON text, functions replaced by `{"$fn": n}` and MCP clients by
    /// `{"$mcp": n}`, their places in `fns` and `clients`; `undefined` when that text is
    /// `last` (a string); or why they cannot be read, thrown as a string.
    #[wasm_bindgen(catch)]
    fn clew_options(options: &JsValue, fns: &Array, clients: &Array, last: &JsValue) -> Result<JsValue, JsValue>;
    /// The MCP servers' glue (`{list, call, read}`) for `[name, client, name, client, …]`.
    fn clew_mcp(servers: &Array) -> JsValue;
}

/// `options.clock`'s `setTimeout` and `clearTimeout`.
pub(super) type ClockTimers = (Function, Function);

/// The callbacks and model access of a task.
pub(super) struct Callbacks {
    pub(super) say: Option<Function>,
    pub(super) ask: Option<Function>,
    /// `(name, execute, describe)` per tool.
    pub(super) tools: Vec<(String, Function, Option<Function>)>,
    pub(super) fetch: Option<Function>,
    pub(super) request: Option<Function>,
    pub(super) checkpoint_save: Option<Function>,
    pub(super) checkpoint_initial: Option<Function>,
    pub(super) hooks: [Option<Function>; 5],
    pub(super) persist: Option<Function>,
    /// The MCP servers' glue's `list` (catalog JSON, or "" when nothing changed), when the
    /// task has servers.
    pub(super) mcp_list: Option<Function>,
    /// `options.clock`: `now` (shared: the driver reads it for every input without copying
    /// the function across the boundary), and `setTimeout` with `clearTimeout` when given.
    pub(super) clock: Option<(Rc<Function>, Option<ClockTimers>)>,
    /// `options.contextManagement.summarize.readRequiredFiles`.
    pub(super) read_required_files: Option<Function>,
}

/// Everything `new Task(options)` reads, with the user's functions.
pub(super) struct JsTaskOptions {
    read: Rc<Read>,
    pub(super) model: ModelSettings,
    pub(super) callbacks: Callbacks,
}

/// What the core read from options (their JSON), kept for the next task made with the same.
struct Read {
    /// The options' JSON, a JS string.
    text: JsValue,
    functions: usize,
    config: Rc<TaskConfig>,
    /// The config's tool set, once a task was made from it (`TaskConfig::validate`).
    tools: OnceCell<Rc<ToolSet>>,
    model: ModelSettings,
    slots: CallbackSlots,
}

thread_local! {
    /// The options last read: a task made with the same options (the same JSON, as many
    /// functions), as a page that starts a task per message makes them, shares their config
    /// instead of reading them again (measured in BENCHMARKS.md: the first token). It holds
    /// no function: each task maps the slots to its own.
    static LAST_READ: RefCell<Option<Rc<Read>>> = const { RefCell::new(None) };
}

/// The core's reading of `options`, their functions put in `fns` and their MCP clients in
/// `clients`: the last one when it was of the same JSON with as many functions.
fn read_json(options: &JsValue, fns: &Array, clients: &Array) -> Result<Rc<Read>, JsValue> {
    let last = LAST_READ.try_with(|last| last.borrow().clone()).ok().flatten();
    let last_text = last.as_ref().map_or(JsValue::UNDEFINED, |last| last.text.clone());
    let text = clew_options(options, fns, clients, &last_text).map_err(|why| {
        let why = why.as_string().unwrap_or_default();
        type_error(Code::InvalidOptions, &format!("the options cannot be read: {why}"))
    })?;
    let functions = fns.length() as usize;
    let text = match (text.is_undefined(), last) {
        (true, Some(last)) if last.functions == functions => return Ok(last),
        (true, _) => last_text,
        (false, _) => text,
    };
    let json = Json::parse(&text.as_string().unwrap_or_default())
        .map_err(|e| type_error(Code::InvalidOptions, &e.to_string()))?;
    let options = TaskOptions::from_json(&json, functions).map_err(|m| type_error(Code::InvalidOptions, &m))?;
    let read = Rc::new(Read {
        text,
        functions,
        config: Rc::new(options.config),
        tools: OnceCell::new(),
        model: options.model,
        slots: options.callbacks,
    });
    let _ = LAST_READ.try_with(|last| last.replace(Some(Rc::clone(&read))));
    Ok(read)
}

/// Reads `new Task(options)`.
pub(super) fn read(options: &JsValue) -> Result<JsTaskOptions, JsValue> {
    let (fns, clients) = (Array::new(), Array::new());
    let read = read_json(options, &fns, &clients)?;
    // NOTE: the core checked every slot against the list's length, and `clew_options` put
    // only functions in it (unchecked: a check would cost a crossing per function).
    let function = |slot: Option<Slot>| slot.map(|n| fns.get(n).unchecked_into::<Function>());
    let slots = &read.slots;
    let mut tools = Vec::new();
    for tool in &slots.tools {
        if let Some(execute) = function(Some(tool.execute)) {
            tools.push((tool.name.clone(), execute, function(tool.describe)));
        }
    }
    // NOTE: the MCP servers' glue gets each server the core read with its client; the two
    // reference tools run as any tool does, through it.
    let mcp = if slots.mcp_clients.is_empty() {
        JsValue::UNDEFINED
    } else {
        let servers = Array::new();
        for (server, slot) in read.config.mcp_servers.iter().zip(&slots.mcp_clients) {
            servers.push(&JsValue::from_str(&server.name));
            servers.push(&slot.map_or(JsValue::UNDEFINED, |n| clients.get(n)));
        }
        clew_mcp(&servers)
    };
    let method = |name: &str| match mcp.is_undefined() {
        true => None,
        false => get(&mcp, name).dyn_into::<Function>().ok(),
    };
    for (name, run) in [(USE_MCP_TOOL, "call"), (ACCESS_MCP_RESOURCE, "read")] {
        if let Some(run) = method(run) {
            tools.push((name.to_owned(), run, None));
        }
    }
    let callbacks = Callbacks {
        say: function(slots.say),
        ask: function(slots.ask),
        tools,
        fetch: function(slots.fetch),
        request: function(slots.request),
        checkpoint_save: function(slots.checkpoint_save),
        checkpoint_initial: function(slots.checkpoint_initial),
        hooks: slots.hooks.map(function),
        persist: function(slots.persist),
        mcp_list: method("list"),
        clock: slots.clock.as_ref().and_then(|clock| {
            let timers = clock.timers.and_then(|(set, clear)| Some((function(Some(set))?, function(Some(clear))?)));
            Some((Rc::new(function(Some(clock.now))?), timers))
        }),
        read_required_files: function(slots.read_required_files),
    };
    let model = read.model.clone();
    Ok(JsTaskOptions { read, model, callbacks })
}

impl JsTaskOptions {
    /// The config the options set (shared with every task made with the same options).
    pub(super) fn config(&self) -> Rc<TaskConfig> {
        Rc::clone(&self.read.config)
    }

    /// A task of the options: their config checked by the first task made from it.
    pub(super) fn machine(&self) -> Result<Machine, ConfigError> {
        let tools = match self.read.tools.get() {
            Some(tools) => Rc::clone(tools),
            None => {
                let tools = Rc::new(self.read.config.validate()?);
                let _ = self.read.tools.set(Rc::clone(&tools));
                tools
            }
        };
        Ok(Machine::checked(self.config(), tools))
    }
}
