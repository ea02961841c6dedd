//! Guards for what Cargo.toml's `[patch.crates-io]` puts in place of a crates.io crate.
//!
//! When a patch stops matching (say `cel` moves to a chrono-tz our stand-in's version does
//! not satisfy), cargo only warns "patch ... was not used", takes the crate from crates.io and
//! records the patch under `[[patch.unused]]` in Cargo.lock: the build succeeds with the
//! other crate. These tests read Cargo.toml and Cargo.lock (CI builds `--locked`, so the lock
//! is the resolution that is built) and fail instead.

use std::fs;

/// The names under Cargo.toml's `[patch.crates-io]`.
fn patched(cargo_toml: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in cargo_toml.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[patch.crates-io]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                names.push(name.trim().trim_matches('"').to_string());
            }
        }
    }
    names
}

/// What is wrong with `name`'s patch in `cargo_lock`: each `[[package]]` of that name must
/// come from the path the patch names (a path dependency has no `source` line), and no
/// `[[patch.unused]]` may name it.
fn patch_problems(name: &str, cargo_lock: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut found = 0;
    for block in cargo_lock.split("\n[[").skip(1) {
        let (header, body) = block.split_once('\n').unwrap_or((block, ""));
        let field = |key: &str| {
            body.lines()
                .take_while(|l| !l.is_empty())
                .find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix('='))
                .map(|v| v.trim().trim_matches('"').to_string())
        };
        if field("name").as_deref() != Some(name) {
            continue;
        }
        match header.trim_end_matches(']') {
            "package" => {
                found += 1;
                if let Some(source) = field("source") {
                    let version = field("version").unwrap_or_default();
                    problems.push(format!(
                        "{name} {version} comes from {source}, not from the path \
                         [patch.crates-io] names: the patch no longer applies"
                    ));
                }
            }
            "patch.unused" => problems.push(format!(
                "Cargo.lock lists {name} under [[patch.unused]]: cargo resolved it from \
                 crates.io and ignores the patch"
            )),
            _ => {}
        }
    }
    if found == 0 {
        problems.push(format!(
            "no {name} in Cargo.lock: nothing depends on the patched crate any more (drop \
             the [patch.crates-io] entry, or find what replaced it)"
        ));
    }
    problems
}

#[test]
fn every_patch_in_cargo_toml_applies_in_cargo_lock() {
    let root = env!("CARGO_MANIFEST_DIR");
    let toml = fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    let lock = fs::read_to_string(format!("{root}/Cargo.lock")).unwrap();
    let names = patched(&toml);
    assert!(
        names.contains(&"chrono-tz".to_string()),
        "Cargo.toml's [patch.crates-io] no longer names chrono-tz: {names:?}"
    );
    let problems: Vec<String> = names
        .iter()
        .flat_map(|n| patch_problems(n, &lock))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_patch_that_stopped_applying_is_found() {
    let toml = "[package]\nname = \"x\"\n\n[patch.crates-io]\n# why\nchrono-tz = { path = \"crates/chrono-tz\" }\n\n[dev-dependencies]\ny = \"1\"\n";
    assert_eq!(patched(toml), ["chrono-tz"]);

    let applied = "version = 4\n\n[[package]]\nname = \"chrono-tz\"\nversion = \"0.10.4\"\ndependencies = [\n \"chrono\",\n]\n";
    assert!(patch_problems("chrono-tz", applied).is_empty());

    // What cargo writes when the requirement moves past the patch's version.
    let unused = "version = 4\n\n[[package]]\nname = \"chrono-tz\"\nversion = \"0.11.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"00\"\n\n[[patch.unused]]\nname = \"chrono-tz\"\nversion = \"0.10.4\"\n";
    let problems = patch_problems("chrono-tz", unused);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("chrono-tz 0.11.0 comes from registry+"));
    assert!(problems[1].contains("[[patch.unused]]"));

    assert!(patch_problems("chrono-tz", "version = 4\n")[0].contains("no chrono-tz"));
}
