//! Build script: two facts decided once per build rather than on every run.
//!
//! 1. Release binaries on Linux/glibc are position-independent (the default: address space
//!    randomisation applies to the binary too) with full RELRO (rustc's default), and their
//!    relocations are packed (`-z pack-relative-relocs`, DT_RELR): the loader applies every
//!    relative relocation at every start, and in packed form their table is a fraction of the
//!    size to read. (Most of them were chrono-tz's time-zone tables until `crates/chrono-tz`
//!    replaced them with data that holds no pointers.) The dev profile is left alone (its
//!    objects are shared with every test build). The image's musl builds (static-pie) get the
//!    same.
//! 2. `tests/yaml_test_suite.rs` needs the YAML test suite's data. When it is absent the test
//!    is compiled `#[ignore]`d with the reason (cfg `yaml_test_suite_absent`), so `cargo test`
//!    lists it as not run instead of passing without running anything. The same for
//!    `tests/security.rs`'s strace check when `strace` is not on PATH (cfg `strace_absent`).

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(yaml_test_suite_absent)");
    println!("cargo::rustc-check-cfg=cfg(strace_absent)");

    let var = |k: &str| std::env::var(k).unwrap_or_default();
    // PACKAGE_VARIANT_RELR=0 leaves the relocations unpacked, for comparison. GNU ld (2.38 or
    // later) packs them only against a glibc that reads them (2.36 or later); musl reads them
    // since 1.2.4 (Rust's musl targets ship 1.2.5). `-z` and its keyword as two arguments: both
    // cc (glibc builds) and rust-lld (the image's musl builds) take that form.
    println!("cargo::rerun-if-env-changed=PACKAGE_VARIANT_RELR");
    // PACKAGE_VARIANT_NO_PIE=1 links at a fixed address as before issue 30, for comparison
    // (benches/per_call.sh --no-pie); never for a shipped binary.
    println!("cargo::rerun-if-env-changed=PACKAGE_VARIANT_NO_PIE");
    let release_linux = var("PROFILE") == "release" && var("CARGO_CFG_TARGET_OS") == "linux";
    if release_linux && var("PACKAGE_VARIANT_NO_PIE") == "1" {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    } else if release_linux && var("PACKAGE_VARIANT_RELR") != "0" {
        println!("cargo::rustc-link-arg-bins=-z");
        println!("cargo::rustc-link-arg-bins=pack-relative-relocs");
    }

    println!("cargo::rerun-if-env-changed=YAML_TEST_SUITE");
    let suite = match std::env::var_os("YAML_TEST_SUITE") {
        Some(d) => PathBuf::from(d),
        None => Path::new(&var("CARGO_MANIFEST_DIR")).join("../shared/yaml-test-suite"),
    };
    let data = suite.join("data");
    if data.is_dir() {
        // Watched while present: removing it runs this script again (a missing watched path
        // is always stale), and the test becomes ignored.
        println!("cargo::rerun-if-changed={}", data.display());
    } else {
        // Not watched while absent (a missing path would rerun this script, and rebuild the
        // crate, on every build): set YAML_TEST_SUITE, or touch build.rs, once it is there.
        println!("cargo::rustc-cfg=yaml_test_suite_absent");
    }

    // Installing strace later leaves PATH as it was: touch build.rs then.
    println!("cargo::rerun-if-env-changed=PATH");
    let on_path = |tool: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
    };
    if !on_path("strace") {
        println!("cargo::rustc-cfg=strace_absent");
    }
}
