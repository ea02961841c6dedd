//! Documentation that stays true: the commands the READMEs give are run as written, and the
//! catalog metadata is checked against the examples.
//!
//! A README's ```sh blocks run with bash (`set -eo pipefail`) from the repository root, with
//! this crate's binary first on `PATH` as `package-variant` (what `cargo install` gives). Paths
//! under `/tmp/` are moved into a scratch directory, so that concurrent test runs do not meet;
//! nothing else in a command is changed. Each block runs twice (a command must work again on
//! its own output), and the checkout must be left as it was.

mod shell;

use package_variant::yaml;
use shell::{bin_dir, checkout_status, root, run_block, sh_blocks, Scratch};
use std::fs;
use std::path::{Path, PathBuf};

/// The image name, without a tag, as the catalog's `metadata.yaml` has it.
const IMAGE: &str = "ghcr.io/package-variant/package-variant";

/// The examples kpt's test runner finds: directories under `examples/` with `.expected/`.
fn example_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join(".expected").is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The `exitCode` of an example's `.expected/config.yaml` (0 when absent).
fn expected_exit_code(example: &Path) -> i32 {
    let text = fs::read_to_string(example.join(".expected/config.yaml")).unwrap_or_default();
    let node = yaml::parse(&text).unwrap();
    node.str_at(&["exitCode"])
        .map_or(0, |c| c.parse().expect("exitCode is a number"))
}

#[test]
fn example_readme_commands_work_on_a_copy() {
    let scratch = Scratch::new("examples");
    let bin = bin_dir(&scratch.0);
    let before = checkout_status("examples");
    let mut failures = Vec::new();
    let mut ran = 0;
    for example in example_dirs() {
        let name = example.file_name().unwrap().to_string_lossy().to_string();
        let readme = fs::read_to_string(example.join("README.md")).unwrap_or_default();
        let blocks = sh_blocks(&readme);
        if blocks.is_empty() {
            failures.push(format!("{name}: README.md shows no ```sh command"));
        }
        let expected = expected_exit_code(&example);
        for block in blocks {
            for run in 1..=2 {
                let (code, log) = run_block(&block, &root(), &scratch.0.join("tmp"), &bin);
                ran += 1;
                if code != expected {
                    failures.push(format!(
                        "{name}: run {run} of\n{block}exited {code}, expected {expected}\n{log}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 20, "only {ran} runs");
    assert_eq!(
        checkout_status("examples"),
        before,
        "the README commands changed the checkout"
    );
}

#[test]
fn sh_blocks_are_found_in_order() {
    let md = "text\n```sh\na\nb\n```\n```yaml\nx: 1\n```\n```sh\nc\n```\n";
    assert_eq!(sh_blocks(md), ["a\nb\n", "c\n"]);
}

#[test]
fn catalog_metadata_is_in_the_catalogs_form() {
    let text = fs::read_to_string(root().join("metadata.yaml")).unwrap();
    assert!(
        !text.contains("example.com"),
        "metadata.yaml names an example.com address"
    );
    let node = yaml::parse(&text).unwrap();
    let meta = yaml::to_json(&node).unwrap();
    let keys: Vec<&str> = meta
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "image",
            "description",
            "tags",
            "sourceURL",
            "examplePackageURLs",
            "license"
        ]
    );
    // The catalog names the image without a tag; releases add their own.
    assert_eq!(meta["image"], IMAGE);
    assert_eq!(meta["license"], env!("CARGO_PKG_LICENSE"));
    for tag in meta["tags"].as_array().unwrap() {
        assert!(
            ["mutator", "validator", "generator"].contains(&tag.as_str().unwrap_or_default()),
            "tag {tag}"
        );
    }
    let prefix = format!("{}/tree/main/", meta["sourceURL"].as_str().unwrap());
    let listed: Vec<String> = meta["examplePackageURLs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let url = u.as_str().unwrap();
            url.strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("{url} is not under {prefix}"))
                .to_string()
        })
        .collect();
    for rel in &listed {
        assert!(
            root().join(rel).join(".expected/config.yaml").is_file(),
            "{rel}: no tested example there"
        );
    }
    for dir in example_dirs() {
        let rel = format!("examples/{}", dir.file_name().unwrap().to_string_lossy());
        assert!(listed.contains(&rel), "{rel} is not in metadata.yaml");
    }
}
