//! Splitting a byte stream into lines: LF, CRLF and CR endings, boundaries anywhere.
//!
//! Lines that lie wholly inside one chunk are handed out as slices of it (no copy); only a
//! line cut by a chunk boundary is buffered, up to a limit. A UTF-8 byte order mark at the
//! very start of the stream is dropped, even when it arrives split.

use memchr::memchr2;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line longer than the splitter's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTooLong {
    /// The limit, in bytes.
    pub limit: usize,
}

/// Splits bytes into lines (without their endings).
#[derive(Clone, Debug)]
pub struct LineSplitter {
    pending: Vec<u8>,
    /// The previous chunk ended in CR: a leading LF of the next one belongs to it.
    after_cr: bool,
    /// Still at the start of the stream, where a byte order mark may be.
    at_start: bool,
    max_line: usize,
}

impl LineSplitter {
    /// A splitter refusing lines longer than `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        Self { pending: Vec::new(), after_cr: false, at_start: true, max_line }
    }

    /// Feeds bytes; calls `on_line` for every line they complete, in order.
    ///
    /// # Errors
    /// [`LineTooLong`] when a line grows past the limit, or the first error of `on_line`.
    pub fn push<E: From<LineTooLong>>(
        &mut self,
        bytes: &[u8],
        on_line: &mut impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.at_start {
            self.pending.extend_from_slice(bytes);
            if self.pending.len() < BOM.len() && BOM.starts_with(&self.pending) {
                return Ok(());
            }
            self.at_start = false;
            let mut first = std::mem::take(&mut self.pending);
            let skip = if first.starts_with(BOM) { BOM.len() } else { 0 };
            let result = self.split(first.get(skip..).unwrap_or_default(), on_line);
            first.clear();
            if self.pending.is_empty() {
                self.pending = first; // keep the allocation
            }
            return result;
        }
        self.split(bytes, on_line)
    }

    /// Ends the stream: a final line without an ending is handed out too.
    ///
    /// # Errors
    /// The error of `on_line`.
    pub fn finish<E>(&mut self, on_line: &mut impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        if self.at_start && self.pending.starts_with(BOM) {
            self.pending.drain(..BOM.len());
        }
        self.at_start = false;
        self.after_cr = false;
        if self.pending.is_empty() {
            return Ok(());
        }
        let line = std::mem::take(&mut self.pending);
        on_line(&line)
    }

    fn split<E: From<LineTooLong>>(
        &mut self,
        mut bytes: &[u8],
        on_line: &mut impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while let Some(end) = memchr2(b'\n', b'\r', bytes) {
            let (line, rest) = bytes.split_at(end);
            // NOTE: byte tests rather than slice patterns (calls at opt-level "z"): every line.
            let cr = rest.first() == Some(&b'\r');
            let crlf = cr && rest.get(1) == Some(&b'\n');
            if cr && rest.len() == 1 {
                self.after_cr = true;
            }
            bytes = rest.get(if crlf { 2 } else { 1 }..).unwrap_or_default();
            if self.pending.is_empty() {
                self.check(line.len())?;
                on_line(line)?;
            } else {
                self.check(self.pending.len() + line.len())?;
                self.pending.extend_from_slice(line);
                let whole = std::mem::take(&mut self.pending);
                let result = on_line(&whole);
                self.pending = whole;
                self.pending.clear();
                result?;
            }
        }
        self.check(self.pending.len() + bytes.len())?;
        self.pending.extend_from_slice(bytes);
        Ok(())
    }

    fn check(&self, len: usize) -> Result<(), LineTooLong> {
        if len > self.max_line {
            Err(LineTooLong { limit: self.max_line })
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(chunks: &[&[u8]]) -> Vec<String> {
        let mut splitter = LineSplitter::new(1 << 20);
        let mut lines = Vec::new();
        let mut collect = |line: &[u8]| -> Result<(), LineTooLong> {
            lines.push(clew_base::utf8::lossy(line));
            Ok(())
        };
        for chunk in chunks {
            splitter.push(chunk, &mut collect).unwrap();
        }
        splitter.finish(&mut collect).unwrap();
        lines
    }

    #[test]
    fn lf_crlf_and_cr_endings_at_every_split() {
        let text: &[u8] = b"\xEF\xBB\xBFa\nb\r\nc\rd\r\r\ne\n\nf";
        let expected = ["a", "b", "c", "d", "", "e", "", "f"];
        for cut in 0..=text.len() {
            let (x, y) = text.split_at(cut);
            assert_eq!(lines_of(&[x, y]), expected, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(lines_of(&bytes), expected);
    }

    #[test]
    fn a_bom_only_at_the_start_is_dropped() {
        assert_eq!(lines_of(&[b"\xEF\xBB", b"\xBFx\n\xEF\xBB\xBFy"]), ["x", "\u{FEFF}y"]);
        assert_eq!(lines_of(&[b"\xEF\xBB"]), ["\u{FFFD}"]);
    }

    #[test]
    fn a_line_past_the_limit_is_an_error() {
        let mut splitter = LineSplitter::new(4);
        let mut ignore = |_: &[u8]| -> Result<(), LineTooLong> { Ok(()) };
        assert_eq!(splitter.push(b"abcd\nab", &mut ignore), Ok(()));
        assert_eq!(splitter.push(b"cde", &mut ignore), Err(LineTooLong { limit: 4 }));
    }
}
