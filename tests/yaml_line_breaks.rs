//! NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029): kpt's reader
//! (go-yaml v3) takes them for line breaks, and so does the function (issue 20). Real kpt is
//! the oracle: `kpt fn source` of a file holding them, sunk as JSON by `kpt fn sink`, is what
//! kpt read; the function must read, inject and write the same.

mod common;

use common::{
    items_section, pv_config, resource_list, results_section, run, INJECTION_POINT, KPTFILE,
    PACKAGE_CONTEXT,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The three characters, with names for messages.
const BREAKS: [(char, &str); 3] = [('\u{2028}', "LS"), ('\u{2029}', "PS"), ('\u{85}', "NEL")];

// ---------------------------------------------------------------- the attack, through the binary

/// An in-cluster ConfigMap `us-east1-endpoints` whose `metadata` is `metadata` (the in-cluster
/// annotation is added after it).
fn in_cluster(metadata: &str, db: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n{metadata}\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: {db}\n"
    )
}

/// Where a test item holds the break: `common::resource_list` indents the items' lines for
/// the list, split at line feeds, so a test writes `{B}\n` and [`with_break`] turns it into
/// the character once the lines after it are indented.
const B: &str = "@@BREAK@@";

fn with_break(rl: &str, c: char) -> String {
    rl.replace(&format!("{B}\n"), &c.to_string())
}

/// Runs a PackageVariant of namespace team-a over one in-cluster object.
fn inject_into_team_a(object: &str, c: char) -> common::Run {
    let config = pv_config("  injectors:\n  - name: us-east1-endpoints\n")
        .replace("  name: my-pv\n", "  name: my-pv\n  namespace: team-a\n");
    let rl = resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, object],
        &config,
    );
    run(&with_break(&rl, c))
}

/// The ways to hide `namespace: NS` behind a break on the name's line: after a comment, after
/// a plain, a single-quoted and a double-quoted name.
fn hidden_namespaces(ns: &str) -> Vec<String> {
    [
        format!("  name: us-east1-endpoints # copied{B}\n  namespace: {ns}"),
        format!("  name: us-east1-endpoints{B}\n  namespace: {ns}"),
        format!("  name: 'us-east1-endpoints'{B}\n  namespace: {ns}"),
        format!("  name: \"us-east1-endpoints\" # c{B}\n{B}\n  namespace: {ns}"),
    ]
    .into()
}

/// Issue 20's attack: `namespace: team-b` after a LINE SEPARATOR on the name's line is the
/// object's namespace to kpt, so team-b's data is never injected into team-a's package.
#[test]
fn a_namespace_hidden_behind_a_line_break_is_isolated() {
    for (c, what) in BREAKS {
        for (i, metadata) in hidden_namespaces("team-b").iter().enumerate() {
            let out = inject_into_team_a(&in_cluster(metadata, "SECRET-OF-TEAM-B"), c);
            assert_eq!(out.code, 0, "{what} case {i}: {}{}", out.stdout, out.stderr);
            assert!(
                !items_section(&out.stdout).contains("SECRET-OF-TEAM-B"),
                "{what} case {i}: injected across namespaces:\n{}",
                out.stdout
            );
            let results = results_section(&out.stdout);
            assert!(
                results.contains("is in namespace \"team-b\"") && results.contains("skipped"),
                "{what} case {i}: {results}"
            );
        }
    }
}

/// The control: the same text naming team-a is read, and injected.
#[test]
fn a_namespace_behind_a_line_break_is_read() {
    for (c, what) in BREAKS {
        for (i, metadata) in hidden_namespaces("team-a").iter().enumerate() {
            let out = inject_into_team_a(&in_cluster(metadata, "db.team-a.example.com"), c);
            assert_eq!(out.code, 0, "{what} case {i}: {}", out.stdout);
            assert!(
                items_section(&out.stdout).contains("db: db.team-a.example.com"),
                "{what} case {i}: not injected:\n{}",
                out.stdout
            );
        }
    }
}

// ---------------------------------------------------------------- kpt's reading

fn kpt(args: &[&str], stdin: &str) -> std::process::Output {
    let mut child = Command::new("kpt")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("kpt is not on PATH ({e}): install kpt 1.0.0-beta.56"));
    {
        use std::io::Write;
        let mut pipe = child.stdin.take().expect("stdin");
        pipe.write_all(stdin.as_bytes()).expect("write to kpt");
    }
    child.wait_with_output().expect("wait for kpt")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pv-breaks-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `kpt fn sink DIR` of a ResourceList, then the JSON of the file at `path`.
fn kpt_sinks(rl: &str, dir: &Path, path: &str) -> Value {
    let _ = std::fs::remove_dir_all(dir);
    let out = kpt(&["fn", "sink", dir.to_str().expect("utf-8 path")], rl);
    assert!(
        out.status.success(),
        "kpt fn sink failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join(path)).expect("kpt wrote the file");
    let _ = std::fs::remove_dir_all(dir);
    serde_json::from_str(&text).expect("kpt wrote JSON")
}

/// What kpt reads from a package file holding `text`: its JSON, or kpt's error.
fn kpt_reads_file(name: &str, text: &str) -> Result<Value, String> {
    let dir = temp(name);
    std::fs::create_dir_all(&dir).expect("package dir");
    std::fs::write(dir.join("cm.yaml"), text).expect("cm.yaml");
    let source = kpt(&["fn", "source", dir.to_str().expect("utf-8 path")], "");
    let _ = std::fs::remove_dir_all(&dir);
    if !source.status.success() {
        return Err(String::from_utf8_lossy(&source.stderr).into_owned());
    }
    let rl = String::from_utf8(source.stdout)
        .expect("utf-8")
        .replace("'cm.yaml'", "'cm.json'");
    let mut v = kpt_sinks(&rl, &temp(&format!("{name}-sink")), "cm.json");
    // The annotations kpt adds are not the file's.
    if let Some(m) = v["metadata"].as_object_mut() {
        m.remove("annotations");
    }
    Ok(v)
}

/// A ConfigMap named `name` whose metadata and data end with `metadata` and `data` (lines
/// indented by two spaces).
fn config_map(metadata: &str, data: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n{metadata}data:\n{data}")
}

/// Each character in a comment, a plain, single- and double-quoted scalar (on one line, and
/// folded over the break), a block scalar, a flow collection, a key, and `metadata.namespace`
/// after a comment: what the function's parser reads is what `kpt fn source` read, value for
/// value; where kpt refuses the file, so does the parser. (Not here: a plain key over two lines
/// in a flow mapping, `{a<LS> b: 1}`, which kpt refuses and the parser reads as `a<LS>b`, as
/// it reads `{a<LF> b: 1}` as `a b`: YAML 1.2 forbids both, go-yaml refuses both.)
#[test]
fn the_parser_reads_each_place_as_kpt_source_reads_it() {
    let mut checked = 0;
    for (c, what) in BREAKS {
        let cases = [
            config_map(
                &format!("  labels: {{a: b}} # x{c}  namespace: team-b\n"),
                "",
            ),
            config_map("", &format!("  a: x # y{c}  b: z\n")),
            config_map("", &format!("  a: x{c}    y\n  b: x{c}  c: y\n")),
            config_map("", &format!("  a: 'x{c}    y'\n  b: 'x {c} {c}   y'\n")),
            config_map("", &format!("  a: \"x{c}    y\"\n  b: \"x\\{c}    y\"\n")),
            config_map(
                "",
                &format!("  a: |\n    x{c}    y\n  b: >-\n    x{c}    y\n    z\n"),
            ),
            config_map("", &format!("  a: [x,{c}   y]\n  b: {{k: x{c}    y}}\n")),
            config_map("", &format!("  a{c}  b: c\n")),
            config_map("", &format!("  a{c}b: c\n")),
            config_map("", &format!("  a: |\n    x\n{c}    y\n")),
            config_map("", &format!("  x: {{\"a{c}b\": 1}}\n")),
            config_map("", &format!("  x: [\"a{c}b\": 1]\n")),
            config_map("", &format!("  \"a{c}b\": 1\n")),
            config_map("", &format!("  ? \"a{c}   b\"\n  : 1\n")),
        ];
        for (i, text) in cases.iter().enumerate() {
            let kpt = kpt_reads_file(&format!("{what}-{i}"), text);
            let ours = package_variant::yaml::parse(text)
                .map_err(|e| e.to_string())
                .and_then(|n| package_variant::yaml::to_json(&n));
            match (&kpt, &ours) {
                (Ok(k), Ok(o)) => {
                    let mut o = o.clone();
                    if let Some(m) = o["metadata"].as_object_mut() {
                        m.remove("annotations");
                    }
                    assert_eq!(&o, k, "{what} case {i}: {text:?}");
                }
                (Err(_), Err(_)) => {}
                _ => panic!("{what} case {i}: {text:?}\nkpt: {kpt:?}\nours: {ours:?}"),
            }
            checked += 1;
        }
    }
    println!("line breaks: {checked} files read as kpt reads them");
}

// ---------------------------------------------------------------- through the binary and kpt

/// A package resource (injection point), written to `point.json` by kpt.
const POINT: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: point
  annotations:
    kpt.dev/config-injection: required
    config.kubernetes.io/path: point.json
    internal.config.kubernetes.io/path: point.json
data:
  placeholder: x
";

/// [`POINT`] and an in-cluster object whose `data` is `data`, written to `source.json` by kpt.
fn injection(data: &str) -> String {
    let source = format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: source
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
    config.kubernetes.io/path: source.json
    internal.config.kubernetes.io/path: source.json
data:
{data}"
    );
    let config = pv_config("  injectors:\n  - name: source\n").replace(
        "  name: my-pv\n",
        "  name: my-pv\n  annotations:\n    package-variant.fn.kpt.dev/cluster-objects: source.json\n",
    );
    resource_list(&[KPTFILE, POINT, &source], &config)
}

/// [`injection`] with the in-cluster object written as JSON on one line, `data` a JSON object:
/// the function writes its strings again (in block style) from the values its parser read.
fn json_injection(data: &str) -> String {
    let source = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"source\", \"annotations\": {{\"config.porch.kpt.dev/in-cluster\": \"true\", \"config.kubernetes.io/path\": \"source.json\", \"internal.config.kubernetes.io/path\": \"source.json\"}}}}, \"data\": {data}}}\n"
    );
    let config = pv_config("  injectors:\n  - name: source\n").replace(
        "  name: my-pv\n",
        "  name: my-pv\n  annotations:\n    package-variant.fn.kpt.dev/cluster-objects: source.json\n",
    );
    resource_list(&[KPTFILE, POINT, &source], &config)
}

/// The injected `data` reads, in kpt, as the source's `data` read: the lines after a break
/// move with their parent. In block style (copied text) and as JSON strings (written again
/// from the values the parser read).
#[test]
fn injected_data_reads_in_kpt_as_the_source_reads() {
    for (c, what) in BREAKS {
        let block = format!(
            "  a: x # y{B}\n  b: z\n  c: x{B}\n    y\n  d: 'x{B}\n    y'\n  e: \"x{B}\n    y\"\n  f: |\n    x{B}\n    y\n"
        );
        let json = format!(
            "{{\"a\": \"x{c}  y\", \"b\": \"x\\{c}  y\", \"c\": \"x\\u2028y\", \"d\": \"x{c}   \"}}"
        );
        let inputs = [injection(&block), json_injection(&json)].map(|rl| with_break(&rl, c));
        for (j, input) in inputs.iter().enumerate() {
            let name = format!("inject-{what}-{j}");
            let before = kpt_sinks(input, &temp(&name), "source.json");
            let out = run(input);
            assert_eq!(out.code, 0, "{what}: {}\n{}", out.stderr, out.stdout);
            let after = kpt_sinks(&out.stdout, &temp(&name), "point.json");
            assert_eq!(after["data"], before["data"], "{what} {j}:\n{}", out.stdout);
            assert!(before["data"].as_object().is_some_and(|m| m.len() >= 3));
        }
    }
}

/// `kpt fn eval` with the function writes an untouched file holding the characters exactly as
/// `kpt fn source | kpt fn sink` does: the function copies kpt's text, and kpt reads it back
/// as it read the file.
#[test]
fn kpt_fn_eval_writes_an_untouched_file_as_source_and_sink_do() {
    let dir = temp("eval");
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(&pkg).expect("package dir");
    let text = {
        let mut t = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm # c\u{2028}  namespace: team-b\ndata:\n");
        for (c, what) in BREAKS {
            t.push_str(&format!(
                "  {what}1: x # y{c}  {what}2: 'x{c}    y'\n  {what}3: x{c}    y\n  {what}4: |\n    x{c}    y\n"
            ));
        }
        t
    };
    std::fs::write(
        pkg.join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
    )
    .expect("Kptfile");
    std::fs::write(pkg.join("cm.yaml"), &text).expect("cm.yaml");
    std::fs::write(dir.join("fn-config.yaml"), pv_config("")).expect("fn-config");
    // kpt's own writing of the package.
    let sunk = dir.join("sunk");
    let source = kpt(&["fn", "source", pkg.to_str().expect("utf-8")], "");
    assert!(source.status.success());
    let sink = kpt(
        &["fn", "sink", sunk.to_str().expect("utf-8")],
        &String::from_utf8_lossy(&source.stdout),
    );
    assert!(
        sink.status.success(),
        "{}",
        String::from_utf8_lossy(&sink.stderr)
    );
    let eval = Command::new("kpt")
        .args(["fn", "eval"])
        .arg(&pkg)
        .arg("--exec")
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--fn-config")
        .arg(dir.join("fn-config.yaml"))
        .output()
        .expect("kpt fn eval");
    assert!(
        eval.status.success(),
        "{}",
        String::from_utf8_lossy(&eval.stderr)
    );
    let evaluated = std::fs::read_to_string(pkg.join("cm.yaml")).expect("cm.yaml");
    let expected = std::fs::read_to_string(sunk.join("cm.yaml")).expect("sunk cm.yaml");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(evaluated, expected);
    assert!(expected.contains("    namespace: team-b") || expected.contains("  namespace: team-b"));
}
