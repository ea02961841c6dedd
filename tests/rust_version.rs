//! The minimum Rust the README and `Cargo.toml`'s `rust-version` state is the true one: the
//! highest `rust-version` among the locked dependencies (dev-dependencies included, since
//! `cargo test` builds them), read from `cargo metadata` offline for this machine's platform.

use std::process::Command;

/// `1.89`, `1.89.0` as (major, minor, patch).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

fn host() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("rustc");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host")
}

#[test]
fn rust_version_is_the_highest_of_the_locked_dependencies() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // Offline: the registry's sources are there once the tests are built; the platform filter
    // leaves out the crates of other platforms, which were never downloaded.
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    assert!(packages.len() > 50, "{} packages", packages.len());
    let (needed, by) = packages
        .iter()
        .filter(|p| p["name"] != env!("CARGO_PKG_NAME"))
        .filter_map(|p| Some((version(p["rust_version"].as_str()?), p["name"].to_string())))
        .max()
        .expect("some dependency states its rust-version");
    let ours = env!("CARGO_PKG_RUST_VERSION");
    assert_eq!(
        version(ours),
        needed,
        "Cargo.toml says rust-version = {ours:?}; the locked {by} needs {needed:?}"
    );
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust ({ours} or newer)")),
        "the README does not say Rust ({ours} or newer)"
    );
}

#[test]
fn versions_compare_as_numbers() {
    assert!(version("1.89.0") > version("1.9"));
    assert_eq!(version("1.89"), version("1.89.0"));
}
