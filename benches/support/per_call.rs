//! `per_call RUNS INPUT CMD...`: runs each CMD RUNS times, interleaved (A B A B ...: load from
//! other processes falls on all of them alike), each with INPUT opened afresh on stdin and
//! stdout discarded, and prints one line per CMD: `median_wall_us cpu_us_per_call`. CPU time
//! (user + system, from getrusage(RUSAGE_CHILDREN)) is the steadier of the two on a shared
//! machine. Every run must exit 0. Linux only (the layout of `struct rusage`).
//!
//! Built by `benches/per_call.sh` with `rustc -O`: std only, no crate.

use std::process::{exit, Command, Stdio};
use std::time::Instant;

/// `struct rusage` on 64-bit Linux: user and system time as timevals, then fourteen longs.
#[repr(C)]
#[derive(Default)]
struct RUsage {
    utime: [i64; 2],
    stime: [i64; 2],
    rest: [i64; 14],
}

const RUSAGE_CHILDREN: i32 = -1;

extern "C" {
    fn getrusage(who: i32, usage: *mut RUsage) -> i32;
}

/// CPU time (user + system) of every waited-for child so far, in microseconds.
fn children_cpu_us() -> i64 {
    let mut u = RUsage::default();
    // SAFETY: `u` is a valid, writable `struct rusage` for this platform.
    if unsafe { getrusage(RUSAGE_CHILDREN, &mut u) } != 0 {
        eprintln!("per_call: getrusage failed");
        exit(1)
    }
    let us = |t: [i64; 2]| t[0] * 1_000_000 + t[1];
    us(u.utime) + us(u.stime)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [runs, input, cmds @ ..] = args.as_slice() else {
        eprintln!("usage: per_call RUNS INPUT CMD...");
        exit(2)
    };
    let runs: usize = runs.parse().expect("RUNS is a number");
    let mut wall = vec![Vec::with_capacity(runs); cmds.len()];
    let mut cpu = vec![0i64; cmds.len()];
    for _ in 0..runs {
        for (i, cmd) in cmds.iter().enumerate() {
            let stdin = std::fs::File::open(input).expect("open INPUT");
            let before = children_cpu_us();
            let start = Instant::now();
            let status = Command::new(cmd)
                .stdin(stdin)
                .stdout(Stdio::null())
                .status()
                .expect("run CMD");
            wall[i].push(start.elapsed().as_micros() as i64);
            cpu[i] += children_cpu_us() - before;
            if !status.success() {
                eprintln!("per_call: {cmd} failed: {status}");
                exit(1)
            }
        }
    }
    for (w, c) in wall.iter_mut().zip(&cpu) {
        w.sort_unstable();
        println!("{} {}", w[w.len() / 2], c / runs as i64);
    }
}
