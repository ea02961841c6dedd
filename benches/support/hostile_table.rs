//! The table both hostile benches print: each workload at 1x, 4x and 16x its base size through
//! the release binary, the median of 3 runs, seconds per MB (flat when a step is linear) and
//! peak RSS from `/usr/bin/time` when present.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 3;
const FACTORS: [usize; 3] = [1, 4, 16];

/// Wall seconds and peak RSS (KB, when `/usr/bin/time` exists) of one run; the exit code.
fn run_once(input: &[u8]) -> (f64, Option<u64>, i32) {
    let bin = env!("CARGO_BIN_EXE_package-variant");
    let timed = std::path::Path::new("/usr/bin/time").exists();
    let mut cmd = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M", bin]);
        c
    } else {
        Command::new(bin)
    };
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start package-variant");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().expect("wait");
    let secs = start.elapsed().as_secs_f64();
    let rss = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok());
    (secs, rss, out.status.code().unwrap_or(-1))
}

/// Prints the table of `workloads` whose name contains one of the command-line words (all
/// without any).
pub fn print<'a>(workloads: impl Iterator<Item = &'a (&'static str, fn(usize) -> String, usize)>) {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    println!(
        "| workload | size | input MB | median s | s per MB | peak RSS MB | RSS / input | exit |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, generate, base) in workloads {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        for f in FACTORS {
            let input = generate(base * f);
            let mb = input.len() as f64 / 1e6;
            let mut times = Vec::new();
            let mut rss = None;
            let mut code = 0;
            for _ in 0..RUNS {
                let (s, r, c) = run_once(input.as_bytes());
                times.push(s);
                rss = rss.max(r);
                code = c;
            }
            times.sort_by(f64::total_cmp);
            let median = times[RUNS / 2];
            let rss_mb = rss.map(|k| k as f64 / 1024.0);
            println!(
                "| {name} | {f}x ({}) | {mb:.1} | {median:.3} | {:.3} | {} | {} | {code} |",
                base * f,
                median / mb,
                rss_mb.map_or("-".to_string(), |r| format!("{r:.0}")),
                rss_mb.map_or("-".to_string(), |r| format!(
                    "{:.1}x",
                    r / (mb * 1e6 / 1048576.0)
                )),
            );
        }
    }
}
