//! The conversions `string`, `double`, `int`, `uint` and `bool` as Porch's cel-go (v0.26.1)
//! makes them, where the `cel` crate differs:
//! - `string(double)` is Go's `fmt.Sprintf("%g", d)` (`common/types/double.go`): the shortest
//!   digits that read back, in exponent form when the exponent is 6 or more or below -4
//!   (`1e+06`, `1e-07`, but `100000`), and `+Inf`, `-Inf`, `NaN`;
//! - a string becomes a number or a bool by Go's `strconv` (`common/types/string.go`):
//!   `ParseInt(s, 10, 64)`, `ParseUint(s, 10, 64)` (no sign), `ParseFloat(s, 64)` (`Inf`,
//!   `Infinity`, `NaN` in any case, `_` between digits, hexadecimal `0x1p-2`; out of range is
//!   an error, not an infinity) and `ParseBool` (`1 t T TRUE true True`, `0 f F FALSE false
//!   False`). Every failure is cel-go's `type conversion error from 'string' to 'T'`.
//!
//! - `int(duration)` is the duration's nanoseconds (the crate has no such overload).
//!
//! [`super::instrument`] renames each conversion call to its `@` function here; a value these
//! rules do not cover is converted by the standard library's own overload of the same name.

use std::sync::Arc;

use cel::common::types::{CelBool, CelDouble, CelDuration, CelInt, CelString, CelUInt};
use cel::common::value::CowVal;
use cel::{Context, Env, ExecutionError, FunctionContext};

use super::functions::Function;

/// The conversions replaced, and the name each call is renamed to.
pub const RENAMED: [(&str, &str); 5] = [
    ("string", "@string"),
    ("double", "@double"),
    ("int", "@int"),
    ("uint", "@uint"),
    ("bool", "@bool"),
];

/// The hidden name of conversion `name`, if it is one replaced here.
pub fn renamed(name: &str) -> Option<&'static str> {
    RENAMED.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// Registers the replaced conversions in `ctx`; `env` holds the standard library's overloads
/// for the values not converted here.
pub fn register(ctx: &mut Context<'_, '_>, env: &Arc<Env>) {
    for (name, hidden) in RENAMED {
        let registered = ctx.add_function(hidden, conversion(name, Arc::clone(env)));
        debug_assert!(registered.is_ok(), "{hidden}");
    }
}

fn not_converted(to: &str) -> ExecutionError {
    ExecutionError::function_error(to, format!("type conversion error from 'string' to '{to}'"))
}

fn conversion(name: &'static str, env: Arc<Env>) -> Function {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        if ftx.args.len() == 1 {
            let arg = &ftx.args[0];
            if let Some(s) = arg.downcast_ref::<CelString>() {
                let s = s.inner();
                let converted: Option<CowVal<'_, '_>> = match name {
                    "double" => parse_float(s).map(|d| CowVal::owned(CelDouble::from(d))),
                    "int" => s
                        .parse::<i64>()
                        .ok()
                        .map(|i| CowVal::owned(CelInt::from(i))),
                    "uint" => parse_uint(s).map(|u| CowVal::owned(CelUInt::from(u))),
                    "bool" => parse_bool(s).map(|b| CowVal::owned(CelBool::from(b))),
                    _ => None,
                };
                match converted {
                    Some(v) => return Ok(v),
                    None if name != "string" => return Err(not_converted(name)),
                    None => {}
                }
            }
            // cel-go's `int(duration)`: its nanoseconds (the crate has no such overload).
            if name == "int" {
                if let Some(d) = arg.downcast_ref::<CelDuration>() {
                    let nanos = d
                        .inner()
                        .num_nanoseconds()
                        .ok_or_else(|| ExecutionError::function_error("int", "integer overflow"))?;
                    return Ok(CowVal::owned(CelInt::from(nanos)));
                }
            }
            if name == "string" {
                if let Some(d) = arg.downcast_ref::<CelDouble>() {
                    return Ok(CowVal::owned(CelString::from(format_g(*d.inner()))));
                }
            }
        }
        let args = std::mem::take(&mut ftx.args);
        match env.find_overload(name, &args) {
            Some(op) => op(args),
            None => Err(ExecutionError::no_such_overload(
                name,
                args.iter()
                    .map(|a| a.get_type().name().to_string())
                    .collect(),
            )),
        }
    })
}

/// Go's `fmt.Sprintf("%g", d)`: the shortest digits that read back as `d`, in exponent form
/// (`d.ddde±XX`, at least two exponent digits) when the exponent is below -4 or at least 6.
pub fn format_g(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the same shortest digits: `-1.2345e-7`.
    let scientific = format!("{:e}", d.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::with_capacity(digits.len() + 8);
    if d < 0.0 {
        out.push('-');
    }
    if !(-4..6).contains(&exponent) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exponent.unsigned_abs()));
    } else if exponent < 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
        out.push_str(&digits);
    } else {
        let point = exponent as usize + 1;
        if digits.len() <= point {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
}

/// Go's `strconv.ParseBool`.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Go's `strconv.ParseUint(s, 10, 64)`: digits only (Rust's parser also takes a `+`).
pub fn parse_uint(s: &str) -> Option<u64> {
    if s.starts_with('+') {
        return None;
    }
    s.parse().ok()
}

/// Go's `strconv.ParseFloat(s, 64)`, `None` where it gives an error (a syntax error, or a
/// value beyond the largest double: Go's range error, which cel-go turns into an error).
pub fn parse_float(s: &str) -> Option<f64> {
    if let Some(special) = special_float(s) {
        return Some(special);
    }
    let number = read_float(s)?;
    let value = if number.hex {
        hex_float(&number)?
    } else {
        // Validated as Go's syntax: without underscores it is Rust's syntax too, and both
        // round to nearest.
        let plain: String = s.chars().filter(|c| *c != '_').collect();
        plain.parse::<f64>().ok()?
    };
    value.is_finite().then_some(value)
}

/// `Inf`, `Infinity` (either signed) and `NaN` (unsigned), in any case.
fn special_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    if lower == "nan" {
        return Some(f64::NAN);
    }
    let (negative, rest) = match lower.as_bytes().first() {
        Some(b'-') => (true, &lower[1..]),
        Some(b'+') => (false, &lower[1..]),
        _ => (false, lower.as_str()),
    };
    matches!(rest, "inf" | "infinity").then_some(if negative {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    })
}

/// A number's parts as Go's `readFloat` reads them.
struct Number {
    negative: bool,
    hex: bool,
    /// The mantissa's digit values, without leading zeros.
    digits: Vec<u8>,
    /// Digits after the point (from the first significant one counted in `digits`).
    fraction_digits: i64,
    exponent: i64,
}

/// Reads `s` whole as Go's float syntax, or `None`.
fn read_float(s: &str) -> Option<Number> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    match b.first() {
        Some(b'+') => i += 1,
        Some(b'-') => {
            negative = true;
            i += 1;
        }
        _ => {}
    }
    let mut hex = false;
    if i + 2 < b.len() && b[i] == b'0' && (b[i + 1] | 0x20) == b'x' {
        hex = true;
        i += 2;
    }
    let (mut saw_dot, mut saw_digits, mut underscores) = (false, false, false);
    let mut digits = Vec::new();
    let mut fraction_digits = 0i64;
    while i < b.len() {
        let c = b[i];
        let value = match c {
            b'_' => {
                underscores = true;
                i += 1;
                continue;
            }
            b'.' if !saw_dot => {
                saw_dot = true;
                i += 1;
                continue;
            }
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' | b'A'..=b'F' if hex => (c | 0x20) - b'a' + 10,
            _ => break,
        };
        saw_digits = true;
        if value != 0 || !digits.is_empty() {
            digits.push(value);
        }
        if saw_dot {
            fraction_digits += 1;
        }
        i += 1;
    }
    if !saw_digits {
        return None;
    }
    let mut exponent = 0i64;
    let exponent_char = if hex { b'p' } else { b'e' };
    if i < b.len() && (b[i] | 0x20) == exponent_char {
        i += 1;
        let mut sign = 1;
        match b.get(i) {
            Some(b'+') => i += 1,
            Some(b'-') => {
                sign = -1;
                i += 1;
            }
            _ => {}
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            if b[i] == b'_' {
                underscores = true;
            } else if exponent < 100_000 {
                exponent = exponent * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        exponent *= sign;
    } else if hex {
        return None;
    }
    if i != b.len() || (underscores && !underscores_ok(s)) {
        return None;
    }
    Some(Number {
        negative,
        hex,
        digits,
        fraction_digits,
        exponent,
    })
}

/// Go's `underscoreOK`: each `_` between two digits (a base prefix counts as a digit).
fn underscores_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        b = &b[1..];
    }
    // `^` start, `0` digit or prefix, `_` underscore, `!` anything else.
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1] | 0x20, b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = (b[1] | 0x20) == b'x';
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// A hexadecimal float rounded to the nearest double (ties to even); `None` past the largest.
fn hex_float(n: &Number) -> Option<f64> {
    // The first 16 hex digits (64 bits) and whether any later one is non-zero.
    let kept = n.digits.len().min(16);
    let mut mantissa: u64 = 0;
    for d in &n.digits[..kept] {
        mantissa = mantissa << 4 | u64::from(*d);
    }
    let sticky = n.digits[kept..].iter().any(|d| *d != 0);
    let sign = if n.negative { -1.0 } else { 1.0 };
    if mantissa == 0 {
        return Some(sign * 0.0);
    }
    // value = mantissa * 2^e2 (plus the sticky remainder).
    let dropped = (n.digits.len() - kept) as i64;
    let e2 = n.exponent + 4 * (dropped - n.fraction_digits);
    let lz = i64::from(mantissa.leading_zeros());
    let m = mantissa << lz;
    let e2 = e2 - lz;
    // The value is in [2^top, 2^(top+1)).
    let top = e2 + 63;
    if top > 1023 {
        return None;
    }
    let bits: i64 = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    if bits < 0 {
        // Below half the smallest subnormal.
        return Some(sign * 0.0);
    }
    let shift = (64 - bits) as u32;
    let wide = u128::from(m);
    let mut keep = (wide >> shift) as u64;
    let rest = wide & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rest > half || (rest == half && (sticky || keep & 1 == 1)) {
        keep += 1;
    }
    // keep * 2^(e2 + shift), exactly, in two steps to stay clear of underflow on the way.
    let scale = e2 + i64::from(shift);
    let value = keep as f64 * 2f64.powi((scale / 2) as i32) * 2f64.powi((scale - scale / 2) as i32);
    value.is_finite().then_some(sign * value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_go_percent_g() {
        for (d, text) in [
            (1e6, "1e+06"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
            (1e-7, "1e-07"),
            (0.5, "0.5"),
            (100000.0, "100000"),
            (1e21, "1e+21"),
            (123456789.0, "1.23456789e+08"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-0.0, "-0"),
            (0.0, "0"),
            (123.456, "123.456"),
            (-4.5e-3, "-0.0045"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (1e100, "1e+100"),
            (999999.0, "999999"),
            (-1234567.0, "-1.234567e+06"),
        ] {
            assert_eq!(format_g(d), text, "{d:?}");
        }
    }

    #[test]
    fn strings_read_as_go_parse_float() {
        for (s, want) in [
            ("1e308", Some(1e308)),
            ("1e309", None),
            ("-1e309", None),
            ("1e-400", Some(0.0)),
            ("1_000.5", Some(1000.5)),
            ("1__0", None),
            ("_1", None),
            ("1_", None),
            ("0x1p-2", Some(0.25)),
            ("0x1.8p1", Some(3.0)),
            ("0X_1P4", Some(16.0)),
            ("0x1", None),
            ("0x1p2000", None),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            (".", None),
            ("+1.5", Some(1.5)),
            ("1e", None),
            ("1e+", None),
            (" 1", None),
            ("1 ", None),
            ("", None),
            ("1.2.3", None),
            ("0b1", None),
            ("1E3", Some(1000.0)),
        ] {
            assert_eq!(parse_float(s), want, "{s:?}");
        }
        for s in ["Inf", "inf", "+Inf", "INFINITY", "-infinity"] {
            assert!(parse_float(s).is_some_and(f64::is_infinite), "{s}");
        }
        assert!(parse_float("NaN").is_some_and(f64::is_nan));
        assert!(parse_float("nan").is_some_and(f64::is_nan));
        for s in ["+NaN", "-nan", "infin", "Infinityx"] {
            assert_eq!(parse_float(s), None, "{s}");
        }
        // The smallest subnormal, and just past the largest double in hex.
        assert_eq!(parse_float("0x1p-1074"), Some(5e-324));
        assert_eq!(parse_float("0x1p-1076"), Some(0.0));
        assert_eq!(
            parse_float("0x1.fffffffffffffp1023"),
            Some(f64::MAX),
            "the largest double"
        );
        assert_eq!(
            parse_float("0x1.fffffffffffff8p1023"),
            None,
            "rounds past it"
        );
    }

    #[test]
    fn bools_and_unsigned_as_go() {
        for s in ["1", "t", "T", "TRUE", "true", "True"] {
            assert_eq!(parse_bool(s), Some(true), "{s}");
        }
        for s in ["0", "f", "F", "FALSE", "false", "False"] {
            assert_eq!(parse_bool(s), Some(false), "{s}");
        }
        for s in ["yes", "tRUE", "", " true", "2"] {
            assert_eq!(parse_bool(s), None, "{s}");
        }
        assert_eq!(parse_uint("+1"), None);
        assert_eq!(parse_uint("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_uint("18446744073709551616"), None);
    }
}
