//! Reading a zone's offsets from its TZif file (RFC 8536), version 2 or later: the 64-bit
//! transitions, the local time types, and the footer's rule for the instants after the last
//! transition. Checked whole once, when a name is parsed ([`Zone::checked`]); then read in
//! place on every query (the headers, then a binary search): the data stays the bytes the
//! crate embeds.

use crate::posix::Rule;

/// One TZif file, its parts checked to fit and to hold offsets chrono can represent.
pub(crate) struct Zone<'a> {
    /// Transition instants, big-endian i64 seconds since the Unix epoch, ascending.
    times: &'a [u8],
    /// For each transition, the index of its local time type.
    type_of: &'a [u8],
    /// Local time types, six bytes each: big-endian i32 offset east of UTC, is-DST, name index.
    types: &'a [u8],
    /// The footer's rule, for instants after the last transition (none when the footer is
    /// empty: the last type goes on).
    rule: Option<Rule>,
}

const HEADER: usize = 44;
/// RFC 8536: offsets lie within (-25 h, 26 h); chrono's FixedOffset takes (-24 h, 24 h).
const MAX_OFFSET: i32 = 24 * 3600 - 1;

fn u32_at(data: &[u8], at: usize) -> Option<usize> {
    let b = data.get(at..at + 4)?;
    usize::try_from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])).ok()
}

/// The six counts of a header at `at`: isut, isstd, leap, time, type, char.
fn counts(data: &[u8], at: usize) -> Option<[usize; 6]> {
    if data.get(at..at + 4)? != b"TZif" {
        return None;
    }
    let mut c = [0; 6];
    for (i, n) in c.iter_mut().enumerate() {
        *n = u32_at(data, at + 20 + 4 * i)?;
    }
    Some(c)
}

/// The size of a data block with `time` bytes per transition time and leap second.
fn block_len([isut, isstd, leap, time, typ, chars]: [usize; 6], width: usize) -> Option<usize> {
    let parts = [
        time.checked_mul(width)?,
        time,
        typ.checked_mul(6)?,
        chars,
        leap.checked_mul(width + 4)?,
        isstd,
        isut,
    ];
    parts.iter().try_fold(0usize, |a, &p| a.checked_add(p))
}

impl<'a> Zone<'a> {
    /// The zone in `data`, or None when it is not a well-formed TZif file of version 2 or later
    /// whose offsets chrono can represent: [`Zone::parse`], and every transition and type
    /// checked. Once per name, when it is parsed.
    pub(crate) fn checked(data: &'a [u8]) -> Option<Zone<'a>> {
        let zone = Zone::parse(data)?;
        let (timecnt, typecnt) = (zone.type_of.len(), zone.types.len() / 6);
        if typecnt == 0 || zone.type_of.iter().any(|&t| usize::from(t) >= typecnt) {
            return None;
        }
        let offsets_fit = (0..typecnt).all(|t| zone.type_offset(t).abs() <= MAX_OFFSET)
            && zone.rule.as_ref().is_none_or(Rule::fits);
        let ascending = (1..timecnt).all(|i| zone.time(i - 1) < zone.time(i));
        (offsets_fit && ascending).then_some(zone)
    }

    /// The parts of `data` found from its headers, without the checks of [`Zone::checked`]:
    /// for a file that passed them, on every query (a few header reads, not a pass over every
    /// transition).
    pub(crate) fn parse(data: &'a [u8]) -> Option<Zone<'a>> {
        let v1 = counts(data, 0)?;
        if *data.get(4)? < b'2' {
            return None;
        }
        let second = HEADER.checked_add(block_len(v1, 4)?)?;
        let c = counts(data, second)?;
        let [_, _, _, timecnt, typecnt, _] = c;
        let start = second + HEADER;
        let end = start.checked_add(block_len(c, 8)?)?;
        let times = data.get(start..start + 8 * timecnt)?;
        let type_of = data.get(start + 8 * timecnt..start + 9 * timecnt)?;
        let types = data.get(start + 9 * timecnt..start + 9 * timecnt + 6 * typecnt)?;
        // The footer: a newline, the rule, a newline.
        let footer = data.get(end..)?;
        let footer = footer.strip_prefix(b"\n")?.strip_suffix(b"\n")?;
        let rule = match footer {
            [] => None,
            text => Some(Rule::parse(core::str::from_utf8(text).ok()?)?),
        };
        Some(Zone {
            times,
            type_of,
            types,
            rule,
        })
    }

    fn time(&self, i: usize) -> i64 {
        let b = &self.times[8 * i..8 * i + 8];
        i64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    fn type_offset(&self, t: usize) -> i32 {
        let b = &self.types[6 * t..6 * t + 4];
        i32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// The offset east of UTC, in seconds, in effect at `secs` since the Unix epoch.
    pub(crate) fn offset_at(&self, secs: i64) -> i32 {
        let n = self.type_of.len();
        // RFC 8536: without transitions the footer's rule holds throughout, or else type 0;
        // before the first transition, type 0.
        if n == 0 || secs < self.time(0) {
            return match (&self.rule, n) {
                (Some(rule), 0) => rule.offset_at(secs),
                _ => self.type_offset(0),
            };
        }
        // The last transition at or before `secs`.
        let (mut lo, mut hi) = (0, n);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.time(mid) <= secs {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        match &self.rule {
            Some(rule) if lo == n - 1 => rule.offset_at(secs),
            _ => self.type_offset(usize::from(self.type_of[lo])),
        }
    }
}
