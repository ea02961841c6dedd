//! The identities of the extension's injection sources and owned resources, through the binary
//! (issue 29): every name that becomes a file path or an identity is checked as the API server
//! would check it before it is used (an owned file stays directly in `injected/`), and an owned
//! resource stays the variant's whatever another function did to its namespace.

mod common;
mod shell;

use common::{items_section, resource_list, results_section, run, KPTFILE};
use shell::{bin_dir, sh, Scratch};
use std::fs;

/// An extension PackageVariant `my-pv` with `spec` lines appended (indented by two).
fn pv(extra: &str) -> String {
    format!(
        "apiVersion: fn.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-pv
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: deployments, package: base}}
{extra}"
    )
}

/// A Published package revision shared/databases 3 (PackageRevision and its
/// PackageRevisionResources) whose one ConfigMap `us-east1` is in `namespace`.
fn package_revision(namespace: &str) -> [String; 2] {
    let meta = "  name: shared.databases.v3
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
";
    [
        format!(
            "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
{meta}spec: {{repository: shared, packageName: databases, revision: 3, lifecycle: Published}}
"
        ),
        format!(
            "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevisionResources
metadata:
{meta}spec:
  repository: shared
  packageName: databases
  revision: 3
  resources:
    dbs.yaml: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: us-east1
        namespace: {namespace:?}
      data:
        primary: pg.us-east1
"
        ),
    ]
}

fn go(items: &[String], config: &str) -> common::Run {
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    run(&resource_list(&items, config))
}

/// Exit 1, nothing added, and an error result with `message` (a part of it) at `field`.
fn assert_refused(out: &common::Run, input_items: &[String], message: &str, field: &str) {
    assert_eq!(out.code, 1, "{}", out.stdout);
    // YAML's single quotes write a quote twice.
    let results = results_section(&out.stdout).replace("''", "'");
    assert!(results.contains(message), "{message:?} not in\n{results}");
    assert!(
        results.contains(&format!("path: {field}\n"))
            || results.contains(&format!("path: '{field}'\n")),
        "{field} not in\n{results}"
    );
    // The items come back exactly as they went in.
    let input: Vec<&str> = input_items.iter().map(String::as_str).collect();
    let input = resource_list(&input, "");
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

#[test]
fn a_source_in_a_namespace_that_is_a_path_adds_no_file_outside_its_folder() {
    let [pr, prr] = package_revision("../../outside/pwned");
    let items = vec![KPTFILE.to_string(), pr, prr];
    let config = pv("  injection:
  - packageResource: {repo: shared, package: databases, apiVersion: v1, kind: ConfigMap, name: us-east1}
");
    let out = go(&items, &config);
    assert_refused(
        &out,
        &items,
        "ConfigMap \"us-east1\" of package shared/databases revision 3 has metadata.namespace \
         \"../../outside/pwned\", which the API server refuses: \"../../outside/pwned\" is not a \
         namespace: it contains '.'",
        "spec.injection[0].packageResource",
    );
    assert!(!out.stdout.contains("outside/pwned-"), "{}", out.stdout);
}

#[test]
fn an_inline_resource_names_what_the_api_server_would_take() {
    let items = vec![KPTFILE.to_string()];
    for (meta, message, field) in [
        (
            "{name: x, namespace: ../../outside/pwned}",
            "\"../../outside/pwned\" is not a namespace",
            "metadata.namespace",
        ),
        (
            "{name: a/b}",
            "\"a/b\" is not a Kubernetes object name: it contains '/'",
            "metadata.name",
        ),
        (
            "{name: UPPER}",
            "it contains the upper-case letter 'U' (write \"upper\")",
            "metadata.name",
        ),
    ] {
        let config = pv(&format!(
            "  injection:\n  - directResource: {{apiVersion: v1, kind: ConfigMap, metadata: {meta}, data: {{a: b}}}}\n"
        ));
        let out = go(&items, &config);
        assert_refused(
            &out,
            &items,
            message,
            &format!("spec.injection[0].directResource.{field}"),
        );
    }
    let config = pv("  injection:
  - directResource: {apiVersion: v1, kind: ../../X, metadata: {name: x}, data: {a: b}}
");
    let out = go(&items, &config);
    assert_refused(
        &out,
        &items,
        "\"../../X\" is not a kind",
        "spec.injection[0].directResource.kind",
    );
}

/// RBAC objects take the API server's path segment rule, not the subdomain one: a ClusterRole
/// `system:aggregate-to-view` is added, directly in `injected/`; `a/b` is still refused.
#[test]
fn an_owned_rbac_object_takes_its_own_name_rule() {
    let items = vec![KPTFILE.to_string()];
    let role = |name: &str| {
        pv(&format!(
            "  injection:\n  - directResource: {{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {{name: '{name}'}}, rules: []}}\n"
        ))
    };
    let out = go(&items, &role("system:aggregate-to-view"));
    assert_eq!(out.code, 0, "{}", results_section(&out.stdout));
    let added = items_section(&out.stdout);
    assert!(
        added.contains("name: system:aggregate-to-view\n"),
        "{added}"
    );
    assert!(
        added.contains(
            "internal.config.kubernetes.io/path: injected/clusterrole-system:aggregate-to-view.yaml\n"
        ),
        "{added}"
    );
    let out = go(&items, &role("a/b"));
    assert_refused(
        &out,
        &items,
        "\"a/b\" is not an RBAC object name: it may not contain '/'",
        "spec.injection[0].directResource.metadata.name",
    );
}

#[test]
fn source_names_are_checked_before_they_are_looked_up() {
    let items = vec![
        KPTFILE.to_string(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    \
         kpt.dev/config-injection: required\n    config.kubernetes.io/path: endpoints.yaml\n\
         data:\n  db: placeholder\n"
            .to_string(),
    ];
    for (entry, message, field) in [
        (
            "{bindingPoint: endpoints, clusterResource: {name: \"$(touch x)\"}}",
            "\"$(touch x)\" is not a Kubernetes object name",
            "spec.injection[0].clusterResource.name",
        ),
        (
            "{bindingPoint: endpoints, packageResource: {repo: Shared, package: databases, name: us-east1}}",
            "\"Shared\" is not a Kubernetes object name",
            "spec.injection[0].packageResource.repo",
        ),
        (
            "{bindingPoint: endpoints, packageResource: {repo: shared, package: databases, kind: ../../X, name: us-east1}}",
            "\"../../X\" is not a kind",
            "spec.injection[0].packageResource.kind",
        ),
        (
            "{packageResource: {repo: shared, package: databases, apiVersion: v1, kind: ConfigMap, name: a/b}}",
            "\"a/b\" is not a Kubernetes object name",
            "spec.injection[0].packageResource.name",
        ),
    ] {
        let out = go(&items, &pv(&format!("  injection:\n  - {entry}\n")));
        assert_refused(&out, &items, message, field);
    }
}

/// The output's items run again with `config` (the sources were not sent again: the entries
/// here are inline).
fn again(items: &str, config: &str) -> common::Run {
    let mut next = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n");
    next.push_str(items);
    next.push_str("functionConfig:\n");
    for line in config.lines() {
        next.push_str(&format!("  {line}\n"));
    }
    run(&next)
}

const OWNED: &str = "  injection:
  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: extra}, data: {a: b}}
";

#[test]
fn an_owned_resource_whose_namespace_another_function_set_is_taken_back() {
    let config = pv(OWNED);
    let first = go(&[KPTFILE.to_string()], &config);
    assert_eq!(first.code, 0, "{}", first.stdout);
    let items = items_section(&first.stdout);
    assert!(items.contains("injected/configmap-extra.yaml"), "{items}");
    // set-namespace, as a function after the variant's in the pipeline would.
    let moved = items.replace(
        "    name: extra\n",
        "    name: extra\n    namespace: prod\n",
    );
    assert_ne!(moved, items);
    let second = again(&moved, &config);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert!(
        second.stdout.contains(
            "took back ConfigMap \"extra\" (injected/configmap-extra.yaml), owned by \
             PackageVariant \"my-pv\": its namespace is \"prod\" (another function set it)"
        ),
        "{}",
        second.stdout
    );
    // One file, as the entry says; the next run changes nothing.
    assert_eq!(items_section(&second.stdout), items);
    let third = again(items_section(&second.stdout), &config);
    assert_eq!(third.code, 0, "{}", third.stdout);
    assert_eq!(items_section(&third.stdout), items);
    // Its entry gone, the moved resource goes too.
    let removed = again(&moved, &pv(""));
    assert_eq!(removed.code, 0, "{}", removed.stdout);
    assert!(!items_section(&removed.stdout).contains("name: extra"));
}

/// `dir/pkg`, whose Kptfile's pipeline runs the variant `pv.yaml`, then `more` (mutators).
fn package(dir: &std::path::Path, more: &str) -> std::path::PathBuf {
    let pkg = dir.join("pkg");
    fs::create_dir_all(&pkg).unwrap();
    fs::write(
        pkg.join("Kptfile"),
        format!(
            "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n  annotations:\n    \
             config.kubernetes.io/local-config: \"true\"\npipeline:\n  mutators:\n  - exec: \
             package-variant\n    configPath: pv.yaml\n{more}"
        ),
    )
    .unwrap();
    pkg
}

/// Under kpt: a pipeline of the variant, then a function that sets the owned resource's
/// namespace (a sed script standing in for set-namespace), rendered twice. The second render
/// used to fail forever ("... does not own (it is owned by PackageVariant ...)").
#[test]
fn under_kpt_a_pipeline_that_sets_the_namespace_renders_again() {
    let scratch = Scratch::new("owned-namespace");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    let set_ns = bin.join("set-ns");
    fs::write(
        &set_ns,
        "#!/bin/sh\nexec sed -e 's/^    name: extra$/    name: extra\\n    namespace: prod/'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&set_ns, fs::Permissions::from_mode(0o755)).unwrap();
    let pkg = package(dir, "  - exec: set-ns\n");
    fs::write(
        pkg.join("pv.yaml"),
        pv(OWNED).replace(
            "  name: my-pv\n",
            "  name: my-pv\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
        ),
    )
    .unwrap();
    for round in 1..=3 {
        let (code, log) = sh(dir, &bin, "kpt fn render pkg --allow-exec");
        assert_eq!(code, 0, "render {round}: {log}");
        let owned = fs::read_to_string(pkg.join("injected/configmap-extra.yaml")).unwrap();
        assert!(
            owned.contains("  namespace: prod\n"),
            "render {round}: {owned}"
        );
        assert!(
            owned.contains("package-variant.fn.kpt.dev/owner: my-pv"),
            "{owned}"
        );
        let files: Vec<_> = fs::read_dir(pkg.join("injected")).unwrap().collect();
        assert_eq!(files.len(), 1, "render {round}: {files:?}");
    }
}

/// The longest valid names (a 253-byte name, a 63-byte namespace) under kpt: the owned files'
/// names are cut to what the file system takes, the second render changes nothing, and with
/// the entries gone the files go too (issue 40).
#[test]
fn under_kpt_the_longest_names_make_files_the_file_system_takes() {
    let scratch = Scratch::new("owned-long-names");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    let name = format!(
        "{}.{}.{}.{}",
        "a".repeat(63),
        "b".repeat(63),
        "c".repeat(63),
        "d".repeat(61)
    );
    assert_eq!(name.len(), 253);
    let namespace = "n".repeat(63);
    let pkg = package(dir, "");
    let write_pv = |injection: &str| {
        fs::write(
            pkg.join("pv.yaml"),
            pv(injection).replace(
                "  name: my-pv\n",
                "  name: my-pv\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
            ),
        )
        .unwrap();
    };
    write_pv(&format!(
        "  injection:
  - directResource: {{apiVersion: v1, kind: ConfigMap, metadata: {{name: {name}}}, data: {{a: b}}}}
  - directResource: {{apiVersion: v1, kind: ConfigMap, metadata: {{name: {name}, namespace: {namespace}}}, data: {{a: b}}}}
"
    ));
    let listing = || {
        let mut files: Vec<(String, String)> = fs::read_dir(pkg.join("injected"))
            .map(|d| {
                d.map(|e| {
                    let path = e.unwrap().path();
                    let text = fs::read_to_string(&path).unwrap();
                    (
                        path.file_name().unwrap().to_str().unwrap().to_string(),
                        text,
                    )
                })
                .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    };
    let (code, log) = sh(dir, &bin, "kpt fn render pkg --allow-exec");
    assert_eq!(code, 0, "{log}");
    let first = listing();
    assert_eq!(first.len(), 2, "{first:?}");
    for (file, text) in &first {
        assert!(file.len() <= 255, "{} bytes: {file}", file.len());
        assert!(file.starts_with("configmap-"), "{file}");
        assert!(text.contains(&format!("  name: {name}\n")), "{text}");
        assert!(
            text.contains("package-variant.fn.kpt.dev/owner: my-pv"),
            "{text}"
        );
    }
    assert!(
        first[0].1.contains(&format!("  namespace: {namespace}\n"))
            || first[1].1.contains(&format!("  namespace: {namespace}\n"))
    );
    let (code, log) = sh(dir, &bin, "kpt fn render pkg --allow-exec");
    assert_eq!(code, 0, "{log}");
    assert_eq!(
        listing(),
        first,
        "the second render changed the owned files"
    );
    write_pv("");
    let (code, log) = sh(dir, &bin, "kpt fn render pkg --allow-exec");
    assert_eq!(code, 0, "{log}");
    assert_eq!(listing(), vec![], "{log}");
}

/// An owned file name is cut only when it is too long, and the cut is the same every run.
#[test]
fn a_long_owned_file_name_is_cut_with_a_hash() {
    use package_variant::package_variant::owned::owned_path;
    assert_eq!(
        owned_path("ConfigMap", "a", "extra"),
        "injected/configmap-a-extra.yaml"
    );
    let name = "x".repeat(253);
    let path = owned_path("ConfigMap", &"n".repeat(63), &name);
    let file = path.strip_prefix("injected/").unwrap();
    assert_eq!(file.len(), 255, "{file}");
    assert!(file.starts_with(&format!("configmap-{}-xxx", "n".repeat(63))));
    assert_eq!(path, owned_path("ConfigMap", &"n".repeat(63), &name));
    assert_ne!(path, owned_path("ConfigMap", &"n".repeat(63), &name[1..]));
    // 250 bytes with `.yaml`: kept whole.
    let whole = owned_path("ConfigMap", "", &"y".repeat(250 - "configmap-".len() - 5));
    assert_eq!(whole.len(), "injected/".len() + 250);
}

/// Two items claim the one resource an entry adds (issue 40): neither is taken back or
/// removed on a guess; an error names both, and nothing changes.
#[test]
fn two_items_claiming_one_owned_resource_are_refused() {
    let owned = |namespace: &str, path: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: {namespace}\n  \
             annotations:\n    package-variant.fn.kpt.dev/owner: my-pv\n    \
             config.kubernetes.io/path: {path}\n    internal.config.kubernetes.io/path: {path}\n\
             data:\n  a: b\n"
        )
    };
    let items = vec![
        KPTFILE.to_string(),
        owned("a", "injected/configmap-extra.yaml"),
        owned("b", "app/x.yaml"),
    ];
    for config in [
        pv(OWNED),
        pv(&OWNED.replace("{name: extra}", "{name: extra, namespace: a}")),
    ] {
        let out = go(&items, &config);
        assert_refused(
            &out,
            &items,
            "ConfigMap \"extra\" is claimed by 2 resources PackageVariant \"my-pv\" owns: \
             injected/configmap-extra.yaml (namespace \"a\") and app/x.yaml (namespace \"b\"); \
             spec.injection[0] adds one",
            "spec.injection[0]",
        );
    }
    // Two entries, one per namespace, each with its own: no doubt.
    let two = pv(&format!(
        "{OWNED}{}",
        OWNED
            .replace("  injection:\n", "")
            .replace("{name: extra}", "{name: extra, namespace: b}")
    )
    .replace("{name: extra}", "{name: extra, namespace: a}"));
    let out = go(&items, &two);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

/// A take-back for an entry without a namespace says so (not `writes ""`).
#[test]
fn a_take_back_to_no_namespace_says_so() {
    let config = pv(OWNED);
    let first = go(&[KPTFILE.to_string()], &config);
    let moved = items_section(&first.stdout).replace(
        "    name: extra\n",
        "    name: extra\n    namespace: prod\n",
    );
    let second = again(&moved, &config);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert!(
        second
            .stdout
            .contains("spec.injection[0] gives it no namespace; written as the entry says"),
        "{}",
        second.stdout
    );
}

// ------------------------------------------ owned file names that would meet (issue 49, 2, 3)

/// Entries whose plain file names meet: ConfigMap `b-c` in `a`, `c` in `a-b` and `a-b-c` all
/// make `configmap-a-b-c`; `v1 ConfigMap x` and `example.com/v1 Configmap x` both
/// `configmap-x`. `solo` meets none.
const MEETING: &str = "  injection:
  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: b-c, namespace: a}, data: {k: '1'}}
  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a-b}, data: {k: '2'}}
  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: a-b-c}, data: {k: '3'}}
  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {k: '4'}}
  - directResource: {apiVersion: example.com/v1, kind: Configmap, metadata: {name: x}, data: {k: '5'}}
  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: solo}, data: {k: '6'}}
";

/// The file path of each owned item of `rl`, by its data's `k`.
fn owned_paths(rl: &str) -> Vec<(String, String)> {
    let list = package_variant::yaml::parse(rl).unwrap();
    let json = package_variant::yaml::to_json(list.get("items").unwrap()).unwrap();
    let mut out: Vec<(String, String)> = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["metadata"]["annotations"]["package-variant.fn.kpt.dev/owner"] == "my-pv")
        .map(|i| {
            (
                i["data"]["k"].as_str().unwrap().to_string(),
                i["metadata"]["annotations"]["internal.config.kubernetes.io/path"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Distinct identities get distinct files: a name that two would take gets a short hash of the
/// identity, the same every run; a name that none shares stays as it was.
#[test]
fn owned_file_names_that_would_meet_get_a_hash() {
    let input = resource_list(&[KPTFILE], &pv(MEETING));
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let paths = owned_paths(&out.stdout);
    assert_eq!(paths.len(), 6, "{paths:?}");
    let files: std::collections::HashSet<&str> = paths.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(files.len(), 6, "two identities share a file: {paths:?}");
    let hashed = |p: &str, stem: &str| {
        p.strip_prefix(&format!("injected/{stem}-"))
            .and_then(|h| h.strip_suffix(".yaml"))
            .is_some_and(|h| h.len() == 8 && h.chars().all(|c| c.is_ascii_hexdigit()))
    };
    for (k, path) in &paths {
        match k.as_str() {
            "1" | "2" | "3" => assert!(hashed(path, "configmap-a-b-c"), "{path}"),
            "4" | "5" => assert!(hashed(path, "configmap-x"), "{path}"),
            _ => assert_eq!(path, "injected/configmap-solo.yaml"),
        }
    }
    assert!(
        out.stdout
            .contains("added ConfigMap \"b-c\" to the package (injected/configmap-a-b-c-"),
        "{}",
        out.stdout
    );
    // The same every run, and a second run changes nothing.
    assert_eq!(run(&input).stdout, out.stdout);
    let second = again(items_section(&out.stdout), &pv(MEETING));
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert_eq!(items_section(&second.stdout), items_section(&out.stdout));
}

/// A name taken by a file this variant added on an earlier run: the new entry gets the hash,
/// the file already there keeps its name; a file the variant does not own at the name is
/// still never overwritten.
#[test]
fn an_owned_file_name_is_checked_against_the_files_already_there() {
    let first = "  injection:
  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: a-b-c}, data: {k: '3'}}
";
    let out = run(&resource_list(&[KPTFILE], &pv(first)));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        owned_paths(&out.stdout),
        [("3".to_string(), "injected/configmap-a-b-c.yaml".to_string())]
    );
    let both = format!(
        "{first}  - directResource: {{apiVersion: v1, kind: ConfigMap, metadata: {{name: b-c, namespace: a}}, data: {{k: '1'}}}}\n"
    );
    let second = again(items_section(&out.stdout), &pv(&both));
    assert_eq!(second.code, 0, "{}", second.stdout);
    let paths = owned_paths(&second.stdout);
    assert_eq!(paths[1].1, "injected/configmap-a-b-c.yaml", "{paths:?}");
    assert!(
        paths[0].1.starts_with("injected/configmap-a-b-c-") && paths[0].1 != paths[1].1,
        "{paths:?}"
    );
    let third = again(items_section(&second.stdout), &pv(&both));
    assert_eq!(items_section(&third.stdout), items_section(&second.stdout));
}

/// Under kpt, the six entries that meet become six files and a second render changes none
/// (kpt used to fail with "already exists").
#[test]
fn under_kpt_owned_files_that_would_meet_are_written_apart() {
    let scratch = Scratch::new("owned-meeting");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    let pkg = package(dir, "");
    fs::write(
        pkg.join("pv.yaml"),
        pv(MEETING).replace(
            "  name: my-pv\n",
            "  name: my-pv\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
        ),
    )
    .unwrap();
    let listing = || {
        let mut files: Vec<(String, String)> = fs::read_dir(pkg.join("injected"))
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_str().unwrap().to_string();
                (name, fs::read_to_string(&path).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let (code, log) = sh(dir, &bin, "kpt fn render pkg --allow-exec");
    assert_eq!(code, 0, "{log}");
    let first = listing();
    assert_eq!(first.len(), 6, "{first:?}");
    // One resource a file.
    assert!(
        first.iter().all(|(_, text)| !text.contains("\n---")),
        "{first:?}"
    );
    let (code, log) = sh(dir, &bin, "kpt fn render pkg --allow-exec");
    assert_eq!(code, 0, "{log}");
    assert_eq!(
        listing(),
        first,
        "the second render changed the owned files"
    );
}

/// A name with a control character (NUL, line break, tab, DEL, a C1 control) would become a
/// file name: refused on the entry's field, the name quoted; a name the rule takes is quoted
/// in the results too.
#[test]
fn a_name_with_a_control_character_names_no_file() {
    for (yaml, shown) in [
        ("a\\0b", "a\\0b"),
        ("a\\nb", "a\\nb"),
        ("a\\tb", "a\\tb"),
        ("a\\x7Fb", "a\\u{7f}b"),
        ("a\\Nb", "a\\u{85}b"),
    ] {
        let config = pv(&format!(
            "  injection:\n  - directResource: {{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {{name: \"{yaml}\"}}}}\n"
        ));
        let items = vec![KPTFILE.to_string()];
        let out = run(&resource_list(&[KPTFILE], &config));
        assert_refused(
            &out,
            &items,
            &format!("\"{shown}\" holds the control character"),
            "spec.injection[0].directResource.metadata.name",
        );
        assert!(!out.stdout.contains("injected/"), "{yaml}: {}", out.stdout);
    }
    let config = pv("  injection:\n  - directResource: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: \"system:viewer\"}}\n");
    let out = run(&resource_list(&[KPTFILE], &config));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.contains("added ClusterRole \"system:viewer\" to the package (injected/clusterrole-system:viewer.yaml)"),
        "{}",
        out.stdout
    );
}
