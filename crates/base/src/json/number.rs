//! JSON numbers as text, converted to integers and floats without float tables.

/// A JSON number, kept as its (valid) source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Number(String);

/// Powers of ten that f64 holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Decimals written for a value that is not an integer.
const DECIMALS: u32 = 12;

impl Number {
    /// `text` when it is one JSON number (`-?int frac? exp?`), else `None`.
    pub fn parse(text: &str) -> Option<Self> {
        (scan(text.as_bytes()) == Some(text.len())).then(|| Self(text.to_owned()))
    }

    /// A number from text already checked by the reader.
    pub(super) fn from_valid(text: &str) -> Self {
        Self(text.to_owned())
    }

    /// The number's JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value as an unsigned integer: exact for digits-only text (saturating at
    /// `u64::MAX`); a fraction or exponent that still names a whole number is accepted;
    /// negative and fractional values give `None`.
    pub fn as_u64(&self) -> Option<u64> {
        if let Some(whole) = digits_u64(&self.0) {
            return Some(whole);
        }
        let value = self.as_f64();
        // NOTE: `as` saturates, so a huge whole value gives u64::MAX.
        (value >= 0.0 && (value.is_infinite() || value.fract() == 0.0)).then_some(value as u64)
    }

    /// The value as a float: exact when the digits fit in 53 bits and the power of ten in
    /// ±22 (the usual JSON numbers), within about 1e-14 relative otherwise (subnormal values
    /// lose more).
    pub fn as_f64(&self) -> f64 {
        let bytes = self.0.as_bytes();
        let (negative, rest) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let mut mantissa: u64 = 0;
        let mut exponent: i64 = 0;
        let mut seen_point = false;
        let mut i = 0;
        while let Some(&b) = rest.get(i) {
            match b {
                b'0'..=b'9' => {
                    if mantissa < 1_000_000_000_000_000_000 {
                        mantissa = mantissa * 10 + u64::from(b - b'0');
                        exponent -= i64::from(seen_point);
                    } else {
                        exponent += i64::from(!seen_point);
                    }
                }
                b'.' => seen_point = true,
                _ => break,
            }
            i += 1;
        }
        if let Some(b'e' | b'E') = rest.get(i) {
            let exp_text = rest.get(i + 1..).unwrap_or_default();
            let (sign, digits) = match exp_text.split_first() {
                Some((b'-', d)) => (-1, d),
                Some((b'+', d)) => (1, d),
                _ => (1, exp_text),
            };
            let e = digits.iter().fold(0i64, |n, d| n.saturating_mul(10).saturating_add(i64::from(d - b'0')));
            exponent = exponent.saturating_add(sign * e);
        }
        let value = scale(mantissa, exponent);
        if negative {
            -value
        } else {
            value
        }
    }

    /// `value` as JSON: whole numbers (below 2^53) exactly, others rounded to 12 decimals
    /// with trailing zeros dropped; NaN and infinities have no JSON form and give `None`.
    pub fn from_f64(value: f64) -> Option<Self> {
        if !value.is_finite() {
            return None;
        }
        let magnitude = value.abs();
        let sign = if value < 0.0 { "-" } else { "" };
        if magnitude.fract() == 0.0 && magnitude < 9_007_199_254_740_992.0 {
            return Some(Self(format!("{sign}{}", magnitude as u64)));
        }
        let scale = 10u64.pow(DECIMALS);
        // NOTE: `as` saturates (above 18 million); such values are far beyond any price or cost.
        let scaled = (magnitude * scale as f64).round() as u64;
        let (whole, fraction) = (scaled / scale, scaled % scale);
        if fraction == 0 {
            return Some(Self(if whole == 0 { "0".into() } else { format!("{sign}{whole}") }));
        }
        let digits = format!("{fraction:012}");
        Some(Self(format!("{sign}{whole}.{}", crate::text::trim_end_by(&digits, |c| c == '0'))))
    }
}

impl From<u64> for Number {
    fn from(value: u64) -> Self {
        Self(value.to_string())
    }
}

/// `text` as a whole number when it is plain digits (saturating at `u64::MAX`).
pub(super) fn digits_u64(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .all(u8::is_ascii_digit)
        .then(|| bytes.iter().fold(0u64, |n, d| n.saturating_mul(10).saturating_add(u64::from(d - b'0'))))
}

/// `mantissa × 10^exponent` as f64.
fn scale(mantissa: u64, exponent: i64) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    let m = mantissa as f64;
    let power = |e: i64| EXACT_POWERS.get(usize::try_from(e).unwrap_or(usize::MAX)).copied();
    if mantissa < (1 << 53) {
        if let Some(p) = power(exponent) {
            return m * p;
        }
        if let Some(p) = power(-exponent) {
            return m / p;
        }
    }
    // NOTE: outside the exact range: steps by exact powers, one rounding each (a few
    // units in the last place at extreme exponents; subnormal results lose more).
    let mut value = m;
    let mut e = exponent.clamp(-800, 800);
    while e > 22 {
        value *= 1e22;
        e -= 22;
    }
    while e < -22 {
        value /= 1e22;
        e += 22;
    }
    let last = EXACT_POWERS.get(e.unsigned_abs() as usize).copied().unwrap_or(1.0);
    if e < 0 {
        value / last
    } else {
        value * last
    }
}

/// The length of the JSON number at the start of `bytes`, if one is there.
pub(super) fn scan(bytes: &[u8]) -> Option<usize> {
    let digits =
        |from: usize| bytes.get(from..).map_or(0, |rest| rest.iter().take_while(|b| b.is_ascii_digit()).count());
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}
