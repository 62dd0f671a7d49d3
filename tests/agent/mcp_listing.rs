//! The MCP servers' listing before a request (issue 46): the host answers with the listing as
//! it is and the servers it still lists, the task asks again until none is left, and at its
//! own deadline (`options.timeouts.mcpListingMs`, 10 s by default) it reports each server
//! still being listed, leaves it out for the rest of the task and sends the request. Also the
//! options that reach it: where each server's client sits, and a client that cannot read
//! resources.

use crate::harness::*;
use clew::agent::{Effect, McpServerSettings, MessageKind, SayKind, Task, TaskConfig};
use clew::json::Json;
use serde_json::json;

/// A server's listing entry with one tool, `<name>_tool`.
fn server(name: &str) -> serde_json::Value {
    let tool = json!({"name": format!("{name}_tool"), "description": "A tool", "inputSchema": {"type": "object"}});
    json!({"name": name, "tools": [tool], "resources": [], "templates": []})
}

fn settings(names: &[&str]) -> TaskConfig {
    let servers = names.iter().map(|n| McpServerSettings { name: (*n).into(), ..McpServerSettings::default() });
    TaskConfig { mcp_servers: servers.collect(), ..config() }
}

/// Every effect the task has queued.
fn effects(task: &mut Task) -> Vec<Effect> {
    std::iter::from_fn(|| task.poll_effect()).collect()
}

/// The id of the listing the effects ask for.
fn listing_id(effects: &[Effect]) -> Option<u64> {
    effects.iter().find_map(|e| match e {
        Effect::ListMcpServers { id } => Some(*id),
        _ => None,
    })
}

fn errors(task: &Task) -> Vec<String> {
    task.messages().iter().filter(|m| m.kind == MessageKind::Say(SayKind::Error)).map(|m| m.text.clone()).collect()
}

fn system_of(effects: &[Effect]) -> Option<String> {
    effects.iter().find_map(|e| match e {
        Effect::OpenStream { request, .. } => Some(request.system.clone()),
        _ => None,
    })
}

#[test]
fn a_listing_that_names_servers_still_listed_is_taken_so_far_and_asked_again() {
    let mut task = Task::new(settings(&["fast", "slow"])).unwrap();
    task.start(0, "t", Vec::new());
    let id = listing_id(&effects(&mut task)).expect("a listing");
    let so_far = json!({"servers": [server("fast")], "errors": [], "listing": ["slow"]});
    task.handle_mcp_servers(5, id, &so_far.to_string());
    let asked = effects(&mut task);
    assert_eq!(listing_id(&asked), Some(id), "asked again, with the same id: {asked:?}");
    assert!(system_of(&asked).is_none(), "no request while a server is listed");
    assert_eq!(task.state(), "listing");
    let done = json!({"servers": [server("fast"), server("slow")], "errors": []});
    task.handle_mcp_servers(9, id, &done.to_string());
    let system = system_of(&effects(&mut task)).expect("the request, once no server is listed");
    assert!(system.contains("fast_tool") && system.contains("slow_tool"), "{system}");
    assert!(errors(&task).is_empty());
}

#[test]
fn a_server_still_listed_at_the_deadline_is_reported_once_and_left_out_and_the_request_goes() {
    let mut task = Task::new(settings(&["fast", "slow"])).unwrap();
    task.start(0, "t", Vec::new());
    let first = effects(&mut task);
    assert!(first.iter().any(|e| matches!(e, Effect::WakeAt(Some(10_000)))), "the deadline's wake-up: {first:?}");
    let id = listing_id(&first).unwrap();
    let so_far = json!({"servers": [server("fast")], "errors": [], "listing": ["slow"]});
    task.handle_mcp_servers(5, id, &so_far.to_string());
    effects(&mut task);
    task.handle_timeout(9_999);
    assert_eq!(task.state(), "listing", "not before the deadline");
    task.handle_timeout(10_000);
    let system = system_of(&effects(&mut task)).expect("the request at the deadline");
    assert!(system.contains("fast_tool") && !system.contains("slow"), "{system}");
    assert_eq!(errors(&task), vec!["The MCP server \"slow\" is left out: it did not list its tools within 10 s"]);
    // What the host gives of it later is not read: not the late listing, nor a failure.
    let late = json!({"servers": [server("fast"), server("slow")], "errors": [{"server": "slow", "message": "gone"}]});
    task.handle_mcp_servers(10_001, id, &late.to_string());
    assert_eq!(errors(&task).len(), 1);
}

/// The stream the effects open.
fn stream_of(effects: &[Effect]) -> Option<u64> {
    effects.iter().find_map(|e| match e {
        Effect::OpenStream { stream, .. } => Some(*stream),
        _ => None,
    })
}

/// Replies on `stream` with a call of the read-only `read` tool and answers it (YOLO: no
/// ask): what the task does next.
fn a_round_with_a_read(task: &mut Task, stream: u64, now: u64) -> Vec<Effect> {
    task.handle_stream_bytes(now, stream, &text_line("<read><path>a</path></read>"));
    task.handle_stream_end(now, stream);
    let ran = effects(task);
    let id = ran.iter().find_map(|e| match e {
        Effect::RunTool { id, .. } => Some(*id),
        _ => None,
    });
    task.handle_tool_done(now, id.expect("the read runs"), clew::agent::ToolOutput::text("read"));
    effects(task)
}

#[test]
fn a_server_left_out_stays_out_of_the_next_listings() {
    let mut task = Task::new(TaskConfig { yolo: true, ..settings(&["fast", "slow"]) }).unwrap();
    task.start(0, "t", Vec::new());
    let id = listing_id(&effects(&mut task)).unwrap();
    task.handle_mcp_servers(
        5,
        id,
        &json!({"servers": [server("fast")], "errors": [], "listing": ["slow"]}).to_string(),
    );
    effects(&mut task);
    task.handle_timeout(10_000);
    let stream = stream_of(&effects(&mut task)).unwrap();
    let next = a_round_with_a_read(&mut task, stream, 10_100);
    let id = listing_id(&next).expect("the servers not left out are listed again");
    // The host's late word on the server left out: its listing and a failure.
    let late = json!({"servers": [server("fast"), server("slow")], "errors": [{"server": "slow", "message": "gone"}], "listing": ["slow"]});
    task.handle_mcp_servers(10_200, id, &late.to_string());
    let system = system_of(&effects(&mut task)).expect("no wait for a server left out");
    assert!(system.contains("fast_tool") && !system.contains("slow_tool"), "{system}");
    assert_eq!(errors(&task), vec!["The MCP server \"slow\" is left out: it did not list its tools within 10 s"]);
}

#[test]
fn a_host_that_never_answers_the_listing_leaves_every_server_out_at_the_deadline_once() {
    let config = TaskConfig { mcp_listing_ms: Some(2_500), yolo: true, ..settings(&["a", "b"]) };
    let mut task = Task::new(config).unwrap();
    task.start(0, "t", Vec::new());
    assert!(listing_id(&effects(&mut task)).is_some());
    task.handle_timeout(2_500);
    let stream = stream_of(&effects(&mut task)).expect("the request goes out");
    assert_eq!(
        errors(&task),
        vec![
            "The MCP server \"a\" is left out: it did not list its tools within 2500 ms",
            "The MCP server \"b\" is left out: it did not list its tools within 2500 ms"
        ]
    );
    // The next request does not wait for servers that are all left out.
    let next = a_round_with_a_read(&mut task, stream, 2_600);
    assert!(listing_id(&next).is_none(), "no listing: {next:?}");
    assert!(system_of(&next).is_some(), "the next request went out at once");
    assert_eq!(errors(&task).len(), 2, "reported once");
}

#[test]
fn a_listing_that_ends_before_its_deadline_clears_its_wake_up() {
    let mut task = Task::new(settings(&["fast"])).unwrap();
    task.start(0, "t", Vec::new());
    let id = listing_id(&effects(&mut task)).unwrap();
    task.handle_mcp_servers(5, id, &json!({"servers": [server("fast")], "errors": []}).to_string());
    let after = effects(&mut task);
    let wakes: Vec<&Effect> = after.iter().filter(|e| matches!(e, Effect::WakeAt(_))).collect();
    assert!(matches!(wakes.first(), Some(Effect::WakeAt(None))), "the deadline's wake-up is cleared: {after:?}");
    let first_byte = config().timeouts.first_byte_ms.map(|ms| 5 + ms);
    assert_eq!(task.poll_timeout(), first_byte, "nothing is left of the deadline: the wake-up is the first byte's");
}

#[test]
fn without_a_listing_deadline_the_task_waits_for_the_servers() {
    let config = TaskConfig { mcp_listing_ms: None, ..settings(&["slow"]) };
    let mut task = Task::new(config).unwrap();
    task.start(0, "t", Vec::new());
    let first = effects(&mut task);
    assert!(!first.iter().any(|e| matches!(e, Effect::WakeAt(Some(_)))), "{first:?}");
    task.handle_timeout(1_000_000);
    assert_eq!(task.state(), "listing");
    assert!(errors(&task).is_empty());
}

#[test]
fn the_listing_deadline_is_an_option_of_timeouts() {
    let read = |timeouts: serde_json::Value| {
        let options = json!({"model": {"format": "chunks"}, "timeouts": timeouts});
        clew::agent::TaskOptions::from_json(&Json::parse(&options.to_string()).unwrap(), 0)
            .map(|o| o.config.mcp_listing_ms)
    };
    assert_eq!(read(json!({})), Ok(Some(clew::agent::DEFAULT_MCP_LISTING_MS)));
    assert_eq!(clew::agent::DEFAULT_MCP_LISTING_MS, 10_000);
    assert_eq!(read(json!({"mcpListingMs": 2500})), Ok(Some(2_500)));
    assert_eq!(read(json!({"mcpListingMs": 0})), Ok(None), "0 is off, as for the other timeouts");
    assert!(read(json!({"mcpListingMs": -1})).unwrap_err().contains("options.timeouts.mcpListingMs"));
}

#[test]
fn a_client_is_read_from_where_the_host_put_it_in_its_list() {
    let options = json!({"model": {"format": "chunks"}, "mcpServers": [
        {"name": "a", "client": {"$mcp": 1}},
        {"name": "b", "client": true},
        {"name": "c", "client": {"$mcp": 0}}
    ]});
    let read = clew::agent::TaskOptions::from_json(&Json::parse(&options.to_string()).unwrap(), 0).unwrap();
    assert_eq!(read.callbacks.mcp_clients, vec![Some(1), None, Some(0)]);
    let names: Vec<&str> = read.config.mcp_servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    for client in [json!({"listTools": {"$fn": 0}}), json!({"$mcp": "x"}), json!(1)] {
        let options = json!({"model": {"format": "chunks"}, "mcpServers": [{"name": "a", "client": client}]});
        let error = clew::agent::TaskOptions::from_json(&Json::parse(&options.to_string()).unwrap(), 1).unwrap_err();
        assert!(error.starts_with("options.mcpServers[0].client must be a connected MCP client"), "{client}: {error}");
    }
}

#[test]
fn a_resource_read_from_a_client_that_cannot_read_is_refused_at_the_gates() {
    let config = TaskConfig { yolo: true, ..settings(&["duck"]) };
    let read = "<access_mcp_resource><server_name>duck</server_name><uri>duck://x</uri></access_mcp_resource>";
    let mut h = Harness::new(config, vec![text(&[read]), completion("ok")]);
    let mut duck = server("duck");
    duck["readResource"] = json!(false);
    h.mcp_catalog = Some(json!({"servers": [duck], "errors": []}).to_string());
    h.start("t");
    assert!(h.tool_calls.is_empty(), "the host is not asked");
    let result = h.history_texts(2).join("\n");
    assert!(result.contains("the MCP server 'duck' cannot run: its client cannot read resources"), "{result}");
    assert_eq!(h.says_of("error").len(), 1);
}

/// The system prompt of a config is made once and kept for the requests of its tasks (and of
/// the tasks that share it): each request still carries the prompt made for its config, a
/// config with other rules gets its own, and servers listed add their section.
#[test]
fn tasks_that_share_a_config_share_its_system_prompt_and_other_configs_get_their_own() {
    use clew::agent::{texts, McpCatalog};
    use std::rc::Rc;
    let brief = Rc::new(TaskConfig { rules: Some("Be brief.".into()), ..config() });
    let thorough = Rc::new(TaskConfig { rules: Some("Be thorough.".into()), ..config() });
    let system = |config: &Rc<TaskConfig>| {
        let mut task = Task::new(Rc::clone(config)).unwrap();
        task.start(0, "go", Vec::new());
        system_of(&effects(&mut task)).unwrap()
    };
    let made = texts::system_prompt(&brief, &McpCatalog::default());
    assert!(made.contains("Be brief."));
    for _ in 0..2 {
        assert_eq!(system(&brief), made);
        assert_eq!(system(&thorough), texts::system_prompt(&thorough, &McpCatalog::default()));
    }
    assert_ne!(system(&thorough), made);
    let mut task = Task::new(settings(&["files"])).unwrap();
    task.start(0, "go", Vec::new());
    let id = listing_id(&effects(&mut task)).unwrap();
    let listing = json!({"servers": [server("files")], "errors": []}).to_string();
    task.handle_mcp_servers(10, id, &listing);
    let with_servers = system_of(&effects(&mut task)).unwrap();
    assert!(with_servers.contains("files_tool"), "{with_servers}");
    assert_ne!(with_servers, texts::system_prompt(&settings(&["files"]), &McpCatalog::default()));
}
