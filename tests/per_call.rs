//! The work's stack (docs/runners.md, "Memory and stack limits"): the binary runs on its main
//! thread when the stack limit lets that stack grow as far as the deepest input accepted needs,
//! and starts a thread with a stack of its own only when it does not. Starting that thread was a quarter of a call
//! on a small package. Both ways give the same output, byte for byte, on the deepest inputs.
//!
//! The limit is set with `ulimit -s` in `sh`. Debug builds (these tests) need the thread's
//! size, 64 MiB; release builds 4 MiB (`krm::run::stack`), below the usual 8 MiB default.

mod common;

use common::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// Debug builds take the main thread from this `ulimit -s` (KiB) up: `package_variant::STACK_SIZE`.
const MAIN_THREAD_KIB: usize = package_variant::STACK_SIZE / 1024;

/// The usual default: the work thread.
const DEFAULT_KIB: usize = 8 * 1024;

/// Runs the binary under `ulimit -s KIB`, optionally under `strace -f` writing to `trace`.
fn run_with_stack(input: &str, kib: usize, trace: Option<&std::path::Path>) -> Run {
    let bin = env!("CARGO_BIN_EXE_package-variant");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -s \"$0\" && exec \"$@\"")
        .arg(kib.to_string());
    if let Some(t) = trace {
        cmd.args(["strace", "-f", "-qq", "-e", "trace=clone,clone3", "-o"])
            .arg(t);
    }
    let mut child = cmd
        .arg(bin)
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
    let out = child.wait_with_output().expect("wait");
    Run {
        stdout: String::from_utf8(out.stdout).expect("UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8"),
        code: out.status.code().unwrap_or(-1),
    }
}

fn pv_with_deep_item(value: &str) -> String {
    let item = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  x: {value}\n"
    );
    resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, &item],
        &pv_config("  injectors:\n  - name: deep\n"),
    )
}

/// The deepest inputs accepted (one level more is refused), in each form of nesting.
fn deepest_inputs() -> Vec<(&'static str, String)> {
    let mut block_mappings = String::from("\n");
    for level in 0..252 {
        block_mappings.push_str(&format!("{}a:\n", " ".repeat(4 + level)));
    }
    block_mappings.push_str(&format!("{}b", " ".repeat(4 + 252)));
    let json = format!(
        "{{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"d\"}}, \"data\": {}1{}}}]}}",
        "{\"a\": ".repeat(253),
        "}".repeat(253)
    );
    vec![
        (
            "flow sequences",
            pv_with_deep_item(&format!("{}1{}", "[".repeat(252), "]".repeat(252))),
        ),
        (
            "flow mappings",
            pv_with_deep_item(&format!("{}1{}", "{a: ".repeat(252), "}".repeat(252))),
        ),
        (
            "block sequences",
            pv_with_deep_item(&format!("\n    {}x", "- ".repeat(252))),
        ),
        ("block mappings", pv_with_deep_item(&block_mappings)),
        (
            "an alias of a deep anchor",
            pv_with_deep_item(&format!(
                "&a {}1{}\n  y: *a",
                "[".repeat(252),
                "]".repeat(252)
            )),
        ),
        ("JSON", json),
        (
            "functionConfig",
            resource_list(
                &[KPTFILE],
                &pv_config(&format!(
                    "  packageContext:\n    data:\n      x: {}1{}\n",
                    "[".repeat(251),
                    "]".repeat(251)
                )),
            ),
        ),
    ]
}

#[test]
fn deepest_inputs_give_the_same_output_on_the_main_thread() {
    for (name, input) in deepest_inputs() {
        let thread = run_with_stack(&input, DEFAULT_KIB, None);
        assert!(
            !thread.stderr.contains("deeper than"),
            "{name}: not the deepest accepted: {}",
            thread.stderr
        );
        assert!(
            thread.code == 0 || thread.code == 1,
            "{name}: {}",
            thread.code
        );
        let main = run_with_stack(&input, MAIN_THREAD_KIB, None);
        assert_eq!(main.code, thread.code, "{name}: {}", main.stderr);
        assert_eq!(main.stdout, thread.stdout, "{name}");
        assert_eq!(main.stderr, thread.stderr, "{name}");
    }
}

#[test]
fn one_level_deeper_is_refused_on_the_main_thread() {
    let input = pv_with_deep_item(&format!("{}1{}", "[".repeat(253), "]".repeat(253)));
    let out = run_with_stack(&input, MAIN_THREAD_KIB, None);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("YAML nesting is deeper than 256 levels; refusing to parse it"),
        "{}",
        out.stderr
    );
}

/// Whether the run started a thread: `clone` calls under `strace -f`.
fn starts_a_thread(kib: usize) -> bool {
    let dir = std::env::temp_dir().join(format!("pv-per-call-{}-{kib}", std::process::id()));
    let input = resource_list(&[KPTFILE, PACKAGE_CONTEXT], &pv_config(""));
    let out = run_with_stack(&input, kib, Some(&dir));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let trace = std::fs::read_to_string(&dir).expect("strace output");
    let _ = std::fs::remove_file(&dir);
    trace.lines().any(|l| l.contains("clone"))
}

#[test]
fn the_main_thread_does_the_work_when_the_stack_limit_allows() {
    if !strace_available("the_main_thread_does_the_work_when_the_stack_limit_allows") {
        return;
    }
    assert!(
        !starts_a_thread(MAIN_THREAD_KIB),
        "a thread was started with the stack limit at {MAIN_THREAD_KIB} KiB"
    );
    assert!(
        starts_a_thread(DEFAULT_KIB),
        "no thread was started with the stack limit at {DEFAULT_KIB} KiB (debug builds need more)"
    );
}
