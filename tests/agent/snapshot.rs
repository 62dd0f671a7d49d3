//! Snapshots: at every point where a task waits, its state round-trips through JSON into a
//! machine that finishes the run identically.

use crate::harness::*;
use clew::agent::{AskAnswer, AskKind, AskResponse, MessageKind, Task, TaskConfig, INTERRUPTED_BY_API_ERROR};

fn script() -> Vec<Reply> {
    vec![
        text(&["Let me look.\n", "<read><path>a</path></read>"]),
        text(&["<write><path>b</path><content>new</content></write>"]),
        text(&["<ask_followup_question><question>More?</question></ask_followup_question>"]),
        fail(http(500, "flaky")),
        completion("all done"),
    ]
}

fn scripted_config() -> TaskConfig {
    TaskConfig { checkpoints: true, ..config() }
}

fn answers(m: &clew::agent::Message) -> Option<AskAnswer> {
    match m.kind {
        _ if m.is_partial() => None,
        MessageKind::Ask(AskKind::Followup) => Some(AskAnswer::message("no")),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    }
}

fn finish(mut h: Harness) -> (Vec<String>, String, Option<clew::agent::Outcome>) {
    h.run();
    let history = serde_json::to_string(h.task.history()).unwrap();
    (h.transcript(), history, h.outcome().cloned())
}

#[test]
fn a_task_restored_at_every_waiting_point_finishes_identically() {
    let mut whole = Harness::new(scripted_config(), script());
    whole.ask = Box::new(answers);
    whole.start("t");
    let expected = finish(whole);
    assert!(matches!(expected.2, Some(clew::agent::Outcome::Completed { .. })));

    let mut points = 0;
    for stop_at in 1.. {
        // Run a fresh task to its `stop_at`-th waiting point (no stream open), snapshot it,
        // and finish the run with a restored machine and a fresh driver.
        let mut h = Harness::new(scripted_config(), script());
        h.ask = Box::new(answers);
        let mut seen = 0;
        h.pause = Some(Box::new(move |task: &Task| {
            let waiting = !task.is_streaming()
                && matches!(task.state(), "answer" | "tool" | "checkpoint" | "retryDelay" | "hook");
            if waiting {
                seen += 1;
            }
            waiting && seen == stop_at
        }));
        h.start("t");
        if h.outcome().is_some() {
            break;
        }
        let json = h.task.snapshot();
        let restored = Task::restore(&json, h.now).expect("restore");
        let mut rest = Harness::new(scripted_config(), Vec::new());
        rest.task = restored;
        rest.now = h.now;
        rest.ask = Box::new(answers);
        let requests_so_far = h.requests.len();
        rest.model = script().into_iter().skip(requests_so_far).collect();
        rest.drain();
        assert_eq!(finish(rest), expected, "restored at waiting point {stop_at}");
        points += 1;
    }
    assert!(points >= 6, "only {points} waiting points were tried");
}

#[test]
fn a_stream_open_at_snapshot_time_resumes_as_a_mid_stream_failure() {
    let mut h = Harness::new(config(), vec![Reply::Bytes(vec![text_line("Half of it"), text_line(" and more")])]);
    h.pause = Some(Box::new(|task| task.messages().iter().any(|m| m.text.starts_with("Half"))));
    h.start("t");
    let json = h.task.snapshot();
    let mut rest = Harness::new(config(), vec![completion("ok")]);
    rest.task = Task::restore(&json, h.now).unwrap();
    rest.now = h.now;
    rest.run();
    assert_eq!(rest.history_texts(1), vec![format!("Half of it{INTERRUPTED_BY_API_ERROR}")]);
    assert!(matches!(rest.outcome(), Some(clew::agent::Outcome::Completed { .. })));
}

#[test]
fn a_snapshot_is_plain_json_and_a_bad_one_is_a_typed_error() {
    let mut h = Harness::new(config(), vec![completion("ok")]);
    h.ask = Box::new(|_| None);
    h.start("t");
    let json = h.task.snapshot();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["version"], 1);
    let error = Task::restore("{\"version\":2}", 0).unwrap_err();
    assert_eq!(error.field, "snapshot");
}

#[test]
fn a_post_tool_use_hook_reissued_after_a_restore_gets_the_tools_result() {
    use clew::agent::{Effect, HookKind, HookSet};
    let config = TaskConfig { hooks: HookSet { post_tool_use: true, ..HookSet::default() }, ..config() };
    let script = || vec![text(&["<read><path>a</path></read>"]), completion("ok")];
    let mut h = Harness::new(config.clone(), script());
    h.pause = Some(Box::new(|task| task.state() == "hook"));
    h.start("t");
    assert_eq!(h.task.state(), "hook");
    let mut rest = Harness::new(config, Vec::new());
    rest.task = Task::restore(&h.task.snapshot(), h.now).unwrap();
    rest.now = h.now;
    rest.model = script().into_iter().skip(h.requests.len()).collect();
    rest.run();
    let results: Vec<_> = rest
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::RunHook { kind: HookKind::PostToolUse, result, .. } => Some(result.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(results, vec![Some("read ran with path=a".to_owned())]);
    assert!(matches!(rest.outcome(), Some(clew::agent::Outcome::Completed { .. })));
}
