//! Stitching UTF-8 text back together across byte chunks.
//!
//! Network chunks split multi-byte characters anywhere. [`Utf8Stitcher`] holds the unfinished
//! tail of one chunk until the next arrives and replaces invalid bytes with U+FFFD exactly as
//! a (non-fatal) `TextDecoder` does, so no valid character is ever lost or doubled.

/// Decodes a stream of UTF-8 byte chunks into text.
///
/// ```
/// use clew_base::utf8::Utf8Stitcher;
/// let (mut utf8, mut out) = (Utf8Stitcher::default(), String::new());
/// utf8.decode("é".as_bytes().get(..1).unwrap_or_default(), &mut out);
/// assert_eq!(out, "");
/// utf8.decode("é".as_bytes().get(1..).unwrap_or_default(), &mut out);
/// assert_eq!(out, "é");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Utf8Stitcher {
    pending: [u8; 4],
    pending_len: usize,
}

impl Utf8Stitcher {
    /// Appends the text of `bytes` to `out`, keeping an unfinished final character for later.
    pub fn decode(&mut self, bytes: &[u8], out: &mut String) {
        if self.pending_len == 0 {
            self.decode_from(bytes, out);
            return;
        }
        let mut joined = Vec::with_capacity(self.pending_len + bytes.len());
        joined.extend_from_slice(self.pending.get(..self.pending_len).unwrap_or_default());
        joined.extend_from_slice(bytes);
        self.pending_len = 0;
        self.decode_from(&joined, out);
    }

    /// Ends the stream: an unfinished character becomes U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if self.pending_len > 0 {
            self.pending_len = 0;
            out.push(char::REPLACEMENT_CHARACTER);
        }
    }

    /// Whether bytes of an unfinished character are held.
    pub fn has_pending(&self) -> bool {
        self.pending_len > 0
    }

    fn decode_from(&mut self, mut input: &[u8], out: &mut String) {
        loop {
            match std::str::from_utf8(input) {
                Ok(text) => {
                    out.push_str(text);
                    return;
                }
                Err(error) => {
                    let (valid, rest) = input.split_at(error.valid_up_to());
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            input = rest.get(bad..).unwrap_or_default();
                        }
                        None => {
                            let kept = rest.len().min(self.pending.len());
                            if let (Some(slot), Some(bytes)) = (self.pending.get_mut(..kept), rest.get(..kept)) {
                                slot.copy_from_slice(bytes);
                            }
                            self.pending_len = kept;
                            return;
                        }
                    }
                }
            }
        }
    }
}

/// `bytes` as text, each invalid sequence replaced by U+FFFD as `String::from_utf8_lossy`
/// does (its code, about 1 KB of wasm, is left out of the build by using the stitcher's).
pub fn lossy(bytes: &[u8]) -> String {
    let (mut utf8, mut out) = (Utf8Stitcher::default(), String::new());
    utf8.decode(bytes, &mut out);
    utf8.finish(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(bytes: &[u8], cut: usize) -> String {
        let (mut utf8, mut out) = (Utf8Stitcher::default(), String::new());
        let (a, b) = bytes.split_at(cut);
        utf8.decode(a, &mut out);
        utf8.decode(b, &mut out);
        utf8.finish(&mut out);
        out
    }

    #[test]
    fn every_split_of_valid_text_gives_the_text_back() {
        let text = "a é 中 🦀 z";
        for cut in 0..=text.len() {
            assert_eq!(decode_in_pieces(text.as_bytes(), cut), text, "cut at {cut}");
        }
    }

    #[test]
    fn every_split_of_invalid_bytes_matches_lossy_decoding() {
        let bytes: &[u8] = b"a\xF0\x9F\xA6b\xE0\x80c\xC3\xFF\xED\xA0\x80\xF4\x90\x80\x80d\xE2\x82";
        let expected = String::from_utf8_lossy(bytes);
        for cut in 0..=bytes.len() {
            assert_eq!(decode_in_pieces(bytes, cut), expected, "cut at {cut}");
        }
    }

    #[test]
    fn lossy_matches_the_standard_librarys_lossy_decoding() {
        let cases: [&[u8]; 6] = [
            b"",
            b"plain",
            "a \u{e9} \u{1f980}".as_bytes(),
            b"\xFF\xFE",
            b"a\xF0\x9F\xA6",
            b"\xE0\x80c\xED\xA0\x80\xF4\x90\x80\x80d\xC3",
        ];
        for bytes in cases {
            assert_eq!(lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
    }

    #[test]
    fn unfinished_character_at_the_end_becomes_a_replacement() {
        let (mut utf8, mut out) = (Utf8Stitcher::default(), String::new());
        utf8.decode(b"ok\xE4\xB8", &mut out);
        assert!(utf8.has_pending());
        utf8.finish(&mut out);
        assert_eq!(out, "ok\u{FFFD}");
    }
}
