//! The summarize strategy and the manual condense (CONTEXT §4.2; §10 items 6 to 8), through
//! whole tasks in chunk lines with native tool calling.

use crate::harness::*;
use clew::agent::{
    codes, AskAnswer, AskResponse, ContextConfig, Message, MessageKind, Outcome, Strategy, SummarizeConfig, TaskConfig,
    ToolCalling,
};
use clew::conversation::{ContentBlock, Role};
use serde_json::{json, Value};

fn call(id: &str, name: &str, args: Value) -> Vec<u8> {
    line(
        json!({"type":"tool_calls","tool_call":{"call_id":id,"function":{"id":id,"name":name,"arguments":args.to_string()}}}),
    )
}

fn usage(input: u64) -> Vec<u8> {
    line(json!({"type":"usage","inputTokens":input,"outputTokens":10}))
}

/// A reply: a line of text, one call, and its usage.
fn reply(id: &str, name: &str, args: Value, input: u64) -> Reply {
    Reply::Bytes(vec![text_line("Working."), call(id, name, args), usage(input)])
}

fn read(id: &str, input: u64) -> Reply {
    reply(id, "read", json!({"path": format!("{id}.md")}), input)
}

fn done() -> Reply {
    reply("done", "attempt_completion", json!({"result":"ok"}), 100)
}

const SUMMARY: &str =
    "1. Intent: fix the README.\n9. Required files\n- src/a.rs\n- `src/b.rs`\n10. The latest message: fix it.";

fn summarize(id: &str, summary: &str) -> Reply {
    reply(id, "summarize_task", json!({"context": summary}), 2_000)
}

/// Native tool calling, a 64k window (a limit of 37,000), strategy summarize on any model.
fn summarizing() -> TaskConfig {
    let mut config = TaskConfig { tool_calling: ToolCalling::Native, ..config() };
    config.info.context_window = Some(64_000);
    config.context = ContextConfig {
        strategy: Strategy::Summarize,
        summarize: SummarizeConfig { all_models: true, read_required_files: true, ..SummarizeConfig::default() },
        summarize_eligible: true,
        ..ContextConfig::default()
    };
    config
}

fn compactions(h: &Harness) -> Vec<Value> {
    h.says_of("compaction").iter().map(|m| serde_json::from_str(&m.text).unwrap()).collect()
}

fn texts(message: &clew::conversation::Message) -> Vec<String> {
    block_texts(&message.content.blocks())
}

#[test]
fn after_summarize_task_the_next_request_is_the_task_the_notice_and_the_continuation() {
    let script = vec![read("c1", 1_000), read("c2", 1_000), read("c3", 40_000), summarize("s", SUMMARY), done()];
    let mut h = Harness::new(summarizing(), script);
    h.start("Fix the README.");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    // The fourth request is the summarize round: the instruction follows the round's content,
    // with the same system prompt and tools as the request before it.
    let (before, round) = (&h.requests[2], &h.requests[3]);
    assert_eq!(round.system, before.system);
    assert_eq!(round.tools, before.tools);
    assert!(round.tools.iter().any(|t| t.name == "summarize_task"), "summarize_task is a tool of every request");
    let instruction = texts(round.messages.last().unwrap()).last().cloned().unwrap();
    assert!(instruction.contains("summarize_task"), "{instruction}");
    assert_eq!(h.api_reqs()[3]["compactionPass"], "summary");
    // The files the summary names went to the host.
    assert_eq!(h.file_reads, vec![vec!["src/a.rs".to_owned(), "src/b.rs".to_owned()]]);
    // The request after it: the task (its first block the continue marker), the notice, and
    // the continuation with the summary and the files, as text (the call's turn is gone).
    let next = &h.requests[4];
    assert_eq!(next.messages.len(), 3, "{:#?}", next.messages);
    assert_eq!(next.messages[0].role, Role::User);
    assert_ne!(texts(&next.messages[0])[0], texts(&h.task.history()[0])[0], "the task's first block is replaced");
    assert_eq!(next.messages[1].role, Role::Assistant);
    assert_eq!(texts(&next.messages[1]).len(), 1, "message 1 is the notice alone");
    let continuation = texts(&next.messages[2]).join("\n");
    assert!(continuation.contains("1. Intent: fix the README."), "the summary stays in native mode: {continuation}");
    assert!(continuation.contains("contents of src/a.rs") && continuation.contains("contents of src/b.rs"));
    let blocks = next.messages[2].content.blocks();
    assert!(blocks.iter().all(|b| matches!(b, ContentBlock::Text { .. })), "no result without its call");
    // One say, when the continuation was stored.
    let says = compactions(&h);
    assert_eq!(says.len(), 1, "{says:?}");
    assert_eq!(says[0]["kind"], "summary");
    assert_eq!(says[0]["tokensBefore"], 40_010);
    assert_eq!(says[0]["summary"], SUMMARY);
    // The history itself keeps everything.
    assert!(h.task.history().len() > 8);
}

#[test]
fn a_summary_numbered_eight_reaches_the_host_too() {
    let summary = "## 8. Required Files\n- lib/x.ts\n- \"lib/y.ts\"\n## 9. Next\nGo on.";
    let script = vec![read("c1", 1_000), read("c2", 1_000), read("c3", 40_000), summarize("s", summary), done()];
    let mut h = Harness::new(summarizing(), script);
    h.start("t");
    assert_eq!(h.file_reads, vec![vec!["lib/x.ts".to_owned(), "lib/y.ts".to_owned()]]);
}

#[test]
fn without_a_read_callback_the_summary_goes_on_with_no_files() {
    let mut config = summarizing();
    config.context.summarize.read_required_files = false;
    let script = vec![read("c1", 1_000), read("c2", 1_000), read("c3", 40_000), summarize("s", SUMMARY), done()];
    let mut h = Harness::new(config, script);
    h.start("t");
    assert!(h.file_reads.is_empty());
    let continuation = texts(&h.requests[4].messages[2]).join("\n");
    assert!(continuation.contains("1. Intent") && !continuation.contains("contents of"));
}

#[test]
fn with_two_messages_or_fewer_left_nothing_is_summarized() {
    // The first reply is already over the limit: the second request has the task, the reply
    // and its result, and goes as it is.
    let mut h = Harness::new(summarizing(), vec![read("c1", 40_000), done()]);
    h.start("t");
    assert!(h.api_reqs().iter().all(|r| r.get("compactionPass").is_none()));
    assert!(compactions(&h).is_empty());
    assert_eq!(h.requests[1].messages.len(), 3);
}

#[test]
fn a_model_that_is_not_next_gen_truncates_instead() {
    let options =
        json!({"model": {"format": "openai", "id": "gpt-4o"}, "contextManagement": {"strategy": "summarize"}});
    let read = clew::agent::TaskOptions::from_json(&clew::json::Json::parse(&options.to_string()).unwrap(), 0).unwrap();
    assert_eq!(read.config.context.effective(false), Strategy::Truncate);
    let next_gen =
        json!({"model": {"format": "openai", "id": "gpt-5"}, "contextManagement": {"strategy": "summarize"}});
    let read =
        clew::agent::TaskOptions::from_json(&clew::json::Json::parse(&next_gen.to_string()).unwrap(), 0).unwrap();
    assert_eq!(read.config.context.effective(false), Strategy::Summarize);
    // Through the loop: the same script truncates.
    let mut config = summarizing();
    config.context.summarize_eligible = false;
    let script = vec![read_reply("c1", 1_000), read_reply("c2", 1_000), read_reply("c3", 40_000), done()];
    let mut h = Harness::new(config, script);
    h.start("t");
    let kinds: Vec<Value> = compactions(&h).iter().map(|s| s["kind"].clone()).collect();
    assert_eq!(kinds, vec![json!("truncate")]);
}

fn read_reply(id: &str, input: u64) -> Reply {
    read(id, input)
}

#[test]
fn another_tool_in_a_summarize_round_is_not_run_and_counts_as_a_compaction() {
    let mut config = summarizing();
    config.context.max_consecutive_compactions = 1;
    // The summarize round's reply calls `read`: not run; the figure stays over the limit, and
    // the next compaction would be the second in a row.
    let script = vec![read("c1", 1_000), read("c2", 1_000), read("c3", 40_000), read("c4", 40_000), done()];
    let mut h = Harness::new(config, script);
    h.start("t");
    let ran: Vec<&str> = h.tool_calls.iter().map(|(_, p)| p[0].1.as_str()).collect();
    assert_eq!(ran, vec!["c1.md", "c2.md", "c3.md"], "c4 was not run");
    let result = texts(h.task.history().last().unwrap()).join("\n");
    assert!(result.contains("summarize_task"), "{result}");
    assert_eq!(h.requests.len(), 4, "no fifth request");
    assert!(
        matches!(h.outcome(), Some(Outcome::Failed { code, message }) if code == codes::CONTEXT_WINDOW_EXCEEDED && message.contains('1')),
        "{:?}",
        h.outcome()
    );
}

#[test]
fn an_abort_in_the_summarize_round_keeps_the_range_and_says_nothing() {
    let script = vec![read("c1", 1_000), read("c2", 1_000), read("c3", 40_000), Reply::Silent];
    let mut config = summarizing();
    config.timeouts = clew::agent::Timeouts { first_byte_ms: None, idle_ms: None };
    let mut h = Harness::new(config, script);
    h.start("t");
    assert_eq!(h.requests.len(), 4, "waiting on the summarize round's reply");
    let history = h.task.history().len();
    h.task.abort(h.now, "user");
    h.run();
    assert!(matches!(h.outcome(), Some(Outcome::Aborted { .. })));
    assert!(compactions(&h).is_empty());
    assert!(h.task.history().len() >= history);
}

/// Pauses the harness while a follow-up question waits for its answer.
fn at_followup() -> Box<dyn FnMut(&clew::agent::Task) -> bool> {
    Box::new(|task| {
        task.state() == "answer"
            && task
                .messages()
                .last()
                .is_some_and(|m| m.kind == MessageKind::Ask(clew::agent::AskKind::Followup) && !m.is_partial())
    })
}

/// A reply asking a follow-up question (the test condenses at it).
fn followup(id: &str) -> Reply {
    reply(id, "ask_followup_question", json!({"question": "Which file?"}), 1_000)
}

#[test]
fn a_manual_condense_asks_before_it_applies_and_yes_applies_it() {
    let script = vec![read("c1", 1_000), read("c2", 1_000), followup("q"), summarize("s", SUMMARY), done()];
    let mut h = Harness::new(summarizing(), script);
    h.pause = Some(at_followup());
    h.start("t");
    assert_eq!(h.task.state(), "answer");
    h.pause = None;
    h.task.condense(h.now, Some("keep the API notes")).unwrap();
    h.run();
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    // The round after the question is a summarize round, whatever the figure.
    let round = &h.requests[3];
    let instruction = texts(round.messages.last().unwrap()).join("\n");
    assert!(instruction.contains("keep the API notes"), "{instruction}");
    assert!(h
        .task
        .messages()
        .iter()
        .any(|m| m.kind == MessageKind::Ask(clew::agent::AskKind::Condense) && m.text == SUMMARY));
    assert_eq!(h.requests[4].messages.len(), 3, "the summary applied");
    assert_eq!(compactions(&h).len(), 1);
}

#[test]
fn a_message_answer_to_the_condense_ask_applies_nothing_and_is_the_result() {
    let script = vec![read("c1", 1_000), read("c2", 1_000), followup("q"), summarize("s", SUMMARY), done()];
    let mut h = Harness::new(summarizing(), script);
    h.pause = Some(at_followup());
    h.start("t");
    h.pause = None;
    h.ask = Box::new(|m: &Message| {
        if m.is_partial() {
            return None;
        }
        Some(if m.kind == MessageKind::Ask(clew::agent::AskKind::Condense) {
            AskAnswer { response: AskResponse::Message, text: "Not yet, add the tests section.".into(), images: vec![] }
        } else {
            AskAnswer::button(AskResponse::Yes)
        })
    });
    h.task.condense(h.now, None).unwrap();
    h.run();
    let next = &h.requests[4];
    assert!(next.messages.len() > 3, "nothing applied");
    let result = texts(next.messages.last().unwrap()).join("\n");
    assert!(result.contains("Not yet, add the tests section."), "{result}");
    assert!(compactions(&h).is_empty());
}

#[test]
fn condense_while_a_tool_waits_for_approval_is_refused() {
    let mut config = summarizing();
    config.tools[1].read_only = false;
    let script = vec![reply("w", "write", json!({"path":"a","content":"b"}), 1_000), done()];
    let mut h = Harness::new(config, script);
    h.ask = Box::new(|_| None);
    h.start("t");
    assert_eq!(h.task.state(), "answer");
    let refused = h.task.condense(h.now, None);
    assert!(refused.is_err(), "{refused:?}");
}
