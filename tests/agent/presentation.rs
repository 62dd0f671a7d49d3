//! Presentation: block by block, partial updates paced, text cleaned, reasoning shown.

use crate::harness::*;
use clew::agent::{Effect, MessageKind, SayKind, TaskConfig};

#[test]
fn partial_updates_are_paced_and_the_final_version_is_always_sent() {
    let parts: Vec<String> = (0..200).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    let mut h = Harness::new(config(), vec![text(&refs), completion("ok")]);
    h.step = 1; // one event per millisecond, interval 40 ms
    let start = h.now;
    h.pause = Some(Box::new(|task| task.messages().iter().any(|m| m.text.starts_with("Done"))));
    h.start("t");
    let elapsed = h.now - start;
    let updates = h.says_of("text");
    let first_ts = updates[0].ts;
    let of_first: Vec<_> = updates.iter().filter(|m| m.ts == first_ts).collect();
    assert!(of_first.len() as u64 <= elapsed / 40 + 2, "{} updates for 200 chunks in {elapsed} ms", of_first.len());
    assert!(of_first.len() >= 3, "updates keep coming while it streams");
    let last = of_first.last().unwrap();
    assert_eq!(last.partial, Some(false));
    assert_eq!(last.text, parts.concat().trim());
}

#[test]
fn many_chunks_of_one_read_are_presented_in_one_pass() {
    let pieces: Vec<u8> = (0..50).flat_map(|i| text_line(&format!("{i} "))).collect();
    let mut h = Harness::new(config(), vec![Reply::Bytes(vec![pieces]), completion("ok")]);
    h.start("t");
    let partials = h.says_of("text").into_iter().filter(|m| m.is_partial()).count();
    assert_eq!(partials, 1, "one read, one pass, one partial say");
}

#[test]
fn a_half_written_tool_tag_is_not_shown_as_text() {
    let mut h = Harness::new(config(), vec![text(&["Reading <re", "ad><path>a</path></read>"]), completion("ok")]);
    h.start("t");
    let texts = h.says_of("text");
    assert!(texts.iter().all(|m| !m.text.contains('<')), "{texts:?}");
    assert_eq!(h.first_text(), "Reading");
}

#[test]
fn thinking_tags_are_removed_from_shown_text_but_kept_in_history() {
    let reply = "<thinking>\nplan\n</thinking>\nDone";
    let mut h = Harness::new(config(), vec![text(&[reply]), completion("ok")]);
    h.start("t");
    assert_eq!(h.first_text(), "plan\nDone");
    assert_eq!(h.history_texts(1), vec![reply.to_owned()]);
}

#[test]
fn reasoning_streams_before_text_as_its_own_message_then_is_final() {
    let reasoning = |r: &str| line(serde_json::json!({"type": "reasoning", "reasoning": r}));
    let reply = Reply::Bytes(vec![reasoning("let me "), reasoning("think"), text_line("Answer")]);
    let mut h = Harness::new(config(), vec![reply, completion("ok")]);
    h.start("t");
    let says = h.says_of("reasoning");
    assert!(says[0].is_partial());
    let last = says.last().unwrap();
    assert_eq!((last.text.as_str(), last.partial), ("let me think", Some(false)));
    let kinds = h.kinds();
    let r = kinds.iter().position(|k| k == "say reasoning").unwrap();
    let t = kinds.iter().position(|k| k == "say text").unwrap();
    assert!(r < t);
    assert!(h.history_texts(1).contains(&"thinking let me think".to_owned()));
}

#[test]
fn trailing_code_fence_opener_is_cut_from_a_complete_text_block() {
    let mut h = Harness::new(config(), vec![text(&["Here:\n```xml"]), completion("ok")]);
    h.start("t");
    assert_eq!(h.first_text(), "Here:\n");
}

#[test]
fn tool_calls_are_shown_with_their_params_while_they_stream() {
    let reply = text(&["<write><path>a.txt</pa", "th><content>hel", "lo</content></write>"]);
    let mut h = Harness::new(TaskConfig { presentation_interval_ms: 0, ..config() }, vec![reply, completion("ok")]);
    h.start("t");
    let partial_asks: Vec<_> = h
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Ask(m) if m.is_partial() => Some(m.text.clone()),
            _ => None,
        })
        .collect();
    assert!(partial_asks.iter().any(|t| t.contains("\"path\":\"a.txt\"")), "{partial_asks:?}");
    assert!(partial_asks.iter().all(|t| !t.contains("</pa")));
    let final_ask = h.task.messages().iter().find(|m| matches!(m.kind, MessageKind::Ask(_))).unwrap();
    assert!(final_ask.text.contains("\"content\":\"hello\""));
    assert_eq!(final_ask.partial, Some(false), "the partial ask was completed in place");
}

#[test]
fn an_unregistered_tag_is_plain_text() {
    let mut h = Harness::new(config(), vec![text(&["<focus_chain><x>1</x></focus_chain>"]), completion("ok")]);
    h.start("t");
    assert!(h.tool_calls.is_empty());
    assert_eq!(h.first_text(), "<focus_chain><x>1</x></focus_chain>");
    assert!(h.history_texts(2)[0].starts_with("[ERROR]"), "no tool was used");
}

#[test]
fn auto_approved_tools_are_said_not_asked() {
    let config = TaskConfig { auto_approve: clew::agent::AutoApprove { read_only: true, all: false }, ..config() };
    let mut h = Harness::new(config, vec![text(&["<read><path>a</path></read>"]), completion("ok")]);
    h.start("t");
    assert!(h.kinds().contains(&"say tool".to_owned()));
    assert!(!h.kinds().contains(&"ask tool".to_owned()));
    assert!(h.task.messages().iter().all(|m| m.kind != MessageKind::Say(SayKind::Error)));
}
