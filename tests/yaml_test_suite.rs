//! Conformance with the official YAML test suite (github.com/yaml/yaml-test-suite), read in
//! place: `$YAML_TEST_SUITE`, by default `../shared/yaml-test-suite` next to the crate. The
//! suite's files are never copied into the project.
//!
//! Every valid case must be read exactly as its `test.event` (and `in.json`) say, or refused
//! with a message that names the construct; every invalid case must be refused. Every accepted
//! case must come back byte for byte when untouched, read back the same after every collection
//! is re-emitted, and pass through the binary unchanged as an item of a ResourceList.
//!
//! `YAML_TEST_SUITE_VERBOSE=1` prints every case that is not read right.

mod common;

use package_variant::yaml::{emit, parse, to_json, Kind, Node, ScalarStyle};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Valid cases whose value the YAML spec (the suite's `in.json`) and go-yaml v3 (kpt) read
/// differently: the function reads what kpt reads, so here the structure, styles, anchors and
/// tags must be right and the value is kpt's. Each with the reason.
const VALUES_AS_KPT_READS: &[(&str, &str)] = &[(
    "S4JQ",
    "`! 12`: go-yaml v3 resolves a plain scalar with the non-specific tag `!` as if untagged \
     (yaml.Node.ShortTag), so kpt reads the integer 12; the spec reads the string \"12\"",
)];

/// Words that name the construct a refusal is about. A refusal of a valid case must use one,
/// so that no valid input is refused with a message about something else. A key given twice
/// is refused on purpose: YAML requires keys to be unique, though the suite's parsers do not
/// check it (2JQS has two empty keys).
const NAMED_CONSTRUCTS: &[&str] = &[
    "more than one YAML document",
    "%TAG directive",
    "is defined twice",
];

struct Case {
    id: String,
    dir: PathBuf,
    yaml: String,
    invalid: bool,
    events: Option<String>,
    json: Option<String>,
}

fn suite_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("YAML_TEST_SUITE") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/yaml-test-suite"),
    };
    dir.join("data").is_dir().then_some(dir)
}

/// The suite's folder. A test that runs without it fails: build.rs marks these tests ignored
/// when the suite is absent at build time, so reaching here without it (removed since, or
/// `--include-ignored`) is a test that cannot do its work, never a pass.
fn suite_dir_or_fail() -> PathBuf {
    suite_dir().unwrap_or_else(|| {
        panic!(
            "the YAML test suite is not at $YAML_TEST_SUITE or ../shared/yaml-test-suite \
             (a checkout of github.com/yaml/yaml-test-suite's data branch, under data/)"
        )
    })
}

fn read_cases(data: &Path) -> Vec<Case> {
    let mut dirs = Vec::new();
    for e in std::fs::read_dir(data).expect("read the suite's data folder") {
        let d = e.expect("suite entry").path();
        if d.join("in.yaml").is_file() {
            dirs.push(d);
        } else if d.is_dir() {
            for s in std::fs::read_dir(&d).expect("read a case folder") {
                let s = s.expect("case entry").path();
                if s.join("in.yaml").is_file() {
                    dirs.push(s);
                }
            }
        }
    }
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let id = dir
                .strip_prefix(data)
                .unwrap_or(&dir)
                .to_string_lossy()
                .into_owned();
            let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
            Case {
                id,
                yaml: read("in.yaml").unwrap_or_default(),
                invalid: dir.join("error").exists(),
                events: read("test.event"),
                json: read("in.json"),
                dir,
            }
        })
        .collect()
}

/// The event text of a scalar value, escaped as `test.event` writes it.
fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            '\u{8}' => o.push_str("\\b"),
            '\r' => o.push_str("\\r"),
            '\0' => o.push_str("\\0"),
            c => o.push(c),
        }
    }
    o
}

/// A tag as the suite writes it: `!!x` is `tag:yaml.org,2002:x`, `!<...>` verbatim, `%xx`
/// escapes decoded.
fn tag_text(tag: &str) -> String {
    let full = if let Some(rest) = tag.strip_prefix("!!") {
        format!("tag:yaml.org,2002:{rest}")
    } else if let Some(v) = tag.strip_prefix("!<").and_then(|t| t.strip_suffix('>')) {
        v.to_string()
    } else {
        tag.to_string()
    };
    let b = full.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&full[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn props(n: &Node, out: &mut String) {
    if let Some(p) = n.props() {
        if let Some(a) = &p.anchor {
            let _ = write!(out, " &{a}");
        }
        if let Some(t) = &p.tag {
            let _ = write!(out, " <{}>", tag_text(t));
        }
    }
}

/// The node's events, one per line, as `test.event` writes them.
fn events(n: &Node, out: &mut String) {
    match n.kind() {
        Kind::Scalar(s) => {
            out.push_str("=VAL");
            props(n, out);
            let style = match s.style {
                ScalarStyle::Plain => ':',
                ScalarStyle::SingleQuoted => '\'',
                ScalarStyle::DoubleQuoted => '"',
                ScalarStyle::Literal => '|',
                ScalarStyle::Folded => '>',
            };
            let _ = writeln!(out, " {style}{}", escape(&s.value));
        }
        Kind::Alias(a) => {
            let _ = writeln!(out, "=ALI *{a}");
        }
        Kind::Mapping(entries) => {
            out.push_str("+MAP");
            if n.is_flow() {
                out.push_str(" {}");
            }
            props(n, out);
            out.push('\n');
            for e in entries {
                events(&e.key, out);
                events(&e.value, out);
            }
            out.push_str("-MAP\n");
        }
        Kind::Sequence(items) => {
            out.push_str("+SEQ");
            if n.is_flow() {
                out.push_str(" []");
            }
            props(n, out);
            out.push('\n');
            for i in items {
                events(&i.value, out);
            }
            out.push_str("-SEQ\n");
        }
    }
}

/// The expected events of each document (stream and document markers left out).
fn expected_documents(events: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in events.lines() {
        if line.starts_with("+STR") || line.starts_with("-STR") {
            continue;
        }
        if line.starts_with("+DOC") {
            cur.clear();
        } else if line.starts_with("-DOC") {
            docs.push(std::mem::take(&mut cur));
        } else {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    docs
}

/// JSON equality, numbers compared by value (the suite writes `450.00` as `450`).
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn touch_all(n: &mut Node) {
    if let Some(entries) = n.entries_mut() {
        for e in entries {
            e.trivia.set_whole(None);
            touch_all(&mut e.key);
            touch_all(&mut e.value);
        }
    } else if let Some(items) = n.items_mut() {
        for i in items {
            i.trivia.set_whole(None);
            touch_all(&mut i.value);
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Right,
    Refused,
    Wrong(String),
    InvalidRefused,
    InvalidAccepted,
}

fn node_events(n: &Node) -> String {
    let mut s = String::new();
    events(n, &mut s);
    s
}

/// A ResourceList whose one item is the case's document (its lines under `- `), when the
/// document can be moved there without changing its meaning.
fn as_item(yaml: &str) -> Option<String> {
    if yaml.lines().any(|l| {
        l.starts_with("---") || l.starts_with("...") || l.starts_with('%') || l.starts_with('\t')
    }) || yaml.starts_with('\u{feff}')
        || yaml.trim().is_empty()
    {
        return None;
    }
    let mut s = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for (i, line) in yaml.split_inclusive('\n').enumerate() {
        if i == 0 {
            s.push_str("- ");
        } else if !line.trim_end_matches(['\n', '\r']).is_empty() {
            s.push_str("  ");
        }
        s.push_str(line);
    }
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Some(s)
}

fn check(case: &Case) -> Outcome {
    let parsed = parse(&case.yaml);
    if case.invalid {
        return match parsed {
            Ok(_) => Outcome::InvalidAccepted,
            Err(_) => Outcome::InvalidRefused,
        };
    }
    let Some(ev) = &case.events else {
        return Outcome::Wrong("no test.event".into());
    };
    let docs = expected_documents(ev);
    let node = match parsed {
        Err(e) => {
            if !NAMED_CONSTRUCTS.iter().any(|c| e.message.contains(c)) {
                return Outcome::Wrong(format!(
                    "refused with a message that names no construct: {e}"
                ));
            }
            return Outcome::Refused;
        }
        Ok(n) => n,
    };
    let got = node_events(&node);
    match docs.as_slice() {
        [] => {
            if !(node.is_null() && node.props().is_none()) {
                return Outcome::Wrong(format!("no document expected, read\n{got}"));
            }
            return Outcome::Right;
        }
        [one] => {
            if *one != got {
                return Outcome::Wrong(format!("events differ:\nexpected\n{one}read\n{got}"));
            }
        }
        _ => {
            return Outcome::Wrong(format!(
                "{} documents expected, read one:\n{got}",
                docs.len()
            ))
        }
    }
    if let Some(json) = &case.json {
        let expected: Vec<serde_json::Value> = serde_json::Deserializer::from_str(json)
            .into_iter()
            .filter_map(Result::ok)
            .collect();
        if let [want] = expected.as_slice() {
            match to_json(&node) {
                Ok(v) if same_json(&v, want) => {}
                other => {
                    let base = case.id.split('/').next().unwrap_or("");
                    if !VALUES_AS_KPT_READS
                        .iter()
                        .any(|(id, _)| *id == case.id || *id == base)
                    {
                        return Outcome::Wrong(format!("JSON value {other:?}, expected {want}"));
                    }
                }
            }
        }
    }
    let untouched = emit::to_string(&case.yaml, &node);
    if untouched != case.yaml {
        return Outcome::Wrong(format!("untouched re-emission differs:\n{untouched}"));
    }
    let mut all = node.clone();
    touch_all(&mut all);
    let touched = emit::to_string(&case.yaml, &all);
    match parse(&touched) {
        Ok(back) if node_events(&back) == got => {}
        Ok(back) => {
            return Outcome::Wrong(format!(
                "touched re-emission reads differently:\n{touched}\nread\n{}",
                node_events(&back)
            ))
        }
        Err(e) => {
            return Outcome::Wrong(format!(
                "touched re-emission does not parse: {e}\n{touched}"
            ))
        }
    }
    if let Some(input) = as_item(&case.yaml) {
        let out = common::run(&input);
        if common::items_section(&out.stdout) != common::items_section(&input) {
            return Outcome::Wrong(format!(
                "through the binary the item changed:\n{}\nstderr: {}",
                out.stdout, out.stderr
            ));
        }
    }
    Outcome::Right
}

#[test]
#[cfg_attr(
    yaml_test_suite_absent,
    ignore = "the YAML test suite was not found when this was built (../shared/yaml-test-suite or $YAML_TEST_SUITE); put it there and touch build.rs, or set YAML_TEST_SUITE"
)]
fn yaml_test_suite() {
    let dir = suite_dir_or_fail();
    let verbose = std::env::var_os("YAML_TEST_SUITE_VERBOSE").is_some();
    let cases = read_cases(&dir.join("data"));
    let (mut right, mut refused, mut wrong, mut inv_refused, mut inv_accepted) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let outcome = check(case);
        match &outcome {
            Outcome::Right => right += 1,
            Outcome::Refused => refused += 1,
            Outcome::Wrong(_) => wrong += 1,
            Outcome::InvalidRefused => inv_refused += 1,
            Outcome::InvalidAccepted => inv_accepted += 1,
        }
        if verbose && !matches!(outcome, Outcome::Right | Outcome::InvalidRefused) {
            let why = match &outcome {
                Outcome::Refused => parse(&case.yaml).err().map(|e| e.to_string()),
                Outcome::Wrong(w) => Some(w.clone()),
                _ => None,
            };
            let label = match outcome {
                Outcome::Refused => "refused",
                Outcome::InvalidAccepted => "INVALID ACCEPTED",
                _ => "WRONG",
            };
            println!(
                "--- {} {label} ({})\n{}\n{}",
                case.id,
                case.dir.display(),
                case.yaml,
                why.unwrap_or_default()
            );
        }
        if matches!(outcome, Outcome::Wrong(_) | Outcome::InvalidAccepted) {
            failures.push(format!("{} {:?}", case.id, outcome));
        }
    }
    let line = format!(
        "yaml-test-suite: {right} valid read right, {refused} refused, {wrong} wrong; {inv_refused} invalid refused, {inv_accepted} invalid accepted"
    );
    println!("{line}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // docs/design.md gives the line for the suite's released data (402 cases).
    if cases.len() == 402 {
        let readme =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/design.md"))
                .expect("docs/design.md");
        assert!(
            readme.contains(&line),
            "docs/design.md does not give today's line:\n{line}"
        );
    }
}

/// The suite's inputs, mutated (a few indicators, spaces, tabs, line breaks and pieces of other
/// cases inserted or bytes removed, with a fixed seed): whatever is read comes back byte for
/// byte untouched, and with every collection re-emitted it parses and reads as the same
/// values; nothing panics, as a document or as an item through the ResourceList path.
#[test]
#[cfg_attr(
    yaml_test_suite_absent,
    ignore = "the YAML test suite was not found when this was built (../shared/yaml-test-suite or $YAML_TEST_SUITE); put it there and touch build.rs, or set YAML_TEST_SUITE"
)]
fn mutated_cases_round_trip() {
    let dir = suite_dir_or_fail();
    let seeds: Vec<Vec<u8>> = read_cases(&dir.join("data"))
        .into_iter()
        .map(|c| c.yaml.into_bytes())
        .collect();
    let pieces: &[&[u8]] = &[
        b" ",
        b"\t",
        b"\n",
        b"-",
        b"?",
        b":",
        b",",
        b"[",
        b"]",
        b"{",
        b"}",
        b"#",
        b"&a",
        b"*a",
        b"!!str",
        b"|",
        b">",
        b"'",
        b"\"",
        b"%",
        b"---",
        b"...",
        b"\\",
        b"a",
        b"\r\n",
        b"|+",
        b"|2",
        "\u{e9}".as_bytes(),
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as usize
    };
    let mut read = 0;
    for _ in 0..20_000 {
        let mut s = seeds[rnd() % seeds.len()].clone();
        for _ in 0..1 + rnd() % 4 {
            let at = rnd() % (s.len() + 1);
            match rnd() % 3 {
                0 => drop(s.splice(at..at, pieces[rnd() % pieces.len()].iter().copied())),
                1 if at < s.len() => drop(s.drain(at..(at + 1 + rnd() % 4).min(s.len()))),
                _ => {
                    let other = &seeds[rnd() % seeds.len()];
                    let a = rnd() % (other.len() + 1);
                    let b = (a + rnd() % 20).min(other.len());
                    drop(s.splice(at..at, other[a..b].iter().copied()));
                }
            }
        }
        // A carriage return alone is refused before any YAML is read.
        let Ok(text) = String::from_utf8(s) else {
            continue;
        };
        if text.replace("\r\n", "").contains('\r') {
            continue;
        }
        if let Ok(node) = parse(&text) {
            read += 1;
            assert_eq!(emit::to_string(&text, &node), text, "untouched");
            let mut all = node.clone();
            touch_all(&mut all);
            let out = emit::to_string(&text, &all);
            let back =
                parse(&out).unwrap_or_else(|e| panic!("{e}\n--- in\n{text}\n--- out\n{out}"));
            if let (Ok(a), Ok(b)) = (to_json(&node), to_json(&back)) {
                assert!(same_json(&a, &b), "--- in\n{text}\n--- out\n{out}");
            }
        }
        if let Some(input) = as_item(&text) {
            let _ = package_variant::process_here(input.as_bytes());
        }
    }
    assert!(read > 1_000, "only {read} mutated inputs were YAML");
}
