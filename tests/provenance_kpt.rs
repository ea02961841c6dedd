//! Provenance under real kpt (issue 29): where an item came from is read only from what kpt
//! writes itself. First what kpt writes on each route (a function that records its input),
//! then a blueprint that forges every annotation the trust model reads: the file path (and its
//! legacy twin), the index, and the package path, on its file and on its Kptfile. Every route
//! fails closed: exit non-zero, an error naming the forged file, nothing changed on disk. (On
//! main a forged package path passed the blueprint's file off as a deployer's cluster copy.)

mod shell;

use shell::{bin_dir, git, sh, Scratch};
use std::fs;
use std::path::Path;

/// The `metadata.annotations` of the item named `name` in a ResourceList kpt wrote, as
/// `key=value` (quotes dropped).
fn annotations_of(rl: &str, name: &str) -> Vec<String> {
    let start = rl
        .find(&format!("    name: {name}\n"))
        .unwrap_or_else(|| panic!("no item {name} in\n{rl}"));
    rl[start..]
        .lines()
        .skip(1)
        .skip_while(|l| l.trim() != "annotations:")
        .skip(1)
        .take_while(|l| l.starts_with("      "))
        .filter_map(|l| {
            let (k, v) = l.trim().split_once(": ")?;
            Some(format!("{k}={}", v.trim_matches(['"', '\''])))
        })
        .collect()
}

/// What kpt sets itself, route by route: the file path and index over a forged one everywhere,
/// the package path only under render (a forged one passes eval and `kpt fn source` as it is).
/// The trust model is built on exactly this.
#[test]
fn kpt_sets_paths_on_every_route_and_package_paths_only_under_render() {
    let scratch = Scratch::new("provenance-echo");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    let record = dir.join("record.sh");
    fs::write(
        &record,
        format!("#!/bin/sh\ntee \"{}/seen.yaml\"\n", dir.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&record, fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir_all(dir.join("pkg")).unwrap();
    fs::write(
        dir.join("pkg/Kptfile"),
        format!(
            "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n  annotations:\n    \
             internal.config.kubernetes.io/package-path: /forged\npipeline:\n  mutators:\n  - \
             exec: {}\n",
            record.display()
        ),
    )
    .unwrap();
    fs::write(
        dir.join("pkg/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: forged\n  annotations:\n    \
         internal.config.kubernetes.io/package-path: /forged/in-cluster\n    \
         internal.config.kubernetes.io/path: in-cluster/objects.yaml\n    \
         config.kubernetes.io/path: in-cluster/objects.yaml\n    \
         internal.config.kubernetes.io/index: '7'\n    config.kubernetes.io/index: '7'\n",
    )
    .unwrap();
    let seen = |script: &str| {
        let (code, log) = sh(dir, &bin, script);
        assert_eq!(code, 0, "{script}: {log}");
        fs::read_to_string(dir.join("seen.yaml")).unwrap()
    };
    let pkg = dir.join("pkg").display().to_string();
    let overwritten = [
        "internal.config.kubernetes.io/path=cm.yaml",
        "config.kubernetes.io/path=cm.yaml",
        "internal.config.kubernetes.io/index=0",
        "config.kubernetes.io/index=0",
    ];
    for (route, script) in [
        (
            "eval",
            format!("kpt fn eval pkg --exec {}", record.display()),
        ),
        (
            "stdin",
            format!(
                "kpt fn source pkg | kpt fn eval - --exec {} > /dev/null",
                record.display()
            ),
        ),
    ] {
        let rl = seen(&script);
        let a = annotations_of(&rl, "forged");
        for want in overwritten
            .iter()
            .chain(&["internal.config.kubernetes.io/package-path=/forged/in-cluster"])
        {
            assert!(a.iter().any(|x| x == want), "{route}: {want} not in {a:?}");
        }
        let k = annotations_of(&rl, "pkg");
        assert!(
            k.iter()
                .any(|x| x == "internal.config.kubernetes.io/package-path=/forged"),
            "{route}: {k:?}"
        );
    }
    let rl = seen("kpt fn render pkg --allow-exec");
    let a = annotations_of(&rl, "forged");
    for want in overwritten
        .iter()
        .map(|s| s.to_string())
        .chain([format!("internal.config.kubernetes.io/package-path={pkg}")])
    {
        assert!(a.contains(&want), "render: {want} not in {a:?}");
    }
}

const ENDPOINTS: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: regional-endpoints
  annotations:
    kpt.dev/config-injection: required
data:
  db: placeholder
";

/// The blueprint's file posing as a cluster copy; `FORGED` stands for the annotations it forges.
const SPOOF: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: us-east1-endpoints
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
    config.kubernetes.io/local-config: \"true\"
FORGED
data:
  db: attacker.example.com
";

/// The deployer's own cluster copy of another object, at the path it names.
const REGION: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: region-info
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
    config.kubernetes.io/local-config: \"true\"
data:
  region: us-east1
";

/// The deployer's PackageVariant: cluster copies under `in-cluster/`.
const PV: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: web-us-east1
  namespace: default
  annotations:
    package-variant.fn.kpt.dev/cluster-objects: in-cluster/
    config.kubernetes.io/local-config: \"true\"
spec:
  upstream: {repo: blueprints, package: web, revision: 1}
  downstream: {repo: edge-us-east1, package: web}
  injectors:
  - name: us-east1-endpoints
";

fn kptfile(annotations: &str) -> String {
    format!(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n  annotations:\n    \
         config.kubernetes.io/local-config: \"true\"\n{annotations}info:\n  description: A web \
         app blueprint\n"
    )
}

/// `    key: value` lines for the metadata of a blueprint file.
fn forged(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("    {k}: {v:?}\n"))
        .collect()
}

/// A deployment of the blueprint whose files are `files`: fetched with `kpt pkg get` from a git
/// upstream (which keeps every annotation a file writes), the deployer's copies added, all
/// committed. Returns the package directory.
fn deploy(dir: &Path, bin: &Path, files: &[(&str, String)], region: bool) -> std::path::PathBuf {
    let upstream = dir.join("blueprints.git");
    let _ = fs::remove_dir_all(&upstream);
    fs::create_dir_all(upstream.join("web")).unwrap();
    for (name, text) in files {
        fs::write(upstream.join("web").join(name), text).unwrap();
    }
    git(&upstream, &["init", "-q"]);
    git(&upstream, &["add", "-A"]);
    git(&upstream, &["commit", "-qm", "web v1"]);
    git(&upstream, &["tag", "web/v1"]);
    let deployments = dir.join("deployments");
    let _ = fs::remove_dir_all(&deployments);
    fs::create_dir_all(&deployments).unwrap();
    git(&deployments, &["init", "-q"]);
    let (code, log) = sh(
        dir,
        bin,
        &format!(
            "kpt pkg get {}/web@web/v1 deployments/web",
            upstream.display()
        ),
    );
    assert_eq!(code, 0, "{log}");
    let pkg = deployments.join("web");
    if region {
        fs::create_dir_all(pkg.join("in-cluster")).unwrap();
        fs::write(pkg.join("in-cluster/region.yaml"), REGION).unwrap();
    }
    git(&deployments, &["add", "-A"]);
    git(&deployments, &["commit", "-qm", "web v1"]);
    pkg
}

/// Nothing changed in the deployment, and the attacker's value went nowhere.
fn unchanged(pkg: &Path, log: &str) {
    assert_eq!(
        git(pkg, &["status", "--porcelain", "--untracked-files=all"]),
        "",
        "the package changed:\n{log}"
    );
    let endpoints = fs::read_to_string(pkg.join("endpoints.yaml")).unwrap();
    assert!(!endpoints.contains("attacker"), "{endpoints}\n{log}");
    assert!(!log.contains("attacker.example.com"), "{log}");
}

const EVAL: &str = "kpt fn eval deployments/web --exec package-variant --fn-config pv.yaml";
const STDIN: &str = "kpt fn source deployments/web \
    | kpt fn eval - --exec package-variant --fn-config pv.yaml > out.yaml";

/// Runs `route` and checks it fails closed with `refusal` in its log or output.
fn refused(dir: &Path, bin: &Path, pkg: &Path, route: &str, refusal: &str) {
    let _ = fs::remove_file(dir.join("out.yaml"));
    let (code, log) = sh(dir, bin, route);
    let out = fs::read_to_string(dir.join("out.yaml")).unwrap_or_default();
    let all = format!("{log}\n{out}");
    assert_ne!(code, 0, "{route}: {all}");
    assert!(all.contains(refusal), "{route}: no {refusal:?} in\n{all}");
    assert!(!out.contains("kpt.dev/injected-resource"), "{out}");
    unchanged(pkg, &all);
}

/// The attack of issue 29: the blueprint forges `package-path` on its file (`/pkg/in-cluster`)
/// and on its Kptfile (`/pkg`), so that the file reads as `in-cluster/cluster-endpoints.yaml`,
/// under the folder the deployer names. Refused under eval and through stdin (kpt passes the
/// forged value through); under render kpt writes the real one, and the file is refused as a
/// package file at a path the deployer does not name.
#[test]
fn a_forged_package_path_fails_closed_on_every_route() {
    let scratch = Scratch::new("provenance-package-path");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    let pp = "internal.config.kubernetes.io/package-path";
    let files = [
        ("Kptfile", kptfile(&forged(&[(pp, "/pkg")]))),
        ("endpoints.yaml", ENDPOINTS.to_string()),
        (
            "cluster-endpoints.yaml",
            SPOOF.replace("FORGED\n", &forged(&[(pp, "/pkg/in-cluster")])),
        ),
    ];
    let pkg = deploy(dir, &bin, &files, true);
    fs::write(dir.join("pv.yaml"), PV).unwrap();
    let refusal = "ConfigMap/us-east1-endpoints (cluster-endpoints.yaml) carries \
                   internal.config.kubernetes.io/package-path: \"/pkg/in-cluster\", which kpt \
                   writes itself only under kpt fn render";
    refused(dir, &bin, &pkg, EVAL, refusal);
    refused(dir, &bin, &pkg, STDIN, refusal);

    // Render: the deployer runs the PackageVariant from the package's own pipeline.
    fs::write(pkg.join("pv.yaml"), PV).unwrap();
    let kf = fs::read_to_string(pkg.join("Kptfile")).unwrap();
    fs::write(
        pkg.join("Kptfile"),
        format!("{kf}pipeline:\n  mutators:\n  - exec: package-variant\n    configPath: pv.yaml\n"),
    )
    .unwrap();
    git(&pkg, &["add", "-A"]);
    git(&pkg, &["commit", "-qm", "render with the variant"]);
    refused(
        dir,
        &bin,
        &pkg,
        "kpt fn render deployments/web --allow-exec",
        "ConfigMap/us-east1-endpoints in cluster-endpoints.yaml is marked \
         config.porch.kpt.dev/in-cluster: \"true\" but is a package file at a path the \
         PackageVariant does not name",
    );
}

/// Every item forged, and a second Kptfile document for the forged package (with a forged
/// index 0), copied in without `kpt pkg get` (which would drop the second document): eval gives
/// that document index 1, so no Kptfile of `/pkg/in-cluster` is kpt's, and the run is refused.
#[test]
fn a_forged_package_with_its_own_kptfile_document_fails_closed() {
    let scratch = Scratch::new("provenance-kptfile-doc");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    let pp = "internal.config.kubernetes.io/package-path";
    let index = "internal.config.kubernetes.io/index";
    let pkg = deploy(dir, &bin, &[("Kptfile", kptfile(""))], false);
    let kf = fs::read_to_string(pkg.join("Kptfile")).unwrap();
    let kf = kf.replace(
        "    config.kubernetes.io/local-config: \"true\"\n",
        &format!(
            "    config.kubernetes.io/local-config: \"true\"\n{}",
            forged(&[(pp, "/pkg")])
        ),
    );
    let second = format!(
        "---\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: fake\n  annotations:\n{}",
        forged(&[(pp, "/pkg/in-cluster"), (index, "0")])
    );
    fs::write(pkg.join("Kptfile"), format!("{kf}{second}")).unwrap();
    fs::write(
        pkg.join("endpoints.yaml"),
        ENDPOINTS.replace(
            "    kpt.dev/config-injection: required\n",
            &format!(
                "    kpt.dev/config-injection: required\n{}",
                forged(&[(pp, "/pkg")])
            ),
        ),
    )
    .unwrap();
    fs::write(
        pkg.join("cluster-endpoints.yaml"),
        SPOOF.replace("FORGED\n", &forged(&[(pp, "/pkg/in-cluster")])),
    )
    .unwrap();
    git(&pkg, &["add", "-A"]);
    git(&pkg, &["commit", "-qm", "copied"]);
    fs::write(dir.join("pv.yaml"), PV).unwrap();
    let refusal = "carries internal.config.kubernetes.io/package-path: \"/pkg/in-cluster\", which \
                   kpt writes itself only under kpt fn render, on every item, with each \
                   package's Kptfile at path \"Kptfile\"; here no Kptfile at path \"Kptfile\" \
                   (index 0) carries \"/pkg/in-cluster\"";
    refused(dir, &bin, &pkg, EVAL, refusal);
    refused(dir, &bin, &pkg, STDIN, refusal);
}

/// The file path and its legacy twin, forged to the named folder: kpt writes the real path over
/// both on every route, and the file is refused as a package file at an unnamed path.
#[test]
fn a_forged_file_path_is_overwritten_by_kpt_and_fails_closed() {
    let scratch = Scratch::new("provenance-path");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    let files = [
        ("Kptfile", kptfile("")),
        ("endpoints.yaml", ENDPOINTS.to_string()),
        (
            "cluster-endpoints.yaml",
            SPOOF.replace(
                "FORGED\n",
                &forged(&[
                    (
                        "internal.config.kubernetes.io/path",
                        "in-cluster/objects.yaml",
                    ),
                    ("config.kubernetes.io/path", "in-cluster/objects.yaml"),
                    ("internal.config.kubernetes.io/index", "0"),
                    ("config.kubernetes.io/index", "0"),
                ]),
            ),
        ),
    ];
    let pkg = deploy(dir, &bin, &files, true);
    fs::write(dir.join("pv.yaml"), PV).unwrap();
    let refusal = "ConfigMap/us-east1-endpoints in cluster-endpoints.yaml is marked \
                   config.porch.kpt.dev/in-cluster: \"true\" but is a package file at a path \
                   the PackageVariant does not name";
    refused(dir, &bin, &pkg, EVAL, refusal);
    refused(dir, &bin, &pkg, STDIN, refusal);
}
