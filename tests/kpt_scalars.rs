//! kpt is the oracle for scalar values: every value the function reads must be the value kpt
//! (go-yaml v3) reads from the same text, and every value it writes must read back, in kpt, as
//! that value.
//!
//! How kpt's reading is seen: `kpt fn sink` writes an item whose path ends in `.json` as JSON,
//! decoding every scalar the way kpt reads it. The test puts a table of scalars in the `spec` of
//! an in-cluster object, lets the binary inject it into a package resource, and sinks input and
//! output: the injected `spec` must hold, key for key, what kpt read in the source.

mod common;

use package_variant::yaml::style::plain_ok;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// Plain scalars: curated cases, then every string of up to three characters over an alphabet
/// of digits, signs, separators and prefix letters.
fn plain_scalars() -> Vec<String> {
    let mut out: Vec<String> = [
        "0777",
        "0o17",
        "0O17",
        "0x1F",
        "0X1f",
        "+0x1F",
        "-0x1F",
        "0b101",
        "0B101",
        "-0b101",
        "0b-1",
        "0b+1",
        "0o-7",
        "0B-1",
        "1_000",
        "1__0",
        "0x_F_f",
        "-_1",
        "1_",
        "08",
        "09.5",
        "1.",
        ".5",
        "+.5",
        "-.5",
        ".5_0",
        ".5__0",
        "1_0.5",
        "1e3",
        "12e03",
        "1e-400",
        "1e400",
        "99999999999999999999",
        "18446744073709551615",
        "+18446744073709551615",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "0xFFFFFFFFFFFFFFFF",
        "0x1FFFFFFFFFFFFFFFF",
        "-0",
        "-0.0",
        "1.0",
        "true",
        "True",
        "TRUE",
        "tRue",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "null",
        "Null",
        "NULL",
        "~",
        "nULL",
        ".inf",
        ".NaN",
        "-.Inf",
        "+.inf",
        ".Inf_",
        "1 000",
        "12:30",
        "12:30:45",
        "1:2",
        "0x",
        "0b",
        "0o",
        "0b2",
        "0.5.1",
        "1e",
        "1e+",
        "1e+5",
        "1E5",
        "1e5_0",
        "+",
        "-1-",
        "2024-01-01",
        "2024-1-2",
        "2024-02-29",
        "2023-02-29",
        "2024-13-01",
        "2024-1-2 3:04:05",
        "2024-01-01  10:00:00",
        "2024-01-01 10:00:00.5",
        "2024-01-01T10:00:00Z",
        "2024-01-01t10:00:00.5+01:00",
        "2024-01-01T10:00:00",
        "2024-01-01T24:00:00Z",
        "2024-01-01T10:00:00+25:00",
        "2024-01-01 10:00:00 +01:00",
        "20240101",
        "0001-01-01",
        "9999-12-31T23:59:59.999999999Z",
        "<<",
        "=",
        "a",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let alphabet = [
        '0', '1', '7', '8', '9', '_', '-', '+', '.', 'e', 'E', 'x', 'o', 'b', 'B', 'f',
    ];
    let mut words = vec![String::new()];
    for _ in 0..3 {
        let longer: Vec<String> = words
            .iter()
            .filter(|w| w.len() == words.last().map_or(0, String::len))
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        words.extend(longer);
    }
    out.extend(words.into_iter().filter(|w| plain_ok(w, false)));
    out.sort();
    out.dedup();
    out
}

/// Floats JSON cannot hold: the function refuses to inject them rather than change them.
fn non_finite(text: &str) -> bool {
    let t = text.trim_start_matches(['+', '-']);
    matches!(t, ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN")
}

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
        let mut stdin_pipe = child.stdin.take().expect("stdin");
        stdin_pipe
            .write_all(stdin.as_bytes())
            .expect("write to kpt");
    }
    child.wait_with_output().expect("wait for kpt")
}

/// `kpt fn sink DIR` of a ResourceList, then the JSON of the file at `path`.
fn kpt_reads(rl: &str, dir: &Path, path: &str) -> Value {
    let _ = std::fs::remove_dir_all(dir);
    let out = kpt(&["fn", "sink", dir.to_str().expect("utf-8 path")], rl);
    assert!(
        out.status.success(),
        "kpt fn sink of {path} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join(path)).expect("kpt wrote the file");
    serde_json::from_str(&text).expect("kpt wrote JSON")
}

/// Numbers compare by value (kpt writes the float 1.0 as `1`), everything else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        _ => a == b,
    }
}

/// A package resource (injection point) and an in-cluster object whose `spec` is `entries`
/// (`key: value` lines, two-space indented), both written to `.json` files by kpt.
fn resource_list(entries: &str) -> String {
    let point = "apiVersion: example.com/v1
kind: Values
metadata:
  name: point
  annotations:
    kpt.dev/config-injection: required
    config.kubernetes.io/path: point.json
    internal.config.kubernetes.io/path: point.json
spec:
  placeholder: true
";
    let source = format!(
        "apiVersion: example.com/v1
kind: Values
metadata:
  name: source
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
    config.kubernetes.io/path: source.json
    internal.config.kubernetes.io/path: source.json
spec:
{entries}"
    );
    let kptfile = "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/path: Kptfile
    internal.config.kubernetes.io/path: Kptfile
";
    let config = common::pv_config("  injectors:\n  - name: source\n");
    common::resource_list(&[kptfile, point, &source], &config)
}

/// Injects `entries`, and returns kpt's reading of the source `spec` and of the injected one.
fn inject_and_read(name: &str, entries: &str) -> (Value, Value) {
    let input = resource_list(entries);
    let dir = std::env::temp_dir().join(format!("pv-kpt-scalars-{}-{name}", std::process::id()));
    let before = kpt_reads(&input, &dir, "source.json");
    let out = common::run(&input);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    let after = kpt_reads(&out.stdout, &dir, "point.json");
    let _ = std::fs::remove_dir_all(&dir);
    (before["spec"].clone(), after["spec"].clone())
}

/// kpt's reading of every plain scalar is the value the function reads and writes back.
#[test]
fn plain_scalars_read_as_kpt_reads_them() {
    let table: Vec<String> = plain_scalars()
        .into_iter()
        .filter(|s| !non_finite(s))
        .collect();
    let entries: String = table
        .iter()
        .enumerate()
        .map(|(i, s)| format!("  k{i}: {s}\n"))
        .collect();
    let (kpt_source, injected) = inject_and_read("plain", &entries);
    let mut wrong = Vec::new();
    for (i, text) in table.iter().enumerate() {
        let key = format!("k{i}");
        let (want, got) = (&kpt_source[&key], &injected[&key]);
        // kpt decodes a timestamp to a time (written RFC 3339); JSON, the API server and
        // Porch hold its text, so the function injects the text, as a string.
        let timestamp = want.is_string() && want.as_str() != Some(text.as_str());
        let ok = if timestamp {
            got.as_str() == Some(text.as_str())
        } else {
            same(want, got)
        };
        if !ok {
            wrong.push(format!(
                "{text:?}: kpt reads {want}, the function wrote {got}"
            ));
        }
    }
    println!("kpt scalars: {} plain scalars compared", table.len());
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Infinity and NaN have no JSON form: the point is not injected and says why.
#[test]
fn non_finite_floats_are_not_injected() {
    for text in [".inf", "-.Inf", ".nan"] {
        let input = resource_list(&format!("  k: {text}\n"));
        let out = common::run(&input);
        assert_eq!(out.code, 0, "{text}: {}", out.stdout);
        assert!(
            out.stdout
                .contains(&format!("the float {text} has no JSON form")),
            "{text}: {}",
            out.stdout
        );
        assert!(
            out.stdout.contains("placeholder: true"),
            "{text}: {}",
            out.stdout
        );
    }
}

/// `"..."` with every character outside printable ASCII escaped, so the source holds exactly
/// `s` whatever it contains.
fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Strings that plain, single-quoted, literal or unescaped double-quoted writing could turn
/// into another value: numbers, keywords, indicators, line and paragraph separators, other
/// characters go-yaml reads as breaks or refuses raw.
fn tricky_strings() -> Vec<String> {
    let mut out = plain_scalars();
    for s in [
        "",
        " ",
        "  a",
        "a ",
        "a  b",
        "\t",
        "a\tb",
        "\ta",
        "a\t",
        "# x",
        "a #b",
        "a# b",
        "a: b",
        "a:",
        ":a",
        ": a",
        "- a",
        "-a",
        "? a",
        "?a",
        "'a",
        "\"a",
        "@a",
        "`a",
        "%a",
        "!a",
        "&a",
        "*a",
        "|",
        ">",
        "|a",
        ">a",
        "[a]",
        "{a}",
        "a,b",
        "a]",
        "---",
        "...",
        "--- a",
        "... a",
        "a\nb",
        "a\n",
        "\n",
        "\na",
        "a\n\n",
        "a \nb",
        "a\r\nb",
        "\r",
        "a\rb",
        "é",
        "😀",
        "\u{85}",
        "a\u{85}b",
        "\u{2028}",
        "a\u{2028}b",
        "\u{2029}",
        "a\u{2029}b",
        "a\u{2028}\nb",
        "line one\nline\u{2028}two\n",
        "\u{feff}",
        "a\u{feff}",
        "\u{fffe}",
        "\u{ffff}",
        "\u{80}",
        "\u{9f}",
        "\u{7f}",
        "\u{1}",
        "\u{1b}[0m",
        "\u{0}",
        "\u{a0}",
        "\u{200b}",
        "\u{e000}",
        "\u{fffd}",
        "\u{10ffff}",
        "\u{1f600}",
        "a\u{b}b",
        "\u{c}",
    ] {
        out.push(s.to_string());
    }
    out
}

/// Every string the function writes reads back, in kpt, as the same string: quoting and
/// escaping never let a string become a number, a boolean, null, a timestamp, a line break or
/// a character kpt refuses.
#[test]
fn strings_written_read_back_as_the_same_string() {
    let table = tricky_strings();
    let entries: String = table
        .iter()
        .enumerate()
        .map(|(i, s)| format!("  k{i}: {}\n", double_quoted(s)))
        .collect();
    let (kpt_source, injected) = inject_and_read("strings", &entries);
    let mut wrong = Vec::new();
    for (i, text) in table.iter().enumerate() {
        let key = format!("k{i}");
        let want = Value::String(text.clone());
        if kpt_source[&key] != want {
            // The source itself: kpt must read what the test meant.
            wrong.push(format!(
                "{text:?}: kpt reads the source as {}",
                kpt_source[&key]
            ));
        } else if injected[&key] != want {
            wrong.push(format!("{text:?}: the function wrote {}", injected[&key]));
        }
    }
    println!("kpt scalars: {} strings written and read back", table.len());
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The `-- key=value` route under real kpt: kpt builds the ConfigMap, the function writes each
/// value into `package-context.yaml`, and kpt reads back every string as given. Among them
/// `a<LS>b`, which kpt hands over as `'a<LS>      b'` (a line separator is a line break to
/// go-yaml, the indentation after it is not text): read as go-yaml reads it since issue 20.
#[test]
fn context_values_from_kpt_arguments_read_back_as_given() {
    let table: Vec<String> = tricky_strings()
        .into_iter()
        .filter(|s| !s.contains('\0'))
        .collect();
    let dir = std::env::temp_dir().join(format!("pv-kpt-args-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("package dir");
    std::fs::write(
        dir.join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
    )
    .expect("Kptfile");
    std::fs::write(
        dir.join("package-context.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: pkg\n",
    )
    .expect("package-context.yaml");
    let mut args: Vec<String> = vec![
        "fn".into(),
        "eval".into(),
        dir.to_str().expect("utf-8 path").into(),
        "--exec".into(),
        env!("CARGO_BIN_EXE_package-variant").into(),
        "--".into(),
    ];
    args.extend(table.iter().enumerate().map(|(i, s)| format!("k{i}={s}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = kpt(&args, "");
    assert!(
        out.status.success(),
        "kpt fn eval failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let source = kpt(&["fn", "source", dir.to_str().expect("utf-8 path")], "");
    assert!(
        source.status.success(),
        "{}",
        String::from_utf8_lossy(&source.stderr)
    );
    let rl = String::from_utf8(source.stdout)
        .expect("utf-8")
        .replace("'package-context.yaml'", "'package-context.json'");
    let sink = dir.with_extension("sink");
    let context = kpt_reads(&rl, &sink, "package-context.json");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&sink);
    let mut wrong = Vec::new();
    for (i, s) in table.iter().enumerate() {
        let got = &context["data"][format!("k{i}")];
        if *got != Value::String(s.to_string()) {
            wrong.push(format!("{s:?}: kpt reads {got}"));
        }
    }
    println!(
        "kpt scalars: {} context values through kpt arguments",
        table.len()
    );
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
