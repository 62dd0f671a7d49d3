//! The Gemini decoder (`streamGenerateContent?alt=sse`): one test per rule. Every body
//! decodes to the same chunks and error whole, split once at every byte, and fed one byte
//! at a time.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod support;

use clew_codec::stream::{Chunk, Format, StreamError, Usage};
use support::calls;

/// A body of `data:` events with Gemini's CRLF framing.
fn sse(events: &[&str]) -> String {
    events.iter().map(|event| format!("data: {event}\r\n\r\n")).collect()
}

/// Decodes `body` every way it can arrive (support::decode_every_way); all must agree.
fn decode(body: &str) -> (Vec<Chunk>, Option<StreamError>) {
    support::decode_every_way(Format::Gemini, body)
}

/// The chunks of a body that must decode without an error.
fn chunks(body: &str) -> Vec<Chunk> {
    let (chunks, error) = decode(body);
    assert_eq!(error, None, "{chunks:?}");
    chunks
}

fn call(id: &str, name: &str, arguments: &str, signature: Option<&str>) -> (String, String, String, Option<String>) {
    (id.into(), name.into(), arguments.into(), signature.map(Into::into))
}

/// The usage chunks put together as a consumer does: a chunk is added, a `whole` one
/// replaces the counts so far.
fn usage(chunks: &[Chunk]) -> Usage {
    let mut total = Usage::default();
    for chunk in chunks {
        if let Chunk::Usage(usage) = chunk {
            if usage.whole {
                total = Usage { whole: false, ..usage.clone() };
            } else {
                total.add(usage);
            }
        }
    }
    total
}

/// Whether each usage chunk is `whole`, in order.
fn wholes(chunks: &[Chunk]) -> Vec<bool> {
    chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::Usage(usage) => Some(usage.whole),
            _ => None,
        })
        .collect()
}

fn stops(chunks: &[Chunk]) -> Vec<(String, Option<String>)> {
    chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::Stop { reason, raw } => Some((reason.clone(), raw.clone())),
            _ => None,
        })
        .collect()
}

fn without_usage(chunks: Vec<Chunk>) -> Vec<Chunk> {
    chunks.into_iter().filter(|c| !matches!(c, Chunk::Usage(_))).collect()
}

fn signed_reasoning(reasoning: &str, signature: Option<&str>) -> Chunk {
    Chunk::Reasoning {
        reasoning: reasoning.into(),
        signature: signature.map(Into::into),
        redacted_data: None,
        encrypted_content: None,
        summary: None,
    }
}

fn text_end(signature: &str) -> Chunk {
    Chunk::TextEnd { signature: Some(signature.into()), phase: None }
}

fn end_turn() -> Chunk {
    Chunk::Stop { reason: "end_turn".into(), raw: None }
}

#[test]
fn text_parts_are_text_and_thought_parts_reasoning_in_order() {
    let body = sse(&[
        r#"{"candidates": [{"content": {"parts": [{"text": "Let me think.", "thought": true}], "role": "model"}, "index": 0}]}"#,
        r#"{"candidates": [{"content": {"parts": [{"text": "Hello"}, {"text": ""}, {"text": ", wörld"}], "role": "model"}}]}"#,
        r#"{"candidates": [{"content": {"parts": [{"text": "!"}], "role": "model"}, "finishReason": "STOP"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(
        chunks(&body),
        [
            signed_reasoning("Let me think.", None),
            Chunk::text("Hello"),
            Chunk::text(", wörld"),
            Chunk::text("!"),
            end_turn()
        ]
    );
}

#[test]
fn signature_on_an_empty_text_part_is_a_text_end_of_its_own() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Three r's."}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"c2lnLWVtcHR5"}]},"finishReason":"STOP"}]}"#,
    ]);
    // The text before ends unsigned, so that the signed empty part is one of its own.
    let unsigned_end = Chunk::TextEnd { signature: None, phase: None };
    assert_eq!(chunks(&body), [Chunk::text("Three r's."), unsigned_end, text_end("c2lnLWVtcHR5"), end_turn()]);
}

#[test]
fn signature_on_a_text_part_ends_that_part() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"thoughtSignature":"c2lnLXRleHQ=","text":"First part."},{"text":" Second part."}]},"finishReason":"STOP"}]}"#,
    ]);
    assert_eq!(
        chunks(&body),
        [Chunk::text("First part."), text_end("c2lnLXRleHQ="), Chunk::text(" Second part."), end_turn()]
    );
}

#[test]
fn signed_thought_is_reasoning_with_its_signature_even_when_empty() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"Plan.","thought":true,"thoughtSignature":"dGhvdWdodA=="}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"","thought":true,"thoughtSignature":"ZW1wdHk="},{"text":"","thought":true}]},"finishReason":"STOP"}]}"#,
    ]);
    assert_eq!(
        chunks(&body),
        [signed_reasoning("Plan.", Some("dGhvdWdodA==")), signed_reasoning("", Some("ZW1wdHk=")), end_turn()]
    );
}

#[test]
fn call_is_one_piece_with_compact_arguments_id_and_signature() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"weather","args":{ "location" : "San Francisco", "days": [1, 2.50] },"id":"call-7"},"thoughtSignature":"Y2FsbA=="}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    assert_eq!(
        calls(&chunks),
        [call("call-7", "weather", r#"{"location":"San Francisco","days":[1,2.50]}"#, Some("Y2FsbA=="))]
    );
    assert_eq!(stops(&chunks), [("tool_use".to_owned(), None)]);
}

#[test]
fn call_without_args_is_an_empty_object() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"read_theme"}},{"functionCall":{"name":"now","args":null}},{"functionCall":{"name":"list","args":{}}}]},"finishReason":"STOP"}]}"#,
    ]);
    assert_eq!(
        calls(&chunks(&body)),
        [
            call("clew-call-0", "read_theme", "{}", None),
            call("clew-call-1", "now", "{}", None),
            call("clew-call-2", "list", "{}", None)
        ]
    );
}

#[test]
fn calls_without_ids_are_numbered_among_all_the_calls_of_the_reply() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{},"id":"given"}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"b","args":{"n":1}}}]},"finishReason":"STOP"}]}"#,
    ]);
    assert_eq!(calls(&chunks(&body)), [call("given", "a", "{}", None), call("clew-call-1", "b", r#"{"n":1}"#, None)]);
}

#[test]
fn streamed_partial_args_are_assembled_and_closed_by_an_empty_call() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"getWeather","willContinue":true},"thoughtSignature":"c3RyZWFt"}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"}}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"San ","willContinue":true}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"Fran\"cisco\"","willContinue":true}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":""}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"getWeather","willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"Boston","willContinue":true}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":""}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(
        calls(&chunks),
        [
            call("clew-call-0", "getWeather", r#"{"location":"San Fran\"cisco\""}"#, Some("c3RyZWFt")),
            call("clew-call-1", "getWeather", r#"{"location":"Boston"}"#, None)
        ]
    );
    // Each call is announced at once, and its arguments come whole when it closes.
    assert!(chunks.len() > 4, "{chunks:?}");
    assert!(chunks.iter().all(|c| !matches!(c, Chunk::ToolCalls { tool_call } if tool_call.whole)));
    assert_eq!(stops(&chunks), [("tool_use".to_owned(), None)]);
}

#[test]
fn streamed_nested_paths_build_objects_and_arrays_with_typed_values() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"cook","willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].name","stringValue":"Noo","willContinue":true}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].name","stringValue":"dles"},{"jsonPath":"$.recipe.ingredients[0].grams","numberValue":250.5}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[1].name","stringValue":"Salt"},{"jsonPath":"$.recipe.ingredients[1].optional","boolValue":true},{"jsonPath":"$.recipe.ingredients[1].note","nullValue":"NULL_VALUE"}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.name","stringValue":"Lasagna"},{"jsonPath":"$.recipe.steps[0]","stringValue":"Boil.\n"},{"jsonPath":"$.recipe.steps[1]","stringValue":"Bake at 190°C","willContinue":true}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.steps[1]","stringValue":"."},{"jsonPath":"$['serves']","numberValue":4},{"jsonPath":"$.tags","listValue":["a",{"b":1}]}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}"#,
    ]);
    let chunks = chunks(&body);
    let expected = concat!(
        r#"{"recipe":{"ingredients":[{"name":"Noodles","grams":250.5},{"name":"Salt","optional":true,"note":null}],"#,
        r#""name":"Lasagna","steps":["Boil.\n","Bake at 190°C."]},"serves":4,"tags":["a",{"b":1}]}"#
    );
    assert_eq!(calls(&chunks), [call("clew-call-0", "cook", expected, None)]);
    assert!(chunks.iter().all(|c| !matches!(c, Chunk::ToolCalls { tool_call } if tool_call.whole)));
}

#[test]
fn streamed_pieces_that_rewrite_give_the_whole_arguments_at_the_close() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"edit","willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a.x","numberValue":1},{"jsonPath":"$.b","stringValue":"B"}],"willContinue":true}}]}}]}"#,
        // Back into `a`, already closed in the streamed text, and `b` set again.
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a.y","numberValue":2},{"jsonPath":"$.b","numberValue":3}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(calls(&chunks), [call("clew-call-0", "edit", r#"{"a":{"x":1,"y":2},"b":3}"#, None)]);
    // The announcement has no arguments; the last piece has them all.
    let pieces: Vec<_> = chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::ToolCalls { tool_call } => Some(tool_call.function.arguments.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(pieces, [None, Some(r#"{"a":{"x":1,"y":2},"b":3}"#)]);
}

#[test]
fn streamed_call_is_closed_by_a_piece_without_will_continue() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"writeItems","willContinue":true},"thoughtSignature":"d3JpdGU="}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.operations[0].price","numberValue":0.5}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.operations[1].price","numberValue":0.3}]}}]}}]}"#,
        // Closed already: this piece has no call to continue.
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.late","numberValue":1}]}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}"#,
    ]);
    assert_eq!(
        calls(&chunks(&body)),
        [call("clew-call-0", "writeItems", r#"{"operations":[{"price":0.5},{"price":0.3}]}"#, Some("d3JpdGU="))]
    );
}

#[test]
fn streamed_call_open_at_the_finish_reason_is_closed_before_the_stop() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.q","stringValue":"x","willContinue":true}],"willContinue":true}}]},"finishReason":"STOP"}]}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(calls(&chunks), [call("clew-call-0", "f", r#"{"q":"x"}"#, None)]);
    assert_eq!(chunks.last(), Some(&Chunk::Stop { reason: "tool_use".into(), raw: None }));
}

#[test]
fn streamed_call_open_at_the_end_is_closed() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true,"id":"v1"}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.q","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}"#,
    ]);
    let (chunks, error) = decode(&body);
    assert_eq!(calls(&chunks), [call("v1", "f", r#"{"q":"x"}"#, None)]);
    assert_eq!(error, Some(StreamError::Incomplete { expected: "a finishReason" }));
}

#[test]
fn streamed_call_is_closed_by_the_next_part() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}},{"text":"after"},{"functionCall":{"name":"g","willContinue":true}},{"functionCall":{"name":"h","args":{"k":true}}}]},"finishReason":"STOP"}]}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(
        calls(&chunks),
        [
            call("clew-call-0", "f", "{}", None),
            call("clew-call-1", "g", "{}", None),
            call("clew-call-2", "h", r#"{"k":true}"#, None)
        ]
    );
    let text_at = chunks.iter().position(|c| matches!(c, Chunk::Text { .. })).unwrap();
    assert!(
        matches!(&chunks[text_at - 1], Chunk::ToolCalls { tool_call } if tool_call.function.arguments.as_deref() == Some("{}"))
    );
}

#[test]
fn other_parts_are_items_kept_whole_in_order() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"Running code."},{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1\n"}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"thoughtSignature":"dG9vbA==","toolCall":{"id":"t1","toolType":"FILE_SEARCH"}},{"inlineData":{"mimeType":"image/png","data":"iVBO"},"thought":true},{"text":"Done."}]},"finishReason":"STOP"}]}"#,
    ]);
    let item = |json: &str| Chunk::Item { item: clew_codec::json::Json::parse(json).unwrap() };
    assert_eq!(
        chunks(&body),
        [
            Chunk::text("Running code."),
            item(r#"{"executableCode":{"language":"PYTHON","code":"print(1)"}}"#),
            item(r#"{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1\n"}}"#),
            item(r#"{"thoughtSignature":"dG9vbA==","toolCall":{"id":"t1","toolType":"FILE_SEARCH"}}"#),
            item(r#"{"inlineData":{"mimeType":"image/png","data":"iVBO"},"thought":true}"#),
            Chunk::text("Done."),
            end_turn()
        ]
    );
}

#[test]
fn last_usage_metadata_wins_and_thoughts_count_as_output() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":18,"candidatesTokenCount":31,"totalTokenCount":84,"thoughtsTokenCount":35}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"b"}]}}],"usageMetadata":{"promptTokenCount":18,"candidatesTokenCount":79,"totalTokenCount":132,"thoughtsTokenCount":35}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"c"}]}}],"usageMetadata":{"promptTokenCount":18,"candidatesTokenCount":79,"totalTokenCount":132,"thoughtsTokenCount":35}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"d"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":18,"candidatesTokenCount":80,"totalTokenCount":133,"thoughtsTokenCount":35}}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(
        usage(&chunks),
        Usage { input_tokens: 18, output_tokens: 115, reasoning_tokens: Some(35), ..Usage::default() }
    );
    // An event that adds nothing emits no usage chunk.
    assert_eq!(chunks.iter().filter(|c| matches!(c, Chunk::Usage(_))).count(), 3);
}

#[test]
fn cached_and_tool_use_prompt_tokens_split_the_input() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1000,"cachedContentTokenCount":600,"toolUsePromptTokenCount":50,"candidatesTokenCount":20}}"#,
    ]);
    assert_eq!(
        usage(&chunks(&body)),
        Usage { input_tokens: 450, output_tokens: 20, cache_read_tokens: Some(600), ..Usage::default() }
    );
}

#[test]
fn a_smaller_count_is_emitted_whole_and_the_last_usage_wins() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":169,"candidatesTokenCount":20,"thoughtsTokenCount":419}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"b"}]}}],"usageMetadata":{"promptTokenCount":8}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"c"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":79,"candidatesTokenCount":122,"thoughtsTokenCount":447}}"#,
    ]);
    let chunks = chunks(&body);
    for chunk in &chunks {
        if let Chunk::Usage(u) = chunk {
            assert!(u.input_tokens < 1 << 40 && u.output_tokens < 1 << 40, "{u:?}");
        }
    }
    // The second event's counts are all smaller: they come whole; the third's grow again.
    assert_eq!(wholes(&chunks), [false, true, false]);
    assert!(chunks.contains(&Chunk::Usage(Usage { input_tokens: 8, whole: true, ..Usage::default() })));
    assert_eq!(
        usage(&chunks),
        Usage { input_tokens: 79, output_tokens: 569, reasoning_tokens: Some(447), ..Usage::default() }
    );
}

#[test]
fn a_smaller_last_prompt_count_wins_over_the_first() {
    // The shape of a recorded reply: the first event counts more prompt tokens than the last.
    let body = sse(&[
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Sure"}]}}],"usageMetadata":{"promptTokenCount":150,"totalTokenCount":150,"promptTokensDetails":[{"modality":"TEXT","tokenCount":150}]}}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":", done."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":9,"totalTokenCount":69}}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(wholes(&chunks), [false, true]);
    assert_eq!(
        chunks.last(),
        Some(&Chunk::Usage(Usage { input_tokens: 60, output_tokens: 9, whole: true, ..Usage::default() }))
    );
    assert_eq!(usage(&chunks), Usage { input_tokens: 60, output_tokens: 9, ..Usage::default() });
}

#[test]
fn growing_counts_are_emitted_as_plain_increments() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":40,"cachedContentTokenCount":10,"candidatesTokenCount":2}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"b"}]}}],"usageMetadata":{"promptTokenCount":40,"cachedContentTokenCount":10,"candidatesTokenCount":7}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"c"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":41,"cachedContentTokenCount":10,"candidatesTokenCount":7,"thoughtsTokenCount":3}}"#,
    ]);
    let chunks = chunks(&body);
    let increments: Vec<&Chunk> = chunks.iter().filter(|c| matches!(c, Chunk::Usage(_))).collect();
    assert_eq!(
        increments,
        [
            &Chunk::Usage(Usage {
                input_tokens: 30,
                output_tokens: 2,
                cache_read_tokens: Some(10),
                ..Usage::default()
            }),
            &Chunk::Usage(Usage { output_tokens: 5, cache_read_tokens: Some(0), ..Usage::default() }),
            &Chunk::Usage(Usage {
                input_tokens: 1,
                output_tokens: 3,
                cache_read_tokens: Some(0),
                reasoning_tokens: Some(3),
                ..Usage::default()
            }),
        ]
    );
    assert_eq!(
        usage(&chunks),
        Usage {
            input_tokens: 31,
            output_tokens: 10,
            cache_read_tokens: Some(10),
            reasoning_tokens: Some(3),
            ..Usage::default()
        }
    );
}

#[test]
fn stop_is_end_turn_without_calls_and_has_no_raw_reason() {
    let body = sse(&[r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}"#]);
    assert_eq!(stops(&chunks(&body)), [("end_turn".to_owned(), None)]);
}

#[test]
fn max_tokens_without_parts_is_a_max_tokens_stop() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":15,"totalTokenCount":17,"thoughtsTokenCount":2}}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(stops(&chunks), [("max_tokens".to_owned(), Some("MAX_TOKENS".to_owned()))]);
    assert_eq!(
        usage(&chunks),
        Usage { input_tokens: 15, output_tokens: 2, reasoning_tokens: Some(2), ..Usage::default() }
    );
}

#[test]
fn safety_finish_is_a_content_filter_stop_with_the_raw_reason() {
    for reason in [
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
        "VIDEO_SAFETY",
        "IMAGE_BLOCKED",
    ] {
        let event = format!(
            r#"{{"candidates":[{{"finishReason":"{reason}","finishMessage":"blocked","safetyRatings":[{{"category":"HARM_CATEGORY_HATE_SPEECH","probability":"HIGH","blocked":true}}]}}]}}"#
        );
        let chunks = chunks(&sse(&[&event]));
        assert_eq!(chunks, [Chunk::Stop { reason: "content_filter".into(), raw: Some(reason.into()) }], "{reason}");
    }
}

#[test]
fn malformed_function_call_is_its_own_stop_reason() {
    let body = sse(&[r#"{"candidates":[{"content":{"parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL"}]}"#]);
    assert_eq!(stops(&chunks(&body)), [("malformed_tool_call".to_owned(), Some("MALFORMED_FUNCTION_CALL".to_owned()))]);
}

#[test]
fn other_finish_reasons_are_lower_cased_with_the_raw_reason() {
    let body = sse(&[r#"{"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL"}]}"#]);
    assert_eq!(stops(&chunks(&body)), [("unexpected_tool_call".to_owned(), Some("UNEXPECTED_TOOL_CALL".to_owned()))]);
}

#[test]
fn a_repeated_finish_reason_gives_one_stop() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"}]}"#,
        r#"{"candidates":[{"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1}}"#,
    ]);
    let chunks = chunks(&body);
    assert_eq!(stops(&chunks), [("end_turn".to_owned(), None)]);
    assert_eq!(usage(&chunks).input_tokens, 3);
}

#[test]
fn only_candidate_zero_counts() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"other"}]},"index":1,"finishReason":"MAX_TOKENS"},{"content":{"parts":[{"text":"zero"}]},"index":0}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"!"}]},"finishReason":"STOP"}]}"#,
    ]);
    assert_eq!(without_usage(chunks(&body)), [Chunk::text("zero"), Chunk::text("!"), end_turn()]);
}

#[test]
fn blocked_prompt_is_a_provider_error_never_retried() {
    let body = sse(&[
        r#"{"promptFeedback":{"blockReason":"MODEL_ARMOR","blockReasonMessage":"The prompt violated filters."},"usageMetadata":{},"modelVersion":"gemini-2.5-flash"}"#,
    ]);
    let (chunks, error) = decode(&body);
    assert_eq!(chunks, []);
    let error = error.unwrap();
    assert_eq!(
        error,
        StreamError::Provider {
            kind: "prompt_blocked".into(),
            message: "the prompt was blocked (MODEL_ARMOR): The prompt violated filters.".into()
        }
    );
    assert!(!error.is_retryable());
    let (_, error) = decode(&sse(&[r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#]));
    assert_eq!(
        error,
        Some(StreamError::Provider {
            kind: "prompt_blocked".into(),
            message: "the prompt was blocked (SAFETY)".into()
        })
    );
}

#[test]
fn error_object_is_a_provider_error_with_its_status() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"Part"}]}}]}"#,
        r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#,
    ]);
    let (chunks, error) = decode(&body);
    assert_eq!(chunks, [Chunk::text("Part")]);
    let error = error.unwrap();
    assert_eq!(error, StreamError::Provider { kind: "UNAVAILABLE".into(), message: "The model is overloaded.".into() });
    assert!(error.is_retryable());
    let (_, error) = decode(&sse(&[r#"{"error":{"code":429,"message":"Slow down"}}"#]));
    assert_eq!(error, Some(StreamError::Provider { kind: "429".into(), message: "Slow down".into() }));
}

#[test]
fn missing_finish_reason_is_incomplete() {
    let body = sse(&[r#"{"candidates":[{"content":{"parts":[{"text":"cut"}]}}]}"#]);
    let (chunks, error) = decode(&body);
    assert_eq!(chunks, [Chunk::text("cut")]);
    let error = error.unwrap();
    assert_eq!(error, StreamError::Incomplete { expected: "a finishReason" });
    assert!(error.is_retryable());
}

#[test]
fn malformed_event_json_is_an_error() {
    let (_, error) = decode(&sse(&[r#"{"candidates":[{"content":{"parts":[{"text":"a"}]]}}"#]));
    assert!(matches!(error, Some(StreamError::MalformedJson { .. })), "{error:?}");
}

#[test]
fn paths_without_the_dollar_are_keys_and_paths_into_no_object_are_dropped() {
    let body = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"note","stringValue":"n"},{"jsonPath":"$[0]","numberValue":1},{"jsonPath":"$.a[x]","numberValue":2},{"jsonPath":"$","boolValue":true},{"jsonPath":"$.b"}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}"#,
    ]);
    assert_eq!(calls(&chunks(&body)), [call("clew-call-0", "f", r#"{"note":"n"}"#, None)]);
}
