//! Where lines end, and what the parser and emitter make of the characters go-yaml takes
//! for line breaks. Every expected value here is what kpt 1.0.0-beta.56 read from the same
//! text (`kpt fn source` of the file, sunk as JSON by `kpt fn sink`).

use super::*;

const LS: &str = "\u{2028}";

#[test]
fn every_break_kpt_breaks_on() {
    for (text, len) in [
        ("\n", 1),
        ("\r\n", 2),
        ("\r", 1),
        ("\u{85}", 2),
        ("\u{2028}", 3),
        ("\u{2029}", 3),
        ("a", 0),
        ("\u{a0}", 0),
        ("\u{2027}", 0),
        ("\u{202a}", 0),
        ("é", 0),
    ] {
        assert_eq!(break_len(text.as_bytes(), 0), len, "{text:?}");
    }
}

#[test]
fn lines_split_at_every_break_and_keep_it() {
    let text = format!("a\nb\r\nc{LS}d\u{85}e\rf");
    let lines: Vec<&str> = lines_inclusive(&text).collect();
    assert_eq!(
        lines,
        ["a\n", "b\r\n", &format!("c{LS}"), "d\u{85}", "e\r", "f"]
    );
    assert_eq!(lines.concat(), text);
    let trimmed: Vec<&str> = lines.iter().map(|l| trim_break(l)).collect();
    assert_eq!(trimmed, ["a", "b", "c", "d", "e", "f"]);
}

#[test]
fn line_start_and_position_count_wide_breaks() {
    let text = format!("ab\n  c # x{LS}  d: é{LS}e");
    let d = text.find('d').unwrap_or(0);
    assert_eq!(line_start(&text, d), d - 2);
    assert_eq!(position(&text, d), (3, 3));
    let e = text.rfind('e').unwrap_or(0);
    assert_eq!(position(&text, e), (4, 1));
    assert_eq!(position(&text, 1), (1, 2));
    assert_eq!(line_start("a\r\nb", 2), 0);
    assert_eq!(line_start("a\r\nb", 3), 3);
    assert_eq!(line_start("a\rb", 2), 2);
    assert_eq!(position("a\r\nb", 3), (2, 1));
    assert_eq!(
        first_wide(&text),
        Some((text.find(LS).unwrap_or(0), '\u{2028}'))
    );
    assert!(has_break(&text) && !has_break("é ü"));
}

/// A ConfigMap holding LS, PS and NEL in each place go-yaml breaks on them, and what kpt read
/// from it (`kpt fn source` then `kpt fn sink` to a `.json` file).
fn kpt_case() -> (String, serde_json::Value) {
    let (ls, ps, nel) = ("\u{2028}", "\u{2029}", "\u{85}");
    let src = format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: src # copied{ls}  namespace: team-b
data:
  k: a{ls}   b # c{nel}  j: x{nel}    y
  q: 's{ps}    t'
  d: \"u{ls}   v\"
  l: |
    one{ls}    two
  m: a{ls}{ls}   b
  n: a
{ls}   b
  o: a{ls}
   b
  e1: \"a\\{ls}   b\"
  e2: \"a\\{nel}{ls}   b\"
  e3: \"a{nel}   b\"
  e4: 'a{nel}{nel}   b'
  f1: >
    a{ls}    b
    c
  f2: >
    a{nel}    b
  f3: |+
    a
{ls}
  f4: >-
    a{ps}
    b
  x: 1 # c{ls}  y: 2
  s: # c{ps}  - a # c{nel}  - b
  fl: [a,{ls}   b]
  fp: [a{ls}   b]
  fm: {{k: v{ls}    w}}
  lit: |-
    a{ls}    b{nel}    c
"
    );
    let want = serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "src", "namespace": "team-b"},
        "data": {
            "k": "a\u{2028}b", "j": "x y", "q": "s\u{2029}t", "d": "u\u{2028}v",
            "l": "one\u{2028}two\n", "m": "a\u{2028}\u{2028}b", "n": "a\u{2028}b",
            "o": "a\u{2028}\nb", "e1": "ab", "e2": "a\u{2028}b", "e3": "a b", "e4": "a\nb",
            "f1": "a\u{2028}b c\n", "f2": "a b\n", "f3": "a\n\u{2028}\n", "f4": "a\u{2029}\nb",
            "x": 1, "y": 2, "s": ["a", "b"], "fl": ["a", "b"], "fp": ["a\u{2028}b"],
            "fm": {"k": "v\u{2028}w"}, "lit": "a\u{2028}b\nc"
        }
    });
    (src, want)
}

/// Comments, plain, quoted and block scalars, flow collections and keys after a break: read
/// as kpt read them, key for key.
#[test]
fn every_place_reads_as_kpt_reads() {
    let (src, want) = kpt_case();
    let node = crate::yaml::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let got = crate::yaml::to_json(&node).unwrap_or_else(|e| panic!("{e}"));
    for (k, v) in want["data"].as_object().into_iter().flatten() {
        assert_eq!(&got["data"][k], v, "data.{k}");
    }
    assert_eq!(got, want);
}

/// The text comes out as it went in, untouched or with every collection rebuilt around the
/// copied scalars, and moved right or left under a new parent: it reads back the same.
#[test]
fn copies_read_back_the_same() {
    let (src, want) = kpt_case();
    let node = crate::yaml::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(crate::yaml::emit::to_string(&src, &node), src);
    for indent in [0, 4, 10] {
        let mut e = crate::yaml::Emitter::new(&src, 0);
        let mut inner = crate::yaml::Node::mapping();
        inner.set("inner", node.clone());
        let mut wrapper = crate::yaml::Node::mapping();
        wrapper.set("wrapped", inner);
        e.node_at(&wrapper, indent, false);
        let text = e.out;
        let back = crate::yaml::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let json = crate::yaml::to_json(&back).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(json["wrapped"]["inner"], want, "{text}");
    }
    // `data` (at column 2) written at the root: its lines move left.
    let data = node
        .get("data")
        .cloned()
        .unwrap_or_else(crate::yaml::Node::mapping);
    let mut e = crate::yaml::Emitter::new(&src, 0);
    e.node_at(&data, 0, false);
    let back = crate::yaml::parse(&e.out).unwrap_or_else(|err| panic!("{err}\n{}", e.out));
    let json = crate::yaml::to_json(&back).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json, want["data"], "{}", e.out);
}

/// A key cannot continue past a break (go-yaml: "could not find expected ':'"), and an error
/// after a break is on the line kpt names (`kpt fn source` of the same file).
#[test]
fn keys_do_not_span_breaks_and_errors_count_them() {
    for src in [
        "a\u{2028}b: c\n",
        "x: 1\na\u{85}: c\n",
        "[a,\n\u{2029}b]: c\n",
    ] {
        assert!(crate::yaml::parse(src).is_err(), "{src:?}");
    }
    for (tail, kpt_line) in [
        ("a: 1 # c\u{2028}b: c: d\n", 7),
        ("a: 1\u{85}b: 2\u{2029}c: x: y\n", 8),
        ("a: 1\r\nb: 2\u{2028}c: \"x\n", 8),
    ] {
        let src = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  {tail}");
        let line = crate::yaml::parse(&src).err().map(|e| e.line);
        assert_eq!(line, Some(kpt_line), "{tail:?}");
    }
}
