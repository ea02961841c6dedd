//! Running documented shell commands from the tests: scratch directories, this crate's binary
//! on `PATH` as `package-variant` (what `cargo install` gives), and the ```sh blocks of a
//! Markdown file.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory under the system temp dir, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "package-variant-{}-{}-{}",
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

/// Copies the directory `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A directory under `scratch` holding `package-variant` (this crate's binary).
pub fn bin_dir(scratch: &Path) -> PathBuf {
    let dir = scratch.join("bin");
    fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_package-variant"),
        dir.join("package-variant"),
    )
    .unwrap();
    dir
}

/// `PATH` with `dir` first.
pub fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

/// The ```sh blocks of a Markdown text, in order.
pub fn sh_blocks(markdown: &str) -> Vec<String> {
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

/// Runs a documented block with bash (`-e -o pipefail`) in `cwd`, the binary first on `PATH`,
/// a git identity set, and `/tmp/` moved to `tmp` (so that concurrent runs do not meet).
/// Returns the exit code and the output.
pub fn run_block(block: &str, cwd: &Path, tmp: &Path, bin: &Path) -> (i32, String) {
    fs::create_dir_all(tmp).unwrap();
    let script = block.replace("/tmp/", &format!("{}/", tmp.display()));
    let out = Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", &script])
        .current_dir(cwd)
        .env("PATH", path_with(bin))
        .env("GIT_AUTHOR_NAME", "docs")
        .env("GIT_AUTHOR_EMAIL", "docs@localhost")
        .env("GIT_COMMITTER_NAME", "docs")
        .env("GIT_COMMITTER_EMAIL", "docs@localhost")
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

/// `git status` of a part of the checkout (untracked files too).
pub fn checkout_status(part: &str) -> String {
    let out = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all", "--", part])
        .current_dir(root())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `script` with bash (`-e -o pipefail`) in `dir`, the binary first on `PATH`; returns the
/// exit code and stdout + stderr.
pub fn sh(dir: &Path, bin: &Path, script: &str) -> (i32, String) {
    let out = Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path_with(bin))
        .output()
        .expect("bash");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Runs git with a fixed identity in `dir`; panics on failure, returns stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.email=e2e@example.com", "-c", "user.name=e2e"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
