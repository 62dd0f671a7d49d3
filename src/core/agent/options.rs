//! `new Task(options)` read in the core: the options as JSON (made by the host, with each
//! function replaced by a `{"$fn": n}` placeholder, its place in the host's list of
//! functions) to a [`TaskConfig`], the model's settings, and where each callback sits.
//! Every decision about an option is made here, so native tests reach every option and
//! every error; the binding only maps the slots back to its functions.

use super::config::{
    AutoApprove, HookSet, Limits, McpServerSettings, ParamSpec, RetryPolicy, TaskConfig, Timeouts, ToolCalling,
    ToolSpec, DEFAULT_MAX_CONSECUTIVE_MISTAKES, DEFAULT_PRESENTATION_INTERVAL_MS,
};
use super::context::texts::SUMMARIZE_TASK;
use super::context::{ContextConfig, Strategy};
use super::mcp;
use crate::core::first::First;
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
    /// `options.persist`.
    pub persist: Option<Slot>,
    /// `options.clock`: its `now`, `setTimeout` and `clearTimeout` (the task's clock, for
    /// fake timers and replay; absent, the host's own).
    pub clock: Option<ClockSlots>,
    /// `options.contextManagement.summarize.readRequiredFiles`.
    pub read_required_files: Option<Slot>,
    /// Per MCP server of [`TaskConfig::mcp_servers`], in order, where its client sits in the
    /// host's list of clients (`None`: the host pairs that server with its client itself).
    pub mcp_clients: Vec<Option<Slot>>,
}

/// Where `options.clock`'s functions sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockSlots {
    /// `now()`: the time in ms since the epoch.
    pub now: Slot,
    /// `setTimeout(callback, ms)`, with `clear_timeout`; absent, the host's timers.
    pub timers: Option<(Slot, Slot)>,
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
        let fns = Functions(functions);
        let options = object(options, "options").map_err(|_| "new Task(options) needs an options object".to_owned())?;
        let model = object_member(options, "options", "model")?.ok_or("options.model is required")?;
        let mut first = First::default();
        let format = match first.take(string(model, "options.model", "format")).as_deref() {
            None => Format::Anthropic,
            Some(name) => name.parse().unwrap_or_else(|_| {
                first.note(FORMAT_NAMES.into());
                Format::Anthropic
            }),
        };
        let empty = Json::object();
        let mut section = |name: &str| first.take(object_member(options, "options", name)).unwrap_or(&empty);
        let (auto, retry, timeouts) = (section("autoApprove"), section("retry"), section("timeouts"));
        let (limits, checkpoint, hooks) = (section("limits"), section("checkpoint"), section("hooks"));
        let tool_calling = match first.take(string(options, "options", "toolCalling")).as_deref() {
            None | Some("xml") => ToolCalling::Xml,
            Some("native") => ToolCalling::Native,
            Some(_) => {
                first.note("options.toolCalling must be \"xml\" or \"native\"".into());
                ToolCalling::Xml
            }
        };
        let mut hook_slots: [Option<Slot>; 5] = Default::default();
        for (slot, name) in hook_slots.iter_mut().zip(HOOK_NAMES) {
            *slot = first.take(fns.get(hooks, "options.hooks", name));
        }
        // NOTE: 0 turns a timeout off; absent keeps the default.
        let mut timeout = |key: &str, default: Option<u64>| match first.take(count(timeouts, "options.timeouts", key)) {
            Some(0) => None,
            Some(ms) => Some(ms),
            None => default,
        };
        let timeout_defaults = Timeouts::default();
        let timeouts = Timeouts {
            first_byte_ms: timeout("firstByteMs", timeout_defaults.first_byte_ms),
            idle_ms: timeout("idleMs", timeout_defaults.idle_ms),
        };
        let mcp_listing_ms = timeout("mcpListingMs", Some(mcp::DEFAULT_MCP_LISTING_MS));
        let retry_defaults = RetryPolicy::default();
        let retry = RetryPolicy {
            max_retries: first
                .take(count(retry, "options.retry", "maxRetries"))
                .map_or(retry_defaults.max_retries, |n| n.min(1_000) as u32),
            base_delay_ms: first
                .take(count(retry, "options.retry", "baseDelayMs"))
                .unwrap_or(retry_defaults.base_delay_ms),
            max_delay_ms: first
                .take(count(retry, "options.retry", "maxDelayMs"))
                .unwrap_or(retry_defaults.max_delay_ms),
        };
        let limits = Limits {
            max_requests: first.take(count(limits, "options.limits", "maxRequests")),
            max_cost: first.take(amount(limits, "options.limits", "maxCost")),
        };
        let auto_approve = AutoApprove {
            read_only: first.take(flag(auto, "options.autoApprove", "readOnly")).unwrap_or(false),
            all: first.take(flag(auto, "options.autoApprove", "all")).unwrap_or(false),
        };
        let yolo = first.take(flag(options, "options", "yolo")).unwrap_or(false);
        let max_consecutive_mistakes = first
            .take(count(options, "options", "maxConsecutiveMistakes"))
            .map_or(DEFAULT_MAX_CONSECUTIVE_MISTAKES, |n| n.min(u64::from(u32::MAX)) as u32);
        let parallel_tool_calling = first.take(flag(options, "options", "parallelToolCalling")).unwrap_or(false);
        let presentation_interval_ms =
            first.take(count(options, "options", "presentationIntervalMs")).unwrap_or(DEFAULT_PRESENTATION_INTERVAL_MS);
        let checkpoint_save = first.take(fns.get(checkpoint, "options.checkpoint", "save"));
        let checkpoint_initial = first.take(fns.get(checkpoint, "options.checkpoint", "initial"));
        let say = first.take(fns.get(options, "options", "say"));
        let ask = first.take(fns.get(options, "options", "ask"));
        let persist = first.take(fns.get(options, "options", "persist"));
        let clock = clock(options, &fns, &mut first);
        let fetch = first.take(fns.get(model, "options.model", "fetch"));
        let request = first.take(fns.get(model, "options.model", "request"));
        let info = match first.take(object_member(model, "options.model", "info")) {
            Some(info) => first.take(model_info_from_json(info, "options.model.info").map(Some)).unwrap_or_default(),
            None => ModelInfo::default(),
        };
        let system_prompt = first.take(string(options, "options", "systemPrompt"));
        let rules = first.take(string(options, "options", "rules"));
        let environment = first.take(string(options, "options", "environment"));
        let settings = first.take(ModelSettings::from_json(model, "options.model").map(Some)).unwrap_or_default();
        let (tools, tool_slots) = tools(options, &fns, &mut first);
        let (mcp_servers, mcp_clients) = mcp_servers(options, &mut first);
        let context_at = options.get("contextManagement");
        let summarize = context_at.and_then(|c| c.get("summarize"));
        let read_required_files = match summarize {
            Some(summarize) if summarize.is_object() => {
                first.take(fns.get(summarize, "options.contextManagement.summarize", "readRequiredFiles"))
            }
            _ => None,
        };
        let context = first
            .take(
                ContextConfig::from_json(options, &settings.id, &info, format, read_required_files.is_some()).map(Some),
            )
            .unwrap_or_default();
        if let Some(i) = tools.iter().position(|t| !mcp_servers.is_empty() && mcp::is_mcp_tool(&t.name)) {
            first.note(format!("options.tools[{i}].name names a tool of the MCP servers"));
        }
        let summarizes = matches!(context.strategy, Strategy::Summarize | Strategy::Auto);
        if let Some(i) = tools.iter().position(|t| summarizes && t.name == SUMMARIZE_TASK) {
            first.note(format!(
                "options.tools[{i}].name names the tool the summarize strategy gives the model ({SUMMARIZE_TASK})"
            ));
        }
        first.or(())?;
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
            persist: persist.is_some(),
            asks: ask.is_some(),
            hooks: HookSet {
                task_start: hook_slots[0].is_some(),
                task_cancel: hook_slots[1].is_some(),
                task_complete: hook_slots[2].is_some(),
                pre_tool_use: hook_slots[3].is_some(),
                post_tool_use: hook_slots[4].is_some(),
            },
            mcp_servers,
            mcp_listing_ms,
            context,
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
            persist,
            clock,
            read_required_files,
            mcp_clients,
        };
        Ok(Self { config, model: settings, callbacks })
    }
}

/// Reads `options.mcpServers`, and where each server's client sits. The host keeps the
/// clients: in place of a client the options hold `{"$mcp": n}`, its place in the host's
/// list of clients (what the JavaScript host makes of any object with `listTools` and
/// `callTool` methods, wherever it is), or `true` from a host that pairs servers with their
/// clients itself.
fn mcp_servers(options: &Json, first: &mut First) -> (Vec<McpServerSettings>, Vec<Option<Slot>>) {
    let servers = first.take(list(options, "options", "mcpServers").map(Some)).unwrap_or_default();
    let mut settings = Vec::new();
    let mut clients = Vec::new();
    for (i, server) in servers.iter().enumerate() {
        let name = |server: &Json| server.get("name").and_then(Json::as_str).map(str::to_owned);
        let unique = !servers.iter().take(i).any(|s| name(s) == name(server));
        let names =
            server.get("autoApprove").map(|a| a.as_array().is_some_and(|a| a.iter().all(|t| t.as_str().is_some())));
        let client = server.get("client").and_then(|c| c.get("$mcp")).and_then(Json::as_u64);
        let client = client.and_then(|n| Slot::try_from(n).ok());
        let problem = if !(name(server).is_some_and(|n| mcp::valid_server_name(&n)) && unique) {
            Some(("name", "1 to 64 letters, digits, _ or - (without \"0mcp0\"), unique among the servers"))
        } else if !(client.is_some() || server.get("client").and_then(Json::as_bool) == Some(true)) {
            Some(("client", "a connected MCP client (with listTools and callTool methods)"))
        } else if names == Some(false) {
            Some(("autoApprove", "an array of tool names"))
        } else if server.get("timeoutMs").is_some_and(|t| t.as_u64().is_none()) {
            Some(("timeoutMs", "a whole number of milliseconds"))
        } else {
            None
        };
        if let Some((field, what)) = problem {
            first.note(format!("options.mcpServers[{i}].{field} must be {what}"));
        }
        let mut auto_approve = Vec::new();
        for tool in server.get("autoApprove").and_then(Json::as_array).unwrap_or_default() {
            if let Some(tool) = tool.as_str() {
                auto_approve.push(tool.to_owned());
            }
        }
        settings.push(McpServerSettings {
            name: name(server).unwrap_or_default(),
            auto_approve,
            timeout_ms: server.get("timeoutMs").and_then(Json::as_u64).filter(|&ms| ms > 0),
        });
        clients.push(client);
    }
    (settings, clients)
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

/// `options.clock`: `now` is required; `setTimeout` and `clearTimeout` come together or not
/// at all (errors noted in `first`).
fn clock(options: &Json, fns: &Functions, first: &mut First) -> Option<ClockSlots> {
    let clock = first.take(object_member(options, "options", "clock"))?;
    let at = "options.clock";
    let now = first.take(fns.get(clock, at, "now"));
    let set = first.take(fns.get(clock, at, "setTimeout"));
    let clear = first.take(fns.get(clock, at, "clearTimeout"));
    let timers = match (set, clear) {
        (Some(set), Some(clear)) => Some((set, clear)),
        (None, None) => None,
        _ => {
            first.note(format!("{at}.setTimeout and {at}.clearTimeout go together"));
            None
        }
    };
    let Some(now) = now else {
        first.note(format!("{at}.now is required"));
        return None;
    };
    Some(ClockSlots { now, timers })
}

/// `options.tools`: the specs and, per tool, its name and callbacks' slots (errors noted in
/// `first`; a tool that cannot be read is left out).
fn tools(options: &Json, fns: &Functions, first: &mut First) -> (Vec<ToolSpec>, Vec<ToolSlots>) {
    let mut specs = Vec::new();
    let mut slots = Vec::new();
    for (i, tool) in first.take(list(options, "options", "tools").map(Some)).unwrap_or_default().iter().enumerate() {
        let at = format!("options.tools[{i}]");
        let Some(tool) = first.take(object(tool, &at).map(Some)) else { continue };
        let name = first.take(required(tool, &at, "name").map(Some)).unwrap_or_default();
        let execute = first.take(fns.get(tool, &at, "execute"));
        if execute.is_none() {
            first.note(format!("{at}.execute is required"));
        }
        let describe = first.take(fns.get(tool, &at, "describe"));
        let mut parameters = Vec::new();
        for (j, param) in first.take(list(tool, &at, "parameters").map(Some)).unwrap_or_default().iter().enumerate() {
            let pat = format!("{at}.parameters[{j}]");
            let Some(param) = first.take(object(param, &pat).map(Some)) else { continue };
            parameters.push(ParamSpec {
                name: first.take(required(param, &pat, "name").map(Some)).unwrap_or_default(),
                description: first.take(string(param, &pat, "description")).unwrap_or_default(),
                required: first.take(flag(param, &pat, "required")).unwrap_or(false),
            });
        }
        specs.push(ToolSpec {
            name: name.clone(),
            description: first.take(string(tool, &at, "description")).unwrap_or_default(),
            parameters,
            input_schema: first.take(object_member(tool, &at, "inputSchema")).map(Json::to_string),
            read_only: first.take(flag(tool, &at, "readOnly")).unwrap_or(false),
            idempotent: first.take(flag(tool, &at, "idempotent")).unwrap_or(false),
            timeout_ms: first.take(count(tool, &at, "timeoutMs")),
            describe: describe.is_some(),
            ..ToolSpec::default()
        });
        slots.push(ToolSlots { name, execute: execute.unwrap_or_default(), describe });
    }
    (specs, slots)
}

/// What `options.model.format` may be.
const FORMAT_NAMES: &str =
    "options.model.format must be \"anthropic\", \"openai\", \"openai-responses\", \"gemini\" or \"chunks\"";
