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
    assert!(after.iter().any(|e| matches!(e, Effect::CancelStream { .. })));
    assert!(matches!(after.last(), Some(Effect::Finished(Outcome::Aborted { .. }))));
    assert!(after.iter().all(|e| !matches!(e, Effect::Ask(_))), "no question after abort");
    assert!(after.iter().all(|e| !matches!(e, Effect::Say(m) if m.is_partial())), "only final versions go out");
    assert_eq!(h.history_texts(1), vec![format!("half a th{INTERRUPTED_BY_USER}")]);
    assert!(h.task.messages().iter().all(|m| !m.is_partial()), "the last partial message is final");
}

#[test]
fn a_mid_stream_abort_sends_the_text_pacing_held_back_so_the_transcript_matches_the_history() {
    let config = TaskConfig { presentation_interval_ms: 10_000, ..config() };
    let mut h =
        Harness::new(config, vec![Reply::Bytes(vec![text_line("Let me l"), text_line("ook at it"), text_line(".")])]);
    let mut reads = 0;
    h.pause = Some(Box::new(move |task| {
        reads += 1;
        reads > 1 && task.messages().iter().any(|m| m.text.starts_with("Let me"))
    }));
    h.start("t");
    h.run();
    assert!(h.task.messages().iter().any(|m| m.text == "Let me l" && m.is_partial()), "{:?}", h.task.messages());
    h.task.abort(h.now, "user");
    let after = effects_after_abort(&mut h);
    let text = h.task.messages().iter().find(|m| m.text.starts_with("Let me")).unwrap();
    assert!(!text.is_partial());
    let streamed = h.history_texts(1)[0].replace(INTERRUPTED_BY_USER, "");
    assert_eq!(text.text, streamed, "the transcript shows what the history keeps");
    assert!(after
        .iter()
        .any(|e| matches!(e, Effect::Say(m) if m.ts == text.ts && m.text == streamed && !m.is_partial())));
    let api = h.api_reqs();
    assert_eq!(api[0]["cancelReason"], "user_cancelled");
    assert!(h.task.messages().iter().all(|m| !m.is_partial()));
}

#[test]
fn effects_queued_before_an_abort_are_dropped() {
    let config = TaskConfig { auto_approve: clew::agent::AutoApprove { read_only: false, all: true }, ..config() };
    let mut h = Harness::new(config, vec![text(&["<write><path>a</path><content>x</content></write>"])]);
    h.task.start(h.now, "t", Vec::new());
    // Take effects one at a time, as a driver does, and abort at the say that shows the
    // auto-approved call: its RunTool was queued behind that say.
    let mut stream = None;
    while let Some(effect) = h.task.poll_effect() {
        if let Effect::OpenStream { stream: id, .. } = effect {
            stream = Some(id);
        }
    }
    let id = stream.unwrap();
    h.task.handle_stream_bytes(h.now + 1, id, &text_line("<write><path>a</path><content>x</content></write>"));
    h.task.handle_stream_end(h.now + 2, id);
    let mut after_abort = Vec::new();
    let mut aborted = false;
    while let Some(effect) = h.task.poll_effect() {
        if aborted {
            after_abort.push(effect);
            continue;
        }
        if matches!(&effect, Effect::Say(m) if m.text.contains("\"tool\":\"write\"") && !m.is_partial()) {
            h.task.abort(h.now + 3, "from the say");
            aborted = true;
        }
    }
    assert!(aborted);
    assert!(
        after_abort.iter().all(|e| !matches!(e, Effect::RunTool { .. } | Effect::Ask(_) | Effect::OpenStream { .. })),
        "{after_abort:?}"
    );
    assert!(matches!(after_abort.last(), Some(Effect::Finished(Outcome::Aborted { .. }))));
}

#[test]
fn abort_before_start_ends_the_task_aborted_with_no_effect_but_the_end() {
    let mut h = Harness::new(config(), Vec::new());
    h.task.abort(h.now, "never mind");
    let after = effects_after_abort(&mut h);
    assert!(matches!(after.as_slice(), [.., Effect::Finished(Outcome::Aborted { .. })]));
    assert!(after.iter().all(|e| matches!(e, Effect::WakeAt(_) | Effect::Finished(_))));
    h.task.start(h.now, "t", Vec::new());
    assert!(h.task.poll_effect().is_none(), "start after abort does nothing");
}

#[test]
fn abort_while_a_post_tool_use_hook_runs_cancels_no_tool() {
    let mut config = config();
    config.hooks.post_tool_use = true;
    let mut h = Harness::new(config, vec![text(&["<read><path>a</path></read>"])]);
    h.pause = Some(Box::new(|task| task.state() == "hook"));
    h.start("t");
    assert_eq!(h.tool_calls.len(), 1, "the tool ran");
    assert_eq!(h.task.state(), "hook", "its PostToolUse hook runs");
    h.task.abort(h.now, "stop");
    let after = effects_after_abort(&mut h);
    assert!(!after.iter().any(|e| matches!(e, Effect::CancelTool { .. })), "no tool runs: {after:?}");
    assert!(matches!(after.as_slice(), [.., Effect::Finished(Outcome::Aborted { .. })]));
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
