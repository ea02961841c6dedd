//! End-to-end tests under real kpt, in the kpt functions catalog's manner.
//!
//! Every `examples/<name>/` with an `.expected/config.yaml` is copied to a temporary git
//! repository, kpt runs the binary on it, and `git diff` must equal `.expected/diff.patch`.
//! Each example runs twice: the second run must change nothing.
//!
//! `.expected/config.yaml` keys:
//! - `testType`: `eval` (default) or `render` (`kpt fn render --allow-exec`; the Kptfile's
//!   `exec:` paths are relative to the repository root, which is kpt's working directory here)
//! - `route`: `in-place` (default) or `stdin` (`kpt fn source | kpt fn eval - | kpt fn sink`)
//! - `fnConfig`: the functionConfig file, relative to the example
//! - `args`: a map passed as `-- key=value`
//! - `inCluster`: (stdin route) a file of objects added to the ResourceList's items, the way
//!   `kubectl get -o yaml` output would be fed in
//! - `exitCode`: kpt's expected exit code (default 0)
//!
//! Set `UPDATE_EXPECTED=1` to rewrite the `diff.patch` files (then review them with git diff).

use package_variant::yaml;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const KPT_VERSION: &str = "1.0.0-beta.56";

#[derive(Default, Debug)]
struct Config {
    test_type: String,
    route: String,
    fn_config: Option<String>,
    args: Vec<(String, String)>,
    in_cluster: Option<String>,
    exit_code: i32,
}

fn read_config(path: &Path) -> Config {
    let text = fs::read_to_string(path).unwrap();
    let node = yaml::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let s = |k: &str| node.str_at(&[k]).map(str::to_string);
    Config {
        test_type: s("testType").unwrap_or_else(|| "eval".into()),
        route: s("route").unwrap_or_else(|| "in-place".into()),
        fn_config: s("fnConfig"),
        args: node
            .get("args")
            .map(|m| {
                m.pairs()
                    .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or("").to_string()))
                    .collect()
            })
            .unwrap_or_default(),
        in_cluster: s("inCluster"),
        exit_code: s("exitCode").and_then(|c| c.parse().ok()).unwrap_or(0),
    }
}

fn kpt_available() {
    let out = Command::new("kpt").arg("version").output();
    match out {
        Ok(o) if o.status.success() => {
            let v = String::from_utf8_lossy(&o.stdout);
            if !v.contains(KPT_VERSION) {
                eprintln!("note: kpt {} found; the examples were recorded with kpt {KPT_VERSION}", v.trim());
            }
        }
        _ => panic!(
            "kpt is not on PATH. Install kpt {KPT_VERSION} (https://kpt.dev/installation/kpt-cli/: \
             download the kpt_linux_amd64 binary of that release, chmod +x, put it on PATH) and run the tests again."
        ),
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.email=e2e@example.com",
            "-c",
            "user.name=e2e",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `git diff` of everything, new files included, without the `index` lines (they only repeat
/// blob hashes).
fn diff(dir: &Path) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["diff", "--cached", "--no-color", "--no-ext-diff"])
        .lines()
        .filter(|l| !l.starts_with("index "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A scratch directory under the system temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "package-variant-e2e-{}-{}-{}",
            name,
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs kpt once as the config says; returns kpt's exit code and output.
fn run_kpt(cfg: &Config, work: &Path, pkg: &Path, bin: &Path) -> (i32, String) {
    let fn_config = cfg.fn_config.as_ref().map(|f| pkg.join(f));
    let mut fn_args: Vec<String> = Vec::new();
    if let Some(f) = &fn_config {
        fn_args.push("--fn-config".into());
        fn_args.push(f.display().to_string());
    }
    if !cfg.args.is_empty() {
        fn_args.push("--".into());
        for (k, v) in &cfg.args {
            fn_args.push(format!("{k}={v}"));
        }
    }
    let output = match (cfg.test_type.as_str(), cfg.route.as_str()) {
        ("render", _) => Command::new("kpt")
            .args(["fn", "render", "pkg", "--allow-exec"])
            .current_dir(work)
            .output()
            .unwrap(),
        ("eval", "in-place") => Command::new("kpt")
            .args(["fn", "eval", "pkg", "--exec"])
            .arg(bin)
            .args(&fn_args)
            .current_dir(work)
            .output()
            .unwrap(),
        ("eval", "stdin") => return run_stdin_route(cfg, work, pkg, bin, &fn_args),
        other => panic!("unknown testType/route {other:?}"),
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

/// `kpt fn source pkg | kpt fn eval - --exec BIN | kpt fn sink out`, then the package is
/// replaced by what sink wrote.
fn run_stdin_route(
    cfg: &Config,
    work: &Path,
    pkg: &Path,
    bin: &Path,
    fn_args: &[String],
) -> (i32, String) {
    let source = Command::new("kpt")
        .args(["fn", "source", "pkg"])
        .current_dir(work)
        .output()
        .unwrap();
    assert!(
        source.status.success(),
        "kpt fn source: {}",
        String::from_utf8_lossy(&source.stderr)
    );
    let mut rl = String::from_utf8(source.stdout).unwrap();
    if let Some(file) = &cfg.in_cluster {
        rl = add_items(&rl, &fs::read_to_string(pkg.join(file)).unwrap());
    }
    let mut eval = Command::new("kpt")
        .args(["fn", "eval", "-", "--exec"])
        .arg(bin)
        .args(fn_args)
        .current_dir(work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        eval.stdin.take().unwrap().write_all(rl.as_bytes()).unwrap();
    }
    let evaluated = eval.wait_with_output().unwrap();
    let mut log = String::from_utf8_lossy(&evaluated.stderr).to_string();
    let code = evaluated.status.code().unwrap_or(-1);
    if code != 0 {
        return (code, log);
    }
    let out = work.join("out");
    let _ = fs::remove_dir_all(&out);
    let mut sink = Command::new("kpt")
        .args(["fn", "sink", "out"])
        .current_dir(work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        sink.stdin
            .take()
            .unwrap()
            .write_all(&evaluated.stdout)
            .unwrap();
    }
    let sunk = sink.wait_with_output().unwrap();
    log.push_str(&String::from_utf8_lossy(&sunk.stderr));
    assert!(sunk.status.success(), "kpt fn sink: {log}");
    // Replace the package's resource files with what sink wrote.
    remove_resources(pkg);
    if out.exists() {
        copy_dir(&out, pkg);
        fs::remove_dir_all(&out).unwrap();
    }
    (code, log)
}

/// Deletes the files kpt reads as resources (YAML and Kptfiles), keeping `.expected`, `.git`
/// and everything else.
fn remove_resources(dir: &Path) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            remove_resources(&path);
        } else if name == "Kptfile" || name.ends_with(".yaml") || name.ends_with(".yml") {
            fs::remove_file(path).unwrap();
        }
    }
}

/// Appends the documents of `objects` (multi-document YAML) to the ResourceList's items.
fn add_items(rl: &str, objects: &str) -> String {
    let (head, tail) = match rl.find("\nfunctionConfig:") {
        Some(i) => (&rl[..i + 1], &rl[i + 1..]),
        None => (rl, ""),
    };
    let mut out = head.to_string();
    for doc in objects.split("\n---\n") {
        let doc = doc.trim_matches('\n');
        if doc
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            continue;
        }
        for (i, line) in doc.lines().enumerate() {
            out.push_str(if i == 0 {
                "- "
            } else if line.is_empty() {
                ""
            } else {
                "  "
            });
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(tail);
    out
}

fn run_example(dir: &Path, bin: &Path) -> Result<(), String> {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let cfg = read_config(&dir.join(".expected/config.yaml"));
    let scratch = Scratch::new(&name);
    let work = &scratch.0;
    let pkg = work.join("pkg");
    copy_dir(dir, &pkg);
    // kpt render resolves `exec:` against its working directory: give it the repository's
    // layout for the binary.
    let release = work.join("target/release");
    fs::create_dir_all(&release).unwrap();
    std::os::unix::fs::symlink(bin, release.join("package-variant")).unwrap();
    git(&pkg, &["init", "-q"]);
    git(&pkg, &["add", "-A"]);
    git(&pkg, &["commit", "-q", "-m", "before"]);

    let (code, log) = run_kpt(&cfg, work, &pkg, bin);
    if code != cfg.exit_code {
        return Err(format!(
            "{name}: kpt exited {code}, expected {}\n{log}",
            cfg.exit_code
        ));
    }
    let got = diff(&pkg);
    let expected_path = dir.join(".expected/diff.patch");
    if std::env::var_os("UPDATE_EXPECTED").is_some() {
        fs::write(&expected_path, &got).unwrap();
    }
    let expected = fs::read_to_string(&expected_path).unwrap_or_default();
    if got != expected {
        return Err(format!(
            "{name}: git diff differs from .expected/diff.patch\n--- got ---\n{got}\n--- expected ---\n{expected}\n--- kpt ---\n{log}"
        ));
    }
    // Second run on the result: nothing may change.
    git(&pkg, &["commit", "-q", "--allow-empty", "-m", "first run"]);
    let (code2, log2) = run_kpt(&cfg, work, &pkg, bin);
    if code2 != cfg.exit_code {
        return Err(format!("{name}: second run: kpt exited {code2}\n{log2}"));
    }
    let again = diff(&pkg);
    if !again.is_empty() {
        return Err(format!(
            "{name}: the second run changed the package:\n{again}\n{log2}"
        ));
    }
    Ok(())
}

#[test]
fn examples_under_kpt() {
    kpt_available();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_package-variant"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join(".expected/config.yaml").exists())
        .collect();
    dirs.sort();
    assert!(
        !dirs.is_empty(),
        "no examples found under {}",
        root.display()
    );
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| run_example(d, &bin).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{} examples passed under kpt", dirs.len());
}

/// The ConfigMap shortcut under real kpt refuses the reserved keys: kpt fails the step and the
/// package is left as it was.
#[test]
fn reserved_context_keys_are_refused_under_kpt() {
    kpt_available();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_package-variant"));
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/context-args");
    for key in ["name", "package-path"] {
        let scratch = Scratch::new("reserved");
        let pkg = scratch.0.join("pkg");
        copy_dir(&example, &pkg);
        git(&pkg, &["init", "-q"]);
        git(&pkg, &["add", "-A"]);
        git(&pkg, &["commit", "-q", "-m", "before"]);
        let out = Command::new("kpt")
            .args(["fn", "eval", "pkg", "--exec"])
            .arg(&bin)
            .args(["--", "region=us-east1", &format!("{key}=other")])
            .current_dir(&scratch.0)
            .output()
            .unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(1), "{key}: {log}");
        assert!(
            log.contains("[error] v1/ConfigMap/function-input data: ")
                && log.contains(&format!("must not contain the key \"{key}\"")),
            "{key}: {log}"
        );
        assert_eq!(diff(&pkg), "", "{key}: the package changed");
    }
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
    let cfg = Config {
        test_type: "eval".into(),
        route: if stdin_route { "stdin" } else { "in-place" }.into(),
        ..Config::default()
    };
    let fn_args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let (code, log) = if stdin_route {
        run_stdin_route(&cfg, &scratch.0, &pkg, exec, &fn_args)
    } else {
        let out = Command::new("kpt")
            .args(["fn", "eval", "pkg", "--exec"])
            .arg(exec)
            .args(&fn_args)
            .current_dir(&scratch.0)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    assert_eq!(code, 0, "{}: {log}", exec.display());
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
