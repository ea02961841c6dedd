//! The YAML layer's structure through the binary: every construct kpt writes is read and
//! copied as written, nothing at the end of the item list is lost, keep block scalars keep
//! their value wherever they are, and flow mappings come back as they went in.

mod common;

use common::{items_section, pv_config, resource_list, run, KPTFILE, PACKAGE_CONTEXT};
use package_variant::yaml;

/// The items of a ResourceList as JSON (what a reader gets from them).
fn items_json(rl: &str) -> serde_json::Value {
    let node = yaml::parse(rl).unwrap_or_else(|e| panic!("{e}\n{rl}"));
    yaml::to_json(node.get("items").expect("items")).unwrap_or_else(|e| panic!("{e}\n{rl}"))
}

/// An item we do not own, written the way kpt writes YAML (go-yaml v3): merge keys as
/// `!!merge <<`, tagged, anchored and explicit keys, `!!omap`, `!!set`, single pairs in flow
/// sequences, tabs as separation, an anchor on the item's first key.
const KPT_WRITTEN: &str = "&first apiVersion: v1
kind: ConfigMap
metadata:
  name: kpt-written
  labels: &labels
    app: web
data: &base
  a: \"1\"
extra:
  !!merge <<: *base
  labels: *labels
  !!str 123: a tagged key
  &k anchored: key
  ? explicit
  : value
  ? |
    a block key
  : v
  ? [a, b]
  : a flow key
  *k : an alias key
  omap: !!omap [{a: 1}, {b: 2}]
  set: !!set {a: '', b: ''}
  pairs: [a: b, ? c : d]
  tab:\tseparated
";

#[test]
fn what_kpt_writes_passes_through_unchanged() {
    for config in [
        pv_config(""),
        pv_config("  packageContext:\n    data: {zone: a}\n"),
    ] {
        let input = resource_list(&[KPTFILE, KPT_WRITTEN, PACKAGE_CONTEXT], &config);
        let out = run(&input);
        assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
        let (before, after) = (items_section(&input), items_section(&out.stdout));
        let kpt = |s: &str| {
            s[s.find("- &first").unwrap()
                ..s.find("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: kptfile")
                    .unwrap()]
                .to_string()
        };
        assert_eq!(kpt(after), kpt(before));
    }
}

/// Comment and blank lines after the last item stay with it: before `functionConfig`, at the
/// end of the input, and when the last item is the one the function edits.
#[test]
fn the_last_item_keeps_its_trailing_comments_and_blank_lines() {
    let tail =
        "    # a trailing comment of the last item\n\n  # less indented\n# at column 0\n \n\n";
    let with_tail = |rl: String| rl.replace("functionConfig:", &format!("{tail}functionConfig:"));
    let last_cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: last\ndata:\n  x: y\n";
    // Before functionConfig, the last item untouched.
    let input = with_tail(resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, last_cm],
        &pv_config(""),
    ));
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let want = format!("    x: y\n{tail}functionConfig:\n");
    assert!(out.stdout.contains(&want), "{}", out.stdout);
    // At the end of the input (functionConfig first), the last item untouched.
    let moved = {
        let i = input.find(tail).unwrap();
        let j = input.find("items:").unwrap();
        format!(
            "{}{}{}",
            &input[..j],
            &input[i + tail.len()..],
            &input[j..i + tail.len()]
        )
    };
    let out = run(&moved);
    assert_eq!(out.code, 0, "{}\n{moved}", out.stderr);
    assert!(out.stdout.contains(&want), "{}", out.stdout);
    // The last item is the package context, which the function edits.
    let input = with_tail(resource_list(
        &[KPTFILE, last_cm, PACKAGE_CONTEXT],
        &pv_config("  packageContext:\n    data: {zone: a}\n"),
    ));
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let want = format!("    name: pkg\n    zone: a\n{tail}functionConfig:\n");
    assert!(out.stdout.contains(&want), "{}", out.stdout);
}

/// `|+` scalars (kpt writes `|2+` when the value starts with empty lines) keep their value as
/// the last value of the last item, in the middle of the list, in an item the function edits,
/// and when their value is nothing but line breaks.
#[test]
fn keep_block_scalars_keep_their_value_in_every_position() {
    let keeps = "  only-empty-lines: |2+\n\n\n  kept: |+\n    text\n\n  indented: |2+\n\n      more\n\n  last: |2+\n\n\n";
    let cm = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n{keeps}")
    };
    let context = format!("{PACKAGE_CONTEXT}{keeps}");
    for config in [
        pv_config(""),
        pv_config("  packageContext:\n    data: {zone: a}\n"),
    ] {
        for items in [
            vec![KPTFILE, &context, &cm("middle") as &str, &cm("last")],
            vec![KPTFILE, &cm("first"), &context],
        ] {
            let input = resource_list(&items, &config);
            let out = run(&input);
            assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
            let (before, after) = (items_json(&input), items_json(&out.stdout));
            for (i, item) in before.as_array().unwrap().iter().enumerate() {
                let Some(data) = item.get("data") else {
                    continue;
                };
                for (k, v) in data.as_object().unwrap() {
                    assert_eq!(&after[i]["data"][k], v, "item {i} key {k}\n{}", out.stdout);
                }
            }
            assert_eq!(before[1]["data"]["only-empty-lines"], "\n\n");
            assert_eq!(before[1]["data"]["indented"], "\n  more\n\n");
        }
    }
}

/// A flow mapping whose `{` stands alone on its line, as an item and as the whole (JSON)
/// ResourceList, comes back once, with its edit, and reads as it did.
#[test]
fn flow_mappings_with_the_brace_on_its_own_line() {
    let item = "{\n  \"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"flow\"},\n  \"data\": {\"k\": \"v\"}\n}\n";
    let input = resource_list(&[KPTFILE, PACKAGE_CONTEXT, item], &pv_config(""));
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    let context = "{\n  \"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"kptfile.kpt.dev\", \"annotations\": {\"config.kubernetes.io/path\": \"package-context.yaml\"}},\n  \"data\": {\"name\": \"pkg\"}\n}\n";
    let input = resource_list(
        &[KPTFILE, context],
        &pv_config("  packageContext:\n    data: {zone: a}\n"),
    );
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let edited =
        &out.stdout[out.stdout.find("- {").unwrap()..out.stdout.find("functionConfig").unwrap()];
    assert_eq!(edited.matches('{').count(), 4, "{edited}");
    let after = items_json(&out.stdout);
    assert_eq!(
        after[1]["data"],
        serde_json::json!({"name": "pkg", "zone": "a"})
    );
    let json = "{\n\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\",\n\"items\": [\n{\"apiVersion\": \"kpt.dev/v1\", \"kind\": \"Kptfile\", \"metadata\": {\"name\": \"pkg\", \"annotations\": {\"config.kubernetes.io/path\": \"Kptfile\"}}},\n{\n\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n\"metadata\": {\"name\": \"kptfile.kpt.dev\", \"annotations\": {\"config.kubernetes.io/path\": \"package-context.yaml\"}},\n\"data\": {\"name\": \"pkg\"}\n}\n],\n\"functionConfig\": {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"x\"}, \"data\": {\"zone\": \"a\"}}\n}\n";
    let out = run(json);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains('{'), "{}", out.stdout);
    assert_eq!(
        items_json(&out.stdout)[1]["data"],
        serde_json::json!({"name": "pkg", "zone": "a"})
    );
}

/// A second document is refused by name, wherever it starts.
#[test]
fn a_second_document_is_refused_by_name() {
    let one = resource_list(&[KPTFILE], &pv_config(""));
    for input in [
        format!("{one}---\n"),
        format!("{one}...\n{one}"),
        format!("---\n{one}---\n{one}"),
        format!("{one}...\n%YAML 1.2\n---\n"),
    ] {
        let out = run(&input);
        assert_eq!(out.code, 1);
        assert!(
            out.stderr.contains(
                "the input holds more than one YAML document; send exactly one ResourceList"
            ),
            "{}",
            out.stderr
        );
    }
    // `...` alone ends the one document.
    let out = run(&format!("{one}...\n# done\n"));
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// An unclosed `{` or `[` is named where it opens, with the line where it was found to end
/// (it would otherwise read as an indentation problem lines later); one inside another is
/// named once, the innermost; a closed one with a line indented too little says so too.
#[test]
fn an_unclosed_flow_collection_is_named_where_it_opens() {
    let config = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: f}\n";
    let head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";
    let item = |labels: &str| {
        format!(
            "{head}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels: {labels}\n  data:\n    k: v\n{config}"
        )
    };
    for (input, message) in [
        (
            item("{app: x"),
            "a flow mapping is not closed: line 9 column 3 is indented no more than the block around it, so the '}' is missing before that line (close the flow mapping there, or indent the line more if it goes on); its '{' is at line 8 column 13",
        ),
        (
            item("[a, b"),
            "a flow sequence is not closed: line 9 column 3 is indented no more than the block around it, so the ']' is missing before that line (close the flow sequence there, or indent the line more if it goes on); its '[' is at line 8 column 13",
        ),
        (
            item("{app: [x, y}"),
            "expected ',' or ']' in a flow sequence, found '}' at line 8 column 24",
        ),
        (
            item("{app: [x, y"),
            "a flow sequence is not closed: line 9 column 3 is indented no more than the block around it, so the ']' is missing before that line (close the flow sequence there, or indent the line more if it goes on); its '[' is at line 8 column 19",
        ),
        (
            format!("{head}- {{apiVersion: v1"),
            "a flow mapping is not closed: the input ends before its '}'; its '{' is at line 4 column 3",
        ),
    ] {
        let out = run(&input);
        assert_eq!(out.code, 1, "{input}");
        assert_eq!(
            out.stderr.trim_end(),
            format!("package-variant: input is not valid YAML: {message}"),
            "{input}"
        );
    }
}
