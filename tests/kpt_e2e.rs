//! The examples under real kpt, the way kpt's own test runner runs them.
//!
//! Every directory under `examples/` with an `.expected/` directory is a test case in the
//! layout of kpt's `pkg/test/runner` (which the kpt functions catalog's e2e uses), and this
//! test does what that runner does, without a container runtime:
//!
//! - `.expected/config.yaml`: `testType` (`eval` or `render`, default `render`), `exitCode`,
//!   `image` or `execPath`, `fnConfig` and `execPath` (relative to `.expected/`), `args`
//!   (passed after `--`), `allowExec`, `includeMetaResources`, `stdErr` (a part of kpt's
//!   stderr), `skip`. Any other key fails the test: kpt's runner would ignore it silently.
//! - `.expected/exec.sh` replaces the kpt command (the stdin route and other pipelines); it
//!   runs with bash in the package.
//! - `.expected/diff.patch`: `git diff` from the package as copied to the package after the
//!   run; `.expected/results.yaml`: the results file kpt writes with `--results-dir`.
//!
//! The case is copied to a temporary git repository and run twice: each run must exit with
//! `exitCode` and leave exactly `diff.patch`, so the second run must change nothing; results
//! and stderr are compared on the first run. An error exit stops after the first run.
//!
//! The one liberty: an `image:` case runs this crate's binary with `--exec package-variant`
//! (the binary is put first on `PATH`, as `cargo install` would), and in the results file
//! `exec: package-variant` stands for `image: <image>`. `exec.sh` scripts and `exec:` pipeline
//! steps find the binary on `PATH` too.
//!
//! `KPT_E2E_UPDATE_EXPECTED=true cargo test --test kpt_e2e` rewrites the expected diffs and
//! results (as kpt's runner does); review them with `git diff`.

mod shell;

use package_variant::yaml;
use shell::{bin_dir, copy_dir, path_with, Scratch};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const KPT_VERSION: &str = "1.0.0-beta.56";
/// The image name (without tag) of this function: `metadata.yaml`'s `image`.
const IMAGE: &str = "ghcr.io/package-variant/package-variant";

/// The `.expected/config.yaml` keys kpt's runner reads that the examples use.
#[derive(Default, Debug)]
struct Config {
    test_type: String,
    exit_code: i32,
    image: Option<String>,
    exec_path: Option<String>,
    fn_config: Option<String>,
    args: Vec<(String, String)>,
    allow_exec: bool,
    include_meta_resources: bool,
    std_err: String,
    skip: bool,
}

fn read_config(path: &Path) -> Result<Config, String> {
    let mut cfg = Config {
        test_type: "render".into(),
        ..Config::default()
    };
    let Ok(text) = fs::read_to_string(path) else {
        return Ok(cfg);
    };
    let node = yaml::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let string = |v: &yaml::Node, k: &str| {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("{}: {k} must be a string", path.display()))
    };
    let boolean = |v: &yaml::Node, k: &str| match v.as_str() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(format!("{}: {k} must be true or false", path.display())),
    };
    for (key, value) in node.pairs() {
        match key {
            "testType" => cfg.test_type = string(value, key)?,
            "exitCode" => {
                cfg.exit_code = string(value, key)?
                    .parse()
                    .map_err(|e| format!("{}: exitCode: {e}", path.display()))?
            }
            "image" => cfg.image = Some(string(value, key)?),
            "execPath" => cfg.exec_path = Some(string(value, key)?),
            "fnConfig" => cfg.fn_config = Some(string(value, key)?),
            "args" => {
                for (k, v) in value.pairs() {
                    cfg.args.push((k.to_string(), string(v, k)?));
                }
            }
            "allowExec" => cfg.allow_exec = boolean(value, key)?,
            "includeMetaResources" => cfg.include_meta_resources = boolean(value, key)?,
            "stdErr" => cfg.std_err = string(value, key)?,
            "skip" => cfg.skip = boolean(value, key)?,
            other => {
                return Err(format!(
                    "{}: unknown key {other:?} (kpt's test runner does not read it)",
                    path.display()
                ))
            }
        }
    }
    Ok(cfg)
}

fn kpt_available() {
    let out = Command::new("kpt").arg("version").output();
    match out {
        Ok(o) if o.status.success() => {
            let v = String::from_utf8_lossy(&o.stdout);
            if !v.contains(KPT_VERSION) {
                eprintln!(
                    "note: kpt {} found; the examples were recorded with kpt {KPT_VERSION}",
                    v.trim()
                );
            }
        }
        _ => panic!(
            "kpt is not on PATH. Install kpt {KPT_VERSION} (https://kpt.dev/installation/kpt-cli/: \
             download the kpt_linux_amd64 binary of that release, chmod +x, put it on PATH) and run the tests again."
        ),
    }
}

/// git with no user or system configuration, as kpt's runner runs it.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=none", "-c", "user.email=none"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_DIFF_OPTS", "")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// One run of the case's command; returns (exit code, stderr).
fn run_once(case: &Path, cfg: &Config, pkg: &Path, scratch: &Path, bin: &Path) -> (i32, String) {
    let expected = case.join(".expected");
    let results_dir = scratch.join("results");
    let mut cmd = if expected.join("exec.sh").is_file() {
        let mut c = Command::new("bash");
        c.arg(expected.join("exec.sh")).current_dir(pkg);
        c
    } else {
        let mut c = Command::new("kpt");
        c.current_dir(scratch);
        match cfg.test_type.as_str() {
            "eval" => {
                c.args(["fn", "eval"]).arg(pkg);
                if expected.join("results.yaml").is_file() {
                    c.arg("--results-dir").arg(&results_dir);
                }
                match (&cfg.image, &cfg.exec_path) {
                    (Some(image), _) => {
                        assert!(
                            image.starts_with(&format!("{IMAGE}:")),
                            "{}: image {image} is not {IMAGE}",
                            case.display()
                        );
                        c.args(["--exec", "package-variant"]);
                    }
                    (None, Some(exec)) => {
                        c.arg("--exec").arg(expected.join(exec));
                    }
                    (None, None) => {
                        panic!("{}: an eval case needs image or execPath", case.display())
                    }
                }
                if let Some(f) = &cfg.fn_config {
                    c.arg("--fn-config").arg(expected.join(f));
                }
                if cfg.include_meta_resources {
                    c.arg("--include-meta-resources");
                }
                if !cfg.args.is_empty() {
                    c.arg("--");
                    c.args(cfg.args.iter().map(|(k, v)| format!("{k}={v}")));
                }
            }
            "render" => {
                c.args(["fn", "render"]).arg(pkg);
                if expected.join("results.yaml").is_file() {
                    c.arg("--results-dir").arg(&results_dir);
                }
                if cfg.allow_exec {
                    c.arg("--allow-exec");
                }
            }
            other => panic!("{}: unknown testType {other:?}", case.display()),
        }
        c
    };
    let out = cmd.env("PATH", path_with(bin)).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The results file kpt wrote, with `exec: package-variant` standing for the case's image.
fn actual_results(results_dir: &Path, cfg: &Config) -> String {
    let Ok(entries) = fs::read_dir(results_dir) else {
        return String::new();
    };
    let files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    assert!(files.len() <= 1, "more than one results file: {files:?}");
    let Some(file) = files.first() else {
        return String::new();
    };
    let text = fs::read_to_string(file).unwrap();
    let text = match &cfg.image {
        Some(image) => text.replace(
            "  - exec: package-variant\n",
            &format!("  - image: {image}\n"),
        ),
        None => text,
    };
    text.trim().to_string()
}

fn run_case(case: &Path, bin: &Path) -> Result<(), String> {
    let name = case
        .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
        .unwrap()
        .display()
        .to_string();
    let cfg = read_config(&case.join(".expected/config.yaml"))?;
    if cfg.skip {
        eprintln!("{name}: skipped (skip: true)");
        return Ok(());
    }
    let scratch = Scratch::new(&name.replace('/', "-"));
    let pkg = scratch.0.join(case.file_name().unwrap());
    copy_dir(case, &pkg);
    git(&pkg, &["init", "-q"]);
    git(&pkg, &["add", "--all"]);
    git(&pkg, &["commit", "-q", "-m", "first", "--allow-empty"]);
    let initial = git(&pkg, &["rev-parse", "HEAD"]).trim().to_string();
    let expected_dir = case.join(".expected");
    let update = std::env::var("KPT_E2E_UPDATE_EXPECTED").is_ok_and(|v| v == "true");
    for run in 0..2 {
        for script in ["setup.sh"] {
            if expected_dir.join(script).is_file() {
                return Err(format!("{name}: {script} is not supported here"));
            }
        }
        let (code, log) = run_once(case, &cfg, &pkg, &scratch.0, bin);
        git(&pkg, &["add", "--all"]);
        git(&pkg, &["commit", "-q", "-m", "second", "--allow-empty"]);
        let diff = git(&pkg, &["diff", &initial, "HEAD"]).trim().to_string();
        let results = actual_results(&scratch.0.join("results"), &cfg);
        if update && run == 0 {
            if !diff.is_empty() {
                fs::write(expected_dir.join("diff.patch"), format!("{diff}\n")).unwrap();
            }
            if !results.is_empty() && expected_dir.join("results.yaml").is_file() {
                fs::write(expected_dir.join("results.yaml"), format!("{results}\n")).unwrap();
            }
        }
        if code != cfg.exit_code {
            return Err(format!(
                "{name} (run {}): kpt exited {code}, expected {}\n{log}",
                run + 1,
                cfg.exit_code
            ));
        }
        if run == 0 {
            if !log.contains(&cfg.std_err) {
                return Err(format!(
                    "{name}: stderr does not contain {:?}\n{log}",
                    cfg.std_err
                ));
            }
            let expected =
                fs::read_to_string(expected_dir.join("results.yaml")).unwrap_or_default();
            if results != expected.trim() {
                return Err(format!(
                    "{name}: results differ from .expected/results.yaml\n--- got ---\n{results}\n--- expected ---\n{expected}\n--- kpt ---\n{log}"
                ));
            }
        }
        let expected = fs::read_to_string(expected_dir.join("diff.patch")).unwrap_or_default();
        if diff != expected.trim() {
            return Err(format!(
                "{name} (run {}): git diff differs from .expected/diff.patch\n--- got ---\n{diff}\n--- expected ---\n{expected}\n--- kpt ---\n{log}",
                run + 1
            ));
        }
        if code != 0 {
            break;
        }
    }
    Ok(())
}

/// Every directory with `.expected/` under `dir`, as kpt's runner finds its cases.
fn cases_under(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join(".expected").is_dir() {
        out.push(dir.to_path_buf());
    }
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && path.file_name().is_some_and(|n| n != ".expected") {
            cases_under(&path, out);
        }
    }
}

fn cases() -> Vec<PathBuf> {
    let mut cases = Vec::new();
    cases_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
        &mut cases,
    );
    cases.sort();
    cases
}

#[test]
fn examples_under_kpt() {
    kpt_available();
    let scratch = Scratch::new("bin");
    let bin = bin_dir(&scratch.0);
    let cases = cases();
    assert!(cases.len() >= 10, "only {} examples found", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| run_case(c, &bin).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{} examples passed under kpt", cases.len());
}

/// The layout every example shares: a kpt package whose `.expected/` files kpt's runner reads
/// and whose `.krmignore` keeps them (and the README) out of the package's resources.
#[test]
fn examples_follow_the_runner_layout() {
    let mut problems = Vec::new();
    let mut errors = 0;
    for case in cases() {
        let name = case.display().to_string();
        let expected = case.join(".expected");
        match read_config(&expected.join("config.yaml")) {
            Err(e) => problems.push(e),
            Ok(cfg) => {
                if cfg.exit_code != 0 {
                    errors += 1;
                    if !expected.join("results.yaml").is_file() && cfg.std_err.is_empty() {
                        problems.push(format!(
                            "{name}: an error case needs results.yaml or stdErr"
                        ));
                    }
                }
                if cfg.test_type == "eval" && !expected.join("exec.sh").is_file() {
                    match &cfg.image {
                        Some(image)
                            if *image == format!("{IMAGE}:v{}", env!("CARGO_PKG_VERSION")) => {}
                        other => problems.push(format!(
                            "{name}: image {other:?} is not {IMAGE}:v{}",
                            env!("CARGO_PKG_VERSION")
                        )),
                    }
                }
                if let Some(f) = &cfg.fn_config {
                    if !expected.join(f).is_file() {
                        problems.push(format!("{name}: fnConfig {f} is not in .expected/"));
                    }
                }
            }
        }
        if !case.join("Kptfile").is_file() {
            problems.push(format!("{name}: no Kptfile"));
        }
        if !case.join("README.md").is_file() {
            problems.push(format!("{name}: no README.md"));
        }
        let ignore = fs::read_to_string(case.join(".krmignore")).unwrap_or_default();
        for entry in [".expected", "README.md"] {
            if !ignore.lines().any(|l| l.trim() == entry) {
                problems.push(format!("{name}: .krmignore does not list {entry}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(errors >= 2, "only {errors} error-case examples");
}

/// The ConfigMap shortcut under real kpt refuses the other reserved key too: kpt fails the
/// step and the package is left as it was.
#[test]
fn reserved_package_path_key_is_refused_under_kpt() {
    kpt_available();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/context-args");
    let scratch = Scratch::new("reserved");
    let pkg = scratch.0.join("pkg");
    copy_dir(&example, &pkg);
    git(&pkg, &["init", "-q"]);
    git(&pkg, &["add", "--all"]);
    git(&pkg, &["commit", "-q", "-m", "before"]);
    let out = Command::new("kpt")
        .args(["fn", "eval", "pkg", "--exec"])
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .args(["--", "region=us-east1", "package-path=other"])
        .current_dir(&scratch.0)
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(
        log.contains("[error] v1/ConfigMap/function-input data: ")
            && log.contains("must not contain the key \"package-path\""),
        "{log}"
    );
    assert_eq!(
        git(&pkg, &["status", "--porcelain"]),
        "",
        "the package changed"
    );
}

/// Files of a package whose YAML uses what kpt itself writes, and what used to be lost: a
/// keep block scalar made only of empty lines as the very last value of the last item (kpt
/// writes it `|2+`), merge keys as kpt writes them, tagged, anchored and explicit keys,
/// `!!omap`, `!!set`, single pairs in flow sequences, comments after the last entry.
const KPT_YAML: &[(&str, &str)] = &[
    (
        "Kptfile",
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
    ),
    (
        "package-context.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: pkg\n",
    ),
    (
        "constructs.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: constructs\n  labels: &labels\n    app: web\ndata: &base\n  a: \"1\"\n  keep: |+\n    text\n\n  only-empty-lines: |2+\n\n\n  after: x\nextra:\n  !!merge <<: *base\n  labels: *labels\n  !!str 123: a tagged key\n  &k anchored: key\n  ? |\n    a block key\n  : v\n  omap: !!omap [{a: 1}, {b: 2}]\n  set: !!set {a: '', b: ''}\n  pairs: [{a: b}, {c: d}]\n  # a comment after the last entry\n",
    ),
    (
        "zz-last.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: last\ndata:\n  x: y\n  notes: |2+\n\n\n",
    ),
];

/// Runs kpt on a fresh copy of the [`KPT_YAML`] package, in place or through
/// `kpt fn source | kpt fn eval - | kpt fn sink`, with `exec` (and `args`), and returns the
/// package's files.
fn kpt_yaml_run(stdin_route: bool, exec: &Path, args: &[&str]) -> Vec<(String, String)> {
    let scratch = Scratch::new("kpt-yaml");
    let pkg = scratch.0.join("pkg");
    fs::create_dir_all(&pkg).unwrap();
    for (name, text) in KPT_YAML {
        fs::write(pkg.join(name), text).unwrap();
    }
    let exec = exec.display().to_string();
    let out = if stdin_route {
        let script = "set -eo pipefail; kpt fn source pkg | kpt fn eval - --exec \"$0\" \"$@\" | kpt fn sink out && rm -r pkg && mv out pkg";
        Command::new("bash")
            .args(["-c", script, &exec])
            .args(args)
            .current_dir(&scratch.0)
            .output()
            .unwrap()
    } else {
        Command::new("kpt")
            .args(["fn", "eval", "pkg", "--exec", &exec])
            .args(args)
            .current_dir(&scratch.0)
            .output()
            .unwrap()
    };
    assert!(
        out.status.success(),
        "{exec}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    KPT_YAML
        .iter()
        .map(|(name, _)| {
            let text = fs::read_to_string(pkg.join(name)).unwrap_or_default();
            (name.to_string(), text)
        })
        .collect()
}

/// Every file comes out as kpt writes it when the function only echoes its input (`cat`):
/// through stdin and in place, with nothing to do and with a context key set (then only
/// package-context.yaml differs, by that key).
#[test]
fn yaml_kpt_writes_survives_kpt() {
    kpt_available();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_package-variant"));
    let cat = PathBuf::from("cat");
    for stdin_route in [true, false] {
        let echo = kpt_yaml_run(stdin_route, &cat, &[]);
        let ours = kpt_yaml_run(stdin_route, &bin, &["--", "zone=a"]);
        for ((name, want), (_, got)) in echo.iter().zip(&ours) {
            if name == "package-context.yaml" {
                assert_eq!(got, &format!("{want}  zone: a\n"), "stdin {stdin_route}");
            } else {
                assert_eq!(got, want, "{name}, stdin route {stdin_route}");
            }
        }
        let last = &echo[3].1;
        assert!(last.ends_with("  notes: |2+\n\n\n"), "kpt wrote {last:?}");
    }
}
