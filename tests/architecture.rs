//! The layout's rules, checked on the source so they cannot erode: which part of `src/` may
//! use which (`docs/design.md` › The map).
//!
//! No source file is longer than [`MAX_FILE_LINES`] (tests aside).
//!
//! A module's dependencies are the `crate::<part>` paths and `super::<module>` imports in its
//! non-test code (everything before the first `#[cfg(test)]`, comments aside; files named
//! `tests.rs` are tests).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level part and the parts it may use.
const PARTS: &[(&str, &[&str])] = &[
    ("common", &[]),
    ("yaml", &[]),
    ("api", &[]),
    ("cel", &["common", "api"]),
    ("krm", &["yaml"]),
    ("package_variant", &["krm", "yaml", "api"]),
    (
        "package_variant_set",
        &["krm", "yaml", "api", "cel", "common"],
    ),
];

/// Inside `yaml/`: each module and the sibling modules it may use (one-way layers).
const YAML_LAYERS: &[(&str, &[&str])] = &[
    ("breaks", &[]),
    ("resolve", &[]),
    ("alias", &["node", "style"]),
    ("assign", &["node", "resolve", "style"]),
    ("style", &["resolve"]),
    ("node", &["resolve", "style"]),
    ("parse", &["node", "breaks"]),
    ("emit", &["node", "style", "resolve", "breaks"]),
    ("json", &["node", "resolve", "style", "alias"]),
    ("ser", &["node", "style"]),
    ("text", &["style"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The non-test code of a file, without comment lines.
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = fs::read_to_string(path).unwrap();
    let code = text.find("#[cfg(test)]").map_or(&text[..], |i| &text[..i]);
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers that follow `prefix` in `text` (`crate::krm::x` gives `krm`).
fn names_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices(prefix) {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[i + prefix.len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// `src/<part>/...` → `<part>`; top-level files (lib.rs, main.rs) → `None`.
fn part_of(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(src()).unwrap();
    let mut parts = rel.components();
    let first = parts.next()?.as_os_str().to_string_lossy().to_string();
    parts.next().map(|_| first)
}

#[test]
fn parts_depend_one_way() {
    let allowed: BTreeMap<&str, &[&str]> = PARTS.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let Some(part) = part_of(file) else { continue };
        let Some(may) = allowed.get(part.as_str()) else {
            problems.push(format!(
                "{}: part {part:?} is not in the map",
                file.display()
            ));
            continue;
        };
        for used in names_after(&code(file), "crate::") {
            if used != part && !may.contains(&used.as_str()) {
                problems.push(format!("{}: {part} uses crate::{used}", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn yaml_layers_have_no_circle() {
    let allowed: BTreeMap<&str, &[&str]> = YAML_LAYERS.iter().copied().collect();
    let yaml = src().join("yaml");
    let mut files = Vec::new();
    rust_files(&yaml, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&yaml).unwrap();
        let module = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "mod" || module == "tests" {
            continue;
        }
        let Some(may) = allowed.get(module.as_str()) else {
            problems.push(format!(
                "{}: yaml::{module} is not in the layers",
                file.display()
            ));
            continue;
        };
        let text = code(file);
        // Within parse/, `super::` is the parser itself; elsewhere it is `yaml`.
        let mut used = names_after(&text, "crate::yaml::");
        if rel.components().count() == 1 {
            used.extend(names_after(&text, "super::"));
        }
        for u in used {
            let sibling = allowed.contains_key(u.as_str());
            if sibling && u != module && !may.contains(&u.as_str()) {
                problems.push(format!("{}: yaml::{module} uses yaml::{u}", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Most lines in one source file: a file that grows past it is split by job.
const MAX_FILE_LINES: usize = 600;

#[test]
fn files_fit_in_one_read() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let long: Vec<String> = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "tests.rs"))
        .filter_map(|f| {
            let n = fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these by job (at most {MAX_FILE_LINES} lines):\n{}",
        long.join("\n")
    );
}

/// `docs/design.md` › The map names every module of each folder it lists, so a newcomer finds a
/// module from the map and the map never names a room that is gone.
#[test]
fn readme_map_names_every_module() {
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/design.md")).unwrap();
    let rows: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| `src/"))
        .collect();
    assert!(rows.len() >= 5, "the map's rows: {rows:?}");
    for row in rows {
        let folder = row
            .trim_start_matches("| `")
            .split('`')
            .next()
            .unwrap()
            .trim_start_matches("src/")
            .trim_end_matches('/');
        let dir = src().join(folder);
        assert!(
            dir.is_dir(),
            "the map names src/{folder}/, which does not exist"
        );
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let is_module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
            if !is_module || name == "mod" || name == "tests" {
                continue;
            }
            assert!(
                row.contains(&format!("`{name}`")) || row.contains(&format!("`{name}/`")),
                "docs/design.md's map row for src/{folder}/ does not name its module `{name}`"
            );
        }
    }
}
