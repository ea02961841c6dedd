//! Hostile input at 1x, 4x and 16x: seconds per MB and peak memory of the release
//! binary on the shapes that were quadratic or took many times the input in memory. Linear
//! time shows as a flat seconds-per-MB column; the memory bound is 8 x input + 64 MiB.
//!
//! ```text
//! cargo bench --bench hostile             # every shape at 1x, 4x, 16x (16x is up to 256 MiB)
//! cargo bench --bench hostile -- --quick  # 1x only, small: a smoke test
//! ```
//!
//! Needs `/usr/bin/time` (Debian `time`) for the peak memory. `PV_BIN=FILE` measures another
//! binary. Inputs are written to a temporary directory and removed.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n";
const KPTFILE: &str = "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: pkg\n    annotations:\n      config.kubernetes.io/path: Kptfile\n";
const CONTEXT: &str = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: kptfile.kpt.dev\n    annotations:\n      config.kubernetes.io/path: package-context.yaml\n  data:\n    name: pkg\n";
const PV: &str = "functionConfig:\n  apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: PackageVariant\n  metadata:\n    name: pv\n  spec:\n    upstream: {repo: r, package: p, revision: 1}\n    downstream: {repo: d, package: p}\n    packageContext:\n      data: {zone: a}\n";

/// A hostile shape: its name, and how to write about `bytes` of it.
struct Shape {
    name: &'static str,
    write: fn(&mut dyn Write, usize) -> std::io::Result<()>,
}

fn minified_json(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    write!(
        w,
        "{{\"apiVersion\":\"config.kubernetes.io/v1\",\"kind\":\"ResourceList\",\"items\":[{{\"apiVersion\":\"kpt.dev/v1\",\"kind\":\"Kptfile\",\"metadata\":{{\"name\":\"pkg\",\"annotations\":{{\"config.kubernetes.io/path\":\"Kptfile\"}}}}}},{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"kptfile.kpt.dev\",\"annotations\":{{\"config.kubernetes.io/path\":\"package-context.yaml\"}}}},\"data\":{{\"name\":\"pkg\"}}}}"
    )?;
    let mut n = 0;
    let mut i = 0;
    while n < bytes {
        let item = format!(",{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"cm-{i}\"}},\"data\":{{\"k\":\"v{i}\"}}}}");
        n += item.len();
        w.write_all(item.as_bytes())?;
        i += 1;
    }
    write!(w, "],\"functionConfig\":{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"x\"}},\"data\":{{\"zone\":\"a\"}}}}}}")
}

fn flow_items(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    write!(w, "{HEAD}items: [{{apiVersion: kpt.dev/v1, kind: Kptfile, metadata: {{name: pkg, annotations: {{config.kubernetes.io/path: Kptfile}}}}}}, {{apiVersion: v1, kind: ConfigMap, metadata: {{name: kptfile.kpt.dev, annotations: {{config.kubernetes.io/path: package-context.yaml}}}}, data: {{name: pkg}}}}")?;
    let mut n = 0;
    let mut i = 0;
    while n < bytes {
        let item = format!(
            ", {{apiVersion: v1, kind: ConfigMap, metadata: {{name: cm-{i}}}, data: {{k: v{i}}}}}"
        );
        n += item.len();
        w.write_all(item.as_bytes())?;
        i += 1;
    }
    write!(w, "]\n{PV}")
}

fn empty_items(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    write!(w, "{HEAD}items:\n{KPTFILE}{CONTEXT}")?;
    let chunk = "- {}\n".repeat(1 << 16);
    for _ in 0..bytes / chunk.len() {
        w.write_all(chunk.as_bytes())?;
    }
    w.write_all(PV.as_bytes())
}

fn list(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    let chunk = "    - x\n".repeat(1 << 14);
    for _ in 0..bytes / chunk.len() {
        w.write_all(chunk.as_bytes())?;
    }
    Ok(())
}

fn config_list(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    write!(w, "{HEAD}items:\n{KPTFILE}{CONTEXT}{PV}    list:\n")?;
    list(w, bytes)
}

fn item_list(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    write!(
        w,
        "{HEAD}items:\n{KPTFILE}{CONTEXT}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: big\n  data:\n    list:\n"
    )?;
    list(w, bytes)?;
    w.write_all(PV.as_bytes())
}

/// An item with a list as long as one object may be (see `value_limit`), the rest of the input
/// a long block scalar in another item: the most one object can make the binary hold.
fn list_at_the_limit(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    let values = package_variant::krm::resource_list::value_limit(bytes) - 64;
    let list = values * "    - x\n".len();
    write!(
        w,
        "{HEAD}items:\n{KPTFILE}{CONTEXT}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: text\n  data:\n    text: |\n"
    )?;
    let line = format!("      {}\n", "x".repeat(120));
    for _ in 0..bytes.saturating_sub(list) / line.len() {
        w.write_all(line.as_bytes())?;
    }
    writeln!(
        w,
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: big\n  data:\n    list:"
    )?;
    w.write_all("    - x\n".repeat(values).as_bytes())?;
    w.write_all(PV.as_bytes())
}

/// One package with as many revisions as fit (v1alpha1 and v1alpha2 alternating) and the
/// set's 1,000 upstreams of it, half at a revision, half at a tag: each upstream used to scan
/// every revision (1,000 x 20,000: 21 s), now one lookup in an index built once.
fn upstreams_of_one_package(w: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    write!(
        w,
        "{HEAD}items:\n- apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: Repository\n  metadata: {{name: edge1}}\n  spec: {{type: git}}\n"
    )?;
    let (mut n, mut r) = (0, 0);
    while n < bytes {
        r += 1;
        let item = if r % 2 == 0 {
            format!("- {{apiVersion: porch.kpt.dev/v1alpha2, kind: PackageRevision, metadata: {{name: bp.p.v{r}}}, spec: {{repository: bp, packageName: p, lifecycle: Published}}, status: {{revision: {r}}}}}\n")
        } else {
            format!("- {{apiVersion: porch.kpt.dev/v1alpha1, kind: PackageRevision, metadata: {{name: bp.p.v{r}, labels: {{package-variant.fn.kpt.dev/tag-t{}: \"true\"}}}}, spec: {{repository: bp, packageName: p, revision: {r}, lifecycle: Published}}}}\n", r % 500)
        };
        n += item.len();
        w.write_all(item.as_bytes())?;
    }
    write!(w, "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: PackageVariantSet\n  metadata: {{name: s}}\n  spec:\n    upstreams:\n")?;
    for u in 0..1_000 {
        if u % 2 == 0 {
            writeln!(w, "    - {{repo: bp, package: p, revision: {}}}", r - u)?;
        } else {
            writeln!(w, "    - {{repo: bp, package: p, tag: latest}}")?;
        }
    }
    write!(w, "    targets:\n    - repositories: [{{name: edge1}}]\n")
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "minified JSON, one line",
        write: minified_json,
    },
    Shape {
        name: "flow items, one line",
        write: flow_items,
    },
    Shape {
        name: "empty items (- {})",
        write: empty_items,
    },
    Shape {
        name: "long list in functionConfig",
        write: config_list,
    },
    Shape {
        name: "long list in an item",
        write: item_list,
    },
    Shape {
        name: "list at the value limit",
        write: list_at_the_limit,
    },
    Shape {
        name: "1,000 upstreams of one package",
        write: upstreams_of_one_package,
    },
];

struct Measured {
    seconds: f64,
    peak_kb: u64,
    code: i32,
    stderr: String,
}

fn run(bin: &Path, input: &Path) -> Measured {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(bin)
        .stdin(fs::File::open(input).expect("open input"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run /usr/bin/time (apt-get install time)");
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let peak_kb = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    Measured {
        seconds,
        peak_kb,
        code: out.status.code().unwrap_or(-1),
        stderr: stderr.lines().next().unwrap_or("").to_string(),
    }
}

fn main() {
    // `cargo bench` appends `--bench`.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    if args.iter().any(|a| a == "--help") {
        eprintln!("usage: cargo bench --bench hostile [-- --quick]");
        return;
    }
    let bin = std::env::var_os("PV_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_package-variant")));
    let dir = std::env::temp_dir().join(format!("pv-hostile-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    // 1x is 15 MiB so that 16x stays under the 256 MiB input limit.
    let base = if quick { 1 << 20 } else { 15 << 20 };
    let scales: &[usize] = if quick { &[1] } else { &[1, 4, 16] };
    println!("binary: {}", bin.display());
    println!(
        "| {:<28} | {:>5} | {:>9} | {:>9} | {:>8} | {:>12} | {:>9} | {:<7} | {:<40} |",
        "shape",
        "scale",
        "input MB",
        "seconds",
        "s per MB",
        "peak RSS MB",
        "RSS/input",
        "bound",
        "outcome"
    );
    println!(
        "|{:-<30}|{:-<7}|{:-<11}|{:-<11}|{:-<10}|{:-<14}|{:-<11}|{:-<9}|{:-<42}|",
        "", "", "", "", "", "", "", "", ""
    );
    for shape in SHAPES {
        for &scale in scales {
            let path = dir.join("input.yaml");
            {
                let mut f = std::io::BufWriter::new(fs::File::create(&path).expect("create input"));
                (shape.write)(&mut f, base * scale).expect("write input");
                f.flush().expect("flush input");
            }
            let bytes = fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64;
            let mb = bytes / f64::from(1 << 20);
            let m = run(&bin, &path);
            let peak_mb = m.peak_kb as f64 / 1024.0;
            let bound = 8.0 * mb + 64.0;
            let outcome = if m.code == 0 {
                "exit 0".to_string()
            } else if m.stderr.starts_with("Command exited") {
                format!("exit {}: an error result", m.code)
            } else {
                let message = m.stderr.trim_start_matches("package-variant: ");
                format!(
                    "exit {}: {}",
                    m.code,
                    message.chars().take(40).collect::<String>()
                )
            };
            println!(
                "| {:<28} | {:>4}x | {:>9.1} | {:>9.2} | {:>8.3} | {:>12.1} | {:>8.2}x | {:<7} | {:<40} |",
                shape.name,
                scale,
                mb,
                m.seconds,
                m.seconds / mb,
                peak_mb,
                peak_mb / mb,
                if peak_mb <= bound { "met" } else { "NOT MET" },
                outcome
            );
            let _ = fs::remove_file(&path);
        }
    }
    let _ = fs::remove_dir_all(&dir);
}
