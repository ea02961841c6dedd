//! Property tests through the library entry point ([`process_here`]: no process spawn), on
//! generated packages, PackageVariants, PackageVariantSets and YAML documents.
//!
//! Properties:
//! 1. idempotence: a PackageVariant applied to its own output (with the same in-cluster
//!    objects fed again) changes nothing;
//! 2. pass-through: every item the function does not own comes out byte-identical, in order;
//! 3. all or nothing: with an error result, the items come out exactly as they went in;
//! 4. determinism: the same input gives byte-identical output;
//! 5. expander: PackageVariant names are unique and do not depend on the order of the
//!    Repository items (and a second run on the output changes nothing);
//! 6. YAML layer: parse -> emit is byte-identical; parse -> touch everything -> emit -> parse
//!    reads the same values.
//!
//! Each property runs `PROPTEST_CASES` cases (default [`DEFAULT_CASES`]).

mod common;

use common::{items_section, resource_list};
use package_variant::yaml::{self, emit, Node};
use package_variant::{process_here, Outcome};
use proptest::prelude::*;
use proptest::sample::select;

/// Cases per property unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 1500;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases,
        max_shrink_iters: 2000,
        // About one generated package in five is invalid on purpose (all or nothing is tested
        // on those); idempotence skips them.
        max_global_rejects: cases.max(1024),
        // Failing cases are saved beside this file (tests/properties.proptest-regressions) and
        // replayed first on the next run: commit that file with the fix.
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

fn run(input: &str) -> Outcome {
    process_here(input.as_bytes())
}

// ================================================================ YAML trees

/// A scalar as written.
#[derive(Debug, Clone)]
enum Sc {
    /// On one line; `flow` when it may also stand inside `[...]` / `{...}`.
    Inline { text: String, flow: bool },
    /// A block scalar: header (`|`, `>-`, ...) and its lines (without indentation).
    Block { header: String, lines: Vec<String> },
}

#[derive(Debug, Clone)]
struct MapEntry {
    key: String,
    value: Tree,
    /// A comment line before the entry.
    lead: Option<String>,
    /// A comment at the end of the entry's (first) line.
    trailing: Option<String>,
}

#[derive(Debug, Clone)]
enum Tree {
    Scalar(Sc),
    Map {
        entries: Vec<MapEntry>,
        flow: bool,
    },
    Seq {
        items: Vec<Tree>,
        flow: bool,
        wide: bool,
    },
}

/// Scalars that a careless YAML layer would change, and ordinary ones.
const TRICKY: &[&str] = &[
    "\"0123\"",
    "'yes'",
    "\"on\"",
    "\"1.0\"",
    "\"~\"",
    "'~'",
    "\"true\"",
    "\"null\"",
    "\"0x1F\"",
    "\".inf\"",
    "''",
    "\"\"",
    "'it''s'",
    "\"tab\\there \\u00e9\"",
    "\"a: b # not a comment\"",
    "'x # y'",
    "0123",
    "yes",
    "on",
    "1.0",
    "~",
    "null",
    "true",
    "-1",
    "1e3",
    "0o17",
    "0x1F",
    "123456789012345678901234567890",
    ".inf",
    "plain words here",
    "nginx:1.25",
    "a-b_c.d/e",
    "é ü",
    "500m",
];

/// The line breaks beyond LF and CR that go-yaml breaks on (U+0085 is a control, never drawn).
const WIDE_BREAKS: [char; 2] = ['\u{2028}', '\u{2029}'];

fn inline_scalar() -> impl Strategy<Value = Sc> {
    prop_oneof![
        4 => select(TRICKY).prop_map(|t| Sc::Inline {
            text: t.to_string(),
            flow: true
        }),
        2 => "[a-z][a-z0-9 ._/-]{0,12}[a-z0-9]".prop_map(|t| Sc::Inline { text: t, flow: true }),
        // Double-quoted via JSON escaping (JSON strings are YAML double-quoted scalars).
        // U+2028 and U+2029 are line breaks to go-yaml and to us: written raw, the scalar would
        // go on at column 0 (tests/yaml_line_breaks.rs covers them); JSON leaves them raw.
        2 => "\\PC{0,12}".prop_map(|s| Sc::Inline {
            text: serde_json::to_string(&s.replace(WIDE_BREAKS, " ")).unwrap_or_default(),
            flow: true
        }),
        1 => "[^\\p{C}]{0,10}".prop_map(|s| Sc::Inline {
            text: format!("'{}'", s.replace(WIDE_BREAKS, " ").replace('\'', "''")),
            flow: true
        }),
    ]
}

fn block_scalar() -> impl Strategy<Value = Sc> {
    (
        select(&["|", "|-", ">", ">-", "|+"][..]),
        "[a-z][a-z ]{0,8}[a-z]",
        prop::collection::vec(
            prop_oneof![
                3 => "[a-z][a-z ]{0,8}[a-z]",
                1 => Just(String::new()),
                1 => " [a-z]{1,5}",
            ],
            0..4,
        ),
    )
        .prop_map(|(h, first, rest)| {
            let mut lines = vec![first];
            lines.extend(rest);
            Sc::Block {
                header: h.to_string(),
                lines,
            }
        })
}

fn scalar() -> impl Strategy<Value = Sc> {
    prop_oneof![5 => inline_scalar(), 1 => block_scalar()]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z][a-zA-Z0-9_.-]{0,8}",
        1 => select(&["on", "yes", "0123", "true", "y", "n"][..]).prop_map(String::from),
    ]
}

fn comment() -> impl Strategy<Value = Option<String>> {
    prop::option::weighted(0.2, "[a-z ]{0,10}".prop_map(|c| format!("# {c}")))
}

fn map_of(value: BoxedStrategy<Tree>, max: usize) -> impl Strategy<Value = Vec<MapEntry>> {
    prop::collection::vec((key(), value, comment(), comment()), 0..max).prop_map(|v| {
        let mut seen = std::collections::HashSet::new();
        v.into_iter()
            .filter(|(k, ..)| seen.insert(k.clone()))
            .map(|(key, value, lead, trailing)| MapEntry {
                key,
                value,
                lead,
                trailing,
            })
            .collect()
    })
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = scalar().prop_map(Tree::Scalar);
    leaf.prop_recursive(4, 40, 5, |inner| {
        let inner = inner.boxed();
        prop_oneof![
            (map_of(inner.clone(), 5), prop::bool::weighted(0.25))
                .prop_map(|(entries, flow)| Tree::Map { entries, flow }),
            (
                prop::collection::vec(inner, 0..5),
                prop::bool::weighted(0.25),
                any::<bool>()
            )
                .prop_map(|(items, flow, wide)| Tree::Seq { items, flow, wide }),
        ]
    })
}

/// A block mapping document root.
fn document() -> impl Strategy<Value = (Vec<MapEntry>, Option<String>, Option<String>)> {
    (map_of(tree().boxed(), 6), comment(), comment())
        .prop_filter("a document has at least one entry", |(e, ..)| !e.is_empty())
}

/// Whether a tree can be written in flow style (no block scalars inside).
fn flowable(t: &Tree) -> bool {
    match t {
        Tree::Scalar(Sc::Inline { flow, .. }) => *flow,
        Tree::Scalar(Sc::Block { .. }) => false,
        Tree::Map { entries, .. } => entries.iter().all(|e| flowable(&e.value)),
        Tree::Seq { items, .. } => items.iter().all(flowable),
    }
}

/// Whether a collection is written in flow style here.
fn as_flow(t: &Tree) -> bool {
    match t {
        Tree::Scalar(_) => false,
        Tree::Map { entries, flow } => entries.is_empty() || (*flow && flowable(t)),
        Tree::Seq { items, flow, .. } => items.is_empty() || (*flow && flowable(t)),
    }
}

fn flow_text(t: &Tree) -> String {
    match t {
        Tree::Scalar(Sc::Inline { text, .. }) => text.clone(),
        Tree::Scalar(Sc::Block { .. }) => unreachable!("not flowable"),
        Tree::Map { entries, .. } => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|e| format!("{}: {}", e.key, flow_text(&e.value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Tree::Seq { items, .. } => format!(
            "[{}]",
            items.iter().map(flow_text).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn pad(n: usize) -> String {
    " ".repeat(n)
}

fn block_lines(lines: &[String], indent: usize, out: &mut String) {
    for l in lines {
        if !l.is_empty() {
            out.push_str(&pad(indent));
            out.push_str(l);
        }
        out.push('\n');
    }
}

/// Writes a block mapping at `indent`. `first_inline`: the first entry follows `- ` on the
/// line already started by the caller, so it can have no comment line before it.
fn write_map(entries: &[MapEntry], indent: usize, first_inline: bool, out: &mut String) {
    for (i, e) in entries.iter().enumerate() {
        if let (Some(c), false) = (&e.lead, i == 0 && first_inline) {
            out.push_str(&pad(indent));
            out.push_str(c);
            out.push('\n');
        }
        out.push_str(&pad(indent));
        out.push_str(&e.key);
        out.push(':');
        let trailing = e
            .trailing
            .as_ref()
            .map(|c| format!(" {c}"))
            .unwrap_or_default();
        match &e.value {
            Tree::Scalar(Sc::Inline { text, .. }) => {
                out.push(' ');
                out.push_str(text);
                out.push_str(&trailing);
                out.push('\n');
            }
            Tree::Scalar(Sc::Block { header, lines }) => {
                out.push(' ');
                out.push_str(header);
                out.push_str(&trailing);
                out.push('\n');
                block_lines(lines, indent + 2, out);
            }
            t if as_flow(t) => {
                out.push(' ');
                out.push_str(&flow_text(t));
                out.push_str(&trailing);
                out.push('\n');
            }
            Tree::Map { entries, .. } => {
                out.push_str(&trailing);
                out.push('\n');
                write_map(entries, indent + 2, false, out);
            }
            Tree::Seq { items, wide, .. } => {
                out.push_str(&trailing);
                out.push('\n');
                write_seq(items, if *wide { indent + 2 } else { indent }, out);
            }
        }
    }
}

fn write_seq(items: &[Tree], indent: usize, out: &mut String) {
    for item in items {
        let prefix = format!("{}- ", pad(indent));
        match item {
            Tree::Scalar(Sc::Inline { text, .. }) => {
                out.push_str(&prefix);
                out.push_str(text);
                out.push('\n');
            }
            Tree::Scalar(Sc::Block { header, lines }) => {
                out.push_str(&prefix);
                out.push_str(header);
                out.push('\n');
                block_lines(lines, indent + 2, out);
            }
            t if as_flow(t) => {
                out.push_str(&prefix);
                out.push_str(&flow_text(t));
                out.push('\n');
            }
            Tree::Map { entries, .. } => {
                let mut sub = String::new();
                write_map(entries, indent + 2, true, &mut sub);
                out.push_str(&prefix);
                out.push_str(&sub[indent + 2..]);
            }
            Tree::Seq { items, .. } => {
                let mut sub = String::new();
                write_seq(items, indent + 2, &mut sub);
                out.push_str(&prefix);
                out.push_str(&sub[indent + 2..]);
            }
        }
    }
}

fn document_text(entries: &[MapEntry], head: &Option<String>, foot: &Option<String>) -> String {
    let mut s = String::new();
    if let Some(h) = head {
        s.push_str(h);
        s.push('\n');
    }
    write_map(entries, 0, false, &mut s);
    if let Some(f) = foot {
        s.push_str(f);
        s.push('\n');
    }
    s
}

fn touch_all(n: &mut Node) {
    if let Some(entries) = n.entries_mut() {
        for e in entries {
            e.trivia.set_whole(None);
            touch_all(&mut e.value);
        }
    } else if let Some(items) = n.items_mut() {
        for i in items {
            i.trivia.set_whole(None);
            touch_all(&mut i.value);
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// parse -> emit is byte-identical; touching every collection and emitting again reads back
    /// the same values.
    #[test]
    fn yaml_roundtrip((entries, head, foot) in document()) {
        let src = document_text(&entries, &head, &foot);
        let node = yaml::parse(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        prop_assert_eq!(emit::to_string(&src, &node), src.clone());
        // A value JSON cannot hold (`.inf`) is an error on both sides alike.
        let before = yaml::to_json(&node);
        let mut touched = node.clone();
        touch_all(&mut touched);
        let text = emit::to_string(&src, &touched);
        let again = yaml::parse(&text)
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- touched:\n{text}--- source:\n{src}")))?;
        let after = yaml::to_json(&again);
        prop_assert_eq!(before, after, "touched:\n{}\nsource:\n{}", text, src);
    }
}

// ================================================================ packages

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Kptfile,
    Context,
    Point,
    /// An in-cluster object fed without a path: context, removed from the output.
    InClusterFed,
    /// Anything else: passes through byte for byte.
    Other,
}

#[derive(Debug, Clone)]
struct Pkg {
    items: Vec<(String, Role)>,
    config: String,
}

impl Pkg {
    fn input(&self) -> String {
        let items: Vec<&str> = self.items.iter().map(|(t, _)| t.as_str()).collect();
        resource_list(&items, &self.config)
    }
}

fn indent_block(text: &str, n: usize) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{}{l}", pad(n))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// A mapping body (`data:` / `spec:`) at indent 2, or `{}`.
fn body(entries: &[MapEntry]) -> String {
    if entries.is_empty() {
        return " {}\n".to_string();
    }
    let mut s = String::from("\n");
    write_map(entries, 2, false, &mut s);
    s
}

/// `key: value` lines of labels or annotations (values inline scalars) at `indent`.
fn pairs_text(pairs: &[(String, Sc)], indent: usize) -> String {
    let mut s = String::new();
    for (k, v) in pairs {
        if let Sc::Inline { text, .. } = v {
            s.push_str(&format!("{}{k}: {text}\n", pad(indent)));
        }
    }
    s
}

fn label_pairs() -> impl Strategy<Value = Vec<(String, Sc)>> {
    prop::collection::btree_map("example\\.com/[a-z]{1,6}", inline_scalar(), 0..4)
        .prop_map(|m| m.into_iter().collect())
}

const NAMESPACES: &[Option<&str>] = &[None, None, Some("default"), Some("team-b")];
const IN_CLUSTER_NAMES: &[&str] = &["endpoints", "team", "db"];
const CONTEXT_KEYS: &[&str] = &["region", "zone", "env", "on", "yes", "0123", "tier"];

#[derive(Debug, Clone)]
struct Resource {
    kind: usize,
    name: String,
    namespace: Option<&'static str>,
    labels: Vec<(String, Sc)>,
    annotations: Vec<(String, Sc)>,
    body: Vec<MapEntry>,
    /// `kpt.dev/config-injection` value, if a point.
    point: Option<&'static str>,
    head_comment: Option<String>,
}

const KINDS: &[(&str, &str, &str)] = &[
    ("v1", "ConfigMap", "data"),
    ("example.com/v1", "Team", "spec"),
    ("apps/v1", "Deployment", "spec"),
];

fn resource() -> impl Strategy<Value = Resource> {
    (
        0..KINDS.len(),
        "[a-z][a-z0-9-]{0,10}[a-z0-9]",
        select(NAMESPACES),
        label_pairs(),
        label_pairs(),
        map_of(tree().boxed(), 4),
        prop::option::weighted(
            0.3,
            prop_oneof![
                10 => Just("required"),
                10 => Just("optional"),
                1 => Just("Required"),
            ],
        ),
        comment(),
    )
        .prop_map(
            |(kind, name, namespace, labels, annotations, body, point, head_comment)| Resource {
                kind,
                name,
                namespace,
                labels,
                annotations,
                body,
                point: if kind == 2 { None } else { point },
                head_comment,
            },
        )
}

fn resource_text(r: &Resource, index: usize, path: &str) -> String {
    let (api, kind, field) = KINDS[r.kind];
    let mut s = String::new();
    if let Some(c) = &r.head_comment {
        s.push_str(c);
        s.push('\n');
    }
    // Points get unique names so they never collide by accident.
    let name = match r.point {
        Some(_) => format!("point-{index}"),
        None => r.name.clone(),
    };
    s.push_str(&format!(
        "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n"
    ));
    if let Some(ns) = r.namespace {
        s.push_str(&format!("  namespace: {ns}\n"));
    }
    if !r.labels.is_empty() {
        s.push_str("  labels:\n");
        s.push_str(&pairs_text(&r.labels, 4));
    }
    s.push_str("  annotations:\n");
    s.push_str(&format!(
        "    config.kubernetes.io/path: '{path}'\n    config.kubernetes.io/index: '0'\n    internal.config.kubernetes.io/path: '{path}'\n"
    ));
    if let Some(p) = r.point {
        s.push_str(&format!("    kpt.dev/config-injection: {p}\n"));
    }
    s.push_str(&pairs_text(&r.annotations, 4));
    s.push_str(field);
    s.push(':');
    s.push_str(&body(&r.body));
    s
}

#[derive(Debug, Clone)]
struct InCluster {
    kind: usize,
    name: &'static str,
    namespace: Option<&'static str>,
    with_path: bool,
    body: Vec<MapEntry>,
}

fn in_cluster() -> impl Strategy<Value = InCluster> {
    (
        0..2usize,
        select(IN_CLUSTER_NAMES),
        select(NAMESPACES),
        prop::bool::weighted(0.2),
        map_of(tree().boxed(), 3),
    )
        .prop_map(|(kind, name, namespace, with_path, body)| InCluster {
            kind,
            name,
            namespace,
            with_path,
            body,
        })
}

fn in_cluster_text(o: &InCluster, index: usize) -> String {
    let (api, kind, field) = KINDS[o.kind];
    let mut s = format!(
        "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {}\n",
        o.name
    );
    if let Some(ns) = o.namespace {
        s.push_str(&format!("  namespace: {ns}\n"));
    }
    s.push_str("  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\n");
    if o.with_path {
        s.push_str(&format!(
            "    config.kubernetes.io/path: cluster/{index}.yaml\n"
        ));
    }
    s.push_str(field);
    s.push(':');
    s.push_str(&body(&o.body));
    s
}

#[derive(Debug, Clone)]
struct Kptfile {
    extra_annotations: Vec<(String, Sc)>,
    description: Sc,
    gates: Vec<&'static str>,
    mutators: Vec<(&'static str, Option<&'static str>)>,
    conditions: bool,
    comment: Option<String>,
}

fn kptfile() -> impl Strategy<Value = Kptfile> {
    let fn_names = select(
        &[
            None,
            Some("keep-me"),
            Some("PackageVariant.my-pv.old.0"),
            Some("PackageVariant.other.x.0"),
        ][..],
    );
    (
        label_pairs(),
        inline_scalar(),
        prop::collection::vec(
            select(&["config.injection.ConfigMap.point-3", "Ready", "x.y"][..]),
            0..3,
        ),
        prop::collection::vec(
            (
                select(&["gcr.io/kpt-fn/set-labels:v0.1", "set-namespace:v1"][..]),
                fn_names,
            ),
            0..3,
        ),
        any::<bool>(),
        comment(),
    )
        .prop_map(
            |(extra_annotations, description, gates, mutators, conditions, comment)| Kptfile {
                extra_annotations,
                description,
                gates,
                mutators,
                conditions,
                comment,
            },
        )
}

fn kptfile_text(k: &Kptfile) -> String {
    let mut s = String::from(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n    config.kubernetes.io/path: Kptfile\n",
    );
    s.push_str(&pairs_text(&k.extra_annotations, 4));
    s.push_str("info:\n");
    if let Sc::Inline { text, .. } = &k.description {
        s.push_str(&format!("  description: {text}"));
    }
    if let Some(c) = &k.comment {
        s.push(' ');
        s.push_str(c);
    }
    s.push('\n');
    let mut gates: Vec<&str> = k.gates.clone();
    gates.dedup();
    if !gates.is_empty() {
        s.push_str("  readinessGates:\n");
        for g in gates {
            s.push_str(&format!("  - conditionType: {g}\n"));
        }
    }
    if !k.mutators.is_empty() {
        s.push_str("pipeline:\n  mutators:\n");
        for (image, name) in &k.mutators {
            s.push_str(&format!("  - image: {image}\n"));
            if let Some(n) = name {
                s.push_str(&format!("    name: {n}\n"));
            }
            s.push_str("    configMap: {app: \"on\"}\n");
        }
    }
    if k.conditions {
        s.push_str("status:\n  conditions:\n  - type: Rendered\n    status: \"True\"\n    reason: RenderSuccess\n");
    }
    s
}

fn context_text(data: &Option<Vec<(&'static str, Sc)>>) -> String {
    let mut s = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n    config.kubernetes.io/path: package-context.yaml\n",
    );
    if let Some(data) = data {
        s.push_str("data:\n  name: pkg # the package\n");
        let mut seen = std::collections::HashSet::new();
        for (k, v) in data {
            if seen.insert(*k) {
                if let Sc::Inline { text, .. } = v {
                    s.push_str(&format!("  {k}: {text}\n"));
                }
            }
        }
    }
    s
}

#[derive(Debug, Clone)]
struct PvConfig {
    name: &'static str,
    namespace: Option<&'static str>,
    data: Vec<(&'static str, String)>,
    remove_keys: Vec<&'static str>,
    mutators: Vec<(&'static str, &'static str)>,
    validators: Vec<&'static str>,
    injectors: Vec<(Option<&'static str>, &'static str)>,
}

fn pv_config() -> impl Strategy<Value = PvConfig> {
    (
        prop_oneof![60 => Just("my-pv"), 1 => Just("my.pv")],
        select(NAMESPACES),
        prop::collection::vec(
            (
                prop_oneof![40 => select(CONTEXT_KEYS), 1 => Just("name")],
                "\\PC{0,8}".prop_map(|v| v.replace(WIDE_BREAKS, " ")),
            ),
            0..4,
        ),
        prop::collection::vec(select(CONTEXT_KEYS), 0..3),
        prop::collection::vec(
            (
                prop_oneof![
                    60 => select(&["set-labels", "apply-setters"][..]),
                    1 => Just("set.ns"),
                ],
                select(&["gcr.io/kpt-fn/set-labels:v0.1", "ghcr.io/x/y:v1"][..]),
            ),
            0..3,
        ),
        prop::collection::vec(select(&["kubeval", "gatekeeper"][..]), 0..2),
        prop::collection::vec(
            (
                select(&[None, None, Some("ConfigMap"), Some("Team")][..]),
                prop_oneof![40 => select(IN_CLUSTER_NAMES), 1 => Just("")],
            ),
            0..3,
        ),
    )
        .prop_map(
            |(name, namespace, data, remove_keys, mutators, validators, injectors)| PvConfig {
                name,
                namespace,
                data,
                remove_keys,
                mutators,
                validators,
                injectors,
            },
        )
}

fn pv_config_text(c: &PvConfig) -> String {
    let mut s = format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: {}\n",
        c.name
    );
    if let Some(ns) = c.namespace {
        s.push_str(&format!("  namespace: {ns}\n"));
    }
    // In-cluster objects with a path are at cluster/N.yaml: the deployer's named place.
    s.push_str("  annotations:\n    package-variant.fn.kpt.dev/cluster-objects: cluster/\n");
    s.push_str("spec:\n  upstream: {repo: blueprints, package: base, revision: 1}\n  downstream: {repo: deployments, package: base}\n");
    if !c.data.is_empty() || !c.remove_keys.is_empty() {
        s.push_str("  packageContext:\n");
        if !c.data.is_empty() {
            s.push_str("    data:\n");
            let mut seen = std::collections::HashSet::new();
            for (k, v) in &c.data {
                if seen.insert(*k) {
                    s.push_str(&format!(
                        "      {k}: {}\n",
                        serde_json::to_string(v).unwrap_or_default()
                    ));
                }
            }
        }
        if !c.remove_keys.is_empty() {
            let keys: Vec<String> = c.remove_keys.iter().map(|k| format!("'{k}'")).collect();
            s.push_str(&format!("    removeKeys: [{}]\n", keys.join(", ")));
        }
    }
    if !c.mutators.is_empty() || !c.validators.is_empty() {
        s.push_str("  pipeline:\n");
        if !c.mutators.is_empty() {
            s.push_str("    mutators:\n");
            for (name, image) in &c.mutators {
                s.push_str(&format!("    - name: {name}\n      image: {image}\n"));
            }
        }
        if !c.validators.is_empty() {
            s.push_str("    validators:\n");
            for name in &c.validators {
                s.push_str(&format!("    - image: {name}:v1\n"));
            }
        }
    }
    if !c.injectors.is_empty() {
        s.push_str("  injectors:\n");
        for (kind, name) in &c.injectors {
            s.push_str(&format!("  - name: \"{name}\"\n"));
            if let Some(k) = kind {
                s.push_str(&format!("    kind: {k}\n"));
            }
        }
    }
    s
}

fn package() -> impl Strategy<Value = Pkg> {
    (
        prop_oneof![20 => kptfile().prop_map(Some), 1 => Just(None)],
        prop_oneof![
            8 => prop::collection::vec((select(CONTEXT_KEYS), inline_scalar()), 0..4).prop_map(|d| Some(Some(d))),
            1 => Just(Some(None)),
            1 => Just(None),
            14 => prop::collection::vec((select(CONTEXT_KEYS), inline_scalar()), 0..4).prop_map(|d| Some(Some(d))),
        ],
        prop::collection::vec(resource(), 0..6),
        prop::collection::vec(in_cluster(), 0..4),
        pv_config(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(k, ctx, resources, objects, pv, at)| {
            let mut items: Vec<(String, Role)> = Vec::new();
            if let Some(k) = &k {
                items.push((kptfile_text(k), Role::Kptfile));
            }
            if let Some(data) = &ctx {
                items.push((context_text(data), Role::Context));
            }
            for (i, r) in resources.iter().enumerate() {
                let path = format!("res/{i}.yaml");
                let role = if r.point.is_some() {
                    Role::Point
                } else {
                    Role::Other
                };
                items.push((resource_text(r, i, &path), role));
            }
            // In-cluster objects are mixed in at one place, as `kubectl get` output would be.
            let at = at.index(items.len() + 1);
            for (i, o) in objects.iter().enumerate().rev() {
                let role = if o.with_path {
                    Role::Other
                } else {
                    Role::InClusterFed
                };
                items.insert(at, (in_cluster_text(o, i), role));
            }
            Pkg {
                items,
                config: pv_config_text(&pv),
            }
        })
}

/// Splits the `items:` section of a block ResourceList into the text of each item.
fn split_items(rl: &str) -> Vec<String> {
    let section = items_section(rl);
    let mut out: Vec<String> = Vec::new();
    for line in section.split_inclusive('\n').skip(1) {
        if line.starts_with("- ") || line == "-\n" {
            out.push(String::new());
        }
        match out.last_mut() {
            Some(item) => item.push_str(line),
            None => out.push(line.to_string()),
        }
    }
    out
}

fn has_error_result(out: &Outcome) -> bool {
    out.stdout
        .split("\nresults:\n")
        .nth(1)
        .is_some_and(|r| r.contains("severity: error"))
}

proptest! {
    #![proptest_config(config())]

    /// (1) Idempotence: the output, with the in-cluster objects fed again, is a fixed point.
    #[test]
    fn pv_idempotent(pkg in package()) {
        let input = pkg.input();
        let first = run(&input);
        prop_assume!(first.exit_code == 0);
        // The output's items with the fed in-cluster objects back where they were (first match
        // wins among in-cluster objects of the same name, so their order matters).
        let mut again = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
        let mut out_items = split_items(&first.stdout).into_iter();
        for (text, (_, role)) in split_items(&input).iter().zip(&pkg.items) {
            if *role == Role::InClusterFed {
                again.push_str(text);
            } else {
                again.push_str(&out_items.next().unwrap_or_default());
            }
        }
        prop_assert!(out_items.next().is_none());
        again.push_str("functionConfig:\n");
        again.push_str(&indent_block(&pkg.config, 2));
        let second = run(&again);
        prop_assert_eq!(second.exit_code, 0, "{}", second.stdout);
        prop_assert_eq!(
            split_items(&second.stdout),
            split_items(&first.stdout),
            "input:\n{}",
            input
        );
    }

    /// (2) Pass-through and (3) all or nothing.
    #[test]
    fn pv_pass_through_and_all_or_nothing(pkg in package()) {
        let input = pkg.input();
        let out = run(&input);
        prop_assert!(
            out.stderr.is_empty() || (out.exit_code == 1 && common::is_error_summary(&out.stderr)),
            "{}",
            out.stderr
        );
        prop_assert_eq!(out.exit_code != 0, has_error_result(&out));
        if out.exit_code != 0 {
            prop_assert_eq!(items_section(&out.stdout), items_section(&input));
            return Ok(());
        }
        let expected: Vec<&(String, Role)> = pkg
            .items
            .iter()
            .filter(|(_, r)| *r != Role::InClusterFed)
            .collect();
        let got = split_items(&out.stdout);
        prop_assert_eq!(got.len(), expected.len(), "{}", out.stdout);
        let inputs = split_items(&input);
        let kept: Vec<&String> = inputs
            .iter()
            .zip(&pkg.items)
            .filter(|(_, (_, r))| *r != Role::InClusterFed)
            .map(|(t, _)| t)
            .collect();
        for ((g, (_, role)), text) in got.iter().zip(expected).zip(kept) {
            if *role == Role::Other {
                prop_assert_eq!(g, text);
            }
        }
    }

    /// (4) Determinism.
    #[test]
    fn pv_deterministic(pkg in package()) {
        let input = pkg.input();
        prop_assert_eq!(run(&input), run(&input));
    }
}

// ================================================================ PackageVariantSets

#[derive(Debug, Clone)]
struct Repo {
    name: String,
    env: &'static str,
    namespace: Option<&'static str>,
}

fn repo_text(r: &Repo) -> String {
    let mut s = format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: {}\n",
        r.name
    );
    if let Some(ns) = r.namespace {
        s.push_str(&format!("  namespace: {ns}\n"));
    }
    s.push_str(&format!(
        "  labels:\n    env: {}\nspec:\n  type: git\n",
        r.env
    ));
    s
}

const TARGETS: &[&str] = &[
    "  - repositorySelector: {matchLabels: {env: prod}}\n",
    "  - repositorySelector:\n      matchExpressions: [{key: env, operator: In, values: [prod, dev]}]\n    template:\n      downstream:\n        packageExpr: \"packageDefault + '-' + target.labels['env']\"\n",
    "  - repositorySelector: {matchExpressions: [{key: env, operator: NotIn, values: [prod]}]}\n    template:\n      downstream: {repoExpr: \"target.name\", packageExpr: \"packageDefault + '-' + repository.labels['env']\"}\n",
    "  - repositories:\n    - name: extra\n      packageNames: [a, b]\n",
    "  - objectSelector: {apiVersion: v1, kind: ConfigMap, matchLabels: {site: \"yes\"}}\n",
];

#[derive(Debug, Clone)]
struct Set {
    repos: Vec<Repo>,
    shuffled: Vec<Repo>,
    targets: Vec<usize>,
    /// Downstream repositories of the existing PackageVariants owned by the set.
    existing: std::collections::BTreeSet<String>,
    sites: Vec<String>,
}

fn set() -> impl Strategy<Value = Set> {
    let repos = prop::collection::btree_map(
        // Short names collide with existing variants; long ones need the hashed name.
        prop_oneof![4 => "[a-z]{1,2}", 1 => "[a-z][a-z0-9-]{50,60}[a-z]"],
        (
            select(&["prod", "dev", "test"][..]),
            select(&[None, None, None, Some("default"), Some("other")][..]),
        ),
        0..10,
    )
    .prop_map(|m| {
        m.into_iter()
            .map(|(name, (env, namespace))| Repo {
                name,
                env,
                namespace,
            })
            .collect::<Vec<_>>()
    });
    (
        repos,
        prop::collection::vec(0..TARGETS.len(), 1..4),
        prop::collection::btree_set("[a-z]{1,2}", 0..4),
        prop::collection::vec("[a-z]{1,6}", 0..3),
    )
        .prop_flat_map(|(repos, targets, existing, sites)| {
            let shuffled = Just(repos.clone()).prop_shuffle();
            (
                Just(repos),
                shuffled,
                Just(targets),
                Just(existing),
                Just(sites),
            )
        })
        .prop_map(|(repos, shuffled, targets, existing, sites)| Set {
            repos,
            shuffled,
            targets,
            existing,
            sites,
        })
}

fn set_input(s: &Set, repos: &[Repo]) -> String {
    let mut items: Vec<String> = vec![common::UPSTREAM_PR.to_string()];
    items.extend(repos.iter().map(repo_text));
    for repo in &s.existing {
        items.push(format!(
            "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: my-set-{repo}-base\n  labels:\n    config.porch.kpt.dev/packagevariantset: my-set\n  annotations:\n    keep: me # a comment\nspec:\n  downstream: {{repo: {repo}, package: base}}\n  injectors: [{{name: old}}]\n"
        ));
    }
    for site in &s.sites {
        items.push(format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {site}\n  labels:\n    site: \"yes\"\n"
        ));
    }
    let targets: String = s.targets.iter().map(|&t| TARGETS[t]).collect();
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    resource_list(
        &refs,
        &common::pvs_config(&format!("  targets:\n{targets}")),
    )
}

/// Names of the PackageVariant items of an output ResourceList.
fn variant_names(rl: &str) -> Result<Vec<String>, TestCaseError> {
    let node = yaml::parse(rl).map_err(|e| TestCaseError::fail(format!("{e}\n{rl}")))?;
    let json = yaml::to_json(&node).map_err(TestCaseError::fail)?;
    Ok(json["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["kind"] == "PackageVariant")
        .filter_map(|i| i.pointer("/metadata/name").and_then(|n| n.as_str()))
        .map(str::to_string)
        .collect())
}

proptest! {
    #![proptest_config(config())]

    /// (5) Unique names, independent of the order of the Repository items; a second run on the
    /// output changes nothing; errors leave the items alone.
    #[test]
    fn pvs_names_unique_and_stable(s in set()) {
        let input = set_input(&s, &s.repos);
        let out = run(&input);
        let reordered = run(&set_input(&s, &s.shuffled));
        prop_assert_eq!(out.exit_code, reordered.exit_code, "{}", out.stdout);
        if out.exit_code != 0 {
            prop_assert!(has_error_result(&out), "{}", out.stdout);
            prop_assert_eq!(items_section(&out.stdout), items_section(&input));
            return Ok(());
        }
        let mut names = variant_names(&out.stdout)?;
        let mut other = variant_names(&reordered.stdout)?;
        let count = names.len();
        names.sort();
        names.dedup();
        prop_assert_eq!(names.len(), count, "duplicate names in\n{}", out.stdout);
        other.sort();
        prop_assert_eq!(&names, &other);
        for n in &names {
            prop_assert!(n.len() <= 63, "{}", n);
        }
        // Idempotent: the output's items with the same set give the same items.
        let mut again = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n");
        again.push_str(items_section(&out.stdout));
        again.push_str("functionConfig:\n");
        let targets: String = s.targets.iter().map(|&t| TARGETS[t]).collect();
        again.push_str(&indent_block(&common::pvs_config(&format!("  targets:\n{targets}")), 2));
        let second = run(&again);
        prop_assert_eq!(second.exit_code, 0);
        prop_assert_eq!(items_section(&second.stdout), items_section(&out.stdout));
    }
}
