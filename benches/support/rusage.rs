//! `rusage OUT CMD [ARGS...]`: runs CMD (stdin, stdout and stderr inherited), then writes to OUT
//! what it cost: `user_us system_us max_rss_kb`, from getrusage(RUSAGE_CHILDREN). GNU time
//! prints CPU time in hundredths of a second, too coarse to compare two runs of 70 ms within
//! 5%; the kernel counts in microseconds. Linux only (the layout of `struct rusage`). Exits
//! with the command's exit code.
//!
//! Built by `benches/run.sh` with `rustc -O`: std only, no crate.

use std::process::{exit, Command};

/// `struct timeval` on 64-bit Linux.
#[repr(C)]
#[derive(Default)]
struct TimeVal {
    sec: i64,
    usec: i64,
}

/// `struct rusage` on 64-bit Linux: two timevals, then fourteen longs (maxrss first, in KB).
#[repr(C)]
#[derive(Default)]
struct RUsage {
    utime: TimeVal,
    stime: TimeVal,
    rest: [i64; 14],
}

const RUSAGE_CHILDREN: i32 = -1;

extern "C" {
    fn getrusage(who: i32, usage: *mut RUsage) -> i32;
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, cmd, rest @ ..] = args.as_slice() else {
        eprintln!("usage: rusage OUT CMD [ARGS...]");
        exit(2)
    };
    let status = match Command::new(cmd).args(rest).status() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rusage: cannot run {cmd}: {e}");
            exit(127)
        }
    };
    let mut usage = RUsage::default();
    // SAFETY: `usage` is a valid, writable `struct rusage` for this platform.
    if unsafe { getrusage(RUSAGE_CHILDREN, &mut usage) } != 0 {
        eprintln!("rusage: getrusage failed");
        exit(1)
    }
    let us = |t: &TimeVal| t.sec * 1_000_000 + t.usec;
    let line = format!(
        "{} {} {}\n",
        us(&usage.utime),
        us(&usage.stime),
        usage.rest[0]
    );
    if let Err(e) = std::fs::write(out, line) {
        eprintln!("rusage: cannot write {out}: {e}");
        exit(1)
    }
    exit(status.code().unwrap_or(1))
}
