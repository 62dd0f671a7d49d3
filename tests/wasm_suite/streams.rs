// Model streams through the JS exports: StreamDecoder, sseDecoder over a real Response
// built in JS, readModelStream's HTTP errors, buildRequest and modelCost.

use clew::wasm::{build_request, model_cost, read_model_stream, StreamDecoder};
use js_sys::{Reflect, Uint8Array};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{ReadableStream, ReadableStreamDefaultReader, Response};

#[wasm_bindgen(inline_js = r#"
export function make_response(bytes, piece, status, headers) {
  let at = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) { controller.close(); return; }
      controller.enqueue(bytes.slice(at, at + piece));
      at += piece;
    },
  });
  return new Response(body, { status, headers: JSON.parse(headers) });
}
"#)]
extern "C" {
    fn make_response(bytes: &Uint8Array, piece: u32, status: u16, headers: &str) -> Response;
}

const FIXTURES: [(&str, &str, &[u8], &str); 4] = [
    (
        "anthropic",
        "anthropic-thinking-tool",
        include_bytes!("../fixtures/streams/anthropic-thinking-tool.sse"),
        include_str!("../fixtures/streams/anthropic-thinking-tool.expected.json"),
    ),
    (
        "openai",
        "openai-tools",
        include_bytes!("../fixtures/streams/openai-tools.sse"),
        include_str!("../fixtures/streams/openai-tools.expected.json"),
    ),
    (
        "openai",
        "openai-error-in-stream",
        include_bytes!("../fixtures/streams/openai-error-in-stream.sse"),
        include_str!("../fixtures/streams/openai-error-in-stream.expected.json"),
    ),
    (
        "chunks",
        "chunks-lines",
        include_bytes!("../fixtures/streams/chunks-lines.jsonl"),
        include_str!("../fixtures/streams/chunks-lines.expected.json"),
    ),
];

fn to_json(value: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(value).unwrap().as_string().unwrap();
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn code_of(error: &JsValue) -> String {
    Reflect::get(error, &"code".into()).unwrap().as_string().unwrap_or_default()
}

#[wasm_bindgen_test]
fn stream_decoder_gives_the_expected_chunk_objects() {
    for (format, name, body, expected) in FIXTURES {
        let expected: Value = serde_json::from_str(expected).unwrap();
        let mut decoder = StreamDecoder::new(format.into()).unwrap();
        let mut chunks = Vec::new();
        let mut error = None;
        for piece in body.chunks(7) {
            match decoder.push(Uint8Array::from(piece).into()) {
                Ok(array) => chunks.extend(array.iter().map(|c| to_json(&c))),
                Err(e) => {
                    chunks.extend(to_json(&Reflect::get(&e, &"chunks".into()).unwrap()).as_array().unwrap().clone());
                    error = Some(e);
                    break;
                }
            }
        }
        if error.is_none() {
            match decoder.finish() {
                Ok(array) => chunks.extend(array.iter().map(|c| to_json(&c))),
                Err(e) => error = Some(e),
            }
        }
        assert_eq!(Value::Array(chunks), expected["chunks"], "{name}");
        assert_eq!(error.as_ref().map(code_of), expected["error"]["code"].as_str().map(str::to_owned), "{name}");
        if let Some(error) = error {
            assert!(error.is_instance_of::<js_sys::Error>());
            assert_eq!(Reflect::get(&error, &"name".into()).unwrap(), "ClewStreamError");
            assert_eq!(
                Reflect::get(&error, &"retryable".into()).unwrap(),
                expected["error"]["retryable"].as_bool().unwrap()
            );
        }
    }
}

async fn read_all(stream: ReadableStream) -> Result<Vec<Value>, JsValue> {
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut chunks = Vec::new();
    loop {
        let result = JsFuture::from(reader.read()).await?;
        if Reflect::get(&result, &"done".into())?.is_truthy() {
            return Ok(chunks);
        }
        chunks.push(to_json(&Reflect::get(&result, &"value".into())?));
    }
}

#[wasm_bindgen_test]
async fn read_model_stream_decodes_a_response_built_in_js() {
    for (format, name, body, expected) in FIXTURES {
        let expected: Value = serde_json::from_str(expected).unwrap();
        let response = make_response(&Uint8Array::from(body), 13, 200, r#"{"content-type":"text/event-stream"}"#);
        let stream = read_model_stream(response.into(), format.into()).await.unwrap();
        match read_all(stream).await {
            Ok(chunks) => {
                assert!(expected["error"].is_null(), "{name}: expected an error");
                assert_eq!(Value::Array(chunks), expected["chunks"], "{name}");
            }
            Err(error) => assert_eq!(Some(code_of(&error).as_str()), expected["error"]["code"].as_str(), "{name}"),
        }
    }
}

#[wasm_bindgen_test]
async fn an_http_error_rejects_with_status_message_and_retry_after() {
    let body = br#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests exceeded"}}"#;
    let response = make_response(&Uint8Array::from(&body[..]), 1000, 429, r#"{"retry-after":"12"}"#);
    let error = read_model_stream(response.into(), "anthropic".into()).await.err().unwrap();
    assert_eq!(code_of(&error), "CLEW_HTTP_ERROR");
    let field = |key: &str| Reflect::get(&error, &key.into()).unwrap();
    assert_eq!(field("status").as_f64(), Some(429.0));
    assert_eq!(field("retryable"), true);
    assert_eq!(field("retryAfterMs").as_f64(), Some(12_000.0));
    assert_eq!(field("kind"), "rate_limit_error");
    assert_eq!(field("providerMessage"), "Number of requests exceeded");

    let response = make_response(&Uint8Array::from(&b"no such key"[..]), 1000, 401, "{}");
    let error = read_model_stream(response.into(), "openai".into()).await.err().unwrap();
    assert_eq!(Reflect::get(&error, &"retryable".into()).unwrap(), false);
}

#[wasm_bindgen_test]
async fn a_malformed_stream_errors_the_readable_side() {
    let response = make_response(
        &Uint8Array::from(&b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {broken\n\n"[..]),
        5,
        200,
        "{}",
    );
    let stream = read_model_stream(response.into(), "openai".into()).await.unwrap();
    let error = read_all(stream).await.err().unwrap();
    assert_eq!(code_of(&error), "CLEW_MALFORMED_JSON");
}

#[wasm_bindgen_test]
fn an_unknown_format_is_a_type_error() {
    let error = StreamDecoder::new("cohere".into()).err().unwrap();
    assert_eq!(code_of(&StreamDecoder::new(JsValue::from(1)).err().unwrap()), "CLEW_UNKNOWN_FORMAT");
    let mut decoder = StreamDecoder::new("openai".into()).unwrap();
    assert_eq!(code_of(&decoder.push("text".into()).err().unwrap()), "CLEW_INVALID_ARGUMENT");
    assert!(error.is_instance_of::<js_sys::TypeError>());
    assert_eq!(code_of(&error), "CLEW_UNKNOWN_FORMAT");
}

#[wasm_bindgen_test]
fn build_request_and_model_cost_take_plain_objects() {
    let request = js_sys::JSON::parse(
        &json!({
            "system": "Be brief.",
            "messages": [{"role": "user", "content": "hi"}],
            "model": {"id": "claude-haiku-4-5", "browser": true, "promptCache": true}
        })
        .to_string(),
    )
    .unwrap();
    let built = to_json(&build_request("anthropic".into(), request).unwrap());
    assert_eq!(built["url"], "https://api.anthropic.com/v1/messages");
    assert_eq!(built["headers"]["anthropic-dangerous-direct-browser-access"], "true");
    assert!(built["headers"].get("x-api-key").is_none());
    let body: Value = serde_json::from_str(built["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["messages"][0]["content"][0]["cache_control"]["type"], "ephemeral");

    let info = js_sys::JSON::parse(r#"{"inputPrice": 3, "outputPrice": 15}"#).unwrap();
    let usage = js_sys::JSON::parse(r#"{"inputTokens": 1000000, "outputTokens": 200000}"#).unwrap();
    assert_eq!(model_cost(info.clone(), usage).unwrap(), 6.0);
    let bad = js_sys::JSON::parse(r#"{"inputTokens": "many"}"#).unwrap();
    assert_eq!(code_of(&model_cost(info, bad).err().unwrap()), "CLEW_INVALID_ARGUMENT");
}

#[wasm_bindgen_test]
fn tool_call_assembler_shows_params_while_they_stream() {
    use clew::wasm::ToolCallAssembler;
    let chunks: Value = serde_json::from_str(FIXTURES[1].3).unwrap();
    let mut calls = ToolCallAssembler::new();
    for chunk in chunks["chunks"].as_array().unwrap().iter().filter(|c| c["type"] == "tool_calls") {
        calls.push(&js_sys::JSON::parse(&chunk.to_string()).unwrap()).unwrap();
    }
    // A third call whose string argument is cut mid-way shows what has arrived.
    let piece = |arguments: &str| {
        js_sys::JSON::parse(
            &json!({"call_id": "c3", "function": {"id": "c3", "name": "write_to_file", "arguments": arguments}})
                .to_string(),
        )
        .unwrap()
    };
    assert_eq!(calls.push(&piece(r##"{"path": "notes.md", "content": "# Ti"##)).unwrap(), 2);
    let partial = to_json(&calls.call(2.into()).unwrap());
    assert_eq!(partial["params"], json!({"path": "notes.md", "content": "# Ti"}));
    assert_eq!(partial["complete"], false);
    calls.push(&piece(r#"tle\n"}"#)).unwrap();
    assert_eq!(to_json(&calls.call(2.into()).unwrap())["params"]["content"], "# Title\n");
    assert_eq!(calls.length(), 3);
    assert_eq!(
        to_json(&calls.calls().into()),
        json!([
            {"id": "call_A", "name": "read_file", "params": {"path": "a.md"}, "complete": true, "invalid": false},
            {"id": "call_B", "name": "list_files", "params": {"path": "src"}, "complete": true, "invalid": false},
            {"id": "c3", "name": "write_to_file", "params": {"path": "notes.md", "content": "# Title\n"}, "complete": true, "invalid": false}
        ])
    );
    assert!(calls.call(3.into()).unwrap().is_undefined());
    assert_eq!(code_of(&calls.push(&JsValue::from(3)).err().unwrap()), "CLEW_INVALID_ARGUMENT");
}
