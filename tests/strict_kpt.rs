//! Refusals under real kpt, in place (issue 12): kpt runs the binary on a package in a git
//! repository; a refused run exits 1, kpt prints the error with its field path, and `git
//! status` is clean afterwards.

mod shell;

use shell::{copy_dir, git, Scratch};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_package-variant"))
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// Copies `example` into a fresh git repository as `pkg`, writes `config` (if any) next to it,
/// runs `kpt fn eval pkg --exec BIN [--fn-config config.yaml]`, and returns kpt's exit code,
/// its output and `git status --porcelain` of the package.
fn eval(example: &str, config: Option<&str>) -> (i32, String, String) {
    eval_edited(example, config, |_| {})
}

/// [`eval`] on a copy of `example` that `edit` changed first (before the commit).
fn eval_edited(example: &str, config: Option<&str>, edit: impl Fn(&Path)) -> (i32, String, String) {
    let scratch = Scratch::new(example);
    let pkg = scratch.0.join("pkg");
    copy_dir(&examples().join(example), &pkg);
    edit(&pkg);
    git(&pkg, &["init", "-q"]);
    git(&pkg, &["add", "-A"]);
    git(&pkg, &["commit", "-q", "-m", "before"]);
    let mut cmd = Command::new("kpt");
    cmd.args(["fn", "eval", "pkg", "--exec"]).arg(bin());
    if let Some(c) = config {
        let file = scratch.0.join("config.yaml");
        fs::write(&file, c).unwrap();
        cmd.arg("--fn-config").arg(&file);
    }
    let out = cmd
        .current_dir(&scratch.0)
        .output()
        .expect("kpt (is kpt on PATH?)");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let status = git(&pkg, &["status", "--porcelain", "--untracked-files=all"]);
    (out.status.code().unwrap_or(-1), log, status)
}

/// Exit 1, every `line` in kpt's output, and the package untouched.
fn refused(example: &str, config: Option<&str>, lines: &[&str]) {
    let (code, log, status) = eval(example, config);
    assert_eq!(code, 1, "{example}: {log}");
    for l in lines {
        assert!(log.contains(l), "{example}: {l:?} not in\n{log}");
    }
    assert_eq!(
        status, "",
        "{example}: a refused run changed the package\n{log}"
    );
}

const PV: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: web-us-east1
spec:
  upstream: {repo: blueprints, package: web, revision: 3}
  downstream: {repo: edge-us-east1, package: web}
";

#[test]
fn a_misspelt_package_variant_field_changes_nothing() {
    // `pipelines:` would otherwise remove the functions an earlier run added.
    let config = format!("{PV}  pipelines:\n    mutators: [{{image: set-labels}}]\n");
    refused(
        "pipeline",
        Some(&config),
        &[
            r#"[error] config.porch.kpt.dev/v1alpha1/PackageVariant/web-us-east1 spec.pipelines: unknown field "pipelines"; did you mean "pipeline"?"#,
        ],
    );
    let config = format!("{PV}  injector:\n  - name: us-east1-endpoints\n");
    refused(
        "injection",
        Some(&config),
        &[r#"spec.injector: unknown field "injector"; did you mean "injectors"?"#],
    );
}

const PVS: &str = "apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet-base
  namespace: fleet
spec:
  upstream: {repo: catalog, package: base, revision: 2}
";

#[test]
fn a_misspelt_package_variant_set_field_changes_nothing() {
    // `matchLabel:` would otherwise select every Repository.
    let config =
        format!("{PVS}  targets:\n  - repositorySelector:\n      matchLabel: {{env: prod}}\n");
    refused(
        "pvs-fleet",
        Some(&config),
        &[
            r#"[error] config.porch.kpt.dev/v1alpha2/PackageVariantSet/fleet/fleet-base spec.targets[0].repositorySelector.matchLabel: unknown field "matchLabel"; did you mean "matchLabels"?"#,
        ],
    );
    let config = format!(
        "{PVS}  template:\n    labels: {{tier: edge}}\n  targets:\n  - repositorySelector: {{matchLabels: {{env: prod}}}}\n"
    );
    refused(
        "pvs-fleet",
        Some(&config),
        &[r#"spec.template: unknown field "template"; it belongs at spec.targets[].template"#],
    );
}

#[test]
fn kpt_without_a_config_is_refused() {
    refused(
        "context",
        None,
        &["[error] v1/ConfigMap/function-input data: no functionConfig was given (kpt sends an empty ConfigMap \"function-input\" when neither --fn-config nor -- key=value is given)"],
    );
}

#[test]
fn a_set_without_its_target_objects_deletes_nothing() {
    // The fleet's owned PackageVariants stay: no WorkloadCluster is among the items.
    let config = format!(
        "{PVS}  targets:\n  - objectSelector: {{apiVersion: infra.nephio.org/v1alpha1, kind: WorkloadCluster}}\n"
    );
    refused(
        "pvs-fleet",
        Some(&config),
        &[
            r#"spec.targets[0].objectSelector: no matches for kind "WorkloadCluster" in version "infra.nephio.org/v1alpha1""#,
            "kubectl get workloadclusters.infra.nephio.org -n fleet -o yaml",
        ],
    );
}

#[test]
fn a_package_name_listed_twice_changes_nothing() {
    let config = format!(
        "{PVS}  targets:\n  - repositories: [{{name: edge-use1-a, packageNames: [base, base]}}]\n"
    );
    refused(
        "pvs-fleet",
        Some(&config),
        &["spec.targets[0].repositories[0].packageNames[1]: repository \"edge-use1-a\" with package \"base\" is listed twice"],
    );
}

#[test]
fn a_string_revision_changes_nothing() {
    let config = PV.replace("revision: 3}", "revision: \"v3\"}");
    refused(
        "pipeline",
        Some(&config),
        &[
            r#"spec.upstream.revision: invalid type: string "v3", expected an integer: Porch's API takes the revision as an integer (Porch 4.1 and later); write revision: 3"#,
        ],
    );
}

#[test]
fn names_that_cannot_exist_and_clashes_change_nothing() {
    let config = format!(
        "{PVS}  targets:\n  - repositories: [{{name: edge-use1-a, packageNames: [Web]}}]\n"
    );
    refused(
        "pvs-fleet",
        Some(&config),
        &[
            r#"spec.targets[0].repositories[0].packageNames[0]: gives the downstream package "Web", which makes the PackageVariant name "fleet-base-edge-use1-a-Web" invalid"#,
        ],
    );
    let config = format!(
        "{PVS}  targets:\n  - repositories: [{{name: edge-use1-a}}]\n  - repositorySelector: {{matchLabels: {{env: prod}}}}\n"
    );
    refused(
        "pvs-fleet",
        Some(&config),
        &[
            r#"spec.targets[1].repositorySelector: spec.targets[0].repositories[0] (downstream "edge-use1-a"/"base") and spec.targets[1].repositorySelector (Repository "edge-use1-a", downstream "edge-use1-a"/"base") both produce the PackageVariant identifier "fleet-base-edge-use1-a-base""#,
        ],
    );
}

/// An in-cluster copy without its marking: outside the place the PackageVariant names for
/// cluster copies, the run goes on (the point is optional here) and kpt shows the point's result
/// naming the object and the annotation to add; at the named place it is refused (that place
/// holds cluster copies only), naming the object and what to do.
#[test]
fn an_unmarked_in_cluster_object_is_named_with_the_annotation() {
    let injectors = "  injectors:\n  - name: us-east1-endpoints\n  - group: hr.example.com\n    kind: Team\n    name: dev-team-beta\n";
    let unmark = |pkg: &Path| {
        let file = pkg.join("in-cluster/objects.yaml");
        let text = fs::read_to_string(&file).unwrap();
        let unmarked = text.replacen("    config.porch.kpt.dev/in-cluster: \"true\"\n", "", 1);
        assert_ne!(text, unmarked);
        fs::write(&file, unmarked).unwrap();
    };
    // The copies named one by one: the unmarked ConfigMap's document is not a cluster copy.
    let config = PV.replace(
        "metadata:\n  name: web-us-east1\n",
        "metadata:\n  name: web-us-east1\n  annotations:\n    package-variant.fn.kpt.dev/cluster-objects: in-cluster/objects.yaml\n",
    ) + injectors;
    let (code, log, status) = eval_edited("injection", Some(&config), unmark);
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains(r#"ConfigMap/us-east1-endpoints in in-cluster/objects.yaml is not marked config.porch.kpt.dev/in-cluster: "true", but the PackageVariant names "in-cluster/objects.yaml" as a place for cluster copies only"#),
        "{log}"
    );
    assert_eq!(status, "", "{log}");
    // Unnamed, the file is a package file: the marked Team in it is refused, and the unmarked
    // ConfigMap's point names the annotation to add.
    let (code, log, _) = eval_edited("injection", Some(&format!("{PV}{injectors}")), unmark);
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("Team/dev-team-beta in in-cluster/objects.yaml is marked config.porch.kpt.dev/in-cluster: \"true\" but is a package file at a path the PackageVariant does not name"),
        "{log}"
    );
}
