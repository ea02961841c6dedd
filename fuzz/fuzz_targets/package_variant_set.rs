//! The PackageVariantSet path with CEL expressions from the fuzzer: each input line is one
//! expression, used in turn as packageExpr, a label value, a context value and an injector name.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

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

fn quoted(s: &str) -> String {
    serde_json_string(s)
}

fn serde_json_string(s: &str) -> String {
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

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let exprs: Vec<&str> = text.lines().take(8).collect();
    if exprs.is_empty() {
        return;
    }
    let e = |i: usize| quoted(exprs[i % exprs.len()]);
    let mut rl = ITEMS.to_string();
    rl.push_str(&format!(
        "        downstream: {{packageExpr: {}}}\n        labelExprs:\n        - {{key: a, valueExpr: {}}}\n        packageContext:\n          dataExprs:\n          - {{keyExpr: {}, value: v}}\n        injectors:\n        - nameExpr: {}\n",
        e(0), e(1), e(2), e(3)
    ));
    common::check(rl.as_bytes());
});
