//! The image recipe, checked without a Docker daemon.
//!
//! `docker build` cannot run here or in CI (no daemon), so this test does what the build stage
//! does, as far as a host can: it reads the `Dockerfile`, copies exactly the files the build
//! stage's COPY lines name (the files a clean checkout has, less what `.dockerignore` keeps
//! out of the context) into an empty directory, and runs the stage's RUN lines there with its
//! ENV. What only a container can do is replaced, and only that: `apk` and `rustup` (the host
//! has its toolchain), the musl target (the host's own target instead, offline: the
//! dependencies are in ~/.cargo already), and the absolute paths `/rust-target` and
//! `/package-variant` (moved into the scratch directory). The built binary must be static and
//! work. To keep the suite fast the release profile's LTO is off (an environment setting; the
//! command is unchanged). The same build is the "static binary without Docker" command of
//! `docs/design.md`.
//!
//! The platform mapping (`TARGETARCH` to a Rust target) is run as written for amd64, arm64, an
//! unsupported architecture and the classic builder's empty value. The final stage is checked
//! by reading it: numeric non-root USER, exec-form ENTRYPOINT, the binary copied from the build
//! stage.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One Dockerfile instruction: its keyword (upper case) and the rest of the line.
#[derive(Debug, Clone)]
struct Instr {
    keyword: String,
    args: String,
}

/// One stage: `FROM ... [AS name]` and its instructions.
#[derive(Debug)]
struct Stage {
    from: String,
    name: Option<String>,
    instrs: Vec<Instr>,
}

impl Stage {
    fn all(&self, keyword: &str) -> Vec<&str> {
        self.instrs
            .iter()
            .filter(|i| i.keyword == keyword)
            .map(|i| i.args.as_str())
            .collect()
    }
}

/// The stages of a Dockerfile: comment lines dropped (also inside a continued instruction, as
/// Docker does), continuation lines joined.
fn parse_dockerfile(text: &str) -> Vec<Stage> {
    let mut logical = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            // Docker joins the lines as they are, without the backslash and the line break.
            current.push_str(head);
        } else {
            current.push_str(line);
            if !current.trim().is_empty() {
                logical.push(std::mem::take(&mut current));
            }
            current.clear();
        }
    }
    let mut stages: Vec<Stage> = Vec::new();
    for line in logical {
        let line = line.trim();
        let (keyword, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let instr = Instr {
            keyword: keyword.to_ascii_uppercase(),
            args: args.trim().to_string(),
        };
        if instr.keyword == "FROM" {
            let words: Vec<&str> = instr.args.split_whitespace().collect();
            let name = match words.as_slice() {
                [.., as_, name] if as_.eq_ignore_ascii_case("as") => Some(name.to_string()),
                _ => None,
            };
            stages.push(Stage {
                from: instr.args.clone(),
                name,
                instrs: Vec::new(),
            });
        } else {
            stages
                .last_mut()
                .expect("an instruction before the first FROM")
                .instrs
                .push(instr);
        }
    }
    stages
}

/// The `KEY=value` pairs of an ENV instruction (double quotes removed).
fn env_pairs(args: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut rest = args.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=').expect("ENV KEY=value");
        let (value, after) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').expect("closing quote");
                (&quoted[..end], &quoted[end + 1..])
            }
            None => after.split_once(char::is_whitespace).unwrap_or((after, "")),
        };
        pairs.push((key.trim().to_string(), value.to_string()));
        rest = after.trim_start();
    }
    pairs
}

/// Whether `.dockerignore` keeps `path` (slash-separated, relative to the context) out of the
/// build context: Docker's rules for the patterns we use (`*` and `?` within one path
/// segment, a pattern also matching everything below a matched directory, `!` re-including,
/// the last matching pattern deciding).
fn docker_ignored(patterns: &str, path: &str) -> bool {
    let mut ignored = false;
    for pattern in patterns.lines().map(str::trim) {
        if pattern.is_empty() || pattern.starts_with('#') {
            continue;
        }
        let (include, pattern) = match pattern.strip_prefix('!') {
            Some(p) => (true, p.trim()),
            None => (false, pattern),
        };
        let pattern = pattern.trim_matches('/');
        let segments: Vec<&str> = path.split('/').collect();
        let matches = (1..=segments.len()).any(|n| glob(pattern, &segments[..n].join("/")));
        if matches {
            ignored = !include;
        }
    }
    ignored
}

/// `*` (any run of characters but `/`) and `?` (one character but `/`).
fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match (p.first(), t.first()) {
            (None, None) => true,
            (Some(b'*'), _) => {
                go(&p[1..], t) || (t.first().is_some_and(|&c| c != b'/') && go(p, &t[1..]))
            }
            (Some(b'?'), Some(&c)) => c != b'/' && go(&p[1..], &t[1..]),
            (Some(a), Some(b)) => a == b && go(&p[1..], &t[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

/// The files a clean checkout has: those git tracks, as they are in the work tree.
fn tracked_files() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("run git ls-files");
    assert!(out.status.success(), "git ls-files failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .filter(|f| !f.is_empty() && root().join(f).is_file())
        .map(str::to_string)
        .collect()
}

/// Copies what `COPY SRC... DEST` takes from the context into `workdir`; returns the files.
fn copy_into(args: &str, context: &[String], workdir: &Path) -> Vec<String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    assert!(
        !words[0].starts_with("--"),
        "COPY {args}: flags are not handled here"
    );
    let (dest, sources) = words.split_last().expect("COPY SRC DEST");
    let mut copied = Vec::new();
    for src in sources {
        let src = src.trim_start_matches("./").trim_end_matches('/');
        let files: Vec<&String> = context
            .iter()
            .filter(|f| *f == src || f.starts_with(&format!("{src}/")))
            .collect();
        assert!(
            !files.is_empty(),
            "COPY {src}: nothing in the build context (untracked, or kept out by .dockerignore)"
        );
        for file in files {
            let target = if file == src {
                // A single file: into DEST/ when DEST is a directory.
                if dest.ends_with('/') {
                    workdir
                        .join(dest)
                        .join(Path::new(file).file_name().unwrap())
                } else {
                    workdir.join(dest)
                }
            } else {
                workdir.join(dest).join(&file[src.len() + 1..])
            };
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::copy(root().join(file), &target).unwrap();
            // The source's mtime, so that a second run rebuilds only what changed.
            let modified = fs::metadata(root().join(file)).unwrap().modified().unwrap();
            fs::File::options()
                .write(true)
                .open(&target)
                .unwrap()
                .set_modified(modified)
                .unwrap();
            copied.push(file.clone());
        }
    }
    copied
}

fn dockerfile() -> Vec<Stage> {
    parse_dockerfile(&fs::read_to_string(root().join("Dockerfile")).unwrap())
}

/// The stage the final stage copies the binary from.
fn build_stage(stages: &[Stage]) -> &Stage {
    let last = stages.last().expect("a FROM");
    let from = last
        .all("COPY")
        .iter()
        .find_map(|c| c.strip_prefix("--from="))
        .and_then(|c| c.split_whitespace().next())
        .expect("the final stage copies from a build stage")
        .to_string();
    stages
        .iter()
        .find(|s| s.name.as_deref() == Some(from.as_str()))
        .unwrap_or_else(|| panic!("no stage named {from}"))
}

/// The host's Rust target triple.
/// Whether the host's C library applies packed relocations: musl does; glibc from 2.36.
fn c_library_applies_relr() -> bool {
    if host_target().ends_with("-musl") {
        return true;
    }
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .expect("getconf GNU_LIBC_VERSION");
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().strip_prefix("glibc ").expect("glibc VERSION");
    let mut parts = version
        .split('.')
        .map(|p| p.parse::<u32>().expect("a number"));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (2, 36)
}

fn host_target() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc -vV");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV prints host:")
        .to_string()
}

/// A scratch directory under `target/`, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs one RUN instruction's shell text as the build stage would, with `apk` and `rustup`
/// standing in as no-ops and the absolute paths moved under `root`.
fn run_in_stage(script: &str, workdir: &Path, fake_root: &Path, env: &[(String, String)]) {
    let script = relocate(script, fake_root);
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "apk() {{ :; }}; rustup() {{ :; }}; set -e; {script}"
        ))
        .current_dir(workdir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("CARGO_NET_OFFLINE", "true")
        // The stage builds into its own `target/`, as in the container, wherever the tests do.
        .env_remove("CARGO_TARGET_DIR")
        // Fat LTO over one codegen unit is most of a release build's time and changes nothing
        // this test checks; the command and its flags stay the Dockerfile's.
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .output()
        .expect("run sh");
    assert!(
        out.status.success(),
        "RUN {script}\nfailed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `/rust-target` and `/package-variant` (as whole paths) under `fake_root`.
fn relocate(script: &str, fake_root: &Path) -> String {
    let root = fake_root.display().to_string();
    let mut out = String::new();
    let mut rest = script;
    while let Some(i) = rest.find('/') {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let starts_path = out
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || c == '"' || c == '(');
        let name_end = tail[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map_or(tail.len(), |j| j + 1);
        let name = &tail[1..name_end];
        if starts_path && (name == "rust-target" || name == "package-variant") {
            out.push_str(&root);
        }
        out.push_str(&tail[..name_end]);
        rest = &tail[name_end..];
    }
    out.push_str(rest);
    out
}

/// True for an ELF file without a program interpreter (PT_INTERP): a static executable.
fn is_static_elf(path: &Path) -> bool {
    let bytes = fs::read(path).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF", "{} is not ELF", path.display());
    assert_eq!(bytes[4], 2, "64-bit ELF expected");
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]) as usize;
    let phoff = u64::from_le_bytes(bytes[0x20..0x28].try_into().unwrap()) as usize;
    let (phentsize, phnum) = (u16_at(0x36), u16_at(0x38));
    !(0..phnum).any(|i| {
        let o = phoff + i * phentsize;
        u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap()) == 3
    })
}

/// What `readelf -h -l -d` shows of a binary's hardening.
#[derive(Debug, PartialEq, Eq)]
struct ElfHardening {
    /// e_type ET_DYN (3), not ET_EXEC (2).
    position_independent: bool,
    /// DT_FLAGS has DF_BIND_NOW, or DT_FLAGS_1 has DF_1_NOW: every symbol resolved at start,
    /// so that the RELRO segment can be made read-only whole.
    bind_now: bool,
    /// A PT_GNU_RELRO segment.
    relro: bool,
    /// A DT_RELR table (`-z pack-relative-relocs`).
    packed_relocations: bool,
}

fn elf_hardening(path: &Path) -> ElfHardening {
    let bytes = fs::read(path).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF", "{} is not ELF", path.display());
    assert_eq!(bytes[4], 2, "64-bit ELF expected");
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    let phoff = u64_at(0x20) as usize;
    let (phentsize, phnum) = (u16_at(0x36), u16_at(0x38));
    let mut h = ElfHardening {
        position_independent: u16_at(16) == 3,
        bind_now: false,
        relro: false,
        packed_relocations: false,
    };
    for i in 0..phnum {
        let o = phoff + i * phentsize;
        match u32_at(o) {
            0x6474_e552 => h.relro = true,
            2 => {
                // PT_DYNAMIC: (tag, value) pairs of 8 bytes each, up to DT_NULL.
                let (start, size) = (u64_at(o + 8) as usize, u64_at(o + 32) as usize);
                for e in (start..start + size).step_by(16) {
                    let (tag, value) = (u64_at(e), u64_at(e + 8));
                    match tag {
                        0 => break,
                        30 => h.bind_now |= value & 0x8 != 0,
                        0x6fff_fffb => h.bind_now |= value & 0x1 != 0,
                        36 => h.packed_relocations = true,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    h
}

/// The build stage, from an empty directory with only the files its COPY lines take.
#[test]
fn build_stage_builds_from_a_clean_checkout() {
    let stages = dockerfile();
    let build = build_stage(&stages);
    let ignore = fs::read_to_string(root().join(".dockerignore")).unwrap_or_default();
    let context: Vec<String> = tracked_files()
        .into_iter()
        .filter(|f| !docker_ignored(&ignore, f))
        .collect();

    let scratch = scratch("image-build-stage");
    let workdir = scratch.join("src");
    let fake_root = scratch.join("root");
    fs::create_dir_all(&workdir).unwrap();
    fs::create_dir_all(&fake_root).unwrap();
    // Builds land in a directory kept between runs, so a second run only rebuilds the crate.
    let cache = root().join("target/image-build-cache");
    fs::create_dir_all(&cache).unwrap();
    std::os::unix::fs::symlink(&cache, workdir.join("target")).unwrap();
    fs::write(
        fake_root.join("rust-target"),
        format!("{}\n", host_target()),
    )
    .unwrap();

    let mut env = Vec::new();
    let mut copied = Vec::new();
    let mut ran = 0;
    for instr in &build.instrs {
        match instr.keyword.as_str() {
            "ENV" => env.extend(env_pairs(&instr.args)),
            "COPY" => copied.extend(copy_into(&instr.args, &context, &workdir)),
            // The host's target is already in place of the musl one.
            "RUN" if instr.args.contains("> /rust-target") => {}
            "RUN" => {
                run_in_stage(&instr.args, &workdir, &fake_root, &env);
                ran += 1;
            }
            _ => {}
        }
    }
    assert!(ran >= 3, "only {ran} RUN lines ran");
    // Nothing but the build's inputs went in.
    let copied: BTreeSet<&str> = copied.iter().map(String::as_str).collect();
    for file in &copied {
        assert!(
            *file == "Cargo.toml"
                || *file == "Cargo.lock"
                || *file == "build.rs"
                || file.starts_with(".cargo/")
                || file.starts_with("src/")
                || file.starts_with("crates/")
                || file.starts_with("benches/"),
            "the build stage copies {file}"
        );
    }

    let binary = fake_root.join("package-variant");
    assert!(
        is_static_elf(&binary),
        "{} is dynamically linked",
        binary.display()
    );
    // Position-independent (address space randomisation applies to the binary), full RELRO
    // and packed relocations where the C library applies them: musl, glibc 2.36 or later
    // (docs/design.md, "Start and allocation").
    let hardening = elf_hardening(&binary);
    assert_eq!(
        hardening,
        ElfHardening {
            position_independent: true,
            bind_now: true,
            relro: true,
            packed_relocations: c_library_applies_relr()
        },
        "{}",
        binary.display()
    );
    let size = fs::metadata(&binary).unwrap().len();
    assert!(size <= 8 << 20, "the binary is {size} bytes, over 8 MiB");
    let version = Command::new(&binary).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&version.stdout),
        format!("package-variant {}\n", env!("CARGO_PKG_VERSION"))
    );
    let mut child = Command::new(&binary)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(common::SMALL_PACKAGE.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("    region: us-east1\n"));
    // CEL's time-zone functions (crates/chrono-tz over the embedded tz database) work in a
    // binary built as the image is.
    let tz = fs::File::open(root().join("benches/support/time_zone.yaml")).unwrap();
    let out = Command::new(&binary).stdin(tz).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("hours-ny: \"5\"") && text.contains("hours-tokyo: \"19\""),
        "{text}"
    );
    let _ = fs::remove_dir_all(&scratch);
}

/// The RUN that picks the Rust target, run as written for each platform.
#[test]
fn platform_maps_to_a_musl_target() {
    let stages = dockerfile();
    let build = build_stage(&stages);
    assert!(
        build.from.starts_with("--platform=$BUILDPLATFORM "),
        "the build stage should run on the build platform: FROM {}",
        build.from
    );
    assert!(build.all("ARG").contains(&"TARGETARCH"));
    let pick = build
        .all("RUN")
        .into_iter()
        .find(|r| r.contains("> /rust-target"))
        .expect("a RUN that writes /rust-target");
    let dir = scratch("image-platforms");
    let machine = String::from_utf8(Command::new("uname").arg("-m").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    let native = match machine.as_str() {
        "x86_64" => "x86_64-unknown-linux-musl",
        "aarch64" => "aarch64-unknown-linux-musl",
        other => panic!("no expectation for a {other} host"),
    };
    for (arch, expected) in [
        ("amd64", Some("x86_64-unknown-linux-musl")),
        ("arm64", Some("aarch64-unknown-linux-musl")),
        ("", Some(native)),
        ("s390x", None),
    ] {
        let _ = fs::remove_file(dir.join("rust-target"));
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "apk() {{ :; }}; rustup() {{ :; }}; {}",
                relocate(pick, &dir)
            ))
            .env("TARGETARCH", arch)
            .output()
            .unwrap();
        let written = fs::read_to_string(dir.join("rust-target")).unwrap_or_default();
        match expected {
            Some(target) => {
                assert!(out.status.success(), "TARGETARCH={arch:?}: {out:?}");
                assert_eq!(written.trim(), target, "TARGETARCH={arch:?}");
            }
            None => {
                assert!(!out.status.success(), "TARGETARCH={arch:?} was accepted");
                assert!(String::from_utf8_lossy(&out.stderr)
                    .contains("unsupported platform architecture 's390x'"));
            }
        }
    }
    // Each target the RUN can pick has its linker set: x86_64's by ENV, aarch64's by the
    // .cargo/config.toml the stage copies (an ENV would override it and link at a fixed
    // address).
    let env: Vec<(String, String)> = build.all("ENV").into_iter().flat_map(env_pairs).collect();
    let key = "CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER";
    assert!(env.iter().any(|(k, _)| *k == key), "ENV {key} is not set");
    let key = "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER";
    assert!(
        !env.iter().any(|(k, _)| *k == key),
        "ENV {key} overrides .cargo/config.toml's static-pie linker"
    );
    assert!(
        build.all("COPY").contains(&".cargo ./.cargo"),
        "the build stage does not copy .cargo/"
    );
    let config = fs::read_to_string(root().join(".cargo/config.toml")).unwrap();
    assert!(
        config.contains(
            "[target.aarch64-unknown-linux-musl]\nlinker = \".cargo/aarch64-musl-static-pie-ld\""
        ),
        "{config}"
    );
    assert!(env
        .iter()
        .any(|(k, v)| k == "RUSTFLAGS" && v.contains("+crt-static")));
    let _ = fs::remove_dir_all(&dir);
}

/// What is wrong with the final stage and the context for the function's image.
fn final_stage_problems(stages: &[Stage], dockerignore: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let last = stages.last().expect("a FROM");
    // The last USER wins; it must be numeric (Kubernetes runAsNonRoot can only check a number)
    // and not root.
    match last.all("USER").last() {
        None => problems.push("the final stage sets no USER".to_string()),
        Some(user) => {
            let (uid, gid) = user.split_once(':').unwrap_or((user, user));
            let ok = |s: &str| {
                s.chars().all(|c| c.is_ascii_digit()) && s.parse::<u32>().is_ok_and(|n| n != 0)
            };
            if !(ok(uid) && ok(gid)) {
                problems.push(format!("USER {user} is not a numeric non-root uid:gid"));
            }
        }
    }
    if last.all("ENTRYPOINT") != [r#"["/package-variant"]"#] {
        problems.push(format!(
            "ENTRYPOINT must be [\"/package-variant\"] (exec form), found {:?}",
            last.all("ENTRYPOINT")
        ));
    }
    if !last
        .all("COPY")
        .iter()
        .any(|c| c.starts_with("--from=") && c.ends_with(" /package-variant /package-variant"))
    {
        problems.push(
            "the final stage does not copy the build stage's /package-variant to /package-variant"
                .into(),
        );
    }
    for entry in ["target", ".git", "fuzz", "examples"] {
        if !docker_ignored(dockerignore, entry) {
            problems.push(format!(".dockerignore does not exclude {entry}"));
        }
    }
    problems
}

#[test]
fn final_stage_runs_the_binary_as_non_root() {
    let ignore = fs::read_to_string(root().join(".dockerignore")).unwrap_or_default();
    assert_eq!(
        final_stage_problems(&dockerfile(), &ignore),
        Vec::<String>::new()
    );
}

#[test]
fn final_stage_check_catches_root_and_a_wrong_entrypoint() {
    let bad = "FROM rust AS build\nRUN cargo build\nUSER 65534:65534\n\
               FROM alpine\n# USER 1:1\nCOPY --from=build /src/target/release/package-variant /package-variant\n\
               USER 65534:65534\nUSER root\nENTRYPOINT /package-variant\n";
    assert_eq!(
        final_stage_problems(&parse_dockerfile(bad), "target\n"),
        [
            "USER root is not a numeric non-root uid:gid",
            "ENTRYPOINT must be [\"/package-variant\"] (exec form), found [\"/package-variant\"]",
            "the final stage does not copy the build stage's /package-variant to /package-variant",
            ".dockerignore does not exclude .git",
            ".dockerignore does not exclude fuzz",
            ".dockerignore does not exclude examples",
        ]
    );
    let no_user = parse_dockerfile("FROM alpine\nENTRYPOINT [\"/package-variant\"]\n");
    assert!(
        final_stage_problems(&no_user, "*\n").contains(&"the final stage sets no USER".to_string())
    );
}

#[test]
fn dockerignore_rules() {
    let rules = "# comment\n*\n!Cargo.toml\n!src\n";
    assert!(docker_ignored(rules, "target/debug/x"));
    assert!(docker_ignored(rules, ".git"));
    assert!(!docker_ignored(rules, "Cargo.toml"));
    assert!(!docker_ignored(rules, "src/yaml/mod.rs"));
    assert!(docker_ignored(rules, "Cargo.lock"));
    assert!(docker_ignored("*.snap.new\n", "x.snap.new"));
    assert!(!docker_ignored("*.snap.new\n", "tests/x.snap.new"));
    assert!(docker_ignored("tests\n", "tests/x.snap.new"));
}

#[test]
fn dockerfile_parsing() {
    let stages = parse_dockerfile(
        "FROM --platform=$BUILDPLATFORM rust AS build\nRUN a \\\n# inside\n && b\n\
         ENV A=1 \\\n    B=\"x y\"\nFROM alpine\nCOPY --from=build /x /x\n",
    );
    assert_eq!(stages.len(), 2);
    assert_eq!(stages[0].name.as_deref(), Some("build"));
    assert_eq!(stages[0].all("RUN"), ["a  && b"]);
    assert_eq!(
        env_pairs(stages[0].all("ENV")[0]),
        [("A".into(), "1".into()), ("B".into(), "x y".into())]
    );
    assert_eq!(
        relocate(
            "cp \"t/$(cat /rust-target)/release/package-variant\" /package-variant",
            Path::new("/r")
        ),
        "cp \"t/$(cat /r/rust-target)/release/package-variant\" /r/package-variant"
    );
}

/// `.cargo/aarch64-musl-static-pie-ld` turns rustc's static link into a static-pie one, and
/// refuses a link line of another shape rather than pass it on (which would link at a fixed
/// address without a word). `rust-lld` is replaced by a script that prints its arguments.
/// `.ci/image-targets` links the real arm64 binary with it and runs it under qemu.
#[test]
fn aarch64_linker_makes_static_pie() {
    let dir = scratch("aarch64-linker");
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("rust-lld");
    fs::write(&fake, "#!/bin/sh\nprintf '%s\\n' \"$@\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let link = |args: &[&str]| {
        Command::new("sh")
            .arg(root().join(".cargo/aarch64-musl-static-pie-ld"))
            .args(args)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .output()
            .unwrap()
    };
    let sc = "/sysroot/lib/rustlib/aarch64-unknown-linux-musl/lib/self-contained";
    let (crt1, crti, begin) = (
        format!("{sc}/crt1.o"),
        format!("{sc}/crti.o"),
        format!("{sc}/crtbegin.o"),
    );
    let (end, crtn) = (format!("{sc}/crtend.o"), format!("{sc}/crtn.o"));
    let rustc_line = [
        crt1.as_str(),
        &crti,
        &begin,
        "main.o",
        "-lc",
        "-o",
        "out dir/package-variant",
        "-static",
        "-z",
        "now",
        &end,
        &crtn,
    ];
    let out = link(&rustc_line);
    assert!(out.status.success(), "{out:?}");
    let expected = [
        "-flavor".to_string(),
        "gnu".to_string(),
        format!("{sc}/rcrt1.o"),
        crti.clone(),
        format!("{sc}/crtbeginS.o"),
        "main.o".to_string(),
        "-lc".to_string(),
        "-o".to_string(),
        "out dir/package-variant".to_string(),
        "-static".to_string(),
        "-pie".to_string(),
        "--no-dynamic-linker".to_string(),
        "-z".to_string(),
        "text".to_string(),
        "-z".to_string(),
        "now".to_string(),
        format!("{sc}/crtendS.o"),
        crtn.clone(),
    ];
    let printed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(printed, expected);

    // Not rustc's static link (no -static: a dynamic one), or the arguments in a file.
    let without_static: Vec<&str> = rustc_line
        .iter()
        .copied()
        .filter(|a| *a != "-static")
        .collect();
    for (args, says) in [
        (without_static, "found 1, 1, 1 and 0"),
        (vec!["@/tmp/rustc/linker-arguments"], "response file"),
    ] {
        let out = link(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: rust-lld ran");
        assert!(
            stderr.contains(says) && stderr.contains("LINKER=rust-lld"),
            "{stderr}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}
