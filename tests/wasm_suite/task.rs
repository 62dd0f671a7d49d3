// Whole tasks through the exported `Task` class, against scripted ReadableStreams: what a
// JS caller sees, in Node and in Chromium.

use std::rc::Rc;

use clew::wasm::Task;
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen(inline_js = r#"
export function scripted(replies, plan) {
  const enc = new TextEncoder();
  const log = [];
  const state = { task: null, n: 0 };
  const options = {
    model: {
      format: "chunks",
      request: (req, { signal }) => {
        const reply = replies[state.n++];
        if (reply === undefined) throw new Error("script ended");
        if (typeof reply === "number") {
          return new Response(JSON.stringify({ error: { type: "api_error", message: "boom" } }), { status: reply });
        }
        return new ReadableStream({
          async start(c) {
            for (const text of reply) {
              if (text === "HANG") {
                signal.addEventListener("abort", () => c.error(new Error("aborted")));
                return;
              }
              c.enqueue(enc.encode(JSON.stringify({ type: "text", text }) + "\n"));
              await new Promise((r) => setTimeout(r, 0));
            }
            c.close();
          },
        });
      },
    },
    tools: [
      { name: "read", readOnly: true, parameters: [{ name: "path", required: true }],
        execute: ({ path }) => { log.push("run read " + path); if (path === "boom") throw new Error("no such file"); return "content of " + path; } },
      { name: "write", parameters: [{ name: "path", required: true }],
        execute: ({ path }, { signal }) => {
          log.push("run write " + path);
          if (path === "hang") {
            setTimeout(() => state.task.abort("stop"), 5);
            return new Promise((_, reject) => signal.addEventListener("abort", () => { log.push("signal aborted"); reject(new Error("cancelled")); }));
          }
          return Promise.resolve("wrote " + path);
        } },
    ],
    autoApprove: { readOnly: true },
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    presentationIntervalMs: 0,
    say: (m) => {
      if (state.done) log.push("AFTER END say " + m.say);
      if (!m.partial) log.push("say " + m.say + ": " + m.text);
      if (plan.abortOnText && m.say === "text" && m.text.includes(plan.abortOnText)) state.task.abort("user");
      if (plan.throwInSay) throw new Error("say broke");
    },
    ask: async (m) => {
      if (state.done) log.push("AFTER END ask " + m.ask);
      if (m.partial) return;
      log.push("ask " + m.ask);
      const answer = (plan.answers || {})[m.ask];
      return answer || { response: "yesButtonClicked" };
    },
  };
  return {
    options,
    log,
    bind(task) { state.task = task; },
    end() { state.done = true; },
  };
}
"#)]
extern "C" {
    fn scripted(replies: &JsValue, plan: &JsValue) -> JsValue;
}

struct Run {
    outcome: JsValue,
    log: Vec<String>,
    task: Rc<Task>,
}

fn json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).unwrap()
}

async fn run(replies: &str, plan: &str) -> Run {
    let script = scripted(&json(replies), &json(plan));
    let task = Rc::new(Task::new(get(&script, "options")).unwrap());
    let bind: js_sys::Function = get(&script, "bind").into();
    let task_js: JsValue = {
        // The JS helper calls abort() from inside callbacks through this wrapper.
        let wrapper = js_sys::Object::new();
        let handle = Rc::clone(&task);
        let abort = Closure::<dyn Fn(String)>::new(move |reason: String| handle.abort(Some(reason.into())));
        Reflect::set(&wrapper, &"abort".into(), abort.as_ref()).unwrap();
        abort.forget();
        wrapper.into()
    };
    bind.call1(&script, &task_js).unwrap();
    let outcome = JsFuture::from(task.start("the task".into(), None)).await.unwrap();
    let end: js_sys::Function = get(&script, "end").into();
    end.call0(&script).unwrap();
    // Give late callbacks a chance to show up in the log.
    JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        let set_timeout: js_sys::Function = Reflect::get(&global, &"setTimeout".into()).unwrap().into();
        set_timeout.call2(&JsValue::UNDEFINED, &resolve, &JsValue::from(20)).unwrap();
    }))
    .await
    .unwrap();
    let log = Array::from(&get(&script, "log")).iter().map(|v| v.as_string().unwrap()).collect();
    Run { outcome, log, task }
}

fn status(run: &Run) -> String {
    get(&run.outcome, "status").as_string().unwrap()
}

#[wasm_bindgen_test]
async fn a_multi_round_task_with_tools_completes() {
    let replies = r#"[["Reading.\n<read><path>a.md</path></read>"],
        ["<write><path>b.md</path></write>"],
        ["Done.\n<attempt_completion><result>all good</result></attempt_completion>"]]"#;
    let run = run(replies, "{}").await;
    assert_eq!(status(&run), "completed");
    assert_eq!(get(&run.outcome, "result").as_string().as_deref(), Some("all good"));
    assert!(run.log.contains(&"run read a.md".to_owned()));
    assert!(run.log.contains(&"ask tool".to_owned()), "write asks, read is auto-approved");
    assert!(run.log.contains(&"run write b.md".to_owned()));
    let history = run.task.history();
    assert_eq!(Array::from(&history).length(), 6, "{:?} {:?}", js_sys::JSON::stringify(&history), run.log);
    let usage = run.task.usage();
    assert_eq!(get(&usage, "requests").as_f64(), Some(3.0));
    assert_eq!(run.task.state(), "finished");
    assert!(run.log.iter().all(|l| !l.starts_with("AFTER END")), "{:?}", run.log);
}

#[wasm_bindgen_test]
async fn a_denied_tool_is_not_run_and_the_model_hears_why() {
    let replies = r#"[["<write><path>b.md</path></write>"],
        ["<attempt_completion><result>ok</result></attempt_completion>"]]"#;
    let plan = r#"{"answers": {"tool": {"response": "messageResponse", "text": "not that file"}}}"#;
    let run = run(replies, plan).await;
    assert_eq!(status(&run), "completed");
    assert!(!run.log.iter().any(|l| l.starts_with("run write")));
    let history = run.task.history();
    let third = js_sys::JSON::stringify(&Array::from(&history).get(2)).unwrap().as_string().unwrap();
    assert!(third.contains("not that file") && third.contains("denied"), "{third}");
}

#[wasm_bindgen_test]
async fn abort_mid_stream_ends_at_once_and_nothing_more_arrives() {
    let replies = r#"[["First words", " then more", "HANG"]]"#;
    let run = run(replies, r#"{"abortOnText": "First"}"#).await;
    assert_eq!(status(&run), "aborted");
    assert!(run.log.iter().all(|l| !l.starts_with("AFTER END")), "{:?}", run.log);
    let history = js_sys::JSON::stringify(&run.task.history()).unwrap().as_string().unwrap();
    assert!(history.contains("[Response interrupted by user]"), "{history}");
}

#[wasm_bindgen_test]
async fn abort_mid_tool_aborts_the_tools_signal() {
    let replies = r#"[["<write><path>hang</path></write>"]]"#;
    let run = run(replies, "{}").await;
    assert_eq!(status(&run), "aborted");
    assert!(run.log.contains(&"signal aborted".to_owned()), "{:?}", run.log);
    assert!(run.log.iter().all(|l| !l.starts_with("AFTER END")), "{:?}", run.log);
}

#[wasm_bindgen_test]
async fn a_first_chunk_failure_is_retried_then_the_task_goes_on() {
    let replies = r#"[500, ["<attempt_completion><result>ok</result></attempt_completion>"]]"#;
    let run = run(replies, "{}").await;
    assert_eq!(status(&run), "completed");
    assert!(run.log.iter().any(|l| l.starts_with("say error_retry")), "{:?}", run.log);
}

#[wasm_bindgen_test]
async fn throwing_callbacks_never_break_the_task() {
    let replies =
        r#"[["<read><path>boom</path></read>"], ["<attempt_completion><result>ok</result></attempt_completion>"]]"#;
    let run = run(replies, r#"{"throwInSay": true}"#).await;
    assert_eq!(status(&run), "completed");
    let history = js_sys::JSON::stringify(&run.task.history()).unwrap().as_string().unwrap();
    assert!(history.contains("no such file"), "the tool's error went to the model");
}

#[wasm_bindgen_test]
fn invalid_options_are_type_errors_naming_the_field() {
    let error = Task::new(json(r#"{"model": {"format": "smoke"}}"#)).err().unwrap();
    assert_eq!(get(&error, "code").as_string().as_deref(), Some("CLEW_INVALID_OPTIONS"));
    assert!(get(&error, "message").as_string().unwrap().contains("model.format"));
    let error = Task::new(json(r#"{"model": {}, "tools": [{"name": "x"}]}"#)).err().unwrap();
    assert!(get(&error, "message").as_string().unwrap().contains("tools[0].execute"));
    assert!(Task::new(JsValue::from(3)).is_err());
}
