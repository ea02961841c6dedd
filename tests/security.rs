//! Security properties through the binary: one namespace's data never reaches another's
//! package, CEL sees only the metadata of objects, and the function touches no file and no
//! network beyond what the dynamic loader needs (checked under strace).

mod common;

use common::{
    items_section, pv_config, pvs_config, repository, resource_list, results_section, run,
    strace_available, Run, INJECTION_POINT, KPTFILE, PACKAGE_CONTEXT, UPSTREAM_PR,
};

// ---------------------------------------------------------------- namespaces

fn in_cluster(namespace: Option<&str>, db: &str) -> String {
    let ns = namespace.map_or(String::new(), |n| format!("  namespace: {n}\n"));
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n{ns}  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: {db}\n"
    )
}

fn pv_in(namespace: Option<&str>) -> String {
    let config = pv_config("  injectors:\n  - name: us-east1-endpoints\n");
    match namespace {
        Some(ns) => config.replace(
            "  name: my-pv\n",
            &format!("  name: my-pv\n  namespace: {ns}\n"),
        ),
        None => config,
    }
}

#[test]
fn in_cluster_objects_of_another_namespace_are_never_injected() {
    // Every combination of PackageVariant namespace and foreign object namespace.
    for (pv_ns, other_ns) in [
        (Some("team-a"), "team-b"),
        (None, "team-b"),
        (Some("default"), "team-b"),
        (Some("team-a"), "default"),
    ] {
        let foreign = in_cluster(Some(other_ns), "SECRET-OF-ANOTHER-TEAM");
        let input = resource_list(
            &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, &foreign],
            &pv_in(pv_ns),
        );
        let out = run(&input);
        assert_eq!(out.code, 0, "{pv_ns:?}/{other_ns}: {}", out.stdout);
        assert!(
            !items_section(&out.stdout).contains("SECRET-OF-ANOTHER-TEAM"),
            "{pv_ns:?}/{other_ns}: injected across namespaces:\n{}",
            out.stdout
        );
        let results = results_section(&out.stdout);
        assert!(
            results.contains("skipped"),
            "{pv_ns:?}/{other_ns}: {results}"
        );
        assert!(
            results.contains("not filled"),
            "{pv_ns:?}/{other_ns}: {results}"
        );
    }
}

/// The control: the same object in the PackageVariant's namespace (or, when neither names one,
/// as in Porch's own tests, without namespace) is injected, so the test above would see a leak
/// if there were one.
#[test]
fn in_cluster_objects_of_the_same_namespace_are_injected() {
    for (pv_ns, obj_ns) in [
        (Some("team-a"), Some("team-a")),
        (None, Some("default")),
        (None, None),
    ] {
        let mine = in_cluster(obj_ns, "db.mine.example.com");
        let foreign = in_cluster(Some("team-b"), "SECRET-OF-ANOTHER-TEAM");
        // The foreign object comes first: first match would pick it if namespaces were ignored.
        let input = resource_list(
            &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, &foreign, &mine],
            &pv_in(pv_ns),
        );
        let out = run(&input);
        assert_eq!(out.code, 0, "{}", out.stdout);
        let items = items_section(&out.stdout);
        assert!(
            items.contains("db: db.mine.example.com"),
            "{pv_ns:?}/{obj_ns:?}:\n{items}"
        );
        assert!(!items.contains("SECRET-OF-ANOTHER-TEAM"), "{items}");
    }
}

/// A PackageVariant that names its namespace never takes an in-cluster object that names none:
/// it may have come from any namespace. The run is refused, every item as it came, and the
/// message says what to write.
#[test]
fn an_in_cluster_object_without_namespace_is_refused_for_a_namespaced_variant() {
    let unknown = in_cluster(None, "db.unknown.example.com");
    let input = resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, &unknown],
        &pv_in(Some("team-a")),
    );
    let out = run(&input);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    let results = results_section(&out.stdout);
    assert!(
        results.contains("has no namespace")
            && results.contains("write metadata.namespace: \"team-a\"")
            && results.contains("path: metadata.namespace"),
        "{results}"
    );
    // With the namespace written, the same object is injected.
    let known = in_cluster(Some("team-a"), "db.unknown.example.com");
    let out = run(&resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, &known],
        &pv_in(Some("team-a")),
    ));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(items_section(&out.stdout).contains("db: db.unknown.example.com"));
}

// ---------------------------------------------------------------- CEL sees metadata only

/// A set whose template evaluates `expr` for an objectSelector target (a ConfigMap with
/// `data`), a Repository with `spec`, and an upstream with `spec` and `status`.
fn cel_run(field: &str, expr: &str) -> Run {
    let target = "apiVersion: v1
kind: ConfigMap
metadata:
  name: edge1
  namespace: default
  labels:
    site: edge
  annotations:
    region: us-east1
data:
  password: SECRET-DATA
";
    let upstream = format!("{UPSTREAM_PR}status:\n  publishedBy: SECRET-STATUS\n");
    let targets = format!(
        "  targets:\n  - objectSelector: {{apiVersion: v1, kind: ConfigMap, matchLabels: {{site: edge}}}}\n    template:\n      downstream:\n        {field}: \"{expr}\"\n"
    );
    let repo = repository("edge1", "{site: edge}")
        .replace("type: git", "type: git\n  git: {repo: SECRET-SPEC}");
    run(&resource_list(
        &[&upstream, &repo, target],
        &pvs_config(&targets),
    ))
}

#[test]
fn cel_cannot_reach_spec_status_or_data() {
    let cases = [
        ("packageExpr", "target.data.password", "no such key: data"),
        ("packageExpr", "target.spec", "no such key: spec"),
        ("packageExpr", "target.kind", "no such key: kind"),
        (
            "packageExpr",
            "upstream.spec.repository",
            "no such key: spec",
        ),
        (
            "packageExpr",
            "upstream.status.publishedBy",
            "no such key: status",
        ),
        (
            "packageExpr",
            "repository.spec.git.repo",
            "no such key: spec",
        ),
        ("packageExpr", "repository.status", "no such key: status"),
        ("repoExpr", "target.data.password", "no such key: data"),
    ];
    for (field, expr, error) in cases {
        let out = cel_run(field, expr);
        assert_eq!(out.code, 1, "{expr}: {}", out.stdout);
        let results = results_section(&out.stdout);
        assert!(results.contains(error), "{expr}: {results}");
        assert!(
            !results.contains("SECRET-"),
            "{expr}: a secret reached the results:\n{results}"
        );
    }
}

/// `has()` tests presence without erroring: the fields are absent, not merely refused.
#[test]
fn cel_sees_no_fields_beyond_metadata() {
    let out = cel_run(
        "packageExpr",
        "has(target.data) || has(target.spec) || has(upstream.spec) || has(upstream.status) || has(repository.spec) ? 'leak' : 'none'",
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("package: none"), "{}", out.stdout);
}

/// The control: name, namespace, labels and annotations are there.
#[test]
fn cel_sees_name_namespace_labels_and_annotations() {
    let out = cel_run(
        "packageExpr",
        // Joined by '-', the upstream's dotted name last: a '.' within the PackageVariant's
        // name is refused, and this one is cut to 54 bytes before the first dot.
        "target.name + '-' + target.namespace + '-' + target.labels['site'] + '-' + target.annotations['region'] + '-' + repository.name + '-' + upstream.name",
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("package: edge1-default-edge-us-east1-edge1-blueprints.base.v1"),
        "{}",
        out.stdout
    );
}

// ---------------------------------------------------------------- files and network (strace)

/// Paths the dynamic loader and Rust's runtime may open; anything else is a violation.
fn allowed(path: &str) -> bool {
    const EXACT: [&str; 2] = ["/etc/ld.so.cache", "/etc/ld.so.preload"];
    const UNDER: [&str; 7] = [
        "/lib/",
        "/lib64/",
        "/usr/lib/",
        "/usr/lib64/",
        "/proc/self/",
        "/sys/devices/system/cpu/",
        // glibc's hardware capability subdirectories are probed under these too.
        "/lib32/",
    ];
    path.is_empty() || EXACT.contains(&path) || UNDER.iter().any(|p| path.starts_with(p))
}

const NETWORK_CALLS: [&str; 16] = [
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "sendmsg",
    "sendmmsg",
    "recvfrom",
    "recvmsg",
    "recvmmsg",
    "getsockname",
    "getpeername",
    "setsockopt",
];

/// `(pid, syscall, first quoted argument)` of one strace line, when it is a call.
fn parse_line(line: &str) -> Option<(&str, &str, String)> {
    let (_pid, rest) = line.trim_start().split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    if rest.starts_with("<...") || rest.starts_with("+++") || rest.starts_with("---") {
        return None;
    }
    let (name, args) = rest.split_once('(')?;
    let path = args
        .split_once('"')
        .and_then(|(_, r)| r.split_once('"'))
        .map(|(p, _)| p.to_string())
        .unwrap_or_default();
    Some((_pid, name, path))
}

/// Runs the binary on `input` under `strace -f -e trace=%file,%network` and returns the
/// violations: network calls, and files other than the loader's.
fn traced_violations(name: &str, input: &[u8], expect_code: i32) -> Option<Vec<String>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("pv-strace-{}-{name}", std::process::id()));
    let trace = dir.with_extension("txt");
    let bin = env!("CARGO_BIN_EXE_package-variant");
    let mut child = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=%file,%network", "-o"])
        .arg(&trace)
        .arg(bin)
        // cargo test points the loader at target/ for dev builds; the function's real
        // environment does not, and the loader would probe those directories.
        .env_remove("LD_LIBRARY_PATH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start strace");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().expect("wait for strace");
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let _ = std::fs::remove_file(&trace);
    if !text.contains("execve(") {
        // strace could not trace (e.g. ptrace is not permitted in this container).
        eprintln!(
            "{name}: strace could not trace the binary: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    assert_eq!(
        out.status.code(),
        Some(expect_code),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut violations = Vec::new();
    let mut calls = 0;
    for line in text.lines() {
        let Some((_, call, path)) = parse_line(line) else {
            continue;
        };
        calls += 1;
        if NETWORK_CALLS.contains(&call) {
            violations.push(format!("network: {line}"));
        } else if call == "execve" {
            if path != bin {
                violations.push(format!("exec: {line}"));
            }
        } else if !allowed(&path) {
            violations.push(format!("file: {line}"));
        }
    }
    assert!(calls > 0, "{name}: no calls traced:\n{text}");
    Some(violations)
}

#[test]
fn no_files_and_no_network_beyond_the_loader() {
    if !strace_available("no_files_and_no_network_beyond_the_loader") {
        return;
    }
    let pv_input = resource_list(
        &[
            KPTFILE,
            PACKAGE_CONTEXT,
            INJECTION_POINT,
            &in_cluster(None, "db.example.com"),
        ],
        &pv_config("  injectors:\n  - name: us-east1-endpoints\n  packageContext:\n    data: {region: us}\n"),
    );
    let pvs_input = resource_list(
        &[UPSTREAM_PR, &repository("edge1", "{env: prod}")],
        &pvs_config("  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n    template:\n      downstream:\n        packageExpr: \"packageDefault + '-' + target.labels['env']\"\n"),
    );
    // Names that a careless implementation might open.
    let paths = resource_list(
        &["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    config.kubernetes.io/path: /etc/passwd\n"],
        &pv_config(""),
    );
    let cases: Vec<(&str, Vec<u8>, i32)> = vec![
        ("package-variant", pv_input.into_bytes(), 0),
        ("package-variant-set", pvs_input.into_bytes(), 0),
        ("paths-in-annotations", paths.into_bytes(), 1),
        ("not-a-resource-list", b"{{{ nope".to_vec(), 1),
        ("empty", Vec::new(), 1),
    ];
    let mut all = Vec::new();
    for (name, input, code) in cases {
        let v = traced_violations(name, &input, code).unwrap_or_else(|| {
            panic!("{name}: strace could not trace the binary (is ptrace permitted here?): nothing was checked")
        });
        all.extend(v.into_iter().map(|l| format!("{name}: {l}")));
    }
    assert!(
        all.is_empty(),
        "the function touched files or the network:\n{}",
        all.join("\n")
    );
}

#[test]
fn the_allow_list_is_precise() {
    assert!(allowed("/lib/x86_64-linux-gnu/libc.so.6"));
    assert!(allowed("/proc/self/maps"));
    assert!(!allowed("/proc/1/maps"));
    assert!(!allowed("/etc/passwd"));
    assert!(!allowed("/etc/ld.so.cache.d"));
    assert!(!allowed("/library/x"));
    assert!(!allowed("Kptfile"));
    assert!(!allowed("/tmp/x"));
    assert_eq!(
        parse_line("123  openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY) = 3"),
        Some(("123", "openat", "/etc/passwd".to_string()))
    );
    assert_eq!(parse_line("123  <... openat resumed>) = 3"), None);
}
