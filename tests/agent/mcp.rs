//! MCP servers as tools (issue 19; AGENT-LOOP §6.4, §9, §10.1, §13.1): the listing before
//! each request, `use_mcp_tool` and `access_mcp_resource` in XML mode, `<server>0mcp0<tool>`
//! in native mode, the gates, approvals and the reference's says.

use crate::harness::*;
use clew::agent::{
    AskAnswer, AskResponse, Effect, McpServerSettings, MessageKind, SayKind, Task, TaskConfig, ToolCalling, ToolOutput,
    ToolSpec,
};
use clew::conversation::{Content, ContentBlock};
use serde_json::json;

/// The listing of the server `notes` (a read-only `lookup`, a `write_note`, a `ping` its
/// options auto-approve, a resource) and a failed server `broken`, as the host gives it.
fn catalog() -> String {
    let lookup_schema = json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]});
    json!({
        "servers": [{
            "name": "notes",
            "tools": [
                {"name": "lookup", "description": "Look a key up", "inputSchema": lookup_schema, "annotations": {"readOnlyHint": true}},
                {"name": "write_note", "description": "Write a note", "inputSchema": {"type": "object", "required": ["text"]}},
                {"name": "ping", "title": "Ping", "inputSchema": {"type": "object"}}
            ],
            "resources": [{"uri": "notes://all", "name": "all", "description": "Every note"}],
            "templates": []
        }],
        "errors": [{"server": "broken", "message": "it did not list its tools within 10 s"}]
    })
    .to_string()
}

fn mcp_config() -> TaskConfig {
    let notes = McpServerSettings { name: "notes".into(), auto_approve: vec!["ping".into()], timeout_ms: None };
    let broken = McpServerSettings { name: "broken".into(), ..McpServerSettings::default() };
    TaskConfig { mcp_servers: vec![notes, broken], ..config() }
}

fn harness(config: TaskConfig, replies: Vec<Reply>) -> Harness {
    let mut h = Harness::new(config, replies);
    h.mcp_catalog = Some(catalog());
    h
}

fn call(tool: &str, arguments: &str) -> String {
    format!("<use_mcp_tool>\n<server_name>notes</server_name>\n<tool_name>{tool}</tool_name>\n<arguments>{arguments}</arguments>\n</use_mcp_tool>")
}

fn kinds_of(h: &Harness, pick: fn(&MessageKind) -> bool) -> Vec<String> {
    h.task.messages().iter().filter(|m| pick(&m.kind)).map(|m| m.text.clone()).collect()
}

#[test]
fn mcp_servers_are_listed_before_the_first_request_and_described_in_the_system_prompt() {
    let mut h = harness(mcp_config(), vec![completion("ok")]);
    h.start("t");
    let listed = h.position(|e| matches!(e, Effect::ListMcpServers { .. })).unwrap();
    let opened = h.position(|e| matches!(e, Effect::OpenStream { .. })).unwrap();
    assert!(listed < opened, "the listing comes before the request");
    let system = &h.requests[0].system;
    assert!(system.contains("# MCP servers"), "{system}");
    assert!(system.contains("## notes\n\n### Tools\n- lookup: Look a key up"), "{system}");
    assert!(system.contains("## use_mcp_tool") && system.contains("<server_name>...</server_name>"), "{system}");
    assert!(system.contains("## access_mcp_resource"));
    assert!(!system.contains("broken"));
}

#[test]
fn a_server_that_fails_to_list_is_reported_by_name_and_left_out() {
    let mut h = harness(mcp_config(), vec![completion("ok")]);
    h.start("t");
    let errors = kinds_of(&h, |k| *k == MessageKind::Say(SayKind::Error));
    assert_eq!(errors, vec!["The MCP server \"broken\" is left out: it did not list its tools within 10 s"]);
    assert!(matches!(h.outcome(), Some(clew::agent::Outcome::Completed { .. })));
}

#[test]
fn without_a_connected_server_the_mcp_tools_are_not_known() {
    let mut h = Harness::new(mcp_config(), vec![text(&[&call("lookup", "{}")]), completion("ok")]);
    h.mcp_catalog = Some(json!({"servers": [], "errors": [{"server": "notes", "message": "down"}]}).to_string());
    h.start("t");
    assert!(!h.requests[0].system.contains("use_mcp_tool"));
    assert!(h.tool_calls.is_empty());
    assert_eq!(h.task.messages().iter().filter(|m| m.kind == MessageKind::Say(SayKind::Text)).count(), 2);
}

#[test]
fn use_mcp_tool_asks_use_mcp_server_and_runs_with_the_reference_says() {
    let mut h = harness(mcp_config(), vec![text(&[&call("write_note", r#"{"text":"hi"}"#)]), completion("ok")]);
    h.tool = Box::new(|_, _| Some(ToolOutput::text("saved")));
    h.start("t");
    let asks = kinds_of(&h, |k| *k == MessageKind::Ask(clew::agent::AskKind::UseMcpServer));
    assert_eq!(
        asks,
        vec![r#"{"type":"use_mcp_tool","serverName":"notes","toolName":"write_note","arguments":"{\"text\":\"hi\"}"}"#]
    );
    assert_eq!(
        h.tool_calls,
        vec![(
            "use_mcp_tool".to_owned(),
            vec![
                ("server_name".to_owned(), "notes".to_owned()),
                ("tool_name".to_owned(), "write_note".to_owned()),
                ("arguments".to_owned(), r#"{"text":"hi"}"#.to_owned()),
            ]
        )]
    );
    let kinds = h.kinds();
    let started = kinds.iter().position(|k| k == "say mcp_server_request_started").unwrap();
    let response = kinds.iter().position(|k| k == "say mcp_server_response").unwrap();
    assert!(started < response);
    assert_eq!(h.says_of("mcp_server_response")[0].text, "saved");
    assert_eq!(h.history_texts(2), vec!["[use_mcp_tool for 'notes'] Result:\nsaved"]);
}

#[test]
fn a_denied_mcp_call_never_reaches_the_server() {
    let mut h = harness(mcp_config(), vec![text(&[&call("write_note", r#"{"text":"hi"}"#)]), completion("ok")]);
    h.ask = Box::new(|m| (!m.is_partial()).then(|| AskAnswer::button(AskResponse::No)));
    h.start("t");
    assert!(h.tool_calls.is_empty());
    assert!(h.history_texts(2)[0].starts_with("[use_mcp_tool for 'notes'] Result:\n"));
    assert!(h.history_texts(2)[0].contains(clew::agent::TOOL_DENIED));
}

#[test]
fn the_server_autoapprove_list_and_read_only_hints_run_without_asking() {
    let config = TaskConfig { auto_approve: clew::agent::AutoApprove { read_only: true, all: false }, ..mcp_config() };
    let reply = format!("{}\n{}", call("ping", "{}"), call("lookup", r#"{"key":"a"}"#));
    let mut h = harness(TaskConfig { parallel_tool_calling: true, ..config }, vec![text(&[&reply]), completion("ok")]);
    h.ask = Box::new(|m| {
        assert!(m.is_partial() || m.kind != MessageKind::Ask(clew::agent::AskKind::UseMcpServer), "asked: {}", m.text);
        (!m.is_partial()).then(|| AskAnswer::button(AskResponse::Yes))
    });
    h.start("t");
    assert_eq!(h.tool_calls.len(), 2);
    assert_eq!(h.says_of("use_mcp_server").len(), 2);
}

#[test]
fn read_only_hint_without_auto_approve_read_only_still_asks() {
    let mut h = harness(mcp_config(), vec![text(&[&call("lookup", r#"{"key":"a"}"#)]), completion("ok")]);
    h.start("t");
    assert_eq!(kinds_of(&h, |k| *k == MessageKind::Ask(clew::agent::AskKind::UseMcpServer)).len(), 1);
}

#[test]
fn mcp_calls_that_cannot_run_are_mistakes_with_an_error_result() {
    let cases = [
        (call("lookup", "{key: a}"), "'lookup' on the MCP server 'notes' cannot run: its arguments are not a valid JSON object"),
        (call("lookup", "[1]"), "its arguments are not a valid JSON object"),
        (call("nothing", "{}"), "'nothing' on the MCP server 'notes' cannot run: the server has no tool of that name"),
        (call("lookup", r#"{"other":1}"#), "the tool needs the argument 'key'"),
        (call("lookup", r#"{"key":null}"#), "the tool needs the argument 'key'"),
        ("<use_mcp_tool><server_name>elsewhere</server_name><tool_name>x</tool_name><arguments>{}</arguments></use_mcp_tool>".to_owned(), "the MCP server 'elsewhere' cannot run: no connected MCP server has that name"),
        ("<use_mcp_tool><server_name>notes</server_name><tool_name>lookup</tool_name></use_mcp_tool>".to_owned(), "arguments"),
        ("<access_mcp_resource><server_name>nope</server_name><uri>a://b</uri></access_mcp_resource>".to_owned(), "the MCP server 'nope' cannot run: no connected MCP server has that name"),
    ];
    for (reply, expected) in cases {
        let mut h = harness(mcp_config(), vec![text(&[&reply]), completion("ok")]);
        h.pause = Some(Box::new(|task: &Task| task.history().len() >= 3));
        h.start("t");
        assert!(h.tool_calls.is_empty(), "{reply}");
        let result = h.history_texts(2).join("\n");
        assert!(result.contains(expected), "{reply}: {result}");
        assert_eq!(h.task.mistakes(), 1, "{reply}");
        let errors = kinds_of(&h, |k| *k == MessageKind::Say(SayKind::Error));
        assert!(errors.iter().any(|e| e.contains(expected) || e.contains("arguments")), "{reply}: {errors:?}");
    }
}

#[test]
fn an_mcp_error_result_becomes_an_error_result_and_a_response_say_carries_text_and_images() {
    let mut h = harness(
        TaskConfig { yolo: true, ..mcp_config() },
        vec![
            text(&[&call("write_note", r#"{"text":"a"}"#)]),
            text(&[&call("lookup", r#"{"key":"b"}"#)]),
            completion("ok"),
        ],
    );
    let mut n = 0;
    h.tool = Box::new(move |_, _| {
        n += 1;
        Some(if n == 1 {
            ToolOutput { text: "it failed".into(), images: Vec::new(), is_error: true }
        } else {
            ToolOutput {
                text: "a picture".into(),
                images: vec![clew::conversation::ImageSource::from_url_text("data:image/png;base64,AAAA")],
                is_error: false,
            }
        })
    });
    h.start("t");
    assert!(h.history_texts(2)[0].contains("Error executing use_mcp_tool: it failed"), "{:?}", h.history_texts(2));
    let response = &h.says_of("mcp_server_response")[0];
    assert_eq!((response.text.as_str(), response.images.len()), ("a picture", 1));
    let blocks = h.task.history()[4].content.blocks();
    assert!(blocks.iter().any(|b| matches!(b, ContentBlock::Image { .. })), "{blocks:?}");
}

#[test]
fn access_mcp_resource_reads_as_a_read_only_call() {
    let config = TaskConfig { auto_approve: clew::agent::AutoApprove { read_only: true, all: false }, ..mcp_config() };
    let read = "<access_mcp_resource><server_name>notes</server_name><uri>notes://all</uri></access_mcp_resource>";
    let mut h = harness(config, vec![text(&[read]), completion("ok")]);
    h.tool = Box::new(|_, _| Some(ToolOutput::text("all the notes")));
    h.start("t");
    assert_eq!(h.tool_calls[0].0, "access_mcp_resource");
    assert_eq!(
        h.says_of("use_mcp_server")[0].text,
        r#"{"type":"access_mcp_resource","serverName":"notes","uri":"notes://all"}"#
    );
    assert_eq!(h.history_texts(2), vec!["[access_mcp_resource for 'notes'] Result:\nall the notes"]);
}

#[test]
fn native_mode_sends_each_server_tool_as_server0mcp0tool_and_runs_it_as_use_mcp_tool() {
    let config = TaskConfig { tool_calling: ToolCalling::Native, yolo: true, ..mcp_config() };
    let call = line(
        json!({"type": "tool_calls", "tool_call": {"call_id": "c1", "function": {"id": "c1", "name": "notes0mcp0lookup", "arguments": "{\"key\":\"a\"}"}}}),
    );
    let mut h = harness(config, vec![Reply::Bytes(vec![call]), completion("ok")]);
    h.tool = Box::new(|_, _| Some(ToolOutput::text("value of a")));
    h.start("t");
    let tools = &h.requests[0].tools;
    let lookup = tools.iter().find(|t| t.name == "notes0mcp0lookup").expect("the MCP tool is sent");
    let schema: serde_json::Value = serde_json::from_str(&lookup.input_schema.to_string()).unwrap();
    assert_eq!(schema, json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}));
    assert!(tools.iter().any(|t| t.name == "notes0mcp0write_note"));
    assert!(!tools.iter().any(|t| t.name == "use_mcp_tool"));
    assert_eq!(h.tool_calls[0].1[2], ("arguments".to_owned(), r#"{"key":"a"}"#.to_owned()));
    let result = h.task.history()[2].content.blocks();
    assert!(
        matches!(&result[0], ContentBlock::ToolResult { tool_use_id, content: Content::Text(t), .. }
        if tool_use_id == "c1" && t == "[use_mcp_tool for 'notes'] Result:\nvalue of a"),
        "{result:?}"
    );
}

#[test]
fn a_new_catalog_after_a_tool_list_change_reaches_the_next_request() {
    let config = TaskConfig { yolo: true, ..mcp_config() };
    let mut h = harness(config, vec![text(&[&call("write_note", r#"{"text":"a"}"#)]), completion("ok")]);
    h.tool = Box::new(|_, _| Some(ToolOutput::text("saved")));
    // NOTE: the server said its tools changed while the call ran.
    h.later_listings.push_back(catalog().replace("Look a key up", "Find a key"));
    h.start("t");
    assert!(h.requests[0].system.contains("Look a key up"));
    assert!(h.requests[1].system.contains("Find a key"), "{}", h.requests[1].system);
    assert_eq!(h.effects.iter().filter(|e| matches!(e, Effect::ListMcpServers { .. })).count(), 2);
}

#[test]
fn a_user_tool_named_like_an_mcp_tool_runs_as_its_own_without_servers() {
    let tool = ToolSpec { name: "use_mcp_tool".into(), ..ToolSpec::default() };
    let config = TaskConfig { tools: vec![tool], yolo: true, ..config() };
    let mut h = Harness::new(config, vec![text(&[&call("x", "{}")]), completion("ok")]);
    h.start("t");
    assert_eq!(h.tool_calls.len(), 1);
    assert!(h.says_of("mcp_server_request_started").is_empty());
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::ListMcpServers { .. })));
}

#[test]
fn a_restored_task_knows_the_mcp_tools_and_needs_the_servers() {
    let mut h = harness(mcp_config(), vec![text(&[&call("write_note", r#"{"text":"a"}"#)]), completion("ok")]);
    h.ask = Box::new(|_| None);
    h.start("t");
    let snapshot = h.task.snapshot();
    assert!(snapshot.contains(r#""tools":["read","write","use_mcp_tool"]"#), "{snapshot}");
    let missing = Task::restore(&snapshot, config()).unwrap_err();
    assert_eq!(missing.kind, clew::agent::SnapshotErrorKind::ToolMissing);
    let mut restored = harness(mcp_config(), vec![completion("ok")]);
    restored.task = Task::restore(&snapshot, mcp_config()).unwrap();
    restored.tool = Box::new(|_, _| Some(ToolOutput::text("saved")));
    restored.task.resume(restored.now);
    restored.run();
    assert_eq!(restored.tool_calls.len(), 1, "the approval asked again, answered yes, ran");
    assert!(matches!(restored.outcome(), Some(clew::agent::Outcome::Completed { .. })));
}

/// In YOLO mode, so the read-only `lookup` runs without asking.
fn yolo_config() -> TaskConfig {
    TaskConfig { yolo: true, ..mcp_config() }
}

/// A task stopped while its read-only `lookup` call runs.
fn running_a_read() -> Harness {
    let mut h = harness(yolo_config(), vec![text(&[&call("lookup", r#"{"key":"a"}"#)]), completion("ok")]);
    h.tool = Box::new(|_, _| None);
    h.pause = Some(at_waiting_point(1));
    h.start("t");
    assert_eq!(h.task.state(), "tool", "the read-only call runs when the task is stored");
    h
}

/// Restores `snapshot` (taken at `now`) and checks the read runs again and the task completes.
fn restored_runs_the_read_again(snapshot: &str, now: u64) {
    let mut restored = harness(yolo_config(), vec![completion("ok")]);
    restored.task = Task::restore(snapshot, yolo_config()).unwrap();
    restored.now = now;
    restored.tool = Box::new(|_, _| Some(ToolOutput::text("found")));
    restored.task.resume(restored.now);
    restored.run();
    assert_eq!(restored.tool_calls.len(), 1, "the catalog says the call only reads: it runs again");
    assert!(matches!(restored.outcome(), Some(clew::agent::Outcome::Completed { .. })));
}

#[test]
fn a_restored_task_knows_its_servers_tools_before_it_lists_them_again() {
    let mut h = running_a_read();
    let snapshot = h.task.snapshot();
    assert!(snapshot.contains(r#""mcp":{"#) && snapshot.contains(r#""name":"lookup""#), "{snapshot}");
    restored_runs_the_read_again(&snapshot, h.now);
}

fn options_error(options: serde_json::Value) -> String {
    let options = clew::json::Json::parse(&options.to_string()).unwrap();
    clew::agent::TaskOptions::from_json(&options, 1).unwrap_err()
}

#[test]
fn the_options_refuse_a_user_tool_named_like_an_mcp_tool_beside_servers() {
    let error = options_error(
        json!({"model": {"format": "chunks"}, "mcpServers": [{"name": "a", "client": true}], "tools": [{"name": "use_mcp_tool", "execute": {"$fn": 0}}]}),
    );
    assert_eq!(error, "options.tools[0].name names a tool of the MCP servers");
    let without = json!({"model": {"format": "chunks"}, "mcpServers": [], "tools": [{"name": "use_mcp_tool", "execute": {"$fn": 0}}]});
    let without = clew::json::Json::parse(&without.to_string()).unwrap();
    assert!(clew::agent::TaskOptions::from_json(&without, 1).unwrap().config.mcp_servers.is_empty());
}

#[test]
fn the_options_check_each_mcp_server() {
    let model = json!({"format": "chunks"});
    let cases = [
        (json!([{"name": "a b", "client": true}]), "options.mcpServers[0].name must be 1 to 64 letters"),
        (json!([{"name": "x0mcp0y", "client": true}]), "options.mcpServers[0].name must be"),
        (json!([{"name": "a", "client": true}, {"name": "a", "client": true}]), "options.mcpServers[1].name must be"),
        (json!([{"client": true}]), "options.mcpServers[0].name must be"),
        (json!([{"name": "a", "client": false}]), "options.mcpServers[0].client must be a connected MCP client"),
        (
            json!([{"name": "a", "client": true, "autoApprove": ["t", 3]}]),
            "options.mcpServers[0].autoApprove must be an array of tool names",
        ),
        (
            json!([{"name": "a", "client": true, "timeoutMs": -1}]),
            "options.mcpServers[0].timeoutMs must be a whole number",
        ),
        (json!([{"name": "a", "client": true, "autoApprove": "t"}]), "options.mcpServers[0].autoApprove must be"),
        (json!({"name": "a"}), "options.mcpServers must be an array"),
        (json!([7]), "options.mcpServers[0]"),
    ];
    for (servers, expected) in cases {
        let error = options_error(json!({"model": model, "mcpServers": servers}));
        assert!(error.starts_with(expected), "{servers}: {error}");
    }
    let fine = json!({"model": model, "mcpServers": [{"name": "gh-1_a", "client": true, "autoApprove": ["t"], "timeoutMs": 5}]});
    let fine = clew::json::Json::parse(&fine.to_string()).unwrap();
    let settings = clew::agent::TaskOptions::from_json(&fine, 1).unwrap().config.mcp_servers;
    assert_eq!(
        settings,
        vec![McpServerSettings { name: "gh-1_a".into(), auto_approve: vec!["t".into()], timeout_ms: Some(5) }]
    );
}

#[test]
fn native_mode_offers_access_mcp_resource_only_when_a_server_has_resources() {
    for resources in [true, false] {
        let config = TaskConfig { tool_calling: ToolCalling::Native, ..mcp_config() };
        let mut h = Harness::new(config, vec![completion("ok")]);
        let listing = if resources {
            catalog()
        } else {
            catalog().replace(r#"{"description":"Every note","name":"all","uri":"notes://all"}"#, "")
        };
        assert_eq!(listing == catalog(), resources);
        h.mcp_catalog = Some(listing);
        h.start("t");
        let offered = h.requests[0].tools.iter().any(|t| t.name == "access_mcp_resource");
        assert_eq!(offered, resources);
    }
}

/// A task started with `config`, and the id of the listing it asks for before its request.
fn started_listing(config: TaskConfig) -> (Task, u64) {
    let mut task = Task::new(config).unwrap();
    task.start(0, "t", Vec::new());
    let listing = std::iter::from_fn(|| task.poll_effect())
        .find_map(|e| match e {
            Effect::ListMcpServers { id } => Some(id),
            _ => None,
        })
        .expect("a listing before the request");
    (task, listing)
}

#[test]
fn the_first_byte_timeout_starts_when_the_stream_opens_after_a_slow_listing() {
    let config =
        TaskConfig { timeouts: clew::agent::Timeouts { first_byte_ms: Some(50), idle_ms: None }, ..mcp_config() };
    let (mut task, listing) = started_listing(config);
    assert_eq!(task.state(), "listing", "no stream is open while the servers are listed");
    task.handle_timeout(5_000);
    assert_eq!(task.state(), "listing", "the first-byte timeout does not run while listing");
    // NOTE: the listing took 10 s, far past the first-byte timeout.
    task.handle_mcp_servers(10_000, listing, &catalog());
    let effects: Vec<Effect> = std::iter::from_fn(|| task.poll_effect()).collect();
    assert!(effects.iter().any(|e| matches!(e, Effect::OpenStream { .. })));
    assert!(effects.iter().any(|e| matches!(e, Effect::WakeAt(Some(10_050)))), "{effects:?}");
    task.handle_timeout(10_010);
    assert_eq!(task.state(), "stream", "no timeout 10 ms after the stream opened");
}

#[test]
fn a_request_sent_after_a_listing_times_out_when_its_first_byte_never_comes() {
    let config =
        TaskConfig { timeouts: clew::agent::Timeouts { first_byte_ms: Some(50), idle_ms: None }, ..mcp_config() };
    let (mut task, listing) = started_listing(config);
    task.handle_mcp_servers(5, listing, &catalog());
    let effects: Vec<Effect> = std::iter::from_fn(|| task.poll_effect()).collect();
    let stream = effects.iter().find_map(|e| match e {
        Effect::OpenStream { stream, .. } => Some(*stream),
        _ => None,
    });
    // The host wakes the task only when asked: without the wake-up, a model that never
    // answers would keep the task waiting for ever.
    let wake = effects.iter().rev().find_map(|e| match e {
        Effect::WakeAt(at) => Some(*at),
        _ => None,
    });
    assert_eq!((stream.is_some(), wake), (true, Some(Some(55))), "the last wake-up asked for: {effects:?}");
    task.handle_timeout(55);
    let effects: Vec<Effect> = std::iter::from_fn(|| task.poll_effect()).collect();
    assert!(
        effects.iter().any(|e| matches!(e, Effect::CancelStream { stream: s } if Some(*s) == stream)),
        "{effects:?}"
    );
    let retry =
        task.messages().iter().find(|m| m.kind == MessageKind::Say(SayKind::ErrorRetry)).map(|m| m.text.clone());
    assert!(retry.is_some_and(|text| text.contains("CLEW_TIMEOUT")), "{:?}", task.messages());
}

#[test]
fn without_servers_a_native_name_with_0mcp0_is_the_users_own_tool() {
    let tool = ToolSpec { name: "a0mcp0b".into(), ..ToolSpec::default() };
    let config = TaskConfig { tools: vec![tool], tool_calling: ToolCalling::Native, yolo: true, ..config() };
    let call = line(
        json!({"type": "tool_calls", "tool_call": {"call_id": "c1", "function": {"id": "c1", "name": "a0mcp0b", "arguments": "{}"}}}),
    );
    let mut h = Harness::new(config, vec![Reply::Bytes(vec![call]), completion("ok")]);
    h.start("t");
    assert_eq!(h.tool_calls[0].0, "a0mcp0b");
}

#[test]
fn an_mcp_call_past_its_servers_timeout_is_cancelled_and_fails() {
    let mut config = TaskConfig { yolo: true, ..mcp_config() };
    config.mcp_servers[0].timeout_ms = Some(5_000);
    let mut h = harness(config, vec![text(&[&call("write_note", r#"{"text":"a"}"#)]), completion("ok")]);
    h.tool = Box::new(|_, _| None);
    h.start("t");
    let id = h.running_tools[0];
    assert!(h.effects.iter().any(|e| matches!(e, Effect::CancelTool { id: cancelled } if *cancelled == id)));
    let errors = kinds_of(&h, |k| *k == MessageKind::Say(SayKind::Error));
    assert!(errors.iter().any(|e| e == "Error executing use_mcp_tool: the MCP server 'notes' did not answer within 5000 ms; the call was cancelled"), "{errors:?}");
    assert!(matches!(h.outcome(), Some(clew::agent::Outcome::Completed { .. })));
}

#[test]
fn the_catalog_comes_from_the_raw_listing_and_the_options() {
    let config = TaskConfig { tool_calling: ToolCalling::Native, ..mcp_config() };
    let mut h = harness(config, vec![completion("ok")]);
    let listing = json!({"servers": [{"name": "notes", "tools": [
        {"name": "lookup", "description": "Look a key up", "inputSchema": {"type": "object"}},
        {"name": "later", "description": "Runs as an MCP task", "execution": {"taskSupport": "required"}},
        {"name": "titled", "title": "Only a title"},
    ], "resources": [], "templates": [{"uriTemplate": "notes://{id}", "mimeType": "text/plain"}]},
    {"name": "stranger", "tools": [{"name": "x"}]}], "errors": []});
    h.mcp_catalog = Some(listing.to_string());
    h.start("t");
    let names: Vec<&str> = h.requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"notes0mcp0lookup") && names.contains(&"notes0mcp0titled"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("later") || n.contains("stranger")), "{names:?}");
    assert!(names.contains(&"access_mcp_resource"), "a server with templates offers its resources");
    let titled = h.requests[0].tools.iter().find(|t| t.name == "notes0mcp0titled").unwrap();
    assert_eq!(
        (titled.description.as_str(), titled.input_schema.to_string()),
        ("Only a title", r#"{"type":"object"}"#.to_owned())
    );
    let system = &h.requests[0].system;
    assert!(system.contains("named <server>0mcp0<tool>"), "{system}");
    assert!(system.contains("### Resource templates\n- notes://{id}: text/plain\n"), "{system}");
}

#[test]
fn a_task_stored_by_its_parts_keeps_the_servers_listing_in_its_head_and_runs_a_read_again() {
    let mut h = running_a_read();
    // What an application stores: the head whole under one key, the entries one per key.
    let parts: serde_json::Value =
        serde_json::from_str(&clew::agent::snapshot_parts(&h.task.snapshot_changes()).unwrap()).unwrap();
    assert!(parts["head"]["mcp"].is_object(), "the listing is part of the head: {}", parts["head"]);
    let stored = json!({
        "head": parts["head"].clone(),
        "history": {"entries": parts["history"]["entries"].clone()},
        "messages": {"entries": parts["messages"]["entries"].clone()},
    });
    restored_runs_the_read_again(&clew::agent::join_snapshot(&stored.to_string()).unwrap(), h.now);
}

/// `tests/fixtures/mcp-results.json`: each result as the host hands it, and what the model
/// read of it before the core made it (the host's glue did).
fn recorded_results() -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-results.json");
    let fixture: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    fixture["cases"].as_array().unwrap().clone()
}

#[test]
fn an_mcp_result_reads_byte_for_byte_as_the_glue_made_it_before_the_core_did() {
    let cases = recorded_results();
    assert!(cases.len() >= 30);
    for case in cases {
        let raw = case["json"].as_str().unwrap();
        let result = clew::json::Json::parse(raw).unwrap_or_default();
        let got = clew::agent::texts::mcp_result(&result, case["resource"].as_bool().unwrap());
        let images: Vec<clew::conversation::ImageSource> = case["images"]
            .as_array()
            .unwrap()
            .iter()
            .map(|url| clew::conversation::ImageSource::from_url_text(url.as_str().unwrap()))
            .collect();
        assert_eq!(got.text, case["text"].as_str().unwrap(), "{raw}");
        assert_eq!(got.images, images, "{raw}");
        assert_eq!(got.is_error, case["isError"].as_bool().unwrap(), "{raw}");
    }
}

#[test]
fn an_mcp_tool_result_joins_its_texts_by_a_blank_line_and_keeps_images_apart() {
    let raw = json!({"content": [
        {"type": "text", "text": "first"},
        {"type": "image", "data": "AAAA", "mimeType": "image/jpeg"},
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "notes://a", "name": "a", "description": "the note a"},
        {"type": "resource", "resource": {"uri": "notes://b", "text": "inside b"}},
        {"type": "resource", "resource": {"uri": "notes://c", "blob": "QUJDRA==", "mimeType": "application/pdf"}},
        {"n": 1, "type": "other"}
    ]});
    let got = clew::agent::texts::mcp_result(&clew::json::Json::parse(&raw.to_string()).unwrap(), false);
    assert_eq!(
        got.text,
        "first\n\n[audio: audio/wav]\n\n[resource: notes://a (a): the note a]\n\ninside b\n\n[binary resource notes://c (application/pdf), 6 bytes]\n\n{\"n\":1,\"type\":\"other\"}"
    );
    assert_eq!(got.images, vec![clew::conversation::ImageSource::from_url_text("data:image/jpeg;base64,AAAA")]);
    assert!(!got.is_error);
}

#[test]
fn an_mcp_tool_result_without_content_reads_its_structured_content_or_the_older_tool_result() {
    let read = |raw: serde_json::Value| {
        clew::agent::texts::mcp_result(&clew::json::Json::parse(&raw.to_string()).unwrap(), false).text
    };
    let structured = r#"{"content":[],"structuredContent":{"b":[1,2.5e3],"a":"x\u0001"}}"#;
    let got = clew::agent::texts::mcp_result(&clew::json::Json::parse(structured).unwrap(), false);
    assert_eq!(got.text, r#"{"b":[1,2.5e3],"a":"x\u0001"}"#, "as JSON.stringify wrote it, members in order");
    assert_eq!(read(json!({"toolResult": {"rows": 3}})), r#"{"rows":3}"#);
    assert_eq!(read(json!({"toolResult": "as text"})), "as text");
    assert_eq!(read(json!({"content": [{"type": "text", "text": "t"}], "structuredContent": {"a": 1}})), "t");
}

#[test]
fn a_resource_read_reads_each_of_its_contents() {
    let raw = json!({"contents": [
        {"uri": "notes://all", "mimeType": "text/plain", "text": "every note"},
        {"uri": "notes://dot", "mimeType": "image/png", "blob": "AAAA"},
        {"uri": "notes://raw", "blob": "AAAAAAAA"}
    ], "isError": true});
    let got = clew::agent::texts::mcp_result(&clew::json::Json::parse(&raw.to_string()).unwrap(), true);
    assert_eq!(got.text, "every note\n\n[binary resource notes://raw (unknown type), 6 bytes]");
    assert_eq!(got.images, vec![clew::conversation::ImageSource::from_url_text("data:image/png;base64,AAAA")]);
    assert!(!got.is_error, "a read has no isError");
}

#[test]
fn the_servers_raw_result_reaches_the_model_as_the_core_reads_it() {
    let config = TaskConfig { yolo: true, ..mcp_config() };
    let read = "<access_mcp_resource><server_name>notes</server_name><uri>notes://all</uri></access_mcp_resource>";
    let mut h = harness(
        config,
        vec![
            text(&[&call("write_note", r#"{"text":"a"}"#)]),
            text(&[read]),
            text(&[&call("ping", "{}")]),
            completion("ok"),
        ],
    );
    let mut tool_calls = 0;
    h.mcp_result = Some(Box::new(move |name, _| {
        let result = match name {
            "access_mcp_resource" => json!({"contents": [{"uri": "notes://all", "text": "a"}]}),
            _ if tool_calls == 0 => {
                json!({"content": [{"type": "text", "text": "saved"}, {"type": "image", "data": "AAAA"}]})
            }
            _ => json!({"content": [{"type": "text", "text": "no such note"}], "isError": true}),
        };
        tool_calls += usize::from(name == "use_mcp_tool");
        result.to_string()
    }));
    h.start("t");
    let responses = h.says_of("mcp_server_response");
    assert_eq!((responses[0].text.as_str(), responses[0].images.len()), ("saved", 1));
    let texts: Vec<String> = [2, 4, 6].iter().map(|&i| h.history_texts(i).join("\n")).collect();
    assert_eq!(texts[0], "[use_mcp_tool for 'notes'] Result:\nsaved\n[image]", "the image is a block of its own");
    assert!(h.task.history()[2].content.blocks().iter().any(|b| matches!(b, ContentBlock::Image { .. })));
    assert_eq!(texts[1], "[access_mcp_resource for 'notes'] Result:\na");
    assert!(texts[2].contains("Error executing use_mcp_tool: no such note"), "{}", texts[2]);
}
