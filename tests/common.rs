//! Helpers shared by the integration tests: run the real binary.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

/// What the binary printed and how it exited.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `package-variant` with `input` on stdin.
pub fn run(input: &str) -> Run {
    run_bytes(input.as_bytes())
}

pub fn run_bytes(input: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start package-variant");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        // The binary may exit before reading everything (it does not), ignore EPIPE.
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().expect("wait for package-variant");
    Run {
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Runs `package-variant` with `input` on stdin and returns what it printed with the CPU time
/// it used (user + system, all threads). Time bounds in tests are on CPU time, not wall time:
/// these machines are shared, and a loaded one stretches wall time several times over while a
/// run's CPU time barely moves. Read from `/proc/<pid>/stat` while the exited child is a zombie,
/// before it is reaped (Linux only; elsewhere the CPU time is reported as zero).
pub fn run_timed(input: &[u8]) -> (Run, std::time::Duration) {
    run_timed_with(Command::new(env!("CARGO_BIN_EXE_package-variant")), input)
}

/// [`run_timed`] for a command of the caller's (extra arguments, environment).
pub fn run_timed_with(mut command: Command, input: &[u8]) -> (Run, std::time::Duration) {
    use std::io::Read;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start package-variant");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // The binary may exit before reading everything (it does not), ignore EPIPE.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut v);
        v
    });
    let mut stdout = Vec::new();
    let _ = child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut stdout);
    let stderr = reader.join().expect("stderr reader");
    writer.join().expect("stdin writer");
    let cpu = zombie_cpu_time(child.id());
    let status = child.wait().expect("wait for package-variant");
    let run = Run {
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
        code: status.code().unwrap_or(-1),
    };
    (run, cpu)
}

/// User + system time of the child `pid` once it has exited (its pipes are closed), read while
/// it is a zombie. Linux reports the times in clock ticks of 1/100 s.
fn zombie_cpu_time(pid: u32) -> std::time::Duration {
    let path = format!("/proc/{pid}/stat");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    loop {
        let Ok(stat) = std::fs::read_to_string(&path) else {
            return std::time::Duration::ZERO;
        };
        // "pid (comm) state ppid ...": fields after the command's closing parenthesis.
        let fields: Vec<&str> = stat[stat.rfind(')').map_or(0, |i| i + 1)..]
            .split_whitespace()
            .collect();
        if fields.first() == Some(&"Z") || std::time::Instant::now() > deadline {
            let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
            let (utime, stime) = (ticks(11).unwrap_or(0), ticks(12).unwrap_or(0));
            return std::time::Duration::from_millis((utime + stime) * 10);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Asserts that a run's CPU time stayed under `bound`: these bounds catch hangs and quadratic
/// or exponential blow-ups, never speed (benchmarks measure speed).
#[track_caller]
pub fn assert_cpu_under(cpu: std::time::Duration, bound: std::time::Duration, what: &str) {
    assert!(
        cpu < bound,
        "{what}: took {cpu:?} of CPU (bound {bound:?}): a hang or a blow-up"
    );
}

/// The text of the `items:` section of a ResourceList written in block style.
pub fn items_section(rl: &str) -> &str {
    let start = rl.find("\nitems:").map_or(0, |i| i + 1);
    let rest = &rl[start..];
    let end = rest
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&i| {
            rest[i..]
                .chars()
                .next()
                .is_some_and(|c| c != ' ' && c != '-' && c != '#' && c != '\n')
        })
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Wraps item documents (each a block mapping) into a ResourceList with `config`.
pub fn resource_list(items: &[&str], config: &str) -> String {
    let mut s = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n");
    // An empty list is written `items: []`, as the function writes it.
    s.push_str(if items.is_empty() {
        "items: []\n"
    } else {
        "items:\n"
    });
    for item in items {
        let mut first = true;
        for line in item.trim_end_matches('\n').split('\n') {
            if first {
                s.push_str("- ");
                first = false;
            } else if line.is_empty() {
                s.push('\n');
                continue;
            } else {
                s.push_str("  ");
            }
            s.push_str(line);
            s.push('\n');
        }
    }
    if !config.is_empty() {
        s.push_str("functionConfig:\n");
        for line in config.trim_end_matches('\n').split('\n') {
            if !line.is_empty() {
                s.push_str("  ");
            }
            s.push_str(line);
            s.push('\n');
        }
    }
    s
}

/// A root Kptfile as kpt sends it.
pub const KPTFILE: &str = "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/path: Kptfile
";

/// An injection point: the ConfigMap `endpoints` (`kpt.dev/config-injection: required`) with
/// one placeholder value.
pub const INJECTION_POINT: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: endpoints
  annotations:
    kpt.dev/config-injection: required
    config.kubernetes.io/path: endpoints.yaml
data:
  db: placeholder
";

/// The package context of [`KPTFILE`]'s package.
pub const PACKAGE_CONTEXT: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: \"true\"
    config.kubernetes.io/path: package-context.yaml
data:
  name: pkg
";

/// The smallest useful ResourceList: package context data from a ConfigMap, as
/// `kpt fn eval -- region=us-east1` gives it.
pub const SMALL_PACKAGE: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kptfile.kpt.dev
    annotations:
      config.kubernetes.io/path: package-context.yaml
  data:
    name: pkg
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data:
    region: us-east1
";

/// A valid PackageVariant `my-pv` (no `metadata.namespace`, so in `default`) with `extra` appended to its spec
/// (lines indented by two spaces, e.g. `"  injectors:\n  - name: x\n"`).
pub fn pv_config(extra: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-pv
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: deployments, package: base}}
{extra}"
    )
}

/// The upstream PackageRevision every [`pvs_config`] set points at.
pub const UPSTREAM_PR: &str = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.base.v1
spec:
  repository: blueprints
  packageName: base
  revision: 1
";

/// A Repository item with labels given as a flow map (`"{env: prod}"`).
pub fn repository(name: &str, labels: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: {name}
  labels: {labels}
spec:
  type: git
"
    )
}

/// A PackageVariantSet `my-set` with upstream blueprints/base@1 and `targets` (YAML lines
/// indented by two spaces, starting with `  targets:`).
pub fn pvs_config(targets: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: my-set
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
{targets}"
    )
}

/// The `results:` section of an output ResourceList ("" when there is none).
pub fn results_section(rl: &str) -> &str {
    rl.find("\nresults:\n").map_or("", |i| &rl[i + 1..])
}

/// Whether `stderr` is the summary of error results a failed run writes there (a header, then
/// one line per error): nothing else.
pub fn is_error_summary(stderr: &str) -> bool {
    let mut lines = stderr.lines();
    lines.next().is_some_and(|h| {
        h.starts_with("package-variant: ")
            && h.ends_with("; nothing was changed (the output's results have every detail):")
    }) && lines.all(|l| l.starts_with("  [error]") || l.starts_with("  ... and "))
}

/// The documents of the `items:` of an output ResourceList that are PackageVariants, each as
/// a block mapping at column 0.
pub fn variants(out: &str) -> Vec<String> {
    let items = items_section(out);
    let mut docs: Vec<String> = Vec::new();
    for line in items.lines().skip(1) {
        if let Some(rest) = line.strip_prefix("- ") {
            docs.push(format!("{rest}\n"));
        } else if let (Some(doc), Some(rest)) = (docs.last_mut(), line.strip_prefix("  ")) {
            doc.push_str(rest);
            doc.push('\n');
        }
    }
    docs.retain(|d| d.contains("kind: PackageVariant\n"));
    docs
}

/// Every object of `examples/<example>/step-<n>` (its PackageRevisions, Repositories and
/// PackageVariants, documents split on `---`), and the set of its `.expected/fn-config.yaml`:
/// the step-by-step examples (`pvs-rollout`, `pvs-activation`) read as data.
pub fn example_step(example: &str, n: usize) -> (Vec<serde_json::Value>, serde_json::Value) {
    example_objects(&format!("{example}/step-{n}"))
}

/// Every object of the example folder `examples/<case>` read as a set's input (its
/// `packagerevisions.yaml`, `downstream-revisions.yaml` when there is one, `repositories.yaml`
/// and `packagevariants/`, in that order), and the set of its `.expected/fn-config.yaml`.
pub fn example_objects(case: &str) -> (Vec<serde_json::Value>, serde_json::Value) {
    use package_variant::yaml;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{case}"));
    let parse = |text: &str| yaml::to_json(&yaml::parse(text).unwrap()).unwrap();
    let mut files = vec![dir.join("packagerevisions.yaml")];
    let downstream = dir.join("downstream-revisions.yaml");
    if downstream.is_file() {
        files.push(downstream);
    }
    files.push(dir.join("repositories.yaml"));
    let mut variants: Vec<_> = std::fs::read_dir(dir.join("packagevariants"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    variants.sort();
    files.extend(variants);
    let mut items = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        items.extend(text.split("\n---\n").map(parse));
    }
    let config = parse(&std::fs::read_to_string(dir.join(".expected/fn-config.yaml")).unwrap());
    (items, config)
}

/// One run of the binary over `items` with `config` (the ResourceList written as JSON, which
/// is YAML), and its output read back (`Null` when it does not parse).
pub fn run_json(
    items: &[serde_json::Value],
    config: &serde_json::Value,
) -> (Run, serde_json::Value) {
    use package_variant::yaml;
    let rl = serde_json::json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
        "items": items, "functionConfig": config});
    let out = run(&serde_json::to_string(&rl).unwrap());
    let parsed = yaml::parse(&out.stdout)
        .ok()
        .and_then(|n| yaml::to_json(&n).ok())
        .unwrap_or(serde_json::Value::Null);
    (out, parsed)
}

/// The items of a ResourceList read back by [`run_json`].
pub fn items_of(out: &serde_json::Value) -> Vec<serde_json::Value> {
    out["items"].as_array().cloned().unwrap_or_default()
}

/// Whether `strace` runs. When it does not, says that `test` is skipped and why (cargo test has
/// no skip at run time): `.ci/run` installs strace and fails without it.
pub fn strace_available(test: &str) -> bool {
    let ok = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED {test}: strace is not on PATH (apt-get install -y strace; .ci/run installs it)");
    }
    ok
}

/// A proptest configuration of `PROPTEST_CASES` cases (`default` without it), failures kept
/// beside the test file.
pub fn proptest_config(default: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    proptest::test_runner::Config {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..proptest::test_runner::Config::default()
    }
}

/// Published revision `r` of blueprints/base (workspace `v<r>`) in `porch.kpt.dev/v1alpha1`
/// (`spec.revision`) or v1alpha2 (`status.revision`), tagged `stable` when `tagged`.
pub fn base_revision(r: i64, tagged: bool, v2: bool) -> serde_json::Value {
    use serde_json::json;
    let labels = if tagged {
        json!({"package-variant.fn.kpt.dev/tag-stable": "true"})
    } else {
        json!({})
    };
    let mut pr = json!({"kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.base.v{r}"), "labels": labels},
        "spec": {"repository": "blueprints", "packageName": "base",
            "workspaceName": format!("v{r}"), "lifecycle": "Published"}});
    if v2 {
        pr["apiVersion"] = json!("porch.kpt.dev/v1alpha2");
        pr["status"] = json!({"revision": r});
    } else {
        pr["apiVersion"] = json!("porch.kpt.dev/v1alpha1");
        pr["spec"]["revision"] = json!(r);
    }
    pr
}

/// The PackageVariants' `spec.upstream`, by downstream repository (sorted).
pub fn upstreams_by_site(items: &[serde_json::Value]) -> Vec<(String, serde_json::Value)> {
    let mut u: Vec<(String, serde_json::Value)> = items
        .iter()
        .filter(|v| v["kind"] == "PackageVariant")
        .map(|v| {
            let site = v["spec"]["downstream"]["repo"].as_str().unwrap_or("");
            (site.to_string(), v["spec"]["upstream"].clone())
        })
        .collect();
    u.sort_by(|a, b| a.0.cmp(&b.0));
    u
}

/// An in-cluster ConfigMap `name` of namespace `ns` with `data.db: db`, as `kubectl get -o yaml`
/// prints it, annotated `config.porch.kpt.dev/in-cluster: "true"`.
pub fn in_cluster_config_map(name: &str, ns: &str, db: &str) -> String {
    format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: {ns}
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
data:
  db: {db}
"
    )
}

/// Whether an item is a PackageVariant.
pub fn is_variant(v: &serde_json::Value) -> bool {
    v["kind"] == "PackageVariant"
}

/// What a controller writes between two runs: Ready True on each variant without a status.
pub fn reconciled(items: &[serde_json::Value]) -> Vec<serde_json::Value> {
    items
        .iter()
        .cloned()
        .map(|mut v| {
            if is_variant(&v) && v.get("status").is_none() {
                v["status"] =
                    serde_json::json!({"conditions": [{"type": "Ready", "status": "True"}]});
            }
            v
        })
        .collect()
}

/// A run's error results, as (message, field path).
pub fn error_fields(parsed: &serde_json::Value) -> Vec<(String, String)> {
    parsed["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["severity"] == "error")
        .map(|r| {
            (
                r["message"].as_str().unwrap_or("").to_string(),
                r["field"]["path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The address space the binary maps before it reads its input, in KiB: on its main thread
/// (`ulimit -s unlimited`), so without a work thread's stack.
pub fn address_space_at_start() -> u64 {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -s unlimited; exec \"$0\"")
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the binary");
    let status = std::path::Path::new("/proc")
        .join(child.id().to_string())
        .join("status");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut kib = None;
    while kib.is_none() && std::time::Instant::now() < deadline {
        let exe = std::path::Path::new("/proc")
            .join(child.id().to_string())
            .join("exe");
        if std::fs::read_link(&exe)
            .is_ok_and(|e| e == std::path::Path::new(env!("CARGO_BIN_EXE_package-variant")))
        {
            // The read of stdin has begun once the input buffer is there: wait a little.
            std::thread::sleep(std::time::Duration::from_millis(200));
            kib = std::fs::read_to_string(&status).ok().and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmPeak:"))
                    .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
            });
        } else {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    drop(child.stdin.take());
    let _ = child.wait();
    kib.expect("read the binary's VmPeak")
}
