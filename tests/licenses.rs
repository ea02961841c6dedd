//! Dependencies' licences (issue 39): every package `cargo metadata` lists (all platforms,
//! normal, build and dev dependencies) must have a licence expression that `.ci/licenses`
//! allows, and THIRD-PARTY-LICENSES, which the image ships, must hold the licence texts of
//! the crates linked into the shipped binary as Cargo.lock has them now.
//!
//! The file is written by `scripts/third-party-licenses.sh`, which runs
//! [`third_party_licenses_are_current`] with `UPDATE_THIRD_PARTY_LICENSES=1`: one piece of
//! code makes the file and checks it. The texts come from the crates' sources that cargo
//! unpacked (`cargo metadata` gives each one's directory); a crate that ships none takes its
//! text from `.ci/licenses-texts/<crate>`.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The image's targets (Dockerfile): the crates linked for either are the ones it ships.
const IMAGE_TARGETS: [&str; 2] = ["x86_64-unknown-linux-musl", "aarch64-unknown-linux-musl"];

/// `cargo metadata`'s JSON, for every platform or for `platform` only.
fn metadata(platform: Option<&str>) -> Value {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(root());
    if let Some(p) = platform {
        cmd.args(["--filter-platform", p]);
    }
    let out = cmd.output().expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed (the crates are fetched by `cargo fetch --locked`): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata writes JSON")
}

/// The allowed licence ids of `.ci/licenses`, most preferred first.
fn allow_list() -> Vec<String> {
    fs::read_to_string(root().join(".ci/licenses"))
        .expect(".ci/licenses")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// An SPDX licence expression.
#[derive(Debug, PartialEq)]
enum Expr {
    /// A licence id; `X WITH exception` keeps only X (an exception adds permissions).
    Id(String),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

/// Parses an SPDX expression (`OR`, `AND`, `WITH`, parentheses; the older `/` is `OR`).
fn parse(expr: &str) -> Result<Expr, String> {
    let spaced = expr
        .replace('(', " ( ")
        .replace(')', " ) ")
        .replace('/', " OR ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut at = 0;
    let e = parse_or(&tokens, &mut at)?;
    if at != tokens.len() {
        return Err(format!("`{expr}`: unexpected `{}`", tokens[at]));
    }
    Ok(e)
}

fn parse_or(t: &[&str], at: &mut usize) -> Result<Expr, String> {
    let mut terms = vec![parse_and(t, at)?];
    while t.get(*at) == Some(&"OR") {
        *at += 1;
        terms.push(parse_and(t, at)?);
    }
    Ok(if terms.len() == 1 {
        terms.remove(0)
    } else {
        Expr::Or(terms)
    })
}

fn parse_and(t: &[&str], at: &mut usize) -> Result<Expr, String> {
    let mut terms = vec![parse_term(t, at)?];
    while t.get(*at) == Some(&"AND") {
        *at += 1;
        terms.push(parse_term(t, at)?);
    }
    Ok(if terms.len() == 1 {
        terms.remove(0)
    } else {
        Expr::And(terms)
    })
}

fn parse_term(t: &[&str], at: &mut usize) -> Result<Expr, String> {
    let tok = *t.get(*at).ok_or("the expression ends early")?;
    *at += 1;
    if tok == "(" {
        let e = parse_or(t, at)?;
        if t.get(*at) != Some(&")") {
            return Err("a `(` is not closed".into());
        }
        *at += 1;
        return Ok(e);
    }
    if matches!(tok, ")" | "OR" | "AND" | "WITH") {
        return Err(format!("`{tok}` where a licence id belongs"));
    }
    if t.get(*at) == Some(&"WITH") {
        t.get(*at + 1).ok_or("`WITH` without an exception")?;
        *at += 2;
    }
    Ok(Expr::Id(tok.to_string()))
}

/// The licences to comply with under `expr`, taking at each `OR` the choice whose least
/// preferred licence is most preferred in `allow`; None when no choice is allowed.
fn choose(expr: &Expr, allow: &[String]) -> Option<Vec<String>> {
    let rank = |ids: &Vec<String>| {
        ids.iter()
            .filter_map(|id| allow.iter().position(|a| a == id))
            .max()
    };
    match expr {
        Expr::Id(id) => allow.contains(id).then(|| vec![id.clone()]),
        Expr::And(terms) => {
            let mut all = Vec::new();
            for t in terms {
                all.extend(choose(t, allow)?);
            }
            Some(all)
        }
        Expr::Or(terms) => terms
            .iter()
            .filter_map(|t| choose(t, allow))
            .min_by_key(rank),
    }
}

/// Each package's problem with its licence: none declared, one that does not parse, or one
/// whose every choice includes a licence `.ci/licenses` does not list.
fn licence_problems(meta: &Value, allow: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    for p in meta["packages"].as_array().expect("packages") {
        let who = format!(
            "{} {}",
            p["name"].as_str().unwrap(),
            p["version"].as_str().unwrap()
        );
        let Some(expr) = p["license"].as_str() else {
            problems.push(format!(
                "{who}: no licence expression in its Cargo.toml (license_file: {}): find its \
                 licence and decide, then replace or drop the dependency",
                p["license_file"]
            ));
            continue;
        };
        match parse(expr) {
            Err(why) => problems.push(format!("{who}: licence `{expr}` does not parse: {why}")),
            Ok(e) if choose(&e, allow).is_none() => problems.push(format!(
                "{who}: licence `{expr}` is not allowed by .ci/licenses (add the licence there \
                 if the project may ship it, or drop the dependency)"
            )),
            Ok(_) => {}
        }
    }
    problems
}

#[test]
fn every_dependency_has_an_allowed_licence() {
    let problems = licence_problems(&metadata(None), &allow_list());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn an_unknown_or_missing_licence_is_named_with_its_crate() {
    let allow: Vec<String> = ["MIT", "Apache-2.0"].map(String::from).to_vec();
    let meta = serde_json::json!({"packages": [
        {"name": "fine", "version": "1.0.0", "license": "(MIT OR Apache-2.0) AND MIT"},
        {"name": "old-style", "version": "1.0.0", "license": "MIT/Apache-2.0"},
        {"name": "llvm", "version": "1.0.0", "license": "Apache-2.0 WITH LLVM-exception"},
        {"name": "copyleft", "version": "0.1.0", "license": "GPL-3.0-only"},
        {"name": "half", "version": "0.2.0", "license": "MIT AND LGPL-2.1"},
        {"name": "nolicence", "version": "0.3.0", "license": null, "license_file": "LICENSE"},
        {"name": "broken", "version": "0.4.0", "license": "MIT OR (Apache-2.0"},
    ]});
    let problems = licence_problems(&meta, &allow);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].starts_with("copyleft 0.1.0: licence `GPL-3.0-only` is not allowed"));
    assert!(problems[1].starts_with("half 0.2.0: licence `MIT AND LGPL-2.1` is not allowed"));
    assert!(problems[2].starts_with("nolicence 0.3.0: no licence expression"));
    assert!(problems[3].starts_with("broken 0.4.0: licence `MIT OR (Apache-2.0` does not parse"));
}

#[test]
fn a_choice_takes_the_most_preferred_licence() {
    let allow: Vec<String> = ["MIT", "Apache-2.0", "Unicode-3.0"]
        .map(String::from)
        .to_vec();
    let pick = |e: &str| choose(&parse(e).unwrap(), &allow);
    assert_eq!(pick("Apache-2.0 OR MIT").unwrap(), ["MIT"]);
    assert_eq!(pick("Unlicense OR MIT").unwrap(), ["MIT"]);
    assert_eq!(
        pick("(MIT OR Apache-2.0) AND Unicode-3.0").unwrap(),
        ["MIT", "Unicode-3.0"]
    );
    assert_eq!(
        pick("Apache-2.0 WITH LLVM-exception OR Apache-2.0 OR MIT").unwrap(),
        ["MIT"]
    );
    assert_eq!(pick("GPL-2.0 OR Unlicense"), None);
}

/// One crate linked into the shipped binary.
struct Linked {
    name: String,
    version: String,
    expr: String,
    dir: PathBuf,
}

/// The registry crates linked into the binary for `platform`: the package's normal
/// dependencies, transitively, less proc macros (they run in the compiler, and what they
/// depend on with them) and path crates (this repository's own).
fn linked(platform: &str) -> Vec<Linked> {
    let meta = metadata(Some(platform));
    let packages: BTreeMap<&str, &Value> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let nodes: BTreeMap<&str, &Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let is_proc_macro = |p: &Value| {
        p["targets"].as_array().unwrap().iter().any(|t| {
            t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "proc-macro")
        })
    };
    let mut seen = BTreeSet::new();
    let mut stack = vec![meta["resolve"]["root"].as_str().expect("a root package")];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) || is_proc_macro(packages[id]) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null());
            if normal {
                stack.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    seen.into_iter()
        .map(|id| packages[id])
        .filter(|p| !p["source"].is_null() && !is_proc_macro(p))
        .map(|p| Linked {
            name: p["name"].as_str().unwrap().into(),
            version: p["version"].as_str().unwrap().into(),
            expr: p["license"].as_str().unwrap_or_default().into(),
            dir: Path::new(p["manifest_path"].as_str().unwrap())
                .parent()
                .unwrap()
                .into(),
        })
        .collect()
}

/// The files of `dir` (its top level) that hold `licence`'s text: those named for it
/// (`LICENSE-MIT` for MIT, `LICENSE-APACHE` for Apache-2.0), else the crate's one licence
/// file (`LICENSE`, `LICENSE.txt`, `COPYING`); for Apache-2.0 its NOTICE files too.
fn licence_files(dir: &Path, licence: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    let upper = |n: &str| n.to_ascii_uppercase();
    let is_licence = |n: &str| {
        let u = upper(n);
        u.starts_with("LICENSE") || u.starts_with("LICENCE") || u.starts_with("COPYING")
    };
    let tag = licence.split('-').next().unwrap().to_ascii_uppercase();
    let mut files: Vec<String> = names
        .iter()
        .filter(|n| is_licence(n) && upper(n).contains(&tag))
        .cloned()
        .collect();
    if files.is_empty() {
        files = names
            .iter()
            .filter(|n| {
                let u = upper(n);
                let stem = u.split('.').next().unwrap();
                matches!(stem, "LICENSE" | "LICENCE" | "COPYING")
            })
            .cloned()
            .collect();
    }
    if licence == "Apache-2.0" {
        files.extend(
            names
                .iter()
                .filter(|n| upper(n).starts_with("NOTICE"))
                .cloned(),
        );
    }
    files
}

const RULE: &str =
    "================================================================================\n";

/// THIRD-PARTY-LICENSES as the crates linked for the image's targets make it.
fn third_party_licenses() -> String {
    let allow = allow_list();
    let mut crates: BTreeMap<(String, String), Linked> = BTreeMap::new();
    for t in IMAGE_TARGETS {
        for c in linked(t) {
            crates.insert((c.name.clone(), c.version.clone()), c);
        }
    }
    let mut out = format!(
        "Third-party licences of the package-variant binary: the {} crates linked into it \
         (Cargo.lock, for {}),\n\
         each with the text of the licence it is used under (where a crate offers a choice, \
         the first of .ci/licenses).\n\
         Written by scripts/third-party-licenses.sh; tests/licenses.rs checks it is current.\n",
        crates.len(),
        IMAGE_TARGETS.join(" and ")
    );
    for c in crates.values() {
        let chosen = parse(&c.expr)
            .ok()
            .and_then(|e| choose(&e, &allow))
            .unwrap_or_else(|| {
                panic!("{} {}: licence `{}` not allowed", c.name, c.version, c.expr)
            });
        out += &format!(
            "\n{RULE}{} {} (licence: {}), used under {}\n{RULE}",
            c.name,
            c.version,
            c.expr,
            chosen.join(" AND ")
        );
        for licence in &chosen {
            let files = licence_files(&c.dir, licence);
            if files.is_empty() {
                let kept = root().join(".ci/licenses-texts").join(&c.name);
                let text = fs::read_to_string(&kept).unwrap_or_else(|_| {
                    panic!(
                        "{} {} ships no {licence} text: put the text its repository has in \
                         .ci/licenses-texts/{}",
                        c.name, c.version, c.name
                    )
                });
                out += &format!(
                    "\n-- {licence} (the crate ships no licence file; its repository's, kept in \
                     .ci/licenses-texts/{})\n\n{}",
                    c.name,
                    text.trim_end()
                );
                out.push('\n');
                continue;
            }
            for f in files {
                let text = fs::read_to_string(c.dir.join(&f))
                    .unwrap_or_else(|e| panic!("{}: {e}", c.dir.join(&f).display()));
                out += &format!("\n-- {f}\n\n{}\n", text.trim_end().replace('\r', ""));
            }
        }
    }
    out
}

#[test]
fn third_party_licenses_are_current() {
    let want = third_party_licenses();
    let path = root().join("THIRD-PARTY-LICENSES");
    if std::env::var_os("UPDATE_THIRD_PARTY_LICENSES").is_some() {
        fs::write(&path, &want).unwrap();
        return;
    }
    let have = fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "THIRD-PARTY-LICENSES is not what Cargo.lock's crates make (first difference at \
             line {}): run scripts/third-party-licenses.sh and commit the result",
            first + 1
        );
    }
}

#[test]
fn the_image_ships_the_third_party_licenses() {
    let dockerfile = fs::read_to_string(root().join("Dockerfile")).unwrap();
    let last_stage = dockerfile.rsplit("\nFROM ").next().unwrap();
    assert!(
        last_stage
            .lines()
            .any(|l| l.starts_with("COPY THIRD-PARTY-LICENSES ")),
        "the Dockerfile's final stage does not COPY THIRD-PARTY-LICENSES into the image"
    );
    let ignore = fs::read_to_string(root().join(".dockerignore")).unwrap();
    assert!(
        ignore.lines().any(|l| l.trim() == "!THIRD-PARTY-LICENSES"),
        ".dockerignore keeps THIRD-PARTY-LICENSES out of the build context"
    );
}
