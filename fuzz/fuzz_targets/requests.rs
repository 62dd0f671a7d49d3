//! The request builders from arbitrary JSON: no panic, and every body built is JSON.
#![no_main]

use clew::json::Json;
use clew::request::{build_request, ModelRequest};
use clew::stream::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(json) = Json::parse(text) else { return };
    let Ok(request) = ModelRequest::from_json(&json) else { return };
    for format in [Format::Anthropic, Format::OpenAi] {
        let built = build_request(format, &request);
        assert!(Json::parse(&built.body).is_ok(), "{}", built.body);
        assert!(serde_json::from_str::<serde_json::Value>(&built.body).is_ok());
    }
    // to_json reads back, and a second trip changes nothing (floats are written with 12
    // decimals, so the first trip may round them).
    let once = ModelRequest::from_json(&request.to_json()).expect("to_json reads back");
    let twice = ModelRequest::from_json(&once.to_json()).expect("to_json reads back");
    assert_eq!(once, twice);
});
