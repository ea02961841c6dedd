//! Build script: three facts decided once per build rather than on every run.
//!
//! 1. Release binaries on Linux/glibc are position-independent (the default: address space
//!    randomisation applies to the binary too) with full RELRO (rustc's default), and their
//!    relocations are packed (`-z pack-relative-relocs`, DT_RELR): the loader applies every
//!    relative relocation at every start, and in packed form their table is a fraction of the
//!    size to read. (Most of them were chrono-tz's time-zone tables until `crates/chrono-tz`
//!    replaced them with data that holds no pointers.) The dev profile is left alone (its
//!    objects are shared with every test build). The image's musl builds (static-pie) get the
//!    same.
//! 2. The release binary on x86_64 Linux/glibc, with `lean-start`, is linked statically
//!    (static-pie): a call then maps no shared library and runs no dynamic loader, which was
//!    a fifth of a small call's CPU (docs/runners.md, "The per-call floor"). rustc links
//!    statically only with `-C target-feature=+crt-static`, a flag cargo would also give the
//!    proc macros, which cannot be static; so [`static_libraries`] gives the linker the static
//!    archives under the names rustc's dynamic link line asks for, and `-static-pie` makes the
//!    link static. Where an archive is missing the build stays dynamic, with a warning.
//! 3. `tests/yaml_test_suite.rs` needs the YAML test suite's data. When it is absent the test
//!    is compiled `#[ignore]`d with the reason (cfg `yaml_test_suite_absent`), so `cargo test`
//!    lists it as not run instead of passing without running anything. The same for
//!    `tests/security.rs`'s strace check when `strace` is not on PATH (cfg `strace_absent`), and
//!    `tests/re2_differential.rs` when `go` is not (cfg `go_absent`).

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(yaml_test_suite_absent)");
    println!("cargo::rustc-check-cfg=cfg(strace_absent)");
    println!("cargo::rustc-check-cfg=cfg(go_absent)");

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

    // PACKAGE_VARIANT_STATIC=0 links the release binary dynamically, for comparison
    // (benches/per_call.sh --dynamic). Only x86_64 glibc, where CI checks the result
    // (`.ci/release-binary`); a build already given crt-static needs nothing.
    println!("cargo::rerun-if-env-changed=PACKAGE_VARIANT_STATIC");
    let static_wanted = release_linux
        && var("PACKAGE_VARIANT_NO_PIE") != "1"
        && var("PACKAGE_VARIANT_STATIC") != "0"
        && var("CARGO_FEATURE_LEAN_START") == "1"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && !var("CARGO_CFG_TARGET_FEATURE")
            .split(',')
            .any(|f| f == "crt-static");
    if static_wanted {
        let dir = Path::new(&var("OUT_DIR")).join("static-libraries");
        match static_libraries(&dir) {
            Ok(()) => {
                // For the binary only (not `rustc-link-search`, which every test and bench
                // of a release-profile build would link with too, dynamically).
                println!("cargo::rustc-link-arg-bins=-L{}", dir.display());
                println!("cargo::rustc-link-arg-bins=-static-pie");
            }
            Err(why) => println!(
                "cargo::warning=the release binary is linked dynamically: {why} (install \
                 glibc's static libraries, e.g. `apt-get install libc6-dev`)"
            ),
        }
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
    // tests/re2_differential.rs runs Go's `regexp`: ignored without `go`, except in CI
    // (`CI=true`), where it runs and fails.
    println!("cargo::rerun-if-env-changed=CI");
    if !on_path("go") && var("CI") != "true" {
        println!("cargo::rustc-cfg=go_absent");
    }
}

/// Fills `dir` with the static archives a static glibc link needs, under the names rustc's
/// dynamic link line gives them (`-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc`, after
/// `-Bdynamic`): the linker looks in `dir` first and takes the `.a` found there before any
/// `.so` in a later directory. Each is a linker script naming the system's archive;
/// `libgcc_s.a` names what a static link takes instead of the shared libgcc (`libgcc_eh.a`,
/// `libgcc.a`, then `libc.a` again, as rustc's own static link line does).
fn static_libraries(dir: &Path) -> Result<(), String> {
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let find = |file: &str| -> Result<PathBuf, String> {
        let out = std::process::Command::new(&linker)
            .arg(format!("-print-file-name={file}"))
            .output()
            .map_err(|e| format!("`{linker} -print-file-name={file}` did not run: {e}"))?;
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        // The bare name back means not found.
        if path.is_absolute() && path.is_file() {
            Ok(path)
        } else {
            Err(format!("{linker} finds no {file}"))
        }
    };
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Each a linker script naming the archive (no symlinks: the host may not have them).
    let write = |name: &str, files: &[&str]| -> Result<(), String> {
        let paths: Vec<String> = files
            .iter()
            .map(|f| find(f).map(|p| format!("\"{}\"", p.display())))
            .collect::<Result<_, _>>()?;
        let script = format!("GROUP ( {} )\n", paths.join(" "));
        std::fs::write(dir.join(name), script)
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    for lib in [
        "libc.a",
        "libm.a",
        "librt.a",
        "libpthread.a",
        "libdl.a",
        "libutil.a",
    ] {
        write(lib, &[lib])?;
    }
    write("libgcc_s.a", &["libgcc_eh.a", "libgcc.a", "libc.a"])
}
