//! The process around the function (docs/design.md, "Start and allocation"): standard
//! descriptors closed or opened the wrong way, a stack limit too small for the input, and no
//! address space for the work thread's stack. Through the binary, as a runner starts it.

#![cfg(target_os = "linux")]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_package-variant");

/// Runs the binary through `sh -c SCRIPT` (`$0` is the binary) with `input` on stdin.
fn sh(script: &str, input: &[u8]) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sh");
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().expect("wait for sh")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn stdout_open_for_reading_fails_the_run() {
    let dir = std::env::temp_dir().join(format!("pv-start-ro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("out.yaml");
    std::fs::write(&file, "").unwrap();
    let err = dir.join("err");
    let out = sh(
        &format!("exec \"$0\" 1<'{}' 2>'{}'", file.display(), err.display()),
        common::SMALL_PACKAGE.as_bytes(),
    );
    let message = std::fs::read_to_string(&err).unwrap();
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(
        message.contains("stdout is open for reading only") && message.contains("with >"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn closed_stdin_reads_as_empty_input() {
    let out = sh("exec \"$0\" 0<&-", b"");
    assert_eq!(out.status.code(), Some(1));
    // Reopened on /dev/null, as the Rust runtime does: an empty input, not a read error.
    assert_eq!(
        text(&out.stderr).trim_end(),
        "package-variant: input is empty: expected a ResourceList (config.kubernetes.io/v1) on stdin"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn closed_stderr_is_reopened_on_dev_null_and_the_run_goes_on() {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" 2>&-")
        .arg(BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start sh");
    // The binary waits for its input: look at its descriptor 2 meanwhile.
    let fd2 = Path::new("/proc").join(child.id().to_string()).join("fd/2");
    let exe = Path::new("/proc").join(child.id().to_string()).join("exe");
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut target = None;
    while Instant::now() < deadline {
        let started = std::fs::read_link(&exe).is_ok_and(|e| e == Path::new(BIN));
        if started {
            target = std::fs::read_link(&fd2).ok();
            if target.is_some() {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child
        .stdin
        .take()
        .unwrap()
        .write_all(common::SMALL_PACKAGE.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(target.as_deref(), Some(Path::new("/dev/null")));
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("region: us-east1"));
}

/// `ulimit -v` leaving 40 MiB beside what the binary maps at start: less than the 64 MiB stack
/// of the work thread, plenty for a small package.
fn no_room_for_the_thread() -> String {
    format!("ulimit -v {}", common::address_space_at_start() + 40 * 1024)
}

#[test]
fn a_small_package_runs_when_the_work_threads_stack_cannot_be_had() {
    let input = common::SMALL_PACKAGE;
    let free = common::run(input);
    assert_eq!(free.code, 0, "{}", free.stderr);
    let limited = sh(
        &format!("ulimit -s 2048; {}; exec \"$0\"", no_room_for_the_thread()),
        input.as_bytes(),
    );
    assert_eq!(limited.status.code(), Some(0), "{}", text(&limited.stderr));
    assert_eq!(text(&limited.stdout), free.stdout, "the same output");
}

/// The deepest nesting accepted needs more stack than 512 KiB (2.9 MiB in a debug build): with
/// no room for the 64 MiB work thread, a smaller one is started and the run is the same as
/// without limits (tests/stack.rs has the other stack sizes).
#[test]
fn the_deepest_input_runs_when_the_work_threads_stack_cannot_be_had() {
    let deep = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/deep-block.yaml"),
    )
    .unwrap();
    let free = common::run_bytes(&deep);
    let out = sh(
        &format!("ulimit -s 512; {}; exec \"$0\"", no_room_for_the_thread()),
        &deep,
    );
    assert_eq!(out.status.code(), Some(free.code), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), free.stdout);
    assert_eq!(text(&out.stderr), free.stderr);
}
