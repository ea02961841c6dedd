//! Documentation that stays true: the commands the READMEs give are run as written, and the
//! catalog metadata is checked against the examples.
//!
//! A README's ```sh blocks run with bash (`set -eo pipefail`) from the repository root, with
//! this crate's binary first on `PATH` as `package-variant` (what `cargo install` gives). Paths
//! under `/tmp/` are moved into a scratch directory, so that concurrent test runs do not meet;
//! nothing else in a command is changed. Each block runs twice (a command must work again on
//! its own output), and the checkout must be left as it was.

use package_variant::yaml;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The image name, without a tag, as the catalog's `metadata.yaml` has it.
const IMAGE: &str = "ghcr.io/package-variant/package-variant";

/// A scratch directory under the system temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "package-variant-docs-{}-{}-{}",
            name,
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The ```sh blocks of a Markdown text, in order.
fn sh_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// A directory holding `package-variant` (this crate's binary), to put first on PATH.
fn bin_dir(scratch: &Path) -> PathBuf {
    let dir = scratch.join("bin");
    fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_package-variant"),
        dir.join("package-variant"),
    )
    .unwrap();
    dir
}

fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

/// Runs a block from the repository root; returns (exit code, output).
fn run_block(block: &str, scratch: &Path, bin: &Path) -> (i32, String) {
    let tmp = scratch.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let script = block.replace("/tmp/", &format!("{}/", tmp.display()));
    let out = Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", &script])
        .current_dir(root())
        .env("PATH", path_with(bin))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// `git status` of the checkout's examples (untracked files too).
fn examples_status() -> String {
    let out = Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--",
            "examples",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

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
    let before = examples_status();
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
                let (code, log) = run_block(&block, &scratch.0, &bin);
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
        examples_status(),
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
