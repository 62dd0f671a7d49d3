//! `new Task(options)` read in the core: the options as JSON (made by the host, with each
//! function replaced by a `{"$fn": n}` placeholder, its place in the host's list of
//! functions) to a [`TaskConfig`], the model's settings, and where each callback sits.
//! Every decision about an option is made here, so native tests reach every option and
//! every error; the binding only maps the slots back to its functions.

use super::config::{
    AutoApprove, HookSet, Limits, ParamSpec, RetryPolicy, TaskConfig, Timeouts, ToolCalling, ToolSpec,
    DEFAULT_MAX_CONSECUTIVE_MISTAKES, DEFAULT_PRESENTATION_INTERVAL_MS,
};
use crate::core::json::fields::{amount, count, flag, list, object, object_member, required, string};
use crate::core::json::Json;
use crate::core::request::{model_info_from_json, ModelSettings};
use crate::core::stream::model::ModelInfo;
use crate::core::stream::Format;

/// The place of a function in the host's list (the `n` of its `{"$fn": n}` placeholder).
pub type Slot = u32;

/// The hooks' option names, in the order of [`CallbackSlots::hooks`].
pub const HOOK_NAMES: [&str; 5] = ["taskStart", "taskCancel", "taskComplete", "preToolUse", "postToolUse"];

/// Where each callback of the options sits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallbackSlots {
    /// `options.say`.
    pub say: Option<Slot>,
    /// `options.ask`.
    pub ask: Option<Slot>,
    /// Per tool, in order.
    pub tools: Vec<ToolSlots>,
    /// `options.model.fetch`.
    pub fetch: Option<Slot>,
    /// `options.model.request`.
    pub request: Option<Slot>,
    /// `options.checkpoint.save`.
    pub checkpoint_save: Option<Slot>,
    /// `options.checkpoint.initial`.
    pub checkpoint_initial: Option<Slot>,
    /// `options.hooks`, in the order of [`HOOK_NAMES`].
    pub hooks: [Option<Slot>; 5],
}

/// A tool's name and where its callbacks sit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSlots {
    /// The tool's name.
    pub name: String,
    /// Its `execute`.
    pub execute: Slot,
    /// Its `describe`, if any.
    pub describe: Option<Slot>,
}

/// Everything `new Task(options)` reads.
#[derive(Clone, Debug)]
pub struct TaskOptions {
    /// The machine's settings.
    pub config: TaskConfig,
    /// The model and how to reach it.
    pub model: ModelSettings,
    /// Where each callback sits in the host's list of functions.
    pub callbacks: CallbackSlots,
}

impl TaskOptions {
    /// Reads the options. `functions` is how many functions the host's list holds: a
    /// placeholder must name one of them.
    ///
    /// # Errors
    /// A message naming the first option that cannot work (`options.retry.maxRetries must
    /// be …`), for a `TypeError` with code `CLEW_INVALID_OPTIONS`.
    pub fn from_json(options: &Json, functions: usize) -> Result<Self, String> {
        // NOTE: the plain settings are read first and what owns memory (strings, the model's
        // settings, the tools) last: every early return drops what is live, and fewer live
        // owners make this, the package's largest reader, markedly smaller.
        let fns = Functions(functions);
        let options = object(options, "options").map_err(|_| "new Task(options) needs an options object".to_owned())?;
        let model = object_member(options, "options", "model")?.ok_or("options.model is required")?;
        let format = match string(model, "options.model", "format")?.as_deref() {
            None => Format::Anthropic,
            Some(name) => {
                name.parse().map_err(|_| "options.model.format must be \"anthropic\", \"openai\" or \"chunks\"")?
            }
        };
        let empty = Json::object();
        let section =
            |name: &str| -> Result<&Json, String> { Ok(object_member(options, "options", name)?.unwrap_or(&empty)) };
        let (auto, retry, timeouts) = (section("autoApprove")?, section("retry")?, section("timeouts")?);
        let (limits, checkpoint, hooks) = (section("limits")?, section("checkpoint")?, section("hooks")?);
        let tool_calling = match string(options, "options", "toolCalling")?.as_deref() {
            None | Some("xml") => ToolCalling::Xml,
            Some("native") => ToolCalling::Native,
            Some(_) => return Err("options.toolCalling must be \"xml\" or \"native\"".into()),
        };
        let mut hook_slots: [Option<Slot>; 5] = Default::default();
        for (slot, name) in hook_slots.iter_mut().zip(HOOK_NAMES) {
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
        let (retry_defaults, timeout_defaults) = (RetryPolicy::default(), Timeouts::default());
        let retry = RetryPolicy {
            max_retries: count(retry, "options.retry", "maxRetries")?
                .map_or(retry_defaults.max_retries, |n| n.min(1_000) as u32),
            base_delay_ms: count(retry, "options.retry", "baseDelayMs")?.unwrap_or(retry_defaults.base_delay_ms),
            max_delay_ms: count(retry, "options.retry", "maxDelayMs")?.unwrap_or(retry_defaults.max_delay_ms),
        };
        let timeouts = Timeouts {
            first_byte_ms: timeout("firstByteMs", timeout_defaults.first_byte_ms)?,
            idle_ms: timeout("idleMs", timeout_defaults.idle_ms)?,
        };
        let limits = Limits {
            max_requests: count(limits, "options.limits", "maxRequests")?,
            max_cost: amount(limits, "options.limits", "maxCost")?,
        };
        let auto_approve = AutoApprove {
            read_only: flag(auto, "options.autoApprove", "readOnly")?.unwrap_or(false),
            all: flag(auto, "options.autoApprove", "all")?.unwrap_or(false),
        };
        let yolo = flag(options, "options", "yolo")?.unwrap_or(false);
        let max_consecutive_mistakes = count(options, "options", "maxConsecutiveMistakes")?
            .map_or(DEFAULT_MAX_CONSECUTIVE_MISTAKES, |n| n.min(u64::from(u32::MAX)) as u32);
        let parallel_tool_calling = flag(options, "options", "parallelToolCalling")?.unwrap_or(false);
        let presentation_interval_ms =
            count(options, "options", "presentationIntervalMs")?.unwrap_or(DEFAULT_PRESENTATION_INTERVAL_MS);
        let checkpoint_save = fns.get(checkpoint, "options.checkpoint", "save")?;
        let checkpoint_initial = fns.get(checkpoint, "options.checkpoint", "initial")?;
        let say = fns.get(options, "options", "say")?;
        let ask = fns.get(options, "options", "ask")?;
        let fetch = fns.get(model, "options.model", "fetch")?;
        let request = fns.get(model, "options.model", "request")?;
        let info = match object_member(model, "options.model", "info")? {
            Some(info) => model_info_from_json(info, "options.model.info")?,
            None => ModelInfo::default(),
        };
        let system_prompt = string(options, "options", "systemPrompt")?;
        let rules = string(options, "options", "rules")?;
        let environment = string(options, "options", "environment")?;
        let settings = ModelSettings::from_json(model, "options.model")?;
        let (tools, tool_slots) = tools(options, &fns)?;
        let config = TaskConfig {
            format,
            info,
            tools,
            auto_approve,
            yolo,
            max_consecutive_mistakes,
            parallel_tool_calling,
            tool_calling,
            retry,
            timeouts,
            limits,
            presentation_interval_ms,
            system_prompt,
            rules,
            environment,
            checkpoints: checkpoint_save.is_some() || checkpoint_initial.is_some(),
            hooks: HookSet {
                task_start: hook_slots[0].is_some(),
                task_cancel: hook_slots[1].is_some(),
                task_complete: hook_slots[2].is_some(),
                pre_tool_use: hook_slots[3].is_some(),
                post_tool_use: hook_slots[4].is_some(),
            },
        };
        let callbacks = CallbackSlots {
            say,
            ask,
            tools: tool_slots,
            fetch,
            request,
            checkpoint_save,
            checkpoint_initial,
            hooks: hook_slots,
        };
        Ok(Self { config, model: settings, callbacks })
    }
}

/// The host's functions, by count.
struct Functions(usize);

impl Functions {
    /// The slot at `value[field]`: absent, `null`, or a `{"$fn": n}` placeholder.
    fn get(&self, value: &Json, at: &str, field: &str) -> Result<Option<Slot>, String> {
        match value.get(field) {
            None | Some(Json::Null) => Ok(None),
            Some(slot) => slot
                .get("$fn")
                .and_then(Json::as_u64)
                .filter(|n| usize::try_from(*n).is_ok_and(|n| n < self.0))
                .and_then(|n| Slot::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("{at}.{field} must be a function")),
        }
    }
}

/// `options.tools`: the specs and, per tool, its name and callbacks' slots.
fn tools(options: &Json, fns: &Functions) -> Result<(Vec<ToolSpec>, Vec<ToolSlots>), String> {
    let mut specs = Vec::new();
    let mut slots = Vec::new();
    for (i, tool) in list(options, "options", "tools")?.iter().enumerate() {
        let at = format!("options.tools[{i}]");
        let tool = object(tool, &at)?;
        let name = required(tool, &at, "name")?;
        let execute = fns.get(tool, &at, "execute")?.ok_or_else(|| format!("{at}.execute is required"))?;
        let describe = fns.get(tool, &at, "describe")?;
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
            describe: describe.is_some(),
        });
        slots.push(ToolSlots { name, execute, describe });
    }
    Ok((specs, slots))
}
