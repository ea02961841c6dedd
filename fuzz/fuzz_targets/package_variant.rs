//! The PackageVariant path: a fixed package, with the fuzzer writing the PackageVariant's spec
//! and one package resource.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

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

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (spec, resource) = text.split_once("\n---\n").unwrap_or((text, ""));
    let mut rl = PACKAGE.to_string();
    if !resource.is_empty() {
        rl.push_str("- ");
        rl.push_str(&common::indent(resource, 2)[2..]);
    }
    rl.push_str("functionConfig:\n  apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: PackageVariant\n  metadata:\n    name: fuzz\n  spec:\n");
    rl.push_str(&common::indent(spec, 4));
    common::check(rl.as_bytes());
});
