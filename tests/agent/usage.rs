//! Usage and limits (AGENT-LOOP §16): every round's usage counts in full, whatever ends the
//! round, and a limit never leaves a message partial.

use crate::harness::*;
use clew::agent::{Effect, Limits, Outcome, TaskConfig};
use clew::stream::model::ModelInfo;
use clew::stream::Format;

fn anthropic_config() -> TaskConfig {
    TaskConfig { format: Format::Anthropic, ..config() }
}

const COMPLETION: &str = "Done.\n<attempt_completion><result>ok</result></attempt_completion>";

#[test]
fn an_accepted_completion_reads_the_reply_to_its_end_and_counts_its_usage() {
    let reply = anthropic_reply(&[Part::Text(COMPLETION), Part::Text("\n\nA last word.")], 500);
    let mut h = Harness::new(anthropic_config(), vec![reply]);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
    assert_eq!(h.task.usage().output_tokens, 500);
    assert_eq!(h.api_reqs()[0]["tokensOut"], 500);
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::CancelStream { .. })), "the reply was read, not cut");
    let finished = h.position(|e| matches!(e, Effect::Finished(_))).unwrap();
    let figures = h
        .position(|e| matches!(e, Effect::Say(m) if m.text.contains("\"tokensOut\":500") && !m.is_partial()))
        .expect("api_req_started gets its final tokens");
    assert!(figures < finished);
    assert!(h.task.messages().iter().all(|m| !m.is_partial()));
}

#[test]
fn a_completion_accepted_mid_stream_waits_for_the_stream_and_ends_completed() {
    let reply = anthropic_reply(&[Part::Text(COMPLETION), Part::Text(" more text")], 77);
    let mut h = Harness::new(anthropic_config(), vec![reply]);
    h.pause = Some(Box::new(|task| task.state() == "stream" && task.messages().iter().any(|m| m.text == "ok")));
    h.start("t");
    h.pause = None;
    h.run();
    assert!(matches!(h.outcome(), Some(Outcome::Completed { result }) if result == "ok"));
    assert_eq!(h.task.usage().output_tokens, 77);
}

#[test]
fn a_completion_is_asked_only_after_the_reply_was_read_and_its_usage_counted() {
    let reply = anthropic_reply(&[Part::Text(COMPLETION), Part::Text(" and a last word")], 9);
    let mut h = Harness::new(anthropic_config(), vec![reply]);
    h.ask = Box::new(|_| None);
    h.start("t");
    assert_eq!(h.task.state(), "answer");
    assert!(!h.task.is_streaming(), "the reply was read to its end before the ask");
    let asked = h.position(|e| matches!(e, Effect::Ask(m) if !m.is_partial())).expect("the completion ask");
    let figures = h.position(|e| matches!(e, Effect::Say(m) if m.text.contains("\"tokensOut\":9"))).unwrap();
    assert!(figures < asked, "the round's usage is counted before anyone is asked");
    h.task.abort(h.now, "late");
    h.drain();
    assert!(matches!(h.outcome(), Some(Outcome::Aborted { .. })), "{:?}", h.outcome());
    assert_eq!(h.task.usage().output_tokens, 9);
}

#[test]
fn a_request_limit_ends_the_task_with_no_partial_message() {
    let config = TaskConfig { limits: Limits { max_requests: Some(1), max_cost: None }, ..anthropic_config() };
    let mut h = Harness::new(config, vec![anthropic_reply(&[Part::Text("Thinking aloud, no tool.")], 50)]);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == "CLEW_REQUEST_LIMIT"));
    assert_eq!(h.api_reqs().len(), 1, "no api_req_started for a request never made");
    assert!(h.task.messages().iter().all(|m| !m.is_partial()));
    assert_eq!(h.api_reqs()[0]["tokensOut"], 50);
}

#[test]
fn a_cost_limit_sees_the_whole_rounds_cost() {
    let info = ModelInfo { input_price: Some(0.0), output_price: Some(1_000_000.0), ..ModelInfo::default() };
    let config =
        TaskConfig { info, limits: Limits { max_requests: None, max_cost: Some(400.0) }, ..anthropic_config() };
    let replies = vec![anthropic_reply(&[Part::Text(COMPLETION)], 500), completion("again")];
    let mut h = Harness::new(config, replies);
    h.ask = Box::new(|m| (!m.is_partial()).then(|| clew::agent::AskAnswer::message("one more thing")));
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == "CLEW_COST_LIMIT"), "{:?}", h.outcome());
    assert_eq!(h.task.usage().total_cost, 500.0);
    assert_eq!(h.requests.len(), 1);
}

#[test]
fn a_limit_reached_at_a_retry_finalises_the_rounds_api_req_started() {
    let config = TaskConfig { limits: Limits { max_requests: Some(1), max_cost: None }, ..config() };
    let mut h = Harness::new(config, vec![fail(http(500, "busy"))]);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == "CLEW_REQUEST_LIMIT"));
    assert!(h.task.messages().iter().all(|m| !m.is_partial()), "{:?}", h.task.messages());
}
