//! docs/fleet-safety.md under real kpt: the typo case on the `examples/pvs-fleet` package
//! (refused, nothing deleted on disk; allowed by the annotation), and the documented
//! preview-then-apply recipe run as written, with a fake `kubectl` that serves the fleet's
//! namespace and records what it is asked to apply and delete.

mod shell;

use shell::{bin_dir, root, sh_blocks, Scratch};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `dir` with its text, by relative path.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).unwrap().display().to_string();
                out.insert(rel, read(&path));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The example's set with the issue's typo (`env: nowhere`), annotated with `annotations`
/// (YAML lines under `annotations:`, or empty).
fn typo_set(annotations: &str) -> String {
    let set = read(&root().join("examples/pvs-fleet/.expected/fn-config.yaml"));
    assert!(set.contains("        env: prod\n"));
    let mut set = set.replace("        env: prod\n", "        env: nowhere\n");
    if !annotations.is_empty() {
        set = set.replace(
            "metadata:\n  name: fleet-base\n",
            &format!("metadata:\n  name: fleet-base\n  annotations:\n    {annotations}\n"),
        );
    }
    set
}

fn kpt_eval(pkg: &Path, config: &Path) -> (i32, String) {
    let out = Command::new("kpt")
        .args(["fn", "eval"])
        .arg(pkg)
        .arg("--exec")
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--fn-config")
        .arg(config)
        .output()
        .expect("kpt is on PATH (see tests/kpt_e2e.rs)");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// kpt prints only the first lines of a function's results: the refusal comes first, before
/// the warnings that explain it, so it is never the part cut off.
#[test]
fn kpt_prints_the_refusal_before_the_warnings() {
    let scratch = Scratch::new("fleet-first");
    let pkg = scratch.0.join("pvs-fleet");
    shell::copy_dir(&root().join("examples/pvs-fleet"), &pkg);
    fs::remove_dir_all(pkg.join(".expected")).unwrap();
    let config = scratch.0.join("typo.yaml");
    fs::write(&config, typo_set("")).unwrap();
    let (code, log) = kpt_eval(&pkg, &config);
    assert_ne!(code, 0, "{log}");
    let results: Vec<&str> = log
        .lines()
        .skip_while(|l| l.trim() != "Results:")
        .skip(1)
        .take_while(|l| l.trim_start().starts_with('['))
        .map(str::trim)
        .collect();
    assert!(results.len() >= 3, "{log}");
    assert!(
        results[0].starts_with("[error]") && results[0].contains("refused: this run would delete"),
        "kpt's first result line is not the refusal:\n{log}"
    );
    assert!(
        results[1..].iter().all(|l| l.starts_with("[warning]")),
        "{log}"
    );
}

/// The issue's "done when": the typo is refused under real kpt with nothing deleted on disk,
/// and passes once the annotation allows it.
#[test]
fn typo_on_the_fleet_package_is_refused_under_kpt_then_allowed() {
    let scratch = Scratch::new("fleet-typo");
    let pkg = scratch.0.join("pvs-fleet");
    shell::copy_dir(&root().join("examples/pvs-fleet"), &pkg);
    fs::remove_dir_all(pkg.join(".expected")).unwrap();
    let before = snapshot(&pkg);
    let config = scratch.0.join("typo.yaml");
    fs::write(&config, typo_set("")).unwrap();
    let (code, log) = kpt_eval(&pkg, &config);
    assert_ne!(code, 0, "{log}");
    assert!(
        log.contains("refused: this run would delete 2 of the 2 PackageVariants the set owns"),
        "{log}"
    );
    assert_eq!(snapshot(&pkg), before, "a refused run changes no file");

    fs::write(
        &config,
        typo_set("package-variant.fn.kpt.dev/allow-deletions: \"all\""),
    )
    .unwrap();
    let (code, log) = kpt_eval(&pkg, &config);
    assert_eq!(code, 0, "{log}");
    let variants = pkg.join("packagevariants");
    assert!(!variants.join("fleet-base-edge-aps1-a-base.yaml").exists());
    assert!(!variants.join("fleet-base-edge-use1-a-base.yaml").exists());
    // Another set's variant and the Repositories stay as they were.
    let after = snapshot(&pkg);
    for file in [
        "packagevariants/monitoring-edge-use1-a.yaml",
        "repositories.yaml",
    ] {
        assert_eq!(after.get(file), before.get(file), "{file}");
    }
}

/// A fake `kubectl`: `get ... -o yaml` prints `$FAKE_FLEET`, `get ... -o name` prints
/// `$FAKE_OWNED`; `apply -R -f DIR -l KEY=VALUE` finds the PackageVariants under DIR with
/// that label (one object per file, as `kpt fn sink` writes them) and prints their names
/// (`--dry-run=client -o name`) or records them as applied; `delete` records its names.
const FAKE_KUBECTL: &str = r#"#!/usr/bin/env bash
set -euo pipefail
echo "kubectl $*" >> "$FAKE_LOG.calls"
cmd=$1; shift
dir="" label="" dry=0 names=()
while [ $# -gt 0 ]; do
  case "$1" in
    -f) dir=$2; shift 2 ;;
    -l) label=$2; shift 2 ;;
    -n|-o) shift 2 ;;
    --dry-run=client) dry=1; shift ;;
    -*) shift ;;
    *) names+=("$1"); shift ;;
  esac
done
case "$cmd" in
  get)
    case " ${names[*]} " in
      *" repositories,packagerevisions,packagevariants "*) cat "$FAKE_FLEET" ;;
      *) cat "$FAKE_OWNED" ;;
    esac ;;
  apply)
    want="${label%%=*}: ${label#*=}"
    find "$dir" -name '*.yaml' | sort | while read -r f; do
      grep -q '^kind: PackageVariant$' "$f" || continue
      grep -qF "    $want" "$f" || continue
      name=$(awk '/^  name: /{print $2; exit}' "$f")
      if [ "$dry" = 1 ]; then echo "packagevariant.config.porch.kpt.dev/$name"
      else echo "apply $name" >> "$FAKE_LOG"; fi
    done ;;
  delete)
    for n in "${names[@]}"; do echo "delete ${n##*/}" >> "$FAKE_LOG"; done ;;
esac
"#;

/// The example's objects as `kubectl get -o yaml` lists them: a `v1` `List`.
fn fleet_list() -> String {
    let example = root().join("examples/pvs-fleet");
    let mut files = vec![
        example.join("repositories.yaml"),
        example.join("packagerevisions.yaml"),
    ];
    let mut variants: Vec<_> = fs::read_dir(example.join("packagevariants"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    variants.sort();
    files.extend(variants);
    let mut out = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for f in files {
        for doc in read(&f).split("\n---\n") {
            let mut first = true;
            for line in doc.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
                out.push_str(if first { "- " } else { "  " });
                out.push_str(line);
                out.push('\n');
                first = false;
            }
        }
    }
    out
}

/// Runs the documented recipe in a directory holding `set` as fleet-base.yaml; returns its
/// exit code, its output, and what the fake kubectl applied and deleted.
fn run_recipe(set: &str) -> (i32, String, Vec<String>) {
    let docs = read(&root().join("docs/fleet-safety.md"));
    let blocks = sh_blocks(&docs);
    assert_eq!(blocks.len(), 1, "docs/fleet-safety.md has one recipe");
    let block = &blocks[0];
    assert!(
        block.lines().find(|l| !l.starts_with('#')) == Some("set -euo pipefail"),
        "{block}"
    );
    let scratch = Scratch::new("fleet-recipe");
    let bin = bin_dir(&scratch.0);
    let kubectl = bin.join("kubectl");
    fs::write(&kubectl, FAKE_KUBECTL).unwrap();
    let mut perms = fs::metadata(&kubectl).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&kubectl, perms).unwrap();
    let cwd = scratch.0.join("work");
    fs::create_dir_all(&cwd).unwrap();
    fs::write(cwd.join("fleet-base.yaml"), set).unwrap();
    let fleet = scratch.0.join("fleet.yaml");
    fs::write(&fleet, fleet_list()).unwrap();
    let owned = scratch.0.join("owned.txt");
    fs::write(
        &owned,
        "packagevariant.config.porch.kpt.dev/fleet-base-edge-aps1-a-base\npackagevariant.config.porch.kpt.dev/fleet-base-edge-use1-a-base\n",
    )
    .unwrap();
    let log = scratch.0.join("kubectl.log");
    fs::write(&log, "").unwrap();
    // As `shell::run_block` runs a block, with the fake's files in the environment.
    let run = Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", block])
        .current_dir(&cwd)
        .env("PATH", shell::path_with(&bin))
        .env("FAKE_FLEET", &fleet)
        .env("FAKE_OWNED", &owned)
        .env("FAKE_LOG", &log)
        .output()
        .unwrap();
    let code = run.status.code().unwrap_or(-1);
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let calls: Vec<String> = read(&log).lines().map(str::to_string).collect();
    (code, out, calls)
}

#[test]
fn preview_then_apply_recipe_applies_and_deletes_through_the_owner_label() {
    let set = read(&root().join("examples/pvs-fleet/.expected/fn-config.yaml"));
    let (code, out, calls) = run_recipe(&set);
    assert_eq!(code, 0, "{out}");
    // The plan was shown.
    assert!(
        out.contains("2 created (fleet-base-edge-euw1-a-base, fleet-base-edge-use1-b-base), 1 updated (fleet-base-edge-use1-a-base [spec.upstream.revision, "),
        "{out}"
    );
    let mut calls = calls;
    calls.sort();
    assert_eq!(
        calls,
        [
            "apply fleet-base-edge-euw1-a-base",
            "apply fleet-base-edge-use1-a-base",
            "apply fleet-base-edge-use1-b-base",
            "delete fleet-base-edge-aps1-a-base",
        ],
        "{out}"
    );
}

#[test]
fn preview_then_apply_recipe_stops_on_a_refused_run() {
    let (code, out, calls) = run_recipe(&typo_set(""));
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("refused: this run would delete"), "{out}");
    assert!(calls.is_empty(), "nothing applied or deleted: {calls:?}");
}

/// The README's "Against a cluster" block, run as written (its `/tmp/` in a scratch
/// directory) with the fake `kubectl` and `set` as `pvs.yaml`: its exit code and output.
fn run_readme_recipe(set: &str) -> (i32, String, std::path::PathBuf) {
    let readme = read(&root().join("README.md"));
    let block = sh_blocks(&readme)
        .into_iter()
        .find(|b| b.contains("tests/fleet_safety.rs runs it with a fake kubectl"))
        .expect("the README's recipe against a cluster");
    let scratch = Scratch::new("readme-cluster");
    let bin = bin_dir(&scratch.0);
    let kubectl = bin.join("kubectl");
    fs::write(&kubectl, FAKE_KUBECTL).unwrap();
    let mut perms = fs::metadata(&kubectl).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&kubectl, perms).unwrap();
    let cwd = scratch.0.join("work");
    let tmp = scratch.0.join("tmp");
    fs::create_dir_all(&cwd).unwrap();
    fs::create_dir_all(&tmp).unwrap();
    fs::write(cwd.join("pvs.yaml"), set).unwrap();
    let fleet = scratch.0.join("fleet.yaml");
    fs::write(&fleet, fleet_list()).unwrap();
    let log = scratch.0.join("kubectl.log");
    let script = block.replace("/tmp/", &format!("{}/", tmp.display()));
    let run = Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", &script])
        .current_dir(&cwd)
        .env("PATH", shell::path_with(&bin))
        .env("FAKE_FLEET", &fleet)
        .env("FAKE_OWNED", &fleet)
        .env("FAKE_LOG", &log)
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    // Kept: the caller reads what the recipe wrote.
    let dir = scratch.0.clone();
    std::mem::forget(scratch);
    (run.status.code().unwrap_or(-1), out, dir)
}

/// The README's recipe against a cluster: the set's variants land in the folder and the plan in
/// the results file; a refused run prints the function's error (not kpt's "already exists",
/// which the piped route prints).
#[test]
fn readme_cluster_recipe_shows_the_plan_and_the_errors() {
    let set = read(&root().join("examples/pvs-fleet/.expected/fn-config.yaml"));
    let (code, out, dir) = run_readme_recipe(&set);
    assert_eq!(code, 0, "{out}");
    let results = read(&dir.join("tmp/pv-cluster-results/results.yaml"));
    assert!(results.contains("2 created"), "{results}");
    let folder = snapshot(&dir.join("tmp/pv-cluster"));
    assert!(
        folder
            .values()
            .any(|text| text.contains("name: fleet-base-edge-use1-b-base\n")),
        "a created variant is in the folder: {:?}",
        folder.keys()
    );
    let _ = fs::remove_dir_all(&dir);

    let (code, out, dir) = run_readme_recipe(&typo_set(""));
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("[error]") && out.contains("refused: this run would delete"),
        "{out}"
    );
    assert!(!out.contains("already exists"), "{out}");
    let _ = fs::remove_dir_all(&dir);
}
