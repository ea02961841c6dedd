//! `package-variant --help`, the function's documentation (what `kpt fn doc` prints): it says
//! what the function does, the three ways to run it, the exit codes, an example of each
//! functionConfig kind and the field reference of each kind. The examples it prints are run
//! here through the binary, so the documentation cannot show a functionConfig that fails.

mod common;

use common::{resource_list, run, INJECTION_POINT, KPTFILE, PACKAGE_CONTEXT};
use std::process::Command;

fn help() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "--help writes only to stdout");
    String::from_utf8(out.stdout).unwrap()
}

/// The example of a kind: the lines indented by four spaces below `  <kind> (...):`.
fn example(help: &str, kind: &str) -> String {
    let examples = &help[help.find("\nEXAMPLES\n").expect("an EXAMPLES section")..];
    let start = examples
        .find(&format!("\n  {kind} ("))
        .unwrap_or_else(|| panic!("no example of {kind}"));
    let body = &examples[start + 1..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body.lines()
        .take_while(|l| l.starts_with("    "))
        .map(|l| format!("{}\n", &l[4..]))
        .collect()
}

#[test]
fn help_has_every_part_of_the_documentation() {
    let help = help();
    for part in [
        "\nHOW TO RUN\n",
        "  1. kpt fn eval with a functionConfig file",
        "  2. kpt fn eval with key=value arguments",
        "  3. A Kptfile pipeline (kpt fn render",
        "\nEXIT CODES\n",
        "\n  0  ",
        "\n  1  ",
        "\n  2  ",
        "\nEXAMPLES\n",
        "\nFUNCTIONCONFIG REFERENCE\n",
        "\nPackageVariant (config.porch.kpt.dev/v1alpha1)\n",
        "\nPackageVariantSet (config.porch.kpt.dev/v1alpha2)\n",
        "\nConfigMap (v1)\n",
        "\n  spec.upstream.revision (integer)\n",
        "\n  spec.targets[].template.injectors[].nameExpr (string)\n",
        "\n  data (map of ",
    ] {
        assert!(help.contains(part), "--help lacks {part:?}:\n{help}");
    }
    let image = format!(
        "ghcr.io/package-variant/package-variant:v{}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(help.contains(&image));
    assert_eq!(
        help.matches("ghcr.io/package-variant/package-variant:")
            .count(),
        help.matches(&image).count(),
        "an image reference with another tag"
    );
}

#[test]
fn the_package_variant_example_runs() {
    let config = example(&help(), "PackageVariant");
    let in_cluster = "apiVersion: v1
kind: ConfigMap
metadata:
  name: us-east1-endpoints
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
data:
  db: db.us-east1.example.com
";
    let context = PACKAGE_CONTEXT.replace("  name: pkg\n", "  name: pkg\n  legacy-key: x\n");
    let out = run(&resource_list(
        &[KPTFILE, &context, INJECTION_POINT, in_cluster],
        &config,
    ));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("    region: us-east1\n"),
        "{}",
        out.stdout
    );
    assert!(!common::items_section(&out.stdout).contains("legacy-key"));
    assert!(out
        .stdout
        .contains("name: PackageVariant.web-us-east1.namespace.0"));
    assert!(out.stdout.contains("    db: db.us-east1.example.com\n"));
    assert!(!out.stdout.contains("severity: error"));
}

#[test]
fn the_package_variant_set_example_runs() {
    let config = example(&help(), "PackageVariantSet");
    let repo = |name: &str, env: &str, region: &str| {
        format!(
            "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: {name}
  labels: {{env: {env}, region: {region}}}
spec:
  type: git
"
        )
    };
    let upstream = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.web.v2
spec:
  repository: blueprints
  packageName: web
  revision: 2
";
    let (a, b) = (
        repo("edge-us-east1", "prod", "us-east1"),
        repo("lab", "test", "us-east1"),
    );
    let out = run(&resource_list(&[&a, &b, upstream], &config));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("name: fleet-web-edge-us-east1-web"));
    assert!(!out.stdout.contains("fleet-web-lab-web"));
    assert!(out.stdout.contains("region: us-east1"));
    assert!(!out.stdout.contains("severity: error"));
}

#[test]
fn the_config_map_example_runs() {
    let config = example(&help(), "ConfigMap");
    let out = run(&resource_list(&[PACKAGE_CONTEXT], &config));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("    region: us-east1\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn an_unknown_argument_exits_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("see --help"));
}

/// Exit code 2 is documented for both of its causes.
#[test]
fn exit_code_2_is_documented() {
    let help = help();
    let codes = &help[help.find("\nEXIT CODES\n").unwrap()..help.find("\nOPTIONS\n").unwrap()];
    let two = &codes[codes.find("\n  2  ").expect("exit code 2")..];
    assert!(two.contains("unknown command-line argument"), "{codes}");
    assert!(two.contains("stdin is a terminal"), "{codes}");
}

/// The fields `--help` marks required: leaving one out of the working functionConfig is an
/// error naming it (or, for a field required as one of two, naming both).
#[test]
fn fields_marked_required_are_refused_when_missing() {
    let help = help();
    let marked = |kind: &str| -> Vec<String> {
        let section = &help[help.find(&format!("\n{kind} (")).unwrap() + 1..];
        let section = &section[..section.find("\n\n").unwrap_or(section.len())];
        section
            .lines()
            .filter(|l| l.contains(", required"))
            .map(|l| l.trim().split(' ').next().unwrap().to_string())
            .collect()
    };
    let pv = marked("PackageVariant");
    for f in [
        "spec.upstream",
        "spec.upstream.repo",
        "spec.upstream.package",
        "spec.downstream",
        "spec.downstream.repo",
        "spec.downstream.package",
        "spec.injectors[].name",
    ] {
        assert!(
            pv.contains(&f.to_string()),
            "{f} not marked required: {pv:?}"
        );
    }
    let pvs = marked("PackageVariantSet");
    for f in [
        "spec.upstream",
        "spec.upstream.repo",
        "spec.upstream.package",
        "spec.upstream.revision",
        "spec.upstream.workspaceName",
        "spec.targets",
    ] {
        assert!(
            pvs.contains(&f.to_string()),
            "{f} not marked required: {pvs:?}"
        );
    }
    // Each one left out of a working PackageVariant.
    let pv_without = |upstream: &str, downstream: &str| {
        format!(
            "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: v\nspec:\n{upstream}{downstream}"
        )
    };
    let up = "  upstream: {repo: blueprints, package: web, revision: 1}\n";
    let down = "  downstream: {repo: edge, package: web}\n";
    for (field, config) in [
        ("spec.upstream", pv_without("", down)),
        (
            "spec.upstream.repo",
            pv_without("  upstream: {package: web, revision: 1}\n", down),
        ),
        (
            "spec.upstream.package",
            pv_without("  upstream: {repo: blueprints, revision: 1}\n", down),
        ),
        ("spec.downstream", pv_without(up, "")),
        (
            "spec.downstream.repo",
            pv_without(up, "  downstream: {package: web}\n"),
        ),
        (
            "spec.downstream.package",
            pv_without(up, "  downstream: {repo: edge}\n"),
        ),
    ] {
        let out = run(&resource_list(&[KPTFILE, PACKAGE_CONTEXT], &config));
        assert_eq!(out.code, 1, "{field}: {}", out.stdout);
        assert!(
            out.stdout.contains(&format!("path: {field}\n")),
            "{field} not named:\n{}",
            out.stdout
        );
    }
    let pvs = |upstream: &str, targets: &str| {
        format!(
            "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: s\nspec:\n{upstream}{targets}"
        )
    };
    let targets = "  targets:\n  - repositories: [{name: edge}]\n";
    for (field, config) in [
        ("spec.upstream", pvs("", targets)),
        (
            "spec.upstream.repo",
            pvs("  upstream: {package: web, revision: 1}\n", targets),
        ),
        (
            "spec.upstream.package",
            pvs("  upstream: {repo: blueprints, revision: 1}\n", targets),
        ),
        (
            "spec.upstream",
            pvs("  upstream: {repo: blueprints, package: web}\n", targets),
        ),
        (
            "spec.targets",
            pvs(
                "  upstream: {repo: blueprints, package: web, revision: 1}\n",
                "",
            ),
        ),
    ] {
        let out = run(&resource_list(&[], &config));
        assert_eq!(out.code, 1, "{field}: {}", out.stdout);
        assert!(
            out.stdout.contains(&format!("path: {field}\n")),
            "{field} not named:\n{}",
            out.stdout
        );
    }
}

/// The type of each field in `--help` is the type the README (and docs/) give it, wherever
/// their reference tables name a single field with a plain type.
#[test]
fn help_and_the_docs_agree_on_every_type() {
    let help = help();
    let mut help_types: Vec<(String, String, String)> = Vec::new(); // (kind, path, type)
    let mut kind = String::new();
    for line in help[help.find("\nFUNCTIONCONFIG REFERENCE\n").unwrap()..].lines() {
        if !line.starts_with(' ') && line.contains(" (") {
            kind = line.split(' ').next().unwrap().to_string();
        } else if let Some(rest) = line.strip_prefix("  ").filter(|r| !r.starts_with(' ')) {
            if let Some((path, ty)) = rest.split_once(" (") {
                let ty = ty.trim_end_matches(')').split(", required").next().unwrap();
                help_types.push((kind.clone(), path.to_string(), ty.to_string()));
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    if let Ok(dir) = std::fs::read_dir(root.join("docs")) {
        docs.extend(
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "md")),
        );
    }
    let plain = [
        "string",
        "integer",
        "boolean",
        "map of string",
        "list of string",
    ];
    let mut compared = 0;
    let mut disagree = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut kind = "";
        for line in text.lines() {
            if line.starts_with('#') {
                kind = if line.contains("PackageVariantSet") {
                    "PackageVariantSet"
                } else if line.contains("PackageVariant") {
                    "PackageVariant"
                } else if line.contains("ConfigMap") {
                    "ConfigMap"
                } else {
                    ""
                };
                continue;
            }
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if kind.is_empty() || cells.len() < 4 || !cells[1].starts_with('`') {
                continue;
            }
            let path = cells[1].trim_matches('`');
            let ty = cells[2];
            if path.contains(['`', ' ', '/']) || !plain.contains(&ty) {
                continue;
            }
            // The docs shorten `spec.targets[].x` to `targets[].x` and `template.x`.
            let found = help_types.iter().find(|(k, p, _)| {
                k == kind
                    && (p == path
                        || p.ends_with(&format!(".{path}"))
                            && (path.starts_with("targets[]") || path.starts_with("template.")))
            });
            match found {
                Some((_, p, t)) => {
                    compared += 1;
                    if t != ty {
                        disagree.push(format!(
                            "{}: {kind} {path} is {ty}; --help says {p} ({t})",
                            doc.display()
                        ));
                    }
                }
                None if !path.starts_with("metadata.") => {
                    disagree.push(format!("{}: {kind} {path} is not in --help", doc.display()))
                }
                None => {}
            }
        }
    }
    assert!(disagree.is_empty(), "{disagree:#?}");
    assert!(
        compared >= 15,
        "only {compared} fields compared: the reference tables moved?"
    );
}

/// stdin is a terminal (someone typed `package-variant`): say what the binary needs and exit
/// at once rather than wait for a ResourceList to be typed. Run under a pseudo-terminal
/// (`script`), with `timeout` so that a binary that waits fails instead of hanging.
#[test]
fn a_terminal_on_stdin_gets_an_answer_at_once() {
    let bin = env!("CARGO_BIN_EXE_package-variant");
    let out = Command::new("timeout")
        .args([
            "20",
            "script",
            "-qec",
            &format!("'{bin}'; echo \"exit=$?\""),
            "/dev/null",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script (util-linux) and timeout (coreutils) are needed for this test");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "timed out or failed: {out:?}");
    assert!(text.contains("stdin is a terminal"), "{text}");
    assert!(text.contains("package-variant < rl.yaml"), "{text}");
    assert!(text.contains("--help"), "{text}");
    assert!(text.contains("exit=2"), "{text}");
}

/// The extension set's upstream fields: listed under its kind, the required ones marked, and
/// each refused when left out of a working set.
#[test]
fn the_extension_sets_upstream_fields_are_listed_and_required_ones_refused() {
    let help = help();
    let section = &help[help
        .find("\nPackageVariantSet (fn.kpt.dev/v1alpha1)\n")
        .unwrap()
        + 1..];
    let section = &section[..section.find("\n\n").unwrap_or(section.len())];
    for line in [
        "  spec.upstream.tag (string)\n",
        "  spec.upstreams (list of object)\n",
        "  spec.upstreams[].repo (string, required)\n",
        "  spec.upstreams[].package (string, required)\n",
        "  spec.upstreams[].tag (string, required unless revision or workspaceName is given)\n",
    ] {
        assert!(section.contains(line), "{line:?} not in\n{section}");
    }
    let set = |upstream: &str| {
        format!(
            "apiVersion: fn.kpt.dev/v1alpha1\nkind: PackageVariantSet\nmetadata:\n  name: s\nspec:\n  upstreams:\n  - {upstream}\n  targets:\n  - repositories: [{{name: edge}}]\n"
        )
    };
    for (field, config) in [
        ("spec.upstreams[0].repo", set("{package: web, tag: stable}")),
        (
            "spec.upstreams[0].package",
            set("{repo: blueprints, tag: stable}"),
        ),
        ("spec.upstreams[0]", set("{repo: blueprints, package: web}")),
    ] {
        let out = run(&resource_list(&[], &config));
        assert_eq!(out.code, 1, "{field}: {}", out.stdout);
        assert!(
            out.stdout.contains(&format!("path: {field}\n"))
                || out.stdout.contains(&format!("path: '{field}'\n")),
            "{field} not named:\n{}",
            out.stdout
        );
    }
}

/// The extension kinds have an example that runs, and the annotations that change what a run
/// may do are named; the image line says the image is not published and what to use instead.
#[test]
fn the_extension_example_runs_and_the_annotations_are_named() {
    let help = help();
    let config = example(&help, "Extension PackageVariant");
    assert!(
        config.starts_with("apiVersion: fn.kpt.dev/v1alpha1\n"),
        "{config}"
    );
    let in_cluster = "apiVersion: v1
kind: ConfigMap
metadata:
  name: us-east1-endpoints
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
    config.kubernetes.io/local-config: \"true\"
    config.kubernetes.io/path: in-cluster/endpoints.yaml
data:
  db: db.us-east1.example.com
";
    let out = run(&resource_list(
        &[KPTFILE, INJECTION_POINT, in_cluster],
        &config,
    ));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("    db: db.us-east1.example.com\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("  name: web-flags\n"), "{}", out.stdout);
    assert!(!out.stdout.contains("severity: warning"), "{}", out.stdout);
    let annotations = &help[help.find("\nANNOTATIONS").expect("an ANNOTATIONS section")..];
    let annotations = &annotations[..annotations.find("\nEXIT CODES").unwrap()];
    for name in ["cluster-objects", "allow-deletions", "sync-policy"] {
        assert!(
            annotations.contains(&format!("\n  package-variant.fn.kpt.dev/{name} ")),
            "{annotations}"
        );
    }
    let image_line = help
        .lines()
        .position(|l| l.contains("--image ghcr.io/package-variant/package-variant"))
        .unwrap();
    let next: Vec<&str> = help.lines().skip(image_line + 1).take(2).collect();
    assert!(
        next[0].contains("The image is not published") && next[1].contains("--exec"),
        "{next:?}"
    );
}

/// The entries of `--help`'s ANNOTATIONS section: (key, its text with the lines joined).
fn annotation_entries(help: &str) -> Vec<(String, String)> {
    let start = help
        .find("\nANNOTATIONS\n")
        .expect("an ANNOTATIONS section");
    let section = &help[start + 1..];
    let section = &section[..section.find("\n\n").unwrap()];
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in section.lines().skip(1) {
        if let Some(rest) = line.strip_prefix("  package-variant.fn.kpt.dev/") {
            let (name, text) = rest.split_once(' ').unwrap_or((rest, ""));
            entries.push((
                format!("package-variant.fn.kpt.dev/{name}"),
                text.trim().to_string(),
            ));
        } else if line.starts_with("                ") {
            let (_, text) = entries.last_mut().expect("a key before its text");
            text.push(' ');
            text.push_str(line.trim());
        }
    }
    entries
}

/// `--help`'s ANNOTATIONS section lists exactly the registry the functions read
/// (`api::annotations::REGISTRY`), in its order, each with where it goes and what its value
/// does; and every annotation key under the function's prefix that `--help` names elsewhere is
/// in the registry.
#[test]
fn the_annotations_section_is_the_registry() {
    use package_variant::api::annotations::{PREFIX, REGISTRY};
    let help = help();
    let listed = annotation_entries(&help);
    let registry: Vec<(String, String)> = REGISTRY
        .iter()
        .map(|a| {
            let text = format!("{}: {}", a.on.phrase(), a.about);
            (
                a.key.to_string(),
                text.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect();
    assert_eq!(listed, registry);
    // Keys named anywhere in --help (an example, the exit codes): registered ones only. The
    // tag label `package-variant.fn.kpt.dev/tag-T` is a label of PackageRevisions.
    for (i, _) in help.match_indices(PREFIX) {
        let key: String = help[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '/'))
            .collect();
        let key = key.trim_end_matches(['.', '-']);
        if key == PREFIX || key.starts_with(&format!("{PREFIX}tag-")) {
            continue;
        }
        assert!(
            REGISTRY.iter().any(|a| a.key == key),
            "--help names {key}, which the registry lacks"
        );
    }
}

/// docs/reference.md's Annotations table lists the registry's keys, in its order, and every
/// key under the prefix that README.md or docs/ names is one of them (or the tag label).
#[test]
fn the_reference_annotations_table_is_the_registry() {
    use package_variant::api::annotations::{PREFIX, REGISTRY};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let reference = std::fs::read_to_string(root.join("docs/reference.md")).unwrap();
    let start = reference
        .find("\n### Annotations\n")
        .expect("an Annotations section");
    let section = &reference[start + 1..];
    let section = &section[..section[4..].find("\n##").map_or(section.len(), |i| i + 4)];
    let table: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    let keys: Vec<&str> = REGISTRY.iter().map(|a| a.key).collect();
    assert_eq!(table, keys);
    let mut docs = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            docs.push(path);
        }
    }
    for path in docs {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices(PREFIX) {
            let key: String = text[i..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '/'))
                .collect();
            let key = key.trim_end_matches(['.', '-']);
            // A typo shown as one (the message that refuses it) is meant.
            let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
            let line_end = text[i..].find('\n').map_or(text.len(), |n| i + n);
            let shown_refused = text[line_start..line_end].contains("unknown annotation");
            if key == PREFIX || key.starts_with(&format!("{PREFIX}tag-")) || shown_refused {
                continue;
            }
            assert!(
                keys.contains(&key),
                "{} names {key}, which the registry lacks",
                path.display()
            );
        }
    }
}
