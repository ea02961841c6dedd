//! The trust model under real kpt (issue 20): a blueprint author writes every file of the
//! upstream package, so a file of theirs marked `config.porch.kpt.dev/in-cluster` must never
//! stand in for a cluster object. The blueprint here ships `default/us-east1-endpoints` with
//! the attacker's endpoint; the deployer fetches it with `kpt pkg get` and applies a
//! PackageVariant with `kpt fn eval`. Every route fails closed: exit non-zero, an error naming
//! the blueprint's file, and nothing changed on disk. (On main the blueprint's copy was
//! injected, exit 0.)

mod shell;

use shell::{bin_dir, git, sh, Scratch};
use std::fs;

const KPTFILE: &str = "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: web
  annotations:
    config.kubernetes.io/local-config: \"true\"
info:
  description: A web app blueprint
";

const ENDPOINTS: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: regional-endpoints
  annotations:
    kpt.dev/config-injection: required
data:
  db: placeholder
";

/// What the blueprint author ships, posing as the cluster's object.
const SPOOF: &str = "# Looks like a cluster copy; written by the blueprint author.
apiVersion: v1
kind: ConfigMap
metadata:
  name: us-east1-endpoints
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
    config.kubernetes.io/local-config: \"true\"
data:
  db: attacker.example.com
";

/// The deployer's copy, as `kubectl get -o yaml | kubectl annotate --local ...` writes it.
const REAL: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: us-east1-endpoints
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
    config.kubernetes.io/local-config: \"true\"
data:
  db: db.us-east1.example.com
";

const PV: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: web-us-east1
  namespace: default
ANNOTATIONSspec:
  upstream: {repo: blueprints, package: web, revision: 1}
  downstream: {repo: edge-us-east1, package: web}
  injectors:
  - name: us-east1-endpoints
";

/// The deployer's copy appended to `kpt fn source`'s items (as examples/injection-stdin does).
const STDIN_ROUTE: &str =
    "{ kpt fn source deployments/web; echo '-'; sed -e 's/^/  /' real.yaml; } \
    | kpt fn eval - --exec package-variant --fn-config pv.yaml > out.yaml";

#[test]
fn a_blueprint_file_posing_as_a_cluster_object_fails_closed_under_kpt() {
    let scratch = Scratch::new("trust-kpt");
    let dir = &scratch.0;
    let bin = bin_dir(dir);

    // The upstream: a git repository with the blueprint `web`, tagged web/v1.
    let upstream = dir.join("blueprints.git");
    fs::create_dir_all(upstream.join("web")).unwrap();
    fs::write(upstream.join("web/Kptfile"), KPTFILE).unwrap();
    fs::write(upstream.join("web/endpoints.yaml"), ENDPOINTS).unwrap();
    fs::write(upstream.join("web/cluster-endpoints.yaml"), SPOOF).unwrap();
    git(&upstream, &["init", "-q"]);
    git(&upstream, &["add", "-A"]);
    git(&upstream, &["commit", "-qm", "web v1"]);
    git(&upstream, &["tag", "web/v1"]);

    // The deployer fetches it into a git repository of deployments.
    let deployments = dir.join("deployments");
    fs::create_dir_all(&deployments).unwrap();
    git(&deployments, &["init", "-q"]);
    let (code, log) = sh(
        dir,
        &bin,
        &format!(
            "kpt pkg get {}/web@web/v1 deployments/web",
            upstream.display()
        ),
    );
    assert_eq!(code, 0, "{log}");
    assert!(deployments.join("web/cluster-endpoints.yaml").is_file());
    git(&deployments, &["add", "-A"]);
    git(&deployments, &["commit", "-qm", "web v1"]);
    fs::write(dir.join("real.yaml"), REAL).unwrap();
    let pv = |annotations: &str| PV.replace("ANNOTATIONS", annotations);
    let refusal = "ConfigMap/us-east1-endpoints in cluster-endpoints.yaml is marked config.porch.kpt.dev/in-cluster: \"true\" but is a package file at a path the PackageVariant does not name";
    let clean = |log: &str| {
        assert_eq!(
            git(
                &deployments,
                &["status", "--porcelain", "--untracked-files=all"]
            ),
            "",
            "the package changed:\n{log}"
        );
        let endpoints = fs::read_to_string(deployments.join("web/endpoints.yaml")).unwrap();
        assert!(!endpoints.contains("attacker"), "{endpoints}");
    };

    // 1. In place, the deployer forgot the real copy: refused, nothing changed.
    fs::write(dir.join("pv.yaml"), pv("")).unwrap();
    let (code, log) = sh(
        dir,
        &bin,
        "kpt fn eval deployments/web --exec package-variant --fn-config pv.yaml",
    );
    assert_ne!(code, 0, "{log}");
    assert!(log.contains(refusal), "{log}");
    assert!(log.contains("Pass the cluster copy through stdin"), "{log}");
    clean(&log);

    // 2. The real copy through stdin, next to the blueprint's: still refused (the blueprint's
    //    copy is a package file at an unnamed path); the output holds no injection.
    let (code, log) = sh(dir, &bin, STDIN_ROUTE);
    let out = fs::read_to_string(dir.join("out.yaml")).unwrap_or_default();
    assert_ne!(code, 0, "{log}\n{out}");
    assert!(
        out.contains(refusal) || log.contains(refusal),
        "{log}\n{out}"
    );
    assert!(!out.contains("kpt.dev/injected-resource"), "{out}");
    clean(&log);

    // 3. The real copy at a path the deployer names: the blueprint's file is still refused.
    fs::create_dir_all(deployments.join("web/in-cluster")).unwrap();
    fs::write(deployments.join("web/in-cluster/objects.yaml"), REAL).unwrap();
    git(&deployments, &["add", "-A"]);
    git(&deployments, &["commit", "-qm", "cluster copies"]);
    fs::write(
        dir.join("pv.yaml"),
        pv("  annotations:\n    package-variant.fn.kpt.dev/cluster-objects: in-cluster/objects.yaml\n"),
    )
    .unwrap();
    let (code, log) = sh(
        dir,
        &bin,
        "kpt fn eval deployments/web --exec package-variant --fn-config pv.yaml",
    );
    assert_ne!(code, 0, "{log}");
    assert!(log.contains(refusal), "{log}");
    clean(&log);

    // 4. Once the deployer removes the blueprint's file, its own copy is injected.
    fs::remove_file(deployments.join("web/cluster-endpoints.yaml")).unwrap();
    let (code, log) = sh(
        dir,
        &bin,
        "kpt fn eval deployments/web --exec package-variant --fn-config pv.yaml",
    );
    assert_eq!(code, 0, "{log}");
    let endpoints = fs::read_to_string(deployments.join("web/endpoints.yaml")).unwrap();
    assert!(
        endpoints.contains("db: db.us-east1.example.com"),
        "{endpoints}"
    );
}
