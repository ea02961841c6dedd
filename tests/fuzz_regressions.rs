//! Replays every input under `fuzz/regressions/` (crashes the fuzzers found, and hostile
//! inputs kept as seeds) through the library with the fuzz targets' oracle: no panic, an exit
//! code of 0 or 1, and any output is a ResourceList the function can read again.

use package_variant::process_here;
use std::path::Path;

#[test]
fn fuzz_regressions_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/regressions exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no regression inputs in {}",
        dir.display()
    );
    for path in files {
        let input = std::fs::read(&path).unwrap();
        // A thread with the stack the binary gives its work.
        let out = std::thread::Builder::new()
            .stack_size(package_variant::STACK_SIZE)
            .spawn(move || process_here(&input))
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("{} panicked", path.display()));
        assert!(
            out.exit_code == 0 || out.exit_code == 1,
            "{}: exit {}",
            path.display(),
            out.exit_code
        );
        if out.stdout.is_empty() {
            assert!(
                !out.stderr.is_empty(),
                "{}: failed without a message",
                path.display()
            );
            continue;
        }
        let again = process_here(out.stdout.as_bytes());
        assert!(
            !again.stderr.contains("not valid YAML")
                && !again.stderr.contains("not a ResourceList"),
            "{}: the output is not a ResourceList: {}\n{}",
            path.display(),
            again.stderr,
            out.stdout
        );
    }
}
