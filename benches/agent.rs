//! Native agent-loop benchmarks (run by scripts/bench; prints markdown tables).
//!
//! 1. A 50-round scripted task end to end: each round streams about 3 KB of text in 20-byte
//!    chunk lines and one tool call; the last round completes. Beside it, in the same run, the
//!    floor: the same bytes through the stream decoder and the incremental parser alone. The
//!    difference is the loop's own cost (presentation, messages, tools, history).
//! 2. One round over each 5,000-delta SSE body, one SSE event per push: time per chunk from
//!    bytes to the last say, beside decoding alone.
//!
//! The driver here answers every effect at once (tools, approvals), so
//! the figures are the machine's CPU cost. Times are the minimum over repeated runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs, dead_code)]

mod common;

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Duration;

use common::min_time;

use clew::agent::{AskAnswer, AskResponse, AutoApprove, Effect, ParamSpec, Task, TaskConfig, ToolOutput, ToolSpec};
use clew::parser::IncrementalParser;
use clew::stream::{Format, StreamDecoder};

/// Runs a task whose n-th request is answered with `replies[n]` (pieces pushed one by one).
fn run_task(config: &TaskConfig, replies: &[Vec<Vec<u8>>]) -> usize {
    run_task_with(config, replies, "file contents: ok", None)
}

/// [`run_task`] with each tool answering `result`, and each request's body built for `body`
/// (what a driver sends: the view and its JSON).
fn run_task_with(config: &TaskConfig, replies: &[Vec<Vec<u8>>], result: &str, body: Option<Format>) -> usize {
    let mut task = Task::new(config.clone()).unwrap();
    let mut now = 0u64;
    task.start(now, "benchmark task", Vec::new());
    let mut requests = 0;
    let mut says = 0;
    let mut queue: VecDeque<Effect> = VecDeque::new();
    loop {
        while let Some(effect) = task.poll_effect() {
            queue.push_back(effect);
        }
        let Some(effect) = queue.pop_front() else { break };
        now += 1;
        match effect {
            Effect::OpenStream { stream, request, .. } => {
                if let Some(format) = body {
                    black_box(clew::request::build_request(format, &request));
                }
                let reply = &replies[requests.min(replies.len() - 1)];
                requests += 1;
                for piece in reply {
                    task.handle_stream_bytes(now, stream, piece);
                    while let Some(effect) = task.poll_effect() {
                        match effect {
                            Effect::Say(_) => says += 1,
                            other => queue.push_back(other),
                        }
                    }
                }
                task.handle_stream_end(now, stream);
            }
            Effect::Say(_) => says += 1,
            Effect::Ask(message) if !message.is_partial() => {
                task.handle_ask_answer(now, message.ts, AskAnswer::button(AskResponse::Yes));
            }
            Effect::RunTool { id, .. } => task.handle_tool_done(now, id, ToolOutput::text(result)),
            Effect::Finished(_) => break,
            _ => {}
        }
    }
    assert!(task.outcome().is_some(), "the task ended");
    says
}

fn chunk_line(text: &str) -> Vec<u8> {
    let mut line = serde_json::json!({ "type": "text", "text": text }).to_string().into_bytes();
    line.push(b'\n');
    line
}

fn scripted_rounds(rounds: usize) -> Vec<Vec<Vec<u8>>> {
    let prose = "The quick brown fox jumps over the lazy dog while the agent reads files. ".repeat(40);
    (0..rounds)
        .map(|round| {
            let mut text = prose.clone();
            if round + 1 == rounds {
                text.push_str("<attempt_completion><result>done</result></attempt_completion>");
            } else {
                text.push_str(&format!("<read_file><path>src/file{round}.rs</path></read_file>"));
            }
            let chars: Vec<char> = text.chars().collect();
            chars.chunks(20).map(|c| chunk_line(&c.iter().collect::<String>())).collect()
        })
        .collect()
}

/// `rounds` rounds of native tool calls in chunk lines: some text, one `read_file` call, and
/// usage whose input grows by 1,000 tokens a round and falls back every 38 rounds (so that a
/// 64k window's limit of 37k is crossed twice every 38 rounds and the context management acts).
fn native_rounds(rounds: usize) -> Vec<Vec<Vec<u8>>> {
    let prose = "The agent reads the next file to find where the setting is read. ".repeat(3);
    (0..rounds)
        .map(|round| {
            let call = if round + 1 == rounds {
                serde_json::json!({"call_id":"done","function":{"id":"done","name":"attempt_completion","arguments":"{\"result\":\"done\"}"}})
            } else {
                let args = format!("{{\"path\":\"src/file{round}.rs\"}}");
                serde_json::json!({"call_id":format!("c{round}"),"function":{"id":format!("c{round}"),"name":"read_file","arguments":args}})
            };
            let usage = serde_json::json!({"type":"usage","inputTokens":1_000 * (round % 38 + 1) as u64,"outputTokens":100});
            let line = |v: serde_json::Value| {
                let mut line = v.to_string().into_bytes();
                line.push(b'\n');
                line
            };
            vec![chunk_line(&prose), line(serde_json::json!({"type":"tool_calls","tool_call":call})), line(usage)]
        })
        .collect()
}

fn tool(name: &str, params: &[&str]) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        read_only: true,
        parameters: params
            .iter()
            .map(|p| ParamSpec { name: (*p).into(), description: String::new(), required: true })
            .collect(),
        ..ToolSpec::default()
    }
}

fn floor(replies: &[Vec<Vec<u8>>], format: Format) -> Duration {
    min_time(10, || {
        for reply in replies {
            let mut decoder = StreamDecoder::new(format);
            let mut parser = IncrementalParser::default();
            let mut out = Vec::new();
            for piece in reply {
                decoder.push(piece, &mut out).unwrap();
                for chunk in out.drain(..) {
                    if let clew::stream::Chunk::Text { text } = chunk {
                        black_box(parser.push(&text));
                    }
                }
            }
            decoder.finish(&mut out).unwrap();
        }
    })
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let config = TaskConfig {
        format: Format::Chunks,
        tools: vec![tool("read_file", &["path"]), tool("get_weather", &["city"])],
        auto_approve: AutoApprove { read_only: true, all: false },
        ..TaskConfig::default()
    };

    println!(
        "| workload | chunks | whole task | per round | per chunk | decode + parse floor | loop overhead per chunk |"
    );
    println!("|---|---|---|---|---|---|---|");
    let rounds = scripted_rounds(50);
    let chunks: usize = rounds.iter().map(Vec::len).sum();
    let bytes: usize = rounds.iter().flatten().map(Vec::len).sum();
    let task = min_time(10, || {
        black_box(run_task(&config, &rounds));
    });
    let base = floor(&rounds, Format::Chunks);
    let per_chunk = |d: Duration| format!("{:.0} ns", d.as_secs_f64() * 1e9 / chunks as f64);
    println!(
        "| 50 rounds, {} KB of chunk lines, one tool call each | {chunks} | {} | {} | {} | {} | {} |",
        bytes / 1024,
        ms(task),
        ms(task / 50),
        per_chunk(task),
        ms(base),
        per_chunk(task.saturating_sub(base)),
    );

    {
        // The edit strategy's cost: the same 200-round task (native calls, a 2 KB result each,
        // every request's body built) in a window it never fills (no context management
        // acts), with the default strategy (truncation) and with `edit`.
        let rounds = native_rounds(200);
        let result = "fn main() { println!(\"a line of the file\"); }\n".repeat(40);
        let base = TaskConfig {
            tool_calling: clew::agent::ToolCalling::Native,
            info: clew::stream::model::ModelInfo { context_window: Some(64_000), ..Default::default() },
            ..config.clone()
        };
        let mut edit = base.clone();
        edit.context.strategy = clew::agent::Strategy::Edit;
        edit.context.edit = Some(clew::agent::EditConfig::default());
        let mut roomy = base.clone();
        roomy.info.context_window = Some(10_000_000);
        let mut best = [Duration::MAX; 3];
        let (mut against_none, mut against_truncate) = (Vec::new(), Vec::new());
        for _ in 0..11 {
            let mut times = [Duration::ZERO; 3];
            for (i, config) in [&roomy, &base, &edit].into_iter().enumerate() {
                times[i] = min_time(1, || {
                    black_box(run_task_with(config, &rounds, &result, Some(Format::Anthropic)));
                });
                best[i] = best[i].min(times[i]);
            }
            against_none.push(times[2].as_secs_f64() / times[0].as_secs_f64());
            against_truncate.push(times[2].as_secs_f64() / times[1].as_secs_f64());
        }
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        EDIT_ROW.with(|row| {
            *row.borrow_mut() = format!(
                "| 200 rounds, native calls, 2 KB results, bodies built (Anthropic) | {} | {} | {} | {:.2}x | {:.2}x |",
                ms(best[0] / 200),
                ms(best[1] / 200),
                ms(best[2] / 200),
                median(against_none),
                median(against_truncate),
            )
        });
    }

    for (name, format) in [("sse-anthropic-5000", Format::Anthropic), ("sse-openai-5000", Format::OpenAi)] {
        let body = std::fs::read_to_string(format!("{root}/benches/fixtures/{name}.txt")).unwrap();
        let events: Vec<Vec<u8>> = body.split_inclusive("\n\n").map(|e| e.as_bytes().to_vec()).collect();
        let done = match format {
            Format::Anthropic => "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"<attempt_completion><result>ok</result></attempt_completion>\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
            _ => "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<attempt_completion><result>ok</result></attempt_completion>\"}}]}\n\ndata: [DONE]\n\n",
        };
        let replies = vec![events.clone(), vec![done.as_bytes().to_vec()]];
        let config = TaskConfig { format, ..config.clone() };
        let task = min_time(10, || {
            black_box(run_task(&config, &replies));
        });
        let base = floor(&replies[..1], format);
        let n = events.len();
        let per = |d: Duration| d.as_secs_f64() * 1e9 / n as f64;
        println!(
            "| one round of {name}, one SSE event per push (+ a one-event completion round) | {n} | {} | – | {:.0} ns | {} | {:.0} ns |",
            ms(task),
            per(task),
            ms(base),
            per(task.saturating_sub(base)),
        );
    }

    println!();
    println!("| per round (median of 11 interleaved pairs) | no context management acts | default (truncate) | \"edit\" | edit / none | edit / truncate |");
    println!("|---|---|---|---|---|---|");
    EDIT_ROW.with(|row| println!("{}", row.borrow()));
}

thread_local! {
    /// The edit row, printed as a table of its own after the loop's.
    static EDIT_ROW: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}
