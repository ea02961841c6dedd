//! Build script: two facts decided once per build rather than on every run.
//!
//! 1. Release binaries on Linux pack their relative relocations (`-z pack-relative-relocs`,
//!    DT_RELR: the loader's table of them is a fraction of the size) only where the target's C
//!    library applies them: musl (since 1.2.4; Rust's musl targets ship 1.2.5, the image's
//!    builds) and glibc 2.36 or later. Against an older glibc a packed binary would not start
//!    (it needs `GLIBC_ABI_DT_RELR`), so for glibc the version is read from the C compiler
//!    that links (its `features.h`); a cross build, or a compiler that cannot say, gets no
//!    packing. Everything else is rustc's default: position-independent, full RELRO, dynamic
//!    against glibc (docs/design.md, "Start and allocation"). The dev profile is left alone.
//! 2. `tests/yaml_test_suite.rs` needs the YAML test suite's data. When it is absent the test
//!    is compiled `#[ignore]`d with the reason (cfg `yaml_test_suite_absent`), so `cargo test`
//!    lists it as not run instead of passing without running anything.
//!
//! The script reruns only when what it reads changes: itself, the glibc header it read the
//! version from, the linker cargo names, and the test suite's location.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The first glibc that applies packed relative relocations (DT_RELR).
const GLIBC_WITH_RELR: (u32, u32) = (2, 36);

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(yaml_test_suite_absent)");

    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let release_linux = var("PROFILE") == "release" && var("CARGO_CFG_TARGET_OS") == "linux";
    if release_linux && packs_relocations(&var("CARGO_CFG_TARGET_ENV"), &var) {
        // `-z` and its keyword as two arguments: both cc (glibc builds) and rust-lld (the
        // image's musl builds) take that form.
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
}

/// Whether the C library of a target with `target_env` applies packed relocations.
fn packs_relocations(target_env: &str, var: &dyn Fn(&str) -> String) -> bool {
    match target_env {
        "musl" => true,
        // Only where the compiler that links is the one that builds for this machine.
        "gnu" if var("TARGET") == var("HOST") => {
            println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
            let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
            match glibc_version(&linker) {
                Ok(version) => version >= GLIBC_WITH_RELR,
                Err(why) => {
                    println!(
                        "cargo::warning=relocations left unpacked: the glibc version is unknown ({why})"
                    );
                    false
                }
            }
        }
        _ => false,
    }
}

/// The version of the glibc `linker` (a C compiler driver) builds against: the preprocessor
/// expands `__GLIBC__` and `__GLIBC_MINOR__` from its `features.h`, which is then watched (a
/// glibc upgrade changes it).
fn glibc_version(linker: &str) -> Result<(u32, u32), String> {
    use std::io::Write;
    let mut child = Command::new(linker)
        .args(["-E", "-P", "-H", "-x", "c", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("`{linker} -E` did not run: {e}"))?;
    let probe = b"#include <features.h>\npackage_variant_glibc __GLIBC__ __GLIBC_MINOR__\n";
    let written = child.stdin.take().map(|mut s| s.write_all(probe));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`{linker} -E`: {e}"))?;
    if !out.status.success() || !matches!(written, Some(Ok(()))) {
        return Err(format!("`{linker} -E` found no features.h"));
    }
    // `-H` lists each header read on stderr, one dot per level: ". /usr/include/features.h".
    let headers = String::from_utf8_lossy(&out.stderr);
    if let Some(features) = headers
        .lines()
        .find_map(|l| l.strip_prefix(". "))
        .filter(|p| p.ends_with("features.h"))
    {
        println!("cargo::rerun-if-changed={features}");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("package_variant_glibc"))
        .ok_or("no probe line in the preprocessor's output")?
        .split_whitespace()
        .map(str::parse::<u32>);
    match (words.next(), words.next()) {
        (Some(Ok(major)), Some(Ok(minor))) => Ok((major, minor)),
        _ => Err("not glibc (__GLIBC__ is not defined)".to_string()),
    }
}
