//! `new Task(options)` read in the core (`TaskOptions::from_json`): every option, its
//! default, and the error that names it when it cannot work.

use clew::agent::{TaskOptions, ToolCalling};
use clew::json::Json;
use clew::stream::Format;

fn read(json: &str) -> Result<TaskOptions, String> {
    TaskOptions::from_json(&Json::parse(json).unwrap(), 8)
}

#[test]
fn absent_options_keep_their_defaults() {
    let options = read(r#"{"model":{}}"#).unwrap();
    let defaults = clew::agent::TaskConfig::default();
    let config = options.config;
    assert_eq!(config.format, Format::Anthropic);
    assert_eq!(config.retry, defaults.retry);
    assert_eq!(config.timeouts, defaults.timeouts);
    assert_eq!(config.max_consecutive_mistakes, 3);
    assert_eq!(config.presentation_interval_ms, defaults.presentation_interval_ms);
    assert!(!config.yolo && !config.parallel_tool_calling && !config.checkpoints);
    assert_eq!(config.tool_calling, ToolCalling::Xml);
    assert_eq!(options.callbacks, clew::agent::CallbackSlots::default());
}

#[test]
fn every_option_is_read() {
    let options = read(
        r#"{
        "model": {"format": "openai", "id": "gpt", "info": {"contextWindow": 1000, "inputPrice": 1.5},
                  "fetch": {"$fn": 0}, "request": {"$fn": 1}},
        "tools": [{"name": "lookup", "description": "Look up", "readOnly": true, "timeoutMs": 50,
                   "inputSchema": {"type": "object"}, "execute": {"$fn": 2}, "describe": {"$fn": 3},
                   "parameters": [{"name": "term", "description": "What", "required": true}, {"name": "scope"}]}],
        "say": {"$fn": 4}, "ask": {"$fn": 5},
        "autoApprove": {"readOnly": true, "all": true}, "yolo": true, "maxConsecutiveMistakes": 7,
        "parallelToolCalling": true, "toolCalling": "native",
        "retry": {"maxRetries": 2, "baseDelayMs": 10, "maxDelayMs": 20},
        "timeouts": {"firstByteMs": 0, "idleMs": 30},
        "limits": {"maxRequests": 4, "maxCost": 0.5},
        "presentationIntervalMs": 0, "systemPrompt": "S", "rules": "R", "environment": "E",
        "checkpoint": {"save": {"$fn": 6}},
        "hooks": {"postToolUse": {"$fn": 7}, "taskStart": null}
    }"#,
    )
    .unwrap();
    let c = &options.config;
    assert_eq!(c.format, Format::OpenAi);
    assert_eq!(c.info.context_window, Some(1000));
    assert_eq!(options.model.id, "gpt");
    let tool = &c.tools[0];
    assert_eq!((tool.name.as_str(), tool.read_only, tool.timeout_ms, tool.describe), ("lookup", true, Some(50), true));
    assert_eq!(tool.input_schema.as_deref(), Some(r#"{"type":"object"}"#));
    assert!(tool.parameters[0].required && !tool.parameters[1].required);
    assert!(c.auto_approve.read_only && c.auto_approve.all && c.yolo && c.parallel_tool_calling);
    assert_eq!(c.max_consecutive_mistakes, 7);
    assert_eq!(c.tool_calling, ToolCalling::Native);
    assert_eq!((c.retry.max_retries, c.retry.base_delay_ms, c.retry.max_delay_ms), (2, 10, 20));
    assert_eq!((c.timeouts.first_byte_ms, c.timeouts.idle_ms), (None, Some(30)), "0 turns a timeout off");
    assert_eq!((c.limits.max_requests, c.limits.max_cost), (Some(4), Some(0.5)));
    assert_eq!(c.presentation_interval_ms, 0);
    assert_eq!(
        (c.system_prompt.as_deref(), c.rules.as_deref(), c.environment.as_deref()),
        (Some("S"), Some("R"), Some("E"))
    );
    assert!(c.checkpoints && c.hooks.post_tool_use && !c.hooks.task_start);
    let slots = &options.callbacks;
    assert_eq!((slots.fetch, slots.request, slots.say, slots.ask), (Some(0), Some(1), Some(4), Some(5)));
    assert_eq!((slots.tools[0].execute, slots.tools[0].describe), (2, Some(3)));
    assert_eq!((slots.checkpoint_save, slots.checkpoint_initial), (Some(6), None));
    assert_eq!(slots.hooks, [None, None, None, None, Some(7)]);
}

#[test]
fn a_bad_option_is_an_error_that_names_it() {
    let cases = [
        (r#"[]"#, "needs an options object"),
        (r#"{}"#, "options.model is required"),
        (r#"{"model":{"format":"cohere"}}"#, "options.model.format"),
        (r#"{"model":{},"toolCalling":"json"}"#, "options.toolCalling"),
        (r#"{"model":{},"yolo":"yes"}"#, "options.yolo"),
        (r#"{"model":{},"retry":{"maxRetries":-1}}"#, "options.retry.maxRetries"),
        (r#"{"model":{},"retry":[]}"#, "options.retry"),
        (r#"{"model":{},"timeouts":{"idleMs":"soon"}}"#, "options.timeouts.idleMs"),
        (r#"{"model":{},"limits":{"maxCost":"a lot"}}"#, "options.limits.maxCost"),
        (r#"{"model":{},"say":"hello"}"#, "options.say must be a function"),
        (r#"{"model":{},"ask":{"$fn":8}}"#, "options.ask must be a function"),
        (r#"{"model":{},"hooks":{"preToolUse":1}}"#, "options.hooks.preToolUse must be a function"),
        (r#"{"model":{},"tools":{}}"#, "options.tools"),
        (r#"{"model":{},"tools":[{"execute":{"$fn":0}}]}"#, "options.tools[0].name"),
        (r#"{"model":{},"tools":[{"name":"a"}]}"#, "options.tools[0].execute is required"),
        (r#"{"model":{},"tools":[{"name":"a","execute":{"$fn":0},"describe":true}]}"#, "options.tools[0].describe"),
        (
            r#"{"model":{},"tools":[{"name":"a","execute":{"$fn":0},"parameters":[{}]}]}"#,
            "options.tools[0].parameters[0].name",
        ),
        (r#"{"model":{"info":{"contextWindow":"big"}}}"#, "options.model.info.contextWindow"),
        (r#"{"model":{},"checkpoint":{"save":0}}"#, "options.checkpoint.save"),
        (r#"{"model":{},"clock":{}}"#, "options.clock.now is required"),
        (r#"{"model":{},"clock":{"now":1}}"#, "options.clock.now must be a function"),
        (r#"{"model":{},"clock":{"now":{"$fn":0},"setTimeout":{"$fn":1}}}"#, "go together"),
    ];
    for (json, named) in cases {
        let error = read(json).err().unwrap_or_else(|| panic!("{json} was accepted"));
        assert!(error.contains(named), "{json}: {error:?} does not name {named}");
    }
}

#[test]
fn a_clock_gives_now_and_optionally_its_timers() {
    let only_now = read(r#"{"model":{},"clock":{"now":{"$fn":3}}}"#).unwrap();
    assert_eq!(only_now.callbacks.clock, Some(clew::agent::ClockSlots { now: 3, timers: None }));
    let timers =
        read(r#"{"model":{},"clock":{"now":{"$fn":0},"setTimeout":{"$fn":1},"clearTimeout":{"$fn":2}}}"#).unwrap();
    assert_eq!(timers.callbacks.clock, Some(clew::agent::ClockSlots { now: 0, timers: Some((1, 2)) }));
}
