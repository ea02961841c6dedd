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
    let mut s = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
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
