//! The outer and middle loops: rounds, the no-tools reminder, the mistake limit, the empty
//! reply, history shape, limits.

use crate::harness::*;
use clew::agent::{codes, AskAnswer, AskKind, AskResponse, MessageKind, Outcome, TaskConfig, EMPTY_REPLY};
use clew::conversation::Role;

#[test]
fn text_only_reply_is_said_partial_then_final_and_gets_the_no_tools_reminder() {
    let mut h = Harness::new(config(), vec![text(&["Hello ", "there"]), completion("ok")]);
    h.start("greet");
    let texts = h.says_of("text");
    assert!(texts.iter().any(|m| m.is_partial()), "a partial say while streaming");
    let last = texts.iter().filter(|m| m.text == "Hello there").last().unwrap();
    assert_eq!(last.partial, Some(false));
    assert!(
        texts.iter().filter(|m| m.text.starts_with("Hello")).all(|m| m.ts == last.ts),
        "one message updated in place"
    );
    assert_eq!(h.first_text(), "Hello there");
    let next_user = h.history_texts(2);
    assert!(next_user[0].starts_with("[ERROR]"), "{next_user:?}");
    assert_eq!(h.outcome(), Some(&Outcome::Completed { result: "ok".into() }));
}

#[test]
fn the_task_text_opens_the_history_inside_task_tags() {
    let mut h = Harness::new(config(), vec![completion("ok")]);
    h.start("fix the typo");
    assert_eq!(h.history_texts(0), vec!["<task>\nfix the typo\n</task>".to_owned()]);
    assert_eq!(h.kinds()[0], "say task");
}

#[test]
fn three_no_tool_replies_lead_to_the_mistake_limit_ask_on_the_fourth_round() {
    let mut h = Harness::new(config(), vec![text(&["a"]), text(&["b"]), text(&["c"]), completion("ok")]);
    h.ask = Box::new(|m| (!m.is_partial()).then(|| AskAnswer::button(AskResponse::Yes)));
    h.start("t");
    let asks: Vec<_> = h.kinds().into_iter().filter(|k| k.starts_with("ask")).collect();
    assert_eq!(asks, vec!["ask mistake_limit_reached", "ask completion_result"]);
    assert_eq!(h.requests.len(), 4, "the ask comes before the fourth request");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn yolo_mode_fails_the_task_at_the_mistake_limit() {
    let config = TaskConfig { yolo: true, ..config() };
    let mut h = Harness::new(config, vec![text(&["a"]), text(&["b"]), text(&["c"])]);
    h.start("t");
    match h.outcome() {
        Some(Outcome::Failed { code, .. }) => assert_eq!(code, codes::MISTAKE_LIMIT),
        other => panic!("{other:?}"),
    }
    assert!(h.transcript().iter().any(|l| l.starts_with("say error: [YOLO MODE]")));
}

#[test]
fn a_message_at_the_mistake_limit_replaces_the_pending_content_and_resets_the_count() {
    let mut h = Harness::new(config(), vec![text(&["a"]), text(&["b"]), text(&["c"]), completion("ok")]);
    h.ask = Box::new(|m| match m.kind {
        MessageKind::Ask(AskKind::MistakeLimitReached) => Some(AskAnswer::message("try reading first")),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    });
    h.start("t");
    let fourth_user = h.history_texts(6);
    assert_eq!(fourth_user.len(), 1);
    assert!(fourth_user[0].contains("<feedback>\ntry reading first\n</feedback>"));
    assert!(h.kinds().contains(&"say user_feedback".to_owned()));
    assert_eq!(h.task.mistakes(), 0);
}

#[test]
fn declining_at_the_mistake_limit_ends_the_task() {
    let mut h = Harness::new(config(), vec![text(&["a"]), text(&["b"]), text(&["c"])]);
    h.ask = Box::new(|_| Some(AskAnswer::button(AskResponse::No)));
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::MISTAKE_LIMIT));
}

#[test]
fn whitespace_only_reply_takes_the_no_tools_path_not_the_empty_reply_path() {
    let mut h = Harness::new(config(), vec![text(&["  \n "]), completion("ok")]);
    h.start("t");
    assert!(h.says_of("error").is_empty());
    assert_eq!(h.roles()[..2], [Role::User, Role::User], "no assistant turn for a blank reply");
    assert!(h.history_texts(1)[0].starts_with("[ERROR]"));
    assert_eq!(h.requests.len(), 2);
}

#[test]
fn empty_reply_records_the_failure_and_retries_after_2_4_8_seconds_then_asks() {
    let empty = || Reply::Bytes(vec![line(serde_json::json!({"type": "stop", "reason": "end_turn"}))]);
    let config = TaskConfig { max_consecutive_mistakes: 10, ..config() };
    let mut h = Harness::new(config, vec![empty(), empty(), empty(), empty(), completion("ok")]);
    h.start("t");
    assert_eq!(h.retry_delays(), vec![2, 4, 8]);
    assert_eq!(h.history_texts(1), vec![EMPTY_REPLY.to_owned()]);
    let asks: Vec<_> = h.kinds().into_iter().filter(|k| k.starts_with("ask")).collect();
    assert_eq!(asks[0], "ask api_req_failed");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn declining_to_retry_an_empty_reply_ends_the_task() {
    let empty = || Reply::Bytes(vec![line(serde_json::json!({"type": "stop", "reason": "end_turn"}))]);
    let config = TaskConfig { retry: clew::agent::RetryPolicy { max_retries: 0, ..Default::default() }, ..config() };
    let mut h = Harness::new(config, vec![empty()]);
    h.ask = Box::new(|_| Some(AskAnswer::button(AskResponse::No)));
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::API_REQ_FAILED));
}

#[test]
fn history_alternates_user_and_assistant_with_tool_results_in_user_turns() {
    let read = text(&["I'll read it.\n\n<read><path>a.md</path></read>"]);
    let mut h = Harness::new(config(), vec![read, completion("ok")]);
    h.start("t");
    assert_eq!(h.roles(), vec![Role::User, Role::Assistant, Role::User, Role::Assistant]);
    assert_eq!(h.history_texts(1), vec!["I'll read it.\n\n<read><path>a.md</path></read>".to_owned()]);
    assert_eq!(h.history_texts(2), vec!["[read for 'a.md'] Result:\nread ran with path=a.md".to_owned()]);
}

#[test]
fn request_limit_ends_the_task_with_its_code() {
    let config = TaskConfig { limits: clew::agent::Limits { max_requests: Some(2), max_cost: None }, ..config() };
    let mut h = Harness::new(config, vec![text(&["a"]), text(&["b"]), text(&["c"])]);
    h.start("t");
    assert_eq!(h.requests.len(), 2);
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::REQUEST_LIMIT));
}

#[test]
fn cost_limit_ends_the_task_before_the_next_request() {
    let mut config = config();
    config.info.input_price = Some(1_000_000.0);
    config.limits.max_cost = Some(5.0);
    let usage = line(serde_json::json!({"type": "usage", "inputTokens": 10, "outputTokens": 1}));
    let reply = Reply::Bytes(vec![text_line("hmm"), usage]);
    let mut h = Harness::new(config, vec![reply, text(&["b"])]);
    h.start("t");
    assert_eq!(h.requests.len(), 1);
    assert!(matches!(h.outcome(), Some(Outcome::Ended { code, .. }) if code == codes::COST_LIMIT));
    assert!((h.task.usage().total_cost - 10.0).abs() < 1e-9);
}

#[test]
fn usage_accumulates_per_task_and_finishes_the_request_message() {
    let usage =
        |i, o| line(serde_json::json!({"type": "usage", "inputTokens": i, "outputTokens": o, "cacheReadTokens": 5}));
    let first = Reply::Bytes(vec![usage(100, 0), text_line("<read><path>a</path></read>"), usage(0, 20)]);
    let second =
        Reply::Bytes(vec![usage(50, 0), text_line("<attempt_completion><result>r</result></attempt_completion>")]);
    let mut h = Harness::new(config(), vec![first, second]);
    h.start("t");
    let usage = h.task.usage();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.requests), (150, 20, 15, 2));
    let api = h.says_of("api_req_started");
    let done: serde_json::Value =
        serde_json::from_str(&api.iter().find(|m| m.partial == Some(false)).unwrap().text).unwrap();
    assert_eq!(done["tokensIn"], 100);
    assert_eq!(done["tokensOut"], 20);
}

#[test]
fn proactive_truncation_uses_the_previous_requests_tokens() {
    let mut config = config();
    config.info.context_window = Some(64_000);
    let big = line(serde_json::json!({"type": "usage", "inputTokens": 40_000, "outputTokens": 10}));
    let read = |p: &str| Reply::Bytes(vec![text_line(&format!("<read><path>{p}</path></read>")), big.clone()]);
    let mut h = Harness::new(config, vec![read("a"), read("b"), read("c"), read("d"), completion("ok")]);
    h.start("t");
    let last = h.requests.last().unwrap();
    assert!(last.messages.len() < h.task.history().len() - 1, "the request left messages out");
    // R1: the first reply goes as the notice alone.
    assert_eq!(last.messages[1].role, Role::Assistant);
    let notice = block_texts(&last.messages[1].content.blocks());
    assert!(notice.len() == 1 && notice[0].starts_with("[NOTE]"), "{notice:?}");
}

#[test]
fn ts_is_unique_and_strictly_increasing_even_within_one_millisecond() {
    let mut h = Harness::new(config(), vec![text(&["a ", "b ", "c"]), completion("ok")]);
    h.step = 0;
    h.start("t");
    let ts: Vec<u64> = h.task.messages().iter().map(|m| m.ts).collect();
    assert!(ts.windows(2).all(|w| w[0] < w[1]), "{ts:?}");
}

#[test]
fn a_refusal_is_shown_as_text_not_taken_for_an_empty_reply() {
    let event = |delta: serde_json::Value, finish: Option<&str>| {
        format!("data: {}\n\n", serde_json::json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
            .into_bytes()
    };
    let refusal = Reply::Bytes(vec![
        event(serde_json::json!({"refusal": "I can't help with that."}), None),
        event(serde_json::json!({}), Some("stop")),
        b"data: [DONE]\n\n".to_vec(),
    ]);
    let done = Reply::Bytes(vec![
        event(
            serde_json::json!({"content": "<attempt_completion><result>ok</result></attempt_completion>"}),
            Some("stop"),
        ),
        b"data: [DONE]\n\n".to_vec(),
    ]);
    let config = TaskConfig { format: clew::stream::Format::OpenAi, ..config() };
    let mut h = Harness::new(config, vec![refusal, done]);
    h.start("t");
    assert!(h.says_of("error").is_empty(), "not the empty-reply path");
    assert_eq!(h.first_text(), "I can't help with that.");
    assert!(h.history_texts(2)[0].starts_with("[ERROR]"), "the no-tools reminder follows");
}

#[test]
fn each_request_says_which_of_its_messages_are_history_messages_unchanged() {
    use clew::agent::Effect;
    let overflow = || fail(http(400, r#"{"error":{"type":"invalid_request_error","message":"prompt is too long"}}"#));
    let native = |id: &str| {
        anthropic_reply(&[Part::Text("Reading."), Part::Tool { id, name: "read", json: &["{\"path\":\"a\"}"] }], 3)
    };
    let cut = Reply::FailAfter(
        vec![sse(
            "message_start",
            serde_json::json!({"type":"message_start","message":{"id":"m","usage":{"input_tokens":1,"output_tokens":0}}}),
        )],
        http(500, "cut"),
    );
    let done = anthropic_reply(&[Part::Text("<attempt_completion><result>ok</result></attempt_completion>")], 1);
    let script =
        vec![native("toolu_1"), native("toolu_2"), native("toolu_3"), overflow(), cut, native("toolu_4"), done];
    let config = TaskConfig { format: clew::stream::Format::Anthropic, ..config() };
    let mut h = Harness::new(config, script);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    assert_eq!(h.requests.len(), 7);
    assert!(h.requests[4].messages.len() < h.requests[3].messages.len(), "a truncated request is among them");
    let unchanged: Vec<_> = h
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::OpenStream { request, unchanged, .. } => Some((request.clone(), unchanged.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(unchanged.len(), h.requests.len());
    let history = h.task.history();
    let (mut kept, mut changed) = (0, 0);
    for (request, unchanged) in &unchanged {
        assert_eq!(unchanged.len(), request.messages.len());
        for (message, source) in request.messages.iter().zip(unchanged) {
            match source {
                Some(at) => {
                    assert_eq!(Some(message), history.get(*at), "an unchanged message is its history message");
                    kept += 1;
                }
                None => changed += 1,
            }
        }
    }
    assert!(kept > 10 && changed >= 1, "{kept} kept, {changed} changed");
}
