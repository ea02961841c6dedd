//! Resolution: what a scalar reads as (null, bool, int, float, timestamp or string) and, for
//! numbers, its value, exactly as go-yaml v3 (kpt, kyaml) reads it.
//!
//! Why go-yaml's rules and not the YAML 1.2 core schema alone: the value the function reads
//! (context data, injected fields, PackageVariant fields) must be the value kpt reads from the
//! same text, and go-yaml keeps some YAML 1.1 forms: `0777` is octal (511), `_` separates digits
//! (`1_000`), `0b101` is binary, an integer too large for 64 bits is a float, `2024-01-01` is a
//! timestamp. Its quirks are kept too (`0b-1` is -1, `08` is the float 8).

/// What a scalar reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    Null,
    Bool,
    Int,
    Float,
    /// `2024-01-01`, `2024-01-01T10:00:00Z`: go-yaml's `!!timestamp`. Read as its text.
    Timestamp,
    Str,
    /// A core tag the text does not fit (`!!int abc`): go-yaml refuses the document.
    Invalid,
}

/// The value of a number, as go-yaml holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    /// Above `i64::MAX`, up to `u64::MAX`.
    Uint(u64),
    Float(f64),
}

/// Resolves a plain, untagged scalar's text (go-yaml v3's `resolve("", text)`).
pub fn resolve_plain(v: &str) -> Resolved {
    classify(v, true).0
}

/// Resolves a scalar's text with its tag; `plain`: written without quotes or block indicators
/// (only plain scalars are resolved by their text when untagged).
pub fn resolve(value: &str, plain: bool, tag: Option<&str>) -> Resolved {
    let Some(tag) = tag.map(short_tag) else {
        return if plain {
            resolve_plain(value)
        } else {
            Resolved::Str
        };
    };
    let want = match tag {
        // go-yaml treats the non-specific tag on a plain scalar as no tag at all.
        "!" if plain => return resolve_plain(value),
        "!!null" => Resolved::Null,
        "!!bool" => Resolved::Bool,
        "!!int" => Resolved::Int,
        "!!float" => Resolved::Float,
        "!!timestamp" => Resolved::Timestamp,
        // `!!str`, `!!binary`, `!`, and tags go-yaml does not resolve: the text.
        _ => return Resolved::Str,
    };
    let got = classify(value, want == Resolved::Timestamp).0;
    match (want, got) {
        (w, g) if w == g => w,
        // An integer tagged `!!float` is that float.
        (Resolved::Float, Resolved::Int) => Resolved::Float,
        _ => Resolved::Invalid,
    }
}

/// The number a scalar of type `Int` or `Float` holds (`None` for other text).
pub fn number(v: &str) -> Option<Number> {
    classify(v, false).1
}

/// `!!x` for `tag:yaml.org,2002:x` (written as is or as `!<...>`).
fn short_tag(tag: &str) -> &str {
    let t = tag
        .strip_prefix("!<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(tag);
    match t.strip_prefix("tag:yaml.org,2002:") {
        Some("null") => "!!null",
        Some("bool") => "!!bool",
        Some("int") => "!!int",
        Some("float") => "!!float",
        Some("timestamp") => "!!timestamp",
        Some("str") => "!!str",
        Some(_) => "!!other",
        None => t,
    }
}

/// go-yaml v3's `resolve`: the type of `v` and, for numbers, the value. `timestamps`: try the
/// text as a timestamp (go-yaml does for untagged plain scalars and `!!timestamp`).
fn classify(v: &str, timestamps: bool) -> (Resolved, Option<Number>) {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return (Resolved::Null, None),
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => return (Resolved::Bool, None),
        ".nan" | ".NaN" | ".NAN" => return (Resolved::Float, Some(Number::Float(f64::NAN))),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return (Resolved::Float, Some(Number::Float(f64::INFINITY)))
        }
        "-.inf" | "-.Inf" | "-.INF" => {
            return (Resolved::Float, Some(Number::Float(f64::NEG_INFINITY)))
        }
        _ => {}
    }
    let float = |f: f64| (Resolved::Float, Some(Number::Float(f)));
    match v.as_bytes()[0] {
        b'.' => match go_float(v, true) {
            Some(f) => float(f),
            None => (Resolved::Str, None),
        },
        b'0'..=b'9' | b'+' | b'-' => {
            if timestamps && is_timestamp(v) {
                return (Resolved::Timestamp, None);
            }
            let plain: std::borrow::Cow<str> = if v.contains('_') {
                v.replace('_', "").into()
            } else {
                v.into()
            };
            if let Some(n) = go_int(&plain) {
                return (Resolved::Int, Some(n));
            }
            if is_yaml_float(&plain) {
                if let Some(f) = go_float(&plain, false) {
                    return float(f);
                }
            }
            // go-yaml's own `0b` and `0o` prefixes, which also take a sign after them.
            for (prefix, radix) in [("0b", 2), ("0o", 8)] {
                if let Some(rest) = plain.strip_prefix(prefix) {
                    if let Some(n) = signed_digits(rest, radix) {
                        return (Resolved::Int, Some(n));
                    }
                } else if let Some(rest) =
                    plain.strip_prefix('-').and_then(|p| p.strip_prefix(prefix))
                {
                    if let Some(n) = digits(rest, radix).and_then(negate) {
                        return (Resolved::Int, Some(n));
                    }
                }
            }
            (Resolved::Str, None)
        }
        _ => (Resolved::Str, None),
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint(s, 0, 64)`: an optional sign (ParseInt
/// only), then `0x`, `0o`, `0b` or a leading `0` (octal) or decimal digits.
fn go_int(s: &str) -> Option<Number> {
    let (neg, signed, t) = match s.as_bytes().first() {
        Some(b'-') => (true, true, &s[1..]),
        Some(b'+') => (false, true, &s[1..]),
        _ => (false, false, s),
    };
    let magnitude = go_uint(t)?;
    if neg {
        return negate(magnitude);
    }
    match i64::try_from(magnitude) {
        Ok(i) => Some(Number::Int(i)),
        // ParseUint takes no sign: `+18446744073709551615` is not an integer.
        Err(_) if !signed => Some(Number::Uint(magnitude)),
        Err(_) => None,
    }
}

/// Go's `ParseUint(t, 0, 64)` (no sign).
fn go_uint(t: &str) -> Option<u64> {
    let b = t.as_bytes();
    if b.is_empty() {
        return None;
    }
    let (radix, d) = if b[0] == b'0' && b.len() >= 3 {
        match b[1].to_ascii_lowercase() {
            b'b' => (2, &t[2..]),
            b'o' => (8, &t[2..]),
            b'x' => (16, &t[2..]),
            _ => (8, &t[1..]),
        }
    } else if b[0] == b'0' {
        (8, &t[1..])
    } else {
        (10, t)
    };
    if d.is_empty() {
        // "0" and "00": zero; a lone prefix never gets here (len >= 3).
        return Some(0);
    }
    digits(d, radix)
}

/// Unsigned digits in `radix`, all of them, fitting in 64 bits.
fn digits(d: &str, radix: u32) -> Option<u64> {
    if d.is_empty() || !d.bytes().all(|c| (c as char).is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(d, radix).ok()
}

/// Go's `ParseInt(d, radix, 64)`: an optional sign, then digits.
fn signed_digits(d: &str, radix: u32) -> Option<Number> {
    match d.as_bytes().first() {
        Some(b'-') => negate(digits(&d[1..], radix)?),
        Some(b'+') => digits(&d[1..], radix).and_then(|m| i64::try_from(m).ok().map(Number::Int)),
        _ => digits(d, radix).and_then(|m| i64::try_from(m).ok().map(Number::Int)),
    }
}

fn negate(magnitude: u64) -> Option<Number> {
    if magnitude <= i64::MAX as u64 + 1 {
        Some(Number::Int((magnitude as i128).wrapping_neg() as i64))
    } else {
        None
    }
}

/// go-yaml's float pattern `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(v: &str) -> bool {
    let t = v.strip_prefix(['-', '+']).unwrap_or(v).as_bytes();
    let int_digits = t.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = int_digits;
    let mut frac_digits = 0;
    if t.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = t[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let exp = t[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == t.len()
}

/// Go's `strconv.ParseFloat(v, 64)` for decimal text: `None` on a syntax error or when the
/// value overflows to infinity. `underscores`: allow `_` between digits, as Go's literal syntax
/// does (the text reaches ParseFloat with its underscores only when it starts with `.`).
fn go_float(v: &str, underscores: bool) -> Option<f64> {
    let b = v.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let (mut digits, mut dot, mut has_underscore) = (false, false, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'_' => has_underscore = true,
            b'.' if !dot => dot = true,
            b'0'..=b'9' => digits = true,
            _ => break,
        }
        i += 1;
    }
    if !digits {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while let Some(&c) = b.get(i) {
            match c {
                b'_' => has_underscore = true,
                b'0'..=b'9' => {}
                _ => break,
            }
            i += 1;
        }
    }
    if i != b.len() || (has_underscore && !(underscores && underscores_between_digits(v))) {
        return None;
    }
    let f: f64 = v.replace('_', "").parse().ok()?;
    f.is_finite().then_some(f)
}

/// Go's `underscoreOK` for text without a base prefix: every `_` sits between two digits.
fn underscores_between_digits(v: &str) -> bool {
    let mut last = b'^';
    for &c in v.strip_prefix(['-', '+']).unwrap_or(v).as_bytes() {
        match c {
            b'0'..=b'9' => last = b'0',
            b'_' if last == b'0' => last = b'_',
            b'_' => return false,
            _ if last == b'_' => return false,
            _ => last = b'!',
        }
    }
    last != b'_'
}

/// go-yaml's `parseTimestamp`: the text parses with Go's `time.Parse` in one of the layouts
/// `2006-1-2T15:4:5.999999999Z07:00` (or `t`), `2006-1-2 15:4:5.999999999` or `2006-1-2`,
/// fields in range (the day for its month and year).
fn is_timestamp(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: u32 = v[..4].parse().unwrap_or(0);
    let mut t = Fields { b, i: 5 };
    let (Some(month), true, Some(day)) = (t.num(), t.eat(b'-'), t.num()) else {
        return false;
    };
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return false,
    };
    if day == 0 || day > days {
        return false;
    }
    if t.done() {
        return true;
    }
    // `T`/`t` and a zone, or spaces and no zone.
    let zoned = match b[t.i] {
        b'T' | b't' => {
            t.i += 1;
            true
        }
        b' ' => {
            while t.b.get(t.i) == Some(&b' ') {
                t.i += 1;
            }
            false
        }
        _ => return false,
    };
    let (Some(h), true, Some(m), true, Some(s)) =
        (t.num(), t.eat(b':'), t.num(), t.eat(b':'), t.num())
    else {
        return false;
    };
    if h > 23 || m > 59 || s > 59 {
        return false;
    }
    // Fractional seconds: `.` or `,` then any number of digits.
    if matches!(t.b.get(t.i), Some(b'.' | b',')) && t.b.get(t.i + 1).is_some_and(u8::is_ascii_digit)
    {
        t.i += 1;
        while t.b.get(t.i).is_some_and(u8::is_ascii_digit) {
            t.i += 1;
        }
    }
    if !zoned {
        return t.done();
    }
    match &b[t.i..] {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            let two = |a: u8, b: u8| {
                (a.is_ascii_digit() && b.is_ascii_digit()).then(|| (a - b'0') * 10 + (b - b'0'))
            };
            matches!((two(*h1, *h2), two(*m1, *m2)), (Some(h), Some(m)) if h <= 24 && m <= 60)
        }
        _ => false,
    }
}

/// A cursor over the fields of a timestamp.
struct Fields<'b> {
    b: &'b [u8],
    i: usize,
}

impl Fields<'_> {
    /// Go's `getnum(s, false)`: one digit, or two when the second is a digit too.
    fn num(&mut self) -> Option<u32> {
        let d = |i: usize| {
            self.b
                .get(i)
                .filter(|c| c.is_ascii_digit())
                .map(|c| u32::from(c - b'0'))
        };
        let first = d(self.i)?;
        match d(self.i + 1) {
            Some(second) => {
                self.i += 2;
                Some(first * 10 + second)
            }
            None => {
                self.i += 1;
                Some(first)
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        let ok = self.b.get(self.i) == Some(&c);
        self.i += usize::from(ok);
        ok
    }

    fn done(&self) -> bool {
        self.i == self.b.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: &str) -> Option<i64> {
        match (resolve_plain(v), number(v)) {
            (Resolved::Int, Some(Number::Int(i))) => Some(i),
            _ => None,
        }
    }

    fn float(v: &str) -> Option<f64> {
        match (resolve_plain(v), number(v)) {
            (Resolved::Float, Some(Number::Float(f))) => Some(f),
            _ => None,
        }
    }

    #[test]
    fn integers_as_go_yaml_reads_them() {
        for (text, want) in [
            ("0", 0),
            ("-0", 0),
            ("00", 0),
            ("0777", 511),
            ("0o17", 15),
            ("0O17", 15),
            ("0x1F", 31),
            ("0X1f", 31),
            ("+0x1F", 31),
            ("-0x1F", -31),
            ("0b101", 5),
            ("0B101", 5),
            ("-0b101", -5),
            ("0b-1", -1),
            ("0b+1", 1),
            ("0o-7", -7),
            ("1_000", 1000),
            ("1__0", 10),
            ("0x_F_f", 255),
            ("-_1", -1),
            ("1_", 1),
            ("+1", 1),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
        ] {
            assert_eq!(int(text), Some(want), "{text}");
        }
        assert_eq!(number("18446744073709551615"), Some(Number::Uint(u64::MAX)));
        assert_eq!(number("9223372036854775808"), Some(Number::Uint(1 << 63)));
    }

    #[test]
    fn floats_as_go_yaml_reads_them() {
        for (text, want) in [
            ("08", 8.0),
            ("09.5", 9.5),
            ("1.", 1.0),
            (".5", 0.5),
            ("+.5", 0.5),
            ("-.5", -0.5),
            (".5_0", 0.5),
            ("1_0.5", 10.5),
            ("1e3", 1000.0),
            ("12e03", 12000.0),
            ("1e-400", 0.0),
            ("99999999999999999999", 1e20),
            ("-9223372036854775809", -9223372036854775809.0),
            ("+18446744073709551615", 18446744073709551615.0),
        ] {
            assert_eq!(float(text), Some(want), "{text}");
        }
        assert!(float(".nan").is_some_and(f64::is_nan));
        assert_eq!(float("-.Inf"), Some(f64::NEG_INFINITY));
    }

    #[test]
    fn strings_that_look_like_numbers() {
        for text in [
            "1e400",
            ".5e400",
            ".",
            "._5",
            ".5_",
            ".5__0",
            "0x",
            "0b",
            "0o",
            "0b2",
            "0B-1",
            "0O-7",
            "-0b-1",
            "0xFFFFFFFFFFFFFFFFF",
            "1.2.3",
            "1e",
            "+",
            "-",
            "_1",
            "1-2",
            "yes",
            "no",
            "on",
            "0x1.8p1",
            "Infinity",
            "-inf",
            "0x-1",
            "1 000",
            "12:30",
        ] {
            assert_eq!(resolve_plain(text), Resolved::Str, "{text}");
        }
    }

    #[test]
    fn timestamps_as_go_yaml_reads_them() {
        for text in [
            "2024-01-01",
            "2024-1-2",
            "2024-02-29",
            "2000-02-29",
            "2024-1-2 3:04:05",
            "2024-01-01  10:00:00",
            "2024-01-01 10:00:00.5",
            "2024-01-01T10:00:00Z",
            "2024-01-01t10:00:00.123456789123+01:00",
            "2024-01-01T10:00:00,5-24:60",
        ] {
            assert_eq!(resolve_plain(text), Resolved::Timestamp, "{text}");
        }
        for text in [
            "2024-13-01",
            "2024-02-30",
            "2023-02-29",
            "1900-02-29",
            "2024-00-01",
            "2024-01-00",
            "2024-01-01T10:00:00",
            "2024-01-01T24:00:00Z",
            "2024-01-01T10:60:00Z",
            "2024-01-01T10:00:00+25:00",
            "2024-01-01T10:00:00+1:00",
            "2024-01-01 10:00:00 +01:00",
            "2024-01-01 10:00:00Z",
            "2024-001-01",
            "20240-01-01",
            "2024-01-01T",
            "2024-01-01x",
        ] {
            assert_ne!(resolve_plain(text), Resolved::Timestamp, "{text}");
        }
    }

    #[test]
    fn tags() {
        assert_eq!(resolve("0777", false, Some("!!int")), Resolved::Int);
        assert_eq!(resolve("1", false, Some("!!float")), Resolved::Float);
        assert_eq!(resolve("abc", true, Some("!!int")), Resolved::Invalid);
        assert_eq!(resolve("yes", true, Some("!!bool")), Resolved::Invalid);
        assert_eq!(resolve("1.5", true, Some("!!int")), Resolved::Invalid);
        assert_eq!(resolve("123", true, Some("!!str")), Resolved::Str);
        assert_eq!(resolve("123", true, Some("!custom")), Resolved::Str);
        assert_eq!(resolve("123", true, Some("!")), Resolved::Int);
        assert_eq!(resolve("123", false, None), Resolved::Str);
        assert_eq!(
            resolve("123", true, Some("!<tag:yaml.org,2002:str>")),
            Resolved::Str
        );
        assert_eq!(
            resolve("2024-01-01", false, Some("!!timestamp")),
            Resolved::Timestamp
        );
        assert_eq!(resolve("x", false, Some("!!null")), Resolved::Invalid);
    }
}
