//! The layout's rules, checked on the source so they cannot erode: which part of `src/` may
//! use which (`docs/design.md` › The map), and no circle of modules anywhere.
//!
//! No source file is longer than [`MAX_FILE_LINES`] (tests aside).
//!
//! A module's dependencies are the `crate::<part>` paths and `super::<module>` imports in its
//! non-test code (everything before the first `#[cfg(test)]`, comments aside; files named
//! `tests.rs` are tests).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level part and the parts it may use. `common` is the bottom floor (small helpers
/// several parts share: the seeded hasher, the edit distance); `cel` is the cel-go layer, which
/// knows nothing of PackageVariants, the API or the protocol.
const PARTS: &[(&str, &[&str])] = &[
    ("common", &[]),
    ("yaml", &[]),
    ("api", &["common", "cel"]),
    ("cel", &["common"]),
    ("krm", &["yaml"]),
    ("package_variant", &["krm", "yaml", "api"]),
    (
        "package_variant_set",
        &["krm", "yaml", "api", "cel", "common"],
    ),
];

/// Inside `package_variant_set/`: its two parts and the one each may use. Expansion decides
/// which variants should exist; reconciliation holds them against what exists.
const SET_PARTS: &[(&str, &[&str])] = &[("expansion", &[]), ("reconciliation", &["expansion"])];

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

/// The `.rs` files under `dir`, in order.
fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    files
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
    let files = sorted_files(&src());
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
    let files = sorted_files(&yaml);
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

/// The module path of a source file: `src/a/b.rs` and `src/a/b/mod.rs` give `[a, b]`.
fn module_path(path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(src()).unwrap();
    let mut names: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if names
        .last()
        .is_some_and(|n| n == "mod" || n == "lib" || n == "main")
    {
        names.pop();
    }
    names
}

/// The first identifier of each path in a `use` group's text after its `{`: `a::x, b}` gives
/// `a` and `b` (nested groups skipped).
fn group_heads(rest: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_start = true;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            c if at_start && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                let name: String = rest[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                heads.push(name);
                at_start = false;
            }
            c if !c.is_whitespace() => at_start = false,
            _ => {}
        }
    }
    heads
}

/// The module paths a file names, absolute: `crate::a::b` and, from `src/x/y.rs`,
/// `super::b` (`[x, b]`) and `super::{b, c}` (`[x, b]`, `[x, c]`).
fn paths_named(file: &Path) -> BTreeSet<Vec<String>> {
    let text = code(file);
    let here = module_path(file);
    let mut out = BTreeSet::new();
    for (i, _) in text
        .match_indices("crate::")
        .chain(text.match_indices("super::"))
    {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut rest = &text[i..];
        let mut base: Vec<String> = if rest.starts_with("crate::") {
            rest = &rest["crate::".len()..];
            Vec::new()
        } else {
            let mut b = here.clone();
            while let Some(r) = rest.strip_prefix("super::") {
                b.pop();
                rest = r;
            }
            b
        };
        loop {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                if let Some(group) = rest.strip_prefix('{') {
                    for head in group_heads(group) {
                        let mut p = base.clone();
                        p.push(head);
                        out.insert(p);
                    }
                }
                break;
            }
            rest = &rest[name.len()..];
            base.push(name);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        out.insert(base);
    }
    out
}

#[test]
fn set_parts_depend_one_way() {
    let allowed: BTreeMap<&str, &[&str]> = SET_PARTS.iter().copied().collect();
    let mut problems = Vec::new();
    for file in sorted_files(&src().join("package_variant_set")) {
        let here = module_path(&file);
        // The set's own head (`mod.rs`) uses both parts.
        let Some(part) = here.get(1).filter(|_| here.len() >= 3) else {
            continue;
        };
        let part = part.as_str();
        let Some(may) = allowed.get(part) else {
            problems.push(format!("{}: {part} is not in SET_PARTS", file.display()));
            continue;
        };
        for p in paths_named(&file) {
            if p.len() < 2 || p[0] != "package_variant_set" || p[1] == part {
                continue;
            }
            if allowed.contains_key(p[1].as_str()) && !may.contains(&p[1].as_str()) {
                problems.push(format!("{}: {part} uses {}", file.display(), p[1]));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The circles among the child modules of each folder of `src/` (a child's files together):
/// `a` uses `b` when a file of `a` names a path through `b`.
fn circles(root: &Path) -> Vec<String> {
    let files = sorted_files(root);
    // folder module path -> child -> the siblings it uses
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let here = module_path(file);
        for n in 1..=here.len() {
            children
                .entry(here[..n - 1].to_vec())
                .or_default()
                .insert(here[n - 1].clone());
        }
    }
    for file in &files {
        let here = module_path(file);
        for p in paths_named(file) {
            // The deepest folder both sit in: a child of it uses a sibling.
            let common = here.iter().zip(&p).take_while(|(a, b)| a == b).count();
            if common >= here.len() || common >= p.len() {
                continue;
            }
            let folder = here[..common].to_vec();
            let (from, to) = (&here[common], &p[common]);
            if children.get(&folder).is_some_and(|c| c.contains(to)) {
                graphs
                    .entry(folder)
                    .or_default()
                    .entry(from.clone())
                    .or_default()
                    .insert(to.clone());
            }
        }
    }
    let mut found = Vec::new();
    let mut reported = BTreeSet::new();
    for (folder, graph) in &graphs {
        // A child on a circle reaches itself.
        for start in graph.keys() {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
            while let Some((m, trail)) = stack.pop() {
                for next in graph.get(&m).into_iter().flatten() {
                    if next == start {
                        let members: BTreeSet<&String> = trail.iter().collect();
                        if reported.insert((folder.clone(), format!("{members:?}"))) {
                            let circle = [&trail[..], std::slice::from_ref(start)].concat();
                            found.push(format!(
                                "src/{}: {}",
                                folder.join("/"),
                                circle.join(" -> ")
                            ));
                        }
                    } else if seen.insert(next.clone()) {
                        let mut t = trail.clone();
                        t.push(next.clone());
                        stack.push((next.clone(), t));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn no_circle_of_modules() {
    let found = circles(&src());
    assert!(
        found.is_empty(),
        "cut each circle by moving the shared piece down or passing it in:\n{}",
        found.join("\n")
    );
}

/// Most lines in one source file: a file that grows past it is split by job.
const MAX_FILE_LINES: usize = 600;

#[test]
fn files_fit_in_one_read() {
    let files = sorted_files(&src());
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
