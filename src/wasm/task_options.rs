//! `new Task(options)`: JavaScript options read into the core's [`TaskConfig`] and the
//! callbacks the driver keeps. Every bad field is a `TypeError` naming it.
//!
//! The options cross as JSON made in JS (`clew_options` of js/boundary.js), with each
//! function replaced by `{"$fn": n}`, its place in a list of the functions: no getter or
//! proxy of the user's object runs inside wasm, and the fields are read with the same
//! helpers as every other JSON the package takes.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::{type_error, Code};
use super::task_convert::get;
use crate::core::agent::{
    AutoApprove, HookSet, Limits, ParamSpec, RetryPolicy, TaskConfig, Timeouts, ToolCalling, ToolSpec,
};
use crate::core::json::fields::{amount, count, flag, list, object, object_member, required, string};
use crate::core::json::Json;
use crate::core::request::{model_info_from_json, ModelSettings};
use crate::core::stream::model::ModelInfo;
use crate::core::stream::Format;

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// `{ok: true, json, fns}` (the options as JSON, functions replaced by `{"$fn": n}`),
    /// or `{ok: false, error}`.
    fn clew_options(options: &JsValue) -> JsValue;
}

/// The callbacks and model access of a task.
pub(super) struct Callbacks {
    pub(super) say: Option<Function>,
    pub(super) ask: Option<Function>,
    /// `(name, execute)` per tool.
    pub(super) tools: Vec<(String, Function)>,
    pub(super) fetch: Option<Function>,
    pub(super) request: Option<Function>,
    pub(super) checkpoint_save: Option<Function>,
    pub(super) checkpoint_initial: Option<Function>,
    pub(super) hooks: [Option<Function>; 5],
}

/// Everything `new Task(options)` reads.
pub(super) struct TaskOptions {
    pub(super) config: TaskConfig,
    pub(super) model: ModelSettings,
    pub(super) callbacks: Callbacks,
}

const HOOK_NAMES: [&str; 5] = ["taskStart", "taskCancel", "taskComplete", "preToolUse", "postToolUse"];

/// The functions of the options, by their `$fn` number.
struct Functions(Array);

impl Functions {
    /// The function at `value[field]`: absent, `null`, or a `{"$fn": n}` placeholder.
    fn get(&self, value: &Json, at: &str, field: &str) -> Result<Option<Function>, String> {
        match value.get(field) {
            None | Some(Json::Null) => Ok(None),
            Some(slot) => slot
                .get("$fn")
                .and_then(Json::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .and_then(|n| self.0.get(n).dyn_into::<Function>().ok())
                .map(Some)
                .ok_or_else(|| format!("{at}.{field} must be a function")),
        }
    }
}

/// Reads `new Task(options)`.
pub(super) fn read(options: &JsValue) -> Result<TaskOptions, JsValue> {
    let copy = clew_options(options);
    let text = get(&copy, "json").as_string();
    let (Some(text), true) = (text, get(&copy, "ok").is_truthy()) else {
        let why = get(&copy, "error").as_string().unwrap_or_default();
        return Err(type_error(Code::InvalidOptions, &format!("the options cannot be read: {why}")));
    };
    let fns = Functions(get(&copy, "fns").unchecked_into());
    let json = Json::parse(&text).map_err(|e| type_error(Code::InvalidOptions, &e.to_string()))?;
    from_json(&json, &fns).map_err(|message| type_error(Code::InvalidOptions, &message))
}

fn tools(options: &Json, fns: &Functions, callbacks: &mut Vec<(String, Function)>) -> Result<Vec<ToolSpec>, String> {
    let mut specs = Vec::new();
    for (i, tool) in list(options, "options", "tools")?.iter().enumerate() {
        let at = format!("options.tools[{i}]");
        let tool = object(tool, &at)?;
        let name = required(tool, &at, "name")?;
        let execute = fns.get(tool, &at, "execute")?.ok_or_else(|| format!("{at}.execute is required"))?;
        let mut parameters = Vec::new();
        for (j, param) in list(tool, &at, "parameters")?.iter().enumerate() {
            let pat = format!("{at}.parameters[{j}]");
            let param = object(param, &pat)?;
            parameters.push(ParamSpec {
                name: required(param, &pat, "name")?,
                description: string(param, &pat, "description")?.unwrap_or_default(),
                required: flag(param, &pat, "required")?.unwrap_or(false),
            });
        }
        specs.push(ToolSpec {
            name: name.clone(),
            description: string(tool, &at, "description")?.unwrap_or_default(),
            parameters,
            input_schema: object_member(tool, &at, "inputSchema")?.map(Json::to_string),
            read_only: flag(tool, &at, "readOnly")?.unwrap_or(false),
            timeout_ms: count(tool, &at, "timeoutMs")?,
        });
        callbacks.push((name, execute));
    }
    Ok(specs)
}

fn from_json(options: &Json, fns: &Functions) -> Result<TaskOptions, String> {
    let options = object(options, "options").map_err(|_| "new Task(options) needs an options object".to_owned())?;
    let model = object_member(options, "options", "model")?.ok_or("options.model is required")?;
    let format = match string(model, "options.model", "format")? {
        None => Format::Anthropic,
        Some(name) => {
            name.parse().map_err(|_| "options.model.format must be \"anthropic\", \"openai\" or \"chunks\"")?
        }
    };
    let info = match object_member(model, "options.model", "info")? {
        Some(info) => model_info_from_json(info, "options.model.info")?,
        None => ModelInfo::default(),
    };
    let settings = ModelSettings::from_json(model, "options.model")?;
    let mut tool_callbacks = Vec::new();
    let tool_specs = tools(options, fns, &mut tool_callbacks)?;
    let empty = Json::object();
    let section =
        |name: &str| -> Result<&Json, String> { Ok(object_member(options, "options", name)?.unwrap_or(&empty)) };
    let (auto, retry, timeouts) = (section("autoApprove")?, section("retry")?, section("timeouts")?);
    let (limits, checkpoint, hooks) = (section("limits")?, section("checkpoint")?, section("hooks")?);
    let defaults = TaskConfig::default();
    let tool_calling = match string(options, "options", "toolCalling")?.as_deref() {
        None | Some("xml") => ToolCalling::Xml,
        Some("native") => ToolCalling::Native,
        Some(_) => return Err("options.toolCalling must be \"xml\" or \"native\"".into()),
    };
    let mut hook_fns: [Option<Function>; 5] = Default::default();
    for (slot, name) in hook_fns.iter_mut().zip(HOOK_NAMES) {
        *slot = fns.get(hooks, "options.hooks", name)?;
    }
    // NOTE: 0 turns a timeout off; absent keeps the default.
    let timeout = |key: &str, default: Option<u64>| -> Result<Option<u64>, String> {
        Ok(match count(timeouts, "options.timeouts", key)? {
            Some(0) => None,
            Some(ms) => Some(ms),
            None => default,
        })
    };
    let checkpoint_save = fns.get(checkpoint, "options.checkpoint", "save")?;
    let checkpoint_initial = fns.get(checkpoint, "options.checkpoint", "initial")?;
    let retries = count(retry, "options.retry", "maxRetries")?;
    let mistakes = count(options, "options", "maxConsecutiveMistakes")?;
    let config = TaskConfig {
        format,
        info,
        tools: tool_specs,
        auto_approve: AutoApprove {
            read_only: flag(auto, "options.autoApprove", "readOnly")?.unwrap_or(false),
            all: flag(auto, "options.autoApprove", "all")?.unwrap_or(false),
        },
        yolo: flag(options, "options", "yolo")?.unwrap_or(false),
        max_consecutive_mistakes: mistakes
            .map_or(defaults.max_consecutive_mistakes, |n| n.min(u64::from(u32::MAX)) as u32),
        parallel_tool_calling: flag(options, "options", "parallelToolCalling")?.unwrap_or(false),
        tool_calling,
        retry: RetryPolicy {
            max_retries: retries.map_or(defaults.retry.max_retries, |n| n.min(1_000) as u32),
            base_delay_ms: count(retry, "options.retry", "baseDelayMs")?.unwrap_or(defaults.retry.base_delay_ms),
            max_delay_ms: count(retry, "options.retry", "maxDelayMs")?.unwrap_or(defaults.retry.max_delay_ms),
        },
        timeouts: Timeouts {
            first_byte_ms: timeout("firstByteMs", defaults.timeouts.first_byte_ms)?,
            idle_ms: timeout("idleMs", defaults.timeouts.idle_ms)?,
        },
        limits: Limits {
            max_requests: count(limits, "options.limits", "maxRequests")?,
            max_cost: amount(limits, "options.limits", "maxCost")?,
        },
        presentation_interval_ms: count(options, "options", "presentationIntervalMs")?
            .unwrap_or(defaults.presentation_interval_ms),
        system_prompt: string(options, "options", "systemPrompt")?,
        rules: string(options, "options", "rules")?,
        environment: string(options, "options", "environment")?,
        checkpoints: checkpoint_save.is_some() || checkpoint_initial.is_some(),
        hooks: HookSet {
            task_start: hook_fns[0].is_some(),
            task_cancel: hook_fns[1].is_some(),
            task_complete: hook_fns[2].is_some(),
            pre_tool_use: hook_fns[3].is_some(),
            post_tool_use: hook_fns[4].is_some(),
        },
    };
    let callbacks = Callbacks {
        say: fns.get(options, "options", "say")?,
        ask: fns.get(options, "options", "ask")?,
        tools: tool_callbacks,
        fetch: fns.get(model, "options.model", "fetch")?,
        request: fns.get(model, "options.model", "request")?,
        checkpoint_save,
        checkpoint_initial,
        hooks: hook_fns,
    };
    Ok(TaskOptions { config, model: settings, callbacks })
}
