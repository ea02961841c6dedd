//! The work's stack when `ulimit -v` leaves no room for the 64 MiB work thread
//! (docs/runners.md, "Memory and stack limits"): a smaller thread is started, nesting is
//! bounded by the stack the run has (deeper input is refused naming the limit), and a stack
//! too small for any run is refused with a message. At every `ulimit -s`, every run ends with
//! exit 0 or 1 and a message, never a signal. Through the binary, as a runner starts it.
//!
//! The limits are set with `ulimit -v` (KiB beside what the binary maps at start) and
//! `ulimit -s` in `sh`.

#![cfg(target_os = "linux")]

mod common;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";

/// What a run under limits printed, its exit code, and the signal that ended it if one did.
struct Limited {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary under `ulimit -v` (`room` KiB beside what it maps at start) and
/// `ulimit -s STACK` KiB.
fn run_limited(room: u64, stack: u64, input: &str) -> Limited {
    let v = common::address_space_at_start() + room;
    // A small environment: the kernel keeps it on the main thread's stack, with a random
    // offset, and at 16 KiB a few KB of it leave too little for any program to start (even
    // `/bin/true`), before the binary could do anything.
    let mut child = Command::new("sh")
        .env_clear()
        .arg("-c")
        .arg(format!("ulimit -v {v}; ulimit -s {stack}; exec \"$0\""))
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sh");
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().expect("wait for sh");
    Limited {
        code: out.status.code(),
        signal: out.status.signal(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Room for a 16 MiB thread but not the 64 MiB one.
const NO_ROOM_FOR_64_MIB: u64 = 40 * 1024;
/// Room for a 4 MiB thread (and the heap of these inputs) but not a 16 MiB one.
const ROOM_FOR_4_MIB: u64 = 15 * 1024;
/// Room for a 1 MiB thread but not a 4 MiB one.
const ROOM_FOR_1_MIB: u64 = 3 * 1024 + 512;

/// The stack sizes of the issue: far below what the deepest input needs on the main thread.
const STACKS: [u64; 3] = [16, 64, 512];

/// Items nesting `d` levels below an item's `data.x` (the item itself is three levels below
/// the ResourceList's root), in each form.
fn forms(d: usize) -> Vec<(&'static str, String)> {
    let item = |value: &str| {
        let item = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: {value}\n"
        );
        common::resource_list(&[common::KPTFILE, &item], &common::pv_config(""))
    };
    let mut block_mappings = String::from("\n");
    for level in 0..d.saturating_sub(1) {
        block_mappings.push_str(&format!("{}a:\n", " ".repeat(4 + level)));
    }
    block_mappings.push_str(&format!("{}b", " ".repeat(4 + d)));
    vec![
        ("flow sequences", item(&format!("{}1{}", "[".repeat(d), "]".repeat(d)))),
        ("flow mappings", item(&format!("{}1{}", "{a: ".repeat(d), "}".repeat(d)))),
        ("block sequences", item(&format!("\n    {}x", "- ".repeat(d)))),
        ("block mappings", item(&block_mappings)),
        (
            "an alias of a deep anchor",
            item(&format!("&a {}1{}\n  y: *a", "[".repeat(d), "]".repeat(d))),
        ),
        (
            "an object injected",
            common::resource_list(
                &[
                    common::KPTFILE,
                    common::PACKAGE_CONTEXT,
                    common::INJECTION_POINT,
                    &format!(
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  x: {}1{}\n",
                        "[".repeat(d),
                        "]".repeat(d)
                    ),
                ],
                &common::pv_config("  injectors:\n  - name: deep\n"),
            ),
        ),
        (
            "a functionConfig",
            common::resource_list(
                &[common::KPTFILE],
                &common::pv_config(&format!(
                    "  packageContext:\n    data:\n      x: {}1{}\n",
                    "[".repeat(d),
                    "]".repeat(d)
                )),
            ),
        ),
    ]
}

/// The nesting limit a refusal names ("deeper than N levels").
fn named_limit(stderr: &str) -> Option<usize> {
    let rest = stderr.split("YAML nesting is deeper than ").nth(1)?;
    rest.split(' ').next()?.parse().ok()
}

/// Flow and block nesting of 250 levels runs as without limits, and of 10,000 is refused at
/// 256 levels, at each stack size, when only a smaller work thread can be had.
#[test]
fn every_stack_size_runs_deep_input_on_a_smaller_thread() {
    for (name, input) in forms(250).into_iter().take(4) {
        let free = common::run(&input);
        assert_eq!(free.code, 0, "{name}: {}", free.stderr);
        for stack in STACKS {
            let out = run_limited(NO_ROOM_FOR_64_MIB, stack, &input);
            assert_eq!(out.code, Some(0), "{name} at {stack} KiB: {}", out.stderr);
            assert_eq!(out.stdout, free.stdout, "{name} at {stack} KiB");
        }
    }
    let deep = [
        ("flow", format!("{HEAD}- {}\n", "[".repeat(10_000))),
        ("block", format!("{HEAD}- {}x\n", "- ".repeat(10_000))),
    ];
    for (name, input) in deep {
        for stack in STACKS {
            let out = run_limited(NO_ROOM_FOR_64_MIB, stack, &input);
            assert_eq!(out.code, Some(1), "{name} at {stack} KiB: {}", out.stderr);
            assert!(
                out.stderr
                    .contains("YAML nesting is deeper than 256 levels; refusing to parse it"),
                "{name} at {stack} KiB: {}",
                out.stderr
            );
        }
    }
}

/// On a thread smaller than the deepest input needs, nesting is bounded by its stack: deeper
/// input (250 and 10,000 levels) is refused naming the limit and the stack, and input at the
/// limit runs to its end in every form (this checks `yaml::node::STACK_BASE` and
/// `STACK_PER_LEVEL`, the figures the limit comes from).
#[test]
fn nesting_is_bounded_by_the_stack_a_smaller_thread_has() {
    for room in [ROOM_FOR_4_MIB, ROOM_FOR_1_MIB] {
        for stack in STACKS {
            let mut limit = None;
            for (name, input) in [
                ("flow", format!("{HEAD}- {}\n", "[".repeat(10_000))),
                ("block", format!("{HEAD}- {}x\n", "- ".repeat(10_000))),
                ("flow 250", forms(250).swap_remove(0).1),
                ("block 250", forms(250).swap_remove(3).1),
            ] {
                let out = run_limited(room, stack, &input);
                assert_eq!(out.signal, None, "{name} ({room}, {stack}): {}", out.stderr);
                assert_eq!(
                    out.code,
                    Some(1),
                    "{name} ({room}, {stack}): {}",
                    out.stderr
                );
                let named = named_limit(&out.stderr);
                if named.is_some_and(|n| n < 256) {
                    assert!(
                        out.stderr.contains("KiB stack this run could have holds"),
                        "{}",
                        out.stderr
                    );
                }
                assert!(named.is_some(), "{name} ({room}, {stack}): {}", out.stderr);
                assert!(limit.is_none() || limit == named, "one limit per run");
                limit = named;
            }
            let limit = limit.unwrap();
            // 250 levels were refused: the stack holds fewer than the item needs.
            assert!(limit < 254, "{limit}");
            for (name, _) in forms(1) {
                // The deepest input of this form the limit accepts: `d` levels below `data.x`.
                let mut accepted = None;
                for d in (limit.saturating_sub(8)..=limit).rev() {
                    let input = forms(d).into_iter().find(|f| f.0 == name).unwrap().1;
                    let out = run_limited(room, stack, &input);
                    assert_eq!(
                        out.signal, None,
                        "{name} at {d} ({room}, {stack}): {}",
                        out.stderr
                    );
                    assert!(matches!(out.code, Some(0 | 1)), "{name}: {}", out.stderr);
                    if named_limit(&out.stderr).is_none() {
                        accepted = Some((d, out));
                        break;
                    }
                }
                let (d, out) = accepted.unwrap_or_else(|| panic!("{name}: nothing accepted"));
                let free = common::run(&forms(d).into_iter().find(|f| f.0 == name).unwrap().1);
                assert_eq!(out.code, Some(free.code), "{name} at {d}: {}", out.stderr);
                assert_eq!(out.stdout, free.stdout, "{name} at {d}");
            }
        }
    }
}

/// With no room for any work thread, the main thread's stack within `ulimit -s` (and the
/// address space left) is too small for a run: refused with a message that says so.
#[test]
fn a_stack_too_small_for_any_run_is_refused_with_a_message() {
    let mut inputs = vec![common::SMALL_PACKAGE.to_string()];
    inputs.extend(forms(250).into_iter().take(4).map(|f| f.1));
    inputs.push(format!("{HEAD}- {}\n", "[".repeat(10_000)));
    inputs.push(format!("{HEAD}- {}x\n", "- ".repeat(10_000)));
    for (stack, input) in STACKS
        .into_iter()
        .flat_map(|s| inputs.iter().map(move |i| (s, i)))
    {
        let out = run_limited(128, stack, input);
        assert_eq!(out.signal, None, "{stack} KiB: {}", out.stderr);
        assert_eq!(out.code, Some(1), "{stack} KiB: {}", out.stderr);
        assert!(
            out.stderr.contains("is too small to run; it needs"),
            "{stack} KiB: {}",
            out.stderr
        );
        assert!(out.stdout.is_empty());
    }
}

/// A CEL expression is parsed on a thread of its own; when that cannot start and the work's
/// stack is smaller than the parser may need (`common::stack::CEL_PARSE_STACK`), the expression is an
/// error result naming the stack, not a parse on too small a stack. On a stack that holds the
/// parser, the longest expression of the deepest recursion (selections, `a.b.c...`, 10,000
/// bytes) runs to its end.
#[test]
fn cel_is_refused_on_a_stack_too_small_for_its_parser() {
    let pvs = |expr: &str| {
        let targets = format!(
            "  targets:\n  - repositorySelector: {{matchLabels: {{env: prod}}}}\n    template:\n      downstream:\n        packageExpr: '{expr}'\n"
        );
        common::resource_list(
            &[
                common::UPSTREAM_PR,
                &common::repository("edge1", "{env: prod}"),
            ],
            &common::pvs_config(&targets),
        )
    };
    let input = pvs("target.name");
    let free = common::run(&input);
    assert_eq!(free.code, 0, "{}", free.stderr);
    let longest = pvs(&format!("target.name{}", ".a".repeat(4_990)));
    for stack in STACKS {
        let out = run_limited(ROOM_FOR_4_MIB, stack, &input);
        assert_eq!(out.signal, None, "{stack} KiB: {}", out.stderr);
        if out.code == Some(0) {
            // The parser's need fits the work's thread (a release build's).
            assert_eq!(out.stdout, free.stdout);
            let debug = cfg!(debug_assertions);
            assert!(!debug, "a debug build's parser needs more than 4 MiB");
        } else {
            assert_eq!(out.code, Some(1), "{}", out.stderr);
            assert!(
                out.stdout
                    .contains("expression cannot be parsed: no thread of its own could start")
                    && out.stdout.contains("KiB the CEL parser may need"),
                "{}",
                out.stdout
            );
        }
        let out = run_limited(NO_ROOM_FOR_64_MIB, stack, &input);
        assert_eq!(out.code, Some(0), "{stack} KiB: {}", out.stderr);
        assert_eq!(out.stdout, free.stdout);
        let out = run_limited(NO_ROOM_FOR_64_MIB, stack, &longest);
        assert_eq!(out.signal, None, "{stack} KiB: {}", out.stderr);
        assert_eq!(out.code, Some(1), "{stack} KiB: {}", out.stderr);
        assert!(out.stdout.contains("packageExpr"), "{}", out.stderr);
    }
}
