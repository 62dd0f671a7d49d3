//! Compact reading without a nesting limit: the value at the cursor rewritten as
//! `JSON.stringify(JSON.parse(text))` would write it, walked with a stack of its own.

use super::read::{JsonError, Reader};
use super::write::write_string;

type Result<T> = std::result::Result<T, JsonError>;

impl Reader<'_> {
    /// Reads the value at the cursor into `out` in compact form, as
    /// `JSON.stringify(JSON.parse(text))` writes it (numbers keep their text; a repeated key
    /// stays repeated). Unlike [`Reader::value`] it has no nesting limit: arrays and objects
    /// are walked with a stack of their own, not by recursion, so any depth `JSON.parse`
    /// takes is read without growing the call stack.
    pub fn compact_value(&mut self, out: &mut String) -> Result<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            match self.peek() {
                Some(b'{') => {
                    self.bump();
                    out.push('{');
                    if self.peek() == Some(b'}') {
                        self.bump();
                        out.push('}');
                    } else {
                        open.push(b'}');
                        self.compact_key(out)?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.bump();
                    out.push('[');
                    if self.peek() == Some(b']') {
                        self.bump();
                        out.push(']');
                    } else {
                        open.push(b']');
                        continue;
                    }
                }
                Some(b'"') => {
                    let text = self.string_body()?;
                    write_string(out, &text);
                }
                Some(b't') => self.literal("true").map(|()| out.push_str("true"))?,
                Some(b'f') => self.literal("false").map(|()| out.push_str("false"))?,
                Some(b'n') => self.literal("null").map(|()| out.push_str("null"))?,
                Some(b'-' | b'0'..=b'9') => out.push_str(self.number_text()?),
                _ => return self.fail("expected a value"),
            }
            // After a value: close what ends here, then a separator or the end.
            loop {
                let Some(&close) = open.last() else { return Ok(()) };
                match self.peek() {
                    Some(b',') => {
                        self.bump();
                        out.push(',');
                        if close == b'}' {
                            self.compact_key(out)?;
                        }
                        break;
                    }
                    Some(b) if b == close => {
                        self.bump();
                        out.push(char::from(close));
                        open.pop();
                    }
                    _ if close == b'}' => return self.fail("expected `,` or `}`"),
                    _ => return self.fail("expected `,` or `]`"),
                }
            }
        }
    }

    fn compact_key(&mut self, out: &mut String) -> Result<()> {
        if self.peek() != Some(b'"') {
            return self.fail("expected a key");
        }
        let key = self.string_body()?;
        write_string(out, &key);
        if self.peek() != Some(b':') {
            return self.fail("expected `:`");
        }
        self.bump();
        out.push(':');
        Ok(())
    }
}
