//! Hand-written TypeScript types for the values that cross the boundary as plain objects.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Free text between tool calls, trimmed as JavaScript trims. */
export interface TextBlock {
  type: "text";
  content: string;
  /** Always true for the last text block of a message. */
  partial: boolean;
}

/** A tool call written as tags in the model's text. */
export interface ToolUseBlock {
  type: "tool_use";
  name: string;
  /** Parameter values in first-seen order. */
  params: Record<string, string>;
  /** True until the closing tag arrives. */
  partial: boolean;
  isNativeToolCall: false;
}

/** One block of an assistant message. */
export type Block = TextBlock | ToolUseBlock;

/**
 * Which tags exist. Omitted: the reference loop's 27 tools and 45 parameters.
 * Names use 1 to 64 characters from A-Z a-z 0-9 _ - . :
 */
export interface ToolSetSpec {
  tools: string[];
  params: string[];
}
"#;
