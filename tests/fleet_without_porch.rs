//! `docs/fleet-without-porch.md`, run under real kpt as written, block by block, in a git
//! repository the page itself makes: four clusters from an inventory, a blueprint at two
//! tagged revisions, the set's waves gated by the annotation the deploy step writes. After each
//! step the fleet is checked: which cluster's package is on which tag, which variant on which
//! revision, and that a wave waits while the revision it needs is not marked ready.

mod shell;

use package_variant::yaml;
use serde_json::Value;
use shell::{bin_dir, checkout_status, root, run_block, sh_blocks, Scratch};
use std::fs;
use std::path::Path;

const CLUSTERS: [&str; 4] = ["canary", "east", "west", "eu"];

fn yaml_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let node = yaml::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    yaml::to_json(&node).unwrap()
}

/// Per cluster: the tag its package is on, its image, its variant's revision and the revision
/// its deploy step marked ready ("" when none).
fn fleet(demo: &Path) -> Vec<(String, String, i64, String)> {
    CLUSTERS
        .iter()
        .map(|c| {
            let pkg = demo.join("deployments").join(c).join("base");
            let kptfile = yaml_json(&pkg.join("Kptfile"));
            let deployment = yaml_json(&pkg.join("deployment.yaml"));
            let context = yaml_json(&pkg.join("package-context.yaml"));
            assert!(
                context["data"]["region"]
                    .as_str()
                    .is_some_and(|r| !r.is_empty()),
                "{c}: {context}"
            );
            let pv = yaml_json(
                &demo
                    .join("fleet/objects/packagevariants")
                    .join(format!("fleet-{c}-base.yaml")),
            );
            (
                kptfile["upstream"]["git"]["ref"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                deployment["spec"]["template"]["spec"]["containers"][0]["image"]
                    .as_str()
                    .unwrap()
                    .rsplit(':')
                    .next()
                    .unwrap()
                    .to_string(),
                pv["spec"]["upstream"]["revision"].as_i64().unwrap(),
                pv["metadata"]["annotations"]["fleet.example.com/ready-revision"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

fn on(rows: &[(&str, &str, i64, &str)]) -> Vec<(String, String, i64, String)> {
    rows.iter()
        .map(|(t, i, r, m)| (t.to_string(), i.to_string(), *r, m.to_string()))
        .collect()
}

#[test]
fn the_fleet_walkthrough_runs_as_written() {
    let page = fs::read_to_string(root().join("docs/fleet-without-porch.md")).unwrap();
    let blocks = sh_blocks(&page);
    assert_eq!(
        blocks.len(),
        9,
        "the page's steps changed: update this test"
    );
    let scratch = Scratch::new("fleet-without-porch");
    let bin = bin_dir(&scratch.0);
    let tmp = scratch.0.join("tmp");
    let demo = tmp.join("fleet-demo");
    let before = checkout_status(".");
    let run = |i: usize| {
        let (code, log) = run_block(&blocks[i], &root(), &tmp, &bin);
        assert_eq!(code, 0, "block {i}:\n{}\n{log}", blocks[i]);
        log
    };
    let v1 = ("base/v1", "1.0", 1, "");
    run(0);
    // The first run: four variants at revision 1, four packages cloned at base/v1.
    run(1);
    assert_eq!(fleet(&demo), on(&[v1; 4]));
    run(2);
    run(3);
    let ready1 = ("base/v1", "1.0", 1, "1");
    assert_eq!(fleet(&demo), on(&[ready1; 4]));
    run(4);
    // Revision 2: the canary only; the others wait, their annotation still the old one.
    run(5);
    // Unkeyed, the annotation written for revision 1 would count for revision 2: on a copy,
    // a readyExpr that only asks for the annotation lets wave 2 go before the canary ran 2.
    let unkeyed = scratch.0.join("unkeyed");
    shell::copy_dir(&demo.join("fleet/objects"), &unkeyed);
    let set = fs::read_to_string(demo.join("fleet/set.yaml")).unwrap();
    let keyed = "\n      && variant.metadata.annotations['fleet.example.com/ready-revision'] == string(variant.spec.upstream.revision)";
    assert!(set.contains(keyed), "{set}");
    fs::write(scratch.0.join("unkeyed.yaml"), set.replace(keyed, "")).unwrap();
    let (code, log) = shell::sh(
        &scratch.0,
        &bin,
        "kpt fn eval unkeyed --exec package-variant --fn-config unkeyed.yaml",
    );
    assert_eq!(code, 0, "{log}");
    let east = fs::read_to_string(unkeyed.join("packagevariants/fleet-east-base.yaml")).unwrap();
    assert!(east.contains("revision: 2"), "{east}");
    let canary2 = ("base/v2", "2.0", 2, "1");
    assert_eq!(fleet(&demo), on(&[canary2, ready1, ready1, ready1]));
    // The annotation written for revision 1 does not open the gate for revision 2.
    let log = run(6);
    assert!(log.contains("readyExpr is false"), "{log}");
    assert_eq!(fleet(&demo), on(&[canary2, ready1, ready1, ready1]));
    // Marked ready for 2: wave 2 moves, wave 3 waits.
    run(7);
    let ready2 = ("base/v2", "2.0", 2, "2");
    let wave2 = ("base/v2", "2.0", 2, "1");
    assert_eq!(fleet(&demo), on(&[ready2, wave2, wave2, ready1]));
    run(8);
    assert_eq!(fleet(&demo), on(&[ready2; 4]));
    // Every run was committed in both repositories.
    for repo in ["fleet", "deployments"] {
        let out = std::process::Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(demo.join(repo))
            .output()
            .unwrap();
        assert!(
            out.stdout.is_empty(),
            "{repo}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert_eq!(
        checkout_status("."),
        before,
        "the page's commands changed the checkout"
    );
}

/// The helpers refuse what would make a wrong fleet, writing nothing: an inventory label that
/// is not a string (`wave: 2`), a name given twice, an unknown field; and tags other than
/// `PACKAGE/vN` are no revisions.
#[test]
fn the_helpers_refuse_bad_inventories_and_skip_other_tags() {
    let scratch = Scratch::new("fleet-helpers");
    let bin = bin_dir(&scratch.0);
    let script = |name: &str| root().join("scripts").join(name).display().to_string();
    for (inventory, says) in [
        (
            "clusters:\n- name: a\n  labels: {wave: 2}\n",
            "is not a label value",
        ),
        (
            "clusters:\n- name: a\n- name: a\n",
            "a cluster name is given twice",
        ),
        (
            "clusters:\n- name: a\n  label: {wave: \"2\"}\n",
            "unknown field \"label\"",
        ),
        ("clusters:\n- name: A_1\n", "is not a Kubernetes name"),
        (
            "clusters:\n- name: a\n  labels: {wave: \"1\", \"bad key!\": x}\n",
            "is not a label key",
        ),
    ] {
        fs::write(scratch.0.join("clusters.yaml"), inventory).unwrap();
        let (code, log) = shell::sh(
            &scratch.0,
            &bin,
            &format!(
                "{} clusters.yaml /deploy.git > out.yaml",
                script("repositories-from-inventory.sh")
            ),
        );
        assert_eq!(code, 1, "{inventory}: {log}");
        assert!(log.contains(says), "{inventory}: {log}");
        assert_eq!(fs::read_to_string(scratch.0.join("out.yaml")).unwrap(), "");
    }
    let (code, log) = shell::sh(
        &scratch.0,
        &bin,
        &format!(
            "git init -q bp && cd bp && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x \
             && for t in base/v1 base/v2 base/v02 base/v0 base/vx base nested/app/v3 Bad/v1; do git tag $t; done \
             && {} . blueprints",
            script("package-revisions-from-git.sh")
        ),
    );
    assert_eq!(code, 0, "{log}");
    let names: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("  name: "))
        .collect();
    assert_eq!(
        names,
        [
            "blueprints",
            "blueprints.base.v1",
            "blueprints.base.v2",
            "blueprints.nested.app.v3"
        ],
        "{log}"
    );
}

/// `apply-fleet.sh` checks every variant before it writes: a downstream Repository whose
/// `spec.git.directory` leaves the deployments checkout refuses the run, nothing written.
#[test]
fn apply_fleet_refuses_a_directory_outside_the_checkout() {
    let scratch = Scratch::new("fleet-apply-refuses");
    let bin = bin_dir(&scratch.0);
    let objects = scratch.0.join("objects");
    fs::create_dir_all(objects.join("packagevariants")).unwrap();
    fs::write(
        objects.join("repositories.yaml"),
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: blueprints\nspec:\n  git:\n    repo: /nowhere/blueprints.git\n---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: east\nspec:\n  git:\n    repo: /nowhere/deployments\n    directory: ../outside\n",
    )
    .unwrap();
    fs::write(
        objects.join("packagevariants/fleet-east-base.yaml"),
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: fleet-east-base\nspec:\n  upstream: {repo: blueprints, package: base, revision: 1}\n  downstream: {repo: east, package: base}\n",
    )
    .unwrap();
    let (code, log) = shell::sh(
        &scratch.0,
        &bin,
        &format!(
            "git init -q deployments && {} objects deployments",
            root().join("scripts/apply-fleet.sh").display()
        ),
    );
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("'../outside' is not a relative path inside the package; nothing was applied"),
        "{log}"
    );
    assert!(!scratch.0.join("outside").exists());
    assert_eq!(
        fs::read_dir(scratch.0.join("deployments")).unwrap().count(),
        1,
        "only .git"
    );
}
