//! One OpenAI chat.completion.chunk read into the fields a decoder needs, two ways.
#![allow(dead_code, unused_imports)]
#[cfg(feature = "mini")]
mod imp {
    use miniserde::{json, Deserialize};
    #[derive(Deserialize)]
    struct Chunk { choices: Vec<Choice>, usage: Option<Usage> }
    #[derive(Deserialize)]
    struct Choice { index: Option<u64>, delta: Option<Delta>, finish_reason: Option<String> }
    #[derive(Deserialize)]
    struct Delta { content: Option<String>, reasoning_content: Option<String>, reasoning: Option<String>, refusal: Option<String>, tool_calls: Option<Vec<Call>> }
    #[derive(Deserialize)]
    struct Call { index: Option<u64>, id: Option<String>, function: Option<Function> }
    #[derive(Deserialize)]
    struct Function { name: Option<String>, arguments: Option<String> }
    #[derive(Deserialize)]
    struct Usage { prompt_tokens: Option<u64>, completion_tokens: Option<u64>, cost: Option<f64> }
    fn len(s: &Option<String>) -> usize {
        s.as_ref().map_or(0, String::len)
    }
    pub fn decode(line: &str) -> usize {
        let Ok(c) = json::from_str::<Chunk>(line) else { return usize::MAX };
        let mut total = 0;
        for choice in &c.choices {
            total += choice.index.unwrap_or(0) as usize + len(&choice.finish_reason);
            if let Some(d) = &choice.delta {
                total += len(&d.content) + len(&d.reasoning_content) + len(&d.reasoning) + len(&d.refusal);
                for call in d.tool_calls.iter().flatten() {
                    total += call.index.unwrap_or(0) as usize + len(&call.id);
                    if let Some(f) = &call.function {
                        total += len(&f.name) + len(&f.arguments);
                    }
                }
            }
        }
        if let Some(u) = c.usage {
            total += u.prompt_tokens.unwrap_or(0) as usize + u.completion_tokens.unwrap_or(0) as usize + u.cost.unwrap_or(0.0) as usize;
        }
        total
    }
}
#[cfg(feature = "hand")]
#[allow(dead_code, missing_docs)]
#[path = "json.rs"]
mod json;
#[cfg(feature = "hand")]
mod imp {
    use crate::json::{JsonError, Reader};
    fn read(r: &mut Reader<'_>) -> Result<usize, JsonError> {
        let mut total = 0usize;
        r.object(|r, key| match &*key {
            "choices" if r.is_array() => r.array(|r| r.object(|r, key| match &*key {
                "index" => r.u64().map(|v| total += v.unwrap_or(0) as usize),
                "finish_reason" => r.string().map(|v| total += v.map_or(0, |s| s.len())),
                "delta" if r.is_object() => r.object(|r, key| match &*key {
                    "content" | "reasoning_content" | "reasoning" | "refusal" => r.string().map(|v| total += v.map_or(0, |s| s.len())),
                    "tool_calls" if r.is_array() => r.array(|r| r.object(|r, key| match &*key {
                        "index" => r.u64().map(|v| total += v.unwrap_or(0) as usize),
                        "id" => r.string().map(|v| total += v.map_or(0, |s| s.len())),
                        "function" if r.is_object() => r.object(|r, key| match &*key {
                            "name" | "arguments" => r.string().map(|v| total += v.map_or(0, |s| s.len())),
                            _ => r.skip(),
                        }),
                        _ => r.skip(),
                    })),
                    _ => r.skip(),
                }),
                _ => r.skip(),
            })),
            "usage" if r.is_object() => r.object(|r, key| match &*key {
                "prompt_tokens" | "completion_tokens" => r.u64().map(|v| total += v.unwrap_or(0) as usize),
                "cost" => r.number().map(|v| total += v.map_or(0.0, |n| n.as_f64()) as usize),
                _ => r.skip(),
            }),
            _ => r.skip(),
        })?;
        Ok(total)
    }
    pub fn decode(line: &str) -> usize {
        let mut r = Reader::new(line);
        read(&mut r).and_then(|t| r.end().map(|()| t)).unwrap_or(usize::MAX)
    }
}
pub use imp::decode;

/// # Safety
/// `ptr` and `len` name a UTF-8 string in this module's memory.
#[no_mangle]
pub unsafe extern "C" fn decode_line(ptr: *const u8, len: usize) -> usize {
    let bytes = std::slice::from_raw_parts(ptr, len);
    decode(std::str::from_utf8(bytes).unwrap_or(""))
}
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len);
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}
