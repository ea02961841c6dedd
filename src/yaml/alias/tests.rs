//! Unit tests of reading through aliases and merge keys, and of keeping what aliases mean.

use super::*;
use crate::yaml::node::Node;
use crate::yaml::parse;

fn tree(src: &str) -> Node {
    parse(src).unwrap_or_else(|e| panic!("{e}"))
}

fn text<'n>(r: &Reader<'n>, map: &'n Node, key: &str) -> Option<String> {
    r.get(map, key)
        .unwrap_or_else(|e| panic!("{e}"))
        .and_then(|v| v.as_scalar().map(|s| s.value.to_string()))
}

#[test]
fn an_alias_takes_the_latest_anchor_before_it() {
    let t = tree("a: &x 1\nb: *x\nc: &x 2\nd: *x\ne: [&x 3, *x]\n");
    let r = Reader::new(&t);
    assert_eq!(text(&r, &t, "b").as_deref(), Some("1"));
    assert_eq!(text(&r, &t, "d").as_deref(), Some("2"));
    let e = r.get(&t, "e").ok().flatten().and_then(Node::items);
    let second = e.map(|i| r.deref(&i[1].value).ok().and_then(Node::as_str));
    assert_eq!(second, Some(Some("3")));
}

#[test]
fn an_alias_without_an_anchor_before_it_is_an_error() {
    // The parser refuses it, at the alias.
    let e = parse("b: *x\nc: &x 2\n").unwrap_err();
    assert_eq!((e.line, e.column), (1, 4), "{e}");
    assert!(
        e.message
            .starts_with("the alias *x has no anchor &x before it"),
        "{e}"
    );
    // A reader of one object does not follow an alias out of it.
    let t = tree("a: &x 1\nb: {c: *x}\n");
    let b = t.get("b").unwrap();
    let r = Reader::new(b);
    assert_eq!(
        r.get(b, "c").err().as_deref(),
        Some("the alias *x has no anchor &x before it in this object")
    );
}

#[test]
fn merge_keys_as_go_yaml_v3_reads_them() {
    let t = tree(
        "a: &a {k: a, only-a: 1}\nb: &b {k: b, only-b: 2, <<: {deep: 3}}\n\
         m1: {k: own, <<: [*a, *b]}\nm2: {<<: [*b, *a]}\nm3: {<<: *a, k: own}\n\
         q: {\"<<\": *a}\n",
    );
    let r = Reader::new(&t);
    let m = |k: &str| r.get(&t, k).ok().flatten().unwrap_or(&t);
    assert_eq!(text(&r, m("m1"), "k").as_deref(), Some("own"));
    assert_eq!(text(&r, m("m1"), "only-b").as_deref(), Some("2"));
    assert_eq!(text(&r, m("m1"), "deep").as_deref(), Some("3"));
    assert_eq!(text(&r, m("m2"), "k").as_deref(), Some("b"));
    assert_eq!(text(&r, m("m3"), "k").as_deref(), Some("own"));
    // A quoted "<<" is an ordinary key.
    assert_eq!(text(&r, m("q"), "k"), None);
    let keys = |k: &str| -> Vec<(String, String)> {
        r.pairs(m(k))
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or("").to_string()))
            .collect()
    };
    let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
        p.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        keys("m1"),
        pairs(&[
            ("k", "own"),
            ("only-a", "1"),
            ("only-b", "2"),
            ("deep", "3")
        ])
    );
    assert_eq!(
        keys("m2"),
        pairs(&[("k", "b"), ("only-b", "2"), ("deep", "3"), ("only-a", "1")])
    );
    assert_eq!(keys("q"), pairs(&[("<<", "")]));
}

#[test]
fn a_merge_of_something_else_is_an_error() {
    for src in [
        "m: {<<: 1}\n",
        "m: {<<: [{a: 1}, 2]}\n",
        "s: &s x\nm: {<<: [*s]}\n",
    ] {
        let t = tree(src);
        let r = Reader::new(&t);
        let m = r.get(&t, "m").ok().flatten().unwrap_or(&t);
        assert!(r.get(m, "a").is_err(), "{src}");
        assert!(r.pairs(m).is_err(), "{src}");
    }
}

/// Mappings merged twice at every level would be read 2^60 times without the visited set.
#[test]
fn a_mapping_merged_many_times_is_read_once() {
    let mut src = String::from("a0: &a0 {k0: v}\n");
    for i in 1..60 {
        src.push_str(&format!(
            "a{i}: &a{i} {{k{i}: v, <<: [*a{p}, *a{p}]}}\n",
            p = i - 1
        ));
    }
    src.push_str("m: {<<: *a59}\n");
    let t = tree(&src);
    let r = Reader::new(&t);
    let m = r.get(&t, "m").ok().flatten().unwrap_or(&t);
    assert_eq!(r.pairs(m).map(|p| p.len()), Ok(60));
    assert_eq!(text(&r, m, "k0").as_deref(), Some("v"));
    assert_eq!(text(&r, m, "missing"), None);
}

#[test]
fn a_self_merge_ends() {
    let t = tree("m: &m {a: 1, <<: *m}\n");
    let r = Reader::new(&t);
    let m = r.get(&t, "m").ok().flatten().unwrap_or(&t);
    assert_eq!(text(&r, m, "b"), None);
    assert_eq!(r.pairs(m).map(|p| p.len()), Ok(1));
}

fn kept(src: &str, edit: impl Fn(&mut Node)) -> (usize, String) {
    let original = tree(src);
    let mut edited = original.clone();
    edit(&mut edited);
    let n = keep_alias_meanings(&original, &mut edited, 1000).unwrap_or(usize::MAX);
    (n, crate::yaml::emit::to_string(src, &edited))
}

#[test]
fn aliases_keep_their_meaning_across_edits() {
    // Untouched: nothing written out.
    let src = "a: &x 1\nb: *x\n";
    assert_eq!(kept(src, |_| {}), (0, src.to_string()));
    // The anchored value replaced.
    let (n, out) = kept(src, |t| {
        if let Some(a) = t.get_mut("a") {
            a.assign(Node::plain("2"));
        }
    });
    assert_eq!((n, out.as_str()), (1, "a: &x 2\nb: 1\n"));
    // The anchor removed; a redefinition before the alias must not capture it.
    let (n, out) = kept("z: &x 0\na: &x 1\nb: *x\n", |t| {
        t.remove("a");
    });
    assert_eq!((n, out.as_str()), (1, "z: &x 0\nb: 1\n"));
    // The anchor moved after its alias.
    let (n, out) = kept("m:\n  a: &x [1]\n  b: *x\n", |t| {
        if let Some(e) = t.get_mut("m").and_then(Node::entries_mut) {
            e.swap(0, 1);
        }
    });
    assert_eq!((n, out.as_str()), (1, "m:\n  b: [1]\n  a: &x [1]\n"));
}

#[test]
fn writing_out_is_bounded() {
    let original = tree("a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d {k: *c}\ne: *d\n");
    let mut edited = original.clone();
    if let Some(d) = edited.get_mut("d") {
        d.assign(Node::plain("gone"));
    }
    assert!(keep_alias_meanings(&original, &mut edited, 5).is_err());
    let mut edited = original.clone();
    if let Some(d) = edited.get_mut("d") {
        d.assign(Node::plain("gone"));
    }
    assert_eq!(keep_alias_meanings(&original, &mut edited, 100), Ok(1));
}
