//! The release binary as `cargo build --release` (and `cargo install`) makes it: position-
//! independent, full RELRO, dynamic against glibc with no symbol version newer than std's own
//! and relocations packed only where that glibc applies them (2.36 or later), loaded at another
//! address each run with its RELRO pages read-only, and writing the debug build's bytes on
//! every input of `.ci/inputs` (`.ci/release-binary` checks each; docs/design.md, "Start and
//! allocation"). The first run builds the release binary (a few minutes).

use std::process::Command;

#[test]
fn the_release_binary_is_hardened_and_writes_what_the_debug_build_writes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(format!("{root}/.ci/release-binary"))
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .current_dir(root)
        .output()
        .expect(".ci/release-binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(
        summary.contains("position-independent") && summary.contains("full RELRO"),
        "{summary}"
    );
    if cfg!(target_env = "gnu") {
        assert!(
            summary.contains("dynamic against glibc") && summary.contains("as std does"),
            "{summary}"
        );
    }
}
