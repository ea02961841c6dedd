//! The binary as each runner runs it, and what each one shows its user.
//!
//! - Porch's executable evaluator (`func/internal/executableevaluator.go`): no arguments, the
//!   ResourceList on stdin; on a non-zero exit it discards stdout and reports only
//!   `Failed to execute function "IMAGE": exit status 1 (STDERR)`.
//! - Porch's pod evaluator, through its wrapper-server (`func/wrapper-server/main.go`): on a
//!   non-zero exit it parses the results from stdout and reports
//!   `failed to evaluate function "IMAGE" with structured results: RESULTS and stderr: STDERR`.
//! - kpt (`kpt fn eval --exec`): prints the results and the function's stderr.
//!
//! Also: how a caller may discard stdout (each way succeeds) or close it (the run fails, since
//! the output would be lost), and the warning for an output past Porch's 6 MiB message.

mod common;

use common::{resource_list, PACKAGE_CONTEXT};
use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_package-variant");
const IMAGE: &str = "ghcr.io/package-variant/package-variant:v0.1.0";

/// A PackageVariant whose `adoptionPolicy` is not one Porch accepts: one error result.
fn failing_input() -> String {
    resource_list(
        &[common::KPTFILE, PACKAGE_CONTEXT],
        &common::pv_config("  adoptionPolicy: adoptSome\n"),
    )
}

fn succeeding_input() -> String {
    resource_list(
        &[PACKAGE_CONTEXT],
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  region: us-east1\n",
    )
}

/// As Go's `exec.Command(binary)` with `bytes.Buffer`s: no arguments, stdout and stderr apart.
fn run_as_porch(input: &str) -> Output {
    let mut child = Command::new(BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start package-variant");
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    child.wait_with_output().expect("wait")
}

/// What Porch's executable evaluator reports: on failure stdout is gone, only err and stderr.
fn executable_evaluator_shows(out: &Output) -> String {
    assert!(!out.status.success());
    format!(
        "Failed to execute function {IMAGE:?}: exit status {} ({})",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The error messages of the `results` on stdout, as the Go SDK's `Results.Error()` joins them.
fn structured_results(stdout: &str) -> String {
    let section = common::results_section(stdout);
    section
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- message: "))
        .map(|m| m.trim_matches(|c| c == '\'' || c == '"').to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the wrapper-server reports on failure: the results parsed from stdout, and stderr.
fn wrapper_server_shows(out: &Output) -> String {
    format!(
        "failed to evaluate function {IMAGE:?} with structured results: {} and stderr: {}",
        structured_results(&String::from_utf8_lossy(&out.stdout)),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn porch_executable_evaluator_shows_our_error() {
    let out = run_as_porch(&failing_input());
    assert_eq!(out.status.code(), Some(1));
    let shown = executable_evaluator_shows(&out);
    // Before: `Failed to execute function "...": exit status 1 ()`, not one word of ours.
    for needed in [
        "package-variant: 1 error; nothing was changed",
        "[error] config.porch.kpt.dev/v1alpha1/PackageVariant/my-pv spec.adoptionPolicy: ",
        "\"adoptNone\" or \"adoptExisting\", not \"adoptSome\"",
    ] {
        assert!(shown.contains(needed), "{needed:?} not in:\n{shown}");
    }
    // stdout is unchanged: the whole ResourceList with the results, as before.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"));
    assert!(structured_results(&stdout).contains("adoptSome"));
}

#[test]
fn porch_wrapper_server_shows_our_error() {
    let out = run_as_porch(&failing_input());
    let shown = wrapper_server_shows(&out);
    assert!(
        shown.contains("with structured results: field can only be \"adoptNone\""),
        "{shown}"
    );
    assert!(
        shown.contains("and stderr: package-variant: 1 error"),
        "{shown}"
    );
}

#[test]
fn a_success_writes_nothing_on_stderr() {
    let out = run_as_porch(&succeeding_input());
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The first 20 errors, one line each, then how many more; every one is still on stdout.
#[test]
fn the_summary_lists_twenty_errors_and_counts_the_rest() {
    let items: Vec<String> = (0..25).map(|i| format!("scalar-{i}")).collect();
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    let out = run_as_porch(&resource_list(&refs, &common::pv_config("")));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[0],
        "package-variant: 25 errors; nothing was changed (the output's results have every detail):"
    );
    assert_eq!(lines.len(), 1 + 20 + 1, "{stderr}");
    assert!(
        lines[1].starts_with("  [error] items[0]: items[0] is not an object"),
        "{stderr}"
    );
    assert_eq!(lines[21], "  ... and 5 more errors");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("severity: error").count(), 25);
}

/// A message of many lines or of great length is one bounded line on stderr.
#[test]
fn each_error_is_one_bounded_line() {
    let long_key = "k".repeat(1000);
    let out = run_as_porch(&resource_list(
        &[common::KPTFILE, PACKAGE_CONTEXT],
        &common::pv_config(&format!("  {long_key}: 1\n")),
    ));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[1].len() < 1000 && lines[1].ends_with("..."),
        "{}",
        lines[1]
    );
    // The whole message is still in the results.
    assert!(String::from_utf8_lossy(&out.stdout).contains(&long_key));
}

/// kpt prints a failing function's stderr: our summary is there, beside the results.
#[test]
fn kpt_shows_our_error() {
    let dir = std::env::temp_dir().join(format!("pv-runners-kpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("package-context.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: pkg\n",
    )
    .unwrap();
    let config = dir.join("pv.yaml");
    std::fs::write(&config, common::pv_config("  adoptionPolicy: adoptSome\n")).unwrap();
    let out = Command::new("kpt")
        .args(["fn", "eval"])
        .arg(&pkg)
        .args(["--exec", BIN, "--fn-config"])
        .arg(&config)
        .output()
        .expect(
            "kpt is not on PATH: install kpt 1.0.0-beta.56 (https://kpt.dev/installation/kpt-cli/)",
        );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        shown.contains("package-variant: 1 error; nothing was changed"),
        "{shown}"
    );
}

/// Runs the binary with its stdout set up by `sh` (`redirect`), the input on stdin.
fn with_stdout(redirect: &str, input: &str) -> Output {
    let mut child = Command::new("sh")
        .args(["-c", &format!("exec \"$0\" {redirect}"), BIN])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sh");
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    child.wait_with_output().expect("wait")
}

/// Discarding stdout in any way a caller does it is not a closed stdout: `/dev/null` opened
/// write-only (a shell's `>`, Rust's `Stdio::null()`), read-write (a shell's `1<>`: what the
/// Rust runtime itself puts in place of a closed descriptor, which the old check took for a
/// closed stdout) or read-only (`1<`): the run succeeds. Closing it (`>&-`) fails, since the
/// output would be lost, and so does a file opened read-only (tests/start.rs).
#[test]
fn a_discarded_stdout_is_not_a_closed_one() {
    let input = succeeding_input();
    for redirect in ["> /dev/null", "1<> /dev/null", "1< /dev/null"] {
        let out = with_stdout(redirect, &input);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{redirect}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{redirect}");
    }
    let closed = with_stdout(">&-", &input);
    assert_eq!(closed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&closed.stderr).contains("stdout is closed"));

    // Rust's Stdio::null() (write-only), as many harnesses use.
    let mut child = Command::new(BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A failing run with a discarded stdout still says why on stderr.
    let out = with_stdout("1<> /dev/null", &failing_input());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("spec.adoptionPolicy"));
}

/// Python's `subprocess.DEVNULL`, as test harnesses use (when Python is installed; the open
/// modes themselves are all covered above).
#[test]
fn python_devnull_is_a_place_to_write() {
    let script = format!(
        "import subprocess, sys\n\
         r = subprocess.run([{BIN:?}], input=sys.stdin.buffer.read(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n\
         sys.stderr.buffer.write(r.stderr)\n\
         sys.exit(r.returncode)\n"
    );
    let Ok(mut child) = Command::new("python3")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        // Not a silent pass of the behaviour: every open mode of /dev/null is covered above.
        eprintln!("python3 is not installed: the open modes are covered by the shell cases");
        return;
    };
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(succeeding_input().as_bytes());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An item of `bytes` bytes that passes through unchanged.
fn big_item(name: &str, bytes: usize) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations:\n    config.kubernetes.io/path: {name}.yaml\ndata:\n  blob: {}\n",
        "x".repeat(bytes)
    )
}

/// An output past Porch's default gRPC message gets a warning that says what to change; the
/// run still succeeds (kpt has no such limit). Just under it: no warning.
#[test]
fn an_output_past_porchs_message_size_is_warned_about() {
    let config =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  region: us-east1\n";
    let over: Vec<String> = (0..7)
        .map(|i| big_item(&format!("big-{i}"), 1 << 20))
        .collect();
    let mut items: Vec<&str> = vec![PACKAGE_CONTEXT];
    items.extend(over.iter().map(String::as_str));
    let out = common::run(&resource_list(&items, config));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.is_empty());
    let results = common::results_section(&out.stdout);
    for needed in [
        "severity: warning",
        "more than Porch moves in one gRPC message by default (6291456 bytes",
        "--max-request-body-size",
        "split the package",
    ] {
        assert!(results.contains(needed), "{needed:?} not in {results}");
    }
    let size: usize = results
        .split("the output ResourceList is ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the size in the message");
    assert!(size <= out.stdout.len() && out.stdout.len() - size < 2048);

    let under = big_item("big", 5 << 20);
    let out = common::run(&resource_list(&[PACKAGE_CONTEXT, &under], config));
    assert_eq!(out.code, 0);
    assert!(!out.stdout.contains("gRPC"), "no warning under the limit");
}
