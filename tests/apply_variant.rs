//! `scripts/apply-variant.sh` against hostile inputs, under real kpt: the files it replaces are
//! the paths of the package's own items read as YAML, never a line of a cluster object or of an
//! item's data; a path that is absolute or leaves the package refuses the run with nothing
//! changed; names kpt quotes (`'it''s.yaml'`) or that hold spaces are removed when the function
//! removes their resource; and on success the function's info and warning results are printed
//! as `kpt fn eval` prints them.

mod shell;

use shell::{bin_dir, copy_dir, path_with, root, Scratch};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A package to apply to, a file beside it that must never be touched, and `PATH`.
struct Setup {
    scratch: Scratch,
    pkg: PathBuf,
    victim: PathBuf,
    bin: PathBuf,
}

const VICTIM: &str = "the file beside the package\n";

fn setup(name: &str, example: &str) -> Setup {
    let scratch = Scratch::new(name);
    let bin = bin_dir(&scratch.0);
    let pkg = scratch.0.join("pkg");
    copy_dir(&root().join("examples").join(example), &pkg);
    let victim = scratch.0.join("victim.txt");
    fs::write(&victim, VICTIM).unwrap();
    Setup {
        scratch,
        pkg,
        victim,
        bin,
    }
}

impl Setup {
    /// Runs the script with `args` after PV and PKG, and `PACKAGE_VARIANT` if given.
    fn apply(&self, pv: &Path, objects: &[&Path], function: Option<&Path>) -> Output {
        let mut cmd = Command::new(root().join("scripts/apply-variant.sh"));
        cmd.arg(pv).arg(&self.pkg).args(objects);
        cmd.env("PATH", path_with(&self.bin))
            .env("TMPDIR", &self.scratch.0);
        if let Some(f) = function {
            cmd.env("PACKAGE_VARIANT", f);
        }
        cmd.output().unwrap()
    }

    /// The package's files and their contents, to show that a refused run changed nothing.
    fn snapshot(&self) -> Vec<(String, String)> {
        let mut files = Vec::new();
        walk(&self.pkg, &self.pkg, &mut files);
        files.sort();
        files
    }

    fn victim_intact(&self) {
        assert_eq!(fs::read_to_string(&self.victim).unwrap(), VICTIM);
    }
}

fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(base, &path, out);
        } else {
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((rel, fs::read_to_string(&path).unwrap()));
        }
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A cluster ConfigMap, and a package ConfigMap, whose data holds the line the old script took
/// for a file path (`internal.config.kubernetes.io/path: '../victim.txt'`): data, so the run
/// succeeds and the file beside the package stays.
#[test]
fn a_data_line_naming_a_path_deletes_nothing() {
    let s = setup("apply-data-line", "injection-stdin");
    let objects = s.scratch.0.join("objects.yaml");
    let mut text =
        fs::read_to_string(root().join("examples/injection-stdin/.expected/in-cluster.yaml"))
            .unwrap();
    text.push_str(
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\n  namespace: default\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  internal.config.kubernetes.io/path: '../victim.txt'\n",
    );
    fs::write(&objects, text).unwrap();
    fs::write(
        s.pkg.join("notes.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  internal.config.kubernetes.io/path: '../victim.txt'\n",
    )
    .unwrap();
    let out = s.apply(
        &root().join("examples/injection-stdin/fn-config.yaml"),
        &[&objects],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    s.victim_intact();
    let endpoints = fs::read_to_string(s.pkg.join("endpoints.yaml")).unwrap();
    assert!(
        endpoints.contains("db: db.us-east1.example.com"),
        "{endpoints}"
    );
    assert!(fs::read_to_string(s.pkg.join("notes.yaml"))
        .unwrap()
        .contains("'../victim.txt'"));
    // Never written into the package: it has no file path.
    assert!(!s
        .snapshot()
        .iter()
        .any(|(_, t)| t.contains("name: hostile")));
    // The results, as kpt fn eval prints them.
    let err = stderr(&out);
    assert!(
        err.contains("[info] v1/ConfigMap/regional-endpoints data: required injection point ConfigMap/regional-endpoints: injected data of in-cluster ConfigMap \"us-east1-endpoints\"\n"),
        "{err}"
    );
    assert!(
        err.contains("[info] v1/ConfigMap/other-team/us-east1-endpoints metadata.namespace: "),
        "{err}"
    );
}

/// A cluster object that carries kpt's file annotation would be written into the package (or
/// beside it): refused, nothing changed.
#[test]
fn a_cluster_object_with_a_file_path_is_refused() {
    for path in ["../victim.txt", "/etc/passwd", "inside.yaml"] {
        let s = setup("apply-object-path", "injection-stdin");
        let objects = s.scratch.0.join("objects.yaml");
        fs::write(
            &objects,
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  namespace: default\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\n    internal.config.kubernetes.io/path: '{path}'\ndata:\n  db: x\n"),
        )
        .unwrap();
        let before = s.snapshot();
        let out = s.apply(
            &root().join("examples/injection-stdin/fn-config.yaml"),
            &[&objects],
            None,
        );
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        assert!(
            stderr(&out)
                .contains("carries the file annotation 'internal.config.kubernetes.io/path'"),
            "{}",
            stderr(&out)
        );
        assert_eq!(s.snapshot(), before, "{path}");
        s.victim_intact();
    }
}

/// A function whose output names a file outside the package (absolute, or through `..`):
/// refused before anything is written or removed.
#[test]
fn an_output_path_outside_the_package_is_refused() {
    // The sed address: every path annotation, or only kpt's legacy one.
    let (all, legacy) = ("", "\\, config.kubernetes.io/path,");
    for (only, path, says) in [
        (all, "../victim.txt", "leaves the package"),
        (all, "a/../../victim.txt", "leaves the package"),
        (all, "ABS", "is absolute"),
        (legacy, "../victim.txt", "leaves the package"),
    ] {
        let s = setup("apply-output-path", "injection-stdin");
        let path = path.replace("ABS", &s.victim.to_string_lossy());
        // The real function, then its endpoints.yaml item moved to the hostile path.
        let function = s.scratch.0.join("hostile-function");
        fs::write(
            &function,
            format!(
                "#!/bin/sh\npackage-variant | sed \"{only}s#path: 'endpoints.yaml'#path: '{path}'#\"\n"
            ),
        )
        .unwrap();
        Command::new("chmod")
            .arg("+x")
            .arg(&function)
            .status()
            .unwrap();
        let before = s.snapshot();
        let out = s.apply(
            &root().join("examples/injection-stdin/fn-config.yaml"),
            &[&root().join("examples/injection-stdin/.expected/in-cluster.yaml")],
            Some(&function),
        );
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("file path '{path}' {says}; nothing was changed")),
            "{}",
            stderr(&out)
        );
        assert_eq!(s.snapshot(), before, "{path}");
        s.victim_intact();
    }
}

/// A directory of the package that is a symbolic link to elsewhere is never written through.
#[test]
fn an_output_path_through_a_symbolic_link_is_refused() {
    let s = setup("apply-symlink", "injection-stdin");
    let elsewhere = s.scratch.0.join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, s.pkg.join("link")).unwrap();
    let function = s.scratch.0.join("hostile-function");
    fs::write(
        &function,
        "#!/bin/sh\npackage-variant | sed \"s#path: 'endpoints.yaml'#path: 'link/endpoints.yaml'#\"\n",
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&function)
        .status()
        .unwrap();
    let out = s.apply(
        &root().join("examples/injection-stdin/fn-config.yaml"),
        &[&root().join("examples/injection-stdin/.expected/in-cluster.yaml")],
        Some(&function),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("symbolic link 'link'"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// File names kpt quotes or that hold spaces: the set deletes the variant in `it's gone.yaml`
/// and updates the one in `with space.yaml`; the first file goes, the second holds the update.
#[test]
fn quoted_names_and_spaces_are_removed_and_written() {
    let s = setup("apply-names", "pvs-fleet");
    let dir = s.pkg.join("packagevariants");
    fs::rename(
        dir.join("fleet-base-edge-aps1-a-base.yaml"),
        dir.join("it's gone.yaml"),
    )
    .unwrap();
    fs::rename(
        dir.join("fleet-base-edge-use1-a-base.yaml"),
        dir.join("with space.yaml"),
    )
    .unwrap();
    let out = s.apply(&root().join("examples/pvs-fleet/fn-config.yaml"), &[], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "fleet-base-edge-euw1-a-base.yaml",
            "fleet-base-edge-use1-b-base.yaml",
            "monitoring-edge-use1-a.yaml",
            "with space.yaml"
        ]
    );
    let updated = fs::read_to_string(dir.join("with space.yaml")).unwrap();
    assert!(updated.contains("revision: 2"), "{updated}");
    // The deletion's warning is printed.
    let err = stderr(&out);
    assert!(
        err.contains("[warning] config.porch.kpt.dev/v1alpha1/PackageVariant/")
            && err.contains("no longer selects Repository \"edge-aps1-a\""),
        "{err}"
    );
    s.victim_intact();
}
