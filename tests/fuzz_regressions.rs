//! Replays the inputs under `fuzz/regressions/` (crashes the fuzzers found, and hostile inputs
//! kept as seeds) with the fuzz targets' oracle: no panic, an exit code of 0 or 1, and any
//! output is a ResourceList the function can read again. Files directly in the folder are
//! whole ResourceLists; `package_variant/` and `package_variant_set/` hold inputs of those
//! targets, built into ResourceLists as the targets build them (`fuzz/inputs.rs`).

#[path = "../fuzz/inputs.rs"]
mod inputs;

use package_variant::process_here;
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no regression inputs in {}",
        dir.display()
    );
    files
}

fn check(name: &str, input: Vec<u8>) {
    // A thread with the stack the binary gives its work.
    let out = std::thread::Builder::new()
        .stack_size(package_variant::STACK_SIZE)
        .spawn(move || process_here(&input))
        .unwrap()
        .join()
        .unwrap_or_else(|_| panic!("{name} panicked"));
    assert!(
        out.exit_code == 0 || out.exit_code == 1,
        "{name}: exit {}",
        out.exit_code
    );
    if out.stdout.is_empty() {
        assert!(!out.stderr.is_empty(), "{name}: failed without a message");
        return;
    }
    let again = process_here(out.stdout.as_bytes());
    assert!(
        !again.stderr.contains("not valid YAML") && !again.stderr.contains("not a ResourceList"),
        "{name}: the output is not a ResourceList: {}\n{}",
        again.stderr,
        out.stdout
    );
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions")
}

#[test]
fn resource_lists() {
    for path in files(&root()) {
        check(&path.display().to_string(), std::fs::read(&path).unwrap());
    }
}

#[test]
fn package_variant_inputs() {
    for path in files(&root().join("package_variant")) {
        if let Some(rl) = inputs::package_variant(&std::fs::read(&path).unwrap()) {
            check(&path.display().to_string(), rl.into_bytes());
        }
    }
}

#[test]
fn package_variant_set_inputs() {
    for path in files(&root().join("package_variant_set")) {
        if let Some(rl) = inputs::package_variant_set(&std::fs::read(&path).unwrap()) {
            check(&path.display().to_string(), rl.into_bytes());
        }
    }
}
