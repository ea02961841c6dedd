//! The trees kept on a small input ([`KEEP_TREES_UP_TO`]) are exactly what parsing each item
//! again gives (spans, trivia, styles, properties, flags), so [`ResourceList::tree`] hands out
//! the same tree either way: over the examples' packages (block, JSON and flow lists), the
//! benchmark workloads, hand-written shapes (comments, anchors and aliases, tags, block
//! scalars, flow items), the YAML test suite's cases as items (when it is next to the crate),
//! and random lists of them.

use super::super::*;
use crate::yaml::{parse, to_json, Parser};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

#[path = "../../../../benches/support/workloads.rs"]
mod workloads;

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n";

/// Compares every kept tree of `src` with a re-parse of its item; how many items were compared
/// (none when `src` is not a ResourceList).
fn check(src: &str) -> usize {
    let Ok(rl) = ResourceList::parse(src) else {
        return 0;
    };
    assert!(src.len() <= KEEP_TREES_UP_TO, "{} bytes", src.len());
    assert_eq!(rl.kept.len(), rl.items.len(), "{src}");
    for (i, kept) in rl.kept.iter().enumerate() {
        let again = Parser::reparse_item(src, rl.items.origin(i), value_limit(src.len()));
        assert_eq!(again.as_ref(), Ok(kept), "item {i} of:\n{src}");
        assert_eq!(rl.tree(i).as_ref().ok(), Some(kept));
        assert!(matches!(rl.original(i), Ok(Cow::Borrowed(t)) if std::ptr::eq(t, kept)));
    }
    rl.items.len()
}

/// `doc` as an entry of a block list indented `indent`: after `- `, or (`own_line`) on the
/// lines below a bare `-`.
fn block_item(doc: &str, indent: usize, own_line: bool) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!("{pad}-{}", if own_line { "\n" } else { " " });
    for (k, line) in doc.split_inclusive('\n').enumerate() {
        if (k > 0 || own_line) && !line.trim_end_matches(['\n', '\r']).is_empty() {
            out.push_str(&pad);
            out.push_str("  ");
        }
        out.push_str(line);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Block ResourceLists of `docs` in each item form, with a comment between items and a
/// functionConfig after them.
fn block_lists(docs: &[String]) -> Vec<String> {
    let mut lists = Vec::new();
    for (indent, own_line) in [(0, false), (2, false), (0, true)] {
        let mut src = format!("{HEAD}items:\n");
        for (k, doc) in docs.iter().enumerate() {
            if k % 2 == 1 {
                src.push_str(&format!("{}# before item {k}\n\n", " ".repeat(indent)));
            }
            src.push_str(&block_item(doc, indent, own_line));
        }
        lists.push(src.clone());
        src.push_str("# tail\nfunctionConfig:\n  kind: ConfigMap\n  data: {a: b}\n");
        lists.push(src);
    }
    lists
}

/// JSON ResourceLists of `docs` (minified and indented), and a block ResourceList with a
/// flow list of them.
fn flow_lists(docs: &[String]) -> Vec<String> {
    let values: Vec<serde_json::Value> = docs
        .iter()
        .filter_map(|d| parse(d).ok().and_then(|n| to_json(&n).ok()))
        .collect();
    if values.is_empty() {
        return Vec::new();
    }
    let rl = serde_json::json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": values,
    });
    let items: Vec<String> = values.iter().map(|v| format!("  {v}")).collect();
    vec![
        rl.to_string(),
        serde_json::to_string_pretty(&rl).unwrap_or_default(),
        format!("{HEAD}items: [ # flow\n{}\n  ]\n", items.join(",\n")),
    ]
}

/// The documents of a YAML file (split at `---` lines).
fn documents(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            docs.push(String::new());
        } else if let Some(d) = docs.last_mut() {
            d.push_str(line);
        }
    }
    docs.retain(|d| !d.trim().is_empty());
    docs
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml")
            || p.file_name().is_some_and(|n| n == "Kptfile")
        {
            out.push(p);
        }
    }
}

/// Each example package's resources, as block, JSON and flow lists.
#[test]
fn examples_keep_what_a_reparse_gives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut compared = 0;
    let mut packages = std::fs::read_dir(&root)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect::<Vec<_>>())
        .unwrap_or_default();
    packages.sort();
    for pkg in packages.iter().filter(|p| p.is_dir()) {
        let mut paths = Vec::new();
        files(pkg, &mut paths);
        let docs: Vec<String> = paths
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .flat_map(|t| documents(&t))
            .collect();
        for src in block_lists(&docs).iter().chain(&flow_lists(&docs)) {
            let n = check(src);
            assert!(n > 0 || docs.is_empty(), "not read:\n{src}");
            compared += n;
        }
    }
    assert!(packages.len() >= 10 && compared >= 1000, "{compared} items");
}

/// The benchmark workloads.
#[test]
fn workloads_keep_what_a_reparse_gives() {
    let w1 = workloads::W1::with_items(20);
    let w2 = workloads::W2::with_repositories(20);
    let inputs = [
        workloads::w1(w1),
        workloads::w1(workloads::W1::with_items(200)),
        workloads::w1_floor(&workloads::w1(w1), w1),
        workloads::w3(),
        workloads::w2(workloads::W2::with_repositories(50)),
        workloads::w2_rollout(w2),
        workloads::w2_tagged(w2),
    ];
    for src in &inputs {
        assert!(check(src) > 0);
    }
}

/// Shapes of items: comments, anchors and aliases, tags, merge keys, block scalars, flow
/// collections, explicit keys, empty and nested entries. Each is the text after `- `.
const SHAPES: &[&str] = &[
    "&a {x: 1}  # flow with an anchor",
    "[&a x, *a]",
    "!!map {y: 2}",
    "a: 1 # c\nb: &b [1, 2,\n  3]\nc: *b\n!!merge <<: {m: 1}\n",
    "|\n  literal\n   text\n",
    ">-\n  folded\n  text\n\n",
    "",
    "null",
    "- nested\n- - seq\n  # inside\n-\n",
    "? complex key\n: value\n? [flow, key]\n: {v: 1}\n",
    "'single' ",
    "\"double\\n\\t\" # c",
    "plain\n  multi line\n\n  scalar",
    "!custom tagged",
    "&anc\nk: v\nl: !!str 12\n",
    "  a: 1\n  b:\n  - x\n  -   y: 2\n",
    "a:\tb\n",
    "{a: b,\n  c: d}",
    "[a: b, ? c : d, : e, \"j\":1]",
    "# only a comment\nk: v",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm # n\n  annotations: {x: 'y'}\ndata:\n  k: |+\n    kept\n\n",
    "{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"data\": {\"a\": [1, 2.5, true, null]}}",
];

/// The shapes in block lists, in flow lists, and as flow items of a flow root.
#[test]
fn shapes_keep_what_a_reparse_gives() {
    let docs: Vec<String> = SHAPES.iter().map(|s| s.to_string()).collect();
    let mut compared = 0;
    for src in block_lists(&docs).iter().chain(&flow_lists(&docs)) {
        let n = check(src);
        assert!(
            n > 0,
            "not read: {:?}\n{src}",
            ResourceList::parse(src).err()
        );
        compared += n;
    }
    let flow = "{apiVersion: config.kubernetes.io/v1, kind: ResourceList, items: [ &x {a: 1}, [&y b, *y],\n [b: c], plain\n scalar, 'q', ? k : v, !t {}, \"s\" ], functionConfig: {}}\n";
    compared += check(flow);
    compared += check(&format!(
        "{HEAD}items: [&x {{a: 1}}, {{b: &y 2, c: *y}}, [b: c], {{c: d}}]\n"
    ));
    assert!(compared >= 6 * SHAPES.len(), "{compared} items");
}

/// Every valid case of the YAML test suite that reads as an item, when the suite is found
/// (`$YAML_TEST_SUITE` or `../shared/yaml-test-suite`, as tests/yaml_test_suite.rs reads it).
#[test]
fn yaml_test_suite_cases_keep_what_a_reparse_gives() {
    let dir = std::env::var_os("YAML_TEST_SUITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/yaml-test-suite"))
        .join("data");
    let mut cases = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for p in std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
        {
            let p = p.path();
            if p.join("in.yaml").is_file() && !p.join("error").exists() {
                cases.push(p.join("in.yaml"));
            } else if p.is_dir() {
                stack.push(p);
            }
        }
    }
    let mut compared = 0;
    for case in &cases {
        let Ok(doc) = std::fs::read_to_string(case) else {
            continue;
        };
        let docs = [doc];
        for src in block_lists(&docs).iter().chain(&flow_lists(&docs)) {
            compared += check(src);
        }
    }
    assert!(cases.is_empty() || compared >= 1000, "{compared} items");
}

/// A list of shapes: each with a lead of comment or blank lines or none, in a list indented 0
/// or 2, on the `-` line or below it.
fn shape_list() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((0..SHAPES.len(), 0..3usize), 1..8),
        0..2usize,
        any::<bool>(),
    )
        .prop_map(|(items, indent, own_line)| {
            let indent = 2 * indent;
            let mut src = format!("{HEAD}items:\n");
            for (shape, lead) in items {
                let pad = " ".repeat(indent);
                let comment = format!("{pad}# lead\n  \n");
                src.push_str(["", "\n", comment.as_str()][lead]);
                src.push_str(&block_item(SHAPES[shape], indent, own_line));
            }
            src
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Random lists of the shapes.
    #[test]
    fn random_lists_keep_what_a_reparse_gives(src in shape_list()) {
        check(&src);
    }
}

/// Past [`KEEP_TREES_UP_TO`] nothing is kept: each tree is parsed again when asked for.
#[test]
fn large_inputs_keep_no_trees() {
    let item = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n";
    let src = format!(
        "{HEAD}items:\n{}",
        item.repeat(KEEP_TREES_UP_TO / item.len() + 1)
    );
    let rl = ResourceList::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    assert!(rl.kept.is_empty() && rl.items.len() > 4000);
    assert!(matches!(rl.original(7), Ok(Cow::Owned(_))));
    let small = ResourceList::parse(&src[..src.len() - 20 * item.len()]).ok();
    let kept = small.as_ref().and_then(|s| s.kept.get(7));
    assert_eq!(rl.tree(7).ok().as_ref(), kept);
}
