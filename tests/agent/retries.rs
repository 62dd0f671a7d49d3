//! Failed requests: first-chunk retries, auth errors, context window, mid-stream failure,
//! timeouts.

use crate::harness::*;
use clew::agent::{
    codes, AskAnswer, AskResponse, Effect, Outcome, RetryPolicy, TaskConfig, Timeouts, INTERRUPTED_BY_API_ERROR,
};
use clew::stream::StreamError;

#[test]
fn first_chunk_server_errors_are_retried_after_2_4_8_seconds_then_the_user_is_asked() {
    let e = || fail(http(500, "boom"));
    let mut h = Harness::new(config(), vec![e(), e(), e(), e(), completion("ok")]);
    h.start("t");
    assert_eq!(h.retry_delays(), vec![2, 4, 8]);
    let failed: Vec<_> = h.says_of("error_retry").into_iter().filter(|m| m.text.contains("\"failed\":true")).collect();
    assert_eq!(failed.len(), 1);
    assert!(h.kinds().contains(&"ask api_req_failed".to_owned()));
    assert!(h.kinds().contains(&"say api_req_retried".to_owned()));
    assert_eq!(h.roles().len(), 2, "retries never duplicate the user message");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn the_retry_clock_really_waits_between_attempts() {
    let mut h = Harness::new(config(), vec![fail(http(503, "busy")), completion("ok")]);
    let start = h.now;
    h.start("t");
    assert!(h.now - start >= 2_000, "waited {} ms", h.now - start);
}

#[test]
fn a_rate_limits_retry_after_is_honoured() {
    let error = StreamError::from_http(429, Some("30"), "slow down", None);
    let mut h = Harness::new(config(), vec![fail(error), completion("ok")]);
    h.start("t");
    assert_eq!(h.retry_delays(), vec![30]);
}

#[test]
fn an_auth_error_is_not_retried_and_goes_straight_to_the_ask() {
    let mut h = Harness::new(config(), vec![fail(http(401, "invalid x-api-key"))]);
    h.ask = Box::new(|_| Some(AskAnswer::button(AskResponse::No)));
    h.start("t");
    assert!(h.says_of("error_retry").is_empty());
    assert!(h.kinds().contains(&"ask api_req_failed".to_owned()));
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::API_REQ_FAILED));
}

#[test]
fn yolo_mode_fails_the_task_when_retries_run_out() {
    let e = || fail(http(500, "boom"));
    let config = TaskConfig { yolo: true, retry: RetryPolicy { max_retries: 1, ..RetryPolicy::default() }, ..config() };
    let mut h = Harness::new(config, vec![e(), e()]);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Failed { code, .. }) if code == codes::RETRIES_EXHAUSTED));
}

#[test]
fn a_context_window_error_truncates_silently_and_retries_once_per_round() {
    let overflow = || fail(http(400, r#"{"error":{"type":"invalid_request_error","message":"prompt is too long"}}"#));
    let read = |p: &str| text(&[&format!("<read><path>{p}</path></read>")]);
    let script = vec![read("1"), read("2"), read("3"), read("4"), overflow(), overflow(), completion("ok")];
    let mut h = Harness::new(config(), script);
    h.start("t");
    let n = h.requests.len();
    assert!(h.requests[n - 2].messages.len() < h.requests[n - 3].messages.len(), "the first retry was truncated");
    assert_eq!(h.retry_delays().len(), 1, "the second overflow of the round took the retry path");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_mid_stream_failure_keeps_the_partial_reply_and_resumes_in_place() {
    let cut = Reply::FailAfter(
        vec![text_line("I was say"), text_line("ing")],
        StreamError::Incomplete { expected: "message_stop" },
    );
    let mut h = Harness::new(config(), vec![cut, completion("ok")]);
    h.start("t");
    assert_eq!(h.history_texts(1), vec![format!("I was saying{INTERRUPTED_BY_API_ERROR}")]);
    assert!(h.history_texts(2)[0].contains("cut off by an API error"));
    assert_eq!(h.first_text(), "I was saying");
    let first = h.task.messages().iter().find(|m| m.text == "I was saying").unwrap();
    assert_eq!(first.partial, Some(false), "what was shown stays, finalised");
    assert_eq!(h.retry_delays(), vec![2]);
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_complete_tool_before_a_mid_stream_failure_still_runs() {
    let pieces = vec![text_line("<read><path>a</path></read>"), text_line("\nand then")];
    let mut h = Harness::new(config(), vec![Reply::FailAfter(pieces, http(500, "gone")), completion("ok")]);
    h.start("t");
    assert_eq!(h.tool_calls.len(), 1);
    let next = h.history_texts(2);
    assert!(next[0].starts_with("[read for 'a'] Result:"));
}

#[test]
fn a_first_byte_that_never_comes_is_a_retryable_timeout() {
    let config = TaskConfig { timeouts: Timeouts { first_byte_ms: Some(10_000), idle_ms: None }, ..config() };
    let mut h = Harness::new(config, vec![Reply::Silent, completion("ok")]);
    h.start("t");
    assert!(h.effects.iter().any(|e| matches!(e, Effect::CancelStream { .. })));
    assert!(h.says_of("error_retry")[0].text.contains("CLEW_TIMEOUT"));
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_stream_that_goes_silent_is_a_retryable_failure_after_its_content() {
    let quiet = TaskConfig { timeouts: Timeouts { first_byte_ms: None, idle_ms: Some(5_000) }, ..config() };
    let mut h = Harness::new(quiet, vec![Reply::Bytes(vec![text_line("part")]), completion("ok")]);
    // The first reply's bytes arrive but its end never does.
    h.model[0] = Reply::FailAfter(vec![text_line("part")], StreamError::Network { message: "never sent".into() });
    h.start("t");
    assert!(h.history_texts(1)[0].starts_with("part"));
    let mut silent = Harness::new(
        TaskConfig { timeouts: Timeouts { first_byte_ms: None, idle_ms: Some(5_000) }, ..config() },
        vec![Reply::Silent],
    );
    silent.task.start(silent.now, "t", Vec::new());
    silent.drain();
    let Some(Effect::OpenStream { stream, .. }) =
        silent.effects.iter().find(|e| matches!(e, Effect::OpenStream { .. })).cloned()
    else {
        panic!()
    };
    silent.task.handle_stream_bytes(silent.now + 1, stream, &text_line("hello"));
    silent.drain();
    assert_eq!(silent.task.poll_timeout(), Some(silent.now + 1 + 5_000));
    silent.task.handle_timeout(silent.now + 10_000);
    silent.drain();
    assert!(silent.says_of("error_retry")[0].text.contains("more data"));
    assert!(silent.history_texts(1)[0].starts_with("hello"));
}

#[test]
fn text_cut_by_a_failure_in_the_same_read_is_shown_final() {
    let mut bytes = text_line("Partial");
    bytes.extend(line(serde_json::json!({"type": "text"})));
    let mut h = Harness::new(config(), vec![Reply::Bytes(vec![bytes]), completion("ok")]);
    h.start("t");
    let first = h.task.messages().iter().find(|m| m.text == "Partial").expect("shown");
    assert_eq!(first.partial, Some(false));
    assert!(h.task.messages().iter().all(|m| !m.is_partial()));
}

#[test]
fn a_wake_up_that_comes_early_asks_for_another() {
    let mut h = Harness::new(config(), vec![fail(http(500, "x")), completion("ok")]);
    h.pause = Some(Box::new(|task| task.state() == "retryDelay"));
    h.start("t");
    let due = h.task.poll_timeout().expect("a wake-up for the retry");
    h.task.handle(due - 1, clew::agent::Event::Timer);
    let again: Vec<_> = std::iter::from_fn(|| h.task.poll_effect()).collect();
    assert!(again.contains(&Effect::WakeAt(Some(due))), "asks again: {again:?}");
    assert_eq!(h.task.state(), "retryDelay");
}

#[test]
fn yolo_says_why_it_gives_up_whichever_path_failed() {
    let config = TaskConfig { yolo: true, retry: RetryPolicy { max_retries: 0, ..RetryPolicy::default() }, ..config() };
    let first_chunk = Harness::new(config.clone(), vec![fail(http(500, "boom"))]).start("t").says_of("error").len();
    let cut = Reply::FailAfter(vec![text_line("Half")], http(500, "cut"));
    let mut mid = Harness::new(config, vec![cut]);
    mid.start("t");
    assert!(matches!(mid.outcome(), Some(Outcome::Failed { code, .. }) if code == codes::RETRIES_EXHAUSTED));
    assert_eq!(first_chunk, 1);
    assert_eq!(mid.says_of("error").len(), 1, "a mid-stream failure says why too");
}

#[test]
fn a_retry_after_longer_than_the_longest_delay_goes_to_the_user_at_once() {
    let error = || StreamError::from_http(429, Some("86400"), "come back tomorrow", None);
    let mut h = Harness::new(config(), vec![fail(error()), completion("ok")]);
    let asked = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = std::rc::Rc::clone(&asked);
    h.ask = Box::new(move |m| {
        if m.is_partial() {
            return None;
        }
        seen.borrow_mut().push(m.text.clone());
        Some(AskAnswer::button(AskResponse::Yes))
    });
    h.start("t");
    assert!(h.retry_delays().is_empty(), "no silent day-long sleep");
    assert!(asked.borrow()[0].contains("86400 s"), "{:?}", asked.borrow());
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));

    let config = TaskConfig { yolo: true, ..config() };
    let mut yolo = Harness::new(config, vec![fail(error())]);
    yolo.start("t");
    assert!(matches!(yolo.outcome(), Some(Outcome::Failed { code, .. }) if code == codes::RETRIES_EXHAUSTED));
    assert_eq!(yolo.requests.len(), 1);
}

#[test]
fn a_bad_request_is_not_retried_and_ends_the_task_with_its_code() {
    let bad = fail(http(400, r#"{"error":{"type":"invalid_request_error","message":"tools.0.name: invalid"}}"#));
    let mut h = Harness::new(config(), vec![bad, completion("never")]);
    h.start("t");
    assert!(
        matches!(h.outcome(), Some(Outcome::Failed { code, .. }) if code == codes::BAD_REQUEST),
        "{:?}",
        h.outcome()
    );
    assert_eq!(h.requests.len(), 1);
    assert!(h.retry_delays().is_empty());
}

#[test]
fn a_line_over_the_size_limit_is_not_retried() {
    let cut = Reply::FailAfter(vec![text_line("Some text")], StreamError::LineTooLong { limit: 8 << 20 });
    let mut h = Harness::new(config(), vec![cut, completion("never")]);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Failed { code, .. }) if code == "CLEW_LINE_TOO_LONG"));
    assert_eq!(h.requests.len(), 1);
}

#[test]
fn a_context_overflow_that_truncation_cannot_shrink_ends_the_task_after_one_request() {
    let overflow = || fail(http(400, r#"{"error":{"type":"invalid_request_error","message":"prompt is too long"}}"#));
    let mut h = Harness::new(config(), vec![overflow(), overflow(), overflow(), completion("never")]);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Failed { code, .. }) if code == codes::CONTEXT_WINDOW_EXCEEDED));
    assert_eq!(h.requests.len(), 1, "nothing could be removed, so nothing was sent again");
}

#[test]
fn every_retry_after_a_context_window_error_sends_a_strictly_smaller_request() {
    let overflow = || fail(http(400, r#"{"error":{"type":"invalid_request_error","message":"prompt is too long"}}"#));
    let read = |p: &str| text(&[&format!("<read><path>{p}</path></read>")]);
    let mut script: Vec<Reply> = (1..=8).map(|i| read(&i.to_string())).collect();
    script.extend([overflow(), overflow(), overflow(), completion("ok")]);
    let mut h = Harness::new(config(), script);
    h.start("t");
    let sizes: Vec<usize> = h.requests.iter().skip(8).map(|r| r.messages.len()).collect();
    assert_eq!(sizes.len(), 4, "three overflows, then the request that completes");
    assert!(sizes.windows(2).all(|w| w[1] < w[0]), "each retry is smaller: {sizes:?}");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}
