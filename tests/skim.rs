//! Skimming (an item's values other than its identity are checked by the parser but not
//! built; a large input gets it) must read exactly what keeping the trees reads: the same
//! items, metadata, trees and output, or the same refusal with the same message and position.
//! `compare_readings` compares the two on one input; here it runs on every fuzz corpus and
//! regression file and every example, each as sent and moved inside an item (as the values of
//! its root and under `spec:`), where skimming reads it, and on the YAML test suite's cases
//! the same way when the suite is present.

mod common;
#[path = "../fuzz/inputs.rs"]
mod inputs;

use package_variant::krm::resource_list::compare_readings;
use std::path::{Path, PathBuf};

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";
const ITEM: &str = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n";

/// `text` with every line but empty ones indented by `n` spaces (line breaks kept as they are).
fn indented(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        if !line.trim_end_matches(['\n', '\r']).is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `text` as sent, as the values of an item's root after its identity, and under `spec:`.
fn placements(text: &str) -> [String; 3] {
    let tail = "- apiVersion: v1\n  kind: Service\n  metadata: {name: b}\n  spec: {}\n";
    [
        text.to_string(),
        format!("{HEAD}{ITEM}{}{tail}", indented(text, 2)),
        format!("{HEAD}{ITEM}  spec:\n{}{tail}", indented(text, 4)),
    ]
}

fn compare(name: &str, text: &str) -> usize {
    let mut failures = 0;
    for (i, input) in placements(text).into_iter().enumerate() {
        // On a thread with the stack the binary gives its work (deep inputs).
        let (read, input) = std::thread::Builder::new()
            .stack_size(package_variant::STACK_SIZE)
            .spawn(move || (compare_readings(&input), input))
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("{name} (placement {i}) panicked"));
        if let Err(why) = read {
            eprintln!("{name} (placement {i}): {why}\n{input}\n----");
            failures += 1;
        }
    }
    failures
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn replay(dir: &str, build: impl Fn(&[u8]) -> Option<String>) -> (usize, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let (mut seen, mut failures) = (0, 0);
    for path in files(&root) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if let Some(text) = build(&bytes) {
            seen += 1;
            failures += compare(&path.display().to_string(), &text);
        }
    }
    (seen, failures)
}

fn as_text(b: &[u8]) -> Option<String> {
    String::from_utf8(b.to_vec()).ok()
}

#[test]
fn fuzz_corpora_and_regressions_read_the_same_skimmed() {
    let mut total = (0, 0);
    for (dir, build) in [
        (
            "fuzz/corpus/resource_list",
            as_text as fn(&[u8]) -> Option<String>,
        ),
        ("fuzz/corpus/package_variant", inputs::package_variant),
        (
            "fuzz/corpus/package_variant_set",
            inputs::package_variant_set,
        ),
        ("fuzz/regressions/package_variant", inputs::package_variant),
        (
            "fuzz/regressions/package_variant_set",
            inputs::package_variant_set,
        ),
    ] {
        let (seen, failures) = replay(dir, build);
        total = (total.0 + seen, total.1 + failures);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    for path in files(&root)
        .into_iter()
        .filter(|p| p.parent() == Some(&root))
    {
        if let Some(text) = std::fs::read(&path).ok().and_then(|b| as_text(&b)) {
            total = (
                total.0 + 1,
                total.1 + compare(&path.display().to_string(), &text),
            );
        }
    }
    assert!(total.0 > 5000, "only {} corpus inputs found", total.0);
    assert_eq!(
        total.1, 0,
        "{} of {} inputs read differently",
        total.1, total.0
    );
}

#[test]
fn examples_read_the_same_skimmed() {
    let (seen, failures) = replay("examples", as_text);
    assert!(seen > 50, "only {seen} example files found");
    assert_eq!(
        failures, 0,
        "{failures} of {seen} examples read differently"
    );
}

#[test]
fn yaml_test_suite_cases_read_the_same_skimmed() {
    let dir = match std::env::var_os("YAML_TEST_SUITE") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/yaml-test-suite"),
    };
    let data = dir.join("data");
    if !data.is_dir() {
        eprintln!("the YAML test suite is not at {}: skipped", dir.display());
        return;
    }
    let (mut seen, mut failures) = (0, 0);
    for path in files(&data).into_iter().filter(|p| p.ends_with("in.yaml")) {
        if let Some(text) = std::fs::read(&path).ok().and_then(|b| as_text(&b)) {
            seen += 1;
            failures += compare(&path.display().to_string(), &text);
        }
    }
    assert!(seen > 300, "only {seen} suite cases found");
    assert_eq!(failures, 0, "{failures} of {seen} cases read differently");
}

/// An alias in an item's metadata may name an anchor in a value that is skimmed: the item is
/// then read whole, and its namespace is the anchored value, as kpt reads it.
#[test]
fn an_alias_into_a_skimmed_value_reads_through() {
    use package_variant::krm::resource_list::ResourceList;
    let src = format!(
        "{HEAD}- apiVersion: v1\n  kind: ConfigMap\n  data: {{ns: &ns team, list: [&n x]}}\n  \
         metadata:\n    name: *n\n    namespace: *ns\n{ITEM}"
    );
    assert_eq!(compare_readings(&src), Ok(()));
    let rl = ResourceList::parse_keeping(&src, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rl.meta(0).namespace(), Some("team"));
    assert_eq!(rl.meta(0).name(), "x");
    assert!(rl.meta(0).problem.is_none() && rl.meta(1).name() == "a");
}

/// Explicit keys written as block scalars (`? |`, `? >-` and the rest), inside a skimmed value:
/// each is compared for duplicates by its text, as when the tree is kept, and a duplicate is
/// named by that text (before, a skimmed block scalar key read as `""`).
#[test]
fn block_scalar_keys_read_the_same_skimmed() {
    use package_variant::krm::resource_list::ResourceList;
    // (the value's text, the duplicate key named, if any)
    let cases: &[(&str, Option<&str>)] = &[
        ("? |\n  a\n: 1\n? |\n  b\n: 2\n", None),
        ("? |\n  a\n: 1\n'': 2\n", None),
        ("? >-\n  k\n: v\n? |-\n  l\n: w\n", None),
        ("? >-\n  k\n: v\nk: w\n", Some("k")),
        ("? |\n  a\n: 1\n? |\n  a\n: 2\n", Some("a\n")),
        ("? |+\n  a\n\n: 1\n? >\n  a\n\n: 2\n", None),
        ("? !!str |-\n  x y\n: 1\n? >-\n  x\n  y\n: 2\n", Some("x y")),
        ("x:\n  ? |\n    a\n  : 1\n  \"a\\n\": 2\n", Some("a\n")),
        ("? - |\n    a\n: 1\n? - |\n    b\n: 2\n", None),
    ];
    // A mapping too wide for the check at each new key: checked whole once read.
    let mut wide: String = (0..40).map(|i| format!("k{i}: v\n")).collect();
    wide.push_str("? |-\n  k7\n: again\n");
    let wide = [(wide.as_str(), Some("k7"))];
    for &(text, duplicate) in cases.iter().chain(&wide) {
        assert_eq!(compare(text, text), 0, "{text}");
        for input in placements(text).iter().skip(1) {
            let read = ResourceList::parse_keeping(input, false).map(|_| ());
            match duplicate {
                None => assert!(read.is_ok(), "{text}: {:?}", read.err().map(|e| e.0)),
                Some(key) => {
                    let why = read.expect_err(text).0;
                    let named = format!("mapping key {key:?} is defined twice");
                    assert!(why.contains(&named), "{text}: {why}");
                }
            }
        }
    }
}

/// Through the binary: a Kptfile the PackageVariant edits, with block scalar keys under a
/// field of its own, in a small input (trees kept) and in one past
/// `KEEP_TREES_UP_TO` (skimmed): the same exit code and the same message.
#[test]
fn block_scalar_keys_in_a_large_input_are_read_as_in_a_small_one() {
    use common::*;
    let filler = |i: usize| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: filler-{i}\n  annotations:\n    \
             config.kubernetes.io/path: filler-{i}.yaml\ndata:\n  k: {}\n",
            "v".repeat(80)
        )
    };
    let fillers: Vec<String> = (0..2000).map(filler).collect();
    // (the field's entries, the duplicate key named, if any)
    let cases: &[(&str, Option<&str>)] = &[
        ("? |\n  a\n: 1\n? |\n  b\n: 2\n", None),
        ("? |\n  a\n: 1\n'': 2\n", None),
        ("? >-\n  k\n: v\nk: w\n", Some("k")),
        ("? |\n  a\n: 1\n? |\n  a\n: 2\n", Some("a\\n")),
    ];
    for &(entries, duplicate) in cases {
        let kptfile = format!("{KPTFILE}x:\n{}", indented(entries, 2));
        let mut items = vec![kptfile.as_str(), PACKAGE_CONTEXT];
        let small = resource_list(&items, &pv_config(""));
        items.extend(fillers.iter().map(String::as_str));
        let large = resource_list(&items, &pv_config(""));
        assert!(
            large.len() > package_variant::krm::resource_list::KEEP_TREES_UP_TO,
            "the large input is skimmed"
        );
        let (small, large) = (run(&small), run(&large));
        assert_eq!(
            (small.code, &small.stderr),
            (large.code, &large.stderr),
            "{entries}"
        );
        match duplicate {
            None => assert_eq!(small.code, 0, "{entries}: {}", small.stderr),
            Some(key) => {
                let named = format!("mapping key \"{key}\" is defined twice");
                assert!(
                    small.code == 1 && small.stderr.contains(&named),
                    "{}",
                    small.stderr
                );
            }
        }
    }
}
