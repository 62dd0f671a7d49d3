//! Abort: from anywhere, final at once, what streamed is kept.

use crate::harness::*;
use clew::agent::{Effect, HookKind, Outcome, TaskConfig, INTERRUPTED_BY_USER};

fn effects_after_abort(h: &mut Harness) -> Vec<Effect> {
    let mut out = Vec::new();
    while let Some(e) = h.task.poll_effect() {
        out.push(e);
    }
    out
}

#[test]
fn abort_mid_stream_saves_the_partial_reply_with_the_user_marker() {
    let mut h = Harness::new(config(), vec![Reply::Bytes(vec![text_line("half a th"), text_line("ought")])]);
    h.pause = Some(Box::new(|task| task.messages().iter().any(|m| m.text.contains("half"))));
    h.start("t");
    h.task.abort(h.now, "user");
    let after = effects_after_abort(&mut h);
    assert!(matches!(after.first(), Some(Effect::CancelStream { .. })));
    assert!(matches!(after.last(), Some(Effect::Finished(Outcome::Aborted { .. }))));
    assert!(after.iter().all(|e| !matches!(e, Effect::Say(_) | Effect::Ask(_))), "no callback after abort");
    assert_eq!(h.history_texts(1), vec![format!("half a th{INTERRUPTED_BY_USER}")]);
    assert!(h.task.messages().iter().all(|m| !m.is_partial()), "the last partial message is final");
}

#[test]
fn abort_inside_a_tool_cancels_it_and_ignores_its_late_result() {
    let mut config = config();
    config.hooks.task_cancel = true;
    let mut h = Harness::new(config, vec![text(&["<read><path>a</path></read>"])]);
    h.tool = Box::new(|_, _| None);
    h.start("t");
    assert_eq!(h.task.state(), "tool");
    h.task.abort(h.now, "stop");
    let after = effects_after_abort(&mut h);
    assert!(after.iter().any(|e| matches!(e, Effect::CancelTool { .. })));
    assert!(after.iter().any(|e| matches!(e, Effect::RunHook { kind: HookKind::TaskCancel, .. })));
    let id = h.running_tools[0];
    h.task.handle_tool_done(h.now + 1, id, clew::agent::ToolOutput::text("late"));
    assert!(h.task.poll_effect().is_none());
    assert_eq!(h.outcome(), Some(&Outcome::Aborted { reason: "stop".into() }));
}

#[test]
fn abort_while_waiting_for_an_answer_or_a_retry_ends_at_once() {
    let mut h = Harness::new(config(), vec![fail(http(500, "x"))]);
    h.pause = Some(Box::new(|task| task.state() == "retryDelay"));
    h.start("t");
    h.task.abort(h.now, "bored");
    assert!(matches!(h.outcome(), Some(Outcome::Aborted { .. })));
    assert_eq!(h.task.poll_timeout(), None);
}

#[test]
fn abort_after_the_end_is_ignored() {
    let mut h = Harness::new(TaskConfig { ..config() }, vec![completion("ok")]);
    h.start("t");
    h.task.abort(h.now, "late");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
    assert!(h.task.poll_effect().is_none());
}
