//! `package-variant --help`, the function's documentation (what `kpt fn doc` prints): it says
//! what the function does, the three ways to run it, the exit codes, an example of each
//! functionConfig kind and the field reference of each kind. The examples it prints are run
//! here through the binary, so the documentation cannot show a functionConfig that fails.

mod common;

use common::{resource_list, run, INJECTION_POINT, KPTFILE, PACKAGE_CONTEXT};
use std::process::Command;

fn help() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "--help writes only to stdout");
    String::from_utf8(out.stdout).unwrap()
}

/// The example of a kind: the lines indented by four spaces below `  <kind> (...):`.
fn example(help: &str, kind: &str) -> String {
    let examples = &help[help.find("\nEXAMPLES\n").expect("an EXAMPLES section")..];
    let start = examples
        .find(&format!("\n  {kind} ("))
        .unwrap_or_else(|| panic!("no example of {kind}"));
    let body = &examples[start + 1..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body.lines()
        .take_while(|l| l.starts_with("    "))
        .map(|l| format!("{}\n", &l[4..]))
        .collect()
}

#[test]
fn help_has_every_part_of_the_documentation() {
    let help = help();
    for part in [
        "\nHOW TO RUN\n",
        "  1. kpt fn eval with a functionConfig file",
        "  2. kpt fn eval with key=value arguments",
        "  3. A Kptfile pipeline (kpt fn render",
        "\nEXIT CODES\n",
        "\n  0  ",
        "\n  1  ",
        "\n  2  ",
        "\nEXAMPLES\n",
        "\nFUNCTIONCONFIG REFERENCE\n",
        "\nPackageVariant (config.porch.kpt.dev/v1alpha1)\n",
        "\nPackageVariantSet (config.porch.kpt.dev/v1alpha2)\n",
        "\nConfigMap (v1)\n",
        "\n  spec.upstream.revision (integer)\n",
        "\n  spec.targets[].template.injectors[].nameExpr (string)\n",
        "\n  data (map of ",
    ] {
        assert!(help.contains(part), "--help lacks {part:?}:\n{help}");
    }
    let image = format!(
        "ghcr.io/package-variant/package-variant:v{}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(help.contains(&image));
    assert_eq!(
        help.matches("ghcr.io/package-variant/package-variant:")
            .count(),
        help.matches(&image).count(),
        "an image reference with another tag"
    );
}

#[test]
fn the_package_variant_example_runs() {
    let config = example(&help(), "PackageVariant");
    let in_cluster = "apiVersion: v1
kind: ConfigMap
metadata:
  name: us-east1-endpoints
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
data:
  db: db.us-east1.example.com
";
    let context = PACKAGE_CONTEXT.replace("  name: pkg\n", "  name: pkg\n  legacy-key: x\n");
    let out = run(&resource_list(
        &[KPTFILE, &context, INJECTION_POINT, in_cluster],
        &config,
    ));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("    region: us-east1\n"),
        "{}",
        out.stdout
    );
    assert!(!common::items_section(&out.stdout).contains("legacy-key"));
    assert!(out
        .stdout
        .contains("name: PackageVariant.web-us-east1.namespace.0"));
    assert!(out.stdout.contains("    db: db.us-east1.example.com\n"));
    assert!(!out.stdout.contains("severity: error"));
}

#[test]
fn the_package_variant_set_example_runs() {
    let config = example(&help(), "PackageVariantSet");
    let repo = |name: &str, env: &str, region: &str| {
        format!(
            "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: {name}
  labels: {{env: {env}, region: {region}}}
spec:
  type: git
"
        )
    };
    let upstream = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.web.v2
spec:
  repository: blueprints
  packageName: web
  revision: 2
";
    let (a, b) = (
        repo("edge-us-east1", "prod", "us-east1"),
        repo("lab", "test", "us-east1"),
    );
    let out = run(&resource_list(&[&a, &b, upstream], &config));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("name: fleet-web-edge-us-east1-web"));
    assert!(!out.stdout.contains("fleet-web-lab-web"));
    assert!(out.stdout.contains("region: us-east1"));
    assert!(!out.stdout.contains("severity: error"));
}

#[test]
fn the_config_map_example_runs() {
    let config = example(&help(), "ConfigMap");
    let out = run(&resource_list(&[PACKAGE_CONTEXT], &config));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("    region: us-east1\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn an_unknown_argument_exits_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("see --help"));
}
