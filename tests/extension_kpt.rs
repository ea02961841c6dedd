//! Point-keyed injection (`fn.kpt.dev/v1alpha1`, docs/extensions.md) under real kpt, over the
//! life of a package: `kpt pkg get` of a blueprint with three injection points of one kind,
//! the variant (`examples/point-injection`'s functionConfig and sources), `kpt pkg update` to
//! the blueprint's next revision, the variant again: every value stays and the second run
//! changes nothing. Then the same variant from the package's own Kptfile pipeline under
//! `kpt fn render`, and the same for a fleet (`examples/point-injection-set`): an extension
//! set rendered from its package's pipeline, each variant applied to its own package.

mod shell;

use shell::{bin_dir, root, run_block, sh_blocks, Scratch};
use std::fs;
use std::path::Path;

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes the blueprint `web` at version `v` (2 adds a Service and changes the description).
fn blueprint(dir: &Path, v: u32) {
    let example = root().join("examples/point-injection");
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).unwrap();
    let kptfile = read(&example.join("Kptfile"))
        .replace("name: point-injection", "name: web")
        .replace(
            "each filled from its own source",
            &format!("each filled from its own source (v{v})"),
        );
    fs::write(dir.join("Kptfile"), kptfile).unwrap();
    fs::copy(example.join("endpoints.yaml"), dir.join("endpoints.yaml")).unwrap();
    if v >= 2 {
        fs::write(
            dir.join("service.yaml"),
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
        )
        .unwrap();
    }
}

/// What the variant must show whatever the blueprint's version.
fn assert_injected(pkg: &Path) {
    let endpoints = read(&pkg.join("endpoints.yaml"));
    for want in [
        "    kpt.dev/injected-resource: cluster:ConfigMap/us-east1-endpoints\n",
        "  api: api.us-east1.example.com\n",
        "    kpt.dev/injected-resource: inline:PackageVariant/web-us-east1\n",
        "  chargeCode: cd-1234\n",
        "    kpt.dev/injected-resource: package:shared/databases@3:ConfigMap/us-east1\n",
        "  primary: pg.us-east1.example.com\n",
    ] {
        assert!(endpoints.contains(want), "{want:?} not in\n{endpoints}");
    }
    assert!(!endpoints.contains("placeholder"), "{endpoints}");
    let owned = read(&pkg.join("injected/configmap-web-flags.yaml"));
    assert!(
        owned.contains("package-variant.fn.kpt.dev/owner: web-us-east1"),
        "{owned}"
    );
    let kptfile = read(&pkg.join("Kptfile"));
    assert!(kptfile.contains("- conditionType: config.injection.ConfigMap.regional-endpoints\n"));
    assert!(kptfile.contains("- conditionType: config.injection.ConfigMap.team\n"));
    assert_eq!(kptfile.matches("status: \"True\"").count(), 3, "{kptfile}");
}

#[test]
fn point_injection_survives_kpt_pkg_update() {
    let scratch = Scratch::new("point-injection-lifecycle");
    let bin = bin_dir(&scratch.0);
    let tmp = scratch.0.join("tmp");
    // Under `tmp`, which the scripts call /tmp/ (run_block maps it).
    let upstream = tmp.join("blueprints.git");
    fs::create_dir_all(&upstream).unwrap();
    let example = root().join("examples/point-injection");
    let steps = [
        // The blueprint at v1 and v2, tagged as kpt names a package in a subdirectory.
        "git -C /tmp/blueprints.git init -q && git -C /tmp/blueprints.git add -A
git -C /tmp/blueprints.git commit -qm v1 && git -C /tmp/blueprints.git tag web/v1"
            .to_string(),
        String::new(),
        // Clone v1, apply the variant with its sources in the package for the run.
        "mkdir -p /tmp/deployments && git -C /tmp/deployments init -q
kpt pkg get /tmp/blueprints.git/web@web/v1 /tmp/deployments/web-us-east1 --for-deployment
git -C /tmp/deployments add -A && git -C /tmp/deployments commit -qm v1
cp -R in-cluster /tmp/deployments/web-us-east1/in-cluster
kpt fn eval /tmp/deployments/web-us-east1 --exec package-variant --fn-config .expected/fn-config.yaml
rm -r /tmp/deployments/web-us-east1/in-cluster
git -C /tmp/deployments add -A && git -C /tmp/deployments commit -qm variant"
            .to_string(),
        // The blueprint moves on: update.
        "(cd /tmp/deployments && kpt pkg update web-us-east1@web/v2 --strategy resource-merge)
git -C /tmp/deployments add -A && git -C /tmp/deployments commit -qm v2"
            .to_string(),
        // The variant again: nothing changes.
        "cp -R in-cluster /tmp/deployments/web-us-east1/in-cluster
kpt fn eval /tmp/deployments/web-us-east1 --exec package-variant --fn-config .expected/fn-config.yaml
rm -r /tmp/deployments/web-us-east1/in-cluster
git -C /tmp/deployments add -A && git -C /tmp/deployments commit -qm again --allow-empty"
            .to_string(),
    ];
    blueprint(&upstream.join("web"), 1);
    let pkg = tmp.join("deployments/web-us-east1");
    let deployments = tmp.join("deployments");
    for (i, step) in steps.iter().enumerate() {
        if i == 1 {
            blueprint(&upstream.join("web"), 2);
            let script = "git -C /tmp/blueprints.git add -A
git -C /tmp/blueprints.git commit -qm v2 && git -C /tmp/blueprints.git tag web/v2";
            let (code, log) = run_block(script, &example, &tmp, &bin);
            assert_eq!(code, 0, "{log}");
            continue;
        }
        let (code, log) = run_block(step, &example, &tmp, &bin);
        assert_eq!(code, 0, "step {i}:\n{step}\n{log}");
        match i {
            2 => assert_injected(&pkg),
            3 => {
                // The blueprint's changes arrived; the variant's values stayed.
                assert_injected(&pkg);
                assert!(pkg.join("service.yaml").is_file());
                assert!(read(&pkg.join("Kptfile")).contains("(v2)"));
                assert!(read(&pkg.join("Kptfile")).contains("ref: web/v2"));
            }
            4 => {
                assert_injected(&pkg);
                let diff = run_block(
                    "git -C /tmp/deployments diff HEAD~1 HEAD",
                    &example,
                    &tmp,
                    &bin,
                );
                assert_eq!(
                    diff,
                    (0, String::new()),
                    "the run after the update changed something"
                );
            }
            _ => {}
        }
    }
    assert!(deployments.join(".git").is_dir());
}

#[test]
fn point_injection_from_a_kptfile_pipeline_under_render() {
    let scratch = Scratch::new("point-injection-render");
    let bin = bin_dir(&scratch.0);
    let tmp = scratch.0.join("tmp");
    let example = root().join("examples/point-injection");
    let pkg = tmp.join("pkg");
    shell::copy_dir(&example, &pkg);
    fs::remove_dir_all(pkg.join(".expected")).unwrap();
    // The variant kept in the package, run by its own pipeline.
    fs::copy(
        example.join(".expected/fn-config.yaml"),
        pkg.join("variant.yaml"),
    )
    .unwrap();
    let kptfile = read(&pkg.join("Kptfile"));
    fs::write(
        pkg.join("Kptfile"),
        format!("{kptfile}pipeline:\n  mutators:\n  - exec: package-variant\n    configPath: variant.yaml\n"),
    )
    .unwrap();
    let script = "cd /tmp/pkg && git init -q && git add -A && git commit -qm before
kpt fn render /tmp/pkg --allow-exec
git -C /tmp/pkg add -A && git -C /tmp/pkg commit -qm render
kpt fn render /tmp/pkg --allow-exec
git -C /tmp/pkg status --porcelain";
    let (code, log) = run_block(script, &example, &tmp, &bin);
    assert_eq!(code, 0, "{log}");
    assert_injected(&pkg);
    // The second render changed nothing (git status printed nothing after kpt's own lines).
    assert!(!log.contains(" M ") && !log.contains("?? "), "{log}");
    // The sources stay (kpt render writes every file back in its own format: `|2+` becomes
    // `|`, the content is the same).
    let sources = read(&pkg.join("in-cluster/databases.yaml"));
    assert!(
        sources.contains("kind: PackageRevisionResources\n"),
        "{sources}"
    );
    assert!(
        sources.contains("        primary: pg.us-east1.example.com\n"),
        "{sources}"
    );
}

/// `examples/point-injection-set`'s README as written: each of the three variants the set made
/// (under `kpt fn render`) filled its own package from its own region's sources and placed its
/// function after the blueprint's `set-labels`; the two runs give the same packages.
#[test]
fn a_set_of_point_injected_variants_each_on_its_own_package() {
    let scratch = Scratch::new("point-injection-set");
    let bin = bin_dir(&scratch.0);
    let tmp = scratch.0.join("tmp");
    let readme = read(&root().join("examples/point-injection-set/README.md"));
    let blocks = sh_blocks(&readme);
    assert_eq!(blocks.len(), 1, "{readme}");
    let root_dir = tmp.join("pv-point-injection-set");
    let mut first = Vec::new();
    for run in 0..2 {
        // The block starts afresh from the example; the second time, run it over its output.
        let block = if run == 0 {
            blocks[0].clone()
        } else {
            blocks[0]
                .lines()
                .skip(1)
                .map(|l| format!("{l}\n"))
                .collect()
        };
        let (code, log) = run_block(&block, &root(), &tmp, &bin);
        assert_eq!(code, 0, "{block}\n{log}");
        let mut packages = Vec::new();
        for region in ["us-east1", "eu-west1", "asia-east1"] {
            let name = format!("web-edge-{region}-web");
            let variant = read(&root_dir.join(format!("fleet/packagevariants/{name}.yaml")));
            assert!(
                variant.starts_with("apiVersion: fn.kpt.dev/v1alpha1\n"),
                "{variant}"
            );
            let pkg = root_dir.join("deployments").join(&name);
            let endpoints = read(&pkg.join("endpoints.yaml"));
            for want in [
                format!("kpt.dev/injected-resource: cluster:ConfigMap/{region}-endpoints\n"),
                format!("  api: api.{region}.example.com\n"),
                format!("kpt.dev/injected-resource: inline:PackageVariant/{name}\n"),
                format!("  region: {region}\n"),
                format!(
                    "kpt.dev/injected-resource: package:shared/databases@3:ConfigMap/{region}\n"
                ),
                format!("  primary: pg.{region}.example.com\n"),
            ] {
                assert!(endpoints.contains(&want), "{want:?} not in\n{endpoints}");
            }
            assert!(!endpoints.contains("placeholder"), "{endpoints}");
            let kptfile = read(&pkg.join("Kptfile"));
            let names: Vec<&str> = kptfile
                .lines()
                .filter_map(|l| l.strip_prefix("  - name: "))
                .collect();
            assert_eq!(
                names,
                [
                    "set-labels",
                    &format!("PackageVariant.{name}.namespace.0"),
                    "apply-setters"
                ],
                "{kptfile}"
            );
            assert!(kptfile.contains(&format!("namespace: web-{region}\n")));
            packages.push((variant, endpoints, kptfile));
        }
        if run == 0 {
            first = packages;
        } else {
            assert_eq!(packages, first, "the second run changed a package");
        }
    }
}
