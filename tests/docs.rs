//! Documentation that stays true: the commands the README, the pages of `docs/` and the
//! examples' READMEs give are run as written, the paths and links they name exist, the
//! numbers they state are the code's, and the catalog metadata is checked against the
//! examples.
//!
//! A page's ```sh blocks run with bash (`set -eo pipefail`) from the repository root, with
//! this crate's binary first on `PATH` as `package-variant` (what `cargo install` gives). Paths
//! under `/tmp/` are moved into a scratch directory, so that concurrent test runs do not meet;
//! nothing else in a command is changed. Each block runs twice (a command must work again on
//! its own output), and the checkout must be left as it was.

mod shell;

use package_variant::yaml;
use shell::{bin_dir, checkout_status, root, run_block, sh_blocks, Scratch};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    // And the walk-throughs whose steps are kpt test cases of their own (`step-1/.expected/`).
    let walkthroughs = fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("step-1/.expected").is_dir());
    let mut examples = example_dirs();
    examples.extend(walkthroughs);
    for example in examples {
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

/// The text of a `## ` section of the README (heading line excluded).
fn readme_section(heading: &str) -> String {
    section("README.md", heading)
}

/// The text of a `## ` section of the Markdown file `file` (heading line excluded), up to the
/// next `## ` heading.
fn section(file: &str, heading: &str) -> String {
    let text = fs::read_to_string(root().join(file)).unwrap();
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("{file} has no {heading}"))
        + heading.len()
        + 2;
    let end = text[start..]
        .find("\n## ")
        .map_or(text.len(), |i| start + i + 1);
    text[start..end].to_string()
}

/// The README and every page under `docs/`, as (path from the root, text), the README first.
fn pages() -> Vec<(String, String)> {
    let mut names: Vec<String> = fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    names.sort();
    names.insert(0, "README.md".to_string());
    names
        .into_iter()
        .map(|n| {
            let text = fs::read_to_string(root().join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

/// The first fenced block of `lang` in `text`.
fn fenced(text: &str, lang: &str) -> String {
    let open = format!("```{lang}\n");
    let start = text.find(&open).expect("a fenced block") + open.len();
    let end = start + text[start..].find("\n```").unwrap() + 1;
    text[start..end].to_string()
}

/// A clean copy of the checkout (git's tracked files as they are in the work tree, with their
/// mtimes, so that a build there is incremental from one run to the next).
fn clean_copy(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .unwrap();
    for file in String::from_utf8(out.stdout).unwrap().split('\0') {
        let from = root().join(file);
        if file.is_empty() || !from.is_file() {
            continue;
        }
        let to = dir.join(file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(&from, &to).unwrap();
        let modified = fs::metadata(&from).unwrap().modified().unwrap();
        fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(modified)
            .unwrap();
    }
}

/// The quick start, run as written on a clean copy: its first block (`cargo install`) into a
/// scratch root that is on `PATH` (as `~/.cargo/bin` is; without LTO, to keep the suite
/// fast), then its second (the example and `git diff`), which must exit 1 (git's "there are
/// differences") and print the diff the README shows, line by line. git lengthens abbreviated
/// hashes as a repository grows (8 digits at 16,384 objects), so an `index` line matches when
/// each hash starts with the README's; the run sets `core.abbrev=12` to prove it.
#[test]
fn quick_start_runs_on_a_clean_copy_as_shown() {
    let section = readme_section("## Quick start");
    let blocks = sh_blocks(&section);
    assert_eq!(
        blocks.len(),
        2,
        "the quick start is two blocks: install, then run and look"
    );
    assert_eq!(blocks[0].trim(), "cargo install --locked --path .");
    assert!(
        !section.contains("cargo test\n```"),
        "the tests are not part of the quick start"
    );

    let clone = root().join("target/quickstart-clone");
    clean_copy(&clone);
    let scratch = Scratch::new("quickstart");
    let install_root = scratch.0.join("cargo-root");
    let tmp = scratch.0.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let run = |block: &str| {
        let script = block.replace("/tmp/", &format!("{}/", tmp.display()));
        Command::new("bash")
            .args(["-e", "-o", "pipefail", "-c", &script])
            .current_dir(&clone)
            .env("CARGO_INSTALL_ROOT", &install_root)
            .env("CARGO_TARGET_DIR", root().join("target/quickstart-build"))
            // Fat LTO is most of the build's time and changes nothing this test checks.
            .env("CARGO_PROFILE_RELEASE_LTO", "false")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
            .env("PATH", shell::path_with(&install_root.join("bin")))
            .env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "core.abbrev")
            .env("GIT_CONFIG_VALUE_0", "12")
            .output()
            .unwrap()
    };
    let install = run(&blocks[0]);
    assert!(
        install.status.success(),
        "cargo install failed:\n{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let out = run(&blocks[1]);
    let stdout =
        String::from_utf8_lossy(&out.stdout).replace(&format!("{}/", tmp.display()), "/tmp/");
    assert_eq!(
        out.status.code(),
        Some(1),
        "git diff exits 1 when it shows differences:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = fenced(&section, "diff");
    assert_eq!(stdout.lines().count(), shown.lines().count(), "{stdout}");
    for (got, want) in stdout.lines().zip(shown.lines()) {
        assert!(
            same_diff_line(got, want),
            "got {got:?}, the README shows {want:?}"
        );
    }
    let _ = fs::remove_dir_all(&clone);
}

/// Whether a line git printed is the one shown: equal, or an `index A..B MODE` line whose
/// hashes start with the shown ones (git abbreviates to more digits in a larger clone).
fn same_diff_line(got: &str, shown: &str) -> bool {
    let hashes = |line: &str| -> Option<(String, String, String)> {
        let rest = line.strip_prefix("index ")?;
        let (range, mode) = rest.split_once(' ').unwrap_or((rest, ""));
        let (a, b) = range.split_once("..")?;
        Some((a.to_string(), b.to_string(), mode.to_string()))
    };
    match (hashes(got), hashes(shown)) {
        (Some((a, b, m)), Some((sa, sb, sm))) => {
            sa.len() >= 7 && a.starts_with(&sa) && b.starts_with(&sb) && m == sm
        }
        _ => got == shown,
    }
}

#[test]
fn index_lines_match_by_their_shown_prefix() {
    assert!(same_diff_line(
        "index e822b5e1234..1a36493ab 100644",
        "index e822b5e..1a36493 100644"
    ));
    assert!(!same_diff_line(
        "index e822b5f1234..1a36493ab 100644",
        "index e822b5e..1a36493 100644"
    ));
    assert!(!same_diff_line(
        "index e822b5e..1a36493 100755",
        "index e822b5e..1a36493 100644"
    ));
    assert!(!same_diff_line("+a", "+b"));
}

/// Every repository path the README and the pages of `docs/` name in backquotes exists.
#[test]
fn doc_paths_exist() {
    let prefixes = [
        "src/",
        "tests/",
        "examples/",
        "fuzz/",
        "benches/",
        "crates/",
        "fnconfig/",
        ".ci/",
        "docs/",
    ];
    let mut missing = Vec::new();
    let mut checked = 0;
    for (page, text) in pages() {
        for (i, span) in text.split('`').enumerate() {
            // Odd pieces are inside backquotes; the first word is the path.
            let Some(word) = span.split_whitespace().next().filter(|_| i % 2 == 1) else {
                continue;
            };
            let word = word.trim_end_matches([',', '.', ':', ')']);
            if !prefixes.iter().any(|p| word.starts_with(p)) || word.contains(['<', '*', '$']) {
                continue;
            }
            checked += 1;
            if !root().join(word).exists() {
                missing.push(format!("{page}: `{word}`"));
            }
        }
    }
    assert!(checked >= 30, "only {checked} paths found");
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "the docs name paths that do not exist"
    );
}

/// Every relative link of every Markdown file in the repository (the README, `docs/`, the
/// examples', `fnconfig/`'s) points to a file that exists and, with `#anchor`, to one of its
/// headings.
#[test]
fn every_markdown_link_resolves() {
    let out = Command::new("git")
        .args(["ls-files", "*.md"])
        .current_dir(root())
        .output()
        .unwrap();
    let files: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(files.len() >= 20, "{files:?}");
    let (mut checked, mut missing) = (0, Vec::new());
    for page in files {
        let text = fs::read_to_string(root().join(&page)).unwrap();
        let dir = root().join(&page).parent().unwrap().to_path_buf();
        for link in links(&outside_fences(&text)) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                root().join(&page)
            } else {
                dir.join(file)
            };
            if !target.exists() {
                missing.push(format!("{page}: link {link}"));
                continue;
            }
            if !anchor.is_empty() {
                let target_text = fs::read_to_string(&target).unwrap_or_default();
                if !headings(&target_text).iter().any(|h| slug(h) == anchor) {
                    missing.push(format!("{page}: link {link} (no such heading)"));
                }
            }
        }
    }
    assert!(checked >= 40, "only {checked} links found");
    assert_eq!(missing, Vec::<String>::new(), "links that lead nowhere");
}

/// A page's text outside its fenced blocks (a `](` in code is no link).
fn outside_fences(markdown: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `docs/examples.md` names every folder under `examples/`, as `` `name` `` in its table or as
/// `` `examples/name` ``.
#[test]
fn every_example_folder_is_in_the_examples_page() {
    let page = fs::read_to_string(root().join("docs/examples.md")).unwrap();
    let mut folders = 0;
    for entry in fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        folders += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            page.contains(&format!("| `{name}` |")) || page.contains(&format!("`examples/{name}`")),
            "docs/examples.md does not list examples/{name}"
        );
    }
    assert!(folders >= 15, "{folders} example folders");
}

/// The README's first screen says what the function is and why to use it, and the quick start
/// follows within it.
#[test]
fn readme_first_screen_says_what_why_and_how_to_start() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let quick = readme
        .lines()
        .position(|l| l == "## Quick start")
        .expect("a quick start");
    assert!(quick <= 20, "the quick start begins on line {}", quick + 1);
    let top = readme.lines().take(quick).collect::<Vec<_>>().join(" ");
    for words in [
        "KRM function",
        "Porch",
        "kpt fn eval",
        "Kptfile pipeline",
        "safe fan-out",
        "upgrades in waves",
        "point-keyed injection",
    ] {
        assert!(
            top.contains(words),
            "the README's first screen lacks {words:?}"
        );
    }
}

/// The targets of the Markdown links `[text](target)` of a page.
fn links(markdown: &str) -> Vec<String> {
    markdown
        .match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &markdown[i + 2..];
            rest.find(')').map(|end| rest[..end].to_string())
        })
        .collect()
}

/// The headings of a Markdown page (outside fenced blocks), without their `#`s.
fn headings(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(line.trim_start_matches('#').trim().to_string());
        }
    }
    found
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(slug("Trust model"), "trust-model");
    assert_eq!(
        slug("The YAML layer: keep the source, copy what was not touched"),
        "the-yaml-layer-keep-the-source-copy-what-was-not-touched"
    );
    assert_eq!(
        slug("Workloads (`benches/support/workloads.rs`)"),
        "workloads-benchessupportworkloadsrs"
    );
    assert_eq!(
        links("a [b](c.md#d) e [f](https://x)"),
        ["c.md#d", "https://x"]
    );
}

/// The README stays one a newcomer finishes, and links every page under `docs/`; no page
/// speaks of internal issue numbers or branches.
#[test]
fn readme_is_short_and_links_every_page() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 445,
        "README.md has {lines} lines; move detail to docs/"
    );
    for (page, text) in pages() {
        if page != "README.md" {
            assert!(
                readme.contains(&format!("]({page})")),
                "README.md does not link {page}"
            );
        }
        let lower = text.to_lowercase();
        for word in ["issue ", "issue-", "(issue", "perf branch"] {
            for (i, _) in lower.match_indices(word) {
                let after = &lower[i + word.len()..];
                assert!(
                    !after.starts_with(|c: char| c.is_ascii_digit()) && word != "perf branch",
                    "{page} speaks of {:?}: say what is true for a user instead",
                    &text[i..(i + word.len() + 3).min(text.len())]
                );
            }
        }
    }
}

/// The `sh` blocks of the README (less the quick start, which its own test runs on a clean
/// copy) and of every page under `docs/`, run as written from the repository root: each must
/// exit 0 and leave the checkout as it was. A block that cannot run here (a cluster, Docker, a
/// long benchmark, a placeholder like `PKG`) says so on its first line: `# not run...: why`.
#[test]
fn readme_and_docs_commands_work() {
    let scratch = Scratch::new("docs-blocks");
    let bin = bin_dir(&scratch.0);
    let before = checkout_status(".");
    let quick_start = readme_section("## Quick start");
    let mut failures = Vec::new();
    let (mut ran, mut not_run) = (0, 0);
    for (page, text) in pages() {
        let text = text.replace(&quick_start, "");
        for block in sh_blocks(&text) {
            let first = block.lines().next().unwrap_or_default();
            if first.starts_with("# not run") {
                let why = first.split_once(':').map_or("", |(_, w)| w.trim());
                if why.is_empty() {
                    failures.push(format!("{page}: {first:?} does not say why"));
                }
                not_run += 1;
                continue;
            }
            let (code, log) = run_block(&block, &root(), &scratch.0.join("tmp"), &bin);
            ran += 1;
            if code != 0 {
                failures.push(format!("{page}:\n{block}exited {code}\n{log}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 7 && not_run >= 5, "ran {ran}, not run {not_run}");
    assert_eq!(
        checkout_status("."),
        before,
        "the documented commands changed the checkout"
    );
}

/// The tables of limits (the README's, `docs/reliability.md`'s and CEL's in
/// `docs/reference.md`) are the code's.
#[test]
fn readme_limits_are_the_codes() {
    use package_variant::{cel, krm, package_variant_set as pvs, yaml as y};
    let n = |v: u64| {
        let digits = v.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let limits = readme_section("## Limits");
    let rows = [
        format!(
            "| input size | {} MiB |",
            krm::resource_list::MAX_INPUT_BYTES >> 20
        ),
        format!("| YAML nesting | {} levels |", y::node::MAX_DEPTH),
        format!(
            "| YAML alias expansion | {} values, {} MiB of text |",
            n(y::json::MAX_ALIAS_EXPANSION as u64),
            y::json::MAX_ALIAS_EXPANSION_BYTES >> 20
        ),
        format!(
            "| output | {} times the input plus {} MiB, counted on every path |",
            krm::output::PER_INPUT_BYTE,
            krm::output::CONSTANT >> 20
        ),
        format!(
            "| items in one ResourceList | {} (2^{}) |",
            n(krm::items::MAX_ITEMS as u64),
            krm::items::MAX_ITEMS.trailing_zeros()
        ),
        format!(
            "| values in one object | {} plus one per 16 bytes of input, at most {} |",
            n(krm::resource_list::value_limit(0) as u64),
            n(krm::resource_list::value_limit(usize::MAX / 2) as u64)
        ),
        format!(
            "| CEL expression | {} bytes; a cost of {} per evaluation and {} per run |",
            n(cel::MAX_EXPRESSION_BYTES as u64),
            n(cel::MAX_EXPRESSION_COST),
            n(cel::MAX_RUN_COST)
        ),
        format!(
            "| PackageVariants per set | {} |",
            n(pvs::expansion::targets::MAX_PACKAGE_VARIANTS as u64)
        ),
        format!(
            "| CEL values written out | {} MiB per run |",
            cel::MAX_OUTPUT_BYTES >> 20
        ),
        format!(
            "| CEL compilation | each distinct expression costs {} plus {} per byte of the run's {} |",
            n(cel::COMPILE_COST),
            n(cel::COMPILE_COST_PER_BYTE),
            n(cel::MAX_RUN_COST)
        ),
        format!(
            "| a set template's static values written out | {} MiB per run, counted once per variant |",
            pvs::expansion::templates::MAX_COPIED_BYTES >> 20
        ),
        format!(
            "| results of one kind | the first {} listed, then one result counting the rest |",
            krm::results::LISTED
        ),
    ];
    assert_eq!(
        krm::resource_list::value_limit(16),
        krm::resource_list::value_limit(0) + 1
    );
    for row in rows {
        assert!(
            limits.contains(&row),
            "README's Limits lacks the row\n{row}"
        );
    }
    // The full table in docs/reliability.md, and CEL's in docs/reference.md.
    let full = section("docs/reliability.md", "## Limits");
    let regex_mib = cel::MAX_REGEX_PROGRAM_BYTES >> 20;
    let full_rows = [
        format!(
            "| input size | {} MiB |",
            krm::resource_list::MAX_INPUT_BYTES >> 20
        ),
        format!("| YAML nesting | {} levels ", y::node::MAX_DEPTH),
        format!(
            "| YAML alias expansion | {} values and {} MiB of text |",
            n(y::json::MAX_ALIAS_EXPANSION as u64),
            y::json::MAX_ALIAS_EXPANSION_BYTES >> 20
        ),
        format!(
            "| output | {} times the input plus {} MiB |",
            krm::output::PER_INPUT_BYTE,
            krm::output::CONSTANT >> 20
        ),
        format!(
            "| CEL expression source | {} bytes, {} nested brackets, {} tree levels |",
            n(cel::MAX_EXPRESSION_BYTES as u64),
            cel::MAX_NESTING,
            cel::MAX_AST_DEPTH
        ),
        format!(
            "| CEL evaluation | {} comprehension steps and a cost of {} per evaluation; a cost of {} per run |",
            n(cel::MAX_COMPREHENSION_STEPS),
            n(cel::MAX_EXPRESSION_COST),
            n(cel::MAX_RUN_COST)
        ),
        format!("| CEL regular expressions | compiled program of {regex_mib} MiB |"),
        format!(
            "| PackageVariants per set | {} |",
            n(pvs::expansion::targets::MAX_PACKAGE_VARIANTS as u64)
        ),
        format!(
            "| items in one ResourceList | {} (2^{}) |",
            n(krm::items::MAX_ITEMS as u64),
            krm::items::MAX_ITEMS.trailing_zeros()
        ),
        format!(
            "| values in one object (an item or the functionConfig) | {} plus one per 16 bytes of input, at most {} |",
            n(krm::resource_list::value_limit(0) as u64),
            n(krm::resource_list::value_limit(usize::MAX / 2) as u64)
        ),
    ];
    for row in full_rows {
        assert!(
            full.contains(&row),
            "docs/reliability.md's Limits lacks the row\n{row}"
        );
    }
    let reference = fs::read_to_string(root().join("docs/reference.md")).unwrap();
    for row in [
        format!(
            "| source | {} bytes, {} nested brackets, {} tree levels |",
            n(cel::MAX_EXPRESSION_BYTES as u64),
            cel::MAX_NESTING,
            cel::MAX_AST_DEPTH
        ),
        format!(
            "| comprehension steps | {} per evaluation |",
            n(cel::MAX_COMPREHENSION_STEPS)
        ),
        format!(
            "| cost of one run | {}, all expressions of all targets |",
            n(cel::MAX_RUN_COST)
        ),
        format!("| regular expression | compiled program of {regex_mib} MiB "),
    ] {
        assert!(
            reference.contains(&row),
            "docs/reference.md's CEL limits lack the row\n{row}"
        );
    }
}

/// The description of CI in `docs/reliability.md` names every phase `.ci/run` has, and its
/// fuzz corpus sizes are the corpus's.
#[test]
fn ci_phases_and_corpus_sizes_are_true() {
    let tests = section("docs/reliability.md", "## Tests")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let ci = fs::read_to_string(root().join(".ci/run")).unwrap();
    let phases: Vec<&str> = ci
        .lines()
        .filter_map(|l| l.trim().strip_prefix("echo \"== "))
        .map(|rest| rest.split([' ', '"']).next().unwrap())
        .collect();
    assert!(phases.len() >= 4, "{phases:?}");
    let ci_line = tests
        .split(" - ")
        .find(|item| item.starts_with("`.ci/run`"))
        .expect("a bullet on .ci/run");
    for phase in phases {
        assert!(
            ci_line.contains(&format!(" {phase} (")) || ci_line.contains(&format!(" {phase} (`")),
            "docs/reliability.md's CI bullet does not describe the phase {phase:?}"
        );
    }
    for target in ["resource_list", "package_variant", "package_variant_set"] {
        let out = Command::new("git")
            .args(["ls-files", &format!("fuzz/corpus/{target}")])
            .current_dir(root())
            .output()
            .unwrap();
        let count = String::from_utf8(out.stdout).unwrap().lines().count();
        assert!(
            tests.contains(&format!("{count} inputs for {target}")),
            "fuzz/corpus/{target} has {count} inputs; docs/reliability.md says otherwise"
        );
    }
}

/// Every `ghcr.io/package-variant/package-variant:TAG` the README, `docs/` and the examples
/// name is this version's tag.
#[test]
fn image_tags_are_this_version() {
    let expected = format!("{IMAGE}:v{}", env!("CARGO_PKG_VERSION"));
    let mut files = vec![root().join("README.md"), root().join("Dockerfile")];
    files.extend(
        pages()
            .into_iter()
            .skip(1)
            .map(|(page, _)| root().join(page)),
    );
    let mut stack = vec![root().join("examples"), root().join("fnconfig")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    let mut seen = 0;
    for file in files {
        let text = fs::read_to_string(&file).unwrap_or_default();
        for (i, _) in text.match_indices(&format!("{IMAGE}:")) {
            let tag_end = text[i..]
                .find(|c: char| c.is_whitespace() || c == '`' || c == '"')
                .map_or(text.len(), |j| i + j);
            assert_eq!(&text[i..tag_end], expected, "in {}", file.display());
            seen += 1;
        }
    }
    assert!(seen >= 10, "only {seen} image references");
}

/// The README's "What it does", exactly: the function's own output keeps the items' folded block
/// scalar byte for byte; kpt rewrites it (`kpt fn source` and `kpt fn sink` reflow it, `kpt fn
/// eval` in place and on stdin writes it double-quoted); a literal block scalar, a comment,
/// quoting and a flow list come through kpt on both routes.
#[test]
fn folded_scalars_are_rewritten_by_kpt_not_by_the_function() {
    let what = readme_section("## What it does")
        .lines()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        what.contains("`kpt fn source` and `kpt fn sink` reflow them")
            && what.contains("write them as double-quoted strings"),
        "the README's \"What it does\" no longer says what kpt does to folded scalars"
    );
    let scratch = Scratch::new("folded");
    let bin = env!("CARGO_BIN_EXE_package-variant");
    let fn_config = root().join("examples/passthrough/.expected/fn-config.yaml");
    let fc = fn_config.to_str().unwrap();
    let folded = "  folded: >\n    a long\n    line\n";
    let kept = "  # kept\n  literal: |\n    one\n    two\n  flow: [a, \"0123\"]\n";
    let quoted = "  folded: \"a long line\\n\"\n";
    let reflowed = "  folded: >\n    a long line\n";
    let file =
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{folded}{kept}");
    let package = |name: &str| {
        let dir = scratch.0.join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("Kptfile"),
            "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
        )
        .unwrap();
        fs::write(dir.join("cm.yaml"), &file).unwrap();
        dir
    };
    let run = |args: &[&str], stdin: &[u8]| {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = Command::new(args[0])
            .args(&args[1..])
            .current_dir(&scratch.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        String::from_utf8(out.stdout).unwrap()
    };
    // An item's lines as a ResourceList holds them, two spaces in under `items:`.
    let indent = |text: &str| text.lines().map(|l| format!("  {l}\n")).collect::<String>();

    // In place: kpt writes the folded scalar double-quoted, the rest as it was.
    let in_place = package("in-place");
    run(
        &[
            "kpt",
            "fn",
            "eval",
            "in-place",
            "--exec",
            bin,
            "--fn-config",
            fc,
        ],
        b"",
    );
    let written = fs::read_to_string(in_place.join("cm.yaml")).unwrap();
    assert!(
        written.contains(quoted) && written.contains(kept),
        "{written}"
    );

    // kpt fn source reflows it.
    package("source");
    let list = run(&["kpt", "fn", "source", "source", "--fn-config", fc], b"");
    assert!(list.contains(&indent(reflowed)), "{list}");
    assert!(list.contains(&indent(kept)), "{list}");

    // The function's items are its input's, byte for byte, the folded scalar as written.
    let as_written = list.replace(
        &list[list.find("    folded: >").unwrap()..list.find("    # kept").unwrap()],
        &indent(folded),
    );
    let out = run(&[bin], as_written.as_bytes());
    let items = |list: &str| list[..list.find("\nfunctionConfig:").unwrap()].to_string();
    assert_eq!(
        items(&out),
        items(&as_written),
        "the function changed its items"
    );

    // kpt fn sink reflows it; kpt fn eval on stdin writes it double-quoted.
    let sunk = scratch.0.join("sunk");
    run(
        &["kpt", "fn", "sink", sunk.to_str().unwrap()],
        out.as_bytes(),
    );
    let written = fs::read_to_string(sunk.join("cm.yaml")).unwrap();
    assert!(
        written.contains(reflowed) && written.contains(kept),
        "{written}"
    );
    let evaluated = run(
        &["kpt", "fn", "eval", "-", "--exec", bin, "--fn-config", fc],
        as_written.as_bytes(),
    );
    assert!(evaluated.contains(&indent(quoted)), "{evaluated}");
    assert!(evaluated.contains(&indent(kept)), "{evaluated}");
}

/// The sizes `docs/design.md` gives for the YAML layer's tree are the types' own.
#[test]
fn design_node_sizes_are_true() {
    use package_variant::yaml::node::{Entry, Node};
    let design = fs::read_to_string(root().join("docs/design.md")).unwrap();
    let said = format!(
        "a node is {} bytes and a mapping entry {} ",
        std::mem::size_of::<Node>(),
        std::mem::size_of::<Entry>()
    );
    assert!(
        design
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(said.trim_end()),
        "docs/design.md does not say: {said}"
    );
}

/// The commands in `text` that pipe objects without a file path into `kpt fn eval -`: a
/// `kubectl get`, or a `{ ...; }` group that appends objects to `kpt fn source`. Lines continued
/// with `\` or by a leading `|` are one command (a YAML comment's `#` is dropped first), and in
/// Markdown prose a paragraph is one line (an inline command may wrap); a command ends at a
/// backquote, `;` or `&&`.
fn piped_cluster_objects(text: &str, markdown: bool) -> Vec<String> {
    let mut units: Vec<String> = Vec::new();
    let mut fenced = false;
    let mut joining = false;
    for raw in text.lines() {
        let line = raw.trim_start().trim_start_matches('#').trim();
        if line.starts_with("```") {
            fenced = !fenced;
            joining = false;
            continue;
        }
        let prose_goes_on = markdown && !fenced && !line.is_empty();
        let continued = joining || line.starts_with('|');
        match units.last_mut() {
            Some(last) if continued => {
                last.push(' ');
                last.push_str(line.trim_end_matches('\\'));
            }
            _ => units.push(line.trim_end_matches('\\').to_string()),
        }
        joining = line.ends_with('\\') || prose_goes_on;
    }
    let mut found = Vec::new();
    for unit in units {
        for (at, _) in unit.match_indices("kpt fn eval -") {
            let after = unit[at + "kpt fn eval -".len()..].chars().next();
            if !matches!(after, None | Some(' ' | '`' | ',' | '.')) {
                continue;
            }
            let before = &unit[..at];
            let start = ["`", ";", "&&"]
                .iter()
                .filter_map(|b| before.rfind(b).map(|i| i + b.len()))
                .max()
                .unwrap_or(0);
            let command = before[start..].trim();
            if command.contains("|")
                && (command.contains("kubectl get") || command.starts_with('}'))
            {
                found.push(unit.trim().to_string());
            }
        }
    }
    found
}

/// Objects from a cluster reach the function through a folder in every page, sample and
/// example and in `--help` (issue 41): piped straight into `kpt fn eval -`, objects without a
/// file path make kpt 1.0.0-beta.56 show `resource at path "." and index "" already exists`
/// instead of the function's error results.
#[test]
fn cluster_objects_are_never_piped_into_kpt_fn_eval() {
    // The check finds what it is for.
    for bad in [
        "```sh\nkubectl get repositories -n NS -o yaml \\\n  | kpt fn eval - --exec package-variant\n```\n",
        "Run `kubectl get repositories -n fleet -o\nyaml | kpt fn eval - --exec package-variant`.\n",
        "```sh\n{ kpt fn source p; cat objects; } \\\n  | kpt fn eval - --exec package-variant\n```\n",
    ] {
        assert_eq!(piped_cluster_objects(bad, true).len(), 1, "{bad}");
    }
    let good =
        "`kubectl get x -o yaml | kpt fn sink DIR`, then piped straight into `kpt fn eval -`";
    assert!(piped_cluster_objects(good, true).is_empty());

    let mut files: Vec<PathBuf> = vec![root().join("README.md")];
    for dir in ["docs", "fnconfig", "fnconfig/schemas", "examples"] {
        for entry in fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.push(path.join("README.md"));
            } else if path.extension().is_some_and(|e| e == "md" || e == "yaml") {
                files.push(path);
            }
        }
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in files.iter().filter(|f| f.is_file()) {
        let text = fs::read_to_string(file).unwrap();
        let markdown = file.extension().is_some_and(|e| e == "md");
        checked += 1;
        for command in piped_cluster_objects(&text, markdown) {
            failures.push(format!("{}: {command}", file.display()));
        }
    }
    let help = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--help")
        .output()
        .unwrap();
    for command in piped_cluster_objects(&String::from_utf8(help.stdout).unwrap(), false) {
        failures.push(format!("--help: {command}"));
    }
    assert!(checked > 30, "only {checked} files");
    assert!(failures.is_empty(), "write the objects to a folder (kubectl get ... -o yaml | kpt fn sink DIR; kpt fn eval DIR ...):\n{}", failures.join("\n"));
}
