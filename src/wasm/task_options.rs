//! `new Task(options)`: JavaScript options read into the core's [`TaskConfig`] and the
//! callbacks the driver keeps. Every bad field is a `TypeError` naming it.

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::{type_error, Code};
use super::json_js;
use super::task_convert::get;
use crate::core::agent::{
    AutoApprove, HookSet, Limits, ParamSpec, RetryPolicy, TaskConfig, Timeouts, ToolCalling, ToolSpec,
};
use crate::core::json::Json;
use crate::core::stream::model::ModelInfo;
use crate::core::stream::request::ModelSettings;
use crate::core::stream::Format;

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

fn invalid(field: &str, what: &str) -> JsValue {
    type_error(Code::InvalidOptions, &format!("options.{field} {what}"))
}

fn object(value: &JsValue, field: &str) -> Result<Option<JsValue>, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else if value.is_object() && !value.is_function() {
        Ok(Some(value.clone()))
    } else {
        Err(invalid(field, "must be an object"))
    }
}

fn boolean(value: &JsValue, field: &str) -> Result<Option<bool>, JsValue> {
    match value.as_bool() {
        Some(b) => Ok(Some(b)),
        None if value.is_undefined() || value.is_null() => Ok(None),
        None => Err(invalid(field, "must be a boolean")),
    }
}

fn count(value: &JsValue, field: &str) -> Result<Option<u64>, JsValue> {
    match value.as_f64() {
        Some(n) if (0.0..=9_007_199_254_740_991.0).contains(&n) => Ok(Some(n.floor() as u64)),
        None if value.is_undefined() || value.is_null() => Ok(None),
        _ => Err(invalid(field, "must be a number, 0 or more")),
    }
}

fn string(value: &JsValue, field: &str) -> Result<Option<String>, JsValue> {
    match value.as_string() {
        Some(s) => Ok(Some(s)),
        None if value.is_undefined() || value.is_null() => Ok(None),
        None => Err(invalid(field, "must be a string")),
    }
}

fn function(value: &JsValue, field: &str) -> Result<Option<Function>, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else {
        value.dyn_ref::<Function>().cloned().map(Some).ok_or_else(|| invalid(field, "must be a function"))
    }
}

/// Reads a plain-data object through JSON with `read` (whose errors name the field).
fn json<T>(value: &JsValue, field: &str, read: impl FnOnce(&Json, &str) -> Result<T, String>) -> Result<T, JsValue> {
    let json = json_js::from_js(value).map_err(|e| invalid(field, &e))?;
    read(&json, &format!("options.{field}")).map_err(|e| type_error(Code::InvalidOptions, &e))
}

fn tools(value: &JsValue, callbacks: &mut Vec<(String, Function)>) -> Result<Vec<ToolSpec>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let Some(list) = value.dyn_ref::<Array>() else { return Err(invalid("tools", "must be an array")) };
    let mut specs = Vec::new();
    for (i, tool) in list.iter().enumerate() {
        let at = format!("tools[{i}]");
        let tool = object(&tool, &at)?.ok_or_else(|| invalid(&at, "must be an object"))?;
        let name = string(&get(&tool, "name"), &format!("{at}.name"))?
            .ok_or_else(|| invalid(&format!("{at}.name"), "is required"))?;
        let execute = function(&get(&tool, "execute"), &format!("{at}.execute"))?
            .ok_or_else(|| invalid(&format!("{at}.execute"), "is required"))?;
        let mut parameters = Vec::new();
        let params = get(&tool, "parameters");
        if !params.is_undefined() && !params.is_null() {
            let Some(params) = params.dyn_ref::<Array>() else {
                return Err(invalid(&format!("{at}.parameters"), "must be an array"));
            };
            for (j, param) in params.iter().enumerate() {
                let pat = format!("{at}.parameters[{j}]");
                let param = object(&param, &pat)?.ok_or_else(|| invalid(&pat, "must be an object"))?;
                parameters.push(ParamSpec {
                    name: string(&get(&param, "name"), &format!("{pat}.name"))?
                        .ok_or_else(|| invalid(&format!("{pat}.name"), "is required"))?,
                    description: string(&get(&param, "description"), &format!("{pat}.description"))?
                        .unwrap_or_default(),
                    required: boolean(&get(&param, "required"), &format!("{pat}.required"))?.unwrap_or(false),
                });
            }
        }
        let schema = get(&tool, "inputSchema");
        let input_schema = match object(&schema, &format!("{at}.inputSchema"))? {
            Some(schema) => js_sys::JSON::stringify(&schema).ok().and_then(|s| s.as_string()),
            None => None,
        };
        specs.push(ToolSpec {
            name: name.clone(),
            description: string(&get(&tool, "description"), &format!("{at}.description"))?.unwrap_or_default(),
            parameters,
            input_schema,
            read_only: boolean(&get(&tool, "readOnly"), &format!("{at}.readOnly"))?.unwrap_or(false),
            timeout_ms: count(&get(&tool, "timeoutMs"), &format!("{at}.timeoutMs"))?,
        });
        callbacks.push((name, execute));
    }
    Ok(specs)
}

const HOOK_NAMES: [&str; 5] = ["taskStart", "taskCancel", "taskComplete", "preToolUse", "postToolUse"];

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// A plain copy of `value` (objects and arrays copied, functions and primitives kept),
    /// made in JS: no getter or proxy of the user's object runs inside wasm.
    fn clew_plain(value: &JsValue) -> JsValue;
}

/// Reads `new Task(options)`.
pub(super) fn read(options: &JsValue) -> Result<TaskOptions, JsValue> {
    let copy = clew_plain(options);
    if !get(&copy, "ok").is_truthy() {
        let why = get(&copy, "value").as_string().unwrap_or_default();
        return Err(type_error(Code::InvalidOptions, &format!("the options cannot be read: {why}")));
    }
    let options = get(&copy, "value");
    let options = object(&options, "")?
        .ok_or_else(|| type_error(Code::InvalidOptions, "new Task(options) needs an options object"))?;
    let model = object(&get(&options, "model"), "model")?.ok_or_else(|| invalid("model", "is required"))?;
    let format = match string(&get(&model, "format"), "model.format")? {
        None => Format::Anthropic,
        Some(name) => {
            name.parse().map_err(|_| invalid("model.format", "must be \"anthropic\", \"openai\" or \"chunks\""))?
        }
    };
    let info: ModelInfo = match object(&get(&model, "info"), "model.info")? {
        Some(info) => json(&info, "model.info", ModelInfo::from_json)?,
        None => ModelInfo::default(),
    };
    let settings = Object::new();
    for key in Object::keys(model.unchecked_ref::<Object>()).iter() {
        let name = key.as_string().unwrap_or_default();
        let value = get(&model, &name);
        if !value.is_function() && !matches!(name.as_str(), "info" | "format") {
            let _ = Reflect::set(&settings, &key, &value);
        }
    }
    if get(&settings, "id").is_undefined() {
        let _ = Reflect::set(&settings, &"id".into(), &JsValue::from_str(""));
    }
    let settings = json(&settings, "model", ModelSettings::from_json)?;
    let mut tool_callbacks = Vec::new();
    let tool_specs = tools(&get(&options, "tools"), &mut tool_callbacks)?;
    let auto = object(&get(&options, "autoApprove"), "autoApprove")?.unwrap_or(JsValue::UNDEFINED);
    let retry = object(&get(&options, "retry"), "retry")?.unwrap_or(JsValue::UNDEFINED);
    let timeouts = object(&get(&options, "timeouts"), "timeouts")?.unwrap_or(JsValue::UNDEFINED);
    let limits = object(&get(&options, "limits"), "limits")?.unwrap_or(JsValue::UNDEFINED);
    let checkpoint = object(&get(&options, "checkpoint"), "checkpoint")?.unwrap_or(JsValue::UNDEFINED);
    let hooks = object(&get(&options, "hooks"), "hooks")?.unwrap_or(JsValue::UNDEFINED);
    let field = |parent: &JsValue, key: &str| if parent.is_undefined() { JsValue::UNDEFINED } else { get(parent, key) };
    let defaults = TaskConfig::default();
    let tool_calling = match string(&get(&options, "toolCalling"), "toolCalling")?.as_deref() {
        None | Some("xml") => ToolCalling::Xml,
        Some("native") => ToolCalling::Native,
        Some(_) => return Err(invalid("toolCalling", "must be \"xml\" or \"native\"")),
    };
    let max_cost = match field(&limits, "maxCost").as_f64() {
        Some(cost) if cost.is_finite() && cost >= 0.0 => Some(cost),
        None if field(&limits, "maxCost").is_undefined() || field(&limits, "maxCost").is_null() => None,
        _ => return Err(invalid("limits.maxCost", "must be a number of dollars, 0 or more")),
    };
    let mut hook_fns: [Option<Function>; 5] = Default::default();
    for (slot, name) in hook_fns.iter_mut().zip(HOOK_NAMES) {
        *slot = function(&field(&hooks, name), &format!("hooks.{name}"))?;
    }
    let timeout = |key: &str| -> Result<Option<u64>, JsValue> {
        let value = field(&timeouts, key);
        Ok(match count(&value, &format!("timeouts.{key}"))? {
            Some(0) => None,
            Some(ms) => Some(ms),
            None => match key {
                "firstByteMs" => defaults.timeouts.first_byte_ms,
                _ => defaults.timeouts.idle_ms,
            },
        })
    };
    let checkpoint_save = function(&field(&checkpoint, "save"), "checkpoint.save")?;
    let checkpoint_initial = function(&field(&checkpoint, "initial"), "checkpoint.initial")?;
    let config = TaskConfig {
        format,
        info,
        tools: tool_specs,
        auto_approve: AutoApprove {
            read_only: boolean(&field(&auto, "readOnly"), "autoApprove.readOnly")?.unwrap_or(false),
            all: boolean(&field(&auto, "all"), "autoApprove.all")?.unwrap_or(false),
        },
        yolo: boolean(&get(&options, "yolo"), "yolo")?.unwrap_or(false),
        max_consecutive_mistakes: count(&get(&options, "maxConsecutiveMistakes"), "maxConsecutiveMistakes")?
            .map_or(defaults.max_consecutive_mistakes, |n| n.min(u32::MAX as u64) as u32),
        parallel_tool_calling: boolean(&get(&options, "parallelToolCalling"), "parallelToolCalling")?.unwrap_or(false),
        tool_calling,
        retry: RetryPolicy {
            max_retries: count(&field(&retry, "maxRetries"), "retry.maxRetries")?
                .map_or(defaults.retry.max_retries, |n| n.min(1_000) as u32),
            base_delay_ms: count(&field(&retry, "baseDelayMs"), "retry.baseDelayMs")?
                .unwrap_or(defaults.retry.base_delay_ms),
            max_delay_ms: count(&field(&retry, "maxDelayMs"), "retry.maxDelayMs")?
                .unwrap_or(defaults.retry.max_delay_ms),
        },
        timeouts: Timeouts { first_byte_ms: timeout("firstByteMs")?, idle_ms: timeout("idleMs")? },
        limits: Limits { max_requests: count(&field(&limits, "maxRequests"), "limits.maxRequests")?, max_cost },
        presentation_interval_ms: count(&get(&options, "presentationIntervalMs"), "presentationIntervalMs")?
            .unwrap_or(defaults.presentation_interval_ms),
        system_prompt: string(&get(&options, "systemPrompt"), "systemPrompt")?,
        rules: string(&get(&options, "rules"), "rules")?,
        environment: string(&get(&options, "environment"), "environment")?,
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
        say: function(&get(&options, "say"), "say")?,
        ask: function(&get(&options, "ask"), "ask")?,
        tools: tool_callbacks,
        fetch: function(&get(&model, "fetch"), "model.fetch")?,
        request: function(&get(&model, "request"), "model.request")?,
        checkpoint_save,
        checkpoint_initial,
        hooks: hook_fns,
    };
    Ok(TaskOptions { config, model: settings, callbacks })
}
