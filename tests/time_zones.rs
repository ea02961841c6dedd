//! CEL's named time zones through the binary: the offsets of the IANA database (2025b) that
//! `crates/chrono-tz` reads for the `cel` crate, at daylight-saving edges of both hemispheres,
//! half- and quarter-hour zones, local mean time, backward links and the far future (the
//! zone's rule after its last transition), and the names it accepts and refuses.

mod common;

use chrono::{DateTime, FixedOffset};
use common::{pvs_config, repository, resource_list, results_section, run, UPSTREAM_PR};

/// (zone, instant, offset in effect there): our own data, checked against chrono-tz 0.10.4
/// up to 2099 (its tables stop there) and against the system's tz database 2025b (Python's
/// zoneinfo) after.
const CASES: &[(&str, &str, &str)] = &[
    // Daylight saving time in the north: the instants either side of each change.
    ("America/New_York", "2024-03-10T06:59:59Z", "-05:00"),
    ("America/New_York", "2024-03-10T07:00:00Z", "-04:00"),
    ("America/New_York", "2024-11-03T05:59:59Z", "-04:00"),
    ("America/New_York", "2024-11-03T06:00:00Z", "-05:00"),
    ("Europe/London", "2024-03-31T00:59:59Z", "+00:00"),
    ("Europe/London", "2024-03-31T01:00:00Z", "+01:00"),
    ("Europe/Dublin", "2024-01-15T12:00:00Z", "+00:00"),
    ("Europe/Dublin", "2024-07-15T12:00:00Z", "+01:00"),
    // And in the south.
    ("Australia/Sydney", "2024-04-06T15:59:59Z", "+11:00"),
    ("Australia/Sydney", "2024-04-06T16:00:00Z", "+10:00"),
    ("Australia/Sydney", "2024-10-05T15:59:59Z", "+10:00"),
    ("Australia/Sydney", "2024-10-05T16:00:00Z", "+11:00"),
    ("Australia/Lord_Howe", "2024-01-15T00:00:00Z", "+11:00"),
    ("Australia/Lord_Howe", "2024-07-15T00:00:00Z", "+10:30"),
    ("America/Sao_Paulo", "2018-01-15T12:00:00Z", "-02:00"),
    ("America/Sao_Paulo", "2024-01-15T12:00:00Z", "-03:00"),
    ("Antarctica/Troll", "2024-01-15T12:00:00Z", "+00:00"),
    ("Antarctica/Troll", "2024-07-15T12:00:00Z", "+02:00"),
    // History: local mean time, a zone moved, the year Britain kept summer time.
    ("America/New_York", "1880-06-01T12:00:00Z", "-04:56:02"),
    ("Europe/London", "1971-01-01T00:00:00Z", "+01:00"),
    ("Europe/Moscow", "2013-01-15T12:00:00Z", "+04:00"),
    ("Asia/Kathmandu", "1980-01-01T00:00:00Z", "+05:30"),
    ("Pacific/Apia", "2011-12-31T12:00:00Z", "+14:00"),
    ("Africa/Casablanca", "2024-03-20T12:00:00Z", "+00:00"),
    ("Africa/Casablanca", "2024-05-20T12:00:00Z", "+01:00"),
    ("Africa/Casablanca", "2087-06-01T12:00:00Z", "+01:00"),
    // Offsets off the hour, and the day line.
    ("Asia/Kathmandu", "2009-02-13T23:31:30Z", "+05:45"),
    ("Asia/Kolkata", "2024-03-05T10:20:30Z", "+05:30"),
    ("Asia/Tokyo", "2024-03-05T10:20:30Z", "+09:00"),
    ("America/St_Johns", "2024-07-01T12:00:00Z", "-02:30"),
    ("Pacific/Chatham", "2024-01-15T00:00:00Z", "+13:45"),
    ("Pacific/Kiritimati", "2024-01-01T00:00:00Z", "+14:00"),
    // Backward links and the fixed zones.
    ("US/Eastern", "2024-07-04T16:00:00Z", "-04:00"),
    ("EST5EDT", "2024-07-04T16:00:00Z", "-04:00"),
    ("EST", "2024-07-04T16:00:00Z", "-05:00"),
    ("Etc/GMT+5", "2024-01-15T12:00:00Z", "-05:00"),
    ("Etc/GMT-14", "2024-01-15T12:00:00Z", "+14:00"),
    ("UTC", "2024-01-15T12:00:00Z", "+00:00"),
    ("Zulu", "1900-01-01T00:00:00Z", "+00:00"),
    // The far future: the rule after each zone's last transition, every year.
    ("America/New_York", "2099-07-01T12:00:00Z", "-04:00"),
    ("America/New_York", "2150-01-15T12:00:00Z", "-05:00"),
    ("America/New_York", "2150-03-08T06:59:59Z", "-05:00"),
    ("America/New_York", "2150-03-08T07:00:00Z", "-04:00"),
    ("America/New_York", "2150-07-01T12:00:00Z", "-04:00"),
    ("US/Pacific", "2123-08-01T00:00:00Z", "-07:00"),
    ("Europe/London", "2199-06-01T12:00:00Z", "+01:00"),
    ("America/Santiago", "2099-01-15T12:00:00Z", "-03:00"),
    ("America/Santiago", "2150-01-15T12:00:00Z", "-03:00"),
    ("Pacific/Auckland", "2099-12-31T23:00:00Z", "+13:00"),
    ("Pacific/Auckland", "2150-06-15T12:00:00Z", "+12:00"),
    ("Pacific/Auckland", "2150-12-15T12:00:00Z", "+13:00"),
    ("Australia/Sydney", "2150-01-15T12:00:00Z", "+11:00"),
    ("Australia/Sydney", "2150-04-04T15:59:59Z", "+11:00"),
    ("Australia/Sydney", "2150-04-04T16:00:00Z", "+10:00"),
    ("Australia/Sydney", "2150-07-15T12:00:00Z", "+10:00"),
    ("Australia/Lord_Howe", "2199-01-15T00:00:00Z", "+11:00"),
    ("Australia/Lord_Howe", "2199-07-15T00:00:00Z", "+10:30"),
];

/// A set whose one target gets a label per expression.
fn run_exprs(exprs: &[String]) -> common::Run {
    let mut targets = String::from(
        "  targets:\n  - repositories: [{name: edge1}]\n    template:\n      labelExprs:\n",
    );
    for (i, e) in exprs.iter().enumerate() {
        targets.push_str(&format!("      - {{key: c{i}, valueExpr: \"{e}\"}}\n"));
    }
    run(&resource_list(
        &[UPSTREAM_PR, &repository("edge1", "{}")],
        &pvs_config(&targets),
    ))
}

/// The local wall-clock time in `zone` at `instant`, from CEL's getters, as
/// `year-month-day_hours.minutes.seconds` (a label value).
fn local_time_expr(zone: &str, instant: &str) -> String {
    let t = format!("timestamp('{instant}')");
    let get = |f: &str| format!("string({t}.{f}('{zone}'))");
    format!(
        "{} + '-' + string({t}.getMonth('{zone}') + 1) + '-' + {} + '_' + {} + '.' + {} + '.' + {}",
        get("getFullYear"),
        get("getDate"),
        get("getHours"),
        get("getMinutes"),
        get("getSeconds"),
    )
}

/// `+hh:mm` or `-hh:mm:ss` (chrono's parser drops the seconds of local mean time).
fn parse_offset(text: &str) -> FixedOffset {
    let sign = if text.starts_with('-') { -1 } else { 1 };
    let secs = text[1..]
        .split(':')
        .zip([3600, 60, 1])
        .map(|(part, unit)| part.parse::<i32>().unwrap() * unit)
        .sum::<i32>();
    FixedOffset::east_opt(sign * secs).unwrap()
}

#[test]
fn named_zones_give_the_databases_offsets() {
    let exprs: Vec<String> = CASES
        .iter()
        .map(|(zone, instant, _)| local_time_expr(zone, instant))
        .collect();
    let out = run_exprs(&exprs);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    for (i, (zone, instant, offset)) in CASES.iter().enumerate() {
        let offset = parse_offset(offset);
        let local = DateTime::parse_from_rfc3339(instant)
            .unwrap()
            .with_timezone(&offset);
        let want = format!("c{i}: \"{}\"", local.format("%Y-%-m-%-d_%-H.%-M.%-S"));
        assert!(
            out.stdout.contains(&format!("{want}\n")),
            "{zone} at {instant} (offset {offset}): want {want} in\n{}",
            out.stdout
        );
    }
}

/// Names are the database's, spelt exactly; `Factory` (in the database, not in chrono-tz) and
/// names in another case are refused, as chrono-tz refused them.
#[test]
fn zone_names_are_exact() {
    for name in [
        "america/new_york",
        "US/EASTERN",
        "Factory",
        "Nowhere/Else",
        "America/New_York/",
        " UTC",
    ] {
        let out = run_exprs(&[format!(
            "string(timestamp('2024-03-05T10:20:30Z').getHours('{name}'))"
        )]);
        assert_eq!(out.code, 1, "{name}: {}", out.stdout);
        let results = results_section(&out.stdout);
        assert!(
            results.contains(&format!("unknown time zone {name}")),
            "{name}: {results}"
        );
    }
}
