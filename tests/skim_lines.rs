//! The line scanner of skimmed items (`src/yaml/parse/lines.rs`) must read what the parser
//! reads: the same item end, comment and identity, and never accept what the parser refuses.
//! `compare_readings` reads an input with trees kept (the parser alone) and skimmed (the
//! scanner first) and says how they differ. Here it runs on ResourceLists whose items are
//! built from random lines (indentation, shapes, keys and values chosen among near-misses of
//! what the scanner takes), on a list of hand-written items each of which one of the
//! scanner's rules singles out, and, through the binary, on those items padded past the size
//! at which skimming is on, where valid items must come back byte for byte.
//!
//! Runs `PROPTEST_CASES` cases (default [`DEFAULT_CASES`]).

mod common;

use common::{items_section, proptest_config, run};
use package_variant::krm::resource_list::compare_readings;
use proptest::prelude::*;

/// Cases unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 2048;

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";

/// Reads `src` both ways on a thread with the binary's stack.
fn compare(src: &str) -> Result<(), String> {
    let src = src.to_string();
    std::thread::Builder::new()
        .stack_size(package_variant::STACK_SIZE)
        .spawn(move || compare_readings(&src))
        .unwrap()
        .join()
        .map_err(|_| "panicked".to_string())?
}

const KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "spec",
    "a",
    "<<",
    "'name'",
    "\"kind\"",
    "a b",
    "a:b",
    "x.y/z",
    "? a",
    "-a",
    "a ",
    "é",
];

const VALUES: &[&str] = &[
    "v1",
    "x",
    "'a''b'",
    "\"x\"",
    "\"a\\\"b\"",
    "[a, b]",
    "{a: b, a: c}",
    "{a: [b, {c: d}]}",
    "[a,]",
    "[a, , b]",
    "[a",
    "{a: b",
    "[]",
    "{}",
    "|",
    "|-",
    ">",
    "|+",
    "|2",
    ">-",
    "a: b",
    "- x",
    "&x v",
    "*x",
    "!t v",
    "!!str 1",
    "x #c",
    "x#c",
    "'unterminated",
    "\"unterminated",
    "~",
    "null",
    "\"\"",
    "''",
    "a\u{2028}b",
    "a\u{85}b",
    "\u{feff}x",
    "héllo wörld",
    "日本",
    "1",
    "true",
    "a:",
    "a :b",
    "%x",
    "@x",
    "`x",
    "? x",
    ": x",
    "x   ",
    "'a' b",
    "\"a\" b",
    "[a] b",
    "{a: 1}#c",
    "\"\\x41\"",
    "'multi",
    "---",
    "...",
];

/// A key from the pool, or now and then a key of 1,100 characters.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => prop::sample::select(KEYS).prop_map(str::to_string),
        1 => Just("k".repeat(1100)),
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => prop::sample::select(VALUES).prop_map(str::to_string),
        1 => Just("v".repeat(1100)),
    ]
}

/// One line's content, without indentation.
fn shape() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (key(), value()).prop_map(|(k, v)| format!("{k}: {v}")),
        4 => key().prop_map(|k| format!("{k}:")),
        3 => value().prop_map(|v| format!("- {v}")),
        3 => (key(), value()).prop_map(|(k, v)| format!("- {k}: {v}")),
        1 => Just("-".to_string()),
        1 => Just("- # c".to_string()),
        2 => Just("# comment".to_string()),
        1 => (key()).prop_map(|k| format!("{k}: # c")),
        2 => Just(String::new()),
        1 => Just("   ".to_string()),
        1 => Just("---".to_string()),
        1 => Just("...".to_string()),
        // A line of a block scalar's body (or a continuation line).
        2 => value(),
    ]
}

/// A line: indentation (mostly even, as real packages), sometimes a tab, and sometimes `\r`.
fn line() -> impl Strategy<Value = String> {
    (
        prop_oneof![6 => (1usize..5).prop_map(|n| 2 * n), 2 => 0usize..=10],
        prop::sample::select(&["", "", "", "", "", "", "", "", "\t", " \t"][..]),
        shape(),
        prop::sample::select(&["", "", "", "", "", "", "", "", "\r", " "][..]),
    )
        .prop_map(|(n, tab, s, end)| format!("{}{tab}{s}{end}", " ".repeat(n)))
}

/// An item: its first line (after `- `, or empty) and the lines below, often starting from
/// a plain identity so the scanner goes deep before it meets the near-miss.
fn item() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            3 => Just("apiVersion: v1".to_string()),
            1 => Just(String::new()),
            1 => Just("# head".to_string()),
            2 => shape(),
        ],
        any::<bool>(),
        prop::collection::vec(line(), 0..12),
    )
        .prop_map(|(first, identity, lines)| {
            let mut s = format!("- {first}\n");
            if identity {
                s.push_str(
                    "  kind: ConfigMap\n  metadata:\n    name: a\n    labels:\n      x: y\n",
                );
            }
            for l in lines {
                s.push_str(&l);
                s.push('\n');
            }
            s
        })
}

/// A plain item, valid, so items after a generated one are read too.
const PLAIN: &str = "- apiVersion: v1\n  kind: Service\n  metadata: {name: b}\n  spec: {}\n";

proptest! {
    #![proptest_config(proptest_config(DEFAULT_CASES))]

    #[test]
    fn random_lines_read_the_same_skimmed(items in prop::collection::vec(item(), 1..4)) {
        let mut src = HEAD.to_string();
        for i in &items {
            src.push_str(i);
            src.push_str(PLAIN);
        }
        if let Err(why) = compare(&src) {
            prop_assert!(false, "{why}\n{src}");
        }
    }
}

/// Items each of which one rule of the scanner singles out: valid ones (`true`) and ones the
/// parser refuses.
const TRICKY: &[(bool, &str)] = &[
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"),
    (true, "- # head comment\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"),
    (true, "-\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"),
    (true, "- apiVersion: v1 # c\n  kind: ConfigMap # c\n  metadata: # c\n    # between\n    name: a # c\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    f: |\n      line 1\n\n      line 2\n    g: x\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    f: |-\n        deep\n\n          deeper\n    g: x\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    f: >\n      folded\n      text\n\n    g: |+\n      keep\n\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    f: |2\n        two\n"),
    (true, "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    labels: {app: web, tier: \"front\"}\n  spec:\n    ports:\n    - port: 80\n      targetPort: 8080\n    - {port: 443}\n    selector:\n      app: web\n"),
    (true, "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\n    namespace: ns\n    annotations:\n      a.b/c: 'x''y'\n      d: \"q\\\"r\"\n  spec:\n    template:\n      spec:\n        containers:\n        - name: c\n          image: nginx:1.2\n          args:\n          - -x\n          - --y=z\n          env:\n          -   name: A\n              value: ~\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    x#c: y#c\n    u: é日本\n    e: \"\"\n    n: null\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    'a b': \"c: d\"\n    \"k:e\": v\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  list:\n  - a\n  -\n  - - b\n    - c\n  - - d\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: &n a\n  data:\n    copy: *n\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data: !!map\n    x: !!str 1\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  b: &b {x: 1}\n  c:\n    <<: *b\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  f: {a: [b, {c: d}]}\n  g: [a, [b, c], {}]\n"),
    // CRLF to its last line, among items that end in `\n`: written back as it came.
    (true, "- apiVersion: v1\r\n  kind: ConfigMap\r\n  metadata:\r\n    name: a\r\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: multi\n    line plain\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: 'multi\n    line quoted'\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: [a,\n    b]\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: \"\\u0041\\t\"\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  ? complex\n  : value\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels:\n    annotations: {}\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x:\n  - a\n  y: 1\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  s: a\u{2028}b\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  s: \"a\u{85}b\"\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  s: \u{feff}x\n"),
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n\n   \n  # end comment\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  kind: Secret\n  metadata:\n    name: a\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels: {a: b, a: c}\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  'x': 1\n  x: 2\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: [a, , b]\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: [a\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: 'unterminated\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: a: b\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: 'a' b\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: [a] b\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: 1\n   y: 2\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n\tx: 1\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: @a\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: `a\n"),
    // `a - b`: a plain scalar on two lines.
    (true, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x:\n  - a\n   - b\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: |\n  y\n   z: 1\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  - x\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: \"\\q\"\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: {a: b\n"),
    (false, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  x: ]\n"),
];

#[test]
fn tricky_items_read_the_same_skimmed() {
    let mut failures = Vec::new();
    for (i, (_, item)) in TRICKY.iter().enumerate() {
        // Alone, after a plain item and before one.
        for src in [
            format!("{HEAD}{item}"),
            format!("{HEAD}{PLAIN}{item}{PLAIN}"),
        ] {
            if let Err(why) = compare(&src) {
                failures.push(format!("case {i}: {why}\n{src}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n----\n"));
}

#[test]
fn the_long_key_reads_the_same_skimmed() {
    let long = "k".repeat(1100);
    for src in [
        format!("{HEAD}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  {long}: 1\n"),
        format!("{HEAD}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels:\n      {long}: x\n"),
        format!("{HEAD}- {long}: 1\n"),
    ] {
        compare(&src).unwrap_or_else(|why| panic!("{why}\n{src}"));
    }
}

/// A root Kptfile and a PackageVariant that changes nothing in it.
const KPTFILE: &str = "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: pkg\n    annotations:\n      config.kubernetes.io/path: Kptfile\n";
const NOOP_PV: &str = "functionConfig:\n  apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: PackageVariant\n  metadata:\n    name: noop\n  spec:\n    upstream: {repo: blueprints, package: base, revision: 1}\n    downstream: {repo: deployments, package: base}\n";

/// `items` padded with plain ConfigMaps past the size at which skimming is on.
fn padded(items: &str) -> String {
    let mut src = format!("{HEAD}{KPTFILE}{items}");
    let mut n = 0;
    while src.len() <= package_variant::krm::resource_list::KEEP_TREES_UP_TO + 1024 {
        src.push_str(&format!(
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: pad-{n}\n  data:\n    k: v\n"
        ));
        n += 1;
    }
    src.push_str(items);
    src.push_str(NOOP_PV);
    src
}

#[test]
fn tricky_items_through_the_binary_padded_past_skimming() {
    let mut failures = Vec::new();
    for (i, (valid, item)) in TRICKY.iter().enumerate() {
        let src = padded(item);
        let out = run(&src);
        // The same item in a small input (trees kept: the parser alone), where the first
        // problem is at the same line as in the padded input.
        let small = run(&format!("{HEAD}{KPTFILE}{item}{NOOP_PV}"));
        let expected = if *valid { 0 } else { 1 };
        if out.code != expected || small.code != expected {
            failures.push(format!(
                "case {i}: exit {} padded, {} small (stderr {})\n{item}",
                out.code, small.code, out.stderr
            ));
        } else if *valid && items_section(&out.stdout) != items_section(&src) {
            failures.push(format!("case {i}: items changed\n{item}"));
        } else if !*valid && (out.stderr != small.stderr || !out.stderr.contains("at line")) {
            failures.push(format!(
                "case {i}: refused otherwise: {} / {}\n{item}",
                out.stderr, small.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
