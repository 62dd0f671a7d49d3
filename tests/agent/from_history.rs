//! A task rebuilt from its history alone (AGENT-LOOP §4: resume from history): the resume
//! ask, the trailing user content with the resumption notice, and what carries over.

use crate::harness::*;
use clew::agent::{AskAnswer, AskKind, AskResponse, Limits, MessageKind, Outcome, SayKind, Task, TaskConfig};
use clew::conversation::ContentBlock;
use serde_json::json;

const HOUR: u64 = 3_600_000;

fn saved(history: serde_json::Value, messages: serde_json::Value) -> String {
    json!({ "history": history, "messages": messages }).to_string()
}

fn conversation() -> serde_json::Value {
    json!([
        {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"}]},
        {"role": "assistant", "content": "<read><path>a</path></read>"},
        {"role": "user", "content": [{"type": "text", "text": "[read for 'a'] Result:\nold"}]},
    ])
}

fn transcript(last: serde_json::Value) -> serde_json::Value {
    json!([
        {"ts": 1000, "type": "say", "say": "task", "text": "fix it"},
        {"ts": 1001, "type": "say", "say": "api_req_started", "text": "{\"tokensIn\":10,\"tokensOut\":5,\"cost\":0.25}"},
        {"ts": 1002, "type": "say", "say": "command_output", "text": "a kind clew does not emit"},
        last,
        {"ts": 1004, "type": "ask", "ask": "resume_task", "text": ""},
    ])
}

fn rebuilt(config: TaskConfig, last: serde_json::Value, replies: Vec<Reply>, now: u64) -> Harness {
    let mut task = Task::from_history(&saved(conversation(), transcript(last)), config.clone(), now).unwrap();
    task.resume(now);
    let mut h = Harness::new(config, replies);
    h.task = task;
    h.now = now;
    h
}

fn last_user_texts(h: &Harness) -> Vec<String> {
    block_texts(&h.requests[0].messages.last().unwrap().content.blocks())
}

#[test]
fn an_interrupted_task_asks_resume_task_then_sends_its_trailing_content_with_a_notice() {
    let last = json!({"ts": 1003, "type": "say", "say": "text", "text": "Reading", "partial": true});
    let mut h = rebuilt(config(), last, vec![completion("ok")], 1003 + 2 * HOUR);
    h.run();
    let asks: Vec<_> = h.task.messages().iter().filter(|m| matches!(m.kind, MessageKind::Ask(_))).collect();
    assert_eq!(asks[0].kind, MessageKind::Ask(AskKind::ResumeTask), "the old resume ask is replaced");
    assert!(asks[0].ts > 1004 - 1, "a new ts");
    assert_eq!(h.task.messages().iter().filter(|m| m.kind == MessageKind::Ask(AskKind::ResumeTask)).count(), 1);
    assert!(h.task.messages().iter().all(|m| m.partial != Some(true)), "nothing stays partial");
    let texts = last_user_texts(&h);
    assert_eq!(texts[0], "[read for 'a'] Result:\nold", "the trailing user content goes first");
    assert!(texts[1].starts_with("[Task resumed]") && texts[1].contains("2 hours ago"), "{}", texts[1]);
    assert_eq!(h.requests[0].messages.len(), 3, "the trailing user message is not sent twice");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_task_that_had_offered_its_result_asks_resume_completed_task_and_carries_the_users_message() {
    let last = json!({"ts": 1003, "type": "ask", "ask": "completion_result", "text": ""});
    let mut h = rebuilt(config(), last, vec![completion("ok")], 1003 + 60_000);
    h.ask = Box::new(|m| match m.kind {
        MessageKind::Ask(AskKind::ResumeCompletedTask) => Some(AskAnswer::message("also do b")),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    });
    h.run();
    let notice = last_user_texts(&h).pop().unwrap();
    assert!(notice.contains("You offered a result") && notice.contains("1 minute ago"), "{notice}");
    assert!(notice.contains("<user_message>\nalso do b\n</user_message>"), "{notice}");
    assert_eq!(h.says_of("user_feedback")[0].text, "also do b");
}

#[test]
fn declining_to_resume_ends_the_task() {
    let last = json!({"ts": 1003, "type": "say", "say": "text", "text": "x"});
    let mut h = rebuilt(config(), last, Vec::new(), 5000);
    h.ask = Box::new(|_| Some(AskAnswer::button(AskResponse::No)));
    h.run();
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == "CLEW_RESUME_DECLINED"));
    assert!(h.requests.is_empty());
}

#[test]
fn a_native_call_left_without_a_result_gets_an_error_result() {
    let history = json!([
        {"role": "user", "content": "do it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "write", "input": {"path": "b"}}]},
    ]);
    let config = TaskConfig { tool_calling: clew::agent::ToolCalling::Native, ..config() };
    let mut task = Task::from_history(&saved(history, json!([])), config.clone(), 9000).unwrap();
    task.resume(9000);
    let mut h = Harness::new(config, vec![completion("ok")]);
    h.task = task;
    h.run();
    let blocks = h.requests[0].messages.last().unwrap().content.blocks();
    assert!(
        matches!(&blocks[0], ContentBlock::ToolResult { tool_use_id, is_error: true, .. } if tool_use_id == "call_1")
    );
}

#[test]
fn usage_recorded_in_the_transcript_counts_toward_the_limits() {
    let config = TaskConfig { limits: Limits { max_cost: Some(0.2), ..Limits::default() }, ..config() };
    let last = json!({"ts": 1003, "type": "say", "say": "text", "text": "x"});
    let mut h = rebuilt(config, last, vec![completion("ok")], 5000);
    assert_eq!(h.task.usage().requests, 1);
    assert_eq!(h.task.usage().input_tokens, 10);
    h.run();
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == "CLEW_COST_LIMIT"));
}

#[test]
fn kinds_clew_does_not_emit_are_kept_through_a_snapshot() {
    let last = json!({"ts": 1003, "type": "say", "say": "text", "text": "x"});
    let mut h = rebuilt(config(), last, Vec::new(), 5000);
    let kept = &h.task.messages()[2];
    assert_eq!((kept.kind, kept.kind_name()), (MessageKind::Say(SayKind::Other), "command_output"));
    let again = Task::restore(&h.task.snapshot(), config()).unwrap();
    assert_eq!(again.messages()[2].kind_name(), "command_output");
}

#[test]
fn a_saved_task_that_cannot_be_read_is_an_error_naming_the_place() {
    let error = Task::from_history(&saved(json!([{"role": "robot"}]), json!([])), config(), 0).unwrap_err();
    assert!(error.message.contains("saved.history[0].role"), "{}", error.message);
    let error = Task::from_history(&saved(json!([]), json!([])), config(), 0).unwrap_err();
    assert!(error.message.contains("empty"), "{}", error.message);
    let messages = json!([{"ts": 5, "type": "say", "say": "text"}, {"ts": "5", "type": "say", "say": "text"}]);
    let error = Task::from_history(&saved(conversation(), messages), config(), 0).unwrap_err();
    assert!(error.message.contains("saved.messages[1].ts"), "{}", error.message);
}

#[test]
fn a_saved_transcript_whose_ts_repeat_is_kept_with_rising_ts() {
    // Cline's transcripts can hold two messages of one millisecond, or a clock that went back.
    let messages = json!([
        {"ts": 5, "type": "say", "say": "task", "text": "a"},
        {"ts": 5, "type": "say", "say": "text", "text": "b"},
        {"ts": 3, "type": "say", "say": "text", "text": "c"},
    ]);
    let task = Task::from_history(&saved(conversation(), messages), config(), 10).unwrap();
    let kept: Vec<(u64, &str)> = task.messages().iter().map(|m| (m.ts, m.text.as_str())).collect();
    assert_eq!(&kept[..3], &[(5, "a"), (6, "b"), (7, "c")]);
    assert!(task.messages()[3].ts > 7, "the resume ask comes after");
}

#[test]
fn an_earlier_resumption_notice_in_the_trailing_content_is_replaced() {
    let history = json!([
        {"role": "user", "content": "do it"},
        {"role": "assistant", "content": "<read><path>a</path></read>"},
        {"role": "user", "content": [{"type": "text", "text": "[TASK RESUMPTION] an old notice"}, {"type": "text", "text": "kept"}]},
    ]);
    let mut task = Task::from_history(&saved(history, json!([])), config(), 100).unwrap();
    task.resume(100);
    let mut h = Harness::new(config(), vec![completion("ok")]);
    h.task = task;
    h.now = 100;
    h.run();
    let texts = last_user_texts(&h);
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert_eq!(texts[0], "kept");
    assert!(texts[1].starts_with("[Task resumed]"));
}
