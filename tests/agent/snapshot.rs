//! Snapshots (issue 18): at every point where a task waits, its state round-trips through
//! JSON into a machine that finishes the run identically; each waiting point resumes as
//! the issue says; a bad snapshot is a typed error whatever its bytes.

use crate::harness::*;
use clew::agent::{
    join_snapshot, merge_snapshot, snapshot_parts, transcript_entry, AskAnswer, AskKind, AskResponse, Limits, Message,
    MessageKind, Outcome, SnapshotErrorKind, Task, TaskConfig, TaskUsage, INTERRUPTED_BY_API_ERROR, SNAPSHOT_VERSION,
};

fn script() -> Vec<Reply> {
    vec![
        text(&["Let me look.\n", "<read><path>a</path></read>"]),
        text(&["<write><path>b</path><content>new</content></write>"]),
        text(&["<ask_followup_question><question>More?</question></ask_followup_question>"]),
        fail(http(500, "flaky")),
        completion("all done"),
    ]
}

/// `write` is idempotent here, so a run restored while it runs equals the whole run.
fn scripted_config() -> TaskConfig {
    let mut config = TaskConfig { checkpoints: true, ..config() };
    config.tools[1].idempotent = true;
    config
}

fn answers(m: &Message) -> Option<AskAnswer> {
    match m.kind {
        _ if m.is_partial() => None,
        MessageKind::Ask(AskKind::Followup) => Some(AskAnswer::message("no")),
        _ => Some(AskAnswer::button(AskResponse::Yes)),
    }
}

type Run = (Vec<Message>, String, TaskUsage, Option<Outcome>);

fn finish(mut h: Harness) -> Run {
    h.run();
    let history = serde_json::to_string(h.task.history()).unwrap();
    (h.task.messages().to_vec(), history, h.task.usage().clone(), h.outcome().cloned())
}

/// A harness continuing `h`'s task from its snapshot, with the rest of `script`.
fn restored(h: &mut Harness, config: TaskConfig, script: Vec<Reply>) -> Harness {
    let mut task = Task::restore(&h.task.snapshot(), config.clone()).expect("restore");
    assert!(task.is_restored());
    task.resume(h.now);
    let mut rest = Harness::new(config, Vec::new());
    rest.task = task;
    rest.now = h.now;
    rest.model = script.into_iter().skip(h.requests.len()).collect();
    rest
}

#[test]
fn a_task_restored_at_every_waiting_point_finishes_identically() {
    let mut whole = Harness::new(scripted_config(), script());
    whole.ask = Box::new(answers);
    whole.start("t");
    let expected = finish(whole);
    assert!(matches!(expected.3, Some(Outcome::Completed { .. })));

    let mut points = 0;
    for stop_at in 1.. {
        // Run a fresh task to its `stop_at`-th waiting point (no stream open), snapshot it,
        // and finish the run with a restored machine and a fresh driver.
        let mut h = Harness::new(scripted_config(), script());
        h.ask = Box::new(answers);
        h.pause = Some(at_waiting_point(stop_at));
        h.start("t");
        if h.outcome().is_some() {
            break;
        }
        let mut rest = restored(&mut h, scripted_config(), script());
        rest.ask = Box::new(answers);
        assert_eq!(finish(rest), expected, "restored at waiting point {stop_at}");
        points += 1;
    }
    assert!(points >= 6, "only {points} waiting points were tried");
}

#[test]
fn a_finished_task_restored_keeps_its_outcome() {
    let mut h = Harness::new(config(), vec![completion("ok")]);
    h.start("t");
    let outcome = h.outcome().cloned();
    assert!(outcome.is_some());
    let mut rest = restored(&mut h, config(), Vec::new());
    rest.run();
    assert_eq!(rest.outcome().cloned(), outcome);
    assert!(rest.requests.is_empty());
}

fn paused_in_tool(tool_index: usize, idempotent: bool) -> (Harness, TaskConfig) {
    let mut config = config();
    config.tools[1].idempotent = idempotent;
    let call = if tool_index == 0 {
        "<read><path>a</path></read>"
    } else {
        "<write><path>b</path><content>x</content></write>"
    };
    let mut h = Harness::new(config.clone(), vec![text(&[call]), completion("ok")]);
    h.tool = Box::new(|_, _| None);
    h.start("t");
    assert_eq!(h.task.state(), "tool");
    (h, config)
}

#[test]
fn a_tool_running_at_snapshot_time_that_may_have_written_gets_an_unknown_outcome_error() {
    let (mut h, config) = paused_in_tool(1, false);
    let mut rest =
        restored(&mut h, config, vec![text(&["<write><path>b</path><content>x</content></write>"]), completion("ok")]);
    rest.run();
    assert!(rest.tool_calls.is_empty(), "the write is not run twice");
    let result = &rest.requests[0].messages.last().unwrap();
    let text = serde_json::to_string(&result.content).unwrap();
    assert!(text.contains("whether it finished, and what it changed, is unknown"), "{text}");
    assert!(matches!(rest.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_read_only_or_idempotent_tool_running_at_snapshot_time_runs_again() {
    for (index, idempotent) in [(0, false), (1, true)] {
        let (mut h, config) = paused_in_tool(index, idempotent);
        let name = config.tools[index].name.clone();
        let mut rest = restored(&mut h, config, vec![Reply::Silent, completion("ok")]);
        rest.run();
        assert_eq!(rest.tool_calls.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(), vec![name]);
        assert!(matches!(rest.outcome(), Some(Outcome::Completed { .. })));
    }
}

#[test]
fn a_stream_open_at_snapshot_time_resumes_as_a_mid_stream_failure() {
    let mut h = Harness::new(config(), vec![Reply::Bytes(vec![text_line("Half of it"), text_line(" and more")])]);
    h.pause = Some(Box::new(|task| task.messages().iter().any(|m| m.text.starts_with("Half"))));
    h.start("t");
    let shown: Vec<String> = h.task.messages().iter().map(|m| m.text.clone()).collect();
    let mut rest = restored(&mut h, config(), vec![Reply::Silent, completion("ok")]);
    rest.run();
    assert_eq!(rest.history_texts(1), vec![format!("Half of it{INTERRUPTED_BY_API_ERROR}")]);
    let texts: Vec<&Message> = rest.task.messages().iter().filter(|m| m.text.starts_with("Half")).collect();
    assert_eq!(texts.len(), 1, "said once");
    assert!(shown.iter().any(|t| t == "Half of it"));
    assert_eq!(rest.requests.len(), 1, "one more request");
    assert!(matches!(rest.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_retry_delay_resumes_with_only_the_time_left_even_on_a_clock_behind() {
    let mut h = Harness::new(config(), vec![fail(http(500, "flaky")), completion("ok")]);
    h.now = 10_000_000;
    h.pause = Some(Box::new(|task| task.state() == "retryDelay"));
    h.start("t");
    let due = h.task.poll_timeout().expect("a wake-up");
    assert!(due > h.now, "{due} {}", h.now);
    let left = due - h.now;
    assert!(left > 0);
    // Restored 500 ms later on a machine whose clock is an hour behind.
    let later = h.now + 500;
    let behind = later - 3_600_000;
    let mut task = Task::restore(&h.task.snapshot(), config()).unwrap();
    task.resume(behind);
    while task.poll_effect().is_some() {}
    assert_eq!(task.poll_timeout(), Some(behind + left), "the time left, on the new clock");
    let last_ts = h.task.messages().last().unwrap().ts;
    task.handle_timeout(behind + left);
    let mut new_ts = Vec::new();
    while let Some(effect) = task.poll_effect() {
        if let clew::agent::Effect::Say(m) = effect {
            new_ts.push(m.ts);
        }
    }
    assert!(new_ts.iter().all(|&ts| ts > last_ts), "ts keeps rising: {new_ts:?} after {last_ts}");
}

#[test]
fn usage_and_limits_carry_on_across_resumes() {
    let config = TaskConfig { limits: Limits { max_requests: Some(2), ..Limits::default() }, ..config() };
    let reads = || text(&["<read><path>a</path></read>"]);
    let mut h = Harness::new(config.clone(), vec![reads(), reads(), reads()]);
    h.pause = Some(Box::new(|task| task.state() == "tool"));
    h.start("t");
    let mut rest = restored(&mut h, config.clone(), vec![reads(), reads(), reads()]);
    rest.pause = Some(Box::new(|task| task.state() == "tool" && task.usage().requests == 2));
    rest.run();
    assert_eq!(rest.task.usage().requests, 2);
    let mut last = restored(&mut rest, config, vec![reads()]);
    last.run();
    assert!(matches!(last.outcome(), Some(Outcome::Ended { code, .. }) if code == "CLEW_REQUEST_LIMIT"));
    assert_eq!(last.task.usage().requests, 2);
}

#[test]
fn a_cost_survives_a_snapshot_to_the_last_bit() {
    let mut h = Harness::new(config(), vec![anthropic_like_cost(0.1), completion("ok")]);
    h.pause = Some(Box::new(|task| task.state() == "tool"));
    h.start("t");
    let cost = h.task.usage().total_cost;
    let task = Task::restore(&h.task.snapshot(), config()).unwrap();
    assert_eq!(task.usage().total_cost.to_bits(), cost.to_bits());
}

fn anthropic_like_cost(cost: f64) -> Reply {
    Reply::Bytes(vec![
        text_line("<read><path>a</path></read>"),
        line(serde_json::json!({"type": "usage", "inputTokens": 10, "outputTokens": 3, "totalCost": cost / 3.0})),
    ])
}

#[test]
fn a_transcript_entry_is_written_once_as_say_and_the_snapshot_give_it() {
    let mut h = Harness::new(scripted_config(), script());
    h.ask = Box::new(answers);
    h.start("t");
    let whole: serde_json::Value = serde_json::from_str(&h.task.snapshot()).unwrap();
    let entries: Vec<serde_json::Value> =
        h.task.messages().iter().map(|m| serde_json::from_str(&transcript_entry(m)).unwrap()).collect();
    assert_eq!(serde_json::Value::Array(entries), whole["messages"]);
    // NOTE: the members in the order the objects given to JavaScript have them.
    let first = transcript_entry(&h.task.messages()[0]);
    assert!(first.starts_with(r#"{"ts":"#) && first.contains(r#","type":"say","say":"task","text":"t""#), "{first}");
}

/// Runs the scripted task to its completion one event at a time, calling `check` at every
/// step (more than ten); gives the harness at the end.
fn at_every_step(mut check: impl FnMut(&mut Task)) -> Harness {
    let mut h = Harness::new(scripted_config(), script());
    h.ask = Box::new(answers);
    h.task.start(h.now, "t", Vec::new());
    let mut checks = 0;
    for _ in 0..200 {
        check(&mut h.task);
        checks += 1;
        if h.outcome().is_some() {
            break;
        }
        h.step_once();
    }
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.transcript());
    assert!(checks > 10);
    h
}

#[test]
fn the_changes_since_the_last_call_assemble_into_the_whole_snapshot() {
    let mut stored: Option<String> = None;
    at_every_step(|task| {
        let merged = merge_snapshot(stored.as_deref(), &task.snapshot_changes()).unwrap();
        let whole: serde_json::Value = serde_json::from_str(&task.snapshot()).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(&merged).unwrap(), whole);
        stored = Some(merged);
    });
}

/// An application's store of a task by its parts: the head whole, each entry under its index.
#[derive(Default)]
struct PartsStore {
    head: serde_json::Value,
    history: Vec<serde_json::Value>,
    messages: Vec<serde_json::Value>,
}

impl PartsStore {
    fn put(&mut self, changes: &str) {
        let parts: serde_json::Value = serde_json::from_str(&snapshot_parts(changes).unwrap()).unwrap();
        self.head = parts["head"].clone();
        for (list, part) in [(&mut self.history, &parts["history"]), (&mut self.messages, &parts["messages"])] {
            let from = part["from"].as_u64().unwrap() as usize;
            let entries = part["entries"].as_array().unwrap();
            list.truncate(from);
            list.extend(entries.iter().cloned());
        }
    }

    fn whole(&self) -> String {
        let parts = serde_json::json!({
            "head": self.head,
            "history": {"from": 0, "entries": self.history},
            "messages": {"from": 0, "entries": self.messages},
        });
        join_snapshot(&parts.to_string()).unwrap()
    }
}

#[test]
fn a_task_stored_entry_by_entry_from_its_parts_joins_into_the_whole_snapshot_at_every_step() {
    let mut store = PartsStore::default();
    let h = at_every_step(|task| {
        store.put(&task.snapshot_changes());
        let whole: serde_json::Value = serde_json::from_str(&task.snapshot()).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(&store.whole()).unwrap(), whole);
    });
    let mut restored = Harness::new(scripted_config(), Vec::new());
    restored.task = Task::restore(&store.whole(), scripted_config()).unwrap();
    restored.task.resume(h.now);
    restored.run();
    assert!(matches!(restored.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn the_head_is_every_member_but_the_two_lists_and_joining_the_parts_gives_the_changes_back() {
    let changes = r#"{"version":3,"tools":["b"],"mcp":{"servers":[]},"historyFrom":2,"messagesFrom":0,"history":[3],"messages":[{"ts":2}],"state":[9],"later":true}"#;
    let text = snapshot_parts(changes).unwrap();
    let parts: serde_json::Value = serde_json::from_str(&text).unwrap();
    let expected = serde_json::json!({
        "head": {"version": 3, "tools": ["b"], "mcp": {"servers": []}, "state": [9], "later": true},
        "history": {"from": 2, "entries": [3]},
        "messages": {"from": 0, "entries": [{"ts": 2}]},
    });
    assert_eq!(parts, expected, "a member a later format adds is part of the head");
    let joined = join_snapshot(&text).unwrap();
    let back = r#"{"version":3,"tools":["b"],"mcp":{"servers":[]},"state":[9],"later":true,"historyFrom":2,"history":[3],"messages":[{"ts":2}]}"#;
    assert_eq!(joined, back, "an index of 0 is left out");
    // Absent lists are empty; absent indexes are 0.
    let bare: serde_json::Value = serde_json::from_str(&snapshot_parts(r#"{"version":3}"#).unwrap()).unwrap();
    assert_eq!(bare["history"], serde_json::json!({"from": 0, "entries": []}));
    assert_eq!(join_snapshot(r#"{"head":{}}"#).unwrap(), r#"{"history":[],"messages":[]}"#);
}

#[test]
fn parts_that_cannot_be_read_or_joined_say_what_is_wrong() {
    let cases = [
        (snapshot_parts("[]"), "the changes are not a JSON object"),
        (
            snapshot_parts(r#"{"history":{}}"#),
            "the changes' history must hold an array of entries and the index they begin at, a whole number",
        ),
        (
            snapshot_parts(r#"{"messagesFrom":-1}"#),
            "the changes' messages must hold an array of entries and the index they begin at, a whole number",
        ),
        (join_snapshot("nope"), "the parts are not a JSON object"),
        (join_snapshot(r#"{"history":{"entries":[]}}"#), "the parts' head must be an object"),
        (
            join_snapshot(r#"{"head":{"version":3,"history":[1]}}"#),
            "the parts' head holds \"history\", which is not part of the head: give the entries in history and messages",
        ),
        (
            join_snapshot(r#"{"head":{},"history":[1]}"#),
            "the parts' history must hold an array of entries and the index they begin at, a whole number",
        ),
        (
            join_snapshot(r#"{"head":{},"messages":{"from":1.5,"entries":[]}}"#),
            "the parts' messages must hold an array of entries and the index they begin at, a whole number",
        ),
    ];
    for (result, expected) in cases {
        let error = result.unwrap_err();
        assert_eq!(error.kind, SnapshotErrorKind::Invalid);
        assert_eq!(error.message, expected);
    }
}

#[test]
fn merging_changes_that_start_past_the_stored_entries_is_an_error_not_a_gap() {
    let stored = r#"{"version":3,"history":[{"role":"user","content":"a"}],"messages":[],"state":[]}"#;
    let changes = r#"{"version":3,"historyFrom":2,"messagesFrom":0,"history":[],"messages":[],"state":[]}"#;
    let error = merge_snapshot(Some(stored), changes).unwrap_err();
    assert_eq!(error.kind, SnapshotErrorKind::Invalid);
    let expected = "the changes' history begins past the end of the stored history: \
                    the changes of an earlier persist were not stored";
    assert_eq!(error.message, expected);
    assert_eq!(merge_snapshot(None, changes).unwrap_err().message, expected);
}

#[test]
fn merging_replaces_the_transcript_from_its_index_and_takes_every_other_member_from_the_changes() {
    let stored =
        r#"{"version":2,"tools":["a"],"history":[1,2],"messages":[{"ts":1},{"ts":2,"partial":true}],"state":[0]}"#;
    let changes = r#"{"version":3,"tools":["b"],"mcp":{},"historyFrom":2,"messagesFrom":1,"history":[3],"messages":[{"ts":2},{"ts":3}],"state":[9]}"#;
    let merged: serde_json::Value = serde_json::from_str(&merge_snapshot(Some(stored), changes).unwrap()).unwrap();
    let expected = serde_json::json!({
        "version": 3, "tools": ["b"], "mcp": {}, "history": [1, 2, 3],
        "messages": [{"ts": 1}, {"ts": 2}, {"ts": 3}], "state": [9],
    });
    assert_eq!(merged, expected);
    // A whole snapshot as the changes replaces everything.
    let whole: serde_json::Value = serde_json::from_str(&merge_snapshot(Some(stored), stored).unwrap()).unwrap();
    assert_eq!(whole, serde_json::from_str::<serde_json::Value>(stored).unwrap());
}

#[test]
fn merging_text_that_is_not_a_snapshots_object_says_which_argument() {
    let changes = r#"{"historyFrom":0,"history":[]}"#;
    let lists = "the history and messages of the stored snapshot and the changes must be arrays, \
                 and their historyFrom and messagesFrom whole numbers";
    let cases = [
        (Some("[]"), changes, "the stored snapshot is not a JSON object"),
        (None, "nope", "the changes are not a JSON object"),
        (Some(r#"{"history":{}}"#), changes, lists),
        (None, r#"{"historyFrom":-1,"history":[]}"#, lists),
        (None, r#"{"messages":"x"}"#, lists),
    ];
    for (stored, changes, expected) in cases {
        let error = merge_snapshot(stored, changes).unwrap_err();
        assert_eq!(error.message, expected);
    }
}

#[test]
fn a_bad_snapshot_is_a_typed_error_naming_what_is_wrong() {
    let mut h = Harness::new(config(), vec![text(&["<write><path>b</path><content>x</content></write>"])]);
    h.ask = Box::new(|_| None);
    h.start("t");
    let json = h.task.snapshot();
    let kind = |text: &str, config: TaskConfig| Task::restore(text, config).map(|_| ()).unwrap_err();
    assert_eq!(kind("not json", config()).kind, SnapshotErrorKind::Invalid);
    assert_eq!(kind("[]", config()).kind, SnapshotErrorKind::Invalid);
    let version = format!("\"version\":{SNAPSHOT_VERSION}");
    let newer = json.replacen(&version, &format!("\"version\":{}", SNAPSHOT_VERSION + 1), 1);
    let error = kind(&newer, config());
    assert_eq!(error.kind, SnapshotErrorKind::Version);
    assert!(error.message.contains(&(SNAPSHOT_VERSION + 1).to_string()), "{}", error.message);
    let mut fewer = config();
    fewer.tools.truncate(1);
    let error = kind(&json, fewer);
    assert_eq!(error.kind, SnapshotErrorKind::ToolMissing);
    assert!(error.message.contains("\"write\""), "{}", error.message);
    let lost_ask =
        json.replacen("\"type\":\"ask\"", "\"type\":\"say\"", 1).replacen("\"ask\":\"tool\"", "\"say\":\"tool\"", 1);
    let error = kind(&lost_ask, config());
    assert_eq!(error.kind, SnapshotErrorKind::Invalid);
    assert!(error.message.contains("ask"), "{}", error.message);
}

#[test]
fn every_prefix_and_many_corruptions_of_a_snapshot_are_errors_or_tasks_never_panics() {
    let mut h = Harness::new(config(), vec![text(&["Hi ", "<write><path>b</path><content>x</content></write>"])]);
    h.ask = Box::new(|_| None);
    h.start("t");
    let json = h.task.snapshot();
    for end in 0..json.len() {
        if let Some(prefix) = json.get(..end) {
            assert!(Task::restore(prefix, config()).is_err());
        }
    }
    // Every number, string and literal replaced by others of every type.
    let values =
        ["0", "-1", "1e400", "18446744073709551616", "\"\"", "\"x\"", "null", "true", "[]", "{}", "4294967296"];
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut paths = Vec::new();
    collect_paths(&value, String::new(), &mut paths);
    for path in paths {
        for replacement in values {
            let mut changed = value.clone();
            *changed.pointer_mut(&path).unwrap() = serde_json::from_str(replacement).unwrap_or(serde_json::Value::Null);
            if let Ok(mut task) = Task::restore(&changed.to_string(), config()) {
                task.resume(h.now);
                while task.poll_effect().is_some() {}
                task.handle_ask_answer(h.now + 1, 0, AskAnswer::button(AskResponse::Yes));
                task.abort(h.now + 2, "done");
            }
        }
    }
}

fn collect_paths(value: &serde_json::Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                collect_paths(item, format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_paths(item, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
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
    let mut rest = restored(&mut h, config, script());
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
    assert!(matches!(rest.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_request_that_had_no_reply_yet_at_snapshot_time_is_sent_again_unchanged() {
    let mut h = Harness::new(config(), vec![Reply::Silent]);
    h.pause = Some(Box::new(|task| task.state() == "stream"));
    h.start("t");
    assert_eq!(h.task.state(), "stream");
    let requests = h.task.usage().requests;
    let mut rest = restored(&mut h, config(), vec![Reply::Silent, completion("ok")]);
    rest.run();
    assert_eq!(rest.requests.len(), 1);
    assert_eq!(rest.requests[0], h.requests[0], "the same request");
    assert!(rest.says_of("error_retry").is_empty(), "no failure is shown");
    assert_eq!(rest.task.usage().requests, requests, "not counted twice");
    assert!(matches!(rest.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn an_approval_of_a_streamed_anthropic_reply_restored_asks_again_and_shows_nothing_new() {
    let config = TaskConfig { format: clew::stream::Format::Anthropic, ..config() };
    let reply = || anthropic_reply(&[Part::Text("<write><path>b</path><content>x</content></write>")], 5);
    let script = || vec![reply(), completion_anthropic()];
    let mut whole = Harness::new(config.clone(), script());
    whole.start("t");
    let mut h = Harness::new(config.clone(), script());
    h.pause = Some(Box::new(|task| task.state() == "answer" && !task.is_streaming()));
    h.start("t");
    let mut rest = restored(&mut h, config, script());
    rest.run();
    let kinds = |h: &Harness| h.task.messages().iter().map(|m| (m.kind, m.text.clone())).collect::<Vec<_>>();
    assert_eq!(kinds(&rest), kinds(&whole));
}

fn completion_anthropic() -> Reply {
    anthropic_reply(&[Part::Text("<attempt_completion><result>ok</result></attempt_completion>")], 5)
}

#[test]
fn with_persist_on_every_wait_is_preceded_by_a_persist_of_the_state_it_waits_in() {
    use clew::agent::Effect;
    let config = TaskConfig { persist: true, ..scripted_config() };
    let mut h = Harness::new(config, script());
    h.ask = Box::new(answers);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
    let mut reasons = Vec::new();
    let mut stored = false;
    for effect in &h.effects {
        match effect {
            Effect::Persist { reason, changes, .. } => {
                reasons.push(reason.as_str());
                assert!(changes.contains("\"historyFrom\""));
                stored = true;
            }
            Effect::Ask(m) if !m.is_partial() => assert!(std::mem::take(&mut stored), "an ask without a persist"),
            Effect::RunTool { .. } | Effect::SaveCheckpoint { .. } | Effect::Finished(_) => {
                assert!(std::mem::take(&mut stored), "{effect:?} without a persist");
            }
            Effect::Say(_) | Effect::WakeAt(_) | Effect::OpenStream { .. } | Effect::CancelStream { .. } => {}
            _ => stored = false,
        }
    }
    for reason in ["ask", "tool", "checkpoint", "retryDelay", "round", "finished"] {
        assert!(reasons.contains(&reason), "{reason} in {reasons:?}");
    }
    let without = Harness::new(scripted_config(), script()).task.poll_effect();
    assert!(without.is_none());
}

#[test]
fn a_persist_that_fails_ends_the_task_failed_once_and_one_that_fails_at_the_end_leaves_its_outcome() {
    use clew::agent::Effect;
    let persists = |h: &Harness, reason: &str| {
        h.effects.iter().filter(|e| matches!(e, Effect::Persist { reason: r, .. } if r.as_str() == reason)).count()
    };
    let mut h = Harness::new(TaskConfig { persist: true, ..scripted_config() }, script());
    h.ask = Box::new(answers);
    h.failing_persist = Some("finished");
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })), "{:?}", h.outcome());
    assert_eq!(persists(&h, "finished"), 1, "the failed persist of the end is not asked for again");
    assert!(h.task.poll_effect().is_none());

    let mut h = Harness::new(TaskConfig { persist: true, ..scripted_config() }, script());
    h.ask = Box::new(answers);
    h.failing_persist = Some("tool");
    h.start("t");
    let failed = matches!(h.outcome(), Some(Outcome::Failed { code, .. }) if code == "CLEW_PERSIST_FAILED");
    assert!(failed, "{:?}", h.outcome());
    assert_eq!(persists(&h, "finished"), 1);
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::RunTool { .. })), "the tool never ran");
}

#[test]
fn the_persisted_changes_hold_the_transcript_entries_and_merge_into_the_final_snapshot() {
    use clew::agent::Effect;
    let config = TaskConfig { persist: true, ..scripted_config() };
    let mut h = Harness::new(config, script());
    h.ask = Box::new(answers);
    h.start("t");
    assert!(matches!(h.outcome(), Some(Outcome::Completed { .. })));
    let mut stored: Option<String> = None;
    let mut persists = 0;
    for effect in &h.effects {
        if let Effect::Persist { changes, .. } = effect {
            stored = Some(merge_snapshot(stored.as_deref(), changes).unwrap());
            persists += 1;
        }
    }
    assert!(persists > 5);
    // NOTE: only the changes reach the store: the transcript in it came through them.
    let whole: serde_json::Value = serde_json::from_str(&h.task.snapshot()).unwrap();
    assert!(!whole["messages"].as_array().unwrap().is_empty());
    assert_eq!(serde_json::from_str::<serde_json::Value>(&stored.unwrap()).unwrap(), whole);
}

#[test]
fn a_restored_tasks_changes_start_from_the_snapshot_it_was_restored_from() {
    let mut h =
        Harness::new(config(), vec![text(&["<write><path>b</path><content>x</content></write>"]), completion("ok")]);
    h.ask = Box::new(|_| None);
    h.start("t");
    let mut task = Task::restore(&h.task.snapshot(), config()).unwrap();
    let changes: serde_json::Value = serde_json::from_str(&task.snapshot_changes()).unwrap();
    assert_eq!(changes["historyFrom"], h.task.history().len());
    assert_eq!(changes["messagesFrom"], h.task.messages().len());
    assert_eq!(changes["history"], serde_json::json!([]));
}

#[test]
fn an_approval_is_asked_only_after_the_reply_ended_and_was_stored() {
    use clew::agent::Effect;
    let config = TaskConfig { persist: true, ..config() };
    // The call is complete in the first piece; the reply goes on after it.
    let reply = text(&["<write><path>b</path><content>x</content></write>", "\n", "More text."]);
    let mut h = Harness::new(config, vec![reply]);
    h.ask = Box::new(|_| None);
    h.start("t");
    assert_eq!(h.task.state(), "answer");
    let asked = h.position(|e| matches!(e, Effect::Ask(m) if !m.is_partial())).expect("the approval");
    let (reason, stored) = h.effects[..asked]
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::Persist { reason, changes, .. } => Some((reason.as_str(), changes.clone())),
            _ => None,
        })
        .expect("a persist before the ask");
    assert_eq!(reason, "ask");
    // The state stored before the ask holds no open stream: restored, it sends nothing again,
    // says no notice, and asks the same approval.
    let mut restored = Task::restore(&stored, self::config()).unwrap();
    let mut effects = Vec::new();
    restored.resume(h.now);
    while let Some(effect) = restored.poll_effect() {
        effects.push(effect);
    }
    assert!(!effects.iter().any(|e| matches!(e, Effect::OpenStream { .. })), "{effects:?}");
    let ask = effects.iter().find_map(|e| match e {
        Effect::Ask(m) if !m.is_partial() => Some(m.ts),
        _ => None,
    });
    assert_eq!(ask, h.task.messages().iter().rev().find(|m| m.kind == MessageKind::Ask(AskKind::Tool)).map(|m| m.ts));
    assert_eq!(restored.history().last(), h.task.history().last(), "the whole reply is stored");
    assert!(!serde_json::to_string(restored.history()).unwrap().contains(INTERRUPTED_BY_API_ERROR));
}

#[test]
fn a_snapshot_keeps_its_state_as_a_tuple_that_restores_to_the_same_snapshot() {
    let mut h = Harness::new(config(), vec![text(&["<write><path>b</path><content>x</content></write>"])]);
    h.ask = Box::new(|_| None);
    h.start("t");
    let json = h.task.snapshot();
    let whole: serde_json::Value = serde_json::from_str(&json).unwrap();
    // The head stays an object with keys; the state, written at every persist, is one array.
    assert!(whole["state"].is_array(), "{}", whole["state"]);
    assert_eq!(whole["version"], SNAPSHOT_VERSION);
    let mut task = Task::restore(&json, config()).unwrap();
    assert_eq!(task.snapshot(), json);
}

#[test]
fn a_state_tuple_with_an_item_missing_or_of_another_type_is_an_error_naming_the_member() {
    let mut h = Harness::new(config(), vec![text(&["<write><path>b</path><content>x</content></write>"])]);
    h.ask = Box::new(|_| None);
    h.start("t");
    let whole: serde_json::Value = serde_json::from_str(&h.task.snapshot()).unwrap();
    let mut short = whole.clone();
    short["state"].as_array_mut().unwrap().truncate(1);
    let error = Task::restore(&short.to_string(), config()).map(|_| ()).unwrap_err();
    assert_eq!(error.kind, SnapshotErrorKind::Invalid);
    assert!(error.message.starts_with("snapshot.state.lastTs "), "{}", error.message);
    let mut mistyped = whole.clone();
    mistyped["state"][0] = serde_json::json!("soon");
    let error = Task::restore(&mistyped.to_string(), config()).map(|_| ()).unwrap_err();
    assert!(error.message.starts_with("snapshot.state.now "), "{}", error.message);
    let mut keyed = whole;
    keyed["state"] = serde_json::json!({ "now": 1 });
    let error = Task::restore(&keyed.to_string(), config()).map(|_| ()).unwrap_err();
    assert_eq!(error.message, "snapshot.state must be an array");
}

/// The words of `export type <name> = "a" | "b" …;` in the package's TypeScript declarations.
fn typescript_union(name: &str) -> Vec<String> {
    let types = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/wasm/types.rs")).unwrap();
    let start = types.find(&format!("export type {name} =")).expect(name);
    let end = start + types[start..].find(';').unwrap();
    types[start..end].split('"').skip(1).step_by(2).map(str::to_owned).collect()
}

#[test]
fn the_typescript_unions_are_the_cores_words() {
    use clew::agent::{PersistReason, TaskState};
    assert_eq!(typescript_union("TaskState"), TaskState::ALL);
    assert_eq!(typescript_union("PersistReason"), PersistReason::ALL);
}

/// The one state word JavaScript writes itself: a browser `Task` made before the wasm has
/// loaded has no machine to ask, and says the core's word for a task not started.
#[test]
fn a_task_made_before_the_wasm_loads_says_the_cores_idle_word() {
    let browser = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/js/browser.js")).unwrap();
    let getter = browser.lines().find(|l| l.contains("get state()")).expect("browser.js has a state getter");
    let idle = clew::agent::TaskState::Idle.as_str();
    assert!(getter.contains(&format!(": \"{idle}\"")), "{getter}");
}

#[test]
fn a_task_restored_while_a_tool_ran_during_its_reply_ends_the_reply_at_that_call() {
    let config = TaskConfig { auto_approve: clew::agent::AutoApprove { read_only: true, all: false }, ..config() };
    let script = || {
        vec![text(&["Let me look.\n<read><path>a</path></read>", "\nAnd then I <wri", "te><path>"]), completion("ok")]
    };
    let mut h = Harness::new(config.clone(), script());
    h.tool = Box::new(|_, _| None);
    h.pause = Some(Box::new(|task| task.state() == "tool" && task.is_streaming()));
    h.start("t");
    assert!(h.task.is_streaming(), "the read runs while the reply streams");
    let mut rest = restored(&mut h, config, script());
    rest.run();
    assert_eq!(rest.history_texts(1), vec!["Let me look.\n<read><path>a</path></read>"], "ended at the call");
    assert!(rest.history_texts(2)[0].starts_with("[read for 'a'] Result:"), "{:?}", rest.history_texts(2));
    assert!(rest.says_of("error_retry").is_empty(), "no retry");
    assert_eq!(rest.requests.len(), 1, "only the next round's request");
    assert_eq!(rest.api_reqs()[0]["usageComplete"], false);
    assert!(rest.api_reqs()[1].get("usageComplete").is_none());
    assert!(matches!(rest.outcome(), Some(Outcome::Completed { .. })));
}

#[test]
fn a_task_restored_in_the_middle_of_a_calls_text_still_resumes_as_a_mid_stream_failure() {
    let script =
        || vec![text(&["Let me look.\n<write><path>a</pa", "th><content>x</content></write>"]), completion("ok")];
    let mut h = Harness::new(config(), script());
    h.pause = Some(Box::new(|task| task.messages().iter().any(|m| m.text.contains("\"path\":\"a\""))));
    h.start("t");
    let mut rest = restored(&mut h, config(), script());
    rest.run();
    assert!(rest.history_texts(1)[0].ends_with(INTERRUPTED_BY_API_ERROR), "{:?}", rest.history_texts(1));
    assert_eq!(rest.says_of("error_retry").len(), 1);
    assert!(rest.tool_calls.is_empty(), "the cut call never runs");
}

#[test]
fn a_task_restored_while_it_read_a_cancelled_rounds_reply_to_its_end_finishes_with_its_outcome() {
    // A read-only tool runs while the reply streams; its PostToolUse hook cancels the task, which
    // then reads the rest of the reply (for its usage) before it ends: snapshotted there.
    let mut config = TaskConfig { auto_approve: clew::agent::AutoApprove { read_only: true, all: false }, ..config() };
    config.hooks.post_tool_use = true;
    let script = || vec![text(&["<read><path>a</path></read>", "\nMore", " text"])];
    let mut h = Harness::new(config.clone(), script());
    let cancelled = std::rc::Rc::new(std::cell::Cell::new(false));
    let hooked = std::rc::Rc::clone(&cancelled);
    h.hook = Box::new(move |_| {
        hooked.set(true);
        clew::agent::HookResult { cancel: true, context: None }
    });
    let seen = std::rc::Rc::clone(&cancelled);
    h.pause = Some(Box::new(move |task| seen.get() && task.state() == "stream"));
    h.start("t");
    assert!(h.task.is_streaming() && h.outcome().is_none(), "the cancelled task waits for its reply's end");
    assert!(h.task.snapshot().contains("\"streamEnd\""));
    let mut rest = restored(&mut h, config, script());
    rest.run();
    assert!(
        matches!(rest.outcome(), Some(Outcome::Ended { code, .. }) if code == "CLEW_HOOK_CANCELLED"),
        "{:?}",
        rest.outcome()
    );
    assert!(rest.requests.is_empty(), "nothing sent again");
    assert_eq!(rest.history_texts(1), vec!["<read><path>a</path></read>"], "the reply ends at its call");
}
