//! How the fuzz targets build a ResourceList from the fuzzer's bytes. Shared with
//! `tests/fuzz_regressions.rs`, which replays saved inputs the same way.

#![allow(dead_code)]

const PACKAGE: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: \"true\"
      internal.config.kubernetes.io/path: Kptfile
  info:
    description: fuzz
  pipeline:
    mutators:
    - image: set-labels:v0.1
      name: PackageVariant.fuzz.x.0
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kptfile.kpt.dev
    annotations:
      internal.config.kubernetes.io/path: package-context.yaml
  data:
    name: pkg
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: endpoints
    annotations:
      kpt.dev/config-injection: required
      internal.config.kubernetes.io/path: endpoints.yaml
  data:
    db: example
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: us-east1-endpoints
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  data:
    db: db.us-east1
";

/// The PackageVariant target: the input is the PackageVariant's spec, optionally followed by
/// `\n---\n` and one more package resource.
pub fn package_variant(data: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(data).ok()?;
    let (spec, resource) = text.split_once("\n---\n").unwrap_or((text, ""));
    let mut rl = PACKAGE.to_string();
    if !resource.is_empty() {
        rl.push_str("- ");
        rl.push_str(&indent(resource, 2)[2..]);
    }
    rl.push_str("functionConfig:\n  apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: PackageVariant\n  metadata:\n    name: fuzz\n  spec:\n");
    rl.push_str(&indent(spec, 4));
    Some(rl)
}

const ITEMS: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata:
    name: edge-1
    labels: {env: prod, region: us-east1}
- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata:
    name: edge-2
    labels: {env: dev, region: us-west1}
- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevision
  metadata:
    name: base-v1
    labels: {vendor: acme}
  spec: {repository: blueprints, packageName: base, revision: 1}
functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha2
  kind: PackageVariantSet
  metadata:
    name: fuzz
  spec:
    upstream: {repo: blueprints, package: base, revision: 1}
    targets:
    - repositorySelector: {matchLabels: {env: prod}}
      template:
";

/// The PackageVariantSet target: each input line is one CEL expression, used in turn as
/// packageExpr, a label value, a context key and an injector name.
pub fn package_variant_set(data: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(data).ok()?;
    let exprs: Vec<&str> = text.lines().take(8).collect();
    if exprs.is_empty() {
        return None;
    }
    let e = |i: usize| json_string(exprs[i % exprs.len()]);
    let mut rl = ITEMS.to_string();
    rl.push_str(&format!(
        "        downstream: {{packageExpr: {}}}\n        labelExprs:\n        - {{key: a, valueExpr: {}}}\n        packageContext:\n          dataExprs:\n          - {{keyExpr: {}, value: v}}\n        injectors:\n        - nameExpr: {}\n",
        e(0), e(1), e(2), e(3)
    ));
    Some(rl)
}

/// A double-quoted YAML (JSON) string.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Indents `text` by `n` spaces.
pub fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines().map(|l| format!("{pad}{l}\n")).collect()
}
