//! `examples/lifecycle/README.md`, run under real kpt as written, block by block, with the
//! packages checked after each step: the clone, the variant, the upstream update, the variant
//! again (it changes nothing, and one more run changes nothing either), and the fan-out of a
//! PackageVariantSet's PackageVariants onto their own packages.

mod shell;

use package_variant::yaml;
use serde_json::Value;
use shell::{bin_dir, checkout_status, root, run_block, sh_blocks, Scratch};
use std::fs;
use std::path::Path;
use std::process::Command;

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn yaml_json(path: &Path) -> Value {
    let text = read(path);
    let node = yaml::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    yaml::to_json(&node).unwrap()
}

/// The `name` (or, without one, the `image`) of each Kptfile mutator, in order.
fn mutators(pkg: &Path) -> Vec<String> {
    let kptfile = yaml_json(&pkg.join("Kptfile"));
    kptfile["pipeline"]["mutators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f["name"]
                .as_str()
                .or(f["image"].as_str())
                .unwrap()
                .to_string()
        })
        .collect()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// What the variant `web-us-east1` must show whatever the upstream version.
fn assert_variant_applied(pkg: &Path) {
    let context = read(&pkg.join("package-context.yaml"));
    assert!(context.contains("  name: web-us-east1\n"), "{context}");
    assert!(context.contains("  region: us-east1\n"), "{context}");
    let mutators = mutators(pkg);
    assert_eq!(
        mutators[0], "PackageVariant.web-us-east1.namespace.0",
        "{mutators:?}"
    );
    assert_eq!(
        mutators
            .iter()
            .filter(|m| m.starts_with("PackageVariant."))
            .count(),
        1,
        "{mutators:?}"
    );
    assert!(mutators
        .iter()
        .any(|m| m == "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0"));
    let endpoints = read(&pkg.join("endpoints.yaml"));
    assert!(
        endpoints.contains("db: db.us-east1.example.com # placeholder until injected"),
        "{endpoints}"
    );
    assert!(endpoints.contains("kpt.dev/injected-resource: us-east1-endpoints"));
    let kptfile = read(&pkg.join("Kptfile"));
    assert!(kptfile.contains("conditionType: config.injection.ConfigMap.endpoints"));
    assert!(!pkg.join("in-cluster.yaml").exists());
}

#[test]
fn lifecycle_walkthrough_under_kpt() {
    let example = root().join("examples/lifecycle");
    let blocks = sh_blocks(&read(&example.join("README.md")));
    assert_eq!(blocks.len(), 7, "the walkthrough has seven steps");
    let scratch = Scratch::new("lifecycle");
    let bin = bin_dir(&scratch.0);
    let tmp = scratch.0.join("tmp");
    let work = tmp.join("pv-lifecycle");
    let deployments = work.join("deployments");
    let pkg = deployments.join("web-us-east1");
    let before = checkout_status("examples");

    for (i, block) in blocks.iter().enumerate() {
        let step = i + 1;
        let (code, log) = run_block(block, &example, &tmp, &bin);
        assert_eq!(code, 0, "step {step} failed:\n{block}\n{log}");
        match step {
            1 => {
                let tags = git(&work.join("blueprints.git"), &["tag"]);
                assert_eq!(tags, "web/v1\nweb/v2\n");
            }
            2 => {
                assert!(read(&pkg.join("deployment.yaml")).contains("image: nginx:1.25"));
                assert!(read(&pkg.join("Kptfile")).contains("ref: web/v1"));
                assert!(read(&pkg.join("package-context.yaml")).contains("name: web-us-east1"));
                assert!(!pkg.join("service.yaml").exists());
            }
            3 => {
                assert_variant_applied(&pkg);
                assert!(read(&pkg.join("deployment.yaml")).contains("image: nginx:1.25"));
            }
            4 => {
                // The upstream's changes arrived, the variant's stayed.
                assert_variant_applied(&pkg);
                assert!(read(&pkg.join("deployment.yaml")).contains("image: nginx:1.27"));
                assert!(pkg.join("service.yaml").is_file());
                let kptfile = read(&pkg.join("Kptfile"));
                assert!(kptfile.contains("ref: web/v2"));
                assert!(kptfile.contains("kubeconform:v0.1.1"));
            }
            5 => {
                assert_variant_applied(&pkg);
                // The run after the update changed nothing ...
                assert_eq!(git(&deployments, &["diff", "HEAD~1", "HEAD", "--stat"]), "");
                // ... and running the step once more changes nothing either.
                let (code, log) = run_block(block, &example, &tmp, &bin);
                assert_eq!(code, 0, "step 5 again:\n{log}");
                assert_eq!(git(&deployments, &["diff", "HEAD~1", "HEAD", "--stat"]), "");
                assert_eq!(git(&deployments, &["status", "--porcelain"]), "");
            }
            6 => {
                let mut variants: Vec<String> = fs::read_dir(work.join("variants/packagevariants"))
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                    .collect();
                variants.sort();
                assert_eq!(
                    variants,
                    [
                        "fleet-web-edge-eu-west1-web.yaml",
                        "fleet-web-edge-us-east1-web.yaml"
                    ]
                );
                assert!(log.contains("fleet-web-edge-us-east1-web.yaml"), "{log}");
            }
            7 => {
                for region in ["us-east1", "eu-west1"] {
                    let fleet_pkg = deployments.join(format!("fleet-web-edge-{region}-web"));
                    let context = read(&fleet_pkg.join("package-context.yaml"));
                    assert!(
                        context.contains(&format!("  region: {region}\n")),
                        "{context}"
                    );
                    assert!(read(&fleet_pkg.join("endpoints.yaml"))
                        .contains(&format!("db: db.{region}.example.com")));
                    assert!(read(&fleet_pkg.join("Kptfile")).contains("ref: web/v2"));
                    assert!(fleet_pkg.join("service.yaml").is_file());
                    assert!(!fleet_pkg.join("in-cluster.yaml").exists());
                }
                assert_eq!(git(&deployments, &["status", "--porcelain"]), "");
            }
            _ => unreachable!(),
        }
    }
    assert_eq!(
        checkout_status("examples"),
        before,
        "the walkthrough changed the checkout"
    );
}
