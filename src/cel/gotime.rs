//! `timestamp(...)` and `duration(...)` as Porch's cel-go converts: Go's `time.Parse` with the
//! RFC 3339 layout and `time.ParseDuration`, then cel-go's range of timestamps. The `cel`
//! crate's parsers (chrono's RFC 3339, its own durations) read other texts: they accept
//! `2024-01-01 00:00:00Z`, `23:59:60` and `1sfoo` (read as `1s`), which cel-go refuses, and
//! refuse `T9:00:00` and `00,5`, which Go reads. A text must mean here what it means in Porch.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate};

use cel::common::types::{CelDuration, CelInt, CelString, CelTimestamp};
use cel::common::value::CowVal;
use cel::{ExecutionError, FunctionContext};

use super::functions::{rfc3339_nano, Function};

/// What cel-go says when a string is not a timestamp (`String.ConvertToType`).
pub const NOT_A_TIMESTAMP: &str =
    "type conversion error from 'string' to 'google.protobuf.Timestamp'";
/// What cel-go says when a string is not a duration.
pub const NOT_A_DURATION: &str =
    "type conversion error from 'string' to 'google.protobuf.Duration'";
/// cel-go's error for a timestamp outside its range.
pub const TIMESTAMP_OVERFLOW: &str = "timestamp overflow";

/// cel-go's range of timestamps, in seconds since the epoch: years 0001 to 9999 (UTC).
const MIN_UNIX_SECONDS: i64 = -62_135_596_800;
const MAX_UNIX_SECONDS: i64 = 253_402_300_799;

/// `text` as Go's `time.Parse(time.RFC3339, text)` reads it, in cel-go's range.
pub fn parse_timestamp(text: &str) -> Result<DateTime<FixedOffset>, String> {
    let mut c = Cursor {
        s: text.as_bytes(),
        at: 0,
    };
    let fields = (|| {
        let year = c.number(4)?;
        c.expect(b'-')?;
        let month = c.number(2)?;
        c.expect(b'-')?;
        let day = c.number(2)?;
        c.expect(b'T')?;
        // Go reads the hour of this layout (`15`) with one or two digits.
        let hour = if c.digit_at(1) {
            c.number(2)?
        } else {
            c.number(1)?
        };
        c.expect(b':')?;
        let minute = c.number(2)?;
        c.expect(b':')?;
        let second = c.number(2)?;
        // A fraction the layout does not have is read anyway, `.` or `,`, cut to nanoseconds.
        let mut nanos = 0;
        if matches!(c.peek(), Some(b'.' | b',')) && c.digit_at(1) {
            c.at += 1;
            let mut scale = 100_000_000;
            while c.digit_at(0) {
                nanos += u32::from(c.s[c.at] - b'0') * scale;
                scale /= 10;
                c.at += 1;
            }
        }
        let offset = if c.peek() == Some(b'Z') {
            c.at += 1;
            0
        } else {
            let sign = match c.peek() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            c.at += 1;
            let h = c.number(2)?;
            c.expect(b':')?;
            let m = c.number(2)?;
            // Go's bounds for an offset (it accepts `+24:00`).
            if h > 24 || m > 60 {
                return None;
            }
            sign * i32::try_from(h * 3600 + m * 60).ok()?
        };
        (c.at == c.s.len()).then_some((year, month, day, hour, minute, second, nanos, offset))
    })();
    let (year, month, day, hour, minute, second, nanos, offset) = fields.ok_or(NOT_A_TIMESTAMP)?;
    if !(1..=12).contains(&month) || hour > 23 || minute > 59 || second > 59 {
        return Err(NOT_A_TIMESTAMP.into());
    }
    let local = NaiveDate::from_ymd_opt(
        i32::try_from(year).map_err(|_| NOT_A_TIMESTAMP)?,
        month,
        day,
    )
    .and_then(|d| d.and_hms_nano_opt(hour, minute, second, nanos))
    .ok_or(NOT_A_TIMESTAMP)?;
    let seconds = local.and_utc().timestamp() - i64::from(offset);
    if !(MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&seconds) {
        return Err(TIMESTAMP_OVERFLOW.into());
    }
    // Go keeps an offset of a whole day (`+24:00`); chrono cannot.
    let zone = FixedOffset::east_opt(offset).ok_or_else(|| {
        format!("the time zone offset of {text:?} is a whole day, which is not supported here: write the time in UTC")
    })?;
    local
        .and_local_timezone(zone)
        .single()
        .ok_or_else(|| NOT_A_TIMESTAMP.into())
}

/// `text` as Go's `time.ParseDuration(text)` reads it: `[-+]?([0-9]*(\.[0-9]*)?unit)+` or `0`,
/// units `ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`, within ±2^63 nanoseconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    const LIMIT: u64 = 1 << 63;
    let bad = || NOT_A_DURATION.to_string();
    let mut s = text.as_bytes();
    let negative = s.first() == Some(&b'-');
    if matches!(s.first(), Some(b'-' | b'+')) {
        s = &s[1..];
    }
    if s == b"0" {
        return Ok(Duration::zero());
    }
    if s.is_empty() {
        return Err(bad());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(bad());
        }
        // The whole part: an overflow is an error.
        let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut whole: u64 = 0;
        for &d in &s[..digits] {
            if whole > LIMIT / 10 {
                return Err(bad());
            }
            whole = whole * 10 + u64::from(d - b'0');
            if whole > LIMIT {
                return Err(bad());
            }
        }
        s = &s[digits..];
        // The fraction: digits past what 63 bits hold only stop adding precision.
        let (mut fraction, mut scale, mut fraction_digits) = (0u64, 1f64, 0);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let mut full = false;
            while let Some(&d) = s.first().filter(|d| d.is_ascii_digit()) {
                s = &s[1..];
                fraction_digits += 1;
                if full || fraction > (LIMIT - 1) / 10 {
                    full = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(d - b'0');
                if next > LIMIT {
                    full = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
        }
        if digits == 0 && fraction_digits == 0 {
            return Err(bad());
        }
        let unit_len = s
            .iter()
            .take_while(|b| !(**b == b'.' || b.is_ascii_digit()))
            .count();
        let unit: u64 = match &s[..unit_len] {
            b"ns" => 1,
            b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000, // us, µs (micro sign), μs (mu)
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return Err(bad()),
        };
        s = &s[unit_len..];
        if whole > LIMIT / unit {
            return Err(bad());
        }
        let mut value = whole * unit;
        if fraction > 0 {
            // Go adds the fraction through a float64, truncated.
            value += (fraction as f64 * (unit as f64 / scale)) as u64;
            if value > LIMIT {
                return Err(bad());
            }
        }
        total += value;
        if total > LIMIT {
            return Err(bad());
        }
    }
    let nanos = if negative {
        0i64.checked_sub_unsigned(total).ok_or_else(bad)?
    } else {
        i64::try_from(total).map_err(|_| bad())?
    };
    Ok(Duration::nanoseconds(nanos))
}

struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn digit_at(&self, ahead: usize) -> bool {
        self.s.get(self.at + ahead).is_some_and(u8::is_ascii_digit)
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        (self.peek() == Some(b)).then(|| self.at += 1)
    }

    /// Exactly `n` digits.
    fn number(&mut self, n: usize) -> Option<u32> {
        let digits = self.s.get(self.at..self.at + n)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.at += n;
        Some(
            digits
                .iter()
                .fold(0, |acc, d| acc * 10 + u32::from(d - b'0')),
        )
    }
}

/// `@timestamp(x)`, the `timestamp` conversion: a string as Go parses it, an int as seconds
/// since the epoch (in cel-go's range), a timestamp unchanged.
pub fn timestamp_function() -> Function {
    Box::new(|ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        let fail = |m: String| ExecutionError::function_error("timestamp", m);
        if let Some(s) = value.downcast_ref::<CelString>() {
            let t = parse_timestamp(s.inner()).map_err(fail)?;
            return Ok(CowVal::owned(CelTimestamp::from(t)));
        }
        if let Some(i) = value.downcast_ref::<CelInt>() {
            let seconds = *i.inner();
            let t = (MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS)
                .contains(&seconds)
                .then(|| DateTime::from_timestamp(seconds, 0))
                .flatten()
                .ok_or_else(|| fail(TIMESTAMP_OVERFLOW.into()))?;
            return Ok(CowVal::owned(CelTimestamp::from(t.fixed_offset())));
        }
        if value.downcast_ref::<CelTimestamp>().is_some() {
            return Ok(value);
        }
        Err(ExecutionError::no_such_overload(
            "timestamp",
            vec![value.get_type().name().to_string()],
        ))
    })
}

/// `@duration(x)`, the `duration` conversion: a string as Go parses it, a duration unchanged.
/// cel-go declares `duration(int)` but its ints do not convert to durations.
pub fn duration_function() -> Function {
    Box::new(|ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        if let Some(s) = value.downcast_ref::<CelString>() {
            let d = parse_duration(s.inner())
                .map_err(|m| ExecutionError::function_error("duration", m))?;
            return Ok(CowVal::owned(CelDuration::from(d)));
        }
        if value.downcast_ref::<CelInt>().is_some() {
            return Err(ExecutionError::function_error(
                "duration",
                "type conversion error from 'int' to 'google.protobuf.Duration'",
            ));
        }
        if value.downcast_ref::<CelDuration>().is_some() {
            return Ok(value);
        }
        Err(ExecutionError::no_such_overload(
            "duration",
            vec![value.get_type().name().to_string()],
        ))
    })
}

/// `string(duration)` as cel-go writes it: Go's float64 of the seconds, shortest form, `s`.
pub fn duration_text(d: &Duration) -> String {
    let nanos = d.num_nanoseconds().unwrap_or(0);
    let seconds = (nanos / 1_000_000_000) as f64 + (nanos % 1_000_000_000) as f64 / 1e9;
    format!("{seconds}s")
}

/// `@time_text(x)`: a timestamp as RFC 3339 in its own offset, a duration as
/// [`duration_text`], anything else unchanged (for the `string` conversion around it).
pub fn time_text_function() -> Function {
    Box::new(|ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        if let Some(t) = value.downcast_ref::<CelTimestamp>() {
            return Ok(CowVal::owned(CelString::from(rfc3339_nano(t.inner()))));
        }
        if let Some(d) = value.downcast_ref::<CelDuration>() {
            return Ok(CowVal::owned(CelString::from(duration_text(d.inner()))));
        }
        Ok(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nanos(text: &str) -> Result<i64, String> {
        parse_duration(text).map(|d| d.num_nanoseconds().unwrap_or(i64::MIN))
    }

    #[test]
    fn durations_as_go_reads_them() {
        for (text, want) in [
            ("0", 0),
            ("-0", 0),
            ("+5s", 5_000_000_000),
            ("1h30m", 5_400_000_000_000),
            ("1.5h", 5_400_000_000_000),
            (".5s", 500_000_000),
            ("5.s", 5_000_000_000),
            ("1us", 1_000),
            ("1µs", 1_000),
            ("1μs", 1_000),
            ("-1m1.5s", -61_500_000_000),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("2562047h", 2_562_047 * 3_600_000_000_000),
            ("1.0000000001s", 1_000_000_000),
        ] {
            assert_eq!(nanos(text), Ok(want), "{text}");
        }
        for text in [
            "",
            "1",
            "1sfoo",
            "1 s",
            " 1s",
            "1S",
            "1d",
            ".s",
            "-",
            "9223372036854775808ns",
            "2562048h",
            "1s-1s",
            "0s0",
            "+",
            "1..5s",
        ] {
            assert_eq!(nanos(text), Err(NOT_A_DURATION.into()), "{text:?}");
        }
    }

    #[test]
    fn timestamps_as_go_reads_them() {
        for (text, want) in [
            ("2024-03-05T10:20:30Z", "2024-03-05T10:20:30+00:00"),
            ("2024-03-05T9:20:30Z", "2024-03-05T09:20:30+00:00"),
            ("2024-03-05T10:20:30,5Z", "2024-03-05T10:20:30.500+00:00"),
            (
                "2024-03-05T10:20:30.1234567891Z",
                "2024-03-05T10:20:30.123456789+00:00",
            ),
            ("2024-03-05T10:20:30-05:30", "2024-03-05T10:20:30-05:30"),
            ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00+00:00"),
            ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:00"),
        ] {
            let got = parse_timestamp(text).map(|t| t.to_rfc3339());
            assert_eq!(got.as_deref(), Ok(want), "{text}");
        }
        for text in [
            "2024-03-05 10:20:30Z",
            "2024-03-05t10:20:30z",
            "2024-03-05T10:20:30",
            "2024-03-05T24:00:00Z",
            "2024-03-05T10:20:60Z",
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z",
            "2024-03-00T00:00:00Z",
            "2024-03-05T10:20:30.Z",
            "2024-03-05T10:20:30+0100",
            "2024-03-05T10:20:30Zjunk",
            "10000-01-01T00:00:00Z",
            "2024-3-05T10:20:30Z",
            "",
        ] {
            assert_eq!(
                parse_timestamp(text),
                Err(NOT_A_TIMESTAMP.into()),
                "{text:?}"
            );
        }
        for text in ["0000-01-01T00:00:00Z", "0001-01-01T00:00:00+00:01"] {
            assert_eq!(
                parse_timestamp(text),
                Err(TIMESTAMP_OVERFLOW.into()),
                "{text}"
            );
        }
    }
}
