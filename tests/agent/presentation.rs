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

/// `n` pieces of about 1 KB of plain words, none starting or ending with a space.
fn kilobyte_pieces(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{}piece{i:05}.", "lorem ipsum dolor sit amet, ".repeat(36))).collect()
}

/// A long reply streamed in `pieces`, in one of the ways the presenter shows partially.
#[derive(Clone, Copy, Debug)]
enum Stream {
    /// A text block, format "chunks".
    Text,
    /// A text block, Anthropic's `text_delta`s.
    AnthropicText,
    /// Reasoning before the text.
    Reasoning,
    /// The `content` of a `write` call (a partial ask).
    ToolParam,
}

/// Runs `stream` of `pieces` with `interval` ms pacing, the clock moving `step` ms per read;
/// returns the harness and the kind of the streamed message.
fn run_stream(stream: Stream, pieces: &[String], interval: u64, step: u64) -> (Harness, &'static str) {
    use serde_json::json;
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let base = TaskConfig { presentation_interval_ms: interval, ..config() };
    let (config, replies, kind) = match stream {
        Stream::Text => (base, vec![text(&refs), completion("ok")], "text"),
        Stream::AnthropicText => {
            let deltas = refs.iter().map(|t| json!({"type": "text_delta", "text": t})).collect();
            let reply = anthropic_blocks(vec![(json!({"type": "text", "text": ""}), deltas)], 10, "end_turn", 5);
            let done = "Done.\n<attempt_completion><result>ok</result></attempt_completion>";
            let config = TaskConfig { format: clew::stream::Format::Anthropic, ..base };
            (config, vec![reply, anthropic_reply(&[Part::Text(done)], 3)], "text")
        }
        Stream::Reasoning => {
            let mut lines: Vec<Vec<u8>> =
                refs.iter().map(|r| line(json!({"type": "reasoning", "reasoning": r}))).collect();
            lines.push(text_line("Answer"));
            (base, vec![Reply::Bytes(lines), completion("ok")], "reasoning")
        }
        Stream::ToolParam => {
            let mut lines = vec![text_line("<write><path>a.txt</path><content>")];
            lines.extend(refs.iter().map(|p| text_line(p)));
            lines.push(text_line("</content></write>"));
            (base, vec![Reply::Bytes(lines), completion("ok")], "tool")
        }
    };
    let mut h = Harness::new(config, replies);
    h.step = step;
    h.start("t");
    assert!(matches!(h.outcome(), Some(clew::agent::Outcome::Completed { .. })), "{:?}", h.outcome());
    (h, kind)
}

/// The say or ask updates of the first message of `kind`, in order (partial ones included).
fn updates_of_first(h: &Harness, kind: &str) -> Vec<clew::agent::Message> {
    let updates: Vec<clew::agent::Message> = h
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Say(m) | Effect::Ask(m) => Some(m),
            _ => None,
        })
        .filter(|m| match m.kind {
            MessageKind::Say(k) => k.as_str() == kind,
            MessageKind::Ask(k) => k.as_str() == kind,
        })
        .cloned()
        .collect();
    let first = updates.first().map(|m| m.ts);
    updates.into_iter().filter(|m| Some(m.ts) == first).collect()
}

/// The final text of the first message of `kind` (the transcript's).
fn final_text_of_first(h: &Harness, kind: &str) -> String {
    let ts = updates_of_first(h, kind).first().map(|m| m.ts);
    let message = h.task.messages().iter().find(|m| Some(m.ts) == ts).cloned();
    let message = message.unwrap_or_else(|| panic!("no {kind} message"));
    assert_eq!(message.partial, Some(false), "the {kind} message is final");
    message.text
}

const STREAMS: [Stream; 4] = [Stream::Text, Stream::AnthropicText, Stream::Reasoning, Stream::ToolParam];

#[test]
fn partial_says_of_a_long_text_carry_at_most_ten_times_its_bytes() {
    let pieces = kilobyte_pieces(300);
    // Unpaced; paced by the default interval on a slow machine (100 ms per read); paced on a
    // fast one (1 ms per read).
    for (interval, step) in [(0, 1), (40, 100), (40, 1)] {
        for stream in STREAMS {
            let (h, kind) = run_stream(stream, &pieces, interval, step);
            let updates = updates_of_first(&h, kind);
            let partial: Vec<_> = updates.iter().filter(|m| m.is_partial()).collect();
            let carried: usize = partial.iter().map(|m| m.text.len()).sum();
            let final_len = final_text_of_first(&h, kind).len();
            assert!(final_len >= 300 * 1000, "{stream:?}: {final_len} bytes");
            assert!(
                carried <= 10 * final_len + 4096,
                "{stream:?}, {interval} ms, {step} ms per read: {} partial updates carry {carried} bytes for a \
                 {final_len}-byte text",
                partial.len()
            );
            assert!(partial.len() >= 5, "{stream:?}: updates keep coming while it streams ({})", partial.len());
        }
    }
}

#[test]
fn short_replies_stream_every_delta_when_unpaced() {
    let pieces: Vec<String> = (0..30).map(|i| format!("w{i:02}-abcdefghijklmnopqrstuv")).collect();
    assert!(pieces.concat().len() < 1024);
    for stream in STREAMS {
        let (h, kind) = run_stream(stream, &pieces, 0, 1);
        let partial: Vec<String> =
            updates_of_first(&h, kind).into_iter().filter(|m| m.is_partial()).map(|m| m.text).collect();
        let wanted = match stream {
            // The tool's first partial ask comes with its opening tags, before any content.
            Stream::ToolParam => pieces.len() + 1,
            _ => pieces.len(),
        };
        assert_eq!(partial.len(), wanted, "{stream:?}: one partial update per delta");
        assert!(partial.windows(2).all(|w| w[0].len() < w[1].len()), "{stream:?}: each shows more");
    }
}

#[test]
fn the_final_text_always_arrives_in_full() {
    let pieces = kilobyte_pieces(100);
    let whole = pieces.concat();
    for (interval, step) in [(0, 1), (40, 100), (40, 1)] {
        for stream in STREAMS {
            let (h, kind) = run_stream(stream, &pieces, interval, step);
            let updates = updates_of_first(&h, kind);
            let shown = final_text_of_first(&h, kind);
            assert!(shown.contains(&whole), "{stream:?}: the final version holds the whole text");
            if !matches!(stream, Stream::ToolParam) {
                // A final ask is a question asked once the reply has ended: its text is the
                // transcript's; a say's final version is sent.
                let last = updates.last().map(|m| (m.text.clone(), m.partial));
                assert_eq!(last, Some((shown, Some(false))), "{stream:?}");
            }
        }
    }
}

#[test]
fn a_text_cut_by_a_failure_ends_with_everything_that_streamed() {
    let pieces = kilobyte_pieces(100);
    let lines: Vec<Vec<u8>> = pieces.iter().map(|p| text_line(p)).collect();
    let failure = clew::stream::StreamError::Network { message: "reset".into() };
    for interval in [0, 40] {
        let config = TaskConfig { presentation_interval_ms: interval, ..config() };
        let mut h = Harness::new(config, vec![Reply::FailAfter(lines.clone(), failure.clone()), completion("ok")]);
        h.start("t");
        let says = updates_of_first(&h, "text");
        let last = says.last().map(|m| (m.text.as_str(), m.partial));
        assert_eq!(last, Some((pieces.concat().as_str(), Some(false))), "{interval} ms");
    }
}

/// A config paced by `interval` ms with no stream timeout (whose wake-ups would be counted).
fn without_timeouts(interval: u64) -> TaskConfig {
    let timeouts = clew::agent::Timeouts { first_byte_ms: None, idle_ms: None };
    TaskConfig { presentation_interval_ms: interval, timeouts, ..config() }
}

/// Wake-ups the task asked for.
fn wake_ups(effects: &[Effect]) -> usize {
    effects.iter().filter(|e| matches!(e, Effect::WakeAt(Some(_)))).count()
}

#[test]
fn a_text_that_has_not_grown_enough_is_not_held_for_a_wake_up() {
    // 8 KiB, then 1000 bytes (less than an eighth) in fast reads: within the interval, yet
    // nothing is held, so no wake-up is asked for; the final version shows it all.
    let mut pieces = vec!["x".repeat(8192)];
    pieces.extend((0..10).map(|_| "y".repeat(100)));
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mut h = Harness::new(without_timeouts(40), vec![text(&refs), completion("ok")]);
    h.start("t");
    assert_eq!(wake_ups(&h.effects), 0);
    let updates = updates_of_first(&h, "text");
    assert_eq!(updates.iter().filter(|m| m.is_partial()).count(), 1, "only the first 8 KiB went out partial");
    assert_eq!(updates.last().map(|m| (m.text.clone(), m.partial)), Some((pieces.concat(), Some(false))));
}

#[test]
fn a_wake_up_finding_a_state_not_grown_enough_sends_nothing_and_asks_for_no_other() {
    // A tool call's 8 KiB content (its first partial ask), then 1000 bytes in fast reads,
    // held by the interval for a wake-up; the model then pauses.
    let opening = format!("<write><path>a.txt</path><content>{}", "x".repeat(8192));
    let mut lines = vec![text_line(&opening)];
    lines.extend((0..10).map(|_| text_line(&"y".repeat(100))));
    lines.push(text_line("</content></write>"));
    let mut h = Harness::new(without_timeouts(40), vec![Reply::Bytes(lines), completion("ok")]);
    let mut seen = 0;
    h.pause = Some(Box::new(move |task| {
        if task.messages().iter().any(|m| m.kind == MessageKind::Ask(clew::agent::AskKind::Tool)) {
            seen += 1;
        }
        seen == 11
    }));
    h.start("t");
    assert_eq!(wake_ups(&h.effects), 1, "the held state asked for one wake-up");
    let partial_asks =
        |effects: &[Effect]| effects.iter().filter(|e| matches!(e, Effect::Ask(m) if m.is_partial())).count();
    assert_eq!(partial_asks(&h.effects), 1);
    let before = h.effects.len();
    for later in [40, 1_000, 60_000] {
        h.task.handle(h.now + later, clew::agent::Event::Timer);
        h.drain();
    }
    let after = &h.effects[before..];
    assert!(after.is_empty(), "the wake-ups sent nothing and asked for nothing: {after:?}");
    h.pause = None;
    h.run();
    assert!(matches!(h.outcome(), Some(clew::agent::Outcome::Completed { .. })));
    let ask = h.task.messages().iter().find(|m| m.kind == MessageKind::Ask(clew::agent::AskKind::Tool)).cloned();
    let content = format!("{}{}", "x".repeat(8192), "y".repeat(1000));
    assert!(ask.is_some_and(|m| m.text.contains(&content) && !m.is_partial()), "the final ask holds it all");
}
