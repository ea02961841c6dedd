//! Resolution: what type a scalar's text reads as (null, bool, int, float or string), by its
//! tag or, for plain scalars, by the YAML 1.2 core schema as go-yaml v3 applies it.

use serde_json::Number;

/// What a scalar reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    Null,
    Bool,
    Int,
    Float,
    Str,
}

/// Resolves a plain scalar's text (YAML 1.2 core schema).
pub fn resolve_plain(v: &str) -> Resolved {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => return Resolved::Bool,
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Resolved::Float,
        _ => {}
    }
    let b = v.as_bytes();
    let first = b[0];
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return Resolved::Str;
    }
    if is_int(v) {
        return Resolved::Int;
    }
    if is_float(v) {
        return Resolved::Float;
    }
    Resolved::Str
}

fn is_int(v: &str) -> bool {
    let t = v.strip_prefix(['-', '+']).unwrap_or(v);
    if t.is_empty() {
        return false;
    }
    if let Some(h) = t.strip_prefix("0x") {
        return !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(o) = t.strip_prefix("0o") {
        return !o.is_empty() && o.bytes().all(|c| (b'0'..=b'7').contains(&c));
    }
    t.bytes().all(|c| c.is_ascii_digit())
}

fn is_float(v: &str) -> bool {
    // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
    let t = v.strip_prefix(['-', '+']).unwrap_or(v);
    let b = t.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let exp = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

/// Resolves a scalar's text with its tag; `plain`: written without quotes or block indicators
/// (only plain scalars are resolved by their text).
pub fn resolve(value: &str, plain: bool, tag: Option<&str>) -> Resolved {
    match tag {
        Some("!!str") | Some("!!binary") | Some("tag:yaml.org,2002:str") => return Resolved::Str,
        Some("!!int") => return Resolved::Int,
        Some("!!float") => return Resolved::Float,
        Some("!!bool") => return Resolved::Bool,
        Some("!!null") => return Resolved::Null,
        Some("!") => return Resolved::Str,
        _ => {}
    }
    if !plain {
        return Resolved::Str;
    }
    resolve_plain(value)
}

/// The value of a scalar that [`resolve_plain`] read as [`Resolved::Int`]; `None` when it does not
/// fit in 64 bits.
pub fn int_value(v: &str) -> Option<Number> {
    let (neg, t) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x") {
        (16, h)
    } else if let Some(o) = t.strip_prefix("0o") {
        (8, o)
    } else {
        (10, t)
    };
    let mag = u64::from_str_radix(digits, radix).ok()?;
    if neg {
        if mag <= i64::MAX as u64 + 1 {
            Some(Number::from((mag as i128).wrapping_neg() as i64))
        } else {
            None
        }
    } else {
        Some(Number::from(mag))
    }
}
