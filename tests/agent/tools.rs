//! Tools: gates, approval and denial, serial and parallel, built-ins, checkpoints, hooks.

use crate::harness::*;
use clew::agent::{
    codes, AskAnswer, AskKind, AskResponse, Effect, HookKind, HookResult, MessageKind, Outcome, TaskConfig, ToolOutput,
    ToolSpec, TOOL_DENIED,
};

const TWO_READS: &str = "<read><path>a</path></read>\n<read><path>b</path></read>";

#[test]
fn serial_mode_runs_the_first_tool_and_tells_the_model_the_second_was_not_run() {
    let reply = text(&[
        "<read><path>a</path></read>",
        "\n<read><path>b</path></read>",
        "\nmore",
        " text",
        " and",
        " yet",
        " more",
        " text",
        " never",
        " read",
    ]);
    // NOTE: read-only tools run without asking here, so the first runs while the reply
    // streams (a call that asks waits for the reply's end, and then nothing is cut).
    let config = TaskConfig { auto_approve: clew::agent::AutoApprove { read_only: true, all: false }, ..config() };
    let mut h = Harness::new(config, vec![reply, completion("ok")]);
    h.start("t");
    assert_eq!(h.tool_calls.len(), 1);
    let next = h.history_texts(2);
    assert!(next[0].starts_with("[read for 'a'] Result:"));
    assert!(next[1].contains("Tool [read] was not run"), "{next:?}");
    assert!(h.effects.iter().any(|e| matches!(e, Effect::CancelStream { .. })), "the stream was interrupted");
    assert!(!h.history_texts(1)[0].contains("never read"), "reading stopped at the chunk after the result");
}

#[test]
fn parallel_mode_runs_every_tool_in_order() {
    let config = TaskConfig { parallel_tool_calling: true, ..config() };
    let mut h = Harness::new(config, vec![text(&[TWO_READS]), completion("ok")]);
    h.start("t");
    let paths: Vec<_> = h.tool_calls.iter().map(|(_, p)| p[0].1.clone()).collect();
    assert_eq!(paths, vec!["a", "b"]);
    assert_eq!(h.history_texts(2).len(), 2);
}

#[test]
fn a_denied_tool_is_reported_and_later_blocks_are_skipped() {
    let reply = text(&["<write><path>a</path><content>x</content></write>\nAfter.\n<read><path>b</path></read>"]);
    let config = TaskConfig { parallel_tool_calling: true, ..config() };
    let mut h = Harness::new(config, vec![reply, completion("ok")]);
    h.ask = Box::new(|m| match m.kind {
        MessageKind::Ask(AskKind::Tool) => Some(AskAnswer::button(AskResponse::No)),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    assert!(h.tool_calls.is_empty());
    let next = h.history_texts(2);
    assert_eq!(next[0], format!("[write for 'a'] Result:\n{TOOL_DENIED}"));
    assert!(next[1].contains("skipped because the user rejected"), "{next:?}");
    assert!(!h.says_of("text").iter().any(|m| m.text.contains("After")), "later text is not said");
}

#[test]
fn a_message_answer_to_an_approval_is_a_denial_with_the_feedback_first() {
    let mut h =
        Harness::new(config(), vec![text(&["<write><path>a</path><content>x</content></write>"]), completion("ok")]);
    h.ask = Box::new(|m| match m.kind {
        MessageKind::Ask(AskKind::Tool) => Some(AskAnswer::message("use b instead")),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    let next = h.history_texts(2);
    assert!(next[0].contains("<feedback>\nuse b instead\n</feedback>"));
    assert!(next[1].ends_with(TOOL_DENIED));
    assert!(h.tool_calls.is_empty());
    assert!(h.kinds().contains(&"say user_feedback".to_owned()));
}

#[test]
fn approving_with_text_runs_the_tool_with_the_feedback_before_the_result() {
    let mut h =
        Harness::new(config(), vec![text(&["<write><path>a</path><content>x</content></write>"]), completion("ok")]);
    h.ask = Box::new(|m| {
        (!m.is_partial()).then(|| AskAnswer { response: AskResponse::Yes, text: "careful".into(), images: vec![] })
    });
    h.start("t");
    let next = h.history_texts(2);
    assert!(next[0].contains("careful"));
    assert!(next[1].starts_with("[write for 'a'] Result:\nwrite ran"));
}

#[test]
fn a_missing_required_parameter_is_a_mistake_with_an_error_result() {
    let mut h = Harness::new(config(), vec![text(&["<write><path>a</path></write>"]), completion("ok")]);
    h.start("t");
    assert!(h.tool_calls.is_empty());
    assert!(h.history_texts(2)[0].contains("Missing value for required parameter 'content'"));
    assert!(h.transcript().iter().any(|l| l.starts_with("say error:") && l.contains("content")));
}

#[test]
fn tool_errors_become_error_results_never_crashes() {
    let mut h = Harness::new(config(), vec![text(&["<read><path>a</path></read>"]), completion("ok")]);
    h.tool = Box::new(|_, _| Some(ToolOutput::error("disk on fire")));
    h.start("t");
    assert!(h.history_texts(2)[0].contains("<error>\nError executing read: disk on fire\n</error>"));
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_tool_past_its_timeout_is_cancelled_and_fails() {
    let mut config = config();
    config.tools.push(ToolSpec {
        name: "slow".into(),
        read_only: true,
        timeout_ms: Some(5_000),
        ..ToolSpec::default()
    });
    let mut h = Harness::new(config, vec![text(&["<slow></slow>"]), completion("ok")]);
    h.tool = Box::new(|name, _| (name != "slow").then(|| ToolOutput::text("ok")));
    h.start("t");
    assert!(h.effects.iter().any(|e| matches!(e, Effect::CancelTool { .. })));
    assert!(h.history_texts(2)[0].contains("timed out after 5000 ms"));
}

#[test]
fn identical_calls_warn_at_three_and_reach_the_mistake_limit_at_five() {
    let read = || text(&["<read><path>same</path></read>"]);
    let mut h = Harness::new(config(), vec![read(), read(), read(), read(), read(), completion("ok")]);
    h.start("t");
    assert!(h.history_texts(6).iter().any(|t| t.contains("3 times in a row")), "{:?}", h.history_texts(6));
    let asks: Vec<_> = h.kinds().into_iter().filter(|k| k == "ask mistake_limit_reached").collect();
    assert_eq!(asks.len(), 1, "the sixth round starts at the mistake limit");
}

#[test]
fn a_tool_that_writes_waits_for_the_initial_checkpoint_and_a_read_does_not() {
    let config = TaskConfig { checkpoints: true, parallel_tool_calling: true, ..config() };
    let reply = text(&["<read><path>a</path></read>\n<write><path>b</path><content>x</content></write>"]);
    let mut h = Harness::new(config, vec![reply, completion("ok")]);
    h.hold_checkpoints = true;
    h.start("t");
    assert_eq!(h.tool_calls.len(), 1, "only the read ran");
    assert_eq!(h.task.state(), "checkpoint");
    h.hold_checkpoints = false;
    h.release_checkpoints();
    assert_eq!(h.tool_calls.len(), 2);
    assert!(h.kinds().contains(&"say checkpoint_created".to_owned()));
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn ask_followup_question_asks_and_the_answer_becomes_the_result() {
    let reply = text(&["<ask_followup_question><question>Which file?</question></ask_followup_question>"]);
    let mut h = Harness::new(config(), vec![reply, completion("ok")]);
    h.ask = Box::new(|m| match m.kind {
        MessageKind::Ask(AskKind::Followup) if !m.is_partial() => Some(AskAnswer::message("b.md")),
        _ => (!m.is_partial()).then(|| AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    assert!(h.transcript().iter().any(|l| l.starts_with("ask followup:") && l.contains("Which file?")));
    assert_eq!(h.history_texts(2)[0], "[ask_followup_question for 'Which file?'] Result:\n<answer>\nb.md\n</answer>");
}

#[test]
fn yolo_mode_answers_follow_up_questions_itself() {
    let reply = text(&["<ask_followup_question><question>Which?</question></ask_followup_question>"]);
    let config = TaskConfig { yolo: true, ..config() };
    let mut h = Harness::new(config, vec![reply, completion("ok")]);
    h.start("t");
    assert!(!h.kinds().contains(&"ask followup".to_owned()));
    assert!(h.history_texts(2)[0].contains("YOLO"));
}

#[test]
fn attempt_completion_with_feedback_continues_the_loop() {
    let mut h = Harness::new(config(), vec![completion("v1"), completion("v2")]);
    let mut first = true;
    h.ask = Box::new(move |m| match m.kind {
        MessageKind::Ask(AskKind::CompletionResult) if std::mem::take(&mut first) => {
            Some(AskAnswer::message("add tests"))
        }
        _ => (!m.is_partial()).then(|| AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    let next = h.history_texts(2);
    assert_eq!(next[0], "[attempt_completion] Result: Done");
    assert!(next.iter().any(|t| t == "<feedback>\nadd tests\n</feedback>"));
    assert_eq!(h.outcome(), Some(&Outcome::Completed { result: "v2".into() }));
    let results: Vec<_> = h.transcript().into_iter().filter(|l| l.starts_with("say completion_result")).collect();
    assert_eq!(results, vec!["say completion_result: v1", "say completion_result: v2"]);
}

#[test]
fn declining_a_completion_without_feedback_ends_the_task() {
    let mut h = Harness::new(config(), vec![completion("v1")]);
    h.ask = Box::new(|_| Some(AskAnswer::button(AskResponse::No)));
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::COMPLETION_DECLINED));
}

#[test]
fn hooks_run_at_their_points_and_may_add_context_or_block() {
    let mut config = config();
    config.hooks = clew::agent::HookSet {
        task_start: true,
        pre_tool_use: true,
        post_tool_use: true,
        task_complete: true,
        task_cancel: true,
    };
    let mut h =
        Harness::new(config, vec![text(&["<write><path>a</path><content>x</content></write>"]), completion("ok")]);
    h.hook = Box::new(|kind| match kind {
        HookKind::TaskStart => HookResult { cancel: false, context: Some("repo is clean".into()) },
        HookKind::PreToolUse => HookResult { cancel: true, context: None },
        _ => HookResult::default(),
    });
    h.start("t");
    assert!(h.history_texts(0)[1].contains("repo is clean"));
    assert!(h.tool_calls.is_empty(), "the PreToolUse hook blocked the write");
    assert!(h.history_texts(2)[0].contains("PreToolUse hook blocked"));
    let kinds: Vec<HookKind> = h
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::RunHook { kind, .. } => Some(*kind),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, vec![HookKind::TaskStart, HookKind::PreToolUse, HookKind::TaskComplete]);
}

#[test]
fn a_post_tool_use_hook_may_cancel_the_task() {
    let mut config = config();
    config.hooks.post_tool_use = true;
    let mut h = Harness::new(config, vec![text(&["<read><path>a</path></read>"])]);
    h.hook = Box::new(|_| HookResult { cancel: true, context: None });
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::HOOK_CANCELLED));
}

#[test]
fn a_stale_answer_is_ignored() {
    let mut h = Harness::new(config(), vec![text(&["<write><path>a</path><content>x</content></write>"])]);
    h.ask = Box::new(|_| None);
    h.start("t");
    assert_eq!(h.task.state(), "answer");
    let before = h.task.messages().len();
    h.task.handle_ask_answer(h.now, 999_999_999, AskAnswer::button(AskResponse::Yes));
    assert_eq!(h.task.state(), "answer");
    assert_eq!(h.task.messages().len(), before);
    assert!(h.task.poll_effect().is_none());
}

#[test]
fn a_completion_accepted_while_the_reply_still_streams_keeps_the_reply_in_history() {
    let reply =
        text(&["<attempt_completion><result>r</result></attempt_completion>", "\n", "trailing", " words", " here"]);
    let mut h = Harness::new(config(), vec![reply]);
    h.start("t");
    assert_eq!(h.outcome(), Some(&Outcome::Completed { result: "r".into() }));
    assert_eq!(h.task.history().len(), 2, "the assistant turn is kept");
    assert!(h.task.messages().iter().all(|m| !m.is_partial()), "the request message has its final figures");
}

#[test]
fn a_partial_ask_is_never_answered_an_answer_to_it_is_ignored() {
    let reply = text(&["<write><path>a</path><content>long", " content", " still streaming", "</content></write>"]);
    let mut h = Harness::new(TaskConfig { presentation_interval_ms: 0, ..config() }, vec![reply, completion("ok")]);
    h.pause =
        Some(Box::new(|task| task.messages().iter().any(|m| m.is_partial() && matches!(m.kind, MessageKind::Ask(_)))));
    h.start("t");
    let partial =
        h.task.messages().iter().find(|m| m.is_partial() && matches!(m.kind, MessageKind::Ask(_))).unwrap().ts;
    h.task.handle_ask_answer(h.now, partial, AskAnswer::button(AskResponse::Yes));
    h.drain();
    assert!(h.tool_calls.is_empty(), "answering a partial ask runs nothing");
    h.pause = None;
    h.ask = Box::new(|m| (!m.is_partial()).then(|| AskAnswer::button(AskResponse::No)));
    h.run();
    assert!(h.tool_calls.is_empty(), "the complete ask was answered no");
    assert!(h.history_texts(2)[0].ends_with(TOOL_DENIED));
}

fn headers_config(tools: &[(&str, &[&str])]) -> TaskConfig {
    use clew::agent::ParamSpec;
    let tools = tools
        .iter()
        .map(|(name, params)| ToolSpec {
            name: (*name).into(),
            parameters: params
                .iter()
                .map(|p| ParamSpec { name: (*p).into(), description: String::new(), required: false })
                .collect(),
            read_only: true,
            ..ToolSpec::default()
        })
        .collect();
    TaskConfig {
        tools,
        parallel_tool_calling: true,
        auto_approve: clew::agent::AutoApprove { read_only: true, all: false },
        ..config()
    }
}

/// The result headers of one reply calling these XML tools.
fn headers_of(config: TaskConfig, calls: &str) -> Vec<String> {
    let mut h = Harness::new(config, vec![text(&[calls]), completion("ok")]);
    h.start("t");
    h.history_texts(2).into_iter().filter_map(|t| t.split(" Result:").next().map(str::to_owned)).collect()
}

#[test]
fn result_headers_name_what_the_reference_names_for_its_own_tools() {
    let config = headers_config(&[
        ("search_files", &["path", "regex", "file_pattern"]),
        ("use_mcp_tool", &["server_name", "tool_name", "arguments"]),
        ("execute_command", &["requires_approval", "command"]),
        ("write_to_file", &["absolutePath", "content"]),
        ("browser_action", &["url", "action"]),
        ("new_task", &["context"]),
        ("use_subagents", &["prompt_1"]),
        ("load_mcp_documentation", &["path"]),
    ]);
    let calls = "<search_files><path>src</path><regex>fn main</regex><file_pattern>*.rs</file_pattern></search_files>\n\
        <search_files><path>src</path><regex>todo</regex></search_files>\n\
        <use_mcp_tool><server_name>github</server_name><tool_name>get_issue</tool_name><arguments>{}</arguments></use_mcp_tool>\n\
        <execute_command><requires_approval>false</requires_approval><command>ls -la</command></execute_command>\n\
        <write_to_file><absolutePath>/w/a.txt</absolutePath><content>x</content></write_to_file>\n\
        <browser_action><url>http://x</url><action>launch</action></browser_action>\n\
        <new_task><context>next</context></new_task>\n\
        <use_subagents><prompt_1>look</prompt_1></use_subagents>\n\
        <load_mcp_documentation><path>p</path></load_mcp_documentation>";
    assert_eq!(
        headers_of(config, calls),
        vec![
            "[search_files for 'fn main' in '*.rs']",
            "[search_files for 'todo']",
            "[use_mcp_tool for 'github']",
            "[execute_command for 'ls -la']",
            "[write_to_file for '/w/a.txt']",
            "[browser_action for 'launch']",
            "[new_task for creating a new task]",
            "[subagents]",
            "[load_mcp_documentation]",
        ]
    );
}

#[test]
fn result_headers_of_other_tools_name_their_first_required_parameter() {
    let mut config = headers_config(&[("lookup", &["scope", "term"])]);
    config.tools[0].parameters[1].required = true;
    assert_eq!(headers_of(config, "<lookup><scope>all</scope><term>rust</term></lookup>"), vec!["[lookup for 'rust']"]);
}

#[test]
fn a_tools_describe_names_the_subject_of_its_result_header() {
    let mut config = headers_config(&[("lookup", &["scope", "term"]), ("read_file", &["path"])]);
    config.tools[0].describe = true;
    let calls = "<lookup><scope>all</scope><term>rust</term></lookup>\n<read_file><path>a.md</path></read_file>";
    let mut h = Harness::new(config, vec![text(&[calls]), completion("ok")]);
    h.task.set_describer(std::rc::Rc::new(|name: &str, params: &[(String, String)]| {
        let scope = params.iter().find(|(k, _)| k == "scope").map(|(_, v)| v.clone())?;
        Some(format!("{name} in {scope}"))
    }));
    h.start("t");
    let texts = h.history_texts(2);
    assert!(texts[0].starts_with("[lookup for 'lookup in all'] Result:"), "{texts:?}");
    assert!(texts[1].starts_with("[read_file for 'a.md'] Result:"), "a tool without describe keeps its rule");
}

#[test]
fn a_denial_skips_later_tools_with_its_own_notice_even_in_serial_mode() {
    let reply = text(&["<write><path>a</path><content>x</content></write>\n<read><path>b</path></read>"]);
    let mut h = Harness::new(config(), vec![reply, completion("ok")]);
    h.ask = Box::new(|m| match m.kind {
        _ if m.is_partial() => None,
        MessageKind::Ask(AskKind::Tool) => Some(AskAnswer::button(AskResponse::No)),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    let next = h.history_texts(2);
    assert!(next.iter().any(|t| t.contains("skipped because the user rejected")), "{next:?}");
    assert!(!next.iter().any(|t| t.contains("was not run")), "the rejection notice wins: {next:?}");
}

#[test]
fn identical_calls_in_one_reply_stop_running_at_the_fifth() {
    let reply = "<read><path>a</path></read>\n".repeat(8);
    let config = TaskConfig { parallel_tool_calling: true, ..config() };
    let mut h = Harness::new(config, vec![text(&[&reply]), completion("ok")]);
    h.start("t");
    assert_eq!(h.tool_calls.len(), 5, "the sixth and later identical calls are not run");
    let results = h.history_texts(2);
    assert_eq!(results.iter().filter(|t| t.contains("was not run: it is call")).count(), 3, "{results:?}");
    assert!(h.kinds().iter().any(|k| k == "ask mistake_limit_reached"), "the next round starts at the mistake limit");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn without_anyone_to_ask_the_core_declines_every_ask_as_it_goes_out() {
    let config = TaskConfig { asks: false, ..config() };
    let write = "<write><path>a</path><content>b</content></write>";
    let mut h = Harness::new(config, vec![text(&[write]), completion("ok")]);
    h.ask = Box::new(|m| panic!("no ask goes out: {m:?}"));
    h.start("t");
    assert!(h.tool_calls.is_empty(), "the write was not approved");
    assert!(h.history_texts(2)[0].contains(TOOL_DENIED));
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::Ask(m) if !m.is_partial())));
    // NOTE: the completion's ask is declined too: the user "declined the result".
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::COMPLETION_DECLINED));
}

#[test]
fn each_hook_kind_sits_at_its_slot_among_the_hook_names() {
    use clew::agent::HOOK_NAMES;
    let kinds = [
        HookKind::TaskStart,
        HookKind::TaskCancel,
        HookKind::TaskComplete,
        HookKind::PreToolUse,
        HookKind::PostToolUse,
    ];
    for kind in kinds {
        assert_eq!(serde_json::to_value(kind).unwrap(), HOOK_NAMES[kind as usize]);
    }
    assert_eq!(kinds.len(), HOOK_NAMES.len());
}
