//! Skimming (an item's values other than its identity are checked by the parser but not
//! built; a large input gets it) must read exactly what keeping the trees reads: the same
//! items, metadata, trees and output, or the same refusal with the same message and position.
//! `compare_readings` compares the two on one input; here it runs on every fuzz corpus and
//! regression file and every example, each as sent and moved inside an item (as the values of
//! its root and under `spec:`), where skimming reads it, and on the YAML test suite's cases
//! the same way when the suite is present.

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
