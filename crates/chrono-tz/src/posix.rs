//! The rule in a TZif footer: a POSIX TZ string (POSIX.1-2017 section 8.3, with RFC 8536's
//! extensions: transition times from -167 to 167 hours), e.g. `EST5EDT,M3.2.0,M11.1.0`. It
//! gives the offsets after a zone's last transition, so every year from then on.

/// A zone's standard offset and, when it keeps daylight saving time, when and by how much.
pub(crate) struct Rule {
    /// Seconds east of UTC (POSIX writes them west: `EST5` is -18000 here).
    std: i32,
    dst: Option<Dst>,
}

struct Dst {
    /// Seconds east of UTC while daylight saving time is in effect.
    offset: i32,
    /// When it starts, in local standard time.
    start: Change,
    /// When it ends, in local daylight saving time.
    end: Change,
}

/// A day of the year and a time of that day (seconds, may lie outside the day).
struct Change {
    day: Day,
    time: i32,
}

enum Day {
    /// `Jn`: 1 to 365, February 29 never counted.
    Julian1(u16),
    /// `n`: 0 to 365, February 29 counted in leap years.
    Julian0(u16),
    /// `Mm.w.d`: weekday d (0 is Sunday) of week w (1 to 5, 5 is the last) of month m.
    Month { month: u8, week: u8, weekday: u8 },
}

/// A cursor over the rule's text.
struct Text<'a>(&'a [u8]);

impl Text<'_> {
    fn peek(&self) -> Option<u8> {
        self.0.first().copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let ate = self.peek() == Some(b);
        if ate {
            self.0 = &self.0[1..];
        }
        ate
    }

    /// A zone abbreviation: three or more letters, or `<...>` of letters, digits, `+` and `-`.
    fn name(&mut self) -> Option<()> {
        let quoted = self.eat(b'<');
        let len = self
            .0
            .iter()
            .take_while(|b| {
                b.is_ascii_alphabetic()
                    || (quoted && (b.is_ascii_digit() || **b == b'+' || **b == b'-'))
            })
            .count();
        self.0 = &self.0[len..];
        (len >= 3 && (!quoted || self.eat(b'>'))).then_some(())
    }

    /// Digits up to `max`.
    fn number(&mut self, max: u32) -> Option<u32> {
        let len = self.0.iter().take_while(|b| b.is_ascii_digit()).count();
        if len == 0 || len > 3 {
            return None;
        }
        let n = self.0[..len]
            .iter()
            .fold(0, |n, b| n * 10 + u32::from(b - b'0'));
        self.0 = &self.0[len..];
        (n <= max).then_some(n)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, hours up to `max_hours`.
    fn duration(&mut self, max_hours: u32) -> Option<i32> {
        let sign = if self.eat(b'-') {
            -1
        } else {
            self.eat(b'+');
            1
        };
        let mut secs = self.number(max_hours)? * 3600;
        if self.eat(b':') {
            secs += self.number(59)? * 60;
            if self.eat(b':') {
                secs += self.number(59)?;
            }
        }
        Some(sign * i32::try_from(secs).ok()?)
    }

    /// `date[/time]`; the time is 02:00 when left out.
    fn change(&mut self) -> Option<Change> {
        let day = if self.eat(b'J') {
            Day::Julian1(u16::try_from(self.number(365)?).ok().filter(|n| *n >= 1)?)
        } else if self.eat(b'M') {
            let month = u8::try_from(self.number(12)?).ok().filter(|m| *m >= 1)?;
            self.eat(b'.').then_some(())?;
            let week = u8::try_from(self.number(5)?).ok().filter(|w| *w >= 1)?;
            self.eat(b'.').then_some(())?;
            let weekday = u8::try_from(self.number(6)?).ok()?;
            Day::Month {
                month,
                week,
                weekday,
            }
        } else {
            Day::Julian0(u16::try_from(self.number(365)?).ok()?)
        };
        let time = if self.eat(b'/') {
            self.duration(167)?
        } else {
            7200
        };
        Some(Change { day, time })
    }
}

impl Rule {
    /// The rule in `s`, or None when it is not one. A daylight saving time without dates takes
    /// POSIX's usual US dates, as glibc does (zic always writes them).
    pub(crate) fn parse(s: &str) -> Option<Rule> {
        let mut t = Text(s.as_bytes());
        t.name()?;
        let std = -t.duration(24)?;
        if t.0.is_empty() {
            return Some(Rule { std, dst: None });
        }
        t.name()?;
        let offset = match t.peek() {
            Some(b) if b.is_ascii_digit() || b == b'+' || b == b'-' => -t.duration(24)?,
            _ => std + 3600,
        };
        let (start, end) = if t.eat(b',') {
            let start = t.change()?;
            t.eat(b',').then_some(())?;
            (start, t.change()?)
        } else {
            let us = |month, week| Change {
                day: Day::Month {
                    month,
                    week,
                    weekday: 0,
                },
                time: 7200,
            };
            (us(3, 2), us(11, 1))
        };
        t.0.is_empty().then_some(Rule {
            std,
            dst: Some(Dst { offset, start, end }),
        })
    }

    /// Both offsets lie within `(-24 h, 24 h)`, as chrono's FixedOffset requires.
    pub(crate) fn fits(&self) -> bool {
        let fits = |o: i32| o.abs() < 24 * 3600;
        fits(self.std) && self.dst.as_ref().is_none_or(|d| fits(d.offset))
    }

    /// The offset east of UTC, in seconds, at `secs` since the Unix epoch: the latest change
    /// at or before it, among those of the year around it (a change may fall in the year before
    /// or after, its time reaching past the year's ends).
    pub(crate) fn offset_at(&self, secs: i64) -> i32 {
        let Some(dst) = &self.dst else {
            return self.std;
        };
        let year = year_of(secs.div_euclid(86_400));
        let mut latest: Option<(i64, i32)> = None;
        for y in year - 1..=year + 1 {
            // In a year's order: a start and an end at one instant (daylight saving time all
            // year, as `EST5EDT4,0/0,J365/25`) leave the later change, a start, in effect.
            let changes = [
                (dst.start.at(y) - i64::from(self.std), dst.offset),
                (dst.end.at(y) - i64::from(dst.offset), self.std),
            ];
            for (at, offset) in changes {
                if at <= secs && latest.is_none_or(|(l, _)| at >= l) {
                    latest = Some((at, offset));
                }
            }
        }
        // Before every change found (not with the rules zic writes): standard time.
        latest.map_or(self.std, |(_, offset)| offset)
    }
}

impl Change {
    /// The local time of the change in `year`, in seconds since the epoch's local midnight.
    fn at(&self, year: i64) -> i64 {
        let leap = is_leap(year);
        let jan1 = days_from_civil(year, 1, 1);
        let day = match self.day {
            Day::Julian1(n) => {
                let n = i64::from(n) - 1;
                jan1 + n + i64::from(leap && n >= 59)
            }
            Day::Julian0(n) => jan1 + i64::from(n),
            Day::Month {
                month,
                week,
                weekday,
            } => {
                let first = days_from_civil(year, month.into(), 1);
                // 1970-01-01 was a Thursday (4).
                let first_weekday = (first + 4).rem_euclid(7);
                let mut day = first + (i64::from(weekday) - first_weekday).rem_euclid(7);
                day += 7 * (i64::from(week) - 1);
                let next_month = if month == 12 {
                    days_from_civil(year + 1, 1, 1)
                } else {
                    days_from_civil(year, i64::from(month) + 1, 1)
                };
                while day >= next_month {
                    day -= 7;
                }
                day
            }
        };
        day * 86_400 + i64::from(self.time)
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days from 1970-01-01 to the given date of the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The year of the day `days` after 1970-01-01.
fn year_of(days: i64) -> i64 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}
