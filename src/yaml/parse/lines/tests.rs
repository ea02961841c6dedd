//! The scanner is taken for the shapes of real packages and gives up on each near-miss (the
//! parser then reads the item and alone decides what is refused). Each case is a ResourceList
//! whose first item is read with a parser just after its `-`, as the block list reader does.

use crate::yaml::parse::Parser;

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";
const NEXT: &str = "- apiVersion: v1\n  kind: Service\n";

/// What the scanner makes of `item` (the first item of a list, followed by another): the
/// item's end where it leaves the parser, or `None` when it gives up.
fn skim(item: &str) -> Option<usize> {
    let src = format!("{HEAD}{item}{NEXT}");
    let dash = HEAD.len();
    let mut p = Parser::at(&src, dash + 1);
    let read = p.skim_item_lines(0);
    read.map(|_| p.pos)
}

fn assert_taken(item: &str) {
    let end = skim(item).unwrap_or_else(|| panic!("gave up on\n{item}"));
    // The item ends at its last line with content, before the next item.
    let last = HEAD.len() + item.trim_end_matches(['\n', ' ']).len();
    assert!(
        end <= last + 1 && end >= HEAD.len() + item.trim_end().rfind('\n').unwrap_or(0),
        "ended at {end} (last content ends at {last})\n{item}"
    );
}

fn assert_gives_up(item: &str) {
    assert!(skim(item).is_none(), "taken:\n{item}");
}

#[test]
fn a_deployment_is_taken() {
    assert_taken(
        "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n    namespace: prod\n    labels:\n      app: web\n  spec:\n    replicas: 3\n    selector:\n      matchLabels:\n        app: web\n    template:\n      metadata:\n        labels:\n          app: web\n      spec:\n        containers:\n        - name: web\n          image: \"nginx:1.25\"\n          ports:\n          - containerPort: 80\n          args: [serve, '80']\n          command:\n          - --port\n",
    );
}

#[test]
fn a_service_is_taken() {
    assert_taken(
        "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: web\n    annotations:\n      a.b/c: 'x'\n  spec:\n    ports:\n    - port: 80\n      targetPort: 8080\n    selector: {app: web}\n",
    );
}

#[test]
fn a_config_map_with_a_block_scalar_is_taken() {
    assert_taken(
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    f: |\n      line 1\n\n      line 2\n    g: x\n",
    );
}

#[test]
fn flow_labels_and_comments_between_lines_are_taken() {
    assert_taken(
        "- apiVersion: v1 # c\n  # between\n  kind: ConfigMap\n  metadata:\n    name: c\n    labels: {app: web, tier: front}\n\n  # before data\n  data: {}\n",
    );
}

#[test]
fn a_comment_on_the_dash_line_is_taken() {
    assert_taken(
        "- # head comment\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n",
    );
}

/// Each near-miss of the shapes the scanner takes, as a value under `data:`.
const NEAR_MISSES: &[&str] = &[
    "x: &a v",
    "x: *a",
    "x: !t v",
    "x: [a",
    "x: {a: b",
    "x: 'unterminated",
    "x: \"unterminated",
    "x: \"a\\\"b\"",
    "x: a: b",
    "x: 'a' b",
    "x: a\u{2028}b",
    "x: a\u{85}b",
    "x: \u{feff}a",
    "x: v\r",
    "\tx: v",
    "x:\tv",
    "? x",
    "x: [a, , b]",
    "x: @a",
    "x: `a",
    "x: %a",
];

#[test]
fn each_near_miss_gives_up() {
    for miss in NEAR_MISSES {
        let item = format!(
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    {miss}\n"
        );
        assert_gives_up(&item);
    }
}

#[test]
fn odd_layouts_give_up() {
    for item in [
        // A sequence at the root of the item's mapping after a `- #` head.
        "- # c\n  - a\n",
        // Bad indentation.
        "- apiVersion: v1\n  kind: ConfigMap\n   x: 1\n",
        // A multi-line plain scalar.
        "- apiVersion: v1\n  kind: ConfigMap\n  x: a\n    b\n",
        // A multi-line flow collection.
        "- apiVersion: v1\n  kind: ConfigMap\n  x: [a,\n    b]\n",
        // A duplicate key.
        "- apiVersion: v1\n  kind: ConfigMap\n  kind: Secret\n",
    ] {
        assert_gives_up(item);
    }
}
